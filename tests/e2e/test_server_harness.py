"""tests/support/app.py's running_server, with two test processes starting servers at once
(pytest -n 2): a port another process took between free_port() and the server's own bind
must not leave a test talking to that other process's server."""

from __future__ import annotations

import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support import app as app_support
from tests.support.app import free_port, running_server


def _site(folder: Path, text: str) -> Path:
    """A folder whose ``config`` (what running_server asks for) reads ``text``."""
    folder.mkdir()
    (folder / "config").write_text(text, encoding="utf-8")
    return folder


def _http_server(folder: Path) -> list[str]:
    """A real server for ``folder`` on 127.0.0.1 (``{port}`` filled in by running_server)."""
    return [sys.executable, "-m", "http.server", "{port}", "--bind", "127.0.0.1", "--directory", str(folder)]


def _config(url: str) -> str:
    with urllib.request.urlopen(url + "config", timeout=30) as r:
        return r.read().decode("utf-8")


def test_a_port_taken_by_another_server_is_not_mistaken_for_ours(tmp_path, monkeypatch):
    ours, theirs = _site(tmp_path / "ours", "ours"), _site(tmp_path / "theirs", "theirs")
    with running_server(_http_server(theirs)) as other:  # another test's server, already up
        taken = int(other.url.rsplit(":", 1)[1].strip("/"))
        picks = iter([taken])  # free_port() hands out the port just before the other one binds it
        monkeypatch.setattr(app_support, "free_port", lambda: next(picks, None) or free_port())
        with running_server(_http_server(ours)) as server:
            assert server.url != other.url
            assert _config(server.url) == "ours"
            assert server.proc.poll() is None
        assert _config(other.url) == "theirs"  # the other server was left alone


def test_a_port_asked_for_and_taken_fails_saying_so(tmp_path):
    ours, theirs = _site(tmp_path / "ours", "ours"), _site(tmp_path / "theirs", "theirs")
    with running_server(_http_server(theirs)) as other:
        taken = int(other.url.rsplit(":", 1)[1].strip("/"))
        with pytest.raises(pytest.fail.Exception, match=f"port {taken} is held by another process"):
            with running_server(_http_server(ours), port=taken):
                pass
        assert _config(other.url) == "theirs"


@pytest.mark.slow(reason="waits for a server to time out")
def test_a_stuck_server_shows_where_its_threads_are(tmp_path):
    """What a failed browser test reports of its server: every thread's stack, from the script
    run behind DUMPS_STACKS (here a web server whose request handler never returns)."""
    script = tmp_path / "stuck_server.py"
    script.write_text(
        "import http.server, sys, time\n"
        "class Handler(http.server.BaseHTTPRequestHandler):\n"
        "    def do_GET(self):\n"
        "        if self.path == '/config':\n"
        "            self.send_response(200); self.end_headers(); return\n"
        "        time.sleep(3600)  # the request that never gets its answer\n"
        "server = http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), Handler)\n"
        "server.serve_forever()\n",
        encoding="utf-8",
    )
    with running_server([sys.executable, *app_support.DUMPS_STACKS, str(script), "{port}"]) as server:
        threading.Thread(target=lambda: _config_ignoring_timeout(server.url + "stuck/"), daemon=True).start()
        deadline = time.monotonic() + 30
        while "in do_GET" not in (dump := server.stacks()) and time.monotonic() < deadline:
            pass
    assert 'stuck_server.py", line 6 in do_GET' in dump, dump
    assert "serve_forever" in dump, dump


def _config_ignoring_timeout(url: str) -> None:
    try:
        _config(url)
    except OSError:
        pass
