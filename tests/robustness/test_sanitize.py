"""The C code under AddressSanitizer and UndefinedBehaviorSanitizer: ``scripts/sanitize.sh``
builds the extension with both, in a copy of the checkout, and runs the fast parity tests on
it on the compiled path (any overrun, use after free or undefined behaviour stops the run with
the report). It runs in CI with the rest of the suite; its own pytest's verdict is this test's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig

import pytest

from tests.support.data import ROOT

pytestmark = pytest.mark.slow(
    reason="builds the extension under ASan and UBSan and runs the parity tests on it (~7 min)"
)


def test_the_c_code_is_clean_under_asan_and_ubsan():
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    assert shutil.which(cc), f"{cc}, the C compiler Python was built with, is missing: the extension cannot be built"
    assert (ROOT / ".git").exists(), "scripts/sanitize.sh copies the tracked files of a git checkout"
    run = subprocess.run(
        ["bash", str(ROOT / "scripts" / "sanitize.sh")],
        cwd=ROOT,
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=1500,
        stdin=subprocess.DEVNULL,
    )
    out = run.stdout + run.stderr
    # the instrumented build, in the copy, is the one tested (not this checkout's own)
    built = re.search(r"sanitize.sh: compiled path, (\S+)", out)
    assert built is not None and not built.group(1).startswith(str(ROOT)), out[-3000:]
    assert run.returncode == 0, out[-6000:]
    assert re.search(r"^\d+ passed", out, re.MULTILINE), out[-2000:]
