"""The built browser page's Across view on its methods axis, in headless Chromium.

Each check compares the token count of every row the page shows with CPython's
``Tokenizer.encode`` for that row's method, on the same text and vocabulary: the axis switched
by hand with a method unticked and BPE-dropout's rate and seed set (the same after a reload, from
the link), the JSON download, a link that opens on the axis, and links that cannot be shown (a
message, and a sane default). No request may leave the page's origin and the page may raise no
error. The harness is the one of ``test_web_method_pair_browser.py``.

Needs ``chromium`` (Debian's package) and the npm packages: ``bash scripts/install_test_deps.sh``.
"""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

import pytest

from lbpe.playground.page.site import build_site
from lbpe.presets import DEFAULT_PRESET, load_preset
from lbpe.tokenizer import METHODS
from tests.support.page import READY_MS, Server, Session, link, open_page, wait_until

pytestmark = pytest.mark.slow(reason="Chromium drives the page (Pyodide in the browser)")

STEP_MS = 60_000
TEXT = "The unbelievably overcomplicated anticonstitutional reorganisation of electroencephalography departments."


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site(out)
    return out


@pytest.fixture(scope="module")
def server(site):
    s = Server(site)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def tok():
    return load_preset(DEFAULT_PRESET)


@pytest.fixture
def session(browser, server):
    s = Session(browser, server.url, step_ms=STEP_MS)
    yield s
    s.context.close()
    assert not s.foreign_requests(), f"requests left the page's origin: {s.foreign_requests()}"
    assert not s.errors, f"uncaught errors in the page: {s.errors}"


def fragment(page) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(page.evaluate("() => location.hash.slice(1)")))


def wait_text(page, text: str) -> None:
    page.wait_for_function("(text) => window.lbpePage.rendered.text === text", arg=text, timeout=STEP_MS)


def ticked(page) -> list[str]:
    return page.eval_on_selector_all("#across-methods input:checked", "boxes => boxes.map((b) => b.value)")


def heading(page) -> tuple[str, str]:
    """The Across view's heading and the accessible name of its section (what a screen reader says)."""
    return tuple(
        page.evaluate(
            """() => {
            const section = document.querySelector("#across-run").closest("section");
            const by = section.getAttribute("aria-labelledby");
            const name = by ? document.getElementById(by).textContent : section.getAttribute("aria-label");
            return [section.querySelector("h2").textContent, name];
        }"""
        )
    )


def run_methods(page) -> list[list[str]]:
    """Press the Across button on the methods axis; the rows shown (cells as text)."""
    before = page.evaluate("() => window.lbpePage.across.seq")
    page.click("#across-run")
    wait_until(
        page,
        "(before) => window.lbpePage.across.seq > before && window.lbpePage.across.axis === 'methods'",
        arg=before,
        timeout=STEP_MS,
    )
    page.wait_for_selector("#across-chart .main-svg", timeout=STEP_MS)
    return page.eval_on_selector_all(
        "#across-table tbody tr", "trs => trs.map(tr => [...tr.cells].map(td => td.textContent))"
    )


def assert_rows_match_cpython(rows, tok, text: str, methods: list[str], **dropout) -> None:
    assert [r[0] for r in rows] == methods
    for row in rows:
        method = row[0]
        want = len(tok.encode(text, mode=method, disallowed_special=(), **(dropout if method == "dropout" else {})))
        assert int(row[1].replace(",", "")) == want, f"{method}: shown {row[1]} tokens, CPython {want}"


def test_the_methods_axis_shows_cpythons_counts_and_its_link_round_trips(session, server, tok):
    page = session.page
    open_page(page, server.url)
    page.fill("#text", TEXT)
    wait_text(page, TEXT)
    assert page.is_checked("#across-axis input[value='vocabularies']")
    assert not page.is_visible("#across-methods-options") and "ax" not in fragment(page)
    assert heading(page) == ("Across vocabularies", "Across vocabularies")
    page.check("#across-axis input[value='methods']")
    assert page.is_visible("#across-methods-options")
    assert page.inner_text("#across-run") == "Compare across methods"
    assert heading(page) == ("Across methods", "Across methods")
    assert ticked(page) == list(METHODS)
    assert page.is_visible("#across-dropout-rate") and page.is_visible("#across-dropout-seed")
    assert fragment(page)["ax"] == "methods" and "ms" not in fragment(page)

    # untick one method; dropout stays, with its own rate and seed (not Compare's dr and seed)
    page.uncheck("#across-methods input[value='least-tokens']")
    page.fill("#across-dropout-rate", "0.3")
    page.fill("#across-dropout-seed", "7")
    chosen = [m for m in METHODS if m != "least-tokens"]
    want = {"ax": "methods", "ms": ",".join(chosen), "mdr": "0.3", "mseed": "7"}
    assert {k: v for k, v in fragment(page).items() if k in want} == want
    assert "dr" not in fragment(page) and "seed" not in fragment(page)
    rows = run_methods(page)
    assert_rows_match_cpython(rows, tok, TEXT, chosen, dropout=0.3, seed=7)
    assert page.is_hidden("#error")
    assert "BPE" in page.inner_text("#across-chart")

    # the JSON download is the table's (lbpe stats --methods --json's), made in the page
    href = page.get_attribute("#across-json", "href")
    assert href.startswith("blob:") and page.get_attribute("#across-json", "download").endswith("-methods.json")
    doc = json.loads(page.evaluate("(url) => fetch(url).then((r) => r.text())", href))
    assert list(doc["methods"]) == chosen and (doc["dropout"], doc["seed"]) == (0.3, 7)
    assert [doc["methods"][m]["tokens"] for m in chosen] == [int(r[1].replace(",", "")) for r in rows]
    assert page.get_attribute("#across-csv", "download").endswith("-methods.csv")

    # the reload opens on the link: the axis, the methods, the rate and seed, the same rows
    page.reload(wait_until="domcontentloaded")
    page.wait_for_function("() => window.lbpePage && window.lbpePage.rendered.seq > 0", timeout=READY_MS)
    wait_text(page, TEXT)
    assert page.is_checked("#across-axis input[value='methods']") and page.is_visible("#across-methods-options")
    assert ticked(page) == chosen
    assert page.input_value("#across-dropout-rate") == "0.3" and page.input_value("#across-dropout-seed") == "7"
    assert run_methods(page) == rows

    # without dropout its boxes go, and so do mdr and mseed; every method ticked again drops ms
    page.uncheck("#across-methods input[value='dropout']")
    assert not page.is_visible("#across-dropout-rate")
    assert "mdr" not in fragment(page) and "mseed" not in fragment(page)
    page.check("#across-methods input[value='least-tokens']")
    page.check("#across-methods input[value='dropout']")
    assert "ms" not in fragment(page) and fragment(page)["mdr"] == "0.3"
    # no method ticked: said in #error, the table keeps the last result
    for method in METHODS:
        page.uncheck(f"#across-methods input[value='{method}']")
    page.click("#across-run")
    page.wait_for_selector("#error:not([hidden])")
    assert "Tick at least one method" in page.inner_text("#error")
    # back to vocabularies: the link says nothing of the axis
    page.check("#across-axis input[value='vocabularies']")
    assert not page.is_visible("#across-methods-options") and "ax" not in fragment(page)
    assert page.inner_text("#across-run") == "Compare across vocabularies"
    assert heading(page) == ("Across vocabularies", "Across vocabularies")


def test_a_link_opens_on_the_methods_axis(session, server, tok):
    page = session.page
    open_page(page, link(server, t=TEXT, ax="methods", ms="lbpe,dropout,longest-suffix", mdr="0.25", mseed="11"))
    wait_text(page, TEXT)
    assert page.is_checked("#across-axis input[value='methods']")
    assert heading(page) == ("Across methods", "Across methods")
    assert ticked(page) == ["lbpe", "longest-suffix", "dropout"]  # the boxes' order: lbpe.METHODS'
    assert page.input_value("#across-dropout-rate") == "0.25" and page.input_value("#across-dropout-seed") == "11"
    assert page.is_hidden("#error")
    rows = run_methods(page)
    # the table's order is the link's, as the app's for the same link
    assert_rows_match_cpython(rows, tok, TEXT, ["lbpe", "dropout", "longest-suffix"], dropout=0.25, seed=11)


@pytest.mark.parametrize(
    ("params", "axis", "says"),
    [
        ({"ax": "methods", "ms": "bpe,lbpee"}, "methods", "did you mean lbpe?"),
        ({"ax": "methods", "ms": "bpe,dropout", "mdr": "7"}, "methods", "from 0 to 1"),
        ({"ax": "sideways"}, "vocabularies", "vocabularies or methods"),
    ],
)
def test_a_link_that_cannot_be_shown_says_why(session, server, tok, params, axis, says):
    page = session.page
    open_page(page, link(server, t=TEXT, **params))
    wait_text(page, TEXT)
    page.wait_for_selector("#error:not([hidden])")
    message = page.inner_text("#error")
    assert "About this link" in message and says in message, message
    assert page.is_checked(f"#across-axis input[value='{axis}']")
    assert ticked(page) == list(METHODS)
    if axis == "methods":
        assert "every method is shown" in message
        assert page.input_value("#across-dropout-rate") == "0.1"
        assert_rows_match_cpython(run_methods(page), tok, TEXT, list(METHODS), dropout=0.1, seed=0)
    else:
        assert not page.is_visible("#across-methods-options") and "ax" not in fragment(page)
