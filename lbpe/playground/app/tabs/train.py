"""The Train tab: train a vocabulary on uploaded text, download it, use it in Compare."""

from __future__ import annotations

from typing import Any

import gradio as gr

from lbpe.playground.app.handlers import (
    CHOOSE_FILES,
    GPT2_UNITS,
    LIMITS,
    UPLOAD_TYPES,
    _mb,
    files_note,
    stop,
    style_units,
    train,
    use_trained,
)
from lbpe.playground.app.parts import announcing, js, long_job, refusing, says_why
from lbpe.playground.app.tabs import Shared


def build(shared: Shared) -> Any:
    """The Train tab, its components and its events (inside the app's ``gr.Tabs``)."""
    state, vocab, tabs = shared.state, shared.vocab, shared.tabs
    with gr.Tab("Train", id="train") as tab:
        gr.Markdown(
            f"Train a BPE vocabulary on your UTF-8 text (at most **{_mb(LIMITS.train_bytes)}** in all, "
            f"vocabulary size up to **{LIMITS.train_vocab:,}**). GPT-2 style: words split by the paper's "
            "regex pre-tokenizer (the Unit says what it splits them into). LLaMA style: SentencePiece's "
            "way, as the paper's LLaMA vocabularies (lines with a ▁ prefix, digits alone, characters "
            "with byte fallback). Scaffold-BPE removes "
            "low-frequency scaffold tokens (Lian et al. 2024)."
        )
        with gr.Row(equal_height=False):
            train_files = gr.File(
                label="Training text files",
                file_count="multiple",
                file_types=UPLOAD_TYPES["train-upload"][0],
                height=140,
                scale=2,
                elem_id="train-upload",
            )
            with gr.Column(scale=1, min_width=220):
                # no minimum or maximum here: Gradio would refuse such a number with a
                # traceback on the server, and no precision, with which it rounds 300.5 unseen;
                # train() says what is wrong beside the button
                train_size = gr.Number(
                    8000,
                    label="Vocabulary size",
                    info=f"1 to {LIMITS.train_vocab:,}",
                    elem_id="train-size",
                )
                train_style = gr.Radio(
                    [("GPT-2 style (the paper's regex)", "gpt2"), ("LLaMA style (SentencePiece's)", "llama")],
                    value="gpt2",
                    label="Style",
                    elem_id="train-style",
                )
                train_unit = gr.Radio(
                    ["char", "byte"], value="char", label="Unit", info=GPT2_UNITS, elem_id="train-unit"
                )
                train_scaffold = gr.Checkbox(False, label="Scaffold-BPE", elem_id="train-scaffold")
        with gr.Row():
            train_btn = gr.Button("Train", variant="primary", elem_id="train-run")
            train_stop = gr.Button("Stop", variant="stop", elem_id="train-stop")
        train_status = gr.Markdown(CHOOSE_FILES, label="Training status", elem_id="train-status")
        refusing("train-upload", train_status)
        announcing(train_files, train_status, "press Train")
        train_files.change(
            files_note,
            [train_files, train_status],
            train_status,
            queue=False,
            api_visibility="private",
            show_progress="hidden",
        )
        with gr.Row(equal_height=False):
            train_out = gr.File(label="tokenizer.json", interactive=False, elem_id="train-download")
            use_btn = gr.Button("Use it in Compare", elem_id="train-use")
    # the LLaMA style has one unit: it is shown, fixed, with why
    train_style.change(
        style_units, train_style, train_unit, queue=False, api_visibility="private", show_progress="hidden"
    )
    train_inputs = [train_files, train_size, train_unit, train_scaffold, state, train_style]
    train_outputs = [state, vocab, train_out, train_status]
    long_job(train_btn, train, train_inputs, train_outputs, "train", train_status, state, kept=train_out)
    train_stop.click(stop, state, None, api_name="stop_train", queue=False)
    used = use_btn.click(use_trained, state, [vocab, tabs], api_name="use_trained", show_progress_on=vocab)
    says_why(used, use_trained, state, train_status)
    # the switch to Compare is no tab.select: the address is told here
    used.success(None, None, None, js=js("view(null)"), api_visibility="private", queue=False)
    return tab
