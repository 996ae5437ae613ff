"""The comparison model: both segmentations of one text (:func:`compare` -> :class:`Comparison`),
the ranges where they differ (:func:`differing_spans`), each difference's tokens on both sides
(:func:`differences`), and the statistics of a comparison (:func:`comparison_summary`)."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from lbpe.analysis.agreement import text_agreement
from lbpe.analysis.comparison import compare_json
from lbpe.analysis.counting import count_words, token_lengths
from lbpe.analysis.metrics import RENYI_POWER
from lbpe.analysis.stats import PerToken, Stats
from lbpe.errors import LbpeError
from lbpe.tokenizer import MODES, Mode, Segment, Tokenizer, replace_surrogates
from lbpe.user_regex import deadline


@dataclass(frozen=True)
class Side(PerToken):
    """One segmentation of the text, with the counts the metrics are made of."""

    mode: Mode
    segments: tuple[Segment, ...]
    bytes: int
    chars: int

    @property
    def tokens(self) -> int:
        return len(self.segments)

    @property
    def ids(self) -> list[int]:
        return [s.id for s in self.segments]

    def to_json(self) -> dict:
        return {
            "tokens": self.tokens,
            "bytes": self.bytes,
            "chars": self.chars,
            "bytes_per_token": self.bytes_per_token,
            "chars_per_token": self.chars_per_token,
            "ids": self.ids,
        }


@dataclass(frozen=True)
class Comparison:
    """Both segmentations of ``text`` and the character ranges where they differ.

    ``text`` is the input with lone surrogates replaced by U+FFFD (what the tokenizer
    encodes; segment offsets index into it).
    """

    text: str
    vocab: str
    unit: str
    bpe: Side
    lbpe: Side
    differ: tuple[tuple[int, int], ...]

    def side(self, mode: str) -> Side:
        if mode not in MODES:
            raise ValueError(f"mode must be 'bpe' or 'lbpe', not {mode!r}")
        return self.bpe if mode == "bpe" else self.lbpe

    @property
    def token_change(self) -> int:
        """LBPE tokens minus BPE tokens (negative: LBPE is shorter)."""
        return self.lbpe.tokens - self.bpe.tokens

    @property
    def differing_chars(self) -> int:
        return sum(e - s for s, e in self.differ)

    def to_json(self) -> dict:
        """A JSON-able summary: per mode counts and ids, ``token_change`` (LBPE tokens minus BPE
        tokens, a count; the relative change is :func:`lbpe.analysis.comparison.compare_json`'s
        ``change.tokens``) and the differing ranges."""
        return {
            "vocab": self.vocab,
            "unit": self.unit,
            "bpe": self.bpe.to_json(),
            "lbpe": self.lbpe.to_json(),
            "token_change": self.token_change,
            "differ": [list(r) for r in self.differ],
        }


def compare(tok: Tokenizer, text: str, *, specials: bool = False) -> Comparison:
    """Segment ``text`` with classic BPE and with LBPE and find where they differ.

    Special-token strings in ``text`` (``<|endoftext|>``) are ordinary text unless
    ``specials``: then each becomes its special token, as ``allowed_special="all"`` does."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    text = replace_surrogates(text)
    nbytes = len(text.encode("utf-8"))
    with deadline(len(text)):  # both modes share one time allowance for a file's own patterns
        sides = {
            mode: Side(
                mode,
                tuple(
                    tok.segment(
                        text, mode=mode, allowed_special="all" if specials else frozenset(), disallowed_special=()
                    )
                ),
                nbytes,
                len(text),
            )
            for mode in MODES
        }
    return Comparison(
        text=text,
        vocab=tok.name,
        unit=tok.vocab.unit,
        bpe=sides["bpe"],
        lbpe=sides["lbpe"],
        differ=differing_spans(sides["bpe"].segments, sides["lbpe"].segments),
    )


def _cuts(segments: Sequence[Segment]) -> set[int]:
    """Token boundaries that no token straddles (partial UTF-8 tokens overlap)."""
    points = {p for s in segments for p in (s.start, s.end)}
    wide = sorted((s.start, s.end) for s in segments if s.end - s.start >= 2)
    merged: list[list[int]] = []  # disjoint open intervals (start, end) covered by some token
    for start, end in wide:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    starts = [m[0] for m in merged]
    out = set()
    for p in points:
        k = bisect_right(starts, p) - 1
        if k < 0 or not (merged[k][0] < p < merged[k][1]):
            out.add(p)
    return out


def differing_spans(a: Sequence[Segment], b: Sequence[Segment]) -> tuple[tuple[int, int], ...]:
    """Character ranges ``(start, end)`` where segmentations ``a`` and ``b`` of one text differ.

    The text is cut at every position where both segmentations have a token boundary that
    no token of either straddles; between two neighbouring cuts the two segmentations either
    agree token for token (same spans, same token bytes) or the range is reported. Ranges
    are sorted, disjoint and as small as these cuts allow (neighbouring ranges are not
    merged). Partial UTF-8 tokens that split one character differently count as a
    difference even though their character spans agree.

    >>> def segs(*spans):
    ...     return [Segment(0, s, e, b"x" * (e - s)) for s, e in spans]
    >>> differing_spans(segs((0, 2), (2, 3), (3, 5)), segs((0, 1), (1, 3), (3, 5)))
    ((0, 3),)
    >>> differing_spans(segs((0, 2), (2, 4)), segs((0, 1), (1, 2), (2, 3), (3, 4)))
    ((0, 2), (2, 4))
    >>> differing_spans(segs((0, 3)), segs((0, 3)))
    ()
    """
    return _spans(a, b, common_cuts(a, b))


def common_cuts(a: Sequence[Segment], b: Sequence[Segment]) -> list[int]:
    """The positions, sorted, where both segmentations have a token boundary that no token of
    either straddles (the cuts of :func:`differing_spans`)."""
    return sorted(_cuts(a) & _cuts(b))


def _spans(
    a: Sequence[Segment], b: Sequence[Segment], common: list[int], lo: int | None = None
) -> tuple[tuple[int, int], ...]:
    """:func:`differing_spans` given their :func:`common_cuts` (a list this may change); ``lo``:
    a common cut of a longer segmentation whose part from ``lo`` on ``a`` and ``b`` are (then
    the spans are that longer one's from ``lo`` on)."""
    if not a and not b:
        return ()
    ends = [s.start for s in (*a, *b)] + [s.end for s in (*a, *b)]
    hi = max(ends)
    if lo is None:
        lo = min(ends)
    if not common or common[0] != lo:
        common.insert(0, lo)
    if common[-1] != hi:
        common.append(hi)
    if len(common) < 2:  # only empty tokens at one position
        common.append(hi)

    def regions(segments: Sequence[Segment]) -> dict[int, list[tuple[int, int, bytes]]]:
        out: dict[int, list[tuple[int, int, bytes]]] = {}
        last = len(common) - 2
        for s in segments:
            k = min(max(bisect_right(common, s.start) - 1, 0), last)
            out.setdefault(k, []).append((s.start, s.end, s.token))
        return out

    ra, rb = regions(a), regions(b)
    return tuple((common[k], common[k + 1]) for k in sorted(set(ra) | set(rb)) if ra.get(k) != rb.get(k))


@dataclass(frozen=True)
class Difference:
    """One differing span: its characters and each side's tokens over it."""

    start: int
    end: int
    text: str
    bpe: tuple[str, ...]
    lbpe: tuple[str, ...]

    @property
    def change(self) -> int:
        """LBPE tokens minus BPE tokens over the span."""
        return len(self.lbpe) - len(self.bpe)


def differences(comparison: Comparison) -> list[Difference]:
    """Each differing span of ``comparison`` with the tokens each side puts over it, in text
    order (a token is listed with the span it starts in).

    >>> from lbpe.vocab import Vocab
    >>> tokens = {bytes([b]): b for b in range(256)} | {b"aa": 256, b"bb": 257, b"bbb": 258, b"ab": 259, b"aab": 260}
    >>> d = differences(compare(Tokenizer(Vocab(tokens), "paper"), "aabbb x"))
    >>> [(x.text, x.bpe, x.lbpe, x.change) for x in d]
    [('aabbb', ('aa', 'bbb'), ('aab', 'bb'), 0)]
    """
    out = []
    sides = [comparison.bpe.segments, comparison.lbpe.segments]
    starts = [[seg.start for seg in segs] for segs in sides]
    for a, b in comparison.differ:
        labels = []
        for segs, first in zip(sides, starts):
            i, j = bisect_left(first, a), bisect_left(first, b)
            labels.append(tuple(segs[k].label for k in range(i, j)))
        out.append(Difference(a, b, comparison.text[a:b], labels[0], labels[1]))
    return out


def parse_ids(text: str) -> list[int]:
    """Token ids pasted as text: numbers separated by spaces, commas or line breaks, optionally
    inside ``[...]`` (a Python or JSON list).

    >>> parse_ids("[15496, 995]"), parse_ids("15496, 995 ")
    ([15496, 995], [15496, 995])
    """
    body = (text or "").strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    parts = [p for p in re.split(r"[\s,]+", body) if p]
    if not parts:
        raise LbpeError("paste token ids to decode: numbers separated by spaces or commas, e.g. 15496 995")
    bad = next((p for p in parts if not p.isdigit()), None)
    if bad is not None:
        raise LbpeError(
            f"{bad[:20]!r} is not a token id; ids are whole numbers such as 15496, separated by spaces or commas"
        )
    return [int(p) for p in parts]


def comparison_stats(tok: Tokenizer, comparison: Comparison) -> dict[str, Stats]:
    """:class:`lbpe.analysis.stats.Stats` per mode for a comparison, from its segments (no re-encoding);
    equal to :func:`lbpe.analysis.stats.text_stats` on the same text."""
    length = token_lengths(tok)
    words = count_words(comparison.text)
    out: dict[str, Stats] = {}
    for mode in MODES:
        side = comparison.side(mode)
        per_id = Counter(s.id for s in side.segments)
        counts: Counter[int] = Counter()
        for i, n in per_id.items():
            if length(i):
                counts[length(i)] += n
        out[mode] = Stats(
            tokens=side.tokens,
            bytes=side.bytes,
            chars=side.chars,
            words=words,
            length_counts=dict(counts),
            token_counts=dict(per_id),
        )
    out["lbpe"].agreement = text_agreement(tok, comparison.bpe.ids, comparison.lbpe.ids, comparison.text)
    return out


def comparison_summary(
    tok: Tokenizer, comparison: Comparison, *, renyi_power: float = RENYI_POWER, stats: dict[str, Stats] | None = None
) -> dict:
    """:func:`lbpe.analysis.comparison.compare_json` of the compared text: every metric, the frequency by
    token length and the agreement of the two segmentations (``stats``: its
    :func:`comparison_stats`, when the caller has them already)."""
    stats = comparison_stats(tok, comparison) if stats is None else stats
    return compare_json(stats, vocab=comparison.vocab, unit=comparison.unit, tok=tok, renyi_power=renyi_power)
