"""The browser page's Python (:mod:`lbpe.playground.page`, what its worker calls) with two methods
picked, in CPython: the ids are each method's own (``Tokenizer.encode``), dropout with a seed is
the same every time, the default pair is what it always was, a wrong pair is one readable line,
and a link's pair is read as the app reads it (:func:`lbpe.playground.service.link_state`)."""

from __future__ import annotations

import json

import pytest

from lbpe.errors import LbpeError
from lbpe.playground import page
from lbpe.presets import DEFAULT_PRESET, load_preset

TEXT = "The unbelievably overcomplicated anticonstitutional reorganisation of electroencephalography departments."


@pytest.fixture(scope="module")
def tok():
    page.use_preset(DEFAULT_PRESET)
    return load_preset(DEFAULT_PRESET)


def encoded(tok, method: str, text: str = TEXT, **options) -> list[int]:
    return tok.encode(text, mode=method, disallowed_special=(), **options)


@pytest.mark.parametrize(("left", "right"), [("longest-prefix", "least-tokens"), ("longest-suffix", "lbpe")])
def test_compare_shows_each_methods_own_ids(tok, left, right):
    view = json.loads(page.compare(TEXT, True, False, False, left, right))
    assert view["methods"] == [left, right]
    assert view["summary"]["bpe"]["ids"] == encoded(tok, left)
    assert view["summary"]["lbpe"]["ids"] == encoded(tok, right)
    names = {"longest-prefix": "Longest prefix", "least-tokens": "Least tokens", "longest-suffix": "Longest suffix"}
    assert view["names"] == {"bpe": names.get(left, left.upper()), "lbpe": names.get(right, right.upper())}
    # the panes are labelled by the methods, never as BPE against LBPE
    assert f'<span class="lbpe-mode">{names[left]}</span>' in view["panes"]["bpe"]
    assert 'aria-label="BPE tokens' not in view["panes"]["bpe"]


def test_dropout_with_a_seed_is_cpythons_and_repeats(tok):
    first = json.loads(page.compare(TEXT, True, False, False, "dropout", "bpe", 0.3, 7))
    again = json.loads(page.compare(TEXT, True, False, False, "dropout", "bpe", 0.3, 7))
    want = encoded(tok, "dropout", dropout=0.3, seed=7)
    assert first["summary"]["bpe"]["ids"] == again["summary"]["bpe"]["ids"] == want
    assert first["summary"]["lbpe"]["ids"] == encoded(tok, "bpe")
    assert first["names"]["bpe"] == "BPE-dropout 0.3"
    # a whole number from JavaScript (Pyodide passes 1 as an int) is a rate too
    ones = json.loads(page.compare(TEXT, True, False, False, "bpe", "dropout", 1, 0))
    assert ones["summary"]["lbpe"]["ids"] == encoded(tok, "dropout", dropout=1.0, seed=0)


def test_the_default_pair_is_the_classic_view(tok):
    plain = json.loads(page.compare(TEXT, True, False, False))
    paired = json.loads(page.compare(TEXT, True, False, False, "bpe", "lbpe", None, None))
    assert plain == paired
    assert plain["methods"] == ["bpe", "lbpe"] and plain["names"] == {"bpe": "BPE", "lbpe": "LBPE"}
    assert plain["summary"]["bpe"]["ids"] == encoded(tok, "bpe")


@pytest.mark.slow(reason="a long text through both methods")
def test_a_long_text_is_counted_in_full_by_the_pair(tok):
    text = (TEXT + "\n") * (page.MAX_RENDER_CHARS // len(TEXT) + 50)
    view = json.loads(page.compare(text, True, False, False, "least-tokens", "dropout", 0.2, 3))
    assert view["shown_chars"] < len(text)
    assert view["whole"] == {
        "bpe": len(encoded(tok, "least-tokens", text)),
        "lbpe": len(encoded(tok, "dropout", text, dropout=0.2, seed=3)),
    }


@pytest.mark.parametrize(
    ("left", "right", "rate", "seed", "says"),
    [
        ("nonsense", "lbpe", None, None, "unknown inference method 'nonsense'"),
        ("bpe", "bpe", None, None, "compare two different methods"),
        ("dropout", "lbpe", 2.0, 0, "dropout must be a number from 0 to 1"),
        ("bpe", "lbpe", 0.1, None, "only applies when one of the methods is dropout"),
    ],
)
def test_a_wrong_pair_is_one_readable_line(tok, left, right, rate, seed, says):
    with pytest.raises(LbpeError, match=says):
        page.compare(TEXT, True, False, False, left, right, rate, seed)


def test_a_link_pair_is_read_as_the_app_reads_it():
    assert json.loads(page.link_methods("longest-suffix,lbpe", "", "")) == {
        "methods": ["longest-suffix", "lbpe"],
        "dropout": None,
        "seed": None,
        "error": "",
    }
    assert json.loads(page.link_methods("dropout,bpe", "0.25", "11")) == {
        "methods": ["dropout", "bpe"],
        "dropout": 0.25,
        "seed": 11,
        "error": "",
    }
    for spec, rate in (("nonsense", ""), ("dropout,lbpe", "abc"), ("dropout,lbpe", "3")):
        got = json.loads(page.link_methods(spec, rate, ""))
        assert got["methods"] == ["bpe", "lbpe"] and got["dropout"] is None and got["seed"] is None
        assert spec in got["error"] and "BPE and LBPE are shown" in got["error"], got
    # a rate that is not a number is named as the link gave it
    assert "dropout rate “abc” is not a number" in json.loads(page.link_methods("dropout,lbpe", "abc"))["error"]
    # a pair that is no pair is named before a rate that is no number
    for spec, says in (
        ("bpe,lbpe,dropout", "methods must be two inference methods"),
        ("dropout,dropout", "compare two different methods"),
        ("dropout,nope", "unknown inference method 'nope'"),
    ):
        error = json.loads(page.link_methods(spec, "x", ""))["error"]
        assert says in error and "not a number" not in error, error


def test_explaining_a_click_under_another_pair_widens_to_bpe_and_lbpe(tok):
    # the steps are BPE's and LBPE's: the span a click picks is one where those two differ (or its
    # word), as with the default pair, not one where the pair on show differs
    at = TEXT.index("anticonstitutional") + 3
    json.loads(page.compare(TEXT, True, False, False))
    classic = json.loads(page.explain_at(TEXT, at))
    json.loads(page.compare(TEXT, True, False, False, "longest-prefix", "least-tokens"))
    assert json.loads(page.explain_at(TEXT, at)) == classic
