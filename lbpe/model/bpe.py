"""Classic BPE of one pre-token.

Start from single units (bytes or characters) and repeatedly merge the adjacent pair with the
best (lowest) priority; among equal priorities the leftmost pair goes first. Stop when no
adjacent pair can merge. Two ways to rank a pair exist in the wild:

* :func:`bpe_by_rank` -- tiktoken's rule: the priority of ``(a, b)`` is the rank of the token
  ``a + b`` (rank files store one rank per token);
* :func:`bpe_by_merges` -- the merge-list rule of GPT-2's ``vocab.bpe`` and HF ``tokenizers``:
  the priority of ``(a, b)`` is the position of that exact pair in the merge list.

Pieces up to :data:`SHORT_PIECE` units use a list scan (fast for the short pieces that make up
almost all text); longer ones use a heap over a linked list, O(n log n), so a megabyte-long
"word" is never quadratic. Both give the same result (tested).

>>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"aa": 3}
>>> bpe_by_rank(b"aab", ranks)
[b'a', b'ab']
>>> bpe_by_merges(b"aab", {(b"a", b"a"): 0, (b"a", b"b"): 1})
[b'aa', b'b']
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping
from typing import TypeVar

__all__ = ["bpe_by_rank", "bpe_by_merges", "SHORT_PIECE"]

K = TypeVar("K", bytes, str)

#: Pieces longer than this many units take the heap path.
SHORT_PIECE = 96

_NONE = 1 << 62  # "cannot merge"; larger than any real rank


def bpe_by_rank(piece: K, ranks: Mapping[K, int]) -> list[K]:
    """Split ``piece`` into tokens by tiktoken's rule (priority = rank of the merged token).

    ``ranks`` must contain every single unit of ``piece``'s alphabet that may appear;
    units without a rank are simply left unmerged.
    """
    n = len(piece)
    if n <= 1:
        return [piece] if n else []
    if n > SHORT_PIECE:
        return _bpe_heap(piece, lambda i, j, e: ranks.get(piece[i:e]))
    get = ranks.get
    bounds = list(range(n + 1))
    pair = [get(piece[i : i + 2], _NONE) for i in range(n - 1)]
    while pair:
        best = min(pair)
        if best == _NONE:
            break
        i = pair.index(best)
        del bounds[i + 1]
        del pair[i]
        if i > 0:
            pair[i - 1] = get(piece[bounds[i - 1] : bounds[i + 1]], _NONE)
        if i < len(pair):
            pair[i] = get(piece[bounds[i] : bounds[i + 2]], _NONE)
    return [piece[bounds[k] : bounds[k + 1]] for k in range(len(bounds) - 1)]


def bpe_by_merges(piece: K, merges: Mapping[tuple[K, K], int]) -> list[K]:
    """Split ``piece`` into tokens by the merge-list rule (priority = position of the pair)."""
    n = len(piece)
    if n <= 1:
        return [piece] if n else []
    if n > SHORT_PIECE:
        return _bpe_heap(piece, lambda i, j, e: merges.get((piece[i:j], piece[j:e])))
    get = merges.get
    bounds = list(range(n + 1))
    pair = [get((piece[i : i + 1], piece[i + 1 : i + 2]), _NONE) for i in range(n - 1)]
    while pair:
        best = min(pair)
        if best == _NONE:
            break
        i = pair.index(best)
        del bounds[i + 1]
        del pair[i]
        if i > 0:
            pair[i - 1] = get((piece[bounds[i - 1] : bounds[i]], piece[bounds[i] : bounds[i + 1]]), _NONE)
        if i < len(pair):
            pair[i] = get((piece[bounds[i] : bounds[i + 1]], piece[bounds[i + 1] : bounds[i + 2]]), _NONE)
    return [piece[bounds[k] : bounds[k + 1]] for k in range(len(bounds) - 1)]


def _bpe_heap(piece: K, rank: Callable[[int, int, int], int | None]) -> list[K]:
    """BPE over a doubly linked list of parts with a lazy heap of candidate pairs.

    ``rank(i, j, e)`` is the priority of merging the parts ``piece[i:j]`` and ``piece[j:e]``.
    A heap entry is one integer, ``(priority, i, e)`` packed in that order (so the smallest is
    the best pair, leftmost on ties): plain ints keep the heap small and its comparisons cheap,
    which matters for megabyte-long pieces. An entry is stale unless ``i`` still starts a part
    whose right neighbour ends at ``e``; the boundary between them is then necessarily the
    ``j`` the entry was made with, since boundaries only ever disappear.
    """
    n = len(piece)
    end = list(range(1, n + 1))  # end[i]: end of the part starting at i (valid if alive)
    prev = list(range(-1, n - 1))  # prev[i]: start of the part before the one at i
    alive = [True] * n
    span = n + 1
    heap = []
    for i in range(n - 1):
        r = rank(i, i + 1, i + 2)
        if r is not None:
            heap.append((r * span + i) * span + i + 2)
    heapq.heapify(heap)
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        rest, e = divmod(pop(heap), span)
        i = rest % span
        if not alive[i]:
            continue
        j = end[i]
        if j == e or j >= n or end[j] != e:
            continue
        alive[j] = False
        end[i] = e
        if e < n:
            prev[e] = i
            f = end[e]
            r = rank(i, e, f)
            if r is not None:
                push(heap, (r * span + i) * span + f)
        p = prev[i]
        if p >= 0:
            r = rank(p, i, e)
            if r is not None:
                push(heap, (r * span + p) * span + e)
    out = []
    i = 0
    while i < n:
        out.append(piece[i : end[i]])
        i = end[i]
    return out
