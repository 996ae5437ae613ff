"""The static Space, built as it is deployed (``python scripts/build_spaces.py static``): the
page plus the hand-written README; the site build itself is reproducible and refuses to wipe
folders it did not make."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from lbpe.errors import LbpeError
from lbpe.playground.page.site import build_site
from tests.support.data import ROOT

pytestmark = pytest.mark.slow(reason="builds the static Space (wheel, page, Pyodide files)")


def _digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_the_static_space_is_the_page_plus_its_readme_and_becomes_ready(tmp_path):
    from playwright.sync_api import sync_playwright

    from tests.support.browser import launch
    from tests.support.page import Server, open_page

    space = tmp_path / "static"
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_spaces.py"), "static", "--from", "tree", "--out", str(space)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    readme = (space / "README.md").read_bytes()
    assert readme == (ROOT / "spaces" / "static" / "README.md").read_bytes()
    front = readme.decode("utf-8").split("---")[1]
    assert "\nsdk: static\n" in front and "\napp_file: index.html\n" in front, front
    # what it redistributes carries its licences: lbpe's, and each bundled vocabulary's beside it
    assert (space / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
    for name in ("LICENSE", "NOTICE"):
        assert (space / "vocab/mistral" / name).read_bytes() == (ROOT / "lbpe/data/mistral" / name).read_bytes()
    site = tmp_path / "site"
    build_site(site)
    listed = ".lbpe-build.json"  # the files each build wrote: the space's has its README too
    assert {k: v for k, v in _digests(space).items() if k not in ("README.md", listed)} == {
        k: v for k, v in _digests(site).items() if k != listed
    }
    assert json.loads((space / listed).read_text()) == sorted([*json.loads((site / listed).read_text()), "README.md"])
    server = Server(space)
    try:
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page()
            open_page(page, server.url)  # Python ready, the first comparison drawn
            assert page.locator(".pane[data-mode='lbpe'] .lbpe-tok").count() > 0
            browser.close()
    finally:
        server.stop()


def test_build_is_reproducible_and_wheel_is_complete(tmp_path):
    a = build_site(tmp_path / "a")
    b = build_site(tmp_path / "b")
    assert a == b
    assert _digests(tmp_path / "a") == _digests(tmp_path / "b")
    wheel = next((tmp_path / "a" / "wheels").glob("lbpe-*-py3-none-any.whl"))
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        record = zf.read(next(n for n in names if n.endswith(".dist-info/RECORD"))).decode()
    assert (
        "lbpe/__init__.py" in names
        and "lbpe/playground/page/__init__.py" in names
        and "lbpe/playground/display/render.py" in names
    )
    assert "lbpe/playground/display/display.css" in names  # the stylesheet
    assert "lbpe/playground/app/__init__.py" in {p.relative_to(ROOT).as_posix() for p in (ROOT / "lbpe").rglob("*.py")}
    assert (
        not [n for n in names if n.startswith("lbpe/playground/app/")] and "lbpe/playground/page/site.py" not in names
    )  # no Gradio, no builder
    assert not any(n.startswith("lbpe/data/") and not n.endswith(".py") for n in names)  # vocabularies ship beside
    assert all(line.split(",")[0] in names for line in record.splitlines())
    site = (tmp_path / "a" / "sw.js").read_text("utf-8")
    for f in a:
        if f != "sw.js":
            assert f'"{f}"' in site, f"{f} is not precached by the service worker"


def test_build_refuses_to_empty_a_foreign_folder(tmp_path):
    (tmp_path / "notes.txt").write_text("keep me")
    with pytest.raises(LbpeError, match="holds no earlier build"):
        build_site(tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "keep me"


def test_a_rebuild_replaces_the_earlier_builds_files_and_keeps_the_rest(tmp_path):
    """A Space's git checkout rebuilt in place keeps its .git and the person's own files; a
    folder whose site.json is someone else's is no earlier build."""
    site, space = tmp_path / "site", tmp_path / "space"
    files = build_site(site, space=space)
    for folder in (site, space):
        (folder / ".git").mkdir()
        (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (folder / "NOTES.md").write_text("mine")
    assert build_site(site, space=space) == files
    for folder in (site, space):
        assert (folder / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
        assert (folder / "NOTES.md").read_text() == "mine"
    assert "NOTES.md" not in (site / "sw.js").read_text("utf-8")  # not the page's: not precached
    blog = tmp_path / "blog"
    (blog / "posts").mkdir(parents=True)
    (blog / "site.json").write_text('{"name": "my blog"}')
    (blog / "posts" / "a.md").write_text("a post")
    with pytest.raises(LbpeError, match="holds no earlier build"):
        build_site(blog)
    assert (blog / "posts" / "a.md").read_text() == "a post"


def test_a_rebuild_never_reaches_through_a_link_out_of_the_folder(tmp_path):
    from lbpe.playground.page.site import install_build

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "gpt2.json").write_text("the person's own")
    out = tmp_path / "out"
    install_build(out, {"index.html": b"one", "vocab/gpt2.json": b"{}"}, legacy=lambda folder: False)
    shutil.rmtree(out / "vocab")
    (out / "vocab").symlink_to(mine)  # the build's folder, replaced by a link to the person's own
    with pytest.raises(LbpeError, match="vocab is a link"):
        install_build(out, {"index.html": b"two", "vocab/gpt2.json": b"{}"}, legacy=lambda folder: False)
    assert (mine / "gpt2.json").read_text() == "the person's own"
    assert (out / "index.html").read_bytes() == b"one"  # refused before anything was removed
    (out / "vocab").unlink()
    (out / "new.html").symlink_to(mine / "gpt2.json")  # where the next build writes a file it never wrote
    with pytest.raises(LbpeError, match="new.html is a link the build would write through"):
        install_build(out, {"index.html": b"two", "new.html": b"<p>"}, legacy=lambda folder: False)
    assert (mine / "gpt2.json").read_text() == "the person's own"


def test_build_without_npm_packages_says_to_run_npm_ci(tmp_path):
    root = tmp_path / "checkout"
    (root / "static").mkdir(parents=True)
    (root / "static" / "index.html").write_text("<!doctype html>")
    (root / "package.json").write_text("{}")
    with pytest.raises(LbpeError, match="npm ci"):
        build_site(tmp_path / "out", root=root)


def test_cli_build_web(tmp_path, capsys):
    from lbpe.cli import main

    site = tmp_path / "the site"
    assert main(["build-web", "--out", str(site), "--space", str(tmp_path / "space")]) == 0
    said = capsys.readouterr()
    assert said.out == ""  # what it did goes where train's and export's go: standard error
    # the command it suggests runs as pasted, a folder with a space in its name too
    assert f"python -m http.server -d '{site}'" in said.err, said.err
    assert "wrote the static Space folder" in said.err
    assert (site / "index.html").is_file() and (site / "sw.js").is_file()
    assert (tmp_path / "space" / "README.md").read_text("utf-8").startswith("---\n")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "keep.txt").write_text("x")
    assert main(["build-web", "--out", str(tmp_path / "foreign")]) == 2
    assert "holds no earlier build" in capsys.readouterr().err


def test_the_page_wheel_installs_without_a_broken_command(tmp_path):
    """The page's wheel leaves the vocabularies out, so it declares no ``lbpe`` command; pip
    installs it, ``import lbpe`` works, and asking for a bundled vocabulary says what to do."""
    import subprocess
    import sys

    from lbpe.playground.page.site import build_wheel

    wheel = build_wheel(tmp_path / "wheels")
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q", "--target", str(target), str(wheel)],
        check=True,
        timeout=300,
        capture_output=True,
    )
    assert not (target / "bin").exists()  # no console script
    names = zipfile.ZipFile(wheel).namelist()
    assert not any(n.endswith("entry_points.txt") for n in names)
    assert not any(n.startswith("lbpe/data/default/") or n.endswith(".tiktoken.gz") for n in names)
    text = tmp_path / "t.txt"
    text.write_text("hello", encoding="utf-8")
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}
    run = subprocess.run(
        [sys.executable, "-S", "-m", "lbpe", "encode", "--mode", "lbpe", str(text)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert "is not in this installation" in run.stderr and "--vocab FILE" in run.stderr, run.stderr


def test_the_version_is_written_once():
    # pyproject.toml takes it from lbpe.__version__; the page wheel and the install report it
    import importlib.metadata

    import lbpe
    from lbpe.playground.page.site import wheel_name

    pyproject = (ROOT / "pyproject.toml").read_text("utf-8")
    assert 'dynamic = ["version"]' in pyproject and '\nversion = "' not in pyproject
    assert 'version = { attr = "lbpe.__version__" }' in pyproject
    assert importlib.metadata.version("lbpe") == lbpe.__version__
    assert wheel_name(lbpe.__version__) == f"lbpe-{lbpe.__version__}-py3-none-any.whl"
