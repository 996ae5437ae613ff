"""Fixtures the browser tests share: one offline Chromium per module and the playground's own
server (``app.py`` on a free port of 127.0.0.1)."""

from __future__ import annotations

import sys

import pytest
from playwright.sync_api import sync_playwright

from tests.support.app import running_server
from tests.support.browser import launch


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium, sending nothing beyond 127.0.0.1 (:func:`launch`)."""
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


@pytest.fixture(scope="module")
def app_server():
    """The playground served by ``app.py`` in its own process, for one module's tests."""
    with running_server([sys.executable, "app.py", "--host", "127.0.0.1", "--port", "{port}"]) as s:
        yield s
