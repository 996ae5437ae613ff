"""Least-tokens encoding of one pre-token: a segmentation into the fewest tokens.

Several segmentations often share the fewest tokens; the one returned is fixed by this tie
rule: **among the segmentations with the fewest tokens, the one whose token lengths, read from
the left, are lexicographically largest** (the first token as long as it can be, then the
second, and so on). So ``"abcd"`` with tokens ``ab``, ``cd``, ``abc``, ``d`` gives
``abc|d`` (lengths 3, 1) rather than ``ab|cd`` (2, 2).

Computed by dynamic programming from the right: ``fewest[i]`` is the fewest tokens that cover
``piece[i:]``, over every token that starts at ``i`` (found by walking the prefix index,
:func:`lbpe.model.lbpe.build_prefix_index`). Reading the answer from the left, each step takes
the *longest* token starting there after which the rest can still be covered in the fewest
tokens, which is the tie rule. A unit that no token starts with counts as a token of one unit
and comes back alone, as a key that is not in the vocabulary (byte fallback or the unknown
token is the caller's business). Linear in the piece times the longest match.

>>> from lbpe.model.lbpe import build_prefix_index
>>> least_tokens("abcd", build_prefix_index(["a", "b", "c", "d", "ab", "cd", "abc"]))
['abc', 'd']
>>> least_tokens(b"aaaa", build_prefix_index([b"a", b"aaa", b"aa"]))
[b'aaa', b'a']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from lbpe.model.lbpe import NOT_A_TOKEN

__all__ = ["least_tokens"]

K = TypeVar("K", bytes, str)


def least_tokens(piece: K, prefix_index: Mapping[K, int]) -> list[K]:
    """``piece`` in the fewest tokens, ties broken by the rule in the module notes."""
    get = prefix_index.get
    n = len(piece)
    fewest = [0] * (n + 1)  # fewest[i]: fewest tokens covering piece[i:]
    step = [0] * (n + 1)  # step[i]: end of the token taken at i (the longest among the best)
    for i in range(n - 1, -1, -1):
        best, best_end = fewest[i + 1] + 1, i + 1  # one unit alone: a token, or fallback
        j = i + 2
        while j <= n:
            found = get(piece[i:j])
            if found is None:
                break
            if found != NOT_A_TOKEN and fewest[j] + 1 <= best:  # <=: the longer token wins ties
                best, best_end = fewest[j] + 1, j
            j += 1
        fewest[i], step[i] = best, best_end
    out: list[K] = []
    i = 0
    while i < n:
        out.append(piece[i : step[i]])
        i = step[i]
    return out
