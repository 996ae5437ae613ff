"""LBPE must equal the naive transcription of the paper's algorithm (tests/support/naive.py) on real
text and on generated text, for byte-level vocabularies."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lbpe
from tests.support.data import data_file, english_text
from tests.support.naive import byte_units, naive_lbpe

pytestmark = pytest.mark.both_paths

VOCABS = {
    "gpt2": "gpt2/encoder.json",
    "cl100k_base": "openai/cl100k_base.tiktoken",
    "o200k_base": "openai/o200k_base.tiktoken",
}
MB = 1 << 20


@functools.cache
def ours(name: str) -> lbpe.Tokenizer:
    return lbpe.load(data_file(VOCABS[name]))


@functools.cache
def token_set(tok: lbpe.Tokenizer) -> frozenset[bytes]:
    return frozenset(tok.vocab.tokens)


def naive_ids(tok: lbpe.Tokenizer, piece: str) -> list[int]:
    vocab = tok.vocab
    keys = naive_lbpe(byte_units(piece.encode()), token_set(tok), vocab.max_len)
    return [vocab.tokens[k] for k in keys]


@pytest.mark.slow(reason="the naive loop over real text")
@pytest.mark.parametrize("name", list(VOCABS))
def test_lbpe_equals_naive_on_real_text(name):
    tok = ours(name)
    text = english_text(2 * MB)
    code = data_file("text/code.txt").read_text("utf-8")[: 1 * MB]
    compared = 0
    for sample in (text, code):
        pieces = tok.pieces(sample)
        naive = {piece: naive_ids(tok, piece) for piece in set(pieces)}  # the naive loop is slow
        for piece, ids in naive.items():
            assert tok.split_piece(piece, mode="lbpe") == [tok.vocab.id_to_bytes[i] for i in ids], piece
        # the whole pipeline (cache included) gives the concatenation of the naive pieces
        got = tok.encode(sample, mode="lbpe", disallowed_special=())
        assert got == [i for piece in pieces for i in naive[piece]]
        assert tok.decode(got) == sample
        compared += len(sample.encode())
    assert compared >= 2 * MB


@pytest.mark.parametrize("name", list(VOCABS))
@settings(max_examples=150, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=120))
def test_lbpe_equals_naive_on_generated_text(name, text):
    tok = ours(name)
    expected = [i for piece in tok.pieces(text) for i in naive_ids(tok, piece)]
    assert tok.encode(text, mode="lbpe", disallowed_special=()) == expected


@pytest.mark.parametrize("name", list(VOCABS))
@settings(max_examples=25, deadline=None)
@given(text=st.text(st.sampled_from("ab -=_*#.\n 0123日本"), min_size=200, max_size=400))
def test_lbpe_equals_naive_on_long_repetitive_pieces(name, text):
    tok = ours(name)
    expected = [i for piece in tok.pieces(text) for i in naive_ids(tok, piece)]
    assert tok.encode(text, mode="lbpe", disallowed_special=()) == expected
