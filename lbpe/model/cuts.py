"""Cuts: places where a piece falls apart into parts that encode independently.

Call a boundary between two adjacent characters of a piece a *cut* when no token of the
vocabulary can cover units on both sides of it. Then

* classic BPE never merges across it: every merge makes a token (or, for merge lists, the
  concatenation of a listed pair), and no such string covers the cut. Merges on the two sides
  never touch, so the order in which they interleave does not change either side's result;
* LBPE never places a span across it, and a span on one side never blocks one on the other.

So the tokens of the whole piece are the tokens of its parts, encoded one by one. Long pieces
of Chinese or Japanese (the cl100k and o200k patterns keep a whole run of letters together)
are full of cuts, and their parts (words, mostly) repeat even when the pieces do not, so a
cache of parts turns a cold encode into lookups.

Finding every cut exactly costs as much as encoding. :class:`CutFinder` instead asks a cheap
question per pair of characters ``c1 c2``: could any token contain the end of ``c1`` followed
by the start of ``c2``? It answers from *witnesses* collected once from the tokens (for each
fragment that ends a character inside a token, the fragments that follow it there), and
remembers per character what the question needs. A "yes" may be a false alarm (the witness
token may not fit the text around the pair), which only costs a missed cut, never a wrong one. Pairs of two ASCII
characters always count as covered: English and code have few cuts, and skipping them keeps
the witness table small.

>>> finder = CutFinder(["中国".encode(), "人".encode(), "中".encode(), "国".encode()], unit="byte")
>>> finder.split("中国人")
['中国', '人']
>>> CutFinder(["ab", "cd"], unit="char").split("abcd")  # ASCII pairs never cut
['abcd']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

__all__ = ["CutFinder"]

#: Marks a cut while splitting; a piece that contains it is split the slow way.
_CUT = "\x00"
#: Stands in every ASCII character's sets, so that two ASCII characters always meet.
_ASCII = None
_NOTHING: frozenset = frozenset()
_ONLY_ASCII: frozenset = frozenset([_ASCII])

#: Characters remembered per table before it is emptied (bounds memory on hostile text).
MEMO_LIMIT = 1 << 16


class _Memo(dict):
    """character -> value, computed by ``make`` on first use."""

    def __init__(self, make) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, char: str):
        value = self._make(char)
        if len(self) >= MEMO_LIMIT:
            self.clear()
        self[char] = value
        return value


def _byte_witnesses(tokens: Iterable[bytes]) -> dict[bytes, frozenset]:
    """left fragment -> the right fragments that follow it across a character boundary inside
    some token (pairs of two ASCII characters left out)."""
    right_of: dict[bytes, set] = {}
    for t in tokens:
        if t.isascii():
            continue
        n = len(t)
        for i in range(1, n):
            if 0x80 <= t[i] < 0xC0:
                continue  # inside a character: never a character boundary
            p = i - 1
            while p > 0 and 0x80 <= t[p] < 0xC0:
                p -= 1
            q = i + 1
            while q < n and 0x80 <= t[q] < 0xC0:
                q += 1
            left, right = t[p:i], t[i:q]
            if left.isascii() and right.isascii():
                continue
            right_of.setdefault(left, set()).add(right)
    return {k: frozenset(v) for k, v in right_of.items()}


def _char_witnesses(tokens: Iterable[str]) -> dict[str, frozenset]:
    """character -> the characters that follow it inside some token (ASCII pairs left out)."""
    right_of: dict[str, set] = {}
    for t in tokens:
        if t.isascii():
            continue
        for a, b in zip(t, t[1:]):
            if not (a.isascii() and b.isascii()):
                right_of.setdefault(a, set()).add(b)
    return {k: frozenset(v) for k, v in right_of.items()}


class CutFinder:
    """Splits pieces at cuts that no token of ``tokens`` can cover (see the module notes).

    ``tokens``: every string a merge or an LBPE span may produce, as units (bytes for
    ``unit="byte"``, text for ``unit="char"``). Extra strings only cost missed cuts.

    Per character it remembers two things: ``follow[c1]``, every fragment that can come after
    the end of ``c1`` inside a token, and ``starts[c2]``, the fragments ``c2`` begins with.
    The boundary ``c1 c2`` is a cut when the two share nothing.
    """

    def __init__(self, tokens: Iterable[bytes] | Iterable[str], *, unit: str) -> None:
        if unit == "byte":  # the tokens are bytes
            bytes_right_of = _byte_witnesses(cast("Iterable[bytes]", tokens))

            def follow(c: str) -> frozenset:
                a = c.encode("utf-8")
                found: set[bytes | None] = set()
                for i in range(len(a)):
                    found.update(bytes_right_of.get(a[i:], ()))
                if c.isascii():
                    found.add(_ASCII)
                return frozenset(found) if found else _NOTHING

            def starts(c: str) -> tuple:
                b = c.encode("utf-8")
                return (b, _ASCII) if c.isascii() else tuple(b[:j] for j in range(1, len(b) + 1))
        else:  # the tokens are text
            chars_right_of = _char_witnesses(cast("Iterable[str]", tokens))

            def follow(c: str) -> frozenset:
                found = chars_right_of.get(c, _NOTHING)
                return found | _ONLY_ASCII if c.isascii() else found

            def starts(c: str) -> tuple:
                return (c, _ASCII) if c.isascii() else (c,)

        self._follow = _Memo(follow)
        self._starts = _Memo(starts)

    def clear(self) -> None:
        """Forget the remembered characters (the witnesses stay)."""
        self._follow.clear()
        self._starts.clear()

    def split(self, piece: str) -> list[str]:
        """``piece`` cut into parts; their encodings, joined, are the piece's encoding.

        Raises :class:`UnicodeEncodeError` for a lone surrogate (byte units), like encoding does.
        """
        if len(piece) < 2:
            return [piece]
        # every step runs in C: True where the boundary after piece[k] is a cut
        cuts = map(frozenset.isdisjoint, map(self._follow.__getitem__, piece), map(self._starts.__getitem__, piece[1:]))
        if _CUT not in piece:
            return ("".join(map(str.__add__, piece, map(("", _CUT).__getitem__, cuts))) + piece[-1]).split(_CUT)
        out = []
        start = 0
        for k, cut in enumerate(cuts, 1):
            if cut:
                out.append(piece[start:k])
                start = k
        out.append(piece[start:])
        return out
