"""Longest-prefix and longest-suffix one step at a time: the spans tried at each position, the
longest token found and where it ends (or, from the right, where it starts).

The slow, obvious transcriptions of :mod:`lbpe.model.greedy`, every look-up recorded: a span is
a *token*, only the beginning (from the right: the end) of a longer token, or *neither*, which
ends the search there. A unit no token starts (or ends) with is taken alone.

>>> from lbpe.model.lbpe import build_prefix_index
>>> steps = prefix_trace("abc", build_prefix_index({"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4}))
>>> [(s.at, s.start, s.end, s.tried) for s in steps]
[(0, 0, 2, ((0, 1, 'token'), (0, 2, 'token'), (0, 3, 'neither'))), (2, 2, 3, ((2, 3, 'token'),))]
>>> from lbpe.model.greedy import build_suffix_index
>>> [(s.start, s.end) for s in suffix_trace("abc", build_suffix_index({"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4}))]
[(1, 3), (0, 1)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lbpe.model.lbpe import NOT_A_TOKEN

__all__ = ["Match", "prefix_trace", "suffix_trace", "match_keys"]

#: What a look-up of a span found: a token, only part of longer tokens, or nothing (the search stops).
TOKEN, PART, NEITHER = "token", "part", "neither"


@dataclass(frozen=True)
class Match:
    """One greedy step: from unit ``at`` (longest-prefix: where the token starts; longest-suffix:
    where it ends), the spans ``tried`` in order as ``(start, end, verdict)``, and the token
    taken, units ``start`` to ``end``; ``found`` is False when no token starts (ends) there and
    the unit is taken alone."""

    at: int
    tried: tuple[tuple[int, int, str], ...]
    start: int
    end: int
    found: bool


def _verdict(index: Mapping, key: object) -> str:
    got = index.get(key)
    return NEITHER if got is None else PART if got == NOT_A_TOKEN else TOKEN


def prefix_trace(units: Sequence, prefix_index: Mapping) -> list[Match]:
    """Longest-prefix of ``units`` (bytes or str): at each position, the spans starting there,
    one unit longer at a time until no token begins so; the longest that is a token is taken."""
    n = len(units)
    out: list[Match] = []
    i = 0
    while i < n:
        tried = []
        end = 0
        for j in range(i + 1, n + 1):
            verdict = _verdict(prefix_index, units[i:j])
            tried.append((i, j, verdict))
            if verdict == NEITHER:
                break
            if verdict == TOKEN:
                end = j
        out.append(Match(i, tuple(tried), i, end or i + 1, bool(end)))
        i = end or i + 1
    return out


def suffix_trace(units: Sequence, suffix_index: Mapping) -> list[Match]:
    """Longest-suffix of ``units``, right to left: at each end, the spans ending there, one unit
    longer at a time until no token ends so; the longest that is a token is taken. The steps
    are in the order taken (from the right)."""
    out: list[Match] = []
    j = len(units)
    while j > 0:
        tried = []
        start = -1
        for i in range(j - 1, -1, -1):
            verdict = _verdict(suffix_index, units[i:j])
            tried.append((i, j, verdict))
            if verdict == NEITHER:
                break
            if verdict == TOKEN:
                start = i
        found = start >= 0
        start = start if found else j - 1
        out.append(Match(j, tuple(tried), start, j, found))
        j = start
    return out


def match_keys(units: Sequence, steps: Sequence[Match]) -> list:
    """The keys the steps took, in text order."""
    return [units[s.start : s.end] for s in sorted(steps, key=lambda s: s.start)]
