"""The built browser page (``lbpe build-web``) served from 127.0.0.1 by a thread, and opened in
a browser page until Python is ready."""

from __future__ import annotations

import threading
import urllib.parse
from pathlib import Path
from typing import Any

from lbpe.playground.page.site import serve

READY_MS = 120_000  # Pyodide's first start compiles 10 MB of WebAssembly: seconds, not minutes


class Server:
    """The site over http on 127.0.0.1, in a thread; ``stop`` ends it for good."""

    def __init__(self, directory: Path) -> None:
        self.httpd = serve(directory)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        if self.thread.is_alive():
            self.httpd.shutdown()
            self.httpd.server_close()
            self.thread.join(10)


def open_page(page, url: str) -> None:
    page.goto(url, wait_until="domcontentloaded")
    wait_ready(page)


def wait_ready(page) -> None:
    # Until Python is ready the controls stay disabled (checked in one step, so no race); the
    # text box takes text at once (test_text_typed_while_python_starts).
    assert page.evaluate(
        "() => document.querySelector('#status').dataset.state === 'ready' || "
        "[...document.querySelectorAll('.controls select, .controls input')].every((e) => e.disabled)"
    )
    page.wait_for_function("() => window.lbpePage && window.lbpePage.rendered.seq > 0", timeout=READY_MS)
    assert page.get_attribute("#status", "data-state") == "ready"
    assert not page.is_disabled("#text") and not page.is_disabled("#preset")


class Session:
    """A fresh browser context (its own cache) recording every request and every uncaught page
    error; each step waits at most ``step_ms``."""

    def __init__(self, browser, origin: str, *, step_ms: int = 60_000) -> None:
        self.origin = origin.rstrip("/")
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.set_default_timeout(step_ms)
        self.requests: list[str] = []
        self.context.on("request", lambda r: self.requests.append(r.url))
        self.errors: list[str] = []
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def foreign_requests(self) -> list[str]:
        return [u for u in self.requests if not (u.startswith(self.origin + "/") or u.startswith(("data:", "blob:")))]


def page_state(page) -> str:
    """What the page shows a person and its worker's record, for a failed wait's message."""
    return page.evaluate(
        """() => {
        const status = document.querySelector("#status");
        const error = document.querySelector("#error");
        const run = document.querySelector("#across-run");
        const api = window.lbpePage || {};
        return [
            `status ${status.dataset.state}: ${status.textContent.trim()}`,
            `error: ${error.hidden ? "(none shown)" : error.textContent}`,
            `across button ${run.disabled ? "disabled" : "enabled"}`,
            `workers restarted: ${api.restarts}`,
            `across: ${JSON.stringify({seq: api.across && api.across.seq, axis: api.across && api.across.axis})}`,
        ].join("; ");
    }"""
    )


def wait_until(page, expression: str, *, arg: Any = None, timeout: float) -> None:
    """``page.wait_for_function``, failing with what the page showed when it timed out."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    try:
        page.wait_for_function(expression, arg=arg, timeout=timeout)
    except PlaywrightTimeoutError:
        raise AssertionError(
            f"after {timeout / 1000:g} s the page still had not {expression!r}: {page_state(page)}"
        ) from None


def link(server: Server, **params: str) -> str:
    """The page's address with ``params`` in its fragment, as the page's links carry them."""
    return server.url + "#" + urllib.parse.urlencode(params, quote_via=urllib.parse.quote)
