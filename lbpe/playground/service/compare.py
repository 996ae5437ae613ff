"""The Compare view: one text encoded both ways, as panes, metrics, differences and figures."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

from lbpe.budget import time_budget
from lbpe.playground import display
from lbpe.playground.service.shared import prepared
from lbpe.tokenizer import MODES, Tokenizer

__all__ = ["CompareView", "compare_view"]


class CompareView(TypedDict):
    methods: list[str]  # the two methods compared, [left, right]: ["bpe", "lbpe"] unless asked otherwise
    panes: dict[str, str]  # role -> the pane's HTML: "bpe" the left method's, "lbpe" the right one's
    metrics: str  # HTML
    differences: str  # HTML: each differing span, BPE tokens -> LBPE tokens
    figure: dict[str, Any]  # the token-length shift
    frequency_figure: dict[str, Any] | None  # occurrences per token length
    summary: dict[str, Any]  # display.Comparison.to_json(): ids, segments, differing ranges
    length_shift: dict[str, Any]
    stats: dict[str, Any]  # lbpe.analysis.comparison.compare_json of the text
    differ: tuple[tuple[int, int], ...]  # the character ranges where the encodings differ


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
    methods: Sequence[str] = display.DEFAULT_METHODS,
    dropout: float | None = None,
    seed: int | None = None,
) -> CompareView:
    """The Compare view of ``text`` with ``tok``: one JSON-able dict, the schema both UIs use.
    With ``again`` (a :class:`lbpe.playground.display.Recompare` kept by the caller), an edit of the text
    it compared last costs what the edit changed; the view is the same.

    ``methods``: the two inference methods to compare, left and right (:data:`lbpe.METHODS`;
    ``dropout`` and ``seed`` when one of them is ``"dropout"``). The left one is the baseline,
    in BPE's place everywhere below: the keys ``"bpe"`` and ``"lbpe"`` of the panes, the
    summary and the statistics are the roles left and right; every heading, title and chart
    names the methods themselves.

    * ``"methods"``: ``[left, right]``;
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
    pair = display.check_methods(methods, dropout, seed)
    prepared(tok)
    options: dict[str, Any] = {"specials": bool(specials), "methods": pair, "dropout": dropout, "seed": seed}
    with time_budget(len(text), what="the Compare view"):
        if again is None:
            comparison = display.compare(tok, text, **options)
        else:
            comparison = again.compare(tok, text, **options)
    render = display.render_pane if again is None else again.render_pane
    stats = display.comparison_stats(tok, comparison)
    summary = display.comparison_summary(tok, comparison, stats=stats)
    shift = display.shift_from_stats(stats["bpe"], stats["lbpe"], unit=comparison.unit)
    names = comparison.names
    return {
        "methods": list(pair),
        "panes": {mode: render(comparison, mode, show_whitespace=show_whitespace, show_ids=show_ids) for mode in MODES},
        "metrics": display.metrics_html(comparison, summary),
        "differences": display.differences_html(comparison),
        "figure": display.plotly_spec(shift, names=names, **(lengths_chart or {})),
        "frequency_figure": display.frequency_spec(summary, names=names, **(frequency_chart or {})),
        "summary": comparison.to_json(),
        "length_shift": shift.to_json(),
        "stats": summary,
        "differ": comparison.differ,
    }
