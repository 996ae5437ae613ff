"""Classic BPE of one pre-token.

Start from single units (bytes or characters) and repeatedly merge the adjacent pair with the
best (lowest) priority; among equal priorities the leftmost pair goes first. Stop when no
adjacent pair can merge. Two ways to rank a pair exist in the wild:

* :func:`bpe_by_rank` -- tiktoken's rule: the priority of ``(a, b)`` is the rank of the token
  ``a + b`` (rank files store one rank per token);
* :func:`bpe_by_merges` -- the merge-list rule of GPT-2's ``vocab.bpe`` and HF ``tokenizers``:
  the priority of ``(a, b)`` is the position of that exact pair in the merge list.

Pieces up to :data:`SHORT_PIECE` units use a list scan (fast for the short pieces that make up
almost all text); longer ones a linked list with candidate pairs bucketed by priority
(:func:`_bpe_long`), so a megabyte-long "word" is never quadratic. Both give the same result
(tested against a naive transcription).

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

#: Pieces longer than this many units take the linked-list path.
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
        return _bpe_long(piece, lambda i, j, e: ranks.get(piece[i:e]))
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
        return _bpe_long(piece, lambda i, j, e: merges.get((piece[i:j], piece[j:e])))
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


def _bpe_long(piece: K, rank: Callable[[int, int, int], int | None]) -> list[K]:
    """BPE over a doubly linked list of parts, candidate pairs kept in one bucket per priority.

    ``rank(i, j, e)`` is the priority of merging the parts ``piece[i:j]`` and ``piece[j:e]``.
    A candidate is one integer, ``i * (n + 1) + e``, in the bucket of its priority. The best
    priority's bucket is sorted (leftmost first) and applied in one sweep; a pair a merge creates
    goes to its own bucket, or, if it has the sweep's priority (a merge list can give different
    pairs one priority), into the sweep itself, leftmost first. In real vocabularies it mostly
    ranks worse, so the sweep goes on; if it ranks better, the sweep stops and the rest of its
    bucket waits, which keeps the order of one-merge-at-a-time BPE exactly. A candidate is stale
    unless ``i`` still starts a part whose right neighbour ends at ``e`` (boundaries only ever
    disappear, so the middle is unchanged).
    Sorting plain integers runs in C and touches memory in order, which keeps megabyte-long
    pieces linear in practice (a heap of every candidate was 2x slower and worse than linear).
    """
    n = len(piece)
    end = list(range(1, n + 1))  # end[i]: end of the part starting at i (valid if alive)
    prev = list(range(-1, n - 1))  # prev[i]: start of the part before the one at i
    alive = [True] * n
    span = n + 1
    buckets: dict[int, list[int]] = {}
    for i in range(n - 1):
        r = rank(i, i + 1, i + 2)
        if r is not None:
            bucket = buckets.get(r)
            if bucket is None:
                buckets[r] = [i * span + i + 2]
            else:
                bucket.append(i * span + i + 2)
    order = list(buckets)  # a heap of the priorities that have candidates (fresh or paused)
    heapq.heapify(order)
    pop, push = heapq.heappop, heapq.heappush
    # A sweep that stopped early keeps its sorted candidates, where it stopped and a heap of the
    # candidates of its priority made since, and resumes there: a run where every merge makes a
    # pair of the same or a better priority (a long run of one character) stays n log n.
    paused: dict[int, tuple[list[int], int, list[int]]] = {}

    def add(q: int, packed: int) -> None:
        bucket = buckets.get(q)
        if bucket is None:
            buckets[q] = [packed]
            if q not in paused:
                push(order, q)
        else:
            bucket.append(packed)

    sweep: list[int]
    extra: list[int]
    while order:
        r = pop(order)
        fresh = buckets.pop(r, None)
        held = paused.pop(r, None)
        if held is None:
            assert fresh is not None  # a priority in the heap has fresh candidates or a paused sweep
            fresh.sort()
            sweep, k, extra = fresh, 0, []
        else:
            sweep, k, extra = held
            for packed in fresh or ():
                push(extra, packed)
        size = len(sweep)
        while True:
            # the leftmost candidate of the sorted sweep and of the pairs of priority r made since
            if extra and (k >= size or extra[0] < sweep[k]):
                packed = pop(extra)
            elif k < size:
                packed = sweep[k]
                k += 1
            else:
                break
            i, e = divmod(packed, span)
            if not alive[i]:
                continue
            j = end[i]
            if j == e or j >= n or end[j] != e:
                continue
            alive[j] = False
            end[i] = e
            better = False
            if e < n:
                prev[e] = i
                f = end[e]
                q = rank(i, e, f)
                if q is not None:
                    if q == r:
                        push(extra, i * span + f)
                    else:
                        add(q, i * span + f)
                        better = q < r
            p = prev[i]
            if p >= 0:
                q = rank(p, i, e)
                if q is not None:
                    if q == r:
                        push(extra, p * span + e)
                    else:
                        add(q, p * span + e)
                        better = better or q < r
            if better:  # a better pair appeared: it goes before the rest of this sweep
                if k < size or extra:
                    paused[r] = (sweep, k, extra)
                    push(order, r)
                break
    out = []
    i = 0
    while i < n:
        out.append(piece[i : end[i]])
        i = end[i]
    return out
