"""Helpers for the playground tests: import lbpe.playground.app, and run it as a real server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: The environment every playground process runs with: offline, no analytics.
OFFLINE_ENV = {
    "GRADIO_ANALYTICS_ENABLED": "False",
    "HF_HUB_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "GRADIO_SERVER_NAME": "127.0.0.1",
    "NO_PROXY": "127.0.0.1,localhost",
}

#: Put before a Python script (``[sys.executable, *DUMPS_STACKS, "app.py", ...]``): the script runs
#: as ``__main__`` with the checkout first on ``sys.path``, and SIGUSR1 makes it write every
#: thread's stack into its output (:meth:`Server.stacks`).
DUMPS_STACKS = (
    "-c",
    "import faulthandler, runpy, signal, sys; faulthandler.register(signal.SIGUSR1, all_threads=True); "
    "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')",
)

#: Seconds a server may take to answer its first request.
STARTUP_TIMEOUT = 120


def load_app():
    """The playground module, :mod:`lbpe.playground.app` (imported offline, once)."""
    os.environ.update({k: v for k, v in OFFLINE_ENV.items() if k != "GRADIO_SERVER_NAME"})
    from lbpe.playground import app

    return app


def upload(tmp_path: Path, source: Path | bytes, name: str) -> str:
    """A file as a person uploads it: a copy under its own name in a folder of its own (as Gradio
    hands an upload to a handler, or as a client sends one)."""
    folder = tmp_path / f"upload-{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    target = folder / name
    if isinstance(source, bytes):
        target.write_bytes(source)
    else:
        shutil.copyfile(source, target)
    return str(target)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tail(path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text("utf-8", "replace").splitlines()[-lines:])
    except OSError:
        return "(no output)"


@dataclass
class Server:
    url: str
    log: Path
    proc: subprocess.Popen

    def tail(self, lines: int = 40) -> str:
        """The last lines of the server's output (for failure messages)."""
        return _tail(self.log, lines)

    def stacks(self, lines: int = 400) -> str:
        """Every thread's Python stack, written by the server into its output, then the last
        ``lines`` of that output (for a failure where the server may be stuck). Only a server
        started with :data:`DUMPS_STACKS` in front of its script can write them."""
        if self.proc.poll() is None and hasattr(signal, "SIGUSR1"):
            self.proc.send_signal(signal.SIGUSR1)
            time.sleep(1)
        return _tail(self.log, lines)


def _holds_listener(pid: int, port: int) -> bool | None:
    """Whether process ``pid`` holds the socket listening on 127.0.0.1:``port`` (Linux's
    /proc/net/tcp and /proc/<pid>/fd); ``None`` where /proc cannot tell."""
    try:
        rows = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    wanted = {f"0100007F:{port:04X}", f"00000000:{port:04X}"}  # 127.0.0.1 or any address
    sockets = {f"socket:[{row[9]}]" for row in rows if len(row) > 9 and row[1] in wanted and row[3] == "0A"}
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/fd/{fd}") in sockets:
                return True
    return False


class _PortTaken(Exception):
    """Another process answers on the port a server was started on."""


@contextlib.contextmanager
def running_server(
    command: Sequence[str], *, env: dict[str, str] | None = None, port: int | None = None, cwd: Path | None = None
) -> Iterator[Server]:
    """Run ``command`` (``{port}`` in it is replaced; it must serve on 127.0.0.1) and yield
    the :class:`Server` (``cwd``: the folder it runs in; default: the checkout).

    Start-up is bounded by :data:`STARTUP_TIMEOUT`; if the process dies or does not answer
    in time the test fails with the last lines of its output. The process is stopped by its
    own pid afterwards.

    The answer must come from this process: with tests running in parallel, another one may
    take a port between :func:`free_port` and this server's bind, and answer in its place.
    Then the server starts again on another free port (a ``port`` asked for fails, saying so).
    """
    for _ in range(5):
        try:
            with _started(command, env=env, port=port or free_port(), cwd=cwd) as server:
                yield server
            return
        except _PortTaken as taken:
            if port:
                pytest.fail(f"{' '.join(command)}: {taken}", pytrace=False)
    pytest.fail(f"{' '.join(command)}: five free ports in a row were taken by other processes", pytrace=False)


@contextlib.contextmanager
def _started(command: Sequence[str], *, env: dict[str, str] | None, port: int, cwd: Path | None) -> Iterator[Server]:
    url = f"http://127.0.0.1:{port}/"
    log = Path(tempfile.mkstemp(prefix="lbpe-app-test-", suffix=".log")[1])
    # Gradio keeps uploads by their content, in one folder for every server of the machine, and
    # a server deletes its uploads after use and as it stops: two test servers sharing the folder
    # (tests run in parallel; two modules upload the same file) would delete each other's. Each
    # gets its own, as if on a machine of its own.
    uploads = Path(tempfile.mkdtemp(prefix="lbpe-app-test-gradio-"))
    full_env = {
        **os.environ,
        **OFFLINE_ENV,
        "GRADIO_SERVER_PORT": str(port),
        "GRADIO_TEMP_DIR": str(uploads),
        **(env or {}),
    }
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [c.replace("{port}", str(port)) for c in command],
            cwd=cwd or ROOT,
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while True:
            answered = False
            try:
                with urllib.request.urlopen(url + "config", timeout=5) as r:
                    answered = r.status == 200
            except (urllib.error.URLError, OSError):
                pass
            ours = _holds_listener(proc.pid, port) if answered else None
            if answered and ours is False:
                raise _PortTaken(f"port {port} is held by another process, which answered in this server's place")
            if answered and proc.poll() is None:
                break
            if proc.poll() is not None:
                if answered:  # not by this process, which has gone
                    raise _PortTaken(f"port {port} is held by another process: this server exited")
                pytest.fail(
                    f"{' '.join(command)} exited with {proc.returncode} before serving:\n{_tail(log)}", pytrace=False
                )
            if time.monotonic() > deadline:
                pytest.fail(
                    f"{' '.join(command)} did not answer on {url} within {STARTUP_TIMEOUT} s:\n{_tail(log)}",
                    pytrace=False,
                )
            time.sleep(0.5)
        yield Server(url, log, proc)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=20)
        log.unlink(missing_ok=True)
        shutil.rmtree(uploads, ignore_errors=True)


def app_script_query(call: str, args: Sequence, *, address: str = "http://127.0.0.1/", page: dict | None = None) -> str:
    """The query the app's own script (lbpe/playground/app/app.js) leaves in the address after
    ``window.lbpeApp.<call>(*args)``, run in Node with a stand-in for the browser that starts at
    ``address``; ``page`` adds to the data the app gives its script (``window.LBPE``)."""
    import json

    body = f"window.lbpeApp.{call}(...{json.dumps(list(args))});\nprocess.stdout.write(location.href);"
    return urllib.parse.urlsplit(run_app_script(body, address=address, page=page)).query


def run_app_script(
    body: str, *, address: str = "http://127.0.0.1/", page: dict | None = None, restored: bool = True
) -> str:
    """What ``body`` (JavaScript) writes to its output, run in Node after the app's own script
    (lbpe/playground/app/app.js), with a stand-in for the browser that starts at ``address``;
    ``page`` adds to the data the app gives its script (``window.LBPE``). ``restored``: the
    page's load events are answered first (``restored()``), as in a page a person uses."""
    import json

    node = shutil.which("node")
    if node is None:
        pytest.skip("needs Node.js to run the page's script")
    script = (ROOT / "lbpe/playground/app/app.js").read_text("utf-8")
    given = {"presets": ["cl100k_base"], "labels": {}, "maxLinkText": 2000, **(page or {})}
    harness = f"""
globalThis.window = globalThis;
globalThis.location = {{ href: {json.dumps(address)} }};
globalThis.history = {{ replaceState: (a, b, url) => {{ location.href = String(url); }} }};
globalThis.document = {{ addEventListener() {{}}, querySelector() {{ return null; }},
  querySelectorAll() {{ return []; }},
  documentElement: {{ classList: {{ remove() {{}}, add() {{}} }}, dataset: {{}} }} }};
globalThis.LBPE = {json.dumps(given)};
{script}
{"window.lbpeApp.restored();" if restored else ""}
{body}
"""
    done = subprocess.run([node, "-e", harness], capture_output=True, text=True, timeout=60, check=True)
    return done.stdout
