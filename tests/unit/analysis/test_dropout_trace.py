"""lbpe.analysis.dropout_trace: BPE-dropout's merges considered, draws and drops, with draws
written by hand, and the model's own tokens for a seeded generator."""

from __future__ import annotations

import random

import pytest

from lbpe.analysis.dropout_trace import Considered, DropStep, dropout_trace
from lbpe.model.dropout import bpe_dropout
from lbpe.presets import DEFAULT_PRESET, load_preset
from tests.support.data import mixed_text

RANKS = {"a": 0, "b": 1, "c": 2, "ab": 3, "bc": 4, "abc": 5}


def rank(left, right):
    return RANKS.get(left + right)


def test_draws_below_the_rate_drop_the_merge_and_the_next_is_considered():
    # step 1: "a"+"b" (3) draw .05 < .5 dropped, "b"+"c" (4) draw .9 kept -> a|bc
    # step 2: "a"+"bc" (5) draw .2 dropped: every merge dropped, stop
    steps, keys = dropout_trace("abc", rank, 0.5, iter([0.05, 0.9, 0.2]).__next__)
    assert steps == [
        DropStep((Considered(0, "a", "b", 3, 0.05, True), Considered(1, "b", "c", 4, 0.9, False)), True, ("a", "bc")),
        DropStep((Considered(0, "a", "bc", 5, 0.2, True),), False, ("a", "bc")),
    ]
    assert keys == ["a", "bc"]


def test_rate_zero_is_classic_bpe_and_rate_one_merges_nothing():
    steps, keys = dropout_trace("abc", rank, 0.0, iter([0.0, 0.0, 0.0]).__next__)
    assert keys == ["abc"] and [s.applied for s in steps] == [True, True]
    steps, keys = dropout_trace("abc", rank, 1.0, iter([0.99, 0.99]).__next__)
    assert keys == ["a", "b", "c"] and len(steps) == 1 and not steps[0].applied
    assert [c.start for c in steps[0].considered] == [0, 1]


def test_equal_priorities_are_considered_leftmost_first():
    steps, _ = dropout_trace("aaa", lambda left, right: {"aa": 0}.get(left + right), 0.5, iter([0.1, 0.7]).__next__)
    assert [(c.start, c.dropped) for c in steps[0].considered] == [(0, True), (1, False)]


@pytest.mark.parametrize(
    "name",
    [pytest.param(DEFAULT_PRESET, marks=pytest.mark.slow(reason="800 long character-level pieces")), "cl100k_base"],
)
@pytest.mark.parametrize("rate", [0.1, 0.5])
def test_seeded_trace_gives_the_models_tokens_and_encode_ids(name, rate):
    tok = load_preset(name)
    vocab = tok.vocab
    table, merges = vocab.model_tokens, vocab.model_merges

    def priority(left, right):
        return table.get(left + right) if merges is None else merges.get((left, right))

    text = " ".join(t[:2000] for _, t in mixed_text(20_000))
    for seed, piece in enumerate(tok.pieces(text)[:800]):
        units = tok._to_units(piece)
        _, keys = dropout_trace(units, priority, rate, random.Random(seed).random)
        assert keys == bpe_dropout(units, priority, rate, random.Random(seed).random)
