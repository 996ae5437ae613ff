"""The playground's Gradio handlers: each turns its components' values into one call of
:mod:`lbpe.playground.service` (which the browser page and the CLI share) and the result into component
updates, and says what went wrong as a ``gr.Error`` (never a traceback). Every handler is
reachable through ``gradio_client`` under the ``api_name`` :mod:`lbpe.playground.app.layout` gives it, and
callable without a server (the tests call them directly).

The limits are :data:`lbpe.limits.PLAYGROUND`'s (``LBPE_APP_*``), read once at start-up into
:data:`LIMITS`; downloads go to a private folder swept after ``LBPE_APP_FILE_TTL``, uploads are
deleted once no session can need them (:class:`lbpe.playground.service.Uploads`), both on a timer and when
the server stops (:func:`sweep_files`). Messages shown to visitors never name the server's
variables (the server's log does). The long jobs (Corpus, Across, Train) run one of a kind per
session, Train within ``LBPE_APP_TRAIN_SECONDS``, and each stops at its next progress step
when its client has gone away.
"""

from __future__ import annotations

import atexit
import functools
import html
import logging
import os
import re
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr
import plotly.graph_objects as go

from lbpe.errors import LbpeError, PatternNeededError
from lbpe.formats.hf_write import write_tokenizer_json
from lbpe.limits import MB, Limits
from lbpe.playground import display
from lbpe.playground.app.addresses import trusted_proxies, visitor_address
from lbpe.playground.examples import DEFAULT_EXAMPLE
from lbpe.playground.service import (
    AUTO_PATTERN,
    Downloads,
    ExplainView,
    Session,
    Stopped,
    TrainTimeError,
    Uploads,
    across_view,
    compare_view,
    corpus_view,
    describe,
    explain_target,
    explain_view,
    link_state,
    open_upload,
    open_vocabulary,
    read_upload,
    text_head,
    train_view,
)
from lbpe.presets import DEFAULT_PRESET, sample_corpus
from lbpe.tokenizer import Tokenizer

__all__ = [
    "DEFAULT_EXPLAIN",
    "DEFAULT_TEXT",
    "LIMITS",
    "TRUSTED_PROXIES",
    "PATTERN_CHOICES",
    "PAUSE",
    "PLAY",
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
    "input_error",
    "sweep_files",
    "remove_served_files",
    "for_visitors",
    "client_address",
    "client_gone",
    "ClientGone",
    "play_step",
    "play_tick",
    "play_toggle",
    "restore",
    "stop",
    "train",
    "upload_note",
    "upload_vocab",
    "use_trained",
    "vocab_choices",
]

log = logging.getLogger("lbpe.playground.app")


def _limits_at_start() -> tuple[Limits, tuple]:
    try:
        return Limits.from_env(), trusted_proxies(os.environ)
    except LbpeError as exc:
        raise SystemExit(str(exc)) from None


#: The playground's limits, and the proxies whose ``X-Forwarded-For`` is believed
#: (:mod:`lbpe.playground.app.addresses`), read once at start-up.
LIMITS, TRUSTED_PROXIES = _limits_at_start()
_DOWNLOADS = Downloads(ttl=LIMITS.file_ttl)
#: Seconds an upload stays after it arrived or was last read, at most (a Corpus or Train file
#: stays ``LBPE_APP_FILE_TTL`` after its last use, so it can be run again).
UPLOAD_GRACE = 120
_UPLOADS = Uploads(grace=min(UPLOAD_GRACE, LIMITS.file_ttl))
#: Seconds between two sweeps of the downloads and uploads.
SWEEP_SECONDS = max(1.0, min(60.0, _UPLOADS.grace / 2))


def sweep_files(*, everything: bool = False) -> None:
    """Delete the downloads and uploads whose time has passed (``everything``: all of them that
    no handler is reading, as the server stops)."""
    if everything:
        _DOWNLOADS.remove()
    else:
        _DOWNLOADS.sweep()
    _UPLOADS.sweep(everything=everything)
    _sweep_upload_leftovers(1.0 if everything else _UPLOADS.grace)


def _sweep_upload_leftovers(age: float) -> None:
    """Gradio's upload route writes each file to a temporary file at the top of its folder and
    renames it into place; it leaves some (empty) ones behind, which it never deletes. Those
    older than ``age`` seconds go (an upload under way is younger: its file is being written)."""
    try:
        from gradio.utils import get_upload_folder

        folder = Path(get_upload_folder())
    except (ImportError, AttributeError):
        return
    now = time.time()
    for path in folder.glob("tmp*"):
        try:
            if path.is_file() and not path.is_symlink() and now - path.stat().st_mtime > age:
                path.unlink()
        except OSError:
            pass


def remove_served_files(blocks: Any) -> None:
    """As the server stops: delete every download and upload no handler is reading, and the
    files Gradio made for this server (its copies of uploads and downloads, which Gradio itself
    deletes only when its server shuts down cleanly), with their folders when left empty."""
    sweep_files(everything=True)
    for files in list(getattr(blocks, "temp_file_sets", None) or ()):
        for name in list(files):
            path = Path(name)
            for remove in (path.unlink, path.parent.rmdir):
                try:
                    remove()
                except OSError:
                    pass


def _sweeping() -> None:
    """Sweep the files every :data:`SWEEP_SECONDS`, for as long as the process runs."""
    while True:
        _SWEEP_WAKE.wait(SWEEP_SECONDS)
        try:
            sweep_files()
        except Exception:  # a sweep that fails is tried again at the next one
            log.exception("sweeping the downloads and uploads failed")


_SWEEP_WAKE = threading.Event()
threading.Thread(target=_sweeping, name="lbpe-sweep", daemon=True).start()
atexit.register(sweep_files, everything=True)


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


def _read_once(paths: list[Path]):
    """Hold uploads a handler reads once (a vocabulary, a text): another session may have sent
    the same bytes under the same name, which Gradio stores at the same path, so they are swept
    later (:class:`lbpe.playground.service.Uploads`), never deleted here."""
    return _UPLOADS.hold(paths, keep=0)


def _kept(paths: list[Path]):
    """Hold a Corpus or Train upload, which stays usable for the session: kept
    ``LBPE_APP_FILE_TTL`` after its last use (Gradio also deletes its copies that long after
    they arrived)."""
    for path in paths:
        if not path.is_file():
            raise gr.Error(
                f"{path.name} is no longer on the server (uploads are kept for "
                f"{_duration(LIMITS.file_ttl)}); please upload it again."
            )
    return _UPLOADS.hold(paths, keep=LIMITS.file_ttl)


def _duration(seconds: float) -> str:
    """``"1 hour"``, ``"5 minutes"``, ``"30 seconds"``."""
    for size, unit in ((3600, "hour"), (60, "minute")):
        if seconds >= size and seconds % size == 0:
            n = int(seconds // size)
            return f"{n} {unit}{'s' if n != 1 else ''}"
    return f"{seconds:g} seconds"


# ---- what a visitor is told (never the server's variables; the log has them) ----

_SERVER_VARIABLE_CLAUSES = (
    (re.compile(r" \(set LBPE_\w+[^)]*\)"), ""),
    (re.compile(r", shorten the text, or allow it more time with LBPE_\w+ \([^)]*\)"), " or shorten the text"),
    (
        re.compile(r", or allow more time with LBPE_ENCODE_SECONDS \([^)]*\)"),
        ", or encode it with lbpe on your own machine (pip install lbpe), where it has no time limit",
    ),
    (re.compile(r",? or allow (?:it )?more time with LBPE_\w+(?: \([^)]*\))?"), ""),
    (
        re.compile(r"set LBPE_\w+ to raise it(?: \([^)]*\))?"),
        "this server allows no more (lbpe on your own machine does: pip install lbpe)",
    ),
    (re.compile(r"LBPE_\w+(?:=\S+)?"), "a setting of this server"),
)


def for_visitors(message: str) -> str:
    """``message`` as a visitor is shown it: what raises a limit is the server's business, so
    the clauses naming its variables are left out (and logged)."""
    shown = message
    for pattern, replacement in _SERVER_VARIABLE_CLAUSES:
        shown = pattern.sub(replacement, shown)
    if shown != message:
        log.info("told a visitor: %s (in full: %s)", shown, message)
    return shown


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
        exc.message = for_visitors(str(exc.message))
        raise
    except (ValueError, UnicodeError) as exc:  # LbpeError and VocabFormatError are ValueErrors
        raise gr.Error(for_visitors(str(exc)), print_exception=False) from None
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


class ClientGone(Stopped):
    """The client of a running job went away (its page was closed, its connection lost)."""


def client_gone() -> Callable[[], bool]:
    """For the request running on this thread: a check whether its client has gone away.

    Gradio does not stop a running function when its client disconnects: it only marks the
    request's queue event dead (``alive``), when the client's event stream closes. This reads
    that mark; where there is no queue event (a handler called directly, or a Gradio without
    these internals) the check always says no."""
    try:
        from gradio.context import LocalContext

        queue = getattr(LocalContext.blocks.get(None), "_queue", None)
        event_id = LocalContext.event_id.get(None)
    except (ImportError, AttributeError, LookupError):
        queue = event_id = None
    if queue is None or event_id is None:
        return lambda: False

    def gone() -> bool:
        for job in list(getattr(queue, "active_jobs", None) or ()):
            for event in job or ():
                if getattr(event, "_id", None) == event_id:
                    return getattr(event, "alive", True) is False
        return False

    return gone


def client_address() -> str | None:
    """Who the visitor whose request runs on this thread is, by network address
    (:func:`lbpe.playground.app.addresses.visitor_address`, believing the :data:`TRUSTED_PROXIES`);
    ``None`` where there is no request (a handler called directly)."""
    try:
        from gradio.context import LocalContext

        request = LocalContext.request.get(None)
    except (ImportError, AttributeError, LookupError):
        request = None
    host = getattr(getattr(request, "client", None), "host", None)
    if not isinstance(host, str) or not host:
        return None
    headers = getattr(request, "headers", None)
    getlist = getattr(headers, "getlist", None)  # every header line, as a proxy may add its own
    forwarded = getlist("x-forwarded-for") if callable(getlist) else []
    return visitor_address(host, forwarded, TRUSTED_PROXIES)


def _job(session: Session, kind: str, what: str):
    """:meth:`Session.job` for this request: one of a kind per session, and at most
    ``LBPE_APP_JOBS_PER_ADDRESS`` of a kind from the visitor's address (:func:`client_address`)."""
    return session.job(kind, what, address=client_address(), per_address=LIMITS.address_jobs)


def input_error(exc: Exception) -> gr.Error:
    """What a visitor is told when Gradio itself refused an input before any handler ran: a
    value of the wrong type, a choice not offered, a file that was not uploaded here (a short
    message for the visitor and one line in the server's log; :class:`SessionBlocks` raises it)."""
    from gradio.exceptions import ComponentProcessingError, InvalidPathError

    if isinstance(exc, gr.Error):
        message = str(exc.message)
    elif isinstance(exc, InvalidPathError):
        message = "A file input must be a file uploaded to this server: upload it first (gradio_client: handle_file)."
    elif isinstance(exc, ComponentProcessingError):
        # "Could not preprocess input component at index 1 (a `number` component) of the event
        # handler (named "train") with input components: [...].\nExpected ..., but the value
        # passed to the event handler was: 'abc' (of type `str`).\n\nOriginal error: ..."
        message = re.sub(r" with input components: \[[^\]]*\]", "", str(exc).split("\n\nOriginal error")[0])
        message = "The input could not be read: " + " ".join(message.split())
    elif type(exc).__name__ == "ValidationError":  # pydantic's: not a file description
        message = (
            "A file input must be a file uploaded to this server, given as Gradio's file description "
            '({"path": ..., "meta": {"_type": "gradio.FileData"}}): upload it first (gradio_client: handle_file).'
        )
    else:
        message = f"The input could not be read ({type(exc).__name__}: {' '.join(str(exc).split())[:300]})."
    log.info("refused an input before its handler ran: %s: %s", type(exc).__name__, " ".join(str(exc).split())[:500])
    return gr.Error(for_visitors(message), print_exception=False)


def _reporter(progress: Any, session: Session, desc: str):
    """The session's progress callback for a view: it stops at the next step once Stop is
    pressed or the client has gone away, and the server's log says what was stopped and why."""
    report = session.reporter(lambda fraction: progress(fraction, desc=desc))
    gone = client_gone()

    def logged(fraction: float) -> None:
        if gone():
            log.info("stopped: the client went away while %s", desc)
            raise ClientGone(fraction)
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
    """The per-session state (:class:`lbpe.playground.service.Session`)."""
    return Session(keep=LIMITS.session_vocabs)


def _session(state: Any) -> Session:
    return state if isinstance(state, Session) else new_session()


def vocab_choices(state: Any = None) -> list[tuple[str, str]]:
    """The vocabulary picker's ``(label, name)`` pairs (:meth:`lbpe.playground.service.Session.choices`)."""
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
        with _read_once(paths):
            tok = open_upload(paths, pattern=pattern, limits=LIMITS)
    except PatternNeededError as exc:
        raise gr.Error(f"{exc} (in the app: choose the pre-tokenizer next to the upload, then upload again)") from None
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


def _cut_note(chars: int | None, name: str = "The text") -> str:
    """What Compare left out of a text over its limit (``chars``: its length, or None when
    only known to be longer), in characters."""
    size = f"has {chars:,} characters" if chars is not None else f"is longer than {LIMITS.text_chars:,} characters"
    return (
        f"{name} {size}; Compare shows its first {LIMITS.text_chars:,}. The Corpus view reads whole files "
        f"(up to {_mb(LIMITS.corpus_bytes)})."
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
):
    """Both segmentations of ``text`` with ``vocab`` (:func:`lbpe.playground.service.compare_view`).

    Returns ``(BPE pane HTML, LBPE pane HTML, metrics HTML, token-length figure, frequency
    figure, details JSON, list of differences HTML)``; the details hold the ids, the differing
    ranges, the length shift and every metric (``"metrics"``: :func:`lbpe.analysis.comparison.compare_json` of
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
        again=_recompare(state),
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


def _explained(
    span: str, vocab: str, frame: int | None, state: Any, text: Any, where: Any, specials: Any
) -> ExplainView:
    """:func:`lbpe.playground.service.explain_view` of ``span``, where it stands in the Compare text (its
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
    """Both encodings of a word or short span worked step by step (:func:`lbpe.playground.service.explain_view`):
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
    script): the span to explain (:func:`lbpe.playground.service.explain_target`).

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
):
    """The Play button (``label``: what it reads): Play starts the steps (:func:`play_start`),
    Pause stops them where they are. Returns ``(slider value, timer update, button label)``."""
    if label == PAUSE:
        return gr.update(), gr.Timer(active=False), PLAY
    value, timer = play_start(frame, span, vocab, state, text, where, specials)
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
):
    """A tick of Play (:func:`play_step`); the button reads Play again at the last step. A
    tick sent before Pause was pressed (``label``: Play) moves nothing.
    Returns ``(slider value, timer update, button label)``."""
    if label != PAUSE:
        return gr.update(), gr.Timer(active=False), gr.update()
    value, timer = play_step(frame, span, vocab, state, text, where, specials)
    return value, timer, PLAY if isinstance(timer, gr.Timer) else gr.update()


@_handler
def load_text(file: Any, state: Any = None):
    """Read an uploaded ``.txt`` file into the text box. Returns ``(text, cleared upload)``;
    ``state``: the session, which keeps why it failed for the note beside the box."""
    paths = _paths(file)
    if not paths:
        raise gr.Error("Choose a .txt file to upload.")
    with _read_once(paths[:1]):
        text, chars = text_head(paths[0], LIMITS.text_chars)
    if chars is None or chars > LIMITS.text_chars:
        gr.Warning(_cut_note(chars, paths[0].name), duration=12)
    return text, None


# ---- Corpus, Across vocabularies, Train ----

STATS_HEADERS = display.STATS_HEADERS
#: How the sample corpus is named in results and downloads.
SAMPLE_NAME = "sample-corpus.txt"


@_handler
def corpus(file: Any, vocab: str = DEFAULT_PRESET, state: Any = None, progress: gr.Progress = gr.Progress()):
    """Statistics of an uploaded text file for BPE and LBPE (:func:`lbpe.playground.service.corpus_view`).

    Returns ``(table rows, token-length figure, frequency figure, JSON file, CSV file, status
    markdown)``; the JSON is :func:`lbpe.analysis.comparison.compare_json`, the CSV
    :func:`lbpe.playground.display.stats_csv`.
    """
    paths = _paths(file)
    if not paths:
        raise gr.Error("Choose a text file for the corpus statistics, or press Use the sample corpus.")
    with _job(_session(state), "corpus", "A corpus statistics job"):
        with _kept(paths[:1]):
            data = read_upload(paths[0], "corpus_bytes", limits=LIMITS)
        return _corpus(data, paths[0].name, vocab, state, progress)


@_handler
def corpus_sample(vocab: str = DEFAULT_PRESET, state: Any = None, progress: gr.Progress = gr.Progress()):
    """:func:`corpus` of the bundled sample corpus (1.5 MB of prose, speeches, code and many
    languages; ``lbpe/data/sample/corpus.json`` says where each part comes from)."""
    with _job(_session(state), "corpus", "A corpus statistics job"):
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
    every one this session uploaded or trained, in both modes (:func:`lbpe.playground.service.across_view`).

    Returns ``(table rows, Plotly figure, JSON file, CSV file, status markdown, cleared upload)``
    (an upload is read, then deleted: the box is emptied to say so); the JSON is
    ``{"source", "vocabularies": [lbpe.analysis.comparison.compare_json summary + "n_vocab", ...]}``.
    """
    paths, session = _paths(file), _session(state)
    with _job(session, "across", "A comparison across vocabularies"):
        return _across(text, paths, session, progress)


def _across(text: str, paths: list[Path], session: Session, progress: Any):
    data: bytes | None = None
    source = paths[0].name if paths else "the Compare text"
    # made first: a Stop pressed from here on (while the file is read) stops this run
    report = _reporter(progress, session, f"{source}: encoding with every vocabulary")
    if paths:
        with _read_once(paths[:1]):
            data = read_upload(paths[0], "corpus_bytes", limits=LIMITS)
    else:
        text = text or ""
        if not text.strip():
            raise gr.Error("Type or paste a text in the Compare tab, or choose a text file here.")
        if len(text) > LIMITS.text_chars:
            raise gr.Error(
                f"The text has {len(text):,} characters; at most {LIMITS.text_chars:,} come from the text "
                "box. Upload it as a file for more."
            )
    tokenizers = {name: session.tokenizer(name) for _, name in session.choices()}
    try:
        view = across_view(
            tokenizers,
            text=text,
            data=data,
            source=source,
            progress=report,
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
    """Train a vocabulary on uploaded text files (:func:`lbpe.playground.service.train_view`); keep it in
    the session for Compare. ``style``: ``"gpt2"`` (the paper's pre-tokenizer) or ``"llama"``
    (SentencePiece's way, characters with byte fallback).

    Returns ``(state, vocabulary dropdown update, tokenizer.json file, status markdown)``.
    """
    session, paths = _session(state), _paths(files)
    with _job(session, "train", "A training"), _kept(paths):
        return _train(session, paths, int(vocab_size or 0), unit, bool(scaffold), progress, style)


def _train(session: Session, paths: list[Path], size: int, unit: str, scaffold: bool, progress: Any, style: str):
    names = ", ".join(p.name for p in paths)
    report = _reporter(progress, session, f"{names}: counting pre-tokens")
    merging = _reporter(progress, session, f"{names}: merging")
    try:
        trained = train_view(
            paths,
            vocab_size=size,
            style=style,
            unit=unit,
            pattern=None if style == "llama" else "paper",
            scaffold=scaffold,
            limits=LIMITS,
            max_vocab=LIMITS.train_vocab,
            read_progress=lambda done, total: report(done / max(total, 1)),
            progress=lambda done, wanted: merging(done / max(wanted, 1)),
            seconds=LIMITS.train_seconds,
        )
    except TrainTimeError:
        log.info("a training on %s ran past LBPE_APP_TRAIN_SECONDS=%s and was stopped", names, LIMITS.train_seconds)
        raise
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
    tok = open_vocabulary(path, scratch=Path(path).parent)  # exactly what the download holds
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


#: The parts of a link that change the Compare view (the page hides it until they are applied).
LINK_COMPARE_KEYS = ("text", "vocab", "show_whitespace", "show_ids", "specials")


def restore(request: gr.Request):
    """Page load: apply the link's query (:func:`lbpe.playground.service.link_state`). Returns updates for
    ``(text, vocabulary, whitespace, ids, specials, explain span, where it starts in the text,
    tabs, link note)`` and then :func:`compare`'s seven outputs for the link's text, so its text
    and its panes arrive together (kept as they are when the link changes none of them); a span
    without a place is explained on its own."""
    wanted = link_state(dict(request.query_params) if request is not None else {}, text_chars=LIMITS.text_chars)
    keep = gr.update()
    picked = [wanted.get(key, keep) for key in ("text", "vocab", "show_whitespace", "show_ids", "specials", "explain")]
    # where the span stands in the text: the link's, else the opening span's
    picked.append(
        str(wanted.get("explain_at", "")) if "explain" in wanted else str(DEFAULT_TEXT.index(DEFAULT_EXPLAIN))
    )
    tabs = gr.update(selected=wanted["view"]) if "view" in wanted else keep
    note = "About this link: " + " ".join(wanted["notes"]) if wanted["notes"] else ""
    shown: tuple = (keep,) * 7
    if any(key in wanted for key in LINK_COMPARE_KEYS):
        shown = compare(
            wanted.get("text", DEFAULT_TEXT),
            wanted.get("vocab", DEFAULT_EXAMPLE.vocabulary),
            wanted.get("show_whitespace", True),
            wanted.get("show_ids", False),
            None,
            wanted.get("specials", False),
        )
    return (*picked, tabs, _link_note(note), *shown)
