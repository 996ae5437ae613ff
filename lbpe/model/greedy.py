"""Greedy longest-match encoding of one pre-token, from either end.

* :func:`longest_prefix` -- left to right: at each position take the longest token that starts
  there (MaxMatch, as WordPiece encodes);
* :func:`longest_suffix` -- right to left: at each end take the longest token that ends there.

The longest token at a position is found by extending a span one unit at a time while it is
still the beginning of some token (a *prefix index*, :func:`lbpe.model.lbpe.build_prefix_index`)
or, from the right, the end of some token (a *suffix index*, :func:`build_suffix_index`), and
remembering the longest span that is a token. A unit no token starts (or ends) with comes back
alone, as a key that is not in the vocabulary; the caller decides how to encode it (byte
fallback or the unknown token).

>>> from lbpe.model.lbpe import build_prefix_index
>>> tokens = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4}
>>> longest_prefix("abc", build_prefix_index(tokens)), longest_suffix("abc", build_suffix_index(tokens))
(['ab', 'c'], ['a', 'bc'])
>>> longest_prefix(b"abx", build_prefix_index({b"a": 0, b"abc": 1}))  # no "ab": 'b' alone
[b'a', b'b', b'x']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

from lbpe.model.lbpe import NOT_A_TOKEN

__all__ = ["longest_prefix", "longest_suffix", "build_suffix_index"]

K = TypeVar("K", bytes, str)


def build_suffix_index(tokens: Mapping[K, int] | Iterable[K]) -> dict[K, int]:
    """Map every token to its id and every proper suffix of a token to :data:`NOT_A_TOKEN`
    (the mirror image of :func:`lbpe.model.lbpe.build_prefix_index`).

    Given an iterable of keys instead of a mapping, tokens map to 0.

    >>> build_suffix_index({"abc": 7, "c": 2})
    {'abc': 7, 'c': 2, 'bc': -1}
    """
    if isinstance(tokens, Mapping):
        index: dict = dict(tokens)
    else:
        index = dict.fromkeys(tokens, 0)
    for key in list(index):
        for cut in range(1, len(key)):
            suffix = key[cut:]
            if suffix in index:
                break  # shorter suffixes were or will be added from this one
            index[suffix] = NOT_A_TOKEN
    return index


def longest_prefix(piece: K, prefix_index: Mapping[K, int]) -> list[K]:
    """``piece`` split left to right, each token the longest one starting where the last ended."""
    get = prefix_index.get
    n = len(piece)
    out: list[K] = []
    i = 0
    while i < n:
        end = i + 1  # a unit no token starts with stands alone
        j = i + 1
        while j <= n:
            found = get(piece[i:j])
            if found is None:  # no token begins with piece[i:j]: no longer one either
                break
            if found != NOT_A_TOKEN:
                end = j
            j += 1
        out.append(piece[i:end])
        i = end
    return out


def longest_suffix(piece: K, suffix_index: Mapping[K, int]) -> list[K]:
    """``piece`` split right to left, each token the longest one ending where the last began;
    returned in text order."""
    get = suffix_index.get
    out: list[K] = []
    j = len(piece)
    while j > 0:
        start = j - 1  # a unit no token ends with stands alone
        i = j - 1
        while i >= 0:
            found = get(piece[i:j])
            if found is None:  # no token ends with piece[i:j]: no longer one either
                break
            if found != NOT_A_TOKEN:
                start = i
            i -= 1
        out.append(piece[start:j])
        j = start
    out.reverse()
    return out
