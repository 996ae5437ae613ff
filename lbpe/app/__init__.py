"""The lbpe playground in Gradio: classic BPE and long-token-first BPE (LBPE) side by side.

    lbpe serve [--host 127.0.0.1] [--port 7860]      # or, in a checkout or a Space: python app.py

Views: Compare (your text, any vocabulary, both segmentations, metrics, length-shift and
frequency charts, Explain), Corpus (statistics of a larger file, JSON and CSV downloads),
Across vocabularies (one text with every vocabulary) and Train (train a vocabulary, download
its tokenizer.json and compare with it straight away).

This module is Gradio wiring only: each handler turns its components' values into one call of
:mod:`lbpe.service` (which the browser page and the CLI share) and the result into component
updates; every handler is reachable through ``gradio_client`` under its ``api_name``. Its page
script and styles are real files beside it (``app.js``, ``pane.js``, ``app.css``). Needs the
``app`` extra (``pip install "lbpe[app]"``); ``import lbpe`` never imports it.

Uploaded files are read as data only, deleted as soon as they are read (Corpus and Train keep
theirs for the session), and uploaded or trained vocabularies live in the session's
``gr.State``: another visitor never sees them. Bad input gives a readable message in the page
(``gr.Error``), never a traceback, and the app keeps serving. The limits are
:data:`lbpe.limits.PLAYGROUND`'s (``LBPE_APP_*``), read once at start-up. The app starts
offline: no analytics, no share link, system fonts only.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import html
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

import gradio as gr  # noqa: E402
import plotly.graph_objects as go  # noqa: E402

import lbpe  # noqa: E402
from lbpe import display, user_regex  # noqa: E402
from lbpe.across import ACROSS_HEADERS, ACROSS_TYPES  # noqa: E402
from lbpe.errors import LbpeError, PatternNeededError  # noqa: E402
from lbpe.examples import DEFAULT_EXAMPLE, EXAMPLES  # noqa: E402
from lbpe.explain import MAX_EXPLAIN_CHARS  # noqa: E402
from lbpe.explain import explain as explain_steps  # noqa: E402
from lbpe.formats.hf_write import write_tokenizer_json  # noqa: E402
from lbpe.limits import MB, Limits  # noqa: E402
from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS, load_preset, sample_corpus  # noqa: E402
from lbpe.service import (  # noqa: E402
    AUTO_PATTERN,
    MAX_LINK_TEXT,
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
from lbpe.tokenizer import Tokenizer  # noqa: E402

log = logging.getLogger("lbpe.app")
_HERE = Path(__file__).parent


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


def _handler(fn):
    """Turn any failure of ``fn`` into a ``gr.Error`` with a readable message."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
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

    return wrapper


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
    return _session(state).tokenizer(name)


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


# ---- Compare and Explain ----

#: The opening text (the first of the examples both UIs share).
DEFAULT_TEXT = DEFAULT_EXAMPLE.text
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


@_handler
def explain(span: str, vocab: str = DEFAULT_PRESET, frame: Any = None, state: Any = None):
    """Both encodings of a word or short span worked step by step (:func:`lbpe.service.explain_view`).

    Returns ``(HTML of frame `frame`, the steps as JSON, the step slider's update)``; without
    ``frame`` the last frame (every step done, the reasons the two differ)."""
    view = explain_view(get_tokenizer(vocab, state), span, _frame(frame))
    last = view["frames"] - 1
    return view["html"], view["steps"], gr.update(maximum=max(last, 1), value=view["frame"], interactive=last > 0)


@_handler
def explain_frame(span: str, vocab: str = DEFAULT_PRESET, frame: Any = 0, state: Any = None) -> str:
    """One frame of :func:`explain` (the step slider moved): its HTML."""
    return explain_view(get_tokenizer(vocab, state), span, _frame(frame) or 0)["html"] if span else ""


@_handler
def explain_click(text: str, at: str, vocab: str = DEFAULT_PRESET, state: Any = None) -> str:
    """A click on a token of either pane (``at`` is ``"offset:nonce"``, set by the page's
    script): the span to explain (:func:`lbpe.service.explain_target`)."""
    try:
        offset = int(str(at).split(":", 1)[0])
    except ValueError:
        raise gr.Error("Click a token in either pane to explain it.") from None
    return explain_target(get_tokenizer(vocab, state), (text or "")[: LIMITS.text_chars], offset)["span"]


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


def _frames(span: str, vocab: str, state: Any) -> int:
    """Frames of the explanation of ``span`` (1 when it cannot be explained: the Explain view
    already says why)."""
    try:
        return explain_steps(get_tokenizer(vocab, state), span).frames if span else 1
    except ValueError:
        return 1


def explain_move(delta: int, frame: Any, span: str, vocab: str = DEFAULT_PRESET, state: Any = None) -> int:
    """The Step buttons: the frame ``delta`` away, kept within the explanation."""
    return min(max(int(frame or 0) + delta, 0), _frames(span, vocab, state) - 1)


def play_step(frame: Any, span: str, vocab: str = DEFAULT_PRESET, state: Any = None):
    """One tick of Play: the next frame; the timer stops at the last one.

    Returns ``(slider value, timer update)``."""
    last, k = _frames(span, vocab, state) - 1, int(frame or 0) + 1
    return (last, gr.Timer(active=False)) if k >= last else (k, gr.update())


def play_start(frame: Any, span: str, vocab: str = DEFAULT_PRESET, state: Any = None):
    """Play pressed (from the start when at the end). Returns ``(slider value, timer update)``."""
    last, k = _frames(span, vocab, state) - 1, int(frame or 0)
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
    ``(text, vocabulary, whitespace, ids, specials, explain span, tabs, link note)``."""
    wanted = link_state(dict(request.query_params) if request is not None else {}, text_chars=LIMITS.text_chars)
    keep = gr.update()
    picked = [wanted.get(key, keep) for key in ("text", "vocab", "show_whitespace", "show_ids", "specials", "explain")]
    tabs = gr.update(selected=wanted["view"]) if "view" in wanted else keep
    note = "About this link: " + " ".join(wanted["notes"]) if wanted["notes"] else ""
    return (*picked, tabs, _link_note(note))


# ---- the page ----

THEME = gr.themes.Default(
    primary_hue="orange",
    neutral_hue="slate",
    font=["system-ui", "-apple-system", "'Segoe UI'", "Roboto", "'Helvetica Neue'", "Arial", "sans-serif"],
    font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "'DejaVu Sans Mono'", "monospace"],
)
#: The token panes' stylesheet (shared with the browser page), then the app's own.
APP_CSS = display.CSS + (_HERE / "app.css").read_text("utf-8")
#: The page script: the server's settings, lbpe/display/panes.js (shared with the page), then app.js.
APP_JS = (
    "() => {\nconst LBPE = "
    + json.dumps({"presets": list(VOCAB_PRESETS), "maxLinkText": MAX_LINK_TEXT})
    + ";\n"
    + (Path(lbpe.__file__).parent / "display" / "panes.js").read_text("utf-8")
    + (_HERE / "app.js").read_text("utf-8")
    + "\n}\n"
)
#: A token pane: a busy note and the host ``pane.js`` draws into.
PANE_TEMPLATE = '<span class="lbpe-busy" role="status" hidden>updating…</span><div class="lbpe-host"></div>'
PANE_JS = (_HERE / "pane.js").read_text("utf-8")


def _js(call: str, otherwise: str = "[]") -> str:
    """A Gradio ``js`` event calling ``window.lbpeApp.<call>`` (app.js) with the event's inputs."""
    return f"(...a) => window.lbpeApp ? window.lbpeApp.{call} : {otherwise}"


#: The ids boxes filled without app.js (before it has run): the JSON view stays closed.
_IDS_ONLY = '["bpe", "lbpe"].map((m) => ((a[0] && a[0][m] && a[0][m].ids) || []).join(" ")).concat([null])'


def _in_browser(event: Any, inputs: Any, outputs: Any, call: str, otherwise: str = "[]") -> None:
    """Handle ``event`` in the browser only (``window.lbpeApp.<call>``); the server never hears of it."""
    event(None, inputs, outputs, js=_js(call, otherwise), api_visibility="private", queue=False)


def _long_job(button: Any, fn: Any, inputs: list, outputs: list, api_name: str, status: Any) -> None:
    """A button that runs a long view (one at a time, progress over ``status``) and is
    disabled while it runs."""
    button.click(lambda: gr.update(interactive=False), None, button, queue=False, api_visibility="private").then(
        fn, inputs, outputs, api_name=api_name, concurrency_limit=1, show_progress_on=status
    ).then(lambda: gr.update(interactive=True), None, button, queue=False, api_visibility="private")


INTRO = """\
# lbpe playground: classic BPE vs long-token-first BPE (LBPE)
LBPE keeps a BPE vocabulary and changes only the encoding: longer tokens are placed first.

Type or upload text, pick a vocabulary (or upload your own), and see both segmentations; the
spans where they differ are underlined in orange. Click a token to see why."""


def _limits_md() -> str:
    return (
        f"Limits: Compare {LIMITS.text_chars:,} characters · vocabulary upload {_mb(LIMITS.vocab_bytes)} "
        f"and {LIMITS.vocab_tokens:,} tokens · corpus file {_mb(LIMITS.corpus_bytes)} · "
        f"training corpus {_mb(LIMITS.train_bytes)}, vocabulary size up to {LIMITS.train_vocab:,}."
    )


def build() -> gr.Blocks:
    """The Blocks app (module-level ``demo`` is ``build()``)."""
    initial = compare(DEFAULT_TEXT, DEFAULT_EXAMPLE.vocabulary, True, False, None)
    first = explain_view(get_tokenizer(DEFAULT_EXAMPLE.vocabulary), DEFAULT_EXAMPLE.explain)
    with gr.Blocks(
        title="lbpe playground: BPE vs LBPE", analytics_enabled=False, delete_cache=(600, LIMITS.file_ttl)
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
            with gr.Row(equal_height=False):
                vocab_files = gr.File(
                    label="Vocabulary file: tokenizer.json, .tiktoken, SentencePiece .model, GPT-2's encoder.json "
                    "and vocab.bpe together, or any of them .gz",
                    file_count="multiple",
                    file_types=[".json", ".tiktoken", ".bpe", ".model", ".gz", ".txt"],
                    scale=3,
                    height=120,
                    elem_id="vocab-upload",
                )
                pattern = gr.Dropdown(
                    PATTERN_CHOICES,
                    value="auto",
                    label="Pre-tokenizer for .tiktoken / GPT-2 files",
                    scale=1,
                    info="auto: from the file name",
                    elem_id="pattern",
                )
        link_note = gr.HTML(_link_note(""), elem_id="link-note", padding=False)
        with gr.Tabs(selected="compare") as tabs:
            with gr.Tab("Compare", id="compare") as compare_tab:
                # made here so the examples below can fill it; shown in the Explain box
                explain_box = gr.Textbox(
                    DEFAULT_EXAMPLE.explain,
                    label="Word or span",
                    scale=3,
                    render=False,
                    max_length=MAX_EXPLAIN_CHARS,
                    elem_id="explain-text",
                )
                with gr.Row(equal_height=False):
                    text = gr.Textbox(
                        DEFAULT_TEXT,
                        lines=7,
                        max_lines=20,
                        label="Text",
                        scale=3,
                        elem_id="text",
                        info=f"Compare shows up to {LIMITS.text_chars:,} characters "
                        "(the Corpus view reads whole files)",
                    )
                    with gr.Column(scale=1, min_width=220, elem_classes="lbpe-text-side"):
                        show_ws = gr.Checkbox(True, label="Show whitespace (· → ↵)", elem_id="show-ws")
                        show_ids = gr.Checkbox(False, label="Show token ids", elem_id="show-ids")
                        show_special = gr.Checkbox(
                            False, label="Special tokens (<|endoftext|>) as specials", elem_id="show-special"
                        )
                        text_file = gr.File(
                            label="…or upload a .txt file",
                            file_types=[".txt", "text"],
                            height=100,
                            elem_id="text-upload",
                        )
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
                    [[e.text, e.vocabulary, e.explain] for e in EXAMPLES],
                    [text, vocab, explain_box],
                    label="Examples (each with a vocabulary where BPE and LBPE split it differently)",
                    example_labels=[e.label for e in EXAMPLES],
                    elem_id="examples",
                )
                with gr.Group(elem_id="explain-box"):
                    gr.Markdown(
                        "### Explain: why do they differ?\nClick a token in either pane (or type a word) to see both "
                        "encodings worked step by step: BPE's merges in priority order next to LBPE's windows, "
                        "longest first.",
                        elem_classes="lbpe-explain-intro",
                    )
                    with gr.Row(equal_height=True):
                        explain_box.render()
                        explain_prev = gr.Button("◀ Step", scale=0, min_width=80, elem_id="explain-prev")
                        explain_next = gr.Button("Step ▶", scale=0, min_width=80, elem_id="explain-next")
                        explain_play = gr.Button("Play", scale=0, min_width=80, elem_id="explain-play")
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
                    explain_timer = gr.Timer(0.9, active=False)
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
            with gr.Tab("Corpus", id="corpus") as corpus_tab:
                gr.Markdown(
                    f"Statistics of a whole file (UTF-8 text, at most **{_mb(LIMITS.corpus_bytes)}**) with the "
                    "vocabulary chosen above: token counts, bytes and characters per token, token lengths in "
                    "the paper's buckets, how often a token of each length occurs (the paper's claim: LBPE makes "
                    "long tokens more frequent and short ones rarer), Rényi efficiency and the agreement of the "
                    "two segmentations; each row says what it means, which way the paper predicts it moves and, "
                    "for compression and the length buckets, the paper's own figures (Tables 6 and 2). Download "
                    "them as JSON or CSV. No file at hand? **Use the sample corpus**: 1.5 MB of prose "
                    "(Moby-Dick), speeches (State of the Union), TypeScript and Python code and 26 languages."
                )
                with gr.Row(equal_height=False):
                    corpus_file = gr.File(
                        label="Text file", file_types=[".txt", "text"], height=140, scale=3, elem_id="corpus-upload"
                    )
                    with gr.Column(scale=1, min_width=180):
                        corpus_btn = gr.Button("Compute statistics", variant="primary", elem_id="corpus-run")
                        sample_btn = gr.Button("Use the sample corpus", elem_id="corpus-sample")
                        corpus_stop = gr.Button("Stop", variant="stop", elem_id="corpus-stop")
                corpus_status = gr.Markdown(
                    "Choose a text file, then press Compute statistics.", label="Corpus status", elem_id="corpus-status"
                )
                corpus_table = gr.Dataframe(
                    label="Statistics",
                    headers=STATS_HEADERS,
                    datatype="str",
                    interactive=False,
                    wrap=True,
                    max_height=800,
                    elem_id="corpus-table",
                )
                with gr.Row(equal_height=False):
                    corpus_plot = gr.Plot(label="Token-length shift", elem_id="corpus-plot", min_width=320)
                    corpus_frequency = gr.Plot(
                        label="Frequency by token length", elem_id="corpus-frequency-plot", min_width=320
                    )
                with gr.Row():
                    corpus_json = gr.File(label="statistics.json", interactive=False, elem_id="corpus-json")
                    corpus_csv = gr.File(label="statistics.csv", interactive=False, elem_id="corpus-csv")
            with gr.Tab("Across vocabularies", id="across") as across_tab:
                gr.Markdown(
                    "The Compare text (or a text file, at most "
                    f"**{_mb(LIMITS.corpus_bytes)}**) encoded with every bundled vocabulary and every one you "
                    "uploaded or trained here: which tokenizers would LBPE change most? Tokens, bytes per token, "
                    "the share of long tokens, the paper's frequency imbalance, Rényi efficiency and how many "
                    "words both modes cut alike, per vocabulary."
                )
                with gr.Row(equal_height=False):
                    across_file = gr.File(
                        label="…or a text file instead of the Compare text",
                        file_types=[".txt", "text"],
                        height=140,
                        scale=3,
                        elem_id="across-upload",
                    )
                    with gr.Column(scale=1, min_width=180):
                        across_btn = gr.Button("Compare across vocabularies", variant="primary", elem_id="across-run")
                across_status = gr.Markdown("", label="Across status", elem_id="across-status")
                across_table = gr.Dataframe(
                    label="Per vocabulary (click a header to sort)",
                    headers=ACROSS_HEADERS,
                    datatype=ACROSS_TYPES,
                    interactive=False,
                    wrap=True,
                    elem_id="across-table",
                )
                across_plot = gr.Plot(label="LBPE vs BPE per vocabulary", elem_id="across-plot")
                with gr.Row():
                    across_json = gr.File(label="across.json", interactive=False, elem_id="across-json")
                    across_csv = gr.File(label="across.csv", interactive=False, elem_id="across-csv")
            with gr.Tab("Train", id="train") as train_tab:
                gr.Markdown(
                    f"Train a BPE vocabulary on your UTF-8 text (at most **{_mb(LIMITS.train_bytes)}** in all, "
                    f"vocabulary size up to **{LIMITS.train_vocab:,}**). GPT-2 style: words split by the paper's "
                    "regex pre-tokenizer; `char` units are characters plus 256 byte-fallback tokens, `byte` units "
                    "256 byte tokens. LLaMA style: SentencePiece's way, as the paper's LLaMA vocabularies (lines "
                    "with a ▁ prefix, digits alone, characters with byte fallback). Scaffold-BPE removes "
                    "low-frequency scaffold tokens (Lian et al. 2024)."
                )
                with gr.Row(equal_height=False):
                    train_files = gr.File(
                        label="Training text files",
                        file_count="multiple",
                        file_types=[".txt", "text"],
                        height=140,
                        scale=2,
                        elem_id="train-upload",
                    )
                    with gr.Column(scale=1, min_width=220):
                        train_size = gr.Number(
                            8000,
                            label="Vocabulary size",
                            precision=0,
                            minimum=1,
                            maximum=LIMITS.train_vocab,
                            elem_id="train-size",
                        )
                        train_style = gr.Radio(
                            [("GPT-2 style (the paper's regex)", "gpt2"), ("LLaMA style (SentencePiece's)", "llama")],
                            value="gpt2",
                            label="Style",
                            elem_id="train-style",
                        )
                        train_unit = gr.Radio(["char", "byte"], value="char", label="Unit", elem_id="train-unit")
                        train_scaffold = gr.Checkbox(False, label="Scaffold-BPE", elem_id="train-scaffold")
                with gr.Row():
                    train_btn = gr.Button("Train", variant="primary", elem_id="train-run")
                    train_stop = gr.Button("Stop", variant="stop", elem_id="train-stop")
                train_status = gr.Markdown(
                    "Choose text files, then press Train.", label="Training status", elem_id="train-status"
                )
                with gr.Row(equal_height=False):
                    train_out = gr.File(label="tokenizer.json", interactive=False, elem_id="train-download")
                    use_btn = gr.Button("Use it in Compare", elem_id="train-use")
        gr.Markdown(_limits_md(), elem_id="limits")

        gr.on(
            [text.change, vocab.change, show_ws.change, show_ids.change, show_special.change],
            compare,
            [text, vocab, show_ws, show_ids, state, show_special],
            [bpe_html, lbpe_html, metrics, plot, frequency_plot, details, differences],
            api_name="compare",
            trigger_mode="always_last",
            show_progress="hidden",
            concurrency_limit=4,
            js=_js("busy(a)", "a"),
        ).then(None, None, None, js=_js("done()"), api_visibility="private", queue=False)
        text_file.upload(load_text, text_file, [text, text_file], api_name="load_text", show_progress="hidden")
        uploaded = vocab_files.upload(
            upload_vocab,
            [vocab_files, pattern, state],
            [state, vocab, vocab_files],
            api_name="upload_vocab",
            show_progress="hidden",
        )
        # a rejected file leaves the box too, or the next upload would send it again with the new one
        uploaded.failure(lambda: None, None, vocab_files, queue=False, api_visibility="private")
        corpus_outputs = [corpus_table, corpus_plot, corpus_frequency, corpus_json, corpus_csv, corpus_status]
        _long_job(corpus_btn, corpus, [corpus_file, vocab, state], corpus_outputs, "corpus_stats", corpus_status)
        _long_job(sample_btn, corpus_sample, [vocab, state], corpus_outputs, "corpus_sample", corpus_status)
        # Stop asks the running job to end at its next progress step; it then says where it stopped
        corpus_stop.click(stop, state, None, api_name="stop_corpus", queue=False)
        across_outputs = [across_table, across_plot, across_json, across_csv, across_status, across_file]
        _long_job(across_btn, across, [text, across_file, state], across_outputs, "across_vocabularies", across_status)
        train_inputs = [train_files, train_size, train_unit, train_scaffold, state, train_style]
        _long_job(train_btn, train, train_inputs, [state, vocab, train_out, train_status], "train", train_status)
        train_stop.click(stop, state, None, api_name="stop_train", queue=False)
        use_btn.click(use_trained, state, [vocab, tabs], api_name="use_trained")
        vocab.change(describe_vocab, [vocab, state], vocab_status, api_name="describe_vocab", show_progress="hidden")
        gr.on(
            [explain_box.change, vocab.change],
            explain,
            [explain_box, vocab, gr.State(None), state],
            [explain_pane, explain_json, explain_step],
            api_name="explain",
            trigger_mode="always_last",
            show_progress="hidden",
        )
        explain_step.change(
            explain_frame,
            [explain_box, vocab, explain_step, state],
            explain_pane,
            api_name="explain_frame",
            show_progress="hidden",
            trigger_mode="always_last",
        )
        for button, delta in ((explain_prev, -1), (explain_next, 1)):
            button.click(
                functools.partial(explain_move, delta),
                [explain_step, explain_box, vocab, state],
                explain_step,
                api_visibility="private",
                show_progress="hidden",
            )
        explain_play.click(
            play_start,
            [explain_step, explain_box, vocab, state],
            [explain_step, explain_timer],
            api_visibility="private",
            show_progress="hidden",
        )
        explain_timer.tick(
            play_step,
            [explain_step, explain_box, vocab, state],
            [explain_step, explain_timer],
            api_visibility="private",
            show_progress="hidden",
        )
        _in_browser(details.change, details, [bpe_ids, lbpe_ids, details_view], "details(a[0])", _IDS_ONLY)
        _in_browser(details_box.expand, details, details_view, "detailsOpen(true, a[0])", "a[0]")
        _in_browser(details_box.collapse, None, details_view, "detailsOpen(false, null)", "null")
        gr.on(
            [decode_btn.click, pasted_ids.submit],
            decode_ids,
            [pasted_ids, vocab, state],
            decoded,
            api_name="decode_ids",
            show_progress="hidden",
        )
        # the view's state in the URL (browser only), restored when a link is opened
        gr.on(
            [text.change, vocab.change, show_ws.change, show_ids.change, show_special.change, explain_box.change],
            None,
            [text, vocab, show_ws, show_ids, show_special, explain_box],
            None,
            js=_js("link(...a)"),
            api_visibility="private",
            queue=False,
        )
        for tab, view in ((compare_tab, None), (corpus_tab, "corpus"), (across_tab, "across"), (train_tab, "train")):
            _in_browser(tab.select, None, None, f"view({json.dumps(view)})")
        _in_browser(copy_link.click, [text, vocab], None, "copy(...a)")
        demo.load(
            restore,
            None,
            [text, vocab, show_ws, show_ids, show_special, explain_box, tabs, link_note],
            api_visibility="private",
            show_progress="hidden",
        )
        explain_at.change(
            explain_click,
            [text, explain_at, vocab, state],
            explain_box,
            api_name="explain_click",
            show_progress="hidden",
        )
    return demo


demo = build()


def launch(host: str | None = None, port: int | None = None, **kwargs: Any):
    """Start the server (blocking unless ``prevent_thread_lock=True``); offline, no share link."""
    demo.queue(default_concurrency_limit=2)
    return demo.launch(
        server_name=host,
        server_port=port,
        share=False,
        theme=THEME,
        css=APP_CSS,
        js=APP_JS,
        footer_links=["api", "settings"],
        run_history=False,
        mcp_server=False,
        ssr_mode=False,
        pwa=False,
        enable_monitoring=False,
        max_file_size=max(LIMITS.vocab_bytes, LIMITS.corpus_bytes, LIMITS.train_bytes, 4 * LIMITS.text_chars) + MB,
        **kwargs,
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The lbpe playground (Gradio).")
    parser.add_argument("--host", default=None, help="address to listen on (default: $GRADIO_SERVER_NAME or 127.0.0.1)")
    parser.add_argument("--port", type=int, default=None, help="port (default: $GRADIO_SERVER_PORT or 7860)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    if user_regex.engine() != "regex":
        log.warning(
            "the regex package is not installed: patterns from uploaded vocabulary files run without a time "
            "limit; install the app's dependencies (pip install lbpe[app]) on a shared server"
        )
    try:
        launch(args.host, args.port)
    except OSError as exc:
        if "port" not in str(exc).lower() and getattr(exc, "errno", None) != 98:
            raise
        port = args.port or os.environ.get("GRADIO_SERVER_PORT", "7860")
        print(
            f"the lbpe playground could not start: port {port} is taken (another server is listening there); "
            "stop it, or choose another port: lbpe serve --port 7861",
            file=sys.stderr,
        )
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
