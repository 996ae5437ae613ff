"""LBPE inside Hugging Face transformers: the model's own tokenizer, encoding long tokens first::

    from lbpe.hf import LBPETokenizer
    tok = LBPETokenizer.from_pretrained("path/to/llama3", mode="lbpe")
    tok(["a batch", "of texts"], padding=True, return_tensors="np")

``from_pretrained`` loads the model's own fast tokenizer (a folder with ``tokenizer.json``, or
a ``tokenizer.json`` file; nothing is fetched from a hub). Given a SentencePiece ``.model``, a
``.tiktoken`` rank file or GPT-2's ``encoder.json`` + ``vocab.bpe`` instead (or a folder of
one), it builds that fast tokenizer itself (:func:`lbpe.formats.hf_write.tokenizer_json_of`:
the LLaMA / Mistral form for SentencePiece, a merge list replaying the ranks for rank files),
whose ids equal ``sentencepiece``'s and tiktoken's. In LBPE mode it changes one stage of
its Rust pipeline: after the model's own pre-tokenizer, a pre-tokenizer of ours splits each
piece into the tokens :meth:`lbpe.Tokenizer.split_piece` places longest first, and the BPE
model returns each such piece (a vocabulary token) whole. Everything else is the model's own:
normalisation, special and added tokens, the post-processor's special tokens, truncation,
padding, offsets, the chat template, decoding. So ``input_ids`` equal
``lbpe.load(path).encode(text, mode="lbpe")`` plus the special tokens the model adds, and with
``mode="bpe"`` they equal the model's own tokenizer.

``save_pretrained`` writes the model's files unchanged plus ``"lbpe_mode"`` in
``tokenizer_config.json`` (and, for a tokenizer built from another file, that file beside it);
``LBPETokenizer.from_pretrained`` of that folder restores the mode (transformers'
``AutoTokenizer`` loads it as the plain BPE tokenizer). Needs the
``transformers`` package; ``import lbpe`` never imports it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Any, TypeVar

from lbpe.errors import LbpeError, VocabFormatError
from lbpe.formats.hf_write import tokenizer_json_of
from lbpe.load import detect_format, load
from lbpe.tokenizer import MODES, Tokenizer

__all__ = ["LBPETokenizer"]

#: The key in ``tokenizer_config.json`` that records the encoding mode.
MODE_KEY = "lbpe_mode"
#: The key in ``tokenizer_config.json`` naming the vocabulary file lbpe reads beside
#: ``tokenizer.json`` (a SentencePiece model or rank file the tokenizer was built from).
SOURCE_KEY = "lbpe_vocab_file"
#: Pieces whose splits a tokenizer remembers (cleared when full).
PIECE_CACHE = 1 << 16


class _LongestFirst:
    """A custom pre-tokenizer for the Rust pipeline: each piece split into LBPE's tokens."""

    def __init__(self, tok: Tokenizer) -> None:
        self.tok = tok
        self.byte_level = tok.vocab.unit == "byte"
        if self.byte_level:
            from lbpe.formats.gpt2 import char_to_byte

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
            "a tokenizer.json, a SentencePiece .model or a .tiktoken file"
        ) from None
    return fmt, file


def _roles(tok: Tokenizer) -> dict[str, str]:
    """transformers' special-token roles for a vocabulary that is not a tokenizer.json: the
    model's BOS, EOS and unknown pieces (SentencePiece), or tiktoken's ``<|endoftext|>``."""
    names = {i: t for t, i in tok.vocab.special.items()}
    roles = {}
    for role, ids in (("bos_token", tok.bos), ("eos_token", tok.eos)):
        if ids and ids[0] in names:
            roles[role] = names[ids[0]]
    if tok.vocab.unk is not None and tok.vocab.unk in names:
        roles["unk_token"] = names[tok.vocab.unk]
    if "eos_token" not in roles and "<|endoftext|>" in tok.vocab.special:
        roles["eos_token"] = "<|endoftext|>"
    return roles


class LBPETokenizer:
    """Builds transformers tokenizers that encode with LBPE (see the module docstring)."""

    @classmethod
    def from_pretrained(
        cls, path: str | os.PathLike[str], *, mode: str | None = None, pattern: str | None = None, **kwargs: Any
    ):
        """The model's own tokenizer from ``path`` (``local_files_only`` is forced), encoding in
        ``mode`` ("lbpe" or "bpe"; default: the folder's recorded mode, else "lbpe").
        ``pattern``: the pre-tokenizer preset of a rank file whose name does not tell it (as
        :func:`lbpe.load`)."""
        try:
            import transformers
            from tokenizers import Tokenizer as Backend
        except ImportError:
            raise LbpeError('LBPETokenizer needs transformers: python -m pip install "lbpe[hf]"') from None
        if mode is not None and mode not in MODES:
            raise LbpeError(f"mode must be 'bpe' or 'lbpe', not {mode!r}")
        fmt, file = _source(path)
        kwargs["local_files_only"] = True
        recorded: dict[str, Any] = {}
        if fmt == "hf":
            folder = file.parent
            config = folder / "tokenizer_config.json"
            if Path(path).is_dir() and config.is_file():
                try:
                    recorded = json.loads(config.read_text("utf-8"))
                except (OSError, ValueError):
                    recorded = {}
            if file.name == "tokenizer.json":
                hf = transformers.AutoTokenizer.from_pretrained(str(folder), **kwargs)
            else:
                hf = transformers.PreTrainedTokenizerFast(tokenizer_file=str(file), **kwargs)
            named = recorded.get(SOURCE_KEY)  # the file this tokenizer was built from, saved beside it
            tok = load(folder / named if named and (folder / named).is_file() else file)
        else:  # a rank file, GPT-2's files or a SentencePiece model: the same pipeline as tokenizer.json
            tok = load(file, pattern=pattern)
            backend = Backend.from_str(json.dumps(tokenizer_json_of(tok)))
            hf = transformers.PreTrainedTokenizerFast(tokenizer_object=backend, **{**_roles(tok), **kwargs})
        if not getattr(hf, "is_fast", False):
            raise LbpeError(f"{path}: transformers loaded a slow tokenizer; LBPETokenizer needs the fast one")
        mode = mode or recorded.get(MODE_KEY) or "lbpe"
        if mode not in MODES:
            raise LbpeError(f"{path}: tokenizer_config.json records {MODE_KEY}={mode!r}; expected 'bpe' or 'lbpe'")
        base = type(hf)
        hf.__class__ = _subclass(base)
        hf._lbpe_setup(tok, mode)
        hf._lbpe_source = Path(file) if fmt != "hf" else None
        return hf


_SUBCLASSES: dict[type, type] = {}
_T = TypeVar("_T")


def _rebuild(base: type[_T]) -> _T:
    """An empty instance of the LBPE class of ``base`` (pickle fills it in)."""
    cls = _subclass(base)
    return cls.__new__(cls)


def _subclass(base: type[_T]) -> type[_T]:
    """``base`` (the model's own tokenizer class) with the LBPE mode added."""
    if base not in _SUBCLASSES:
        _SUBCLASSES[base] = type(f"LBPE{base.__name__}", (_LBPEMixin, base), {"__module__": __name__})
    return _SUBCLASSES[base]


class _LBPEMixin:
    """What a wrapped tokenizer adds: the mode, and saving without our pre-tokenizer."""

    lbpe_mode: str = "bpe"
    _tokenizer: Any  # the tokenizers.Tokenizer inside (an attribute of the transformers class)

    def _lbpe_setup(self, tok: Tokenizer, mode: str) -> None:
        from tokenizers import pre_tokenizers

        backend = self._tokenizer
        self._lbpe_tok = tok
        self._lbpe_original = (backend.pre_tokenizer, getattr(backend.model, "ignore_merges", None))
        self.lbpe_mode = mode
        if mode == "lbpe":
            ours = pre_tokenizers.PreTokenizer.custom(_LongestFirst(tok))
            original = backend.pre_tokenizer
            backend.pre_tokenizer = ours if original is None else pre_tokenizers.Sequence([original, ours])
            if hasattr(backend.model, "ignore_merges"):
                backend.model.ignore_merges = True  # each piece is one vocabulary token now: keep it whole

    @contextlib.contextmanager
    def _model_pipeline(self):
        """The model's own pipeline for the duration of the block (what is saved and pickled),
        ours again after it."""
        backend = self._tokenizer
        ours = (backend.pre_tokenizer, getattr(backend.model, "ignore_merges", None))
        pre, ignore = self._lbpe_original
        backend.pre_tokenizer = pre
        if ignore is not None:
            backend.model.ignore_merges = ignore
        try:
            yield backend
        finally:
            backend.pre_tokenizer = ours[0]
            if ours[1] is not None:
                backend.model.ignore_merges = ours[1]

    def __getstate__(self) -> dict:
        """Picklable (datasets.map, worker processes): the backend travels as the model's own
        pipeline and gets our pre-tokenizer back in :meth:`__setstate__`."""
        from tokenizers import Tokenizer as Backend

        with self._model_pipeline() as backend:
            plain = Backend.from_str(backend.to_str())
        state = dict(self.__dict__)
        state["_tokenizer"] = plain
        state.pop("_lbpe_original", None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lbpe_setup(self._lbpe_tok, self.lbpe_mode)

    def __reduce_ex__(self, protocol):
        # the class is made at run time (one per model class): rebuild it by its base
        return (_rebuild, (type(self).__mro__[2],), self.__getstate__())

    def save_pretrained(self, save_directory, *args, **kwargs):
        """The model's own files (its pipeline as loaded) plus the mode in tokenizer_config.json;
        a tokenizer built from a SentencePiece model or a rank file also keeps that file beside
        tokenizer.json (lbpe reads it; transformers reads tokenizer.json)."""
        with self._model_pipeline():
            files = super().save_pretrained(save_directory, *args, **kwargs)
        config = Path(save_directory) / "tokenizer_config.json"
        data = json.loads(config.read_text("utf-8")) if config.is_file() else {}
        data[MODE_KEY] = self.lbpe_mode
        source = getattr(self, "_lbpe_source", None)
        if source is not None:
            shutil.copyfile(source, Path(save_directory) / source.name)
            data[SOURCE_KEY] = source.name
        config.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return files
