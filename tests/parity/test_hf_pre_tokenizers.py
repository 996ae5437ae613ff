"""HF tokenizers' pre-tokenizers that are no pattern (``Digits``, ``Punctuation``,
``WhitespaceSplit``), against HF itself on every code point: each is a test of one character
class, taken by HF from Rust's standard library (``char::is_numeric``, ``is_whitespace``) or
from the crate unicode_categories (``is_punctuation``), at their own Unicode versions."""

from __future__ import annotations

import re

import pytest

from lbpe.pretokenize import splitters as sp

_BLOCK = 4096
# The numbers Unicode 17.0 added: Tolong Siki's digits and three of Tangut's.
_UNICODE_17_NUMBERS = [f"U+{cp:04X}" for cp in [*range(0x11DE0, 0x11DEA), 0x16FF4, 0x16FF5, 0x16FF6]]


def _every_character() -> list[str]:
    return [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]


def _contexts(c: str) -> str:
    """A character alone between letters, twice in a row, and beside ASCII's own class members."""
    return f"a{c}b {c}{c} 1{c}2 .{c}! "


def _differences(hf, ours) -> list[str]:
    """The code points whose contexts HF and ``ours`` cut differently (blocks first, then each
    character of a block that differs)."""

    def pieces(text: str, of_hf: bool) -> list[tuple[str, int, int]]:
        if of_hf:
            return [(p, a, b) for p, (a, b) in hf.pre_tokenize_str(text)]
        return [tuple(p) for p in ours.split(text)]

    chars, wrong = _every_character(), []
    for i in range(0, len(chars), _BLOCK):
        block = "".join(_contexts(c) for c in chars[i : i + _BLOCK])
        if pieces(block, True) != pieces(block, False):
            for c in chars[i : i + _BLOCK]:
                if pieces(_contexts(c), True) != pieces(_contexts(c), False):
                    wrong.append(f"U+{ord(c):04X}")
    return wrong


@pytest.mark.slow(reason="every code point through HF")
@pytest.mark.parametrize("individual", [True, False])
def test_digits_is_hf_on_every_code_point(individual):
    """HF's Digits cuts at Rust's ``char::is_numeric``: every number (Nd, Nl, No), so "²",
    "½" and "Ⅻ" too, not decimal digits alone."""
    from tokenizers import pre_tokenizers

    hf, ours = pre_tokenizers.Digits(individual_digits=individual), sp.Digits(individual_digits=individual)
    before_17 = len(hf.pre_tokenize_str("x\U00011de0")) == 1  # tokenizers 0.22: Rust's Unicode 16
    assert _differences(hf, ours) == (_UNICODE_17_NUMBERS if before_17 else [])
    assert [p[0] for p in ours.split("x²½Ⅻ7y")] == (
        ["x", "²", "½", "Ⅻ", "7", "y"] if individual else ["x", "²½Ⅻ7", "y"]
    )


@pytest.mark.slow(reason="every code point through HF")
@pytest.mark.parametrize("behavior", ["Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous"])
def test_punctuation_is_hf_on_every_code_point(behavior):
    """HF's Punctuation cuts at ASCII punctuation and at unicode_categories' ``is_punctuation``,
    whose tables are Unicode 8.0's: "؝" (U+061D, Po since 14.0) is a letter to it, and
    "᙭" (U+166D, So since 12.0) still punctuation."""
    from tokenizers import pre_tokenizers

    snake = re.sub(r"(?<!^)([A-Z])", r"_\1", behavior).lower()  # the Python binding's spelling
    hf, ours = pre_tokenizers.Punctuation(snake), sp.Punctuation(behavior=behavior)
    assert _differences(hf, ours) == []
    if behavior == "Isolated":
        assert [p[0] for p in ours.split("a\u061db\u166dc")] == ["a\u061db", "\u166d", "c"]


@pytest.mark.slow(reason="every code point through HF")
def test_whitespace_split_is_hf_on_every_code_point():
    from tokenizers import pre_tokenizers

    assert _differences(pre_tokenizers.WhitespaceSplit(), sp.WhitespaceSplit()) == []


def test_known_answers():
    """A few characters of each class, in the fast tier (the tests above are slow)."""
    assert [p[0] for p in sp.Digits().split("x²½7٣y\U00011de0")] == ["x", "²½7٣", "y", "\U00011de0"]
    assert [p[0] for p in sp.Punctuation().split("a\u061db\u166dc,d\u2e4fe")] == [
        "a\u061db",
        "\u166d",
        "c",
        ",",
        "d\u2e4fe",
    ]
