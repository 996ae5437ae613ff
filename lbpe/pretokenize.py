"""Pre-tokenisation: split text into the pieces that BPE and LBPE encode one at a time.

The OpenAI patterns are written for engines with ``\\p{..}`` Unicode classes and possessive
quantifiers. This module rewrites them for the standard library ``re`` module so that the same
code runs in CPython and in Pyodide:

* ``\\p{L}``, ``\\p{N}``, ``\\p{M}`` and the letter sub-categories become explicit character
  ranges built from :mod:`unicodedata`;
* ``\\s`` becomes the Unicode ``White_Space`` set (Python's own ``\\s`` also matches the
  separators U+001C..U+001F, which are not white space in Unicode or in tiktoken);
* ``$`` (end of text in tiktoken's engine) becomes ``\\Z``;
* ``(?i:...)`` is spelled out with explicit case classes (``s`` also matches U+017F LONG S);
* possessive quantifiers are dropped: in every preset nothing after them can make the engine
  backtrack into them, so the greedy form finds the same matches (tested against tiktoken).

>>> split_text("Hello world's 2024!", "cl100k_base")
['Hello', ' world', "'s", ' ', '202', '4', '!']
>>> split_text("abc 12345", "paper")
['abc', ' ', '1', '2', '3', '4', '5']
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

__all__ = [
    "PRESETS",
    "PATTERN_ALIASES",
    "preset_pattern",
    "compile_pattern",
    "resolve_pattern",
    "split_text",
]

# Unicode White_Space (stable since Unicode 6.3).
_WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"


def _ranges_to_class(ranges: list[tuple[int, int]]) -> str:
    parts = []
    for lo, hi in ranges:
        if lo == hi:
            parts.append(_escape(lo))
        else:
            parts.append(_escape(lo) + "-" + _escape(hi))
    return "".join(parts)


def _escape(cp: int) -> str:
    # Escape everything outside printable ASCII letters/digits so the class text is unambiguous.
    if cp < 0x10000:
        return "\\u%04x" % cp
    return "\\U%08x" % cp


@functools.lru_cache(maxsize=None)
def _category_table() -> dict[str, list[tuple[int, int]]]:
    """Ranges of code points per two-letter general category (one pass over the code space)."""
    table: dict[str, list[tuple[int, int]]] = {}
    category = unicodedata.category
    prev_cat = None
    start = 0
    for cp in range(sys.maxunicode + 1):
        cat = category(chr(cp))
        if cat != prev_cat:
            if prev_cat is not None:
                table.setdefault(prev_cat, []).append((start, cp - 1))
            prev_cat = cat
            start = cp
    table.setdefault(prev_cat, []).append((start, sys.maxunicode))  # type: ignore[arg-type]
    return table


@functools.lru_cache(maxsize=None)
def _class_body(categories: str) -> str:
    """Character-class body (no brackets) for space-separated categories such as ``"Lu Ll"``.

    A one-letter name (``L``, ``N``, ``M``) stands for all its sub-categories.
    """
    table = _category_table()
    wanted = categories.split()
    ranges = sorted(
        r for cat, rs in table.items() if any(cat.startswith(w) for w in wanted) for r in rs
    )
    merged: list[tuple[int, int]] = []
    for lo, hi in ranges:
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return _ranges_to_class(merged)


def _ci(word: str) -> str:
    """Spell out a case-insensitive literal with explicit classes (simple case folding)."""
    out = []
    for ch in word:
        if ch.isalpha():
            variants = {ch.lower(), ch.upper()}
            if ch.lower() == "s":
                variants.add("\u017f")  # LATIN SMALL LETTER LONG S folds to s
            if ch.lower() == "k":
                variants.add("\u212a")  # KELVIN SIGN folds to k
            out.append("[" + "".join(sorted(variants)) + "]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


# Patterns in a small template language: {L}, {N}, {M}, {Lu} ... are category class bodies,
# {WS} is the White_Space class body. Each is pasted inside [...] by the pattern text itself.
_CONTRACTIONS = "'(?:[sdmt]|ll|ve|re)"
_CONTRACTIONS_CI = "'(?:" + "|".join(_ci(w) for w in ("s", "d", "m", "t", "ll", "ve", "re")) + ")"
_O200K_SUFFIX = "(?:" + "|".join("'" + _ci(w) for w in ("s", "t", "re", "ve", "m", "ll", "d")) + ")?"

PRESETS: dict[str, str] = {
    # GPT-2 / r50k_base / p50k_base (tiktoken's r50k_pat_str).
    "r50k_base": (
        _CONTRACTIONS
        + r"| ?[{L}]+| ?[{N}]+| ?[^{WS}{L}{N}]+|[{WS}]+\Z|[{WS}]+(?![^{WS}])|[{WS}]"
    ),
    "cl100k_base": (
        _CONTRACTIONS_CI
        + r"|[^\r\n{L}{N}]?[{L}]+|[{N}]{{1,3}}| ?[^{WS}{L}{N}]+[\r\n]*|[{WS}]+\Z"
        + r"|[{WS}]*[\r\n]|[{WS}]+(?![^{WS}])|[{WS}]"
    ),
    "o200k_base": (
        r"[^\r\n{L}{N}]?[{Lu_Lt_Lm_Lo_M}]*[{Ll_Lm_Lo_M}]+" + _O200K_SUFFIX
        + r"|[^\r\n{L}{N}]?[{Lu_Lt_Lm_Lo_M}]+[{Ll_Lm_Lo_M}]*" + _O200K_SUFFIX
        + r"|[{N}]{{1,3}}| ?[^{WS}{L}{N}]+[\r\n/]*|[{WS}]*[\r\n]+|[{WS}]+(?![^{WS}])|[{WS}]+"
    ),
    # The LBPE paper's setup: GPT-2 style categories kept apart, every digit on its own.
    "paper": (
        _CONTRACTIONS
        + r"| ?[{L}]+|[{N}]| ?[^{WS}{L}{N}]+|[{WS}]+\Z|[{WS}]+(?![^{WS}])|[{WS}]"
    ),
}

#: Other names accepted for the presets above.
PATTERN_ALIASES: dict[str, str] = {"gpt2": "r50k_base", "p50k_base": "r50k_base"}


def _canonical(name: str) -> str:
    name = PATTERN_ALIASES.get(name, name)
    if name not in PRESETS:
        known = ", ".join(sorted(set(PRESETS) | set(PATTERN_ALIASES)))
        raise ValueError(f"unknown pre-tokenizer pattern {name!r}; choose one of: {known}")
    return name


@functools.lru_cache(maxsize=None)
def preset_pattern(name: str) -> str:
    """The stdlib ``re`` source of a preset pattern (``ValueError`` for an unknown name)."""
    template = PRESETS[_canonical(name)]
    fields = {
        "L": _class_body("L"),
        "N": _class_body("N"),
        "M": _class_body("M"),
        "Lu_Lt_Lm_Lo_M": _class_body("Lu Lt Lm Lo M"),
        "Ll_Lm_Lo_M": _class_body("Ll Lm Lo M"),
        "WS": _WHITE_SPACE,
    }
    return template.format(**fields)


@functools.lru_cache(maxsize=None)
def compile_pattern(name: str) -> re.Pattern[str]:
    """The compiled preset pattern (cached per process)."""
    return re.compile(preset_pattern(name))


def resolve_pattern(pattern: str | re.Pattern[str]) -> re.Pattern[str]:
    """Accept a preset name or an already compiled ``re`` pattern."""
    if isinstance(pattern, re.Pattern):
        return pattern
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a preset name or a compiled re.Pattern, not {type(pattern).__name__}")
    return compile_pattern(pattern)


def split_text(text: str, pattern: str | re.Pattern[str]) -> list[str]:
    """Split ``text`` into pre-tokens with a preset name or a compiled pattern."""
    return resolve_pattern(pattern).findall(text)
