"""Showing classic BPE and LBPE side by side: segmentations, differences, metrics and charts.

Shared by the Gradio playground (``app.py``) and the browser page. Everything here is a pure
function of a :class:`~lbpe.tokenizer.Tokenizer` and a text (or of values computed from
them); it imports only the standard library, so it runs in Pyodide as well. Tokenisation
itself stays in :mod:`lbpe.tokenizer`: this module only calls
:meth:`~lbpe.tokenizer.Tokenizer.segment` and arranges the result.

The pieces:

* :func:`compare` -> :class:`Comparison`: both segmentations of one text, their metrics and
  the character ranges where they differ (:func:`differing_spans`);
* :func:`render_html` / :func:`render_pane` / :func:`metrics_html`: escaped HTML using the
  classes of :data:`CSS` (one stylesheet for every front end);
* :func:`length_shift` / :func:`shift_from_stats` -> :class:`LengthShift`: the token-length
  distributions in the paper's buckets and per exact length; :func:`plotly_spec` turns one
  into a plain JSON-able Plotly figure (``{"data": [...], "layout": {...}}``) that the
  ``plotly`` Python package and ``plotly.js`` both draw;
* :func:`stats_rows` / :func:`stats_csv`: the corpus statistics of
  :func:`lbpe.stats.compare_json` as table rows and as CSV (compute the statistics of large
  texts in chunks with :mod:`lbpe.corpus`).

Special-token strings in the text are ordinary text here (``disallowed_special=()``), as
:func:`lbpe.stats.text_stats` does, unless :func:`compare` is asked for ``specials``: user
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

import csv
import functools
import html
import io
import math
import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from lbpe.errors import LbpeError
from lbpe.metrics import AGREEMENT, CATALOGUE, RENYI_POWER, Metric, paper_figure, predicted
from lbpe.stats import (
    BUCKETS, LONG_TOKEN, PerToken, Stats, bucket_label, compare_json, count_words, text_agreement, token_lengths,
)
from lbpe.tokenizer import MODES, Mode, Segment, Tokenizer, replace_surrogates
from lbpe.user_regex import deadline

__all__ = [
    "CSS",
    "PALETTE_SIZE",
    "Side",
    "Comparison",
    "compare",
    "differing_spans",
    "Difference",
    "differences",
    "differences_html",
    "parse_ids",
    "decode_html",
    "render_html",
    "render_pane",
    "metrics_html",
    "LengthShift",
    "comparison_stats",
    "comparison_summary",
    "frequency_spec",
    "SummaryRow",
    "summary_rows",
    "length_shift",
    "shift_from_stats",
    "plotly_spec",
    "stats_rows",
    "stats_csv",
    "CSV_HEADERS",
]

#: Display names of the modes.
MODE_NAMES = {"bpe": "BPE", "lbpe": "LBPE"}

#: Number of background colours tokens cycle through (classes ``lbpe-c0`` .. ``lbpe-c5``).
PALETTE_SIZE = 6



# ---------------------------------------------------------------------------------------------
# comparing the two segmentations
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Side(PerToken):
    """One segmentation of the text, with the counts the metrics are made of."""

    mode: Mode
    segments: tuple[Segment, ...]
    bytes: int
    chars: int

    @property
    def tokens(self) -> int:
        return len(self.segments)

    @property
    def ids(self) -> list[int]:
        return [s.id for s in self.segments]

    def to_json(self) -> dict:
        return {
            "tokens": self.tokens,
            "bytes": self.bytes,
            "chars": self.chars,
            "bytes_per_token": self.bytes_per_token,
            "chars_per_token": self.chars_per_token,
            "ids": self.ids,
        }


@dataclass(frozen=True)
class Comparison:
    """Both segmentations of ``text`` and the character ranges where they differ.

    ``text`` is the input with lone surrogates replaced by U+FFFD (what the tokenizer
    encodes; segment offsets index into it).
    """

    text: str
    vocab: str
    unit: str
    bpe: Side
    lbpe: Side
    differ: tuple[tuple[int, int], ...]

    def side(self, mode: str) -> Side:
        if mode not in MODES:
            raise ValueError(f"mode must be 'bpe' or 'lbpe', not {mode!r}")
        return self.bpe if mode == "bpe" else self.lbpe

    @property
    def token_change(self) -> int:
        """LBPE tokens minus BPE tokens (negative: LBPE is shorter)."""
        return self.lbpe.tokens - self.bpe.tokens

    @property
    def relative_change(self) -> float:
        """``lbpe / bpe - 1`` in tokens (0.0 for an empty text)."""
        return self.lbpe.tokens / self.bpe.tokens - 1 if self.bpe.tokens else 0.0

    @property
    def differing_chars(self) -> int:
        return sum(e - s for s, e in self.differ)

    def to_json(self) -> dict:
        """A JSON-able summary: per mode counts and ids, the change and the differing ranges."""
        return {
            "vocab": self.vocab,
            "unit": self.unit,
            "bpe": self.bpe.to_json(),
            "lbpe": self.lbpe.to_json(),
            "change": {"tokens": self.token_change, "relative": self.relative_change},
            "differ": [list(r) for r in self.differ],
        }


def compare(tok: Tokenizer, text: str, *, specials: bool = False) -> Comparison:
    """Segment ``text`` with classic BPE and with LBPE and find where they differ.

    Special-token strings in ``text`` (``<|endoftext|>``) are ordinary text unless
    ``specials``: then each becomes its special token, as ``allowed_special="all"`` does."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    text = replace_surrogates(text)
    nbytes = len(text.encode("utf-8"))
    with deadline(len(text)):  # both modes share one time allowance for a file's own patterns
        sides = {
            mode: Side(mode, tuple(tok.segment(text, mode=mode, allowed_special="all" if specials else frozenset(),
                                               disallowed_special=())), nbytes, len(text))
            for mode in MODES
        }
    return Comparison(
        text=text,
        vocab=tok.name,
        unit=tok.vocab.unit,
        bpe=sides["bpe"],
        lbpe=sides["lbpe"],
        differ=differing_spans(sides["bpe"].segments, sides["lbpe"].segments),
    )


def _cuts(segments: Sequence[Segment]) -> set[int]:
    """Token boundaries that no token straddles (partial UTF-8 tokens overlap)."""
    points = {p for s in segments for p in (s.start, s.end)}
    wide = sorted((s.start, s.end) for s in segments if s.end - s.start >= 2)
    merged: list[list[int]] = []  # disjoint open intervals (start, end) covered by some token
    for start, end in wide:
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    starts = [m[0] for m in merged]
    out = set()
    for p in points:
        k = bisect_right(starts, p) - 1
        if k < 0 or not (merged[k][0] < p < merged[k][1]):
            out.add(p)
    return out


def differing_spans(a: Sequence[Segment], b: Sequence[Segment]) -> tuple[tuple[int, int], ...]:
    """Character ranges ``(start, end)`` where segmentations ``a`` and ``b`` of one text differ.

    The text is cut at every position where both segmentations have a token boundary that
    no token of either straddles; between two neighbouring cuts the two segmentations either
    agree token for token (same spans, same token bytes) or the range is reported. Ranges
    are sorted, disjoint and as small as these cuts allow (neighbouring ranges are not
    merged). Partial UTF-8 tokens that split one character differently count as a
    difference even though their character spans agree.

    >>> def segs(*spans):
    ...     return [Segment(0, s, e, b"x" * (e - s)) for s, e in spans]
    >>> differing_spans(segs((0, 2), (2, 3), (3, 5)), segs((0, 1), (1, 3), (3, 5)))
    ((0, 3),)
    >>> differing_spans(segs((0, 2), (2, 4)), segs((0, 1), (1, 2), (2, 3), (3, 4)))
    ((0, 2), (2, 4))
    >>> differing_spans(segs((0, 3)), segs((0, 3)))
    ()
    """
    if not a and not b:
        return ()
    common = sorted(_cuts(a) & _cuts(b))
    ends = [s.start for s in (*a, *b)] + [s.end for s in (*a, *b)]
    lo, hi = min(ends), max(ends)
    if not common or common[0] != lo:
        common.insert(0, lo)
    if common[-1] != hi:
        common.append(hi)
    if len(common) < 2:  # only empty tokens at one position
        common.append(hi)

    def regions(segments: Sequence[Segment]) -> dict[int, list[tuple[int, int, bytes]]]:
        out: dict[int, list[tuple[int, int, bytes]]] = {}
        last = len(common) - 2
        for s in segments:
            k = min(max(bisect_right(common, s.start) - 1, 0), last)
            out.setdefault(k, []).append((s.start, s.end, s.token))
        return out

    ra, rb = regions(a), regions(b)
    return tuple(
        (common[k], common[k + 1]) for k in sorted(set(ra) | set(rb)) if ra.get(k) != rb.get(k)
    )


@dataclass(frozen=True)
class Difference:
    """One differing span: its characters and each side's tokens over it."""

    start: int
    end: int
    text: str
    bpe: tuple[str, ...]
    lbpe: tuple[str, ...]

    @property
    def change(self) -> int:
        """LBPE tokens minus BPE tokens over the span."""
        return len(self.lbpe) - len(self.bpe)


def differences(comparison: Comparison) -> list[Difference]:
    """Each differing span of ``comparison`` with the tokens each side puts over it, in text
    order (a token is listed with the span it starts in).

    >>> from lbpe.vocab import Vocab
    >>> tokens = {bytes([b]): b for b in range(256)} | {b"aa": 256, b"bb": 257, b"bbb": 258, b"ab": 259, b"aab": 260}
    >>> d = differences(compare(Tokenizer(Vocab(tokens), "paper"), "aabbb x"))
    >>> [(x.text, x.bpe, x.lbpe, x.change) for x in d]
    [('aabbb', ('aa', 'bbb'), ('aab', 'bb'), 0)]
    """
    out = []
    sides = [comparison.bpe.segments, comparison.lbpe.segments]
    starts = [[seg.start for seg in segs] for segs in sides]
    for a, b in comparison.differ:
        labels = []
        for segs, first in zip(sides, starts):
            i, j = bisect_left(first, a), bisect_left(first, b)
            labels.append(tuple(segs[k].label for k in range(i, j)))
        out.append(Difference(a, b, comparison.text[a:b], labels[0], labels[1]))
    return out


#: Differences listed by :func:`differences_html` (the count says how many more there are).
MAX_LISTED_DIFFERENCES = 1000


def differences_html(comparison: Comparison) -> str:
    """The list of differences (``<details class="lbpe-diffs">``): per span its text, BPE's
    tokens -> LBPE's tokens and the change in tokens, as buttons that ``lbpe/panes.js`` turns
    into "scroll both panes there"; empty when the two agree."""
    diffs = differences(comparison)
    if not diffs:
        return ""
    change = sum(d.change for d in diffs)
    items = []
    for d in diffs[:MAX_LISTED_DIFFERENCES]:
        bpe = "|".join(_escape(t, True) for t in d.bpe)
        lbpe = "|".join(_escape(t, True) for t in d.lbpe)
        items.append(
            f'<li><button type="button" class="lbpe-jump" data-s="{d.start}" data-e="{d.end}" '
            f'title="show it in both panes">{bpe} → {lbpe}<span class="lbpe-delta">{d.change:+d}</span></button></li>'
        )
    more = len(diffs) - MAX_LISTED_DIFFERENCES
    if more > 0:
        items.append(f"<li>… and {more:,} more</li>")
    n = len(diffs)
    return (
        f'<details class="lbpe-diffs" open><summary>{n:,} differing span{"s" if n != 1 else ""}: '
        f"LBPE {change:+,d} tokens over them (click one to see it in both panes)</summary>"
        f'<ol>{"".join(items)}</ol></details>'
    )


# ---------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------

#: The stylesheet for :func:`render_html`, :func:`render_pane` and :func:`metrics_html`.
#: Every class starts with ``lbpe-``; dark variants follow a ``.dark`` ancestor (Gradio's dark
#: mode) or the user's colour-scheme preference inside ``.lbpe-auto-dark``.
CSS = """
.lbpe-pane { font-size: 15px; }
.lbpe-head { display: flex; flex-wrap: wrap; gap: .25em .75em; align-items: baseline;
  margin: 0 0 .4em 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.lbpe-mode { font-weight: 700; font-size: 1.05em; }
.lbpe-count { font-variant-numeric: tabular-nums; }
.lbpe-ndiff { color: #b35900; }
.lbpe-tokens { white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.95;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace;
  font-size: 14px; color: #1f2328; padding: .5em .6em; border: 1px solid #d0d7de;
  border-radius: 8px; background: #ffffff; max-height: 60vh; overflow-y: auto; }
.lbpe-tok { border-radius: 3px; padding: 1px 0; margin: 0 1px;
  box-shadow: inset 0 0 0 1px rgba(0, 0, 0, .10); }
.lbpe-c0 { background: #dbeafe; } .lbpe-c1 { background: #dcfce7; } .lbpe-c2 { background: #fef3c7; }
.lbpe-c3 { background: #fce7f3; } .lbpe-c4 { background: #e0e7ff; } .lbpe-c5 { background: #ccfbf1; }
.lbpe-tokens.lbpe-has-diff .lbpe-tok:not(.lbpe-diff) { opacity: .72; }
.lbpe-diff { box-shadow: inset 0 0 0 1px rgba(0, 0, 0, .18), 0 2px 0 0 #e8590c; font-weight: 600; }
.lbpe-bytes { outline: 1.5px dashed #6e7781; outline-offset: -1.5px; }
.lbpe-special { background: #ede9fe; outline: 1.5px solid #7c3aed; outline-offset: -1.5px; }
.lbpe-empty { color: #8c959f; }
.lbpe-ws { color: #8c959f; font-weight: 400; }
.lbpe-gap { color: #8c959f; text-decoration: line-through; }
.lbpe-id { font-size: .68em; vertical-align: sub; color: #57606a; margin-left: 1px; font-weight: 400; }
.lbpe-empty-text { color: #8c959f; font-style: italic; }
table.lbpe-metrics, table.lbpe-metrics tr { border: none; }
.lbpe-metrics { border-collapse: collapse; font-variant-numeric: tabular-nums; width: 100%; margin: 0;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 14px; }
table.lbpe-metrics th, table.lbpe-metrics td { padding: .3em .7em; border: none; border-bottom: 1px solid #d0d7de;
  text-align: right; background: none; }
table.lbpe-metrics th:first-child, table.lbpe-metrics td:first-child { text-align: left; }
.lbpe-metrics .lbpe-better { color: #1a7f37; font-weight: 600; }
.lbpe-metrics .lbpe-worse { color: #cf222e; font-weight: 600; }
.lbpe-more { margin-top: .6em; }
.lbpe-more > summary { cursor: pointer; font-size: 13px; color: #57606a; }
.lbpe-more table.lbpe-metrics tr[title] { cursor: help; }
.lbpe-legend { font-size: 13px; color: #57606a; margin-top: .4em;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.lbpe-legend .lbpe-tok { padding: 0 .3em; }
.dark .lbpe-tokens { color: #e6edf3; background: #0d1117; border-color: #30363d; }
.dark .lbpe-tok { box-shadow: inset 0 0 0 1px rgba(255, 255, 255, .12); }
.dark .lbpe-c0 { background: #1e3a5f; } .dark .lbpe-c1 { background: #1c4532; } .dark .lbpe-c2 { background: #4a3b0f; }
.dark .lbpe-c3 { background: #4c1d3a; } .dark .lbpe-c4 { background: #2e3170; } .dark .lbpe-c5 { background: #134e4a; }
.dark .lbpe-diff { box-shadow: inset 0 0 0 1px rgba(255, 255, 255, .2), 0 2px 0 0 #ff8c42; }
.dark .lbpe-bytes { outline-color: #8b949e; }
.dark .lbpe-special { background: #3b2a63; }
.dark .lbpe-id, .dark .lbpe-legend, .dark .lbpe-more > summary { color: #8b949e; }
.dark .lbpe-ndiff { color: #ff8c42; }
.dark table.lbpe-metrics th, .dark table.lbpe-metrics td { border-color: #30363d; }
.dark .lbpe-metrics .lbpe-better { color: #3fb950; } .dark .lbpe-metrics .lbpe-worse { color: #f85149; }
.lbpe-tok[data-s] { cursor: pointer; }
.lbpe-plain .lbpe-tok { white-space: pre; }
.lbpe-tok::after { content: "\\200b"; white-space: normal; }
.lbpe-tokens { position: relative; }
.lbpe-tok.lbpe-lit { outline: 2px solid #e8590c; outline-offset: 0; opacity: 1 !important; }
.lbpe-card { position: absolute; z-index: 1000; max-width: 22em; white-space: pre-wrap; pointer-events: none;
  font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace;
  background: #1f2328; color: #f6f8fa; padding: .45em .6em; border-radius: 6px; box-shadow: 0 4px 14px rgba(0,0,0,.25); }
.lbpe-diffs { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 14px; margin: .4em 0; }
.lbpe-diffs > summary { cursor: pointer; font-weight: 600; }
.lbpe-diffs ol { margin: .4em 0 0; padding-left: 2.2em; max-height: 16em; overflow-y: auto; }
.lbpe-jump { all: unset; cursor: pointer; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 13px; }
.lbpe-decoded-text { white-space: pre-wrap; overflow-wrap: anywhere; margin: .3em 0 .5em; padding: .4em .6em;
  background: #f6f8fa; border-radius: 6px; font-size: 14px; }
.lbpe-jump:hover, .lbpe-jump:focus-visible { text-decoration: underline; outline: none; }
.lbpe-jump .lbpe-delta { font-family: system-ui, sans-serif; color: #57606a; margin-left: .5em; }
.lbpe-explain { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 14px; }
.lbpe-x-head { font-weight: 600; margin-bottom: .5em; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
.lbpe-x-piece { border: 1px solid #d0d7de; border-radius: 8px; padding: .5em .7em; margin-bottom: .6em; }
.lbpe-x-differs { border-color: #e8590c; }
.lbpe-x-title { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace;
  margin-bottom: .35em; overflow-wrap: anywhere; }
.lbpe-x-note { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #57606a; font-size: .9em; }
.lbpe-x-sides { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: .6em 1.2em; }
.lbpe-x-label { font-weight: 600; font-size: .9em; color: #57606a; margin-bottom: .2em; }
.lbpe-x-boxes { display: flex; flex-wrap: wrap; gap: 3px;
  font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; }
.lbpe-x-part, .lbpe-x-free { padding: 1px 4px; border-radius: 3px; min-width: .8em; text-align: center; }
.lbpe-x-part { background: #dbeafe; box-shadow: inset 0 0 0 1px rgba(0, 0, 0, .12); }
.lbpe-x-free { color: #57606a; outline: 1px dashed #8c959f; outline-offset: -1px; }
.lbpe-x-new { background: #fed7aa; box-shadow: inset 0 0 0 2px #e8590c; font-weight: 700; }
.lbpe-x-blocked { outline: 2px solid #cf222e; color: #cf222e; }
.lbpe-x-caption { font-size: .9em; margin-top: .3em; min-height: 1.3em; }
.lbpe-x-result { margin-top: .45em; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; max-height: 12em;
  overflow-y: auto; }
.lbpe-x-why { margin: .3em 0 0 1.1em; padding: 0; }
.dark .lbpe-x-piece { border-color: #30363d; } .dark .lbpe-x-differs { border-color: #ff8c42; }
.dark .lbpe-x-part { background: #1e3a5f; } .dark .lbpe-x-new { background: #7c2d12; }
.dark .lbpe-x-note, .dark .lbpe-x-label, .dark .lbpe-x-free { color: #8b949e; }
"""

_CONTROL = {c: chr(0x2400 + c) for c in range(0x20)} | {0x7F: "\u2421"}
_GLYPHS = {" ": "\u00b7", "\t": "\u2192", "\n": "\u21b5\n", "\r": "\u240d"}
_WS_RUN = re.compile(r"[ \t\r\n]+")


@functools.lru_cache(maxsize=1 << 16)  # a long text repeats its common tokens many times
def _escape(text: str, show_whitespace: bool) -> str:
    """HTML-escape text; control characters become their Unicode control pictures, and with
    ``show_whitespace`` space, tab, CR and LF become dimmed glyphs (LF also breaks the line)."""
    if not show_whitespace:
        return html.escape(text.translate({c: g for c, g in _CONTROL.items() if c not in (9, 10, 13)}))
    out = []
    pos = 0
    for m in _WS_RUN.finditer(text):
        out.append(html.escape(text[pos : m.start()].translate(_CONTROL)))
        glyphs = "".join(_GLYPHS[c] for c in m.group())
        out.append(f'<span class="lbpe-ws">{glyphs}</span>')
        pos = m.end()
    out.append(html.escape(text[pos:].translate(_CONTROL)))
    return "".join(out)


def _token_spelling(seg: Segment) -> str:
    """The token as the vocabulary spells it, for tooltips: ``\\xNN`` for bytes that are not
    whole UTF-8 characters, ``\\n``-style escapes for control characters."""
    if seg.partial:
        return seg.label
    try:
        text = seg.token.decode("utf-8")
    except UnicodeDecodeError:
        return "".join(f"\\x{b:02x}" for b in seg.token)
    return _quote(text)


def _groups(segments: Sequence[Segment]) -> Iterator[list[Segment]]:
    """Consecutive tokens whose character spans overlap (partial UTF-8 and byte-fallback
    tokens of one character) form one group; every other token is a group of its own."""
    group: list[Segment] = []
    end = -1
    for s in segments:
        if group and s.start < end:
            group.append(s)
            end = max(end, s.end)
            continue
        if group:
            yield group
        group, end = [s], s.end
    if group:
        yield group


def _in_ranges(starts: list[int], ranges: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    k = bisect_right(starts, start) - 1
    if k >= 0 and ranges[k][0] <= start < ranges[k][1]:
        return True
    return k + 1 < len(ranges) and ranges[k + 1][0] < end


def render_html(
    segments: Sequence[Segment],
    text: str,
    *,
    differ: Sequence[tuple[int, int]] = (),
    show_whitespace: bool = True,
    show_ids: bool = False,
) -> str:
    """Escaped HTML for one segmentation of ``text`` (``<div class="lbpe-tokens">``).

    * every token is a ``<span class="lbpe-tok lbpe-cK">`` (``K`` cycles through
      :data:`PALETTE_SIZE` colours) showing its characters of ``text``, its id(s) in ``data-i``;
      a token whose text alone does not tell it (byte groups, specials, empty ones) also has a
      ``title`` with the id(s) and the token as the vocabulary spells it (``lbpe/panes.js``
      shows either in its card);
    * tokens that split a character (partial UTF-8, byte fallback) are grouped: the
      character is shown once, in one span with the extra class ``lbpe-bytes`` (a dashed
      border), and the tooltip lists each token's bytes as ``\\xNN`` -- never U+FFFD;
    * tokens inside one of the ``differ`` ranges (see :func:`differing_spans`) get
      ``lbpe-diff``; special tokens ``lbpe-special``; text no token covers (removed by a
      normaliser) is shown struck through (``lbpe-gap``);
    * ``show_whitespace``: space, tab, CR and newline as dimmed glyphs (``·`` ``→`` ``␍``
      ``↵``); without it the ``div`` gets ``lbpe-plain``, whose tokens never wrap inside (a
      token that starts with a space would leave a coloured stub at a line end);
      ``show_ids``: the ids after each token, in small type;
    * control characters are shown as their Unicode control pictures (``␀`` ...); a
      a zero-width space after each token (CSS ``::after``, not in the markup, so copied text
      is the text) lets long lines wrap at token boundaries;
    * ``data-s`` / ``data-e`` are the token's character range in ``text`` (a click on a
      token asks :func:`lbpe.explain.pick_span` what to explain; ``lbpe/panes.js`` lights the
      tokens of both panes that cover the same characters);
    * more than :data:`RUN_TOKENS` tokens are grouped in runs (``<span class="lbpe-run">``)
      with a ``<!--r-->`` before, between and after them: a view that already shows the
      previous text replaces only the runs that changed (the app's panes; a keystroke at the
      end of a long text redraws one run instead of every token).

    >>> render_html([Segment(7, 0, 2, b"hi")], "hi!")
    '<div class="lbpe-tokens"><span class="lbpe-tok lbpe-c0" data-s="0" data-e="2" data-i="7">hi</span><span class="lbpe-gap" title="not covered by any token">!</span></div>'
    >>> print(render_html([Segment(5, 0, 1, b"\\xc3", partial=True), Segment(6, 0, 1, b"\\xa9", partial=True)], "é"))
    <div class="lbpe-tokens"><span class="lbpe-tok lbpe-c0 lbpe-bytes" data-s="0" data-e="1" data-i="5 6" title="2 tokens for &quot;é&quot;&#10;#5  \\xc3&#10;#6  \\xa9">é</span></div>
    """
    ranges = sorted(differ)
    range_starts = [r[0] for r in ranges]
    classes_diff = bool(ranges)
    out: list[str] = []
    pos = 0
    for k, group in enumerate(_groups(segments)):
        start = max(group[0].start, pos)
        end = max(max(s.end for s in group), start)
        if start > pos:
            out.append(f'<span class="lbpe-gap" title="not covered by any token">{_escape(text[pos:start], show_whitespace)}</span>')
        classes = ["lbpe-tok", f"lbpe-c{k % PALETTE_SIZE}"]
        chars = text[start:end]
        # an ordinary token has no title: lbpe/panes.js shows its id and text (the HTML stays small)
        ordinary = len(group) == 1 and not group[0].partial and not group[0].special and chars
        if ordinary:
            if classes_diff and _in_ranges(range_starts, ranges, group[0].start, end):
                classes.append("lbpe-diff")
            body = _escape(chars, show_whitespace)
            if show_ids:
                body += f'<span class="lbpe-id">{group[0].id}</span>'
            out.append(f'<span class="{" ".join(classes)}" data-s="{start}" data-e="{end}" data-i="{group[0].id}">{body}</span>')
            pos = end
            continue
        if len(group) > 1 or group[0].partial:
            classes.append("lbpe-bytes")
            lines = [f"{len(group)} tokens for {_quote(chars)}" if len(group) > 1 else f"1 token for part of {_quote(chars)}"]
        else:
            lines = []
        lines += [f"#{s.id}  {_token_spelling(s)}" for s in group]
        if any(s.special for s in group):
            classes.append("lbpe-special")
            lines.append("special token")
        if classes_diff and _in_ranges(range_starts, ranges, group[0].start, end):
            classes.append("lbpe-diff")
            lines.append("differs between BPE and LBPE")
        if chars:
            body = _escape(chars, show_whitespace)
        else:
            classes.append("lbpe-empty")
            body = "\u2205"
            lines.append("covers no characters of the text")
        if show_ids:
            body += f'<span class="lbpe-id">{" ".join(str(s.id) for s in group)}</span>'
        ids = " ".join(str(s.id) for s in group)
        title = ' title="' + html.escape("\n".join(lines), quote=True).replace("\n", "&#10;") + '"'
        out.append(f'<span class="{" ".join(classes)}" data-s="{start}" data-e="{end}" data-i="{ids}"{title}>{body}</span>')
        pos = end
    if pos < len(text):
        out.append(f'<span class="lbpe-gap" title="not covered by any token">{_escape(text[pos:], show_whitespace)}</span>')
    plain = "" if show_whitespace else " lbpe-plain"
    if len(out) > RUN_TOKENS:
        runs = ("".join(out[i : i + RUN_TOKENS]) for i in range(0, len(out), RUN_TOKENS))
        return f'<div class="lbpe-tokens{plain}">{RUN_MARK}{RUN_MARK.join(_run(r) for r in runs)}{RUN_MARK}</div>'
    return f'<div class="lbpe-tokens{plain}">{"".join(out)}</div>'


#: Tokens per run in a long pane (see :func:`render_html`).
RUN_TOKENS = 256
#: What separates the runs in the markup (a comment: nothing on screen).
RUN_MARK = "<!--r-->"


def _run(body: str) -> str:
    return f'<span class="lbpe-run">{body}</span>'


def parse_ids(text: str) -> list[int]:
    """Token ids pasted as text: numbers separated by spaces, commas or line breaks, optionally
    inside ``[...]`` (a Python or JSON list).

    >>> parse_ids("[15496, 995]"), parse_ids("15496, 995 ")
    ([15496, 995], [15496, 995])
    """
    body = (text or "").strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    parts = [p for p in re.split(r"[\s,]+", body) if p]
    if not parts:
        raise LbpeError("paste token ids to decode: numbers separated by spaces or commas, e.g. 15496 995")
    bad = next((p for p in parts if not p.isdigit()), None)
    if bad is not None:
        raise LbpeError(f"{bad[:20]!r} is not a token id; ids are whole numbers such as 15496, separated by spaces or commas")
    return [int(p) for p in parts]


def decode_html(tok: Tokenizer, ids: Sequence[int], *, show_whitespace: bool = True) -> str:
    """Pasted ids decoded: the text (the vocabulary's own decoder, bytes joined first, so a
    character split over tokens is whole) and each id as a token box, as the panes show them.
    An id the vocabulary lacks is an error that names it."""
    raws = [tok.decode_bytes([i]) for i in ids]  # an id the vocabulary lacks is named here
    text = tok.decode(ids)
    boxes = []
    for k, (i, raw) in enumerate(zip(ids, raws)):
        seg = Segment(i, 0, 0, raw)
        spelled = _token_spelling(seg)
        shown = _escape(raw.decode("utf-8", "backslashreplace"), show_whitespace)
        title = html.escape(f"#{i}  {spelled}", quote=True)
        boxes.append(f'<span class="lbpe-tok lbpe-c{k % PALETTE_SIZE}" title="{title}">{shown}</span><wbr>')
    return (
        f'<div class="lbpe-decoded"><div class="lbpe-head"><span class="lbpe-count">{len(ids):,} '
        f'id{"s" if len(ids) != 1 else ""} decode to {len(text):,} characters:</span></div>'
        f'<pre class="lbpe-decoded-text">{html.escape(text)}</pre>'
        f'<div class="lbpe-tokens">{"".join(boxes)}</div></div>'
    )


def _quote(chars: str) -> str:
    """``chars`` in double quotes, control characters escaped (``\\n``, ``\\t``, ``\\xNN``)."""
    named = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", '"': '\\"'}
    out = "".join(named.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x20 or ord(c) == 0x7F else c) for c in chars)
    return f'"{out}"'


def render_pane(comparison: Comparison, mode: str, *, show_whitespace: bool = True, show_ids: bool = False) -> str:
    """One side of a comparison: a heading (mode, token count, differing spans) over
    :func:`render_html`. The outer ``div`` carries ``data-mode`` and ``data-tokens``."""
    side = comparison.side(mode)
    ndiff = len(comparison.differ)
    body = render_html(
        side.segments, comparison.text, differ=comparison.differ, show_whitespace=show_whitespace, show_ids=show_ids
    )
    if ndiff:
        body = body.replace('<div class="lbpe-tokens', '<div class="lbpe-tokens lbpe-has-diff', 1)
    if not comparison.text:
        body = '<div class="lbpe-tokens"><span class="lbpe-empty-text">(no text)</span></div>'
    diff_note = f'<span class="lbpe-ndiff">{ndiff} differing span{"s" if ndiff != 1 else ""}</span>' if ndiff else ""
    return (
        f'<div class="lbpe-pane" data-mode="{mode}" data-tokens="{side.tokens}" data-differ="{ndiff}">'
        f'<div class="lbpe-head"><span class="lbpe-mode">{MODE_NAMES[mode]}</span>'
        f'<span class="lbpe-count">{side.tokens} token{"s" if side.tokens != 1 else ""}</span>{diff_note}</div>'
        f"{body}</div>"
    )


def _signed(value: float, digits: int = 2, *, percent: bool = False, places: int = 1) -> str:
    if percent:
        return f"{100 * value:+.{places}f}%".replace("-", "\u2212")
    return f"{value:+.{digits}f}".replace("-", "\u2212")


def metrics_html(comparison: Comparison, summary: dict | None = None) -> str:
    """A table: tokens, bytes per token and characters per token for BPE and LBPE, and the
    change from BPE to LBPE (absolute and relative; fewer tokens is marked ``lbpe-better``).

    With ``summary`` (:func:`comparison_summary`), a folded section below adds every metric of
    :data:`lbpe.metrics.CATALOGUE`, the frequency by token length and the agreement of the two
    segmentations, each with what it means and the way the paper predicts it moves.
    """
    b, l = comparison.bpe, comparison.lbpe
    unit = "bytes" if comparison.unit == "byte" else "characters"

    def verdict(delta: float, lower_is_better: bool) -> str:
        if delta == 0:
            return ""
        return "lbpe-better" if (delta < 0) == lower_is_better else "lbpe-worse"

    rows = []
    dt = l.tokens - b.tokens
    rel = (l.tokens / b.tokens - 1) if b.tokens else 0.0
    rows.append(("tokens", f"{b.tokens}", f"{l.tokens}", f"{dt:+d} ({_signed(rel, percent=True)})".replace("-", "\u2212"), verdict(dt, True)))
    for label, bv, lv in (
        ("bytes / token", b.bytes_per_token, l.bytes_per_token),
        ("characters / token", b.chars_per_token, l.chars_per_token),
    ):
        d = lv - bv
        r = (lv / bv - 1) if bv else 0.0
        rows.append((label, f"{bv:.3f}", f"{lv:.3f}", f"{_signed(d, 3)} ({_signed(r, percent=True)})", verdict(d, False)))
    cells = "".join(
        f'<tr><td>{html.escape(name)}</td><td>{bv}</td><td>{lv}</td><td class="{cls}">{dv}</td></tr>'
        for name, bv, lv, dv, cls in rows
    )
    ndiff = len(comparison.differ)
    note = (
        f"{b.bytes} bytes, {b.chars} characters; "
        f"{ndiff} differing span{'s' if ndiff != 1 else ''} covering {comparison.differing_chars} characters; "
        f"vocabulary {html.escape(comparison.vocab or '?')} ({unit} as units)"
    )
    more = ""
    if summary is not None:
        shown = {"tokens", "bytes_per_token", "chars_per_token", "bytes", "chars", "words"}  # in the table above
        body = "".join(
            f'<tr title="{html.escape(row.meaning)}"><td>{html.escape(row.label)}</td><td>{row.bpe}</td>'
            f'<td>{row.lbpe}</td><td class="{_VERDICT[row.as_predicted]}">{row.change}</td>'
            f"<td>{html.escape(row.paper)}</td></tr>"
            for row in summary_rows(summary)
            if row.key not in shown and not row.key.startswith("length ")
        )
        more = (
            '<details class="lbpe-more"><summary>Frequency balance, Rényi efficiency and agreement '
            "(hover a row for what it means)</summary>"
            '<table class="lbpe-metrics"><thead><tr><th></th><th>BPE</th><th>LBPE</th><th>LBPE \u2212 BPE</th>'
            f"<th>paper predicts</th></tr></thead><tbody>{body}</tbody></table></details>"
        )
    return (
        '<table class="lbpe-metrics"><thead><tr><th></th><th>BPE</th><th>LBPE</th><th>LBPE \u2212 BPE</th></tr></thead>'
        f'<tbody>{cells}</tbody></table><div class="lbpe-legend">{note}</div>{more}'
    )


_VERDICT = {True: "lbpe-better", False: "lbpe-worse", None: ""}


# ---------------------------------------------------------------------------------------------
# token-length shift
# ---------------------------------------------------------------------------------------------


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
        return tuple((l / b - 1) if b else None for b, l in zip(self.bpe_buckets, self.lbpe_buckets))

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


def comparison_stats(tok: Tokenizer, comparison: Comparison) -> dict[str, Stats]:
    """:class:`lbpe.stats.Stats` per mode for a comparison, from its segments (no re-encoding);
    equal to :func:`lbpe.stats.text_stats` on the same text."""
    length = token_lengths(tok)
    words = count_words(comparison.text)
    out = {}
    for mode in MODES:
        side = comparison.side(mode)
        per_id = Counter(s.id for s in side.segments)
        counts: Counter[int] = Counter()
        for i, n in per_id.items():
            if length(i):
                counts[length(i)] += n
        out[mode] = Stats(tokens=side.tokens, bytes=side.bytes, chars=side.chars, words=words, length_counts=dict(counts),
                          token_counts=dict(per_id))
    out["lbpe"].agreement = text_agreement(tok, comparison.bpe.ids, comparison.lbpe.ids, comparison.text)
    return out


def comparison_summary(
    tok: Tokenizer, comparison: Comparison, *, renyi_power: float = RENYI_POWER, stats: dict[str, Stats] | None = None
) -> dict:
    """:func:`lbpe.stats.compare_json` of the compared text: every metric, the frequency by
    token length and the agreement of the two segmentations (``stats``: its
    :func:`comparison_stats`, when the caller has them already)."""
    stats = comparison_stats(tok, comparison) if stats is None else stats
    return compare_json(stats, vocab=comparison.vocab, unit=comparison.unit, tok=tok, renyi_power=renyi_power)


def shift_from_stats(bpe: Stats, lbpe: Stats, *, unit: str) -> LengthShift:
    """The :class:`LengthShift` of two :class:`lbpe.stats.Stats` (e.g. of a whole corpus)."""
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
    return _signed(change, percent=True).replace(".0%", "%")


def plotly_spec(shift: LengthShift, *, title: str | None = None, height: int = 520) -> dict:
    """A plain Plotly figure (``{"data": [...], "layout": {...}}``, JSON-able) of a shift.

    Top: tokens per paper bucket, BPE and LBPE side by side, the LBPE bars labelled with the
    relative change of that count from BPE (said on the axis). Bottom: tokens per exact length. Pass it to
    ``plotly.graph_objects.Figure(spec)`` or to ``Plotly.newPlot(el, spec.data, spec.layout)``.
    """
    unit = "bytes" if shift.unit == "byte" else "characters"
    labels = list(shift.buckets)
    change = [_change_label(c, n) for c, n in zip(shift.relative_change, shift.lbpe_buckets)]
    data = []
    for mode, counts in (("bpe", shift.bpe_buckets), ("lbpe", shift.lbpe_buckets)):
        trace = {
            "type": "bar",
            "name": MODE_NAMES[mode],
            "legendgroup": mode,
            "x": labels,
            "y": list(counts),
            "marker": {"color": COLORS[mode]},
            "xaxis": "x",
            "yaxis": "y",
            "hovertemplate": f"{MODE_NAMES[mode]}, %{{x}} {unit}: %{{y}} tokens<extra></extra>",
        }
        if mode == "lbpe":
            trace.update(text=change, textposition="outside", cliponaxis=False, textfont={"size": 12})
        data.append(trace)
    for mode, counts in (("bpe", shift.bpe_lengths), ("lbpe", shift.lbpe_lengths)):
        data.append(
            {
                "type": "bar",
                "name": MODE_NAMES[mode],
                "legendgroup": mode,
                "showlegend": False,
                "x": list(shift.lengths),
                "y": list(counts),
                "marker": {"color": COLORS[mode]},
                "xaxis": "x2",
                "yaxis": "y2",
                "hovertemplate": f"{MODE_NAMES[mode]}, length %{{x}}: %{{y}} tokens<extra></extra>",
            }
        )
    axis = {"gridcolor": "rgba(128,128,128,0.25)", "zerolinecolor": "rgba(128,128,128,0.4)", "automargin": True}
    layout = {
        "barmode": "group",
        "bargap": 0.2,
        "height": height,
        "margin": {"l": 60, "r": 20, "t": 70 if title else 40, "b": 50},
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 13},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "bottom"},
        "xaxis": {**axis, "domain": [0, 1], "anchor": "y", "type": "category",
                  "title": {"text": f"token length in {unit}, the paper's buckets"}},
        "yaxis": {**axis, "domain": [0.58, 1], "anchor": "x", "title": {"text": "tokens (label: LBPE's change)"},
                  "rangemode": "tozero"},
        "xaxis2": {**axis, "domain": [0, 1], "anchor": "y2", "title": {"text": f"token length in {unit}"},
                   "dtick": 1 if len(shift.lengths) <= 24 else None, "tickmode": "linear" if len(shift.lengths) <= 24 else "auto"},
        "yaxis2": {**axis, "domain": [0, 0.36], "anchor": "x2", "title": {"text": "tokens"}, "rangemode": "tozero"},
    }
    if layout["xaxis2"]["dtick"] is None:
        del layout["xaxis2"]["dtick"]
    top = max([*shift.bpe_buckets, *shift.lbpe_buckets, 0])
    layout["yaxis"]["range"] = [0, top * 1.18 + 1]
    if title:
        layout["title"] = {"text": title, "x": 0, "xanchor": "left"}
    return {"data": data, "layout": layout}


def frequency_spec(summary: dict, *, title: str | None = None, height: int = 420) -> dict | None:
    """A plain Plotly figure of the paper's claim: how often a distinct token of each length
    bucket occurs (mean occurrences, log scale), BPE beside LBPE, the LBPE bars labelled with
    the change of the mean; hover shows the median and the number of distinct tokens.

    ``summary`` is :func:`lbpe.stats.compare_json` with a tokenizer (it needs
    ``frequency_by_length``); ``None`` when it has none.
    """
    if "frequency_by_length" not in summary["bpe"]:
        return None
    unit = "bytes" if summary.get("unit") == "byte" else "characters"
    labels = list(summary["bpe"]["frequency_by_length"])
    change = summary["change"].get("frequency_by_length", {})
    data = []
    for mode in MODES:
        buckets = summary[mode]["frequency_by_length"]
        means = [buckets[k]["mean"] or None for k in labels]  # log axis: no bar for an empty bucket
        trace = {
            "type": "bar",
            "name": MODE_NAMES[mode],
            "x": labels,
            "y": means,
            "customdata": [[buckets[k]["median"], buckets[k]["distinct"]] for k in labels],
            "marker": {"color": COLORS[mode]},
            "hovertemplate": f"{MODE_NAMES[mode]}, %{{x}} {unit}: %{{y:,.1f}} occurrences per token "
            "(median %{customdata[0]:,.0f}; %{customdata[1]:,} distinct tokens)<extra></extra>",
        }
        if mode == "lbpe":
            text = ["" if change.get(k) is None else _signed(change[k], percent=True) for k in labels]
            trace.update(text=text, textposition="outside", cliponaxis=False, textfont={"size": 12})
        data.append(trace)
    axis = {"gridcolor": "rgba(128,128,128,0.25)", "zerolinecolor": "rgba(128,128,128,0.4)", "automargin": True}
    layout = {
        "barmode": "group",
        "bargap": 0.2,
        "height": height,
        "margin": {"l": 60, "r": 20, "t": 70 if title else 40, "b": 50},
        "font": {"family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif", "size": 13},
        "paper_bgcolor": "rgba(0,0,0,0)",
        "plot_bgcolor": "rgba(0,0,0,0)",
        "legend": {"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "bottom"},
        "xaxis": {**axis, "type": "category", "title": {"text": f"token length in {unit}, the paper's buckets"}},
        "yaxis": {**axis, "type": "log", "title": {"text": "occurrences per distinct token (log)"}},
    }
    values = [y for trace in data for y in trace["y"] if y]
    if values:  # a log axis's range is in powers of ten; start below the smallest bar so it shows
        layout["yaxis"]["range"] = [math.log10(min(values) / 2), math.log10(max(values) * 2)]
    if title:
        layout["title"] = {"text": title, "x": 0, "xanchor": "left"}
    return {"data": data, "layout": layout}


# ---------------------------------------------------------------------------------------------
# corpus statistics as a table and as CSV
# ---------------------------------------------------------------------------------------------


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
    return f"{bucket['mean']:,.1f} (median {bucket['median']:,.0f}; {n:,} token{'s' if n != 1 else ''})"


def _bucket_prediction(label: str) -> str | None:
    """The paper's direction for a length bucket: short tokens (its first bucket) rarer, long
    ones (from :data:`lbpe.stats.LONG_TOKEN` units) more frequent; none in between."""
    low = {bucket_label(lo, hi): lo for lo, hi in BUCKETS}[label]
    return "lower" if low == BUCKETS[0][0] else "higher" if low >= LONG_TOKEN else None


def summary_rows(summary: dict) -> list[SummaryRow]:
    """The readable lines of a :func:`lbpe.stats.compare_json` summary, in table order: what
    was measured (bytes, characters, words), every metric of :data:`lbpe.metrics.CATALOGUE`
    present, occurrences per distinct token by length bucket, the length buckets' shares, and
    the agreement of the two segmentations."""
    b, l, ch = summary["bpe"], summary["lbpe"], summary["change"]
    rows = [
        SummaryRow(key, label, f"{b[key]:,}", f"{l[key]:,}", "", "", meaning)
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
            shown = _signed(change, percent=True, places=2)
        else:
            shown = _signed(change, 6 if metric.digits == "int" else max(int(metric.digits), 4))
        paper, verdict = _paper(metric, change)
        rows.append(SummaryRow(metric.key, metric.label, _value(b[metric.key], metric.digits),
                               _value(l[metric.key], metric.digits), shown, paper, metric.meaning, verdict))
    if "frequency_by_length" in b:
        for label, bv in b["frequency_by_length"].items():
            lv = l["frequency_by_length"][label]
            change = ch.get("frequency_by_length", {}).get(label)
            paper, verdict = _paper(Metric(label, "", "", _bucket_prediction(label)), change)
            rows.append(SummaryRow(
                f"frequency {label}", f"occurrences per token, length {label}",
                _frequency_cell(bv), _frequency_cell(lv),
                "" if change is None else _signed(change, percent=True, places=2), paper,
                "mean and median occurrences of a distinct token of that length, and how many distinct tokens "
                "it has", verdict))
    bt, lt = max(b["tokens"], 1), max(l["tokens"], 1)
    for label, points in ch["length_share_points"].items():
        bn, ln = b["length_buckets"][label], l["length_buckets"][label]
        paper, verdict = _paper(Metric(label, "", "", _bucket_prediction(label)), points, f"length {label}")
        rows.append(SummaryRow(
            f"length {label}", f"length {label}: tokens (share)", f"{bn:,} ({100 * bn / bt:.1f}%)",
            f"{ln:,} ({100 * ln / lt:.1f}%)", f"{points:+.2f} points".replace("-", "\u2212"), paper,
            "tokens of that length and their share of all tokens (the paper's Table 2)", verdict))
    for metric in AGREEMENT if "agreement" in summary else ():
        value = summary["agreement"][metric.key]
        rows.append(SummaryRow(metric.key, metric.label, "", "", f"{100 * value:.2f}%", "", metric.meaning))
    return rows


#: Column headers of :func:`stats_rows`.
STATS_HEADERS = ["metric", "BPE", "LBPE", "LBPE vs BPE", "paper predicts (and reports)", "meaning"]


def stats_rows(summary: dict) -> list[list[str]]:
    """Rows under :data:`STATS_HEADERS` (formatted strings) of a
    :func:`lbpe.stats.compare_json` summary (see :func:`summary_rows`)."""
    return [[r.label, r.bpe, r.lbpe, r.change, r.paper, r.meaning] for r in summary_rows(summary)]


#: The columns of :func:`stats_csv`.
CSV_HEADERS = ["file", "vocabulary", "metric", "bpe", "lbpe", "change", "change_unit", "paper_predicts"]


def stats_csv(summary: dict) -> str:
    """CSV of a :func:`lbpe.stats.compare_json` summary, one row per figure, every row naming
    the file (``summary["file"]``, when there is one) and the vocabulary, so CSVs of several
    runs can be stacked: the counts and every metric, occurrences per distinct token by bucket,
    tokens per bucket, the agreement, then tokens per exact length.

    ``change`` is in ``change_unit``: ``%`` for relative changes (lbpe / bpe - 1, as the tables
    show them; the JSON keeps the fraction), ``difference`` (lbpe - bpe), ``percentage points``
    for shares of tokens, ``value`` for the agreement figures (0 to 1)."""
    b, l, ch = summary["bpe"], summary["lbpe"], summary["change"]
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
        row(key, b[key], l[key])
    for metric in CATALOGUE:
        if metric.key in b:
            change = ch.get(metric.key)
            if metric.change == "relative":
                row(metric.key, number(b[metric.key]), number(l[metric.key]), percent(change), "%", metric.paper or "")
            else:
                row(metric.key, number(b[metric.key]), number(l[metric.key]), number(change), "difference",
                    metric.paper or "")
    if "frequency_by_length" in b:
        for label, bv in b["frequency_by_length"].items():
            lv = l["frequency_by_length"][label]
            for field in ("mean", "median", "distinct"):
                change = ch.get("frequency_by_length", {}).get(label) if field == "mean" else None
                row(f"frequency_by_length {label} {field}", number(bv[field]), number(lv[field]), percent(change), "%",
                    (_bucket_prediction(label) or "") if field == "mean" else "")
    for label, points in ch["length_share_points"].items():
        bn, ln = b["length_buckets"][label], l["length_buckets"][label]
        row(f"bucket {label}", bn, ln, percent(_ratio(ln, bn)) if bn else "", "%")
        row(f"bucket {label} share", "", "", number(points), "percentage points", _bucket_prediction(label) or "")
    for metric in AGREEMENT if "agreement" in summary else ():
        row(metric.key, "", "", number(summary["agreement"][metric.key]), "value")
    lengths = sorted({int(k) for k in (*b["length_counts"], *l["length_counts"])})
    for n in lengths:
        row(f"length {n}", b["length_counts"].get(str(n), 0), l["length_counts"].get(str(n), 0))
    return buf.getvalue()


def _ratio(new: float, old: float) -> float:
    return new / old - 1 if old else 0.0
