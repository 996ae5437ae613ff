"""Charts as plain JSON-able Plotly figures (``{"data": [...], "layout": {...}}``) that the
``plotly`` Python package and ``plotly.js`` both draw: the token-length shift
(:func:`length_shift` -> :func:`plotly_spec`) and frequency by token length (:func:`frequency_spec`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from lbpe.analysis.comparison import compare_json
from lbpe.analysis.stats import BUCKETS, Stats, bucket_label
from lbpe.playground.display.format import MODE_NAMES, signed
from lbpe.playground.display.model import Comparison, comparison_stats
from lbpe.tokenizer import MODES, Tokenizer


@dataclass(frozen=True)
class LengthShift:
    """Token-length distributions of BPE and LBPE, in the paper's buckets and per exact length.

    Lengths are in the vocabulary's units (``unit``: bytes or characters). ``lengths`` runs
    from 1 to the longest length seen, with zero counts filled in.
    """

    unit: str
    buckets: tuple[str, ...]
    bpe_buckets: tuple[int, ...]
    lbpe_buckets: tuple[int, ...]
    share_points: tuple[float, ...]
    lengths: tuple[int, ...]
    bpe_lengths: tuple[int, ...]
    lbpe_lengths: tuple[int, ...]

    @property
    def relative_change(self) -> tuple[float | None, ...]:
        """Per bucket ``lbpe / bpe - 1``; ``None`` where BPE has no token of that length."""
        return tuple((lb / b - 1) if b else None for b, lb in zip(self.bpe_buckets, self.lbpe_buckets))

    def to_json(self) -> dict:
        return {
            "unit": self.unit,
            "buckets": list(self.buckets),
            "bpe_buckets": list(self.bpe_buckets),
            "lbpe_buckets": list(self.lbpe_buckets),
            "relative_change": list(self.relative_change),
            "share_points": list(self.share_points),
            "lengths": list(self.lengths),
            "bpe_lengths": list(self.bpe_lengths),
            "lbpe_lengths": list(self.lbpe_lengths),
        }


def shift_from_stats(bpe: Stats, lbpe: Stats, *, unit: str) -> LengthShift:
    """The :class:`LengthShift` of two :class:`lbpe.analysis.stats.Stats` (e.g. of a whole corpus)."""
    bb, lb = bpe.buckets(), lbpe.buckets()
    labels = tuple(bucket_label(lo, hi) for lo, hi in BUCKETS)
    points = compare_json({"bpe": bpe, "lbpe": lbpe})["change"]["length_share_points"]
    longest = max([*bpe.length_counts, *lbpe.length_counts, 0])
    lengths = tuple(range(1, longest + 1))
    return LengthShift(
        unit=unit,
        buckets=labels,
        bpe_buckets=tuple(bb[k] for k in labels),
        lbpe_buckets=tuple(lb[k] for k in labels),
        share_points=tuple(points[k] for k in labels),
        lengths=lengths,
        bpe_lengths=tuple(bpe.length_counts.get(n, 0) for n in lengths),
        lbpe_lengths=tuple(lbpe.length_counts.get(n, 0) for n in lengths),
    )


def length_shift(tok: Tokenizer, comparison: Comparison) -> LengthShift:
    """How token lengths shift from BPE to LBPE on the compared text."""
    stats = comparison_stats(tok, comparison)
    return shift_from_stats(stats["bpe"], stats["lbpe"], unit=comparison.unit)


#: Trace colours of :func:`plotly_spec` (colour-blind safe blue and orange).
COLORS = {"bpe": "#4c78a8", "lbpe": "#f58518"}


def _change_label(change: float | None, lbpe_count: int) -> str:
    if change is None:
        return "new" if lbpe_count else ""
    return signed(change, percent=True).replace(".0%", "%")


#: What both bar charts' axes look like.
_AXIS = {"gridcolor": "rgba(128,128,128,0.25)", "zerolinecolor": "rgba(128,128,128,0.4)", "automargin": True}


#: The top margin of a bar chart: the legend sits at its bottom, below the row Plotly's mode bar
#: takes at the top right (on a phone the two would meet), and the title above both.
_TOP = 64
_TOP_TITLED = 96


def _bar_layout(height: int, title: str | None) -> dict[str, Any]:
    """The layout both bar charts share: grouped bars, transparent background, the legend on top."""
    return {
        "barmode": "group",
        "bargap": 0.2,
        "height": height,
        "margin": {"l": 60, "r": 20, "t": _TOP_TITLED if title else _TOP, "b": 50},
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 13},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "bottom"},
    }


def plotly_spec(
    shift: LengthShift, *, title: str | None = None, height: int = 520, names: dict[str, str] | None = None
) -> dict:
    """A plain Plotly figure (``{"data": [...], "layout": {...}}``, JSON-able) of a shift.

    Top: tokens per paper bucket, BPE and LBPE side by side, the LBPE bars labelled with the
    relative change of that count from BPE (said on the axis). Bottom: tokens per exact length. Pass it to
    ``plotly.graph_objects.Figure(spec)`` or to ``Plotly.newPlot(el, spec.data, spec.layout)``.
    ``names``: the two sides' names (:attr:`Comparison.names`) when they are other methods.
    """
    names = names or MODE_NAMES
    unit = "bytes" if shift.unit == "byte" else "characters"
    labels = list(shift.buckets)
    change = [_change_label(c, n) for c, n in zip(shift.relative_change, shift.lbpe_buckets)]
    data = []
    for mode, counts in (("bpe", shift.bpe_buckets), ("lbpe", shift.lbpe_buckets)):
        trace: dict[str, Any] = {
            "type": "bar",
            "name": names[mode],
            "legendgroup": mode,
            "x": labels,
            "y": list(counts),
            "marker": {"color": COLORS[mode]},
            "xaxis": "x",
            "yaxis": "y",
            "hovertemplate": f"{names[mode]}, %{{x}} {unit}: %{{y}} tokens<extra></extra>",
        }
        if mode == "lbpe":
            trace.update(text=change, textposition="outside", cliponaxis=False, textfont={"size": 12})
        data.append(trace)
    for mode, counts in (("bpe", shift.bpe_lengths), ("lbpe", shift.lbpe_lengths)):
        data.append(
            {
                "type": "bar",
                "name": names[mode],
                "legendgroup": mode,
                "showlegend": False,
                "x": list(shift.lengths),
                "y": list(counts),
                "marker": {"color": COLORS[mode]},
                "xaxis": "x2",
                "yaxis": "y2",
                "hovertemplate": f"{names[mode]}, length %{{x}}: %{{y}} tokens<extra></extra>",
            }
        )
    axis = dict(_AXIS)
    layout: dict[str, Any] = {
        **_bar_layout(height, title),
        "xaxis": {
            **axis,
            "domain": [0, 1],
            "anchor": "y",
            "type": "category",
            "title": {"text": f"token length in {unit}<br>(the paper's buckets)"},
        },
        "yaxis": {
            **axis,
            "domain": [0.58, 1],
            "anchor": "x",
            "title": {"text": f"tokens<br>(label: {names['lbpe']}'s change)"},
            "rangemode": "tozero",
        },
        "xaxis2": {
            **axis,
            "domain": [0, 1],
            "anchor": "y2",
            "title": {"text": f"token length in {unit}"},
            "dtick": 1 if len(shift.lengths) <= 24 else None,
            "tickmode": "linear" if len(shift.lengths) <= 24 else "auto",
        },
        "yaxis2": {**axis, "domain": [0, 0.36], "anchor": "x2", "title": {"text": "tokens"}, "rangemode": "tozero"},
    }
    if layout["xaxis2"]["dtick"] is None:
        del layout["xaxis2"]["dtick"]
    top = max([*shift.bpe_buckets, *shift.lbpe_buckets, 0])
    layout["yaxis"]["range"] = [0, top * 1.18 + 1]
    if title:
        layout["title"] = {"text": title, "x": 0, "xanchor": "left"}
    return {"data": data, "layout": layout}


def frequency_spec(
    summary: dict, *, title: str | None = None, height: int = 420, names: dict[str, str] | None = None
) -> dict | None:
    """A plain Plotly figure of the paper's claim: how often a distinct token of each length
    bucket occurs (mean occurrences, log scale), BPE beside LBPE, the LBPE bars labelled with
    the change of the mean; hover shows the median and the number of distinct tokens.

    ``summary`` is :func:`lbpe.analysis.comparison.compare_json` with a tokenizer (it needs
    ``frequency_by_length``); ``None`` when it has none. ``names`` as :func:`plotly_spec`'s.
    """
    if "frequency_by_length" not in summary["bpe"]:
        return None
    unit = "bytes" if summary.get("unit") == "byte" else "characters"
    labels = list(summary["bpe"]["frequency_by_length"])
    change = summary["change"].get("frequency_by_length", {})
    data = []
    names = names or MODE_NAMES
    for mode in MODES:
        buckets = summary[mode]["frequency_by_length"]
        means = [buckets[k]["mean"] or None for k in labels]  # log axis: no bar for an empty bucket
        trace: dict[str, Any] = {
            "type": "bar",
            "name": names[mode],
            "x": labels,
            "y": means,
            "customdata": [[buckets[k]["median"], buckets[k]["distinct"]] for k in labels],
            "marker": {"color": COLORS[mode]},
            "hovertemplate": f"{names[mode]}, %{{x}} {unit}: %{{y:,.1f}} occurrences per token "
            "(median %{customdata[0]:,.0f}; %{customdata[1]:,} distinct tokens)<extra></extra>",
        }
        if mode == "lbpe":
            text = ["" if change.get(k) is None else signed(change[k], percent=True) for k in labels]
            trace.update(text=text, textposition="outside", cliponaxis=False, textfont={"size": 12})
        data.append(trace)
    axis = dict(_AXIS)
    layout: dict[str, Any] = {
        **_bar_layout(height, title),
        "xaxis": {**axis, "type": "category", "title": {"text": f"token length in {unit}<br>(the paper's buckets)"}},
        "yaxis": {**axis, "type": "log", "title": {"text": "occurrences per distinct<br>token (log scale)"}},
    }
    values = [y for trace in data for y in trace["y"] if y]
    if values:  # a log axis's range is in powers of ten; start below the smallest bar so it shows
        layout["yaxis"]["range"] = [math.log10(min(values) / 2), math.log10(max(values) * 2)]
    if title:
        layout["title"] = {"text": title, "x": 0, "xanchor": "left"}
    return {"data": data, "layout": layout}
