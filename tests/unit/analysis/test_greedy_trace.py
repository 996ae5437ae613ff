"""lbpe.analysis.greedy_trace: longest-prefix and longest-suffix step by step; the spans tried
are the ones written out by hand, and the tokens are always the model's own."""

from __future__ import annotations

import functools

import pytest

from lbpe.analysis.greedy_trace import Match, match_keys, prefix_trace, suffix_trace
from lbpe.model.greedy import build_suffix_index, longest_prefix, longest_suffix
from lbpe.model.lbpe import build_prefix_index
from lbpe.presets import DEFAULT_PRESET, load_preset
from tests.support.data import mixed_text

TOKENS = ["a", "b", "c", "d", "ab", "abc", "bcd", "cd"]


def test_prefix_trace_tries_spans_until_none_begins_a_token():
    steps = prefix_trace("abcd", build_prefix_index(TOKENS))
    assert steps == [
        Match(0, ((0, 1, "token"), (0, 2, "token"), (0, 3, "token"), (0, 4, "neither")), 0, 3, True),
        Match(3, ((3, 4, "token"),), 3, 4, True),
    ]
    assert match_keys("abcd", steps) == ["abc", "d"]


def test_prefix_trace_takes_a_unit_no_token_starts_with_alone():
    # "ab" only begins "abc"; "abx" begins nothing: "a" is the longest token at 0
    steps = prefix_trace(b"abx", build_prefix_index([b"a", b"abc"]))
    assert steps[0] == Match(0, ((0, 1, "token"), (0, 2, "part"), (0, 3, "neither")), 0, 1, True)
    assert steps[1] == Match(1, ((1, 2, "neither"),), 1, 2, False)
    assert match_keys(b"abx", steps) == [b"a", b"b", b"x"]


def test_suffix_trace_is_the_mirror_from_the_right():
    steps = suffix_trace("abcd", build_suffix_index(TOKENS))
    # from the end: "d", "cd", "bcd" are tokens, "abcd" ends none -> "bcd"; then "a"
    assert steps == [
        Match(4, ((3, 4, "token"), (2, 4, "token"), (1, 4, "token"), (0, 4, "neither")), 1, 4, True),
        Match(1, ((0, 1, "token"),), 0, 1, True),
    ]
    assert match_keys("abcd", steps) == ["a", "bcd"]


@functools.cache
def _default():
    return load_preset(DEFAULT_PRESET)


@pytest.mark.parametrize("name", [DEFAULT_PRESET, "cl100k_base"])
def test_trace_tokens_are_the_models_on_real_text(name):
    tok = _default() if name == DEFAULT_PRESET else load_preset(name)
    vocab = tok.vocab
    text = " ".join(t[:3000] for _, t in mixed_text(20_000))
    for piece in tok.pieces(text)[:3000]:
        units = tok._to_units(piece)
        assert match_keys(units, prefix_trace(units, vocab.prefix_index)) == longest_prefix(units, vocab.prefix_index)
        assert match_keys(units, suffix_trace(units, vocab.suffix_index)) == longest_suffix(units, vocab.suffix_index)
