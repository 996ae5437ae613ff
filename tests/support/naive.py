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
