"""``lbpe build-web`` and ``lbpe serve``: the playground as a static browser page, or as a Gradio server."""

from __future__ import annotations

import argparse
from typing import TextIO

from lbpe.errors import LbpeError

__all__ = ["cmd_build_web", "cmd_serve"]


def cmd_build_web(args: argparse.Namespace, out: TextIO) -> None:
    from pathlib import Path

    from lbpe.playground.page.site import build_site, find_root

    root = find_root(Path(args.root) if args.root else None)
    space = None if args.space is None else Path(args.space) if args.space else root / "build" / "spaces" / "static"
    # A Space folder is deployed: build it from git's index, never from uncommitted edits.
    files = build_site(Path(args.out), root=root, space=space, sources="tree" if space is None else "index")
    size = sum((Path(args.out) / f).stat().st_size for f in files)
    out.write(
        f"wrote {args.out}: {len(files)} files, {size / 1e6:.1f} MB; serve it over http "
        f"(e.g. python -m http.server -d {args.out})\n"
    )
    if space is not None:
        out.write(f"wrote the static Space folder {space} (lbpe code and static/ as staged in git's index)\n")


def cmd_serve(args: argparse.Namespace, out: TextIO) -> None:
    """Run the Gradio playground (:mod:`lbpe.playground.app`; needs the ``app`` extra)."""
    import importlib.util

    if importlib.util.find_spec("gradio") is None:
        raise LbpeError('the playground needs Gradio: python -m pip install "lbpe[app]"')
    from lbpe.playground import app  # imports gradio; `import lbpe` itself never does

    argv = (["--host", args.host] if args.host else []) + (["--port", str(args.port)] if args.port else [])
    app.main(argv)
