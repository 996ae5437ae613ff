"""The built browser page comparing two methods other than BPE and LBPE, in headless Chromium.

Each check compares the ids the page shows under each pane (and in each token's hover title)
with CPython's ``Tokenizer.encode`` for that pane's method: two methods picked, BPE-dropout with
a rate and seed (the same after a reload), a link that names a pair, and a link whose pair
cannot be compared (an error, and BPE and LBPE). No request may leave the page's origin and
the page may raise no error. The harness is the one of ``test_web_browser.py``.

Needs ``chromium`` (Debian's package) and the npm packages: ``bash scripts/install_test_deps.sh``.
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest

from lbpe.playground.page.site import build_site
from lbpe.presets import DEFAULT_PRESET, load_preset
from lbpe.tokenizer import MODES
from tests.support.page import READY_MS, Server, Session, link, open_page

pytestmark = pytest.mark.slow(reason="Chromium drives the page (Pyodide in the browser)")

STEP_MS = 60_000
TEXT = "The unbelievably overcomplicated anticonstitutional reorganisation of electroencephalography departments."
NAMES = {"bpe": "BPE", "lbpe": "LBPE", "longest-prefix": "Longest prefix", "longest-suffix": "Longest suffix"}
NAMES |= {"least-tokens": "Least tokens"}


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


def wait_methods(page, text: str, methods: list[str]) -> None:
    page.wait_for_function(
        "([text, methods]) => { const r = window.lbpePage.rendered;"
        " return r.text === text && JSON.stringify(r.methods) === JSON.stringify(methods); }",
        arg=[text, methods],
        timeout=STEP_MS,
    )


def shown(page) -> dict:
    """Per role (left ``bpe``, right ``lbpe``): the pane's heading, its count, the ids listed under it
    and the ids of its hover titles."""
    raw = page.evaluate(
        """(modes) => Object.fromEntries(modes.map((m) => {
            const pane = document.querySelector(`.pane[data-mode="${m}"] .lbpe-pane`);
            return [m, {
              head: pane.querySelector('.lbpe-mode').textContent,
              count: pane.querySelector('.lbpe-count').textContent,
              ids: document.querySelector(`.ids[data-mode="${m}"]`).textContent,
              idsLabel: document.querySelector(`.panel[data-mode="${m}"] .ids-box summary`).textContent,
              shownIds: [...pane.querySelectorAll('.lbpe-tok')].map((s) => s.dataset.i),
            }];
          }))""",
        list(MODES),
    )
    return {
        mode: {
            "head": r["head"],
            "ids_label": r["idsLabel"],
            "count": int(re.match(r"([\d,]+) tokens?", r["count"]).group(1).replace(",", "")),
            "ids": [int(x) for x in r["ids"].split()],
            "hover_ids": [int(i) for t in r["shownIds"] for i in t.split()],
        }
        for mode, r in raw.items()
    }


def assert_pair_matches_cpython(page, tok, text: str, methods: list[str], **options) -> dict:
    got = shown(page)
    for role, method in zip(MODES, methods, strict=True):
        extra = options if method == "dropout" else {}
        want = tok.encode(text, mode=method, disallowed_special=(), **extra)
        g = got[role]
        assert g["ids"] == want, f"{method} ({role} pane): listed ids differ from CPython"
        assert g["hover_ids"] == want, f"{method} ({role} pane): hover ids differ from CPython"
        assert g["count"] == len(want), f"{method}: shown count {g['count']} != {len(want)}"
        name = f"BPE-dropout {options['dropout']:g}" if method == "dropout" else NAMES[method]
        assert g["head"] == name and name in g["ids_label"], (g["head"], g["ids_label"])
    return got


def test_two_other_methods_show_cpythons_ids(session, server, tok):
    page = session.page
    open_page(page, server.url)
    assert page.input_value("#left-method") == "bpe" and page.input_value("#right-method") == "lbpe"
    assert not page.is_visible("#dropout-rate") and not page.is_visible("#dropout-seed")
    assert not page.is_visible("#explain-pair-note")
    page.fill("#text", TEXT)
    wait_methods(page, TEXT, ["bpe", "lbpe"])
    page.select_option("#left-method", "longest-prefix")
    page.select_option("#right-method", "least-tokens")
    wait_methods(page, TEXT, ["longest-prefix", "least-tokens"])
    assert_pair_matches_cpython(page, tok, TEXT, ["longest-prefix", "least-tokens"])
    page.wait_for_function("() => location.hash.includes('m=longest-prefix%2Cleast-tokens')")
    assert "dr=" not in page.url and "seed=" not in page.url
    assert not page.is_visible("#dropout-rate")
    # the metrics, differences and charts name the pair, never BPE against LBPE
    assert "Longest prefix" in page.inner_text("#metrics")
    page.wait_for_selector("#chart .main-svg")
    assert "Least tokens" in page.inner_text("#chart")
    assert "Longest prefix" in page.inner_text(".chart-box")
    # Explain shows the pair's own steps (test_explain_pair_browser.py): no note says otherwise
    assert not page.is_visible("#explain-pair-note")
    # back to the default pair: the link drops m=
    page.select_option("#left-method", "bpe")
    page.select_option("#right-method", "lbpe")
    wait_methods(page, TEXT, ["bpe", "lbpe"])
    assert_pair_matches_cpython(page, tok, TEXT, ["bpe", "lbpe"])
    assert not page.is_visible("#explain-pair-note")
    page.wait_for_function("() => !location.hash.includes('m=')")
    # one method twice cannot be compared: said in #error, not a dead control
    page.select_option("#right-method", "bpe")
    page.wait_for_selector("#error:not([hidden])")
    assert "two different methods" in page.inner_text("#error")
    page.select_option("#right-method", "least-tokens")
    wait_methods(page, TEXT, ["bpe", "least-tokens"])
    assert page.is_hidden("#error")


def test_dropout_with_a_seed_is_cpythons_and_survives_a_reload(session, server, tok):
    page = session.page
    open_page(page, server.url)
    page.fill("#text", TEXT)
    wait_methods(page, TEXT, ["bpe", "lbpe"])
    page.select_option("#left-method", "dropout")
    assert page.is_visible("#dropout-rate") and page.is_visible("#dropout-seed")
    page.fill("#dropout-rate", "0.3")
    page.fill("#dropout-seed", "7")
    page.wait_for_function("() => location.hash.includes('dr=0.3') && location.hash.includes('seed=7')")
    wait_methods(page, TEXT, ["dropout", "lbpe"])
    page.wait_for_function("() => window.lbpePage.rendered.dropout === 0.3 && window.lbpePage.rendered.seed === 7")
    first = assert_pair_matches_cpython(page, tok, TEXT, ["dropout", "lbpe"], dropout=0.3, seed=7)
    assert "m=dropout%2Clbpe" in page.url

    # a bad rate says what a rate is, beside the controls; the panes keep the last good result
    page.fill("#dropout-rate", "1.5")
    page.wait_for_selector("#error:not([hidden])")
    assert "dropout rate must be a number from 0 to 1" in page.inner_text("#error")
    page.fill("#dropout-rate", "0.3")
    page.wait_for_selector("#error", state="hidden")

    page.reload(wait_until="domcontentloaded")
    page.wait_for_function("() => window.lbpePage && window.lbpePage.rendered.seq > 0", timeout=READY_MS)
    wait_methods(page, TEXT, ["dropout", "lbpe"])
    assert page.input_value("#left-method") == "dropout"
    assert page.input_value("#dropout-rate") == "0.3" and page.input_value("#dropout-seed") == "7"
    assert assert_pair_matches_cpython(page, tok, TEXT, ["dropout", "lbpe"], dropout=0.3, seed=7) == first


def test_a_link_opens_on_its_pair(session, server, tok):
    page = session.page
    url = link(server, t=TEXT, m="longest-suffix,lbpe")
    page.goto(url, wait_until="domcontentloaded")
    # the built first view is BPE and LBPE's: not shown under this link's pair
    early = page.evaluate(
        "() => ({state: document.querySelector('#status').dataset.state,"
        " panes: document.querySelectorAll('.pane .lbpe-pane').length})"
    )
    assert early["state"] != "loading" or early["panes"] == 0, "BPE and LBPE's first view shown for another pair"
    page.wait_for_function("() => window.lbpePage && window.lbpePage.rendered.seq > 0", timeout=READY_MS)
    wait_methods(page, TEXT, ["longest-suffix", "lbpe"])
    assert page.input_value("#left-method") == "longest-suffix" and page.input_value("#right-method") == "lbpe"
    assert_pair_matches_cpython(page, tok, TEXT, ["longest-suffix", "lbpe"])
    assert page.is_hidden("#error")
    assert "m=longest-suffix%2Clbpe" in page.url

    # a link with dropout's rate and seed, opened in another tab
    other = session.context.new_page()
    other.on("pageerror", lambda e: session.errors.append(str(e)))
    other.goto(link(server, t=TEXT, m="least-tokens,dropout", dr="0.25", seed="11"), wait_until="domcontentloaded")
    other.wait_for_function("() => window.lbpePage && window.lbpePage.rendered.seq > 0", timeout=READY_MS)
    wait_methods(other, TEXT, ["least-tokens", "dropout"])
    assert other.input_value("#dropout-rate") == "0.25" and other.input_value("#dropout-seed") == "11"
    assert_pair_matches_cpython(other, tok, TEXT, ["least-tokens", "dropout"], dropout=0.25, seed=11)


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"m": "nonsense"}, "must be two inference methods"),
        ({"m": "nonsense,lbpe"}, "unknown inference method 'nonsense'"),
        ({"m": "dropout,lbpe", "dr": "abc"}, "dropout rate “abc” is not a number"),
        ({"m": "dropout,lbpe", "dr": "3"}, "dropout must be a number from 0 to 1"),
    ],
)
def test_a_link_with_a_pair_that_cannot_be_compared(session, server, tok, params, says):
    page = session.page
    open_page(page, link(server, t=TEXT, **params))
    wait_methods(page, TEXT, ["bpe", "lbpe"])
    page.wait_for_selector("#error:not([hidden])")
    message = page.inner_text("#error")
    assert "About this link" in message and params["m"] in message and says in message, message
    assert "BPE and LBPE are shown" in message, message
    assert page.input_value("#left-method") == "bpe" and page.input_value("#right-method") == "lbpe"
    assert_pair_matches_cpython(page, tok, TEXT, ["bpe", "lbpe"])
    assert "m=" not in page.url.split("#", 1)[1]


def test_a_fragment_changed_in_place_follows_its_pair(session, server, tok):
    """A link pasted over the open page's (the fragment changes, the page stays) is read as one opened."""
    page = session.page
    open_page(page, server.url)
    page.evaluate(
        "(hash) => { location.hash = hash; }",
        "#" + urllib.parse.urlencode({"t": TEXT, "m": "least-tokens,longest-prefix"}, quote_via=urllib.parse.quote),
    )
    wait_methods(page, TEXT, ["least-tokens", "longest-prefix"])
    assert page.input_value("#left-method") == "least-tokens"
    assert_pair_matches_cpython(page, tok, TEXT, ["least-tokens", "longest-prefix"])
    page.evaluate("(hash) => { location.hash = hash; }", "#" + urllib.parse.urlencode({"t": TEXT, "m": "nonsense,bpe"}))
    wait_methods(page, TEXT, ["bpe", "lbpe"])
    page.wait_for_selector("#error:not([hidden])")
    assert "unknown inference method 'nonsense'" in page.inner_text("#error")
    assert page.input_value("#left-method") == "bpe" and page.input_value("#right-method") == "lbpe"
    assert_pair_matches_cpython(page, tok, TEXT, ["bpe", "lbpe"])


def test_panes_a_refused_pair_leaves_are_dimmed_and_said_to_be_the_last_ones(session, server, tok):
    """While the pair cannot be compared the panes keep the last comparison: they are dimmed,
    and the line under the text gives the text in the box and says what the panes show (they
    showed another vocabulary's ids, or another text's, as if current)."""
    page = session.page
    open_page(page, link(server, v="cl100k_base", t="Hello world"))
    wait_methods(page, "Hello world", ["bpe", "lbpe"])

    def dimmed() -> bool:
        return page.evaluate("() => getComputedStyle(document.querySelector('.results .pane')).opacity") == "0.5"

    assert not dimmed()
    page.select_option("#right-method", "dropout")
    page.fill("#dropout-rate", "2")
    page.wait_for_function("() => document.querySelector('#error').textContent.includes('dropout rate')")
    page.select_option("#preset", "gpt2")
    page.wait_for_function("() => getComputedStyle(document.querySelector('.results .pane')).opacity === '0.5'")
    info = page.inner_text("#text-info")
    assert "the last comparison that could be made" in info and "cl100k_base" in info, info
    page.select_option("#right-method", "bpe")  # one method on both sides
    text = "a completely different second text"
    page.fill("#text", text)
    said = f"{len(text)} characters, {len(text.encode())} bytes"
    page.wait_for_function("(n) => document.querySelector('#text-info').textContent.startsWith(n)", arg=said)
    assert dimmed() and "Pick two different methods" in page.inner_text("#error")
    info = page.inner_text("#text-info")
    assert "“Hello world”" in info and "Loading" not in page.inner_text("#status"), info
    page.select_option("#right-method", "lbpe")
    wait_methods(page, text, ["bpe", "lbpe"])
    assert not dimmed()
    ids = [int(i) for i in page.text_content(".ids[data-mode='lbpe']").split()]
    assert ids == load_preset("gpt2").encode(text, mode="lbpe")
