"""The command line as the tests run it: in a subprocess, text in and out; and a progress
callback that presses Ctrl-C part way through an export."""

from __future__ import annotations

import os
import subprocess
import sys

#: The command line, as a subprocess runs it: ``[*CLI, "encode", ...]``.
CLI = [sys.executable, "-m", "lbpe"]


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
