"""What every handler shares: the limits read at start-up, the downloads and uploads and their sweeping,
the ``_handler`` decorator and what a visitor is told when a handler fails, the client's address and
whether it has gone, progress and jobs, and the sessions and their vocabularies."""

from __future__ import annotations

import atexit
import functools
import html
import json
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

from lbpe import limits as _limits
from lbpe.errors import LbpeError, PatternNeededError
from lbpe.limits import MB, Limits
from lbpe.playground import display
from lbpe.playground.app.addresses import is_local, trusted_proxies, visitor_address
from lbpe.playground.service import (
    AUTO_PATTERN,
    Downloads,
    Session,
    SharedUploads,
    Stopped,
    Uploads,
    check_upload_sizes,
    describe,
    open_upload,
    upload_fingerprint,
)
from lbpe.playground.service.visitors import for_visitors as visitor_message
from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS
from lbpe.tokenizer import Tokenizer

log = logging.getLogger("lbpe.playground.app")


def whole_number(value: Any, rule: str, *, empty: Any, most: int | None = None) -> Any:
    """A number box's value as a whole number (``empty`` for an empty box): Gradio's own whole
    number boxes round what they send, so the boxes send what was typed and a fraction, a word
    or a value past ``most`` is refused here with the box's ``rule``."""
    if value is None or value == "":
        return empty
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = 0.5
    if not number.is_integer() or (most is not None and not 0 <= number <= most):
        raise gr.Error(f"{rule}: not {display.quoted(value)}.")
    return int(number)


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
#: The vocabularies read from uploads, one for every session that sent the same files
_SHARED_UPLOADS = SharedUploads()
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
    renames it into place, in a folder of its own named by a hash; it leaves some (empty)
    temporary files, and the folders its files were deleted from, behind. Those older than
    ``age`` seconds go (an upload under way is younger: its file is being written)."""
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
    for path in folder.iterdir():
        try:
            hashed = re.fullmatch(r"[0-9a-f]{20,}", path.name) is not None
            if hashed and path.is_dir() and not path.is_symlink() and now - path.stat().st_mtime > age:
                path.rmdir()  # only when empty
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
    _sweep_upload_leftovers(-1.0)  # the folders emptied just now too: nothing is uploaded any more


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


def for_visitors(message: str) -> str:
    """``message`` as a visitor is shown it: what raises a limit is the server's business, so
    the clauses naming its variables are left out (and logged)."""
    shown = visitor_message(message)
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
    return _red_note(message) if message else ""


def _red_note(message: str) -> str:
    """``message`` as the red note the page shows beside a control (text, never markup)."""
    return f'<p class="lbpe-failed" role="alert">{html.escape(message)}</p>'


#: The limit each upload zone's files are held to, and what its refusal calls them: ``None``
#: names the file; a string (with ``{n}``, the count) names the files together.
UPLOAD_LIMITS: dict[str, tuple[str, str | None]] = {
    "vocab-upload": ("vocab_bytes", None),
    "text-upload": ("text_file_bytes", None),
    "corpus-upload": ("corpus_bytes", None),
    "across-upload": ("corpus_bytes", None),
    "train-upload": ("train_bytes", "the training corpus ({n} file(s))"),
}


#: The file types each upload zone takes (Gradio's ``file_types``: an extension, or ``"text"`` for
#: any text/* type), and what to do with another kind of file.
TEXT_FILES = [".txt", "text"]
UPLOAD_TYPES: dict[str, tuple[list[str], str]] = {
    "vocab-upload": (
        [".json", ".tiktoken", ".bpe", ".model", ".gz", ".txt"],
        "this box reads a vocabulary: a tokenizer.json, a .tiktoken rank file, GPT-2's encoder.json and "
        "vocab.bpe together, a SentencePiece .model, or any of them .gz",
    ),
    "text-upload": (TEXT_FILES, "Compare reads a plain text file (.txt); paste other text into the box"),
    "corpus-upload": (
        TEXT_FILES,
        "this view reads a plain text file (.txt); JSON lines, Parquet and .gz corpora are read on your own "
        "machine: pip install lbpe, then lbpe stats {name}",
    ),
    "across-upload": (
        TEXT_FILES,
        "this view reads a plain text file (.txt); JSON lines, Parquet and .gz corpora are read on your own "
        "machine: pip install lbpe, then lbpe stats --across {name}",
    ),
    "train-upload": (
        TEXT_FILES,
        "training here reads plain text files (.txt); JSON lines, Parquet and .gz corpora are read on your own "
        "machine: pip install lbpe, then lbpe train {name}",
    ),
}


def refused_note(zone: str, asked: Any) -> Any:
    """Why the page refused the files chosen in upload ``zone`` before sending them (app.js sends
    ``asked`` as JSON ``[file name, bytes, file count, when]``, the bytes of the files together
    where the zone holds them to one limit, and ``"type"`` after them for a file of a type the
    zone does not take): the words the server gives for the same files, as a red note. Nothing
    (``gr.skip()``) when they are within the limit or ``asked`` is not that."""
    try:
        name, size, count, _, *why = json.loads(asked or "")
        size, count = int(size), int(count)
    except (TypeError, ValueError):
        return gr.skip()
    if why == ["type"] and zone in UPLOAD_TYPES:
        return _red_note(f"{name}: {UPLOAD_TYPES[zone][1].format(name=_shell_word(str(name)))}.")
    note = over_limit_note(zone, str(name), size, count)
    return gr.skip() if note is None else note


def _shell_word(name: str) -> str:
    """A file name as a shell reads it back: quoted when it holds anything but plain characters."""
    return name if re.fullmatch(r"[\w.,+-]+", name) else "'" + name.replace("'", "'\\''") + "'"


def ready_note(names: list[str], press: str) -> str:
    """That the files ``names`` are ready, and what to press: the words the page itself says
    when a file arrives (:func:`lbpe.playground.app.parts.announcing`)."""
    return f"{', '.join(names)} {'is' if len(names) == 1 else 'are'} ready: {press}."


def over_limit_note(zone: str, name: str, size: int, count: int) -> str | None:
    """The red note for ``count`` files of upload ``zone`` (the one called ``name``, or all of
    them where the zone holds them to one limit) of ``size`` bytes over the zone's limit, in the
    words a visitor is shown; ``None`` within it."""
    key, together = UPLOAD_LIMITS[zone]
    what = together.format(n=count) if together else name
    with _limits.using(LIMITS):
        message = _limits.exceeded(key, size, what)
    return None if message is None else _red_note(for_visitors(message))


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


#: Said after a failure or a Stop while an earlier run's results are still below.
KEPT_NOTE = '<p class="lbpe-kept">The results below are still those of the last run that finished.</p>'


def stopped(session: Session, tab: str, view: str, status: str, cleared: tuple) -> tuple:
    """What a run of ``view`` that Stop ended on ``tab`` returns: when the results on the tab
    are a finished run of that view (:meth:`shown`), they stay (as after a failure) and
    ``status`` says whose they are; otherwise its outputs take the ``cleared`` values (a run of
    the tab's other axis filled the chart and files they share: they must not pass for this
    one's)."""
    if session.shown.get(tab) == view:
        return (*[gr.skip()] * len(cleared), status + "\n\n" + KEPT_NOTE)
    return (*cleared, status)


def shown(session: Session, tab: str, view: str) -> None:
    """Record that a run of ``view`` finished and filled ``tab``'s results (see :func:`stopped`)."""
    session.shown[tab] = view


def _job(session: Session, kind: str, what: str):
    """:meth:`Session.job` for this request: one of a kind per session, and at most
    ``LBPE_APP_JOBS_PER_ADDRESS`` of a kind from the visitor's address (:func:`client_address`)."""
    return session.job(kind, what, address=client_address(), per_address=LIMITS.address_jobs)


#: Gradio's refusal of a number outside its control's bounds (``Number.raise_if_out_of_bounds``).
_OUT_OF_BOUNDS = re.compile(r"Value (\S+) is (?:greater|less) than (?:maximum|minimum) value \S+?\.")


def _bounds_named(message: str, inputs: Any, values: Any = ()) -> str:
    """Gradio's "Value 1.5 is greater than maximum value 1." said with the control's label and
    range: the number box whose value the call gave is that one (``values``, in the order of
    ``inputs``), else the only bounded one among the event's inputs (else as it was)."""
    found = _OUT_OF_BOUNDS.fullmatch(message)
    if found is None:
        return message
    bounded = [
        (i, block)
        for i, block in enumerate(inputs)
        if isinstance(block, gr.Number) and (block.minimum is not None or block.maximum is not None)
    ]
    if len(values) == len(inputs):
        given = [(i, block) for i, block in bounded if _same_number(values[i], found.group(1))]
        bounded = given or bounded
    if len(bounded) != 1:
        return message
    block = bounded[0][1]
    low, high = block.minimum, block.maximum
    wanted = (
        f"from {low:g} to {high:g}"
        if low is not None and high is not None
        else f"{low:g} or more"
        if low is not None
        else f"{high:g} or less"
    )
    return f"{block.label or 'The number'} {found.group(1)} is out of range: give a number {wanted}."


def _same_number(value: Any, shown: str) -> bool:
    """Whether a call's raw ``value`` is the number Gradio's message shows as ``shown``."""
    try:
        return float(value) == float(shown)
    except (TypeError, ValueError, OverflowError):
        return False


def input_error(exc: Exception, *, block_fn: Any = None, sessions: Any = (), values: Any = ()) -> gr.Error:
    """What a visitor is told when Gradio itself refused an input before any handler ran: a
    value of the wrong type or out of bounds, a choice not offered, a file that was not
    uploaded here (a short message for the visitor and one line in the server's log;
    :class:`SessionBlocks` raises it). The message is kept, as a handler's own failure is, for
    each :class:`Session` among ``sessions`` under the event's function name, so the page's
    note beside the control says it after the notice fades (:func:`failure_note`)."""
    message = _refusal(exc, getattr(block_fn, "inputs", ()), values)
    name = getattr(getattr(block_fn, "fn", None), "__name__", None)
    for session in sessions:
        if isinstance(session, Session) and name:
            _FAILURES.setdefault(session, {})[name] = message
    return gr.Error(message, print_exception=False)


def _refusal(exc: Exception, inputs: Any, values: Any = ()) -> str:
    """:func:`input_error`'s message for ``exc`` (``values``: what the call gave), logged."""
    from gradio.exceptions import ComponentProcessingError, InvalidPathError

    if isinstance(exc, gr.Error):
        message = _bounds_named(str(exc.message), inputs, values)
    elif isinstance(exc, InvalidPathError) and "Dotfiles" in str(exc):
        message = 'A file whose name starts with "." is not accepted: rename it (e.g. vocab.tiktoken), upload again.'
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
    return for_visitors(message)


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
#: The label of the menu of :data:`PATTERN_CHOICES` beside the vocabulary upload.
PATTERN_LABEL = "Pre-tokenizer for .tiktoken / GPT-2 files"


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
    if not isinstance(name, str):  # over the API: the dropdown's value passed as another type
        raise gr.Error(
            f"The vocabulary is given by its name, e.g. {DEFAULT_PRESET!r}, not a {type(name).__name__}; "
            f"the names: {', '.join(VOCAB_PRESETS)} and the session's uploaded and trained ones."
        )
    session = _session(state)
    if name in session.let_go and name not in session.vocabs:
        raise gr.Error(
            f"“{name}” was dropped: this session keeps the latest {session.keep} uploaded or trained "
            f"{'vocabulary' if session.keep == 1 else 'vocabularies'}. Upload it (or train it) again."
        )
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
            check_upload_sizes(paths, limits=LIMITS)  # before the fingerprint reads them
            made_from = upload_fingerprint(paths, pattern)
            address = client_address()  # this machine's own visitors are bounded by the server's bound only
            read = lambda: open_upload(paths, pattern=pattern, limits=LIMITS)  # noqa: E731
            tok = _SHARED_UPLOADS.get(  # read under these limits
                (made_from, LIMITS),
                read,
                most=LIMITS.server_vocabs,
                address=address,
                per_address=None if address is None or is_local(address) else LIMITS.address_vocabs,
                releasing=session.to_let_go(made_from),
            )
    except PatternNeededError as exc:
        *first, last = [c for c in PATTERN_CHOICES if c != AUTO_PATTERN]
        raise gr.Error(
            f"{exc.source}: the file name does not tell which pre-tokenizer this rank file uses: choose "
            f"{', '.join(first)} or {last} in the menu “{PATTERN_LABEL}” beside the upload, then upload it again"
        ) from None
    label = "gpt2 files" if len(paths) == 2 else paths[0].name
    name = session.remember(f"upload: {label}", tok, made_from=made_from)
    return session, gr.update(choices=session.choices(), value=name), None


def upload_note(state: Any = None) -> str:
    """After an upload: which vocabulary it dropped to stay within the session's limit
    (markdown beside the upload box), or nothing."""
    note = state.dropped_note() if isinstance(state, Session) else ""
    return f"*{note}*" if note else ""


@_handler
def stop(state: Any = None) -> None:
    """Stop this session's running corpus statistics or training (at its next progress step)."""
    if isinstance(state, Session):
        state.stop = True
