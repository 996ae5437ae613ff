"""Unicode character classes for the pre-tokenisers, and arithmetic on code point ranges.

This module owns the class data every pre-tokeniser is built from: the general-category
class bodies (:func:`class_body`, from :mod:`lbpe.unicode`'s pinned Unicode 16.0), Unicode
``White_Space`` (:data:`WHITE_SPACE`, written once here), the named classes of the preset
templates (:data:`FIELDS`: ``{L}``, ``{N}``, ``{WS}`` ...), and the range operations the fast
rewrite (:mod:`lbpe.pretokenize.rewrite`) and the compiled extension (:mod:`lbpe.native`) use.

>>> WHITE_SPACE_RANGES[:2]
((9, 13), (32, 32))
>>> complement(((0, 9), (20, 29)), 0, 40)
((10, 19), (30, 40))
"""

from __future__ import annotations

import functools
import sys

from lbpe.unicode import category_ranges, hf_class_ranges

__all__ = [
    "Ranges",
    "MAX",
    "ASTRAL",
    "WHITE_SPACE",
    "WHITE_SPACE_RANGES",
    "FIELDS",
    "class_body",
    "hf_numeric_body",
    "hf_punctuation_body",
    "field_ranges",
    "field_bodies",
    "escaped_body",
    "compact_body",
    "merge",
    "complement",
    "clip",
    "intersect",
    "is_subset",
]

MAX = sys.maxunicode
ASTRAL = 0x10000  # the first code point beyond the Basic Multilingual Plane (BMP)

# Sorted, disjoint, non-adjacent inclusive ranges of code points.
Ranges = tuple  # tuple[tuple[int, int], ...]


# ---- code point ranges ---------------------------------------------------------------------


def merge(ranges) -> Ranges:
    """Sorted, merged form of any iterable of inclusive ``(lo, hi)`` ranges."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return tuple(merged)


def complement(ranges: Ranges, lo: int = 0, hi: int = MAX) -> Ranges:
    """The code points of ``lo..hi`` not in ``ranges``."""
    out = []
    nxt = lo
    for a, b in ranges:
        if b < lo or a > hi:
            continue
        if a > nxt:
            out.append((nxt, a - 1))
        nxt = max(nxt, b + 1)
    if nxt <= hi:
        out.append((nxt, hi))
    return tuple(out)


def clip(ranges: Ranges, lo: int, hi: int) -> Ranges:
    """The part of ``ranges`` inside ``lo..hi``."""
    return tuple((max(a, lo), min(b, hi)) for a, b in ranges if b >= lo and a <= hi)


def intersect(x: Ranges, y: Ranges) -> Ranges:
    """The code points in both ``x`` and ``y``."""
    out = []
    i = j = 0
    while i < len(x) and j < len(y):
        lo = max(x[i][0], y[j][0])
        hi = min(x[i][1], y[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def is_subset(inner: Ranges, outer: Ranges) -> bool:
    return not intersect(inner, complement(outer))


# ---- class text ----------------------------------------------------------------------------


def _escape(cp: int) -> str:
    if cp < 0x10000:
        return "\\u%04x" % cp
    return "\\U%08x" % cp


def escaped_body(ranges) -> str:
    """A class body (no brackets) with every code point escaped (the plain patterns)."""
    return "".join(_escape(lo) if lo == hi else _escape(lo) + "-" + _escape(hi) for lo, hi in ranges)


def _char(cp: int) -> str:
    # The engine parses a literal character several times faster than an escape; ASCII (where
    # the class metacharacters are) and lone surrogates stay escaped.
    if cp > 0x7F and not 0xD800 <= cp <= 0xDFFF:
        return chr(cp)
    return _escape(cp)


def compact_body(ranges) -> str:
    """A class body (no brackets) that ``re`` parses fast (the rewritten patterns)."""
    return "".join(_char(lo) if lo == hi else _char(lo) + "-" + _char(hi) for lo, hi in ranges)


def _body_ranges(body: str) -> Ranges:
    """The code points of a class body of literal characters and ``a-b`` ranges."""
    items = []
    i = 0
    while i < len(body):
        if i + 2 < len(body) and body[i + 1] == "-":
            items.append((ord(body[i]), ord(body[i + 2])))
            i += 3
        else:
            items.append((ord(body[i]), ord(body[i])))
            i += 1
    return merge(items)


# ---- Unicode data --------------------------------------------------------------------------


@functools.cache
def class_body(categories: str) -> str:
    """Character-class body (no brackets) for space-separated general categories such as
    ``"Lu Ll"`` (at the pinned Unicode version of :mod:`lbpe.unicode`).

    >>> import re; re.findall("[" + class_body("Nd") + "]", "a1٣b")
    ['1', '٣']
    """
    return escaped_body(category_ranges(categories))


@functools.cache
def hf_numeric_body() -> str:
    """HF ``Digits``' class as a class body: Rust's ``char::is_numeric``, the numbers (N) at
    Unicode 17.0, so ``"²"`` and ``"½"`` too (:func:`lbpe.unicode.hf_class_ranges`).

    >>> import re; re.findall("[" + hf_numeric_body() + "]", "a1²½b")
    ['1', '²', '½']
    """
    return escaped_body(hf_class_ranges("numeric"))


@functools.cache
def hf_punctuation_body() -> str:
    """HF ``Punctuation``'s class as a class body: ASCII punctuation, and the punctuation (P)
    at Unicode 8.0, the tables of the crate it takes ``is_punctuation`` from."""
    ascii_punct = tuple((ord(c), ord(c)) for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
    return escaped_body(merge(hf_class_ranges("punctuation") + ascii_punct))


#: Unicode ``White_Space`` (stable since Unicode 6.3) as a class body. Python's own ``\\s``
#: also matches the separators U+001C..U+001F, which are not white space in Unicode, in
#: tiktoken or in HF ``tokenizers``; every pre-tokeniser here uses this class instead.
WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
#: The same code points as sorted inclusive ranges.
WHITE_SPACE_RANGES: Ranges = _body_ranges(WHITE_SPACE)

#: The named classes of the preset templates (:mod:`lbpe.pretokenize.presets`): ``{field}``
#: -> its general categories; ``{WS}`` is :data:`WHITE_SPACE`.
FIELDS = {"L": "L", "N": "N", "M": "M", "Lu_Lt_Lm_Lo_M": "Lu Lt Lm Lo M", "Ll_Lm_Lo_M": "Ll Lm Lo M"}


def field_ranges(field: str) -> Ranges:
    """The code points of a template field (``"L"``, ``"WS"``, ...)."""
    if field == "WS":
        return WHITE_SPACE_RANGES
    return category_ranges(FIELDS[field])


def field_bodies() -> dict[str, str]:
    """Each template field's class body, for ``template.format(**field_bodies())``."""
    fields = {key: class_body(value) for key, value in FIELDS.items()}
    fields["WS"] = WHITE_SPACE
    return fields
