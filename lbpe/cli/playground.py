"""``lbpe build-web`` and ``lbpe serve``: the playground as a static browser page, or as a Gradio server."""

from __future__ import annotations

import argparse
import shlex
import sys
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
    # what was done goes to standard error, as train's and export's reports do
    print(
        f"wrote {args.out}: {len(files)} files, {size / 1e6:.1f} MB; serve it over http "
        f"(e.g. python -m http.server -d {shlex.quote(str(args.out))})",
        file=sys.stderr,
    )
    if space is not None:
        print(f"wrote the static Space folder {space} (lbpe code and static/ as git's index has it)", file=sys.stderr)


def cmd_serve(args: argparse.Namespace, out: TextIO) -> None:
    """Run the Gradio playground (:mod:`lbpe.playground.app`; needs the ``app`` extra)."""
    import importlib.util

    if importlib.util.find_spec("gradio") is None:
        raise LbpeError('the playground needs Gradio: python -m pip install "lbpe[app]"')
    problem = _listen_problem(args.host, args.port)
    if problem is not None:
        raise LbpeError(f"the playground could not start: {problem}")
    from lbpe.playground import app  # imports gradio; `import lbpe` itself never does

    argv = (["--host", args.host] if args.host else []) + (["--port", str(args.port)] if args.port else [])
    app.main(argv)


def _listen_problem(host: str | None, port: int | None) -> str | None:
    """Why the playground cannot listen at ``host`` and ``port`` (else, from the environment,
    as Gradio reads them), found before Gradio is imported: Gradio failed with a traceback on a
    port out of range or a port variable that is no number (read as it is imported), retried a
    host name that resolves to nothing for minutes, and called an address not of this machine
    a port that is taken. ``None`` when a socket binds there (a port in use is left to the
    launch, which says so)."""
    import errno
    import os
    import socket

    host_from = "--host" if host else "GRADIO_SERVER_NAME"
    host = host or os.environ.get("GRADIO_SERVER_NAME") or "127.0.0.1"
    if port is None:
        raw = os.environ.get("GRADIO_SERVER_PORT", "").strip()
        named = f"GRADIO_SERVER_PORT={raw!r}"
        port = int(raw) if raw.isdigit() else 7860 if not raw else -1
    else:
        named = f"--port {port}"
    if not 1 <= port <= 65535:
        return f"{named} is not a port: choose one from 1 to 65535, such as --port 7860"
    anywhere = "use 127.0.0.1 (this machine only) or 0.0.0.0 (every network it is on)"
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (OSError, UnicodeError) as exc:
        why = getattr(exc, "strerror", None) or str(exc)
        return f"the address {host} ({host_from}) is no host name or address this machine can find ({why}): {anywhere}"
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return None
            if exc.errno == errno.EADDRNOTAVAIL:
                return f"{host} ({host_from}) is not an address of this machine: {anywhere}"
            if exc.errno == errno.EACCES:
                return f"{named} needs administrator rights (ports below 1024): choose 1024 or more, such as 7860"
            return f"it cannot listen on {host} port {port} ({exc.strerror or exc})"
    return None
