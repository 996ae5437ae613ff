"""LBPE inside Hugging Face transformers: the model's own tokenizer, encoding long tokens first::

    from lbpe.hf import LBPETokenizer
    tok = LBPETokenizer.from_pretrained("path/to/llama3", mode="lbpe")   # or "mistral-7b", "cl100k_base", ...
    tok(["a batch", "of texts"], padding=True, return_tensors="np")
    tok.save_pretrained("my-tokenizer")
    AutoTokenizer.from_pretrained("my-tokenizer", trust_remote_code=True)  # LBPE again (needs lbpe installed)

``from_pretrained`` loads the model's own fast tokenizer (a folder with ``tokenizer.json``, or
a ``tokenizer.json`` file; nothing is fetched from a hub), or a bundled vocabulary by its preset
name (:data:`lbpe.presets.VOCAB_PRESETS`; a file or folder of that name wins). Given a
SentencePiece ``.model``, a ``.tiktoken`` rank file or GPT-2's ``encoder.json`` + ``vocab.bpe``
instead (or a folder of one), it builds that fast tokenizer itself
(:func:`lbpe.formats.hf_write.tokenizer_json_of`: the LLaMA / Mistral form for SentencePiece, a
merge list replaying the ranks for rank files), whose ids equal ``sentencepiece``'s and
tiktoken's. The object returned is an instance of the model's own transformers class (a
subclass of it), and its ``backend_tokenizer`` is the model's own, untouched.

In ``mode="lbpe"`` encoding takes one of two exact paths:

* the fast path (the usual calls: texts or batches of texts, special tokens, truncation,
  padding, masks, ``return_tensors``): the text is split at the added tokens the backend
  holds, as ``tokenizers`` splits it, each other part is encoded by lbpe's compiled
  :meth:`lbpe.Tokenizer.encode_ordinary`, and the post-processor's special tokens, truncation
  and padding are applied as ``tokenizers`` applies them. ``.encodings`` (``word_ids``,
  ``tokens``, ...) of its result are computed by the full path when first asked for;
* the full path (offsets, pairs, words given pre-split, overflowing tokens, added tokens
  ``tokenizers`` matches in a way the fast path does not reproduce): a copy of the backend
  whose pre-tokenizer is followed by one of ours that splits each piece into the tokens
  :meth:`lbpe.Tokenizer.split_piece` places longest first, the BPE model keeping each whole.

Both give ``input_ids`` equal to ``lbpe.load(path).encode(text, mode="lbpe",
allowed_special="all")`` plus the special tokens the model adds (the tests hold the two paths
equal); ``mode="bpe"`` is the model's own tokenizer.

``save_pretrained`` writes the model's files, a module ``lbpe_tokenizer.py`` and in
``tokenizer_config.json`` the class ``LBPETokenizer``, an ``auto_map`` naming that module, the
mode (``lbpe_mode``) and the model's own class (``lbpe_base_class``); a tokenizer built from
another file keeps that file beside ``tokenizer.json`` (``lbpe_vocab_file``, with the rank
file's ``lbpe_pattern``). ``AutoTokenizer.from_pretrained(folder, trust_remote_code=True)``
then gives this tokenizer in the saved mode (the module imports lbpe: without it transformers
says ``pip install lbpe``); without ``trust_remote_code`` transformers refuses and names that
argument. ``datasets`` fingerprints the tokenizer by the model's backend, the mode and lbpe's
vocabulary (:func:`lbpe.corpus.shards.vocab_sha256`), so ``Dataset.map`` finds its cache again.
Needs the ``transformers`` package; ``import lbpe`` never imports it.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import logging
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from lbpe.errors import LbpeError, VocabFormatError
from lbpe.formats.hf_write import tokenizer_json_of
from lbpe.literals import Literals
from lbpe.load import detect_format, load
from lbpe.tokenizer import MODES, Tokenizer

__all__ = ["LBPETokenizer"]

#: The key in ``tokenizer_config.json`` that records the encoding mode.
MODE_KEY = "lbpe_mode"
#: The key in ``tokenizer_config.json`` naming the vocabulary file lbpe reads beside
#: ``tokenizer.json`` (a SentencePiece model or rank file the tokenizer was built from).
SOURCE_KEY = "lbpe_vocab_file"
#: The key naming that file's pre-tokenizer preset (a rank file whose name does not tell it).
PATTERN_KEY = "lbpe_pattern"
#: The key naming the model's own transformers class, which lbpe loads the folder with.
BASE_KEY = "lbpe_base_class"
#: The class name a saved folder gives transformers, and the module that defines it there.
CLASS_NAME = "LBPETokenizer"
MODULE_NAME = "lbpe_tokenizer"
MODULE_SOURCE = '''"""The tokenizer of this folder: the model's own transformers tokenizer encoding with LBPE
(long tokens first). Written by lbpe's save_pretrained; it needs the lbpe package
(python -m pip install "lbpe[hf]"). Load it with
AutoTokenizer.from_pretrained(folder, trust_remote_code=True) or lbpe.hf.LBPETokenizer.from_pretrained(folder)."""

from lbpe.hf import LBPETokenizer

__all__ = ["LBPETokenizer"]
'''
#: Pieces whose splits the full path remembers (cleared when full).
PIECE_CACHE = 1 << 16
#: transformers' own keyword arguments of ``_encode_plus`` that the fast path reproduces.
_FAST_OPTIONS = frozenset(
    {
        "add_special_tokens",
        "padding_strategy",
        "truncation_strategy",
        "max_length",
        "stride",
        "is_split_into_words",
        "pad_to_multiple_of",
        "padding_side",
        "return_tensors",
        "return_token_type_ids",
        "return_attention_mask",
        "return_overflowing_tokens",
        "return_special_tokens_mask",
        "return_offsets_mapping",
        "return_length",
        "verbose",
        "split_special_tokens",
    }
)


class _LongestFirst:
    """A custom pre-tokenizer for the Rust pipeline of the full path: each piece split into
    LBPE's tokens."""

    def __init__(self, tok: Tokenizer) -> None:
        self.tok = tok
        self.byte_level = tok.vocab.unit == "byte"
        if self.byte_level:
            from lbpe.decoders import char_to_byte

            self.char_to_byte = char_to_byte
        vocab = tok.vocab
        # a run of characters without a token is one unknown token (HF's fuse_unk), so one piece
        self.unknown = (lambda key: key not in vocab.tokens) if vocab.fuse_unk and vocab.byte_fallback is None else None
        self.cache: dict[str, list[int]] = {}

    def lengths(self, piece: str) -> list[int]:
        """Token lengths, in characters of the piece as the pipeline spells it."""
        cached = self.cache.get(piece)
        if cached is not None:
            return cached
        if self.byte_level:  # the piece is in GPT-2's byte alphabet: one character per byte
            try:
                raw = bytes(self.char_to_byte[c] for c in piece)
                text = raw.decode("utf-8")
            except (KeyError, UnicodeDecodeError):
                out = [len(piece)]  # not a byte-level piece after all: leave it to the model
            else:
                out = [len(key) for key in self.tok.split_piece(text, mode="lbpe")]
        else:
            out = _char_lengths(self.tok.split_piece(piece, mode="lbpe"), self.unknown)
        if len(self.cache) >= PIECE_CACHE:
            self.cache.clear()
        self.cache[piece] = out
        return out

    def split(self, _index: int, normalized):
        text = str(normalized)
        lengths = self.lengths(text)
        if len(lengths) <= 1:
            return [normalized]
        out, at = [], 0
        for n in lengths:
            out.append(normalized[at : at + n])
            at += n
        return out

    def pre_tokenize(self, pretok) -> None:
        pretok.split(self.split)


def _char_lengths(keys: list, unknown=None) -> list[int]:
    """Lengths in characters of keys that spell text (str, or UTF-8 bytes; the byte-fallback
    keys of one character together make one piece of that character; with ``unknown``, a run
    of keys it says have no token makes one piece)."""
    out: list[int] = []
    pending = b""
    was_unknown = False
    for key in keys:
        if unknown is not None:
            now = unknown(key)
            if now and was_unknown:
                out[-1] += len(key.decode("utf-8"))
                continue
            was_unknown = now
        if isinstance(key, str):
            out.append(len(key))
            continue
        pending += key
        try:
            out.append(len(pending.decode("utf-8")))
        except UnicodeDecodeError:
            continue  # part of a character: wait for the rest
        pending = b""
    if pending:
        out.append(len(pending.decode("utf-8", "replace")))
    return out


def _source(path: str | os.PathLike[str]) -> tuple[str, Path]:
    """(format, file) of what ``from_pretrained`` was given, with a readable error."""
    try:
        fmt, file = detect_format(path)
    except VocabFormatError as exc:
        raise LbpeError(
            f"{exc}; LBPETokenizer takes a model folder (tokenizer.json, tokenizer.model or a .tiktoken file), "
            "a tokenizer.json, a SentencePiece .model, a .tiktoken file or a bundled vocabulary's name "
            "(lbpe.presets.VOCAB_PRESETS)"
        ) from None
    return fmt, file


def _roles(tok: Tokenizer) -> dict[str, str]:
    """transformers' special-token roles for a vocabulary that is not a plain tokenizer.json:
    the model's BOS, EOS and unknown pieces (SentencePiece, LLaMA style), or tiktoken's
    ``<|endoftext|>``."""
    names = {i: t for t, i in tok.vocab.special.items()}
    roles = {}
    for role, ids in (("bos_token", tok.bos), ("eos_token", tok.eos)):
        if ids and ids[0] in names:
            roles[role] = names[ids[0]]
    if tok.vocab.unk is not None and tok.vocab.unk in names:
        roles["unk_token"] = names[tok.vocab.unk]
    for eos in ("</s>", "<|endoftext|>"):
        if "eos_token" not in roles and eos in tok.vocab.special:
            roles["eos_token"] = eos
    return roles


@contextlib.contextmanager
def _quiet(logger: str):
    """``logger``'s warnings held back for the block (transformers 4.x warns that a folder naming
    LBPETokenizer is loaded with the model's own class, which is what lbpe means to do)."""
    log = logging.getLogger(logger)
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def _base_class(name: str):
    """The transformers tokenizer class a saved folder names as the model's own."""
    import transformers

    found = None
    for candidate in (name, f"{name}Fast", name.removesuffix("Fast")):  # 4.x's and 5.x's spellings
        found = found or getattr(transformers, candidate, None)
    if found is None:
        from transformers.models.auto.tokenization_auto import tokenizer_class_from_name

        found = tokenizer_class_from_name(name)
    if found is None:
        raise LbpeError(
            f"tokenizer_config.json names the model's tokenizer class {name!r} ({BASE_KEY}), which this "
            f"transformers {transformers.__version__} does not have; install the transformers the folder was saved with"
        )
    return found


class LBPETokenizer:
    """Builds transformers tokenizers that encode with LBPE (see the module docstring). A saved
    folder names this class, so ``AutoTokenizer`` (with ``trust_remote_code=True``) calls its
    :meth:`from_pretrained`."""

    @classmethod
    def register_for_auto_class(cls, auto_class: str = "AutoTokenizer") -> None:
        """What ``AutoTokenizer`` calls on a class it loads from a folder's module: nothing to
        record here (lbpe's ``save_pretrained`` writes that module itself)."""

    @classmethod
    def from_pretrained(
        cls,
        path: str | os.PathLike[str],
        *inputs: Any,
        mode: str | None = None,
        pattern: str | None = None,
        **kwargs: Any,
    ):
        """The model's own tokenizer from ``path`` (a folder, a file or a bundled vocabulary's
        name; ``local_files_only`` is forced), encoding in ``mode`` ("lbpe" or "bpe"; default:
        the folder's recorded mode, else "lbpe"). ``pattern``: the pre-tokenizer preset of a
        rank file whose name does not tell it (as :func:`lbpe.load`). Other keyword arguments go
        to transformers (``pad_token=...``, ...)."""
        try:
            import transformers
            from tokenizers import Tokenizer as Backend
        except ImportError:
            raise LbpeError('LBPETokenizer needs transformers: python -m pip install "lbpe[hf]"') from None
        if inputs:
            raise LbpeError(f"LBPETokenizer.from_pretrained takes the path and keyword arguments; got {inputs!r}")
        if mode is not None and mode not in MODES:
            raise LbpeError(f"mode must be 'bpe' or 'lbpe', not {mode!r}")
        for key in ("trust_remote_code", "_from_auto", "_commit_hash", "revision", "code_revision"):
            kwargs.pop(key, None)  # what AutoTokenizer passes along; a local folder needs none of them
        path = _preset_or_path(path)
        fmt, file = _source(path)
        kwargs["local_files_only"] = True
        recorded: dict[str, Any] = {}
        source: Path | None = None
        if fmt == "hf":
            folder = file.parent
            config = folder / "tokenizer_config.json"
            if Path(path).is_dir() and config.is_file():
                try:
                    recorded = json.loads(config.read_text("utf-8"))
                except (OSError, ValueError):
                    recorded = {}
            if file.name == "tokenizer.json":
                if recorded.get("tokenizer_class") == CLASS_NAME and recorded.get(BASE_KEY):
                    with _quiet("transformers.tokenization_utils_base"):  # 4.x: "not the same type as the class"
                        hf = _base_class(recorded[BASE_KEY]).from_pretrained(str(folder), **kwargs)
                else:
                    hf = transformers.AutoTokenizer.from_pretrained(str(folder), **kwargs)
            elif file.name.endswith(".gz"):  # a bundled tokenizer.json.gz
                tok = load(file)
                backend = Backend.from_str(gzip.decompress(file.read_bytes()).decode("utf-8"))
                hf = transformers.PreTrainedTokenizerFast(tokenizer_object=backend, **{**_roles(tok), **kwargs})
            else:
                hf = transformers.PreTrainedTokenizerFast(tokenizer_file=str(file), **kwargs)
            named = recorded.get(SOURCE_KEY)  # the file this tokenizer was built from, saved beside it
            if named and (folder / named).is_file():
                source = folder / named
                tok = load(source, pattern=recorded.get(PATTERN_KEY))
            elif not file.name.endswith(".gz"):
                tok = load(file)
        else:  # a rank file, GPT-2's files or a SentencePiece model: the same pipeline as tokenizer.json
            tok = load(file, pattern=pattern)
            backend = Backend.from_str(json.dumps(tokenizer_json_of(tok)))
            hf = transformers.PreTrainedTokenizerFast(tokenizer_object=backend, **{**_roles(tok), **kwargs})
            source = Path(file)
        if not getattr(hf, "is_fast", False):
            raise LbpeError(f"{path}: transformers loaded a slow tokenizer; LBPETokenizer needs the fast one")
        mode = mode or recorded.get(MODE_KEY) or "lbpe"
        if mode not in MODES:
            raise LbpeError(f"{path}: tokenizer_config.json records {MODE_KEY}={mode!r}; expected 'bpe' or 'lbpe'")
        hf.__class__ = _subclass(type(hf))
        hf._lbpe_setup(tok, mode, source)
        return hf


def _preset_or_path(path: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """A bundled vocabulary's file for its preset name (a file or folder of that name wins)."""
    from lbpe.presets import VOCAB_PRESETS, preset_path

    if isinstance(path, str) and path in VOCAB_PRESETS and not os.path.exists(path):
        return preset_path(path)
    return path


_T = TypeVar("_T")


def _rebuild(base: type[_T]) -> _T:
    """An empty instance of the LBPE class of ``base`` (pickle fills it in)."""
    cls = _subclass(base)
    return cls.__new__(cls)


def _subclass(base: type[_T]) -> type[_T]:
    """``base`` (the model's own tokenizer class) with the LBPE mode added; a module attribute
    of its own name, so that pickle (and ``datasets``' fingerprint) name it."""
    if isinstance(base, type) and issubclass(base, _LBPEMixin):
        return base
    name = f"LBPE{base.__name__}"
    found = globals().get(name)
    if found is None or found.__mro__[2] is not base:
        found = type(name, (_LBPEMixin, base), {"__module__": __name__, "__qualname__": name, "_lbpe_base": base})
        globals()[name] = found
    return found


def _fingerprint(sha: str, source: str | None) -> None:
    """What unpickling an :class:`_State` alone meets: it pickles as its fingerprint only."""
    raise LbpeError(
        f"this is the fingerprint of an LBPE tokenizer's state (vocabulary {sha[:12]}...), not the state; "
        "pickle the tokenizer itself"
    )


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


class _Added:
    """The added tokens the backend matches, for the fast path: two passes as ``tokenizers``
    makes them (the tokens matched in the raw text, then those matched after normalisation),
    each leftmost-longest."""

    def __init__(self, backend, tok: Tokenizer) -> None:
        decoder = backend.get_added_tokens_decoder()
        self.ids = {t.content: i for i, t in decoder.items()}
        self.special = frozenset(t.content for t in decoder.values() if t.special)
        raw = [t.content for t in decoder.values() if not t.normalized]
        normalized = [t.content for t in decoder.values() if t.normalized]
        # what the fast path reproduces: no stripping or word rules, normalised tokens only
        # where nothing normalises, and lbpe's own added tokens matched there too
        self.exact = (
            all(not (t.lstrip or t.rstrip or t.single_word) for t in decoder.values())
            and (not normalized or backend.normalizer is None)
            and all(self.ids.get(c) == i and c not in self.special for c, i in tok.added_tokens.items())
        )
        self.passes = [Literals(group) for group in (raw, normalized) if group]

    def split(self, text: str, split_special: bool) -> list[str | int]:
        """``text`` as ordinary parts (str) and added tokens' ids, in order."""
        parts: list[str | int] = [text]
        for pattern in self.passes:
            out: list[str | int] = []
            for part in parts:
                if isinstance(part, int):
                    out.append(part)
                    continue
                pos = 0
                for m in pattern.finditer(part):
                    found = m.group()
                    if split_special and found in self.special:
                        continue
                    if m.start() > pos:
                        out.append(part[pos : m.start()])
                    out.append(self.ids[found])
                    pos = m.end()
                if pos < len(part):
                    out.append(part[pos:])
            parts = out
        return parts


class _LazyEncodings(Sequence):
    """The ``tokenizers`` encodings of a fast-path result, computed by the full path when first
    asked for (``word_ids``, ``tokens``, ``char_to_token`` ...)."""

    def __init__(self, owner, text, options: dict) -> None:
        self._owner, self._text, self._options, self._n = owner, text, options, len(text)
        self._done: list | None = None

    def _all(self) -> list:
        if self._done is None:
            owner = self._owner
            # a list of texts is a batch to 5.x's _encode_plus; 4.x takes batches in _batch_encode_plus
            method = "_batch_encode_plus" if hasattr(owner._lbpe_base, "_batch_encode_plus") else "_encode_plus"
            self._done = list(owner._lbpe_full(self._text, None, self._options, method=method).encodings)
            self._owner = self._text = None
        return self._done

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, item):
        return self._all()[item]

    def __reduce__(self):
        return (list, (self._all(),))


class _LBPEMixin:
    """What a wrapped tokenizer adds: the mode, LBPE's encoding, saving a folder that loads back."""

    lbpe_mode: str = "bpe"
    _lbpe: _State
    _lbpe_base: Any  # the model's own transformers class
    _tokenizer: Any  # the tokenizers.Tokenizer inside (an attribute of the transformers class)

    def _lbpe_setup(self, tok: Tokenizer, mode: str, source: Path | None) -> None:
        self._lbpe = _State(tok, source)
        self.lbpe_mode = mode

    # ---- encoding ----

    def _encode_plus(self, text, text_pair=None, **options):
        if self.lbpe_mode != "lbpe":
            return super()._encode_plus(text, text_pair=text_pair, **options)
        if options.get("sanitize_control_tokens"):  # a chat template's own path: it calls encode() per part
            return super()._encode_plus(text, text_pair=text_pair, **options)
        fast = self._lbpe_fast(text, text_pair, options)
        return fast if fast is not None else self._lbpe_full(text, text_pair, options)

    def _batch_encode_plus(self, batch_text_or_text_pairs, **options):
        # transformers 4.x sends batches here (5.x has _encode_plus alone)
        if self.lbpe_mode != "lbpe":
            return super()._batch_encode_plus(batch_text_or_text_pairs, **options)
        batch = list(batch_text_or_text_pairs)
        fast = self._lbpe_fast(batch, None, options)
        return fast if fast is not None else self._lbpe_full(batch, None, options, method="_batch_encode_plus")

    def _encode_without_added_tokens(self, text: str) -> list[int]:
        if self.lbpe_mode != "lbpe":
            return super()._encode_without_added_tokens(text)  # type: ignore[misc]
        return self._lbpe.tok.encode_ordinary(text, mode="lbpe")

    def _add_tokens(self, new_tokens, special_tokens: bool = False) -> int:
        self._lbpe.version += 1
        return super()._add_tokens(new_tokens, special_tokens=special_tokens)  # type: ignore[misc]

    def _lbpe_full(self, text, text_pair, options: dict, *, method: str = "_encode_plus"):
        """The full path: transformers' own encoding on a copy of the backend that splits each
        piece LBPE's way (the model's object is left as it is)."""
        base = self._lbpe_base
        shadow = base.__new__(base)
        shadow.__dict__.update(self.__dict__)
        shadow.__dict__["_tokenizer"] = self._lbpe_backend()
        if method == "_batch_encode_plus":
            return base._batch_encode_plus(shadow, text, **options)
        return base._encode_plus(shadow, text, text_pair=text_pair, **options)

    def _lbpe_backend(self):
        """The full path's backend: the model's, with our pre-tokenizer after its own (rebuilt
        when the model's added tokens or post-processor change)."""
        from tokenizers import Tokenizer as Backend
        from tokenizers import pre_tokenizers

        model = self._tokenizer
        post = model.post_processor
        signature = (
            tuple(
                (i, t.content, t.special, t.lstrip, t.rstrip, t.single_word, t.normalized)
                for i, t in sorted(model.get_added_tokens_decoder().items())
            ),
            None if post is None else post.__getstate__(),
        )
        state = self._lbpe
        if state.full is None or state.full[0] != signature:
            backend = Backend.from_str(model.to_str())
            ours = pre_tokenizers.PreTokenizer.custom(_LongestFirst(state.tok))
            original = backend.pre_tokenizer
            backend.pre_tokenizer = ours if original is None else pre_tokenizers.Sequence([original, ours])
            if hasattr(backend.model, "ignore_merges"):
                backend.model.ignore_merges = True  # each piece is one vocabulary token now: keep it whole
            state.full = (signature, backend)
        return state.full[1]

    def _lbpe_added(self) -> _Added:
        backend, state = self._tokenizer, self._lbpe
        key = (id(backend), backend.get_vocab_size(with_added_tokens=True), state.version)
        if state.added is None or state.added[0] != key:
            state.added = (key, _Added(backend, state.tok))
        return state.added[1]

    def _lbpe_specials(self) -> tuple[list[int], list[int], list[int], list[int], int]:
        """(ids before, ids after, their type ids, the text's type id) the post-processor adds to one
        sequence, as ``tokenizers`` applies it."""
        post = self._tokenizer.post_processor
        key = b"" if post is None else post.__getstate__()
        found = self._lbpe.specials.get(key)
        if found is None:
            if post is None:
                found = ([], [], [], [], 0)
            else:
                from tokenizers import Tokenizer as Backend
                from tokenizers import models

                one = Backend(models.WordLevel({"a": 0}, unk_token="a")).encode("a", add_special_tokens=False)
                done = post.process(one)
                where = done.sequence_ids.index(0)
                ids, types = done.ids, done.type_ids
                found = (ids[:where], ids[where + 1 :], types[:where], types[where + 1 :], types[where])
            self._lbpe.specials[key] = found
        return found

    def _lbpe_fast(self, text, text_pair, options: dict):
        """The fast path (see the module docstring), or None where the full path must run."""
        if text_pair is not None or not options.keys() <= _FAST_OPTIONS:
            return None
        o = options.get
        if o("is_split_into_words") or o("return_overflowing_tokens") or o("return_offsets_mapping"):
            return None
        batched = isinstance(text, (list, tuple))
        texts = list(text) if batched else [text]
        if not texts or not all(isinstance(t, str) for t in texts):
            return None
        added = self._lbpe_added()
        if not added.exact:
            return None
        add_special = o("add_special_tokens", True)
        before, after, types_before, types_after, seq_type = (
            self._lbpe_specials() if add_special else ([], [], [], [], 0)
        )
        truncation = getattr(o("truncation_strategy"), "value", o("truncation_strategy")) or "do_not_truncate"
        padding = getattr(o("padding_strategy"), "value", o("padding_strategy")) or "do_not_pad"
        max_length = o("max_length")
        if truncation not in ("do_not_truncate", "longest_first", "only_first") or padding not in (
            "do_not_pad",
            "longest",
            "max_length",
        ):
            return None
        room = None
        if truncation != "do_not_truncate" and max_length is not None:
            room = max_length - len(before) - len(after)
            if room <= 0:
                return None  # tokenizers' own error or rule
        if padding == "max_length" and max_length is None:
            return None
        split_special = o("split_special_tokens")
        if split_special is None:
            split_special = self.split_special_tokens  # type: ignore[attr-defined]

        # ordinary parts encoded by lbpe in one go, added tokens by the backend's ids
        plans = [added.split(t, split_special) for t in texts]
        encode = self._lbpe.tok.encode_ordinary
        ids_of = []
        for plan in plans:
            if len(plan) == 1 and isinstance(plan[0], str):
                ids_of.append(encode(plan[0], mode="lbpe"))
                continue
            ids: list[int] = []
            for part in plan:
                if isinstance(part, int):
                    ids.append(part)
                else:
                    ids += encode(part, mode="lbpe")
            ids_of.append(ids)
        if room is not None:
            left = self.truncation_side == "left"  # type: ignore[attr-defined]
            ids_of = [ids if len(ids) <= room else (ids[-room:] if left else ids[:room]) for ids in ids_of]

        want_types = o("return_token_type_ids")
        if want_types is None:
            want_types = "token_type_ids" in self.model_input_names  # type: ignore[attr-defined]
        want_mask = o("return_attention_mask")
        if want_mask is None:
            want_mask = "attention_mask" in self.model_input_names  # type: ignore[attr-defined]
        want_special, want_length = o("return_special_tokens_mask"), o("return_length")
        n_before, n_after = len(before), len(after)
        input_ids = [before + ids + after for ids in ids_of] if n_before or n_after else ids_of
        lengths = [len(ids) for ids in input_ids]
        target = None
        if padding != "do_not_pad":
            target = max_length if padding == "max_length" else max(lengths, default=0)
            multiple = o("pad_to_multiple_of")
            if multiple and target % multiple:
                target += multiple - target % multiple
        pad_left = (o("padding_side") or self.padding_side) == "left"  # type: ignore[attr-defined]

        def padded(rows: list[list[int]], value: int) -> list[list[int]]:
            if target is None:
                return rows
            out = []
            for row in rows:
                missing = target - len(row)
                out.append(row if missing <= 0 else ([value] * missing + row if pad_left else row + [value] * missing))
            return out

        data: dict[str, list] = {}
        if target is not None:
            pad_id = self.pad_token_id  # type: ignore[attr-defined]
            if pad_id is None:
                return None  # transformers' own error
            data["input_ids"] = padded(input_ids, pad_id)
        else:
            data["input_ids"] = input_ids
        if want_types:
            rows = [types_before + [seq_type] * len(ids) + types_after for ids in ids_of]
            data["token_type_ids"] = padded(rows, self.pad_token_type_id)  # type: ignore[attr-defined]
        if want_mask:
            data["attention_mask"] = padded([[1] * n for n in lengths], 0)
        if want_special:
            rows = [[1] * n_before + [0] * len(ids) + [1] * n_after for ids in ids_of]
            data["special_tokens_mask"] = padded(rows, 1)
        if want_length:
            data["length"] = [len(row) for row in data["input_ids"]]
        verbose = o("verbose", True)
        for row in data["input_ids"]:
            self._eventual_warn_about_too_long_sequence(row, max_length, verbose)  # type: ignore[attr-defined]

        from transformers import BatchEncoding

        lazy = _LazyEncodings(self, texts, {**options, "return_tensors": None})
        return_tensors = o("return_tensors")
        if not batched and return_tensors is None:
            # one text: rows of tokens lose the batch level, as transformers does it (``length`` keeps it)
            one = {k: v[0] if v and isinstance(v[0], list) else v for k, v in data.items()}
            return BatchEncoding(one, lazy, n_sequences=1)
        return BatchEncoding(data, lazy, tensor_type=return_tensors, n_sequences=1)

    # ---- pickling, saving ----

    def __getstate__(self) -> dict:
        """Picklable (datasets.map, worker processes): lbpe's tokenizer travels whole, the
        paths' caches stay behind."""
        state = dict(self.__dict__)
        lbpe_state = state.pop("_lbpe")
        state["_lbpe_tok"], state["_lbpe_source"] = lbpe_state.tok, lbpe_state.source
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        tok, source = state.pop("_lbpe_tok"), state.pop("_lbpe_source")
        self.__dict__.update(state)
        self._lbpe = _State(tok, source)

    def __reduce_ex__(self, protocol):
        # the class is made at run time (one per model class): rebuild it by its base
        return (_rebuild, (self._lbpe_base,), self.__getstate__())

    def save_pretrained(self, save_directory, *args, **kwargs):
        """The model's own files plus what loads them back as this tokenizer: ``lbpe_tokenizer.py``
        and in ``tokenizer_config.json`` the class, ``auto_map``, the mode and the model's own
        class; a tokenizer built from a SentencePiece model or a rank file also keeps that file
        beside tokenizer.json (lbpe reads it; transformers reads tokenizer.json)."""
        if kwargs.get("push_to_hub"):
            raise LbpeError(
                "save_pretrained(push_to_hub=True) would upload before lbpe writes its files: save to a folder, "
                "then upload the folder (huggingface_hub.upload_folder)"
            )
        if kwargs.get("filename_prefix"):
            raise LbpeError("a filename_prefix hides tokenizer_config.json from AutoTokenizer; save without one")
        files = super().save_pretrained(save_directory, *args, **kwargs)
        folder = Path(save_directory)
        config = folder / "tokenizer_config.json"
        data = json.loads(config.read_text("utf-8")) if config.is_file() else {}
        data[MODE_KEY] = self.lbpe_mode
        data["tokenizer_class"] = CLASS_NAME
        base = self._lbpe_base.__name__
        # transformers 5 calls PreTrainedTokenizerFast TokenizersBackend: the name both releases know
        data[BASE_KEY] = "PreTrainedTokenizerFast" if base == "TokenizersBackend" else base
        data["auto_map"] = {"AutoTokenizer": [None, f"{MODULE_NAME}.{CLASS_NAME}"]}
        source = self._lbpe.source
        data.pop(SOURCE_KEY, None)
        data.pop(PATTERN_KEY, None)
        if source is not None:
            if source.resolve() != (folder / source.name).resolve():
                shutil.copyfile(source, folder / source.name)
            data[SOURCE_KEY] = source.name
            if self._lbpe.tok.pretokenizer_name and source.name.lower().removesuffix(".gz").endswith(".tiktoken"):
                data[PATTERN_KEY] = self._lbpe.tok.pretokenizer_name
        config.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        module = folder / f"{MODULE_NAME}.py"
        module.write_text(MODULE_SOURCE, encoding="utf-8")
        return (*files, str(module))
