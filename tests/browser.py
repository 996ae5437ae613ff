"""Debian's headless Chromium, kept offline, for the browser tests and ``bench/web_speed.py``.

Every test that opens a page launches it with :func:`launch`: the flags send every host name
but 127.0.0.1 nowhere, and turn off the browser's own background traffic, so a request off
the page's origin fails (and the tests that watch requests see it).
"""

from __future__ import annotations

import shutil
from typing import Any

#: The flags: headless, no sandbox (containers), no GPU, no background or update traffic, and
#: every host name resolved to nothing except 127.0.0.1.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]


class ChromiumMissing(RuntimeError):
    """Debian's chromium is not installed."""


def chromium() -> str:
    """The path of Debian's chromium (never playwright's own download)."""
    path = shutil.which("chromium")
    if path is None:
        raise ChromiumMissing("Debian's chromium is missing: run `bash scripts/install_test_deps.sh`")
    return path


def launch(playwright: Any) -> Any:
    """A headless, offline Chromium browser from a ``sync_playwright()`` context."""
    return playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_ARGS, headless=True)
