"""The line above Explain, in the app and on the page, holds for every pair of methods: Explain
shows each method's own steps, so the line may not promise BPE's merges and LBPE's windows
whatever the pair."""

from __future__ import annotations

from tests.support.data import ROOT

PROMISE = "each by its own method's steps"


def test_the_page_says_each_method_shows_its_own_steps():
    html = " ".join((ROOT / "static" / "index.html").read_text(encoding="utf-8").split())
    assert PROMISE in html
    assert "BPE's merges in priority order next to LBPE's windows" not in html


def test_the_app_says_each_method_shows_its_own_steps():
    source = (ROOT / "lbpe" / "playground" / "app" / "tabs" / "compare.py").read_text(encoding="utf-8")
    text = " ".join(part.strip().strip('"') for part in source.splitlines())
    assert PROMISE in text.replace('" "', "")
    assert "BPE's merges in priority order next to LBPE's windows" not in text
