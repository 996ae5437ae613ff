"""BPE-dropout of one pre-token (Provilkov et al., 2020).

Classic BPE (:mod:`lbpe.model.bpe`) where every merge may be skipped. Start from single units
and repeat one step:

    consider the merges that apply now (adjacent pairs that can merge), best priority first
    and, among equal priorities, leftmost first; skip each with probability ``rate``; apply
    the first one not skipped. When every one was skipped (or none applies), stop.

A skipped merge is considered again at the next step, with a new draw. With ``rate`` 0 this is
classic BPE exactly; with ``rate`` 1 nothing merges and the piece stays in single units.

The draws come from ``draw``, a function returning floats in ``[0, 1)`` (e.g. the ``random``
method of a seeded :class:`random.Random`): one draw per merge considered, in the order above,
and a merge is skipped when its draw is below ``rate``. So the same ``draw`` sequence gives the
same tokens, which makes an encoding reproducible from a seed.

The merges are kept in a heap (priority, then position) over a linked list of the parts, so a
long piece costs ``n log n`` per pass instead of a scan per step; skipped merges wait beside the
heap until the next merge is applied.

>>> import random
>>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"aa": 3}
>>> dropout_by_rank(b"aab", ranks, 0.0, random.Random(0).random)  # classic BPE
[b'a', b'ab']
>>> dropout_by_rank(b"aab", ranks, 1.0, random.Random(0).random)  # nothing merges
[b'a', b'a', b'b']
>>> dropout_by_merges(b"aab", {(b"a", b"a"): 0, (b"a", b"b"): 1}, 0.0, random.Random(0).random)
[b'aa', b'b']
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping
from typing import TypeVar

__all__ = ["bpe_dropout", "dropout_by_rank", "dropout_by_merges"]

K = TypeVar("K", bytes, str)


def dropout_by_rank(piece: K, ranks: Mapping[K, int], rate: float, draw: Callable[[], float]) -> list[K]:
    """BPE-dropout by tiktoken's rule: the priority of ``(a, b)`` is the rank of ``a + b``."""
    get = ranks.get
    return bpe_dropout(piece, lambda a, b: get(a + b), rate, draw)


def dropout_by_merges(piece: K, merges: Mapping[tuple[K, K], int], rate: float, draw: Callable[[], float]) -> list[K]:
    """BPE-dropout by the merge-list rule: the priority of ``(a, b)`` is its place in the list."""
    get = merges.get
    return bpe_dropout(piece, lambda a, b: get((a, b)), rate, draw)


def bpe_dropout(piece: K, priority: Callable[[K, K], int | None], rate: float, draw: Callable[[], float]) -> list[K]:
    """``piece`` merged by BPE-dropout; ``priority(left, right)`` is the priority of merging two
    adjacent parts (lower first) or ``None`` when they cannot merge."""
    n = len(piece)
    if n < 2:
        return [piece] if n else []
    end = list(range(1, n + 1))  # end[i]: end of the part starting at i (while alive[i])
    prev = list(range(-1, n - 1))  # prev[i]: start of the part before the one at i
    alive = [True] * n
    heap: list[tuple[int, int, int]] = []  # (priority, start of the left part, end of the right)
    for i in range(n - 1):
        p = priority(piece[i : i + 1], piece[i + 1 : i + 2])
        if p is not None:
            heap.append((p, i, i + 2))
    heapq.heapify(heap)
    skipped: list[tuple[int, int, int]] = []
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        candidate = pop(heap)
        _, i, e = candidate
        # a candidate is stale unless i still starts a part whose right neighbour ends at e
        # (boundaries only disappear, so the boundary between them is the one it was made with)
        if not alive[i]:
            continue
        j = end[i]
        if j >= n or end[j] != e:
            continue
        if draw() < rate:
            skipped.append(candidate)
            continue
        alive[j] = False
        end[i] = e
        if e < n:
            prev[e] = i
            p = priority(piece[i:e], piece[e : end[e]])
            if p is not None:
                push(heap, (p, i, end[e]))
        before = prev[i]
        if before >= 0:
            p = priority(piece[before:i], piece[i:e])
            if p is not None:
                push(heap, (p, before, e))
        for candidate in skipped:  # a new step: the skipped merges are drawn for again
            push(heap, candidate)
        skipped.clear()
    out = []
    i = 0
    while i < n:
        out.append(piece[i : end[i]])
        i = end[i]
    return out
