"""The Across vocabularies tab: one text (the Compare text or a file) with every vocabulary, or, on
the methods axis, with the vocabulary chosen above and every method ticked."""

from __future__ import annotations

from typing import Any

import gradio as gr

from lbpe.analysis.across import ACROSS_HEADERS, ACROSS_TYPES
from lbpe.analysis.methods import METHODS_HEADERS, METHODS_TYPES
from lbpe.playground.app.handlers import LIMITS, UPLOAD_TYPES, _mb, across, across_methods, stop
from lbpe.playground.app.parts import Axis, announcing, axis_picker, long_job, refusing
from lbpe.playground.app.tabs import Shared


def build(shared: Shared) -> tuple[Any, Axis]:
    """The Across vocabularies tab, its components and its events (inside the app's ``gr.Tabs``),
    and its axis (the layout puts it in the link and restores it)."""
    state, text = shared.state, shared.text
    with gr.Tab("Across vocabularies", id="across") as tab:
        gr.Markdown(
            "The Compare text (or a text file, at most "
            f"**{_mb(LIMITS.corpus_bytes)}**) encoded with every bundled vocabulary and every one you "
            "uploaded or trained here: which tokenizers would LBPE change most? Tokens, bytes per token, "
            "the share of long tokens, the paper's frequency imbalance, Rényi efficiency and how many "
            "words both modes cut alike, per vocabulary. Or switch to **methods**: the vocabulary chosen "
            "above with every inference method you tick (tokens, bytes per token, long-token share, Rényi "
            "efficiency, fertility and the words each cuts as BPE does: `lbpe stats --methods`)."
        )
        axis = axis_picker("across")
        with gr.Row(equal_height=False):
            across_file = gr.File(
                label="…or a text file instead of the Compare text",
                file_types=UPLOAD_TYPES["across-upload"][0],
                height=140,
                scale=3,
                elem_id="across-upload",
            )
            with gr.Column(scale=1, min_width=180):
                with gr.Column(elem_id="across-vocabularies-buttons") as vocab_buttons:
                    across_btn = gr.Button("Compare across vocabularies", variant="primary", elem_id="across-run")
                with gr.Column(visible=False, elem_id="across-methods-buttons") as methods_buttons:
                    methods_btn = gr.Button("Compare across methods", variant="primary", elem_id="across-methods-run")
                across_stop = gr.Button("Stop", variant="stop", elem_id="across-stop")
        across_status = gr.Markdown("", label="Across status", elem_id="across-status")
        refusing("across-upload", across_status)
        announcing(
            across_file,
            across_status,
            {"vocabularies": "press Compare across vocabularies", "methods": "press Compare across methods"},
            axis=axis.choice,
        )
        with gr.Column(elem_id="across-vocabularies-results") as vocab_results:
            across_table = gr.Dataframe(
                label="Per vocabulary (click a header to sort)",
                headers=ACROSS_HEADERS,
                datatype=ACROSS_TYPES,
                interactive=False,
                wrap=True,
                elem_id="across-table",
            )
        with gr.Column(visible=False, elem_id="across-methods-results") as methods_results:
            methods_table = gr.Dataframe(
                label="Per method, with the vocabulary chosen above (click a header to sort)",
                headers=METHODS_HEADERS,
                datatype=METHODS_TYPES,
                interactive=False,
                wrap=True,
                elem_id="across-methods-table",
            )
        across_plot = gr.Plot(label="LBPE vs BPE per vocabulary, or each method vs BPE", elem_id="across-plot")
        with gr.Row():
            across_json = gr.File(label="across.json", interactive=False, elem_id="across-json")
            across_csv = gr.File(label="across.csv", interactive=False, elem_id="across-csv")
        # the axis the chart and files above were made on (set as a run ends well)
        ran = gr.Textbox("", elem_id="across-ran", elem_classes="lbpe-hidden", container=False)
    axis.wire(
        [vocab_buttons, vocab_results],
        [methods_buttons, methods_results],
        shared=[across_plot, across_json, across_csv],
        ran=ran,
    )
    across_outputs = [across_table, across_plot, across_json, across_csv, across_status, across_file]
    long_job(
        across_btn,
        across,
        [text, across_file, state],
        across_outputs,
        "across_vocabularies",
        across_status,
        state,
        kept=across_json,
        others=(methods_btn,),
        ran=(ran, "vocabularies"),
    )
    long_job(
        methods_btn,
        across_methods,
        [text, across_file, shared.vocab, state, axis.methods, axis.dropout, axis.seed],
        [methods_table, *across_outputs[1:]],
        "across_methods",
        across_status,
        state,
        kept=across_json,
        others=(across_btn,),
        queue="across_vocabularies",  # one queue: both fill the same plot and files
        ran=(ran, "methods"),
    )
    across_stop.click(stop, state, None, api_name="stop_across", queue=False)
    return tab, axis
