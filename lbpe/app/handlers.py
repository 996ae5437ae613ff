"""The playground's Gradio handlers: each turns its components' values into one call of
:mod:`lbpe.service` (which the browser page and the CLI share) and the result into component
updates, and says what went wrong as a ``gr.Error`` (never a traceback). Every handler is
reachable through ``gradio_client`` under the ``api_name`` :mod:`lbpe.app.layout` gives it, and
callable without a server (the tests call them directly).

The limits are :data:`lbpe.limits.PLAYGROUND`'s (``LBPE_APP_*``), read once at start-up into
:data:`LIMITS`; downloads go to a private folder swept after ``LBPE_APP_FILE_TTL``.
"""

from __future__ import annotations

import atexit
import functools
import html
import logging
import os
import weakref
from pathlib import Path
from typing import Any

import gradio as gr
import plotly.graph_objects as go

import lbpe
from lbpe import display
from lbpe.errors import LbpeError, PatternNeededError
from lbpe.examples import DEFAULT_EXAMPLE
from lbpe.formats.hf_write import write_tokenizer_json
from lbpe.limits import MB, Limits
from lbpe.presets import DEFAULT_PRESET, sample_corpus
from lbpe.service import (
    AUTO_PATTERN,
    Downloads,
    Session,
    Stopped,
    across_view,
    compare_view,
    corpus_view,
    describe,
    explain_target,
    explain_view,
    link_state,
    open_upload,
    read_upload,
    text_head,
    train_view,
)
from lbpe.tokenizer import Tokenizer

__all__ = [
    "DEFAULT_EXPLAIN",
    "DEFAULT_TEXT",
    "FREQUENCY_TITLE",
    "LIMITS",
    "PATTERN_CHOICES",
    "SAMPLE_NAME",
    "STATS_HEADERS",
    "across",
    "compare",
    "corpus",
    "corpus_sample",
    "decode_ids",
    "describe_vocab",
    "explain",
    "explain_click",
    "explain_frame",
    "explain_move",
    "failure_note",
    "get_tokenizer",
    "ids_text",
    "load_text",
    "new_session",
    "play_start",
    "play_step",
    "restore",
    "stop",
    "train",
    "upload_note",
    "upload_vocab",
    "use_trained",
    "vocab_choices",
]

log = logging.getLogger("lbpe.app")


def _limits_at_start() -> Limits:
    try:
        return Limits.from_env()
    except LbpeError as exc:
        raise SystemExit(str(exc)) from None


LIMITS = _limits_at_start()
_DOWNLOADS = Downloads(ttl=LIMITS.file_ttl)
atexit.register(_DOWNLOADS.remove)


def _mb(n: int) -> str:
    """A playground size as its variables count it (decimal megabytes)."""
    return f"{n / MB:g} MB"


# ---- files, errors, progress ----


def _paths(files: Any) -> list[Path]:
    """Paths of a File component's value (``None``, a path, or a list of paths)."""
    if files is None:
        return []
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    out = []
    for f in files:
        f = f.get("path") if isinstance(f, dict) else f  # a FileData-like value
        if f:
            out.append(Path(f))
    return out


def _discard(paths: list[Path]) -> None:
    """Delete uploaded files (and their folder when it is left empty) once they are read."""
    for p in paths:
        for remove in (p.unlink, p.parent.rmdir):
            try:
                remove()
            except OSError:
                pass


def _kept(path: Path) -> Path:
    """An uploaded Corpus or Train file, which stays usable for the session (Gradio deletes its
    copies after ``LBPE_APP_FILE_TTL``)."""
    if not path.is_file():
        raise gr.Error(
            f"{path.name} is no longer on the server (uploads are kept for "
            f"{LIMITS.file_ttl // 60} minutes); please upload it again."
        )
    return path


#: Per session, the message of the last failure of each handler (by name), until it is shown.
_FAILURES: weakref.WeakKeyDictionary[Session, dict[str, str]] = weakref.WeakKeyDictionary()


def _handler(fn):
    """Turn any failure of ``fn`` into a ``gr.Error`` with a readable message, and keep that
    message for the session (when it is among the arguments) so the page can show it beside
    the control after the notice fades (:func:`failure_note`)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return _readable(fn, *args, **kwargs)
        except gr.Error as exc:
            session = next((a for a in (*args, *kwargs.values()) if isinstance(a, Session)), None)
            if session is not None:
                _FAILURES.setdefault(session, {})[fn.__name__] = str(exc.message)
            raise

    return wrapper


def failure_note(name: str, state: Any = None) -> str:
    """Why handler ``name`` failed last in this session, as a red note (markdown with HTML)
    that stays beside its control until the next action replaces it; empty when it did not."""
    message = _FAILURES.get(state, {}).pop(name, "") if isinstance(state, Session) else ""
    return f'<p class="lbpe-failed" role="alert">{html.escape(message)}</p>' if message else ""


def _readable(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, every failure a ``gr.Error`` with a readable message."""
    try:
        return fn(*args, **kwargs)
    except gr.Error as exc:  # bad input, said in the page: nothing for the server's console
        exc.print_exception = False
        raise
    except (ValueError, UnicodeError) as exc:  # LbpeError and VocabFormatError are ValueErrors
        raise gr.Error(str(exc), print_exception=False) from None
    except RecursionError:
        raise gr.Error("The input is nested too deeply to be read.", print_exception=False) from None
    except MemoryError:
        raise gr.Error(
            "The input needs more memory than this server has; try a smaller one.", print_exception=False
        ) from None
    except Exception as exc:  # a bug: log it here, show a short message there
        log.exception("handler %s failed", fn.__name__)
        raise gr.Error(
            f"Something went wrong ({type(exc).__name__}); the input was not processed. The app is still running.",
            print_exception=False,
        ) from None


def _reporter(progress: Any, session: Session, desc: str):
    """The session's progress callback for a view (it stops at the next step once Stop is
    pressed, and the server's log says what was stopped)."""
    report = session.reporter(lambda fraction: progress(fraction, desc=desc))

    def logged(fraction: float) -> None:
        try:
            report(fraction)
        except Stopped:
            log.info("stopped by the user while %s", desc)
            raise

    return logged


def _figure(spec: dict | None) -> go.Figure | None:
    return go.Figure(spec) if spec is not None else None


# ---- vocabularies: bundled presets plus what this session uploaded or trained ----

PATTERN_CHOICES = [AUTO_PATTERN, "gpt2", "cl100k_base", "o200k_base", "paper"]


def new_session() -> Session:
    """The per-session state (:class:`lbpe.service.Session`)."""
    return Session(keep=LIMITS.session_vocabs)


def _session(state: Any) -> Session:
    return state if isinstance(state, Session) else new_session()


def vocab_choices(state: Any = None) -> list[tuple[str, str]]:
    """The vocabulary picker's ``(label, name)`` pairs (:meth:`lbpe.service.Session.choices`)."""
    return _session(state).choices()


def get_tokenizer(name: str, state: Any = None) -> Tokenizer:
    """A bundled preset by name, or a vocabulary this session uploaded or trained."""
    session = _session(state)
    if name not in session.vocabs and str(name).startswith(("upload: ", "trained: ")):
        raise gr.Error(
            f"Unknown vocabulary “{name}” in this session: an uploaded or trained vocabulary stays in the session "
            f"(browser tab) that made it, and is forgotten after {_duration(LIMITS.session_ttl)} without a request. "
            "Upload it (or train it) again."
        )
    return session.tokenizer(name)


def _duration(seconds: int) -> str:
    """``90`` -> ``"90 seconds"``, ``3600`` -> ``"60 minutes"``."""
    return f"{seconds // 60} minutes" if seconds >= 120 else f"{seconds} seconds"


@_handler
def describe_vocab(vocab: str = DEFAULT_PRESET, state: Any = None) -> str:
    """One line about a vocabulary (markdown): name, size, units."""
    return describe(get_tokenizer(vocab, state))


@_handler
def upload_vocab(files: Any, pattern: str = AUTO_PATTERN, state: Any = None):
    """Read an uploaded vocabulary (data only) into this session and select it.

    Returns ``(state, vocabulary dropdown update, cleared upload)``; selecting the new
    vocabulary redraws Compare and its description.
    """
    session, paths = _session(state), _paths(files)
    try:
        tok = open_upload(paths, pattern=pattern, limits=LIMITS)
    except PatternNeededError as exc:
        raise gr.Error(f"{exc} (in the app: choose the pre-tokenizer next to the upload, then upload again)") from None
    finally:
        _discard(paths)
    label = "gpt2 files" if len(paths) == 2 else paths[0].name
    name = session.remember(f"upload: {label}", tok)
    return session, gr.update(choices=session.choices(), value=name), None


def upload_note(state: Any = None) -> str:
    """After an upload: which vocabulary it dropped to stay within the session's limit
    (markdown beside the upload box), or nothing."""
    note = state.dropped_note() if isinstance(state, Session) else ""
    return f"*{note}*" if note else ""


# ---- Compare and Explain ----

#: The opening text (the first of the examples both UIs share) and the span Explain opens on.
DEFAULT_TEXT = DEFAULT_EXAMPLE.text
DEFAULT_EXPLAIN = DEFAULT_EXAMPLE.explain
#: Title of the frequency-by-length chart.
FREQUENCY_TITLE = "How often a token of each length occurs"


def _cut_note(chars: int | None, name: str = "The text") -> str:
    """What Compare left out of a text over its limit (``chars``: its length, or None when
    only known to be longer), in characters."""
    size = f"has {chars:,} characters" if chars is not None else f"is longer than {LIMITS.text_chars:,} characters"
    return (
        f"{name} {size}; Compare shows its first {LIMITS.text_chars:,}. The Corpus view reads whole files "
        f"(up to {_mb(LIMITS.corpus_bytes)})."
    )


@_handler
def compare(
    text: str,
    vocab: str = DEFAULT_PRESET,
    show_whitespace: bool = True,
    show_ids: bool = False,
    state: Any = None,
    specials: bool = False,
):
    """Both segmentations of ``text`` with ``vocab`` (:func:`lbpe.service.compare_view`).

    Returns ``(BPE pane HTML, LBPE pane HTML, metrics HTML, token-length figure, frequency
    figure, details JSON, list of differences HTML)``; the details hold the ids, the differing
    ranges, the length shift and every metric (``"metrics"``: :func:`lbpe.stats.compare_json` of
    the text).
    """
    text, cut = text or "", ""
    if len(text) > LIMITS.text_chars:
        cut, text = _cut_note(len(text)), text[: LIMITS.text_chars]
    view = compare_view(
        get_tokenizer(vocab, state),
        text,
        show_whitespace=show_whitespace,
        show_ids=show_ids,
        specials=bool(specials),
        lengths_chart={"title": "Token lengths, BPE vs LBPE"},
        frequency_chart={"title": FREQUENCY_TITLE},
    )
    note = f'<p class="lbpe-cut" role="status">{html.escape(cut)}</p>' if cut else ""
    return (
        view["panes"]["bpe"],
        view["panes"]["lbpe"],
        note + view["metrics"],
        _figure(view["figure"]),
        _figure(view["frequency_figure"]),
        {**view["summary"], "length_shift": view["length_shift"], "metrics": view["stats"]},
        view["differences"],
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


def _explained(span: str, vocab: str, frame: int | None, state: Any, text: Any, where: Any, specials: Any) -> dict:
    """:func:`lbpe.service.explain_view` of ``span``, where it stands in the Compare text (its
    part Compare shows) when ``where`` says so and it is still there, else on its own."""
    return explain_view(
        get_tokenizer(vocab, state),
        span,
        frame,
        text=(text or "")[: LIMITS.text_chars],
        at=_where(where),
        specials=bool(specials),
    )


@_handler
def explain(
    span: str,
    vocab: str = DEFAULT_PRESET,
    frame: Any = None,
    state: Any = None,
    text: str = "",
    where: Any = "",
    specials: bool = False,
):
    """Both encodings of a word or short span worked step by step (:func:`lbpe.service.explain_view`):
    where it stands in ``text`` when ``where`` (its start there) is given and it is still there
    (a clicked token, an example, a link), else on its own (a typed word); ``specials`` as the
    Compare view's toggle.

    Returns ``(HTML of frame `frame`, the steps as JSON, the step slider's update)``; without
    ``frame`` the last frame (every step done, the reasons the two differ)."""
    view = _explained(span, vocab, _frame(frame), state, text, where, specials)
    last = view["frames"] - 1
    return view["html"], view["steps"], gr.update(maximum=max(last, 1), value=view["frame"], interactive=last > 0)


@_handler
def explain_frame(
    span: str,
    vocab: str = DEFAULT_PRESET,
    frame: Any = 0,
    state: Any = None,
    text: str = "",
    where: Any = "",
    specials: bool = False,
) -> str:
    """One frame of :func:`explain` (the step slider moved): its HTML."""
    return _explained(span, vocab, _frame(frame) or 0, state, text, where, specials)["html"] if span else ""


@_handler
def explain_click(text: str, at: str, vocab: str = DEFAULT_PRESET, state: Any = None, specials: bool = False):
    """A click on a token of either pane (``at`` is ``"offset:nonce"``, set by the page's
    script): the span to explain (:func:`lbpe.service.explain_target`).

    Returns ``(span, where it starts in the text)`` for the Explain box and its hidden place."""
    try:
        offset = int(str(at).split(":", 1)[0])
    except ValueError:
        raise gr.Error("Click a token in either pane to explain it.") from None
    shown = (text or "")[: LIMITS.text_chars]
    target = explain_target(get_tokenizer(vocab, state), shown, offset, specials=bool(specials))
    return target["span"], str(target["start"])


@_handler
def decode_ids(ids: str, vocab: str = DEFAULT_PRESET, state: Any = None) -> str:
    """Token ids pasted as text (spaces, commas, or a ``[...]`` list), decoded with ``vocab``:
    the text and each id as a token (HTML)."""
    return display.decode_html(get_tokenizer(vocab, state), display.parse_ids(ids))


def ids_text(details: Any) -> tuple[str, str]:
    """The BPE and LBPE ids of the last comparison, space-separated, for the copy boxes."""
    if not isinstance(details, dict) or "bpe" not in details:
        return "", ""
    return " ".join(map(str, details["bpe"]["ids"])), " ".join(map(str, details["lbpe"]["ids"]))


def _frames(span: str, vocab: str, state: Any, text: Any = "", where: Any = "", specials: Any = False) -> int:
    """Frames of the explanation of ``span`` (1 when it cannot be explained: the Explain view
    already says why)."""
    try:
        return _explained(span, vocab, 0, state, text, where, specials)["frames"] if span else 1
    except ValueError:
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
) -> int:
    """The Step buttons: the frame ``delta`` away, kept within the explanation."""
    return min(max(int(frame or 0) + delta, 0), _frames(span, vocab, state, text, where, specials) - 1)


def play_step(
    frame: Any,
    span: str,
    vocab: str = DEFAULT_PRESET,
    state: Any = None,
    text: str = "",
    where: Any = "",
    specials: bool = False,
):
    """One tick of Play: the next frame; the timer stops at the last one.

    Returns ``(slider value, timer update)``."""
    last, k = _frames(span, vocab, state, text, where, specials) - 1, int(frame or 0) + 1
    return (last, gr.Timer(active=False)) if k >= last else (k, gr.update())


def play_start(
    frame: Any,
    span: str,
    vocab: str = DEFAULT_PRESET,
    state: Any = None,
    text: str = "",
    where: Any = "",
    specials: bool = False,
):
    """Play pressed (from the start when at the end). Returns ``(slider value, timer update)``."""
    last, k = _frames(span, vocab, state, text, where, specials) - 1, int(frame or 0)
    return (0 if k >= last else k), gr.Timer(active=last > 0)


@_handler
def load_text(file: Any):
    """Read an uploaded ``.txt`` file into the text box. Returns ``(text, cleared upload)``."""
    paths = _paths(file)
    if not paths:
        raise gr.Error("Choose a .txt file to upload.")
    try:
        text, chars = text_head(paths[0], LIMITS.text_chars)
    finally:
        _discard(paths)
    if chars is None or chars > LIMITS.text_chars:
        gr.Warning(_cut_note(chars, paths[0].name), duration=12)
    return text, None


# ---- Corpus, Across vocabularies, Train ----

STATS_HEADERS = display.STATS_HEADERS
#: How the sample corpus is named in results and downloads.
SAMPLE_NAME = "sample-corpus.txt"


@_handler
def corpus(file: Any, vocab: str = DEFAULT_PRESET, state: Any = None, progress: gr.Progress = gr.Progress()):
    """Statistics of an uploaded text file for BPE and LBPE (:func:`lbpe.service.corpus_view`).

    Returns ``(table rows, token-length figure, frequency figure, JSON file, CSV file, status
    markdown)``; the JSON is :func:`lbpe.stats.compare_json`, the CSV :func:`lbpe.display.stats_csv`.
    """
    paths = _paths(file)
    if not paths:
        raise gr.Error("Choose a text file for the corpus statistics, or press Use the sample corpus.")
    data = read_upload(_kept(paths[0]), "corpus_bytes", limits=LIMITS)
    return _corpus(data, paths[0].name, vocab, state, progress)


@_handler
def corpus_sample(vocab: str = DEFAULT_PRESET, state: Any = None, progress: gr.Progress = gr.Progress()):
    """:func:`corpus` of the bundled sample corpus (1.5 MB of prose, speeches, code and many
    languages; ``lbpe/data/sample/corpus.json`` says where each part comes from)."""
    return _corpus(sample_corpus(), SAMPLE_NAME, vocab, state, progress)


def _corpus(data: bytes, name: str, vocab: str, state: Any, progress: Any):
    tok = get_tokenizer(vocab, state)
    report = _reporter(progress, _session(state), f"{name} with {tok.name}: encoding with BPE and LBPE")
    try:
        view = corpus_view(
            tok,
            data,
            name,
            progress=report,
            lengths_chart={"title": f"Token lengths in {name}"},
            frequency_chart={"title": f"Occurrences per token, {name}"},
        )
    except Stopped as stop:
        status = (
            f"Stopped at {stop.fraction:.0%} of {name} with **{tok.name}**: nothing is shown for a "
            "part of a file. Press Compute statistics to run it again."
        )
        return [], None, None, None, None, status
    json_path = _DOWNLOADS.write(f"{view['stem']}-stats.json", view["json"])
    csv_path = _DOWNLOADS.write(f"{view['stem']}-stats.csv", view["csv"])
    return view["rows"], _figure(view["figure"]), _figure(view["frequency_figure"]), json_path, csv_path, view["status"]


@_handler
def across(text: str, file: Any = None, state: Any = None, progress: gr.Progress = gr.Progress()):
    """The Compare text, or an uploaded text file, encoded with every bundled vocabulary and
    every one this session uploaded or trained, in both modes (:func:`lbpe.service.across_view`).

    Returns ``(table rows, Plotly figure, JSON file, CSV file, status markdown, cleared upload)``
    (an upload is read, then deleted: the box is emptied to say so); the JSON is
    ``{"source", "vocabularies": [lbpe.stats.compare_json summary + "n_vocab", ...]}``.
    """
    paths, session = _paths(file), _session(state)
    data: bytes | None = None
    if paths:
        try:
            data = read_upload(paths[0], "corpus_bytes", limits=LIMITS)
        finally:
            _discard(paths)
        source = paths[0].name
    else:
        text = text or ""
        if not text.strip():
            raise gr.Error("Type or paste a text in the Compare tab, or choose a text file here.")
        if len(text) > LIMITS.text_chars:
            raise gr.Error(
                f"The text has {len(text):,} characters; at most {LIMITS.text_chars:,} come from the text "
                "box (set LBPE_APP_MAX_TEXT_CHARS). Upload it as a file for more."
            )
        source = "the Compare text"
    tokenizers = {name: session.tokenizer(name) for _, name in session.choices()}
    try:
        view = across_view(
            tokenizers,
            text=text,
            data=data,
            source=source,
            progress=_reporter(progress, session, f"{source}: encoding with every vocabulary"),
            chart={"title": f"LBPE vs BPE on {source}, per vocabulary"},
        )
    except Stopped as stop:
        return [], None, None, None, f"Stopped at {stop.fraction:.0%} of {source}.", None
    stem = Path(source).stem if paths else "text"
    json_path = _DOWNLOADS.write(f"{stem}-across.json", view["json"])
    csv_path = _DOWNLOADS.write(f"{stem}-across.csv", view["csv"])
    status = view["status"] + " Click a column header to sort."
    return view["rows"], _figure(view["figure"]), json_path, csv_path, status, None


@_handler
def train(
    files: Any,
    vocab_size: float = 8000,
    unit: str = "char",
    scaffold: bool = False,
    state: Any = None,
    progress: gr.Progress = gr.Progress(),
    style: str = "gpt2",
):
    """Train a vocabulary on uploaded text files (:func:`lbpe.service.train_view`); keep it in
    the session for Compare. ``style``: ``"gpt2"`` (the paper's pre-tokenizer) or ``"llama"``
    (SentencePiece's way, characters with byte fallback).

    Returns ``(state, vocabulary dropdown update, tokenizer.json file, status markdown)``.
    """
    session, paths = _session(state), [_kept(p) for p in _paths(files)]
    size, names = int(vocab_size or 0), ", ".join(p.name for p in paths)
    report = _reporter(progress, session, f"{names}: counting pre-tokens")
    merging = _reporter(progress, session, f"{names}: merging")
    try:
        trained = train_view(
            paths,
            vocab_size=size,
            style=style,
            unit=unit,
            pattern=None if style == "llama" else "paper",
            scaffold=bool(scaffold),
            limits=LIMITS,
            max_vocab=LIMITS.train_vocab,
            read_progress=lambda done, total: report(done / max(total, 1)),
            progress=lambda done, wanted: merging(done / max(wanted, 1)),
        )
    except Stopped as stop:
        status = (
            f"Stopped at {stop.fraction:.0%} of training a {size:,}-token {unit} vocabulary on {names}; "
            "nothing was kept. Press Train to start again."
        )
        return session, gr.update(), None, status
    corpus_name = paths[0].name if len(paths) == 1 else f"{len(paths)} files"
    kind = f"{size} {unit}{' scaffold' if scaffold else ''}{' llama' if style == 'llama' else ''}"
    path = _DOWNLOADS.write(f"tokenizer-{kind.replace(' ', '-')}.json", b"")
    write_tokenizer_json(trained["vocab"], path)  # in the style and with the preset it was trained with
    tok = lbpe.load(path)  # exactly what the download holds
    session.trained = name = session.remember(f"trained: {kind} on {corpus_name}", tok)
    status = f"Done: **{name}**, {trained['message']} ({names}). Download it below, or use it in Compare."
    if session.dropped:
        status += " " + session.dropped_note()
    return session, gr.update(choices=session.choices()), path, status


@_handler
def stop(state: Any = None) -> None:
    """Stop this session's running corpus statistics or training (at its next progress step)."""
    if isinstance(state, Session):
        state.stop = True


@_handler
def use_trained(state: Any = None):
    """Select the vocabulary trained last in this session and switch to Compare.

    Returns ``(vocabulary dropdown update, tabs update)``.
    """
    session = _session(state)
    if not session.trained or session.trained not in session.vocabs:
        raise gr.Error("Train a vocabulary first (or it was dropped: only the latest few are kept).")
    return gr.update(choices=session.choices(), value=session.trained), gr.update(selected="compare")


# ---- links: the view's state in the URL query ----


def _link_note(text: str) -> str:
    return f'<span class="lbpe-link-note" role="status">{html.escape(text)}</span>'


def restore(request: gr.Request):
    """Page load: apply the link's query (:func:`lbpe.service.link_state`). Returns updates for
    ``(text, vocabulary, whitespace, ids, specials, explain span, where it starts in the text,
    tabs, link note)``; a span without a place is explained on its own."""
    wanted = link_state(dict(request.query_params) if request is not None else {}, text_chars=LIMITS.text_chars)
    keep = gr.update()
    picked = [wanted.get(key, keep) for key in ("text", "vocab", "show_whitespace", "show_ids", "specials", "explain")]
    # where the span stands in the text: the link's, else the opening span's
    picked.append(
        str(wanted.get("explain_at", "")) if "explain" in wanted else str(DEFAULT_TEXT.index(DEFAULT_EXPLAIN))
    )
    tabs = gr.update(selected=wanted["view"]) if "view" in wanted else keep
    note = "About this link: " + " ".join(wanted["notes"]) if wanted["notes"] else ""
    return (*picked, tabs, _link_note(note))
