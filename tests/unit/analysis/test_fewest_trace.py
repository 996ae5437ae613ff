"""lbpe.analysis.fewest_trace: least-tokens' table and choices, known answers by hand, and the
model's own tokens on real vocabularies."""

from __future__ import annotations

import pytest

from lbpe.analysis.fewest_trace import fewest_trace
from lbpe.model.lbpe import build_prefix_index
from lbpe.model.shortest import least_tokens
from lbpe.presets import DEFAULT_PRESET, load_preset
from tests.support.data import mixed_text


def test_table_and_path_by_hand():
    # tokens a b c d ab cd abc: from the right fewest = d:1, cd:1, bcd: b+cd = 2, abcd: ab|cd or abc|d = 2
    t = fewest_trace("abcd", build_prefix_index(["a", "b", "c", "d", "ab", "cd", "abc"]))
    assert t.fewest == [2, 2, 1, 1, 0]
    assert t.options[0] == ((1, 3), (2, 2), (3, 2))
    assert t.options[2] == ((3, 2), (4, 1))
    assert t.ties(0) == [2, 3]  # the tie rule: the longest first token
    assert t.ends[0] == 3
    assert t.path == [(0, 3), (3, 4)]
    assert t.keys == ["abc", "d"]


def test_fewest_beats_greedy_and_a_unit_without_token_counts_one():
    # greedy from the left takes ab|c|d (3); the fewest is a|bcd (2)
    t = fewest_trace(b"abcd", build_prefix_index([b"a", b"b", b"c", b"d", b"ab", b"bcd"]))
    assert t.keys == [b"a", b"bcd"]
    assert t.fewest == [2, 1, 2, 1, 0]
    t = fewest_trace("xa", build_prefix_index(["a"]))
    assert t.keys == ["x", "a"]
    assert t.fewest == [2, 1, 0]


@pytest.mark.parametrize("name", [DEFAULT_PRESET, "cl100k_base"])
def test_trace_tokens_are_the_models_on_real_text(name):
    tok = load_preset(name)
    index = tok.vocab.prefix_index
    text = " ".join(t[:3000] for _, t in mixed_text(20_000))
    for piece in tok.pieces(text)[:2000]:
        units = tok._to_units(piece)
        t = fewest_trace(units, index)
        assert t.keys == least_tokens(units, index)
        assert len(t.keys) == t.fewest[0]
