"""Debian's headless Chromium, kept offline, for the browser tests and ``bench/web_speed.py``.

Every test that opens a page launches it with :func:`launch`: the flags send every host name
but 127.0.0.1 nowhere, and turn off the browser's own background traffic, so a request off
the page's origin fails (and the tests that watch requests see it).
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlparse

#: The flags: headless, no sandbox (containers), no GPU, no background or update traffic, and
#: every host name resolved to nothing except 127.0.0.1.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]


class ChromiumMissing(RuntimeError):
    """Debian's chromium is not installed."""


def chromium() -> str:
    """The path of Debian's chromium (never playwright's own download)."""
    path = shutil.which("chromium")
    if path is None:
        raise ChromiumMissing("Debian's chromium is missing: run `bash scripts/install_test_deps.sh`")
    return path


def launch(playwright: Any) -> Any:
    """A headless, offline Chromium browser from a ``sync_playwright()`` context."""
    return playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS, headless=True)


class Unanswered(set):
    """The requests a page has sent and not yet had answered; and, for the report of a failed
    test, the page's story of Gradio's queue in order (``timeline``): each join and stream
    request sent, answered, ended or failed, with the page's console errors and warnings among
    them, in seconds since the watch began."""

    def __init__(self) -> None:
        super().__init__()
        self.timeline: list[str] = []
        self._start = time.monotonic()

    def note(self, what: str) -> None:
        self.timeline.append(f"{time.monotonic() - self._start:8.3f}s  {what}")


def _queue_route(request) -> str | None:
    """A request to Gradio's queue named for the timeline (``join fn 7``, ``data``), else None."""
    path = urlparse(request.url).path
    if "/gradio_api/queue/" not in path:
        return None
    route = path.rsplit("/", 1)[-1]
    if route == "join":
        try:
            body = request.post_data_json
        except ValueError:
            body = None
        if isinstance(body, dict):
            return f"join fn {body.get('fn_index')} trigger {body.get('trigger_id')}"
    return route


def watch_requests(context, unanswered: Unanswered) -> None:
    """Keep ``unanswered`` and its ``timeline`` current with a browser context's pages."""
    context.on("request", lambda r: unanswered.add(r))  # (Playwright takes no bound built-ins)
    for answered in ("requestfinished", "requestfailed"):
        context.on(answered, lambda r: unanswered.discard(r))

    def told(what: str):
        def note(request) -> None:
            route = _queue_route(request)
            if route is not None:
                failure = f" ({request.failure})" if what == "failed" else ""
                unanswered.note(f"{what:8} {request.method} {route}{failure}")

        return note

    for event, what in (("request", "sent"), ("requestfinished", "ended"), ("requestfailed", "failed")):
        context.on(event, told(what))
    answered = told("answered")
    context.on("response", lambda response: answered(response.request))
    context.on(
        "console",
        lambda m: unanswered.note(f"console  {m.type}: {m.text[:300]}") if m.type in ("error", "warning") else None,
    )


@contextmanager
def app_page(
    browser: Any, url: str, unanswered: Unanswered, *, timeout_ms: int, prepare: Callable[[Any], None] | None = None
) -> Iterator[Any]:
    """A page of the playground at ``url`` in a context of its own, its requests watched
    (:func:`watch_requests`), once its panes are drawn and its load events (a link's restore)
    are answered, whose outputs would overwrite what a test does before them; ``prepare`` is
    given the context before the page opens (to watch or route more). The context is closed
    after."""
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    watch_requests(context, unanswered)
    if prepare is not None:
        prepare(context)
    try:
        page = context.new_page()
        page.set_default_timeout(timeout_ms)
        page.goto(url)
        expect(page.locator("#bpe-pane .lbpe-pane")).to_be_visible()
        page.wait_for_function("() => document.documentElement.dataset.lbpeRestored === '1'")
        yield page
    finally:
        context.close()


def fill_kept(box: Any, value: str, *, tries: int = 5) -> None:
    """Fill a Gradio text box that has just been drawn, and see the value stay.

    A box mounted a moment ago (an accordion just opened) can still have its first value
    written back by its component after Playwright's fill, which types in one go, much faster
    than a person: the value is then lost. Fill again until the box still holds it half a
    second after a fill.
    """
    for _ in range(tries):
        box.fill(value)
        box.page.wait_for_timeout(500)
        if box.input_value() == value:
            return
    raise AssertionError(f"the box did not keep {value!r} after {tries} fills (it holds {box.input_value()!r})")


def open_tab(page: Any, name: str) -> None:
    """Click the tab called ``name`` and wait until Gradio has drawn its view for good.

    The first time a tab is shown, Gradio writes its components' first values back into them
    after the next animation frame: a value typed before that (Playwright types in one go, a
    person never that fast) is silently replaced by the component's first value. Two frames
    after the click, the values written are the person's own.
    """
    tab = page.get_by_role("tab", name=name)
    tab.click()
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


# ---- what a page looks like: legibility and geometry, measured in the browser ----

#: JS ``(selector) => [{text, ratio, ink, ground}]``: each element matched by ``selector`` that
#: holds text of its own, with the WCAG contrast ratio of its text colour (``fill`` for SVG
#: text) against what is painted beneath it: every ancestor's background colour and opacity,
#: composited from the root down over a white canvas (the page's own backgrounds decide).
CONTRAST_JS = """(selector) => {
  const parse = (s) => {
    let m = /^rgba?\\(([^)]*)\\)/.exec(s);
    if (m) { const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
             return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; }
    m = /^color\\(srgb ([^)]*)\\)/.exec(s);
    if (m) { const p = m[1].split(/[\\s\\/]+/).filter(Boolean).map(Number);
             return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1]; }
    return [0, 0, 0, 0];
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat([1]);
  const mix = (a, b, o) => [0, 1, 2].map((i) => a[i] * o + b[i] * (1 - o)).concat([1]);
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
                       return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  // the pixel at the element's text: each level's background over what is beneath, its group opacity
  const paint = (chain, k, under, ink) => {
    if (k === chain.length) return ink ? over(ink, under) : under;
    const cs = getComputedStyle(chain[k]);
    const bg = parse(cs.backgroundColor);
    const inside = paint(chain, k + 1, bg[3] ? over(bg, under) : under, ink);
    return mix(inside, under, Number(cs.opacity));
  };
  const own = (el) => [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
  const out = [];
  for (const el of document.querySelectorAll(selector)) {
    const r = el.getBoundingClientRect();
    if (!own(el) || !r.width || !r.height) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility === 'hidden') continue;
    const svg = el instanceof SVGElement;
    const ink = parse(svg ? cs.fill : cs.color);
    if (svg) ink[3] *= Number(cs.fillOpacity);
    const chain = [];
    for (let e = el; e; e = e.parentElement) chain.unshift(e);
    const white = [255, 255, 255, 1];
    const ground = paint(chain, 0, white, null), text = paint(chain, 0, white, ink);
    out.push({ text: el.textContent.trim().slice(0, 40), ratio: ratio(text, ground),
               ink: text.slice(0, 3).map(Math.round), ground: ground.slice(0, 3).map(Math.round) });
  }
  return out;
}"""

#: JS ``() => luminance``: the relative luminance of the page's own background (``body`` over ``html``).
BACKGROUND_JS = """() => {
  const parse = (s) => (/rgba?\\(([^)]*)\\)/.exec(s) || [0, '0,0,0,0'])[1]
    .split(/[\\s,\\/]+/).filter(Boolean).map(Number);
  let c = [255, 255, 255];
  for (const el of [document.documentElement, document.body]) {
    const p = parse(getComputedStyle(el).backgroundColor), a = p.length > 3 ? p[3] : 1;
    c = c.map((v, i) => p[i] * a + v * (1 - a));
  }
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
}"""

#: JS ``(selector) => [{text, cut, by}]``: the text inside the elements matched (each text
#: node's laid-out box; an element without text: its own box) that reaches outside an ancestor
#: that clips it (``overflow`` other than visible), by how many pixels, and that ancestor.
CLIPPED_JS = """(selector) => {
  const boxes = [];
  for (const el of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    let any = false;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      boxes.push([node.parentElement, range.getBoundingClientRect(), node.textContent.trim()]);
      any = true;
    }
    if (!any) boxes.push([el, el.getBoundingClientRect(), el.tagName]);
  }
  const out = [];
  for (const [el, r, text] of boxes) {
    if (!r.width || !r.height) continue;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const cs = getComputedStyle(a);
      const clipsX = cs.overflowX !== 'visible', clipsY = cs.overflowY !== 'visible';
      if (!clipsX && !clipsY) continue;
      const b = a.getBoundingClientRect();
      const cut = Math.max(clipsX ? b.left - r.left : 0, clipsX ? r.right - b.right : 0,
                           clipsY ? b.top - r.top : 0, clipsY ? r.bottom - b.bottom : 0);
      if (cut > 1) {
        out.push({ text: text.slice(0, 60), cut: Math.round(cut),
                   by: a.tagName + '.' + String(a.className.baseVal ?? a.className).split(' ')[0] });
        break;
      }
    }
  }
  return out;
}"""

#: JS ``(selector) => [{text, lines}]``: for each element matched, its text and the number of
#: lines it is laid out on.
LINES_JS = """(selector) => [...document.querySelectorAll(selector)].map((el) => {
  const range = document.createRange();
  range.selectNodeContents(el);
  const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
  return { text: el.textContent.trim(), lines: tops.size };
})"""

#: JS ``(selector) => [word]``: the words inside the elements matched that are laid out over
#: more than one line (broken inside, as "voca|bula|ry"; a break after a hyphen is between words).
BROKEN_WORDS_JS = """(selector) => {
  const out = [];
  for (const el of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.textContent.matchAll(/[^\\s-]+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) out.push(m[0]);
      }
    }
  }
  return out;
}"""


def overlap(a: dict | None, b: dict | None) -> float:
    """The area two bounding boxes (playwright's ``bounding_box()``) share, in square pixels."""
    if not a or not b:
        return 0.0
    w = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    h = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return max(w, 0) * max(h, 0)


#: The text of the charts (not the hover labels, which Plotly colours against their own box).
CHART_TEXT = "{0} .main-svg text:not(.hoverlayer *), {0} .main-svg tspan:not(.hoverlayer *)"


def check_charts(page, plots) -> None:
    """Every text of each Plotly chart in ``plots`` (selectors of their containers) lies inside
    the chart, and the mode bar (shown while the pointer is over the chart) covers no legend entry."""
    from playwright.sync_api import expect

    for plot in plots:
        chart = page.locator(f"{plot}.js-plotly-plot, {plot} .js-plotly-plot")
        expect(chart.locator(".legendtext").first).to_be_visible()
        chart.scroll_into_view_if_needed()
        outside = page.evaluate(CLIPPED_JS, f"{plot} .main-svg text")
        assert outside == [], (plot, outside)
        frame = chart.locator(".main-svg").first.bounding_box()
        titles = chart.locator(".g-gtitle text, .g-xtitle text, .g-ytitle text, .g-x2title text, .g-y2title text")
        for title in titles.all():
            box = title.bounding_box()
            inside = (
                box["x"] >= frame["x"] - 1
                and box["x"] + box["width"] <= frame["x"] + frame["width"] + 1
                and box["y"] >= frame["y"] - 1
                and box["y"] + box["height"] <= frame["y"] + frame["height"] + 1
            )
            assert inside, (plot, title.text_content(), box, frame)
        chart.locator(".nsewdrag").first.hover()
        bar = chart.locator(".modebar")
        expect(bar).to_be_visible()
        for entry in chart.locator(".legend .traces").all():
            covered = overlap(bar.bounding_box(), entry.bounding_box())
            assert covered == 0, (plot, bar.bounding_box(), entry.bounding_box())
