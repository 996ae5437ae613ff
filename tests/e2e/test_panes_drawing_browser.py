"""A long pane in Chromium: its runs of whole lines are laid out and painted only near the view,
and the page looks exactly as if every token were drawn in one flow."""

from __future__ import annotations

import pytest

from lbpe.playground import display
from lbpe.presets import DEFAULT_PRESET, load_preset
from tests.support.data import data_file, english_text

pytestmark = pytest.mark.slow(reason="Chromium lays out long panes")

#: The panes as they were before runs of lines were blocks: every run inline.
ONE_FLOW = """
.lbpe-run.lbpe-lines { display: inline; content-visibility: visible; margin: 0; }
.lbpe-lines + .lbpe-run > .lbpe-tok:first-child,
.lbpe-eol + .lbpe-lines > .lbpe-tok:first-child { margin-left: 1px; }
"""

#: Every block drawn (the layout of the blocks themselves, nothing skipped).
ALL_DRAWN = ".lbpe-run.lbpe-lines { content-visibility: visible; }"

#: Each token's first box: left, top, width, height (to the pixel), from the pane's own origin.
BOXES = """() => { const box = document.querySelector('.lbpe-tokens'); const o = box.getBoundingClientRect();
  return [...box.querySelectorAll('.lbpe-tok')].map((t) => { const r = t.getClientRects()[0];
    return [t.dataset.s, Math.round(r.left - o.left), Math.round(r.top - o.top + box.scrollTop),
            Math.round(r.width), Math.round(r.height)].join(' '); }); }"""


def texts() -> list[tuple[str, str]]:
    return [
        ("english", english_text(0)[:50_000]),
        ("code", data_file("text/code.txt").read_text("utf-8")[:30_000]),
        # lines longer than the pane: wrapped lines inside the blocks; Windows line ends
        ("long lines", english_text(0)[:40_000].replace("\n\n", "\r\n").replace("\n", " ")),
    ]


def pane_markup(text: str, *, show_whitespace: bool = True, show_ids: bool = False) -> str:
    c = display.compare(load_preset(DEFAULT_PRESET), text)
    return display.render_pane(c, "lbpe", show_whitespace=show_whitespace, show_ids=show_ids)


def beside_glyphless_line_ends(text: str, moved: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``moved`` without the pairs of a token and the newline token after it that both moved.
    Without glyphs a newline token has no width: in one flow Chromium may wrap a full line
    before it (against UAX 14's rule 6: no break before a hard line break), leaving it alone on
    the next line, where inside a block it wraps before the token in front of it instead."""
    ends = {s.start: s.end for s in display.compare(load_preset(DEFAULT_PRESET), text).lbpe.segments}
    starts = {int(a.split()[0]) for a, _ in moved}
    fronts = {s for s in starts if ends[s] in starts and text[ends[s]] == "\n"}
    return [(a, b) for a, b in moved if int(a.split()[0]) not in fronts | {ends[s] for s in fronts}]


def open_pane(browser, markup: str, css: str = "", *, width: int = 1400):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.set_content(f"<style>{display.CSS}\n{css}</style><div style='width: 48%'>{markup}</div>")
    return page


@pytest.mark.parametrize("width", [1400, 390])
@pytest.mark.parametrize(("show_whitespace", "show_ids"), [(True, False), (False, False), (True, True)])
def test_a_long_pane_looks_as_one_flow_of_tokens(browser, width, show_whitespace, show_ids):
    """Every token stands where it stood when the whole pane was one flow of inline tokens, on a
    wide and a narrow screen, with and without whitespace glyphs and ids."""
    blocks = 0
    for name, text in texts():
        markup = pane_markup(text, show_whitespace=show_whitespace, show_ids=show_ids)
        blocks += markup.count("lbpe-run lbpe-lines")
        shown = {}
        for css in (ONE_FLOW, ALL_DRAWN):
            page = open_pane(browser, markup, css, width=width)
            shown[css] = page.evaluate(BOXES)
            page.close()
        moved = [(a, b) for a, b in zip(shown[ONE_FLOW], shown[ALL_DRAWN], strict=True) if a != b]
        if not show_whitespace:
            moved = beside_glyphless_line_ends(text, moved)
        assert not moved, (name, len(moved), moved[:5])
    if show_ids:  # a token's id is drawn after its line end: no run ends a line
        assert blocks == 0
    else:
        assert blocks > 30, "the texts no longer make blocks of lines: this test tests nothing"


def test_a_long_pane_draws_only_the_lines_near_the_view(browser):
    """After a comparison of 50,000 characters, the blocks of lines far below the view are
    neither laid out nor painted (the page once stood still for seconds drawing every token);
    scrolled to the end, the pane draws the last block, and the first is skipped then."""
    page = open_pane(browser, pane_markup(english_text(0)[:50_000]))
    blocks = page.locator(".lbpe-lines")
    assert blocks.count() > 30
    visible = """(k) => { const b = document.querySelectorAll('.lbpe-lines')[k];
      return b.querySelector('.lbpe-tok').checkVisibility({ contentVisibilityAuto: true }); }"""
    page.wait_for_function(f"() => ({visible})(0)")
    assert not page.evaluate(visible, -1 + blocks.count())
    page.evaluate("() => { const box = document.querySelector('.lbpe-tokens'); box.scrollTop = box.scrollHeight; }")
    page.wait_for_function(f"() => ({visible})({blocks.count() - 1}) && !({visible})(0)")
    page.close()
