"""The Corpus view (an upload's statistics), ``lbpe stats`` (files of any size, streamed), the Across
vocabularies view (one text with several vocabularies) and the methods axis of both (one text or
file, one vocabulary, every inference method: ``lbpe stats --methods``)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from lbpe.analysis.across import ACROSS_HEADERS, ACROSS_TYPES, across_csv, across_rows, across_spec, across_vocabularies
from lbpe.analysis.comparison import compare_json
from lbpe.analysis.methods import (
    METHODS_HEADERS,
    METHODS_TYPES,
    check_options,
    corpus_methods_stats,
    methods_csv,
    methods_json,
    methods_rows,
    methods_spec,
    parse_methods,
)
from lbpe.analysis.metrics import RENYI_POWER
from lbpe.analysis.stats import corpus_stats
from lbpe.budget import time_budget
from lbpe.corpus.documents import check_words
from lbpe.corpus.textio import BOM, decode
from lbpe.errors import LbpeError
from lbpe.playground import display
from lbpe.playground.service.shared import file_stem, prepared, text_chunks
from lbpe.tokenizer import METHODS, MODES, Mode, Tokenizer

__all__ = [
    "AcrossView",
    "CorpusView",
    "MethodsView",
    "StatsView",
    "DEFAULT_DROPOUT",
    "across_view",
    "corpus_view",
    "methods_view",
    "stats_view",
]

#: What a view of an uploaded file with no words asks for (:func:`check_words`).
UPLOAD_FIX = "choose a file with text"

#: BPE-dropout's rate on the methods axis unless another is given (the paper's and the CLI's example).
DEFAULT_DROPOUT = 0.1


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
    special_text: list[str]  # special tokens the text spells, counted as ordinary text (special_text_in)
    special_note: str  # what the status says of them ("" when none), for a front end's own line


class MethodsView(TypedDict):
    methods: list[str]  # the methods, in the order shown
    headers: list[str]
    types: Sequence[str]
    rows: list[list[Any]]  # one per method (lbpe.analysis.methods.methods_rows)
    stats: dict[str, Any]  # lbpe.analysis.methods.methods_json, as lbpe stats --methods --json prints it
    table: str  # HTML: the rows as a table
    figure: dict[str, Any]
    json: str
    csv: str
    status: str  # Markdown
    special_text: list[str]  # as AcrossView's
    special_note: str


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
    chunks = text_chunks(tok, data, name)
    if progress is not None:
        progress(0.0)
    total = max(len(data), 1)  # progress counts UTF-8 bytes, as the statistics do
    prepared(tok)
    with time_budget(len(data), what=f"the Corpus view of {name}"):
        stats = corpus_stats(tok, chunks, progress=(lambda done: progress(done / total)) if progress else None)
    check_words(stats["bpe"].words, [name], fix=UPLOAD_FIX)
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
            f"{name}: {stats['bpe'].bytes:,} bytes{_mark_note(data)} with **{tok.name}**: "
            f"BPE {tokens['bpe']:,} tokens, LBPE {tokens['lbpe']:,} tokens "
            f"({100 * summary['change']['tokens']:+.2f}%)." + _specials_note(tok)
        ),
    }


def _mark_note(data: bytes) -> str:
    """What the status says of a file's UTF-8 byte order mark, which no count includes."""
    return " of text (its byte order mark left out)" if data.startswith(BOM) else ""


def _specials_note(tok: Tokenizer) -> str:
    """What the counts do with text that spells one of ``tok``'s special tokens (nothing to say
    for a vocabulary with none)."""
    specials = sorted({*tok.special_tokens, *tok.added_tokens}, key=lambda t: (len(t), t))
    if not specials:
        return ""
    first = specials[0] if "`" not in specials[0] else specials[0].replace("`", "'")
    shown = f"`{first}`" + (", ..." if len(specials) > 1 else "")
    return (
        f" As in lbpe export and stats, text that spells a special token ({shown}) is counted as ordinary "
        "text, not as that token."
    )


def special_text_in(text: str, tokenizers: Iterable[Tokenizer]) -> list[str]:
    """The special tokens (of any of ``tokenizers``) whose text ``text`` spells, shortest first:
    the views count that text as ordinary text, where a compare with special tokens shown
    reads the token."""
    found = {name for tok in tokenizers for name in tok.special_tokens if name in text}
    return sorted(found, key=lambda t: (len(t), t))


def _spelled_note(found: list[str]) -> str:
    """What the status says when the text spells special tokens (``""`` when it spells none)."""
    if not found:
        return ""
    shown = ", ".join(f"`{name.replace('`', chr(39))}`" for name in found[:3]) + (", ..." if len(found) > 3 else "")
    return f"The text spells special tokens ({shown}): counted here as ordinary text, as lbpe stats counts them."


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

    Returns ``{"headers", "types", "rows", "vocabularies": [compare_json summary + "n_vocab" and "vocab_tokens",
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
            for chunk in text_chunks(tok, data, source):
                yield chunk
                done += len(chunk.encode("utf-8", "surrogatepass"))
                if progress is not None:
                    progress((k + min(done / max(len(data), 1), 1.0)) / len(tokenizers))

    else:
        if not (text or "").strip():
            raise LbpeError("Type or paste a text first.")
        texts = [text]
    spelled = special_text_in(text or "", tokenizers.values()) if data is None else []
    note = _spelled_note(spelled)
    if progress is not None:
        progress(0.0)
    size = len(data) if data is not None else len(text or "")
    prepared(*tokenizers.values())
    with time_budget(size * len(tokenizers), what="the Across view"):
        summaries = across_vocabularies(
            tokenizers, texts, progress=(lambda done, total: progress(done / total)) if progress else None
        )
    if data is not None:
        check_words(summaries[0]["bpe"]["words"], [source], fix=UPLOAD_FIX)
    rows = across_rows(summaries)
    largest = max(abs(s["change"]["tokens"]) for s in summaries)
    if largest:
        # every vocabulary at the largest share as shown (a tie is no single winner)
        shown = f"{100 * largest:.2f}"
        most = [s for s in summaries if f"{100 * abs(s['change']['tokens']):.2f}" == shown]
        bold = [f"**{s['vocab']}**" for s in most]
        names = bold[0] if len(bold) == 1 else ", ".join(bold[:-1]) + " and " + bold[-1]
        shares = sorted({f"{100 * s['change']['tokens']:+.2f}%" for s in most})
        each = f"{shares[0]} each" if len(most) > 1 and len(shares) == 1 else " / ".join(shares)
        verdict = f"LBPE changes the token count most with {names} ({each})"
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
        "status": f"{source} with {len(summaries)} vocabularies: {verdict}." + (f" {note}" if note else ""),
        "special_text": spelled,
        "special_note": note,
    }


def methods_view(
    tok: Tokenizer,
    *,
    text: str | None = None,
    data: bytes | None = None,
    source: str = "the text",
    methods: str | Iterable[str] = METHODS,
    dropout: float | None = DEFAULT_DROPOUT,
    seed: int | None = 0,
    progress: Callable[[float], None] | None = None,
    chart: dict | None = None,
) -> MethodsView:
    """The methods axis of the Across and Corpus views: one text (``text``) or text file
    (``data``, called ``source``) encoded with ``tok`` by every method of ``methods`` (names,
    ``"a,b"`` or ``"all"``; default every method of :data:`lbpe.METHODS`), with the statistics of
    ``lbpe stats --methods`` (:mod:`lbpe.analysis.methods`): tokens, bytes per token, long-token
    share, Rényi efficiency, fertility and word agreement with BPE. ``dropout`` and ``seed``
    are BPE-dropout's rate and seed, used when ``"dropout"`` is among the methods (ignored
    otherwise: a form's hidden boxes keep their values).

    A file is read in the Corpus view's chunks, cut where the totals stay exact; ``progress(fraction)``
    is called after each (it may raise to stop the work). Returns ``{"methods", "headers", "types",
    "rows", "stats": methods_json(...), "table": HTML, "figure", "json": {"source", **stats} as
    text, "csv", "status"}``. An unknown method, no method or a bad rate raises
    :class:`~lbpe.errors.LbpeError` saying what to pass; a file that is not UTF-8 text raises
    :class:`~lbpe.errors.NotUtf8Error` before any work.
    """
    chosen = parse_methods(methods)
    if "dropout" not in chosen:
        dropout = seed = None
    check_options(chosen, dropout, seed)
    texts: Iterable[str]
    if data is not None:
        decode(data, source)
        texts = text_chunks(tok, data, source)
        size = len(data)
    else:
        if not (text or "").strip():
            raise LbpeError("Type or paste a text first.")
        texts = [text or ""]
        size = len((text or "").encode("utf-8", "surrogatepass"))
    spelled = special_text_in(text or "", [tok]) if data is None else []
    note = _spelled_note(spelled)
    if progress is not None:
        progress(0.0)
    prepared(tok)
    with time_budget(size * len(chosen), what=f"the methods of {source}"):
        stats = corpus_methods_stats(
            tok,
            texts,
            chosen,
            dropout=dropout,
            seed=seed,
            progress=(lambda done: progress(min(done / max(size, 1), 1.0))) if progress else None,
        )
    if data is not None:
        check_words(next(iter(stats.values())).words, [source], fix=UPLOAD_FIX)
    doc = methods_json(stats, tok=tok, dropout=dropout, seed=seed)
    rows = methods_rows(doc)
    counts = {m: row["tokens"] for m, row in doc["methods"].items()}
    least = min(counts.values())
    tied = [m for m, n in counts.items() if n == least]
    noun = "token" if least == 1 else "tokens"
    if len(tied) == len(counts) > 1:
        fewest = f"all {len(tied)} methods need {least:,} {noun}."
    elif len(tied) == 1:
        fewest = f"**{tied[0]}** needs the fewest tokens ({least:,})."
    else:
        named = ", ".join(f"**{m}**" for m in tied[:-1]) + f" and **{tied[-1]}**"
        fewest = f"{named} need the fewest tokens ({least:,})."
    drawn = f" (dropout rate {dropout:g}, seed {seed})" if dropout is not None else ""
    headline = f"{source} with **{tok.name}** and {len(chosen)} methods{drawn}: {fewest}"
    return {
        "methods": list(chosen),
        "headers": METHODS_HEADERS,
        "types": METHODS_TYPES,
        "rows": rows,
        "stats": doc,
        "table": display.table_html(METHODS_HEADERS, rows),
        "figure": methods_spec(doc, **(chart or {})),
        "json": json.dumps({"source": source, **doc}, indent=2, ensure_ascii=False) + "\n",
        "csv": methods_csv(rows),
        "status": headline + (f" {note}" if note else ""),
        "special_text": spelled,
        "special_note": note,
    }
