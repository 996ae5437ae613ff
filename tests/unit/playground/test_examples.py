"""The shared examples: each must show a difference with the vocabulary it names."""

from __future__ import annotations

import pytest

from lbpe.analysis.explain import explain
from lbpe.errors import LbpeError
from lbpe.playground.display import compare
from lbpe.playground.examples import DEFAULT_EXAMPLE, EXAMPLES, example, examples_json
from lbpe.presets import VOCAB_PRESETS, load_preset


@pytest.mark.parametrize("item", EXAMPLES, ids=[e.key for e in EXAMPLES])
def test_each_example_differs_with_its_vocabulary(item):
    assert item.vocabulary in VOCAB_PRESETS
    tok = load_preset(item.vocabulary)
    c = compare(tok, item.text)
    assert c.differ, f"BPE and LBPE split example {item.key!r} alike with {item.vocabulary}"
    assert item.explain in item.text
    assert any(p.differs for p in explain(tok, item.explain).pieces)


def test_the_set_covers_what_users_try():
    scripts = {
        "han": lambda t: any("\u4e00" <= c <= "\u9fff" for c in t),
        "kana": lambda t: any("\u30a0" <= c <= "\u30ff" for c in t),
        "cyrillic": lambda t: any("\u0400" <= c <= "\u04ff" for c in t),
        "emoji": lambda t: any(ord(c) >= 0x1F300 for c in t),
        "tab": lambda t: "\t" in t,
        "code": lambda t: "def " in t,
    }
    for name, has in scripts.items():
        assert any(has(e.text) for e in EXAMPLES), name
    assert len({e.key for e in EXAMPLES}) == len(EXAMPLES)
    assert DEFAULT_EXAMPLE.explain.strip() == "Capitals"
    assert [d["key"] for d in examples_json()] == [e.key for e in EXAMPLES]


def test_unknown_example_names_the_choices():
    with pytest.raises(LbpeError, match="the examples are: paper, english"):
        example("nope")
