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


def test_the_page_explain_box_says_how_much_it_holds():
    """As the app's box: the browser cuts a longer paste at maxlength without a word, so the box
    says the limit, which is Explain's own."""
    import re

    from lbpe.analysis.explain import MAX_EXPLAIN_CHARS

    html = (ROOT / "static" / "index.html").read_text(encoding="utf-8")
    box = re.search(r'<input[^>]*id="explain-text"[^>]*>', html).group(0)
    assert f'maxlength="{MAX_EXPLAIN_CHARS}"' in box and MAX_EXPLAIN_CHARS == 400
    assert "up to 400 characters" in re.search(r'placeholder="([^"]*)"', box).group(1), box
    label = re.search(r'<label for="explain-text"[^>]*>([^<]*)</label>', html).group(1)
    assert "up to 400 characters" in label, label
