"""The views every front end shows, each one function returning one JSON-able dict: Compare
(:func:`compare_view`), Corpus (:func:`corpus_view`), Across vocabularies (:func:`across_view`),
Explain (:func:`explain_view`, :func:`explain_target`) and Train (:func:`train_view`, which a
server gives a time limit: ``seconds``).

The Compare, Corpus, Across and Explain views encode under a time budget
(:class:`lbpe.budget.time_budget`, ``LBPE_ENCODE_SECONDS`` per MiB of their text), so a request
with a hostile vocabulary stops with a message instead of holding the server.

The Gradio app hands each dict's parts to its components, the browser page returns the dicts to
its worker's caller, and the CLI prints them. Messages meant for a person (``"status"``) are
markdown, with the vocabulary's name in bold.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, cast

from lbpe import limits as _limits
from lbpe.analysis.across import ACROSS_HEADERS, ACROSS_TYPES, across_csv, across_rows, across_spec, across_vocabularies
from lbpe.analysis.comparison import compare_json
from lbpe.analysis.explain import explain, explain_span, pick_span
from lbpe.analysis.metrics import RENYI_POWER
from lbpe.analysis.stats import corpus_stats
from lbpe.budget import time_budget
from lbpe.corpus.parallel import align_chunks
from lbpe.corpus.textio import decode, iter_chunks
from lbpe.errors import LbpeError
from lbpe.limits import Limits
from lbpe.playground import display
from lbpe.tokenizer import MODES, Mode, Tokenizer, replace_surrogates
from lbpe.vocab import Vocab

if TYPE_CHECKING:
    from lbpe.train import TrainOptions

__all__ = [
    "CORPUS_CHUNK_BYTES",
    "CompareView",
    "CorpusView",
    "StatsView",
    "AcrossView",
    "ExplainView",
    "ExplainTarget",
    "TrainView",
    "compare_view",
    "corpus_view",
    "stats_view",
    "across_view",
    "explain_view",
    "explain_target",
    "check_train_options",
    "train_view",
    "TrainTimeError",
    "file_stem",
]

#: Bytes per chunk in the Corpus and Across views (progress is reported after each).
CORPUS_CHUNK_BYTES = 1 << 16


# ---- what each view returns: the schema the app, the page and the CLI read ----
# (JSON-able but for TrainView's Vocab; figures are plain Plotly figure dicts)


class CompareView(TypedDict):
    panes: dict[str, str]  # mode -> the pane's HTML
    metrics: str  # HTML
    differences: str  # HTML: each differing span, BPE tokens -> LBPE tokens
    figure: dict[str, Any]  # the token-length shift
    frequency_figure: dict[str, Any] | None  # occurrences per token length
    summary: dict[str, Any]  # display.Comparison.to_json(): ids, segments, differing ranges
    length_shift: dict[str, Any]
    stats: dict[str, Any]  # lbpe.analysis.comparison.compare_json of the text
    differ: tuple[tuple[int, int], ...]  # the character ranges where the encodings differ


class CorpusView(TypedDict):
    summary: dict[str, Any]  # lbpe.analysis.comparison.compare_json
    rows: list[list[str]]  # the Corpus table (display.stats_rows)
    csv: str
    json: str
    stem: str  # the downloads' file name stem
    tokens: dict[Mode, int]  # mode -> tokens
    figure: dict[str, Any]
    frequency_figure: dict[str, Any] | None
    status: str  # Markdown


class StatsView(TypedDict):
    summary: dict[str, Any]  # lbpe.analysis.comparison.compare_json
    skipped: list[str]  # the bad documents left out, each named by file and line
    bytes: int  # the files' size


class AcrossView(TypedDict):
    headers: list[str]
    types: Sequence[str]
    rows: list[list[Any]]  # one per vocabulary (lbpe.analysis.across.across_rows)
    vocabularies: list[dict[str, Any]]  # one compare_json summary each
    figure: dict[str, Any]
    json: str
    csv: str
    status: str  # Markdown


class ExplainView(TypedDict):
    html: str  # the frame shown
    frame: int
    frames: int
    steps: dict[str, Any]  # lbpe.analysis.explain's JSON of every step


class ExplainTarget(TypedDict):
    start: int
    end: int
    span: str


class TrainView(TypedDict):
    vocab: Vocab
    tokens: int  # normal tokens made
    scaffold: int  # scaffold tokens
    bytes: int  # the corpus size
    message: str


def file_stem(name: str) -> str:
    """A name as part of a download's file name: ``upload: my.json`` -> ``upload-my.json``.

    >>> file_stem("upload: my.json"), file_stem("::")
    ('upload-my.json', 'vocabulary')
    """
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "vocabulary"


def _chunks(tok: Tokenizer, data: bytes, source: str) -> Iterable[str]:
    """The text of ``data`` in chunks cut where every total stays exact."""
    step = CORPUS_CHUNK_BYTES  # handed over in blocks of that size: the buffer never holds more
    blocks = (data[i : i + step] for i in range(0, len(data), step))
    return align_chunks(tok, iter_chunks(blocks, size=step, source=source))


def _prepared(*toks: Tokenizer) -> None:
    """Build each vocabulary's encoding tables (a first use's one-off cost, seconds for a large
    vocabulary on a busy machine) before a time budget starts: the budget is for the encoding."""
    for tok in toks:
        for mode in MODES:
            tok.encode(" ", mode=mode, disallowed_special=())


def compare_view(
    tok: Tokenizer,
    text: str,
    *,
    show_whitespace: bool = True,
    show_ids: bool = False,
    specials: bool = False,
    lengths_chart: dict | None = None,
    frequency_chart: dict | None = None,
    again: display.Recompare | None = None,
) -> CompareView:
    """The Compare view of ``text`` with ``tok``: one JSON-able dict, the schema both UIs use.
    With ``again`` (a :class:`lbpe.playground.display.Recompare` kept by the caller), an edit of the text
    it compared last costs what the edit changed; the view is the same.

    * ``"panes"``: ``{"bpe": HTML, "lbpe": HTML}`` (:func:`lbpe.playground.display.render_pane`);
    * ``"metrics"``, ``"differences"``: HTML (:func:`~lbpe.playground.display.metrics_html`,
      :func:`~lbpe.playground.display.differences_html`);
    * ``"figure"``, ``"frequency_figure"``: Plotly figures (token lengths, how often a token of
      each length occurs), made with the options in ``lengths_chart`` / ``frequency_chart``
      (``title``, ``height``);
    * ``"summary"``: :meth:`lbpe.playground.display.Comparison.to_json` (counts, ids, differing spans);
    * ``"length_shift"``: the token-length shift; ``"stats"``: every metric
      (:func:`lbpe.analysis.comparison.compare_json` of the text);
    * ``"differ"``: the differing character ranges (for a click on a token, not JSON'd by the
      callers that return JSON).
    """
    _prepared(tok)
    with time_budget(len(text), what="the Compare view"):
        if again is None:
            comparison = display.compare(tok, text, specials=bool(specials))
        else:
            comparison = again.compare(tok, text, specials=bool(specials))
    render = display.render_pane if again is None else again.render_pane
    stats = display.comparison_stats(tok, comparison)
    summary = display.comparison_summary(tok, comparison, stats=stats)
    shift = display.shift_from_stats(stats["bpe"], stats["lbpe"], unit=comparison.unit)
    return {
        "panes": {mode: render(comparison, mode, show_whitespace=show_whitespace, show_ids=show_ids) for mode in MODES},
        "metrics": display.metrics_html(comparison, summary),
        "differences": display.differences_html(comparison),
        "figure": display.plotly_spec(shift, **(lengths_chart or {})),
        "frequency_figure": display.frequency_spec(summary, **(frequency_chart or {})),
        "summary": comparison.to_json(),
        "length_shift": shift.to_json(),
        "stats": summary,
        "differ": comparison.differ,
    }


def corpus_view(
    tok: Tokenizer,
    data: bytes,
    name: str,
    *,
    progress: Callable[[float], None] | None = None,
    lengths_chart: dict | None = None,
    frequency_chart: dict | None = None,
) -> CorpusView:
    """Statistics of a whole text file (``data``, the bytes of the file called ``name``) for
    BPE and LBPE, counted in chunks cut where the totals stay exact.

    ``progress(fraction)`` is called after each chunk (it may raise to stop the work). Returns
    ``{"summary": compare_json(...) + {"file": name}, "rows": lbpe.playground.display.stats_rows,
    "csv": lbpe.playground.display.stats_csv, "json": the summary as text, "stem": a file-name stem for
    downloads, "tokens": {mode: count}, "figure", "frequency_figure", "status"}``.
    A file that is not UTF-8 text raises :class:`~lbpe.errors.NotUtf8Error` (naming the byte and its offset) before
    any work.
    """
    decode(data, name)
    chunks = _chunks(tok, data, name)
    if progress is not None:
        progress(0.0)
    total = max(len(data), 1)  # progress counts UTF-8 bytes, as the statistics do
    _prepared(tok)
    with time_budget(len(data), what=f"the Corpus view of {name}"):
        stats = corpus_stats(tok, chunks, progress=(lambda done: progress(done / total)) if progress else None)
    summary = compare_json(stats, vocab=tok.name, unit=tok.vocab.unit, tok=tok)
    summary["file"] = name
    shift = display.shift_from_stats(stats["bpe"], stats["lbpe"], unit=tok.vocab.unit)
    tokens = {mode: stats[mode].tokens for mode in MODES}
    return {
        "summary": summary,
        "rows": display.stats_rows(summary),
        "csv": display.stats_csv(summary),
        "json": json.dumps(summary, indent=2, ensure_ascii=False) + "\n",
        "stem": f"{Path(name).stem or 'corpus'}-{file_stem(tok.name)}",
        "tokens": tokens,
        "figure": display.plotly_spec(shift, **(lengths_chart or {})),
        "frequency_figure": display.frequency_spec(summary, **(frequency_chart or {})),
        "status": (
            f"{name}: {len(data):,} bytes with **{tok.name}**: BPE {tokens['bpe']:,} tokens, "
            f"LBPE {tokens['lbpe']:,} tokens ({100 * summary['change']['tokens']:+.2f}%)."
        ),
    }


def stats_view(
    loader: Callable[[], Tokenizer],
    files: Sequence[str | os.PathLike[str]],
    *,
    lines: bool = False,
    text_field: str = "text",
    skip_bad: bool = False,
    workers: int | None = None,
    renyi_power: float = RENYI_POWER,
    progress: Callable[[int, int], None] | None = None,
) -> StatsView:
    """Exact statistics of corpus files (``.txt``, ``.jsonl(.gz)``, ``.parquet``; one document
    per file, or per line with ``lines``) for BPE and LBPE, counted on ``workers`` processes
    (:func:`lbpe.corpus.parallel.parallel_stats`): ``lbpe stats``.

    ``loader``: a picklable callable giving the tokenizer (each worker calls it).
    ``progress(done, total)`` counts the UTF-8 bytes of the files. Bad documents stop the work
    with an error naming file and line, or with ``skip_bad`` are counted out and listed.

    Returns ``{"summary": compare_json(...), "skipped": [messages], "bytes": the files' size}``.
    """
    from lbpe.corpus.documents import document_texts, input_bytes
    from lbpe.corpus.parallel import parallel_stats

    tok = loader()  # a bad vocabulary fails before any file is read
    total = input_bytes(files)
    skipped: list[str] = []
    texts = document_texts(tok, files, lines=lines, text_field=text_field, on_bad=skipped.append if skip_bad else None)
    stats = parallel_stats(
        loader, texts, workers=workers, progress=(lambda done: progress(min(done, total), total)) if progress else None
    )
    summary = compare_json(stats, vocab=tok.name, unit=tok.vocab.unit, tok=tok, renyi_power=renyi_power)
    return {"summary": summary, "skipped": skipped, "bytes": total}


def across_view(
    tokenizers: Mapping[str, Tokenizer],
    *,
    text: str | None = None,
    data: bytes | None = None,
    source: str = "the text",
    progress: Callable[[float], None] | None = None,
    chart: dict | None = None,
) -> AcrossView:
    """One text (``text``) or text file (``data``, called ``source``) encoded with every
    tokenizer in both modes (:func:`lbpe.analysis.across.across_vocabularies`).

    Returns ``{"headers", "types", "rows", "vocabularies": [compare_json summary + "n_vocab",
    ...], "figure", "json": {"source", "vocabularies"} as text, "csv", "status"}``. A file that
    is not UTF-8 text raises :class:`~lbpe.errors.NotUtf8Error` before any work.
    """
    texts: Any
    if data is not None:
        decode(data, source)
        order = {id(tok): k for k, tok in enumerate(tokenizers.values())}

        def texts(tok: Tokenizer) -> Iterable[str]:
            # progress (and a Stop) after every chunk, not only after every vocabulary
            done, k = 0, order[id(tok)]
            for chunk in _chunks(tok, data, source):
                yield chunk
                done += len(chunk.encode("utf-8", "surrogatepass"))
                if progress is not None:
                    progress((k + min(done / max(len(data), 1), 1.0)) / len(tokenizers))

    else:
        if not (text or "").strip():
            raise LbpeError("Type or paste a text first.")
        texts = [text]
    if progress is not None:
        progress(0.0)
    size = len(data) if data is not None else len(text or "")
    _prepared(*tokenizers.values())
    with time_budget(size * len(tokenizers), what="the Across view"):
        summaries = across_vocabularies(
            tokenizers, texts, progress=(lambda done, total: progress(done / total)) if progress else None
        )
    rows = across_rows(summaries)
    most = max(summaries, key=lambda s: abs(s["change"]["tokens"]))
    if most["change"]["tokens"]:
        verdict = f"LBPE changes the token count most with **{most['vocab']}** ({100 * most['change']['tokens']:+.2f}%)"
    else:
        verdict = "LBPE and BPE need as many tokens with every vocabulary"
    return {
        "headers": ACROSS_HEADERS,
        "types": ACROSS_TYPES,
        "rows": rows,
        "vocabularies": summaries,
        "figure": across_spec(summaries, **(chart or {})),
        "json": json.dumps({"source": source, "vocabularies": summaries}, indent=2, ensure_ascii=False) + "\n",
        "csv": across_csv(rows),
        "status": f"{source} with {len(summaries)} vocabularies: {verdict}.",
    }


def explain_view(
    tok: Tokenizer,
    span: str,
    frame: int | None = None,
    *,
    text: str | None = None,
    at: int | None = None,
    specials: bool = False,
) -> ExplainView:
    """``span`` worked step by step with both encodings (:mod:`lbpe.analysis.explain`):
    ``{"html": frame ``frame`` (``None`` or below 0: the last, every step done), "frame",
    "frames", "steps": the steps as JSON}``; ``frame`` is kept within the explanation.

    With ``text`` and ``at`` (where ``span`` starts in it, as :func:`explain_target` says) the
    span is explained where it stands, as the Compare view encodes ``text`` (``specials``: its
    toggle): :func:`lbpe.analysis.explain.explain_span`. A span that is not at ``at`` (typed, or the text
    changed since) is explained on its own."""
    if not span:
        raise LbpeError("Type a word or a short span to explain, or click a token in either pane.")
    budget = len(text) if text is not None else len(span)
    _prepared(tok)
    with time_budget(budget, what="the Explain view"):
        if text is not None and at is not None and 0 <= at and replace_surrogates(text)[at : at + len(span)] == span:
            ex = explain_span(tok, text, at, at + len(span), specials=specials)
        else:
            ex = explain(tok, span)
    last = ex.frames - 1
    k = last if frame is None or frame < 0 else min(frame, last)
    return {"html": display.explain_html(ex, k), "frame": k, "frames": ex.frames, "steps": ex.to_json()}


def explain_target(
    tok: Tokenizer,
    text: str,
    offset: int,
    differ: Sequence[tuple[int, int]] | None = None,
    *,
    specials: bool = False,
) -> ExplainTarget:
    """What to explain for a click at character ``offset`` of ``text``: the differing span that
    holds it, else its word (:func:`lbpe.analysis.explain.pick_span`), widened to the token boundaries
    both encodings share (:func:`lbpe.analysis.explain.explain_span`), as ``{"start", "end", "span"}``;
    :func:`explain_view` of ``span`` with ``at=start`` explains it there. ``differ``: the
    differing ranges when the caller has them (from :func:`compare_view` with the same
    ``specials``)."""
    text = replace_surrogates(text)
    if differ is None:
        _prepared(tok)
        with time_budget(len(text), what="the Explain view"):
            differ = display.compare(tok, text, specials=specials).differ
    a, b = pick_span(text, offset, differ)
    if a < b:
        try:
            ex = explain_span(tok, text, a, b, specials=specials)
        except LbpeError:
            pass  # explain_view says what is wrong with the span
        else:
            a, b = cast(int, ex.start), cast(int, ex.end)
    return {"start": a, "end": b, "span": text[a:b]}


def check_train_options(*, style: str, unit: str, pattern: str | None) -> None:
    """Refuse a combination :func:`lbpe.train` cannot train, before a corpus is read: the
    llama style has no regex pre-tokenizer and trains characters; a gpt2-style ``pattern`` must
    be a preset lbpe can write."""
    from lbpe.formats.hf_write import hf_regex

    if style not in ("gpt2", "llama"):
        raise LbpeError(f"style must be 'gpt2' or 'llama', not {style!r}")
    if unit not in ("char", "byte"):
        raise LbpeError(f"unit must be 'char' or 'byte', not {unit!r}")
    if style == "llama":
        if pattern is not None:
            raise LbpeError(
                "the llama style has no regex pre-tokenizer: leave out the pattern (CLI: leave out --pattern)"
            )
        if unit != "char":
            raise LbpeError(
                "the llama style trains characters with byte fallback: choose char units (CLI: leave out --unit byte)"
            )
    else:
        hf_regex(pattern or "paper")  # an unknown preset fails before the corpus is read


def train_view(
    sources: Sequence[str | os.PathLike[str]],
    *,
    options: TrainOptions | None = None,
    vocab_size: int | None = None,
    style: str | None = None,
    unit: str | None = None,
    pattern: str | None = None,
    scaffold: bool | None = None,
    special_tokens: Sequence[str] | None = None,
    max_chars: int | None = None,
    character_coverage: float | None = None,
    limits: Limits | None = None,
    max_vocab: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    read_progress: Callable[[int, int], None] | None = None,
    seconds: float | None = None,
) -> TrainView:
    """Train a vocabulary on UTF-8 text files and write it as a ``tokenizer.json``: the Train
    view of the app and ``lbpe train``.

    The training options come as one ``options`` (:class:`lbpe.train.TrainOptions`) or as
    keywords, as :func:`lbpe.train` takes them. They are checked first
    (:func:`check_train_options`, then the library's checks; ``vocab_size`` within
    ``max_vocab`` when given), then the files' total size against ``train_bytes`` (of
    ``limits``, else the environment's), before any text is read. ``progress`` and
    ``read_progress`` are :func:`lbpe.train`'s. ``seconds``: the time the training may take (a
    server's budget; ``None``: no limit, as ``lbpe train``); past it, at the next step of the
    counting or the merging, :class:`TrainTimeError` says how far it got and what to do.

    Returns ``{"vocab": the Vocab, "tokens": normal tokens made, "scaffold": scaffold tokens,
    "bytes": the corpus size, "message"}``; :func:`lbpe.formats.hf_write.write_tokenizer_json`
    writes the vocabulary in the style and with the preset it was trained with.
    """
    from lbpe.corpus.documents import input_bytes
    from lbpe.train import train
    from lbpe.train.options import train_options

    if not sources:
        raise LbpeError("Choose one or more UTF-8 text files to train on.")
    if options is None:  # in this view's words, before the library's checks
        check_train_options(style=style or "gpt2", unit=unit or "char", pattern=pattern)
    keywords = {
        "vocab_size": vocab_size,
        "style": style,
        "unit": unit,
        "pattern": pattern,
        "scaffold": scaffold,
        "special_tokens": special_tokens,
        "max_chars": max_chars,
        "character_coverage": character_coverage,
    }
    options = train_options(options, keywords, where="train_view")
    if options.pattern is not None and not isinstance(options.pattern, str):
        raise LbpeError("a tokenizer.json names its pre-tokenizer: give the pattern as a preset name, not a regex")
    check_train_options(style=options.style, unit=options.unit, pattern=options.pattern)
    vocab_size = options.vocab_size
    if max_vocab is not None and not 1 <= vocab_size <= max_vocab:
        raise LbpeError(
            f"The vocabulary size must be between 1 and {max_vocab:,} "
            "(set LBPE_APP_MAX_TRAIN_VOCAB to change the maximum)."
        )
    paths = [Path(s) for s in sources]
    total = input_bytes(paths)
    with _limits.using(limits):
        _limits.check("train_bytes", total, f"the training corpus ({len(paths)} file(s))")
    if seconds is not None:
        flags = [
            f"--vocab-size {vocab_size}",
            "--style llama" if options.style == "llama" else "",
            "--unit byte" if options.unit == "byte" else "",
        ]
        flags.append("--scaffold" if options.scaffold else "")
        command = "lbpe train " + " ".join(f for f in flags if f) + " -o tokenizer.json FILE"
        progress, read_progress = _timed(seconds, command, progress, read_progress)
    vocab: Vocab = train(paths, options=options, progress=progress, read_progress=read_progress)
    made = len(vocab) - len(vocab.scaffold)
    extra = f" + {len(vocab.scaffold):,} scaffold tokens" if vocab.scaffold else ""
    return {
        "vocab": vocab,
        "tokens": made,
        "scaffold": len(vocab.scaffold),
        "bytes": total,
        "message": f"{made:,} tokens{extra} from {total:,} bytes",
    }


class TrainTimeError(LbpeError):
    """A training ran past the time a server gives one (:func:`train_view`'s ``seconds``)."""

    def __init__(self, seconds: float, command: str, where: str) -> None:
        self.seconds = seconds
        super().__init__(
            f"Training stopped after {seconds:g} s, the most this server gives one training ({where}); "
            "nothing was kept. Train on a smaller file or a smaller vocabulary size, or train on your own "
            f"machine, where it has no time limit: pip install lbpe, then {command}"
        )


_Progress = Callable[[int, int], None]


def _timed(
    seconds: float, command: str, progress: _Progress | None, read_progress: _Progress | None
) -> tuple[_Progress, _Progress]:
    """``progress`` and ``read_progress`` that also raise :class:`TrainTimeError` once
    ``seconds`` have passed (each passes its step on first, so a progress bar stays right)."""
    end = time.monotonic() + seconds

    def check(where: Callable[[], str]) -> None:
        if time.monotonic() > end:
            raise TrainTimeError(seconds, command, where())

    def merging(done: int, wanted: int) -> None:
        if progress is not None:
            progress(done, wanted)
        check(lambda: f"{done:,} of {wanted:,} merges were done")

    def reading(done: int, total: int) -> None:
        if read_progress is not None:
            read_progress(done, total)
        check(lambda: f"while counting the words, {done:,} of {total:,} bytes read")

    return merging, reading
