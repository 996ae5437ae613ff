"""The Corpus and Across handlers: a whole file's statistics, and one text across vocabularies;
on the methods axis, one vocabulary with every inference method ticked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gradio as gr

from lbpe.playground import display
from lbpe.playground.app.handlers import common
from lbpe.playground.app.handlers.common import (
    _DOWNLOADS,
    _figure,
    _handler,
    _job,
    _kept,
    _paths,
    _read_once,
    _reporter,
    _session,
    get_tokenizer,
    shown,
    stopped,
)
from lbpe.playground.app.handlers.compare_tab import _rate, _seed
from lbpe.playground.service import (
    DEFAULT_DROPOUT,
    Session,
    Stopped,
    across_view,
    corpus_view,
    file_stem,
    methods_view,
    read_upload,
)
from lbpe.presets import DEFAULT_PRESET, sample_corpus
from lbpe.tokenizer import METHODS

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
            data = read_upload(paths[0], "corpus_bytes", limits=common.LIMITS)
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
        return stopped(_session(state), "corpus", "corpus", status, ([], None, None, None, None))
    json_path = _DOWNLOADS.write(f"{view['stem']}-stats.json", view["json"])
    csv_path = _DOWNLOADS.write(f"{view['stem']}-stats.csv", view["csv"])
    shown(_session(state), "corpus", "corpus")
    return view["rows"], _figure(view["figure"]), _figure(view["frequency_figure"]), json_path, csv_path, view["status"]


@_handler
def across(text: str, file: Any = None, state: Any = None, progress: gr.Progress = gr.Progress()):
    """The Compare text, or an uploaded text file, encoded with every bundled vocabulary and
    every one this session uploaded or trained, in both modes (:func:`lbpe.playground.service.across_view`).

    Returns ``(table rows, Plotly figure, JSON file, CSV file, status markdown, cleared upload)``
    (an upload is read, then deleted: the box is emptied to say so); the JSON is
    ``{"source", "vocabularies": [lbpe.analysis.comparison.compare_json summary + "n_vocab" and "vocab_tokens", ...]}``.
    """
    paths, session = _paths(file), _session(state)
    with _job(session, "across", "A comparison across vocabularies"):
        return _across(text, paths, session, progress)


def _across_stopped(stop: Stopped, source: str, uploaded: bool, button: str) -> str:
    """What Stop left of an Across run, and how to run it again (an upload is read once: its
    box is empty by now)."""
    if uploaded:
        return (
            f"Stopped at {stop.fraction:.0%} of {source}: nothing is shown for a part of a file. To run it "
            f"again, choose {source} again (an upload is read once), then press {button}."
        )
    return (
        f"Stopped at {stop.fraction:.0%} of {source}: nothing is shown for a part of it. "
        f"Press {button} to run it again."
    )


def _compare_text(text: str | None) -> str:
    """The Compare text as an Across run names it: its length and its start (as code, which
    Markdown leaves as it is), so results still shown after the text changed say what they were
    computed on."""
    text = text or ""
    start = " ".join(text.split()).replace("`", "'")
    return f"the Compare text ({len(text):,} characters: `{start[:24]}{'…' if len(start) > 24 else ''}`)"


def _across(text: str, paths: list[Path], session: Session, progress: Any):
    source = paths[0].name if paths else _compare_text(text)
    # made first: a Stop pressed from here on (while the file is read) stops this run
    report = _reporter(progress, session, f"{source}: encoding with every vocabulary")
    text, data = _across_input(text, paths)
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
        status = _across_stopped(stop, source, bool(paths), "Compare across vocabularies")
        return (*stopped(session, "across", "across", status, ([], None, None, None)), None)
    shown(session, "across", "across")
    stem = Path(source).stem if paths else "text"
    json_path = _DOWNLOADS.write(f"{stem}-across.json", view["json"])
    csv_path = _DOWNLOADS.write(f"{stem}-across.csv", view["csv"])
    status = view["status"] + " Click a column header to sort."
    return view["rows"], _figure(view["figure"]), json_path, csv_path, status, None


def _across_input(text: str, paths: list[Path]) -> tuple[str, bytes | None]:
    """The Across views' input: an upload's bytes (read once), else the Compare text, checked."""
    if paths:
        with _read_once(paths[:1]):
            return text, read_upload(paths[0], "corpus_bytes", limits=common.LIMITS)
    text = text or ""
    if not text.strip():
        raise gr.Error("Type or paste a text in the Compare tab, or choose a text file here.")
    if len(text) > common.LIMITS.text_chars:
        raise gr.Error(
            f"The text has {len(text):,} characters; at most {common.LIMITS.text_chars:,} come from the text "
            "box. Upload it as a file for more."
        )
    return text, None


# ---- the methods axis: one vocabulary, every method ----

#: The choices of the Across and Corpus views' axis: what they compare.
AXIS_CHOICES = [("vocabularies", "vocabularies"), ("methods (one vocabulary, every method)", "methods")]


def axis_controls(axis: str) -> tuple[Any, Any]:
    """What an axis shows: updates for ``(the vocabularies axis' controls, the methods axis'
    controls)``, each a column of the Across or Corpus tab."""
    on = axis == "methods"
    return gr.update(visible=not on), gr.update(visible=on)


def _methods_options(methods: Any, dropout: Any, seed: Any) -> dict[str, Any]:
    """The ticked methods (in :data:`lbpe.METHODS`' order; unknown names are the view's to
    name) with dropout's rate and seed, as :func:`lbpe.playground.service.methods_view` takes them."""
    chosen = (
        list(METHODS) if methods is None else [str(m) for m in ([methods] if isinstance(methods, str) else methods)]
    )
    if not chosen:
        raise gr.Error("Tick at least one method to compare (BPE, LBPE, …).")
    chosen.sort(key=lambda m: METHODS.index(m) if m in METHODS else len(METHODS))
    if "dropout" not in chosen:
        return {"methods": chosen, "dropout": None, "seed": None}
    rate = _rate(dropout)
    if rate is None:
        raise gr.Error("BPE-dropout needs a rate from 0 to 1 (e.g. 0.1): fill in Dropout rate, or untick BPE-dropout.")
    return {"methods": chosen, "dropout": rate, "seed": _seed(seed)}


@_handler
def across_methods(
    text: str,
    file: Any = None,
    vocab: str = DEFAULT_PRESET,
    state: Any = None,
    methods: Any = None,
    dropout: Any = DEFAULT_DROPOUT,
    seed: Any = 0,
    progress: gr.Progress = gr.Progress(),
):
    """The Compare text, or an uploaded text file, encoded with the vocabulary chosen above by
    every ticked method (default all of :data:`lbpe.METHODS`; ``dropout`` and ``seed``:
    BPE-dropout's rate and seed), :func:`lbpe.playground.service.methods_view`.

    Returns ``(table rows, Plotly figure, JSON file, CSV file, status markdown, cleared upload)``,
    as :func:`across` does; the JSON is ``lbpe stats --methods --json``'s with ``"source"``.
    """
    paths, session = _paths(file), _session(state)
    options = _methods_options(methods, dropout, seed)
    with _job(session, "across", "A comparison across vocabularies or methods"):
        source = paths[0].name if paths else _compare_text(text)
        tok = get_tokenizer(vocab, session)
        report = _reporter(progress, session, f"{source} with {tok.name}: encoding with every method")
        text, data = _across_input(text, paths)
        try:
            view = methods_view(
                tok,
                text=text,
                data=data,
                source=source,
                progress=report,
                chart={"title": f"Each method vs BPE on {source}, {tok.name}"},
                **options,
            )
        except Stopped as stop:
            status = _across_stopped(stop, source, bool(paths), "Compare across methods")
            return (*stopped(session, "across", "across-methods", status, ([], None, None, None)), None)
        shown(session, "across", "across-methods")
        stem = f"{Path(source).stem if paths else 'text'}-{file_stem(tok.name)}"
        json_path = _DOWNLOADS.write(f"{stem}-methods.json", view["json"])
        csv_path = _DOWNLOADS.write(f"{stem}-methods.csv", view["csv"])
        return (
            view["rows"],
            _figure(view["figure"]),
            json_path,
            csv_path,
            view["status"] + " Click a column header to sort.",
            None,
        )


@_handler
def corpus_methods(
    file: Any,
    vocab: str = DEFAULT_PRESET,
    state: Any = None,
    methods: Any = None,
    dropout: Any = DEFAULT_DROPOUT,
    seed: Any = 0,
    progress: gr.Progress = gr.Progress(),
):
    """Statistics of an uploaded text file for every ticked method (the methods axis of
    :func:`corpus`; :func:`lbpe.playground.service.methods_view`).

    Returns ``(table rows, Plotly figure, None (no frequency figure), JSON file, CSV file,
    status markdown)``; the JSON is ``lbpe stats --methods --json``'s with ``"source"``.
    """
    paths = _paths(file)
    if not paths:
        raise gr.Error("Choose a text file for the corpus statistics, or press Use the sample corpus.")
    options = _methods_options(methods, dropout, seed)
    with _job(_session(state), "corpus", "A corpus statistics job"):
        with _kept(paths[:1]):
            data = read_upload(paths[0], "corpus_bytes", limits=common.LIMITS)
        return _corpus_methods(data, paths[0].name, vocab, state, progress, options)


@_handler
def corpus_sample_methods(
    vocab: str = DEFAULT_PRESET,
    state: Any = None,
    methods: Any = None,
    dropout: Any = DEFAULT_DROPOUT,
    seed: Any = 0,
    progress: gr.Progress = gr.Progress(),
):
    """:func:`corpus_methods` of the bundled sample corpus."""
    options = _methods_options(methods, dropout, seed)
    with _job(_session(state), "corpus", "A corpus statistics job"):
        return _corpus_methods(sample_corpus(), SAMPLE_NAME, vocab, state, progress, options)


def _corpus_methods(data: bytes, name: str, vocab: str, state: Any, progress: Any, options: dict[str, Any]):
    tok = get_tokenizer(vocab, state)
    report = _reporter(progress, _session(state), f"{name} with {tok.name}: encoding with every method")
    try:
        view = methods_view(
            tok, data=data, source=name, progress=report, chart={"title": f"Each method vs BPE on {name}"}, **options
        )
    except Stopped as stop:
        status = (
            f"Stopped at {stop.fraction:.0%} of {name} with **{tok.name}**: nothing is shown for a "
            "part of a file. Press Compute statistics per method to run it again."
        )
        return stopped(_session(state), "corpus", "corpus-methods", status, ([], None, None, None, None))
    shown(_session(state), "corpus", "corpus-methods")
    stem = f"{Path(name).stem or 'corpus'}-{file_stem(tok.name)}"
    json_path = _DOWNLOADS.write(f"{stem}-methods.json", view["json"])
    csv_path = _DOWNLOADS.write(f"{stem}-methods.csv", view["csv"])
    return view["rows"], _figure(view["figure"]), None, json_path, csv_path, view["status"]
