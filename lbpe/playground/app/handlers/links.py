"""Links: a page load applies the view's state its URL query carries."""

from __future__ import annotations

import html
from typing import Any

import gradio as gr

from lbpe.playground.app.handlers import common
from lbpe.playground.app.handlers.compare_tab import DEFAULT_TEXT, compare, compare_key, pair_controls
from lbpe.playground.examples import DEFAULT_EXAMPLE
from lbpe.playground.service import link_state
from lbpe.tokenizer import METHODS

# ---- links: the view's state in the URL query ----


def _link_note(text: str) -> str:
    return f'<span class="lbpe-link-note" role="status">{html.escape(text)}</span>'


#: The parts of a link that change the Compare view (the page hides it until they are applied).
LINK_COMPARE_KEYS = ("text", "vocab", "show_whitespace", "show_ids", "specials", "methods")


def restore_dropout(request: gr.Request):
    """Page load, before :func:`restore`: BPE-dropout's rate and seed for the Compare view, the
    link's when its pair has dropout (else kept). Set first, they are what the comparisons asked
    by the link's other changes read: set together with the methods, a change of the method or
    rate was seen asking with the seed box's old value, and its panes (another draw) were drawn
    until the seed's own change was answered."""
    wanted = link_state(dict(request.query_params) if request is not None else {}, text_chars=common.LIMITS.text_chars)
    if "dropout" not in wanted.get("methods", ()):
        return gr.update(), gr.update()
    return wanted.get("dropout", gr.update()), wanted.get("seed")


def restore(request: gr.Request):
    """Page load: apply the link's query (:func:`lbpe.playground.service.link_state`). Returns updates for
    ``(text, vocabulary, whitespace, ids, specials, explain span, where it starts in the text,
    tabs, link note)``, then :func:`compare`'s seven outputs for the link's text, so its text
    and its panes arrive together (kept as they are when the link changes none of them), then
    ``(left method, right method, dropout rate, seed)`` and the labels and boxes they show
    (:func:`pair_controls`, five updates), then the Across view's axis, methods, dropout rate and
    seed and the Corpus view's (eight updates: a link's methods axis opens both on it); a span
    without a place is explained on its own, a link without methods compares BPE and LBPE, and a
    methods axis without methods (or with some that cannot be shown: the note says why) has every
    method ticked; last, the key of the comparison drawn (:func:`compare_key`), so that the
    changes this makes ask for it again at no cost. Dropout's rate and seed are set already
    (:func:`restore_dropout`); they are given again, unchanged."""
    wanted = link_state(dict(request.query_params) if request is not None else {}, text_chars=common.LIMITS.text_chars)
    keep = gr.update()
    picked = [wanted.get(key, keep) for key in ("text", "vocab", "show_whitespace", "show_ids", "specials", "explain")]
    # where the span stands in the text: the link's; else kept (the page set the opening span's
    # as it opened, and a token clicked before this answer is explained where the click put it)
    picked.append(str(wanted.get("explain_at", "")) if "explain" in wanted else keep)
    tabs = gr.update(selected=wanted["view"]) if "view" in wanted else keep
    note = "About this link: " + " ".join(wanted["notes"]) if wanted["notes"] else ""
    shown: tuple = (keep,) * 7
    shown_as: Any = keep
    methods = wanted.get("methods", ("bpe", "lbpe"))
    if any(key in wanted for key in LINK_COMPARE_KEYS):
        text, vocab = wanted.get("text", DEFAULT_TEXT), wanted.get("vocab", DEFAULT_EXAMPLE.vocabulary)
        ws, ids = wanted.get("show_whitespace", True), wanted.get("show_ids", False)
        specials = wanted.get("specials", False)
        rate, seed = wanted.get("dropout"), wanted.get("seed")
        shown = compare(text, vocab, ws, ids, None, specials, *methods, rate, seed)
        shown_as = compare_key(text, vocab, ws, ids, specials, methods[0], methods[1], rate, seed)
    pair: tuple = (keep,) * 9
    if "methods" in wanted:
        rate = wanted.get("dropout", keep)  # the seed: the link's, none (fresh draws) when it has none
        pair = (*methods, rate, wanted.get("seed") if "dropout" in methods else keep, *pair_controls(*methods))
    axis: tuple = (keep,) * 4
    if "axis" in wanted:
        rate, seed = (wanted["axis_dropout"], wanted["axis_seed"]) if "axis_dropout" in wanted else (keep, keep)
        axis = (wanted["axis"], list(wanted.get("axis_methods", METHODS)), rate, seed)
    return (*picked, tabs, _link_note(note), *shown, *pair, *axis, *axis, shown_as)
