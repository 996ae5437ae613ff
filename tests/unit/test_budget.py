"""A request's time budget (lbpe.budget): the views of lbpe.playground.service encode under it, the encoder
checks it on both paths, and running past it gives one clear error. The vocabulary that takes
long is built here: the tokens ``"a" * (k - 1) + "b"`` up to 1,000 bytes (within the token
length limit) make LBPE check every window length over ``"a" * 50,000`` without placing any."""

from __future__ import annotations

import time

import pytest

import lbpe
from lbpe import budget, limits
from lbpe.budget import TimeBudgetError, time_budget
from lbpe.playground import service as views
from lbpe.vocab import Vocab

RUN = 50_000


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    monkeypatch.delenv("LBPE_ENCODE_SECONDS", raising=False)


def slow_tokenizer(longest: int = 1000) -> lbpe.Tokenizer:
    tokens = {bytes([b]): b for b in range(256)}
    for k in range(2, longest + 1):
        tokens[b"a" * (k - 1) + b"b"] = len(tokens)
    return lbpe.Tokenizer(Vocab(tokens), "gpt2", name="runs")


def test_no_budget_outside_a_view(monkeypatch):
    monkeypatch.setenv("LBPE_ENCODE_SECONDS", "0.001")
    assert budget.remaining() is None
    budget.check()  # nothing to spend


def test_a_budget_scales_with_the_text_and_the_earlier_end_holds(monkeypatch):
    monkeypatch.setenv("LBPE_ENCODE_SECONDS", "4")
    with time_budget(10, what="small"):
        assert 3 < budget.remaining() <= 4  # a text under 1 MiB counts as 1 MiB
        with time_budget(10 << 20, what="inner, longer"):
            assert budget.remaining() <= 4
        with time_budget(10, what="inner"):
            assert budget.remaining() <= 4
    with time_budget(3 << 20, what="large"):
        assert 11 < budget.remaining() <= 12
    monkeypatch.setenv("LBPE_ENCODE_SECONDS", "0")
    with time_budget(10, what="off"):
        assert budget.remaining() is None


def test_a_spent_budget_says_what_took_too_long_and_how_to_allow_more(monkeypatch):
    monkeypatch.setenv("LBPE_ENCODE_SECONDS", "0.001")
    with time_budget(10, what="the Compare view"):
        time.sleep(0.01)
        with pytest.raises(TimeBudgetError) as info:
            budget.check()
    assert isinstance(info.value, lbpe.LbpeError)
    assert str(info.value) == (
        "the Compare view: this text took longer than 0.001 s with this vocabulary, which is far more than "
        "real vocabularies need. Shorten the text, choose another vocabulary, or allow more time with "
        "LBPE_ENCODE_SECONDS (now 0.001 s per MiB of text; 0 for no limit)."
    )


def test_the_encoder_stops_when_the_budget_is_spent(encode_path, monkeypatch):
    tok = slow_tokenizer()
    assert tok.encode("a" * 2000, mode="lbpe") == [ord("a")] * 2000  # no budget: it runs to the end
    text = "a" * RUN
    monkeypatch.setenv("LBPE_ENCODE_SECONDS", "0.01")
    tok.clear_cache()
    with time_budget(len(text), what="this test"), pytest.raises(TimeBudgetError, match="^this test: this text"):
        tok.encode(text, mode="lbpe")
    with time_budget(len(text), what="this test"), pytest.raises(TimeBudgetError):
        tok.segment(text, mode="lbpe")


def test_the_views_encode_under_the_budget(monkeypatch):
    tok = slow_tokenizer()
    text = "a" * RUN
    monkeypatch.setenv("LBPE_ENCODE_SECONDS", "0.01")
    with pytest.raises(TimeBudgetError, match="^the Compare view: "):
        views.compare_view(tok, text)
    with pytest.raises(TimeBudgetError, match="^the Across view: "):
        views.across_view({"runs": tok}, text=text)
    with pytest.raises(TimeBudgetError, match="^the Corpus view of runs.txt: "):
        views.corpus_view(tok, text.encode(), "runs.txt")
    with pytest.raises(TimeBudgetError, match="^the Explain view: "):
        views.explain_target(tok, text, 0)
    # the default allows real work: a real vocabulary's Compare view of a text
    monkeypatch.delenv("LBPE_ENCODE_SECONDS")
    assert limits.get("encode_seconds") == 10
    result = views.compare_view(lbpe.load_preset("cl100k_base"), "Tokenization matters. " * 200)
    assert result["summary"]["bpe"]["tokens"] > 0
