"""The lbpe playground: classic BPE and long-token-first BPE (LBPE) side by side, in Gradio.

    lbpe serve [--host 127.0.0.1] [--port 7860]      # or, in a checkout or a Space: python app.py

Views: Compare (your text, any vocabulary, both segmentations, metrics, length-shift and
frequency charts), Corpus (statistics of a larger file, JSON and CSV downloads), Across
vocabularies (one text with every vocabulary: which would LBPE change most?) and Train (train
a vocabulary, download its tokenizer.json and compare with it straight away).

Needs the ``app`` extra (``pip install "lbpe[app]"``); ``import lbpe`` never imports this
module. Every handler below is a thin call into :mod:`lbpe` (tokenising, statistics, training and
rendering all live there, mostly in :mod:`lbpe.display`); each is reachable through
``gradio_client`` under its ``api_name``. Uploaded files are read as data only
(:func:`lbpe.load` parses them; nothing is executed or unpickled), deleted as soon as they
are read, and uploaded or trained vocabularies live in the session's ``gr.State``: another
user never sees them. Bad input gives a readable message in the page (``gr.Error``), never a
traceback, and the app keeps serving. The limits come from environment variables (see
:class:`Limits` and the README).

The app starts offline: no analytics, no share link, system fonts only (no font or CDN
request).
"""

from __future__ import annotations

import argparse
import atexit
import functools
import html
import json
import logging
import os
import re
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

import gradio as gr  # noqa: E402
import plotly.graph_objects as go  # noqa: E402

import lbpe  # noqa: E402
from lbpe import display, user_regex  # noqa: E402
from lbpe.across import ACROSS_HEADERS, ACROSS_TYPES, across_csv, across_rows, across_spec, across_vocabularies  # noqa: E402
from lbpe.corpus import align_chunks, iter_chunks  # noqa: E402
from lbpe.errors import LbpeError, PatternNeededError  # noqa: E402
from lbpe.examples import DEFAULT_EXAMPLE, EXAMPLES  # noqa: E402
from lbpe.explain import MAX_EXPLAIN_CHARS, explain_html, pick_span  # noqa: E402
from lbpe.explain import explain as explain_span
from lbpe.formats.hf_write import write_tokenizer_json  # noqa: E402
from lbpe.limits import MB, Limits, check, using  # noqa: E402
from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS, load_preset, preset_label, sample_corpus  # noqa: E402
from lbpe.service import CORPUS_CHUNK_BYTES, compare_view, corpus_view, open_upload  # noqa: E402
from lbpe.tokenizer import Tokenizer  # noqa: E402
from lbpe.train import train as train_vocab  # noqa: E402
from lbpe.vocab import Unit  # noqa: E402

log = logging.getLogger("lbpe.app")


# ---------------------------------------------------------------------------------------------
# limits: lbpe.limits.PLAYGROUND's, read once at start-up
# ---------------------------------------------------------------------------------------------


def _limits_at_start() -> Limits:
    try:
        return Limits.from_env()
    except LbpeError as exc:
        raise SystemExit(str(exc)) from None


LIMITS = _limits_at_start()


def _mb(n: int) -> str:
    """A playground size as its variables count it (decimal megabytes)."""
    return f"{n / MB:g} MB"


# ---------------------------------------------------------------------------------------------
# files: uploads are read once and deleted; downloads live in a private folder for a while
# ---------------------------------------------------------------------------------------------

_OUTPUT_DIR = Path(tempfile.mkdtemp(prefix="lbpe-app-"))
atexit.register(shutil.rmtree, _OUTPUT_DIR, True)


def _output_file(name: str, data: str | bytes) -> str:
    """Write a download into its own unguessable folder; older downloads are swept away."""
    now = time.time()
    for old in _OUTPUT_DIR.iterdir():
        try:
            if now - old.stat().st_mtime > LIMITS.file_ttl:
                shutil.rmtree(old, ignore_errors=True)
        except OSError:
            pass
    folder = _OUTPUT_DIR / secrets.token_hex(8)
    folder.mkdir()
    path = folder / name
    if isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_bytes(data)
    return str(path)


def _paths(files: Any) -> list[Path]:
    """Paths of a File component's value (``None``, a path, or a list of paths)."""
    if files is None:
        return []
    if isinstance(files, (str, os.PathLike)):
        files = [files]
    out = []
    for f in files:
        if isinstance(f, dict):  # a FileData-like value
            f = f.get("path")
        if f:
            out.append(Path(f))
    return out


def _discard(paths: list[Path]) -> None:
    """Delete uploaded files (and their folder when it is left empty) once they are read."""
    for p in paths:
        try:
            p.unlink()
        except OSError:
            pass
        try:
            p.parent.rmdir()
        except OSError:
            pass


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        raise gr.Error(f"{path.name}: the upload is gone; please upload it again.") from None


def _read_upload(path: Path, key: str) -> bytes:
    """An uploaded file's bytes, if within the playground's limit ``key`` (``corpus_bytes``, ...)."""
    size = _size(path)
    with using(LIMITS):
        check(key, size, path.name)
    limit = getattr(LIMITS, key)
    with open(path, "rb") as f:
        return f.read(limit + 1)


def _decode(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise gr.Error(
            f"{name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "convert it to UTF-8 first (e.g. iconv -t UTF-8)."
        ) from None


# ---------------------------------------------------------------------------------------------
# errors: every handler reports bad input as a readable message, never a traceback
# ---------------------------------------------------------------------------------------------


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


def _reporter(progress: Any, state: dict, desc: str):
    """A progress callback ``(fraction)`` that also stops the work when this session's Stop
    button was pressed (the Stop handler sets ``state["stop"]``)."""

    def report(fraction: float) -> None:
        fraction = min(max(fraction, 0.0), 1.0)
        progress(fraction, desc=desc)
        if state.get("stop"):
            log.info("stopped by the user while %s", desc)
            raise Stopped(fraction)

    return report


class Stopped(Exception):
    """The session's Stop button was pressed; ``fraction`` of the work was done."""

    def __init__(self, fraction: float) -> None:
        super().__init__(f"stopped at {fraction:.0%}")
        self.fraction = fraction


def _kept(path: Path) -> Path:
    """An uploaded Corpus or Train file, which stays usable for the session (Gradio deletes its
    copies after ``LBPE_APP_FILE_TTL``)."""
    if not path.is_file():
        raise gr.Error(
            f"{path.name} is no longer on the server (uploads are kept for "
            f"{LIMITS.file_ttl // 60} minutes); please upload it again."
        )
    return path


# ---------------------------------------------------------------------------------------------
# vocabularies: bundled presets plus what this session uploaded or trained
# ---------------------------------------------------------------------------------------------

PATTERN_CHOICES = ["auto", "gpt2", "cl100k_base", "o200k_base", "paper"]


def new_session() -> dict:
    """The per-session state: uploaded/trained vocabularies by name, the last trained one, and
    whether Stop was pressed."""
    return {"vocabs": {}, "trained": None, "stop": False}


def _session(state: Any) -> dict:
    return state if isinstance(state, dict) and "vocabs" in state else new_session()


def vocab_choices(state: Any = None) -> list[tuple[str, str]]:
    """The vocabulary picker's ``(label, name)`` pairs: presets with their models
    ("GPT-4o: o200k_base"), then this session's uploaded and trained vocabularies."""
    return [(preset_label(name), name) for name in VOCAB_PRESETS] + [(name, name) for name in _session(state)["vocabs"]]


def get_tokenizer(name: str, state: Any = None) -> Tokenizer:
    """A bundled preset by name, or a vocabulary this session uploaded or trained."""
    session = _session(state)
    if name in session["vocabs"]:
        return session["vocabs"][name]
    if name in VOCAB_PRESETS:
        return load_preset(name)
    raise gr.Error(f"Unknown vocabulary {name!r}; choose one of: {', '.join(n for _, n in vocab_choices(state))}.")


def _remember(state: dict, base: str, tok: Tokenizer) -> str:
    """Keep ``tok`` in the session under a new name (oldest dropped beyond the limit)."""
    vocabs = state["vocabs"]
    name, n = base, 2
    while name in vocabs or name in VOCAB_PRESETS:
        name, n = f"{base} ({n})", n + 1
    tok.name = name
    vocabs[name] = tok
    while len(vocabs) > LIMITS.session_vocabs:
        vocabs.pop(next(iter(vocabs)))
    return name


def _describe(tok: Tokenizer) -> str:
    """One line about a vocabulary: its name once (with the models a preset belongs to), its
    size and units."""
    units = (
        "bytes"
        if tok.vocab.unit == "byte"
        else "characters with byte fallback"
        if tok.vocab.byte_fallback
        else "characters"
    )
    who = ""
    if tok.name in VOCAB_PRESETS:
        about = VOCAB_PRESETS[tok.name][1]  # e.g. "cl100k_base (GPT-3.5/GPT-4): 100K byte-level tokens"
        if about.startswith(tok.name):
            about = about[len(tok.name) :].strip()
            who = about[1 : about.index(")")] if about.startswith("(") and ")" in about else ""
        else:
            who = about.split(":")[0]
        who = f" ({who.replace(' (default)', ', the default')})" if who else ""
    return f"**{tok.name}**{who}: {tok.n_vocab:,} tokens, {units} as units."


@_handler
def describe_vocab(vocab: str = DEFAULT_PRESET, state: Any = None) -> str:
    """One line about a vocabulary (markdown): name, size, units."""
    return _describe(get_tokenizer(vocab, state))


@_handler
def upload_vocab(files: Any, pattern: str = "auto", state: Any = None):
    """Read an uploaded vocabulary (data only) into this session and select it.

    Returns ``(state, vocabulary dropdown update, cleared upload)``; selecting the new
    vocabulary redraws Compare and its description.
    """
    state = _session(state)
    paths = _paths(files)
    try:
        tok = open_upload(paths, pattern=pattern, limits=LIMITS)
    except PatternNeededError as exc:
        raise gr.Error(
            f"{exc} (in the app: choose the pre-tokenizer next to the upload, then upload again)", print_exception=False
        ) from None
    finally:
        _discard(paths)
    names = sorted(p.name for p in paths)
    label = "gpt2 files" if len(paths) == 2 else names[0]
    name = _remember(state, f"upload: {label}", tok)
    return state, gr.update(choices=vocab_choices(state), value=name), None


# ---------------------------------------------------------------------------------------------
# Compare
# ---------------------------------------------------------------------------------------------

#: The opening text (the first of the examples both UIs share).
DEFAULT_TEXT = DEFAULT_EXAMPLE.text


def _figure(spec: dict) -> go.Figure:
    return go.Figure(spec)


@_handler
def compare(
    text: str,
    vocab: str = DEFAULT_PRESET,
    show_whitespace: bool = True,
    show_ids: bool = False,
    state: Any = None,
    specials: bool = False,
):
    """Both segmentations of ``text`` with ``vocab``.

    Returns ``(BPE pane HTML, LBPE pane HTML, metrics HTML, token-length figure, frequency
    figure, details JSON, list of differences HTML)``; the details hold the ids, the differing
    ranges, the length shift and every metric (``"metrics"``: :func:`lbpe.stats.compare_json` of
    the text).
    """
    text = text or ""
    tok = get_tokenizer(vocab, state)
    cut = ""
    if len(text) > LIMITS.text_chars:
        cut = _cut_note(len(text))
        text = text[: LIMITS.text_chars]
    view = compare_view(
        tok,
        text,
        show_whitespace=show_whitespace,
        show_ids=show_ids,
        specials=bool(specials),
        lengths_chart={"title": "Token lengths, BPE vs LBPE"},
        frequency_chart={"title": FREQUENCY_TITLE},
    )
    return (
        view["panes"]["bpe"],
        view["panes"]["lbpe"],
        (f'<p class="lbpe-cut" role="status">{html.escape(cut)}</p>' if cut else "") + view["metrics"],
        _figure(view["figure"]),
        _figure(view["frequency_figure"]),
        {**view["summary"], "length_shift": view["length_shift"], "metrics": view["stats"]},
        view["differences"],
    )


@_handler
def explain(span: str, vocab: str = DEFAULT_PRESET, frame: Any = None, state: Any = None):
    """Both encodings of a word or short span worked step by step (:mod:`lbpe.explain`).

    Returns ``(HTML of frame `frame`, the steps as JSON, the step slider's update)``; without
    ``frame`` the last frame (every step done, the reasons the two differ)."""
    if not span:
        raise gr.Error("Type a word or a short span to explain, or click a token in either pane.")
    ex = explain_span(get_tokenizer(vocab, state), span)
    last = ex.frames - 1
    k = last if frame is None or frame == "" else min(max(int(frame), 0), last)
    return explain_html(ex, k), ex.to_json(), gr.update(maximum=max(last, 1), value=k, interactive=last > 0)


@_handler
def explain_frame(span: str, vocab: str = DEFAULT_PRESET, frame: Any = 0, state: Any = None) -> str:
    """One frame of :func:`explain` (the step slider moved): its HTML."""
    if not span:
        return ""
    return explain_html(explain_span(get_tokenizer(vocab, state), span), int(frame or 0))


@_handler
def explain_click(text: str, at: str, vocab: str = DEFAULT_PRESET, state: Any = None) -> str:
    """A click on a token of either pane (``at`` is ``"offset:nonce"``, set by the page's
    script): the span to explain, the differing span that holds the token or its word."""
    try:
        offset = int(str(at).split(":", 1)[0])
    except ValueError:
        raise gr.Error("Click a token in either pane to explain it.") from None
    text = text or ""
    if len(text) > LIMITS.text_chars:
        text = text[: LIMITS.text_chars]
    c = display.compare(get_tokenizer(vocab, state), text)
    a, b = pick_span(text, offset, c.differ)
    return text[a:b]


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
    already shows why)."""
    try:
        return explain_span(get_tokenizer(vocab, state), span).frames if span else 1
    except (ValueError, gr.Error):
        return 1


def explain_move(delta: int, frame: Any, span: str, vocab: str = DEFAULT_PRESET, state: Any = None) -> int:
    """The Step buttons: the frame ``delta`` away, kept within the explanation."""
    return min(max(int(frame or 0) + delta, 0), _frames(span, vocab, state) - 1)


def play_step(frame: Any, span: str, vocab: str = DEFAULT_PRESET, state: Any = None):
    """One tick of Play: the next frame; the timer stops at the last one.

    Returns ``(slider value, timer update)``."""
    last = _frames(span, vocab, state) - 1
    k = int(frame or 0) + 1
    if k >= last:
        return last, gr.Timer(active=False)
    return k, gr.update()


def play_start(frame: Any, span: str, vocab: str = DEFAULT_PRESET, state: Any = None):
    """Play pressed (from the start when at the end). Returns ``(slider value, timer update)``."""
    last = _frames(span, vocab, state) - 1
    k = int(frame or 0)
    return (0 if k >= last else k), gr.Timer(active=last > 0)


def _slug(name: str) -> str:
    """A vocabulary name as part of a download's file name: ``upload: my.json`` -> ``upload-my.json``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "vocabulary"


def _cut_note(chars: int | None, name: str = "The text") -> str:
    """What Compare left out of a text over its limit (``chars``: its length, or None when
    only known to be longer), in characters."""
    size = f"has {chars:,} characters" if chars is not None else f"is longer than {LIMITS.text_chars:,} characters"
    return (
        f"{name} {size}; Compare shows its first {LIMITS.text_chars:,}. The Corpus view reads whole files "
        f"(up to {_mb(LIMITS.corpus_bytes)})."
    )


#: Title of the frequency-by-length chart.
FREQUENCY_TITLE = "How often a token of each length occurs"


@_handler
def load_text(file: Any):
    """Read an uploaded ``.txt`` file into the text box. Returns ``(text, cleared upload)``."""
    paths = _paths(file)
    if not paths:
        raise gr.Error("Choose a .txt file to upload.")
    path = paths[0]
    keep = 4 * LIMITS.text_chars  # bytes enough for the characters Compare shows
    try:
        size = _size(path)
        with open(path, "rb") as f:
            data = f.read(keep)
    finally:
        _discard(paths)
    whole = size <= keep
    if not whole:  # cut inside the file: drop a character the cut split
        for back in range(4):
            try:
                data[: len(data) - back].decode("utf-8")
            except UnicodeDecodeError:
                continue
            data = data[: len(data) - back]
            break
    text = _decode(data, path.name)
    if len(text) > LIMITS.text_chars or not whole:
        gr.Warning(_cut_note(len(text) if whole else None, path.name), duration=12)
        text = text[: LIMITS.text_chars]
    return text, None


# ---------------------------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------------------------

STATS_HEADERS = display.STATS_HEADERS


@_handler
def corpus(file: Any, vocab: str = DEFAULT_PRESET, state: Any = None, progress: gr.Progress = gr.Progress()):
    """Statistics of an uploaded text file for BPE and LBPE.

    Returns ``(table rows, token-length figure, frequency figure, JSON file, CSV file, status
    markdown)``; the JSON is
    :func:`lbpe.stats.compare_json`, the CSV :func:`lbpe.display.stats_csv` of it.
    """
    paths = _paths(file)
    if not paths:
        raise gr.Error("Choose a text file for the corpus statistics, or press Use the sample corpus.")
    data = _read_upload(_kept(paths[0]), "corpus_bytes")
    return _corpus(data, paths[0].name, vocab, state, progress)


@_handler
def corpus_sample(vocab: str = DEFAULT_PRESET, state: Any = None, progress: gr.Progress = gr.Progress()):
    """:func:`corpus` of the bundled sample corpus (1.5 MB of prose, speeches, code and many
    languages; ``lbpe/data/sample/corpus.json`` says where each part comes from)."""
    return _corpus(sample_corpus(), SAMPLE_NAME, vocab, state, progress)


#: How the sample corpus is named in results and downloads.
SAMPLE_NAME = "sample-corpus.txt"


def _corpus(data: bytes, name: str, vocab: str, state: Any, progress: Any):
    """The Corpus view's work on ``data`` (the bytes of the file called ``name``)."""
    tok = get_tokenizer(vocab, state)
    session = _session(state)
    session["stop"] = False
    report = _reporter(progress, session, f"{name} with {tok.name}: encoding with BPE and LBPE")
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
    summary = view["summary"]
    stem = f"{Path(name).stem or 'corpus'}-{_slug(tok.name)}"
    json_path = _output_file(f"{stem}-stats.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    csv_path = _output_file(f"{stem}-stats.csv", view["csv"])
    status = (
        f"{name}: {len(data):,} bytes with **{tok.name}**: BPE {view['tokens']['bpe']:,} tokens, "
        f"LBPE {view['tokens']['lbpe']:,} tokens ({100 * summary['change']['tokens']:+.2f}%)."
    )
    return view["rows"], _figure(view["figure"]), _figure(view["frequency_figure"]), json_path, csv_path, status


# ---------------------------------------------------------------------------------------------
# Across vocabularies
# ---------------------------------------------------------------------------------------------


@_handler
def across(text: str, file: Any = None, state: Any = None, progress: gr.Progress = gr.Progress()):
    """The Compare text, or an uploaded text file, encoded with every bundled vocabulary and
    every one this session uploaded or trained, in both modes.

    Returns ``(table rows, Plotly figure, JSON file, CSV file, status markdown, cleared upload)``
    (an upload is read, then deleted: the box is emptied to say so); the JSON is
    ``{"source", "vocabularies": [lbpe.stats.compare_json summary + "n_vocab", ...]}``.
    """
    paths = _paths(file)
    if paths:
        try:
            data = _read_upload(paths[0], "corpus_bytes")
        finally:
            _discard(paths)
        source = paths[0].name
        _decode(data, source)  # a clear error for a file that is not UTF-8, before any work
        texts: Any

        def texts(tok: Tokenizer):
            step = CORPUS_CHUNK_BYTES
            blocks = (data[i : i + step] for i in range(0, len(data), step))
            return align_chunks(tok, iter_chunks(blocks, size=step, source=source))
    else:
        text = text or ""
        if not text.strip():
            raise gr.Error("Type or paste a text in the Compare tab, or choose a text file here.")
        if len(text) > LIMITS.text_chars:
            raise gr.Error(
                f"The text has {len(text):,} characters; at most {LIMITS.text_chars:,} come from the text "
                "box (set LBPE_APP_MAX_TEXT_CHARS). Upload it as a file for more."
            )
        source, texts = "the Compare text", [text]
    session = _session(state)
    tokenizers = {name: get_tokenizer(name, state) for _, name in vocab_choices(session)}
    report = _reporter(progress, session, f"{source}: encoding with every vocabulary")
    session["stop"] = False
    try:
        report(0.0)
        summaries = across_vocabularies(tokenizers, texts, progress=lambda done, total: report(done / total))
    except Stopped as stop:
        return [], None, None, None, f"Stopped at {stop.fraction:.0%} of {source}.", None
    rows = across_rows(summaries)
    doc = {"source": source, "vocabularies": summaries}
    stem = Path(source).stem if paths else "text"
    json_path = _output_file(f"{stem}-across.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    csv_path = _output_file(f"{stem}-across.csv", across_csv(rows))
    most = max(summaries, key=lambda s: abs(s["change"]["tokens"]))
    if most["change"]["tokens"]:
        verdict = f"LBPE changes the token count most with **{most['vocab']}** ({100 * most['change']['tokens']:+.2f}%)"
    else:
        verdict = "LBPE and BPE need as many tokens with every vocabulary"
    status = f"{source} with {len(summaries)} vocabularies: {verdict}. Click a column header to sort."
    figure = _figure(across_spec(summaries, title=f"LBPE vs BPE on {source}, per vocabulary"))
    return rows, figure, json_path, csv_path, status, None


# ---------------------------------------------------------------------------------------------
# Train
# ---------------------------------------------------------------------------------------------


@_handler
def train(
    files: Any,
    vocab_size: float = 8000,
    unit: str = "char",
    scaffold: bool = False,
    state: Any = None,
    progress: gr.Progress = gr.Progress(),
):
    """Train a vocabulary on uploaded text files; keep it in the session for Compare.

    Returns ``(state, vocabulary dropdown update, tokenizer.json file, status markdown)``.
    """
    state = _session(state)
    paths = _paths(files)
    if not paths:
        raise gr.Error("Choose one or more UTF-8 text files to train on.")
    size = int(vocab_size or 0)
    if unit not in ("char", "byte"):
        raise gr.Error(f"unit must be 'char' or 'byte', not {unit!r}.")
    if not 1 <= size <= LIMITS.train_vocab:
        raise gr.Error(
            f"The vocabulary size must be between 1 and {LIMITS.train_vocab:,} "
            "(set LBPE_APP_MAX_TRAIN_VOCAB to change the maximum)."
        )
    total = sum(_size(p) for p in paths)
    with using(LIMITS):
        check("train_bytes", total, f"The training corpus ({len(paths)} file(s))")
    texts = [_decode(_read_upload(_kept(p), "train_bytes"), p.name) for p in paths]
    names = ", ".join(p.name for p in paths)
    state["stop"] = False
    try:
        _reporter(progress, state, f"{names}: counting pre-tokens")(0.0)
        merging = _reporter(progress, state, f"{names}: merging")
        vocab = train_vocab(
            texts,
            vocab_size=size,
            unit=cast(Unit, unit),  # checked above
            scaffold=scaffold,
            progress=lambda done, wanted: merging(done / max(wanted, 1)),
        )
    except Stopped as stop:
        status = (
            f"Stopped at {stop.fraction:.0%} of training a {size:,}-token {unit} vocabulary on {names}; "
            "nothing was kept. Press Train to start again."
        )
        return state, gr.update(), None, status
    corpus_name = paths[0].name if len(paths) == 1 else f"{len(paths)} files"
    kind = f"{size} {unit}{' scaffold' if scaffold else ''}"
    path = _output_file(f"tokenizer-{size}-{unit}{'-scaffold' if scaffold else ''}.json", b"")
    write_tokenizer_json(vocab, path, pattern="paper")
    tok = lbpe.load(path)  # exactly what the download holds
    name = _remember(state, f"trained: {kind} on {corpus_name}", tok)
    state["trained"] = name
    made = len(vocab) - len(vocab.scaffold)
    extra = f" + {len(vocab.scaffold):,} scaffold tokens" if vocab.scaffold else ""
    status = (
        f"Done: **{name}**, {made:,} tokens{extra} from {total:,} bytes ({names}). "
        "Download it below, or use it in Compare."
    )
    return state, gr.update(choices=vocab_choices(state)), path, status


# ---------------------------------------------------------------------------------------------
# links: the view's state in the URL query
# ---------------------------------------------------------------------------------------------

#: Texts up to this many characters go into a link (``?t=``); longer ones are left out.
MAX_LINK_TEXT = 2000
#: The views a link can open (``?view=``).
VIEWS = ("compare", "corpus", "across", "train")


def link_state(params: dict[str, str]) -> dict[str, Any]:
    """What a link's query asks for: ``t`` text, ``v`` a bundled vocabulary, ``ws``/``ids``/``sp``
    toggles (``0``/``1``; ``sp``: special tokens as specials), ``x`` the span to explain, ``view``
    the open tab. Anything unknown, malformed or too long is left at its default, and ``notes``
    says what was left out.

    >>> link_state({"v": "gpt2", "ws": "0", "view": "across"})["vocab"]
    'gpt2'
    >>> link_state({"v": "upload: mine.json"})["notes"][0][:43]
    'It names the vocabulary “upload: mine.json”'
    """
    out: dict[str, Any] = {"notes": []}
    text = params.get("t")
    if text is not None:
        if len(text) <= max(MAX_LINK_TEXT, LIMITS.text_chars):
            out["text"] = text
        else:
            out["notes"].append(f"Its text is over {LIMITS.text_chars:,} characters: left out.")
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
    span = params.get("x")
    if span:
        out["explain"] = span[:MAX_EXPLAIN_CHARS]
    if params.get("view") in VIEWS:
        out["view"] = params["view"]
    return out


def _link_note(text: str) -> str:
    return f'<span class="lbpe-link-note" role="status">{html.escape(text)}</span>'


def restore(request: gr.Request):
    """Page load: apply the link's query (see :func:`link_state`). Returns updates for
    ``(text, vocabulary, whitespace, ids, specials, explain span, tabs, link note)``."""
    wanted = link_state(dict(request.query_params) if request is not None else {})
    keep = gr.update()

    def pick(key: str):
        return wanted[key] if key in wanted else keep

    note = ""
    if wanted["notes"]:
        note = "About this link: " + " ".join(wanted["notes"])
    note = _link_note(note)
    tabs = gr.update(selected=wanted["view"]) if "view" in wanted else keep
    return (
        pick("text"),
        pick("vocab"),
        pick("show_whitespace"),
        pick("show_ids"),
        pick("specials"),
        pick("explain"),
        tabs,
        note,
    )


@_handler
def stop(state: Any = None) -> None:
    """Stop this session's running corpus statistics or training (at its next progress step)."""
    if isinstance(state, dict):
        state["stop"] = True


@_handler
def use_trained(state: Any = None):
    """Select the vocabulary trained last in this session and switch to Compare.

    Returns ``(vocabulary dropdown update, tabs update)``.
    """
    name = _session(state)["trained"]
    if not name or name not in _session(state)["vocabs"]:
        raise gr.Error("Train a vocabulary first (or it was dropped: only the latest few are kept).")
    return gr.update(choices=vocab_choices(state), value=name), gr.update(selected="compare")


# ---------------------------------------------------------------------------------------------
# the page
# ---------------------------------------------------------------------------------------------

THEME = gr.themes.Default(
    primary_hue="orange",
    neutral_hue="slate",
    font=["system-ui", "-apple-system", "'Segoe UI'", "Roboto", "'Helvetica Neue'", "Arial", "sans-serif"],
    font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "'DejaVu Sans Mono'", "monospace"],
)

APP_CSS = (
    display.CSS
    + """
.lbpe-intro p { margin: .2em 0; }
#vocab-status p { margin: .1em 0; font-size: .92em; }
.lbpe-panes { gap: 12px; }
.lbpe-hidden { display: none !important; }
#link-note:has(.lbpe-link-note:empty) { display: none; }
#corpus-status, #train-status, #across-status { min-height: 2.8em; }
.lbpe-cut { margin: 0 0 .5em; padding: .4em .6em; border-left: 3px solid #e8590c; background: #fff4e6; }
.lbpe-copy-link { align-self: flex-end; }
/* phones: the text box and the two panes first (the examples and the Explain view follow them) */
@media (max-width: 640px) {
  .lbpe-intro p:not(:first-of-type) { display: none; }
  .lbpe-intro h1 { font-size: 1.35em; }
  .lbpe-text-side { flex-direction: row !important; flex-wrap: wrap; }
  #text textarea { min-height: 8em; }
  .lbpe-tokens { max-height: 40vh; }
}
#explain-box { padding: .6em .8em; }
#bpe-pane, #lbpe-pane { position: relative; }
.lbpe-busy { position: absolute; top: .3em; right: .6em; z-index: 1; font-size: .8em; color: #888; }
.lbpe-busy[hidden] { display: none; }
"""
)

#: The page's script (Gradio ``js``): a click on a token of either pane asks the server which
#: span to explain (``explain_click``) through the hidden ``#explain-at`` box, then scrolls to
#: the Explain view.
APP_JS = (
    "() => {\n"
    + (Path(lbpe.__file__).parent / "panes.js").read_text("utf-8")
    + """
  // the view's state in the URL query (see app.link_state); uploaded files never go in a link
  window.lbpeLink = (changes) => {
    const url = new URL(location.href);
    for (const [key, value] of Object.entries(changes)) {
      if (value === null || value === undefined || value === "") url.searchParams.delete(key);
      else url.searchParams.set(key, value);
    }
    // only on a change: a same-document navigation restyles the whole page (0.2 s with two long panes)
    if (url.href !== location.href) history.replaceState(null, "", url);
  };
  document.addEventListener("click", (event) => {
    const token = event.target.closest("#bpe-pane .lbpe-tok[data-s], #lbpe-pane .lbpe-tok[data-s]");
    if (!token) return;
    const box = document.querySelector("#explain-at textarea, #explain-at input");
    if (!box) return;
    box.value = token.dataset.s + ":" + Date.now();
    box.dispatchEvent(new Event("input", { bubbles: true }));
    const view = document.getElementById("explain-box");
    if (view) view.scrollIntoView({ behavior: "smooth", block: "start" });
  });
}
"""
)

#: Writes the Compare view's state into the URL (a Gradio ``js`` event, no server call).
LINK_JS = f"""
(text, vocab, ws, ids, sp, span) => {{
  const preset = {json.dumps(list(VOCAB_PRESETS))}.includes(vocab);
  window.lbpeLink && window.lbpeLink({{
    t: text && text.length <= {MAX_LINK_TEXT} ? text : null,
    v: preset ? vocab : null,
    ws: ws ? null : "0",
    ids: ids ? "1" : null,
    sp: sp ? "1" : null,
    x: span || null,
  }});
  return [];
}}
"""

#: The Copy link button: the URL to the clipboard, and what the link leaves out.
COPY_JS = f"""
(text, vocab) => {{
  const left = [];
  if (text && text.length > {MAX_LINK_TEXT}) left.push("the text (over {MAX_LINK_TEXT:,} characters)");
  if (!{json.dumps(list(VOCAB_PRESETS))}.includes(vocab)) {{
    left.push("the uploaded vocabulary (files never go in a link)");
  }}
  const note = left.length ? " It leaves out " + left.join(" and ") + "." : "";
  const done = (how) => {{
    const box = document.querySelector("#link-note");
    if (box) box.textContent = how + note;
  }};
  navigator.clipboard.writeText(location.href).then(() => done("Link copied."), () => {{
    window.prompt("Copy this link", location.href);
    done("Link shown.");
  }});
  return [];
}}
"""

#: The two panes draw their HTML themselves (a Gradio ``js_on_load`` calling ``lbpePanes.draw``
#: of lbpe/panes.js) instead of Gradio's node-by-node merge of the old and new markup, which
#: took most of a second at 50,000 characters: a long pane comes in runs of tokens (see
#: ``display.render_html``), and only the runs that changed are replaced.
PANE_TEMPLATE = '<span class="lbpe-busy" role="status" hidden>updating…</span><div class="lbpe-host"></div>'
PANE_JS = """
const host = element.querySelector(".lbpe-host") || element;
const busy = element.querySelector(".lbpe-busy");
const draw = () => {
  const value = typeof props.value === "string" ? props.value : "";
  if (busy) busy.hidden = true;
  if (window.lbpePanes) window.lbpePanes.draw(host, value);  // lbpe/panes.js, the page's script
  else if (host.lbpeShown !== value) { host.innerHTML = value; host.lbpeShown = value; host.lbpeParts = null; }
};
draw();
watch("value", draw);
"""

#: Shows "updating…" on both panes while a comparison runs. Gradio's own progress overlay (or
#: any class set on a pane) would restyle every token of both panes, twice per keystroke.
BUSY_JS = """
(...inputs) => {
  for (const note of document.querySelectorAll("#bpe-pane .lbpe-busy, #lbpe-pane .lbpe-busy")) note.hidden = false;
  return inputs;
}
"""
#: Hides the notes when a comparison ends (also when its panes came out unchanged).
DONE_JS = """
() => {
  for (const note of document.querySelectorAll("#bpe-pane .lbpe-busy, #lbpe-pane .lbpe-busy")) note.hidden = true;
  return [];
}
"""

#: The ids boxes and, while its accordion is open, the JSON view, filled from the comparison's
#: details in the browser (a JSON tree of every id is slow to draw, so it is drawn only when open).
DETAILS_JS = """
(details) => {
  const ids = (side) =>
    (details && details[side] && Array.isArray(details[side].ids)) ? details[side].ids.join(" ") : "";
  return [ids("bpe"), ids("lbpe"), window.lbpeDetailsOpen ? details : null];
}
"""

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
    ex = explain_span(get_tokenizer(DEFAULT_EXAMPLE.vocabulary, None), DEFAULT_EXAMPLE.explain)
    initial_explain = (explain_html(ex), ex.to_json(), {"frames": ex.frames})
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
            _describe(load_preset(DEFAULT_PRESET)), label="About the vocabulary", elem_id="vocab-status"
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
                        max(initial_explain[2]["frames"] - 1, 1),
                        step=1,
                        value=initial_explain[2]["frames"] - 1,
                        label="Step",
                        elem_id="explain-step",
                    )
                    explain_view = gr.HTML(initial_explain[0], label="Steps", elem_id="explain")
                    with gr.Accordion("Steps as JSON", open=False):
                        explain_json = gr.JSON(initial_explain[1], label="Steps", elem_id="explain-json")
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
                    f"vocabulary size up to **{LIMITS.train_vocab:,}**; the paper's pre-tokenizer). "
                    "`char` units: characters plus 256 byte-fallback tokens (the paper's LLaMA-like setup); "
                    "`byte` units: 256 byte tokens (GPT-2 style). Scaffold-BPE removes low-frequency scaffold "
                    "tokens (Lian et al. 2024)."
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
            [text, vocab, show_ws, show_ids, state],
            [bpe_html, lbpe_html, metrics, plot, frequency_plot, details, differences],
            api_name="compare",
            trigger_mode="always_last",
            show_progress="hidden",
            concurrency_limit=4,
            js=BUSY_JS,
        ).then(None, None, None, js=DONE_JS, api_visibility="private", queue=False)
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
        busy, free = (lambda: gr.update(interactive=False)), (lambda: gr.update(interactive=True))
        corpus_btn.click(busy, None, corpus_btn, queue=False, api_visibility="private").then(
            corpus,
            [corpus_file, vocab, state],
            [corpus_table, corpus_plot, corpus_frequency, corpus_json, corpus_csv, corpus_status],
            api_name="corpus_stats",
            concurrency_limit=1,
            show_progress_on=corpus_status,
        ).then(free, None, corpus_btn, queue=False, api_visibility="private")
        sample_btn.click(busy, None, sample_btn, queue=False, api_visibility="private").then(
            corpus_sample,
            [vocab, state],
            [corpus_table, corpus_plot, corpus_frequency, corpus_json, corpus_csv, corpus_status],
            api_name="corpus_sample",
            concurrency_limit=1,
            show_progress_on=corpus_status,
        ).then(free, None, sample_btn, queue=False, api_visibility="private")
        # Stop asks the running job to end at its next progress step; it then says where it stopped
        corpus_stop.click(stop, state, None, api_name="stop_corpus", queue=False)
        across_btn.click(busy, None, across_btn, queue=False, api_visibility="private").then(
            across,
            [text, across_file, state],
            [across_table, across_plot, across_json, across_csv, across_status, across_file],
            api_name="across_vocabularies",
            concurrency_limit=1,
            show_progress_on=across_status,
        ).then(free, None, across_btn, queue=False, api_visibility="private")
        train_btn.click(busy, None, train_btn, queue=False, api_visibility="private").then(
            train,
            [train_files, train_size, train_unit, train_scaffold, state],
            [state, vocab, train_out, train_status],
            api_name="train",
            concurrency_limit=1,
            show_progress_on=train_status,
        ).then(free, None, train_btn, queue=False, api_visibility="private")
        train_stop.click(stop, state, None, api_name="stop_train", queue=False)
        use_btn.click(use_trained, state, [vocab, tabs], api_name="use_trained")
        vocab.change(describe_vocab, [vocab, state], vocab_status, api_name="describe_vocab", show_progress="hidden")
        gr.on(
            [explain_box.change, vocab.change],
            explain,
            [explain_box, vocab, gr.State(None), state],
            [explain_view, explain_json, explain_step],
            api_name="explain",
            trigger_mode="always_last",
            show_progress="hidden",
        )
        explain_step.change(
            explain_frame,
            [explain_box, vocab, explain_step, state],
            explain_view,
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
        details.change(
            None, details, [bpe_ids, lbpe_ids, details_view], js=DETAILS_JS, api_visibility="private", queue=False
        )
        details_box.expand(
            None,
            details,
            details_view,
            js="(d) => { window.lbpeDetailsOpen = true; return d; }",
            api_visibility="private",
            queue=False,
        )
        details_box.collapse(
            None,
            None,
            details_view,
            js="() => { window.lbpeDetailsOpen = false; return null; }",
            api_visibility="private",
            queue=False,
        )
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
            js=LINK_JS,
            api_visibility="private",
            queue=False,
        )
        for tab, view in ((compare_tab, None), (corpus_tab, "corpus"), (across_tab, "across"), (train_tab, "train")):
            tab.select(
                None,
                None,
                None,
                js=f"() => {{ window.lbpeLink && window.lbpeLink({{view: {json.dumps(view)}}}); return []; }}",
                api_visibility="private",
                queue=False,
            )
        copy_link.click(None, [text, vocab], None, js=COPY_JS, api_visibility="private", queue=False)
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
