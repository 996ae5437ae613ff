"""The Corpus tab: statistics of a whole file (or the sample corpus) in both modes, with downloads;
on the methods axis, with every inference method ticked."""

from __future__ import annotations

from typing import Any

import gradio as gr

from lbpe.analysis.methods import METHODS_HEADERS, METHODS_TYPES
from lbpe.playground.app.handlers import (
    LIMITS,
    STATS_HEADERS,
    UPLOAD_TYPES,
    _mb,
    corpus,
    corpus_methods,
    corpus_sample,
    corpus_sample_methods,
    stop,
)
from lbpe.playground.app.parts import Axis, announcing, axis_picker, long_job, refusing
from lbpe.playground.app.tabs import Shared


def build(shared: Shared) -> tuple[Any, Axis]:
    """The Corpus tab, its components and its events (inside the app's ``gr.Tabs``), and its
    axis (the layout puts it in the link and restores it)."""
    state, vocab = shared.state, shared.vocab
    with gr.Tab("Corpus", id="corpus") as tab:
        gr.Markdown(
            f"Statistics of a whole file (UTF-8 text, at most **{_mb(LIMITS.corpus_bytes)}**) with the "
            "vocabulary chosen above: token counts, bytes and characters per token, token lengths in "
            "the paper's buckets, how often a token of each length occurs (the paper's claim: LBPE makes "
            "long tokens more frequent and short ones rarer), Rényi efficiency and the agreement of the "
            "two segmentations; each row says what it means, which way the paper predicts it moves and, "
            "for compression and the length buckets, the paper's own figures (Tables 6 and 2). Download "
            "them as JSON or CSV. No file at hand? **Use the sample corpus**: 1.5 MB of prose "
            "(Moby-Dick), speeches (State of the Union), TypeScript and Python code and 26 languages. "
            "Switch to **methods** for one row per inference method you tick (tokens, bytes per token, "
            "long-token share, Rényi efficiency, fertility and the words each cuts as BPE does: "
            "`lbpe stats --methods`)."
        )
        axis = axis_picker("corpus")
        with gr.Row(equal_height=False):
            corpus_file = gr.File(
                label="Text file",
                file_types=UPLOAD_TYPES["corpus-upload"][0],
                height=140,
                scale=3,
                elem_id="corpus-upload",
            )
            with gr.Column(scale=1, min_width=180):
                with gr.Column(elem_id="corpus-vocabularies-buttons") as vocab_buttons:
                    corpus_btn = gr.Button("Compute statistics", variant="primary", elem_id="corpus-run")
                    sample_btn = gr.Button("Use the sample corpus", elem_id="corpus-sample")
                with gr.Column(visible=False, elem_id="corpus-methods-buttons") as methods_buttons:
                    methods_btn = gr.Button(
                        "Compute statistics per method", variant="primary", elem_id="corpus-methods-run"
                    )
                    methods_sample_btn = gr.Button("Use the sample corpus, per method", elem_id="corpus-methods-sample")
                corpus_stop = gr.Button("Stop", variant="stop", elem_id="corpus-stop")
        corpus_status = gr.Markdown(
            "Choose a text file, then press Compute statistics.", label="Corpus status", elem_id="corpus-status"
        )
        refusing("corpus-upload", corpus_status)
        announcing(
            corpus_file,
            corpus_status,
            {"vocabularies": "press Compute statistics", "methods": "press Compute statistics per method"},
            axis=axis.choice,
        )
        with gr.Column(visible=False, elem_id="corpus-methods-results") as methods_results:
            methods_table = gr.Dataframe(
                label="Per method, with the vocabulary chosen above (click a header to sort)",
                headers=METHODS_HEADERS,
                datatype=METHODS_TYPES,
                interactive=False,
                wrap=True,
                elem_id="corpus-methods-table",
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
        # the axis the chart and files above were made on (set as a run ends well)
        ran = gr.Textbox("", elem_id="corpus-ran", elem_classes="lbpe-hidden", container=False)
    axis.wire(
        [vocab_buttons, corpus_table, corpus_frequency],
        [methods_buttons, methods_results],
        shared=[corpus_plot, corpus_json, corpus_csv],
        ran=ran,
    )
    corpus_outputs = [corpus_table, corpus_plot, corpus_frequency, corpus_json, corpus_csv, corpus_status]
    methods_outputs = [methods_table, *corpus_outputs[1:]]
    options = [axis.methods, axis.dropout, axis.seed]
    buttons = (corpus_btn, sample_btn, methods_btn, methods_sample_btn)
    # one corpus run at a time: every button waits while one runs (they fill one plot and files)
    with_file, with_sample = [corpus_file, vocab, state], [vocab, state]
    for button, fn, inputs, outputs, api_name, on in (
        (corpus_btn, corpus, with_file, corpus_outputs, "corpus_stats", "vocabularies"),
        (sample_btn, corpus_sample, with_sample, corpus_outputs, "corpus_sample", "vocabularies"),
        (methods_btn, corpus_methods, [*with_file, *options], methods_outputs, "corpus_methods", "methods"),
        (
            methods_sample_btn,
            corpus_sample_methods,
            [*with_sample, *options],
            methods_outputs,
            "corpus_sample_methods",
            "methods",
        ),
    ):
        others = tuple(b for b in buttons if b is not button)
        long_job(
            button,
            fn,
            inputs,
            outputs,
            api_name,
            corpus_status,
            state,
            others=others,
            queue="corpus",
            kept=corpus_json,
            ran=(ran, on),
        )
    # Stop asks the running job to end at its next progress step; it then says where it stopped
    corpus_stop.click(stop, state, None, api_name="stop_corpus", queue=False)
    return tab, axis
