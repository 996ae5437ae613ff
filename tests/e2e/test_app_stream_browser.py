"""The playground in Chromium answers an event sent just as the one before it finished, when
the close of the session's queue stream reaches the page late (``tests/support/slow_close_app.py``:
:mod:`lbpe.playground.app.streams` says how Gradio's page could lose such an event)."""

from __future__ import annotations

import sys

import pytest
from playwright.sync_api import expect

from lbpe.presets import load_preset
from tests.support.app import DUMPS_STACKS, running_server
from tests.support.browser import fill_kept, watch_requests

pytestmark = pytest.mark.slow(reason="a real playground server and Chromium")

TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def app_server():
    """The playground behind a link that brings each queue stream's close 3 s late."""
    script = "tests/support/slow_close_app.py"
    with running_server([sys.executable, *DUMPS_STACKS, script, "--port", "{port}"]) as s:
        yield s


def test_a_decode_sent_as_the_last_one_finished_is_answered(browser, app_server, unanswered):
    """Decode, and the moment its answer shows, Decode other ids: the second answer shows too
    (before, it stayed pending until some other event opened a stream)."""
    tok = load_preset("mistral-7b")
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    watch_requests(context, unanswered)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(app_server.url)
    expect(page.locator("#bpe-pane .lbpe-pane")).to_be_visible()
    page.locator("#ids-box").get_by_text("Token ids: copy them").click()
    ids_box = page.locator("#decode-input input, #decode-input textarea").first
    expect(ids_box).to_be_editable()
    decoded = page.locator("#decoded .lbpe-decoded")
    for word in ("Capitals", "geographers", "counterrevolutionary"):
        fill_kept(ids_box, " ".join(map(str, tok.encode(word, mode="bpe"))))
        page.locator("#decode-run").click()
        expect(decoded).to_contain_text(word, timeout=TIMEOUT_MS)
    context.close()
