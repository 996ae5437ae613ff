"""The cache: where it is, and how files get into it (checksums, safe paths, atomic writes).

Standard library only: tests and scripts import :func:`data_dir` to find the fetched files.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import tempfile

ENV_VAR = "LBPE_DATA_DIR"
DEFAULT_DIR = "~/.cache/lbpe-data"


def data_dir(override: str | os.PathLike[str] | None = None) -> pathlib.Path:
    """Return the resolved cache directory.

    Precedence: *override* (the ``--cache`` argument), then the
    ``LBPE_DATA_DIR`` environment variable, then ``~/.cache/lbpe-data``.
    The directory is not created.
    """
    raw = override if override else (os.environ.get(ENV_VAR) or DEFAULT_DIR)
    return pathlib.Path(raw).expanduser().resolve()


class FetchError(Exception):
    """A download, extraction or verification failed."""


class ToolMissing(FetchError):
    """npm or pip is not available."""


def sha256_file(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    raise AssertionError


def safe_join(root: pathlib.Path, rel: str) -> pathlib.Path:
    """Join *rel* under *root*, refusing anything that would escape it."""
    check_member_name(rel)
    root = root.resolve()
    path = (root / rel).resolve()
    if path != root and root not in path.parents:
        raise FetchError(f"refusing to write outside the cache: {rel!r}")
    return path


def check_member_name(name: str) -> None:
    """Reject absolute paths, drive letters and '..' components."""
    if not name or name.startswith(("/", "\\")) or ":" in name.split("/")[0]:
        raise FetchError(f"unsafe path in archive: {name!r}")
    parts = name.replace("\\", "/").split("/")
    if ".." in parts:
        raise FetchError(f"unsafe path in archive: {name!r}")


def write_atomic(path: pathlib.Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            os.fchmod(fh.fileno(), 0o644)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise
