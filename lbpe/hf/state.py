"""lbpe's part of an LBPE tokenizer (:class:`_State`) and what a pickle of it alone gives: the
fingerprint ``datasets`` hashes a tokenizer by."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lbpe.errors import LbpeError
from lbpe.tokenizer import Tokenizer

#: The module pickles and ``datasets``' fingerprints name for what this package makes at run
#: time and rebuilds from a pickle (the LBPE classes, :func:`_fingerprint`, ``_rebuild``,
#: ``LBPETokenizer``): the package itself, so those names, and the hashes made of them, are the
#: same whichever of its modules defines each.
HOME = "lbpe.hf"


def backend_tokenizer(backend: Any, *, source: str, name: str) -> Tokenizer:
    """lbpe's tokenizer of the pipeline a ``tokenizers.Tokenizer`` runs (``backend``, as
    transformers built or trained it); ``source`` names it in errors."""
    from lbpe.formats._json import load_json
    from lbpe.formats.hf import parse_hf_spec

    spec = load_json(backend.to_str().encode("utf-8"), source=source)
    return parse_hf_spec(spec, source=source, name=name, leave_to_transformers=True)


def _fingerprint(sha: str, source: str | None) -> None:
    """What unpickling an :class:`_State` alone meets: it pickles as its fingerprint only."""
    raise LbpeError(
        f"this is the fingerprint of an LBPE tokenizer's state (vocabulary {sha[:12]}...), not the state; "
        "pickle the tokenizer itself"
    )


_fingerprint.__module__ = HOME


class _State:
    """lbpe's part of an LBPE tokenizer: lbpe's tokenizer, the file it was built from, and what
    the two paths remember (the full path's backend, the special tokens and added tokens of the
    fast path). Pickled on its own (as ``datasets`` pickles a tokenizer's ``__dict__`` to hash it)
    it gives its fingerprint: lbpe's vocabulary hash and the source file's name. The tokenizer
    itself pickles all of it (see ``__reduce_ex__``)."""

    def __init__(self, tok: Tokenizer, source: Path | None) -> None:
        self.tok = tok
        self.source = source
        self._sha: str | None = None
        self.version = 0  # bumped when tokens are added through transformers
        self.full: tuple[Any, Any] | None = None  # (backend signature, the full path's backend)
        self.added: tuple[Any, Any] | None = None  # (key, _Added)
        self.specials: dict[bytes, tuple] = {}  # post-processor state -> prefix, suffix

    @property
    def sha(self) -> str:
        """lbpe's vocabulary hash (:func:`lbpe.corpus.shards.vocab_sha256`), computed when first asked for."""
        if self._sha is None:
            from lbpe.corpus.shards import vocab_sha256

            self._sha = vocab_sha256(self.tok)
        return self._sha

    def __reduce__(self):
        return (_fingerprint, (self.sha, self.source.name if self.source else None))

    def __deepcopy__(self, memo: dict) -> _State:
        return _State(self.tok, self.source)
