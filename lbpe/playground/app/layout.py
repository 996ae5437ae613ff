"""The app's page: the vocabulary picker and upload above four tabs (one module each, in
:mod:`lbpe.playground.app.tabs`), and what spans them: the address that a link restores and the
tab it shows. Its look and the helpers events are wired with are :mod:`lbpe.playground.app.parts`;
handlers call :mod:`lbpe.playground.app.handlers`.
"""

from __future__ import annotations

import json

import gradio as gr

from lbpe.playground.app.handlers import (
    LIMITS,
    PATTERN_CHOICES,
    PATTERN_LABEL,
    UPLOAD_TYPES,
    _link_note,
    describe_vocab,
    input_error,
    new_session,
    restore,
    restore_dropout,
    upload_note,
    upload_vocab,
    vocab_choices,
)
from lbpe.playground.app.parts import (
    APP_CSS,
    APP_HEAD,
    APP_JS,
    INTRO,
    THEME,
    in_browser,
    js,
    limits_md,
    refusing,
    says_why,
)
from lbpe.playground.app.tabs import Shared, across, compare, corpus, train
from lbpe.playground.app.upkeep import SessionBlocks
from lbpe.playground.examples import DEFAULT_EXAMPLE
from lbpe.playground.service import describe
from lbpe.presets import DEFAULT_PRESET, load_preset

__all__ = ["APP_CSS", "APP_HEAD", "APP_JS", "THEME", "build"]


def build() -> gr.Blocks:
    """The Blocks app (module-level ``demo`` is ``build()``)."""
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
                    file_types=UPLOAD_TYPES["vocab-upload"][0],
                    scale=3,
                    height=150,
                    elem_id="vocab-upload",
                )
                pattern = gr.Dropdown(
                    PATTERN_CHOICES,
                    value="auto",
                    label=PATTERN_LABEL,
                    scale=1,
                    info="auto: from the file name",
                    elem_id="pattern",
                )
            vocab_note = gr.Markdown("", elem_id="vocab-upload-note")
            refusing("vocab-upload", vocab_note)
        link_note = gr.HTML(_link_note(""), elem_id="link-note", padding=False)
        with gr.Tabs(selected="compare") as tabs:
            shared = Shared(state=state, vocab=vocab, tabs=tabs)
            c = compare.build(shared)
            shared = Shared(state=state, vocab=vocab, tabs=tabs, text=c.text)
            corpus_tab, corpus_axis = corpus.build(shared)
            across_tab, across_axis = across.build(shared)
            train_tab = train.build(shared)
        gr.Markdown(limits_md(), elem_id="limits")
        uploaded = vocab_files.upload(
            upload_vocab,
            [vocab_files, pattern, state],
            [state, vocab, vocab_files],
            api_name="upload_vocab",
            show_progress="hidden",
        )
        # a rejected file leaves the box too, or the next upload would send it again with the new one
        uploaded.failure(lambda: None, None, vocab_files, queue=False, api_visibility="private")
        says_why(uploaded, upload_vocab, state, vocab_note)
        uploaded.success(upload_note, state, vocab_note, queue=False, api_visibility="private")
        described = vocab.change(
            describe_vocab, [vocab, state], vocab_status, api_name="describe_vocab", show_progress="hidden"
        )
        says_why(described, describe_vocab, state, vocab_status)
        # a picker that keeps the focus shows its old text when an upload (or Use it) selects
        # another vocabulary: it is given the new one's name and let go
        in_browser(vocab.change, vocab, None, "picked(a[0])")
        # the view's state in the URL (browser only), restored when a link is opened
        gr.on(
            [
                c.text.change,
                vocab.change,
                c.show_ws.change,
                c.show_ids.change,
                c.show_special.change,
                c.explain_box.change,
                c.explain_where.change,
                c.left.change,
                c.right.change,
                c.dropout.change,
                c.seed.change,
            ],
            None,
            [
                c.text,
                vocab,
                c.show_ws,
                c.show_ids,
                c.show_special,
                c.explain_box,
                c.explain_where,
                c.left,
                c.right,
                c.dropout,
                c.seed,
            ],
            None,
            js=js("link(...a)"),
            api_visibility="private",
            queue=False,
        )
        # the Across and Corpus views' axis in the URL too (both write the same keys: the last changed wins)
        for axis in (across_axis, corpus_axis):
            gr.on(
                [part.change for part in axis.inputs],
                None,
                axis.inputs,
                None,
                js=js("axis(...a)"),
                api_visibility="private",
                queue=False,
            )
        for tab, view in ((c.tab, None), (corpus_tab, "corpus"), (across_tab, "across"), (train_tab, "train")):
            in_browser(tab.select, None, None, f"view({json.dumps(view)})")
        in_browser(copy_link.click, [c.text, vocab], None, "copy(...a)")
        # the opening span's place in the opening text, set in the page as it opens: from the
        # server it could come after a token clicked meanwhile had its own (the box's value stays
        # "" for the API, where a span without a place is explained on its own)
        opening_at = json.dumps(str(DEFAULT_EXAMPLE.text.index(DEFAULT_EXAMPLE.explain)))
        demo.load(None, None, c.explain_where, js=f"() => {opening_at}", api_visibility="private", queue=False)
        # a link's text and panes arrive together; until then APP_HEAD keeps the default's hidden.
        # Dropout's rate and seed first: the comparisons the link's other changes ask read them
        seeded = demo.load(
            restore_dropout,
            None,
            [c.dropout, c.seed],
            api_visibility="private",
            show_progress="hidden",
            queue=False,
        )
        restoring = seeded.then(
            restore,
            None,
            [c.text, vocab, c.show_ws, c.show_ids, c.show_special, c.explain_box, c.explain_where, tabs, link_note]
            + c.outputs
            + [c.left, c.right, c.dropout, c.seed]
            + c.pair_outputs
            + across_axis.inputs
            + corpus_axis.inputs
            + [c.shown],
            api_visibility="private",
            show_progress="hidden",
            show_progress_on=link_note,
            queue=False,
        )
        without_app = (
            "(document.documentElement.classList.remove('lbpe-opening'), "
            "document.documentElement.dataset.lbpeRestored = '1', [])"
        )
        restoring.then(None, None, None, js=js("restored(true)", without_app), api_visibility="private", queue=False)
        for step in (seeded, restoring):
            step.failure(None, None, None, js=js("restored(false)", without_app), api_visibility="private", queue=False)
    return demo
