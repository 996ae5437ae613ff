"""What every tab of the app is built with: the look (theme, styles, page script and the head
that hides a link's default text), and the helpers its events are wired with (a step in the
browser only, a failure's reason kept beside its control, a long job's buttons)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from lbpe.playground import display
from lbpe.playground.app.handlers import (
    AXIS_CHOICES,
    KEPT_NOTE,
    LIMITS,
    UPLOAD_LIMITS,
    UPLOAD_TYPES,
    _mb,
    axis_controls,
    failure_note,
    refused_note,
)
from lbpe.playground.service import DEFAULT_DROPOUT, MAX_LINK_TEXT
from lbpe.presets import VOCAB_PRESETS, preset_label
from lbpe.tokenizer import METHODS

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
            "methods": list(METHODS),
            # each upload zone's limit in bytes, and whether its files count together
            "uploads": {
                zone: {
                    "limit": getattr(LIMITS, key),
                    "together": together is not None,
                    "types": UPLOAD_TYPES[zone][0],
                }
                for zone, (key, together) in UPLOAD_LIMITS.items()
            },
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


def says_why(event: Any, fn: Any, state: Any, note: Any, *also: Any, kept: Any = None) -> None:
    """When ``event`` (a call of handler ``fn``) fails, its reason goes into ``note`` (beside
    the control) and stays there after Gradio's notice fades; ``also`` are buttons to enable
    again (Gradio runs no ``.then`` step after a failure, only ``.failure`` steps). ``kept``: an
    output that holds a value only while an earlier run's results are shown (a download); the
    reason then says whose results they are."""

    # an input Gradio refused before the event's function ran is kept under that function's
    # name (input_error), which may call ``fn`` (the page's Compare calls compare)
    names = dict.fromkeys([fn.__name__, getattr(getattr(event, "fn", None), "__name__", fn.__name__)])

    def show(session: Any, *held: Any) -> Any:
        reason = "".join(failure_note(name, session) for name in names)
        if reason and held and held[0]:
            reason += KEPT_NOTE
        return (reason, *[gr.update(interactive=True) for _ in also]) if also else reason

    inputs = [state] if kept is None else [state, kept]
    event.failure(show, inputs, [note, *also], queue=False, api_visibility="private", show_progress="hidden")


def refusing(zone: str, note: Any) -> None:
    """Files over the server's limit chosen in (or dropped on) the upload ``zone`` (its elem_id,
    a key of :data:`~lbpe.playground.app.handlers.common.UPLOAD_LIMITS`) are refused by the page
    before they are sent (app.js), and ``note`` says why in the server's words. Gradio's own
    refusal, past the server's largest upload, is a notice that fades, counted in MiB, and left
    the reason of the file before in ``note``."""
    asked = gr.Textbox("", elem_id=f"{zone}-refused", elem_classes="lbpe-hidden", container=False)
    asked.change(
        functools.partial(refused_note, zone),
        asked,
        note,
        queue=False,
        api_visibility="private",
        show_progress="hidden",
    )


def announcing(upload: Any, status: Any, then: str | Mapping[str, str], *, axis: Any = None) -> None:
    """A file the visitor puts in ``upload`` replaces whatever ``status`` said of the file before
    (a refusal, an error) with that it is ready and ``then`` (what to press; with ``axis``, the
    view's axis picker, ``then`` maps each of its values to the button that axis shows).

    Said by the page itself, at once: an answer from the server could come after a run pressed
    the moment the file arrived, and replace that run's result with the note. The server says
    the same words, :func:`~lbpe.playground.app.handlers.common.ready_note`, of files left after
    one is removed."""
    press = json.dumps(then if isinstance(then, Mapping) else {"vocabularies": then})
    inputs = [upload, status] if axis is None else [upload, status, axis]
    ready = (
        "(files, said, shown) => {"
        f" const press = {press}[shown || 'vocabularies'];"
        " const names = (Array.isArray(files) ? files : [files]).filter((f) => f)"
        "   .map((f) => f.orig_name || String(f.path || f).split(/[\\\\/]/).pop()).filter((n) => n);"
        " if (!names.length) return said;"
        " return `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} ready: ${press}.`; }"
    )
    upload.upload(None, inputs, status, js=ready, queue=False, api_visibility="private", show_progress="hidden")


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
    kept: Any = None,
    ran: tuple[Any, str] | None = None,
) -> None:
    """A button that runs a long view (progress over ``status``), disabled while it runs with
    the ``others`` of its view that write the same outputs: one run per view at a time. On the
    server ``LBPE_APP_JOBS`` run at once per ``queue`` (default ``api_name``), one per session
    (the handler refuses a second). A failure says why in ``status`` (and, while ``kept`` holds a
    value, that the results shown are an earlier run's: :func:`says_why`) and enables the
    buttons again. ``ran`` (a hidden box, a value): a run that ends well puts the value there
    (the axis it ran on, :meth:`Axis.wire`)."""
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
    if ran is not None:
        box, value = ran
        job.success(None, None, box, js=f"() => {json.dumps(value)}", queue=False, api_visibility="private")
    says_why(job, fn, state, status, *buttons, kept=kept)


@dataclass(frozen=True)
class Axis:
    """The axis of the Across or Corpus view (:func:`axis_picker`): its choice, the methods
    ticked, BPE-dropout's rate and seed, and the row that holds them."""

    choice: Any  # gr.Radio: "vocabularies" or "methods"
    methods: Any  # gr.CheckboxGroup of lbpe.METHODS
    dropout: Any  # gr.Number
    seed: Any  # gr.Number
    options: Any  # the row of the three above (shown on the methods axis)

    @property
    def inputs(self) -> list:
        """What a link carries: the choice, the methods, the rate and the seed."""
        return [self.choice, self.methods, self.dropout, self.seed]

    def wire(self, vocabularies: list, methods: list, *, shared: Sequence[Any] = (), ran: Any = None) -> None:
        """Show ``vocabularies`` (components) on the vocabularies axis, ``methods`` and the
        options on the methods axis (:func:`lbpe.playground.app.handlers.axis_controls`).
        ``shared``: what either axis's runs fill (the chart, the files), shown on the axis whose
        run made them (``ran``, the hidden box :func:`long_job` sets), so on the other axis they
        never pass for its results; before any run, on both."""
        shown = [*vocabularies, self.options, *methods]

        def show(axis: str) -> list:
            on_vocabularies, on_methods = axis_controls(axis)
            return [on_vocabularies] * len(vocabularies) + [on_methods] * (1 + len(methods))

        # progress (hidden) on the radio: on the columns it would copy their contents at every event
        self.choice.change(
            show,
            self.choice,
            shown,
            queue=False,
            api_visibility="private",
            show_progress="hidden",
            show_progress_on=self.choice,
        )
        if ran is None or not shared:
            return
        # in the page: the axis and the last run's axis are both there, nothing to ask the server
        visible = (
            "(axis, made) => { const on = !made || made === axis; "
            f"return Array({len(shared)}).fill({{ visible: on, __type__: 'update' }}); }}"
        )
        for event in (self.choice.change, ran.change):
            event(None, [self.choice, ran], list(shared), js=visible, queue=False, api_visibility="private")


def axis_picker(view: str) -> Axis:
    """The axis of the ``view`` tab (``across`` or ``corpus``): vocabularies (the default) or
    methods (the vocabulary chosen above with every method ticked, BPE-dropout's rate and seed)."""
    choice = gr.Radio(
        AXIS_CHOICES,
        value="vocabularies",
        label="Compare",
        info="vocabularies, or the inference methods of the vocabulary chosen above",
        elem_id=f"{view}-axis",
    )
    with gr.Row(visible=False, equal_height=False, elem_id=f"{view}-methods-options") as options:
        methods = gr.CheckboxGroup(
            [(display.METHOD_NAMES[m], m) for m in METHODS],
            value=list(METHODS),
            label="Methods",
            scale=3,
            elem_id=f"{view}-methods",
        )
        dropout = gr.Number(
            DEFAULT_DROPOUT,
            minimum=0,
            maximum=1,
            step=0.05,
            label="Dropout rate (BPE-dropout)",
            scale=1,
            min_width=140,
            elem_id=f"{view}-dropout-rate",
        )
        # no precision: Gradio would round 3.7 to 4 unseen; the handlers refuse it with the rule
        seed = gr.Number(0, label="Seed (empty: fresh)", scale=1, min_width=140, elem_id=f"{view}-dropout-seed")
    return Axis(choice=choice, methods=methods, dropout=dropout, seed=seed, options=options)


INTRO = """\
# lbpe playground: classic BPE vs long-token-first BPE (LBPE)
LBPE keeps a BPE vocabulary and changes only the encoding: longer tokens are placed first.

Type or upload text, pick a vocabulary (or upload your own), and see both segmentations; the
spans where they differ are underlined in orange. Click a token to see why."""


def limits_md() -> str:
    return (
        f"Limits: Compare {LIMITS.text_chars:,} characters (a .txt file {_mb(LIMITS.text_file_bytes)}) · "
        f"vocabulary upload {_mb(LIMITS.vocab_bytes)} "
        f"and {LIMITS.vocab_tokens:,} tokens · corpus file {_mb(LIMITS.corpus_bytes)} · "
        f"training corpus {_mb(LIMITS.train_bytes)}, vocabulary size up to {LIMITS.train_vocab:,}."
    )
