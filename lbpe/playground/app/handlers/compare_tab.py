"""The Compare and Explain handlers: a text's two tokenizations side by side, one span explained step by step."""

from __future__ import annotations

import hashlib
import html
import json
import math
import threading
import weakref
import zlib
from typing import Any

import gradio as gr

from lbpe import limits as _limits
from lbpe.playground import display
from lbpe.playground.app.handlers import common
from lbpe.playground.app.handlers.common import _figure, _handler, _mb, _paths, _read_once, get_tokenizer
from lbpe.playground.examples import DEFAULT_EXAMPLE
from lbpe.playground.service import (
    NOTHING_TO_EXPLAIN,
    ExplainView,
    Session,
    compare_view,
    explain_target,
    explain_view,
    text_head,
)
from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS

# ---- Compare and Explain ----

#: The opening text (the first of the examples both UIs share) and the span Explain opens on.
DEFAULT_TEXT = DEFAULT_EXAMPLE.text
DEFAULT_EXPLAIN = DEFAULT_EXAMPLE.explain


def _cut_note(chars: int | None, name: str = "The text") -> str:
    """What Compare left out of a text over its limit (``chars``: its length, or None when
    only known to be longer), in characters."""
    size = (
        f"has {chars:,} characters" if chars is not None else f"is longer than {common.LIMITS.text_chars:,} characters"
    )
    return (
        f"{name} {size}; Compare shows its first {common.LIMITS.text_chars:,}. The Corpus view reads whole files "
        f"(up to {_mb(common.LIMITS.corpus_bytes)})."
    )


#: Sessions whose last comparison is kept for their next edit: the ones that compared last.
KEPT_COMPARISONS = 4
_KEPT: dict[int, tuple[weakref.ref[Session], display.Recompare]] = {}  # id(session) -> its, oldest first
_KEPT_LOCK = threading.Lock()


def _recompare(state: Any) -> display.Recompare | None:
    """The session's :class:`lbpe.playground.display.Recompare` (its last comparison, so that an edit
    costs what it changed); only the :data:`KEPT_COMPARISONS` sessions that compared last keep
    one, so the memory stays bounded however many sessions there are; a session forgotten
    (lbpe.playground.app.upkeep.sweep) takes its comparison, and the vocabulary in it, along."""
    if not isinstance(state, Session):
        return None
    with _KEPT_LOCK:
        key = id(state)
        entry = _KEPT.pop(key, None)
        if entry is None or entry[0]() is not state:
            # (no lock in the callback: the garbage collector may run it while the lock is held)
            gone = weakref.ref(state, lambda ref: _KEPT.pop(key, None) if _KEPT.get(key, (ref,))[0] is ref else None)
            entry = (gone, display.Recompare())
        _KEPT[id(state)] = entry
        while len(_KEPT) > KEPT_COMPARISONS:
            del _KEPT[next(iter(_KEPT))]
        return entry[1]


@_handler
def compare(
    text: str,
    vocab: str = DEFAULT_PRESET,
    show_whitespace: bool = True,
    show_ids: bool = False,
    state: Any = None,
    specials: bool = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: Any = None,
    seed: Any = None,
):
    """Both segmentations of ``text`` with ``vocab`` (:func:`lbpe.playground.service.compare_view`):
    by the methods ``left`` and ``right`` (BPE and LBPE unless told otherwise; ``dropout`` and
    ``seed``, BPE-dropout's rate and seed, are read only when one of them is dropout).

    Returns ``(BPE pane HTML, LBPE pane HTML, metrics HTML, token-length figure, frequency
    figure, details JSON, list of differences HTML)``; the details hold the ids, the differing
    ranges, the length shift and every metric (``"metrics"``: :func:`lbpe.analysis.comparison.compare_json` of
    the text) and ``"asked"`` (:func:`asked`: what was asked, which the page checks its controls
    against). For another pair the panes are the left and the right method's, and the details
    name them (``"methods"``).
    """
    was_asked = asked(text, vocab, show_whitespace, show_ids, specials, left, right, dropout, seed)
    methods = (left or "bpe", right or "lbpe")
    rate, seeded = (_rate(dropout), _seed(seed)) if "dropout" in methods else (None, None)
    text, cut = text or "", ""
    if len(text) > common.LIMITS.text_chars:
        cut, text = _cut_note(len(text)), text[: common.LIMITS.text_chars]
    view = compare_view(
        get_tokenizer(vocab, state),
        text,
        show_whitespace=show_whitespace,
        show_ids=show_ids,
        specials=bool(specials),
        again=_recompare(state),
        methods=methods,
        dropout=rate,
        seed=seeded,
    )
    note = f'<p class="lbpe-cut" role="status">{html.escape(cut)}</p>' if cut else ""
    return (
        view["panes"]["bpe"],
        view["panes"]["lbpe"],
        note + view["metrics"],
        _figure(view["figure"]),
        _figure(view["frequency_figure"]),
        {**view["summary"], "length_shift": view["length_shift"], "metrics": view["stats"], "asked": was_asked},
        view["differences"],
    )


def asked(
    text: str | None,
    vocab: Any,
    show_whitespace: Any,
    show_ids: Any,
    specials: Any,
    left: Any,
    right: Any,
    dropout: Any,
    seed: Any,
) -> dict[str, Any]:
    """The inputs of one :func:`compare` call as they arrived, for its answer to carry.

    Two comparisons of one page can be in flight at once and finish in either order; the page
    (app.js) compares an answer's ``asked`` with its controls and asks again when they differ.
    The text travels as its length and CRC-32 in UTF-16 code units (JavaScript's own string
    units, so the page computes the same two numbers without sending the text back). Dropout's
    rate and seed are ``None`` unless dropout is compared, as :func:`compare` reads them: their
    hidden boxes keep a value the comparison is not of."""
    units = (text or "").encode("utf-16-le", "surrogatepass")
    if "dropout" not in (left, right):
        dropout = seed = None

    def plain(value: Any) -> Any:
        if value is None or isinstance(value, (str, bool, int)):
            return value
        return value if isinstance(value, float) and math.isfinite(value) else str(value)

    return {
        "text_units": len(units) // 2,
        "text_crc32": zlib.crc32(units),
        "vocab": plain(vocab),
        "whitespace": plain(show_whitespace),
        "ids": plain(show_ids),
        "specials": plain(specials),
        "left": plain(left),
        "right": plain(right),
        "dropout": plain(dropout),
        "seed": plain(seed),
    }


def compare_key(
    text: str | None,
    vocab: Any,
    show_whitespace: Any,
    show_ids: Any,
    specials: Any,
    left: Any,
    right: Any,
    dropout: Any,
    seed: Any,
) -> str:
    """What identifies the comparison :func:`compare` gives for these inputs (a digest of the
    whole text and every control), or ``""`` when nothing can: a vocabulary uploaded or trained
    (its name may come to stand for another), or dropout without a seed (fresh draws each time).
    Dropout's rate and seed count only while dropout is compared, as :func:`compare` reads them.
    Made and read by the server only; the page keeps it as it is."""
    if vocab not in VOCAB_PRESETS:
        return ""
    rate = seeded = None
    if "dropout" in (left, right):
        try:
            rate, seeded = _rate(dropout), _seed(seed)
        except gr.Error:  # compare says why
            return ""
        if seeded is None:
            return ""
    controls = [vocab, bool(show_whitespace), bool(show_ids), bool(specials), left, right, rate, seeded]
    blob = json.dumps([text or "", *controls], ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def compare_on_page(
    shown: Any,
    text: str,
    vocab: str,
    show_whitespace: bool,
    show_ids: bool,
    state: Any,
    specials: bool,
    left: str,
    right: str,
    dropout: Any,
    seed: Any,
):
    """The page's Compare: :func:`compare` (the same arguments after ``shown``) and the key of
    its answer (:func:`compare_key`). When the page already shows that comparison (``shown`` is
    its key) nothing is computed or sent: setting a link's text, vocabulary and toggles (the
    restore, which draws their panes itself) changes each of them, and every change asks again.

    Returns :func:`compare`'s seven outputs and the key, or eight ``gr.skip()``."""
    key = compare_key(text, vocab, show_whitespace, show_ids, specials, left, right, dropout, seed)
    if key and key == shown:
        return (gr.skip(),) * 8
    answer = compare(text, vocab, show_whitespace, show_ids, state, specials, left, right, dropout, seed)
    return (*answer, key)


def _rate(value: Any) -> float | None:
    """The dropout rate box's value as a number (``None``: empty, which the view says it needs)."""
    if value is None or value == "":
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise gr.Error(f"The dropout rate must be a number from 0 to 1 (e.g. 0.1), not {str(value)[:20]!r}.") from None


def _seed(value: Any) -> int | None:
    """The seed box's value as a whole number (``None``: empty, fresh randomness each time)."""
    return common.whole_number(value, f"The seed must be {display.SEED_RULE}", empty=None, most=display.SEED_MOST)


def pair_controls(left: str = "bpe", right: str = "lbpe"):
    """The methods picked changed: the id boxes' labels name them (each pane's heading, in its
    markup, does already) and the dropout rate and seed show only while one of them is dropout.
    Explain follows the pair with each method's own steps, so the note beside it, which once
    said its steps were BPE's and LBPE's, stays hidden. Returns updates for ``(left ids, right
    ids, dropout rate, seed, explain note)``."""
    names = [display.METHOD_NAMES.get(m, str(m)) for m in (left, right)]
    dropout = "dropout" in (left, right)
    return (
        *(gr.update(label=f"{name} ids") for name in names),
        gr.update(visible=dropout),
        gr.update(visible=dropout),
        gr.update(value="", visible=False),
    )


def _frame(frame: Any) -> int | None:
    """A step slider's value: ``None`` (none given: the last frame), else at least 0."""
    return None if frame is None or frame == "" else max(int(frame), 0)


def _where(where: Any) -> int | None:
    """The hidden box that says where the explained span starts in the Compare text (set by a
    click, an example or a link; empty for a typed word)."""
    try:
        return int(str(where).strip())
    except (TypeError, ValueError):
        return None


def _pair(left: Any, right: Any, dropout: Any, seed: Any) -> dict[str, Any]:
    """The pair the method pickers show, as the views take it (BPE-dropout's rate and seed read
    only while it is one of them)."""
    methods = (left or "bpe", right or "lbpe")
    if "dropout" not in methods:
        return {"methods": methods}
    return {"methods": methods, "dropout": _rate(dropout), "seed": _seed(seed)}


def _explained(
    span: str,
    vocab: str,
    frame: int | None,
    state: Any,
    text: Any,
    where: Any,
    specials: Any,
    left: Any = "bpe",
    right: Any = "lbpe",
    dropout: Any = None,
    seed: Any = None,
) -> ExplainView:
    """:func:`lbpe.playground.service.explain_view` of ``span``, where it stands in the Compare text (its
    part Compare shows) when ``where`` says so and it is still there, else on its own; with the
    pair the Compare view shows (``left``, ``right``, BPE-dropout's ``dropout`` and ``seed``)."""
    return explain_view(
        get_tokenizer(vocab, state),
        span,
        frame,
        text=(text or "")[: common.LIMITS.text_chars],
        at=_where(where),
        specials=bool(specials),
        **_pair(left, right, dropout, seed),
    )


#: What Explain shows for an empty box.
_NOTHING_TO_EXPLAIN_HTML = f'<p class="lbpe-x-prompt">{html.escape(NOTHING_TO_EXPLAIN)}</p>'


@_handler
def explain(
    span: str,
    vocab: str = DEFAULT_PRESET,
    frame: Any = None,
    state: Any = None,
    text: str = "",
    where: Any = "",
    specials: bool = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: Any = None,
    seed: Any = None,
):
    """Both encodings of a word or short span worked step by step (:func:`lbpe.playground.service.explain_view`):
    where it stands in ``text`` when ``where`` (its start there) is given and it is still there
    (a clicked token, an example, a link), else on its own (a typed word); ``specials`` as the
    Compare view's toggle.

    Returns ``(HTML of frame `frame`, the steps as JSON, the step slider's update)``; without
    ``frame`` the last frame (every step done, the reasons the two differ). An empty box gives
    what to do instead, not an error: the text's changes explain the box again, and each would
    fail while it is empty (and Gradio's page drops a word typed while such an event runs)."""
    if not span:
        return _NOTHING_TO_EXPLAIN_HTML, None, gr.update(maximum=1, value=0, interactive=False)
    view = _explained(span, vocab, _frame(frame), state, text, where, specials, left, right, dropout, seed)
    last = view["frames"] - 1
    return view["html"], view["steps"], gr.update(maximum=max(last, 1), value=view["frame"], interactive=last > 0)


def shown_key(html_view: Any, steps: Any) -> str:
    """What identifies an explanation the page shows: its last frame's HTML and its steps."""
    blob = json.dumps([html_view, steps], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def explain_on_page(shown: Any, span: str, *args: Any):
    """The page's Explain: :func:`explain` (the same arguments after ``shown``) and the key of
    its answer (:func:`shown_key`). When the page already shows that explanation (``shown`` is
    its key) nothing changes: Gradio's page runs an event again when a second change came while
    it ran (a click sets the span and its place), and a step the person took meanwhile stays.

    Returns ``(HTML, steps, step slider update, key)``, or four ``gr.skip()``."""
    view, steps, step = explain(span, *args)
    key = shown_key(view, steps)
    if key == shown:
        return gr.skip(), gr.skip(), gr.skip(), gr.skip()
    return view, steps, step, key


@_handler
def explain_frame(
    span: str,
    vocab: str = DEFAULT_PRESET,
    frame: Any = 0,
    state: Any = None,
    text: str = "",
    where: Any = "",
    specials: bool = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: Any = None,
    seed: Any = None,
) -> str:
    """One frame of :func:`explain` (the step slider moved): its HTML. An empty box keeps what
    to do (emptying the box moves the slider back to 0, which asks for a frame)."""
    if not span:
        return _NOTHING_TO_EXPLAIN_HTML
    return _explained(span, vocab, _frame(frame) or 0, state, text, where, specials, left, right, dropout, seed)["html"]


@_handler
def explain_click(
    text: str,
    at: str,
    vocab: str = DEFAULT_PRESET,
    state: Any = None,
    specials: bool = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: Any = None,
    seed: Any = None,
):
    """A click on a token of either pane (``at`` is ``"offset:nonce"``, set by the page's
    script): the span to explain (:func:`lbpe.playground.service.explain_target`).

    Returns ``(span, where it starts in the text)`` for the Explain box and its hidden place."""
    try:
        offset = int(str(at).split(":", 1)[0])
    except ValueError:
        raise gr.Error("Click a token in either pane to explain it.") from None
    shown = (text or "")[: common.LIMITS.text_chars]
    target = explain_target(
        get_tokenizer(vocab, state), shown, offset, specials=bool(specials), **_pair(left, right, dropout, seed)
    )
    return target["span"], str(target["start"])


@_handler
def decode_ids(ids: str, vocab: str = DEFAULT_PRESET, state: Any = None) -> str:
    """Token ids pasted as text (spaces, commas, or a ``[...]`` list), decoded with ``vocab``:
    the text and each id as a token (HTML)."""
    return display.decode_html(get_tokenizer(vocab, state), display.parse_ids(ids))


def ids_text(details: Any) -> tuple[str, str]:
    """The BPE and LBPE ids (the left and the right method's) of the last comparison,
    space-separated, for the copy boxes."""
    if not isinstance(details, dict) or "bpe" not in details:
        return "", ""
    return " ".join(map(str, details["bpe"]["ids"])), " ".join(map(str, details["lbpe"]["ids"]))


def _frames(
    span: str,
    vocab: str,
    state: Any,
    text: Any = "",
    where: Any = "",
    specials: Any = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: Any = None,
    seed: Any = None,
) -> int:
    """Frames of the explanation of ``span`` (1 when it cannot be explained: the Explain view
    already says why)."""
    try:
        return (
            _explained(span, vocab, 0, state, text, where, specials, left, right, dropout, seed)["frames"]
            if span
            else 1
        )
    except (ValueError, gr.Error):
        return 1


def explain_move(
    delta: int,
    frame: Any,
    span: str,
    vocab: str = DEFAULT_PRESET,
    state: Any = None,
    text: str = "",
    where: Any = "",
    specials: bool = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: Any = None,
    seed: Any = None,
) -> int:
    """The Step buttons: the frame ``delta`` away, kept within the explanation."""
    return min(
        max(int(frame or 0) + delta, 0),
        _frames(span, vocab, state, text, where, specials, left, right, dropout, seed) - 1,
    )


def play_step(
    frame: Any,
    span: str,
    vocab: str = DEFAULT_PRESET,
    state: Any = None,
    text: str = "",
    where: Any = "",
    specials: bool = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: Any = None,
    seed: Any = None,
):
    """One tick of Play: the next frame; the timer stops at the last one.

    Returns ``(slider value, timer update)``."""
    last, k = _frames(span, vocab, state, text, where, specials, left, right, dropout, seed) - 1, int(frame or 0) + 1
    return (last, gr.Timer(active=False)) if k >= last else (k, gr.update())


def play_start(
    frame: Any,
    span: str,
    vocab: str = DEFAULT_PRESET,
    state: Any = None,
    text: str = "",
    where: Any = "",
    specials: bool = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: Any = None,
    seed: Any = None,
):
    """Play pressed (from the start when at the end). Returns ``(slider value, timer update)``."""
    last, k = _frames(span, vocab, state, text, where, specials, left, right, dropout, seed) - 1, int(frame or 0)
    return (0 if k >= last else k), gr.Timer(active=last > 0)


#: The Play button's two labels: Play while the steps stand still, Pause while they play.
PLAY, PAUSE = "Play", "Pause"


def play_toggle(
    label: Any,
    frame: Any,
    span: str,
    vocab: str = DEFAULT_PRESET,
    state: Any = None,
    text: str = "",
    where: Any = "",
    specials: bool = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: Any = None,
    seed: Any = None,
):
    """The Play button (``label``: what it reads): Play starts the steps (:func:`play_start`),
    Pause stops them where they are. Returns ``(slider value, timer update, button label)``."""
    if label == PAUSE:
        return gr.update(), gr.Timer(active=False), PLAY
    value, timer = play_start(frame, span, vocab, state, text, where, specials, left, right, dropout, seed)
    return value, timer, PAUSE if timer.active else PLAY


def play_tick(
    label: Any,
    frame: Any,
    span: str,
    vocab: str = DEFAULT_PRESET,
    state: Any = None,
    text: str = "",
    where: Any = "",
    specials: bool = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: Any = None,
    seed: Any = None,
):
    """A tick of Play (:func:`play_step`); the button reads Play again at the last step. A
    tick sent before Pause was pressed (``label``: Play) moves nothing.
    Returns ``(slider value, timer update, button label)``."""
    if label != PAUSE:
        return gr.update(), gr.Timer(active=False), gr.update()
    value, timer = play_step(frame, span, vocab, state, text, where, specials, left, right, dropout, seed)
    return value, timer, PLAY if isinstance(timer, gr.Timer) else gr.update()


@_handler
def load_text(file: Any, state: Any = None):
    """Read an uploaded ``.txt`` file (at most ``text_file_bytes``; the page refuses a larger one
    before sending it) into the text box. Returns ``(text, cleared upload)``; ``state``: the
    session, which keeps why it failed for the note beside the box."""
    paths = _paths(file)
    if not paths:
        raise gr.Error("Choose a .txt file to upload.")
    with _read_once(paths[:1]):
        with _limits.using(common.LIMITS):
            _limits.check("text_file_bytes", paths[0].stat().st_size, paths[0].name)
        text, chars = text_head(paths[0], common.LIMITS.text_chars)
    if chars is None or chars > common.LIMITS.text_chars:
        gr.Warning(_cut_note(chars, paths[0].name), duration=12)
    return text, None
