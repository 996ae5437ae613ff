"""The playground's speed: time to the first segmentation and to an edit's redraw in the browser
page and the Gradio app, time to ready, and encoding throughput in the page vs CPython.

    python bench/web_speed.py [--site DIR] [--parts first,app,throughput] [--visits 3]

Builds the site (or uses ``--site``), serves it from 127.0.0.1 and opens it in Debian's
headless Chromium (playwright drives it; never ``playwright install``); ``app`` also starts
the Gradio app (``python app.py``) of this checkout on a free port:

* first (the page): from the start of navigation to the first segmentation drawn, to the
  controls enabled, and to a word typed as soon as the text box takes it shown in the panes,
  on a first visit (empty caches); on a reload, the last result and the controls; then a
  7-character edit at the end of a 30,000-character text, from its last keystroke to both
  panes showing the new text; and the worker's own time for each step of its start (Pyodide,
  installing and importing lbpe, the default vocabulary) and for the first comparison;
* app: opening a link with its own text (navigation to that text in the text box, whether
  any other text was on screen before it, and to its panes), and the same 30,000-character
  edit;
* throughput: the same function (``lbpe.playground.page.bench``) encodes the same text in the page's
  worker (Pyodide) and here in CPython on the pure-Python path (``lbpe.native.use("pure")``:
  the page runs the same modules; the compiled path is ``python -m bench``'s business);
  cold = empty piece caches, warm = caches filled.

Every time is the median of ``--visits`` fresh browser contexts (min-max beside it); the load
average of the machine is printed with them (the targets are for a quiet machine). This is a
benchmark: it prints tables with each target and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lbpe import native  # noqa: E402
from lbpe.playground import page as py_page  # noqa: E402
from lbpe.playground.page.site import build_site, serve  # noqa: E402
from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS, load_preset  # noqa: E402
from tests.support.browser import launch  # noqa: E402

READY_TARGET_S = 6.0
RATIO_TARGET = 0.5
#: The page draws its first segmentation within this many seconds of a first visit's start.
FIRST_TARGET_S = 1.0
#: A word typed as soon as the page takes it is in the panes within this many seconds of the start.
TYPED_TARGET_S = 3.0
#: A 7-character edit at the end of a 30,000-character text is redrawn within this many seconds.
EDIT_TARGET_S = 0.5
EDIT_CHARS = 30_000
EDIT = " tokens"  # 7 characters typed at the end
LINK_TEXT = "Plattsburg unrescinded redelivery of the geographers"

#: Recorded in every page from its first moment: when the first pane appeared, the time of the
#: last keystroke, and every text the text box showed on screen (for "never the default text").
WATCH = """
(() => {
  window.lbpeBench = { firstPane: null, lastInput: null, texts: [] };
  const panes = '.pane[data-mode] .lbpe-pane, #bpe-pane .lbpe-pane';
  const seen = () => {
    if (window.lbpeBench.firstPane === null && document.querySelector(panes)) {
      window.lbpeBench.firstPane = performance.now() / 1000;
    }
    const box = document.querySelector('#text textarea, textarea#text');
    if (box && box.offsetParent !== null && getComputedStyle(box).visibility !== 'hidden') {
      const texts = window.lbpeBench.texts;
      if (!texts.length || texts[texts.length - 1][0] !== box.value) texts.push([box.value, performance.now() / 1000]);
    }
    requestAnimationFrame(seen);
  };
  requestAnimationFrame(seen);
  document.addEventListener('input', () => { window.lbpeBench.lastInput = performance.now() / 1000; }, true);
})();
"""

#: True (and the time noted) once both panes show ``text``'s token counts and its last token
#: ends at its length: no earlier state of a typed edit passes.
SHOWN = """([sel, tokens, length]) => {
  const panes = ['bpe', 'lbpe'].map((m) => document.querySelector(sel.replace('MODE', m)));
  if (panes.some((p) => !p)) return false;
  const ok = panes.every((p, k) => {
    const toks = p.querySelectorAll('.lbpe-tok[data-e]');
    return Number(p.dataset.tokens) === tokens[k] && toks.length && Number(toks[toks.length - 1].dataset.e) === length;
  });
  if (ok) window.lbpeBench.shownAt = performance.now() / 1000;
  return ok;
}"""
PAGE_PANE = '.pane[data-mode="MODE"] .lbpe-pane'
APP_PANE = "#MODE-pane .lbpe-pane"


def bench_text(kb: int) -> str:
    """English, multilingual text and code from the data cache, about ``kb`` KB in all."""
    from tests.support.data import data_file

    parts = [
        data_file("text/moby_dick.txt").read_text("utf-8")[50_000:],
        data_file("text/multilingual.txt").read_text("utf-8"),
        data_file("text/code.txt").read_text("utf-8"),
    ]
    share = kb * 1024 // len(parts)
    out = []
    for p in parts:
        b = p.encode("utf-8")[:share]
        out.append(b.decode("utf-8", "ignore"))
    return "\n".join(out)


def edit_text() -> str:
    from tests.support.data import english_text

    return english_text(0)[60_000 : 60_000 + EDIT_CHARS]


def counts(text: str, preset: str = DEFAULT_PRESET) -> list[int]:
    tok = load_preset(preset)
    return [len(tok.encode(text, mode=mode, disallowed_special=())) for mode in ("bpe", "lbpe")]


def wait_shown(page, sel: str, text: str) -> float:
    page.wait_for_function(SHOWN, arg=[sel, counts(text), len(text)], timeout=180_000, polling="raf")
    return page.evaluate("() => window.lbpeBench.shownAt")


def time_edit(page, box: str, sel: str, base: str, repeat: int) -> list[float]:
    """Seconds from the last keystroke of a 7-character edit at the end of ``base`` to both panes
    showing it, ``repeat`` times (each edit on top of the last)."""
    page.fill(box, base)
    wait_shown(page, sel, base)
    out = []
    text = base
    for _ in range(repeat):
        page.focus(box)
        page.keyboard.press("Control+End")
        page.keyboard.type(EDIT)
        text += EDIT
        shown = wait_shown(page, sel, text)
        out.append(shown - page.evaluate("() => window.lbpeBench.lastInput"))
    return out


def page_first(browser, url: str, visits: int) -> dict[str, list[float]]:
    """The page's times (seconds from navigation) on ``visits`` first visits and their reloads."""
    out: dict[str, list[float]] = {k: [] for k in ("first", "controls", "typed", "reload_shown", "reload_controls")}
    typed = "Tokenizers place the longest tokens first."
    for _ in range(visits):
        context = browser.new_context()  # empty caches: a first visit
        context.add_init_script(WATCH)
        page = context.new_page()
        page.goto(url, wait_until="commit")
        page.wait_for_function("() => !document.querySelector('#text').disabled", timeout=180_000, polling="raf")
        page.fill("#text", typed)
        out["typed"].append(wait_shown(page, PAGE_PANE, typed))
        out["first"].append(page.evaluate("() => window.lbpeBench.firstPane"))
        for step, seconds in worker_timings(page).items():
            out.setdefault(f"step:{step}", []).append(seconds)
        page.wait_for_function("() => window.lbpePage.readySeconds !== undefined", timeout=180_000)
        out["controls"].append(page.evaluate("() => window.lbpePage.readySeconds"))
        page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=180_000)
        page.wait_for_function("(t) => window.lbpePage.rendered.text === t", arg=typed, timeout=180_000)
        page.reload(wait_until="commit")
        page.wait_for_function("() => window.lbpePage && window.lbpePage.readySeconds !== undefined", timeout=180_000)
        out["reload_shown"].append(page.evaluate("() => window.lbpeBench.firstPane"))
        out["reload_controls"].append(page.evaluate("() => window.lbpePage.readySeconds"))
        context.close()
    return out


#: The worker's start-up steps, in order (``static/worker.js``), and what each one does.
STEPS = {
    "pyodide": "Pyodide's own start (its WebAssembly and standard library)",
    "lbpe": "the wheel unpacked and lbpe.playground.page imported",
    "vocabulary": "the default vocabulary read, parsed and warmed (its one-off tables built)",
    "first_compare": "the first comparison (the page asks for the opening span's explanation just before it)",
}


def worker_timings(page) -> dict[str, float]:
    """Seconds of each of the worker's steps (:data:`STEPS`); a site built before the worker
    kept the first comparison's time gives the start-up steps only."""
    from playwright.sync_api import Error

    page.wait_for_function("() => window.lbpePage.readySeconds !== undefined", timeout=180_000)
    try:
        return page.evaluate("async () => JSON.parse(await window.lbpePage.call('timings'))")
    except Error:  # a site built before: "unknown command timings"
        return page.evaluate("() => window.lbpePage.bootTimings || {}")


def page_edit(browser, url: str, repeat: int) -> list[float]:
    """:func:`time_edit` in the page; on a busy machine a 30,000-character comparison can pass the
    page's deadline (the worker is then restarted): that is said, and no time is kept."""
    from playwright.sync_api import TimeoutError as Timeout

    context = browser.new_context()
    context.add_init_script(WATCH)
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("() => window.lbpePage && window.lbpePage.readySeconds !== undefined", timeout=180_000)
    try:
        out = time_edit(page, "#text", PAGE_PANE, edit_text(), repeat)
    except Timeout:
        print(f"the page did not show the 30,000-character text: {page.inner_text('#error')!r}", file=sys.stderr)
        out = []
    context.close()
    return out


def app_times(browser, visits: int, repeat: int) -> dict[str, list]:
    """The Gradio app of this checkout: a link opened ``visits`` times, then the 30,000-character edit."""
    from tests.support.app import running_server
    from tests.support.data import english_text  # noqa: F401 - the data cache is needed before the server starts

    out: dict[str, list] = {"link_text": [], "link_panes": [], "others_first": [], "edit": []}
    env = {"PYTHONPATH": str(ROOT)}
    with running_server([sys.executable, "app.py", "--host", "127.0.0.1", "--port", "{port}"], env=env) as server:
        link = server.url + "?t=" + urllib.parse.quote(LINK_TEXT) + "&v=" + DEFAULT_PRESET
        for _ in range(visits):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            context.add_init_script(WATCH)
            page = context.new_page()
            page.goto(link, wait_until="commit")
            out["link_panes"].append(wait_shown(page, APP_PANE, LINK_TEXT))
            page.wait_for_function(
                "(t) => window.lbpeBench.texts.some(([v]) => v === t)", arg=LINK_TEXT, timeout=180_000, polling="raf"
            )
            # the watcher lists what the text box showed, in order, with the time it appeared
            texts = page.evaluate("() => window.lbpeBench.texts")
            k = [v for v, _ in texts].index(LINK_TEXT)
            out["link_text"].append(texts[k][1])
            out["others_first"].append([v[:40] for v, _ in texts[:k] if v])
            context.close()
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        context.add_init_script(WATCH)
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_selector("#bpe-pane .lbpe-pane", timeout=180_000)
        out["edit"] = time_edit(page, "#text textarea", APP_PANE, edit_text(), repeat)
        context.close()
    return out


def throughput(browser, url: str, text: str, presets: list[str], repeat: int) -> tuple[list, str]:
    rows = []
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("() => window.lbpePage && window.lbpePage.readySeconds !== undefined", timeout=180_000)
    for name in presets:
        page.evaluate("(name) => window.lbpePage.call('preset', {name})", name)
        py_page.use_preset(name)
        for mode in ("bpe", "lbpe"):
            # Alternate the two sides and keep each one's best, so a busy moment of the
            # machine does not land on one side only.
            in_page = here = None
            for _ in range(repeat):
                a = page.evaluate("([text, mode]) => window.lbpePage.bench(text, mode, 1)", [text, mode])
                b = json.loads(py_page.bench(text, mode, 1))
                in_page = a if in_page is None else {k: min(in_page[k], a[k]) for k in a}
                here = b if here is None else {k: min(here[k], b[k]) for k in b}
            assert in_page["tokens"] == here["tokens"], (name, mode, in_page["tokens"], here["tokens"])
            rows.append((name, mode, here, in_page))
    python_in_page = page.evaluate("() => document.querySelector('#versions').textContent")
    context.close()
    return rows, python_in_page


def _cell(values: list[float], target: float | None) -> str:
    if not values:
        return "not shown (see above) | " + ("" if target is None else f"<= {target:g} s: MISSED")
    mid = statistics.median(values)
    cell = f"{mid:.2f} ({min(values):.2f}-{max(values):.2f})"
    verdict = "" if target is None else f"<= {target:g} s: {'met' if mid <= target else 'MISSED'}"
    return f"{cell} | {verdict}"


def main() -> None:
    native.use("pure")  # the page runs the pure-Python modules: compare like with like
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--site", type=Path, default=None, help="a built site (default: build one in a temp folder)")
    ap.add_argument("--parts", default="first,app,throughput", help="comma-separated: first, app, throughput")
    ap.add_argument("--kb", type=int, default=256, help="size of the text encoded (KB)")
    ap.add_argument("--presets", default=",".join(VOCAB_PRESETS), help="comma-separated presets")
    ap.add_argument("--repeat", type=int, default=5, help="alternating runs per measurement (best is kept)")
    ap.add_argument("--visits", type=int, default=3, help="fresh visits (and edits) timed (median shown)")
    args = ap.parse_args()
    parts = set(args.parts.split(","))

    from playwright.sync_api import sync_playwright

    tmp = None
    site = args.site
    if site is None:
        tmp = tempfile.TemporaryDirectory(prefix="lbpe-site-")
        site = Path(tmp.name)
        build_site(site)
    httpd = serve(site)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/"
    text = bench_text(args.kb)
    presets = [p for p in args.presets.split(",") if p]
    load = [os.getloadavg()[0]]

    first = edits = app = None
    rows: list = []
    python_in_page = "?"
    with sync_playwright() as p:
        browser = launch(p)
        if "first" in parts:
            first = page_first(browser, url, args.visits)
            edits = page_edit(browser, url, args.visits)
            load.append(os.getloadavg()[0])
        if "app" in parts:
            app = app_times(browser, args.visits, args.visits)
            load.append(os.getloadavg()[0])
        if "throughput" in parts:
            rows, python_in_page = throughput(browser, url, text, presets, args.repeat)
        browser.close()
    httpd.shutdown()
    httpd.server_close()
    if tmp is not None:
        tmp.cleanup()

    python_here = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"# lbpe playground speed: {python_here} here; page: {python_in_page}")
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M')}, {platform.machine()}, {os.cpu_count()} cores, "
        f"load average (1 min) {', '.join(f'{x:.1f}' for x in load)} (targets: a quiet machine)\n"
    )
    if first is not None and edits is not None:
        print(f"| the page (median of {args.visits}, min-max) | seconds | target |")
        print("|---|---:|---|")
        print(f"| first visit: navigation -> first segmentation drawn | {_cell(first['first'], FIRST_TARGET_S)} |")
        print(f"| first visit: navigation -> controls enabled | {_cell(first['controls'], None)} |")
        typed = _cell(first["typed"], TYPED_TARGET_S)
        print(f"| first visit: navigation -> a word typed at once is in the panes | {typed} |")
        print(f"| reload: navigation -> a segmentation drawn | {_cell(first['reload_shown'], None)} |")
        print(f"| reload: navigation -> controls enabled | {_cell(first['reload_controls'], None)} |")
        print(f"| 7 characters typed at the end of {EDIT_CHARS:,}: last key -> panes | {_cell(edits, EDIT_TARGET_S)} |")
        print()
        print(f"| the worker's steps on a first visit (median of {args.visits}, min-max) | seconds |")
        print("|---|---:|")
        for step, meaning in STEPS.items():
            values = first.get(f"step:{step}", [])
            cell = _cell(values, None).split(" |")[0] if values else "not recorded"
            print(f"| {step}: {meaning} | {cell} |")
        print()
    if app is not None:
        print(f"| the Gradio app (median of {args.visits}, min-max) | seconds | target |")
        print("|---|---:|---|")
        others = [t for v in app["others_first"] for t in v]
        verdict = "met" if not others else f"MISSED: first showed {others[0]!r}"
        print(f"| a link: navigation -> its text in the text box | {_cell(app['link_text'], None)} |")
        print(f"| a link: any other text on screen before its own | {len(others)} | none: {verdict} |")
        print(f"| a link: navigation -> its panes | {_cell(app['link_panes'], None)} |")
        edit = _cell(app["edit"], EDIT_TARGET_S)
        print(f"| 7 characters typed at the end of {EDIT_CHARS:,}: last key -> panes | {edit} |")
        print()
    if rows:
        mb = len(text.encode("utf-8")) / 1e6
        print(f"text {mb:.2f} MB (English, multilingual, code)\n")
        print(
            "| vocabulary | mode | CPython cold MB/s | page cold MB/s | ratio "
            "| CPython warm MB/s | page warm MB/s | ratio |"
        )
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        worst = float("inf")
        for name, mode, here, there in rows:
            cells = []
            for key in ("cold", "warm"):
                a, b = mb / here[key], mb / there[key]
                worst = min(worst, b / a)
                cells += [f"{a:.2f}", f"{b:.2f}", f"{b / a:.2f}x"]
            print(f"| {name} | {mode} | " + " | ".join(cells) + " |")
        verdict = "met" if worst >= RATIO_TARGET else "MISSED"
        print(f"\nslowest page/CPython ratio: {worst:.2f}x (target >= {RATIO_TARGET}x: {verdict})")


if __name__ == "__main__":
    main()
