"""The playground in Chromium, when each request of the page for its session's queue stream
reaches the server twice and the page reads only the later copy (a browser sends a request again
on a new connection when the one it was on seemed closed, and the first copy may still arrive):
every change a person makes still shows."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from tests.support.browser import app_page

pytestmark = pytest.mark.slow(reason="a real playground server and Chromium")

TIMEOUT_MS = 30_000


@pytest.fixture
def left_behind():
    """The connections of the copies nobody reads, closed after the test."""
    connections: list[socket.socket] = []
    yield connections
    for connection in connections:
        connection.close()


@pytest.fixture
def page(browser, app_server, unanswered, left_behind):
    def send_twice(route) -> None:
        url = urlsplit(route.request.url)
        copy = socket.create_connection((url.hostname, url.port), timeout=10)
        copy.sendall(
            f"GET {url.path}?{url.query} HTTP/1.1\r\nHost: {url.netloc}\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        left_behind.append(copy)
        time.sleep(0.2)  # the server has the copy nobody reads first
        route.continue_()

    def route_streams(context) -> None:
        context.route("**/gradio_api/queue/data?*", send_twice)

    with app_page(browser, app_server.url, unanswered, timeout_ms=TIMEOUT_MS, prepare=route_streams) as page:
        yield page


def test_every_change_of_the_text_shows_in_the_panes(page, left_behind):
    text = page.locator("#text textarea")
    for word in ("Geographers", "Capitals", "Counterrevolutionary", "Archipelagos", "Cartography"):
        text.fill(f"{word} of the world")
        expect(page.locator("#lbpe-pane .lbpe-pane")).to_contain_text(word, timeout=TIMEOUT_MS)
        expect(page.locator("#bpe-pane .lbpe-pane")).to_contain_text(word, timeout=TIMEOUT_MS)
    assert len(left_behind) >= 2  # the page's stream requests were each sent twice
