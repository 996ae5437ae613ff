"""An edited text compared again from the last comparison (lbpe.playground.display.Recompare) gives what
comparing it afresh gives: ids, segments, differing spans, pane HTML and metrics, for random
edits at the start, middle and end, across pre-token and special-token boundaries, on real
vocabularies and on patterns that look ahead and behind, on both encoding paths. The expected
view is always lbpe.playground.service.compare_view without ``again`` (lbpe.playground.display.compare, the full
path)."""

from __future__ import annotations

import random
import re

import pytest

from lbpe.playground import display
from lbpe.playground.service import compare_view
from lbpe.presets import load_preset
from lbpe.tokenizer import Tokenizer
from tests.support.data import english_text

#: A word takes the spaces before it only when no "!" follows later on its line: typing "!"
#: at the end of a line moves the boundaries of every word before it.
LOOKAHEAD = r"[^\S\n]*[A-Za-z]+(?![^\n]*!)|[A-Za-z]+|\d{1,3}|[^\sA-Za-z\d]+|\s"
#: A word's first letter after white space is a piece of its own: the text from a cut before a
#: word does not split on its own as it does after the space.
LOOKBEHIND = r"(?<=\s)[a-z]|[a-z]+|\s+(?!\S)|\s+|[^\sa-z]+"

BITS = [" ", "\n", "a", "ab", "The", "!", "  ", "123", "é", "👍", "\r\n", "'s", "<|endoftext|>", "<s>", "</s>", "x!"]


def tokenizers() -> dict[str, Tokenizer]:
    gpt2 = load_preset("gpt2")
    return {
        "gpt2": gpt2,
        "cl100k_base": load_preset("cl100k_base"),
        "mistral-7b": load_preset("mistral-7b"),  # a normaliser and no pre-tokeniser
        "lbpe-llama-32k": load_preset("lbpe-llama-32k"),
        "lookahead": Tokenizer(gpt2.vocab, re.compile(LOOKAHEAD), name="lookahead"),
        "lookbehind": Tokenizer(gpt2.vocab, re.compile(LOOKBEHIND), name="lookbehind"),
    }


def start_text() -> str:
    return (
        english_text(0)[60_000:61_500] + "\n<|endoftext|>\n<s> x</s>\n\n  \t 12345 ü é 👍🏽 ok! line\nlast words of it"
    )


def edits(rng: random.Random, text: str, n: int):
    """``n`` texts, each an edit of the one before: an insertion, deletion or replacement at the
    end, near the end, at the start or anywhere."""
    for _ in range(n):
        where = rng.choice([len(text), len(text) - rng.randrange(1, 60), 0, rng.randrange(len(text) + 1)])
        where = max(0, min(len(text), where))
        removed = rng.choice([0, 0, 1, 3, 12])
        added = "".join(rng.choice(BITS) for _ in range(rng.choice([0, 1, 1, 2, 4])))
        text = text[:where] + added + text[where + removed :]
        yield text


@pytest.mark.slow(reason="hundreds of edits, each compared afresh")
@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "mistral-7b", "lbpe-llama-32k", "lookahead", "lookbehind"])
def test_random_edits_equal_comparing_afresh(name, encode_path):
    tok = tokenizers()[name]
    rng = random.Random(name)
    again = display.Recompare()
    reused = 0
    texts = [start_text(), *edits(rng, start_text(), 24)]
    for k, text in enumerate(texts):
        specials = k % 9 == 4  # special-token strings as special tokens now and then
        options = {"show_whitespace": k % 11 != 7, "show_ids": k % 13 == 5, "specials": specials}
        got = compare_view(tok, text, again=again, **options)
        reused += again.reused > 0
        want = compare_view(tok, text, **options)
        for key in want:
            assert got[key] == want[key], (name, k, key, text[-40:])
    # most edits reuse the comparison before them (else this tests only the full path)
    assert reused >= len(texts) // 3, reused


def test_a_lookahead_that_moves_earlier_pieces_is_followed(encode_path):
    tok = tokenizers()["lookahead"]
    again = display.Recompare()
    text = "one two three four five six"
    before = again.compare(tok, text)
    after = again.compare(tok, text + "!")
    assert after == display.compare(tok, text + "!")
    # the "!" joined every word to the space before it no longer: the first tokens changed
    assert [s.token for s in after.bpe.segments][:2] == [b"one", b" "]
    assert [s.token for s in before.bpe.segments][:2] == [b"one", b" two"]


@pytest.mark.slow(reason="a long text compared twice")
def test_an_edit_at_the_end_of_a_long_text_keeps_the_segments_before_it(encode_path):
    tok = load_preset("mistral-7b")
    again = display.Recompare()
    text = english_text(0)[60_000:90_000]
    again.compare(tok, text)
    edited = again.compare(tok, text + " tokens")
    assert edited == display.compare(tok, text + " tokens")
    assert again.reused > 0.9 * (edited.bpe.tokens + edited.lbpe.tokens)


def test_another_vocabulary_or_toggle_is_compared_afresh(encode_path):
    gpt2, cl100k = load_preset("gpt2"), load_preset("cl100k_base")
    again = display.Recompare()
    text = "Tokenizers place <|endoftext|> the longest tokens first."
    assert again.compare(gpt2, text) == display.compare(gpt2, text)
    assert again.compare(cl100k, text + " x") == display.compare(cl100k, text + " x")
    assert again.reused == 0
    assert again.compare(cl100k, text + " xy", specials=True) == display.compare(cl100k, text + " xy", specials=True)
    assert again.reused == 0
    assert again.compare(cl100k, text + " xyz", specials=True) == display.compare(cl100k, text + " xyz", specials=True)
    assert again.reused > 0


def test_a_pane_drawn_for_an_older_comparison_is_drawn_afresh(encode_path):
    tok = load_preset("gpt2")
    again = display.Recompare()
    first = again.compare(tok, "one two three")
    again.render_pane(first, "bpe")
    second = again.compare(tok, "one two three four")
    assert again.render_pane(first, "bpe") == display.render_pane(first, "bpe")  # not the last one
    third = again.compare(tok, "one two three four five")  # the pane was last drawn two edits ago
    assert again.render_pane(second, "lbpe") == display.render_pane(second, "lbpe")
    assert again.render_pane(third, "bpe", show_ids=True) == display.render_pane(third, "bpe", show_ids=True)
    assert again.render_pane(third, "bpe", show_ids=True) == display.render_pane(third, "bpe", show_ids=True)


def test_a_lookbehind_that_splits_the_text_after_the_cut_otherwise_is_followed(encode_path):
    tok = tokenizers()["lookbehind"]
    again = display.Recompare()
    again.compare(tok, "one two ")  # the cut falls before "three"
    after = again.compare(tok, "one two three")
    assert after == display.compare(tok, "one two three")
    # "three" on its own would be one piece; after the space its "t" is one
    assert tok.located_pieces("one two three")[-2:] == [("t", 8, 9, False), ("hree", 9, 13, False)]
