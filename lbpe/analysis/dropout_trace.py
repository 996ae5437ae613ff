"""BPE-dropout one step at a time: each merge considered, its draw, and whether it was dropped.

The slow, obvious transcription of :mod:`lbpe.model.dropout`: at each step the merges that
apply now are considered best priority first (leftmost first among equals); each takes one
draw from ``draw`` and is dropped when the draw is below ``rate``; the first one kept is
applied. When every one is dropped, or none applies, BPE-dropout stops. The draws are taken in
exactly the model's order, so the same ``draw`` sequence (a generator seeded with the same
seed) gives the same tokens.

>>> import random
>>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"aa": 3, b"aab": 4}
>>> steps, keys = dropout_trace(b"aab", lambda l, r: ranks.get(l + r), 0.5, iter([0.1, 0.7, 0.2]).__next__)
>>> [[(c.start, c.left, c.right, c.priority, c.draw, c.dropped) for c in s.considered] for s in steps]
[[(1, b'a', b'b', 2, 0.1, True), (0, b'a', b'a', 3, 0.7, False)], [(0, b'aa', b'b', 4, 0.2, True)]]
>>> keys
[b'aa', b'b']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Considered", "DropStep", "dropout_trace"]


@dataclass(frozen=True)
class Considered:
    """One merge considered: the part at unit ``start`` (``left``) with the next (``right``),
    its ``priority``, the ``draw`` it took and whether it was ``dropped`` (draw below the rate)."""

    start: int
    left: Any
    right: Any
    priority: int
    draw: float
    dropped: bool


@dataclass(frozen=True)
class DropStep:
    """One step: the merges ``considered`` in order; the last is the one applied unless every
    one was dropped (``applied`` False: BPE-dropout stops). ``parts``: the parts after it."""

    considered: tuple[Considered, ...]
    applied: bool
    parts: tuple


def dropout_trace(
    units: Sequence, priority: Callable[[Any, Any], int | None], rate: float, draw: Callable[[], float]
) -> tuple[list[DropStep], list]:
    """BPE-dropout of ``units`` (bytes or str) with every draw recorded. Returns ``(steps,
    keys)``; the last step is one where every merge was dropped, unless no merge applied."""
    parts: list = [units[i : i + 1] for i in range(len(units))]
    steps: list[DropStep] = []
    while len(parts) > 1:
        starts, pos = [], 0
        for part in parts:
            starts.append(pos)
            pos += len(part)
        candidates = []
        for k in range(len(parts) - 1):
            p = priority(parts[k], parts[k + 1])
            if p is not None:
                candidates.append((p, starts[k], k))
        if not candidates:
            break
        considered = []
        applied = False
        for p, start, k in sorted(candidates):
            value = draw()
            dropped = value < rate
            considered.append(Considered(start, parts[k], parts[k + 1], p, value, dropped))
            if not dropped:
                parts[k : k + 2] = [parts[k] + parts[k + 1]]
                applied = True
                break
        steps.append(DropStep(tuple(considered), applied, tuple(parts)))
        if not applied:
            break
    return steps, parts
