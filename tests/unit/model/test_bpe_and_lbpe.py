"""Known answers and naive-reference checks for the per-piece encoders."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lbpe.model.bpe import SHORT_PIECE, _bpe_long, bpe_by_merges, bpe_by_rank
from lbpe.model.lbpe import NOT_A_TOKEN, WALKED, build_prefix_index, long_tokens, longest_first
from tests.support.naive import byte_units, naive_bpe_by_merges, naive_bpe_by_rank, naive_lbpe


def _bytes_vocab(*extra: bytes) -> dict[bytes, int]:
    ranks = {bytes([b]): b for b in range(256)}
    for k, token in enumerate(extra):
        ranks[token] = 256 + k
    return ranks


def _lbpe(piece, tokens):
    index = build_prefix_index(tokens)
    return longest_first(piece, index, max(map(len, tokens)))


# ---- known answers, checkable by hand ----


def test_equal_length_leftmost_wins():
    assert _lbpe("aaa", {"a": 0, "aa": 1}) == ["aa", "a"]


def test_lbpe_and_bpe_differ_leftmost_long_token():
    # BPE merges the better-ranked "bc" first; LBPE takes the leftmost length-2 span "ab".
    ranks = _bytes_vocab(b"bc", b"ab")
    assert bpe_by_rank(b"abc", ranks) == [b"a", b"bc"]
    assert _lbpe(b"abc", ranks) == [b"ab", b"c"]


def test_lbpe_uses_tokens_bpe_never_builds():
    # BPE merges "aa", then "bb" and "bbb" (better ranked than "aab"); LBPE takes "aab" first.
    ranks = _bytes_vocab(b"aa", b"bb", b"bbb", b"ab", b"aab")
    assert bpe_by_rank(b"aabbb", ranks) == [b"aa", b"bbb"]
    assert _lbpe(b"aabbb", ranks) == [b"aab", b"bb"]


def test_longer_token_beats_earlier_shorter():
    ranks = _bytes_vocab(b"ab", b"bcd")
    assert _lbpe(b"abcd", ranks) == [b"a", b"bcd"]
    assert bpe_by_rank(b"abcd", ranks) == [b"ab", b"c", b"d"]


def test_uncovered_character_units_come_back_alone():
    assert _lbpe("xaay", {"a": 0, "aa": 1}) == ["x", "aa", "y"]


def test_merge_list_rule_differs_from_rank_rule():
    # merges: (a, a) first, then (a, b); ranks say "ab" (id 256) before "aa" (id 257).
    assert bpe_by_merges(b"aab", {(b"a", b"a"): 0, (b"a", b"b"): 1}) == [b"aa", b"b"]
    assert bpe_by_rank(b"aab", _bytes_vocab(b"ab", b"aa")) == [b"a", b"ab"]


def test_prefix_index_marks_proper_prefixes():
    index = build_prefix_index({b"abc": 7, b"a": 1})
    assert index == {b"abc": 7, b"ab": NOT_A_TOKEN, b"a": 1}


# ---- against the naive transcriptions ----

_alphabet = st.sampled_from("abc")
_words = st.text(alphabet="abc", min_size=1, max_size=6)


@settings(max_examples=400, deadline=None)
@given(st.lists(_words, min_size=1, max_size=30, unique=True), st.text(alphabet="abcd", max_size=40))
def test_longest_first_equals_naive_on_characters(vocab, text):
    tokens = {t: i for i, t in enumerate(vocab)}
    m = max(map(len, vocab))
    assert longest_first(text, build_prefix_index(tokens), m) == naive_lbpe(list(text), set(vocab), m)


@settings(max_examples=300, deadline=None)
@given(st.lists(_words, max_size=40, unique=True), st.binary(max_size=300).map(lambda b: bytes(x % 3 + 97 for x in b)))
def test_longest_first_equals_naive_on_bytes_long_pieces(vocab, piece):
    ranks = _bytes_vocab(*[w.encode() for w in vocab if len(w) > 1])
    m = max(map(len, ranks))
    assert longest_first(piece, build_prefix_index(ranks), m) == naive_lbpe(byte_units(piece), set(ranks), m)


_long_words = st.text(alphabet="ab", min_size=WALKED - 3, max_size=3 * WALKED)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_long_words, max_size=12, unique=True),
    st.lists(_words, max_size=20, unique=True),
    st.text(alphabet="abc", max_size=8 * WALKED),
)
def test_longest_first_equals_naive_with_tokens_longer_than_walked(long_vocab, vocab, text):
    # windows over WALKED units are scanned, shorter ones walked: both, in the paper's order
    tokens = {t: i for i, t in enumerate(dict.fromkeys(["a", "b", "c", *vocab, *long_vocab]))}
    m = max(map(len, tokens))
    index = build_prefix_index(tokens)
    expected = naive_lbpe(list(text), set(tokens), m)
    assert longest_first(text, index, m) == expected
    assert longest_first(text, index, m, long=long_tokens(index)) == expected
    piece = text.encode()
    assert longest_first(piece, build_prefix_index({t.encode(): i for t, i in tokens.items()}), m) == [
        k.encode() for k in expected
    ]


def test_long_runs_take_the_longest_tokens_leftmost_first():
    tokens = {"a" * k: k for k in range(1, 2001)}
    assert longest_first("a" * 5001, build_prefix_index(tokens), 2000) == ["a" * 2000] * 2 + ["a" * 1001]


@settings(max_examples=300, deadline=None)
@given(st.lists(_words, max_size=40, unique=True), st.text(alphabet="abc", max_size=2 * SHORT_PIECE + 20))
def test_bpe_by_rank_equals_naive_both_paths(vocab, text):
    ranks = _bytes_vocab(*[w.encode() for w in vocab if len(w) > 1])
    piece = text.encode()
    expected = naive_bpe_by_rank(piece, ranks)
    assert bpe_by_rank(piece, ranks) == expected
    if len(piece) > 1:
        assert _bpe_long(piece, lambda i, j, e: ranks.get(piece[i:e])) == expected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(_words, _words), max_size=40, unique=True),
    st.text(alphabet="abc", max_size=2 * SHORT_PIECE + 20),
)
def test_bpe_by_merges_equals_naive_both_paths(pairs, text):
    merges = {(a.encode(), b.encode()): r for r, (a, b) in enumerate(pairs)}
    piece = text.encode()
    expected = naive_bpe_by_merges(piece, merges)
    assert bpe_by_merges(piece, merges) == expected
    if len(piece) > 1:
        assert _bpe_long(piece, lambda i, j, e: merges.get((piece[i:j], piece[j:e]))) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(_words.filter(lambda w: len(w) > 1), st.integers(0, 3), max_size=30),
    st.text(alphabet="abc", max_size=2 * SHORT_PIECE + 20),
)
def test_bpe_with_tied_priorities_equals_naive_both_paths(tied, text):
    # priorities shared by several tokens: the leftmost pair of the best priority goes first,
    # and a merge can create a pair as good as the one it applied
    ranks = {bytes([b]): 10 for b in range(256)} | {w.encode(): r for w, r in tied.items()}
    piece = text.encode()
    expected = naive_bpe_by_rank(piece, ranks)
    assert bpe_by_rank(piece, ranks) == expected
    if len(piece) > 1:
        assert _bpe_long(piece, lambda i, j, e: ranks.get(piece[i:e])) == expected
