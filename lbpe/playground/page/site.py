"""``lbpe build-web``: assemble the browser page into a self-contained static folder.

The folder holds everything the page needs, all under one origin and referenced by relative
URLs, so any static host serves it and, after the first visit, the service worker serves it
with the network off::

    index.html  app.js  worker.js  style.css  sw.js   the page (from static/; sw.js gets the
                                                       precache list and a content hash,
                                                       index.html the opening comparison,
                                                       computed here by lbpe.playground.page.first_view
                                                       and shown until Python is ready)
    panes.js                                           links the two panes (lbpe/playground/display/panes.js, which
                                                       the Gradio app loads too)
    site.json                                          wheel name, presets, versions (for app.js)
    pyodide/    pyodide.mjs  pyodide.asm.mjs  pyodide.asm.wasm  python_stdlib.zip
                pyodide-lock.json                      Pyodide's core, from node_modules (npm ci)
    LICENSE                                            lbpe's
    plotly/     plotly.min.js  LICENSE                 plotly.js, from node_modules
    wheels/     lbpe-<version>-py3-none-any.whl        the package's code (no vocabularies)
    vocab/      mistral/tokenizer.model.v1.gz  llama/tokenizer.json.gz
                default/tokenizer.json  openai/*.tiktoken.gz
                                                       the bundled vocabularies, fetched when
                                                       chosen and written where lbpe.presets
                                                       looks for them, with the LICENSE and
                                                       NOTICE of those that have them

The build is reproducible: the wheel is a stored (uncompressed) zip with fixed timestamps and
sorted members, and every other file is copied byte for byte, so the same sources give the
same bytes. The sources (``static/``, the package's modules and vocabularies) come from the
working tree, or with ``sources="index"`` from git's index, i.e. what the next commit holds:
a Space folder for deployment (``scripts/build_spaces.py static``) is built that way, so it
never carries uncommitted edits lying in the work tree. Only the standard library is imported.

>>> wheel_name("0.1.0")
'lbpe-0.1.0-py3-none-any.whl'
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path

from lbpe.errors import LbpeError

__all__ = ["build_site", "build_wheel", "wheel_name", "find_root", "serve", "PYODIDE_FILES", "STATIC_FILES"]

#: Files of the npm package ``pyodide`` the page loads (its core; no packages are loaded).
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
#: Files of ``static/`` copied as they are (``sw.js`` is filled in, see :func:`build_site`).
STATIC_FILES = ("index.html", "app.js", "worker.js", "style.css", "icon.svg")
#: The package's files the page's wheel carries: its modules and the display's stylesheet.
PAGE_SUFFIXES = (".py", ".css")
#: What the page's wheel leaves out (path prefixes): the Gradio app (Pyodide has no Gradio) and
#: this site builder.
NOT_IN_PAGE = ("lbpe/playground/app/", "lbpe/playground/page/site.py")
#: The marker in ``static/sw.js`` replaced by the precache list and the build's hash.
SW_MARKER = "/* BUILD: precache list */"
#: The marker in ``static/index.html`` replaced by the opening comparison
#: (:func:`lbpe.playground.page.first_view`), which the page shows until Python is ready.
FIRST_VIEW_MARKER = "/* BUILD: first view */"

_PACKAGE = Path(__file__).resolve().parents[2]  # lbpe/
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)
#: The static Space's hand-written README (front matter and text), copied into ``--space`` builds.
SPACE_README = "spaces/static/README.md"


def wheel_name(version: str) -> str:
    return f"lbpe-{version}-py3-none-any.whl"


class _Sources:
    """Files of the checkout by relative path: from the working tree or from git's index."""

    def __init__(self, root: Path, kind: str = "tree") -> None:
        if kind not in ("tree", "index"):
            raise LbpeError(f"sources must be 'tree' or 'index', not {kind!r}")
        self.root, self.kind = root, kind
        self._index: dict[str, bytes] | None = None

    def _load_index(self) -> dict[str, bytes]:
        import subprocess

        if self._index is None:
            try:
                listing = subprocess.run(
                    [
                        "git",
                        "-C",
                        str(self.root),
                        "ls-files",
                        "-s",
                        "-z",
                        "--",
                        "static",
                        "lbpe",
                        "pyproject.toml",
                        "LICENSE",
                        SPACE_README,
                    ],
                    capture_output=True,
                    check=True,
                ).stdout
                entries = []
                for item in listing.split(b"\0"):
                    if item:
                        meta, path = item.split(b"\t", 1)
                        entries.append((path.decode(), meta.split()[1].decode()))
                blobs = subprocess.run(
                    ["git", "-C", str(self.root), "cat-file", "--batch"],
                    input="".join(f"{sha}\n" for _, sha in entries).encode(),
                    capture_output=True,
                    check=True,
                ).stdout
            except (OSError, subprocess.CalledProcessError) as exc:
                raise LbpeError(
                    f"cannot read git's index in {self.root} ({exc}); build from the working tree instead"
                ) from None
            self._index = {}
            pos = 0
            for name, _ in entries:
                header_end = blobs.index(b"\n", pos)
                size = int(blobs[pos:header_end].split()[2])
                self._index[name] = blobs[header_end + 1 : header_end + 1 + size]
                pos = header_end + 1 + size + 1
        return self._index

    def has(self, rel: str) -> bool:
        """Whether the file ``rel`` is there."""
        return rel in self._load_index() if self.kind == "index" else (self.root / rel).is_file()

    def read(self, rel: str) -> bytes:
        if self.kind == "index":
            data = self._load_index().get(rel)
            if data is None:
                raise LbpeError(f"{rel} is not in git's index (git add it first)")
            return data
        path = self.root / rel
        if not path.is_file():
            raise LbpeError(f"{path} is missing")
        return path.read_bytes()

    def modules(self) -> list[str]:
        """The package's files the page needs (``lbpe/...py`` and its stylesheets), sorted."""
        if self.kind == "index":
            names = [n for n in self._load_index() if n.startswith("lbpe/") and n.endswith(PAGE_SUFFIXES)]
        else:
            names = [
                p.relative_to(self.root).as_posix()
                for p in (self.root / "lbpe").rglob("*")
                if p.name.endswith(PAGE_SUFFIXES)
            ]
        return sorted(n for n in names if "__pycache__" not in n.split("/") and not n.startswith(NOT_IN_PAGE))


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(out_dir: Path, *, root: Path | None = None, sources: str = "tree") -> Path:
    """Write the pure-Python wheel of the package's code into ``out_dir``; return its path.

    Vocabularies are left out (the page serves them separately, see the module docstring).
    The zip is stored, not deflated, with fixed timestamps and sorted members, so its bytes
    depend only on the sources (``sources``: ``"tree"`` or ``"index"``, see the module docstring).
    """
    from lbpe import __version__ as version

    src = _Sources(find_root(root), sources)
    dist_info = f"lbpe-{version}.dist-info"
    members: list[tuple[str, bytes]] = [(name, src.read(name)) for name in src.modules()]
    project = _project_metadata(src.read("pyproject.toml").decode("utf-8"))
    metadata = (
        "Metadata-Version: 2.4\n"
        f"Name: {project['name']}\n"
        f"Version: {version}\n"
        f"Summary: {project['description']} (the browser page's build: the package's code without its "
        "bundled vocabularies or the lbpe command; pip install lbpe for those)\n"
        f"License-Expression: {project['license']}\n"
        "License-File: LICENSE\n"
        f"Requires-Python: {project['requires-python']}\n"
    )
    wheel = "Wheel-Version: 1.0\nGenerator: lbpe.playground.page.site\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    members.append((f"{dist_info}/METADATA", metadata.encode()))
    members.append((f"{dist_info}/licenses/LICENSE", src.read("LICENSE")))
    members.append((f"{dist_info}/WHEEL", wheel.encode()))
    # No console script: without the vocabularies, an installed `lbpe` command would fail
    members.append((f"{dist_info}/top_level.txt", b"lbpe\n"))
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n" for name, data in members)
    record += f"{dist_info}/RECORD,,\n"
    members.append((f"{dist_info}/RECORD", record.encode()))

    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / wheel_name(version)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as zf:
        for name, data in members:
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.external_attr = 0o644 << 16
            info.create_system = 3  # unix, whatever the building machine is
            zf.writestr(info, data)
    return target


def _project_metadata(pyproject: str) -> dict[str, str]:
    """name, description, SPDX licence expression and requires-python of pyproject.toml's
    ``[project]`` table (read by ``tomllib``; on Python 3.10 its backport ``tomli``)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        try:
            import tomli as tomllib
        except ModuleNotFoundError:
            raise LbpeError("reading pyproject.toml on Python 3.10 needs tomli: python -m pip install tomli") from None
    try:
        project = tomllib.loads(pyproject)["project"]
    except (tomllib.TOMLDecodeError, KeyError) as exc:
        raise LbpeError(f"pyproject.toml has no readable [project] table: {exc}") from None
    out = {}
    for key in ("name", "description", "requires-python", "license"):
        if not isinstance(project.get(key), str):
            raise LbpeError(f"pyproject.toml's [project] has no {key} string (license: an SPDX expression)")
        out[key] = project[key]
    return out


def _is_checkout(folder: Path) -> bool:
    return (folder / "static" / "index.html").is_file() and (folder / "package.json").is_file()


def find_root(start: Path | None = None) -> Path:
    """The lbpe source checkout: the folder holding ``static/`` and ``package.json``.

    Is ``start`` when given (nothing else is looked at then); otherwise looks at the current
    directory and its parents, then at the folder above the installed package (an editable
    install).
    """
    if start is not None:
        root = Path(start).resolve()
        if not _is_checkout(root):
            raise LbpeError(
                f"{start} is not the lbpe source checkout (a folder with static/index.html and package.json): "
                "pass the checkout's folder, or leave --root out to look from the current one"
            )
        return root
    here = Path.cwd().resolve()
    for c in [here, *here.parents, _PACKAGE.parent]:
        if _is_checkout(c):
            return c
    raise LbpeError(
        "cannot find the lbpe source checkout (a folder with static/ and package.json); "
        "run build-web inside it or pass --root"
    )


def _write(dst: Path, data: bytes) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(data)


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)


def _npm_file(node_modules: Path, package: str, name: str) -> Path:
    path = node_modules / package / name
    if not path.is_file():
        raise LbpeError(
            f"{path} is missing: the page's npm packages are not installed; run `npm ci` in {node_modules.parent} "
            "(or bash scripts/install_test_deps.sh)"
        )
    return path


def _npm_version(node_modules: Path, package: str) -> str:
    return json.loads(_npm_file(node_modules, package, "package.json").read_text("utf-8"))["version"]


def build_site(out: Path, *, root: Path | None = None, space: Path | None = None, sources: str = "tree") -> list[str]:
    """Assemble the page into ``out`` (in place of an earlier build's files, any other file
    kept: see :func:`install_build`); return the site's files, sorted.

    ``space``: also write a Hugging Face static Space folder there (the same files plus the
    hand-written ``spaces/static/README.md`` with the Space's front matter). ``sources``:
    ``"tree"`` (the working tree) or ``"index"`` (git's index); see the module docstring.
    """
    from lbpe import __version__ as version

    root = find_root(root)
    src = _Sources(root, sources)
    node_modules = root / "node_modules"
    if not node_modules.is_dir():
        raise LbpeError(f"{node_modules} is missing: run `npm ci` in {root} first (it installs Pyodide and plotly.js)")
    pyodide_version = _npm_version(node_modules, "pyodide")
    plotly_version = _npm_version(node_modules, "plotly.js-dist-min")

    final, space = Path(out), None if space is None else Path(space)
    for folder in (final, space):
        if folder is not None:
            earlier_build(folder, None, legacy=_is_site_build)  # refused before the build, not after it
    with tempfile.TemporaryDirectory(prefix="lbpe-site-") as tmp:
        out = Path(tmp) / "site"
        files = _assemble(out, src, root, sources, (version, pyodide_version, plotly_version))
        install_build(final, {f: out / f for f in files}, legacy=_is_site_build)
        if space is not None:
            with_readme: dict[str, bytes | Path] = {f: out / f for f in files}
            with_readme["README.md"] = src.read(SPACE_README)
            install_build(space, with_readme, legacy=_is_site_build)
    return files


def _assemble(out: Path, src: _Sources, root: Path, sources: str, versions: tuple[str, str, str]) -> list[str]:
    """Write the site into the new folder ``out``; returns its files. ``versions``: lbpe's,
    Pyodide's and plotly.js's."""
    version, pyodide_version, plotly_version = versions
    from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS, preset_label

    node_modules = root / "node_modules"
    out.mkdir(parents=True)

    for name in STATIC_FILES:
        data = src.read(f"static/{name}")
        _write(out / name, _with_first_view(data) if name == "index.html" else data)
    _write(out / "panes.js", src.read("lbpe/playground/display/panes.js"))  # shared with the Gradio app
    for name in PYODIDE_FILES:
        _copy(_npm_file(node_modules, "pyodide", name), out / "pyodide" / name)
    _copy(_npm_file(node_modules, "plotly.js-dist-min", "plotly.min.js"), out / "plotly" / "plotly.min.js")
    _copy(_npm_file(node_modules, "plotly.js-dist-min", "LICENSE"), out / "plotly" / "LICENSE")
    wheel = build_wheel(out / "wheels", root=root, sources=sources)
    presets = []
    for name, (file, description) in VOCAB_PRESETS.items():
        _write(out / "vocab" / file, src.read(f"lbpe/data/{file}"))
        presets.append({"name": name, "label": preset_label(name), "file": file, "description": description})
        folder = file.rpartition("/")[0]
        for terms in ("LICENSE", "NOTICE"):  # a bundled vocabulary's own terms go where it goes
            if src.has(f"lbpe/data/{folder}/{terms}"):
                _write(out / "vocab" / folder / terms, src.read(f"lbpe/data/{folder}/{terms}"))
    _write(out / "LICENSE", src.read("LICENSE"))  # lbpe's, whose code the wheel carries
    site = {
        "lbpe": version,
        "wheel": f"wheels/{wheel.name}",
        "pyodide": pyodide_version,
        "plotly": plotly_version,
        "default_preset": DEFAULT_PRESET,
        "presets": presets,
    }
    _write(out / "site.json", (json.dumps(site, indent=1, ensure_ascii=False) + "\n").encode("utf-8"))

    files = _files(out)
    digest = hashlib.sha256()
    for f in files:
        digest.update(f.encode() + b"\0" + hashlib.sha256((out / f).read_bytes()).digest())
    template = src.read("static/sw.js").decode("utf-8")
    if SW_MARKER not in template:
        raise LbpeError(f"static/sw.js lacks the marker {SW_MARKER!r}")
    precache = ["./", *files]
    filled = template.replace(
        SW_MARKER,
        f"const BUILD = {json.dumps(digest.hexdigest()[:16])};\nconst PRECACHE = {json.dumps(precache, indent=1)};",
    )
    _write(out / "sw.js", filled.encode("utf-8"))
    return _files(out)


def _with_first_view(page: bytes) -> bytes:
    """``static/index.html`` with the opening comparison in place of its marker (JSON inside a
    ``<script type="application/json">``: every ``<`` escaped, so no text can end the element)."""
    from lbpe.playground.page import first_view

    marker = FIRST_VIEW_MARKER.encode()
    if page.count(marker) != 1:
        raise LbpeError(f"static/index.html must hold the marker {FIRST_VIEW_MARKER!r} once")
    return page.replace(marker, first_view().replace("<", "\\u003c").encode("utf-8"))


def _files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


#: The files a build wrote into a folder, listed there: the next build replaces those and
#: leaves every other file (a Space's git checkout keeps its .git, a person's own notes).
BUILD_MANIFEST = ".lbpe-build.json"


def install_build(folder: Path, files: Mapping[str, bytes | Path], *, legacy: Callable[[Path], bool]) -> None:
    """Put ``files`` (a path in ``folder`` -> its bytes, or a file to copy) into ``folder``,
    in place of the files the build before wrote there (:data:`BUILD_MANIFEST`), and list
    them. A folder that is not empty and holds no earlier build is refused, so a mistyped
    output folder never loses a file; ``legacy``: whether a folder holds a build made before
    builds listed their files (its files of the names this build writes are replaced)."""
    earlier = earlier_build(folder, files, legacy=legacy)
    for rel in [*earlier, *files]:  # nothing is removed or written through a link out of the folder
        _no_link_above(folder, rel)
    for rel in set(files) - set(earlier):  # a link the build did not make, where it would write
        if (folder / rel).is_symlink():
            raise LbpeError(f"{folder / rel} is a link the build would write through; remove it (or build elsewhere)")
    try:
        # Python's bytecode of the build's modules (its app run where it was built), which holds
        # this machine's paths: never the build's to keep, nor anyone else's
        for cache in sorted({(folder / rel).parent / "__pycache__" for rel in earlier if rel.endswith(".py")}):
            if cache.is_dir() and not cache.is_symlink():
                shutil.rmtree(cache)
        for rel in earlier:
            path = folder / rel
            if path.is_file() or path.is_symlink():
                path.unlink()
            for parent in path.parents:  # the folders the build made, once empty
                if parent == folder or not parent.is_dir() or any(parent.iterdir()):
                    break
                parent.rmdir()
        for rel, data in sorted(files.items()):
            if isinstance(data, Path):
                _copy(data, folder / rel)
            else:
                _write(folder / rel, data)
        _write(folder / BUILD_MANIFEST, (json.dumps(sorted(files), indent=1) + "\n").encode("utf-8"))
    except OSError as exc:
        raise LbpeError(f"{folder}: the build could not be written ({exc})") from None


def _no_link_above(folder: Path, rel: str) -> None:
    """Refuse a path of a build whose folders inside ``folder`` include a link (which may lead
    out of it, to files the build never wrote)."""
    parts = rel.split("/")[:-1]
    for k in range(1, len(parts) + 1):
        inside = folder.joinpath(*parts[:k])
        if inside.is_symlink():
            raise LbpeError(
                f"{inside} is a link, and the build would write or remove files through it; "
                "remove the link (or build into another folder)"
            )


def earlier_build(folder: Path, files: Mapping[str, object] | None, *, legacy: Callable[[Path], bool]) -> list[str]:
    """The files of the build before in ``folder`` (none for a new or empty folder), or
    :class:`LbpeError` for a folder that holds other things. ``files``: this build's (for a
    build from before the list; ``None`` only checks)."""
    if not folder.exists():
        return []
    if not folder.is_dir():
        raise LbpeError(f"{folder} exists and is not a folder")
    listed = folder / BUILD_MANIFEST
    if listed.is_file():
        try:
            names = json.loads(listed.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise LbpeError(f"{listed}: not readable ({exc}); remove the earlier build by hand") from None
        if not isinstance(names, list) or not all(_inside(n) for n in names):
            raise LbpeError(f"{listed}: not a list of files in the folder; remove the earlier build by hand")
        return names
    own = sorted(p.name for p in folder.iterdir() if p.name not in CLONES_OWN)
    if not own:
        return []
    if legacy(folder):
        tops = {name.split("/")[0] for name in files or ()}
        return [f for f in _files(folder) if f.split("/")[0] in tops]
    if own == ["README.md"] and (folder / ".git").exists():
        raise LbpeError(
            f"{folder} is a git clone (a Space's?) whose README.md the build would replace with the Space's "
            "own: remove it, then build again"
        )
    raise LbpeError(
        f"{folder} is not empty and holds no earlier build (no {BUILD_MANIFEST}); choose a new or empty folder"
    )


#: What a folder may hold that a build neither writes nor removes: a git clone's own (a Space's
#: repository, cloned to build into).
CLONES_OWN = frozenset({".git", ".gitattributes"})


def _inside(name: object) -> bool:
    """Whether ``name`` is a relative path that stays inside its folder."""
    if not isinstance(name, str) or not name or name.startswith("/") or "\\" in name:
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))


def _is_site_build(folder: Path) -> bool:
    """Whether ``folder`` holds a page built before builds listed their files: its site.json
    is this builder's (the wheel, Pyodide and the presets named), not any site.json."""
    try:
        site = json.loads((folder / "site.json").read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(site, dict) and {"lbpe", "wheel", "pyodide", "presets"} <= site.keys()


#: Content types the page needs (module scripts must be JavaScript, WebAssembly streams only
#: as application/wasm); ``.gz`` files are data, never sent with Content-Encoding.
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".gz": "application/gzip",
}


def serve(directory: Path, host: str = "127.0.0.1", port: int = 0, *, quiet: bool = True):
    """An HTTP server for a built site (not started: call ``serve_forever`` in a thread, then
    ``shutdown`` and ``server_close``). Any static file server works as well; this one only
    pins the content types above. ``server_address`` holds the port chosen for ``port=0``."""
    import functools
    import http.server

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **CONTENT_TYPES}

        def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's name
            if not quiet:
                super().log_message(format, *args)

    handler = functools.partial(Handler, directory=str(directory))
    return http.server.ThreadingHTTPServer((host, port), handler)
