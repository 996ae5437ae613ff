"""The pre-tokeniser presets must split exactly like tiktoken's own patterns.

Reference: the ``regex`` module compiling tiktoken's pattern strings (r50k from
``tiktoken_ext.openai_public``, cl100k/o200k from the offline-built encodings, and for the
``paper`` preset r50k's pattern with its number alternative `` ?\\p{N}++`` replaced by a single
``\\p{N}``). Both compiled sources of a preset are checked -- the full pattern
(``compile_pattern(name).regex``) and the astral-free one that ``findall``/``finditer`` use for
text without code points beyond U+FFFF -- and so is the plain translation that the rewrite
replaced (``rewrite.plain_pattern``), which uses the same Unicode data as the rewrite and so can be
compared on *every* code point.

Unicode versions: lbpe pins Unicode 16.0 (:mod:`lbpe.unicode`, as tiktoken and HF tokenizers),
whatever the interpreter's ``unicodedata`` has; ``regex`` 2026.5.9 has Unicode 17.0. Code points
whose properties differ between the two -- the ones 17.0 assigned, and U+0295 LATIN LETTER
PHARYNGEAL VOICED FRICATIVE (Ll until 16.0, Lo since 17.0) -- are found at test time
(``skewed_code_points``) and left out of text compared with ``regex``; tiktoken itself is
compared on every code point whose category changed since Unicode 14.0 in
``tests/parity/test_unicode.py``.
"""

from __future__ import annotations

import functools
import pickle
import re
import sys

import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lbpe.pretokenize import (
    PresetPattern,
    compile_pattern,
    preset_pattern,
    resolve_pattern,
    rewrite,
    split_text,
)
from lbpe.pretokenize import compiled as compiled_module
from lbpe.pretokenize.classes import WHITE_SPACE, WHITE_SPACE_RANGES
from lbpe.pretokenize.presets import (
    PRETOKENIZER_PRESETS,
    openai_encoding,
    openai_encoding_names,
    preset_of_hf_regex,
    pretokenizer_preset,
)
from lbpe.unicode import category
from tests.support.data import data_file, english_text, tiktoken_encoding

PRESET_NAMES = ("r50k_base", "cl100k_base", "o200k_base", "paper", "llama3", "qwen2")
MB = 1 << 20


@functools.cache
def reference(name: str) -> regex.Pattern:
    """tiktoken's pattern for a preset, compiled by the ``regex`` module."""
    import tiktoken_ext.openai_public as public

    if name in ("llama3", "qwen2"):  # the Split regex of those models' tokenizer.json files
        (source,) = pretokenizer_preset(name).hf_spellings
    elif name == "r50k_base":
        source = public.r50k_pat_str
    elif name == "paper":
        source = public.r50k_pat_str.replace(r" ?\p{N}++", r"\p{N}")
        assert source != public.r50k_pat_str
    else:
        source = tiktoken_encoding(name)._pat_str
    return regex.compile(source)


@functools.cache
def plain(name: str) -> re.Pattern:
    return re.compile(rewrite.plain_pattern(name))


@functools.cache
def skewed_code_points() -> frozenset[str]:
    """Code points whose properties differ between lbpe's pinned Unicode and ``regex``'s."""
    text = "".join(chr(cp) for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp <= 0xDFFF)
    white_space = set(re.findall("[" + WHITE_SPACE + "]", text))
    skewed: set[str] = set(regex.findall(r"\s", text)) ^ white_space
    for prop in ("L", "N", "M", "Lu", "Ll", "Lt", "Lm", "Lo"):
        ours = {ch for ch in text if category(ch).startswith(prop)}
        skewed |= set(regex.findall(r"\p{%s}" % prop, text)) ^ ours
    return frozenset(skewed)


def assert_splits_like_reference(name: str, text: str) -> None:
    expected = reference(name).findall(text)
    compiled = compile_pattern(name)
    assert compiled.findall(text) == expected
    assert compiled.regex.findall(text) == expected
    if compiled_module._bmp_only(text):  # findall only uses it for ASCII or longer text
        assert compiled._bmp.findall(text) == expected
    assert [m.span() for m in compiled.finditer(text)] == [m.span() for m in reference(name).finditer(text)]


def assert_splits_like_plain(name: str, text: str) -> None:
    expected = plain(name).findall(text)
    compiled = compile_pattern(name)
    assert compiled.regex.findall(text) == expected
    assert compiled.findall(text) == expected
    if compiled_module._bmp_only(text):
        assert compiled._bmp.findall(text) == expected
        assert [m.span() for m in compiled._bmp.finditer(text)] == [m.span() for m in plain(name).finditer(text)]
    assert [m.span() for m in compiled.finditer(text)] == [m.span() for m in plain(name).finditer(text)]


# ---- real text -----------------------------------------------------------------------------


@pytest.mark.slow(reason="megabytes against regex")
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_real_text_equals_reference_and_plain(name):
    for text in (
        data_file("text/moby_dick.txt").read_text("utf-8"),
        data_file("text/multilingual.txt").read_text("utf-8"),
        data_file("text/code.txt").read_text("utf-8"),
    ):
        pieces = split_text(text, name)
        assert "".join(pieces) == text
        assert_splits_like_reference(name, text)
        assert_splits_like_plain(name, text)


@pytest.mark.slow(reason="5 MB against regex")
@pytest.mark.parametrize("name", PRESET_NAMES)
def test_5mb_english_equals_reference(name):
    text = english_text(5 * MB)
    assert compile_pattern(name).findall(text) == reference(name).findall(text)


def test_real_text_takes_both_paths():
    # Moby-Dick has no astral characters, the multilingual file has emoji.
    assert compiled_module._bmp_only(data_file("text/moby_dick.txt").read_text("utf-8"))
    assert not compiled_module._bmp_only(data_file("text/multilingual.txt").read_text("utf-8"))


# ---- generated text ------------------------------------------------------------------------

# Every code point (those unassigned in the running Python's Unicode included), minus those
# ``regex`` sees differently (see the module docstring). Surrogates are excluded by hypothesis
# by default.
assigned_text = st.deferred(
    lambda: st.text(
        st.characters(exclude_categories=(), exclude_characters="".join(sorted(skewed_code_points()))),
        max_size=40,
    )
)

ALPHABET = (
    " \t\r\n\x0b\x0c\x85\xa0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000"  # White_Space
    "\x1c\x1d\x1e\x1f\u200b\u180e\ufeff\u00ad\u200d\ufe0f"  # not White_Space
    "'sSldmtvreLDMTVREkK\u017f\u212a"  # contractions, case variants, LONG S, KELVIN SIGN
    "aZ\u00e9\u00c9\u01c5\u02b0\u4e00\uac00\u0295"  # Ll, Lu, Lt, Lm, Lo
    "\U00010400\U00010428\U0001d400\U0001d41a\U00020000\U0001e900\U00016f93"  # astral letters
    "09\u0660\u2160\u00bd\u00b2\U0001d7ce\U0001f100\U00010107\U0001fbf0"  # digits, Nl, No
    "\u0301\u0300\u0903\u20dd\U0001d165\U000e0100"  # combining marks, incl. astral
    '.,!?-_/\\()"#%&*+<=>@[]^`{|}~\u2014\u00a9'  # punctuation and symbols
    "\U0001f600\U0001f3fb\U0001f1fa\U000e0001\U000f0000\U0010fffd"  # emoji, tags, private use
)
targeted_text = st.text(st.sampled_from(ALPHABET), max_size=40)


@pytest.mark.slow(reason="many generated texts per pattern")
@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=assigned_text)
def test_hypothesis_unicode_equals_reference(name, text):
    assert_splits_like_reference(name, text)


@pytest.mark.slow(reason="many generated texts per pattern")
@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=3000, deadline=None)
@given(text=targeted_text)
def test_hypothesis_targeted_equals_reference(name, text):
    assert_splits_like_plain(name, text)
    if not any(ch in skewed_code_points() for ch in text):  # U+0295 is in the alphabet
        assert_splits_like_reference(name, text)


@pytest.mark.slow(reason="long generated texts")
@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=300, deadline=None)
@given(
    text=st.one_of(
        st.text(st.sampled_from(ALPHABET), min_size=300, max_size=800),
        st.text(st.sampled_from([ch for ch in ALPHABET if ch <= "\uffff"]), min_size=300, max_size=800),
    )
)
def test_hypothesis_long_text_equals_reference(name, text):
    # Long enough for findall to choose its source by content (short non-ASCII text always
    # gets the full one).
    assert_splits_like_plain(name, text)
    if not any(ch in skewed_code_points() for ch in text):
        assert_splits_like_reference(name, text)


@pytest.mark.slow(reason="every code point, every pattern")
@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=1500, deadline=None)
@given(text=st.text(st.characters(exclude_categories=()), max_size=40))
def test_hypothesis_every_code_point_equals_plain(name, text):
    # Every code point, unassigned ones and lone surrogates included: the rewrite against the
    # plain translation, which uses the same Unicode data.
    assert_splits_like_plain(name, text)


@pytest.mark.slow(reason="many generated texts per pattern")
@pytest.mark.parametrize("name", PRESET_NAMES)
@settings(max_examples=1000, deadline=None)
@given(text=st.text(st.characters(max_codepoint=0xFFFF), max_size=40))
def test_hypothesis_bmp_text_equals_reference(name, text):
    # Text the astral-free source handles.
    assert text == "" or compiled_module._bmp_only(text)
    if any(ch in skewed_code_points() for ch in text):
        return
    assert_splits_like_reference(name, text)


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.characters(exclude_categories=()), max_size=30))
def test_bmp_only_check(text):
    expected = all(ord(ch) <= 0xFFFF for ch in text)
    assert compiled_module._bmp_only(text) == expected
    saved = compiled_module._CHUNK
    compiled_module._CHUNK = 3  # several chunks per text
    try:
        assert compiled_module._bmp_only(text) == expected
    finally:
        compiled_module._CHUNK = saved


# ---- the edge cases the translation has to get right ---------------------------------------

EDGE_CASES = [
    "",
    " ",
    "a",
    "a  ",  # white space at the very end: one piece
    "a  b",  # ... before a word: the last space joins the word
    "a  \n",
    "a \n\n",
    "a\n",
    "a  \nb",
    "\n",
    "\r\n",
    "a\r\n\r\n  b",
    "x \r\n \r\n",
    "  \t\n  ",
    "a\x1c b\x1d\x1e\x1f",  # U+001C..U+001F are not white space
    "\x1c \x1c  \x1c",
    "a\x85b \x85 \xa0c\u2028d\u3000 e\u3000",
    "it's I'LL we'Ve they'RE he'D I'M don'T",
    "it'\u017f IT'\u017f '\u017f 's 'S 'x",  # LONG S folds to s in the case-insensitive presets
    "'ll'LL'Ll'lL've're'd'm't",
    "HELLO'S Hello'LL hello'd",
    "1 12 123 1234 12345 \U0001d7ce\U0001d7cf\U0001d7d0\U0001d7d1 \u0661\u0662",
    "a/b//c\n//\r\n/ /",
    "\U00010400\U00010428 \U0001d400bc x\U0001d41a\U0001d400",
    "e\u0301 \u0301e \u0301\u0301 A\u0301B",
    "\U0001f600\U0001f3fb\U0001f600 \U0001f600a a\U0001f600",
    "\u01c5a \u02b0a A\u02b0 \u4e00\u4e00a",
]


@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("text", EDGE_CASES)
def test_edge_cases(name, text):
    assert_splits_like_reference(name, text)
    assert_splits_like_plain(name, text)


def test_end_of_text_is_backslash_z():
    # tiktoken's "\s++$" only matches white space that runs to the very end of the text.
    assert split_text("a  ", "r50k_base") == ["a", "  "]
    assert split_text("a  b", "r50k_base") == ["a", " ", " b"]
    assert split_text("a  \n", "r50k_base") == ["a", "  \n"]
    assert split_text("a \n", "r50k_base") == ["a", " \n"]
    assert split_text("a \nb", "r50k_base") == ["a", " ", "\n", "b"]
    assert split_text("a  \nb", "cl100k_base") == ["a", "  \n", "b"]
    assert split_text("a\x1c b", "r50k_base") == ["a", "\x1c", " b"]
    assert split_text("", "o200k_base") == []


# ---- long runs: no catastrophic backtracking (correctness asserted, not timing) ------------

LONG_RUNS = [
    " " * 100_000,
    " " * 100_000 + "x",
    "a" * 100_000,
    "A" * 100_000,
    "!" * 100_000,
    "\u4e00" * 50_000,
    "1" * 100_000,
    "\n" * 50_000 + " " * 50_000,
    "\U00010400" * 50_000,  # astral letters: the mixed-run path
    "a\U0001d400" * 50_000,
    "\U0001f600" * 50_000,
    "A" * 50_000 + "\u0301" * 50_000,
]


@pytest.mark.parametrize("name", PRESET_NAMES)
@pytest.mark.parametrize("index", range(len(LONG_RUNS)))
def test_long_runs(name, index):
    text = LONG_RUNS[index]
    assert_splits_like_reference(name, text)


# ---- the interface -------------------------------------------------------------------------


def test_compile_pattern_interface():
    compiled = compile_pattern("cl100k_base")
    assert isinstance(compiled, PresetPattern)
    assert compile_pattern("cl100k_base") is compiled
    assert compile_pattern("gpt2") is compile_pattern("r50k_base") is compile_pattern("p50k_base")
    assert isinstance(compiled.regex, re.Pattern)
    assert compiled.pattern == preset_pattern("cl100k_base") == compiled.regex.pattern
    assert compiled.search("ab cd").group() == "ab"
    assert compiled.sub("|", "ab cd") == "||"
    text = "Hello world's 2024!\n"
    assert compiled.findall(text, 5) == compiled.regex.findall(text, 5)
    assert compiled.findall(text, 5, 12) == compiled.regex.findall(text, 5, 12)
    assert [m.span() for m in compiled.finditer(text, 3, 9)] == [m.span() for m in compiled.regex.finditer(text, 3, 9)]
    assert pickle.loads(pickle.dumps(compiled)) is compiled
    # Which compiled source findall uses (both give the same pieces).
    assert compiled._engine("ab") is compiled._bmp
    assert compiled._engine("\u00e9" * 300) is compiled._bmp
    assert compiled._engine("\u00e9" * 300 + "\U0001f600") is compiled.regex
    assert compiled._engine("\u00e9") is compiled.regex
    assert repr(compiled) == "PresetPattern('cl100k_base')"
    with pytest.raises(TypeError):
        compiled.findall(b"bytes")
    with pytest.raises(ValueError, match="unknown pre-tokenizer pattern 'gpt5'"):
        compile_pattern("gpt5")
    with pytest.raises(ValueError, match="unknown pre-tokenizer pattern"):
        preset_pattern("gpt5")


def test_resolve_pattern():
    compiled = compile_pattern("o200k_base")
    assert resolve_pattern("o200k_base") is compiled
    assert resolve_pattern(compiled) is compiled
    custom = re.compile(r"\w+|\W")
    assert resolve_pattern(custom) is custom
    assert split_text("ab, c", custom) == ["ab", ",", " ", "c"]
    assert split_text("ab, c", compiled) == ["ab", ",", " c"]
    with pytest.raises(TypeError):
        resolve_pattern(42)


def test_presets_and_aliases_unchanged():
    assert set(PRETOKENIZER_PRESETS) == {"r50k_base", "cl100k_base", "o200k_base", "paper", "llama3", "qwen2"}
    aliases = {alias: p.name for p in PRETOKENIZER_PRESETS.values() for alias in p.aliases}
    assert aliases == {"gpt2": "r50k_base", "p50k_base": "r50k_base"}
    assert all(pretokenizer_preset(alias).name == name for alias, name in aliases.items())
    with pytest.raises(ValueError, match="unknown pre-tokenizer pattern 'gpt3'; choose one of: cl100k_base, gpt2, "):
        pretokenizer_preset("gpt3")
    for name in PRESET_NAMES:
        re.compile(rewrite.plain_pattern(name))
        assert preset_pattern(name) == compile_pattern(name).regex.pattern


def test_white_space_ranges_match_the_class_text():
    bmp = "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, 0x10000)))
    in_class = re.findall("[" + WHITE_SPACE + "]", bmp)
    in_ranges = [chr(cp) for lo, hi in WHITE_SPACE_RANGES for cp in range(lo, hi + 1)]
    assert in_class == in_ranges
    assert in_class == regex.findall(r"\s", bmp)  # Unicode White_Space, as in tiktoken


def test_patterns_need_no_possessive_quantifiers_or_atomic_groups():
    # They must compile on Python 3.10, whose re has neither.
    for name in PRESET_NAMES:
        for source in (rewrite.preset_source(name, True), rewrite.preset_source(name, False)):
            assert "(?>" not in source
            assert not re.search(r"(?<!\\)[*+?}]\+", source)


# ---- Unicode version skew ------------------------------------------------------------------


@pytest.mark.slow(reason="every code point, every pattern")
def test_unicode_version_skew_is_small():
    # Against regex's Unicode 17.0: what 17.0 assigned, and among the code points 16.0 had
    # assigned only a handful of category changes, not a broken translation.
    skewed = skewed_code_points()
    changed = sorted(f"U+{ord(ch):04X}" for ch in skewed if category(ch) != "Cn")
    assert len(changed) <= 16, changed
    assert all(regex.match(r"\p{Cn}", ch) is None for ch in skewed if category(ch) == "Cn")


def test_unicode_version_skew_is_documented():
    # U+0295 is Ll up to Unicode 16.0 (lbpe's pin, tiktoken's) and Lo since 17.0 (regex's):
    # o200k puts Lo in its upper-case-like class, so 17.0 would join it with a following "Ab".
    text = "\u0295Ab"
    assert category("\u0295") == "Ll"
    assert split_text(text, "o200k_base") == plain("o200k_base").findall(text) == ["\u0295", "Ab"]
    assert "\u0295" in skewed_code_points()
    assert reference("o200k_base").findall(text) == ["\u0295Ab"]


@pytest.mark.slow(reason="megabytes per spelling")
@pytest.mark.parametrize("onig", sorted(s for p in PRETOKENIZER_PRESETS.values() for s in p.hf_spellings))
def test_tokenizer_json_spellings_equal_their_presets(onig):
    """Each Oniguruma Split regex that lbpe.formats.hf maps to a preset splits like it."""
    name = preset_of_hf_regex(onig).name
    ref = regex.compile(onig)
    for text in (
        english_text(1 * MB)[: 1 * MB],
        data_file("text/multilingual_words.txt").read_text("utf-8"),
        data_file("text/code_more.txt").read_text("utf-8"),
    ):
        assert compile_pattern(name).findall(text) == ref.findall(text)
        # the pattern covers every character, so HF's Isolated split has no gaps
        assert "".join(ref.findall(text)) == text


def test_openai_encodings_carry_their_special_tokens():
    # What the name of a .tiktoken rank file selects: the preset and the special tokens.
    fim = {"<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260}
    expected = {
        "gpt2": ("r50k_base", {"<|endoftext|>": 50256}),
        "r50k_base": ("r50k_base", {"<|endoftext|>": 50256}),
        "p50k_base": ("r50k_base", {"<|endoftext|>": 50256}),
        "cl100k_base": ("cl100k_base", {"<|endoftext|>": 100257, **fim, "<|endofprompt|>": 100276}),
        "o200k_base": ("o200k_base", {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
    }
    assert openai_encoding_names() == sorted(expected)
    for name, (preset, special) in expected.items():
        found = openai_encoding(name)
        assert (found.name, dict(found.special_tokens)) == (preset, special)
    assert openai_encoding("paper") is None and openai_encoding("llama3") is None and openai_encoding("x") is None


def test_every_hf_regex_written_is_one_preset_and_spellings_are_unambiguous():
    written = {p.name: p.hf_regex for p in PRETOKENIZER_PRESETS.values() if p.hf_regex is not None}
    assert sorted(written) == ["cl100k_base", "o200k_base", "paper", "r50k_base"]
    spellings = [s for p in PRETOKENIZER_PRESETS.values() for s in p.hf_spellings]
    assert len(spellings) == len(set(spellings)) == 5
    assert all(preset_of_hf_regex(s) is not None for s in spellings)
    assert preset_of_hf_regex(r"\s+") is None
