"""The fast rewrite of the preset patterns for the standard library ``re`` module.

This module owns the step from a preset's template (:mod:`lbpe.pretokenize.presets`) to the
``re`` source that is compiled: :func:`plain_pattern` fills the template in (the readable
reference), :func:`preset_source` rewrites it into an equivalent pattern that CPython's ``re``
runs 5-15 times faster (and, with ``astral=False``, the variant for text without code points
beyond U+FFFF). :mod:`lbpe.pretokenize.compiled` compiles the sources.

>>> import re
>>> re.findall(preset_source("paper", True), "abc 12") == re.findall(plain_pattern("paper"), "abc 12")
True

Speed
-----
CPython's ``re`` compiles a character class that has members beyond U+FFFF into a bitmap of
its BMP part followed by a *list* of ranges for the astral part, and scans that list linearly
for every character the bitmap does not contain. A letter class has hundreds of astral ranges,
so every space, digit and punctuation mark tested against ``\\p{L}`` (and every character
tested against a negated class) paid for hundreds of comparisons.

So every class ``C`` of a preset that has both astral members and astral non-members is split
into two disjoint halves:

* ``b`` -- the BMP members of ``C``: a bitmap only (astral characters miss it at once);
* ``a`` -- the astral members of ``C``, spelled ``[^\\x00-\\uffff X]`` where ``X`` lists the
  astral non-members. Its first test rejects any BMP character with one comparison; ``X``
  starts with the engine's O(1) ``\\w``/``\\W``/``\\d`` tests where one lies wholly among the
  non-members (measured on the running interpreter when the pattern is built, so this holds for
  its Unicode version), then lists the other non-member ranges, emoji first.

Quantified classes are unrolled over the halves. ``b`` and ``a`` are disjoint, so a run of
``C`` matches in exactly one way. With ``M = (?:b|a)*``, each construct becomes these forms,
tried in this order:

* ``C``: ``b``, ``a`` (a character is in one half or the other);
* ``C?``: ``b``, ``a``, empty (greedy: one character, then none);
* ``C+``: ``bb*(?:aM|)``, ``aM`` (every run, longest first);
* ``C*``: the forms of ``C+``, then empty;
* ``C{m,n}``: ``m`` copies of ``(?:b|a)``, then ``n - m`` nested optional ones (most first).

A backtracking engine tries ``(?:f|g)R`` exactly like ``fR|gR``. So when an alternative of a
preset begins with such a construct, its forms are distributed over the top-level alternation
(``' ?C+R'`` becomes ``' bb*(?:aM|)R| aMR|bb*(?:aM|)R|aMR'``): every top-level alternative then
starts with one character or class, which the engine checks before it enters the alternative.
Every form explores the same candidate matches in the same order as the plain pattern, so the
first match accepted -- the piece -- is the same on every input.

Text without astral characters is split with a second compiled source that simply leaves the
astral halves out: on such text they can never match, so there it is the same pattern, and
5-15% faster. :class:`lbpe.pretokenize.PresetPattern` checks each string (``str.isascii``, else, above 256
characters, one UTF-16 encode) and uses it when it can. The tests compare both sources with
the plain pattern and with tiktoken's own patterns (run by the ``regex`` module) on real and
generated text.
"""

from __future__ import annotations

import array
import bisect
import functools
import re
import sys

from lbpe.pretokenize.classes import (
    ASTRAL,
    MAX,
    Ranges,
    clip,
    compact_body,
    complement,
    field_bodies,
    field_ranges,
    is_subset,
    merge,
)
from lbpe.pretokenize.presets import pretokenizer_preset

__all__ = ["plain_pattern", "preset_source", "preset_pattern"]

_HOT = (0x1F000, 0x1FAFF)  # emoji and pictographs: most astral characters of real text


@functools.cache
def plain_pattern(name: str) -> str:
    """The plain translation of a preset: its template with the fields filled in.

    The same pieces as :func:`preset_pattern` on every input, only slower; the readable
    reference for the tests and the benchmark.
    """
    return pretokenizer_preset(name).template.format(**field_bodies())


@functools.cache
def _engine_astral_sets() -> dict[str, Ranges]:
    """The astral code points that the running ``re`` engine puts in ``\\w``, ``\\W``, ``\\d``.

    Measured on the engine itself (one scan over a string of all astral code points), so the
    classes that use these tests are exact whatever Unicode version the interpreter has.
    """
    typecode = next(t for t in "IL" if array.array(t).itemsize == 4)  # "I" on every usual platform
    codes = array.array(typecode, range(ASTRAL, MAX + 1))
    if sys.byteorder == "big":  # pragma: no cover
        codes.byteswap()
    everything = codes.tobytes().decode("utf-32-le")

    def runs(pattern: str) -> Ranges:
        return tuple((m.start() + ASTRAL, m.end() - 1 + ASTRAL) for m in re.finditer(pattern, everything))

    word = runs(r"\w+")
    return {"\\w": word, "\\W": complement(word, ASTRAL, MAX), "\\d": runs(r"\d+")}


# ---- the rewrite ---------------------------------------------------------------------------

# One atom of a template alternative -- a class, a group (no nested groups), an escape or a
# literal character -- or the top-level "|". A quantifier may follow an atom.
_TEMPLATE_ATOM = re.compile(
    r"""
    (?P<cls>\[(?P<neg>\^?)(?P<body>(?:\{\w+\}|\\.|[^\]\\{])+)\])
  | (?P<group>\((?:\{\w+\}|\\.|\[(?:\\.|[^\]\\])*\]|[^()\\\[])*\))
  | (?P<esc>\\[A-Za-z])
  | (?P<lit>[^|()\[\]\\{}*+?])
  | (?P<bar>\|)
    """,
    re.VERBOSE,
)
_TEMPLATE_QUANT = re.compile(r"\{\{(\d+),(\d+)\}\}|[?*+]")
_CLASS_ITEM = re.compile(r"\{(\w+)\}|\\([rnt/\\'\-\]\[^])|([^\\{}])")
_ESCAPED_CHARS = {"r": "\r", "n": "\n", "t": "\t"}


def _class_ranges(negated: bool, body: str) -> Ranges:
    """The code points of a template class ``[body]`` or ``[^body]``."""
    items: list[tuple[int, int]] = []
    pos = 0
    while pos < len(body):
        m = _CLASS_ITEM.match(body, pos)
        if m is None:
            raise ValueError(f"unsupported class text {body[pos:]!r} in a pre-tokenizer template")
        if m.group(1) is not None:
            items.extend(field_ranges(m.group(1)))
        else:
            ch = m.group(3) if m.group(3) is not None else _ESCAPED_CHARS.get(m.group(2), m.group(2))
            items.append((ord(ch), ord(ch)))
        pos = m.end()
    members = merge(items)
    return complement(members) if negated else members


def _hot_first(ranges: Ranges) -> list[tuple[int, int]]:
    """Ranges in the order to scan them: those touching the emoji area, then the widest."""
    hot_lo, hot_hi = _HOT
    return sorted(ranges, key=lambda r: (not (r[0] <= hot_hi and r[1] >= hot_lo), r[0] - r[1], r[0]))


def _astral_exclusions(members: Ranges) -> str:
    """Class items that, negated, match exactly the astral ``members`` among astral characters
    (``members``: nonempty and not all of them).

    First the engine's O(1) category tests that lie wholly among the astral non-members, then
    the other non-member ranges, emoji first.
    """
    outside = complement(members, ASTRAL, MAX)  # the astral non-members
    items = []
    covered: Ranges = ()
    for name, category in _engine_astral_sets().items():
        if category and is_subset(category, outside) and not is_subset(category, covered):
            items.append(name)
            covered = merge(covered + category)
    # A maximal non-member range wholly inside the category tests needs no item of its own;
    # one that is not is listed whole (the parts the tests cover are non-members too).
    starts = [lo for lo, _ in covered]

    def is_covered(lo: int, hi: int) -> bool:
        i = bisect.bisect_right(starts, lo) - 1
        return i >= 0 and covered[i][1] >= hi

    rest = tuple(r for r in outside if not is_covered(*r))
    return "".join(items) + compact_body(_hot_first(rest))


class _Halves:
    """A template class split into its BMP half and its astral half.

    Each half has two spellings: one fast to match, for the paths text takes all the time, and
    one cheap to compile (the compiler's time grows with the code points it puts in a bitmap),
    for the paths taken only after an astral character.
    """

    def __init__(self, ranges: Ranges) -> None:
        bmp = clip(ranges, 0, ASTRAL - 1)
        astral = clip(ranges, ASTRAL, MAX)
        if not bmp:
            raise ValueError("a pre-tokenizer class without BMP members is not supported")
        self.a = self.a_rare = None
        if astral == ((ASTRAL, MAX),):
            # Every astral code point is a member: one range after the bitmap costs little.
            self.b = self.b_rare = "[" + compact_body(bmp + astral) + "]"
            return
        self.b = "[" + compact_body(bmp) + "]"
        if 2 * sum(hi - lo + 1 for lo, hi in bmp) <= ASTRAL:
            self.b_rare = self.b
        else:  # the complement lists fewer code points; a negated class costs one more test
            self.b_rare = "[^" + compact_body(complement(bmp, 0, ASTRAL - 1) + ((ASTRAL, MAX),)) + "]"
        if astral:
            items = _astral_exclusions(astral)
            # The leading BMP range rejects any BMP character with one comparison but costs the
            # compiler a 64K-entry fill; the rare spelling leaves that to a lookahead.
            self.a = "[^\\x00-\\uffff" + items + "]"
            self.a_rare = "(?=[\\U00010000-\\U0010ffff])[^" + items + "]"

    def forms(self, quant: str, lo: int, hi: int, top: bool, rare: bool) -> list[str]:
        """Alternatives, in the engine's order, whose alternation is the quantified class.

        ``top``: the forms head top-level alternatives, so each should start with one class
        (which the engine checks before entering the alternative); otherwise they are joined
        into one compact expression. ``rare``: reached only after an astral character.
        """
        b, a = (self.b_rare, self.a_rare) if rare else (self.b, self.a)
        if quant == "{":
            if a is None:
                return [b + ("{%d}" % lo if lo == hi else "{%d,%d}" % (lo, hi))]
            # lo copies, then hi - lo nested optional copies: most copies first.
            one = "(?:%s|%s)" % (b, a)
            optional = ""
            for _ in range(hi - lo):
                optional = "(?:%s%s|)" % (one, optional)
            if lo == 0:
                return [b + optional, a + optional, ""]
            rest = one * (lo - 1) + optional
            return [b + rest, a + rest]
        if a is None:
            return {
                "": [b],
                "?": [b, ""],
                "+": [b + b + "*"] if top else [b + "+"],
                "*": [b + b + "*", ""] if top else [b + "*"],
            }[quant]
        # After a run of BMP members either the run ends or an astral member and then any mix
        # of both halves follow.
        mixed = "(?:%s|%s)*" % (self.b_rare, self.a_rare)
        tail = "(?:%s%s|)" % (a, mixed)
        if quant == "":
            return [b, a]
        if quant == "?":
            return [b, a, ""]
        if quant == "+":
            return [b + b + "*" + tail, a + mixed] if top else ["(?:%s|%s)%s*%s" % (b, a, b, tail)]
        if quant == "*":
            return [b + b + "*" + tail, a + mixed, ""] if top else [b + "*" + tail]
        raise ValueError(f"unsupported quantifier {quant!r} in a pre-tokenizer template")

    def starts_astral(self, form: str) -> bool:
        return self.a is not None and form.startswith(self.a)


@functools.cache
def _halves(ranges: Ranges) -> _Halves:
    return _Halves(ranges)


class _Text:
    """Any other atom: a group, an escape or a literal character, with its quantifier."""

    def __init__(self, text: str, quant: str) -> None:
        self.text, self.quant = text, quant

    def forms(self, top: bool, rare: bool) -> list[str]:
        if self.quant == "?" and len(self.text) == 1:
            return [self.text, ""]  # a greedy optional character: with it, then without
        return [self.text + self.quant]

    def starts_astral(self, form: str) -> bool:
        return False


def _one(forms: list[str]) -> str:
    """Forms joined into one expression."""
    if len(forms) == 1:
        return forms[0]
    if len(forms) == 2 and forms[1] == "" and len(forms[0]) == 1:
        return forms[0] + "?"
    return "(?:" + "|".join(forms) + ")"


def _parse_template(template: str, astral: bool) -> list[list[tuple]]:
    """Split a template into alternatives, each a list of atoms ``(atom, *forms arguments)``.

    With ``astral`` false the classes lose their astral members (for astral-free text).
    """
    fields = field_bodies()
    alternatives: list[list[tuple]] = [[]]
    pos = 0
    while pos < len(template):
        m = _TEMPLATE_ATOM.match(template, pos)
        if m is None:
            raise ValueError(f"unsupported pre-tokenizer template text at {template[pos:]!r}")
        pos = m.end()
        if m.group("bar"):
            alternatives.append([])
            continue
        quant, lo, hi = "", 1, 1
        q = _TEMPLATE_QUANT.match(template, pos)
        if q is not None:
            pos = q.end()
            if q.group(1) is not None:
                quant, lo, hi = "{", int(q.group(1)), int(q.group(2))
            else:
                quant = q.group(0)
        if m.group("cls"):
            ranges = _class_ranges(bool(m.group("neg")), m.group("body"))
            if not astral:
                ranges = clip(ranges, 0, ASTRAL - 1)
            alternatives[-1].append((_halves(ranges), quant, lo, hi))
        else:
            text = m.group(0).format(**fields)
            if "\\U" in text:
                raise ValueError("classes with astral members inside template groups are not supported")
            if quant == "{":
                quant = "{%d,%d}" % (lo, hi)
            alternatives[-1].append((_Text(text, quant),))
    return alternatives


def _expand(atoms: list[tuple]) -> list[str]:
    """Top-level alternatives that, in order, match like the sequence ``atoms``.

    ``(?:f|g)R`` is tried exactly like ``fR|gR``: the forms of the first atom are distributed
    over the alternation, and an empty form goes on to distribute the next atom.
    """
    if not atoms:
        return [""]
    (first, *args), rest = atoms[0], atoms[1:]
    out = []
    for form in first.forms(*args, True, False):
        if form == "":
            out.extend(_expand(rest))
        else:
            out.append(form + _render(rest, first.starts_astral(form)))
    return out


def _render(atoms: list[tuple], rare: bool) -> str:
    """The sequence ``atoms`` as one compact expression."""
    return "".join(_one(atom.forms(*args, False, rare)) for atom, *args in atoms)


def preset_source(name: str, astral: bool) -> str:
    """The rewritten ``re`` source of a preset; with ``astral`` false, the variant whose classes
    leave out their astral members (exact on text without code points beyond U+FFFF)."""
    return _source(pretokenizer_preset(name).name, astral)


@functools.cache
def _source(name: str, astral: bool) -> str:
    alternatives = []
    for atoms in _parse_template(pretokenizer_preset(name).template, astral):
        alternatives.extend(_expand(atoms))
    return "|".join(alternatives)


def preset_pattern(name: str) -> str:
    """The stdlib ``re`` source of a preset pattern (``ValueError`` for an unknown name).

    It gives the same pieces as :func:`plain_pattern` on every input, and runs much faster;
    see the module documentation.
    """
    return preset_source(name, True)
