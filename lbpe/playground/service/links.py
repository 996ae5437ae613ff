"""A playground's state in a link: what a URL's query may ask of the Compare view.

A link carries the text (``t``, when short; else its length, ``tl``), a bundled vocabulary (``v``; uploaded files never
go in a link), the display toggles (``ws``, ``ids``, ``sp``), the two methods compared when
they are not BPE and LBPE (``m=longest-prefix,least-tokens``; with ``dropout``, its rate ``dr``
and seed ``seed``), the span to explain (``x``), where
it starts in the text (``xa``), the open view (``view``) and the axis of the Across and Corpus
views when it is not the vocabularies (``ax=methods``: one vocabulary, every method), with the
methods when not every one (``ms=bpe,lbpe,dropout``) and, with ``dropout``, its rate ``mdr``
and seed ``mseed``. :func:`link_state` reads such a
query and says what it left out.
"""

from __future__ import annotations

from typing import Any

from lbpe.analysis.explain import MAX_EXPLAIN_CHARS
from lbpe.analysis.methods import check_options, parse_methods
from lbpe.errors import LbpeError
from lbpe.playground.display.model import DEFAULT_METHODS, SEED_MOST, SEED_RULE, check_methods, check_pair
from lbpe.playground.service.corpus import DEFAULT_DROPOUT
from lbpe.presets import VOCAB_PRESETS
from lbpe.tokenizer import METHODS

__all__ = ["AXES", "MAX_LINK_TEXT", "VIEWS", "link_state"]

#: Texts up to this many characters go into a link (``?t=``); longer ones are left out.
MAX_LINK_TEXT = 2000
#: The views a link can open (``?view=``).
VIEWS = ("compare", "corpus", "across", "train")
#: What the Across and Corpus views compare (``?ax=``): vocabularies (the default) or methods.
AXES = ("vocabularies", "methods")


def link_state(params: dict[str, str], *, text_chars: int) -> dict[str, Any]:
    """What a link's query asks for: ``t`` text (kept up to ``text_chars`` characters, the
    Compare view's limit, or :data:`MAX_LINK_TEXT` when larger), ``v`` a bundled vocabulary,
    ``tl`` the length of a text too long to carry (said in ``notes``), ``ws``/``ids``/``sp``
    toggles (``0``/``1``; ``sp``: special tokens as specials), ``x`` the span to explain, ``xa``
    where it starts in the text (``explain_at``; without it the span is explained on its own),
    ``m`` the two methods, left and right (``methods``, a pair of :data:`lbpe.METHODS`; without it
    BPE and LBPE), ``dr`` and ``seed`` BPE-dropout's rate and seed when one of them is dropout
    (``dropout``, ``seed``), ``view`` the open tab, ``ax=methods`` the Across and Corpus views'
    methods axis (``axis``) with ``ms`` its methods (``axis_methods``; without it every method)
    and ``mdr``/``mseed`` dropout's rate and seed (``axis_dropout``, ``axis_seed``). Anything
    unknown, malformed or too long is left at its default, and ``notes`` says what was left out.

    >>> link_state({"v": "gpt2", "ws": "0", "view": "across"}, text_chars=100)
    {'notes': [], 'vocab': 'gpt2', 'show_whitespace': False, 'view': 'across'}
    >>> link_state({"m": "longest-prefix,lbpe"}, text_chars=100)
    {'notes': [], 'methods': ('longest-prefix', 'lbpe')}
    >>> link_state({"m": "dropout,bpe", "dr": "lots"}, text_chars=100)["notes"][0][46:82]
    'its dropout rate “lots” is not a num'
    >>> link_state({"ax": "methods", "ms": "lbpe,least-tokens"}, text_chars=100)
    {'notes': [], 'axis': 'methods', 'axis_methods': ('lbpe', 'least-tokens')}
    >>> link_state({"v": "upload: mine.json"}, text_chars=100)["notes"][0][:43]
    'It names the vocabulary “upload: mine.json”'
    """
    out: dict[str, Any] = {"notes": []}
    text = params.get("t")
    if text is not None:
        if len(text) <= max(MAX_LINK_TEXT, text_chars):
            out["text"] = text
        else:
            out["notes"].append(f"Its text is over {text_chars:,} characters: left out.")
    elif params.get("tl", "").isascii() and params.get("tl", "").isdigit() and len(params["tl"]) <= 9:
        out["notes"].append(
            f"Its text had {int(params['tl']):,} characters, more than a link carries ({MAX_LINK_TEXT:,}): "
            "the default text is shown; paste the text again."
        )
    vocab = params.get("v")
    if vocab:
        if vocab in VOCAB_PRESETS:
            out["vocab"] = vocab
        else:
            out["notes"].append(
                f"It names the vocabulary “{vocab[:60]}”, which is not a bundled one (uploaded files are never "
                "put in a link): the default is shown; upload the file again to see it."
            )
    for key, name in (("ws", "show_whitespace"), ("ids", "show_ids"), ("sp", "specials")):
        if params.get(key) in ("0", "1"):
            out[name] = params[key] == "1"
    _methods(params, out)
    _axis(params, out)
    span = params.get("x")
    if span is not None:  # an empty one too: the Explain box was emptied
        out["explain"] = span[:MAX_EXPLAIN_CHARS]
        at = params.get("xa", "")
        if span and at.isascii() and at.isdigit() and len(at) <= 9:
            out["explain_at"] = int(at)
    if params.get("view") in VIEWS:
        out["view"] = params["view"]
    return out


def _methods(params: dict[str, str], out: dict[str, Any]) -> None:
    """The link's pair of methods (``m``, with ``dr`` and ``seed`` for dropout) into ``out``,
    when it is one the Compare view can show; else a note, and BPE and LBPE."""
    spec = params.get("m")
    if not spec:
        return
    pair = tuple(spec[:100].split(","))
    try:
        check_pair(pair)  # the pair's own faults before its options'
        rate, seed = _dropout_options(params, "dr", "seed", out["notes"]) if "dropout" in pair else (None, None)
        methods = check_methods(pair, rate, seed)
    except LbpeError as exc:
        out["notes"].append(f"Its methods “{spec[:60]}” cannot be compared ({exc}): BPE and LBPE are shown.")
        return
    if methods != DEFAULT_METHODS:
        out["methods"] = methods
        if rate is not None:
            out["dropout"], out["seed"] = rate, seed


def _dropout_options(
    params: dict[str, str], rate_key: str, seed_key: str, notes: list[str]
) -> tuple[float, int | None]:
    """Dropout's rate (the default when the link has none) and seed (``None`` when it has none:
    fresh draws) from a link; :class:`LbpeError` naming a rate that is no number, a note in
    ``notes`` for a seed that is none (fresh draws then)."""
    given = params.get(rate_key, str(DEFAULT_DROPOUT))[:20]
    try:
        rate = float(given)
    except ValueError:
        raise LbpeError(
            f"its dropout rate “{given}” is not a number; a rate is a number from 0 to 1, e.g. 0.1"
        ) from None
    raw = params.get(seed_key, "")
    if raw and not (raw.isascii() and raw.isdigit() and len(raw) <= 20 and int(raw) <= SEED_MOST):
        notes.append(f"Its seed “{raw[:20]}” cannot be used (a seed is {SEED_RULE}): fresh draws are shown.")
        raw = ""
    return rate, int(raw) if raw else None


def _axis(params: dict[str, str], out: dict[str, Any]) -> None:
    """The Across and Corpus views' axis (``ax``) and, on the methods axis, its methods (``ms``,
    with ``mdr`` and ``mseed`` for dropout) into ``out``; a note for what cannot be shown."""
    axis = params.get("ax")
    if not axis or axis == "vocabularies":
        return
    if axis not in AXES:
        out["notes"].append(
            f"It asks the Across and Corpus views for the axis “{axis[:40]}”; they compare vocabularies or "
            "methods (ax=methods): vocabularies are shown."
        )
        return
    out["axis"] = axis
    spec = params.get("ms")
    # without ms every method is ticked, dropout among them: its rate and seed still count
    if not spec and "mdr" not in params and "mseed" not in params:
        return
    try:
        methods = parse_methods(spec[:200]) if spec else METHODS
        rate, seed = _dropout_options(params, "mdr", "mseed", out["notes"]) if "dropout" in methods else (None, None)
        check_options(methods, rate, seed)
    except LbpeError as exc:
        if spec:
            out["notes"].append(f"Its methods “{spec[:60]}” cannot be shown ({exc}): every method is shown.")
        else:
            out["notes"].append(
                f"Its BPE-dropout options cannot be used ({exc}): every method is shown, dropout at its default rate."
            )
        return
    if spec:
        out["axis_methods"] = methods
    if rate is not None:
        out["axis_dropout"], out["axis_seed"] = rate, seed
