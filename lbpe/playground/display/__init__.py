"""Showing classic BPE and LBPE side by side: segmentations, differences, metrics and charts.

Shared by the Gradio playground (:mod:`lbpe.playground.app`), the browser page (:mod:`lbpe.playground.page`) and the
CLI. Everything here is a pure function of a :class:`~lbpe.tokenizer.Tokenizer` and a text (or
of values computed from them); it imports only the standard library, so it runs in Pyodide as
well. Tokenisation itself stays in :mod:`lbpe.tokenizer`: this package only calls
:meth:`~lbpe.tokenizer.Tokenizer.segment` and arranges the result.

One module per job (this package re-exports their public names):

* :mod:`lbpe.playground.display.model`: :func:`compare` -> :class:`Comparison`, both segmentations of one
  text, their metrics and the character ranges where they differ (:func:`differing_spans`),
  each difference's tokens (:func:`differences`);
* :mod:`lbpe.playground.display.incremental`: :class:`Recompare`, :func:`compare` and
  :func:`render_pane` again after an edit, at the cost of what the edit changed;
* :mod:`lbpe.playground.display.render`: :func:`render_html` / :func:`render_pane` / :func:`metrics_html` /
  :func:`differences_html`: escaped HTML in the classes of ``display.css`` (:data:`CSS`, one
  stylesheet for every front end);
* :mod:`lbpe.playground.display.charts`: :func:`length_shift` / :func:`shift_from_stats` ->
  :class:`LengthShift`, the token-length distributions in the paper's buckets and per exact
  length; :func:`plotly_spec` and :func:`frequency_spec` give plain JSON-able Plotly figures;
* :mod:`lbpe.playground.display.explain`: :func:`explain_text` / :func:`explain_html`, an
  :class:`lbpe.analysis.explain.Explanation` as the plain text of ``lbpe explain`` and as HTML,
  one frame per step; :mod:`lbpe.playground.display.pair_explain`: :func:`pair_text` /
  :func:`pair_html`, any two methods' own steps (:class:`lbpe.analysis.pair_steps.PairExplanation`);
* :mod:`lbpe.playground.display.tables`: :func:`stats_rows` / :func:`stats_csv`, the corpus statistics of
  :func:`lbpe.analysis.comparison.compare_json` as table rows and as CSV (compute the statistics of large
  texts in chunks with :mod:`lbpe.corpus.parallel`).

Special-token strings in the text are ordinary text here (``disallowed_special=()``), as
:func:`lbpe.analysis.stats.text_stats` does, unless :func:`compare` is asked for ``specials``: user
text never silently becomes special tokens.

>>> from lbpe.vocab import Vocab
>>> from lbpe.tokenizer import Tokenizer
>>> tokens = {bytes([b]): b for b in range(256)}
>>> tokens.update({b"aa": 256, b"bb": 257, b"bbb": 258, b"ab": 259, b"aab": 260})
>>> c = compare(Tokenizer(Vocab(tokens), "paper"), "aabbb")
>>> [s.label for s in c.bpe.segments], [s.label for s in c.lbpe.segments]
(['aa', 'bbb'], ['aab', 'bb'])
>>> c.differ
((0, 5),)
>>> c.bpe.tokens, c.lbpe.tokens, c.token_change
(2, 2, 0)
"""

from __future__ import annotations

from lbpe.playground.display.charts import (
    COLORS,
    LengthShift,
    frequency_spec,
    length_shift,
    plotly_spec,
    shift_from_stats,
)
from lbpe.playground.display.explain import explain_html, explain_text
from lbpe.playground.display.format import METHOD_NAMES, MODE_NAMES
from lbpe.playground.display.incremental import Recompare
from lbpe.playground.display.model import (
    DEFAULT_METHODS,
    SEED_MOST,
    SEED_RULE,
    Comparison,
    Difference,
    Side,
    check_methods,
    compare,
    comparison_stats,
    comparison_summary,
    differences,
    differing_spans,
    parse_ids,
    quoted,
)
from lbpe.playground.display.pair_explain import pair_html, pair_names, pair_text
from lbpe.playground.display.render import (
    CSS,
    MAX_LISTED_DIFFERENCES,
    PALETTE_SIZE,
    RUN_MARK,
    RUN_TOKENS,
    decode_html,
    differences_html,
    metrics_html,
    render_html,
    render_pane,
)
from lbpe.playground.display.tables import (
    CSV_HEADERS,
    STATS_HEADERS,
    SummaryRow,
    stats_csv,
    stats_rows,
    summary_rows,
    table_html,
)

__all__ = [
    "CSS",
    "PALETTE_SIZE",
    "Side",
    "Comparison",
    "compare",
    "Recompare",
    "differing_spans",
    "Difference",
    "differences",
    "differences_html",
    "parse_ids",
    "decode_html",
    "render_html",
    "render_pane",
    "metrics_html",
    "explain_text",
    "explain_html",
    "pair_html",
    "pair_names",
    "pair_text",
    "LengthShift",
    "comparison_stats",
    "comparison_summary",
    "frequency_spec",
    "SummaryRow",
    "summary_rows",
    "table_html",
    "length_shift",
    "shift_from_stats",
    "plotly_spec",
    "stats_rows",
    "stats_csv",
    "CSV_HEADERS",
    "STATS_HEADERS",
    "MODE_NAMES",
    "METHOD_NAMES",
    "DEFAULT_METHODS",
    "SEED_MOST",
    "SEED_RULE",
    "quoted",
    "check_methods",
    "COLORS",
    "MAX_LISTED_DIFFERENCES",
    "RUN_MARK",
    "RUN_TOKENS",
]
