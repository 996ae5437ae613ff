"""Small text helpers of the display modules: mode names, signed changes, quoted token text,
and text as HTML with the characters a page would act on or hide made visible."""

from __future__ import annotations

import html
import re

from lbpe.analysis.trace import SHOWN

#: Display names of the modes.
MODE_NAMES = {"bpe": "BPE", "lbpe": "LBPE"}

#: Display names of every inference method (:data:`lbpe.METHODS`).
METHOD_NAMES = {
    "bpe": "BPE",
    "lbpe": "LBPE",
    "longest-prefix": "Longest prefix",
    "longest-suffix": "Longest suffix",
    "least-tokens": "Least tokens",
    "dropout": "BPE-dropout",
}


#: C0 controls and DEL as their Unicode control pictures (``␀`` ... ``␟``, ``␡``).
CONTROL_PICTURES = {c: chr(0x2400 + c) for c in range(0x20)} | {0x7F: "\u2421"}

#: C1 controls and the :data:`~lbpe.analysis.trace.FORMATTING` characters (which show nothing,
#: reorder the text after them or break the line) as their :data:`~lbpe.analysis.trace.SHOWN`
#: escapes in a dimmed span.
MARKED = {c: f'<span class="lbpe-mark">{shown}</span>' for c, shown in SHOWN.items() if c >= 0x80}


def _character_class(codes: list[int]) -> str:
    """A regular expression's class of the code points ``codes`` (sorted), runs as ranges."""
    runs: list[list[int]] = []
    for c in codes:
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return "[" + "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in runs) + "]"


#: One character of :data:`MARKED`.
MARKED_CHAR = re.compile(_character_class(sorted(MARKED)))

#: How the Explain views write a unit or a token: whitespace as glyphs on one line.
_ONE_LINE = {**CONTROL_PICTURES, ord(" "): "\u00b7", ord("\t"): "\u2192", ord("\n"): "\u21b5", ord("\r"): "\u240d"}


def marked_html(text: str, table: dict[int, str] = _ONE_LINE) -> str:
    """``text`` HTML-escaped, each character of :data:`MARKED` as its span, the rest written
    with ``table`` (``str.translate``); by default as the Explain views write units and tokens:
    space, tab, LF and CR as ``·`` ``→`` ``↵`` ``␍`` and C0 controls as their pictures.

    >>> marked_html("a b\\n<\\u202e>")
    'a·b↵&lt;<span class="lbpe-mark">\\\\u202e</span>&gt;'
    """
    out = []
    pos = 0
    for m in MARKED_CHAR.finditer(text):
        out.append(html.escape(text[pos : m.start()].translate(table)))
        out.append(MARKED[ord(m.group())])
        pos = m.end()
    out.append(html.escape(text[pos:].translate(table)))
    return "".join(out)


def signed(value: float, digits: int = 2, *, percent: bool = False, places: int = 1) -> str:
    if percent:
        return f"{100 * value:+.{places}f}%".replace("-", "\u2212")
    return f"{value:+.{digits}f}".replace("-", "\u2212")


def ratio(new: float, old: float) -> float:
    return new / old - 1 if old else 0.0
