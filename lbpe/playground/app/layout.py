"""The playground's page: the Blocks layout (:func:`build`), its events, and its look (theme,
styles and page script, the last two real files beside this module: ``app.css``, ``app.js``,
``pane.js``). Events that only change the page run in the browser (``window.lbpeApp`` of
``app.js``); the rest call :mod:`lbpe.playground.app.handlers`.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import gradio as gr

from lbpe.analysis.across import ACROSS_HEADERS, ACROSS_TYPES
from lbpe.analysis.explain import MAX_EXPLAIN_CHARS
from lbpe.playground import display
from lbpe.playground.app.handlers import (
    DEFAULT_TEXT,
    LIMITS,
    PATTERN_CHOICES,
    PLAY,
    STATS_HEADERS,
    _link_note,
    _mb,
    across,
    compare,
    corpus,
    corpus_sample,
    decode_ids,
    describe_vocab,
    explain,
    explain_click,
    explain_frame,
    explain_move,
    failure_note,
    get_tokenizer,
    ids_text,
    input_error,
    load_text,
    new_session,
    play_tick,
    play_toggle,
    restore,
    stop,
    train,
    upload_note,
    upload_vocab,
    use_trained,
    vocab_choices,
)
from lbpe.playground.app.upkeep import SessionBlocks
from lbpe.playground.examples import DEFAULT_EXAMPLE, EXAMPLES
from lbpe.playground.service import (
    MAX_LINK_TEXT,
    describe,
    explain_view,
)
from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS, load_preset, preset_label

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


def _js(call: str, otherwise: str = "[]") -> str:
    """A Gradio ``js`` event calling ``window.lbpeApp.<call>`` (app.js) with the event's inputs."""
    return f"(...a) => window.lbpeApp ? window.lbpeApp.{call} : {otherwise}"


#: The ids boxes filled without app.js (before it has run): the JSON view stays closed.
_IDS_ONLY = '["bpe", "lbpe"].map((m) => ((a[0] && a[0][m] && a[0][m].ids) || []).join(" ")).concat([null])'


def _in_browser(event: Any, inputs: Any, outputs: Any, call: str, otherwise: str = "[]") -> None:
    """Handle ``event`` in the browser only (``window.lbpeApp.<call>``); the server never hears of it."""
    event(None, inputs, outputs, js=_js(call, otherwise), api_visibility="private", queue=False)


def _says_why(event: Any, fn: Any, state: Any, note: Any, *also: Any) -> None:
    """When ``event`` (a call of handler ``fn``) fails, its reason goes into ``note`` (beside
    the control) and stays there after Gradio's notice fades; ``also`` are buttons to enable
    again (Gradio runs no ``.then`` step after a failure, only ``.failure`` steps)."""

    def show(session: Any) -> Any:
        reason = failure_note(fn.__name__, session)
        return (reason, *[gr.update(interactive=True) for _ in also]) if also else reason

    event.failure(show, state, [note, *also], queue=False, api_visibility="private", show_progress="hidden")


def _interactive(on: bool, n: int) -> Any:
    """``n`` buttons' updates (one update for one button): enabled or not."""
    updates = [gr.update(interactive=on) for _ in range(n)]
    return updates[0] if n == 1 else updates


def _long_job(
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
        functools.partial(_interactive, False, len(buttons)), None, buttons, queue=False, api_visibility="private"
    ).then(
        fn,
        inputs,
        outputs,
        api_name=api_name,
        concurrency_limit=LIMITS.jobs,
        concurrency_id=queue or api_name,
        show_progress_on=status,
    )
    job.then(functools.partial(_interactive, True, len(buttons)), None, buttons, queue=False, api_visibility="private")
    _says_why(job, fn, state, status, *buttons)


INTRO = """\
# lbpe playground: classic BPE vs long-token-first BPE (LBPE)
LBPE keeps a BPE vocabulary and changes only the encoding: longer tokens are placed first.

Type or upload text, pick a vocabulary (or upload your own), and see both segmentations; the
spans where they differ are underlined in orange. Click a token to see why."""


def _limits_md() -> str:
    return (
        f"Limits: Compare {LIMITS.text_chars:,} characters · vocabulary upload {_mb(LIMITS.vocab_bytes)} "
        f"and {LIMITS.vocab_tokens:,} tokens · corpus file {_mb(LIMITS.corpus_bytes)} · "
        f"training corpus {_mb(LIMITS.train_bytes)}, vocabulary size up to {LIMITS.train_vocab:,}."
    )


def build() -> gr.Blocks:
    """The Blocks app (module-level ``demo`` is ``build()``)."""
    initial = compare(DEFAULT_TEXT, DEFAULT_EXAMPLE.vocabulary, True, False, None)
    opening_at = DEFAULT_TEXT.index(DEFAULT_EXAMPLE.explain)
    first = explain_view(
        get_tokenizer(DEFAULT_EXAMPLE.vocabulary), DEFAULT_EXAMPLE.explain, text=DEFAULT_TEXT, at=opening_at
    )
    with SessionBlocks(
        input_error=input_error,
        title="lbpe playground: BPE vs LBPE",
        analytics_enabled=False,
        delete_cache=(max(1, min(600, LIMITS.file_ttl // 2)), LIMITS.file_ttl),
    ) as demo:
        state = gr.State(new_session(), time_to_live=24 * 3600)
        gr.Markdown(INTRO, elem_classes="lbpe-intro")
        with gr.Row(equal_height=False, elem_classes="lbpe-vocab-row"):
            vocab = gr.Dropdown(
                vocab_choices(),
                value=DEFAULT_EXAMPLE.vocabulary,
                label="Vocabulary",
                allow_custom_value=True,
                scale=4,
                elem_id="vocab",
            )
            copy_link = gr.Button(
                "Copy link", scale=0, min_width=100, size="sm", elem_id="copy-link", elem_classes="lbpe-copy-link"
            )
        vocab_status = gr.Markdown(
            describe(load_preset(DEFAULT_PRESET)), label="About the vocabulary", elem_id="vocab-status"
        )
        with gr.Accordion(
            "Upload your own vocabulary (tokenizer.json, .tiktoken, GPT-2, .model)",
            open=False,
            elem_id="vocab-upload-box",
        ):
            # what the box takes, said above it: a label this long would cover the drop zone
            gr.Markdown(
                "A tokenizer.json, a .tiktoken rank file, a SentencePiece .model, GPT-2's encoder.json and "
                "vocab.bpe together, or any of them .gz.",
                elem_classes="lbpe-upload-hint",
            )
            with gr.Row(equal_height=False):
                vocab_files = gr.File(
                    label="Vocabulary file",
                    file_count="multiple",
                    file_types=[".json", ".tiktoken", ".bpe", ".model", ".gz", ".txt"],
                    scale=3,
                    height=150,
                    elem_id="vocab-upload",
                )
                pattern = gr.Dropdown(
                    PATTERN_CHOICES,
                    value="auto",
                    label="Pre-tokenizer for .tiktoken / GPT-2 files",
                    scale=1,
                    info="auto: from the file name",
                    elem_id="pattern",
                )
            vocab_note = gr.Markdown("", elem_id="vocab-upload-note")
        link_note = gr.HTML(_link_note(""), elem_id="link-note", padding=False)
        with gr.Tabs(selected="compare") as tabs:
            with gr.Tab("Compare", id="compare") as compare_tab:
                # made here so the examples below can fill it; shown in the Explain box
                explain_box = gr.Textbox(
                    DEFAULT_EXAMPLE.explain,
                    label="Word or span",
                    scale=3,
                    render=False,
                    max_length=MAX_EXPLAIN_CHARS,
                    elem_id="explain-text",
                )
                # where the span in the Explain box starts in the text (a click, an example, a link;
                # the page's load sets the opening span's); a word typed there is not at that place,
                # and is explained on its own, as over the API when no place is given
                explain_where = gr.Textbox(
                    "",
                    label="explained span starts at",
                    render=False,
                    elem_id="explain-where",
                    elem_classes="lbpe-hidden",
                    container=False,
                )
                with gr.Row(equal_height=False, elem_classes="lbpe-text-row"):
                    text = gr.Textbox(
                        DEFAULT_TEXT,
                        lines=7,
                        max_lines=20,
                        label="Text",
                        scale=3,
                        elem_id="text",
                        info=f"Compare shows up to {LIMITS.text_chars:,} characters "
                        "(the Corpus view reads whole files)",
                    )
                    with gr.Column(scale=1, min_width=220, elem_classes="lbpe-text-side"):
                        show_ws = gr.Checkbox(True, label="Show whitespace (· → ↵)", elem_id="show-ws")
                        show_ids = gr.Checkbox(False, label="Show token ids", elem_id="show-ids")
                        show_special = gr.Checkbox(
                            False, label="Special tokens (<|endoftext|>) as specials", elem_id="show-special"
                        )
                        text_file = gr.File(
                            label="…or upload a .txt file",
                            file_types=[".txt", "text"],
                            height=150,
                            elem_id="text-upload",
                        )
                # why the last comparison or .txt upload failed, until the next one succeeds
                compare_note = gr.HTML("", elem_id="compare-note", padding=False)
                with gr.Row(equal_height=False, elem_classes="lbpe-panes"):
                    with gr.Column(min_width=320):
                        bpe_html = gr.HTML(
                            initial[0],
                            label="BPE segmentation",
                            elem_id="bpe-pane",
                            html_template=PANE_TEMPLATE,
                            js_on_load=PANE_JS,
                        )
                    with gr.Column(min_width=320):
                        lbpe_html = gr.HTML(
                            initial[1],
                            label="LBPE segmentation",
                            elem_id="lbpe-pane",
                            html_template=PANE_TEMPLATE,
                            js_on_load=PANE_JS,
                        )
                differences = gr.HTML(initial[6], label="Differences", elem_id="differences")
                with gr.Accordion("Token ids: copy them, or decode ids you paste", open=False, elem_id="ids-box"):
                    with gr.Row(equal_height=False):
                        bpe_ids = gr.Textbox(
                            ids_text(initial[5])[0],
                            label="BPE ids",
                            lines=3,
                            max_lines=8,
                            buttons=["copy"],
                            elem_id="bpe-ids",
                        )
                        lbpe_ids = gr.Textbox(
                            ids_text(initial[5])[1],
                            label="LBPE ids",
                            lines=3,
                            max_lines=8,
                            buttons=["copy"],
                            elem_id="lbpe-ids",
                        )
                    with gr.Row(equal_height=True):
                        pasted_ids = gr.Textbox(
                            "", label="Ids to decode (spaces, commas or a [list])", scale=4, elem_id="decode-input"
                        )
                        decode_btn = gr.Button("Decode", scale=0, min_width=100, elem_id="decode-run")
                    decoded = gr.HTML("", elem_id="decoded")
                gr.Examples(
                    [[e.text, e.vocabulary, e.explain, str(e.text.index(e.explain))] for e in EXAMPLES],
                    [text, vocab, explain_box, explain_where],
                    label="Examples (each with a vocabulary where BPE and LBPE split it differently)",
                    example_labels=[e.label for e in EXAMPLES],
                    elem_id="examples",
                )
                with gr.Group(elem_id="explain-box"):
                    gr.Markdown(
                        "### Explain: why do they differ?\nClick a token in either pane (or type a word) to see both "
                        "encodings worked step by step: BPE's merges in priority order next to LBPE's windows, "
                        "longest first.",
                        elem_classes="lbpe-explain-intro",
                    )
                    with gr.Row(equal_height=True, elem_classes="lbpe-explain-row"):
                        explain_box.render()
                        explain_prev = gr.Button("◀ Step", scale=0, min_width=80, elem_id="explain-prev")
                        explain_next = gr.Button("Step ▶", scale=0, min_width=80, elem_id="explain-next")
                        explain_play = gr.Button(PLAY, scale=0, min_width=80, elem_id="explain-play")
                    explain_step = gr.Slider(
                        0,
                        max(first["frames"] - 1, 1),
                        step=1,
                        value=first["frame"],
                        label="Step",
                        elem_id="explain-step",
                    )
                    explain_pane = gr.HTML(first["html"], label="Steps", elem_id="explain")
                    with gr.Accordion("Steps as JSON", open=False):
                        explain_json = gr.JSON(first["steps"], label="Steps", elem_id="explain-json")
                    explain_at = gr.Textbox(
                        "", label="clicked token", elem_id="explain-at", elem_classes="lbpe-hidden", container=False
                    )
                    explain_where.render()
                    explain_timer = gr.Timer(0.9, active=False)
                metrics = gr.HTML(initial[2], label="Metrics", elem_id="metrics")
                with gr.Row(equal_height=False):
                    plot = gr.Plot(initial[3], label="Token-length shift", elem_id="length-plot", min_width=320)
                    frequency_plot = gr.Plot(
                        initial[4], label="Frequency by token length", elem_id="frequency-plot", min_width=320
                    )
                # the details travel as a hidden value (the API's 6th output); the view below shows them
                details = gr.JSON(initial[5], label="Details", elem_id="details", visible=False)
                with gr.Accordion(
                    "Details (JSON: ids, differing ranges, length counts, every metric)",
                    open=False,
                    elem_id="details-box",
                ) as details_box:
                    details_view = gr.JSON(None, label="Details", elem_id="details-view")
            with gr.Tab("Corpus", id="corpus") as corpus_tab:
                gr.Markdown(
                    f"Statistics of a whole file (UTF-8 text, at most **{_mb(LIMITS.corpus_bytes)}**) with the "
                    "vocabulary chosen above: token counts, bytes and characters per token, token lengths in "
                    "the paper's buckets, how often a token of each length occurs (the paper's claim: LBPE makes "
                    "long tokens more frequent and short ones rarer), Rényi efficiency and the agreement of the "
                    "two segmentations; each row says what it means, which way the paper predicts it moves and, "
                    "for compression and the length buckets, the paper's own figures (Tables 6 and 2). Download "
                    "them as JSON or CSV. No file at hand? **Use the sample corpus**: 1.5 MB of prose "
                    "(Moby-Dick), speeches (State of the Union), TypeScript and Python code and 26 languages."
                )
                with gr.Row(equal_height=False):
                    corpus_file = gr.File(
                        label="Text file", file_types=[".txt", "text"], height=140, scale=3, elem_id="corpus-upload"
                    )
                    with gr.Column(scale=1, min_width=180):
                        corpus_btn = gr.Button("Compute statistics", variant="primary", elem_id="corpus-run")
                        sample_btn = gr.Button("Use the sample corpus", elem_id="corpus-sample")
                        corpus_stop = gr.Button("Stop", variant="stop", elem_id="corpus-stop")
                corpus_status = gr.Markdown(
                    "Choose a text file, then press Compute statistics.", label="Corpus status", elem_id="corpus-status"
                )
                corpus_table = gr.Dataframe(
                    label="Statistics",
                    headers=STATS_HEADERS,
                    datatype="str",
                    interactive=False,
                    wrap=True,
                    max_height=800,
                    # shares of the width: the long "meaning" column wraps instead of running off-screen
                    column_widths=["16%", "10%", "10%", "10%", "18%", "36%"],
                    elem_id="corpus-table",
                )
                with gr.Row(equal_height=False):
                    corpus_plot = gr.Plot(label="Token-length shift", elem_id="corpus-plot", min_width=320)
                    corpus_frequency = gr.Plot(
                        label="Frequency by token length", elem_id="corpus-frequency-plot", min_width=320
                    )
                with gr.Row():
                    corpus_json = gr.File(label="statistics.json", interactive=False, elem_id="corpus-json")
                    corpus_csv = gr.File(label="statistics.csv", interactive=False, elem_id="corpus-csv")
            with gr.Tab("Across vocabularies", id="across") as across_tab:
                gr.Markdown(
                    "The Compare text (or a text file, at most "
                    f"**{_mb(LIMITS.corpus_bytes)}**) encoded with every bundled vocabulary and every one you "
                    "uploaded or trained here: which tokenizers would LBPE change most? Tokens, bytes per token, "
                    "the share of long tokens, the paper's frequency imbalance, Rényi efficiency and how many "
                    "words both modes cut alike, per vocabulary."
                )
                with gr.Row(equal_height=False):
                    across_file = gr.File(
                        label="…or a text file instead of the Compare text",
                        file_types=[".txt", "text"],
                        height=140,
                        scale=3,
                        elem_id="across-upload",
                    )
                    with gr.Column(scale=1, min_width=180):
                        across_btn = gr.Button("Compare across vocabularies", variant="primary", elem_id="across-run")
                        across_stop = gr.Button("Stop", variant="stop", elem_id="across-stop")
                across_status = gr.Markdown("", label="Across status", elem_id="across-status")
                across_table = gr.Dataframe(
                    label="Per vocabulary (click a header to sort)",
                    headers=ACROSS_HEADERS,
                    datatype=ACROSS_TYPES,
                    interactive=False,
                    wrap=True,
                    elem_id="across-table",
                )
                across_plot = gr.Plot(label="LBPE vs BPE per vocabulary", elem_id="across-plot")
                with gr.Row():
                    across_json = gr.File(label="across.json", interactive=False, elem_id="across-json")
                    across_csv = gr.File(label="across.csv", interactive=False, elem_id="across-csv")
            with gr.Tab("Train", id="train") as train_tab:
                gr.Markdown(
                    f"Train a BPE vocabulary on your UTF-8 text (at most **{_mb(LIMITS.train_bytes)}** in all, "
                    f"vocabulary size up to **{LIMITS.train_vocab:,}**). GPT-2 style: words split by the paper's "
                    "regex pre-tokenizer; `char` units are characters plus 256 byte-fallback tokens, `byte` units "
                    "256 byte tokens. LLaMA style: SentencePiece's way, as the paper's LLaMA vocabularies (lines "
                    "with a ▁ prefix, digits alone, characters with byte fallback). Scaffold-BPE removes "
                    "low-frequency scaffold tokens (Lian et al. 2024)."
                )
                with gr.Row(equal_height=False):
                    train_files = gr.File(
                        label="Training text files",
                        file_count="multiple",
                        file_types=[".txt", "text"],
                        height=140,
                        scale=2,
                        elem_id="train-upload",
                    )
                    with gr.Column(scale=1, min_width=220):
                        # no minimum or maximum here: Gradio would refuse such a number with a
                        # traceback on the server; train() says what is wrong beside the button
                        train_size = gr.Number(
                            8000,
                            label="Vocabulary size",
                            precision=0,
                            info=f"1 to {LIMITS.train_vocab:,}",
                            elem_id="train-size",
                        )
                        train_style = gr.Radio(
                            [("GPT-2 style (the paper's regex)", "gpt2"), ("LLaMA style (SentencePiece's)", "llama")],
                            value="gpt2",
                            label="Style",
                            elem_id="train-style",
                        )
                        train_unit = gr.Radio(["char", "byte"], value="char", label="Unit", elem_id="train-unit")
                        train_scaffold = gr.Checkbox(False, label="Scaffold-BPE", elem_id="train-scaffold")
                with gr.Row():
                    train_btn = gr.Button("Train", variant="primary", elem_id="train-run")
                    train_stop = gr.Button("Stop", variant="stop", elem_id="train-stop")
                train_status = gr.Markdown(
                    "Choose text files, then press Train.", label="Training status", elem_id="train-status"
                )
                with gr.Row(equal_height=False):
                    train_out = gr.File(label="tokenizer.json", interactive=False, elem_id="train-download")
                    use_btn = gr.Button("Use it in Compare", elem_id="train-use")
        gr.Markdown(_limits_md(), elem_id="limits")

        compared = gr.on(
            [text.change, vocab.change, show_ws.change, show_ids.change, show_special.change],
            compare,
            [text, vocab, show_ws, show_ids, state, show_special],
            [bpe_html, lbpe_html, metrics, plot, frequency_plot, details, differences],
            api_name="compare",
            trigger_mode="always_last",
            show_progress="hidden",
            show_progress_on=compare_note,
            concurrency_limit=4,
            js=_js("busy(a)", "a"),
        )
        compared.then(None, None, None, js=_js("done()"), api_visibility="private", queue=False)
        compared.failure(None, None, None, js=_js("done()"), api_visibility="private", queue=False)
        # the reason stays above the panes (which still show the last text compared) until a comparison succeeds
        _says_why(compared, compare, state, compare_note)
        compared.success(None, None, compare_note, js="() => ''", api_visibility="private", queue=False)
        loaded = text_file.upload(
            load_text, [text_file, state], [text, text_file], api_name="load_text", show_progress="hidden"
        )
        _says_why(loaded, load_text, state, compare_note)
        uploaded = vocab_files.upload(
            upload_vocab,
            [vocab_files, pattern, state],
            [state, vocab, vocab_files],
            api_name="upload_vocab",
            show_progress="hidden",
        )
        # a rejected file leaves the box too, or the next upload would send it again with the new one
        uploaded.failure(lambda: None, None, vocab_files, queue=False, api_visibility="private")
        _says_why(uploaded, upload_vocab, state, vocab_note)
        uploaded.success(upload_note, state, vocab_note, queue=False, api_visibility="private")
        corpus_outputs = [corpus_table, corpus_plot, corpus_frequency, corpus_json, corpus_csv, corpus_status]
        # one corpus run at a time: both buttons wait while either runs (they fill one table)
        for button, fn, inputs, api_name, other in (
            (corpus_btn, corpus, [corpus_file, vocab, state], "corpus_stats", sample_btn),
            (sample_btn, corpus_sample, [vocab, state], "corpus_sample", corpus_btn),
        ):
            _long_job(
                button, fn, inputs, corpus_outputs, api_name, corpus_status, state, others=(other,), queue="corpus"
            )
        # Stop asks the running job to end at its next progress step; it then says where it stopped
        corpus_stop.click(stop, state, None, api_name="stop_corpus", queue=False)
        across_outputs = [across_table, across_plot, across_json, across_csv, across_status, across_file]
        _long_job(
            across_btn, across, [text, across_file, state], across_outputs, "across_vocabularies", across_status, state
        )
        across_stop.click(stop, state, None, api_name="stop_across", queue=False)
        train_inputs = [train_files, train_size, train_unit, train_scaffold, state, train_style]
        _long_job(train_btn, train, train_inputs, [state, vocab, train_out, train_status], "train", train_status, state)
        train_stop.click(stop, state, None, api_name="stop_train", queue=False)
        used = use_btn.click(use_trained, state, [vocab, tabs], api_name="use_trained", show_progress_on=vocab)
        _says_why(used, use_trained, state, train_status)
        # the switch to Compare is no tab.select: the address is told here
        used.success(None, None, None, js=_js("view(null)"), api_visibility="private", queue=False)
        described = vocab.change(
            describe_vocab, [vocab, state], vocab_status, api_name="describe_vocab", show_progress="hidden"
        )
        _says_why(described, describe_vocab, state, vocab_status)
        # a picker that keeps the focus shows its old text when an upload (or Use it) selects
        # another vocabulary: it is given the new one's name and let go
        _in_browser(vocab.change, vocab, None, "picked(a[0])")
        # a span of the text is explained as the text is encoded: again when the text changes
        explained = [explain_box, vocab, state, text, explain_where, show_special]
        explaining = gr.on(
            [explain_box.change, explain_where.change, vocab.change, text.change, show_special.change],
            explain,
            [explain_box, vocab, gr.State(None), state, text, explain_where, show_special],
            [explain_pane, explain_json, explain_step],
            api_name="explain",
            trigger_mode="always_last",
            show_progress="hidden",
        )
        # why it cannot be explained replaces the steps, until the next explanation
        _says_why(explaining, explain, state, explain_pane)
        framed = explain_step.change(
            explain_frame,
            [explain_box, vocab, explain_step, state, text, explain_where, show_special],
            explain_pane,
            api_name="explain_frame",
            show_progress="hidden",
            trigger_mode="always_last",
        )
        _says_why(framed, explain_frame, state, explain_pane)
        for button, delta in ((explain_prev, -1), (explain_next, 1)):
            button.click(
                functools.partial(explain_move, delta),
                [explain_step, *explained],
                explain_step,
                api_visibility="private",
                show_progress="hidden",
            )
            # a step by hand pauses Play, as on the page
            button.click(
                lambda: (gr.Timer(active=False), PLAY),
                None,
                [explain_timer, explain_play],
                api_visibility="private",
                queue=False,
            )
        # Play plays the steps; pressed again (it reads Pause then), it pauses
        explain_play.click(
            play_toggle,
            [explain_play, explain_step, *explained],
            [explain_step, explain_timer, explain_play],
            api_visibility="private",
            show_progress="hidden",
        )
        explain_timer.tick(
            play_tick,
            [explain_play, explain_step, *explained],
            [explain_step, explain_timer, explain_play],
            api_visibility="private",
            show_progress="hidden",
        )
        _in_browser(details.change, details, [bpe_ids, lbpe_ids, details_view], "details(a[0])", _IDS_ONLY)
        _in_browser(details_box.expand, details, details_view, "detailsOpen(true, a[0])", "a[0]")
        _in_browser(details_box.collapse, None, details_view, "detailsOpen(false, null)", "null")
        decoding = gr.on(
            [decode_btn.click, pasted_ids.submit],
            decode_ids,
            [pasted_ids, vocab, state],
            decoded,
            api_name="decode_ids",
            show_progress="hidden",
        )
        _says_why(decoding, decode_ids, state, decoded)  # the reason replaces the last result
        # the view's state in the URL (browser only), restored when a link is opened
        gr.on(
            [
                text.change,
                vocab.change,
                show_ws.change,
                show_ids.change,
                show_special.change,
                explain_box.change,
                explain_where.change,
            ],
            None,
            [text, vocab, show_ws, show_ids, show_special, explain_box, explain_where],
            None,
            js=_js("link(...a)"),
            api_visibility="private",
            queue=False,
        )
        for tab, view in ((compare_tab, None), (corpus_tab, "corpus"), (across_tab, "across"), (train_tab, "train")):
            _in_browser(tab.select, None, None, f"view({json.dumps(view)})")
        _in_browser(copy_link.click, [text, vocab], None, "copy(...a)")
        # a link's text and panes arrive together; until then APP_HEAD keeps the default's hidden
        compared = [bpe_html, lbpe_html, metrics, plot, frequency_plot, details, differences]
        restoring = demo.load(
            restore,
            None,
            [text, vocab, show_ws, show_ids, show_special, explain_box, explain_where, tabs, link_note, *compared],
            api_visibility="private",
            show_progress="hidden",
            show_progress_on=link_note,
            queue=False,
        )
        shown = _js("restored()", "(document.documentElement.classList.remove('lbpe-opening'), [])")
        restoring.then(None, None, None, js=shown, api_visibility="private", queue=False)
        restoring.failure(None, None, None, js=shown, api_visibility="private", queue=False)
        explain_at.change(
            explain_click,
            [text, explain_at, vocab, state, show_special],
            [explain_box, explain_where],
            api_name="explain_click",
            show_progress="hidden",
        )
    return demo
