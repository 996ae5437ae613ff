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
