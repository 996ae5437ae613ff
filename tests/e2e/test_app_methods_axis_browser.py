"""The Across and Corpus tabs' methods axis in a real headless Chromium: switch Across to
methods, untick one, run it, and read the table's token counts, each equal to what CPython's
``Tokenizer.encode`` gives for that method; the address carries the axis and the methods, a
link opens them, and a link with an unknown method says so in the link's note. A screenshot
goes to ``artifacts/screens/``. The same server answers gradio_client's calls of the new events."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlparse

import pytest
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError
from playwright.sync_api import expect

from lbpe import METHODS
from lbpe.playground.display import METHOD_NAMES
from lbpe.presets import load_preset
from tests.support.app import ROOT
from tests.support.browser import open_tab, watch_requests

pytestmark = pytest.mark.slow(reason="Chromium drives the playground")

SCREENS = ROOT / "artifacts" / "screens"
TEXT = (
    "The unbelievably overcomplicated anticonstitutional reorganisation of electroencephalography departments "
    "continues, while internationalisation proceeds."
)
VOCAB = "cl100k_base"
TIMEOUT_MS = 90_000
expect.set_options(timeout=TIMEOUT_MS)

#: The rows of a Gradio table (its body's grid rows, not the hidden rows that size its columns):
#: each row's cells' text.
ROWS_JS = """(selector) => [...document.querySelectorAll(selector + " [role=row][aria-rowindex]")]
  .filter((row) => row.querySelector("[role=gridcell]"))
  .map((row) => [...row.querySelectorAll("[role=gridcell]")].map((cell) => cell.innerText.trim()))"""


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


def ticked(page, view: str, method: str):
    """The checkbox of ``method`` among the ``view`` tab's methods."""
    return page.locator(f"#{view}-methods").get_by_label(METHOD_NAMES[method], exact=True)


def table_counts(page, table: str, n: int) -> dict[str, int]:
    """Method -> tokens, as the table shows them once it shows ``n`` rows."""
    page.wait_for_function(
        f"(n) => ({ROWS_JS})('#{table}').filter((row) => row.length > 1 && row[0] !== '').length === n", arg=n
    )
    rows = page.evaluate(ROWS_JS, f"#{table}")
    return {row[0]: int(row[1].replace(",", "")) for row in rows if len(row) > 1}


def test_across_on_the_methods_axis_counts_each_methods_tokens(page, app_server):
    tok = load_preset(VOCAB)
    chosen = [m for m in METHODS if m != "longest-suffix"]
    want = {
        m: len(
            tok.encode(TEXT, mode=m, disallowed_special=(), **({"dropout": 0.1, "seed": 0} if m == "dropout" else {}))
        )
        for m in chosen
    }
    assert len(set(want.values())) > 2  # the methods differ on this text
    page.goto(f"{app_server.url}?t={quote(TEXT)}&v={VOCAB}")
    expect(page.locator("#bpe-pane .lbpe-pane")).to_be_visible()
    open_tab(page, "Across vocabularies")
    expect(page.locator("#across-methods-run")).to_be_hidden()
    page.locator("#across-axis").get_by_label("methods (one vocabulary, every method)").check()
    expect(page.locator("#across-methods-run")).to_be_visible()
    expect(page.locator("#across-run")).to_be_hidden()
    ticked(page, "across", "longest-suffix").uncheck()
    page.wait_for_function("() => new URL(location.href).searchParams.get('ax') === 'methods'")
    page.wait_for_function("() => (new URL(location.href).searchParams.get('ms') || '').includes('least-tokens')")
    query = parse_qs(urlparse(page.url).query)
    assert query["ms"] == [",".join(chosen)] and query["mdr"] == ["0.1"] and query["mseed"] == ["0"]
    page.locator("#across-methods-run").click()
    expect(page.locator("#across-status")).to_contain_text(f"{len(chosen)} methods", timeout=TIMEOUT_MS)
    page.locator("#across-methods-table").scroll_into_view_if_needed()
    assert table_counts(page, "across-methods-table", len(want)) == want
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / "app_across_methods.png"), full_page=True)


def all_shown(page, boxes, shown: bool) -> None:
    """Wait until every one of ``boxes`` (selectors) is shown, or every one hidden."""
    for box in boxes:
        (expect(page.locator(box)).to_be_visible if shown else expect(page.locator(box)).to_be_hidden)()


def test_an_axis_shows_only_its_own_runs_chart_and_files(page, app_server):
    """The chart and the files below the tables are the last run's: on the other axis they
    would pass for its results under its empty table. They show on the axis that made them,
    and come back with it; a run on the other axis shows its own."""
    page.goto(f"{app_server.url}?t={quote(TEXT)}&v={VOCAB}")
    expect(page.locator("#bpe-pane .lbpe-pane")).to_be_visible()
    open_tab(page, "Across vocabularies")
    page.locator("#across-run").click()
    expect(page.locator("#across-status")).to_contain_text("vocabularies:", timeout=TIMEOUT_MS)
    shared = ("#across-plot", "#across-json", "#across-csv")
    all_shown(page, shared, True)
    methods = page.locator("#across-axis").get_by_label("methods (one vocabulary, every method)")
    vocabularies = page.locator("#across-axis").get_by_label("vocabularies", exact=True)
    methods.check()
    expect(page.locator("#across-methods-run")).to_be_visible()
    all_shown(page, shared, False)
    vocabularies.check()
    all_shown(page, shared, True)
    expect(page.locator("#across-plot")).to_contain_text("per vocabulary")
    methods.check()
    page.locator("#across-methods-run").click()
    expect(page.locator("#across-status")).to_contain_text("methods", timeout=TIMEOUT_MS)
    all_shown(page, shared, True)
    expect(page.locator("#across-plot")).to_contain_text("Each method vs BPE")
    vocabularies.check()
    all_shown(page, shared, False)
    # the Corpus view alike, on its sample corpus
    open_tab(page, "Corpus")
    page.locator("#corpus-sample").click()
    expect(page.locator("#corpus-status")).to_contain_text("bytes with", timeout=TIMEOUT_MS)
    shared = ("#corpus-plot", "#corpus-json", "#corpus-csv")
    all_shown(page, shared, True)
    page.locator("#corpus-axis").get_by_label("methods (one vocabulary, every method)").check()
    all_shown(page, shared, False)
    page.locator("#corpus-methods-sample").click()
    expect(page.locator("#corpus-status")).to_contain_text("methods", timeout=TIMEOUT_MS)
    all_shown(page, shared, True)
    page.locator("#corpus-axis").get_by_label("vocabularies", exact=True).check()
    all_shown(page, shared, False)


def test_a_link_opens_the_methods_axis(page, app_server):
    tok = load_preset(VOCAB)
    want = {m: len(tok.encode(TEXT, mode=m, disallowed_special=())) for m in ("bpe", "least-tokens")}
    page.goto(f"{app_server.url}?t={quote(TEXT)}&v={VOCAB}&view=across&ax=methods&ms=bpe,least-tokens")
    expect(page.locator("#across-methods-run")).to_be_visible()
    expect(ticked(page, "across", "least-tokens")).to_be_checked()
    expect(ticked(page, "across", "lbpe")).not_to_be_checked()
    page.locator("#across-methods-run").click()
    expect(page.locator("#across-status")).to_contain_text("2 methods")
    assert table_counts(page, "across-methods-table", len(want)) == want
    # the Corpus view opens on the methods axis too
    open_tab(page, "Corpus")
    expect(page.locator("#corpus-methods-run")).to_be_visible()
    expect(page.locator("#corpus-run")).to_be_hidden()


def test_a_link_with_an_unknown_method_says_so(page, app_server):
    page.goto(f"{app_server.url}?view=across&ax=methods&ms=bpe,lbpee")
    note = page.locator("#link-note")
    expect(note).to_contain_text("lbpee")
    expect(note).to_contain_text("did you mean lbpe?")
    expect(note).to_contain_text("every method is shown")
    expect(page.locator("#across-methods-run")).to_be_visible()
    for method in METHODS:
        expect(ticked(page, "across", method)).to_be_checked()


def test_the_methods_axis_over_the_api(app_server, tmp_path):
    tok = load_preset(VOCAB)
    client = Client(app_server.url, verbose=False, download_files=str(tmp_path / "downloads"))
    chosen = ["bpe", "longest-prefix", "dropout"]
    rows, plot, json_file, csv_file, status, cleared = client.predict(
        TEXT, None, VOCAB, chosen, 0.3, 7, api_name="/across_methods"
    )
    want = {
        m: len(
            tok.encode(TEXT, mode=m, disallowed_special=(), **({"dropout": 0.3, "seed": 7} if m == "dropout" else {}))
        )
        for m in chosen
    }
    assert rows["headers"][:2] == ["method", "tokens"]
    assert {r[0]: r[1] for r in rows["data"]} == want
    source = tmp_path / "doc.txt"
    source.write_text(TEXT, "utf-8")
    rows, *_ = client.predict(handle_file(str(source)), VOCAB, ["lbpe"], 0.1, 0, api_name="/corpus_methods")
    assert rows["data"][0][:2] == ["lbpe", len(tok.encode(TEXT, mode="lbpe", disallowed_special=()))]
    with pytest.raises(AppError, match="Tick at least one method"):
        client.predict(TEXT, None, VOCAB, [], 0.1, 0, api_name="/across_methods")


@pytest.mark.parametrize(
    ("tab", "view", "buttons"),
    [
        ("Corpus", "corpus", ("Compute statistics", "Compute statistics per method")),
        ("Across vocabularies", "across", ("Compare across vocabularies", "Compare across methods")),
    ],
)
def test_a_file_put_in_a_view_names_the_button_its_axis_shows(page, app_server, tmp_path, tab, view, buttons):
    """The note a file brings says which button to press: the one the view shows now."""
    good = tmp_path / "good.txt"
    good.write_text("plain words", "utf-8")
    page.goto(app_server.url)
    open_tab(page, tab)
    status = page.locator(f"#{view}-status")
    page.locator(f"#{view}-upload input[type=file]").set_input_files(str(good))
    expect(status).to_have_text(f"good.txt is ready: press {buttons[0]}.")
    page.locator(f"#{view}-axis").get_by_label("methods (one vocabulary, every method)").check()
    expect(page.locator(f"#{view}-methods-run")).to_have_text(buttons[1])
    more = tmp_path / "more.txt"
    more.write_text("more plain words", "utf-8")
    page.locator(f"#{view}-upload .icon-button-wrapper button[aria-label=Clear]").click()
    page.locator(f"#{view}-upload input[type=file]").set_input_files(str(more))
    expect(status).to_have_text(f"more.txt is ready: press {buttons[1]}.")
