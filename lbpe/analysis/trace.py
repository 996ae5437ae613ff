"""BPE and LBPE one step at a time, as data: the steps and traces :mod:`lbpe.analysis.explain` records.

* :class:`Merge`, :class:`Placement`: one BPE merge, one LBPE check;
* :class:`PieceTrace`: both encodings of one pre-token, step by step, and why they differ;
* :class:`Explanation`: every pre-token of a text, as :func:`lbpe.analysis.explain.explain` returns them;
* :func:`bpe_trace`, :func:`lbpe_trace`: classic BPE and the paper's LBPE over a piece's units with every
  step recorded (the slow, obvious transcriptions);
* :func:`show_key`, :func:`quoted`, :func:`barred`, :data:`SHOWN`, :data:`FORMATTING`: token keys and
  token text as the traces and their renderers (and ``lbpe compare``) show them, control and
  formatting characters escaped.

Nothing here needs a tokenizer: the functions take units and a priority or a membership test.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Merge",
    "Placement",
    "PieceTrace",
    "Explanation",
    "bpe_trace",
    "lbpe_trace",
    "show_key",
    "quoted",
    "barred",
    "SHOWN",
    "FORMATTING",
]


@dataclass(frozen=True)
class Merge:
    """One BPE step: the part starting at unit ``start`` (``left``) joins the next (``right``)."""

    step: int
    start: int
    left: str
    right: str
    priority: int
    parts: tuple[str, ...]  # every part after this step

    @property
    def token(self) -> str:
        return self.left + self.right


@dataclass(frozen=True)
class Placement:
    """One LBPE check: the ``length``-unit span at ``start`` is a token; ``placed`` says
    whether it was free, else ``taken_by`` is the placed token that holds a unit of it."""

    step: int
    length: int
    start: int
    token: str
    placed: bool
    taken_by: str = ""


@dataclass
class PieceTrace:
    """Both encodings of one pre-token. Token texts are shown as the vocabulary spells them
    (bytes that are not whole UTF-8 characters as ``<E6><97>``)."""

    piece: str
    units: list[str]
    bpe: list[Merge]
    bpe_tokens: list[str]
    bpe_ids: list[int]
    lbpe: list[Placement]
    lbpe_tokens: list[str]
    lbpe_ids: list[int]
    whole: bool = False  # BPE took the whole piece as one token without merging
    scaffold: list[tuple[str, list[str]]] = field(default_factory=list)  # BPE tokens split back
    special: bool = False  # a special or added token matched whole
    why: list[str] = field(default_factory=list)
    # a part of a longer pre-token (explain_span): a few of its units before and after the part
    before: str = ""
    after: str = ""

    @property
    def differs(self) -> bool:
        return self.bpe_ids != self.lbpe_ids

    def to_json(self) -> dict:
        return {
            "piece": self.piece,
            "before": self.before,
            "after": self.after,
            "units": self.units,
            "special": self.special,
            "differs": self.differs,
            "bpe": {
                "whole_piece": self.whole,
                "steps": [
                    {
                        "step": s.step,
                        "start": s.start,
                        "left": s.left,
                        "right": s.right,
                        "token": s.token,
                        "priority": s.priority,
                        "parts": list(s.parts),
                    }
                    for s in self.bpe
                ],
                "scaffold_split": [{"token": t, "parts": p} for t, p in self.scaffold],
                "tokens": self.bpe_tokens,
                "ids": self.bpe_ids,
            },
            "lbpe": {
                "steps": [
                    {
                        "step": s.step,
                        "window": s.length,
                        "start": s.start,
                        "token": s.token,
                        "placed": s.placed,
                        "taken_by": s.taken_by,
                    }
                    for s in self.lbpe
                ],
                "tokens": self.lbpe_tokens,
                "ids": self.lbpe_ids,
            },
            "why": self.why,
        }


@dataclass
class Explanation:
    """:func:`explain`'s result: one :class:`PieceTrace` per pre-token of ``text``."""

    text: str
    vocabulary: str
    unit: str  # "byte" or "char"
    priority: str  # "rank" (rank files) or "merge" (merge lists)
    max_len: int  # the paper's m: the longest token LBPE may place, in units
    pieces: list[PieceTrace]
    # explain_span: where ``text`` stands in the text it was taken from (else both None)
    start: int | None = None
    end: int | None = None

    @property
    def frames(self) -> int:
        """Number of frames of :func:`lbpe.playground.display.explain_html`: the start plus the longest run
        of steps."""
        return 1 + max((max(len(p.bpe), len(p.lbpe)) for p in self.pieces), default=0)

    @property
    def bpe_ids(self) -> list[int]:
        return [i for p in self.pieces for i in p.bpe_ids]

    @property
    def lbpe_ids(self) -> list[int]:
        return [i for p in self.pieces for i in p.lbpe_ids]

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "vocabulary": self.vocabulary,
            "unit": self.unit,
            "priority": self.priority,
            "max_len": self.max_len,
            "in_text": None if self.start is None else {"start": self.start, "end": self.end},
            "frames": self.frames,
            "bpe_tokens": len(self.bpe_ids),
            "lbpe_tokens": len(self.lbpe_ids),
            "pieces": [p.to_json() for p in self.pieces],
        }


# ---------------------------------------------------------------------------------------------
# the two algorithms, one step at a time
# ---------------------------------------------------------------------------------------------


#: A piece or a part of one: bytes or str (one kind in a call), concatenated with ``+``.
Key = Any


def bpe_trace(
    units: Sequence, priority: Callable[[Key, Key], int | None]
) -> list[tuple[int, Key, Key, int, list[Key]]]:
    """Classic BPE of ``units`` (a bytes or str piece) one merge at a time.

    ``priority(left, right)`` is the pair's priority (lower merges first) or ``None``. Returns
    ``(start unit, left, right, priority, parts after)`` per merge.

    >>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"aa": 3}
    >>> [(s, l, r, p) for s, l, r, p, _ in bpe_trace(b"aab", lambda l, r: ranks.get(l + r))]
    [(1, b'a', b'b', 2)]
    """
    parts: list[Key] = [units[i : i + 1] for i in range(len(units))]
    starts = list(range(len(units)))
    steps = []
    while len(parts) > 1:
        best = None
        for k in range(len(parts) - 1):
            p = priority(parts[k], parts[k + 1])
            if p is not None and (best is None or p < best[0]):
                best = (p, k)
        if best is None:
            break
        p, k = best
        left, right = parts[k], parts[k + 1]
        parts[k : k + 2] = [left + right]
        del starts[k + 1]
        steps.append((starts[k], left, right, p, list(parts)))
    return steps


def lbpe_trace(units: Sequence, is_token: Callable[[object], bool], longest: int) -> tuple[list, list]:
    """The paper's LBPE over ``units`` with every check recorded.

    Returns ``(checks, keys)``: ``(window, start, placed, blocking token's start and length)``
    for every span that is a token (blocked one-unit spans left out; a placed span has
    ``(-1, 0)``), and the keys in text order (a unit no token covers stays one key).

    >>> toks = {"a", "b", "c", "ab", "bc", "abc"}
    >>> lbpe_trace("abcbc", toks.__contains__, 3)
    ([(3, 0, True, -1, 0), (2, 0, False, 0, 3), (2, 1, False, 0, 3), (2, 3, True, -1, 0)], ['abc', 'bc'])
    """
    n = len(units)
    owner = [-1] * n  # start of the placed token holding each unit
    length_at = [0] * n
    checks = []
    for length in range(min(longest, n), 0, -1):
        for i in range(n - length + 1):
            if not is_token(units[i : i + length]):
                continue
            held = [owner[j] for j in range(i, i + length) if owner[j] >= 0]
            if held:
                if length > 1:
                    checks.append((length, i, False, held[0], length_at[held[0]]))
                continue
            owner[i : i + length] = [i] * length
            length_at[i] = length
            checks.append((length, i, True, -1, 0))
    keys = []
    i = 0
    while i < n:
        step = length_at[i] or 1
        keys.append(units[i : i + step])
        i += step
    return checks, keys


# ---------------------------------------------------------------------------------------------
# showing token text
# ---------------------------------------------------------------------------------------------


def show_key(key: bytes | str) -> str:
    """A token key as text: bytes decoded as UTF-8, runs that are not whole characters as
    ``<E6><97>``.

    >>> show_key(b"caf\\xc3\\xa9"), show_key(b"\\xe6\\x97"), show_key(b"a\\xe6")
    ('café', '<E6><97>', 'a<E6>')
    """
    if isinstance(key, str):
        return key
    try:
        return key.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = "".join(f"<{b:02X}>" for b in key[exc.start : exc.end])
        return show_key(key[: exc.start]) + bad + show_key(key[exc.end :])


#: Characters that show nothing or change how the text around them is laid out: the soft
#: hyphen, the combining grapheme joiner, the Arabic letter mark, the Hangul fillers, the Khmer
#: inherent vowels, the Mongolian variation selectors and vowel separator, the zero-width space,
#: non-joiner and joiner, the direction marks, embeddings, overrides and isolates, the line and
#: paragraph separators, the word joiner and invisible operators, the variation selectors, the
#: byte order mark, the interlinear annotation marks, the shorthand format controls, the
#: musical format characters, the tag characters and the code points of Unicode's
#: default-ignorable blocks that are not assigned yet (drawn as nothing too). A terminal or a
#: page would hide them, reorder the tokens after them, or break the line; tag characters and
#: runs of variation selectors can spell a whole sentence in what reads as plain text. An
#: emoji's variation selector or joiner is shown too: a token holds it as it holds any other
#: character.
FORMATTING = (
    0x00AD,
    0x034F,
    0x061C,
    0x115F,
    0x1160,
    0x17B4,
    0x17B5,
    *range(0x180B, 0x1810),
    *range(0x200B, 0x2010),
    *range(0x2028, 0x202F),
    *range(0x2060, 0x2070),
    0x3164,
    *range(0xFE00, 0xFE10),
    0xFEFF,
    0xFFA0,
    *range(0xFFF0, 0xFFFC),
    *range(0x1BCA0, 0x1BCA4),
    *range(0x1D173, 0x1D17B),
    *range(0xE0000, 0xE1000),
)


def _shown_table() -> dict[int, str]:
    table = {code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F)}
    table.update({code: f"\\u{code:04x}" for code in (*range(0x80, 0xA0), *FORMATTING) if code <= 0xFFFF})
    table.update({code: f"\\U{code:08x}" for code in FORMATTING if code > 0xFFFF})
    table.update({ord("\\"): "\\\\", ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
    return table


#: How text is written where a person reads it as characters (``str.translate``): a backslash as
#: ``\\\\``, line ends and tab as ``\\n`` ``\\r`` ``\\t``, every other control character as
#: ``\\xNN`` (C0, DEL) or ``\\uNNNN`` (C1), and the :data:`FORMATTING` characters as ``\\uNNNN``
#: (``\\UNNNNNNNN`` beyond U+FFFF, as Python writes them): a terminal acts on them
#: or shows nothing.
SHOWN = _shown_table()


#: :data:`SHOWN`, and a space as ``·`` and a bar as ``\\|``: for parts joined by bars.
_BARRED = {**SHOWN, ord(" "): "·", ord("|"): "\\|"}


def barred(parts: Sequence[str]) -> str:
    """Parts (units, tokens) joined by ``|``, each written with :data:`SHOWN`, a space as ``·``
    (leading spaces matter in tokens) and a bar in a part as ``\\|``.

    >>> print(barred([" a", "|", "\\n"]))
    ·a|\\||\\n
    """
    return "|".join(part.translate(_BARRED) for part in parts)


#: :data:`SHOWN`, and a double quote as ``\\"``: for text in double quotes.
_QUOTED = {**SHOWN, ord('"'): '\\"'}


def quoted(text: str) -> str:
    """``text`` in double quotes, written with :data:`SHOWN` and a double quote as ``\\"`` (the
    "why" lines, the renderers and the panes' tooltips).

    >>> print(quoted('a\\tb\\r\\x1b[0m\\\\n say "hi"'))
    "a\\tb\\r\\x1b[0m\\\\n say \\"hi\\""
    """
    return '"' + text.translate(_QUOTED) + '"'
