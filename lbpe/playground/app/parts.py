"""What every tab of the app is built with: the look (theme, styles, page script and the head
that hides a link's default text), and the helpers its events are wired with (a step in the
browser only, a failure's reason kept beside its control, a long job's buttons)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import gradio as gr

from lbpe.playground import display
from lbpe.playground.app.handlers import LIMITS, _mb, failure_note
from lbpe.playground.service import MAX_LINK_TEXT
from lbpe.presets import VOCAB_PRESETS, preset_label

_HERE = Path(__file__).parent

# ---- the page ----

THEME = gr.themes.Default(
    primary_hue="orange",
    neutral_hue="slate",
    font=["system-ui", "-apple-system", "'Segoe UI'", "Roboto", "'Helvetica Neue'", "Arial", "sans-serif"],
    font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "'DejaVu Sans Mono'", "monospace"],
)
#: The token panes' stylesheet (shared with the browser page), then the app's own.
APP_CSS = display.CSS + (_HERE / "app.css").read_text("utf-8")
#: The page script: the server's settings, lbpe/playground/display/panes.js (shared with the page), then app.js.
APP_JS = (
    "() => {\nconst LBPE = "
    + json.dumps(
        {
            "presets": list(VOCAB_PRESETS),
            "labels": {name: preset_label(name) for name in VOCAB_PRESETS},
            "maxLinkText": MAX_LINK_TEXT,
        }
    )
    + ";\n"
    + (_HERE.parent / "display" / "panes.js").read_text("utf-8")
    + (_HERE / "app.js").read_text("utf-8")
    + "\n}\n"
)
#: The query keys of a link that change the Compare view: its text, vocabulary and toggles.
LINK_PARAMS = ("t", "v", "ws", "ids", "sp")
#: What shows the default text or is computed from it (hidden while a link's own are on their way).
_FROM_TEXT = (
    "#text textarea",
    "#bpe-pane",
    "#lbpe-pane",
    "#differences",
    "#metrics",
    "#length-plot",
    "#frequency-plot",
    "#explain",
    "#ids-box",
)
#: Run before the page is drawn: a link that changes the Compare view hides the default text and
#: everything computed from it until the link's own are in place (:func:`restore` brings the text
#: and its panes together, then ``restored()`` of app.js ends this), so a link never shows the
#: default text first.
APP_HEAD = (
    "<style>" + ", ".join(f".lbpe-opening {sel}" for sel in _FROM_TEXT) + " { visibility: hidden; }</style>\n"
    "<script>(() => {\n"
    "  const query = new URLSearchParams(location.search);\n"
    f"  if ({json.dumps(list(LINK_PARAMS))}.some((key) => query.has(key))) "
    "document.documentElement.classList.add('lbpe-opening');\n"
    "})();</script>"
)
#: A token pane: a busy note and the host ``pane.js`` draws into.
PANE_TEMPLATE = '<span class="lbpe-busy" role="status" hidden>updating…</span><div class="lbpe-host"></div>'
PANE_JS = (_HERE / "pane.js").read_text("utf-8")


def js(call: str, otherwise: str = "[]") -> str:
    """A Gradio ``js`` event calling ``window.lbpeApp.<call>`` (app.js) with the event's inputs."""
    return f"(...a) => window.lbpeApp ? window.lbpeApp.{call} : {otherwise}"


#: The ids boxes filled without app.js (before it has run): the JSON view stays closed.
IDS_ONLY = '["bpe", "lbpe"].map((m) => ((a[0] && a[0][m] && a[0][m].ids) || []).join(" ")).concat([null])'


def in_browser(event: Any, inputs: Any, outputs: Any, call: str, otherwise: str = "[]") -> None:
    """Handle ``event`` in the browser only (``window.lbpeApp.<call>``); the server never hears of it."""
    event(None, inputs, outputs, js=js(call, otherwise), api_visibility="private", queue=False)


def says_why(event: Any, fn: Any, state: Any, note: Any, *also: Any) -> None:
    """When ``event`` (a call of handler ``fn``) fails, its reason goes into ``note`` (beside
    the control) and stays there after Gradio's notice fades; ``also`` are buttons to enable
    again (Gradio runs no ``.then`` step after a failure, only ``.failure`` steps)."""

    def show(session: Any) -> Any:
        reason = failure_note(fn.__name__, session)
        return (reason, *[gr.update(interactive=True) for _ in also]) if also else reason

    event.failure(show, state, [note, *also], queue=False, api_visibility="private", show_progress="hidden")


def interactive(on: bool, n: int) -> Any:
    """``n`` buttons' updates (one update for one button): enabled or not."""
    updates = [gr.update(interactive=on) for _ in range(n)]
    return updates[0] if n == 1 else updates


def long_job(
    button: Any,
    fn: Any,
    inputs: list,
    outputs: list,
    api_name: str,
    status: Any,
    state: Any,
    *,
    others: tuple = (),
    queue: str | None = None,
) -> None:
    """A button that runs a long view (progress over ``status``), disabled while it runs with
    the ``others`` of its view that write the same outputs: one run per view at a time. On the
    server ``LBPE_APP_JOBS`` run at once per ``queue`` (default ``api_name``), one per session
    (the handler refuses a second). A failure says why in ``status`` and enables the buttons
    again."""
    buttons = [button, *others]
    job = button.click(
        functools.partial(interactive, False, len(buttons)), None, buttons, queue=False, api_visibility="private"
    ).then(
        fn,
        inputs,
        outputs,
        api_name=api_name,
        concurrency_limit=LIMITS.jobs,
        concurrency_id=queue or api_name,
        show_progress_on=status,
    )
    job.then(functools.partial(interactive, True, len(buttons)), None, buttons, queue=False, api_visibility="private")
    says_why(job, fn, state, status, *buttons)


INTRO = """\
# lbpe playground: classic BPE vs long-token-first BPE (LBPE)
LBPE keeps a BPE vocabulary and changes only the encoding: longer tokens are placed first.

Type or upload text, pick a vocabulary (or upload your own), and see both segmentations; the
spans where they differ are underlined in orange. Click a token to see why."""


def limits_md() -> str:
    return (
        f"Limits: Compare {LIMITS.text_chars:,} characters · vocabulary upload {_mb(LIMITS.vocab_bytes)} "
        f"and {LIMITS.vocab_tokens:,} tokens · corpus file {_mb(LIMITS.corpus_bytes)} · "
        f"training corpus {_mb(LIMITS.train_bytes)}, vocabulary size up to {LIMITS.train_vocab:,}."
    )
