"""HF tokenizers' pre-tokenizers that are no pattern (``Digits``, ``Punctuation``,
``WhitespaceSplit``), against HF itself on every code point: each is a test of one character
class, taken by HF from Rust's standard library (``char::is_numeric``, ``is_whitespace``) or
from the crate unicode_categories (``is_punctuation``), at their own Unicode versions."""

from __future__ import annotations

import re

import pytest

import lbpe
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


def _snake(behavior: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", behavior).lower()  # the Python binding's spelling


@pytest.mark.slow(reason="every code point through HF")
def test_digits_is_hf_on_every_code_point():
    """HF's Digits cuts at Rust's ``char::is_numeric``: every number (Nd, Nl, No), so "²",
    "½" and "Ⅻ" too, not decimal digits alone (the class; the settings below)."""
    from tokenizers import pre_tokenizers

    hf, ours = pre_tokenizers.Digits(individual_digits=True), sp.Digits(individual_digits=True)
    before_17 = len(hf.pre_tokenize_str("x\U00011de0")) == 1  # tokenizers 0.22: Rust's Unicode 16
    assert _differences(hf, ours) == (_UNICODE_17_NUMBERS if before_17 else [])


@pytest.mark.slow(reason="every code point through HF")
def test_punctuation_is_hf_on_every_code_point():
    """HF's Punctuation cuts at ASCII punctuation and at unicode_categories' ``is_punctuation``,
    whose tables are Unicode 8.0's: "؝" (U+061D, Po since 14.0) is a letter to it, and
    "᙭" (U+166D, So since 12.0) still punctuation (the class; the behaviors below)."""
    from tokenizers import pre_tokenizers

    hf, ours = pre_tokenizers.Punctuation("isolated"), sp.Punctuation(behavior="Isolated")
    assert _differences(hf, ours) == []
    assert [p[0] for p in ours.split("a\u061db\u166dc")] == ["a\u061db", "\u166d", "c"]


#: Runs of numbers and punctuation of several scripts, with letters and spaces between.
_MIXED = "x²½Ⅻ7 y.,!¡¿ «a» — 1,234.5 ٣٤ z؟؝ ᙭ “q” ...!? (a)[b]{c} 12³ §¶ ٫ end."


@pytest.mark.parametrize("individual", [True, False])
def test_digits_settings_are_hf(individual):
    from tokenizers import pre_tokenizers

    hf, ours = pre_tokenizers.Digits(individual_digits=individual), sp.Digits(individual_digits=individual)
    assert [tuple(p) for p in ours.split(_MIXED)] == [(p, a, b) for p, (a, b) in hf.pre_tokenize_str(_MIXED)]
    assert [p[0] for p in ours.split("x²½Ⅻ7y")] == (
        ["x", "²", "½", "Ⅻ", "7", "y"] if individual else ["x", "²½Ⅻ7", "y"]
    )


@pytest.mark.parametrize("behavior", ["Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous"])
def test_punctuation_behaviors_are_hf(behavior):
    from tokenizers import pre_tokenizers

    hf, ours = pre_tokenizers.Punctuation(_snake(behavior)), sp.Punctuation(behavior=behavior)
    assert [tuple(p) for p in ours.split(_MIXED)] == [(p, a, b) for p, (a, b) in hf.pre_tokenize_str(_MIXED)]


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


# ---- steps after ByteLevel: HF runs them on the byte-mapped text ----

_FALCON = {  # tiiuae/falcon-7b's pre_tokenizer
    "type": "Sequence",
    "pretokenizers": [
        {"type": "Punctuation", "behavior": "Contiguous"},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        {"type": "Digits", "individual_digits": False},
        {"type": "Split", "pattern": {"Regex": "[0-9][0-9][0-9]"}, "behavior": "Isolated", "invert": False},
    ],
}
_TEXT = "Привет, мир! x² ½ 1234567 — 你好，世界。 a\u061db [1, 22, 333]\n\tend"


def _with_pre_tokenizer(tmp_path, pre_tokenizer) -> str:
    import json

    from tests.support.data import data_file

    spec = json.loads(data_file("hf/llama3/tokenizer.json").read_text("utf-8"))
    spec["pre_tokenizer"] = pre_tokenizer
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), "utf-8")
    return str(path)


def test_a_step_that_cuts_inside_characters_after_byte_level_is_refused(tmp_path):
    """Falcon's Digits runs after ByteLevel, on the byte-mapped text, where the bytes B2, B3,
    B9, BC-BE read as numbers ("м" is D0 BC: "Ð", "¼"): its pieces end inside characters,
    which lbpe's text pieces cannot, so it is refused, saying why, rather than giving other ids."""
    from lbpe.errors import VocabFormatError

    path = _with_pre_tokenizer(tmp_path, _FALCON)
    with pytest.raises(VocabFormatError, match=r"Digits.*after ByteLevel.*byte-mapped"):
        lbpe.load(path)
    for step in (
        {"type": "Punctuation", "behavior": "Isolated"},
        {"type": "WhitespaceSplit"},
        {"type": "Split", "pattern": {"String": " "}, "behavior": "Isolated", "invert": False},
        {"type": "Split", "pattern": {"Regex": "\\p{L}+"}, "behavior": "Isolated", "invert": False},
        # Oniguruma's \d is every decimal digit ("۱"); patterns that match empty text cut everywhere
        *(
            {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False}
            for regex in ("\\d", "a?", "[0-9]*", "|", "(|z)", "[0-9]{0}", "a{0,2}")
        ),
    ):
        spec = {"type": "Sequence", "pretokenizers": [{"type": "ByteLevel", "use_regex": True}, step]}
        with pytest.raises(VocabFormatError, match="after ByteLevel"):
            lbpe.load(_with_pre_tokenizer(tmp_path, spec))


@pytest.mark.parametrize("pattern", [{"Regex": "[0-9][0-9][0-9]"}, {"Regex": "[0-9]{1,3}"}, {"String": "::"}])
def test_a_step_the_byte_mapping_does_not_change_is_kept(tmp_path, pattern):
    """A Split that matches printable ASCII only (which the mapping keeps) cuts the mapped text
    where it cuts the text: such files load and give HF's ids."""
    from tokenizers import Tokenizer

    spec = {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Punctuation", "behavior": "Contiguous"},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
            {"type": "Split", "pattern": pattern, "behavior": "Isolated", "invert": False},
        ],
    }
    path = _with_pre_tokenizer(tmp_path, spec)
    text = _TEXT + " a::b 9::9"
    assert (
        lbpe.load(path).encode(text, mode="bpe") == Tokenizer.from_file(path).encode(text, add_special_tokens=False).ids
    )


# ---- Metaspace's prepend_scheme "first", and empty texts ----

_METASPACE_TEXTS = ["<s>Hello", "Hello <s> world", "", "  ", "a b", " a b", "<s>", "<s> x</s>y", "Hi\n<s>\nthere"]


@pytest.mark.parametrize(
    "pre_tokenizer",
    [
        {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": False},
        {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": True},
        {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True},
        {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "WhitespaceSplit"},
                {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": True},
            ],
        },
    ],
)
def test_metaspace_prefixes_only_the_start_of_the_text(tmp_path, pre_tokenizer):
    """HF's Metaspace with prepend_scheme "first" puts ``▁`` before the piece at the text's
    start alone: not after a special token, not before a later word another step split off
    (Mistral's and Llama 2's newer files); an empty text, or one a step leaves empty, has no
    piece to put it before."""
    import json

    from tokenizers import Tokenizer

    from tests.support.data import data_file

    spec = json.loads(data_file("hf/mistral_v0.1/tokenizer.json").read_text("utf-8"))
    spec["normalizer"], spec["pre_tokenizer"] = None, pre_tokenizer
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), "utf-8")
    hf, ours = Tokenizer.from_file(str(path)), lbpe.load(path)
    for text in _METASPACE_TEXTS:
        want = hf.encode(text, add_special_tokens=False).ids
        assert ours.encode(text, mode="bpe", allowed_special="all") == want, text
        assert list(ours.encode_to_array(text, mode="bpe", allowed_special="all")) == want, text
        assert [s.id for s in ours.segment(text, mode="bpe", allowed_special="all")] == want, text
    assert ours.encode_batch(_METASPACE_TEXTS, mode="bpe", allowed_special="all") == [
        hf.encode(t, add_special_tokens=False).ids for t in _METASPACE_TEXTS
    ]


def test_metaspace_first_in_every_view_of_the_ids(tmp_path):
    """Every path that encodes the text after a special token leaves Metaspace's "first"
    prefix out there, as ``encode`` and HF do: explain (whole text and a span), the method pair's
    steps, a lone surrogate's second encoding, and the transformers bridge."""
    import json
    import shutil

    from tokenizers import Tokenizer

    from lbpe.analysis.explain import explain, explain_span
    from lbpe.analysis.pair_steps import explain_pair, explain_pair_span
    from tests.support.data import data_file

    spec = json.loads(data_file("hf/mistral_v0.1/tokenizer.json").read_text("utf-8"))
    spec["normalizer"] = None
    spec["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first", "split": False}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), "utf-8")
    hf, tok = Tokenizer.from_file(str(path)), lbpe.load(path)
    text = "<s>Hello world</s>Again"
    want = hf.encode(text, add_special_tokens=False).ids
    assert [i for p in explain(tok, text).pieces for i in p.bpe_ids] == want
    assert [i for p in explain_span(tok, text, 18, 23, specials=True).pieces for i in p.bpe_ids] == want[-2:]
    assert [i for p in explain_pair(tok, text, ["bpe", "lbpe"]).pieces for i in p.sides[0].ids] == want
    span = explain_pair_span(tok, text, 18, 23, ["bpe", "lbpe"], specials=True)
    assert [i for p in span.pieces for i in p.sides[0].ids] == want[-2:]
    lone = hf.encode("<s>Hi\ufffd", add_special_tokens=False).ids
    assert tok.encode("<s>Hi\ud800", mode="bpe", allowed_special="all") == lone
    from lbpe.hf import LBPETokenizer

    folder = tmp_path / "model"
    folder.mkdir()
    shutil.copy(path, folder / "tokenizer.json")
    bridge = LBPETokenizer.from_pretrained(str(folder), mode="lbpe")
    lbpe_ids = tok.encode(text, mode="lbpe", allowed_special="all")
    assert bridge(text, add_special_tokens=False)["input_ids"] == lbpe_ids
    assert bridge([text], add_special_tokens=False, return_tensors="np")["input_ids"].tolist() == [lbpe_ids]


def test_byte_level_prefix_space_adds_nothing_to_an_empty_text(tmp_path):
    from tokenizers import Tokenizer

    spec = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
    path = _with_pre_tokenizer(tmp_path, spec)
    hf, ours = Tokenizer.from_file(path), lbpe.load(path)
    for text in ["", "a", "<|begin_of_text|>", "<|begin_of_text|>x"]:
        assert ours.encode(text, mode="bpe", allowed_special="all") == hf.encode(text, add_special_tokens=False).ids


def test_added_tokens_matched_after_the_normaliser_are_refused(tmp_path):
    """HF matches an added token with ``"normalized": true`` in the normalised text (with a
    Lowercase normaliser, "AB" is the token "ab"); lbpe matches added tokens in the text as
    given, so such a file with a normaliser is refused, saying what to change, and one without
    a normaliser (DeepSeek-V3's: its normaliser does nothing) keeps HF's ids."""
    import json

    from tokenizers import Tokenizer

    from lbpe.errors import VocabFormatError
    from tests.support.data import data_file

    spec = json.loads(data_file("hf/llama3/tokenizer.json").read_text("utf-8"))
    spec["added_tokens"].append(
        {
            "id": 128256,
            "content": "<tag>",
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": True,
            "special": False,
        }
    )
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), "utf-8")
    text = "a <tag> b <TAG>"
    assert (
        lbpe.load(path).encode(text, mode="bpe")
        == Tokenizer.from_file(str(path)).encode(text, add_special_tokens=False).ids
    )
    spec["normalizer"] = {"type": "Lowercase"}
    path.write_text(json.dumps(spec), "utf-8")
    with pytest.raises(VocabFormatError, match=r"'<tag>'.*normalized.*\"normalized\": false"):
        lbpe.load(path)


# ---- Split: every behavior, inverted or not, with patterns that match empty text ----

_SPLIT_PATTERNS = ["x*", "\\s*", "a?", "$", "^", "\\Z", " ", "a+", "(?=b)", "b|", "\\d{0,2}"]
_SPLIT_TEXTS = ["ab", "a  b", "aab b\nab", "", " ", "xax", "12b34 ", "b\n\nb"]


@pytest.mark.parametrize("invert", [False, True])
@pytest.mark.parametrize("behavior", ["Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous"])
def test_split_is_hf_with_empty_matches_and_invert(behavior, invert):
    """HF cuts at an empty match (but not at one right after a match, as Oniguruma iterates),
    and Contiguous joins neighbouring spans of the same kind, also those that invert makes."""
    import tokenizers

    from lbpe.pretokenize.onig import translate_regex

    snake = _snake(behavior)
    wrong = []
    for pattern in _SPLIT_PATTERNS:
        hf = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), snake, invert=invert)
        ours = sp.Split(translate_regex(pattern), behavior, invert=invert)
        for text in _SPLIT_TEXTS:
            want = [(p, a, b) for p, (a, b) in hf.pre_tokenize_str(text)]
            if [tuple(p) for p in ours.split(text)] != want:
                wrong.append((pattern, text, want))
    assert wrong == []


def test_replace_with_a_pattern_is_hf():
    """HF's Replace (normaliser and decoder) reads ``^`` and ``$`` at every line, as
    Oniguruma does, and replaces an empty match as its Split cuts at one."""
    import tokenizers

    from lbpe.decoders import Replace as ReplaceStep
    from lbpe.normalize import Replace
    from lbpe.pretokenize.onig import translate_regex
    from lbpe.user_regex import UserRegex

    wrong = []
    for pattern in ["^", "$", "^a", "a$", "a*", "x*", "\\s*", "b|", " +", "(?=b)"]:
        hf = tokenizers.normalizers.Replace(tokenizers.Regex(pattern), "X")
        ours = Replace(translate_regex(pattern), "X", regex=True)
        hf_step = tokenizers.decoders.Replace(tokenizers.Regex(pattern), "X")
        step = ReplaceStep(UserRegex(translate_regex(pattern), re.MULTILINE), "X")
        for text in ["a\nb", "aa", "aab\n\nab  b", "", " ", "ba"]:
            want = hf.normalize_str(text)
            out, origin = ours.aligned(text)
            if ours(text) != want or out != want or len(origin) != len(out):
                wrong.append(("normalizer", pattern, text, want))
            if text and "".join(step([text])) != hf_step.decode([text]):
                wrong.append(("decoder", pattern, text, hf_step.decode([text])))
    assert wrong == []


def test_oniguruma_spellings_split_as_hf():
    """Oniguruma (Ruby syntax) reads ``\\pL`` as the letters "pL" and ``(?m)`` as "a dot
    matches a line end" (Python's ``(?s)``); it has no ``(?s)``, which lbpe refuses too."""
    import tokenizers

    from lbpe.pretokenize.onig import UnsupportedRegex, translate_regex

    for pattern in ["\\pL", "\\PL+", "(?m:.)+", "(?m).+", "a(?m:.)", "(?i:'S|'t)", "(?x) a | b"]:
        hf = tokenizers.pre_tokenizers.Split(tokenizers.Regex(pattern), "isolated")
        ours = sp.Split(translate_regex(pattern), "Isolated")
        for text in ["ab pL PLL", "a\nb\n", "It'S a b", "a\n\n"]:
            assert [tuple(p) for p in ours.split(text)] == [(p, a, b) for p, (a, b) in hf.pre_tokenize_str(text)], (
                pattern,
                text,
            )
    with pytest.raises(UnsupportedRegex, match="options are i, m and x"):
        translate_regex("(?s:.)+")


@pytest.mark.parametrize("scheme", ["always", "first", "never"])
def test_metaspace_decoder_is_hf(scheme):
    """HF's Metaspace decoder drops every ``▁`` of the first token (with a prefix scheme) and
    makes the others spaces; a space that was a space stays."""
    import tokenizers

    from lbpe.decoders import Metaspace

    hf = tokenizers.decoders.Metaspace(replacement="\u2581", prepend_scheme=scheme)
    ours = Metaspace("\u2581", strip_first=scheme != "never")
    for tokens in (["\u2581a\u2581"], [" ", "a"], ["\u2581a", "\u2581b"], ["a\u2581\u2581b", " c\u2581"], [""]):
        assert "".join(ours(tokens)) == hf.decode(tokens), tokens
