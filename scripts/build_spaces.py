"""Build the Hugging Face Space folders when they are deployed.

    python scripts/build_spaces.py {gradio,static} [--out DIR] [--from {index,tree}]

``gradio`` writes a Gradio Space running the playground: ``app.py`` and the ``lbpe`` package
copied in, a ``requirements.txt`` with the ``app`` extra's other dependencies pinned at the
versions the tests run on (``constraints/test.txt``), and the hand-written
``spaces/gradio/README.md`` (its front matter's ``sdk_version`` must equal that gradio version;
the build says so when it does not).
``static`` writes the static Space: the offline browser page (:func:`lbpe.playground.page.site.build_site`) and
the hand-written ``spaces/static/README.md``.

Only the READMEs are kept in git; the folders are written to ``build/spaces/<name>`` (or
``--out``) and uploaded from there, e.g. ``hf upload --repo-type space NAME
build/spaces/gradio .``. Sources are read from git's index by default (what the next commit
holds), so uncommitted edits in the work tree never leak into a deployment; ``--from tree``
reads the work tree.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Where each Space is written unless --out says otherwise.
BUILD = ROOT / "build" / "spaces"

#: Files of the checkout the Gradio Space is made of (``lbpe/`` recursively).
SOURCES = ("app.py", "lbpe", "LICENSE")
#: Never copied: caches and editor leftovers.
_SKIP = re.compile(r"(^|/)(__pycache__|\.[^/]*)(/|$)|\.(pyc|pyo|tmp|orig|rej|so)$|~$")
#: The hand-written README of the Gradio Space (front matter and text).
GRADIO_README = "spaces/gradio/README.md"
#: The versions the test suite runs on; the Space's requirements.txt pins the app's at these.
CONSTRAINTS = "constraints/test.txt"


def _git(*args: str, stdin: bytes | None = None) -> bytes:
    return subprocess.run(["git", "-C", str(ROOT), *args], input=stdin, capture_output=True, check=True).stdout


def read_sources(kind: str = "index") -> dict[str, bytes]:
    """Relative path -> content of the files in :data:`SOURCES` plus ``pyproject.toml``."""
    wanted = (*SOURCES, "pyproject.toml", CONSTRAINTS, GRADIO_README)
    if kind == "tree":
        out = {}
        for name in wanted:
            path = ROOT / name
            files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
            for f in files:
                rel = f.relative_to(ROOT).as_posix()
                if not _SKIP.search(rel):
                    out[rel] = f.read_bytes()
        return out
    if kind != "index":
        raise SystemExit(f"--from must be 'index' or 'tree', not {kind!r}")
    try:
        listing = _git("ls-files", "-s", "-z", "--", *wanted)
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(f"cannot read git's index in {ROOT} ({exc}); use --from tree") from None
    entries = []
    for item in listing.split(b"\0"):
        if item:
            meta, path = item.split(b"\t", 1)
            rel = path.decode()
            if not _SKIP.search(rel):
                entries.append((rel, meta.split()[1].decode()))
    blobs = _git("cat-file", "--batch", stdin="".join(f"{sha}\n" for _, sha in entries).encode())
    out, pos = {}, 0
    for rel, _ in entries:
        header_end = blobs.index(b"\n", pos)
        size = int(blobs[pos:header_end].split()[2])
        out[rel] = blobs[header_end + 1 : header_end + 1 + size]
        pos = header_end + 2 + size
    return out


def _pins(pyproject: str, constraints: str) -> dict[str, str]:
    """Package -> version for each package of pyproject's ``app`` extra, at the version the test
    suite runs on (``constraints/test.txt``): the Space runs what was tested."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    app = tomllib.loads(pyproject).get("project", {}).get("optional-dependencies", {}).get("app")
    if not app:
        raise SystemExit("pyproject.toml has no `app` extra")
    tested = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", constraints, re.M))
    names = [re.match(r"[A-Za-z0-9_.-]+", requirement).group(0) for requirement in app]  # type: ignore[union-attr]
    missing = [name for name in names if name not in tested]
    if missing:
        raise SystemExit(f"{CONSTRAINTS} does not pin {', '.join(missing)} of pyproject's app extra")
    return {name: tested[name] for name in names}


def gradio_space(kind: str = "index") -> dict[str, bytes]:
    """The files of the Gradio Space (relative path -> content)."""
    sources = read_sources(kind)
    pins = _pins(sources.pop("pyproject.toml").decode("utf-8"), sources.pop(CONSTRAINTS).decode("utf-8"))
    readme = sources.pop(GRADIO_README, None)
    if "gradio" not in pins:
        raise SystemExit("pyproject's app extra does not name gradio")
    where = " from git's index (git add it first)" if kind == "index" else ""
    if "app.py" not in sources:
        raise SystemExit("app.py is missing" + where)
    if readme is None:
        raise SystemExit(f"{GRADIO_README} is missing" + where)
    front = readme.decode("utf-8").split("---")[1] if readme.startswith(b"---") else ""
    pinned = re.search(r"^sdk_version: *(\S+)$", front, re.M)
    if pinned is None or pinned.group(1) != pins["gradio"]:
        raise SystemExit(
            f"{GRADIO_README} pins sdk_version {pinned.group(1) if pinned else '(none)'} but pyproject's "
            f"tests run gradio=={pins['gradio']} ({CONSTRAINTS}): make the README's sdk_version {pins['gradio']}"
        )
    files = dict(sources)
    requirements = "".join(f"{name}=={version}\n" for name, version in sorted(pins.items()) if name != "gradio")
    files["requirements.txt"] = (
        "# written by scripts/build_spaces.py: pyproject's app extra at the tested versions;\n"
        "# the Space's sdk_version provides gradio\n" + requirements
    ).encode()
    files["README.md"] = readme
    return files


def write(folder: Path, files: dict[str, bytes]) -> None:
    """Put ``files`` into ``folder`` in place of the files this script wrote there before; a
    Space's git checkout keeps its .git and any file of its own."""
    sys.path.insert(0, str(ROOT))
    from lbpe.errors import LbpeError
    from lbpe.playground.page.site import install_build

    try:
        install_build(folder, files, legacy=_made_here)
    except LbpeError as exc:
        raise SystemExit(str(exc)) from None


def _made_here(folder: Path) -> bool:
    """Whether ``folder`` holds a Space this script wrote before it listed its files."""
    readme = folder / "README.md"
    return readme.is_file() and b"scripts/build_spaces.py" in readme.read_bytes()


def static_space(folder: Path, kind: str = "index") -> list[str]:
    """Write the static Space into ``folder``; returns its files."""
    sys.path.insert(0, str(ROOT))
    from lbpe.errors import LbpeError
    from lbpe.playground.page.site import build_site

    try:
        with tempfile.TemporaryDirectory() as site:
            build_site(Path(site) / "site", root=ROOT, space=folder, sources=kind)
    except LbpeError as exc:
        raise SystemExit(str(exc)) from None
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("space", choices=["gradio", "static"], help="which Space folder to build")
    parser.add_argument("--out", type=Path, default=None, help="folder to write (default: build/spaces/<space>)")
    parser.add_argument(
        "--from",
        dest="kind",
        choices=["index", "tree"],
        default="index",
        help="read sources from git's index (default) or the work tree",
    )
    args = parser.parse_args(argv)
    folder = args.out or BUILD / args.space
    if args.space == "static":
        files = static_space(folder, args.kind)
        size = sum((folder / f).stat().st_size for f in files)
    else:
        built = gradio_space(args.kind)
        write(folder, built)
        files, size = list(built), sum(map(len, built.values()))
    print(f"wrote {folder}: {len(files)} files, {size / 1e6:.1f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
