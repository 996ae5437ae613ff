"""The Compare tab: a text, both segmentations, their differences, ids, Explain, metrics and charts."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import gradio as gr

from lbpe.analysis.explain import MAX_EXPLAIN_CHARS
from lbpe.playground.app.handlers import (
    DEFAULT_TEXT,
    LIMITS,
    PLAY,
    UPLOAD_TYPES,
    compare,
    compare_key,
    compare_on_page,
    decode_ids,
    explain,
    explain_click,
    explain_frame,
    explain_move,
    explain_on_page,
    get_tokenizer,
    ids_text,
    load_text,
    pair_controls,
    play_tick,
    play_toggle,
    shown_key,
)
from lbpe.playground.app.parts import IDS_ONLY, PANE_JS, PANE_TEMPLATE, in_browser, js, refusing, says_why
from lbpe.playground.app.tabs import Shared
from lbpe.playground.display import METHOD_NAMES
from lbpe.playground.examples import DEFAULT_EXAMPLE, EXAMPLES
from lbpe.playground.service import explain_view
from lbpe.tokenizer import METHODS


@dataclass(frozen=True)
class CompareTab:
    """The Compare tab's components the page's address and a link's restore read and set."""

    tab: Any
    text: Any
    show_ws: Any
    show_ids: Any
    show_special: Any
    left: Any  # the methods compared (BPE and LBPE unless picked otherwise), BPE-dropout's rate and seed
    right: Any
    dropout: Any
    seed: Any
    explain_box: Any
    explain_where: Any
    #: what :func:`lbpe.playground.app.handlers.compare` fills, in its order
    outputs: list
    #: the key of the comparison the panes show (:func:`lbpe.playground.app.handlers.compare_key`)
    shown: Any
    #: what :func:`lbpe.playground.app.handlers.pair_controls` fills, in its order
    pair_outputs: list


def build(shared: Shared) -> CompareTab:
    """The Compare tab, its components and its events (inside the app's ``gr.Tabs``)."""
    state, vocab = shared.state, shared.vocab
    initial = compare(DEFAULT_TEXT, DEFAULT_EXAMPLE.vocabulary, True, False, None)
    opening_at = DEFAULT_TEXT.index(DEFAULT_EXAMPLE.explain)
    first = explain_view(
        get_tokenizer(DEFAULT_EXAMPLE.vocabulary), DEFAULT_EXAMPLE.explain, text=DEFAULT_TEXT, at=opening_at
    )
    with gr.Tab("Compare", id="compare") as tab:
        # made here so the examples below can fill it; shown in the Explain box
        explain_box = gr.Textbox(
            DEFAULT_EXAMPLE.explain,
            label=f"Word or span (up to {MAX_EXPLAIN_CHARS} characters)",
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
                info=f"Compare shows up to {LIMITS.text_chars:,} characters (the Corpus view reads whole files)",
            )
            with gr.Column(scale=1, min_width=220, elem_classes="lbpe-text-side"):
                show_ws = gr.Checkbox(True, label="Show whitespace (· → ↵)", elem_id="show-ws")
                show_ids = gr.Checkbox(False, label="Show token ids", elem_id="show-ids")
                show_special = gr.Checkbox(
                    False,
                    label="Special tokens as specials",
                    info="the vocabulary's own, named under its list; off, their spelling is text",
                    elem_id="show-special",
                )
                methods = [(METHOD_NAMES[m], m) for m in METHODS]
                # stacked: side by side, the column's width cuts "Longest prefix" short
                left = gr.Dropdown(methods, value="bpe", label="Left method (the baseline)", elem_id="left-method")
                right = gr.Dropdown(methods, value="lbpe", label="Right method", elem_id="right-method")
                with gr.Row(elem_id="dropout-options"):
                    dropout = gr.Number(
                        0.1,
                        minimum=0,
                        maximum=1,
                        step=0.05,
                        label="Dropout rate",
                        visible=False,
                        elem_id="dropout-rate",
                    )
                    # no precision: Gradio would round 3.7 to 4 unseen; compare() refuses it with the rule
                    seed = gr.Number(0, label="Seed (empty: fresh)", visible=False, elem_id="dropout-seed")
                text_file = gr.File(
                    label="…or upload a .txt file",
                    file_types=UPLOAD_TYPES["text-upload"][0],
                    height=150,
                    elem_id="text-upload",
                )
        # why the last comparison or .txt upload failed, until the next one succeeds
        compare_note = gr.HTML("", elem_id="compare-note", padding=False)
        refusing("text-upload", compare_note)
        # pressed by the page (app.js) when an answer is of inputs the controls no longer hold
        again = gr.Button("Compare again", elem_id="compare-again", elem_classes="lbpe-hidden")
        # the key of the comparison the panes show (compare_on_page), and the API's own Compare
        compare_shown = gr.Textbox(
            compare_key(DEFAULT_TEXT, DEFAULT_EXAMPLE.vocabulary, True, False, False, "bpe", "lbpe", 0.1, 0),
            label="comparison shown",
            elem_id="compare-shown",
            elem_classes="lbpe-hidden",
            container=False,
        )
        compare_api = gr.Button("Compare", elem_id="compare-api", elem_classes="lbpe-hidden")
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
                "encodings worked step by step, each by its own method's steps (for BPE and LBPE: the merges "
                "in priority order next to the windows, longest first).",
                elem_classes="lbpe-explain-intro",
            )
            explain_note = gr.Markdown("", visible=False, elem_id="explain-pair-note")
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
            # the step the server is asked for: the slider's, copied in the page. Gradio refuses a
            # slider's value past the maximum the session last set, and a step sent before the
            # explanation changed (on a busy server) or asked over the API (the session's slider
            # has the opening example's range) can lie past it; the handlers keep a step within
            # its explanation
            explain_frame_at = gr.Number(
                first["frame"],
                precision=0,
                minimum=0,
                label="Step",
                elem_id="explain-frame-at",
                elem_classes="lbpe-hidden",
                container=False,
            )
            # the key of the explanation the view shows (explain_on_page), and the API's own Explain
            explain_shown = gr.Textbox(
                shown_key(first["html"], first["steps"]),
                label="explanation shown",
                elem_id="explain-shown",
                elem_classes="lbpe-hidden",
                container=False,
            )
            explain_api = gr.Button("Explain", elem_id="explain-api", elem_classes="lbpe-hidden")
            explain_timer = gr.Timer(0.9, active=False)
            # explain's frame: none (the last); made in the tab, as a child of the tabs breaks them
            no_frame = gr.State(None)
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
    # the methods name the panes and the id boxes; dropout's rate and seed show while it is picked
    gr.on(
        [left.change, right.change],
        pair_controls,
        [left, right],
        pair_outputs := [bpe_ids, lbpe_ids, dropout, seed, explain_note],
        api_visibility="private",
        queue=False,
        show_progress="hidden",
    )
    compare_inputs = [text, vocab, show_ws, show_ids, state, show_special, left, right, dropout, seed]
    compare_outputs = [bpe_html, lbpe_html, metrics, plot, frequency_plot, details, differences]
    compared = gr.on(
        [
            text.change,
            vocab.change,
            show_ws.change,
            show_ids.change,
            show_special.change,
            left.change,
            right.change,
            dropout.change,
            seed.change,
            again.click,
        ],
        compare_on_page,
        [compare_shown, *compare_inputs],
        [*compare_outputs, compare_shown],
        api_visibility="private",
        trigger_mode="always_last",
        show_progress="hidden",
        show_progress_on=compare_note,
        concurrency_limit=4,
        concurrency_id="compare",
        js=js("busy(a)", "a"),
    )
    # the API's Compare: the same comparison, without the page's key (the page never presses this)
    compare_api.click(
        compare,
        compare_inputs,
        compare_outputs,
        api_name="compare",
        show_progress="hidden",
        show_progress_on=compare_note,
        concurrency_limit=4,
        concurrency_id="compare",
    )
    # the answer is checked against the controls as they are now (app.js asks again if it is of others)
    now = [details, text, vocab, show_ws, show_ids, show_special, left, right, dropout, seed]
    compared.then(None, now, None, js=js("done(...a)"), api_visibility="private", queue=False)
    compared.failure(None, now[1:], None, js=js("failed(...a)"), api_visibility="private", queue=False)
    # the reason stays above the panes (which still show the last text compared, dimmed: app.css)
    # until a comparison succeeds; a .txt file refused (by the page or the server) while it ran,
    # until the next one does
    says_why(compared, compare, state, compare_note, kept=compare_shown)
    compared.success(
        None,
        compare_note,
        compare_note,
        js=js("settled(a[0], 'text-upload')", "''"),
        api_visibility="private",
        queue=False,
    )
    loaded = text_file.upload(
        load_text, [text_file, state], [text, text_file], api_name="load_text", show_progress="hidden"
    )
    says_why(loaded, load_text, state, compare_note)
    in_browser(loaded.failure, None, None, "refused('text-upload')")
    # a span of the text is explained as the text is encoded: again when the span changes and
    # after each comparison, answered or failed (the text, vocabulary or an option changed),
    # with the pair compared: each method's own steps. Not on the comparison's own controls:
    # Gradio's page runs an "always_last" handler that a change found running once more by
    # sending its finished event again, to every handler of it; two such handlers on the
    # changes of two controls set at once (a link sets the text and the vocabulary) kept
    # asking for each other every 0.3 s for seconds
    explained = [explain_box, vocab, state, text, explain_where, show_special, left, right, dropout, seed]
    explain_inputs = [explain_box, vocab, no_frame, *explained[2:]]  # no frame: the last
    explain_args = {
        "fn": explain_on_page,
        "inputs": [explain_shown, *explain_inputs],
        "outputs": [explain_pane, explain_json, explain_step, explain_shown],
        "api_visibility": "private",
        "trigger_mode": "always_last",
        "show_progress": "hidden",
    }
    for explaining in (
        gr.on([explain_box.change, explain_where.change], **explain_args),
        compared.success(**explain_args),
        compared.failure(**explain_args),  # (Gradio runs no .then step after a failure)
    ):
        # why it cannot be explained replaces the steps, until the next explanation (which the
        # page then shows again, whatever it showed before)
        says_why(explaining, explain, state, explain_pane)
        explaining.failure(None, None, explain_shown, js="() => ''", api_visibility="private", queue=False)
    # the API's Explain: the same handler, without the page's key (the page never presses this)
    explain_api.click(
        explain, explain_inputs, [explain_pane, explain_json, explain_step], api_name="explain", show_progress="hidden"
    )
    explain_step.change(
        None, explain_step, explain_frame_at, js="(step) => step", api_visibility="private", queue=False
    )
    framed = explain_frame_at.change(
        explain_frame,
        [explain_box, vocab, explain_frame_at, *explained[2:]],
        explain_pane,
        api_name="explain_frame",
        show_progress="hidden",
        trigger_mode="always_last",
    )
    says_why(framed, explain_frame, state, explain_pane)
    framed.failure(None, None, explain_shown, js="() => ''", api_visibility="private", queue=False)
    for button, delta in ((explain_prev, -1), (explain_next, 1)):
        button.click(
            functools.partial(explain_move, delta),
            [explain_frame_at, *explained],
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
        [explain_play, explain_frame_at, *explained],
        [explain_step, explain_timer, explain_play],
        api_visibility="private",
        show_progress="hidden",
    )
    explain_timer.tick(
        play_tick,
        [explain_play, explain_frame_at, *explained],
        [explain_step, explain_timer, explain_play],
        api_visibility="private",
        show_progress="hidden",
    )
    in_browser(details.change, details, [bpe_ids, lbpe_ids, details_view], "details(a[0])", IDS_ONLY)
    in_browser(details_box.expand, details, details_view, "detailsOpen(true, a[0])", "a[0]")
    in_browser(details_box.collapse, None, details_view, "detailsOpen(false, null)", "null")
    decoding = gr.on(
        [decode_btn.click, pasted_ids.submit],
        decode_ids,
        [pasted_ids, vocab, state],
        decoded,
        api_name="decode_ids",
        show_progress="hidden",
    )
    says_why(decoding, decode_ids, state, decoded)  # the reason replaces the last result
    explain_at.change(
        explain_click,
        [text, explain_at, vocab, state, show_special, left, right, dropout, seed],
        [explain_box, explain_where],
        api_name="explain_click",
        show_progress="hidden",
    )
    return CompareTab(
        tab=tab,
        text=text,
        show_ws=show_ws,
        show_ids=show_ids,
        show_special=show_special,
        left=left,
        right=right,
        dropout=dropout,
        seed=seed,
        explain_box=explain_box,
        explain_where=explain_where,
        outputs=compare_outputs,
        shown=compare_shown,
        pair_outputs=pair_outputs,
    )
