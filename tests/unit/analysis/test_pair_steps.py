"""lbpe.analysis.pair_steps: any two methods' own steps on a text; each side's ids are the
method's own ids (encode, split_piece, and the segments over a span of a text)."""

from __future__ import annotations

import functools
import random

import pytest

import lbpe
from lbpe.analysis.pair_steps import explain_pair, explain_pair_span, method_trace
from lbpe.errors import LbpeError
from lbpe.presets import DEFAULT_PRESET, load_preset
from lbpe.tokenizer import Tokenizer
from lbpe.vocab import Vocab
from tests.support.data import mixed_text

PAIRS = [
    ("longest-prefix", "least-tokens"),
    ("longest-suffix", "dropout"),
    ("dropout", "lbpe"),
    ("bpe", "longest-prefix"),
]


@functools.cache
def tiny() -> Tokenizer:
    tokens = {bytes([b]): b for b in range(256)}
    tokens.update({b"ab": 256, b"bc": 257, b"abc": 258, b"cd": 259, b"bcd": 260})
    return Tokenizer(Vocab(tokens), "paper")


def test_each_side_is_named_and_steps_are_the_methods_own_by_hand():
    ex = explain_pair(tiny(), "abcd", ("longest-prefix", "longest-suffix"))
    left, right = ex.pieces[0].sides
    assert (left.method, left.tokens) == ("longest-prefix", ["abc", "d"])
    assert (right.method, right.tokens) == ("longest-suffix", ["a", "bcd"])
    assert left.steps == [
        'at unit 0: "a" is a token, "ab" is a token, "abc" is a token, "abcd" begins no token → "abc" (units 0-3)',
        'at unit 3: "d" is a token → "d" (units 3-4)',
    ]
    assert right.steps[0] == (
        'ending at unit 4: "d" is a token, "cd" is a token, "bcd" is a token, "abcd" ends no token → "bcd" (units 1-4)'
    )
    assert ex.frames == 3 and ex.pieces[0].differs


def test_least_tokens_names_the_tie_rule():
    # abcd: ab|cd and abc|d both 2 tokens; the longest first token wins
    side = method_trace(tiny(), "least-tokens", "abcd")
    assert side.tokens == ["abc", "d"]
    assert 'fewest[0] = 2: "a" + fewest[1] = 2, "ab" + fewest[2] = 2, "abc" + fewest[3] = 2' in side.steps[3]
    assert 'tie among "a", "ab", "abc": the longest is kept' in side.steps[3]
    assert side.steps[-2:] == ['from unit 0: take "abc" (fewest[0] = 2)', 'from unit 3: take "d" (fewest[3] = 1)']


def test_dropout_side_says_each_draw():
    draws = iter([0.05, 0.9, 0.2, 0.2]).__next__
    side = method_trace(tiny(), "dropout", "abcd", rate=0.5, draw=draws)
    # ranks ab 256, bc 257, cd 259: "a"+"b" dropped, "b"+"c" kept -> a|bc|d;
    # then "a"+"bc" (abc 258) and "bc"+"d" (bcd 260) both dropped: stop
    assert side.steps == [
        'step 1: "a" + "b" (rank 256) draw 0.0500 < 0.5: dropped; "b" + "c" (rank 257) draw 0.9000: merged → a|bc|d',
        'step 2: "a" + "bc" (rank 258) draw 0.2000 < 0.5: dropped; "bc" + "d" (rank 260) draw 0.2000 < 0.5: dropped; '
        "every merge dropped: stop",
    ]
    assert side.tokens == ["a", "bc", "d"]


def test_dropout_draws_once_for_a_piece_that_is_a_token():
    side = method_trace(tiny(), "dropout", "abc", rate=0.5, draw=iter([0.7]).__next__)
    assert side.steps == ["the whole piece is a token: draw 0.7000 ≥ 0.5, taken whole"] and side.tokens == ["abc"]
    side = method_trace(tiny(), "dropout", "abc", rate=0.5, draw=iter([0.1, 0.9, 0.9]).__next__)
    assert side.steps[0] == "the whole piece is a token: draw 0.1000 < 0.5, not taken whole"
    assert side.tokens == ["abc"]


def test_bad_pairs_are_refused():
    with pytest.raises(LbpeError, match="two of"):
        explain_pair(tiny(), "ab", ("bpe", "nope"))
    with pytest.raises(LbpeError, match="dropout"):
        explain_pair(tiny(), "ab", ("bpe", "dropout"))
    with pytest.raises(LbpeError, match="only applies"):
        explain_pair(tiny(), "ab", ("bpe", "lbpe"), dropout=0.1)


@functools.cache
def real(name: str) -> Tokenizer:
    return load_preset(name)


def _kw(method, options):
    return options if method == "dropout" else {}


@pytest.mark.parametrize("name", [DEFAULT_PRESET, "cl100k_base"])
@pytest.mark.parametrize("pair", PAIRS)
def test_sides_give_the_methods_ids_on_real_text(name, pair):
    tok = real(name)
    rng = random.Random(len(name))
    texts = [t for _, t in mixed_text(60_000)]
    for k in range(25):
        text = texts[k % len(texts)]
        size = rng.randint(1, 100)
        start = rng.randrange(0, len(text) - 400 - size)
        span = text[start : start + size]
        options = {"dropout": 0.3, "seed": k}
        ex = explain_pair(tok, span, pair, **(options if "dropout" in pair else {}))
        for side, method in enumerate(pair):
            assert ex.ids(side) == tok.encode(span, mode=method, allowed_special="all", **_kw(method, options))
        # a span where it stands in a longer text: the segments the Compare view shows there
        whole = text[start : start + size + 200]
        a = rng.randrange(0, size)
        try:
            ex = explain_pair_span(tok, whole, a, min(size, a + 20), pair, **(options if "dropout" in pair else {}))
        except LbpeError as error:  # a whole pre-token of a character-level vocabulary may be too long
            assert "dropout" in pair and "at most 400 characters" in str(error)
            continue
        for side, method in enumerate(pair):
            segments = tok.segment(
                whole, mode=method, allowed_special=frozenset(), disallowed_special=(), **_kw(method, options)
            )
            assert ex.ids(side) == [s.id for s in segments if ex.start <= s.start and s.end <= ex.end]


def test_split_piece_agrees_piece_by_piece():
    tok = real("cl100k_base")
    for piece in tok.pieces(" ".join(t[:1500] for _, t in mixed_text(20_000))):
        for method in ("longest-prefix", "longest-suffix", "least-tokens"):
            side = method_trace(tok, method, piece)
            assert side.ids == tok._key_ids(tok.split_piece(piece, mode=method)), (method, piece)
        side = method_trace(tok, "dropout", piece, rate=0.2, draw=random.Random(3).random)
        assert side.ids == tok.encode(piece, mode="dropout", dropout=0.2, seed=3, disallowed_special=())


def test_a_special_token_is_matched_whole_on_both_sides():
    tok = lbpe.load_preset("cl100k_base")
    ex = explain_pair(tok, "a<|endoftext|>b", ("least-tokens", "longest-suffix"))
    special = [p for p in ex.pieces if p.special]
    assert len(special) == 1 and [s.ids for s in special[0].sides] == [[100257], [100257]]
