"""Fixtures the browser tests share: one offline Chromium per module and the playground's own
server (``app.py`` on a free port of 127.0.0.1)."""

from __future__ import annotations

import sys

import pytest
from playwright.sync_api import sync_playwright

from tests.support.app import DUMPS_STACKS, running_server
from tests.support.browser import Unanswered, launch


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium, sending nothing beyond 127.0.0.1 (:func:`launch`)."""
    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


@pytest.fixture(scope="module")
def app_server():
    """The playground served by ``app.py`` in its own process, for one module's tests (a failed
    test shows its threads' stacks and its output: :func:`pytest_runtest_makereport`)."""
    with running_server([sys.executable, *DUMPS_STACKS, "app.py", "--host", "127.0.0.1", "--port", "{port}"]) as s:
        yield s


@pytest.fixture
def unanswered():
    """The requests a test's page has sent and not yet had answered (an :class:`Unanswered` set), kept
    by the ``page`` fixtures that ask for it (:func:`tests.support.browser.watch_requests`), for the report of a failed
    test."""
    return Unanswered()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed browser test against the app's server also reports what the page still waited
    for and where the server's threads were: a wait that timed out says which side held it."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    pending = item.funcargs.get("unanswered")
    if pending:
        lines = [f"{r.method} {r.url[:200]}" for r in list(pending)]
        report.sections.append(("requests the page had no answer to", "\n".join(lines)))
    if pending is not None and pending.timeline:
        lines = pending.timeline[-200:]
        report.sections.append(("the page's queue requests and console errors, in order", "\n".join(lines)))
    server = item.funcargs.get("app_server")
    if server is not None:
        report.sections.append(("the app's server: its threads' stacks, then its output", server.stacks()))
