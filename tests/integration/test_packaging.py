"""What a user installs: the sdist and the wheel as `python -m build` makes them, their metadata
read back as pip reads it, and the sdist's own tests run from the unpacked archive."""

from __future__ import annotations

import email.parser
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from tests.support.cli import run_cli
from tests.support.data import ROOT, pyproject

PYPROJECT = pyproject()


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    """The sdist and the wheel of this checkout (built without network: setuptools as installed),
    from a copy of its tracked files: a build writes build/ and lbpe.egg-info beside the sources,
    and another test process may be building the same checkout."""
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    source = tmp_path_factory.mktemp("source")
    for name in files:
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (sdist,) = out.glob("lbpe-*.tar.gz")
    (wheel,) = out.glob("lbpe-*.whl")
    return {"sdist": sdist, "wheel": wheel}


def _wheel_metadata(wheel: Path):
    with zipfile.ZipFile(wheel) as zf:
        (name,) = [n for n in zf.namelist() if n.endswith(".dist-info/METADATA")]
        return email.parser.Parser().parsestr(zf.read(name).decode("utf-8")), zf.namelist()


def test_version_names_the_release_the_path_and_the_python():
    result = run_cli("--version")
    assert result.returncode == 0, result.stderr
    version = metadata.version("lbpe")  # the installed distribution's own record
    expected_path = "pure" if os.environ.get("LBPE_PURE_PYTHON", "") not in ("", "0") else "compiled"
    python = ".".join(map(str, sys.version_info[:3]))
    assert result.stdout.strip() == f"lbpe {version} ({expected_path} path, Python {python})"


@pytest.mark.slow(reason="builds the sdist and the wheel")
def test_wheel_metadata_states_the_licence_types_and_ranges(dists):
    meta, names = _wheel_metadata(dists["wheel"])
    assert meta["License-Expression"] == "MIT"
    assert sorted(meta.get_all("License-File")) == sorted(PYPROJECT["project"]["license-files"])
    for licence in PYPROJECT["project"]["license-files"]:
        assert any(n.endswith(".dist-info/licenses/" + licence) for n in names), licence
    assert "MIT License" in (ROOT / "LICENSE").read_text("utf-8")
    assert "lbpe/py.typed" in names
    assert "lbpe/_native.pyi" in names  # the compiled extension's types travel with it
    assert meta["Requires-Python"] == PYPROJECT["project"]["requires-python"]
    classifiers = meta.get_all("Classifier")
    for minor in (10, 11, 12, 13):
        assert f"Programming Language :: Python :: 3.{minor}" in classifiers
    assert "Typing :: Typed" in classifiers
    # every runtime extra is a range a user's environment can meet; only the test tools' pins
    # live elsewhere (constraints/test.txt)
    runtime = [r for r in meta.get_all("Requires-Dist") if 'extra == "test"' not in r]
    assert runtime, "the wheel declares no extras"
    for requirement in runtime:
        assert "==" not in requirement.split(";")[0], requirement
    # the bundled vocabularies travel in the wheel
    assert any(n.startswith("lbpe/data/mistral/") and n.endswith(".gz") for n in names)


def test_extras_lower_bounds_are_the_tested_lowest_versions():
    """Each runtime extra's lower bound is what constraints/lowest.txt installs (and the
    matrix tests on the oldest Python), so no stated minimum is untested."""
    lowest = dict(
        line.split("==")
        for line in (ROOT / "constraints" / "lowest.txt").read_text("utf-8").splitlines()
        if line and not line.startswith("#")
    )
    pinned = dict(
        line.split("==")
        for line in (ROOT / "constraints" / "test.txt").read_text("utf-8").splitlines()
        if line and not line.startswith("#")
    )
    for extra, requirements in PYPROJECT["project"]["optional-dependencies"].items():
        if extra == "test":
            continue
        for requirement in requirements:
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[a-z,]+\])?>=([^,]+)(?:,<(.+))?", requirement)
            if requirement.startswith("lbpe["):
                continue
            assert m, f"{extra}: {requirement!r} is not a range with a lower bound"
            name, _, low, _ = m.groups()
            assert lowest.get(name, "").startswith(low), f"{name}: lowest.txt has {lowest.get(name)}, range >={low}"
            assert name in pinned, f"{name}: constraints/test.txt does not pin the version the suite runs on"


@pytest.mark.slow(reason="builds the sdist and runs its tests")
def test_sdist_carries_its_tests_and_they_run(dists, tmp_path):
    with tarfile.open(dists["sdist"]) as tf:
        names = tf.getnames()
        (top,) = {n.split("/", 1)[0] for n in names}
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tf.extractall(tmp_path, **safe)
    for needed in ("LICENSE", "CHANGELOG.md", "tests/support/naive.py", "tests/conftest.py", "scripts/fetch_data.py"):
        assert f"{top}/{needed}" in names, needed
    assert f"{top}/constraints/test.txt" in names
    # the extension's sources: the glue, its stub and the core (setup.py compiles what is there)
    sources = {str(p.relative_to(ROOT).as_posix()) for p in (ROOT / "csrc").iterdir()}
    assert sources >= {"csrc/core.h", "csrc/bpe.c", "csrc/lbpe.c"}
    for needed in (*sorted(sources), "lbpe/_native.c", "lbpe/_native.pyi", "setup.py"):
        assert f"{top}/{needed}" in names, needed
    assert not [n for n in names if "node_modules" in n or n.endswith((".so", ".pyc"))]
    tree = tmp_path / top
    env = {**os.environ, "PYTHONPATH": str(tree), "LBPE_PURE_PYTHON": "1"}  # nothing compiled in the archive
    where = subprocess.run(
        [sys.executable, "-c", "import lbpe; print(lbpe.__file__)"], cwd=tree, env=env, capture_output=True, text=True
    )
    assert where.stdout.strip() == str(tree / "lbpe" / "__init__.py"), where.stdout + where.stderr
    tests = [
        "tests/unit/model/test_bpe_and_lbpe.py",
        "tests/parity/test_naive_lbpe.py",
        "tests/robustness/test_malformed_vocabs.py",
    ]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow", *tests],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert re.search(r"\b\d{2,} passed\b", result.stdout), result.stdout[-500:]
