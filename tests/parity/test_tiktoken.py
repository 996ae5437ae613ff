"""Classic BPE must give tiktoken's ids exactly: real vocabularies, megabytes of real text,
and hypothesis-generated Unicode."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lbpe
from tests.support.data import data_file, english_text, tiktoken_encoding

pytestmark = pytest.mark.both_paths

# name of the tiktoken encoding -> the file lbpe loads for it
VOCABS = {
    "gpt2": "gpt2/encoder.json",
    "r50k_base": "openai/r50k_base.tiktoken",
    "p50k_base": "openai/p50k_base.tiktoken",
    "cl100k_base": "openai/cl100k_base.tiktoken",
    "o200k_base": "openai/o200k_base.tiktoken",
}

MB = 1 << 20


@functools.cache
def ours(name: str) -> lbpe.Tokenizer:
    return lbpe.load(data_file(VOCABS[name]))


@pytest.mark.slow(reason="parity over 5 MB")
@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_bpe_ids_equal_tiktoken_on_5mb_english(name):
    text = english_text(5 * MB)
    ref = tiktoken_encoding(name)
    tok = ours(name)
    # Compare in ~64 KB chunks split at line ends, so a mismatch points at its neighbourhood.
    lines = text.splitlines(keepends=True)
    chunk, compared, pieces = [], 0, 0
    for line in lines + [None]:
        if line is not None:
            chunk.append(line)
            if sum(map(len, chunk)) < 65536:
                continue
        block = "".join(chunk)
        chunk = []
        if not block:
            continue
        expected = ref.encode_ordinary(block)
        got = tok.encode(block, mode="bpe", disallowed_special=())
        assert got == expected, f"first difference near: {block[:200]!r}"
        compared += len(block.encode())
        pieces += len(expected)
    assert compared >= 5 * MB


@pytest.mark.parametrize("name", ["r50k_base", "p50k_base"])
def test_bpe_ids_equal_tiktoken_on_1mb_english(name):
    text = english_text(1 * MB)[: 1 * MB]
    assert ours(name).encode(text, mode="bpe", disallowed_special=()) == tiktoken_encoding(name).encode_ordinary(text)


_unicode_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=200)
_tricky = st.text(
    st.sampled_from(
        list(
            " \t\r\n\x0b\x0c\x85\xa0\u3000\u2028\x1c\x1d'sSſlLtTdDmMvVeErR0123456789/!?.-_"
            "aéÉ日本語🙂\U00010400\U0001d7ce\u0301ǅʰ"
        )
    ),
    max_size=80,
)


@pytest.mark.parametrize("name", list(VOCABS))
@settings(max_examples=150, deadline=None)
@given(text=st.one_of(_unicode_text, _tricky))
def test_bpe_ids_equal_tiktoken_on_generated_text(name, text):
    assert ours(name).encode(text, mode="bpe", disallowed_special=()) == tiktoken_encoding(name).encode_ordinary(text)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_special_tokens_match_tiktoken(name):
    text = "hello <|endoftext|> world<|endofprompt|>"
    ref = tiktoken_encoding(name)
    assert ours(name).encode(text, mode="bpe", allowed_special="all") == ref.encode(text, allowed_special="all")
    assert ours(name).encode(text, mode="bpe", disallowed_special=()) == ref.encode(text, disallowed_special=())
    with pytest.raises(ValueError):
        ours(name).encode(text, mode="bpe")
    with pytest.raises(ValueError):
        ref.encode(text)
    # the defaults on text without a special token (lbpe's shortcut for this case)
    plain = "hello <|endof text|> world <|endofprompt"
    assert ours(name).encode(plain, mode="bpe") == ref.encode(plain)
    with pytest.raises(lbpe.DisallowedSpecialError, match=r"<\|endofprompt\|>"):
        ours(name).encode(plain + "|>", mode="bpe")


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_lone_surrogates_encode_as_tiktoken(name):
    text = "a\ud800b \udfff c \ud83d\ude42"
    assert ours(name).encode(text, mode="bpe") == tiktoken_encoding(name).encode(text)


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_tiktoken_names_for_the_vocabulary_give_tiktoken_answers(name):
    """special_tokens_set, max_token_value, eot_token, token_byte_values and the single-token
    lookups answer as tiktoken's do on the same file, and fail where tiktoken's fail, with a
    KeyError (what tiktoken raises) that says what is wrong."""
    tok, ref = ours(name), tiktoken_encoding(name)
    assert tok.special_tokens_set == ref.special_tokens_set
    assert tok.max_token_value == ref.max_token_value
    assert tok.eot_token == ref.eot_token
    assert tok.token_byte_values() == ref.token_byte_values()
    gaps = 0
    for i in [*range(0, ref.n_vocab, 97), *range(ref.max_token_value - 40, ref.n_vocab + 2)]:
        try:
            token = ref.decode_single_token_bytes(i)
        except KeyError:  # a gap among the ids, or past the last
            gaps += 1
            with pytest.raises(KeyError, match="not in the vocabulary"):
                tok.decode_single_token_bytes(i)
            continue
        assert tok.decode_single_token_bytes(i) == token, i
        assert tok.encode_single_token(token) == ref.encode_single_token(token) == i
    assert gaps >= 2
    for text in ["<|endoftext|>", " hello", "hello"]:
        assert tok.encode_single_token(text) == ref.encode_single_token(text)
    for missing in [" hello world", b"\xff\xfe\xfd", "<|nope|>"]:
        with pytest.raises(KeyError):
            ref.encode_single_token(missing)
        with pytest.raises(KeyError, match="no single token is") as refused:
            tok.encode_single_token(missing)
        assert isinstance(refused.value, lbpe.LbpeError) and not str(refused.value).startswith("'")
    with pytest.raises(KeyError):
        ref.decode_single_token_bytes(ref.n_vocab + 5)
    with pytest.raises(KeyError, match="not in the vocabulary"):
        tok.decode_single_token_bytes(ref.n_vocab + 5)


def test_a_vocabulary_without_endoftext_names_the_special_tokens_it_has():
    tok = lbpe.load(data_file("hf/llama3/tokenizer.json"))
    with pytest.raises(KeyError, match="no special token '<\\|endoftext\\|>'.*<\\|begin_of_text\\|>"):
        _ = tok.eot_token
    assert "<|begin_of_text|>" in tok.special_tokens_set
    with pytest.raises(TypeError, match="text_or_bytes must be str or bytes, not int"):
        tok.encode_single_token(5)
    plain = lbpe.load(data_file("openai/cl100k_base.tiktoken"), special_tokens={})
    added = lbpe.Tokenizer(plain.vocab, "cl100k_base", added_tokens={"<|endoftext|>": 100_300})  # as HF may add it
    assert added.eot_token == added.encode_single_token("<|endoftext|>") == 100_300
