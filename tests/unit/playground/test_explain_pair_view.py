"""The Explain view with a pair other than BPE and LBPE (lbpe.playground.service.explain_view and
explain_target, and the page's explain and explain_at that the worker calls): each method's own
steps under its name, the ids of each side the method's own, and BPE with LBPE as before."""

from __future__ import annotations

import json

import pytest

from lbpe.analysis.explain import explain
from lbpe.errors import LbpeError
from lbpe.playground import display, page
from lbpe.playground.service import explain_target, explain_view
from lbpe.presets import DEFAULT_PRESET, load_preset

TEXT = "The unbelievably overcomplicated reorganisation of electroencephalography departments."


@pytest.fixture(scope="module")
def tok():
    return load_preset("cl100k_base")


def side_ids(steps: dict, side: int) -> list[int]:
    return [i for piece in steps["pieces"] for i in piece["sides"][side]["ids"]]


def test_the_classic_pair_is_the_view_it_always_was(tok):
    view = explain_view(tok, " Capitals")
    assert explain_view(tok, " Capitals", methods=("bpe", "lbpe")) == view
    assert view["steps"] == explain(tok, " Capitals").to_json()


@pytest.mark.parametrize(
    ("pair", "options"),
    [
        (("longest-prefix", "least-tokens"), {}),
        (("least-tokens", "bpe"), {}),
        (("dropout", "longest-suffix"), {"dropout": 0.25, "seed": 11}),
    ],
)
def test_another_pair_shows_each_methods_own_steps(tok, pair, options):
    view = explain_view(tok, TEXT, methods=pair, **options)
    steps = view["steps"]
    assert steps["methods"] == list(pair)
    for side, method in enumerate(pair):
        want = tok.encode(TEXT, mode=method, allowed_special="all", **(options if method == "dropout" else {}))
        assert side_ids(steps, side) == want
    assert view["frame"] == view["frames"] - 1 == max(len(s["steps"]) for p in steps["pieces"] for s in p["sides"])
    for method in pair:
        name = display.METHOD_NAMES[method]
        assert f'data-method="{method}"><div class="lbpe-x-label lbpe-x-method">{name}' in view["html"]
    first = explain_view(tok, TEXT, 0, methods=pair, **options)
    assert first["frame"] == 0 and "<li" not in first["html"]  # no step taken yet


def test_a_click_widens_to_boundaries_the_pair_shares(tok):
    text = "The antidisestablishmentarianism of electroencephalography"
    at = text.index("electro") + 3
    target = explain_target(tok, text, at, methods=("longest-suffix", "least-tokens"))
    a, b = target["start"], target["end"]
    assert a <= at < b and target["span"] == text[a:b]
    view = explain_view(tok, target["span"], text=text, at=a, methods=("longest-suffix", "least-tokens"))
    for side, method in enumerate(("longest-suffix", "least-tokens")):
        inside = [s.id for s in tok.segment(text, mode=method, disallowed_special=()) if a <= s.start and s.end <= b]
        assert side_ids(view["steps"], side) == inside


def test_a_wrong_pair_is_refused(tok):
    with pytest.raises(LbpeError, match="two different methods"):
        explain_view(tok, "x", methods=("least-tokens", "least-tokens"))
    with pytest.raises(LbpeError, match="only applies"):
        explain_view(tok, "x", methods=("least-tokens", "lbpe"), dropout=0.1)


def test_the_page_explains_the_pair_it_compares():
    page.use_preset(DEFAULT_PRESET)
    tok = load_preset(DEFAULT_PRESET)
    text = "Capitals of the reorganisation"
    json.loads(page.compare(text, True, False, False, "longest-prefix", "least-tokens"))
    picked = json.loads(page.explain_at(text, text.index("reorg") + 2, False, "longest-prefix", "least-tokens"))
    view = json.loads(page.explain(picked["span"], -1, text, picked["start"], False, "longest-prefix", "least-tokens"))
    a, b = picked["start"], picked["start"] + len(picked["span"])
    for side, method in enumerate(("longest-prefix", "least-tokens")):
        inside = [s.id for s in tok.segment(text, mode=method, disallowed_special=()) if a <= s.start and s.end <= b]
        assert side_ids(view["steps"], side) == inside
    # BPE-dropout from JavaScript: the rate and seed as numbers, the draws those of encode
    view = json.loads(page.explain(text, -1, "", -1, False, "bpe", "dropout", 1, 0))
    assert side_ids(view["steps"], 1) == tok.encode(text, mode="dropout", dropout=1.0, seed=0)
    # the classic pair: the view it always was
    assert json.loads(page.explain(" Capitals"))["steps"] == explain(tok, " Capitals").to_json()
