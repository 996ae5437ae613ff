"""The Corpus and Across handlers: a whole file's statistics, and one text across vocabularies."""

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
)
from lbpe.playground.service import Session, Stopped, across_view, corpus_view, read_upload
from lbpe.presets import DEFAULT_PRESET, sample_corpus

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
            data = read_upload(paths[0], "corpus_bytes", limits=common.LIMITS)
    else:
        text = text or ""
        if not text.strip():
            raise gr.Error("Type or paste a text in the Compare tab, or choose a text file here.")
        if len(text) > common.LIMITS.text_chars:
            raise gr.Error(
                f"The text has {len(text):,} characters; at most {common.LIMITS.text_chars:,} come from the text "
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
