"""SentencePiece's normaliser without a character map: encoding calls it on whole texts, on a
fast path that must give what its character-by-character alignment (``aligned``, the reference)
gives, for every setting."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lbpe.normalize import SentencePieceNormalizer

SETTINGS = [
    {"add_dummy_prefix": prefix, "remove_extra_whitespaces": squeeze, "escape_whitespaces": escape}
    for prefix in (True, False)
    for squeeze in (True, False)
    for escape in (True, False)
]


@pytest.mark.parametrize(
    ("settings", "text", "want"),
    [
        ({}, " Hello  world ", "\u2581Hello\u2581world"),
        ({}, "   ", ""),
        ({}, "", ""),
        ({}, "a\u2581 ", "\u2581a"),  # trailing spaces and the marks before them go
        ({}, "a\t  b\u3000", "\u2581a\t\u2581b\u3000"),  # only U+0020 is squeezed
        ({"remove_extra_whitespaces": False}, " a  b ", "\u2581\u2581a\u2581\u2581b\u2581"),
        ({"add_dummy_prefix": False}, "a b", "a\u2581b"),
        ({"escape_whitespaces": False}, "a  b ", " a b"),
    ],
)
def test_known_answers(settings, text, want):
    assert SentencePieceNormalizer(**settings)(text) == want


@pytest.mark.parametrize("settings", SETTINGS)
@given(text=st.text(alphabet=" \u2581\u3000\tab\u00e9\n", max_size=40))
def test_the_whole_text_path_equals_the_alignment(settings, text):
    normalizer = SentencePieceNormalizer(**settings)
    assert normalizer(text) == normalizer.aligned(text)[0]
