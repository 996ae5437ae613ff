#!/usr/bin/env python3
"""Run the fast test tier on every other Python lbpe supports, each in its own venv.

    python scripts/test_matrix.py                      # 3.10, 3.12 and 3.13 (those that are not this one)
    python scripts/test_matrix.py --python 3.12        # one version (repeatable)

The README's test line runs the whole suite on the current interpreter and then this script,
so CI covers every version ``requires-python`` allows. For each version the script

* finds the interpreter (pyenv's newest patch release of it, else ``python3.X`` on PATH; a
  missing one is an error that says how to get it: a promised version is never skipped);
* makes a venv under ``build/venvs/`` and installs (with uv) lbpe editable with its ``test`` extra,
  pinned by ``constraints/test.txt``, or on the oldest version by ``constraints/lowest.txt``
  (each runtime extra's lower bound, so the ranges pyproject states are tested ones); the
  install compiles the extension for that Python beside the others' (an ABI-tagged file
  each); an unchanged venv is reused (a stamp of pyproject, setup.py, every C source and the
  constraints);
  the next version's venv is made while this one's tests run;
* runs ``pytest tests lbpe -m "not slow" -n auto`` (every tier): the parity and path-sensitive
  modules run on the compiled and the pure path (tests/conftest.py);
* prints one row per version: the encoding path, the tests passed and failed on each path and
  on neither, and the time; the table also goes to ``build/matrix/summary.md``.

Exit status 1 when any version fails to install or has a failing test. Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Every Python that pyproject's requires-python and classifiers promise.
SUPPORTED = ("3.10", "3.11", "3.12", "3.13")
#: The version that runs the oldest allowed versions of every extra.
OLDEST = SUPPORTED[0]
VENVS = ROOT / "build" / "venvs"
REPORTS = ROOT / "build" / "matrix"


def find_python(version: str) -> Path:
    """The interpreter for ``version`` ("3.12"): pyenv's newest patch release, else PATH."""
    candidates: list[Path] = []
    pyenv = shutil.which("pyenv")
    if pyenv:
        root = subprocess.run([pyenv, "root"], capture_output=True, text=True).stdout.strip()
        versions = Path(root, "versions") if root else None
        if versions and versions.is_dir():
            found = [p for p in versions.iterdir() if re.fullmatch(re.escape(version) + r"\.\d+", p.name)]
            found.sort(key=lambda p: int(p.name.rsplit(".", 1)[1]))
            candidates += [p / "bin" / "python" for p in reversed(found)]
    on_path = shutil.which(f"python{version}")
    if on_path:
        candidates.append(Path(on_path))
    for python in candidates:
        if python.is_file():
            return python
    raise SystemExit(
        f"test_matrix: no Python {version} found (pyenv versions, python{version} on PATH); "
        f"install it (e.g. `pyenv install {version}`) or pass --python for the versions you have"
    )


def _stamp(constraints: Path, python: Path) -> str:
    h = hashlib.sha256(str(python).encode())
    # the editable install compiles the extension: the glue lbpe/_native.c and the core in csrc/
    sources = [ROOT / "lbpe" / "_native.c", *sorted((ROOT / "csrc").glob("*.[ch]"))]
    for path in [ROOT / "pyproject.toml", ROOT / "setup.py", *sources]:
        h.update(path.relative_to(ROOT).as_posix().encode())
        h.update(path.read_bytes())
    h.update(constraints.read_bytes())
    return h.hexdigest()


def make_venv(version: str, python: Path) -> Path:
    """A venv with lbpe[test] installed editable under the version's constraints."""
    constraints = ROOT / "constraints" / ("lowest.txt" if version == OLDEST else "test.txt")
    venv = VENVS / f"py{version}"
    stamp_file = venv / "lbpe-stamp"
    stamp = _stamp(constraints, python)
    if stamp_file.is_file() and stamp_file.read_text() == stamp:
        return venv
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([str(python), "-m", "venv", str(venv)], check=True)
    vpy = str(venv / "bin" / "python")
    # uv resolves this set in seconds where pip's resolver backtracked for minutes (the test
    # extra installs uv; its pin is in constraints/test.txt)
    install = [_uv(), "pip", "install", "-q", "--python", vpy, "-e", f"{ROOT}[test]", "-c", str(constraints)]
    print("+", " ".join(install[1:]), flush=True)
    subprocess.run(install, check=True, cwd=ROOT, env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"})
    stamp_file.write_text(stamp)
    return venv


def _uv() -> str:
    """The uv command installed beside this Python (the test extra's), else on PATH."""
    beside = Path(sys.executable).parent / "uv"
    found = str(beside) if beside.is_file() else shutil.which("uv")
    if not found:
        raise SystemExit('test_matrix: uv is missing: python -m pip install -e ".[test]" -c constraints/test.txt')
    return found


def _counts(junit: Path) -> dict[str, list[int]]:
    """path -> [passed, failed] from pytest's JUnit XML (a test's id names its path)."""
    out = {"compiled": [0, 0], "pure": [0, 0], "either": [0, 0]}
    for case in ET.parse(junit).iter("testcase"):
        name = case.get("name", "")
        params = name[name.find("[") + 1 : -1].split("-") if "[" in name else []
        path = "compiled" if "compiled" in params else "pure" if "pure" in params else "either"
        if case.find("skipped") is not None:
            continue
        failed = case.find("failure") is not None or case.find("error") is not None
        out[path][failed] += 1
    return out


#: A version's interpreter and its venv, or the error its install ended with.
Prepared = tuple[Path, Path | subprocess.CalledProcessError]


def prepare(version: str) -> Prepared:
    """The version's interpreter and its venv (or why the install failed)."""
    python = find_python(version)
    try:
        return python, make_venv(version, python)
    except subprocess.CalledProcessError as exc:
        return python, exc


def run(version: str, prepared: Future[Prepared], pytest_args: list[str]) -> tuple[bool, str]:
    """Test one version once its venv is ready; (ok, the table row)."""
    start = time.monotonic()
    python, venv = prepared.result()
    if isinstance(venv, subprocess.CalledProcessError):
        return False, f"| {version} | {python} | install failed ({venv}) | | | | |"
    vpy = str(venv / "bin" / "python")
    info = subprocess.run(
        [vpy, "-c", "import sys, lbpe; print(sys.version.split()[0], lbpe.backend().name)"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout.split()
    REPORTS.mkdir(parents=True, exist_ok=True)
    junit = REPORTS / f"py{version}.xml"
    env = {k: v for k, v in os.environ.items() if k != "LBPE_PURE_PYTHON"}
    command = [vpy, "-m", "pytest", "tests", "lbpe", "-m", "not slow", "-n", "auto", "-q", "-p", "no:cacheprovider"]
    command += [f"--junitxml={junit}", *pytest_args]
    print(f"+ Python {version}:", " ".join(command[1:]), flush=True)
    result = subprocess.run(command, cwd=ROOT, env=env)
    seconds = time.monotonic() - start
    if not junit.is_file():
        return False, f"| {version} | {python} | pytest wrote no report (exit {result.returncode}) | | | | |"
    c = _counts(junit)
    cell = lambda p: f"{c[p][0]} passed" + (f", **{c[p][1]} failed**" if c[p][1] else "")  # noqa: E731
    full = info[0] if info else version
    backend = info[1] if len(info) > 1 else "?"
    row = f"| {full} | {backend} | {cell('compiled')} | {cell('pure')} | {cell('either')} | {seconds:.0f} s |"
    return result.returncode == 0, row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", action="append", choices=SUPPORTED, help="a version to test (repeatable)")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args(argv)
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    versions = args.python or [v for v in SUPPORTED if v != here]
    rows, ok = [], True
    # The next version installs while this one's tests run (one install at a time: the
    # editable installs share the checkout's build files).
    with ThreadPoolExecutor(max_workers=1) as installs:
        prepared = [installs.submit(prepare, version) for version in versions]
        for version, ready in zip(versions, prepared):
            good, row = run(version, ready, args.pytest_args)
            ok &= good
            rows.append(row)
    table = "\n".join(
        [
            "| Python | default path | compiled path | pure path | path-independent | time |",
            "|---|---|---|---|---|---|",
            *rows,
        ]
    )
    REPORTS.mkdir(parents=True, exist_ok=True)
    (REPORTS / "summary.md").write_text(table + "\n", encoding="utf-8")
    print("\nFast tier by Python (" + ("all passed" if ok else "FAILURES") + "):\n" + table, flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
