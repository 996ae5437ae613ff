"""A long pane in Chromium: its runs of whole lines are laid out and painted only near the view,
and the page looks and answers the pointer as if every token were drawn in one flow."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image  # Gradio's own dependency, there wherever the browser tests run

from lbpe.playground import display
from lbpe.presets import DEFAULT_PRESET, load_preset
from lbpe.tokenizer import Segment
from tests.support.data import data_file, english_text

pytestmark = pytest.mark.slow(reason="Chromium lays out long panes")

#: The page script that draws and links the panes.
PANES_JS = (Path(display.__file__).parent / "panes.js").read_text("utf-8")

#: Every block drawn: the blocks' own layout, nothing skipped.
ALL_DRAWN = ".lbpe-run.lbpe-lines { content-visibility: visible; }"

#: The runs taken out, their tokens left in place: one flow of tokens, as the panes were drawn
#: before they had runs.
UNWRAP = (
    """() => { for (const run of [...document.querySelectorAll('.lbpe-run')]) run.replaceWith(...run.childNodes); }"""
)

#: Each token's and gap's first box: left, top, width, height (to the pixel) in the pane's
#: scrolled area.
BOXES = """() => { const box = document.querySelector('.lbpe-tokens'); const o = box.getBoundingClientRect();
  return [...box.querySelectorAll('.lbpe-tok, .lbpe-gap')].map((t) => { const r = t.getClientRects()[0];
    return [t.className.split(' ')[0], t.dataset.s, Math.round(r.left - o.left),
            Math.round(r.top - o.top + box.scrollTop), Math.round(r.width), Math.round(r.height)].join(' '); }); }"""


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


def with_gaps() -> str:
    """A long pane whose every line starts with a character no token covers (as a normaliser
    that drops characters leaves them), drawn as a gap."""
    text = "0123456789\n" * 100
    segments = [Segment(ord(c), k, k + 1, c.encode()) for k, c in enumerate(text) if k % 11]
    return display.render_html(segments, text)


def beside_glyphless_line_ends(text: str, moved: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``moved`` without the pairs of a token and the newline token after it that both moved.
    Without glyphs a newline token has no width: in one flow Chromium may wrap a full line
    before it (against UAX 14's rule 6: no break before a hard line break), leaving it alone on
    the next line, where inside a block it wraps before the token in front of it instead."""
    ends = {s.start: s.end for s in display.compare(load_preset(DEFAULT_PRESET), text).lbpe.segments}
    starts = {int(a.split()[1]) for a, _ in moved}
    fronts = {s for s in starts if ends[s] in starts and text[ends[s]] == "\n"}
    return [(a, b) for a, b in moved if int(a.split()[1]) not in fronts | {ends[s] for s in fronts}]


def open_pane(browser, markup: str, css: str = "", *, width: int = 1400):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.set_content(f"<style>{display.CSS}\n{css}</style><div style='width: 48%'>{markup}</div>")
    return page


def boxes(browser, markup: str, *, width: int) -> tuple[list[str], list[str]]:
    """The boxes with every block drawn, then with the runs taken out (one page for both)."""
    page = open_pane(browser, markup, ALL_DRAWN, width=width)
    drawn = page.evaluate(BOXES)
    page.evaluate(UNWRAP)
    flow = page.evaluate(BOXES)
    page.close()
    return drawn, flow


@pytest.mark.parametrize("width", [1400, 390])
@pytest.mark.parametrize("show_whitespace", [True, False])
def test_a_long_pane_looks_as_one_flow_of_tokens(browser, width, show_whitespace):
    """Every token and gap stands where it stands when the runs are taken out and the tokens
    are one flow, on a wide and a narrow screen, with and without whitespace glyphs."""
    cases = [(name, text, pane_markup(text, show_whitespace=show_whitespace)) for name, text in texts()]
    if show_whitespace:
        cases.append(("gaps", "", with_gaps()))
    blocks = 0
    for name, text, markup in cases:
        blocks += markup.count("lbpe-run lbpe-lines")
        drawn, flow = boxes(browser, markup, width=width)
        moved = [(a, b) for a, b in zip(flow, drawn, strict=True) if a != b]
        if not show_whitespace:
            moved = beside_glyphless_line_ends(text, moved)
        assert not moved, (name, len(moved), moved[:5])
    assert blocks > 30, "the texts no longer make blocks of lines: this test tests nothing"


def test_ids_after_tokens_leave_every_run_inline():
    """A token's id is drawn after its line end, so no run ends a line: no blocks."""
    markup = pane_markup(english_text(0)[:20_000], show_ids=True)
    assert markup.count('class="lbpe-run') > 5 and "lbpe-lines" not in markup


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


#: The first token of every run and the first token of every line in the pane: where a run
#: begins, next to a block's edge, or over the line a block's last line end leaves.
EDGES = """() => { const box = document.querySelector('.lbpe-tokens'); let last = -1; const out = [];
  for (const t of box.querySelectorAll('.lbpe-tok')) { const top = t.getClientRects()[0].top;
    if (top !== last || t.previousElementSibling === null) out.push(Number(t.dataset.s)); last = top; }
  return out; }"""


@pytest.mark.parametrize("width", [1400, 390])
def test_the_pointer_reaches_every_token_at_a_runs_edge(browser, width):
    """The pointer over the first token of each line and of each run finds that token (a block
    once covered the next run's first line and took its hover and its click). No differences
    are marked: a faded token has layers of its own that would hide the fault."""
    text = english_text(0)[:30_000]
    c = display.compare(load_preset(DEFAULT_PRESET), text)
    page = open_pane(browser, display.render_html(c.lbpe.segments, text), width=width)
    assert page.locator(".lbpe-lines").count() > 10
    missed = page.evaluate(
        f"""async () => {{ const box = document.querySelector('.lbpe-tokens'); const missed = [];
          for (const s of ({EDGES})()) {{
            const t = box.querySelector(`.lbpe-tok[data-s="${{s}}"]`);
            box.scrollTop += t.getBoundingClientRect().top - box.getBoundingClientRect().top - 100;
            await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
            const r = t.getClientRects()[0];
            if (r.width < 4) continue;  // a newline token without its glyph's width
            const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            if (!hit || hit.closest('.lbpe-tok') !== t) missed.push([s, hit ? hit.className : null]);
          }}
          return missed; }}"""
    )
    page.close()
    assert not missed, missed[:10]


#: In the second block: a token at the left edge of a wrapped line, and the block's first token.
AT_EDGES = """() => { const b = document.querySelectorAll('.lbpe-lines')[1];
  const inner = b.getBoundingClientRect().left + parseFloat(getComputedStyle(b).paddingLeft);
  const toks = [...b.querySelectorAll('.lbpe-tok')];
  const wrapped = toks.find((t, k) => k > 0 && t.getClientRects()[0].left - inner < 1.5);
  return [wrapped, toks[0]].map((t) => t && Number(t.dataset.s)); }"""


NO_TEXT = ".lbpe-tokens, .lbpe-tokens * { color: transparent !important; }"


@pytest.mark.parametrize("state", ["lit", "focus"])
def test_outlines_at_a_blocks_edge_are_whole(browser, state):
    """A lit or focused token's outline (outside its box) at the left edge of a block's line is
    painted as in one flow of tokens, not cut off at the block's edge: its pixels of full colour
    reach as far left, up and down, and as far right within a pixel (a block's layer may round
    a token's right edge to the next pixel)."""
    markup = pane_markup(english_text(0)[:20_000])
    page = open_pane(browser, markup, width=390)
    edges = page.evaluate(AT_EDGES)
    page.close()
    assert None not in edges, "no token stands at a wrapped line's start in the second block"
    for s in edges:
        shots = []
        for one_flow in (False, True):
            page = open_pane(browser, markup, NO_TEXT, width=390)
            if one_flow:
                page.evaluate(UNWRAP)
            r = page.evaluate(
                """([s, state]) => { const t = document.querySelector(`.lbpe-tok[data-s="${s}"]`);
                     t.scrollIntoView({ block: 'center' });
                     if (state === 'lit') t.classList.add('lbpe-lit'); else { t.tabIndex = -1; t.focus(); }
                     const r = t.getBoundingClientRect(); return [r.left, r.top]; }""",
                [s, state],
            )
            page.wait_for_timeout(100)
            shots.append(page.screenshot(clip={"x": r[0] - 8, "y": r[1] - 6, "width": 30, "height": 30}))
            page.close()
        drawn, flow = (outline_box(Image.open(io.BytesIO(shot)), state) for shot in shots)
        assert flow is not None and drawn is not None, (state, s)
        assert drawn[:2] == flow[:2] and drawn[3] == flow[3] and abs(drawn[2] - flow[2]) <= 1, (state, s, drawn, flow)


#: A lit token's outline (orange) and a focused one's (blue), in pixels of their full colour.
OUTLINE = {
    "lit": lambda r, g, b: r > 200 and g < 130 and b < 60,
    "focus": lambda r, g, b: r < 60 and 80 < g < 130 and b > 190,
}


def outline_box(shot: Image.Image, state: str) -> tuple[int, int, int, int] | None:
    """Where a screenshot's outline is: its left, top, right and bottom pixels."""
    shot = shot.convert("RGB")
    rgb = shot.load()
    points = [(x, y) for x in range(shot.width) for y in range(shot.height) if OUTLINE[state](*rgb[x, y])]
    if not points:
        return None
    xs, ys = [x for x, _ in points], [y for _, y in points]
    return min(xs), min(ys), max(xs), max(ys)


#: The character range of the first token whose box reaches into the pane's view.
FIRST_IN_VIEW = """() => { const box = document.querySelector('.lbpe-tokens');
  const top = box.getBoundingClientRect().top + box.clientTop;
  const t = [...box.querySelectorAll('.lbpe-tok')].find((t) => t.getBoundingClientRect().bottom > top);
  return Number(t.dataset.s); }"""


def drawing_page(browser, width: int):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.set_content(f"<style>{display.CSS}</style><div id='host' style='width: 48%'></div>")
    page.add_script_tag(content=PANES_JS)
    return page


DRAW = "(markup) => window.lbpePanes.draw(document.getElementById('host'), markup)"

#: Three frames drawn: blocks that came into view are drawn and hold their own heights.
FRAMES = """() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(
  () => requestAnimationFrame(done))))"""


@pytest.mark.parametrize("width", [1400, 390])
def test_a_redrawn_pane_keeps_its_place_in_the_text(browser, width):
    """Drawn again after an edit, or with the whitespace glyphs switched off, the pane shows the
    text it showed: moved by an edit above the view, not by one below it, and held at the edit
    when the text in view went (blocks drawn anew hold guessed heights, so keeping the scroll
    position in pixels showed text hundreds of characters away on a phone)."""
    text = english_text(0)[:30_000]
    page = drawing_page(browser, width)

    def shown_after(new_text: str, **options) -> int:
        page.evaluate(DRAW, pane_markup(new_text, **options))
        page.evaluate(FRAMES)
        return page.evaluate(FIRST_IN_VIEW)

    def start_from(at: int) -> int:
        page.evaluate(DRAW, pane_markup(text))
        page.evaluate("(k) => { const box = document.querySelector('.lbpe-tokens'); box.scrollTop = k; }", at)
        page.evaluate(FRAMES)
        return page.evaluate(FIRST_IN_VIEW)

    def scroll_height() -> int:
        return page.evaluate("() => document.querySelector('.lbpe-tokens').scrollHeight")

    page.evaluate(DRAW, pane_markup(text))
    middle = scroll_height() // 2
    cases = {  # what the edit does to the text, given the first character in view; where it goes
        "one character typed above": (lambda k: text[:100] + "x" + text[100:], 1),
        "3,000 characters pasted above": (lambda k: text[:100] + "y" * 3000 + text[100:], 3000),
        "300 characters deleted below": (lambda k: text[: k + 40] + text[k + 340 :], 0),
        "3,000 characters pasted below": (lambda k: text[: k + 40] + "z " * 1500 + text[k + 40 :], 0),
    }
    moved = {}
    for what, (edit, by) in cases.items():
        before = start_from(middle)
        assert 1_000 < before < 29_000
        after = shown_after(edit(before))
        if after != before + by:
            moved[what] = (before, after)
        if what == "one character typed above":
            glyphless = shown_after(edit(before), show_whitespace=False)
            if glyphless != after:
                moved["glyphs off"] = (after, glyphless)
    end = start_from(middle) - 2000
    cut = shown_after(text[:end])  # the text in view deleted: the view holds near the cut
    page.close()
    assert not moved, moved
    assert end - 5000 <= cut <= end, (end, cut)


def test_a_jump_after_the_window_narrows_lands_on_its_token(browser):
    """Blocks drawn at one width hold that width's heights; after the window narrows, a jump to
    a difference far down lays them out again at the new width and lands on its token."""
    text = english_text(0)[:50_000]
    page = drawing_page(browser, 1400)
    page.evaluate(DRAW, pane_markup(text))
    page.evaluate(
        """async () => { const box = document.querySelector('.lbpe-tokens');
             for (let y = 0; y < box.scrollHeight; y += box.clientHeight) {
               box.scrollTop = y;
               await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))); }
             box.scrollTop = 0; }"""
    )
    page.set_viewport_size({"width": 700, "height": 900})
    page.wait_for_timeout(300)
    at = text.index(" ", 40_000)
    page.evaluate("(s) => window.lbpePanes.jump(s, s + 1)", at)
    page.wait_for_timeout(300)
    inside = page.evaluate(
        """() => { const box = document.querySelector('.lbpe-tokens'); const t = box.querySelector('.lbpe-lit');
             const r = t.getBoundingClientRect(), b = box.getBoundingClientRect();
             return [r.top - b.top, r.bottom - b.bottom]; }"""
    )
    page.close()
    assert inside[0] >= 0 and inside[1] <= 0, inside


TO_MIDDLE = "() => { const box = document.querySelector('.lbpe-tokens'); box.scrollTop = box.scrollHeight / 2; }"
HIDE = "(shown) => { document.getElementById('host').style.display = shown ? '' : 'none'; }"


@pytest.mark.parametrize("width", [1400, 390])
def test_a_pane_redrawn_while_hidden_shows_its_place_when_shown_again(browser, width):
    """A comparison redrawn while its panes are hidden (another tab open): a hidden pane has no
    layout to read its place from, and kept its pixel offset, which after 3,000 characters
    pasted above showed text some 2,000 characters off once the tab came back. Two redraws
    while hidden (a second comparison queued behind the first) move it by both edits, and a
    window narrowed while hidden, with no redraw, leaves it at its place too."""
    text = english_text(0)[:30_000]
    page = drawing_page(browser, width)

    def start() -> int:
        page.evaluate(DRAW, pane_markup(text))
        page.evaluate(TO_MIDDLE)
        page.evaluate(FRAMES)
        return page.evaluate(FIRST_IN_VIEW)

    def shown_after(*edits: str, narrow: bool = False) -> int:
        page.evaluate(HIDE, False)
        page.evaluate(FRAMES)  # as a tab switch: the pane is seen with no size
        for edit in edits:
            page.evaluate(DRAW, pane_markup(edit))
        if narrow:
            page.set_viewport_size({"width": width // 2, "height": 900})
        page.evaluate(HIDE, True)
        page.evaluate(FRAMES)
        shown = page.evaluate(FIRST_IN_VIEW)
        page.set_viewport_size({"width": width, "height": 900})
        return shown

    pasted = text[:100] + "y" * 3000 + text[100:]
    cases = {  # what happened while hidden; where the first character in view should go
        "3,000 pasted above": (lambda k: [pasted], 3000),
        "then one deleted above": (lambda k: [pasted, pasted[:99] + pasted[100:]], 2999),
        "then 1,000 more pasted above": (lambda k: [pasted, pasted[:100] + "w" * 1000 + pasted[100:]], 4000),
        "then 100 typed far below": (lambda k: [pasted, pasted[: k + 9000] + "z " * 50 + pasted[k + 9000 :]], 3000),
    }
    moved = {}
    for what, (edits, by) in cases.items():
        before = start()
        assert 1_000 < before < 29_000
        after = shown_after(*edits(before))
        if after - before != by:
            moved[what] = (by, after - before)
    before = start()
    narrowed = shown_after(narrow=True)
    # narrowed while in view: the lines reflow with no scroll event; the view stays on its text,
    # then and after the tab is switched away and back
    before = start()
    page.set_viewport_size({"width": width * 3 // 4, "height": 800})
    page.evaluate(FRAMES)
    reflowed = page.evaluate(FIRST_IN_VIEW)
    back = shown_after()
    page.close()
    assert not moved, moved
    assert abs(narrowed - before) < 200, (before, narrowed)  # the token in view stays in view (its line)
    assert abs(reflowed - before) < 200 and abs(back - before) < 200, (before, reflowed, back)
