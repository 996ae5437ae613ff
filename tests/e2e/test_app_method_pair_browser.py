"""The Compare tab's method pickers in a real headless Chromium: pick longest-prefix and
least-tokens, see each pane's count and heading be that method's (``Tokenizer.encode``), the
address carry the pair, dropout's options appear with it, and a link open the pair it names.
A screenshot goes to ``artifacts/screens/``."""

from __future__ import annotations

from urllib.parse import quote, urlparse

import pytest
from playwright.sync_api import expect

from lbpe.presets import load_preset
from tests.support.app import ROOT
from tests.support.browser import watch_requests

pytestmark = pytest.mark.slow(reason="Chromium drives the playground")

SCREENS = ROOT / "artifacts" / "screens"
TEXT = (
    "The unbelievably overcomplicated anticonstitutional reorganisation of electroencephalography departments "
    "continues."
)
VOCAB = "cl100k_base"
TIMEOUT_MS = 60_000
expect.set_options(timeout=TIMEOUT_MS)


@pytest.fixture
def page(browser, app_server, unanswered):
    requests: list[str] = []
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    watch_requests(context, unanswered)
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    yield page
    context.close()
    assert not [u for u in requests if urlparse(u).hostname not in (None, "127.0.0.1")]


def pane(page, role: str):
    return page.locator(f"#{role}-pane .lbpe-pane")


def pick(page, box: str, name: str) -> None:
    page.locator(f"#{box} input").click()
    page.get_by_role("option", name=name, exact=True).click()
    # the menu closes before the next pick opens another (two open menus offer each name twice)
    expect(page.locator(f"#{box} input")).to_have_value(name)
    expect(page.get_by_role("option")).to_have_count(0)


def expect_pane(page, role: str, name: str, ids: list[int]) -> None:
    expect(pane(page, role).locator(".lbpe-mode")).to_have_text(name)
    expect(pane(page, role)).to_have_attribute("data-tokens", str(len(ids)))
    expect(pane(page, role).locator(".lbpe-count")).to_have_text(f"{len(ids):,} tokens")


#: Counts the page's own presses of "Compare again" (app.js presses it when an answer is of
#: other controls than the page holds: two comparisons in flight that ended out of order).
COUNT_ASKED_AGAIN = """(() => { window.lbpeAskedAgain = 0; document.addEventListener("click", (e) => {
  if (e.target.closest && e.target.closest("#compare-again")) window.lbpeAskedAgain += 1; }, true); })()"""


def test_pick_longest_prefix_and_least_tokens(page, app_server):
    page.add_init_script(COUNT_ASKED_AGAIN)
    tok = load_preset(VOCAB)
    want = {
        m: tok.encode(TEXT, mode=m, disallowed_special=()) for m in ("bpe", "lbpe", "longest-prefix", "least-tokens")
    }
    assert len(want["longest-prefix"]) != len(want["least-tokens"])
    page.goto(f"{app_server.url}?t={quote(TEXT)}&v={VOCAB}")
    expect_pane(page, "bpe", "BPE", want["bpe"])
    expect_pane(page, "lbpe", "LBPE", want["lbpe"])
    assert "m=" not in page.url
    expect(page.locator("#dropout-rate")).to_be_hidden()
    expect(page.locator("#explain-pair-note")).to_be_hidden()

    pick(page, "left-method", "Longest prefix")
    pick(page, "right-method", "Least tokens")
    expect_pane(page, "bpe", "Longest prefix", want["longest-prefix"])
    expect_pane(page, "lbpe", "Least tokens", want["least-tokens"])
    # Explain shows the pair's own steps (test_explain_pair_browser.py): no note says otherwise
    expect(page.locator("#explain-pair-note")).to_be_hidden()
    expect(page.locator("#explain .lbpe-x-method").first).to_have_text("Longest prefix")
    expect(pane(page, "bpe")).to_have_attribute("data-method", "longest-prefix")
    expect(page.locator("#metrics th").first.locator("xpath=following-sibling::th[1]")).to_have_text("Longest prefix")
    page.wait_for_function("() => new URL(location.href).searchParams.get('m') === 'longest-prefix,least-tokens'")
    page.locator("#ids-box").get_by_text("Token ids").click()
    expect(page.locator("#bpe-ids textarea")).to_have_value(" ".join(map(str, want["longest-prefix"])))
    expect(page.locator("#bpe-ids")).to_contain_text("Longest prefix ids")
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / "app_method_pair.png"), full_page=True)

    # dropout: its rate and seed appear, and the pane is BPE-dropout's with them
    pick(page, "right-method", "BPE-dropout")
    expect(page.locator("#dropout-rate")).to_be_visible()
    expect(page.locator("#dropout-seed")).to_be_visible()
    dropped = tok.encode(TEXT, mode="dropout", dropout=0.1, seed=0, disallowed_special=())
    expect_pane(page, "lbpe", "BPE-dropout 0.1", dropped)
    page.wait_for_function("() => new URL(location.href).searchParams.get('dr') === '0.1'")
    page.screenshot(path=str(SCREENS / "app_method_pair_dropout.png"), full_page=True)

    # the same method on both sides: the reason beside the text, the last panes kept
    pick(page, "right-method", "Longest prefix")
    expect(page.locator("#compare-note")).to_contain_text("compare two different methods")
    pick(page, "left-method", "BPE")
    expect_pane(page, "bpe", "BPE", want["bpe"])
    expect_pane(page, "lbpe", "Longest prefix", want["longest-prefix"])
    expect(page.locator("#dropout-rate")).to_be_hidden()
    pick(page, "right-method", "LBPE")
    expect(page.locator("#explain-pair-note")).to_be_hidden()
    expect_pane(page, "lbpe", "LBPE", want["lbpe"])
    page.locator("#show-special input").check()
    page.locator("#show-ws input").uncheck()
    expect(pane(page, "bpe").locator(".lbpe-ws")).to_have_count(0)
    # every answer above was of the controls the page held when it came (the methods, dropout's
    # rate and seed as the server received them): the page never had to ask again
    page.wait_for_timeout(1000)
    assert page.evaluate("window.lbpeAskedAgain") == 0


def test_a_link_opens_the_pair_it_names(page, app_server):
    tok = load_preset(VOCAB)
    page.goto(f"{app_server.url}?t={quote(TEXT)}&v={VOCAB}&m=least-tokens,longest-prefix")
    expect_pane(page, "bpe", "Least tokens", tok.encode(TEXT, mode="least-tokens", disallowed_special=()))
    expect_pane(page, "lbpe", "Longest prefix", tok.encode(TEXT, mode="longest-prefix", disallowed_special=()))
    expect(page.locator("#left-method input")).to_have_value("Least tokens")
    expect(page.locator("#right-method input")).to_have_value("Longest prefix")
    expect(page.locator("#explain-pair-note")).to_be_hidden()
    expect(page.locator("#explain .lbpe-x-method").first).to_have_text("Least tokens")


#: Keeps every drawing of the right pane the page shows (its text and the ids of its tokens),
#: from the page's first paint: a pane drawn even for a moment is one a person may read.
RECORD_RIGHT_PANE = """(() => { window.lbpeRightPanes = []; const seen = () => {
  const p = document.querySelector("#lbpe-pane .lbpe-pane"); if (!p) return;
  const toks = [...p.querySelectorAll(".lbpe-tok")];
  const drawn = toks.map((t) => t.textContent).join("") + "|" + toks.map((t) => t.dataset.i).join(" ");
  const all = window.lbpeRightPanes;
  if (all[all.length - 1] !== drawn) all.push(drawn); };
  document.addEventListener("DOMContentLoaded", () => new MutationObserver(seen).observe(document.body,
    {subtree: true, childList: true, attributes: true, characterData: true})); })()"""


def test_a_seeded_dropout_link_never_shows_other_draws(page, app_server):
    tok = load_preset(VOCAB)
    rate = 0.3
    wanted = tok.encode(TEXT, mode="dropout", dropout=rate, seed=7, disallowed_special=())
    # the test can fail: seed 0's draw (the seed box's value before the link's is applied) differs
    assert tok.encode(TEXT, mode="dropout", dropout=rate, seed=0, disallowed_special=()) != wanted
    page.add_init_script(RECORD_RIGHT_PANE)
    page.goto(f"{app_server.url}?t={quote(TEXT)}&v={VOCAB}&m=bpe,dropout&dr={rate}&seed=7")
    expect_pane(page, "lbpe", f"BPE-dropout {rate}", wanted)
    expect(page.locator("#dropout-seed input")).to_have_value("7")
    page.wait_for_timeout(3000)  # the changes the link makes have had their answers
    expect_pane(page, "lbpe", f"BPE-dropout {rate}", wanted)
    drawn = page.evaluate("window.lbpeRightPanes")
    # before the link is applied the page may show its opening text's panes; every drawing of
    # the link's text is seed 7's
    of_link = [d.split("|")[1] for d in drawn if "overcomplicated" in d.split("|")[0]]
    assert of_link and set(of_link) == {" ".join(map(str, wanted))}, of_link


def test_a_dropout_rate_gradio_refuses_says_why_beside_the_text(page, app_server):
    """Gradio refuses a rate past the control's bounds before the handler runs: the reason,
    naming the control and its range, stays beside the text after the notice fades, and goes
    when a rate it takes is given."""
    tok = load_preset(VOCAB)
    page.goto(f"{app_server.url}?t={quote(TEXT)}&v={VOCAB}&m=bpe,dropout&dr=0.1&seed=0")
    expect_pane(page, "lbpe", "BPE-dropout 0.1", tok.encode(TEXT, mode="dropout", dropout=0.1, seed=0))
    rate = page.locator("#dropout-rate input")
    rate.fill("1.5")
    rate.press("Enter")
    note = page.locator("#compare-note .lbpe-failed")
    expect(note).to_contain_text("1.5")
    expect(note).to_contain_text("Dropout rate")
    expect(note).to_contain_text("from 0 to 1")
    expect(page.locator(".toast-body")).to_have_count(0, timeout=30_000)  # the notice has faded...
    expect(note).to_contain_text("1.5")  # ...the reason stays
    rate.fill("0.3")
    rate.press("Enter")
    expect_pane(page, "lbpe", "BPE-dropout 0.3", tok.encode(TEXT, mode="dropout", dropout=0.3, seed=0))
    expect(note).to_have_count(0)


def test_panes_a_refused_comparison_leaves_are_dimmed_and_said_to_be_old(page, app_server):
    """While the pair cannot be compared, the panes keep the last comparison: they are dimmed,
    the reason says whose they are, and a new text does not make them look current."""
    tok = load_preset(VOCAB)
    page.goto(f"{app_server.url}?t={quote(TEXT)}&v={VOCAB}&m=bpe,dropout&dr=0.1&seed=0")
    ids = tok.encode(TEXT, mode="dropout", dropout=0.1, seed=0)
    expect_pane(page, "lbpe", "BPE-dropout 0.1", ids)
    panes = page.locator(".lbpe-panes")
    expect(panes).to_have_css("opacity", "1")
    rate = page.locator("#dropout-rate input")
    rate.fill("1.5")
    rate.press("Enter")
    note = page.locator("#compare-note")
    expect(note.locator(".lbpe-failed")).to_contain_text("1.5")
    expect(note).to_contain_text("still those of the last")
    expect(panes).not_to_have_css("opacity", "1")
    page.locator("#text textarea").fill("A new text the panes have not seen.")
    expect(note).to_contain_text("still those of the last")
    expect(panes).not_to_have_css("opacity", "1")
    expect_pane(page, "lbpe", "BPE-dropout 0.1", ids)  # still the last comparison, dimmed
    rate.fill("0.3")
    rate.press("Enter")
    new = "A new text the panes have not seen."
    expect_pane(page, "lbpe", "BPE-dropout 0.3", tok.encode(new, mode="dropout", dropout=0.3, seed=0))
    expect(note.locator(".lbpe-failed")).to_have_count(0)
    expect(panes).to_have_css("opacity", "1")


#: Holds back, by 1.5 s, the page's requests that carry the dropout rate 1.5 (a slow server's
#: answer to it), so the controls' next change arrives while that comparison still runs.
SLOW_RATE = """
(() => {
  const fetch0 = window.fetch.bind(window);
  window.fetch = async (url, init) => {
    const body = init && typeof init.body === "string" ? init.body : "";
    if (String(url).includes("/queue/join") && body.includes(",1.5,")) {
      await new Promise((go) => setTimeout(go, 1500));
    }
    return fetch0(url, init);
  };
})();
"""


def test_panes_a_change_made_while_a_refused_comparison_ran_is_compared(page, app_server):
    """A comparison refused (rate 1.5) while the text and rate changed again: Gradio's page drops
    the change it held back behind a failed run, so the page asks for the controls it holds."""
    tok = load_preset(VOCAB)
    page.add_init_script(SLOW_RATE)
    page.goto(f"{app_server.url}?t={quote(TEXT)}&v={VOCAB}&m=bpe,dropout&dr=0.1&seed=0")
    expect_pane(page, "lbpe", "BPE-dropout 0.1", tok.encode(TEXT, mode="dropout", dropout=0.1, seed=0))
    rate = page.locator("#dropout-rate input")
    rate.fill("1.5")
    rate.press("Enter")
    new = "A new text the panes have not seen."
    page.locator("#text textarea").fill(new)
    rate.fill("0.3")
    rate.press("Enter")
    expect_pane(page, "lbpe", "BPE-dropout 0.3", tok.encode(new, mode="dropout", dropout=0.3, seed=0))
    note = page.locator("#compare-note")
    expect(note.locator(".lbpe-failed")).to_have_count(0)
    expect(page.locator(".lbpe-panes")).to_have_css("opacity", "1")
