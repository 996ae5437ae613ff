"""The command line as the tests run it: in a subprocess, text in and out; and a progress
callback that presses Ctrl-C part way through an export."""

from __future__ import annotations

import os
import subprocess
import sys

#: The command line, as a subprocess runs it: ``[*CLI, "encode", ...]``.
CLI = [sys.executable, "-m", "lbpe"]

#: Python code that makes Ctrl-C raise ``KeyboardInterrupt`` as in a terminal, whatever the tests
#: were started with: a script's background job starts with SIGINT ignored, and so would every
#: process it starts (Python then installs no handler of its own).
CTRL_C_AS_IN_A_TERMINAL = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler)"

#: The command line as :data:`CLI` runs it, with Ctrl-C as in a terminal
#: (:data:`CTRL_C_AS_IN_A_TERMINAL`), for tests that press it.
CLI_WITH_CTRL_C = [
    sys.executable,
    "-c",
    f"{CTRL_C_AS_IN_A_TERMINAL}; import runpy; runpy.run_module('lbpe', run_name='__main__', alter_sys=True)",
]


def run_cli(
    *args: str,
    input: str = "",
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``python -m lbpe *args`` in a subprocess: text in and out, both streams captured;
    standard input is ``input`` (empty unless given: a test never waits on a terminal)."""
    return subprocess.run([*CLI, *args], input=input, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


class Stop:
    """A progress callback (of ``export_shards``) that presses Ctrl-C after ``calls`` calls."""

    def __init__(self, calls: int) -> None:
        self.calls = calls

    def __call__(self, *args) -> None:
        self.calls -= 1
        if self.calls == 0:
            raise KeyboardInterrupt
