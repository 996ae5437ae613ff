"""Files over the server's size limits, chosen or dropped in a real headless Chromium: the page
refuses them before sending them, and the view's note says why in the server's own words,
replacing the reason given for the file before. The server runs with limits of 0.01 MB."""

from __future__ import annotations

import sys
from urllib.parse import urlparse

import pytest
from playwright.sync_api import expect

from tests.support.app import DUMPS_STACKS, running_server
from tests.support.browser import app_page, open_tab

pytestmark = pytest.mark.slow(reason="Chromium drives the playground")

TIMEOUT_MS = 60_000
expect.set_options(timeout=TIMEOUT_MS)
LIMITS = {
    "LBPE_APP_MAX_VOCAB_MB": "0.01",
    "LBPE_APP_MAX_CORPUS_MB": "0.01",
    "LBPE_APP_MAX_TRAIN_MB": "0.01",
    "LBPE_APP_MAX_TEXT_FILE_MB": "0.01",
    # a text long enough that its comparison is still running when a file sent meanwhile is refused
    "LBPE_APP_MAX_TEXT_CHARS": "250000",
}
#: How the playground ends a limit's reason for a visitor.
NO_MORE = "; this server allows no more (lbpe on your own machine does: pip install lbpe)"


@pytest.fixture(scope="module")
def app_server():
    command = [sys.executable, *DUMPS_STACKS, "app.py", "--host", "127.0.0.1", "--port", "{port}"]
    with running_server(command, env=LIMITS) as s:
        yield s


@pytest.fixture
def page(browser, app_server, unanswered):
    uploads: list[str] = []

    def watch(context) -> None:
        context.on("request", lambda r: uploads.append(r.url) if "/upload" in urlparse(r.url).path else None)

    with app_page(browser, app_server.url, unanswered, timeout_ms=TIMEOUT_MS, prepare=watch) as page:
        page.uploads = uploads
        yield page


DROP_JS = """([zone, name, size]) => {
  const data = new DataTransfer();
  data.items.add(new File([new Uint8Array(size)], name, { type: "text/plain" }));
  const target = document.querySelector(zone);
  for (const type of ["dragenter", "dragover", "drop"]) {
    target.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
  }
}"""


def test_a_vocabulary_over_the_limit_is_refused_before_it_is_sent(page, tmp_path):
    note = page.locator("#vocab-upload-note")
    page.locator("#vocab-upload-box").get_by_text("Upload your own vocabulary").click()
    files = page.locator("#vocab-upload input[type=file]")
    junk = tmp_path / "junk.json"
    junk.write_text("{ not json", "utf-8")
    files.set_input_files(str(junk))
    expect(note).to_contain_text("junk.json")  # the server's reason for a file it read
    sent = len(page.uploads)
    assert sent >= 1
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 20_000)
    expect(page.locator("#vocab-upload button[aria-label=Clear]")).to_have_count(0)  # a refused file leaves the box
    files.set_input_files(str(big))
    expect(note).to_have_text(
        "big.json is 0.02 MB, over the limit of 0.01 MB for an uploaded vocabulary file, also after gunzip" + NO_MORE
    )
    expect(note.locator(".lbpe-failed")).to_have_count(1)
    page.wait_for_timeout(1000)
    assert len(page.uploads) == sent, page.uploads[sent:]  # the file never left the page


def test_corpus_and_training_files_over_the_limit_are_refused_chosen_or_dropped(page, tmp_path):
    open_tab(page, "Corpus")
    page.evaluate(DROP_JS, ["#corpus-upload", "dropped.txt", 15_000])
    expect(page.locator("#corpus-status")).to_have_text(
        "dropped.txt is 0.015 MB, over the limit of 0.01 MB for a file for the Corpus view" + NO_MORE
    )
    open_tab(page, "Train")
    parts = []
    for n in range(2):  # each within the limit, over it together
        part = tmp_path / f"part{n}.txt"
        part.write_bytes(b"a" * 6_000)
        parts.append(str(part))
    page.locator("#train-upload input[type=file]").set_input_files(parts)
    expect(page.locator("#train-status")).to_have_text(
        "the training corpus (2 file(s)) is 0.012 MB, over the limit of 0.01 MB for the training files together"
        + NO_MORE
    )
    page.wait_for_timeout(1000)
    assert page.uploads == []
    # within the limit, a file goes as before
    page.locator("#train-upload input[type=file]").set_input_files(parts[0])
    expect(page.locator("#train-upload")).to_contain_text("5.9\u00a0KB")  # listed (name and size) once sent
    assert page.uploads


def test_training_files_added_one_at_a_time_are_told_over_the_limit_at_once(page, tmp_path):
    open_tab(page, "Train")
    status = page.locator("#train-status")
    parts = []
    for n in range(2):  # each within the limit, over it together
        part = tmp_path / f"part{n}.txt"
        part.write_bytes(b"a" * 6_000)
        parts.append(str(part))
    files = page.locator("#train-upload input[type=file]")
    files.set_input_files(parts[0])
    expect(page.locator("#train-upload")).to_contain_text("part0")
    expect(status).to_have_text("part0.txt is ready: press Train.")
    files.set_input_files(parts[1])  # added to the first
    expect(page.locator("#train-upload")).to_contain_text("part1")
    # said at once, before Train is pressed
    expect(status).to_have_text(
        "the training corpus (2 file(s)) is 0.012 MB, over the limit of 0.01 MB for the training files together"
        + NO_MORE
    )
    expect(status.locator(".lbpe-failed")).to_have_count(1)
    # one removed: within the limit again, and the refusal is gone
    page.locator("#train-upload button[aria-label='Remove this file']").first.click()
    expect(page.locator("#train-upload")).not_to_contain_text("part0")
    expect(status).to_have_text("part1.txt is ready: press Train.")
    page.locator("#train-upload button[aria-label='Clear']").click()  # the last one
    expect(status).to_have_text("Choose text files, then press Train.")


def test_a_text_file_over_the_limit_is_refused_where_compare_says_why(page, tmp_path):
    note = page.locator("#compare-note")
    page.evaluate(DROP_JS, ["#text-upload", "long.txt", 15_000])
    expect(note).to_have_text(
        "long.txt is 0.015 MB, over the limit of 0.01 MB for a .txt file for the Compare view" + NO_MORE
    )
    expect(note.locator(".lbpe-failed")).to_have_count(1)
    big = tmp_path / "chosen.txt"
    big.write_bytes(b"word " * 4_000)
    page.locator("#text-upload input[type=file]").set_input_files(str(big))
    expect(note).to_have_text(
        "chosen.txt is 0.02 MB, over the limit of 0.01 MB for a .txt file for the Compare view" + NO_MORE
    )
    page.wait_for_timeout(1000)
    assert page.uploads == []
    expect(page.locator("#text textarea")).not_to_have_value("word " * 4_000)
    # within the limit, a file goes as before and fills the text box
    small = tmp_path / "small.txt"
    small.write_text("a small text to compare", "utf-8")
    page.locator("#text-upload input[type=file]").set_input_files(str(small))
    expect(page.locator("#text textarea")).to_have_value("a small text to compare")
    assert page.uploads


#: Watches the Compare view from now on: the order (1, 2) in which its note first held the
#: words given and the BPE pane's "updating…" was first hidden after being shown (window.lbpeOrder).
#: One observer of both, so that its records come in the order the changes were made.
ORDER_JS = """(words) => {
  const order = (window.lbpeOrder = { shown: null, ended: null });
  let step = 0;
  const note = document.querySelector("#compare-note");
  const busy = document.querySelector("#bpe-pane .lbpe-busy");
  if (window.lbpeOrderWatch) window.lbpeOrderWatch.disconnect();
  window.lbpeOrderWatch = new MutationObserver((records) => {
    for (const r of records) {
      if (r.target === busy) {
        // an old value of null: the attribute was absent, the note shown
        if (order.ended === null && r.oldValue === null && busy.hidden) order.ended = ++step;
      } else if (order.shown === null && note.textContent.includes(words)) {
        order.shown = ++step;
      }
    }
  });
  window.lbpeOrderWatch.observe(note, { childList: true, subtree: true, characterData: true });
  window.lbpeOrderWatch.observe(busy, { attributes: true, attributeFilter: ["hidden"], attributeOldValue: true });
}"""

#: Tries at sending a file while a long text's comparison runs (see below).
TRIES = 3


def refusal_outlives_the_running_comparison(page, send, refusal: str, *, whole: bool) -> None:
    """``send()`` a file to the Compare view while a long text's comparison runs: its refusal
    (``refusal``: the note's text, or with ``whole=False`` its start) stays in the note after
    that comparison's end, which clears a comparison's own reason; the next comparison clears it.

    The page draws a long text's panes in one go of several seconds (more on a busy machine), in
    which it can take in neither the refusal nor the comparison's end: a refusal answered then
    shows after that end, which says nothing of whether the end keeps it. The page records the
    order; such a try is made again with another text, up to :data:`TRIES` times."""
    note = page.locator("#compare-note")
    busy = page.locator("#bpe-pane .lbpe-busy")
    shown = expect(note).to_have_text if whole else expect(note).to_contain_text
    for attempt in range(TRIES):
        # long enough that its comparison (about 17 s here) outlasts a file's refusal (about 1 s)
        words = " ".join(f"w{n} sesquipedalian{n % 97} ἀρχή {n * 7919 + attempt}" for n in range(12_000))
        clear = page.locator("#text-upload .icon-button-wrapper button[aria-label=Clear]")
        if clear.count():  # a file the server refused stays in the box: cleared to send it again
            clear.click()
        expect(page.locator("#text-upload input[type=file]")).to_have_count(1)
        page.evaluate(ORDER_JS, refusal[:40])
        page.locator("#text textarea").fill(words[:250_000])
        expect(busy).to_be_visible()  # the comparison of the long text is under way
        send()
        shown(refusal, timeout=3 * TIMEOUT_MS)
        expect(busy).to_be_hidden(timeout=3 * TIMEOUT_MS)  # ...and it has ended
        expect(page.locator("#bpe-pane")).to_contain_text("sesquipedalian")
        page.wait_for_timeout(1000)
        shown(refusal)  # the comparison's end left it
        order = page.evaluate("window.lbpeOrder")
        page.locator("#text textarea").fill("a new text")
        expect(page.locator("#bpe-pane")).not_to_contain_text("sesquipedalian", timeout=3 * TIMEOUT_MS)
        expect(note).to_have_text("")  # the next comparison clears it
        if order == {"shown": 1, "ended": 2}:  # the refusal came while the comparison ran
            return
    pytest.fail(f"in {TRIES} tries the page never showed the refusal before the comparison's end: {order}")


def test_a_refusal_outlives_the_comparison_that_was_running_when_it_came(page):
    """A file over the limit, refused by the page."""
    refusal_outlives_the_running_comparison(
        page,
        lambda: page.evaluate(DROP_JS, ["#text-upload", "long.txt", 15_000]),
        "long.txt is 0.015 MB, over the limit of 0.01 MB for a .txt file for the Compare view" + NO_MORE,
        whole=True,
    )


def test_a_file_the_server_refuses_outlives_the_comparison_running_when_it_came(page, tmp_path):
    """A .txt file within the size limit but not UTF-8, refused by the server."""
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"\xff" * 2_000)
    refusal_outlives_the_running_comparison(
        page,
        lambda: page.locator("#text-upload input[type=file]").set_input_files(str(latin)),
        "latin.txt: not UTF-8 text (byte 0xff at offset 0)",
        whole=False,
    )


def test_a_file_of_a_type_a_view_does_not_read_is_refused_beside_it(page, tmp_path):
    """Gradio's own refusal of a file type is a notice that fades, far from the box; the view's
    note says it, and what to do, and stays."""
    open_tab(page, "Corpus")
    status = page.locator("#corpus-status")
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"text": "a document"}\n', "utf-8")
    page.locator("#corpus-upload input[type=file]").set_input_files(str(docs))
    expect(status).to_contain_text("docs.jsonl: this view reads a plain text file (.txt)")
    expect(status).to_contain_text("lbpe stats docs.jsonl")
    page.wait_for_timeout(6000)  # longer than Gradio's notice stays
    expect(status).to_contain_text("docs.jsonl: this view reads a plain text file")
    page.evaluate(
        DROP_JS.replace('"text/plain"', '"application/vnd.apache.parquet"'), ["#corpus-upload", "more.parquet", 10]
    )
    expect(status).to_contain_text("more.parquet: this view reads a plain text file (.txt)")
    # a file it reads, chosen after: the refusal of the file before is gone
    good = tmp_path / "good.txt"
    good.write_text("plain words", "utf-8")
    page.locator("#corpus-upload input[type=file]").set_input_files(str(good))
    expect(status).to_have_text("good.txt is ready: press Compute statistics.")
