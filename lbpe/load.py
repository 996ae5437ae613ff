"""Reading vocabulary files: detect the format, read the bytes, hand them to a parser.

Parsers live in :mod:`lbpe.formats` and take bytes; this module is the only place that opens
files. A vocabulary-only file (tiktoken, GPT-2) is parsed into a ``Vocab`` and paired here with
a pre-tokeniser preset; a pipeline file (``tokenizer.json``, SentencePiece ``.model``) is parsed
straight into a ``Tokenizer``. New formats slot in by adding a detector branch and a parser.
"""

from __future__ import annotations

import gzip
import os
import re
import zlib
from collections.abc import Mapping
from pathlib import Path

from lbpe import limits
from lbpe.errors import PatternNeededError, VocabFormatError
from lbpe.limits import Limits, using
from lbpe.pretokenize import PresetPattern, resolve_pattern
from lbpe.pretokenize.presets import openai_encoding, openai_encoding_names, pretokenizer_preset_names
from lbpe.tokenizer import Tokenizer

__all__ = ["load", "detect_format", "read_limited", "FORMATS"]

#: Formats :func:`load` recognises, and how it recognises them.
FORMATS = {
    "tiktoken": "a .tiktoken rank file (or a file of '<base64> <rank>' lines)",
    "gpt2": "GPT-2 encoder.json + vocab.bpe side by side (the path of either, or of their folder; upload both)",
    "hf": "a HF tokenizer.json with a BPE model",
    "sentencepiece": "a SentencePiece .model file of type BPE",
}

#: The formats that name their own special tokens, as a sentence names them.
_OWN_SPECIALS = {
    "gpt2": "a GPT-2 vocabulary (its encoder.json)",
    "hf": "a tokenizer.json",
    "sentencepiece": "a SentencePiece model",
}

_RANK_LINE = re.compile(rb"^[A-Za-z0-9+/=]+ \d+\r?$")


def read_limited(
    path: Path, *, limit: int | None = None, head: bool = False, allow_empty: bool = False, expected: str = ""
) -> bytes:
    """Read a vocabulary file, transparently gunzipping ``*.gz``.

    Files over ``limit`` bytes (default: :mod:`lbpe.limits` ``vocab_bytes``, before and after
    decompression) are refused before they are parsed; a gzip bomb stops at the limit. With
    ``head=True`` only the first 4 KiB are returned (format sniffing). An empty (or all white
    space) file is refused unless ``allow_empty``.
    """
    if limit is None:
        limit = limits.get("vocab_bytes") or -1
    gzipped = path.name.endswith(".gz")
    try:
        size = path.stat().st_size
        if limit >= 0 and size > limit and not gzipped:  # (the limit counts a .gz file's decompressed bytes)
            raise VocabFormatError(str(path), limits.exceeded("vocab_bytes", size, "the file") or "too large")
        want = 4096 if head else (limit + 1 if limit >= 0 else -1)
        if gzipped:  # read to the limit, no further (a gzip bomb): its size is not known
            with gzip.open(path, "rb") as f:
                data = _read_up_to(f, want)
        else:  # not only regular files: a pipe or a device has no size to check up front
            with open(path, "rb") as f:
                data = _read_up_to(f, want)
        if not head and limit >= 0 and len(data) > limit:
            grows = "decompresses to" if gzipped else "holds"
            raise VocabFormatError(
                str(path),
                f"{grows} more than {limits.amount('vocab_bytes', limit)}, the limit for vocabulary files; "
                + limits.how_to_raise("vocab_bytes"),
            )
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise VocabFormatError(str(path), f"is not a valid gzip file ({exc or type(exc).__name__})") from None
    except FileNotFoundError:
        raise VocabFormatError(str(path), "no such file") from None
    except IsADirectoryError:
        raise VocabFormatError(str(path), "is a folder, expected a file") from None
    except OSError as exc:
        raise VocabFormatError(str(path), f"cannot be read ({exc.strerror or exc})") from None
    if not head and not data.strip() and not allow_empty:
        raise VocabFormatError(str(path), f"the file is empty; expected {expected or ' or '.join(FORMATS.values())}")
    return data


def _read_up_to(f, n: int) -> bytes:
    """At most ``n`` bytes of ``f`` (all of it for ``n < 0``), in 1 MiB steps so that memory
    follows what is actually there."""
    if n < 0:
        return f.read()
    parts, got = [], 0
    while got < n:
        part = f.read(min(1 << 20, n - got))
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _preset_hint(missing: Path) -> str:
    """For a missing bare name (``cl100k_base``, ``gpt2.tiktoken``), how a bundled vocabulary of
    that name opens (this layer does not know their names: :mod:`lbpe.presets` reads through it)."""
    if len(missing.parts) != 1:
        return ""
    name = missing.name.removesuffix(".gz").removesuffix(".tiktoken")
    return f"; if {name!r} is a bundled vocabulary, open it with lbpe.load_preset({name!r})"


def detect_format(path: str | os.PathLike[str]) -> tuple[str, Path]:
    """Return ``(format name, the file to read)`` for a vocabulary file or folder."""
    p = Path(path)
    if p.is_dir():
        if (p / "encoder.json").is_file() and (p / "vocab.bpe").is_file():
            return "gpt2", p / "encoder.json"
        for name in ("tokenizer.json", "tokenizer.json.gz"):  # lbpe train -o may gzip it
            if (p / name).is_file():
                return "hf", p / name
        plain = sorted(p.glob("*.tiktoken"))
        ranks = plain or sorted(p.glob("*.tiktoken.gz"))  # a gzipped one where no plain one is
        if len(ranks) == 1:
            return "tiktoken", ranks[0]
        if len(ranks) > 1:
            names = ", ".join(r.name for r in ranks[:5])
            raise VocabFormatError(str(p), f"holds {len(ranks)} .tiktoken files ({names}); give the one you mean")
        for name in ("tokenizer.model", "tokenizer.model.gz"):
            if (p / name).is_file():
                return "sentencepiece", p / name
        found = ", ".join(sorted(x.name for x in p.iterdir())[:10]) or "nothing"
        raise VocabFormatError(
            str(p), f"no vocabulary found in this folder (found: {found}); expected {' or '.join(FORMATS.values())}"
        )
    if not p.exists():
        raise VocabFormatError(str(p), "no such file or folder" + _preset_hint(p))
    name = p.name.lower()
    if name.endswith(".gz"):
        name = name[: -len(".gz")]
    if name.endswith(".tiktoken"):
        return "tiktoken", p
    if name in ("encoder.json", "vocab.bpe"):
        return "gpt2", p
    if name.endswith(".model") or ".model." in name:
        return "sentencepiece", p
    head = read_limited(p, head=True)
    if name.endswith(".json") or head.lstrip()[:1] == b"{":
        return "hf", p
    first = head.split(b"\n", 1)[0]
    if _RANK_LINE.match(first):
        return "tiktoken", p
    raise VocabFormatError(str(p), f"unrecognised vocabulary format; supported: {'; '.join(FORMATS.values())}")


def load(
    path: str | os.PathLike[str],
    *,
    pattern: str | re.Pattern[str] | None = None,
    special_tokens: Mapping[str, int] | None = None,
    limits: Limits | None = None,
) -> Tokenizer:
    """Load a vocabulary file or folder as a :class:`~lbpe.tokenizer.Tokenizer`.

    ``pattern`` names the pre-tokeniser preset (``"gpt2"``, ``"r50k_base"``, ``"p50k_base"``,
    ``"cl100k_base"``, ``"o200k_base"``, ``"paper"``) or is a compiled ``re`` pattern. For the
    OpenAI rank files it can be left out: the file name (``cl100k_base.tiktoken``) tells;
    otherwise :class:`~lbpe.errors.PatternNeededError` says to choose one.

    ``special_tokens`` (a rank file's only): each special token's text -> its id, as
    ``tiktoken.Encoding``'s ``special_tokens``. A rank file carries none; one named after an
    OpenAI encoding gets that encoding's unless they are given here, and one under another name
    has none unless given. tokenizer.json, SentencePiece and GPT-2 files carry their own.

    ``limits`` (a :class:`lbpe.limits.Limits` snapshot, as a server reads once) replaces the
    environment's ``vocab_bytes`` and ``vocab_tokens`` for this call, and the messages name
    the snapshot's variables. A vocabulary whose longest token is over the ``token_bytes``
    limit (``LBPE_MAX_TOKEN_BYTES``, 1 KiB) is refused: no real one comes near it.
    """
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"path must be a vocabulary file's or folder's path (str or os.PathLike), not {type(path).__name__}; "
            "for a bundled vocabulary use lbpe.load_preset(name)"
        )
    if special_tokens is not None and not isinstance(special_tokens, Mapping):
        raise TypeError(
            "special_tokens must map each special token's text to its id, e.g. {'<|endoftext|>': 100257}; "
            f"got {type(special_tokens).__name__}"
        )
    with using(limits):
        return _load(path, pattern, special_tokens)


def _load(
    path: str | os.PathLike[str], pattern: str | re.Pattern[str] | None, special_tokens: Mapping[str, int] | None
) -> Tokenizer:
    fmt, file = detect_format(path)
    if special_tokens is not None and fmt != "tiktoken":
        raise VocabFormatError(
            str(file),
            f"{_OWN_SPECIALS[fmt]} carries its own special tokens; do not pass special_tokens= "
            "(on the command line --special-token)",
        )
    tok = _parse(fmt, file, pattern, special_tokens)
    longest = max(map(len, tok.vocab.tokens), default=0)
    problem = limits.exceeded("token_bytes", longest, "its longest token")
    if problem is not None:
        raise VocabFormatError(str(file), problem)
    return tok


def _parse(
    fmt: str, file: Path, pattern: str | re.Pattern[str] | None, special_tokens: Mapping[str, int] | None
) -> Tokenizer:
    # Each format's parser is imported when a file of that format is read: a program that reads
    # one format (the browser page starts on a SentencePiece model) compiles only its parser.
    if fmt == "tiktoken":
        return _tiktoken_tokenizer(file, pattern, special_tokens)
    if fmt == "gpt2":
        return _gpt2_tokenizer(file, pattern)
    # the formats that carry their own pipeline: the parser builds the Tokenizer
    if fmt == "hf":
        if pattern is not None:
            raise VocabFormatError(
                str(file),
                "a tokenizer.json carries its own pre-tokenizer; do not pass pattern= "
                "(on the command line, leave out --pattern)",
            )
        from lbpe.formats.hf import parse_hf_tokenizer

        return parse_hf_tokenizer(
            read_limited(file, expected=FORMATS[fmt]), source=str(file), name=file.parent.name or file.stem
        )
    if fmt == "sentencepiece":
        if pattern is not None:
            raise VocabFormatError(
                str(file),
                "a SentencePiece model carries its own normalisation; do not pass pattern= "
                "(on the command line, leave out --pattern)",
            )
        from lbpe.formats.sentencepiece import parse_sentencepiece_tokenizer

        return parse_sentencepiece_tokenizer(
            read_limited(file, expected=FORMATS[fmt]), source=str(file), name=file.stem
        )
    raise AssertionError(f"detect_format returned an unknown format {fmt!r}")  # pragma: no cover


def _tiktoken_tokenizer(
    file: Path, pattern: str | re.Pattern[str] | None, special_tokens: Mapping[str, int] | None
) -> Tokenizer:
    """A rank file's ``Vocab`` with ``pattern`` and ``special_tokens``, or with the preset and
    special tokens of the OpenAI encoding its file name names."""
    base = file.name[: -len(".gz")] if file.name.endswith(".gz") else file.name
    stem = base[: -len(".tiktoken")] if base.endswith(".tiktoken") else Path(base).stem
    encoding = openai_encoding(stem)  # the preset and special tokens of an OpenAI encoding
    preset = encoding.name if encoding is not None else None
    special = dict(encoding.special_tokens or {}) if encoding is not None else {}
    if special_tokens is not None:
        special = dict(special_tokens)
    # a file that cannot be read, or is no rank file, is refused before asking for a pattern (a
    # pattern given is checked first: a mistyped one is said at once)
    data = read_limited(file, expected=FORMATS["tiktoken"])
    checked = None if pattern is None else _pattern_for(file, pattern)
    from lbpe.formats.tiktoken import parse_tiktoken_vocab

    vocab = parse_tiktoken_vocab(data, source=str(file), special=special, name=stem)
    if pattern is None:
        if preset is None:
            raise PatternNeededError(
                str(file),
                f"cannot tell the pre-tokenizer from the file name {file.name!r}; pass pattern= (on the "
                f"command line --pattern) one of {', '.join(pretokenizer_preset_names())}, or name the file "
                f"after its encoding ({', '.join(openai_encoding_names())}); a rank file holds no special "
                "tokens: give them with special_tokens= (on the command line --special-token TEXT=ID)",
            )
        pattern = preset
    compiled = checked if checked is not None else _pattern_for(file, pattern)
    return Tokenizer(vocab, pattern if isinstance(pattern, str) else compiled, name=stem)


def _gpt2_tokenizer(file: Path, pattern: str | re.Pattern[str] | None) -> Tokenizer:
    """GPT-2's two files (side by side in ``file``'s folder) as a ``Vocab``, with ``pattern`` or
    the ``gpt2`` preset."""
    folder = file.parent
    encoder, merges = folder / "encoder.json", folder / "vocab.bpe"
    for needed in (encoder, merges):
        if not needed.is_file():
            raise VocabFormatError(
                str(needed), "missing: GPT-2 vocabularies need encoder.json and vocab.bpe side by side"
            )
    pattern = "gpt2" if pattern is None else pattern
    compiled = _pattern_for(file, pattern)
    from lbpe.formats.gpt2 import parse_gpt2_vocab

    vocab = parse_gpt2_vocab(
        read_limited(encoder, expected="a JSON object mapping token text to id"),
        read_limited(merges, allow_empty=True),
        encoder_source=str(encoder),
        merges_source=str(merges),
        name="gpt2",
    )
    return Tokenizer(vocab, pattern if isinstance(pattern, str) else compiled, name=folder.name or "gpt2")


def _pattern_for(file: Path, pattern: str | re.Pattern[str]) -> re.Pattern[str] | PresetPattern:
    try:
        return resolve_pattern(pattern)
    except ValueError as exc:
        raise VocabFormatError(str(file), str(exc)) from None
