"""LBPE: long-token-first encoding of one pre-token (Lian et al.).

The paper's procedure, for a piece split into units ``R0`` and the longest token length ``m``::

    for l = m, m-1, ..., 1:
        for i = 0 .. len(R0) - l, left to right:
            if R0[i:i+l] is a token and none of R0[i..i+l-1] is marked: mark it as that token
    read the marked tokens off in text order

This module computes exactly that for a piece of ``n`` units in O(n) memory besides the
vocabulary's tables, and with at most O(n * m) window checks:

1. windows longer than :data:`WALKED` units (rare in real vocabularies, but a file may hold
   tokens of thousands of units) are the paper's loop itself, run over the *gaps*, the runs of
   units still unmarked: a window is checked only where it fits inside a gap, only for the
   lengths some token has (:class:`LongTokens`) and only at a unit some token that long starts
   with; a placed token splits its gap, so a run of long tokens leaves nothing to check after it;
2. windows of :data:`WALKED` units and fewer are listed by one pass over the start positions of
   each gap that walks the *prefix index* (every prefix of every token, see
   :func:`build_prefix_index`) at most :data:`WALKED` units far; they are visited longest first
   and, within a length, left to right, and a span is placed when its first and last units are
   still free. Checking the two ends is enough: every span placed earlier is at least as long,
   so it cannot sit strictly inside the candidate.

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
from typing import NamedTuple, TypeVar

from lbpe.budget import check as check_budget

__all__ = [
    "longest_first",
    "build_prefix_index",
    "long_tokens",
    "LongTokens",
    "NOT_A_TOKEN",
    "SHORT_PIECE",
    "WALKED",
]

K = TypeVar("K", bytes, str)

#: Value in a prefix index for a prefix that is not itself a token.
NOT_A_TOKEN = -1

#: Pieces up to this many units take the leftmost-longest shortcut (see the module notes).
SHORT_PIECE = 12

#: Windows up to this many units are found by walking the prefix index, longer ones by scanning
#: the gaps (see the module notes).
WALKED = 16


class LongTokens(NamedTuple):
    """What the scan of windows longer than :data:`WALKED` units needs to know of a vocabulary."""

    #: every length over WALKED that some token has, longest first
    lengths: tuple[int, ...]
    #: first unit (an int for bytes, a character for text) -> the longest token over WALKED
    #: units that starts with it
    reach: dict


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


def long_tokens(index: Mapping[K, int]) -> LongTokens:
    """The tokens of a prefix index longer than :data:`WALKED` units, as :class:`LongTokens`.

    >>> long_tokens(build_prefix_index(["a" * 20, "ab" * 9, "b" * 30, "c"]))
    LongTokens(lengths=(30, 20, 18), reach={'a': 20, 'b': 30})
    """
    reach: dict = {}
    for key, value in index.items():
        if value != NOT_A_TOKEN and len(key) > WALKED and reach.get(key[0], 0) < len(key):
            reach[key[0]] = len(key)
    lengths = {len(key) for key, value in index.items() if value != NOT_A_TOKEN and len(key) > WALKED}
    return LongTokens(tuple(sorted(lengths, reverse=True)), reach)


def longest_first(piece: K, index: Mapping[K, int], max_len: int, *, long: LongTokens | None = None) -> list[K]:
    """Split ``piece`` long-token-first; ``index`` comes from :func:`build_prefix_index`.

    ``max_len`` is the longest token length in units (the paper's ``m``); ``long`` is
    ``long_tokens(index)``, computed here when not given (a caller encoding many pieces keeps it).
    """
    n = len(piece)
    if n <= SHORT_PIECE:
        out: list[K] = []
        _leftmost_longest(piece, index.get, max_len, out)
        return out
    if index.get(piece, NOT_A_TOKEN) != NOT_A_TOKEN:
        return [piece]
    length_at = [0] * n  # start of a placed token -> its length
    gaps = [(0, n)]  # the runs of units nothing covers yet, in text order
    if max_len > WALKED and n > WALKED:
        if long is None:
            long = long_tokens(index)
        gaps = _place_long(piece, index, long, min(n, max_len), gaps, length_at)
    _place_walked(piece, index, min(max_len, WALKED), gaps, length_at)
    out = []
    i = 0
    while i < n:
        length = length_at[i] or 1
        out.append(piece[i : i + length])
        i += length
    return out


def _place_long(piece: K, index: Mapping[K, int], long: LongTokens, longest: int, gaps: list, length_at: list[int]):
    """The paper's loop for the window lengths over :data:`WALKED` units, over the ``gaps``;
    returns the gaps of two units or more left afterwards."""
    reach = long.reach
    top = max((reach.get(unit, 0) for unit in set(piece)), default=0)
    for length in long.lengths:
        if length > min(top, longest):
            continue
        check_budget()  # a request's time budget (lbpe.budget), between window lengths
        kept = []
        for a, b in gaps:
            i, last = a, b - length
            while i <= last:
                if reach.get(piece[i], 0) >= length and index.get(piece[i : i + length], NOT_A_TOKEN) != NOT_A_TOKEN:
                    if i - a >= 2:
                        kept.append((a, i))
                    length_at[i] = length
                    i += length
                    a = i
                else:
                    i += 1
            if b - a >= 2:
                kept.append((a, b))
        gaps = kept
    return gaps


def _place_walked(piece: K, index: Mapping[K, int], longest: int, gaps: list, length_at: list[int]) -> None:
    """Every token of 2 to ``longest`` units inside the ``gaps``, longest first, left to right."""
    get = index.get
    by_length: dict[int, list[int]] = {}
    for a, b in gaps:
        for i in range(a, b - 1):
            stop = min(b, i + longest)
            j = i + 1
            while j <= stop:
                found = get(piece[i:j])
                if found is None:
                    break
                if found != NOT_A_TOKEN and j - i > 1:
                    by_length.setdefault(j - i, []).append(i)
                j += 1
    taken = bytearray(len(piece))
    for length in sorted(by_length, reverse=True):
        for i in by_length[length]:
            last = i + length - 1
            if taken[i] or taken[last]:
                continue
            taken[i : last + 1] = b"\x01" * length
            length_at[i] = length


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
