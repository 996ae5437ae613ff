"""Segments: each token of an encoding placed in the text it came from (character offsets), for
display (``Tokenizer.segment``), and the pieces placed likewise (``Tokenizer.located_pieces``).
:class:`Segment` is one placed token; the functions place the keys of one piece (byte or
character units) and carry segments back through a splitter's or a normaliser's rewriting to
the text as given."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lbpe import budget
from lbpe.normalize import Normalizer
from lbpe.pretokenize.splitters import Splitter
from lbpe.tokenizer.keys import key_groups, key_ids
from lbpe.vocab import Vocab

__all__ = ["Segment", "segments", "located", "locate_bytes", "locate_chars", "in_given_text", "given_positions"]


@dataclass(frozen=True, slots=True)
class Segment:
    """One token of a segmentation, located in the original text.

    ``start``/``end`` are character offsets into the text. A byte-level token that begins or
    ends inside a multi-byte character has ``partial=True``; its ``start``/``end`` cover every
    character it touches, so neighbouring partial tokens overlap. Draw partial tokens from
    ``token`` (their raw bytes, see :attr:`label`), never by decoding them on their own.
    """

    id: int
    start: int
    end: int
    token: bytes
    partial: bool = False
    special: bool = False

    @property
    def label(self) -> str:
        """Display text: the token's text, or ``\\xNN`` escapes for a partial UTF-8 token."""
        if self.partial:
            return "".join(f"\\x{b:02x}" for b in self.token)
        return self.token.decode("utf-8")

    @property
    def n_bytes(self) -> int:
        """Length of ``token`` in bytes (for any vocabulary, byte- or character-level)."""
        return len(self.token)


def _moved(seg: Segment, start: int, end: int) -> Segment:
    return Segment(seg.id, start, end, seg.token, partial=seg.partial, special=seg.special)


def locate_bytes(piece: str, keys: Sequence[bytes], ids: Sequence[int], char_offset: int) -> list[Segment]:
    """Place the byte tokens of one piece at character offsets (see :class:`Segment`)."""
    if piece.isascii():
        segs = []
        pos = char_offset
        for key, i in zip(keys, ids):
            segs.append(Segment(i, pos, pos + len(key), key))
            pos += len(key)
        return segs
    starts = [0]  # byte offset at which each character starts, plus the end
    for ch in piece:
        starts.append(starts[-1] + len(ch.encode("utf-8")))
    segs = []
    b = 0
    for key, i in zip(keys, ids):
        e = b + len(key)
        first = bisect_right(starts, b) - 1
        last = bisect_left(starts, e)
        partial = starts[first] != b or starts[last] != e
        segs.append(Segment(i, char_offset + first, char_offset + last, key, partial=partial))
        b = e
    return segs


def locate_chars(vocab: Vocab, keys: Sequence[str], groups: Sequence[Sequence[int]], pos: int) -> list[Segment]:
    """Segments of character-level keys, given each key's ids (``groups``, as
    ``Tokenizer._key_groups`` gives them); fallback bytes of one character share its span."""
    segs: list[Segment] = []
    for key, ids in zip(keys, groups):
        if not ids:  # fused into the unknown token before it
            segs[-1] = _moved(segs[-1], segs[-1].start, pos + len(key))
        elif len(ids) == 1 and key in vocab.model_tokens:
            segs.append(Segment(ids[0], pos, pos + len(key), key.encode("utf-8")))
        else:  # byte fallback (one token per UTF-8 byte) or the unknown token
            multi = len(ids) > 1
            for i in ids:
                segs.append(Segment(i, pos, pos + len(key), vocab.token_bytes(i), partial=multi))
        pos += len(key)
    return segs


def _clamped(segs: list[Segment], start: int, end: int) -> list[Segment]:
    """``segs`` kept inside ``start..end``: the span of a piece the splitter rewrote."""
    return [_moved(s, min(max(s.start, start), end), min(max(s.end, start), end)) for s in segs]


def _realigned(segs: list[Segment], origin: Sequence[int], size: int) -> list[Segment]:
    """``segs`` of a normalised text carried back to the text of ``size`` characters it came
    from; ``origin``: the normaliser's alignment (each normalised character's index there)."""

    def back(i: int, is_end: bool) -> int:
        if is_end:
            return origin[i - 1] + 1 if 0 < i <= len(origin) else (size if i else 0)
        return origin[i] if i < len(origin) else size

    return [_moved(s, back(s.start, False), max(back(s.end, True), back(s.start, False))) for s in segs]


def given_positions(given: str) -> list[int]:
    """Where each character of ``replace_surrogates(given)`` starts in ``given``, and its end: a
    surrogate pair joined into one character there is two here (a lone surrogate stays one)."""
    starts: list[int] = []
    i = 0
    while i < len(given):
        starts.append(i)
        pair = "\ud800" <= given[i] <= "\udbff" and i + 1 < len(given) and "\udc00" <= given[i + 1] <= "\udfff"
        i += 2 if pair else 1
    starts.append(len(given))
    return starts


def in_given_text(segs: list[Segment], given: str) -> list[Segment]:
    """``segs`` of ``replace_surrogates(given)`` carried back to ``given`` (:func:`given_positions`)."""
    at = given_positions(given)
    return [_moved(s, at[s.start], at[s.end]) for s in segs]


def _shifted(segs: list[Segment], offset: int) -> list[Segment]:
    """``segs`` moved ``offset`` characters on (a chunk's place in the whole text)."""
    return [_moved(s, s.start + offset, s.end + offset) for s in segs]


def segments(
    chunks: Sequence[tuple[bool, str]],
    vocab: Vocab,
    normalizer: Normalizer | None,
    splitter: Splitter,
    split: Callable[[str], list],
    matched_id: Callable[[str], int],
) -> list[Segment]:
    """The segments of a text split into ``chunks`` (``Tokenizer._chunks``): a special or added
    token's by ``matched_id``, each ordinary chunk's normalised, pre-tokenised and each piece
    split into keys by ``split``."""
    out: list[Segment] = []
    offset = 0
    for is_special, chunk in chunks:
        if is_special:
            i = matched_id(chunk)
            out.append(Segment(i, offset, offset + len(chunk), chunk.encode(), special=chunk in vocab.special))
        else:
            out += _segment_chunk(chunk, offset, vocab, normalizer, splitter if not offset else splitter.later(), split)
        offset += len(chunk)
    return out


def _segment_chunk(
    chunk: str,
    offset: int,
    vocab: Vocab,
    normalizer: Normalizer | None,
    splitter: Splitter,
    split: Callable[[str], list],
) -> list[Segment]:
    if normalizer is not None:
        norm, origin = normalizer.aligned(chunk)
    else:
        norm, origin = chunk, None
    out: list[Segment] = []
    for piece, start, end in splitter.split(norm):
        budget.check()
        keys = split(piece)
        if vocab.unit == "byte":
            segs = locate_bytes(piece, keys, key_ids(vocab, keys), start)
        else:
            segs = locate_chars(vocab, keys, key_groups(vocab, keys), start)
        if len(piece) != end - start:  # the splitter rewrote the piece: stay inside its span
            segs = _clamped(segs, start, end)
        out += segs
    if origin is not None:
        out = _realigned(out, origin, len(chunk))
    if offset:
        out = _shifted(out, offset)
    return out


def located(chunks: Sequence[tuple[bool, str]], splitter: Splitter) -> list[tuple[str, int, int, bool]]:
    """The pieces of a text split into ``chunks`` (``Tokenizer._chunks``) where they lie in it:
    ``(piece, start, end, special)``, a special or added token being a piece of its own."""
    out: list[tuple[str, int, int, bool]] = []
    offset = 0
    for is_special, chunk in chunks:
        if is_special:
            out.append((chunk, offset, offset + len(chunk), True))
        else:
            pieces = (splitter if not offset else splitter.later()).split(chunk)
            out += [(piece, start + offset, end + offset, False) for piece, start, end in pieces]
        offset += len(chunk)
    return out
