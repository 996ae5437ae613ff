"""Statistics of long texts count ids straight from the encoder's buffer (numpy installed): no
list of Python ints in between, and the same numbers as the standard library's count of
``Tokenizer.encode``'s list."""

from __future__ import annotations

import pytest

import lbpe
from lbpe.analysis import counting
from lbpe.analysis.methods import text_methods_stats
from lbpe.analysis.stats import text_stats, text_stats_both
from lbpe.presets import load_preset
from tests.support.data import data_file, english_text


def _text() -> str:
    multilingual = data_file("text/multilingual.txt").read_text("utf-8")[:60_000]
    return english_text(80_000)[:80_000] + multilingual + "<|endoftext|> and ▁ as text"


def _no_lists(monkeypatch) -> None:
    def refuse(self, *args, **kwargs):
        raise AssertionError("a long text's statistics built a list of ids")

    monkeypatch.setattr(lbpe.Tokenizer, "encode", refuse)


def _standard_library(call):
    counting._numpy_override.append(None)
    try:
        return call()
    finally:
        counting._numpy_override.pop()


def _as_json(stats: dict) -> dict:
    return {m: (s.to_json(), s.agreement.to_json() if s.agreement else None) for m, s in stats.items()}


@pytest.mark.parametrize("name", ["cl100k_base", "mistral-7b"])  # byte-level; SentencePiece with a normaliser
def test_both_modes_count_from_the_buffer(name, monkeypatch):
    tok = load_preset(name)
    text = _text()
    want = _as_json(_standard_library(lambda: text_stats_both(tok, text)))
    assert want["bpe"][0]["tokens"] == len(tok.encode(text, mode="bpe", disallowed_special=()))
    _no_lists(monkeypatch)
    assert _as_json(text_stats_both(tok, text)) == want


@pytest.mark.slow(reason="every method over a corpus")
@pytest.mark.parametrize("name", ["cl100k_base", "mistral-7b"])
def test_every_method_counts_from_the_buffer(name, monkeypatch):
    tok = load_preset(name)
    text = _text()
    methods = list(lbpe.METHODS)

    def stats():
        return text_methods_stats(tok, text, methods, dropout=0.2, seed=5)

    want = _as_json(_standard_library(stats))
    assert want["least-tokens"][0]["tokens"] == len(tok.encode(text, mode="least-tokens", disallowed_special=()))
    _no_lists(monkeypatch)
    assert _as_json(stats()) == want


def test_short_texts_and_empty_texts_count_alike():
    tok = load_preset("gpt2")
    for text in ("", "a", "a few words, short enough for the standard library"):
        want = _as_json(_standard_library(lambda text=text: text_stats_both(tok, text)))
        assert _as_json(text_stats_both(tok, text)) == want


def test_one_mode_counts_from_the_buffer(monkeypatch):
    tok = load_preset("o200k_base")
    text = _text()
    want = _standard_library(lambda: text_stats(tok, text, mode="lbpe")).to_json()
    assert want["tokens"] == len(tok.encode(text, mode="lbpe", disallowed_special=()))
    _no_lists(monkeypatch)
    assert text_stats(tok, text, mode="lbpe").to_json() == want
