"""The Explain view: a word or short span worked step by step by the two methods compared (BPE's
merges against LBPE's windows, or any other pair each with its own steps), and what a click explains."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict, cast

from lbpe.analysis.explain import MAX_EXPLAIN_CHARS, SpanTooLongError, explain, explain_span, pick_span
from lbpe.analysis.pair_steps import explain_pair, explain_pair_span
from lbpe.budget import time_budget
from lbpe.errors import LbpeError
from lbpe.playground import display
from lbpe.playground.service.shared import prepared
from lbpe.tokenizer import Tokenizer, replace_surrogates

#: What the Explain view says while its box is empty.
NOTHING_TO_EXPLAIN = "Type a word or a short span to explain, or click a token in either pane."

__all__ = ["NOTHING_TO_EXPLAIN", "ExplainTarget", "ExplainView", "explain_target", "explain_view"]


class ExplainView(TypedDict):
    html: str  # the frame shown
    frame: int
    frames: int
    steps: dict[str, Any]  # lbpe.analysis.explain's JSON of every step


class ExplainTarget(TypedDict):
    start: int
    end: int
    span: str


def explain_view(
    tok: Tokenizer,
    span: str,
    frame: int | None = None,
    *,
    text: str | None = None,
    at: int | None = None,
    specials: bool = False,
    methods: Sequence[str] = display.DEFAULT_METHODS,
    dropout: float | None = None,
    seed: int | None = None,
) -> ExplainView:
    """``span`` worked step by step with both encodings (:mod:`lbpe.analysis.explain`):
    ``{"html": frame ``frame`` (``None`` or below 0: the last, every step done), "frame",
    "frames", "steps": the steps as JSON}``; ``frame`` is kept within the explanation.

    With ``text`` and ``at`` (where ``span`` starts in it, as :func:`explain_target` says) the
    span is explained where it stands, as the Compare view encodes ``text`` (``specials``: its
    toggle): :func:`lbpe.analysis.explain.explain_span`. A span that is not at ``at`` (typed, or the text
    changed since) is explained on its own.

    ``methods``, ``dropout``, ``seed``: the pair the Compare view shows (as :func:`compare_view`
    takes them). BPE and LBPE are explained as above; any other pair by each method's own
    steps (:mod:`lbpe.analysis.pair_steps`), ``"steps"`` then that explanation's JSON."""
    pair = display.check_methods(methods, dropout, seed)
    if pair != display.DEFAULT_METHODS:
        return _pair_view(tok, span, frame, text=text, at=at, specials=specials, pair=pair, dropout=dropout, seed=seed)
    if not span:
        raise LbpeError(NOTHING_TO_EXPLAIN)
    budget = len(text) if text is not None else len(span)
    prepared(tok)
    with time_budget(budget, what="the Explain view"):
        if (
            text is not None
            and at is not None
            and 0 <= at
            and replace_surrogates(text)[at : at + len(span)] == replace_surrogates(span)
        ):
            ex = explain_span(tok, text, at, at + len(span), specials=specials)
        else:
            ex = explain(tok, span)
    last = ex.frames - 1
    k = last if frame is None or frame < 0 else min(frame, last)
    return {"html": display.explain_html(ex, k), "frame": k, "frames": ex.frames, "steps": ex.to_json()}


def _pair_view(
    tok: Tokenizer,
    span: str,
    frame: int | None,
    *,
    text: str | None,
    at: int | None,
    specials: bool,
    pair: tuple[str, str],
    dropout: float | None,
    seed: int | None,
) -> ExplainView:
    """:func:`explain_view` for a pair other than BPE and LBPE."""
    if not span:
        raise LbpeError(NOTHING_TO_EXPLAIN)
    options: dict[str, Any] = {"dropout": dropout, "seed": seed}
    prepared(tok)
    with time_budget(len(text) if text is not None else len(span), what="the Explain view"):
        if (
            text is not None
            and at is not None
            and 0 <= at
            and replace_surrogates(text)[at : at + len(span)] == replace_surrogates(span)
        ):
            ex = explain_pair_span(tok, text, at, at + len(span), pair, specials=specials, **options)
        else:
            ex = explain_pair(tok, span, pair, **options)
    last = ex.frames - 1
    k = last if frame is None or frame < 0 else min(frame, last)
    return {"html": display.pair_html(ex, k), "frame": k, "frames": ex.frames, "steps": ex.to_json()}


def explain_target(
    tok: Tokenizer,
    text: str,
    offset: int,
    differ: Sequence[tuple[int, int]] | None = None,
    *,
    specials: bool = False,
    methods: Sequence[str] = display.DEFAULT_METHODS,
    dropout: float | None = None,
    seed: int | None = None,
) -> ExplainTarget:
    """What to explain for a click at character ``offset`` of ``text``: the differing span that
    holds it, else its word (:func:`lbpe.analysis.explain.pick_span`), widened to the token boundaries
    both encodings share (:func:`lbpe.analysis.explain.explain_span`), as ``{"start", "end", "span"}``;
    :func:`explain_view` of ``span`` with ``at=start`` explains it there. ``differ``: the
    differing ranges when the caller has them (from :func:`compare_view` with the same
    ``specials``). ``methods``, ``dropout``, ``seed``: the pair compared, whose differing spans
    and shared boundaries count (:func:`lbpe.analysis.pair_steps.explain_pair_span`)."""
    pair = display.check_methods(methods, dropout, seed)
    text = replace_surrogates(text)
    if differ is None:
        prepared(tok)
        with time_budget(len(text), what="the Explain view"):
            differ = display.compare(tok, text, specials=specials, methods=pair, dropout=dropout, seed=seed).differ

    def widened(a: int, b: int) -> tuple[int, int]:
        if pair == display.DEFAULT_METHODS:
            ex: Any = explain_span(tok, text, a, b, specials=specials)
        else:
            ex = explain_pair_span(tok, text, a, b, pair, specials=specials, dropout=dropout, seed=seed)
        return cast(int, ex.start), cast(int, ex.end)

    a, b = pick_span(text, offset, differ)
    if a >= b:
        return {"start": a, "end": b, "span": text[a:b]}
    at = min(max(int(offset), a), b - 1)
    # the span picked, then ever shorter ones around the click, until one widens to a span
    # Explain takes (a long differing span, or a long word, may share few boundaries)
    size = min(b - a, MAX_EXPLAIN_CHARS)
    while True:
        lo = min(max(a, at - size // 2), b - size)
        try:
            a, b = widened(lo, lo + size)
            break
        except SpanTooLongError:
            if size == 1:
                raise LbpeError(
                    f"the token at character {at:,} lies in a stretch where the two encodings share no token "
                    f"boundary for more than {MAX_EXPLAIN_CHARS} characters, and Explain works on at most "
                    f"{MAX_EXPLAIN_CHARS} characters: type a shorter word into Explain instead"
                ) from None
            size //= 2
        except LbpeError:
            a, b = lo, lo + size  # explain_view says what is wrong with the span
            break
    return {"start": a, "end": b, "span": text[a:b]}
