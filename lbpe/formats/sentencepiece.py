"""SentencePiece ``.model`` files of type BPE, parsed from the protobuf bytes in pure Python into
a :class:`~lbpe.tokenizer.Tokenizer` by :func:`parse_sentencepiece_tokenizer`.

What matters for encoding is read: the pieces (text, score, type), the trainer's model type,
``byte_fallback``, ``unk_id``/``bos_id``/``eos_id``, ``treat_whitespace_as_suffix``, and the
normaliser's ``precompiled_charsmap``, ``add_dummy_prefix``, ``remove_extra_whitespaces`` and
``escape_whitespaces``. SentencePiece's BPE merges the adjacent pair whose concatenation is
the piece with the highest score (leftmost on ties); here that becomes a merge list whose
priority for ``(a, b)`` is the score rank of ``a + b``.

Unigram, word and char models are refused, as are UNUSED pieces (which SentencePiece
re-segments in a way that depends on the encoding history).
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterator

from lbpe.decoders import SentencePiece as SentencePieceDecoder
from lbpe.errors import LbpeError, VocabFormatError
from lbpe.limits import vocab_problem
from lbpe.normalize import SentencePieceNormalizer
from lbpe.pretokenize.splitters import Sequence
from lbpe.tokenizer import Tokenizer
from lbpe.vocab import Vocab

__all__ = ["parse_sentencepiece_tokenizer", "read_fields"]

# SentencePiece piece types
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
_MODEL_TYPES = {1: "UNIGRAM", 2: "BPE", 3: "WORD", 4: "CHAR"}
_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


class _Corrupt(Exception):
    pass


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(data):
            raise _Corrupt("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise _Corrupt("varint longer than 10 bytes")


def read_fields(data: bytes) -> Iterator[tuple[int, int, int | bytes]]:
    """Yield ``(field number, wire type, value)`` of one protobuf message.

    Values: ``int`` for varints, ``bytes`` for length-delimited fields and for fixed32/fixed64.
    """
    pos = 0
    n = len(data)
    while pos < n:
        value: int | bytes
        key, pos = _varint(data, pos)
        field, wire = key >> 3, key & 7
        if field == 0:
            raise _Corrupt("field number 0")
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            if pos + 8 > n:
                raise _Corrupt("truncated 64-bit field")
            value, pos = data[pos : pos + 8], pos + 8
        elif wire == 2:
            length, pos = _varint(data, pos)
            if pos + length > n:
                raise _Corrupt(f"field {field} claims {length} bytes, {n - pos} remain")
            value, pos = data[pos : pos + length], pos + length
        elif wire == 5:
            if pos + 4 > n:
                raise _Corrupt("truncated 32-bit field")
            value, pos = data[pos : pos + 4], pos + 4
        else:
            raise _Corrupt(f"unsupported wire type {wire} (field {field})")
        yield field, wire, value


def _bytes(value: int | bytes) -> bytes:
    """A length-delimited field's bytes (the callers have checked its wire type)."""
    if not isinstance(value, bytes):
        raise _Corrupt("a length-delimited field holds a number")
    return value


def _text(value: object, what: str) -> str:
    if not isinstance(value, bytes):
        raise _Corrupt(f"{what} is not a string field")
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise _Corrupt(f"{what} is not UTF-8") from None


def parse_sentencepiece_tokenizer(data: bytes, *, source: str, name: str = "") -> Tokenizer:
    """Parse the bytes of a SentencePiece ``.model`` file (BPE models only)."""
    if not data:
        raise VocabFormatError(source, "the file is empty; expected a SentencePiece .model (protobuf) file")
    try:
        return _build(data, source=source, name=name)
    except _Corrupt as exc:
        raise VocabFormatError(
            source, f"not a valid SentencePiece model ({exc}); is it a complete .model file (protobuf)?"
        ) from None
    except VocabFormatError:
        raise
    except LbpeError as exc:  # e.g. a corrupt precompiled_charsmap
        raise VocabFormatError(source, f"not a usable SentencePiece model: {exc}") from None


def _build(data: bytes, *, source: str, name: str) -> Tokenizer:
    pieces: list[tuple[str, float, int]] = []
    trainer: bytes | None = None
    normalizer = b""
    for field, wire, value in read_fields(data):
        if field == 1 and wire == 2:
            text, score, kind = "", 0.0, NORMAL
            for f, w, v in read_fields(_bytes(value)):
                if f == 1 and w == 2:
                    text = _text(v, "a piece")
                elif f == 2 and w == 5:
                    score = struct.unpack("<f", _bytes(v))[0]
                elif f == 3 and w == 0:
                    kind = int(v)
            pieces.append((text, score, kind))
        elif field == 2 and wire == 2:
            trainer = _bytes(value)
        elif field == 3 and wire == 2:
            normalizer = _bytes(value)
    if not pieces:
        raise _Corrupt("no pieces")
    if trainer is None:
        # protobuf's default type is UNIGRAM, but a model without the spec is far more often
        # a file cut short after its pieces than a unigram model
        raise VocabFormatError(
            source,
            f"the file ends after its {len(pieces):,} pieces, without the trainer_spec that gives the "
            "model's type (SentencePiece writes one into every model): it looks cut short. "
            "Use the complete .model file.",
        )
    problem = vocab_problem(len(pieces))
    if problem:
        raise VocabFormatError(source, problem)

    model_type, byte_fallback, ws_suffix = 1, False, False
    unk_id, bos_id, eos_id = 0, 1, 2
    unk_surface = " \u2047 "
    for f, w, v in read_fields(trainer):
        if f == 44 and w == 2:
            unk_surface = _text(v, "unk_surface")
        if w != 0:
            continue
        if f == 3:
            model_type = int(v)
        elif f == 35:
            byte_fallback = bool(v)
        elif f == 24:
            ws_suffix = bool(v)
        elif f == 40:
            unk_id = _signed32(int(v))
        elif f == 41:
            bos_id = _signed32(int(v))
        elif f == 42:
            eos_id = _signed32(int(v))
    if model_type != 2:
        type_name = _MODEL_TYPES.get(model_type, str(model_type))
        raise VocabFormatError(source, f"SentencePiece model type {type_name} is not supported (BPE only)")
    if ws_suffix:
        raise VocabFormatError(source, "treat_whitespace_as_suffix models are not supported")

    charsmap, dummy, extra_ws, escape = b"", True, True, True
    for f, w, v in read_fields(normalizer):
        if f == 2 and w == 2:
            charsmap = _bytes(v)
        elif f == 3 and w == 0:
            dummy = bool(v)
        elif f == 4 and w == 0:
            extra_ws = bool(v)
        elif f == 5 and w == 0:
            escape = bool(v)

    tokens: dict[bytes, int] = {}
    scores: dict[str, float] = {}
    fallback: dict[int, int] = {}
    special: dict[str, int] = {}
    user_defined: dict[str, int] = {}
    unk = None
    for i, (text, score, kind) in enumerate(pieces):
        if score != score or score in (float("inf"), float("-inf")):
            raise _Corrupt(f"piece {i} ({text[:40]!r}) has score {score}; scores must be finite numbers")
        if kind == UNUSED:
            raise VocabFormatError(
                source, f"piece {i} ({text[:40]!r}) is UNUSED; models with unused pieces are not supported"
            )
        if kind in (NORMAL, USER_DEFINED):
            if not text:
                raise _Corrupt(f"piece {i} is empty")
            if text.encode() in tokens:
                raise _Corrupt(f"piece {text[:40]!r} appears twice")
            tokens[text.encode()] = i
            scores[text] = score
            if kind == USER_DEFINED:
                user_defined[text] = i
        elif kind == BYTE:
            m = _BYTE_PIECE.fullmatch(text)
            if m is None:
                raise _Corrupt(f"byte piece {i} is {text[:40]!r}, expected <0xNN> with two hex digits")
            byte = int(m.group(1), 16)
            if byte in fallback:
                raise _Corrupt(f"byte piece {i} repeats {text!r} (piece {fallback[byte]})")
            fallback[byte] = i
        elif kind == UNKNOWN:
            unk = i
            special[text] = i
        elif kind == CONTROL:
            special[text] = i
        else:
            raise _Corrupt(f"piece {i} has unknown type {kind}")
    if unk is None and 0 <= unk_id < len(pieces):
        unk = unk_id

    # Merge priority of (a, b): the score rank of a + b (higher score first; equal scores tie,
    # and ties go to the leftmost pair, as in SentencePiece's agenda).
    rank_of_score = {s: r for r, s in enumerate(sorted(set(scores.values()), reverse=True))}
    merges: dict[tuple[bytes, bytes], int] = {}
    for text in scores:
        if text in user_defined:
            continue
        for cut in range(1, len(text)):
            a, b = text[:cut], text[cut:]
            if a in scores and b in scores:
                merges[(a.encode(), b.encode())] = rank_of_score[scores[text]]
    try:
        vocab = Vocab(
            tokens,
            special=special,
            merges=merges,
            unit="char",
            name=name,
            byte_fallback=fallback if byte_fallback else None,
            unk=unk,
            whole_piece_first=False,
            fuse_unk=True,
        )
    except LbpeError as exc:
        raise VocabFormatError(source, str(exc)) from None
    surfaces: dict[int, str | None] = {}
    for i, (text, _, kind) in enumerate(pieces):
        if kind in (NORMAL, USER_DEFINED):
            surfaces[i] = text
        elif kind == UNKNOWN:
            surfaces[i] = unk_surface
        elif kind == CONTROL:
            surfaces[i] = ""
        else:  # BYTE
            surfaces[i] = None
    byte_of = {i: b for b, i in fallback.items()}

    decode = SentencePieceDecoder(surfaces, byte_of, space="\u2581" if escape else " ", dummy=dummy, squeeze=extra_ws)

    return Tokenizer(
        vocab,
        Sequence([]),
        name=name,
        normalizer=SentencePieceNormalizer(
            charsmap, add_dummy_prefix=dummy, remove_extra_whitespaces=extra_ws, escape_whitespaces=escape
        ),
        added_tokens=user_defined,
        decoder=decode,
        bos=[bos_id] if 0 <= bos_id < len(pieces) else [],
        eos=[eos_id] if 0 <= eos_id < len(pieces) else [],
        pretokenizer_name="sentencepiece",
    )


def _signed32(v: int) -> int:
    v &= 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v >= 1 << 63 else v
