"""The playground in Chromium, when some messages of the session's queue stream reach the page
late (``tests/support/slow_stream_app.py``: a stream's close, and a failed event's answer):
nothing a person does in that time is lost."""

from __future__ import annotations

import sys

import pytest
from playwright.sync_api import expect

from lbpe.presets import load_preset
from tests.support.app import DUMPS_STACKS, running_server
from tests.support.browser import app_page, fill_kept

pytestmark = pytest.mark.slow(reason="a real playground server and Chromium")

TIMEOUT_MS = 30_000


@pytest.fixture(scope="module")
def app_server():
    """The playground behind a link that brings each queue stream's close, and each failed
    event's answer, 3 s late."""
    script = "tests/support/slow_stream_app.py"
    with running_server([sys.executable, *DUMPS_STACKS, script, "--port", "{port}"]) as s:
        yield s


@pytest.fixture
def page(browser, app_server, unanswered):
    with app_page(browser, app_server.url, unanswered, timeout_ms=TIMEOUT_MS) as page:
        yield page


def test_a_decode_sent_as_the_last_one_finished_is_answered(page):
    """Decode, and the moment its answer shows, Decode other ids: the second answer shows too
    (before, it stayed pending until some other event opened a stream)."""
    tok = load_preset("mistral-7b")
    page.locator("#ids-box").get_by_text("Token ids: copy them").click()
    ids_box = page.locator("#decode-input input, #decode-input textarea").first
    expect(ids_box).to_be_editable()
    decoded = page.locator("#decoded .lbpe-decoded")
    for word in ("Capitals", "geographers", "counterrevolutionary"):
        fill_kept(ids_box, " ".join(map(str, tok.encode(word, mode="bpe"))))
        page.locator("#decode-run").click()
        expect(decoded).to_contain_text(word, timeout=TIMEOUT_MS)


def test_a_word_typed_to_explain_while_the_text_changes_is_explained(page):
    """With the Explain box empty, change the text, and at once type a word to explain: the
    word is explained. (The change explained the empty box, which failed, and Gradio's page
    dropped the word typed meanwhile: the box showed the word, the pane the failure.)"""
    box = page.locator("#explain-text textarea, #explain-text input").first
    fill_kept(box, "")
    expect(page.locator("#explain .lbpe-x-head")).to_have_count(0, timeout=TIMEOUT_MS)
    page.locator("#text textarea").fill("Geographers of capitals")  # explains the empty box again...
    expect(page.locator("#lbpe-pane .lbpe-pane")).to_contain_text("Geographers")  # ...which is still running
    fill_kept(box, "Capitals")
    expect(page.locator("#explain .lbpe-x-head")).to_contain_text("Capitals", timeout=TIMEOUT_MS)
    expect(page.locator("#explain .lbpe-failed")).to_have_count(0)
