"""The browser page: what its Web Worker calls, inside Pyodide (``static/worker.js``); the site
that serves it is assembled by :mod:`lbpe.playground.page.site` (``lbpe build-web``), which the page's own
wheel leaves out.

Every function takes plain values and returns a JSON string, so the worker hands results to
the page unchanged and the page only inserts the HTML and draws the chart. The same functions
run in CPython, where the tests compare their results with the library's.

State is one current tokenizer per worker (the page compares one vocabulary at a time).

>>> json.loads(use_preset("gpt2"))["n_vocab"]
50257
>>> json.loads(encode("Hello world", "bpe"))
[15496, 995]
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Literal, cast

from lbpe.analysis.counting import vocab_tokens
from lbpe.errors import LbpeError, PatternNeededError
from lbpe.playground import display
from lbpe.playground.examples import EXAMPLES, examples_json
from lbpe.playground.service import (
    DEFAULT_DROPOUT,
    across_view,
    compare_view,
    explain_target,
    explain_view,
    file_stem,
    link_state,
    methods_view,
    open_vocabulary,
)
from lbpe.playground.service.shared import FIRST_USE_TEXTS
from lbpe.playground.service.visitors import for_visitors
from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS, load_preset, preset_path
from lbpe.tokenizer import METHODS, MODES, Mode, Tokenizer

__all__ = [
    "preset_target",
    "use_preset",
    "use_file",
    "compare",
    "across",
    "across_methods",
    "link_axis",
    "encode",
    "bench",
    "css",
    "MAX_RENDER_CHARS",
    "examples",
    "explain",
    "explain_at",
    "decode",
    "first_view",
    "link_methods",
    "methods",
]

#: Longer texts are counted in full but drawn only up to here (tens of thousands of spans
#: already take the browser a while to lay out).
MAX_RENDER_CHARS = 60_000

_state: dict[str, object] = {"tok": None, "source": "", "shown": None, "differ": ()}

#: The last comparison, so that an edit of its text costs what the edit changed.
_again = display.Recompare()


def _tok() -> Tokenizer:
    tok = _state["tok"]
    if tok is None:
        raise LbpeError("no vocabulary loaded yet")
    return tok  # type: ignore[return-value]


def _info(tok: Tokenizer, source: str) -> str:
    return json.dumps(
        {
            "name": tok.name,
            "source": source,
            "unit": tok.vocab.unit,
            "n_vocab": tok.n_vocab,
            "tokens": vocab_tokens(tok),
            "pattern": tok.pretokenizer_name,
            "special": len(tok.vocab.special),
        }
    )


def preset_target(name: str) -> str:
    """JSON ``{"url": relative URL in the site, "path": where lbpe.presets reads it}``."""
    if name not in VOCAB_PRESETS:
        raise LbpeError(f"unknown vocabulary preset {name!r}; choose one of: {', '.join(VOCAB_PRESETS)}")
    return json.dumps({"url": "vocab/" + VOCAB_PRESETS[name][0], "path": str(preset_path(name))})


def use_preset(name: str) -> str:
    """Make a bundled preset the current vocabulary (its file must be in place); its info."""
    tok = load_preset(name)
    _state["tok"], _state["source"] = tok, "preset"
    return _info(tok, "preset")


def told(message: str) -> str:
    """An error's message as a visitor of the page is shown it: the page has no environment to
    set, so the clauses naming lbpe's variables say what a visitor can do instead
    (:func:`lbpe.playground.service.visitors.for_visitors`). The worker passes every error
    through it."""
    return for_visitors(message, place="this page")


def use_file(path: str, pattern: str = "") -> str:
    """Load a vocabulary file (or a folder, for GPT-2's encoder.json + vocab.bpe) with
    :func:`lbpe.load` and make it current; its info, or ``{"error": message, "needs_pattern":
    bool}`` (``needs_pattern``: a rank file whose name does not tell its pre-tokenizer).

    The file is parsed as data by the library's loaders; nothing in it is executed. Messages
    name the file as the person chose it, not the folder the page wrote it to.
    """
    p = Path(path)
    try:
        tok = open_vocabulary(
            p,
            pattern=pattern,
            scratch=p if p.is_dir() else p.parent,
            shown="encoder.json + vocab.bpe" if p.is_dir() else p.name,
        )
    except PatternNeededError as exc:
        return json.dumps(
            {
                "error": f"{exc.source}: the file name does not tell which pre-tokenizer this rank file uses; "
                "choose one in the pre-tokenizer menu",
                "needs_pattern": True,
            }
        )
    except LbpeError as exc:
        return json.dumps({"error": told(str(exc)), "needs_pattern": False})
    _state["tok"], _state["source"] = tok, "file"
    return _info(tok, "file")


def warm() -> str:
    """Compare :data:`~lbpe.playground.service.shared.FIRST_USE_TEXTS` with the current
    vocabulary: its one-off tables (:func:`lbpe.playground.service.shared.prepared`, which every
    compare runs first) and the views' own are then built, so the next request costs only its
    text. The worker runs it as a preset or a file loads, under that load's deadline: a
    compare's deadline, which follows its text's length, then never counts a first use's
    seconds. ``{"seconds"}``: how long it took."""
    t0 = time.perf_counter()
    _tok()  # no vocabulary yet: said, not taken for a character without a token below
    for text in FIRST_USE_TEXTS:
        try:
            compare(text)
        except LbpeError:  # a character without a token: prepared() built what it could
            continue
    return json.dumps({"seconds": time.perf_counter() - t0})


def encode(text: str, mode: Mode) -> str:
    """The ids of ``text`` (special-token strings encoded as ordinary text)."""
    return json.dumps(_tok().encode(text, mode=mode, disallowed_special=()))


def bench(text: str, mode: Mode, repeat: int = 3) -> str:
    """Encoding time of ``text``: ``{"cold", "warm", "tokens", "chars", "bytes"}`` where
    ``cold`` is the best of ``repeat`` runs each starting with empty piece caches and ``warm``
    the best of ``repeat`` runs after them (caches filled). The same code times CPython and
    Pyodide (``bench/web_speed.py``)."""
    tok = _tok()
    cold = warm = float("inf")
    n = 0
    for _ in range(max(1, repeat)):
        tok.clear_cache()
        t0 = time.perf_counter()
        n = len(tok.encode(text, mode=mode, disallowed_special=()))
        cold = min(cold, time.perf_counter() - t0)
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        tok.encode(text, mode=mode, disallowed_special=())
        warm = min(warm, time.perf_counter() - t0)
    size = len(text.encode("utf-8", "replace"))
    return json.dumps({"cold": cold, "warm": warm, "tokens": n, "chars": len(text), "bytes": size})


def css() -> str:
    """Styles of the token HTML, the same stylesheet the Gradio app uses."""
    return display.CSS


def _shown_part(text: str) -> str:
    """``text``, or its first :data:`MAX_RENDER_CHARS` characters cut at a line end when one
    is near."""
    if len(text) <= MAX_RENDER_CHARS:
        return text
    cut = text.rfind("\n", MAX_RENDER_CHARS // 2, MAX_RENDER_CHARS)
    return text[: cut + 1] if cut >= 0 else text[:MAX_RENDER_CHARS]


def compare(
    text: str,
    show_whitespace: bool = True,
    show_ids: bool = False,
    specials: bool = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: float | None = None,
    seed: int | None = None,
) -> str:
    """Everything the page shows for ``text``: :func:`lbpe.playground.service.compare_view` (the schema the
    Gradio app uses too) plus ``{"chars", "bytes", "shown_chars", "names", "whole": {role: tokens} | None}``.
    A text over :data:`MAX_RENDER_CHARS` characters is drawn, measured and charted on its first
    part; ``whole`` then counts all of it.

    ``left`` and ``right``: the two methods compared (:data:`lbpe.METHODS`; BPE and LBPE unless
    told otherwise), with BPE-dropout's ``dropout`` rate and ``seed`` when one of them is
    dropout (``None``: none given). The keys ``"bpe"`` and ``"lbpe"`` are the roles left and
    right; ``"names"`` says what each role shows (``{"bpe": "Longest prefix", ...}``).
    """
    tok = _tok()
    shown = _shown_part(text)
    rate = None if dropout is None else float(dropout)  # JavaScript's 1 arrives as an int
    seeded = None if seed is None else int(seed)
    pair = display.check_methods((left, right), rate, seeded)
    view = compare_view(
        tok,
        shown,
        show_whitespace=show_whitespace,
        show_ids=show_ids,
        specials=bool(specials),
        lengths_chart={"height": 460},
        frequency_chart={"height": 380},
        again=_again,
        methods=pair,
        dropout=rate,
        seed=seeded,
    )
    # for explain_at: the ranges where the pair differs, which Explain steps through (never kept
    # for BPE-dropout's fresh draws, which differ on every call)
    fresh = "dropout" in pair and seeded is None
    _state["shown"] = None if fresh else (tok, shown, bool(specials), pair, rate, seeded)
    _state["differ"] = () if fresh else view["differ"]
    names = {
        role: f"{display.METHOD_NAMES[m]} {rate:g}" if m == "dropout" else display.METHOD_NAMES[m]
        for role, m in zip(MODES, pair, strict=True)
    }
    out = {
        "chars": len(text),
        "bytes": len(text.encode("utf-8", "replace")),
        "shown_chars": len(shown),
        **{key: value for key, value in view.items() if key != "differ"},
        "names": names,
        "whole": None,
    }
    if len(shown) < len(text):
        allowed: Literal["all"] | frozenset[str] = "all" if specials else frozenset()
        out["whole"] = {
            role: len(
                tok.encode(
                    text,
                    mode=method,
                    allowed_special=allowed,
                    disallowed_special=(),
                    dropout=rate if method == "dropout" else None,
                    seed=seeded if method == "dropout" else None,
                )
            )
            for role, method in zip(MODES, pair, strict=True)
        }
    return json.dumps(out)


def methods() -> str:
    """The inference methods the page's pickers offer, as a JSON list of ``[method, display
    name]`` (:data:`lbpe.METHODS`, in their order)."""
    return json.dumps([[m, display.METHOD_NAMES[m]] for m in METHODS])


def link_methods(spec: str, rate: str = "", seed: str = "") -> str:
    """A link's pair of methods, read as the app reads its links
    (:func:`lbpe.playground.service.link_state` of ``m``, ``dr`` and ``seed``): JSON ``{"methods":
    [left, right], "dropout", "seed", "error"}``; a pair that cannot be compared gives BPE and LBPE
    and ``"error"`` says why (empty when there is nothing to say).

    >>> json.loads(link_methods("nonsense"))["methods"]
    ['bpe', 'lbpe']
    """
    params = {"m": spec}
    if rate:
        params["dr"] = rate
    if seed:
        params["seed"] = seed
    wanted = link_state(params, text_chars=0)
    methods = wanted.get("methods", display.DEFAULT_METHODS)
    return json.dumps(
        {
            "methods": list(methods),
            "dropout": wanted.get("dropout"),
            "seed": wanted.get("seed"),
            "error": " ".join(wanted["notes"]),
        }
    )


def across(text: str) -> str:
    """``text`` (its shown part, as :func:`compare`) with every bundled vocabulary, and with
    the current one when it came from a file; their files must be in place (the worker fetches
    them first). :func:`lbpe.playground.service.across_view` (as the Gradio app) plus ``"shown_chars"``."""
    shown = _shown_part(text)
    tokenizers = {name: load_preset(name) for name in VOCAB_PRESETS}
    if _state["source"] == "file":
        tok = _tok()
        tokenizers[tok.name if tok.name and tok.name not in tokenizers else "your file"] = tok
    view = across_view(tokenizers, text=shown)
    return json.dumps({**{key: value for key, value in view.items() if key != "json"}, "shown_chars": len(shown)})


def across_methods(
    text: str, methods: str = "all", dropout: float | None = DEFAULT_DROPOUT, seed: int | None = 0
) -> str:
    """The Across view's methods axis: ``text`` (its shown part, as :func:`compare`, so the work
    stays within the worker's deadline) encoded with the current vocabulary by every method of
    ``methods`` (``"bpe,least-tokens"`` or ``"all"``), with BPE-dropout's ``dropout`` rate and
    ``seed`` when it is among them (the view's 0.1 and 0 unless given; a ``None`` seed draws afresh;
    both ignored otherwise, as a form's hidden boxes keep their values).
    :func:`lbpe.playground.service.methods_view` (as the Gradio app and ``lbpe stats --methods``)
    plus ``"shown_chars"``, ``"vocab"`` and ``"stem"`` (the downloads' file-name stem); an
    unknown method, no method or a bad rate raises :class:`~lbpe.errors.LbpeError` saying what
    to pass.

    >>> use_preset("gpt2") and None
    >>> view = json.loads(across_methods("Hello world", "bpe,lbpe"))
    >>> [(row[0], row[1]) for row in view["rows"]]
    [('bpe', 2), ('lbpe', 2)]
    """
    tok = _tok()
    shown = _shown_part(text)
    rate = None if dropout is None else float(dropout)  # JavaScript's 1 arrives as an int
    seeded = None if seed is None else int(seed)
    view = methods_view(
        tok,
        text=shown,
        source="the text",
        methods=methods,
        dropout=rate,
        seed=seeded,
        chart={"title": f"Each method vs BPE on this text, {tok.name}"},
    )
    kept = {key: value for key, value in view.items() if key != "table"}  # the page sorts its own table
    return json.dumps({**kept, "shown_chars": len(shown), "vocab": tok.name, "stem": f"text-{file_stem(tok.name)}"})


def link_axis(axis: str, spec: str = "", rate: str = "", seed: str = "") -> str:
    """A link's Across axis, read as the app reads its links (:func:`lbpe.playground.service.link_state`
    of ``ax``, ``ms``, ``mdr`` and ``mseed``): JSON ``{"axis": "vocabularies" | "methods",
    "methods": [...], "dropout", "seed", "error"}``. Without ``ms``, or with methods that cannot
    be shown, every method of :data:`lbpe.METHODS` (with dropout's rate and seed as given, else
    ``None``); an axis that is neither gives vocabularies. ``"error"`` says what was left out
    (empty when there is nothing to say).

    >>> json.loads(link_axis("methods", "lbpe,bpe"))["methods"]
    ['lbpe', 'bpe']
    >>> json.loads(link_axis("sideways"))["axis"]
    'vocabularies'
    """
    params = {"ax": axis}
    for key, value in (("ms", spec), ("mdr", rate), ("mseed", seed)):
        if value:
            params[key] = value
    wanted = link_state(params, text_chars=0)
    return json.dumps(
        {
            "axis": wanted.get("axis", "vocabularies"),
            "methods": list(wanted.get("axis_methods", METHODS)),
            "dropout": wanted.get("axis_dropout"),
            "seed": wanted.get("axis_seed"),
            "error": " ".join(wanted["notes"]),
        }
    )


def examples() -> str:
    """The examples both UIs share (:mod:`lbpe.playground.examples`), as a JSON list."""
    return json.dumps(examples_json())


def _pair(left: str, right: str, dropout: float | None, seed: int | None) -> dict[str, Any]:
    """The pair as the views take it (JavaScript's numbers made Python's; BPE-dropout's options
    only while it is one of the two)."""
    if "dropout" not in (left, right):
        return {"methods": (left, right)}
    rate = None if dropout is None else float(dropout)
    return {"methods": (left, right), "dropout": rate, "seed": None if seed is None else int(seed)}


def explain(
    span: str,
    frame: int = -1,
    text: str = "",
    at: int = -1,
    specials: bool = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: float | None = None,
    seed: int | None = None,
) -> str:
    """``span`` worked step by step with the current vocabulary:
    :func:`lbpe.playground.service.explain_view` (``frame`` -1: the last); where it starts at ``at`` in
    ``text`` (its drawn part, as :func:`compare` with ``specials`` encodes it) when ``at`` is 0 or
    more and the span is still there, else on its own. ``left``, ``right``, ``dropout``, ``seed``:
    the pair compared, as :func:`compare` takes it; each method shows its own steps."""
    where = int(at) if at is not None and int(at) >= 0 else None
    shown = _shown_part(text or "") if where is not None else None
    frame_ = None if frame is None else int(frame)
    pair = _pair(left, right, dropout, seed)
    return json.dumps(explain_view(_tok(), span, frame_, text=shown, at=where, specials=bool(specials), **pair))


def explain_at(
    text: str,
    offset: int,
    specials: bool = False,
    left: str = "bpe",
    right: str = "lbpe",
    dropout: float | None = None,
    seed: int | None = None,
) -> str:
    """What to explain for a click at character ``offset`` of ``text``:
    :func:`lbpe.playground.service.explain_target` (``{"start", "end", "span"}``; :func:`explain` of the
    span with ``at=start`` explains it there), for the pair compared."""
    tok = _tok()
    shown = _shown_part(text)
    pair = _pair(left, right, dropout, seed)
    # the ranges compare() kept for this text, vocabulary, toggle and pair; else explain_target finds them
    key = (tok, shown, bool(specials), tuple(pair["methods"]), pair.get("dropout"), pair.get("seed"))
    kept = _state["shown"] == key
    differ = cast("list[tuple[int, int]]", _state["differ"]) if kept else None
    return json.dumps(explain_target(tok, shown, int(offset), differ, specials=bool(specials), **pair))


def decode(ids: str) -> str:
    """Token ids pasted as text, decoded with the current vocabulary: ``{"html"}`` (the text and
    each id as a token, :func:`lbpe.playground.display.decode_html`)."""
    return json.dumps({"html": display.decode_html(_tok(), display.parse_ids(ids))})


def first_view() -> str:
    """The page's opening comparison, computed when the site is built (``lbpe build-web``) so
    the page can draw it before Python has started: JSON ``{"text", "preset", "explain",
    "css", "result"}`` where ``result`` is what the page draws of :func:`compare` of the opening
    text (the first example made for the default vocabulary, as ``static/app.js`` picks it) with
    the default toggles: the panes, metrics and differences (HTML), the summary (ids, counts)
    and the sizes. The charts and raw metrics are left to Python in the page: their floats can
    differ in the last digit between CPython's and Pyodide's maths libraries. The current
    vocabulary is left as it was."""
    opening = next((e for e in EXAMPLES if e.vocabulary == DEFAULT_PRESET), EXAMPLES[0])
    kept = dict(_state)
    try:
        use_preset(DEFAULT_PRESET)
        view = json.loads(compare(opening.text, True, False, False))
    finally:
        _state.clear()
        _state.update(kept)
    result = {key: view[key] for key in FIRST_VIEW_KEYS}
    return json.dumps(
        {"text": opening.text, "preset": DEFAULT_PRESET, "explain": opening.explain, "css": css(), "result": result}
    )


#: What :func:`first_view` keeps of :func:`compare`: what the page draws without Python.
FIRST_VIEW_KEYS = (
    "panes",
    "metrics",
    "differences",
    "summary",
    "chars",
    "bytes",
    "shown_chars",
    "whole",
    "methods",
    "names",
)
