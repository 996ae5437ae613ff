"""Pre-tokenisation: split text into the pieces that BPE and LBPE encode one at a time.

The OpenAI patterns are written for engines with ``\\p{..}`` Unicode classes and possessive
quantifiers. This module rewrites them for the standard library ``re`` module so that the same
code runs in CPython and in Pyodide:

* ``\\p{L}``, ``\\p{N}``, ``\\p{M}`` and the letter sub-categories become explicit character
  ranges from :mod:`lbpe.unicode` (Unicode 16.0, as in tiktoken and HF tokenizers, whatever
  the interpreter's own :mod:`unicodedata` has);
* ``\\s`` becomes the Unicode ``White_Space`` set (Python's own ``\\s`` also matches the
  separators U+001C..U+001F, which are not white space in Unicode or in tiktoken);
* ``$`` (end of text in tiktoken's engine) becomes ``\\Z``;
* ``(?i:...)`` is spelled out with explicit case classes (``s`` also matches U+017F LONG S);
* possessive quantifiers are dropped: in every preset nothing after them can make the engine
  backtrack into them, so the greedy form finds the same matches (tested against tiktoken).

:data:`PRESETS` holds each pattern in that plain form (a small template language, see below).
What is compiled is an equivalent rewrite of it that CPython's ``re`` runs 5-15 times faster;
see "Speed" below. :func:`compile_pattern` returns a :class:`PresetPattern`, which has the
``findall``/``finditer`` of a ``re.Pattern`` and carries the full pattern as ``.regex``.

>>> split_text("Hello world's 2024!", "cl100k_base")
['Hello', ' world', "'s", ' ', '202', '4', '!']
>>> split_text("abc 12345", "paper")
['abc', ' ', '1', '2', '3', '4', '5']
>>> [m.span() for m in compile_pattern("gpt2").finditer("a \\U0001d400b")]
[(0, 1), (1, 4)]

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
5-15% faster. :class:`PresetPattern` checks each string (``str.isascii``, else, above 256
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
from typing import Iterator

from lbpe.unicode import category_ranges

__all__ = [
    "PRESETS",
    "PATTERN_ALIASES",
    "PresetPattern",
    "preset_pattern",
    "compile_pattern",
    "resolve_pattern",
    "split_text",
]

# Unicode White_Space (stable since Unicode 6.3).
_WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_WHITE_SPACE_RANGES = (
    (0x09, 0x0D), (0x20, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680),
    (0x2000, 0x200A), (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000),
)

_MAX = sys.maxunicode
_ASTRAL = 0x10000  # the first code point beyond the Basic Multilingual Plane (BMP)
_HOT = (0x1F000, 0x1FAFF)  # emoji and pictographs: most astral characters of real text

# Sorted, disjoint, non-adjacent inclusive ranges of code points.
Ranges = tuple  # tuple[tuple[int, int], ...]


# ---- code point ranges ---------------------------------------------------------------------


def _merge(ranges) -> Ranges:
    """Sorted, merged form of any iterable of inclusive ``(lo, hi)`` ranges."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            if hi > merged[-1][1]:
                merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return tuple(merged)


def _complement(ranges: Ranges, lo: int = 0, hi: int = _MAX) -> Ranges:
    """The code points of ``lo..hi`` not in ``ranges``."""
    out = []
    nxt = lo
    for a, b in ranges:
        if b < lo or a > hi:
            continue
        if a > nxt:
            out.append((nxt, a - 1))
        nxt = max(nxt, b + 1)
    if nxt <= hi:
        out.append((nxt, hi))
    return tuple(out)


def _clip(ranges: Ranges, lo: int, hi: int) -> Ranges:
    """The part of ``ranges`` inside ``lo..hi``."""
    return tuple((max(a, lo), min(b, hi)) for a, b in ranges if b >= lo and a <= hi)


def _intersect(x: Ranges, y: Ranges) -> Ranges:
    out = []
    i = j = 0
    while i < len(x) and j < len(y):
        lo = max(x[i][0], y[j][0])
        hi = min(x[i][1], y[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if x[i][1] < y[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def _is_subset(inner: Ranges, outer: Ranges) -> bool:
    return not _intersect(inner, _complement(outer))


# ---- class text ----------------------------------------------------------------------------


def _escape(cp: int) -> str:
    if cp < 0x10000:
        return "\\u%04x" % cp
    return "\\U%08x" % cp


def _ranges_to_class(ranges) -> str:
    """A class body with every code point escaped (the plain patterns)."""
    return "".join(_escape(lo) if lo == hi else _escape(lo) + "-" + _escape(hi) for lo, hi in ranges)


def _char(cp: int) -> str:
    # The engine parses a literal character several times faster than an escape; ASCII (where
    # the class metacharacters are) and lone surrogates stay escaped.
    if cp > 0x7F and not 0xD800 <= cp <= 0xDFFF:
        return chr(cp)
    return _escape(cp)


def _body(ranges) -> str:
    """A class body for the rewritten patterns."""
    return "".join(_char(lo) if lo == hi else _char(lo) + "-" + _char(hi) for lo, hi in ranges)


# ---- Unicode data ----------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _class_body(categories: str) -> str:
    """Character-class body (no brackets) for space-separated categories such as ``"Lu Ll"``
    (at the pinned Unicode version of :mod:`lbpe.unicode`)."""
    return _ranges_to_class(category_ranges(categories))


@functools.lru_cache(maxsize=None)
def _engine_astral_sets() -> dict[str, Ranges]:
    """The astral code points that the running ``re`` engine puts in ``\\w``, ``\\W``, ``\\d``.

    Measured on the engine itself (one scan over a string of all astral code points), so the
    classes that use these tests are exact whatever Unicode version the interpreter has.
    """
    typecode = next(t for t in "IL" if array.array(t).itemsize == 4)  # "I" on every usual platform
    codes = array.array(typecode, range(_ASTRAL, _MAX + 1))
    if sys.byteorder == "big":  # pragma: no cover
        codes.byteswap()
    everything = codes.tobytes().decode("utf-32-le")

    def runs(pattern: str) -> Ranges:
        return tuple((m.start() + _ASTRAL, m.end() - 1 + _ASTRAL) for m in re.finditer(pattern, everything))

    word = runs(r"\w+")
    return {"\\w": word, "\\W": _complement(word, _ASTRAL, _MAX), "\\d": runs(r"\d+")}


# ---- the presets ---------------------------------------------------------------------------


def _ci(word: str) -> str:
    """Spell out a case-insensitive literal with explicit classes (simple case folding)."""
    out = []
    for ch in word:
        if ch.isalpha():
            variants = {ch.lower(), ch.upper()}
            if ch.lower() == "s":
                variants.add("\u017f")  # LATIN SMALL LETTER LONG S folds to s
            if ch.lower() == "k":
                variants.add("\u212a")  # KELVIN SIGN folds to k
            out.append("[" + "".join(sorted(variants)) + "]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


# Patterns in a small template language: {L}, {N}, {M}, {Lu} ... are category class bodies,
# {WS} is the White_Space class body. Each is pasted inside [...] by the pattern text itself.
_CONTRACTIONS = "'(?:[sdmt]|ll|ve|re)"
_CONTRACTIONS_CI = "'(?:" + "|".join(_ci(w) for w in ("s", "d", "m", "t", "ll", "ve", "re")) + ")"
_O200K_SUFFIX = "(?:" + "|".join("'" + _ci(w) for w in ("s", "t", "re", "ve", "m", "ll", "d")) + ")?"

PRESETS: dict[str, str] = {
    # GPT-2 / r50k_base / p50k_base (tiktoken's r50k_pat_str).
    "r50k_base": (
        _CONTRACTIONS
        + r"| ?[{L}]+| ?[{N}]+| ?[^{WS}{L}{N}]+|[{WS}]+\Z|[{WS}]+(?![^{WS}])|[{WS}]"
    ),
    "cl100k_base": (
        _CONTRACTIONS_CI
        + r"|[^\r\n{L}{N}]?[{L}]+|[{N}]{{1,3}}| ?[^{WS}{L}{N}]+[\r\n]*|[{WS}]+\Z"
        + r"|[{WS}]*[\r\n]|[{WS}]+(?![^{WS}])|[{WS}]"
    ),
    "o200k_base": (
        r"[^\r\n{L}{N}]?[{Lu_Lt_Lm_Lo_M}]*[{Ll_Lm_Lo_M}]+" + _O200K_SUFFIX
        + r"|[^\r\n{L}{N}]?[{Lu_Lt_Lm_Lo_M}]+[{Ll_Lm_Lo_M}]*" + _O200K_SUFFIX
        + r"|[{N}]{{1,3}}| ?[^{WS}{L}{N}]+[\r\n/]*|[{WS}]*[\r\n]+|[{WS}]+(?![^{WS}])|[{WS}]+"
    ),
    # Llama 3's tokenizer.json Split pattern (cl100k-like, newline runs kept together).
    "llama3": (
        _CONTRACTIONS_CI
        + r"|[^\r\n{L}{N}]?[{L}]+|[{N}]{{1,3}}| ?[^{WS}{L}{N}]+[\r\n]*|[{WS}]*[\r\n]+|[{WS}]+(?![^{WS}])|[{WS}]+"
    ),
    # Qwen 2/2.5/3's: Llama 3's with every digit on its own.
    "qwen2": (
        _CONTRACTIONS_CI
        + r"|[^\r\n{L}{N}]?[{L}]+|[{N}]| ?[^{WS}{L}{N}]+[\r\n]*|[{WS}]*[\r\n]+|[{WS}]+(?![^{WS}])|[{WS}]+"
    ),
    # The LBPE paper's setup: GPT-2 style categories kept apart, every digit on its own.
    "paper": (
        _CONTRACTIONS
        + r"| ?[{L}]+|[{N}]| ?[^{WS}{L}{N}]+|[{WS}]+\Z|[{WS}]+(?![^{WS}])|[{WS}]"
    ),
}

#: Other names accepted for the presets above.
PATTERN_ALIASES: dict[str, str] = {"gpt2": "r50k_base", "p50k_base": "r50k_base"}

# Template fields and their categories ({WS} is White_Space).
_FIELDS = {"L": "L", "N": "N", "M": "M", "Lu_Lt_Lm_Lo_M": "Lu Lt Lm Lo M", "Ll_Lm_Lo_M": "Ll Lm Lo M"}


def _canonical(name: str) -> str:
    name = PATTERN_ALIASES.get(name, name)
    if name not in PRESETS:
        known = ", ".join(sorted(set(PRESETS) | set(PATTERN_ALIASES)))
        raise ValueError(f"unknown pre-tokenizer pattern {name!r}; choose one of: {known}")
    return name


def _field_ranges(field: str) -> Ranges:
    if field == "WS":
        return _WHITE_SPACE_RANGES
    return category_ranges(_FIELDS[field])


def _fields() -> dict[str, str]:
    fields = {key: _class_body(value) for key, value in _FIELDS.items()}
    fields["WS"] = _WHITE_SPACE
    return fields


@functools.lru_cache(maxsize=None)
def _plain_pattern(name: str) -> str:
    """The plain translation of a preset: its template with the fields filled in.

    The same pieces as :func:`preset_pattern` on every input, only slower; the readable
    reference for the tests and the benchmark.
    """
    return PRESETS[_canonical(name)].format(**_fields())


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
            items.extend(_field_ranges(m.group(1)))
        else:
            ch = m.group(3) if m.group(3) is not None else _ESCAPED_CHARS.get(m.group(2), m.group(2))
            items.append((ord(ch), ord(ch)))
        pos = m.end()
    members = _merge(items)
    return _complement(members) if negated else members


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
    outside = _complement(members, _ASTRAL, _MAX)  # the astral non-members
    items = []
    covered: Ranges = ()
    for name, category in _engine_astral_sets().items():
        if category and _is_subset(category, outside) and not _is_subset(category, covered):
            items.append(name)
            covered = _merge(covered + category)
    # A maximal non-member range wholly inside the category tests needs no item of its own;
    # one that is not is listed whole (the parts the tests cover are non-members too).
    starts = [lo for lo, _ in covered]

    def is_covered(lo: int, hi: int) -> bool:
        i = bisect.bisect_right(starts, lo) - 1
        return i >= 0 and covered[i][1] >= hi

    rest = tuple(r for r in outside if not is_covered(*r))
    return "".join(items) + _body(_hot_first(rest))


class _Halves:
    """A template class split into its BMP half and its astral half.

    Each half has two spellings: one fast to match, for the paths text takes all the time, and
    one cheap to compile (the compiler's time grows with the code points it puts in a bitmap),
    for the paths taken only after an astral character.
    """

    def __init__(self, ranges: Ranges) -> None:
        bmp = _clip(ranges, 0, _ASTRAL - 1)
        astral = _clip(ranges, _ASTRAL, _MAX)
        if not bmp:
            raise ValueError("a pre-tokenizer class without BMP members is not supported")
        self.a = self.a_rare = None
        if astral == ((_ASTRAL, _MAX),):
            # Every astral code point is a member: one range after the bitmap costs little.
            self.b = self.b_rare = "[" + _body(bmp + astral) + "]"
            return
        self.b = "[" + _body(bmp) + "]"
        if 2 * sum(hi - lo + 1 for lo, hi in bmp) <= _ASTRAL:
            self.b_rare = self.b
        else:  # the complement lists fewer code points; a negated class costs one more test
            self.b_rare = "[^" + _body(_complement(bmp, 0, _ASTRAL - 1) + ((_ASTRAL, _MAX),)) + "]"
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


@functools.lru_cache(maxsize=None)
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
    fields = _fields()
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
                ranges = _clip(ranges, 0, _ASTRAL - 1)
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


@functools.lru_cache(maxsize=None)
def _source(name: str, astral: bool) -> str:
    alternatives = []
    for atoms in _parse_template(PRESETS[_canonical(name)], astral):
        alternatives.extend(_expand(atoms))
    return "|".join(alternatives)


def preset_pattern(name: str) -> str:
    """The stdlib ``re`` source of a preset pattern (``ValueError`` for an unknown name).

    It gives the same pieces as the plain translation of :data:`PRESETS` on every input, and
    runs much faster; see the module documentation.
    """
    return _source(_canonical(name), True)


# ---- compiled presets ----------------------------------------------------------------------

_CHUNK = 1 << 20
_SHORT = 256  # below this many characters a non-ASCII check costs more than it saves


def _bmp_only(text: str) -> bool:
    """Whether ``text`` has no code point beyond U+FFFF (exactly: UTF-16 needs no pairs)."""
    if text.isascii():
        return True
    if len(text) <= _CHUNK:
        return len(text.encode("utf-16-le", "surrogatepass")) == 2 * len(text)
    for start in range(0, len(text), _CHUNK):  # bounded memory for huge texts
        chunk = text[start : start + _CHUNK]
        if len(chunk.encode("utf-16-le", "surrogatepass")) != 2 * len(chunk):
            return False
    return True


class PresetPattern:
    """A compiled preset, splitting text like the ``re.Pattern`` it carries as :attr:`regex`.

    :meth:`findall` and :meth:`finditer` take the same arguments and give the same results
    as ``regex.findall`` / ``regex.finditer``. For an ASCII string, or a longer one without
    code points beyond U+FFFF, they run a second compiled source: the same pattern without the
    classes' astral halves, which cannot match in such a string anyway. Other attributes
    (``pattern``, ``flags``, ``search``, ``sub``, ...) are those of :attr:`regex`.
    """

    __slots__ = ("name", "_full", "_bmp")

    def __init__(self, name: str) -> None:
        self.name = _canonical(name)
        self._full: re.Pattern[str] | None = None  # compiled on first use: ASCII text never needs it
        self._bmp = re.compile(_source(self.name, False))

    @property
    def regex(self) -> re.Pattern[str]:
        """The full pattern: a real ``re.Pattern``, exact on every input."""
        full = self._full
        if full is None:
            full = self._full = re.compile(_source(self.name, True))
        return full

    def _engine(self, string: str) -> re.Pattern[str]:
        # Either pattern gives the same results; this picks the faster one.
        if isinstance(string, str) and (string.isascii() or (len(string) > _SHORT and _bmp_only(string))):
            return self._bmp
        return self.regex

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[str]:
        return self._engine(string).findall(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self._engine(string).finditer(string, pos, endpos)

    def __getattr__(self, attr: str):
        if attr in PresetPattern.__slots__:  # not set yet: no recursion through self.regex
            raise AttributeError(attr)
        return getattr(self.regex, attr)

    def __reduce__(self):
        return (compile_pattern, (self.name,))

    def __repr__(self) -> str:
        return f"PresetPattern({self.name!r})"


def compile_pattern(name: str) -> PresetPattern:
    """The compiled preset pattern (cached per process); see :class:`PresetPattern`."""
    return _compiled(_canonical(name))


@functools.lru_cache(maxsize=None)
def _compiled(name: str) -> PresetPattern:
    return PresetPattern(name)


def resolve_pattern(pattern: str | re.Pattern[str] | PresetPattern) -> re.Pattern[str] | PresetPattern:
    """Accept a preset name, a compiled preset or an already compiled ``re`` pattern."""
    if isinstance(pattern, (re.Pattern, PresetPattern)):
        return pattern
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a preset name or a compiled re.Pattern, not {type(pattern).__name__}")
    return compile_pattern(pattern)


def split_text(text: str, pattern: str | re.Pattern[str] | PresetPattern) -> list[str]:
    """Split ``text`` into pre-tokens with a preset name or a compiled pattern."""
    return resolve_pattern(pattern).findall(text)
