"""The Across vocabularies tab: one text (the Compare text or a file) with every vocabulary."""

from __future__ import annotations

from typing import Any

import gradio as gr

from lbpe.analysis.across import ACROSS_HEADERS, ACROSS_TYPES
from lbpe.playground.app.handlers import LIMITS, _mb, across, stop
from lbpe.playground.app.parts import long_job
from lbpe.playground.app.tabs import Shared


def build(shared: Shared) -> Any:
    """The Across vocabularies tab, its components and its events (inside the app's ``gr.Tabs``)."""
    state, text = shared.state, shared.text
    with gr.Tab("Across vocabularies", id="across") as tab:
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
    across_outputs = [across_table, across_plot, across_json, across_csv, across_status, across_file]
    long_job(
        across_btn, across, [text, across_file, state], across_outputs, "across_vocabularies", across_status, state
    )
    across_stop.click(stop, state, None, api_name="stop_across", queue=False)
    return tab
