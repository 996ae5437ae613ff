"""The lbpe playground in Gradio: classic BPE and long-token-first BPE (LBPE) side by side.

    lbpe serve [--host 127.0.0.1] [--port 7860]      # or, in a checkout or a Space: python app.py

Views: Compare (your text, any vocabulary, both segmentations, metrics, length-shift and
frequency charts, Explain), Corpus (statistics of a larger file, JSON and CSV downloads),
Across vocabularies (one text with every vocabulary) and Train (train a vocabulary, download
its tokenizer.json and compare with it straight away).

The app is Gradio wiring only: :mod:`~lbpe.playground.app.handlers` (each handler turns its
components' values into one call of :mod:`lbpe.playground.service`, which the browser page and the
CLI share, and the result into component updates), :mod:`~lbpe.playground.app.tabs` (one module
per view: its components and events), :mod:`~lbpe.playground.app.layout` (the page around them)
and :mod:`~lbpe.playground.app.parts` (the look: theme, and the page script and styles, real files
beside it: ``app.js``, ``pane.js``, ``app.css``). This module builds ``demo`` and starts the
server. Needs the ``app``
extra (``pip install "lbpe[app]"``); ``import lbpe`` never imports it.

Uploaded files are read as data only and deleted within three minutes of their last arrival
(Corpus and Train keep theirs while the session uses them), and uploaded or trained vocabularies live in the session's
``gr.State``: another visitor never sees them. Bad input gives a readable message in the page
(``gr.Error``), never a traceback, and the app keeps serving. The limits are
:data:`lbpe.limits.PLAYGROUND`'s (``LBPE_APP_*``), read once at start-up. The app starts
offline: no analytics, no share link, system fonts only.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

from starlette.middleware import Middleware  # noqa: E402

from lbpe import user_regex  # noqa: E402
from lbpe.limits import MB  # noqa: E402
from lbpe.playground.app import handlers, streams, upkeep  # noqa: E402
from lbpe.playground.app.handlers import *  # noqa: E402, F403  (the handlers are this module's API too)
from lbpe.playground.app.handlers import LIMITS  # noqa: E402
from lbpe.playground.app.layout import APP_CSS, APP_HEAD, APP_JS, THEME, build  # noqa: E402

__all__ = [
    *handlers.__all__,
    "handlers",
    "streams",
    "upkeep",
    "APP_CSS",
    "APP_HEAD",
    "APP_JS",
    "THEME",
    "build",
    "demo",
    "launch",
    "main",
]

log = logging.getLogger("lbpe.playground.app")

demo = build()


def launch(host: str | None = None, port: int | None = None, **kwargs: Any):
    """Start the server (blocking unless ``prevent_thread_lock=True``); offline, no share link."""
    # api_open=False: every call goes through the queue (its limits, per-session jobs, and the
    # check that a job's client is still there); Gradio's direct /run route would skip it
    demo.queue(default_concurrency_limit=2, api_open=False)
    # the caller's own lifespan runs inside ours, which closes Gradio's deep-link route
    app_kwargs = dict(kwargs.pop("app_kwargs", None) or {})
    app_kwargs["lifespan"] = upkeep.lifespan(demo, ttl=LIMITS.session_ttl, inner=app_kwargs.get("lifespan"))
    # one queue stream per session, sent to every connection that asked for it, ended only once
    # its client has read the close (streams.py); the caller's middleware, if any, wraps it
    app_kwargs["middleware"] = [*(app_kwargs.get("middleware") or ()), Middleware(streams.SessionStreams)]
    return demo.launch(
        server_name=host,
        server_port=port,
        share=False,
        theme=THEME,
        css=APP_CSS,
        js=APP_JS,
        head=APP_HEAD,
        footer_links=["api", "settings"],
        run_history=False,
        mcp_server=False,
        ssr_mode=False,
        pwa=False,
        enable_monitoring=False,
        app_kwargs=app_kwargs,
        max_file_size=max(LIMITS.vocab_bytes, LIMITS.corpus_bytes, LIMITS.train_bytes, LIMITS.text_file_bytes) + MB,
        **kwargs,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The lbpe playground (Gradio).")
    parser.add_argument("--host", default=None, help="address to listen on (default: $GRADIO_SERVER_NAME or 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="port (default: $GRADIO_SERVER_PORT or 7860)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # Gradio's own start-up requests, one line each
    if user_regex.engine() != "regex":
        log.warning(
            "the regex package is not installed: patterns from uploaded vocabulary files run without a time "
            "limit; install the app's dependencies (pip install lbpe[app]) on a shared server"
        )
    try:
        # Gradio's own start-up lines hint at a share flag this command does not have: say it here
        launch(args.host, args.port, quiet=True, prevent_thread_lock=True)
    except OSError as exc:
        if "port" not in str(exc).lower() and getattr(exc, "errno", None) != 98:
            raise
        port = args.port or os.environ.get("GRADIO_SERVER_PORT", "7860")
        print(
            f"the lbpe playground could not start: port {port} is taken (another server is listening there); "
            "stop it, or choose another port: lbpe serve --port 7861",
            file=sys.stderr,
        )
        raise SystemExit(2) from None
    print(f"Running on {demo.local_url} (the lbpe playground; Ctrl+C stops it)", flush=True)
    signal.signal(signal.SIGTERM, _interrupt)  # a service manager's stop: as Ctrl+C, files swept
    try:
        demo.block_thread()  # Ctrl+C (or SIGTERM) closes the server
    finally:
        handlers.remove_served_files(demo)
        log.info("the lbpe playground stopped; its downloads, uploads and Gradio's copies are deleted")


def _interrupt(signum: int, frame: Any) -> None:
    """SIGTERM: stop as Ctrl+C does (the default would end the process without any clean-up)."""
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
