"""Comparing a text again after an edit at the cost of what the edit changed.

:class:`Recompare` keeps the last comparison it made (one front end's: a session of the app,
the page's worker) and, for the next text, keeps the segments before the first change and
encodes again only from a cut where the tokenizer's pipeline starts afresh:

* without a normaliser, the first piece (pre-token) that differs: the pieces of the whole new
  text are found again (cheap next to encoding them), so a pattern that looks ahead or behind
  any distance cannot move a boundary unnoticed; the text from the cut is then segmented on its
  own only when its pieces on their own are the same (else everything is encoded again);
* a SentencePiece-style pipeline (a normaliser, no pre-tokeniser: one piece per text) is cut
  after a line end, as :meth:`lbpe.tokenizer.Tokenizer.safe_cut` and
  :meth:`~lbpe.tokenizer.Tokenizer.continued` promise, and only where no special or added
  token's text straddles the cut;
* any other pipeline is compared again in full, and so is every edit when one of the methods
  is BPE-dropout (its draws follow the whole text) or when the pair of methods changes.

The differing spans are found again from the last common cut of the two segmentations before
the change (:func:`lbpe.playground.display.model.common_cuts`, kept with the comparison), and a pane's
markup is kept per token group, so the groups before that cut are not drawn again. The result
is equal to :func:`lbpe.playground.display.compare` and :func:`lbpe.playground.display.render_pane` of the new text
(tests/unit/playground/test_incremental.py checks that for random edits).

>>> from lbpe.vocab import Vocab
>>> from lbpe.tokenizer import Tokenizer
>>> tok = Tokenizer(Vocab({bytes([b]): b for b in range(256)} | {b"ab": 256}), "gpt2")
>>> again = Recompare()
>>> again.compare(tok, "ab ab").bpe.ids, again.compare(tok, "ab ab ab").bpe.ids
([256, 32, 256], [256, 32, 256, 32, 256])
>>> again.reused  # the segments kept: 'ab', ' ' on each side
4
"""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from lbpe.playground.display.model import (
    DEFAULT_METHODS,
    Comparison,
    Side,
    _spans,
    check_methods,
    common_cuts,
    compare,
    segment_with,
)
from lbpe.playground.display.render import _assemble, _Markup, _markup, _pane, between
from lbpe.tokenizer import MODES, Method, Segment, Tokenizer, replace_surrogates
from lbpe.user_regex import deadline

__all__ = ["Recompare"]


@dataclass
class _Last:
    """The last comparison and what an edit of its text reuses."""

    tok: Tokenizer
    specials: bool
    comparison: Comparison
    pieces: list[tuple[str, int, int, bool]] | None  # Tokenizer.located_pieces of its text
    specials_at: list[tuple[int, int]]  # Tokenizer.special_spans of its text
    cuts: list[int]  # common_cuts of its two segmentations
    # which comparison this is (a count), and the common cut up to which the one before agrees
    number: int = 0
    same_upto: int = -1
    # the panes drawn (mode, show_whitespace, show_ids) -> (comparison number, markup)
    drawn: dict[tuple[str, bool, bool], tuple[int, _Markup]] = field(default_factory=dict)


class Recompare:
    """:func:`lbpe.playground.display.compare` and :func:`lbpe.playground.display.render_pane` that reuse the work of
    the previous call for an edited text (see the module's description). ``reused``: the
    segments the last :meth:`compare` kept (0: computed in full). One object per front end
    (a session, a worker): it holds one comparison and its markup."""

    def __init__(self) -> None:
        self._last: _Last | None = None
        self.reused = 0
        self._lock = threading.RLock()  # a front end may compare for one visitor on two threads

    def forget(self) -> None:
        """Drop the kept comparison (its memory)."""
        self._last = None

    def compare(
        self,
        tok: Tokenizer,
        text: str,
        *,
        specials: bool = False,
        methods: Sequence[str] = DEFAULT_METHODS,
        dropout: float | None = None,
        seed: int | None = None,
    ) -> Comparison:
        """:func:`lbpe.playground.display.compare` of ``text``, from the last comparison where it can
        (one of the same two ``methods`` with the same options)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        pair = check_methods(methods, dropout, seed)
        with self._lock:
            return self._compare(tok, replace_surrogates(text), specials, pair, dropout, seed)

    def _compare(
        self,
        tok: Tokenizer,
        text: str,
        specials: bool,
        pair: tuple[Method, Method],
        dropout: float | None,
        seed: int | None,
    ) -> Comparison:
        last = self._last
        self.reused = 0
        if (
            last is not None
            and last.tok is tok
            and last.specials == specials
            and (last.comparison.methods, last.comparison.dropout, last.comparison.seed) == (pair, dropout, seed)
        ):
            if text == last.comparison.text:
                return last.comparison
            again = None if "dropout" in pair else self._edited(last, text)
            if again is not None:
                return again
        return self._full(tok, text, specials, pair, dropout, seed)

    def _full(
        self,
        tok: Tokenizer,
        text: str,
        specials: bool,
        pair: tuple[Method, Method],
        dropout: float | None,
        seed: int | None,
    ) -> Comparison:
        self._last = None  # its memory goes before the new comparison's comes
        comparison = compare(tok, text, specials=specials, methods=pair, dropout=dropout, seed=seed)
        allowed: Literal["all"] | frozenset[str] = "all" if specials else frozenset()
        with deadline(len(text)):
            pieces = tok.located_pieces(comparison.text, allowed_special=allowed)
        self._last = _Last(
            tok,
            specials,
            comparison,
            pieces,
            tok.special_spans(comparison.text),
            common_cuts(comparison.bpe.segments, comparison.lbpe.segments),
        )
        return comparison

    def _edited(self, last: _Last, text: str) -> Comparison | None:
        """The comparison of ``text`` from ``last``'s, or ``None`` when no safe cut is known."""
        tok, old = last.tok, last.comparison
        same = _common_prefix(old.text, text)
        allowed: Literal["all"] | frozenset[str] = "all" if last.specials else frozenset()
        specials_at = tok.special_spans(text)
        with deadline(len(text)):
            if last.pieces is not None:
                pieces = tok.located_pieces(text, allowed_special=allowed)
                if pieces is None:
                    return None
                cut: int | None = _piece_cut(last.pieces, pieces, same)
                tail_tok: Tokenizer | None = tok
            else:
                pieces = None
                cut, tail_tok = tok.safe_cut(text[:same]), tok.continued()
                if cut is not None and any(s < cut < e for s, e in (*last.specials_at, *specials_at)):
                    return None  # a special token's text across the cut
            if cut is None or tail_tok is None:
                return None
            sides = {}
            kept = {}
            for mode, method in zip(MODES, old.methods):
                segs = old.side(mode).segments
                k = _before(segs, cut)
                if k is None:
                    return None
                tail = segment_with(tail_tok, text[cut:], method, last.specials, None, None)
                kept[mode] = k
                sides[mode] = segs[:k] + tuple(_shifted(s, cut) for s in tail)
            if pieces is not None and cut < len(text):
                alone = tok.located_pieces(text[cut:], allowed_special=allowed)
                first = bisect_left([p[1] for p in pieces], cut)  # pieces are in text order
                if alone is None or [(p, s + cut, e + cut, x) for p, s, e, x in alone] != pieces[first:]:
                    return None  # the text from the cut splits otherwise on its own
        # the differing spans again from the last common cut before ``cut``
        j = bisect_left(last.cuts, cut) - 1
        if j < 0:
            return None
        lo = last.cuts[j]
        a, b = sides["bpe"], sides["lbpe"]
        ka, kb = _from(a, lo, kept["bpe"]), _from(b, lo, kept["lbpe"])
        tail_cuts = common_cuts(a[ka:], b[kb:])
        differ = old.differ[: bisect_right([e for _, e in old.differ], lo)] + _spans(a[ka:], b[kb:], tail_cuts, lo)
        cuts = last.cuts[:j] + [lo] + [c for c in tail_cuts if c > lo]
        nbytes = len(text.encode("utf-8"))
        comparison = Comparison(
            text=text,
            vocab=old.vocab,
            unit=old.unit,
            bpe=Side(old.bpe.mode, a, nbytes, len(text)),
            lbpe=Side(old.lbpe.mode, b, nbytes, len(text)),
            differ=differ,
            methods=old.methods,
        )
        self._last = _Last(
            last.tok, last.specials, comparison, pieces, specials_at, cuts, last.number + 1, lo, last.drawn
        )
        self.reused = ka + kb
        return comparison

    def render_pane(
        self, comparison: Comparison, mode: str, *, show_whitespace: bool = True, show_ids: bool = False
    ) -> str:
        """:func:`lbpe.playground.display.render_pane`, drawing again only the token groups after the
        change when ``comparison`` is the last one :meth:`compare` gave and the pane was drawn
        for the one before it."""
        with self._lock:
            return self._render_pane(comparison, mode, bool(show_whitespace), bool(show_ids))

    def _render_pane(self, comparison: Comparison, mode: str, show_whitespace: bool, show_ids: bool) -> str:
        last = self._last
        side = comparison.side(mode)
        ranges = sorted(comparison.differ)
        key = (mode, bool(show_whitespace), bool(show_ids))
        if last is None or last.comparison is not comparison:
            parts = _markup(
                side.segments,
                comparison.text,
                ranges,
                show_whitespace=show_whitespace,
                show_ids=show_ids,
                between=between(comparison),
            )
            return _pane(comparison, mode, _assemble(parts, comparison.text, show_whitespace))
        drawn = last.drawn.get(key)
        kept = None
        if drawn is not None and drawn[0] == last.number - 1 and last.same_upto >= 0:
            kept = drawn[1].upto(last.same_upto, _from(side.segments, last.same_upto, len(side.segments)))
        elif drawn is not None and drawn[0] == last.number:
            return _pane(comparison, mode, _assemble(drawn[1], comparison.text, show_whitespace))
        parts = _markup(
            side.segments,
            comparison.text,
            ranges,
            show_whitespace=show_whitespace,
            show_ids=show_ids,
            kept=kept,
            between=between(comparison),
        )
        last.drawn = {k: v for k, v in last.drawn.items() if k[1:] == key[1:] and k != key}  # the other mode's
        last.drawn[key] = (last.number, parts)
        return _pane(comparison, mode, _assemble(parts, comparison.text, show_whitespace))


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b`` (slices compared in C)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _piece_cut(old: list[tuple[str, int, int, bool]], new: list[tuple[str, int, int, bool]], same: int) -> int:
    """Where the first piece of ``new`` that is not one of ``old`` (or that reaches past the
    ``same`` characters the two texts start with) starts; the end of the last piece when there
    is none."""
    ends = [p[2] for p in new]
    k = bisect_right(ends, same)  # pieces within the common start (ends ascend)
    k = min(k, len(old))
    if old[:k] != new[:k]:
        k = next(i for i in range(k) if old[i] != new[i])
    if k < len(new):
        return new[k][1]
    return new[-1][2] if new else 0


def _before(segs: Sequence[Segment], cut: int) -> int | None:
    """How many segments come before ``cut``: all of them end at or before it, the rest start
    at or after it (``None`` when that is not so)."""
    k = len(segs)
    while k and segs[k - 1].start >= cut:
        k -= 1
    if k and max(s.end for s in segs[max(k - 8, 0) : k]) > cut:
        return None
    if any(s.start == s.end == cut for s in segs[k : k + 1]):
        return None  # an empty token at the cut: which side it belongs to is not known
    return k


def _from(segs: Sequence[Segment], cut: int, k: int) -> int:
    """The index of the first of ``segs`` that starts at or after ``cut``, looking back from
    ``k`` (the segments after ``k`` start at or after it)."""
    while k and segs[k - 1].start >= cut:
        k -= 1
    return k


def _shifted(seg: Segment, by: int) -> Segment:
    return Segment(seg.id, seg.start + by, seg.end + by, seg.token, partial=seg.partial, special=seg.special)
