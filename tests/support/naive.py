"""Deliberately naive transcriptions of the algorithms, for checking the real ones.

Written straight from the descriptions, with no attempt at speed.
"""

from __future__ import annotations


def naive_lbpe(units: list, vocab: set, m: int) -> list:
    """The LBPE paper's loop, line by line.

    ``units`` is the pre-token split into units (bytes objects of length 1, or characters);
    a span is a token when the concatenation of its units is in ``vocab``. Returns the tokens as
    concatenated units, in text order; a unit no token covers comes back on its own.
    """
    n = len(units)
    marked = [False] * n
    token_at: dict[int, int] = {}  # start -> length
    size = m
    while size > 0:
        for i in range(0, n - size + 1):
            span = units[0][:0].join(units[i : i + size])
            if span in vocab and not any(marked[i : i + size]):
                for k in range(i, i + size):
                    marked[k] = True
                token_at[i] = size
        size = size - 1
    out = []
    i = 0
    while i < n:
        length = token_at.get(i, 1)
        out.append(units[0][:0].join(units[i : i + length]))
        i += length
    return out


def byte_units(piece: bytes) -> list[bytes]:
    return [piece[i : i + 1] for i in range(len(piece))]


def naive_bpe_by_rank(piece, ranks: dict) -> list:
    """Repeatedly merge the adjacent pair whose concatenation has the lowest rank (leftmost on ties).

    ``piece`` is bytes (byte units) or text (character units)."""
    parts = [piece[i : i + 1] for i in range(len(piece))]
    while True:
        best = None
        for i in range(len(parts) - 1):
            r = ranks.get(parts[i] + parts[i + 1])
            if r is not None and (best is None or r < best[0]):
                best = (r, i)
        if best is None:
            return parts
        i = best[1]
        parts[i : i + 2] = [parts[i] + parts[i + 1]]


def naive_bpe_by_merges(piece, merges: dict) -> list:
    """Repeatedly apply the adjacent pair that comes first in the merge list (leftmost on ties)."""
    parts = [piece[i : i + 1] for i in range(len(piece))]
    while True:
        best = None
        for i in range(len(parts) - 1):
            r = merges.get((parts[i], parts[i + 1]))
            if r is not None and (best is None or r < best[0]):
                best = (r, i)
        if best is None:
            return parts
        i = best[1]
        parts[i : i + 2] = [parts[i] + parts[i + 1]]


def naive_longest_prefix(piece, vocab) -> list:
    """From the left: at each position try every length, longest first, and take the first that
    is a token (a unit no token starts with stands alone)."""
    out = []
    i = 0
    while i < len(piece):
        length = 1
        for size in range(len(piece) - i, 0, -1):
            if piece[i : i + size] in vocab:
                length = size
                break
        out.append(piece[i : i + length])
        i += length
    return out


def naive_longest_suffix(piece, vocab) -> list:
    """From the right: at each end try every length, longest first, and take the first that is
    a token (a unit no token ends with stands alone); returned in text order."""
    out = []
    j = len(piece)
    while j > 0:
        length = 1
        for size in range(j, 0, -1):
            if piece[j - size : j] in vocab:
                length = size
                break
        out.insert(0, piece[j - length : j])
        j -= length
    return out


def all_segmentations(piece, vocab) -> list[list]:
    """Every way to cut ``piece`` into tokens of ``vocab``, a unit that is not a token allowed
    on its own (as the methods leave it for byte fallback). Exponential: short pieces only."""
    if not piece:
        return [[]]
    out = []
    for size in range(1, len(piece) + 1):
        head = piece[:size]
        if head in vocab or size == 1:
            out += [[head, *rest] for rest in all_segmentations(piece[size:], vocab)]
    return out


def naive_least_tokens(piece, vocab) -> list:
    """Of all segmentations, those with the fewest tokens; of those, the one whose token lengths
    read from the left are the largest (compared as lists)."""
    every = all_segmentations(piece, vocab)
    fewest = min(len(s) for s in every)
    return max((s for s in every if len(s) == fewest), key=lambda s: [len(t) for t in s])


def naive_bpe_dropout(piece, priority, rate: float, draw) -> list:
    """BPE-dropout step by step (Provilkov et al. 2020): list every merge that applies, order
    them by priority then position, draw for each in that order and apply the first whose draw
    is not below ``rate``; stop when none is left. ``priority(a, b)``: lower first, or None."""
    parts = [piece[i : i + 1] for i in range(len(piece))]
    while True:
        merges = []
        for i in range(len(parts) - 1):
            p = priority(parts[i], parts[i + 1])
            if p is not None:
                merges.append((p, i))
        merges.sort()
        chosen = None
        for _priority, i in merges:
            if draw() >= rate:
                chosen = i
                break
        if chosen is None:
            return parts
        parts[chosen : chosen + 2] = [parts[chosen] + parts[chosen + 1]]
