"""The playground in a real headless Chromium (Debian's, driven by Python playwright): type text,
switch vocabulary and toggles, find lbpe's token counts and the marked differences in the
DOM, get a readable message for a broken upload, stack the panes on a narrow screen, and
never send a request anywhere but 127.0.0.1. Screenshots go to ``artifacts/``."""

from __future__ import annotations

import contextlib
import json
import random
import re
import shutil
import urllib.request
from urllib.parse import parse_qs, quote, urlparse

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from lbpe.playground import display
from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS, load_preset
from tests.support.app import ROOT
from tests.support.browser import (
    BACKGROUND_JS,
    BROKEN_WORDS_JS,
    CHART_TEXT,
    CLIPPED_JS,
    CONTRAST_JS,
    LINES_JS,
    app_page,
    check_charts,
    fill_kept,
    open_tab,
    overlap,
)
from tests.support.data import english_text

pytestmark = pytest.mark.slow(reason="Chromium drives the playground")

ARTIFACTS = ROOT / "artifacts"
#: Screenshots of the views (outside git, beside the other artifacts).
SCREENS = ARTIFACTS / "screens"
TEXT = (
    "Long-token-first encoding splits internationalization and counterrevolutionary misunderstandings "
    "differently from classic BPE.\n\tcafé, naïve, 日本語 🙂\n"
)
TIMEOUT_MS = 60_000
#: Counts the page's own Compare again presses (app.js presses it when the comparison it shows is
#: not of the controls it holds).
ASKED_AGAIN_JS = """(() => { window.lbpeAskedAgain = 0; document.addEventListener("click", (e) => {
  if (e.target.closest && e.target.closest("#compare-again")) window.lbpeAskedAgain += 1; }, true); })()"""
expect.set_options(timeout=TIMEOUT_MS)  # a loaded CI machine can take seconds for one update


@pytest.fixture
def requests():
    return []


@pytest.fixture
def page(browser, requests, app_server, unanswered):
    def watch(context) -> None:
        context.on("request", lambda r: requests.append(r.url))

    with app_page(browser, app_server.url, unanswered, timeout_ms=TIMEOUT_MS, prepare=watch) as page:
        yield page
    outside = sorted(
        {
            u
            for u in requests
            if urlparse(u).scheme not in ("data", "blob", "about") and urlparse(u).hostname != "127.0.0.1"
        }
    )
    assert requests and not outside, f"requests left 127.0.0.1: {outside}"


def vocab_upload(page):
    """The vocabulary file input (inside its accordion, which is opened when closed)."""
    box = page.locator("#vocab-upload input[type=file]")
    if box.count() == 0:
        page.locator("#vocab-upload-box").get_by_text("Upload your own vocabulary").click()
    return page.locator("#vocab-upload input[type=file]")


def pane(page, mode: str):
    return page.locator(f"#{mode}-pane .lbpe-pane")


def expect_counts(page, tok, text: str) -> display.Comparison:
    """Wait until both panes show lbpe's token counts for ``text`` and ``tok``."""
    c = display.compare(tok, text)
    for mode in ("bpe", "lbpe"):
        expect(pane(page, mode)).to_have_attribute("data-tokens", str(c.side(mode).tokens), timeout=TIMEOUT_MS)
        expect(pane(page, mode).locator(".lbpe-count")).to_have_text(
            f"{c.side(mode).tokens:,} tokens", timeout=TIMEOUT_MS
        )
    return c


def choose_vocab(page, name: str) -> None:
    """Pick a vocabulary by name; presets are listed with their models ("GPT-4o: o200k_base").

    On a loaded machine the menu's options were once seen unstable for a whole minute right
    after another vocabulary was picked (CI, and one run of six here): the menu is closed and
    opened again, as a person would, and the pick must show in the box."""
    from lbpe.presets import preset_label

    label = preset_label(name) if name in VOCAB_PRESETS else name
    box = page.locator("#vocab input")
    for _ in range(4):
        box.click()
        try:
            page.get_by_role("option", name=label, exact=True).click(timeout=15_000)
        except PlaywrightTimeoutError:
            page.keyboard.press("Escape")
            page.wait_for_timeout(1_000)
            continue
        expect(box).to_have_value(label)
        return
    raise AssertionError(f"the vocabulary menu never let {label!r} be picked")


def test_compare_in_the_browser(page, tmp_path):
    page.locator("#text textarea").fill(TEXT)
    c = expect_counts(page, load_preset(DEFAULT_PRESET), TEXT)
    assert c.differ, "the test text should show a difference with the default vocabulary"
    for mode in ("bpe", "lbpe"):
        diff = pane(page, mode).locator(".lbpe-diff")
        expect(diff.first).to_be_visible()
        expect(pane(page, mode)).to_have_attribute("data-differ", str(len(c.differ)))
        marked = "".join(diff.all_text_contents()).replace("\u00b7", " ")
        assert marked == "".join(c.text[s:e] for s, e in c.differ).replace("\t", "\u2192").replace("\n", "\u21b5\n")
    # the grouped byte-fallback token: shown once, its bytes in the tooltip (lbpe-32k has no
    # token for the emoji; Mistral-7B's vocabulary, the default, has one)
    choose_vocab(page, "lbpe-32k")
    expect_counts(page, load_preset("lbpe-32k"), TEXT)
    emoji = pane(page, "bpe").locator(".lbpe-bytes", has_text="🙂")
    expect(emoji).to_have_count(1)
    title = emoji.get_attribute("title")
    assert title.startswith('4 tokens for "🙂"') and "\\xf0" in title and "\\x82" in title, title

    choose_vocab(page, "cl100k_base")
    c = expect_counts(page, load_preset("cl100k_base"), TEXT)
    expect(page.locator("#vocab-status")).to_contain_text("cl100k_base")

    page.locator("#show-ids input").check()
    ids = pane(page, "lbpe").locator(".lbpe-id")
    expect(ids.first).to_be_visible()
    shown = [int(i) for group in ids.all_text_contents() for i in group.split()]
    assert shown == c.lbpe.ids
    page.locator("#show-ws input").uncheck()
    expect(pane(page, "bpe").locator(".lbpe-ws")).to_have_count(0)
    expect(page.locator("#length-plot .js-plotly-plot")).to_be_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "app_compare.png"), full_page=True)

    # a broken vocabulary: a readable message, and the page keeps working
    bad = tmp_path / "tokenizer.json"
    bad.write_text('{"model": {"type": "BPE", "vocab": {', "utf-8")
    vocab_upload(page).set_input_files(str(bad))
    expect(page.get_by_text("tokenizer.json, line 1: not valid JSON").first).to_be_visible()
    # the reason also stays beside the upload box, after the notice fades, until the next upload
    expect(page.locator("#vocab-upload-note .lbpe-failed")).to_contain_text("tokenizer.json, line 1: not valid JSON")
    page.wait_for_timeout(800)  # let the toast finish sliding in before the screenshot
    page.screenshot(path=str(ARTIFACTS / "app_bad_upload.png"))
    page.locator("#text textarea").fill("still working")
    expect_counts(page, load_preset("cl100k_base"), "still working")
    # the rejected file leaves the upload box: the next upload is that file alone
    expect(page.locator("#vocab-upload .file-preview, #vocab-upload table")).to_have_count(0)
    from tests.support.data import data_file

    good = tmp_path / "r50k_base.tiktoken"
    shutil.copyfile(data_file("openai/r50k_base.tiktoken"), good)
    vocab_upload(page).set_input_files(str(good))
    expect(page.locator("#vocab input")).to_have_value("upload: r50k_base.tiktoken")
    expect(page.locator("#vocab-upload-note .lbpe-failed")).to_have_count(0)


def test_uploaded_vocabulary_in_the_browser(page, tmp_path):
    from tests.support.data import data_file

    src = tmp_path / "r50k_base.tiktoken"
    shutil.copyfile(data_file("openai/r50k_base.tiktoken"), src)
    vocab_upload(page).set_input_files(str(src))
    expect(page.locator("#vocab input")).to_have_value("upload: r50k_base.tiktoken")
    page.locator("#text textarea").fill(TEXT)
    expect_counts(page, load_preset("gpt2"), TEXT)  # the same ranks as the bundled gpt2


def test_the_vocabulary_picker_names_the_vocabulary_in_use(page, tmp_path):
    """The picker opened and closed with Esc keeps the focus; an upload then selects the new
    vocabulary: the picker must read its name, as the line under it and the panes use it."""
    from tests.support.data import data_file

    vocab_upload(page)  # the upload box open, as a person has it before choosing a file
    for name in ("cl100k_base", "o200k_base", "cl100k_base"):
        page.locator("#vocab input").click()
        expect(page.get_by_role("option").first).to_be_visible()
        page.keyboard.press("Escape")
        src = tmp_path / f"{name}.tiktoken"
        shutil.copyfile(data_file(f"openai/{name}.tiktoken"), src)
        vocab_upload(page).set_input_files(str(src))
        expect(page.locator("#vocab-status")).to_contain_text(f"{name}.tiktoken")
        expect_counts(page, load_preset(name), page.locator("#text textarea").input_value())
        shown = page.locator("#vocab input").input_value()
        assert shown.startswith(f"upload: {name}.tiktoken"), shown
        assert shown in page.locator("#vocab-status").inner_text()


#: What a view says below the reason a run failed when the results of an earlier run are still shown.
KEPT = "The results below are still those of the last run that finished."


def test_a_failed_run_says_why_beside_its_button_and_can_run_again(page, app_server, tmp_path):
    """Compute statistics with no file or a file that is not UTF-8, Train with a vocabulary size
    over the limit: the reason stays beside the button after the notice fades (as the page's
    red box), the button works again without a reload, and the server prints no traceback.
    When an earlier run's results are still below, the reason says so."""
    ARTIFACTS.mkdir(exist_ok=True)
    open_tab(page, "Corpus")
    run, status = page.locator("#corpus-run"), page.locator("#corpus-status")
    run.click()
    reason = "Choose a text file for the corpus statistics"
    expect(status).to_contain_text(reason)
    expect(run).to_be_enabled()
    expect(page.locator(".toast-body")).to_have_count(0, timeout=30_000)  # the notice has faded...
    expect(status).to_contain_text(reason)  # ...the reason stays
    bad = tmp_path / "latin.txt"
    bad.write_bytes("café au lait".encode("latin-1"))
    page.locator("#corpus-upload input[type=file]").set_input_files(str(bad))
    run.click()
    expect(status).to_contain_text("latin.txt: not UTF-8 text")
    expect(run).to_be_enabled()
    expect(status).not_to_contain_text(KEPT)  # no run has finished: nothing is shown below
    page.screenshot(path=str(ARTIFACTS / "app_corpus_error.png"))
    good = tmp_path / "plain.txt"
    good.write_text("Plain text for the statistics. " * 20, "utf-8")
    page.locator("#corpus-upload button[aria-label=Clear]").click()
    page.locator("#corpus-upload input[type=file]").set_input_files(str(good))
    expect(status).to_contain_text("plain.txt is ready")  # the file's note, then the run
    run.click()
    expect(status).to_contain_text("plain.txt: 620 bytes")  # the next run replaces the reason
    expect(run).to_be_enabled()
    # a run that fails after one that finished: its reason, and whose results are still shown
    page.locator("#corpus-upload button[aria-label=Clear]").click()
    page.locator("#corpus-upload input[type=file]").set_input_files(str(bad))
    run.click()
    expect(status).to_contain_text("latin.txt: not UTF-8 text")
    expect(status).to_contain_text(KEPT)
    expect(page.locator("#corpus-json a")).to_have_count(1)

    open_tab(page, "Train")
    train_run, train_status = page.locator("#train-run"), page.locator("#train-status")
    page.locator("#train-upload input[type=file]").set_input_files(str(good))
    page.locator("#train-size input").fill("60000")
    train_run.click()
    expect(train_status).to_contain_text("between 1 and 50,000")
    expect(train_run).to_be_enabled()
    page.locator("#train-size input").fill("300")
    train_run.click()
    expect(train_status).to_contain_text("Done:")
    page.locator("#train-size input").fill("60000")
    train_run.click()
    expect(train_status).to_contain_text("between 1 and 50,000")
    expect(train_status).to_contain_text(KEPT)
    assert "Traceback" not in app_server.tail(400), app_server.tail(400)


def test_a_stopped_run_leaves_the_last_results_where_they_were(page, tmp_path):
    """Stop ends a run and keeps nothing of it, but what the last finished run showed stays
    (its download too) and the status says whose it is: stopping is no reason to lose work."""
    open_tab(page, "Train")
    run, stop, status = page.locator("#train-run"), page.locator("#train-stop"), page.locator("#train-status")
    small = tmp_path / "small.txt"
    small.write_text("Plain text to train a small vocabulary on. " * 20, "utf-8")
    page.locator("#train-upload input[type=file]").set_input_files(str(small))
    page.locator("#train-size input").fill("300")
    run.click()
    expect(status).to_contain_text("Done:")
    download = page.locator("#train-download a")
    expect(download).to_have_count(1)
    first = download.get_attribute("href")
    # 2 MB of made-up words and 30,000 merges: seconds of training, whatever the machine
    rng = random.Random(5)
    letters = "abcdefghijklmnopqrstuvwxyz"
    big = tmp_path / "big.txt"
    big.write_text(" ".join("".join(rng.choices(letters, k=rng.randint(3, 12))) for _ in range(250_000)), "utf-8")
    page.locator("#train-upload button[aria-label=Clear]").click()
    page.locator("#train-upload input[type=file]").set_input_files(str(big))
    expect(status).to_contain_text("big.txt is ready: press Train.")  # what the Corpus and Across views say too
    page.locator("#train-size input").fill("30000")
    run.click()
    expect(run).to_be_disabled()
    stop.click()
    expect(status).to_contain_text("Stopped at", timeout=60_000)
    expect(download).to_have_count(1)
    assert download.get_attribute("href") == first
    expect(status).to_contain_text("this run kept nothing")
    expect(status).to_contain_text(KEPT)
    expect(run).to_be_enabled()


def test_the_llama_style_offers_only_the_units_it_trains(page):
    """The LLaMA style trains characters with byte fallback: picked, the Unit shows char and
    cannot be set to byte (a choice that would only be refused); GPT-2 style frees it again."""
    open_tab(page, "Train")
    unit = page.locator("#train-unit")
    unit.get_by_label("byte", exact=True).check()
    page.locator("#train-style").get_by_label("LLaMA style (SentencePiece's)").check()
    expect(unit.get_by_label("char", exact=True)).to_be_checked()
    expect(unit.get_by_label("byte", exact=True)).to_be_disabled()
    expect(unit).to_contain_text("LLaMA style trains characters")
    page.locator("#train-style").get_by_label("GPT-2 style (the paper's regex)").check()
    expect(unit.get_by_label("byte", exact=True)).to_be_enabled()
    expect(unit).not_to_contain_text("LLaMA style trains characters")
    unit.get_by_label("byte", exact=True).check()
    expect(unit.get_by_label("byte", exact=True)).to_be_checked()


@contextlib.contextmanager
def phone_page(browser, app_server, requests):
    """The playground on a phone's screen (390x844), its requests kept in ``requests``."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    context.on("request", lambda r: requests.append(r.url))
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(app_server.url)
        expect(pane(page, "lbpe")).to_be_visible()
        yield page
    finally:
        context.close()


def test_panes_stack_on_a_narrow_screen(browser, app_server, requests):
    """On a phone (390x844) the text box is on the first screen and the two panes come right
    after it, stacked, before the secondary controls (the toggles, the .txt drop zone, the
    vocabulary upload); the examples and the Explain view follow them. Nothing is cut: the
    vocabulary's name stays clear of its chevron, the Step buttons keep one line, the charts'
    titles stay inside them and Plotly's mode bar leaves the legend uncovered."""
    with phone_page(browser, app_server, requests) as page:
        bpe, lbpe = pane(page, "bpe").bounding_box(), pane(page, "lbpe").bounding_box()
        assert lbpe["y"] >= bpe["y"] + bpe["height"] - 1 and abs(lbpe["x"] - bpe["x"]) < 2, (bpe, lbpe)
        text = page.locator("#text textarea").bounding_box()
        assert text["y"] < 844 - 100, text  # the text box starts on the first screen
        examples, explain = page.locator("#examples").bounding_box(), page.locator("#explain-box").first.bounding_box()
        assert text["y"] < bpe["y"] < lbpe["y"] < examples["y"] < explain["y"]
        assert bpe["y"] < 844, bpe  # the BPE pane starts on the first screen
        for secondary in ("#show-ws", "#show-ids", "#show-special", "#text-upload", "#vocab-upload-box"):
            box = page.locator(secondary).bounding_box()
            assert box["y"] > lbpe["y"] + lbpe["height"] - 1, (secondary, box, lbpe)
        # the vocabulary's name: whole, and clear of the dropdown's chevron
        name = page.locator("#vocab input")
        assert name.evaluate("(e) => e.scrollWidth <= e.clientWidth"), "the vocabulary's name is cut"
        assert name.evaluate(NAME_ENDS_BEFORE_CHEVRON), "the vocabulary's name runs under the chevron"
        steps = page.evaluate(LINES_JS, "#explain-prev, #explain-next, #explain-play")
        assert [b for b in steps if b["lines"] != 1] == []
        check_charts(page, ("#length-plot", "#frequency-plot"))
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "app_narrow.png"), full_page=True)
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENS / "app_phone.png"))
        page.screenshot(path=str(SCREENS / "app_phone_full.png"), full_page=True)
    assert not [u for u in requests if urlparse(u).hostname not in (None, "127.0.0.1")]


def test_the_corpus_table_scrolls_rather_than_breaking_numbers_on_a_phone(browser, app_server, requests):
    """At 390 px the statistics table keeps each number and each header word whole: it scrolls
    sideways inside its box (as the Across table does), and the page itself does not."""
    with phone_page(browser, app_server, requests) as page:
        tab = page.get_by_role("tab", name="Corpus")
        if not tab.is_visible():  # folded into the tab bar's overflow menu
            page.locator(".overflow-menu button, button.overflow-menu").first.click()
        open_tab(page, "Corpus")
        page.locator("#corpus-sample").click()
        expect(page.locator("#corpus-status")).to_contain_text("sample-corpus.txt:", timeout=120_000)
        # every column but the last, whose long sentences wrap by design
        cells = '#corpus-table [role="gridcell"]:not([aria-colindex="6"]), #corpus-table th'
        cell = page.locator('#corpus-table [role="gridcell"]')
        expect(cell.filter(has_text="bytes per token").first).to_be_visible()
        broken = page.evaluate(BROKEN_WORDS_JS, cells)
        assert broken == [], broken
        assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENS / "app_phone_corpus.png"), full_page=True)
    assert not [u for u in requests if urlparse(u).hostname not in (None, "127.0.0.1")]


#: JS ``(th) => [text, overlap]``: a header cell's text and how many pixels of it lie under the cell's
#: menu button (Gradio shows the button at the cell's right edge while the pointer is over it).
HEADER_UNDER_MENU_JS = """(th) => {
  const text = th.querySelector('span.header'), button = th.querySelector('button.cell-menu-button');
  const range = document.createRange();
  range.selectNodeContents(text);
  const b = button.getBoundingClientRect();
  let covered = 0;
  for (const r of range.getClientRects()) {
    const w = Math.min(r.right, b.right) - Math.max(r.left, b.left);
    const h = Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top);
    if (w > 0 && h > 0) covered += w * h;
  }
  return [text.textContent, Math.round(covered)];
}"""


def menu_covers_header(page, table: str) -> list:
    """The headers of ``table`` whose text lies partly under their menu button, hovered in turn."""
    covered = []
    for th in page.locator(f"{table} th").all():
        th.hover()
        th.locator("button.cell-menu-button").wait_for(state="visible")
        text, area = th.evaluate(HEADER_UNDER_MENU_JS)
        if area:
            covered.append((text, area))
    return covered


#: JS: the dropdown's text (as laid out in its font) ends left of its chevron.
NAME_ENDS_BEFORE_CHEVRON = """(input) => {
  const cs = getComputedStyle(input), ctx = document.createElement('canvas').getContext('2d');
  ctx.font = cs.font;
  const end = input.getBoundingClientRect().left + parseFloat(cs.paddingLeft) + ctx.measureText(input.value).width;
  return end <= input.closest('#vocab').querySelector('.icon-wrap').getBoundingClientRect().left;
}"""


#: The text of the token panes and the metrics under them.
PANE_TEXT = (
    "#bpe-pane .lbpe-tok, #lbpe-pane .lbpe-tok, #bpe-pane .lbpe-head span, #lbpe-pane .lbpe-head span, "
    "#metrics th, #metrics td, #differences summary, #differences .lbpe-jump"
)


def test_every_text_is_legible_light_and_dark(browser, app_server, requests):
    """With the browser preferring a light or a dark scheme, the page follows it and every text of
    the charts (titles, axes, ticks, legends, bar labels) and of the panes has a contrast ratio of
    at least 4.5 against what lies beneath it."""
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport={"width": 1400, "height": 1000}, color_scheme=scheme)
        context.on("request", lambda r: requests.append(r.url))
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(app_server.url)
        expect(pane(page, "lbpe")).to_be_visible()
        background = page.evaluate(BACKGROUND_JS)
        assert (background < 0.1) if scheme == "dark" else (background > 0.8), (scheme, background)
        for plot in ("#length-plot", "#frequency-plot"):
            expect(page.locator(f"{plot} .legendtext").first).to_be_visible()
        texts = page.evaluate(CONTRAST_JS, ", ".join(CHART_TEXT.format(p) for p in ("#length-plot", "#frequency-plot")))
        assert len(texts) > 20 and {t["text"] for t in texts} >= {"BPE", "LBPE", "tokens", "1-3"}, texts
        texts += page.evaluate(CONTRAST_JS, PANE_TEXT)
        faint = [t for t in texts if t["ratio"] < 4.5]
        assert faint == [], (scheme, faint)
        SCREENS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENS / f"app_{scheme}.png"))
        context.close()
    assert not [u for u in requests if urlparse(u).hostname not in (None, "127.0.0.1")]


def test_nothing_is_cut_or_broken_on_a_desktop(page, tmp_path):
    """At 1400x1000: the .txt drop zone shows all of its text and its label chip covers no icon (so
    does the vocabulary upload's); the Step buttons keep one line; the Across table's headers
    break between words only; the Corpus table's columns, "meaning" too, fit its width; in both
    tables a header's menu button, shown while the pointer is over it, covers none of its text."""
    vocab_upload(page)
    for zone in ("#text-upload", "#vocab-upload"):
        assert page.evaluate(CLIPPED_JS, f"{zone} .wrap, {zone} .wrap *") == [], zone
        chip, icon = page.locator(f"{zone} label[data-testid=block-label]"), page.locator(f"{zone} .icon-wrap")
        assert overlap(chip.bounding_box(), icon.bounding_box()) == 0, (zone, chip.bounding_box(), icon.bounding_box())
    assert [b for b in page.evaluate(LINES_JS, "#explain-prev, #explain-next, #explain-play") if b["lines"] != 1] == []

    open_tab(page, "Across vocabularies")
    page.locator("#across-run").click()
    expect(page.locator("#across-status")).to_contain_text(f"with {len(VOCAB_PRESETS)} vocabularies")
    page.locator("#across-table").scroll_into_view_if_needed()
    expect(page.locator("#across-table th").first).to_contain_text("vocabulary")
    assert page.evaluate(BROKEN_WORDS_JS, "#across-table th") == []
    assert menu_covers_header(page, "#across-table") == []

    open_tab(page, "Corpus")
    small = tmp_path / "small.txt"
    small.write_text("Plain text for the statistics. " * 20, "utf-8")
    page.locator("#corpus-upload input[type=file]").set_input_files(str(small))
    # the file's note first, as a person sees it: on a busy server it could come after the run's
    expect(page.locator("#corpus-status")).to_contain_text("small.txt is ready")
    page.locator("#corpus-run").click()
    expect(page.locator("#corpus-status")).to_contain_text("small.txt: 620 bytes")
    expect(page.locator("#corpus-table th").last).to_contain_text("meaning")
    table = page.locator("#corpus-table").bounding_box()
    for th in page.locator("#corpus-table th").all():
        box = th.bounding_box()
        assert box["x"] + box["width"] <= min(table["x"] + table["width"], 1400) + 1, (th.inner_text(), box, table)
    assert menu_covers_header(page, "#corpus-table") == []


def test_explain_a_clicked_token_step_by_step(browser, app_server, requests):
    """The opening view explains the paper's " Capitals"; a click on a token of either pane
    explains its span; the Step buttons and Play move through the frames; desktop and phone."""
    from lbpe.analysis.explain import explain_span
    from lbpe.playground.examples import DEFAULT_EXAMPLE

    tok = load_preset(DEFAULT_EXAMPLE.vocabulary)
    for name, viewport in (("desktop", {"width": 1400, "height": 1000}), ("phone", {"width": 390, "height": 844})):
        context = browser.new_context(viewport=viewport)
        context.on("request", lambda r: requests.append(r.url))
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(app_server.url)
        head = page.locator("#explain .lbpe-x-head")
        at = DEFAULT_EXAMPLE.text.index(DEFAULT_EXAMPLE.explain)
        opening = explain_span(tok, DEFAULT_EXAMPLE.text, at, at + len(DEFAULT_EXAMPLE.explain))
        expect(head).to_contain_text(f"Step {opening.frames - 1} of {opening.frames - 1}")
        # " Capital" as the vocabulary spells it: with a space, or SentencePiece's "\u2581"
        expect(page.locator("#explain .lbpe-x-why li").first).to_contain_text(
            re.compile('BPE never makes "[ \u2581]Capital"')
        )

        word = " geographers"
        c = display.compare(tok, DEFAULT_EXAMPLE.text)
        at = DEFAULT_EXAMPLE.text.index(word) + 4
        a, b = next((a, b) for a, b in c.differ if a <= at < b)
        span = DEFAULT_EXAMPLE.text[a:b]
        clicked = next(s for s in c.lbpe.segments if s.start <= at < s.end)
        page.locator(f'#lbpe-pane .lbpe-tok[data-s="{clicked.start}"]').click()
        ex = explain_span(tok, DEFAULT_EXAMPLE.text, a, b)
        expect(page.locator("#explain-text textarea, #explain-text input").first).to_have_value(span)
        # the span's own explanation (the opening one can have as many steps, and shows until it comes)
        bpe, lbpe = (re.escape(" ".join(map(str, ids))) for ids in (ex.pieces[0].bpe_ids, ex.pieces[0].lbpe_ids))
        expect(page.locator("#explain .lbpe-x-result").first).to_contain_text(
            re.compile(rf"BPE \d+ tokens?: {bpe} · LBPE \d+ tokens?: {lbpe}\b")
        )
        expect(head).to_contain_text(f"Step {ex.frames - 1} of {ex.frames - 1}")
        page.locator("#explain-prev").click()
        expect(head).to_contain_text(f"Step {ex.frames - 2} of")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"app_explain_{name}.png"), full_page=name == "phone")
        page.locator("#explain-play").click()
        expect(head).to_contain_text(f"Step {ex.frames - 1} of {ex.frames - 1}", timeout=30_000)
        context.close()
    assert not [u for u in requests if urlparse(u).hostname not in (None, "127.0.0.1")]


def _fn_indexes(page, api_name: str) -> set[int]:
    """The indexes Gradio's page sends with the runs of the listeners of handler ``api_name``
    (Gradio names a handler's second listener ``<api_name>_1``, its third ``<api_name>_2``)."""
    with urllib.request.urlopen(page.url.split("?")[0].split("#")[0] + "config", timeout=30) as r:
        config = json.load(r)
    named = re.compile(re.escape(api_name) + r"(_[0-9]+)?")
    found = {d["id"] for d in config["dependencies"] if named.fullmatch(str(d.get("api_name")))}
    assert found, f"no listener of {api_name}"
    return found


def _hold_load_step(context, url: str, api_name: str) -> list:
    """Hold the requests of the page's queue-less load step ``api_name`` in ``context`` (each
    waits in the list returned until the test continues it); every other request goes on."""
    return _hold_steps(context, url, lambda d, _: d.get("api_name") == api_name, f"no load event named {api_name}")


def _hold_steps(context, url: str, chosen, missing: str) -> list:
    """Hold the requests of the queue-less events ``chosen(dependency, components by id)``
    picks from the server's config, as :func:`_hold_load_step` does."""
    with urllib.request.urlopen(url + "config", timeout=30) as r:
        config = json.load(r)
    by_id = {c["id"]: c for c in config["components"]}
    ids = {d["id"] for d in config["dependencies"] if chosen(d, by_id)}
    assert ids, missing
    held: list = []

    def hold(route):
        if json.loads(route.request.post_data or "{}").get("fn_index") in ids:
            held.append(route)
        else:
            route.continue_()

    context.route("**/gradio_api/run/**", hold)
    return held


def test_a_token_clicked_while_the_page_loads_stays_explained_where_it_stands(browser, app_server, requests):
    """A person can click a token of the opening panes before the page's load events are
    answered (a busy server): the load's answer, coming after the click's explanation, leaves
    that explanation alone. Here the network holds the load's restore until the click is drawn."""
    from lbpe.analysis.explain import explain_span
    from lbpe.playground.examples import DEFAULT_EXAMPLE

    tok = load_preset(DEFAULT_EXAMPLE.vocabulary)
    c = display.compare(tok, DEFAULT_EXAMPLE.text)
    word_at = DEFAULT_EXAMPLE.text.index(" geographers") + 4
    a, b = next((a, b) for a, b in c.differ if a <= word_at < b)
    clicked = next(s for s in c.lbpe.segments if s.start <= word_at < s.end)
    placed = explain_span(tok, DEFAULT_EXAMPLE.text, a, b)
    alone = explain_span(tok, DEFAULT_EXAMPLE.text[a:b], 0, b - a)
    assert placed.frames != alone.frames  # the two are told apart by their steps
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.on("request", lambda r: requests.append(r.url))
    held = _hold_load_step(context, app_server.url, "restore")
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(app_server.url)
        head = page.locator("#explain .lbpe-x-head")
        page.locator(f'#lbpe-pane .lbpe-tok[data-s="{clicked.start}"]').click()
        expect(head).to_contain_text(f"Step {placed.frames - 1} of {placed.frames - 1}")
        expect(head).to_contain_text(f"characters {a:,}-{b:,} of the text")
        assert held, "the page's load did not ask for restore"
        for route in held:
            route.continue_()
        page.wait_for_function("() => document.documentElement.dataset.lbpeRestored === '1'")
        page.wait_for_timeout(2000)  # what the restore's answer starts has ended
        expect(head).to_contain_text(f"Step {placed.frames - 1} of {placed.frames - 1}", timeout=1)
        expect(head).to_contain_text(f"characters {a:,}-{b:,} of the text", timeout=1)
        expect(page.locator("#explain-text textarea, #explain-text input").first).to_have_value(
            DEFAULT_EXAMPLE.text[a:b], timeout=1
        )
    finally:
        context.close()


def test_a_run_clicked_at_once_keeps_its_result_over_the_file_note(browser, app_server, tmp_path):
    """A person who picks a corpus file and presses Compute statistics at once sees the run's
    result, whenever the server answers: the file's "is ready" note, answered late on a busy
    server, never replaces it. Here the network holds every answer to a file's arrival until
    the run has finished."""

    def on_upload(d, by_id):
        return d.get("backend_fn") and any(
            by_id.get(t[0], {}).get("props", {}).get("elem_id") == "corpus-upload" and t[1] == "upload"
            for t in d.get("targets", [])
        )

    small = tmp_path / "small.txt"
    small.write_text("Plain text for the statistics. " * 20, "utf-8")
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        # an app that says a file is ready from the server has such a step; one that says it in
        # the page has none, and holds nothing
        held: list = []
        with contextlib.suppress(AssertionError):
            held = _hold_steps(context, app_server.url, on_upload, "")
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(app_server.url)
        open_tab(page, "Corpus")
        page.locator("#corpus-upload input[type=file]").set_input_files(str(small))
        expect(page.locator("#corpus-upload")).to_contain_text("small.txt")
        page.locator("#corpus-run").click()
        status = page.locator("#corpus-status")
        expect(status).to_contain_text("small.txt: 620 bytes")
        for route in held:
            route.continue_()
        page.wait_for_timeout(2000)  # what a late answer would start has ended
        expect(status).to_contain_text("small.txt: 620 bytes", timeout=1)
        expect(status).not_to_contain_text("is ready", timeout=1)
    finally:
        context.close()


def test_the_opening_span_is_explained_where_it_stands_with_another_vocabulary(page):
    """The opening " Capitals" is a span of the opening text: another vocabulary explains it
    there too (the page gives it its place as it opens), not as a word on its own."""
    from lbpe.playground.examples import DEFAULT_EXAMPLE

    at = DEFAULT_EXAMPLE.text.index(DEFAULT_EXAMPLE.explain)
    end = at + len(DEFAULT_EXAMPLE.explain)
    head = page.locator("#explain .lbpe-x-head")
    choose_vocab(page, "gpt2")
    expect(head).to_contain_text("with gpt2")
    expect(head).to_contain_text(f"at characters {at:,}-{end:,} of the text")


def test_a_step_taken_is_not_undone_by_the_same_explanation_again(page):
    """Explain runs again whenever one of its controls changes, also when the explanation stays
    the same (a click sets the span and its place: two changes, so Gradio's page runs it twice).
    A person who steps back while such a run is out keeps the step: an answer of the explanation
    already shown leaves the view where the person put it. Here the network holds the run that
    the special-token toggle starts (the same steps for this span) until the step back is drawn.
    After a failure's reason has replaced the view, that explanation is shown again when asked."""
    from lbpe.analysis.explain import explain_span
    from lbpe.playground.examples import DEFAULT_EXAMPLE

    explain_fns = _fn_indexes(page, "explain_on_page")  # the page's own Explain (the API has "explain")
    head = page.locator("#explain .lbpe-x-head")
    tok = load_preset(DEFAULT_EXAMPLE.vocabulary)
    c = display.compare(tok, DEFAULT_EXAMPLE.text)
    word_at = DEFAULT_EXAMPLE.text.index(" geographers") + 4
    a, b = next((a, b) for a, b in c.differ if a <= word_at < b)
    clicked = next(s for s in c.lbpe.segments if s.start <= word_at < s.end)
    ex = explain_span(tok, DEFAULT_EXAMPLE.text, a, b)
    assert explain_span(tok, DEFAULT_EXAMPLE.text, a, b, specials=True).to_json() == ex.to_json()
    page.locator(f'#lbpe-pane .lbpe-tok[data-s="{clicked.start}"]').click()
    expect(head).to_contain_text(f"Step {ex.frames - 1} of {ex.frames - 1}")
    page.wait_for_timeout(2000)  # the click's runs have ended
    held = []

    def hold(route):  # the first run of Explain from here on
        if not held and json.loads(route.request.post_data or "{}").get("fn_index") in explain_fns:
            held.append(route)
        else:
            route.continue_()

    page.route("**/gradio_api/queue/join*", hold)
    page.locator("#show-special input").check()
    for _ in range(600):
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the toggle did not run Explain"
    page.locator("#explain-prev").click()
    expect(head).to_contain_text(f"Step {ex.frames - 2} of {ex.frames - 1}")
    with page.expect_event("requestfinished", lambda r: r == held[0].request):
        held[0].continue_()  # the server has the run now; its answer takes milliseconds
    page.wait_for_timeout(3000)  # the held run's answer, and any step it starts, are drawn by now
    expect(head).to_contain_text(f"Step {ex.frames - 2} of {ex.frames - 1}", timeout=1)
    expect(page.locator("#explain-step input[type=number]")).to_have_value(str(ex.frames - 2), timeout=1)
    # a failure's reason replaces the view: the same explanation asked again afterwards is shown again
    vocab = page.locator("#vocab input")
    vocab.fill("nonsense")
    vocab.press("Enter")
    expect(page.locator("#explain .lbpe-failed")).to_contain_text("Unknown vocabulary 'nonsense'")
    choose_vocab(page, DEFAULT_EXAMPLE.vocabulary)
    expect(head).to_contain_text(f"Step {ex.frames - 1} of {ex.frames - 1}")


def _explained_ids(page) -> list[tuple[str, str]]:
    """(BPE ids, LBPE ids) of each piece of the Explain view, as it shows them."""
    out = []
    for text in page.locator("#explain .lbpe-x-result").all_inner_texts():
        m = re.search(r"BPE \d+ tokens?: ([\d ]*) · LBPE \d+ tokens?: ([\d ]*)", text)
        assert m, text
        out.append((m.group(1).strip(), m.group(2).strip()))
    return out


def test_explain_shows_the_ids_the_panes_show(page):
    """The opening Explain (" Capitals" in the opening text) and a click on the mid-word LBPE
    token "ographer" of "geographers": Explain's ids are the panes' ids over the explained span,
    from the whole text's segmentation (no dummy "▁" in the middle of a text)."""
    from lbpe.playground.examples import DEFAULT_EXAMPLE

    tok = load_preset(DEFAULT_EXAMPLE.vocabulary)
    text = DEFAULT_EXAMPLE.text
    segs = {mode: tok.segment(text, mode=mode) for mode in ("bpe", "lbpe")}

    def panes_ids(a: int, b: int) -> list[tuple[str, str]]:
        return [tuple(" ".join(str(s.id) for s in segs[m] if a <= s.start < b) for m in ("bpe", "lbpe"))]

    at = text.index(DEFAULT_EXAMPLE.explain)
    head = page.locator("#explain .lbpe-x-head")
    expect(head).to_contain_text(DEFAULT_EXAMPLE.explain.replace(" ", "·"))
    assert _explained_ids(page) == panes_ids(at, at + len(DEFAULT_EXAMPLE.explain))
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / "app_opening.png"), full_page=True)

    word = text.index("geographers")
    clicked = next(s for s in segs["lbpe"] if s.start == word + 2)
    assert text[clicked.start : clicked.end] == "ographer"
    page.locator(f'#lbpe-pane .lbpe-tok[data-s="{clicked.start}"]').click()
    expect(page.locator("#explain-text textarea, #explain-text input").first).to_have_value("ographers")
    expect(head).to_contain_text("ographers at characters")
    assert _explained_ids(page) == panes_ids(word + 2, word + len("geographers"))
    expect(page.locator("#explain .lbpe-x-why")).not_to_contain_text("▁")
    page.locator("#explain-box").first.screenshot(path=str(SCREENS / "app_explain_mid_word.png"))


#: Every state of the text box and the panes on screen, in order, from the page's first frame:
#: ``[text or null when hidden, BPE count or null, LBPE count or null]`` as JSON.
ON_SCREEN = """(() => {
  window.lbpeSeen = [];
  const visible = (el) => el && el.offsetParent !== null && getComputedStyle(el).visibility !== 'hidden';
  const look = () => {
    const box = document.querySelector('#text textarea');
    const panes = ['bpe', 'lbpe'].map((m) => document.querySelector(`#${m}-pane .lbpe-pane`));
    const counts = panes.map((p) => (visible(p) ? p.dataset.tokens : null));
    const entry = JSON.stringify([visible(box) ? box.value : null, ...counts]);
    if (window.lbpeSeen[window.lbpeSeen.length - 1] !== entry) window.lbpeSeen.push(entry);
    requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
})();"""


def test_a_link_restores_the_view(browser, app_server, requests):
    """Text, vocabulary, toggles, the explained span and the open view travel in the URL query;
    the link's own text and panes are the first on screen (never the default text's); the Copy
    link button copies it; an uploaded vocabulary is never put in a link and a link that names
    one says so."""
    from lbpe.playground.app.handlers import DEFAULT_TEXT

    context = browser.new_context(
        viewport={"width": 1400, "height": 1000}, permissions=["clipboard-read", "clipboard-write"]
    )
    context.on("request", lambda r: requests.append(r.url))
    context.add_init_script(ON_SCREEN)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    text = "Plattsburg unrescinded redelivery"
    page.goto(app_server.url + "?t=" + text.replace(" ", "%20") + "&v=o200k_base&ws=0&ids=1&sp=1&x=%20redelivery&xa=22")
    tok = load_preset("o200k_base")
    c = expect_counts(page, tok, text)
    expect(page.locator("#text textarea")).to_have_value(text)
    link_counts = [str(c.side(mode).tokens) for mode in ("bpe", "lbpe")]
    # the states are recorded once a frame: the one just seen, at the next frame at the latest
    restored = json.dumps([text, *link_counts], ensure_ascii=False, separators=(",", ":"))
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function("(entry) => window.lbpeSeen.includes(entry)", arg=restored, timeout=5000)
    seen = [json.loads(e) for e in page.evaluate("() => window.lbpeSeen")]
    assert all(shown in (None, "", text) for shown, *_ in seen), f"another text was on screen first: {seen}"
    assert all(n in (None, want) for _, *counts in seen for n, want in zip(counts, link_counts)), seen
    assert [text, *link_counts] in seen, seen
    assert DEFAULT_TEXT not in [shown for shown, *_ in seen]
    expect(page.locator("#vocab input")).to_have_value(re.compile("o200k_base"))
    expect(page.locator("#explain-text textarea, #explain-text input").first).to_have_value(" redelivery")
    # explained where it stands in the text (xa), and the address keeps that place
    expect(page.locator("#explain .lbpe-x-head")).to_contain_text("at characters 22-33 of the text")
    assert "xa=22" in page.url
    assert page.locator("#bpe-pane .lbpe-id").count() == len(tok.encode(text, mode="bpe"))
    assert page.locator("#bpe-pane .lbpe-ws").count() == 0
    expect(page.locator("#show-special input")).to_be_checked()
    # what the person changes goes into the URL, and the link is what Copy link copies
    page.locator("#text textarea").fill("Capitals and scepters")
    page.wait_for_function("() => new URL(location.href).searchParams.get('t') === 'Capitals and scepters'")
    # the span is no longer in the text: explained on its own; a typed word drops the place
    expect(page.locator("#explain .lbpe-x-head")).to_contain_text("on its own")
    page.locator("#explain-text textarea, #explain-text input").first.fill(" scepters")
    page.wait_for_function("() => !new URL(location.href).searchParams.has('xa')")
    expect(page.locator("#explain .lbpe-x-head")).to_contain_text("·scepters on its own")
    page.locator("#show-special input").uncheck()
    page.wait_for_function("() => !new URL(location.href).searchParams.has('sp')")
    open_tab(page, "Across vocabularies")
    page.wait_for_function("() => new URL(location.href).searchParams.get('view') === 'across'")
    page.locator("#copy-link").click()
    expect(page.locator("#link-note")).to_contain_text("Link copied.")
    assert page.evaluate("() => navigator.clipboard.readText()") == page.url
    # a link naming an uploaded vocabulary: the default, and a note that says why
    page.goto(app_server.url + "?v=upload:%20mine.json&view=train")
    expect(page.locator("#link-note")).to_contain_text("not a bundled one")
    expect(page.get_by_role("tab", name="Train")).to_have_attribute("aria-selected", "true")
    context.close()
    assert not [u for u in requests if urlparse(u).hostname not in (None, "127.0.0.1")]


def test_a_link_answered_late_still_opens_on_its_own_state(browser, app_server, requests):
    """The page's restore reads the link from the address when it is sent, after the first
    load step's answer: until then nothing the page does as it opens may rewrite the address
    (it once put the default text there first, and the Compare tab, selected as the page
    opens, dropped the view). Here the network holds that first step (restore_dropout)."""
    text = "Plattsburg unrescinded redelivery"
    query = "?t=" + quote(text) + "&v=o200k_base&view=across"
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.on("request", lambda r: requests.append(r.url))
    held = _hold_load_step(context, app_server.url, "restore_dropout")  # the load's first step
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(app_server.url + query)
        for _ in range(600):
            if held:
                break
            page.wait_for_timeout(50)
        assert held, "the page's load did not ask for restore_dropout"
        page.wait_for_timeout(2000)  # what the page does as it opens has run
        assert parse_qs(urlparse(page.url).query)["t"] == [text], page.url
        held[0].continue_()
        page.wait_for_function("() => document.documentElement.dataset.lbpeRestored === '1'")
        expect(page.locator("#text textarea")).to_have_value(text)
        expect(page.get_by_role("tab", name="Across vocabularies")).to_have_attribute("aria-selected", "true")
        assert parse_qs(urlparse(page.url).query)["t"] == [text], page.url
        assert parse_qs(urlparse(page.url).query)["view"] == ["across"], page.url
    finally:
        context.close()


def test_a_link_sends_its_panes_once(browser, app_server):
    """A link's text and panes arrive with the page's first answer (restore); the changes that
    answer makes to the text, the vocabulary and the toggles ask for the same comparison again,
    and those answers must not carry the panes again (they once came six times over)."""
    from urllib.parse import quote

    text = english_text(0)[5_000:7_000]
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    urls: dict[str, str] = {}
    streamed = []  # bytes of Gradio's answers to queued events
    cdp.on("Network.requestWillBeSent", lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on(
        "Network.dataReceived",
        lambda e: streamed.append(e["dataLength"]) if "/queue/data" in urls.get(e["requestId"], "") else None,
    )
    page.goto(app_server.url + "?t=" + quote(text) + "&v=o200k_base&ids=1")
    expect_counts(page, load_preset("o200k_base"), text)
    expect(page.locator("#text textarea")).to_have_value(text)
    page.wait_for_timeout(3000)  # every change event the restore set off has been answered
    panes = page.evaluate(
        "() => ['#bpe-pane', '#lbpe-pane'].reduce((n, id) => n + document.querySelector(id).innerHTML.length, 0)"
    )
    assert panes > 50_000, panes  # the panes of 2,000 characters with ids: a payload worth counting
    assert sum(streamed) < panes / 2, f"{sum(streamed):,} bytes of queued answers after restore; panes {panes:,}"
    context.close()


def quiet(page, unanswered, *, seconds: float = 1.5, timeout: float = 90.0) -> None:
    """Wait until the page has had no request to Gradio's queue unanswered for ``seconds``: each
    answer may set off the next request (a comparison, then its explanation, then its step), and
    on a busy machine the last of them can start seconds after the first."""
    import time

    start = time.monotonic()
    calm = None
    while time.monotonic() - start < timeout:
        if any("/gradio_api/queue/" in r.url for r in list(unanswered)):
            calm = None
        elif calm is None:
            calm = time.monotonic()
        elif time.monotonic() - calm >= seconds:
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"the page still waited on Gradio's queue after {timeout:.0f} s")


def test_a_link_opens_and_the_page_settles(browser, app_server, unanswered):
    """Opening a link that sets the text and the vocabulary asks the server a few times and then
    stops: each change the restore makes answers once (the page once went on asking for the
    comparison, the explanation and the vocabulary's summary every 0.3 s for seconds on end), and
    the answer the page keeps is of the controls it shows, so it never asks again by itself."""
    import time
    from urllib.parse import quote

    text = "Tokenization of unrescinded scepters"
    joins: list[float] = []  # when each queued request was sent

    def watch(context) -> None:
        context.add_init_script(ASKED_AGAIN_JS)
        context.on("request", lambda r: joins.append(time.monotonic()) if "/queue/join" in r.url else None)

    warnings: list[str] = []
    url = f"{app_server.url}?t={quote(text)}&v=cl100k_base"
    with app_page(browser, url, unanswered, timeout_ms=TIMEOUT_MS, prepare=watch) as page:
        page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
        expect_counts(page, load_preset("cl100k_base"), text)
        expect(page.locator("#text textarea")).to_have_value(text)
        quiet(page, unanswered)  # the restore's changes have been answered
        settled = len(joins)
        page.wait_for_timeout(3000)
        late = [round(t - joins[0], 2) for t in joins[settled:]]
        assert not late, f"{len(joins)} queued requests, still sent at {late} s after the first"
        assert settled <= 12, f"{settled} queued requests to open one link"
        assert page.evaluate("window.lbpeAskedAgain") == 0
        assert not [w for w in warnings if "not of the text" in w], warnings


def test_links_and_decoding_say_what_they_do(browser, app_server, requests, tmp_path):
    """A link whose text was too long to carry tells its receiver; "Link copied." goes away;
    Copy link names a trained vocabulary as trained; Use it in Compare puts the Compare view in
    the address; a failed decode replaces the previous result with the reason."""
    context = browser.new_context(
        viewport={"width": 1400, "height": 1000}, permissions=["clipboard-read", "clipboard-write"]
    )
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_server.url)
    expect(pane(page, "lbpe")).to_be_visible()
    long_text = "Capitals and geographers. " * 100  # 2,600 characters: over what a link carries
    page.locator("#text textarea").fill(long_text)
    expect_counts(page, load_preset(DEFAULT_PRESET), long_text)
    page.wait_for_function("() => new URL(location.href).searchParams.get('tl') === '2600'")
    page.goto(page.url)  # as the receiver opens it
    expect(page.locator("#link-note")).to_contain_text("2,600 characters")
    expect(page.locator("#link-note")).to_contain_text("paste")

    page.goto(app_server.url)
    expect(pane(page, "lbpe")).to_be_visible()
    page.locator("#copy-link").click()
    expect(page.locator("#link-note")).to_contain_text("Link copied.")
    expect(page.locator("#link-note")).not_to_contain_text("Link copied.", timeout=15_000)

    # decoding: a bad input replaces the previous result with the reason
    page.locator("#ids-box").get_by_text("Token ids: copy them").click()
    ids_box = page.locator("#decode-input input, #decode-input textarea").first
    expect(ids_box).to_be_editable()  # the accordion has opened
    fill_kept(ids_box, "1 2 3")  # CI's browser lost a fill made as the box was drawn
    page.locator("#decode-run").click()
    expect(page.locator("#decoded .lbpe-decoded")).to_be_visible()
    ids_box.fill("1 2 three")
    expect(ids_box).to_have_value("1 2 three")
    page.locator("#decode-run").click()
    expect(page.locator("#decoded")).to_contain_text("not a token id")
    expect(page.locator("#decoded .lbpe-decoded")).to_have_count(0)

    # a trained vocabulary: Use it in Compare, the address follows, Copy link names it trained
    open_tab(page, "Train")
    page.wait_for_function("() => new URL(location.href).searchParams.get('view') === 'train'")
    corpus = tmp_path / "train.txt"
    corpus.write_text("Plain words for a tiny vocabulary, again and again. " * 40, "utf-8")
    page.locator("#train-upload input[type=file]").set_input_files(str(corpus))
    page.locator("#train-size input").fill("300")
    page.locator("#train-run").click()
    expect(page.locator("#train-status")).to_contain_text("Done:")
    page.locator("#train-use").click()
    expect(page.get_by_role("tab", name="Compare")).to_have_attribute("aria-selected", "true")
    page.wait_for_function("() => !new URL(location.href).searchParams.has('view')")
    page.locator("#copy-link").click()
    expect(page.locator("#link-note")).to_contain_text("the trained vocabulary")
    expect(page.locator("#link-note")).not_to_contain_text("uploaded")
    context.close()


def test_no_token_breaks_inside_without_whitespace_glyphs(browser, app_server):
    """With the glyphs off, a token that starts with a space used to wrap after that space and
    leave an empty coloured stub at the line end: every token is one box on one line now."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_server.url)
    expect(pane(page, "lbpe")).to_be_visible()
    text = " ".join(["internationalization", "counterrevolutionary", "misunderstandings"] * 12)
    page.locator("#text textarea").fill(text)
    page.locator("#show-ws input").uncheck()
    expect(page.locator("#bpe-pane .lbpe-tokens.lbpe-plain")).to_have_count(1)
    expect_counts(page, load_preset(DEFAULT_PRESET), text)
    split = page.evaluate(
        """() => [...document.querySelectorAll('#bpe-pane .lbpe-tok, #lbpe-pane .lbpe-tok')]
             .filter((t) => t.getClientRects().length > 1).map((t) => JSON.stringify(t.textContent))"""
    )
    assert page.locator("#bpe-pane .lbpe-tok").count() > 50 and split == []
    context.close()


#: Characters that change how the text around them is laid out or show nothing: bidirectional
#: overrides, embeddings and isolates with their ends, the direction marks, the line and
#: paragraph separators, the zero-width space, the byte order mark, a Hangul filler and tag
#: characters (text hidden in plain sight).
FORMATTING = "\u202e\u202c\u2067\u2069\u200f\u2028\u2029\u200b\ufeff\u3164\U000e0068\U000e0069"


def test_formatting_characters_are_shown_and_leave_the_tokens_in_order(page):
    """A right-to-left override in the text reversed the tokens after it on screen (and an
    isolate those inside it): each such character is now shown as its escape, dimmed like the
    whitespace glyphs, and every pane lists its tokens left to right in the order of the text."""
    text = (
        "plain \u202eoverridden words\u202c then \u2067isolated\u2069 marks\u200f "
        "lines\u2028and\u2029paragraphs \u200bzero\ufeffwidth \u3164 filler tagged\U000e0068\U000e0069"
    )
    page.locator("#text textarea").fill(text)
    expect_counts(page, load_preset(DEFAULT_PRESET), text)
    for mode in ("bpe", "lbpe"):
        tokens = page.locator(f"#{mode}-pane .lbpe-tok")
        shown = "".join(tokens.all_text_contents())
        for char in FORMATTING:
            escape = f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"
            assert escape in shown, (mode, hex(ord(char)), shown)
            assert char not in shown, (mode, hex(ord(char)))
        lefts = page.evaluate(
            """(mode) => [...document.querySelectorAll(`#${mode}-pane .lbpe-tok`)]
                 .map((t) => [t.getClientRects()[0].top, t.getClientRects()[0].left])""",
            mode,
        )
        out_of_order = [
            k for k in range(1, len(lefts)) if lefts[k][0] == lefts[k - 1][0] and lefts[k][1] < lefts[k - 1][1]
        ]
        assert not out_of_order, (mode, out_of_order, lefts)


def test_a_jumped_to_span_stays_lit_under_a_resting_pointer(page):
    """Click the last difference in the list: the page scrolls up to the panes, so a token of a
    pane comes to rest under the pointer, which has not moved. The browser then tells the page
    the pointer is over that token; the span jumped to stays lit in both panes, with no card.
    Moving the pointer onto a token afterwards lights that token as before."""
    tok = load_preset(DEFAULT_PRESET)
    text = english_text(0)[20_000:40_000]
    page.locator("#text textarea").fill(text)
    c = expect_counts(page, tok, text)
    last = display.differences(c)[-1]
    item = page.locator("#differences .lbpe-jump").last
    item.scroll_into_view_if_needed()
    box = item.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    # the smooth scroll ends; then a pointer event where the pointer rests, as the browser
    # sends one after a scroll
    page.wait_for_function(
        """() => new Promise((done) => { let y = scrollY, still = 0;
             const look = () => { still = scrollY === y ? still + 1 : 0; y = scrollY;
               if (still > 10) done(true); else requestAnimationFrame(look); };
             requestAnimationFrame(look); })"""
    )
    under = page.evaluate("([x, y]) => document.elementFromPoint(x, y)?.closest('.lbpe-tok') ? 1 : 0", [x, y])
    assert under, "no token came to rest under the pointer: the layout no longer tests this"
    page.mouse.move(x, y)
    page.wait_for_timeout(200)
    for mode, side in (("bpe", last.bpe), ("lbpe", last.lbpe)):
        expect(page.locator(f"#{mode}-pane .lbpe-tok.lbpe-lit")).to_have_count(len(side))
    expect(page.locator(".lbpe-card")).to_be_hidden()
    # a pointer that moves is heard again
    page.mouse.move(x + 3, y + 1)
    expect(page.locator(".lbpe-card")).to_be_visible()


def test_the_list_of_differences_and_the_linked_panes(browser, app_server, requests):
    """Each differing span is listed as BPE tokens -> LBPE tokens with its change; a click on
    one scrolls both panes to it and lights it in both; hovering a token lights the tokens of
    the other pane over the same characters and shows a card with its id; scrolling one pane
    scrolls the other to the same place in the text."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_server.url)
    expect(pane(page, "lbpe")).to_be_visible()
    tok = load_preset(DEFAULT_PRESET)
    text = english_text(0)[20_000:40_000]
    page.locator("#text textarea").fill(text)
    c = expect_counts(page, tok, text)
    diffs = display.differences(c)
    items = page.locator("#differences .lbpe-jump")
    expect(items).to_have_count(len(diffs))
    expect(page.locator("#differences summary")).to_contain_text(f"{len(diffs):,} differing spans")
    # the last difference: far down both panes
    last = diffs[-1]
    items.nth(len(diffs) - 1).click()
    for mode, side in (("bpe", last.bpe), ("lbpe", last.lbpe)):
        lit = page.locator(f"#{mode}-pane .lbpe-tok.lbpe-lit")
        expect(lit).to_have_count(len(side))
        assert page.evaluate(
            """(mode) => { const box = document.querySelector(`#${mode}-pane .lbpe-tokens`);
                 const t = box.querySelector('.lbpe-lit').getBoundingClientRect(), b = box.getBoundingClientRect();
                 return box.scrollTop > 0 && t.top >= b.top && t.bottom <= b.bottom; }""",
            mode,
        ), f"{mode}: the span is not scrolled into view"
    # hover: a card with the id, and the other pane's tokens over the same characters lit
    seg = next(s for s in c.lbpe.segments if s.start >= c.differ[0][0])
    token = page.locator(f'#lbpe-pane .lbpe-tok[data-s="{seg.start}"]')
    token.scroll_into_view_if_needed()
    token.hover()
    expect(page.locator(".lbpe-card")).to_be_visible()
    expect(page.locator(".lbpe-card")).to_contain_text(f"#{seg.id}")
    under = [s for s in c.bpe.segments if s.start < seg.end and s.end > seg.start]
    expect(page.locator("#bpe-pane .lbpe-tok.lbpe-lit")).to_have_count(len(under))
    # synced scrolling: the BPE pane follows the LBPE pane to the same character
    page.evaluate(
        "() => { const b = document.querySelector('#lbpe-pane .lbpe-tokens'); b.scrollTop = b.scrollHeight / 2; }"
    )
    tops = """() => ['bpe', 'lbpe'].map((m) => { const box = document.querySelector(`#${m}-pane .lbpe-tokens`);
             const top = [...box.querySelectorAll('.lbpe-tok')]
               .find((t) => t.getBoundingClientRect().bottom > box.getBoundingClientRect().top + box.clientTop);
             return Number(top.dataset.s); })"""
    # the BPE pane follows on the scroll event (a frame or more later on a busy machine)
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(f"() => {{ const [a, b] = ({tops})(); return Math.abs(a - b) < 200; }}", timeout=5000)
    shown = page.evaluate(tops)
    assert abs(shown[0] - shown[1]) < 200, shown  # within a line or two of text
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "app_differences.png"))
    # on a phone: the list fits the screen's width and a tap still scrolls both panes to the span
    page.set_viewport_size({"width": 390, "height": 844})
    first = items.first
    first.scroll_into_view_if_needed()
    box = first.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    first.click()
    expect(page.locator("#bpe-pane .lbpe-tok.lbpe-lit")).to_have_count(len(diffs[0].bpe))
    page.locator("#differences").screenshot(path=str(ARTIFACTS / "app_differences_phone.png"))
    context.close()


#: The pane's markup with the run separators (comments) left out, compared node by node with
#: ``expected`` parsed fresh; marks which runs are the same DOM nodes as before an edit.
SAME_AS_FRESH = """([mode, expected]) => {
  const strip = (node) => { for (const c of [...node.childNodes]) {
    if (c.nodeType === Node.COMMENT_NODE) c.remove(); else strip(c); } return node; };
  const t = document.createElement('template');
  t.innerHTML = expected;
  const shown = document.querySelector(`#${mode}-pane .lbpe-host`).cloneNode(true);
  const fresh = document.createElement('div');
  fresh.className = shown.className;
  fresh.append(t.content);
  return strip(shown).isEqualNode(strip(fresh));
}"""


def test_a_long_text_redraws_only_the_runs_that_changed(browser, app_server, requests):
    """A keystroke in a long text replaces only the runs of tokens that changed (a keystroke in
    50,000 characters once took 1.5 s to redraw): typing at the end keeps every earlier
    run's DOM node, the pane keeps its scroll position, and after each edit (at the end, in the
    middle, a deletion, a toggle) both panes equal a fresh rendering of the text."""
    from tests.support.app import load_app

    app = load_app()
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_server.url)
    expect(pane(page, "lbpe")).to_be_visible()
    tok = load_preset(DEFAULT_PRESET)
    box = page.locator("#text textarea")
    box.fill(english_text(0)[60_000:72_000])

    def check(show_whitespace: bool = True) -> display.Comparison:
        text = box.input_value()
        c = expect_counts(page, tok, text)
        expected = app.compare(text, DEFAULT_PRESET, show_whitespace, False)
        for k, mode in enumerate(("bpe", "lbpe")):
            page.wait_for_function(SAME_AS_FRESH, arg=[mode, expected[k]])
        return c

    check()
    runs = page.locator("#bpe-pane .lbpe-run")
    assert runs.count() > 4, "a long text comes in runs of tokens"
    page.evaluate("""() => { document.querySelectorAll('#bpe-pane .lbpe-run, #lbpe-pane .lbpe-run')
                             .forEach((r, k) => { r.lbpeOld = true; });
                             document.querySelector('#bpe-pane .lbpe-tokens').scrollTop = 900; }""")
    box.focus()
    page.keyboard.press("Control+End")
    page.keyboard.type(" internationalization")
    expect(page.locator("#bpe-pane .lbpe-busy")).to_be_visible()  # "updating…" while the server works
    check()
    expect(page.locator("#bpe-pane .lbpe-busy")).to_be_hidden()
    kept = page.evaluate("() => [...document.querySelectorAll('#bpe-pane .lbpe-run')].map((r) => !!r.lbpeOld)")
    assert kept[:-2] == [True] * (len(kept) - 2) and not kept[-1], kept  # only the last run(s) are new
    assert page.evaluate("() => document.querySelector('#bpe-pane .lbpe-tokens').scrollTop") == 900
    # an edit in the middle shifts every later token's offsets; a deletion; the glyphs toggle
    box.evaluate("(el) => { el.setSelectionRange(5000, 5000); }")
    page.keyboard.type("Capitals ")
    check()
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    check()
    page.locator("#show-ws input").uncheck()
    check(show_whitespace=False)
    expect(page.locator("#bpe-pane .lbpe-busy")).to_be_hidden()
    context.close()


def test_typing_at_the_end_of_a_long_text_shows_a_fresh_comparison(page):
    """Keystrokes at the end of a 30,000-character text are compared again from the session's
    last comparison (lbpe.playground.display.Recompare); both panes then show exactly what CPython's full
    comparison of the new text draws (lbpe.playground.display.render_pane)."""
    tok = load_preset(DEFAULT_PRESET)
    box = page.locator("#text textarea")
    text = english_text(0)[60_000:90_000]
    box.fill(text)
    expect_counts(page, tok, text)
    box.focus()
    page.keyboard.press("Control+End")
    for added in (" tokens", "!", "\nNew line"):
        page.keyboard.type(added)
        text += added
        c = expect_counts(page, tok, text)
        for mode in ("bpe", "lbpe"):
            page.wait_for_function(SAME_AS_FRESH, arg=[mode, display.render_pane(c, mode)])


def test_a_comparison_of_a_text_no_longer_in_the_box_is_asked_again(page):
    """Two comparisons of one page can be in flight at once, and the older text's can come
    back last. Here the network hands the server the older text once, in place of the one
    typed: the answer that arrives is of a text the box no longer holds. The page must not
    leave it on the panes: it asks again, and both panes end on the box's text."""
    tok = load_preset(DEFAULT_PRESET)
    box = page.locator("#text textarea")
    old, new = "Capitals and geographers", "Capitals and geographers of tokens"
    box.fill(old)
    expect_counts(page, tok, old)
    swapped = []

    def older_text(route):
        body = json.loads(route.request.post_data or "{}")
        data = body.get("data")
        # the page's Compare: the key of the panes shown, then the text and the controls
        if not swapped and isinstance(data, list) and len(data) > 1 and data[1] == new:
            swapped.append(body.get("fn_index"))
            data[1] = old
            route.continue_(post_data=json.dumps(body))
        else:
            route.continue_()

    page.route("**/gradio_api/queue/join*", older_text)
    box.fill(new)
    expect_counts(page, tok, new)
    assert len(swapped) == 1
    expect(page.locator("#compare-note .lbpe-failed")).to_have_count(0)


def test_compare_and_text_upload_errors_stay_beside_their_controls(page, tmp_path):
    """A .txt upload that is not UTF-8 and a vocabulary name typed that does not exist: each
    reason stays beside its control after the notice fades, until the next action there
    replaces it. An empty Explain box says what to do: no failure, and no notice."""
    note = page.locator("#compare-note .lbpe-failed")
    bad = tmp_path / "latin.txt"
    bad.write_bytes("café au lait".encode("latin-1"))
    page.locator("#text-upload input[type=file]").set_input_files(str(bad))
    expect(note).to_contain_text("latin.txt: not UTF-8 text")
    box = page.locator("#explain-text textarea, #explain-text input").first
    box.fill("")
    prompt = page.locator("#explain .lbpe-x-prompt")
    expect(prompt).to_contain_text("Type a word or a short span to explain")
    # the step slider, moved back to 0 by the empty box, asks for its frame: the prompt stays
    page.wait_for_timeout(2500)
    expect(prompt).to_contain_text("Type a word or a short span to explain", timeout=1)
    expect(page.locator(".toast-body")).to_have_count(0, timeout=30_000)  # the notice has faded...
    expect(note).to_contain_text("latin.txt: not UTF-8 text")  # ...the reason stays
    expect(page.locator("#explain .lbpe-failed")).to_have_count(0)
    fill_kept(box, "Capitals")  # a fill on a loaded machine can be lost
    expect(page.locator("#explain .lbpe-x-head")).to_contain_text("Capitals")
    page.locator("#text textarea").fill("Capitals and geographers")
    expect_counts(page, load_preset(DEFAULT_PRESET), "Capitals and geographers")
    expect(note).to_have_count(0)
    vocab = page.locator("#vocab input")
    vocab.fill("nonsense")
    vocab.press("Enter")
    expect(note).to_contain_text("Unknown vocabulary 'nonsense'")
    expect(page.locator("#vocab-status .lbpe-failed")).to_contain_text("Unknown vocabulary 'nonsense'")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "app_compare_error.png"))
    choose_vocab(page, "gpt2")
    expect_counts(page, load_preset("gpt2"), "Capitals and geographers")
    expect(note).to_have_count(0)
    expect(page.locator("#vocab-status .lbpe-failed")).to_have_count(0)


def test_long_jobs_run_one_at_a_time_and_stop_or_pause(page, tmp_path):
    """Corpus: while one run goes, both of its buttons wait (one table, one run). Across
    vocabularies has a Stop. Explain's Play pauses."""
    open_tab(page, "Corpus")
    run, sample, status = page.locator("#corpus-run"), page.locator("#corpus-sample"), page.locator("#corpus-status")
    sample.click()
    expect(run).to_be_disabled()
    expect(sample).to_be_disabled()
    from lbpe.presets import sample_corpus

    expect(status).to_contain_text(f"sample-corpus.txt: {len(sample_corpus()):,} bytes", timeout=120_000)
    expect(run).to_be_enabled()
    expect(sample).to_be_enabled()

    open_tab(page, "Across vocabularies")
    # 2 MB of made-up words: every piece is new to every vocabulary's cache, so the run lasts
    # seconds however fast encoding gets (2 MB of prose, cached from earlier tests, once ended
    # before the Stop below arrived)
    rng = random.Random(3)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ("".join(rng.choices(letters, k=rng.randint(3, 12))) for _ in range(250_000))
    big = tmp_path / "big.txt"
    big.write_text(" ".join(words), "utf-8")
    page.locator("#across-upload input[type=file]").set_input_files(str(big))
    across_run, across_status = page.locator("#across-run"), page.locator("#across-status")
    across_run.click()
    expect(across_run).to_be_disabled()
    expect(across_status).to_contain_text("encoding with every vocabulary")  # it has started
    page.locator("#across-stop").click()
    expect(across_status).to_contain_text("Stopped at", timeout=60_000)
    expect(across_run).to_be_enabled()

    open_tab(page, "Compare")
    play, head = page.locator("#explain-play"), page.locator("#explain .lbpe-x-head")
    play.click()  # at the last step: plays from the first
    expect(play).to_have_text("Pause")
    expect(head).to_contain_text(re.compile(r"Step [1-9]\d* of"))
    play.click()
    expect(play).to_have_text("Play")
    # a tick sent before the press may still land (each is answered in turn, seconds later on a
    # busy machine): then the steps stand still
    step = page.locator("#explain-step input[type=number]")
    shown = step.input_value()
    for _ in range(60):  # until the step has not moved for 2 s (or 120 s: Play went on)
        page.wait_for_timeout(2000)
        if step.input_value() == shown:
            break
        shown = step.input_value()
    page.wait_for_timeout(2700)  # three ticks of Play
    assert step.input_value() == shown and int(shown) < 18
    expect(head).to_contain_text(f"Step {shown} of")


#: Where the focus is: the token (its start and its pane's mode), or nothing.
FOCUSED = """() => { const t = document.activeElement;
  if (!t || !t.matches('.lbpe-tok[data-s]')) return null;
  return [t.closest('.lbpe-pane').dataset.mode, Number(t.dataset.s), t.getAttribute('role'),
          t.getAttribute('aria-describedby')]; }"""


def test_tokens_by_keyboard_and_touch(browser, app_server):
    """Tab reaches the tokens of each pane; the arrow keys move between them; a focused token
    shows its card (tied to it by aria-describedby) and lights the other pane; Enter explains
    it. On a touch screen a tap shows the card and a second tap explains; the meaning of each
    metric opens with a tap."""
    from lbpe.playground.examples import DEFAULT_EXAMPLE

    tok = load_preset(DEFAULT_PRESET)
    text = DEFAULT_EXAMPLE.text
    c = display.compare(tok, text)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_server.url)
    expect(pane(page, "lbpe")).to_be_visible()
    expect(page.locator("#explain .lbpe-x-head")).to_contain_text("Capitals")
    page.locator("#text textarea").focus()
    # the controls beside the text (the method pickers among them) come before the panes
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED):
            break
    mode, at, role, card_id = page.evaluate(FOCUSED)
    first = c.bpe.segments[0]
    assert (mode, at, role) == ("bpe", first.start, "button")
    card = page.locator(".lbpe-card")
    expect(card).to_be_visible()
    expect(card).to_contain_text(f"#{first.id}")
    assert card_id and page.locator(f"#{card_id}").count() == 1
    page.keyboard.press("ArrowRight")
    second = c.bpe.segments[1]
    assert page.evaluate(FOCUSED)[:2] == ["bpe", second.start]
    expect(card).to_contain_text(f"#{second.id}")
    under = [s for s in c.lbpe.segments if s.start < second.end and s.end > second.start]
    expect(page.locator("#lbpe-pane .lbpe-tok.lbpe-lit")).to_have_count(len(under))
    page.keyboard.press("End")
    assert page.evaluate(FOCUSED)[:2] == ["bpe", c.bpe.segments[-1].start]
    page.keyboard.press("Home")
    # the second differing span's first token by the keyboard, then Enter: explained (the first
    # one is the opening span)
    target = next(k for k, s in enumerate(c.lbpe.segments) if s.start == c.differ[1][0])
    page.keyboard.press("Tab")  # on to the LBPE pane
    assert page.evaluate(FOCUSED)[:2] == ["lbpe", c.lbpe.segments[0].start]
    for _ in range(target):
        page.keyboard.press("ArrowRight")
    seg = c.lbpe.segments[target]
    assert page.evaluate(FOCUSED)[:2] == ["lbpe", seg.start]
    page.keyboard.press("Enter")
    expect(page.locator("#explain-text textarea, #explain-text input").first).not_to_have_value(DEFAULT_EXAMPLE.explain)
    expect(page.locator("#explain .lbpe-x-head")).to_contain_text(f"at characters {seg.start}", timeout=TIMEOUT_MS)
    page.keyboard.press("Shift+Tab")  # back to the BPE pane, where the focus was
    assert page.evaluate(FOCUSED)[:2] == ["bpe", first.start]
    page.keyboard.press("Escape")
    expect(card).to_be_hidden()
    context.close()

    phone = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = phone.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_server.url)
    expect(pane(page, "lbpe")).to_be_visible()
    head = page.locator("#explain .lbpe-x-head")
    expect(head).to_contain_text("Capitals")
    seg = next(s for s in c.lbpe.segments if s.start == c.differ[1][0])
    token = page.locator(f'#lbpe-pane .lbpe-tok[data-s="{seg.start}"]')
    token.tap()
    card = page.locator(".lbpe-card")
    expect(card).to_be_visible()
    expect(card).to_contain_text(f"#{seg.id}")
    expect(card).to_contain_text("tap again")
    page.wait_for_timeout(1000)
    expect(head).to_contain_text("Capitals")  # the first tap only shows the card
    token.tap()
    expect(head).to_contain_text(f"at characters {seg.start}")
    # the meaning of a metric: a tap on its name shows it
    more = page.locator("#metrics .lbpe-more > summary")
    more.scroll_into_view_if_needed()
    more.tap()
    name = page.locator("#metrics .lbpe-more .lbpe-meaning > summary").first
    meaning = page.locator("#metrics .lbpe-more .lbpe-meaning").first.locator(".lbpe-meaning-text")
    expect(meaning).to_be_hidden()
    name.tap()
    expect(meaning).to_be_visible()
    assert len(meaning.inner_text()) > 20
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "app_touch_meaning.png"))
    phone.close()
