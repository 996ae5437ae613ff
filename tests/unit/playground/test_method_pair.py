"""The Compare view of any two inference methods (``compare_view(..., methods=(left, right))``):
the default pair is the classic view unchanged; another pair shows each method's own tokens
(the ids ``Tokenizer.encode`` gives, tested on its own), under the methods' names; an edit or a
change of the pair gives what comparing afresh gives."""

from __future__ import annotations

import re

import pytest

import lbpe
from lbpe.errors import LbpeError
from lbpe.playground import display
from lbpe.playground.service import compare_view
from lbpe.presets import load_preset

#: Long words the methods split differently with cl100k_base (longest-prefix: 23 tokens,
#: least-tokens: 19; BPE 21, LBPE 19).
TEXT = (
    "The unbelievably overcomplicated anticonstitutional reorganisation of electroencephalography departments "
    "continues."
)
NAMES = {
    "bpe": "BPE",
    "lbpe": "LBPE",
    "longest-prefix": "Longest prefix",
    "longest-suffix": "Longest suffix",
    "least-tokens": "Least tokens",
}
PAIRS = [
    ("longest-prefix", "least-tokens"),
    ("least-tokens", "longest-prefix"),
    ("lbpe", "bpe"),
    ("bpe", "longest-suffix"),
    ("longest-suffix", "lbpe"),
]


@pytest.fixture(scope="module")
def tok():
    return load_preset("cl100k_base")


def pane_ids(pane: str) -> list[int]:
    """The ids a pane lists, in order (each token box's ``data-i``)."""
    return [int(i) for group in re.findall(r'data-i="([^"]*)"', pane) for i in group.split()]


def encoded(tok, text: str, method: str, **options) -> list[int]:
    return tok.encode(text, mode=method, disallowed_special=(), **options)


def test_the_default_pair_is_the_classic_view(tok):
    view = compare_view(tok, TEXT)
    assert view["methods"] == ["bpe", "lbpe"]
    assert compare_view(tok, TEXT, methods=("bpe", "lbpe")) == view
    assert compare_view(tok, TEXT, methods=["bpe", "lbpe"], dropout=None, seed=None) == view
    for mode in ("bpe", "lbpe"):
        assert pane_ids(view["panes"][mode]) == encoded(tok, TEXT, mode)
        assert "data-method" not in view["panes"][mode]
    assert '<span class="lbpe-mode">BPE</span>' in view["panes"]["bpe"]
    assert '<span class="lbpe-mode">LBPE</span>' in view["panes"]["lbpe"]
    assert "<th>paper predicts</th>" in view["metrics"]
    assert "methods" not in view["summary"]


@pytest.mark.parametrize("pair", PAIRS, ids="-".join)
def test_a_pair_shows_each_methods_tokens_under_its_name(tok, pair):
    left, right = pair
    want = {"bpe": encoded(tok, TEXT, left), "lbpe": encoded(tok, TEXT, right)}
    assert want["bpe"] != want["lbpe"]  # the text tells these methods apart
    view = compare_view(tok, TEXT, methods=pair)
    assert view["methods"] == [left, right]
    assert view["summary"]["methods"] == [left, right]
    for role, method in (("bpe", left), ("lbpe", right)):
        pane = view["panes"][role]
        assert pane_ids(pane) == want[role]
        assert view["summary"][role]["ids"] == want[role]
        assert f'data-tokens="{len(want[role])}"' in pane
        assert f'data-method="{method}"' in pane
        assert f'<span class="lbpe-mode">{NAMES[method]}</span>' in pane
        assert f'aria-label="{NAMES[method]} tokens:' in pane
    assert view["summary"]["token_change"] == len(want["lbpe"]) - len(want["bpe"])
    heads = f"<th>{NAMES[left]}</th><th>{NAMES[right]}</th><th>{NAMES[right]} \u2212 {NAMES[left]}</th>"
    assert view["metrics"].count(heads) == 2  # the table and its folded section
    assert "paper predicts" not in view["metrics"]
    assert f"{NAMES[right]} {len(want['lbpe']) - len(want['bpe']):+d} token" in view["differences"]
    assert [t["name"] for t in view["figure"]["data"]] == [NAMES[left], NAMES[right]] * 2
    assert NAMES[right] + "'s change" in view["figure"]["layout"]["yaxis"]["title"]["text"]
    assert [t["name"] for t in view["frequency_figure"]["data"]] == [NAMES[left], NAMES[right]]


def test_a_pair_without_bpe_or_lbpe_never_says_bpe_or_lbpe(tok):
    view = compare_view(tok, TEXT, methods=("longest-prefix", "least-tokens"))
    shown = view["panes"]["bpe"] + view["panes"]["lbpe"] + view["metrics"] + view["differences"]
    assert not re.search(r"\bL?BPE\b", shown)
    figures = str(view["figure"]) + str(view["frequency_figure"])
    assert not re.search(r"\bL?BPE\b", figures.replace("paper's", ""))


def test_a_pair_that_agrees_says_so_by_name(tok):
    view = compare_view(tok, "hello", methods=("longest-prefix", "least-tokens"))
    assert encoded(tok, "hello", "longest-prefix") == encoded(tok, "hello", "least-tokens")
    assert "Longest prefix and Least tokens agree here" in view["differences"]


def test_dropout_takes_its_rate_and_seed(tok):
    view = compare_view(tok, TEXT, methods=("bpe", "dropout"), dropout=0.3, seed=7)
    assert pane_ids(view["panes"]["bpe"]) == encoded(tok, TEXT, "bpe")
    assert pane_ids(view["panes"]["lbpe"]) == encoded(tok, TEXT, "dropout", dropout=0.3, seed=7)
    assert '<span class="lbpe-mode">BPE-dropout 0.3</span>' in view["panes"]["lbpe"]
    assert (view["summary"]["dropout"], view["summary"]["seed"]) == (0.3, 7)
    left = compare_view(tok, TEXT, methods=("dropout", "lbpe"), dropout=1.0, seed=0)
    assert pane_ids(left["panes"]["bpe"]) == encoded(tok, TEXT, "dropout", dropout=1.0, seed=0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"methods": ("lbpe", "lbpe")}, "compare two different methods, not 'lbpe' with itself"),
        ({"methods": ("bpe", "fastest")}, "unknown inference method 'fastest'; the methods are bpe, lbpe"),
        ({"methods": ("bpe",)}, "methods must be two inference methods"),
        ({"methods": ("bpe", "lbpe", "least-tokens")}, "methods must be two inference methods"),
        ({"methods": "bpe,lbpe"}, "methods must be two inference methods"),
        ({"methods": ("bpe", "dropout")}, "needs a rate"),
        ({"methods": ("bpe", "dropout"), "dropout": 2.0}, "dropout must be a number from 0 to 1"),
        ({"methods": ("bpe", "lbpe"), "dropout": 0.1}, "a dropout only applies when one of the methods is dropout"),
        ({"methods": ("bpe", "least-tokens"), "seed": 3}, "a seed only applies when one of the methods is dropout"),
    ],
)
def test_a_wrong_pair_is_a_one_line_error(tok, options, message):
    with pytest.raises(LbpeError, match=re.escape(message)) as caught:
        compare_view(tok, TEXT, **options)
    assert "\n" not in str(caught.value)


def fresh(tok, text, **options):
    return compare_view(tok, text, **options)


EDITS = [
    TEXT,
    TEXT + " And the electroencephalographers",
    TEXT.replace("unbelievably", "unbelievable"),
    "Overcomplicated " + TEXT,
    TEXT[:40],
]


@pytest.mark.parametrize("pair", [("bpe", "lbpe"), ("longest-prefix", "least-tokens"), ("least-tokens", "bpe")])
def test_edits_with_a_pair_give_what_comparing_afresh_gives(tok, pair):
    again = display.Recompare()
    for text in EDITS:
        assert compare_view(tok, text, methods=pair, again=again) == fresh(tok, text, methods=pair)
        assert pane_ids(compare_view(tok, text, methods=pair, again=again)["panes"]["lbpe"]) == encoded(
            tok, text, pair[1]
        )


def test_an_edit_keeps_the_work_before_it_for_another_pair(tok):
    again = display.Recompare()
    pair = ("longest-prefix", "least-tokens")
    compare_view(tok, TEXT, methods=pair, again=again)
    compare_view(tok, TEXT + " More.", methods=pair, again=again)
    assert again.reused > 0


def test_a_pair_change_after_an_edit_starts_afresh(tok):
    again = display.Recompare()
    compare_view(tok, TEXT, again=again)
    compare_view(tok, TEXT + " More words", again=again)
    # the same text with another pair: what that pair gives afresh, nothing kept from the last
    for pair in [("longest-prefix", "least-tokens"), ("least-tokens", "longest-prefix"), ("bpe", "lbpe")]:
        got = compare_view(tok, TEXT + " More words", methods=pair, again=again)
        assert again.reused == 0
        assert got == fresh(tok, TEXT + " More words", methods=pair)
        assert pane_ids(got["panes"]["bpe"]) == encoded(tok, TEXT + " More words", pair[0])
    # and an edit together with a pair change
    got = compare_view(tok, TEXT + " More", methods=("lbpe", "longest-suffix"), again=again)
    assert got == fresh(tok, TEXT + " More", methods=("lbpe", "longest-suffix"))


def test_dropout_is_compared_afresh_on_every_edit(tok):
    again = display.Recompare()
    options = {"methods": ("bpe", "dropout"), "dropout": 0.2, "seed": 11}
    for text in EDITS:
        got = compare_view(tok, text, again=again, **options)
        assert again.reused == 0
        assert got == fresh(tok, text, **options)
        assert pane_ids(got["panes"]["lbpe"]) == encoded(tok, text, "dropout", dropout=0.2, seed=11)
    # another seed is another comparison
    got = compare_view(tok, EDITS[-1], again=again, methods=("bpe", "dropout"), dropout=0.2, seed=12)
    assert pane_ids(got["panes"]["lbpe"]) == encoded(tok, EDITS[-1], "dropout", dropout=0.2, seed=12)


def test_every_method_is_named():
    assert set(display.METHOD_NAMES) == set(lbpe.METHODS)
