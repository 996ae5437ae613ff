"""The browser page's speed: time to ready, and encoding throughput in the page vs CPython.

    python bench/web_speed.py [--site DIR] [--kb 256] [--presets lbpe-32k,cl100k_base]

Builds the site (or uses ``--site``), serves it from 127.0.0.1 and opens it in Debian's
headless Chromium (playwright drives it; never ``playwright install``):

* ready: from the start of navigation to the page saying Python is ready (Pyodide started,
  the wheel installed, the default vocabulary loaded), on a first visit (empty caches) and on
  a second one (files from the service worker's cache);
* throughput: the same function (``lbpe.page.bench``) encodes the same text in the page's
  worker (Pyodide) and here in CPython on the pure-Python path (``lbpe.native.use("pure")``:
  the page runs the same modules; the compiled path is ``python -m bench``'s business);
  cold = empty piece caches, warm = caches filled.

Targets from the issue: ready in under 6 s, and at least half of CPython's throughput. This is a
benchmark: it prints a table and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lbpe import native  # noqa: E402
from lbpe import page as py_page  # noqa: E402
from lbpe.page.site import build_site, serve  # noqa: E402
from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS  # noqa: E402
from tests.browser import launch  # noqa: E402

READY_TARGET_S = 6.0
RATIO_TARGET = 0.5


def bench_text(kb: int) -> str:
    """English, multilingual text and code from the data cache, about ``kb`` KB in all."""
    from tests.conftest import data_file

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


def wait_ready(page) -> float:
    page.wait_for_function("() => window.lbpePage && window.lbpePage.readySeconds !== undefined", timeout=180_000)
    return page.evaluate("() => window.lbpePage.readySeconds")


def main() -> None:
    native.use("pure")  # the page runs the pure-Python modules: compare like with like
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--site", type=Path, default=None, help="a built site (default: build one in a temp folder)")
    ap.add_argument("--kb", type=int, default=256, help="size of the text encoded (KB)")
    ap.add_argument("--presets", default=",".join(VOCAB_PRESETS), help="comma-separated presets")
    ap.add_argument("--repeat", type=int, default=5, help="alternating runs per measurement (best is kept)")
    ap.add_argument("--visits", type=int, default=3, help="fresh first + second visits timed (median shown)")
    args = ap.parse_args()

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

    rows = []
    firsts, seconds, steps = [], [], []
    with sync_playwright() as p:
        browser = launch(p)
        for _ in range(args.visits):
            context = browser.new_context()  # empty caches: a first visit
            page = context.new_page()
            page.goto(url)
            firsts.append(wait_ready(page))
            page.wait_for_function("() => navigator.serviceWorker.controller !== null", timeout=180_000)
            page.reload()
            seconds.append(wait_ready(page))
            steps.append(page.evaluate("() => window.lbpePage.bootTimings"))
            context.close()
        context = browser.new_context()
        page = context.new_page()
        page.goto(url)
        wait_ready(page)
        for name in presets:
            page.evaluate("(name) => window.lbpePage.call('preset', {name})", name)
            py_page.use_preset(name)
            for mode in ("bpe", "lbpe"):
                # Alternate the two sides and keep each one's best, so a busy moment of the
                # machine does not land on one side only.
                in_page = here = None
                for _ in range(args.repeat):
                    a = page.evaluate("([text, mode]) => window.lbpePage.bench(text, mode, 1)", [text, mode])
                    b = json.loads(py_page.bench(text, mode, 1))
                    in_page = a if in_page is None else {k: min(in_page[k], a[k]) for k in a}
                    here = b if here is None else {k: min(here[k], b[k]) for k in b}
                assert in_page["tokens"] == here["tokens"], (name, mode, in_page["tokens"], here["tokens"])
                rows.append((name, mode, here, in_page))
        python_in_page = page.evaluate("() => document.querySelector('#versions').textContent")
        browser.close()
    httpd.shutdown()
    httpd.server_close()
    if tmp is not None:
        tmp.cleanup()

    mb = len(text.encode("utf-8")) / 1e6
    python_here = f"{platform.python_implementation()} {platform.python_version()}"
    print(f"# lbpe browser page: {python_here} here; page: {python_in_page}")
    print(f"# {time.strftime('%Y-%m-%d')}, {platform.machine()}, text {mb:.2f} MB (English, multilingual, code)\n")
    print(f"| ready (median of {args.visits} visits, min-max) | seconds | target |")
    print("|---|---:|---|")
    for label, values in (
        ("first visit (navigation -> ready)", firsts),
        ("second visit (service worker cache)", seconds),
    ):
        mid = statistics.median(values)
        print(
            f"| {label} | {mid:.2f} ({min(values):.2f}-{max(values):.2f}) | < {READY_TARGET_S:.0f} s: "
            f"{'met' if mid < READY_TARGET_S else 'MISSED'} |"
        )
    for step, label in (
        ("pyodide", "start Pyodide"),
        ("lbpe", "install the wheel, import lbpe.page"),
        ("vocabulary", f"load {DEFAULT_PRESET}"),
    ):
        print(f"| &nbsp; of which: {label} (second visits) | {statistics.median(x[step] for x in steps):.2f} | |")
    print()
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
