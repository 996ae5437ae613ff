"""Tables of statistics: the rows every front end shows (:func:`summary_rows`,
:func:`stats_rows`; the CLI prints the same) and their CSV (:func:`stats_csv`), each metric
next to the paper's prediction and figures."""

from __future__ import annotations

import csv
import html
import io
from dataclasses import dataclass
from typing import Literal

from lbpe.analysis.metrics import AGREEMENT, CATALOGUE, Metric, paper_figure, predicted
from lbpe.analysis.stats import BUCKETS, LONG_TOKEN, bucket_label
from lbpe.playground.display.format import ratio, signed


@dataclass(frozen=True)
class SummaryRow:
    """One line of a statistics table, formatted for reading (see :func:`summary_rows`)."""

    key: str
    label: str
    bpe: str
    lbpe: str
    change: str
    #: the paper's prediction and whether the change follows it: "lower ✓", "higher ✗", ""
    paper: str
    meaning: str
    #: ``True`` when the change goes the way the paper predicts, ``False`` against it
    as_predicted: bool | None = None


def _value(value: object, digits: int | str) -> str:
    if value is None:
        return "\u2014"
    if digits == "int":
        return f"{value:,}"
    return f"{value:.{digits}f}"


def _paper(metric: Metric, change: float | None, row: str = "") -> tuple[str, bool | None]:
    """The "paper" cell: the direction the paper predicts (✓/✗ against ours) and, where the
    paper reports a figure for the row (Tables 2 and 6), that figure."""
    verdict = predicted(metric, change)
    mark = {True: " \u2713", False: " \u2717", None: ""}[verdict]
    cell = f"{metric.paper}{mark}" if metric.paper else ""
    figure = paper_figure(row or metric.key)
    if figure:
        cell = f"{cell}; paper: {figure}" if cell else f"paper: {figure}"
    return cell, verdict


def _frequency_cell(bucket: dict) -> str:
    n = bucket["distinct"]
    if not n:
        return "\u2014"
    median = bucket["median"]  # of whole counts: whole, or halfway between two
    shown = f"{median:,.0f}" if median == int(median) else f"{median:,.1f}"
    return f"{bucket['mean']:,.1f} (median {shown}; {n:,} token{'s' if n != 1 else ''})"


def _bucket_prediction(label: str) -> Literal["lower", "higher"] | None:
    """The paper's direction for a length bucket: short tokens (its first bucket) rarer, long
    ones (from :data:`lbpe.analysis.stats.LONG_TOKEN` units) more frequent; none in between."""
    low = {bucket_label(lo, hi): lo for lo, hi in BUCKETS}[label]
    return "lower" if low == BUCKETS[0][0] else "higher" if low >= LONG_TOKEN else None


def summary_rows(summary: dict) -> list[SummaryRow]:
    """The readable lines of a :func:`lbpe.analysis.comparison.compare_json` summary, in table order: what
    was measured (bytes, characters, words), every metric of :data:`lbpe.analysis.metrics.CATALOGUE`
    present, occurrences per distinct token by length bucket, the length buckets' shares, and
    the agreement of the two segmentations."""
    b, lb, ch = summary["bpe"], summary["lbpe"], summary["change"]
    rows = [
        SummaryRow(key, label, f"{b[key]:,}", f"{lb[key]:,}", "", "", meaning)
        for key, label, meaning in (
            ("bytes", "bytes", "UTF-8 bytes of the text"),
            ("chars", "characters", "characters of the text"),
            ("words", "words", "whitespace-separated words"),
        )
    ]
    for metric in CATALOGUE:
        if metric.key not in b:
            continue
        change = ch.get(metric.key)
        if change is None:
            shown = ""
        elif metric.change == "relative":
            shown = signed(change, percent=True, places=2)
        else:
            shown = signed(change, 6 if metric.digits == "int" else max(int(metric.digits), 4))
        paper, verdict = _paper(metric, change)
        rows.append(
            SummaryRow(
                metric.key,
                metric.label,
                _value(b[metric.key], metric.digits),
                _value(lb[metric.key], metric.digits),
                shown,
                paper,
                metric.meaning,
                verdict,
            )
        )
    if "frequency_by_length" in b:
        for label, bv in b["frequency_by_length"].items():
            lv = lb["frequency_by_length"][label]
            change = ch.get("frequency_by_length", {}).get(label)
            paper, verdict = _paper(Metric(label, "", "", _bucket_prediction(label)), change)
            rows.append(
                SummaryRow(
                    f"frequency {label}",
                    f"occurrences per token, length {label}",
                    _frequency_cell(bv),
                    _frequency_cell(lv),
                    "" if change is None else signed(change, percent=True, places=2),
                    paper,
                    "mean and median occurrences of a distinct token of that length, and how many distinct tokens "
                    "it has",
                    verdict,
                )
            )
    bt, lt = max(b["tokens"], 1), max(lb["tokens"], 1)
    for label, points in ch["length_share_points"].items():
        bn, ln = b["length_buckets"][label], lb["length_buckets"][label]
        paper, verdict = _paper(Metric(label, "", "", _bucket_prediction(label)), points, f"length {label}")
        rows.append(
            SummaryRow(
                f"length {label}",
                f"length {label}: tokens (share)",
                f"{bn:,} ({100 * bn / bt:.1f}%)",
                f"{ln:,} ({100 * ln / lt:.1f}%)",
                f"{points:+.2f} points".replace("-", "\u2212"),
                paper,
                "tokens of that length and their share of all tokens (the paper's Table 2)",
                verdict,
            )
        )
    for metric in AGREEMENT if "agreement" in summary else ():
        value = summary["agreement"][metric.key]
        rows.append(SummaryRow(metric.key, metric.label, "", "", f"{100 * value:.2f}%", "", metric.meaning))
    return rows


#: Column headers of :func:`stats_rows`.
STATS_HEADERS = ["metric", "BPE", "LBPE", "LBPE vs BPE", "paper predicts (and reports)", "meaning"]


def stats_rows(summary: dict) -> list[list[str]]:
    """Rows under :data:`STATS_HEADERS` (formatted strings) of a
    :func:`lbpe.analysis.comparison.compare_json` summary (see :func:`summary_rows`)."""
    return [[r.label, r.bpe, r.lbpe, r.change, r.paper, r.meaning] for r in summary_rows(summary)]


#: The columns of :func:`stats_csv`.
CSV_HEADERS = ["file", "vocabulary", "metric", "bpe", "lbpe", "change", "change_unit", "paper_predicts"]


def stats_csv(summary: dict) -> str:
    """CSV of a :func:`lbpe.analysis.comparison.compare_json` summary, one row per figure, every row naming
    the file (``summary["file"]``, when there is one) and the vocabulary, so CSVs of several
    runs can be stacked: the counts and every metric, occurrences per distinct token by bucket,
    tokens per bucket, the agreement, then tokens per exact length.

    ``change`` is in ``change_unit``: ``%`` for relative changes (lbpe / bpe - 1, as the tables
    show them; the JSON keeps the fraction), ``difference`` (lbpe - bpe), ``percentage points``
    for shares of tokens, ``value`` for the agreement figures (0 to 1)."""
    b, lb, ch = summary["bpe"], summary["lbpe"], summary["change"]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEADERS)
    where = [summary.get("file", ""), summary.get("vocab", "")]

    def number(value: object) -> object:
        return "" if value is None else f"{value:.9g}" if isinstance(value, float) else value

    def percent(value: float | None) -> object:
        return "" if value is None else number(100 * value)

    def row(metric: str, bpe: object, lbpe: object, change: object = "", unit: str = "", paper: str = "") -> None:
        w.writerow([*where, metric, bpe, lbpe, change, unit if change != "" else "", paper])

    for key in ("bytes", "chars", "words"):
        row(key, b[key], lb[key])
    for metric in CATALOGUE:
        if metric.key in b:
            change = ch.get(metric.key)
            if metric.change == "relative":
                row(metric.key, number(b[metric.key]), number(lb[metric.key]), percent(change), "%", metric.paper or "")
            else:
                row(
                    metric.key,
                    number(b[metric.key]),
                    number(lb[metric.key]),
                    number(change),
                    "difference",
                    metric.paper or "",
                )
    if "frequency_by_length" in b:
        for label, bv in b["frequency_by_length"].items():
            lv = lb["frequency_by_length"][label]
            for field in ("mean", "median", "distinct"):
                change = ch.get("frequency_by_length", {}).get(label) if field == "mean" else None
                row(
                    f"frequency_by_length {label} {field}",
                    number(bv[field]),
                    number(lv[field]),
                    percent(change),
                    "%",
                    (_bucket_prediction(label) or "") if field == "mean" else "",
                )
    for label, points in ch["length_share_points"].items():
        bn, ln = b["length_buckets"][label], lb["length_buckets"][label]
        row(f"bucket {label}", bn, ln, percent(ratio(ln, bn)) if bn else "", "%")
        row(f"bucket {label} share", "", "", number(points), "percentage points", _bucket_prediction(label) or "")
    for metric in AGREEMENT if "agreement" in summary else ():
        row(metric.key, "", "", number(summary["agreement"][metric.key]), "value")
    lengths = sorted({int(k) for k in (*b["length_counts"], *lb["length_counts"])})
    for n in lengths:
        row(f"length {n}", b["length_counts"].get(str(n), 0), lb["length_counts"].get(str(n), 0))
    return buf.getvalue()


def table_html(headers: list[str], rows: list[list], *, caption: str = "") -> str:
    """A plain HTML table (``class="lbpe-table"``) of ``rows`` under ``headers``, every cell
    escaped; numbers are right-aligned and written as the rows hold them (no separators), so a
    reader or a test finds the same figures as in the rows."""
    head = "".join(f'<th scope="col">{html.escape(str(h))}</th>' for h in headers)
    body = []
    for row in rows:
        cells = []
        for k, value in enumerate(row):
            text = "" if value is None else str(value)
            if k == 0:
                cells.append(f'<th scope="row">{html.escape(text)}</th>')
            else:
                align = ' style="text-align:right"' if isinstance(value, (int, float)) else ""
                cells.append(f"<td{align}>{html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    title = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f'<table class="lbpe-table">{title}<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
