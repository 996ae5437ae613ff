"""The comparison model: both segmentations of one text (:func:`compare` -> :class:`Comparison`),
the ranges where they differ (:func:`differing_spans`), each difference's tokens on both sides
(:func:`differences`), and the statistics of a comparison (:func:`comparison_summary`)."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from lbpe.analysis.agreement import text_agreement
from lbpe.analysis.comparison import compare_json
from lbpe.analysis.counting import count_words, token_lengths
from lbpe.analysis.metrics import RENYI_POWER
from lbpe.analysis.stats import PerToken, Stats
from lbpe.errors import LbpeError
from lbpe.playground.display.format import METHOD_NAMES
from lbpe.tokenizer import METHODS, MODES, Method, Segment, Tokenizer, replace_surrogates
from lbpe.tokenizer.checks import check_dropout
from lbpe.user_regex import deadline


@dataclass(frozen=True)
class Side(PerToken):
    """One segmentation of the text, with the counts the metrics are made of."""

    mode: Method  # the inference method that made it
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


#: The pair :func:`compare` compares unless told otherwise: classic BPE (left) and LBPE (right).
DEFAULT_METHODS: tuple[Method, Method] = ("bpe", "lbpe")


#: The largest seed the playground takes (12 digits): a seed travels in links and in JSON
#: answers, whose numbers hold 64 bits, and is typed by hand.
SEED_MOST = 999_999_999_999


def quoted(value: object, most: int = 20) -> str:
    """``value`` as a message quotes it: its text, cut to ``most`` characters with "…" where it
    is longer (and a number's count of digits), so a cut value never reads as a whole one.

    >>> quoted(10**30), quoted("x3")
    ("'10000000000000000000…' (31 digits)", "'x3'")
    """
    text = str(value)
    if len(text) <= most:
        return repr(text)
    digits = f" ({len(text):,} digits)" if text.isascii() and text.isdigit() else ""
    return repr(text[:most] + "…") + digits


#: What a seed may be, as the playground says it.
SEED_RULE = f"a whole number from 0 to {SEED_MOST:,}, or empty for fresh draws on every change"


def check_methods(
    methods: Sequence[str], dropout: float | None = None, seed: int | None = None
) -> tuple[Method, Method]:
    """``methods`` as a checked pair ``(left, right)``: two different methods of
    :data:`lbpe.METHODS`; ``dropout`` (required then) and ``seed`` only when one of them is
    ``"dropout"``. Each error is one line that says what to pass instead."""
    left, right = check_pair(methods)
    if "dropout" in methods:
        check_dropout("dropout", dropout, seed)
        if seed is not None and seed > SEED_MOST:
            raise LbpeError(f"The seed must be {SEED_RULE}: not {seed}.")
    elif dropout is not None or seed is not None:
        given = "dropout" if dropout is not None else "seed"
        raise LbpeError(f"a {given} only applies when one of the methods is dropout, not to {left} and {right}")
    return (left, right)


def check_pair(methods: Sequence[str]) -> tuple[Method, Method]:
    """:func:`check_methods` without the dropout options: two different methods."""
    names = ", ".join(METHODS)
    if isinstance(methods, str) or len(methods) != 2:
        given = methods if isinstance(methods, str) else ",".join(map(str, methods))
        raise LbpeError(f"methods must be two inference methods, left and right (e.g. bpe,lbpe), not {given!r}")
    for m in methods:
        if m not in METHODS:
            raise LbpeError(f"unknown inference method {m!r}; the methods are {names}")
    left, right = methods
    if left == right:
        raise LbpeError(f"compare two different methods, not {left!r} with itself")
    return (left, right)  # type: ignore[return-value]  # both checked against METHODS


@dataclass(frozen=True)
class Comparison:
    """Both segmentations of ``text`` and the character ranges where they differ.

    ``text`` is the input with lone surrogates replaced by U+FFFD (what the tokenizer
    encodes; segment offsets index into it). The two sides keep the classic pair's names as
    their roles: ``bpe`` is the left one, the baseline, made by ``methods[0]``; ``lbpe`` the
    right one, compared with it, made by ``methods[1]`` (``("bpe", "lbpe")`` unless
    :func:`compare` was given another pair; ``dropout``/``seed``: BPE-dropout's options then).
    """

    text: str
    vocab: str
    unit: str
    bpe: Side
    lbpe: Side
    differ: tuple[tuple[int, int], ...]
    methods: tuple[Method, Method] = DEFAULT_METHODS
    dropout: float | None = None
    seed: int | None = None

    def side(self, mode: str) -> Side:
        """The side in the role ``mode``: ``"bpe"`` the left (baseline), ``"lbpe"`` the right."""
        if mode not in MODES:
            raise ValueError(f"mode must be 'bpe' or 'lbpe', not {mode!r}")
        return self.bpe if mode == "bpe" else self.lbpe

    @property
    def names(self) -> dict[str, str]:
        """The display name of each role's method (``{"bpe": "BPE", "lbpe": "LBPE"}`` for the
        classic pair); BPE-dropout's with its rate."""

        def name(method: str) -> str:
            if method == "dropout":
                return f"{METHOD_NAMES[method]} {self.dropout:g}"
            return METHOD_NAMES[method]

        return {"bpe": name(self.methods[0]), "lbpe": name(self.methods[1])}

    @property
    def classic(self) -> bool:
        """Whether this compares BPE with LBPE (the paper's pair, whose predictions apply)."""
        return self.methods == DEFAULT_METHODS

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
        out = {
            "vocab": self.vocab,
            "unit": self.unit,
            "bpe": self.bpe.to_json(),
            "lbpe": self.lbpe.to_json(),
            "token_change": self.token_change,
            "differ": [list(r) for r in self.differ],
        }
        if not self.classic:  # the keys "bpe" and "lbpe" are then the left and the right side
            out["methods"] = list(self.methods)
            if "dropout" in self.methods:
                out.update(dropout=self.dropout, seed=self.seed)
        return out


def compare(
    tok: Tokenizer,
    text: str,
    *,
    specials: bool = False,
    methods: Sequence[str] = DEFAULT_METHODS,
    dropout: float | None = None,
    seed: int | None = None,
) -> Comparison:
    """Segment ``text`` with classic BPE and with LBPE (or with the two ``methods`` of
    :data:`lbpe.METHODS`, left and right: see :func:`check_methods`) and find where they differ.

    Special-token strings in ``text`` (``<|endoftext|>``) are ordinary text unless
    ``specials``: then each becomes its special token, as ``allowed_special="all"`` does."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    pair = check_methods(methods, dropout, seed)
    text = replace_surrogates(text)
    nbytes = len(text.encode("utf-8"))
    with deadline(len(text)):  # both modes share one time allowance for a file's own patterns
        sides = {
            role: Side(method, tuple(segment_with(tok, text, method, specials, dropout, seed)), nbytes, len(text))
            for role, method in zip(MODES, pair)
        }
    return Comparison(
        text=text,
        vocab=tok.name,
        unit=tok.vocab.unit,
        bpe=sides["bpe"],
        lbpe=sides["lbpe"],
        differ=differing_spans(sides["bpe"].segments, sides["lbpe"].segments),
        methods=pair,
        dropout=dropout if "dropout" in pair else None,
        seed=seed if "dropout" in pair else None,
    )


def segment_with(
    tok: Tokenizer, text: str, method: Method, specials: bool, dropout: float | None, seed: int | None
) -> list[Segment]:
    """``text``'s segments by ``method`` as a comparison takes them (special-token strings
    ordinary text unless ``specials``; ``dropout``/``seed`` for BPE-dropout only)."""
    allowed: Literal["all"] | frozenset[str] = "all" if specials else frozenset()
    if method != "dropout":
        return tok.segment(text, mode=method, allowed_special=allowed, disallowed_special=())
    return tok.segment(text, mode=method, allowed_special=allowed, disallowed_special=(), dropout=dropout, seed=seed)


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


#: The most ids Decode takes at once (the panes of the longest text Compare takes hold fewer).
DECODE_MOST_IDS = 20_000


def parse_ids(text: str) -> list[int]:
    """Token ids pasted as text: numbers separated by spaces, commas or line breaks, optionally
    inside ``[...]`` (a Python or JSON list).

    >>> parse_ids("[15496, 995]"), parse_ids("15496, 995 ")
    ([15496, 995], [15496, 995])
    """
    body = (text or "").strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    if len(body) > DECODE_MOST_IDS * 64:  # more than the most ids spell, spaced out: not split at all
        raise LbpeError(f"decode takes at most {DECODE_MOST_IDS:,} ids at a time; paste fewer")
    parts = [p for p in re.split(r"[\s,]+", body) if p]
    if not parts:
        raise LbpeError("paste token ids to decode: numbers separated by spaces or commas, e.g. 15496 995")
    if len(parts) > DECODE_MOST_IDS:
        raise LbpeError(f"decode takes at most {DECODE_MOST_IDS:,} ids at a time; this paste has {len(parts):,}")
    # ASCII digits only (int() would read other scripts' digits), and few enough for int()
    bad = next((p for p in parts if not (p.isascii() and p.isdigit() and len(p) <= 12)), None)
    if bad is not None and bad.isascii() and bad.isdigit():
        raise LbpeError(f"{quoted(bad)} is too large to be a token id (ids have at most 12 digits)")
    if bad is not None:
        raise LbpeError(
            f"{quoted(bad)} is not a token id; ids are whole numbers such as 15496, separated by spaces or commas"
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
