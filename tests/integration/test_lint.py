"""The checkers behind the code's habits: ruff (lint and format) and mypy, configured in pyproject.toml.

They run here, inside the suite, because CI runs the README's Quick start test line (.ci/run),
which is pytest. Each runs from the repository root, whatever the working directory.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.data import ROOT

#: Lines of a checker's output shown when it fails (the rest is a rerun away).
SHOWN_LINES = 40

CHECKS = {
    "ruff check": ["ruff", "check", "--output-format", "concise"],
    "ruff format --check": ["ruff", "format", "--check", "--output-format", "concise"],
    "mypy": ["mypy"],
}


#: mypy checks for pyproject's python_version whatever runs it, so its answer is the same on
#: every Python: it runs with the whole suite, not again in each version's fast tier.
ONCE = {"mypy": pytest.mark.slow(reason="the same answer on every Python")}


@pytest.mark.parametrize("name", [pytest.param(n, marks=ONCE.get(n, ())) for n in CHECKS])
def test_checker_passes(name):
    command = [sys.executable, "-m", *CHECKS[name]]
    proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        lines = (proc.stdout + proc.stderr).splitlines()
        shown = "\n".join(lines[:SHOWN_LINES])
        more = f"\n... {len(lines) - SHOWN_LINES} more lines" if len(lines) > SHOWN_LINES else ""
        pytest.fail(
            f"`python -m {' '.join(CHECKS[name])}` (in {ROOT}) exited with {proc.returncode}:\n{shown}{more}",
            pytrace=False,
        )


def test_nox_has_a_session_for_every_check_ci_runs():
    done = subprocess.run([sys.executable, "-m", "nox", "--list"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    listed = {line.split()[1] for line in done.stdout.splitlines() if line[:2] in ("* ", "- ")}
    assert listed == {"lint", "typecheck", "unit", "tests", "full", "matrix", "sanitize"}


def test_the_pre_commit_hooks_are_valid_and_run_the_pinned_ruff():
    config = ROOT / ".pre-commit-config.yaml"
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", str(config)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    import yaml

    hooks = [h for repo in yaml.safe_load(config.read_text("utf-8"))["repos"] for h in repo["hooks"]]
    # local hooks: the ruff the test line installed, nothing fetched at commit time
    assert [h["entry"].split()[:2] for h in hooks] == [["ruff", "check"], ["ruff", "format"]]
    assert {h["language"] for h in hooks} == {"system"}


USER_SCRIPT = """
import lbpe

tok = lbpe.load_preset("gpt2")
text = "a <|endoftext|> b"
ids: list[int] = tok.encode(text, mode="bpe", allowed_special=["<|endoftext|>"], disallowed_special=None)
ids = tok.encode(text, mode="lbpe", allowed_special=None, disallowed_special=())
ids = tok.encode(text, mode="bpe", allowed_special={"<|endoftext|>"}, disallowed_special="all")
segs = tok.segment(text, mode="bpe", allowed_special=("<|endoftext|>",))
batch: list[list[int]] = tok.encode_batch([text], mode="bpe", allowed_special="all", disallowed_special=[])
"""

#: A call the code refuses (a single string, read as its characters, would let the token through
#: in silence): the types must refuse it too.
USER_MISTAKE = """
import lbpe

lbpe.load_preset("gpt2").encode("a", mode="bpe", allowed_special="<|endoftext|>")
"""


@pytest.mark.slow(reason="mypy on a user's script")
def test_the_documented_special_token_arguments_type_check(tmp_path):
    """encode's docstring takes allowed_special / disallowed_special as "all", a set, list or
    tuple, or None, and so does the code: a user's script under mypy --strict must too (the
    hints said a set or "all", and refused a list or None)."""
    script = tmp_path / "user.py"
    script.write_text(USER_SCRIPT, encoding="utf-8")
    command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent", str(script)]
    proc = subprocess.run(
        command,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "MYPYPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    script.write_text(USER_MISTAKE, encoding="utf-8")
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    proc = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 1 and 'Argument "allowed_special"' in proc.stdout, proc.stdout + proc.stderr
