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


def test_unicode_alignment_stays_local_where_starters_compose():
    """Characters of combining class 0 can compose too (Hangul's jamo, Oriya's two-part vowel):
    their run is aligned as one, and the rest of the text keeps its own offsets (every output
    character pointed at 0 once one such run was in the text)."""
    import unicodedata

    from lbpe.normalize import Unicode

    korean = unicodedata.normalize("NFD", "한국")  # six jamo, two syllables in NFC
    text = "ab " + korean + " cd \u0b47\u0b3e e"
    out, where = Unicode("NFC").aligned(text)
    assert out == unicodedata.normalize("NFC", text) == "ab 한국 cd \u0b4b e"
    assert [text[i] for i in where[:3]] == ["a", "b", " "]
    assert where[3:5] == [3, 6]  # each syllable at its first jamo
    assert [text[i] for i in where[5:9]] == [" ", "c", "d", " "]
    assert where[9] == text.index("\u0b47") and [text[i] for i in where[10:]] == [" ", "e"]


def test_unicode_alignment_stays_linear_where_no_run_aligns():
    """U+0F73 is of combining class 0 but decomposes into marks that reorder with those before
    it: no run of "x" + "\u0f74\u0f73" * n aligns alone, and taking each with all before it
    again made the alignment cubic (8,000 characters: 194 s)."""
    import time

    from lbpe.normalize import Unicode

    text = "x" + "\u0f74\u0f73" * 20_000
    started = time.process_time()
    out, where = Unicode("NFC").aligned(text)
    assert len(where) == len(out) and time.process_time() - started < 20


def test_unicode_alignment_resumes_after_a_stretch_that_never_aligns():
    """Past the runs taken together, the stretch up to the next white space is placed as one
    and the text after it keeps its own offsets (they all pointed at the stretch's start)."""
    import unicodedata

    from lbpe.normalize import Unicode

    tail = " hello " + unicodedata.normalize("NFD", "한국") + " end"
    text = "x" + "\u0f74\u0f73" * 10 + tail
    out, where = Unicode("NFC").aligned(text)
    assert out == unicodedata.normalize("NFC", text)
    at = out.index(" hello")
    assert where[at : at + 6] == list(range(text.index(" hello"), text.index(" hello") + 6))
    assert text[where[out.index(" end") + 1]] == "e"
