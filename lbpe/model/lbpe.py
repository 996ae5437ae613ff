"""LBPE: long-token-first encoding of one pre-token (Lian et al.).

The paper's procedure, for a piece split into units ``R0`` and the longest token length ``m``::

    for l = m, m-1, ..., 1:
        for i = 0 .. len(R0) - l, left to right:
            if R0[i:i+l] is a token and none of R0[i..i+l-1] is marked: mark it as that token
    read the marked tokens off in text order

This module computes exactly that, in O(n * m) for a piece of ``n`` units:

1. one pass over start positions walks the *prefix index* (every prefix of every token, see
   :func:`build_prefix_index`) to list every vocabulary span ``(i, l)`` in the piece;
2. the spans are visited longest first and, within a length, left to right; a span is placed
   when its first and last units are still free. Checking the two ends is enough: every span
   placed earlier is at least as long, so it cannot sit strictly inside the candidate.

Pieces of up to :data:`SHORT_PIECE` units (most words) take a shortcut that reads the same loop
another way: the leftmost of the longest tokens in the piece is always placed (nothing longer
exists to block it, nothing of its length lies to its left), and what remains on either side of
it are two smaller pieces of the same problem, where the left one holds no token of that length.
Trying window lengths from the longest down finds that token after a few lookups, where the
index walk would visit every start.

Units that no token covers (possible only for character-level vocabularies) come back as
single-unit keys that are not in the vocabulary; the caller decides how to encode them
(byte fallback or the unknown token).

>>> index = build_prefix_index({"a": 0, "aa": 1})
>>> longest_first("aaa", index, 2)
['aa', 'a']
>>> index = build_prefix_index({b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5})
>>> longest_first(b"abcbc", index, 3)
[b'abc', b'bc']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

__all__ = ["longest_first", "build_prefix_index", "NOT_A_TOKEN", "SHORT_PIECE"]

K = TypeVar("K", bytes, str)

#: Value in a prefix index for a prefix that is not itself a token.
NOT_A_TOKEN = -1

#: Pieces up to this many units take the leftmost-longest shortcut (see the module notes).
SHORT_PIECE = 12


def build_prefix_index(tokens: Mapping[K, int] | Iterable[K]) -> dict[K, int]:
    """Map every token to its id and every proper prefix of a token to :data:`NOT_A_TOKEN`.

    Given an iterable of keys instead of a mapping, tokens map to 0.
    """
    if isinstance(tokens, Mapping):
        index: dict = dict(tokens)
    else:
        index = dict.fromkeys(tokens, 0)
    for key in list(index):
        for cut in range(len(key) - 1, 0, -1):
            prefix = key[:cut]
            if prefix in index:
                break  # shorter prefixes were or will be added from this one
            index[prefix] = NOT_A_TOKEN
    return index


def longest_first(piece: K, index: Mapping[K, int], max_len: int) -> list[K]:
    """Split ``piece`` long-token-first; ``index`` comes from :func:`build_prefix_index`.

    ``max_len`` is the longest token length in units (the paper's ``m``).
    """
    n = len(piece)
    if n <= SHORT_PIECE:
        out: list[K] = []
        _leftmost_longest(piece, index.get, max_len, out)
        return out
    if index.get(piece, NOT_A_TOKEN) != NOT_A_TOKEN:
        return [piece]
    get = index.get
    by_length: dict[int, list[int]] = {}
    for i in range(n):
        stop = min(n, i + max_len)
        j = i + 1
        while j <= stop:
            found = get(piece[i:j])
            if found is None:
                break
            if found != NOT_A_TOKEN:
                by_length.setdefault(j - i, []).append(i)
            j += 1
    taken = bytearray(n)
    start_len = [0] * n
    for length in sorted(by_length, reverse=True):
        for i in by_length[length]:
            last = i + length - 1
            if taken[i] or taken[last]:
                continue
            taken[i : last + 1] = b"\x01" * length
            start_len[i] = length
    out = []
    i = 0
    while i < n:
        length = start_len[i] or 1
        out.append(piece[i : i + length])
        i += length
    return out


def _leftmost_longest(piece: K, get, longest: int, out: list[K]) -> None:
    """Append the tokens of ``piece``, in which no token is longer than ``longest`` units."""
    n = len(piece)
    for length in range(min(n, longest), 1, -1):
        for i in range(n - length + 1):
            if get(piece[i : i + length], NOT_A_TOKEN) != NOT_A_TOKEN:
                if i:
                    _leftmost_longest(piece[:i], get, length - 1, out)
                out.append(piece[i : i + length])
                if i + length < n:
                    _leftmost_longest(piece[i + length :], get, length, out)
                return
    out.extend(piece[k : k + 1] for k in range(n))
