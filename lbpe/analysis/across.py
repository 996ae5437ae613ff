"""One text, many vocabularies: which tokenizers would LBPE change most?

:func:`across_vocabularies` encodes the same text (or the chunks of a corpus) with each
vocabulary in both modes and returns, per vocabulary, the :func:`lbpe.analysis.comparison.compare_json`
summary (every metric, one schema for every front end). :func:`across_rows` turns those into
a sortable table (numbers, not strings, so a table sorts them as numbers) and
:func:`across_spec` into a Plotly figure. Standard library only: the app, the page and scripts
share it.

>>> from lbpe.vocab import Vocab
>>> from lbpe.tokenizer import Tokenizer
>>> byte = {bytes([b]): b for b in range(256)}
>>> small = Tokenizer(Vocab(byte | {b"aa": 256, b"bb": 257, b"bbb": 258, b"aab": 259}), "paper", name="small")
>>> plain = Tokenizer(Vocab(byte | {b"aa": 256}), "paper", name="plain")
>>> summaries = across_vocabularies({"small": small, "plain": plain}, ["aabbb"])
>>> [(s["vocab"], s["bpe"]["tokens"], s["lbpe"]["tokens"]) for s in summaries]
[('small', 2, 2), ('plain', 4, 4)]
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from lbpe.analysis.comparison import compare_json
from lbpe.analysis.counting import vocab_tokens
from lbpe.analysis.metrics import RENYI_POWER
from lbpe.analysis.stats import LONG_TOKEN, corpus_stats
from lbpe.tokenizer import Tokenizer

__all__ = [
    "across_vocabularies",
    "ACROSS_HEADERS",
    "ACROSS_TYPES",
    "across_rows",
    "across_csv",
    "across_spec",
    "change_bars",
    "long_share",
]


def long_share(stats: dict, *, long: int = LONG_TOKEN) -> float:
    """Share of a mode's tokens (its block of a summary) that are ``long`` units or longer."""
    total = stats["tokens"]
    if not total:
        return 0.0
    return sum(n for length, n in stats["length_counts"].items() if int(length) >= long) / total


def across_vocabularies(
    tokenizers: Mapping[str, Tokenizer],
    texts: Iterable[str] | Callable[[Tokenizer], Iterable[str]],
    *,
    renyi_power: float = RENYI_POWER,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict]:
    """Per vocabulary (in the order given), the :func:`lbpe.analysis.comparison.compare_json` summary of
    ``texts`` encoded with it in both modes, with ``"n_vocab"`` and ``"vocab_tokens"``
    (:func:`lbpe.analysis.counting.vocab_tokens`) added.

    ``texts`` is a list of strings (one text, or the chunks of a corpus), or a callable that
    returns a fresh iterable for a tokenizer (to stream a file once per vocabulary, cut where
    that vocabulary encodes the same in parts as whole: :func:`lbpe.corpus.parallel.align_chunks`). A vocabulary
    whose tokenizer fails on the text raises: the caller names it. ``progress(done, total)``
    is called after each vocabulary.
    """
    if not callable(texts):
        texts = list(texts)
    chunks = texts if callable(texts) else (lambda tok: texts)
    out = []
    for done, (name, tok) in enumerate(tokenizers.items(), 1):
        totals = corpus_stats(tok, chunks(tok))
        summary = compare_json(totals, vocab=name, unit=tok.vocab.unit, tok=tok, renyi_power=renyi_power)
        summary["n_vocab"] = tok.n_vocab
        summary["vocab_tokens"] = vocab_tokens(tok)  # the "size" column: n_vocab counts gaps in the ids
        out.append(summary)
        if progress is not None:
            progress(done, len(tokenizers))
    return out


#: Column headers of :func:`across_rows`.
ACROSS_HEADERS = [
    "vocabulary",
    "units",
    "size",
    "BPE tokens",
    "LBPE tokens",
    "token change %",
    "BPE bytes/token",
    "LBPE bytes/token",
    f"BPE long tokens % (≥{LONG_TOKEN} units)",
    f"LBPE long tokens % (≥{LONG_TOKEN} units)",
    "long-token share change (points)",
    "short/long frequency ratio change %",
    "Rényi efficiency change (difference)",
    "words segmented identically %",
]

#: Per column of :data:`ACROSS_HEADERS`: "str" or "number" (the table sorts numbers as numbers).
_NUMBER: Literal["number"] = "number"
ACROSS_TYPES: list[Literal["str", "number"]] = ["str", "str", *[_NUMBER] * (len(ACROSS_HEADERS) - 2)]


def across_rows(summaries: Iterable[dict]) -> list[list]:
    """One row per vocabulary under :data:`ACROSS_HEADERS`; numbers rounded for reading (the
    summaries keep them whole)."""
    rows = []
    for s in summaries:
        b, lb, ch = s["bpe"], s["lbpe"], s["change"]
        b_long, l_long = long_share(b), long_share(lb)
        ratio = ch.get("short_long_frequency_ratio")
        agreement = s.get("agreement", {}).get("word_agreement")
        rows.append(
            [
                s["vocab"],
                s["unit"],
                s.get("vocab_tokens", s.get("n_vocab")),
                b["tokens"],
                lb["tokens"],
                round(100 * ch["tokens"], 3),
                round(b["bytes_per_token"], 4),
                round(lb["bytes_per_token"], 4),
                round(100 * b_long, 3),
                round(100 * l_long, 3),
                round(100 * (l_long - b_long), 3),
                None if ratio is None else round(100 * ratio, 2),
                round(ch["renyi_efficiency"], 5) if "renyi_efficiency" in ch else None,
                None if agreement is None else round(100 * agreement, 2),
            ]
        )
    return rows


def across_csv(rows: Iterable[list]) -> str:
    """CSV of :func:`across_rows` under :data:`ACROSS_HEADERS`."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(ACROSS_HEADERS)
    writer.writerows(rows)
    return buf.getvalue()


def across_spec(summaries: list[dict], *, title: str | None = None, height: int | None = None) -> dict:
    """A plain Plotly figure: per vocabulary, LBPE's change in tokens (%) and in the share of
    long tokens (points), as horizontal bars, the vocabulary LBPE changes most on top."""
    order = sorted(summaries, key=lambda s: abs(s["change"]["tokens"]))  # Plotly draws the first at the bottom
    return change_bars(
        [s["vocab"] for s in order],
        [100 * s["change"]["tokens"] for s in order],
        [100 * (long_share(s["lbpe"]) - long_share(s["bpe"])) for s in order],
        tokens_axis="LBPE vs BPE: tokens (%)",
        tokens_hover="%{y}: LBPE needs %{x:+.3f}% tokens",
        title=title,
        height=height,
    )


def change_bars(
    names: list[str],
    tokens: list[float],
    shares: list[float],
    *,
    tokens_axis: str,
    tokens_hover: str,
    title: str | None = None,
    height: int | None = None,
) -> dict:
    """A plain Plotly figure of two sets of horizontal bars side by side, one bar per name
    (the first at the bottom): a change in tokens (%, titled ``tokens_axis``, hovered as
    ``tokens_hover``) and in the share of long tokens (points). The Across view's figure, per
    vocabulary (:func:`across_spec`) or per method (:func:`lbpe.analysis.methods.methods_spec`)."""
    data = [
        {
            "type": "bar",
            "orientation": "h",
            "name": "tokens (%)",
            "y": names,
            "x": tokens,
            "marker": {"color": "#4c78a8"},
            "text": [f"{v:+.2f}%" for v in tokens],
            "textposition": "outside",
            "cliponaxis": False,
            "xaxis": "x",
            "yaxis": "y",
            "hovertemplate": tokens_hover + "<extra></extra>",
        },
        {
            "type": "bar",
            "orientation": "h",
            "name": f"long tokens, ≥{LONG_TOKEN} units (points)",
            "y": names,
            "x": shares,
            "marker": {"color": "#f58518"},
            "text": [f"{v:+.2f}" for v in shares],
            "textposition": "outside",
            "cliponaxis": False,
            "xaxis": "x2",
            "yaxis": "y2",
            "hovertemplate": "%{y}: long-token share %{x:+.3f} points<extra></extra>",
        },
    ]
    axis = {"gridcolor": "rgba(128,128,128,0.25)", "zerolinecolor": "rgba(128,128,128,0.6)", "automargin": True}
    layout: dict[str, Any] = {
        "height": height or 160 + 44 * max(len(names), 1),
        "margin": {"l": 10, "r": 30, "t": 80 if title else 50, "b": 50},
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 13},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "showlegend": False,
        "xaxis": {**axis, "domain": [0, 0.46], "title": {"text": tokens_axis}, "zeroline": True},
        "yaxis": {**axis, "anchor": "x"},
        "xaxis2": {
            **axis,
            "domain": [0.54, 1],
            "title": {"text": f"long tokens (≥{LONG_TOKEN} units): share (points)"},
            "zeroline": True,
        },
        "yaxis2": {**axis, "anchor": "x2", "showticklabels": False, "matches": "y"},
    }
    for axis_name, values in (("xaxis", tokens), ("xaxis2", shares)):
        layout[axis_name]["range"] = _padded(values)  # room for the labels outside the bars
    if title:
        layout["title"] = {"text": title, "x": 0, "xanchor": "left"}
    return {"data": data, "layout": layout}


def _padded(values: list[float]) -> list[float]:
    low, high = min([*values, 0.0]), max([*values, 0.0])
    pad = 0.35 * (high - low) or 1.0
    return [low - pad if low < 0 else -0.05 * pad, high + pad if high > 0 else 0.3 * pad]
