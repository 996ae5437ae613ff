"""The browser page's Python for the Across view's methods axis (:func:`lbpe.playground.page.across_methods`
and :func:`~lbpe.playground.page.link_axis`, what its worker calls), in CPython: the table and
figure are :func:`lbpe.playground.service.methods_view`'s own (so the app's and ``lbpe stats
--methods``'), each row's tokens are that method's ``Tokenizer.encode``, a long text is measured on
its shown part, a wrong choice is one readable line, and a link's axis is read as the app reads it
(:func:`lbpe.playground.service.link_state`)."""

from __future__ import annotations

import json

import pytest

from lbpe.errors import LbpeError
from lbpe.playground import page
from lbpe.playground.service import methods_view
from lbpe.presets import DEFAULT_PRESET, load_preset
from lbpe.tokenizer import METHODS

TEXT = "The unbelievably overcomplicated anticonstitutional reorganisation of electroencephalography departments."


@pytest.fixture(scope="module")
def tok():
    page.use_preset(DEFAULT_PRESET)
    return load_preset(DEFAULT_PRESET)


def tokens(tok, method: str, text: str = TEXT, **options) -> int:
    return len(tok.encode(text, mode=method, disallowed_special=(), **options))


def test_every_method_by_default_each_rows_tokens_its_own(tok):
    view = json.loads(page.across_methods(TEXT))
    assert view["methods"] == list(METHODS)
    assert [row[0] for row in view["rows"]] == list(METHODS)
    for method, row in zip(METHODS, view["rows"], strict=True):
        options = {"dropout": 0.1, "seed": 0} if method == "dropout" else {}
        assert row[1] == tokens(tok, method, **options), method
    assert view["stats"]["dropout"] == 0.1 and view["stats"]["seed"] == 0  # the view's defaults
    assert view["shown_chars"] == len(TEXT) and view["vocab"] == tok.name
    assert view["stem"] == f"text-{DEFAULT_PRESET}"


def test_the_ticked_methods_are_the_views_own_numbers(tok):
    view = json.loads(page.across_methods(TEXT, "bpe,least-tokens,dropout", 0.3, 7))
    want = methods_view(tok, text=TEXT, methods="bpe,least-tokens,dropout", dropout=0.3, seed=7)
    assert view["methods"] == ["bpe", "least-tokens", "dropout"]
    assert view["rows"] == want["rows"] and view["headers"] == want["headers"] and view["types"] == want["types"]
    assert view["csv"] == want["csv"] and view["stats"] == want["stats"]
    assert json.loads(view["json"]) == json.loads(want["json"])
    assert view["rows"][2][1] == tokens(tok, "dropout", dropout=0.3, seed=7)
    assert [bar["name"] for bar in view["figure"]["data"]] == [bar["name"] for bar in want["figure"]["data"]]
    # a whole number from JavaScript (Pyodide passes 1 as an int) is a rate too
    ones = json.loads(page.across_methods(TEXT, "dropout", 1, 0))
    assert ones["rows"][0][1] == tokens(tok, "dropout", dropout=1.0, seed=0)


def test_dropout_options_without_dropout_are_ignored(tok):
    # the page's hidden boxes keep their values, as the app's form does
    plain = json.loads(page.across_methods(TEXT, "bpe,lbpe"))
    boxed = json.loads(page.across_methods(TEXT, "bpe,lbpe", 0.5, 3))
    assert plain["rows"] == boxed["rows"] and boxed["stats"]["dropout"] is None


def test_a_long_text_is_measured_on_its_shown_part(tok):
    text = (TEXT + "\n") * (page.MAX_RENDER_CHARS // len(TEXT) + 50)
    view = json.loads(page.across_methods(text, "bpe,lbpe"))
    assert view["shown_chars"] < len(text)
    shown = text[: view["shown_chars"]]
    assert shown.endswith("\n")
    assert [row[1] for row in view["rows"]] == [tokens(tok, "bpe", shown), tokens(tok, "lbpe", shown)]


@pytest.mark.parametrize(
    ("methods", "rate", "says"),
    [
        ("bpe,lbpee", None, "unknown method 'lbpee' \\(did you mean lbpe\\?\\)"),
        ("", None, "no method given"),
        ("dropout", 2.0, "dropout rate must be a number from 0 to 1"),
        ("dropout", None, "the dropout method needs a rate"),
    ],
)
def test_a_wrong_choice_is_one_readable_line(tok, methods, rate, says):
    with pytest.raises(LbpeError, match=says):
        page.across_methods(TEXT, methods, rate, 0)


def test_an_empty_text_asks_for_one(tok):
    with pytest.raises(LbpeError, match="Type or paste a text first"):
        page.across_methods("   ")


def test_a_links_axis_is_read_as_the_app_reads_it():
    every = list(METHODS)
    assert json.loads(page.link_axis("methods")) == {
        "axis": "methods",
        "methods": every,
        "dropout": None,
        "seed": None,
        "error": "",
    }
    assert json.loads(page.link_axis("methods", "lbpe,dropout", "0.3", "7")) == {
        "axis": "methods",
        "methods": ["lbpe", "dropout"],
        "dropout": 0.3,
        "seed": 7,
        "error": "",
    }
    # every method (no ms) keeps dropout's rate and seed, as both UIs write them
    every_link = json.loads(page.link_axis("methods", "", "0.3", "7"))
    assert (every_link["methods"], every_link["dropout"], every_link["seed"]) == (every, 0.3, 7)
    # without a seed: fresh draws
    assert json.loads(page.link_axis("methods", "dropout", "0.05"))["seed"] is None
    assert json.loads(page.link_axis("vocabularies", "bpe"))["axis"] == "vocabularies"


@pytest.mark.parametrize(
    ("axis", "spec", "rate", "axis_shown", "says"),
    [
        ("methods", "bpe,lbpee", "", "methods", "did you mean lbpe?"),
        ("methods", "bpe,dropout", "abc", "methods", "dropout rate “abc” is not a number"),
        ("methods", "bpe,dropout", "7", "methods", "from 0 to 1"),
        ("sideways", "bpe", "", "vocabularies", "vocabularies or methods"),
    ],
)
def test_a_bad_link_says_why_and_opens_on_a_default(axis, spec, rate, axis_shown, says):
    got = json.loads(page.link_axis(axis, spec, rate))
    assert got["axis"] == axis_shown and got["methods"] == list(METHODS)
    assert got["dropout"] is None and got["seed"] is None
    assert says in got["error"], got["error"]
    assert (spec if axis == "methods" else axis) in got["error"]
