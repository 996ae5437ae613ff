"""Least-tokens one step at a time: the table of the fewest tokens from each position to the
end, the choice made at each position, and the path read from the left.

The slow, obvious transcription of :mod:`lbpe.model.shortest`. ``fewest[i]`` is the fewest
tokens that cover units ``i`` to the end, over every token that starts at ``i`` (a unit no
token starts with counts as one); among the ends that reach that fewest, the tie rule takes
the *longest* token, so the lengths read from the left are the largest.

>>> from lbpe.model.lbpe import build_prefix_index
>>> t = fewest_trace("abcd", build_prefix_index(["a", "b", "c", "d", "ab", "cd", "abc"]))
>>> t.fewest, t.ends, [units for units in t.keys]
([2, 2, 1, 1, 0], [3, 2, 4, 4, 4], ['abc', 'd'])
>>> t.options[0]  # from unit 0: (end, tokens in all) for every token that starts there
((1, 3), (2, 2), (3, 2))
>>> t.ties(0), t.ties(1)  # ab|cd and abc|d are both 2 tokens: the longest first token wins
([2, 3], [])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lbpe.model.lbpe import NOT_A_TOKEN

__all__ = ["FewestTrace", "fewest_trace"]


@dataclass(frozen=True)
class FewestTrace:
    """``fewest[i]``: the fewest tokens covering units ``i`` to the end (``fewest[n]`` is 0);
    ``options[i]``: ``(end, 1 + fewest[end])`` for each token starting at ``i`` (the single unit
    first, token or not); ``ends[i]``: the end chosen at ``i`` (``ends[n]`` is ``n``); ``path``:
    the ``(start, end)`` of each token read from the left; ``keys``: those tokens' keys."""

    fewest: list[int]
    options: list[tuple[tuple[int, int], ...]]
    ends: list[int]
    path: list[tuple[int, int]]
    keys: list

    def ties(self, i: int) -> list[int]:
        """The ends at ``i`` that reach the fewest when more than one does (the tie rule chose
        the last, the longest), else ``[]``."""
        best = [end for end, total in self.options[i] if total == self.fewest[i]]
        return best if len(best) > 1 else []


def fewest_trace(units: Sequence, prefix_index: Mapping) -> FewestTrace:
    """Least-tokens of ``units`` (bytes or str) with the table and every choice recorded."""
    n = len(units)
    fewest = [0] * (n + 1)
    ends = list(range(1, n + 1)) + [n]
    options: list[tuple[tuple[int, int], ...]] = [()] * (n + 1)
    for i in range(n - 1, -1, -1):
        found = [(i + 1, fewest[i + 1] + 1)]  # one unit alone: a token, or fallback
        for j in range(i + 2, n + 1):
            got = prefix_index.get(units[i:j])
            if got is None:  # no token starts so: none longer either
                break
            if got != NOT_A_TOKEN:
                found.append((j, fewest[j] + 1))
        best = min(total for _, total in found)
        fewest[i] = best
        ends[i] = max(end for end, total in found if total == best)  # the tie rule: the longest
        options[i] = tuple(found)
    path = []
    i = 0
    while i < n:
        path.append((i, ends[i]))
        i = ends[i]
    return FewestTrace(fewest, options, ends, path, [units[a:b] for a, b in path])
