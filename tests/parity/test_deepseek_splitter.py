"""DeepSeek-V3's pre-tokeniser (a Sequence of three Split regexes and a ByteLevel without regex)
split by the compiled extension must give exactly the pieces of HF's semantics.

References: the ``regex`` module running the file's three Oniguruma regexes one after another,
each on every piece of the step before with Isolated behaviour (HF's ``Split``: a piece's end
is the end of the string for the pattern), and the pure path's own Sequence of translated
regexes (``lbpe.pretokenize.onig``), which uses lbpe's pinned Unicode 16.0 as the compiled
path does and so is compared on *every* code point, lone surrogates included. ``regex``
2026.5.9 has Unicode 17.0: the code points whose properties differ between the two are found at
test time and left out of the text compared with ``regex``. Ids are compared with HF
``tokenizers`` on the real texts of the data cache, on both encoding paths.
"""

from __future__ import annotations

import functools
import json
import re
import sys

import pytest
import regex

import lbpe
from lbpe import native
from lbpe.pretokenize.classes import WHITE_SPACE
from lbpe.unicode import category
from tests.support.data import data_file

FILE = "hf/deepseek_v3/tokenizer.json"
CJK = "\u4e00\u9fa5\u3040\u309f\u30a0\u30ff"  # the ends of the file's three CJK ranges

compiled_only = pytest.mark.skipif(not lbpe.backend().compiled_available, reason="the extension is not built")


@functools.cache
def file_regexes() -> list[str]:
    """The three Split regexes, as the file spells them (Oniguruma)."""
    steps = json.loads(data_file(FILE).read_text("utf-8"))["pre_tokenizer"]["pretokenizers"]
    assert [s["type"] for s in steps] == ["Split", "Split", "Split", "ByteLevel"]
    assert all(s["behavior"] == "Isolated" and not s["invert"] for s in steps[:3])
    assert steps[3]["use_regex"] is False and steps[3]["add_prefix_space"] is False
    return [s["pattern"]["Regex"] for s in steps[:3]]


@functools.cache
def compiled_regexes() -> list[regex.Pattern]:
    return [regex.compile(r) for r in file_regexes()]


def reference(text: str) -> list[str]:
    """HF's Sequence of Isolated splits, with the ``regex`` module."""
    pieces = [text] if text else []
    for pattern in compiled_regexes():
        out = []
        for piece in pieces:
            pos = 0
            for m in pattern.finditer(piece):
                s, e = m.span()
                if s == e:
                    continue
                if s > pos:
                    out.append(piece[pos:s])
                out.append(piece[s:e])
                pos = e
            if pos < len(piece):
                out.append(piece[pos:])
        pieces = out
    return pieces


@functools.cache
def tokenizer() -> lbpe.Tokenizer:
    return lbpe.load(data_file(FILE))


def pure_split(text: str) -> list[str]:
    return tokenizer()._splitter.findall(text)


@functools.cache
def every_code_point() -> str:
    return "".join(chr(cp) for cp in range(sys.maxunicode + 1))


@functools.cache
def skewed_code_points() -> frozenset[str]:
    """Code points whose classes (as the three regexes use them) differ between lbpe's pinned
    Unicode and ``regex``'s."""
    text = "".join(ch for ch in every_code_point() if not 0xD800 <= ord(ch) <= 0xDFFF)
    skewed: set[str] = set(regex.findall(r"\s", text)) ^ set(re.findall("[" + WHITE_SPACE + "]", text))
    for prop in ("L", "N", "M", "P", "S"):
        ours = {ch for ch in text if category(ch).startswith(prop)}
        skewed |= set(regex.findall(r"\p{%s}" % prop, text)) ^ ours
    return frozenset(skewed)


#: The contexts every code point is split in: alone, after a space, between letters, before a
#: line end, among digits, at CJK boundaries, after punctuation, before letters and spaces.
CONTEXTS = (
    "{}",
    " {}",
    "a{}b",
    "{}\n",
    "12{}345",
    "\u4e00{}\u3042",
    "{}\u30a2",
    ".{}x",
    "{}a",
    "  {}  z",
    "\t{}\u0301",
    "\r\n{}!",
)


def context_text(context: str, code_points: str) -> str:
    return "".join(context.format(ch) for ch in code_points)


def first_difference(context: str, code_points: str, expected) -> str:
    """The first code point whose context alone the compiled splitter splits otherwise."""
    for ch in code_points:
        small = context.format(ch)
        if native.split(small, "deepseek_v3") != expected(small):
            return f"U+{ord(ch):04X} in {small!r}"
    return "only in the long text"


# ---- recognition ----------------------------------------------------------------------------


@compiled_only
def test_the_file_is_split_by_the_compiled_path():
    # the whole Sequence is recognised: the extension splits the text itself
    assert native.splitter_code(tokenizer()._splitter) is not None


# ---- every code point ----------------------------------------------------------------------


@compiled_only
@pytest.mark.slow(reason="every code point in a dozen contexts against regex")
@pytest.mark.parametrize("context", CONTEXTS)
def test_every_code_point_equals_regex(context):
    skewed = skewed_code_points()
    code_points = "".join(ch for ch in every_code_point() if ch not in skewed and not 0xD800 <= ord(ch) <= 0xDFFF)
    text = context_text(context, code_points)
    got = native.split(text, "deepseek_v3")
    assert "".join(got) == text
    assert got == reference(text), first_difference(context, code_points, reference)


@compiled_only
@pytest.mark.parametrize("context", CONTEXTS)
def test_other_code_points_equal_the_pure_path(context, monkeypatch):
    # those regex sees otherwise, and lone surrogates: against the pure path, which has the same
    # Unicode data (every 97th code point besides, as a check of the two on the rest); the pure
    # path's patterns run without their time limit (slow on text made of rare code points)
    monkeypatch.setenv("LBPE_REGEX_SECONDS", "0")
    code_points = "".join(sorted(skewed_code_points())) + "".join(
        ch for ch in every_code_point() if 0xD800 <= ord(ch) <= 0xDFFF or ord(ch) % 97 == 0
    )
    text = context_text(context, code_points)
    got = native.split(text, "deepseek_v3")
    assert "".join(got) == text
    assert got == pure_split(text), first_difference(context, code_points, pure_split)


EDGE_CASES = [
    "",
    "a",
    "12345678",
    "a  1",  # white space before a digit ends the piece: one run
    "a  b",
    "a \n\n b",
    "x \r\n \r\n",
    "\u4e00\u4e01 \u4e02",
    "\u3042\u309b\u3044\u30fb\u30a2\u30a0\u30fc",  # marks, symbols, punctuation inside a CJK run
    "\u3040\u3042 \u3097 \u3098\u3099",  # unassigned code points of the CJK ranges
    "don't .com ..abc .a\u00e9 'S",
    " ...\r\n\r\nfoo",
    "\x01\x02a\x03 \x04",
    "  \x01",
    "\u00a0\u0301 \u200b\u200ba",
    "\U0001f600\U0001f600 x",
    "a\u3000\u4e00\u3000b",
    "12\u4e00\u4e0034a\u30fc5",
]


@compiled_only
@pytest.mark.parametrize("text", EDGE_CASES)
def test_edge_cases(text):
    assert native.split(text, "deepseek_v3") == reference(text) == pure_split(text)


# ---- real text: pieces and ids --------------------------------------------------------------

REAL_TEXTS = ("text/moby_dick.txt", "text/multilingual.txt", "text/multilingual_words.txt", "text/code.txt")


@compiled_only
@pytest.mark.slow(reason="megabytes of real text against regex")
@pytest.mark.parametrize("name", REAL_TEXTS)
def test_real_text_pieces_equal_regex(name):
    text = data_file(name).read_text("utf-8")
    assert native.split(text, "deepseek_v3") == reference(text) == pure_split(text)


@functools.cache
def hf_tokenizer():
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(data_file(FILE)))


@pytest.mark.slow(reason="megabytes of real text with one of the largest vocabularies")
@pytest.mark.parametrize(
    ("mode", "path"),
    [
        ("bpe", "compiled"),
        ("bpe", "pure"),
        ("lbpe", "compiled"),  # LBPE compiled against LBPE pure (the pure one against itself would prove nothing)
    ],
)
@pytest.mark.parametrize("name", REAL_TEXTS)
def test_real_text_ids_equal_hf_and_both_paths_agree(name, mode, path, monkeypatch):
    monkeypatch.setenv("LBPE_REGEX_SECONDS", "0")  # the pure path on megabytes of a busy machine
    if path == "compiled" and not lbpe.backend().compiled_available:
        pytest.skip("the extension is not built")
    text = data_file(name).read_text("utf-8")
    before = native.backend().name
    native.use(path)
    try:
        tok = tokenizer()
        tok.clear_cache()
        got = tok.encode(text, mode=mode, disallowed_special=())
        if mode == "bpe":
            assert got == hf_tokenizer().encode(text, add_special_tokens=False).ids
        else:  # LBPE: the same on both paths (the compiled path splits in C, the pure one in Python)
            native.use("pure")
            tok.clear_cache()
            assert got == tok.encode(text, mode=mode, disallowed_special=())
    finally:
        native.use(before)
        tokenizer().clear_cache()
