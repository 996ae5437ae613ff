"""Explain follows the pair compared, in a real headless Chromium, on the built page and in the
Gradio app: with longest-prefix against least-tokens (from a link, then picked), the Explain box
shows each method's own steps under a heading naming it, and each side's tokens, read from the
steps' result, are exactly the tokens of that method's pane.

Needs ``chromium`` (Debian's package) and the npm packages: ``bash scripts/install_test_deps.sh``.
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path
from urllib.parse import quote, urlparse

import pytest
from playwright.sync_api import expect

from lbpe.playground.page.site import build_site
from lbpe.presets import load_preset
from tests.support.page import Server, open_page

pytestmark = pytest.mark.slow(reason="Chromium drives the page (Pyodide in the browser) and the app")

STEP_MS = 60_000
TEXT = "The unbelievably overcomplicated anticonstitutional reorganisation of electroencephalography departments."
NAMES = {"longest-prefix": "Longest prefix", "least-tokens": "Least tokens", "longest-suffix": "Longest suffix"}
VOCAB = "cl100k_base"  # the two methods differ on TEXT with it (checked below)

#: Per side (left, right): the heading of each piece's side and the ids of its tokens, from the steps.
EXPLAINED = """() => ["left", "right"].map((side) => {
    const sides = [...document.querySelectorAll(`#explain .lbpe-explain-pair .lbpe-x-side[data-side="${side}"]`)];
    return {
      headings: [...new Set(sides.map((s) => s.querySelector(".lbpe-x-method").textContent))],
      methods: [...new Set(sides.map((s) => s.dataset.method))],
      steps: sides.reduce((n, s) => n + s.querySelectorAll(".lbpe-x-steps li").length, 0),
      ids: sides.flatMap((s) => (s.querySelector(".lbpe-x-tokens")?.dataset.ids || "").split(" ").filter(Boolean))
        .map(Number),
    };
  })"""


@pytest.fixture(scope="module")
def tok():
    tok = load_preset(VOCAB)
    ids = {m: tok.encode(TEXT, mode=m, disallowed_special=()) for m in NAMES}
    assert ids["longest-prefix"] != ids["least-tokens"] != ids["longest-suffix"]
    return tok


def assert_steps_match_panes(page, left: str, right: str, pane_ids: list[list[int]], tok) -> None:
    got = page.evaluate(EXPLAINED)
    for side, method, ids in zip(got, (left, right), pane_ids):
        assert side["headings"] == [NAMES[method]] and side["methods"] == [method], side
        assert side["steps"] > 0, f"{method}: no steps shown"
        assert side["ids"] == ids, f"{method}: the steps end in other tokens than its pane's"
        assert ids == tok.encode(TEXT, mode=method, disallowed_special=())


# ---- the built page ----


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    out: Path = tmp_path_factory.mktemp("site")
    build_site(out)
    s = Server(out)
    yield s
    s.stop()


def page_pane_ids(page) -> list[list[int]]:
    return page.evaluate(
        """() => ["bpe", "lbpe"].map((m) => [...document.querySelectorAll(`.pane[data-mode="${m}"] .lbpe-tok`)]
            .flatMap((s) => s.dataset.i.split(" ")).map(Number))"""
    )


def wait_page_pair(page, left: str, right: str) -> None:
    page.wait_for_function(
        "([text, pair]) => { const r = window.lbpePage.rendered;"
        " return r.text === text && JSON.stringify(r.methods) === JSON.stringify(pair); }",
        arg=[TEXT, [left, right]],
        timeout=STEP_MS,
    )
    page.wait_for_function(
        '([l, r]) => document.querySelector(`#explain .lbpe-x-side[data-side=left][data-method="${l}"]`) &&'
        ' document.querySelector(`#explain .lbpe-x-side[data-side=right][data-method="${r}"]`) &&'
        " document.querySelectorAll('#explain .lbpe-x-tokens').length > 0",
        arg=[left, right],
        timeout=STEP_MS,
    )


def test_the_page_explains_the_pair_with_its_own_steps(browser, server, tok):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(STEP_MS)
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        params = {"v": VOCAB, "t": TEXT, "m": "longest-prefix,least-tokens", "x": TEXT, "xa": "0"}
        open_page(page, server.url + "#" + urllib.parse.urlencode(params, quote_via=urllib.parse.quote))
        wait_page_pair(page, "longest-prefix", "least-tokens")
        assert not page.is_visible("#explain-pair-note")
        assert_steps_match_panes(page, "longest-prefix", "least-tokens", page_pane_ids(page), tok)
        # another method picked: Explain follows it
        page.select_option("#right-method", "longest-suffix")
        wait_page_pair(page, "longest-prefix", "longest-suffix")
        assert_steps_match_panes(page, "longest-prefix", "longest-suffix", page_pane_ids(page), tok)
    finally:
        context.close()
    assert not errors, errors


# ---- the Gradio app ----


def app_pane_ids(page) -> list[list[int]]:
    return [
        [int(i) for group in re.findall(r'data-i="([^"]*)"', page.inner_html(f"#{role}-pane")) for i in group.split()]
        for role in ("bpe", "lbpe")
    ]


def pick(page, box: str, name: str) -> None:
    page.locator(f"#{box} input").click()
    page.get_by_role("option", name=name, exact=True).click()
    # the menu closes before the next pick opens another (two open menus offer each name twice)
    expect(page.locator(f"#{box} input")).to_have_value(name)
    expect(page.get_by_role("option")).to_have_count(0)


#: The Explain box shows ``[0]``'s explanation of TEXT with cl100k_base at its last step, and
#: the slider says that step. Until then the box may show a step of an explanation the server
#: is replacing: the link's text, vocabulary and pair, and each pick, reach it one at a time.
SETTLED = """([methods, text]) => {
    const e = document.querySelector('#explain .lbpe-explain');
    const range = document.querySelector('#explain-step input[type=range]');
    return !!e && !!range && (e.dataset.methods || 'bpe,lbpe') === methods
      && +e.dataset.frame === +e.dataset.frames - 1 && +range.value === +e.dataset.frame
      && e.querySelector('.lbpe-x-head').textContent.includes(`${text} `)
      && e.querySelector('.lbpe-x-head').textContent.includes('with cl100k_base:');
  }"""


def wait_settled(page, left: str, right: str, ids: list[list[int]] | None = None) -> None:
    """Wait for :data:`SETTLED`; with ``ids``, also for each side's steps to end in those ids (a
    step asked for before the last explanation may still be answered after it, for a moment)."""
    page.wait_for_function(SETTLED, arg=[f"{left},{right}", TEXT.replace(" ", "·")], timeout=STEP_MS)
    if ids is not None:
        page.wait_for_function(
            f"(want) => JSON.stringify(({EXPLAINED})().map((side) => side.ids)) === JSON.stringify(want)",
            arg=ids,
            timeout=STEP_MS,
        )


def test_the_app_explains_the_pair_with_its_own_steps(browser, app_server, tok):
    requests: list[str] = []
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.set_default_timeout(STEP_MS)
    expect.set_options(timeout=STEP_MS)
    try:
        page.goto(f"{app_server.url}?t={quote(TEXT)}&v={VOCAB}&x={quote(TEXT)}&xa=0")
        expect(page.locator("#bpe-pane .lbpe-pane .lbpe-mode")).to_have_text("BPE")
        wait_settled(page, "bpe", "lbpe")
        pick(page, "left-method", "Longest prefix")
        pick(page, "right-method", "Least tokens")
        want = [tok.encode(TEXT, mode=m, disallowed_special=()) for m in ("longest-prefix", "least-tokens")]
        expect(page.locator("#lbpe-pane .lbpe-pane")).to_have_attribute("data-tokens", str(len(want[1])))
        expect(page.locator("#bpe-pane .lbpe-pane")).to_have_attribute("data-tokens", str(len(want[0])))
        expect(
            page.locator('#explain .lbpe-x-side[data-side="left"][data-method="longest-prefix"]').first
        ).to_be_visible()
        expect(
            page.locator('#explain .lbpe-x-side[data-side="right"][data-method="least-tokens"]').first
        ).to_be_visible()
        expect(page.locator("#explain-pair-note")).to_be_hidden()
        wait_settled(page, "longest-prefix", "least-tokens", want)
        assert app_pane_ids(page) == want
        assert_steps_match_panes(page, "longest-prefix", "least-tokens", app_pane_ids(page), tok)
    finally:
        context.close()
    assert not [u for u in requests if urlparse(u).hostname not in (None, "127.0.0.1")]


#: What the Explain box showed at each change from now on: "steps" or its text (a note, a reason).
WATCH_EXPLAIN = """() => { window.lbpeExplainSeen = [];
  const box = document.querySelector('#explain');
  new MutationObserver(() => window.lbpeExplainSeen.push(
      box.querySelector('.lbpe-x-side') ? 'steps' : box.textContent.trim().slice(0, 300)))
    .observe(box, {subtree: true, childList: true, characterData: true}); }"""


def test_a_step_sent_as_the_pair_changes_keeps_the_steps(browser, app_server):
    """A step of the slider that reaches the server after the pair's new explanation (with
    fewer steps) shows that explanation, not the reason Gradio refused the step: the step's
    request is held back until the new explanation is shown, then let go."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(STEP_MS)
    expect.set_options(timeout=STEP_MS)
    held: list = []
    try:
        page.goto(f"{app_server.url}?t={quote(TEXT)}&v={VOCAB}&x={quote(TEXT)}&xa=0")
        wait_settled(page, "bpe", "lbpe")
        pick(page, "left-method", "Longest prefix")
        side = '#explain .lbpe-x-side[data-side="{}"][data-method="{}"]'
        wait_settled(page, "longest-prefix", "lbpe")
        long_frames = int(page.locator("#explain .lbpe-explain").get_attribute("data-frames"))
        frame_fn = page.evaluate(
            "() => window.gradio_config.dependencies.find((d) => d.api_name === 'explain_frame').id"
        )

        def hold(route) -> None:
            if not held and (route.request.post_data_json or {}).get("fn_index") == frame_fn:
                held.append(route)
            else:
                route.continue_()

        page.route("**/queue/join*", hold)
        step = page.locator("#explain-step input[type=number]")
        step.fill(str(long_frames - 2))  # the last but one (the last is shown: no change)
        step.press("Enter")
        for _ in range(100):
            if held:
                break
            page.wait_for_timeout(100)
        assert held, "no step was sent"
        pick(page, "right-method", "Least tokens")
        expect(page.locator(side.format("right", "least-tokens")).first).to_be_visible()
        short_frames = int(page.locator("#explain .lbpe-explain").get_attribute("data-frames"))
        assert short_frames < long_frames  # the held step is past the new explanation's last
        page.evaluate(WATCH_EXPLAIN)
        held[0].continue_()
        # a step back: the server answers it after the held step
        page.locator("#explain-prev").click()
        expect(page.locator("#explain .lbpe-explain")).to_have_attribute("data-frame", str(short_frames - 2))
        seen = page.evaluate("() => window.lbpeExplainSeen")
        assert seen and set(seen) == {"steps"}, seen
        got = page.evaluate(EXPLAINED)
        assert [(s["headings"], s["methods"]) for s in got] == [
            (["Longest prefix"], ["longest-prefix"]),
            (["Least tokens"], ["least-tokens"]),
        ]
    finally:
        context.close()
