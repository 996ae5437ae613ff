"""Work steered by a vocabulary file stays bounded. Regular expressions from the file run under a
time limit (lbpe.user_regex): polynomial patterns in a real tokenizer.json give a clear error in
seconds instead of holding the process for hours, one allowance is shared by a pipeline's steps,
and the ``regex`` engine splits exactly like the standard library's ``re`` (which the browser
page uses). Added tokens are found through a trie (lbpe.literals.literal_trie_pattern)."""

from __future__ import annotations

import json
import pickle
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lbpe
from lbpe import native, user_regex
from lbpe.errors import LbpeError
from lbpe.literals import TRIE_PATTERN_MAX, Literals, literal_trie_pattern
from lbpe.user_regex import RegexTimeoutError, UserRegex
from tests.support.data import data_file, english_text
from tests.support.hostile import CHARS, POLYNOMIAL, hostile_tokenizer_json


def load_hostile(tmp_path, pattern: str, **kw) -> lbpe.Tokenizer:
    path = tmp_path / "tokenizer.json"
    path.write_bytes(hostile_tokenizer_json(pattern, **kw))
    return lbpe.load(path)


def test_the_time_limit_is_on_here():
    assert user_regex.engine() == "regex"  # a test dependency, and in the app's extra


@pytest.mark.slow(reason="each waits out a time limit")
@pytest.mark.parametrize("name", list(POLYNOMIAL))
def test_polynomial_split_patterns_stop_with_a_clear_error(tmp_path, name):
    pattern, char = POLYNOMIAL[name]
    tok = load_hostile(tmp_path, pattern)
    started = time.monotonic()
    with pytest.raises(RegexTimeoutError) as err:
        tok.encode(char * CHARS, mode="lbpe")
    elapsed = time.monotonic() - started
    assert elapsed < 10, elapsed
    message = str(err.value)
    assert f"the Split pre-tokenizer's pattern `{pattern}`" in message  # as the file spells it
    assert "50,000 characters" in message and "LBPE_REGEX_SECONDS" in message
    # short text with the same pattern is fine: the limit is about time, not the pattern
    assert tok.decode(tok.encode(char * 50, mode="bpe")) == char * 50


@pytest.mark.slow(reason="waits out a time limit")
def test_a_polynomial_replace_normalizer_stops_too(tmp_path):
    pattern, char = POLYNOMIAL["cubic adjacent stars"]
    tok = load_hostile(tmp_path, pattern, where="normalizer")
    with pytest.raises(RegexTimeoutError, match="the Replace normalizer's pattern"):
        tok.encode(char * CHARS, mode="bpe")
    with pytest.raises(RegexTimeoutError):
        tok.segment(char * CHARS, mode="bpe")  # the display path


def test_the_allowance_follows_the_environment(tmp_path, monkeypatch):
    tok = load_hostile(tmp_path, POLYNOMIAL["quartic adjacent stars"][0])
    monkeypatch.setenv("LBPE_REGEX_SECONDS", "0.25")
    started = time.monotonic()
    with pytest.raises(RegexTimeoutError, match=r"now 0.25 s per MiB"):
        tok.encode("\t" * CHARS, mode="bpe")
    assert time.monotonic() - started < 1.5


@pytest.mark.slow(reason="waits out a time limit")
def test_pieces_of_one_text_share_one_allowance(tmp_path):
    # Cut on "x" first, then a slow pattern on each of 20 runs of 1,000 tabs: about 1.2 s each
    # with regex, under the 2 s a call would get on its own; the 20 calls share one allowance.
    data = json.loads(hostile_tokenizer_json("x"))
    slow = {
        "type": "Split",
        "pattern": {"Regex": POLYNOMIAL["lazy quantifiers"][0]},
        "behavior": "Isolated",
        "invert": False,
    }
    data["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [{"type": "Split", "pattern": {"String": "x"}, "behavior": "Removed", "invert": False}, slow],
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    tok = lbpe.load(path)
    started = time.monotonic()
    with pytest.raises(RegexTimeoutError):
        tok.encode(("\t" * 1000 + "x") * 20, mode="bpe")
    assert time.monotonic() - started < 5


def test_only_the_patterns_own_time_counts(monkeypatch):
    # A text's allowance is for its patterns: the work around them (BPE on a slow path, a busy
    # machine, a server's other threads) must not use it up. Here 0.3 s pass between two quick
    # pattern calls inside one text's allowance of 0.2 s (2 s per MiB; the text counts as 0.1 MiB).
    assert user_regex.engine() == "regex"  # the engine that enforces the limit (a test dependency)
    monkeypatch.setenv("LBPE_REGEX_SECONDS", "2")
    pattern = UserRegex(r"[^\W\d_]+|\s+", what="the test pattern")
    text = "plain words " * 5000
    with user_regex.deadline(len(text)):
        first = [m.group() for m in pattern.finditer(text)]
        time.sleep(0.3)
        second = [m.group() for m in pattern.finditer(text)]
    assert first == second == re.findall(r"[^\W\d_]+|\s+", text)


@pytest.mark.slow(reason="megabytes on two regex engines")
def test_regex_and_re_split_real_files_alike():
    # the page runs the same patterns on re: both engines must give the same ids
    text = english_text(300_000)[:300_000] + data_file("text/multilingual.txt").read_text("utf-8")[:100_000]
    tok = lbpe.load(data_file("hf/deepseek_v3/tokenizer.json"))
    before = native.backend().name
    native.use("pure")  # the compiled path splits this file in C, with neither engine
    try:
        with_regex = tok.encode(text, mode="bpe")
        user_regex._engine_override.append(None)
        try:
            assert user_regex.engine() == "re"
            tok.clear_cache()
            assert tok.encode(text, mode="bpe") == with_regex
            assert tok.encode(text, mode="lbpe") != with_regex
        finally:
            user_regex._engine_override.pop()
    finally:
        native.use(before)


def test_user_regex_pickles_and_matches_like_re():
    p = UserRegex(r"[a-z]+|\s+", what="the test pattern", shown=r"\p{Ll}+|\s+")
    q = pickle.loads(pickle.dumps(p))
    assert (q.pattern, q.what, q.shown) == (p.pattern, p.what, p.shown)
    assert [m.span() for m in q.finditer("ab  cd")] == [(0, 2), (2, 4), (4, 6)]
    assert q.findall("ab  cd") == ["ab", "  ", "cd"]
    assert q.sub(lambda m: "-", "ab cd") == "-----"[:3]


# ---- added tokens: matched by a trie, not by a plain alternation -----------------------------


@settings(max_examples=400, deadline=None)
@given(
    strings=st.sets(st.text(alphabet="ab<>]\\-^|.", min_size=1, max_size=8), min_size=1, max_size=12),
    text=st.text(alphabet="ab<>]\\-^|.x", max_size=80),
)
def test_trie_pattern_matches_like_the_longest_first_alternation(strings, text):
    plain = re.compile("|".join(map(re.escape, sorted(strings, key=lambda s: (-len(s), s)))))
    trie = re.compile(literal_trie_pattern(strings))
    assert [m.span() for m in trie.finditer(text)] == [m.span() for m in plain.finditer(text)]


@settings(max_examples=400, deadline=None)
@given(
    strings=st.sets(st.text(alphabet="ab<>]\\-^|.", min_size=1, max_size=8), min_size=1, max_size=12),
    text=st.text(alphabet="ab<>]\\-^|.x", max_size=80),
    start=st.integers(min_value=0, max_value=10),
)
def test_the_dictionary_finds_what_the_alternation_finds(strings, text, start):
    """Literals past its trie limit (forced here with trie_max=0) finds the same spans as the
    longest-first alternation, from any start."""
    plain = re.compile("|".join(map(re.escape, sorted(strings, key=lambda s: (-len(s), s)))))
    found = Literals(strings, trie_max=0)
    assert found._pattern is None  # the dictionary path
    assert [(m.start(), m.end(), m.group()) for m in found.finditer(text, start)] == [
        (m.start(), m.end(), m.group()) for m in plain.finditer(text, start)
    ]
    first = plain.search(text, start)
    got = found.search(text, start)
    assert (got and (got.start(), got.group())) == (first and (first.start(), first.group()))


@settings(max_examples=400, deadline=None)
@given(
    strings=st.sets(st.text(alphabet="ab<>|", min_size=1, max_size=6), min_size=1, max_size=8),
    text=st.text(alphabet="ab<>|x", max_size=120),
    start=st.integers(min_value=-3, max_value=10),
)
def test_the_trie_search_led_by_find_finds_what_the_alternation_finds(strings, text, start):
    """Literals' search through the trie pattern, led by ``str.find`` of the strings' first
    characters (at most four here: a, b, <, >, |, five only when all are used), gives the
    alternation's first match from any start, a negative one too."""
    plain = re.compile("|".join(map(re.escape, sorted(strings, key=lambda s: (-len(s), s)))))
    found = Literals(strings)
    assert found._pattern is not None
    first = plain.search(text, start)
    got = found.search(text, start)
    assert (got and (got.start(), got.group())) == (first and (first.start(), first.group()))


def test_the_trie_search_past_many_places_that_start_nothing():
    """Places holding a first character that start no string: past FIND_TRIES of them the
    pattern searches the rest itself, and finds the same match."""
    found = Literals(["<|endoftext|>", "<|fim_prefix|>", "[SEP]"])
    assert found._firsts == ("<", "[")
    text = "a < b [x] <| c " * 20 + "tail [SEP] <|endoftext|>"
    m = found.search(text)
    assert (m.start(), m.group()) == (text.index("[SEP]"), "[SEP]")
    m = found.search(text, text.index("[SEP]") + 1)
    assert (m.start(), m.group()) == (text.index("<|endoftext|>"), "<|endoftext|>")
    assert found.search("x" * 1000 + "<|endoftext") is None
    assert found.search("<<|endoftext|>").start() == 1  # the place right after one that failed
    assert found.search("<|endoftext|>", -5).start() == 0  # as re: a negative start is 0


@pytest.mark.parametrize("trie_max", [TRIE_PATTERN_MAX, 0])
def test_strings_with_one_first_character_known_answers(trie_max):
    """Strings that all start with one character: a text without it holds none of them, and a
    text with it is searched as any other, from any start."""
    found = Literals(["<|endoftext|>", "<|fim|>", "<s>"], trie_max=trie_max)
    assert found.search("no angle brackets here") is None
    assert found.search("") is None
    m = found.search("a <|fim|> <s>")
    assert (m.start(), m.group()) == (2, "<|fim|>")
    m = found.search("a <|fim|> <s>", 3)
    assert (m.start(), m.group()) == (10, "<s>")
    assert found.search("<s>", -2).start() == 0  # as re: a negative start is 0
    assert found.search("<s>x", 1) is None
    assert found.search("<" * 50 + "<s>").start() == 50  # past many places that start nothing


def test_the_dictionary_known_answers():
    found = Literals(["<s>", "<sep>", "<", "ab", "abc"], trie_max=0)
    spans = [(m.start(), m.group()) for m in found.finditer("x<sep><s>abcab<se")]
    assert spans == [(1, "<sep>"), (6, "<s>"), (9, "abc"), (12, "ab"), (14, "<")]
    assert found.search("nothing here") is None


def test_twenty_thousand_added_tokens_match_as_hf_does(tmp_path):
    """A tokenizer.json with 20,000 added tokens (four times the trie limit): the ids equal HF
    tokenizers' on a text that holds some of them, others' prefixes and plain words. (HF
    tokenizers 0.22, the oldest allowed, takes half a minute to load 100,000 of them.)"""
    import random

    from tokenizers import Tokenizer as HF

    rng = random.Random(7)
    data = json.loads(hostile_tokenizer_json("x"))
    data["pre_tokenizer"] = None
    first = max(data["model"]["vocab"].values()) + 1
    contents = sorted({"<" + "".join(rng.choice("abcdef") for _ in range(rng.randint(2, 9))) + ">"
                       for _ in range(20_000)})  # fmt: skip
    data["added_tokens"] += [
        {"id": first + k, "content": c, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": False}
        for k, c in enumerate(contents)
    ]  # fmt: skip
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    tok = lbpe.load(path)
    assert len(tok.added_tokens) > TRIE_PATTERN_MAX and tok._specials._pattern is None
    picked = rng.sample(contents, 300)
    text = " ".join(w if k % 3 else w[:-1] + "x" for k, w in enumerate(picked)) + " <<ab>> <a"
    hf = HF.from_file(str(path))
    assert tok.encode(text, mode="bpe") == hf.encode(text, add_special_tokens=False).ids


def test_many_long_added_tokens_with_one_prefix_are_matched_exactly(tmp_path):
    # 255 added tokens a...ab: a plain alternation compared each of them at every "a" of the
    # text (2 s on 50,000 characters, minutes with longer ones); the ids are HF's
    from tokenizers import Tokenizer as HF

    data = json.loads(hostile_tokenizer_json("x"))
    data["pre_tokenizer"] = None
    first = max(data["model"]["vocab"].values()) + 1
    data["added_tokens"] += [
        {
            "id": first + k,
            "content": "a" * (k + 1) + "b",
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": False,
        }
        for k in range(255)
    ]
    for t in data["added_tokens"][-255:]:
        data["model"]["vocab"][t["content"]] = t["id"]
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    tok, ref = lbpe.load(path), HF.from_file(str(path))
    text = "a" * 20_000 + "a" * 77 + "b" + "a" * 300 + "b"
    assert tok.encode(text, mode="bpe") == ref.encode(text, add_special_tokens=False).ids


def test_added_tokens_longer_than_the_limit_are_refused(tmp_path):
    data = json.loads(hostile_tokenizer_json("x"))
    data["added_tokens"].append(
        {
            "id": max(data["model"]["vocab"].values()) + 1,
            "content": "z" * 300,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
    )
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(
        LbpeError, match=r"is 300 characters long; lbpe matches added and special tokens of at most 256"
    ):
        lbpe.load(path)


def test_literals_pickled_before_the_first_character_was_kept_still_search():
    """A ``Literals`` pickled by an older lbpe has no ``first_char`` of its own: it searches
    the long way, and finds the same."""
    import pickle

    found = Literals(["<|endoftext|>", "<s>"])
    old = pickle.loads(pickle.dumps(found))
    del old.__dict__["first_char"]
    assert old.first_char is None
    for text in ("no brackets", "a <s> b", "<|endoftext|>", ""):
        assert (old.search(text) and old.search(text).span()) == (found.search(text) and found.search(text).span())
    assert found.search("<s>", 10) is None and old.search("<s>", 10) is None  # past the end
