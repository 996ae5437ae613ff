"""HTML of a comparison: the panes (:func:`render_pane`, :func:`render_html`), the metrics table
(:func:`metrics_html`), the list of differences (:func:`differences_html`) and decoded ids
(:func:`decode_html`), in the classes of ``display.css`` (:data:`CSS`)."""

from __future__ import annotations

import functools
import html
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from pathlib import Path

from lbpe.analysis.trace import quoted
from lbpe.playground.display.format import CONTROL_PICTURES, marked_html, signed
from lbpe.playground.display.model import Comparison, differences
from lbpe.playground.display.tables import summary_rows
from lbpe.tokenizer import MODES, Segment, Tokenizer

#: Number of background colours tokens cycle through (classes ``lbpe-c0`` .. ``lbpe-c5``).
PALETTE_SIZE = 6


#: Differences listed by :func:`differences_html` (the count says how many more there are).
MAX_LISTED_DIFFERENCES = 1000


def differences_html(comparison: Comparison) -> str:
    """The list of differences (``<details class="lbpe-diffs">``): per span its text, BPE's
    tokens -> LBPE's tokens (the left method's -> the right one's) and the change in tokens, as
    buttons that ``lbpe/playground/display/panes.js`` turns into "scroll both panes there"; each
    side's tokens shown as the panes show them (byte tokens of one character as that character,
    their bytes in its title). A text where the two agree
    says so; no text, nothing."""
    diffs = differences(comparison)
    if not diffs:
        if not comparison.text:
            return ""
        left, right = (html.escape(comparison.names[mode]) for mode in MODES)
        return (
            f'<p class="lbpe-diffs lbpe-agree">{left} and {right} agree here: the same tokens over the whole text.</p>'
        )
    change = sum(d.change for d in diffs)
    items = []
    shown = {mode: _listed_tokens(comparison, mode) for mode in MODES}
    for d in diffs[:MAX_LISTED_DIFFERENCES]:
        bpe, lbpe = ("|".join(shown[mode].get(d.start, [])) for mode in MODES)
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
        f"{html.escape(comparison.names['lbpe'])} {change:+,d} token{'' if abs(change) == 1 else 's'} over them "
        "(click one to see it in both panes)</summary>"
        f"<ol>{''.join(items)}</ol></details>"
    )


def _listed_tokens(comparison: Comparison, mode: str) -> dict[int, list[str]]:
    """Per differing span (by its start), the HTML of each token group over it as the pane
    draws it: the characters, and for byte tokens of one character a ``lbpe-bytes`` box whose
    title lists them."""
    segments = comparison.side(mode).segments
    starts = [s.start for s in segments]
    out: dict[int, list[str]] = {}
    # a token is listed in the span it starts in; no token crosses a span's ends (differing_spans)
    for a, b in comparison.differ:
        for group in _groups(segments[bisect_left(starts, a) : bisect_left(starts, b)]):
            out.setdefault(a, []).append(_listed_group(comparison, group))
    return out


def _listed_group(comparison: Comparison, group: list[Segment]) -> str:
    """The HTML of one token group in the list of differences (see :func:`_listed_tokens`)."""
    start, end = group[0].start, max(s.end for s in group)
    chars = _escape(comparison.text[start:end], True) or "\u2205"
    if len(group) > 1 or group[0].partial:
        what = f"{len(group)} tokens for" if len(group) > 1 else "1 token for part of"
        title = "\n".join([f"{what} {quoted(comparison.text[start:end])}", *(_token_spelling(s) for s in group)])
        title = html.escape(title, quote=True).replace("\n", "&#10;")
        chars = f'<span class="lbpe-bytes" title="{title}">{chars}</span>'
    return chars


#: The stylesheet for :func:`render_html`, :func:`render_pane` and :func:`metrics_html`
#: (``lbpe/playground/display/display.css``, loaded by the Gradio app and the browser page). Every class
#: starts with ``lbpe-``; dark variants follow a ``.dark`` ancestor (Gradio's dark mode) or the
#: user's colour-scheme preference inside ``.lbpe-auto-dark``.
CSS = (Path(__file__).parent / "display.css").read_text("utf-8")


_GLYPHS = {" ": "\u00b7", "\t": "\u2192", "\n": "\u21b5\n", "\r": "\u240d"}

#: A run of whitespace the panes draw as glyphs (with ``show_whitespace``).
_WS_RUN = re.compile(r"[ \t\r\n]+")
#: Without the glyphs, tab, LF and CR stay as they are.
_CONTROL_PLAIN = {c: g for c, g in CONTROL_PICTURES.items() if c not in (9, 10, 13)}


#: Texts up to this long are escaped once and remembered (a token's text, mostly); longer ones
#: (gaps, long tokens of a hostile vocabulary) every time, so the cache stays a few megabytes.
_CACHED_ESCAPE_CHARS = 64


def _escape(text: str, show_whitespace: bool) -> str:
    """HTML-escape text; C0 control characters become their Unicode control pictures, C1 and
    formatting characters their escapes, dimmed (``\\u202e``), and with ``show_whitespace``
    space, tab, CR and LF become dimmed glyphs (LF also breaks the line).

    >>> _escape("a\\u202eb c", False)
    'a<span class="lbpe-mark">\\\\u202e</span>b c'
    """
    if len(text) <= _CACHED_ESCAPE_CHARS:
        return _escape_cached(text, show_whitespace)
    return _escape_text(text, show_whitespace)


@functools.lru_cache(maxsize=1 << 16)  # a long text repeats its common tokens many times
def _escape_cached(text: str, show_whitespace: bool) -> str:
    return _escape_text(text, show_whitespace)


def _escape_text(text: str, show_whitespace: bool) -> str:
    if not show_whitespace:
        return marked_html(text, _CONTROL_PLAIN)
    out = []
    pos = 0
    for m in _WS_RUN.finditer(text):
        out.append(marked_html(text[pos : m.start()], CONTROL_PICTURES))
        out.append(f'<span class="lbpe-ws">{"".join(_GLYPHS[c] for c in m.group())}</span>')
        pos = m.end()
    out.append(marked_html(text[pos:], CONTROL_PICTURES))
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
    return quoted(text)


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
    between: str = "BPE and LBPE",
) -> str:
    """Escaped HTML for one segmentation of ``text`` (``<div class="lbpe-tokens">``).

    * every token is a ``<span class="lbpe-tok lbpe-cK">`` (``K`` cycles through
      :data:`PALETTE_SIZE` colours) showing its characters of ``text``, its id(s) in ``data-i``;
      a token whose text alone does not tell it (byte groups, specials, empty ones) also has a
      ``title`` with the id(s) and the token as the vocabulary spells it (``lbpe/playground/display/panes.js``
      shows either in its card);
    * tokens that split a character (partial UTF-8, byte fallback) are grouped: the
      character is shown once, in one span with the extra class ``lbpe-bytes`` (a dashed
      border), and the tooltip lists each token's bytes as ``\\xNN`` -- never U+FFFD;
    * tokens inside one of the ``differ`` ranges (see :func:`differing_spans`) get
      ``lbpe-diff`` (their title says it differs ``between`` the two methods); special tokens ``lbpe-special``; text no token covers (removed by a
      normaliser) is shown struck through (``lbpe-gap``);
    * ``show_whitespace``: space, tab, CR and newline as dimmed glyphs (``·`` ``→`` ``␍``
      ``↵``); without it the ``div`` gets ``lbpe-plain``, whose tokens never wrap inside (a
      token that starts with a space would leave a coloured stub at a line end);
      ``show_ids``: the ids after each token, in small type;
    * control characters are shown as their Unicode control pictures (``␀`` ...); a
      a zero-width space after each token (CSS ``::after``, not in the markup, so copied text
      is the text) lets long lines wrap at token boundaries;
    * ``data-s`` / ``data-e`` are the token's character range in ``text`` (a click on a
      token asks :func:`lbpe.analysis.explain.pick_span` what to explain; ``lbpe/playground/display/panes.js`` lights the
      tokens of both panes that cover the same characters);
    * more than :data:`RUN_TOKENS` tokens are grouped in runs (``lbpe-run``) with a
      ``<!--r-->`` before, between and after them: a view that already shows the previous
      text replaces only the runs that changed (the app's panes; a keystroke at the end of a
      long text redraws one run instead of every token); a run of whole lines is a block the
      browser lays out and paints only near the view (see :func:`_runs`).

    >>> render_html([Segment(7, 0, 2, b"hi")], "hi!")
    '<div class="lbpe-tokens"><span class="lbpe-tok lbpe-c0" data-s="0" data-e="2" data-i="7">hi</span><span class="lbpe-gap" title="not covered by any token">!</span></div>'
    >>> print(render_html([Segment(5, 0, 1, b"\\xc3", partial=True), Segment(6, 0, 1, b"\\xa9", partial=True)], "é"))
    <div class="lbpe-tokens"><span class="lbpe-tok lbpe-c0 lbpe-bytes" data-s="0" data-e="1" data-i="5 6" title="2 tokens for &quot;é&quot;&#10;#5  \\xc3&#10;#6  \\xa9">é</span></div>
    """  # noqa: E501 - a doctest's expected output is one line
    parts = _markup(segments, text, sorted(differ), show_whitespace=show_whitespace, show_ids=show_ids, between=between)
    return _assemble(parts, text, show_whitespace)


class _Markup:
    """:func:`render_html`'s pieces of markup, one per token group or uncovered gap (``out``),
    and after each group the state to go on from there: ``stops`` the positions reached,
    ``marks`` ``(len(out), groups drawn, segments drawn)``."""

    __slots__ = ("out", "stops", "marks", "pos")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.stops: list[int] = []
        self.marks: list[tuple[int, int, int]] = []
        self.pos = 0

    def upto(self, cut: int, segments: int) -> _Markup:
        """The markup of the groups that end at or before ``cut`` and are made of the first
        ``segments`` segments at most (a copy)."""
        k = bisect_right(self.stops, cut)
        while k and self.marks[k - 1][2] > segments:
            k -= 1
        kept = _Markup()
        if k:
            n = self.marks[k - 1][0]
            kept.out, kept.stops, kept.marks = self.out[:n], self.stops[:k], self.marks[:k]
            kept.pos = self.stops[k - 1]
        return kept


def _markup(
    segments: Sequence[Segment],
    text: str,
    ranges: Sequence[tuple[int, int]],
    *,
    show_whitespace: bool,
    show_ids: bool,
    kept: _Markup | None = None,
    between: str = "BPE and LBPE",
) -> _Markup:
    """The markup of every token group (see :func:`render_html`), going on after ``kept``: the
    markup of the same text's groups up to a point where the segments and the ``ranges``
    before it are the same."""
    range_starts = [r[0] for r in ranges]
    classes_diff = bool(ranges)
    parts = kept if kept is not None else _Markup()
    out, stops, marks = parts.out, parts.stops, parts.marks
    pos = parts.pos
    first_k, first_seg = (marks[-1][1], marks[-1][2]) if marks else (0, 0)
    done = first_seg
    for k, group in enumerate(_groups(segments[first_seg:] if first_seg else segments), first_k):
        start = max(group[0].start, pos)
        end = max(max(s.end for s in group), start)
        if start > pos:
            out.append(
                '<span class="lbpe-gap" title="not covered by any token">'
                f"{_escape(text[pos:start], show_whitespace)}</span>"
            )
        classes = ["lbpe-tok", f"lbpe-c{k % PALETTE_SIZE}"]
        chars = text[start:end]
        # an ordinary token has no title: lbpe/playground/display/panes.js shows its id and text (the HTML stays small)
        ordinary = len(group) == 1 and not group[0].partial and not group[0].special and chars
        if ordinary:
            if classes_diff and _in_ranges(range_starts, ranges, group[0].start, end):
                classes.append("lbpe-diff")
            body = _escape(chars, show_whitespace)
            if show_ids:
                body += f'<span class="lbpe-id">{group[0].id}</span>'
            out.append(
                f'<span class="{" ".join(classes)}" data-s="{start}" data-e="{end}" '
                f'data-i="{group[0].id}">{body}</span>'
            )
            pos = end
            done += len(group)
            stops.append(pos)
            marks.append((len(out), k + 1, done))
            continue
        if len(group) > 1 or group[0].partial:
            classes.append("lbpe-bytes")
            lines = [
                f"{len(group)} tokens for {quoted(chars)}" if len(group) > 1 else f"1 token for part of {quoted(chars)}"
            ]
        else:
            lines = []
        lines += [f"#{s.id}  {_token_spelling(s)}" for s in group]
        if any(s.special for s in group):
            classes.append("lbpe-special")
            lines.append("special token")
        if classes_diff and _in_ranges(range_starts, ranges, group[0].start, end):
            classes.append("lbpe-diff")
            lines.append(f"differs between {between}")
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
        out.append(
            f'<span class="{" ".join(classes)}" data-s="{start}" data-e="{end}" data-i="{ids}"{title}>{body}</span>'
        )
        pos = end
        done += len(group)
        stops.append(pos)
        marks.append((len(out), k + 1, done))
    parts.pos = pos
    return parts


def _assemble(parts: _Markup, text: str, show_whitespace: bool) -> str:
    out = parts.out
    if parts.pos < len(text):
        gap = _escape(text[parts.pos :], show_whitespace)
        out = [*out, f'<span class="lbpe-gap" title="not covered by any token">{gap}</span>']
    plain = "" if show_whitespace else " lbpe-plain"
    if len(out) > RUN_TOKENS:
        ends = dict(zip((n - 1 for n, _, _ in parts.marks), parts.stops, strict=True))
        return f'<div class="lbpe-tokens{plain}">{RUN_MARK}{RUN_MARK.join(_runs(out, ends, text))}{RUN_MARK}</div>'
    return f'<div class="lbpe-tokens{plain}">{"".join(out)}</div>'


#: Tokens per run in a long pane (see :func:`render_html`): a run ends with the first token
#: after this many that ends a line, or after :data:`RUN_MOST_TOKENS` tokens.
RUN_TOKENS = 256

#: The most tokens in a run (a long stretch without a line end).
RUN_MOST_TOKENS = 4 * RUN_TOKENS

#: What separates the runs in the markup (a comment: nothing on screen).
RUN_MARK = "<!--r-->"

#: Characters a pane's line is guessed to hold, for the height of a block of lines not drawn yet.
LINE_GUESS = 80

# a token's markup whose last character on screen is a line end (not an id after it)
_ENDS_LINE = re.compile(r'^<span class="lbpe-tok[^>]*>.*\n(?:</span>)+\Z', re.DOTALL)


def _runs(out: list[str], ends: dict[int, int], text: str) -> Iterator[str]:
    """The runs of a long pane's markup ``out`` (``ends``: where each token group's piece ends in
    ``text``), each ``RUN_TOKENS`` tokens or more but the last. A run that starts and ends a
    line (after a token that ends with a line end) is a block of whole lines (``<div
    class="lbpe-run lbpe-lines">``), which the browser lays out and paints only near the view
    (CSS ``content-visibility``), holding the height of its lines guessed at
    :data:`LINE_GUESS` characters each until then; any other run is inline, so lines wrap
    across it; the last run is inline too. A run that ends a line also has ``lbpe-eol``: the
    zero-width space after its last token begins a line, which CSS makes the first line of a
    block after it (``display.css``). Where runs end depends only on the tokens before, so an
    edit keeps the runs before it."""
    first = 0
    line_start: int | None = 0  # where the run begins in the text when that is a line's start
    for k, part in enumerate(out):
        count = k + 1 - first
        ends_line = count >= RUN_TOKENS and k in ends and _ENDS_LINE.match(part) is not None
        if not (ends_line or count >= RUN_MOST_TOKENS or k == len(out) - 1):
            continue
        body = "".join(out[first : k + 1])
        if line_start is not None and ends_line and k < len(out) - 1:
            lines = _lines(text[line_start : ends[k]])
            yield f'<div class="lbpe-run lbpe-lines lbpe-eol" style="--lbpe-lines:{lines}">{body}</div>'
        else:
            yield f'<span class="lbpe-run{" lbpe-eol" if ends_line else ""}">{body}</span>'
        line_start = ends[k] if ends_line else None
        first = k + 1


def _lines(text: str) -> int:
    """The lines of ``text`` (which ends with a line end), each counted as ``LINE_GUESS``
    characters or fewer."""
    return sum(-(-len(line) // LINE_GUESS) or 1 for line in text.split("\n")[:-1])


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
        f"{'id decodes' if len(ids) == 1 else 'ids decode'} to {len(text):,} "
        f"character{'s' if len(text) != 1 else ''}:</span></div>"
        f'<pre class="lbpe-decoded-text">{html.escape(text)}</pre>'
        f'<div class="lbpe-tokens">{"".join(boxes)}</div></div>'
    )


def render_pane(comparison: Comparison, mode: str, *, show_whitespace: bool = True, show_ids: bool = False) -> str:
    """One side of a comparison: a heading (mode, token count, differing spans) over
    :func:`render_html`. The outer ``div`` carries ``data-mode`` and ``data-tokens``; the
    tokens' box is one Tab stop, a group named for its mode, inside which
    ``lbpe/playground/display/panes.js`` moves the focus from token to token with the arrow keys.
    The heading names the side's method; a pair other than BPE and LBPE also puts it in
    ``data-method`` (``data-mode`` stays the role: ``bpe`` left, ``lbpe`` right)."""
    body = render_html(
        comparison.side(mode).segments,
        comparison.text,
        differ=comparison.differ,
        show_whitespace=show_whitespace,
        show_ids=show_ids,
        between=between(comparison),
    )
    return _pane(comparison, mode, body)


def between(comparison: Comparison) -> str:
    """What a differing token's title says it differs between: the two methods' names."""
    return " and ".join(comparison.names[mode] for mode in MODES)


def _pane(comparison: Comparison, mode: str, body: str) -> str:
    """:func:`render_pane` around ``body``, the :func:`render_html` of its side."""
    side = comparison.side(mode)
    name = html.escape(comparison.names[mode], quote=True)
    method = "" if comparison.classic else f' data-method="{side.mode}"'
    ndiff = len(comparison.differ)
    if ndiff:
        body = body.replace('<div class="lbpe-tokens', '<div class="lbpe-tokens lbpe-has-diff', 1)
    if not comparison.text:
        body = '<div class="lbpe-tokens"><span class="lbpe-empty-text">(no text)</span></div>'
    else:
        keys = f"{name} tokens: the arrow keys move between them, Enter explains one"
        body = body.replace("<div ", f'<div tabindex="0" role="group" aria-label="{keys}" ', 1)
    diff_note = f'<span class="lbpe-ndiff">{ndiff:,} differing span{"s" if ndiff != 1 else ""}</span>' if ndiff else ""
    return (
        f'<div class="lbpe-pane" data-mode="{mode}"{method} data-tokens="{side.tokens}" data-differ="{ndiff}">'
        f'<div class="lbpe-head"><span class="lbpe-mode">{name}</span>'
        f'<span class="lbpe-count">{side.tokens:,} token{"s" if side.tokens != 1 else ""}</span>{diff_note}</div>'
        f"{body}</div>"
    )


def metrics_html(comparison: Comparison, summary: dict | None = None) -> str:
    """A table: tokens, bytes per token and characters per token for BPE and LBPE, and the
    change from BPE to LBPE (absolute and relative; fewer tokens is marked ``lbpe-better``).

    With ``summary`` (:func:`comparison_summary`), a folded section below adds every metric of
    :data:`lbpe.analysis.metrics.CATALOGUE`, the frequency by token length and the agreement of the two
    segmentations, each with what it means and the way the paper predicts it moves.

    Another pair of methods (:attr:`Comparison.methods`) is headed by their names, left
    first, and its folded section has no column of the paper's predictions (they are about
    LBPE against BPE).
    """
    b, lb = comparison.bpe, comparison.lbpe
    left, right = (html.escape(comparison.names[mode]) for mode in MODES)
    paper = comparison.classic

    def named(words: str) -> str:
        """A metric's words about BPE and LBPE, about the two methods compared."""
        return words if paper else _MODE_WORD.sub(lambda m: comparison.names[m.group().lower()], words)

    unit = "bytes" if comparison.unit == "byte" else "characters"

    def verdict(delta: float, lower_is_better: bool) -> str:
        if delta == 0:
            return ""
        return "lbpe-better" if (delta < 0) == lower_is_better else "lbpe-worse"

    rows = []
    dt = lb.tokens - b.tokens
    none = "\u2014"  # no tokens: a share or a figure per token is no number
    rel = signed(lb.tokens / b.tokens - 1, percent=True) if b.tokens else none
    rows.append(
        ("tokens", f"{b.tokens:,}", f"{lb.tokens:,}", f"{dt:+,d} ({rel})".replace("-", "\u2212"), verdict(dt, True))
    )
    for label, bv, lv in (
        ("bytes / token", b.bytes_per_token, lb.bytes_per_token),
        ("characters / token", b.chars_per_token, lb.chars_per_token),
    ):
        if not (b.tokens and lb.tokens):
            rows.append((label, f"{bv:.3f}" if b.tokens else none, f"{lv:.3f}" if lb.tokens else none, none, ""))
            continue
        d = lv - bv
        r = (lv / bv - 1) if bv else 0.0
        rows.append((label, f"{bv:.3f}", f"{lv:.3f}", f"{signed(d, 3)} ({signed(r, percent=True)})", verdict(d, False)))
    cells = "".join(
        f'<tr><td>{html.escape(name)}</td><td>{bv}</td><td>{lv}</td><td class="{cls}">{dv}</td></tr>'
        for name, bv, lv, dv, cls in rows
    )
    ndiff = len(comparison.differ)
    note = (
        f"{b.bytes:,} bytes, {b.chars:,} characters; "
        f"{ndiff:,} differing span{'s' if ndiff != 1 else ''} covering {comparison.differing_chars:,} characters; "
        f"vocabulary {html.escape(comparison.vocab or '?')} ({unit} as units)"
    )
    more = ""
    if summary is not None:
        shown = {"tokens", "bytes_per_token", "chars_per_token", "bytes", "chars", "words"}  # in the table above
        body = "".join(
            # the meaning opens under the row's name: by a click, a tap or the keyboard (a title
            # would be hover-only)
            f'<tr><td><details class="lbpe-meaning"><summary>{html.escape(named(row.label))}</summary>'
            f'<span class="lbpe-meaning-text">{html.escape(named(row.meaning))}</span></details></td><td>{row.bpe}</td>'
            f'<td>{row.lbpe}</td><td class="{_VERDICT[row.as_predicted] if paper else ""}">{row.change}</td>'
            + (f"<td>{html.escape(row.paper)}</td>" if paper else "")
            + "</tr>"
            for row in summary_rows(summary)
            if row.key not in shown and not row.key.startswith("length ")
        )
        more = (
            '<details class="lbpe-more"><summary>Frequency balance, Rényi efficiency and agreement '
            "(open a row's name for what it means)</summary>"
            '<table class="lbpe-metrics"><thead><tr><th></th>'
            f"<th>{left}</th><th>{right}</th><th>{right} \u2212 {left}</th>"
            + ("<th>paper predicts</th>" if paper else "")
            + f"</tr></thead><tbody>{body}</tbody></table></details>"
        )
    return (
        f'<table class="lbpe-metrics"><thead><tr><th></th><th>{left}</th><th>{right}</th><th>{right} \u2212 {left}</th>'
        f'</tr></thead><tbody>{cells}</tbody></table><div class="lbpe-legend">{note}</div>{more}'
    )


#: "BPE" or "LBPE" as a word (a metric's meaning names the classic pair).
_MODE_WORD = re.compile(r"\bL?BPE\b")


_VERDICT = {True: "lbpe-better", False: "lbpe-worse", None: ""}
