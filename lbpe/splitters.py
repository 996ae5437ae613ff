"""Composable pre-tokenisers, as HF ``tokenizers`` files describe them.

Every splitter turns a text into pieces with offsets: :meth:`Splitter.split` returns
``(piece, start, end)`` triples, where ``start``/``end`` index the splitter's input and
``piece`` is usually ``text[start:end]`` (Metaspace and ByteLevel's prefix space change it).
``findall`` returns only the pieces, for the encoder's hot path.

Regular expressions in those files are written for Oniguruma; :func:`translate_regex` turns
them into the standard library ``re`` dialect with explicit Unicode classes and refuses what it
cannot translate exactly.

>>> Split(translate_regex(r"\\p{N}{1,3}"), "Isolated").findall("abc12345")
['abc', '123', '45']
>>> Sequence([Split(" ", "MergedWithPrevious")]).findall("a b  c")
['a ', 'b ', ' ', 'c']
"""

from __future__ import annotations

import re
from collections.abc import Sequence as Seq

from lbpe.errors import LbpeError
from lbpe.pretokenize import _class_body, compile_pattern, resolve_pattern
from lbpe.user_regex import UserRegex, deadline

__all__ = [
    "Splitter",
    "Regex",
    "Split",
    "ByteLevel",
    "Metaspace",
    "Digits",
    "Punctuation",
    "WhitespaceSplit",
    "Sequence",
    "translate_regex",
    "BEHAVIORS",
]

Piece = tuple[str, int, int]

_WS = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"

_CATEGORIES = {
    "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No",
    "P", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So",
    "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf", "Co",
}
_LONG_NAMES = {
    "Letter": "L", "Mark": "M", "Number": "N", "Punctuation": "P", "Symbol": "S", "Separator": "Z",
    "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll", "Decimal_Number": "Nd",
}


class UnsupportedRegex(LbpeError):
    """An Oniguruma construct with no exact stdlib ``re`` equivalent here."""


def translate_regex(pattern: str) -> str:
    """Translate an Oniguruma pattern (as found in tokenizer.json) into stdlib ``re`` syntax.

    ``\\p{..}``/``\\P{..}`` general categories, ``\\s``/``\\S`` (Unicode White_Space) and
    ``\\d`` (decimal numbers) become explicit classes; ``$``/``^`` keep Oniguruma's line
    meaning through ``re.MULTILINE`` (see :class:`Regex`). ``\\w``, ``\\b``, POSIX brackets
    and class operations raise :class:`UnsupportedRegex`.
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    class_start = 0
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                raise UnsupportedRegex(f"pattern ends with a lone backslash: {pattern!r}")
            e = pattern[i + 1]
            if e in "pP":
                name, i = _property_name(pattern, i + 2)
                negate = (e == "P") != name.startswith("^")
                body = _class_body(_category(name.lstrip("^")))
                if in_class:
                    if negate:
                        raise UnsupportedRegex(f"a negated property inside a class is not supported: {pattern!r}")
                    out.append(body)
                else:
                    out.append(("[^" if negate else "[") + body + "]")
                continue
            if e in "sS":
                if in_class:
                    if e == "S":
                        raise UnsupportedRegex(f"\\S inside a character class is not supported: {pattern!r}")
                    out.append(_WS)
                else:
                    out.append(("[" if e == "s" else "[^") + _WS + "]")
                i += 2
                continue
            if e == "d":
                body = _class_body("Nd")
                out.append(body if in_class else "[" + body + "]")
                i += 2
                continue
            if e in "wWbBhHRXKGyYk":
                raise UnsupportedRegex(f"the escape \\{e} has no exact translation here: {pattern!r}")
            if e == "z":
                out.append(r"\Z")
                i += 2
                continue
            if e == "Z":
                out.append(r"(?=\n?\Z)")
                i += 2
                continue
            if e == "x" and i + 2 < n and pattern[i + 2] == "{":
                close = pattern.find("}", i)
                digits = pattern[i + 3 : close]
                if close < 0 or not digits or len(digits) > 8 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                    raise UnsupportedRegex(f"\\x{{...}} needs 1 to 8 hex digits and a closing brace: {pattern!r}")
                out.append("\\U%08x" % int(digits, 16))
                i = close + 1
                continue
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            if c == "[" and i + 1 < n and pattern[i + 1] == ":":
                raise UnsupportedRegex(f"POSIX bracket classes are not supported: {pattern!r}")
            if c == "[":
                raise UnsupportedRegex(f"nested character classes are not supported: {pattern!r}")
            if c == "&" and pattern.startswith("&&", i):
                raise UnsupportedRegex(f"class intersection (&&) is not supported: {pattern!r}")
            if c == "]" and i > class_start:
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            class_start = i  # a "]" right here is a literal
            continue
        out.append(c)
        i += 1
    risky = _repeated_repetition(pattern)
    if risky is not None:
        raise UnsupportedRegex(
            f"the group {risky!r} repeats something that is itself repeated or has alternatives, "
            f"so matching can take exponential time on some texts (catastrophic backtracking): "
            f"{pattern!r}. Rewrite it so that a repeated group holds no quantifier and no '|' "
            f"(for example (?:ab)+ is fine, (a+)+ and (a|ab)* are not), or make the outer "
            f"quantifier possessive (*+, ++)."
        )
    return "".join(out)


_INTERVAL = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")


def _quantifier(pattern: str, i: int) -> tuple[int, int, bool, bool]:
    """The quantifier at ``pattern[i]``, if any: (its end, its largest count, possessive,
    doubled). The count is 0 when there is no quantifier and -1 when it is unbounded; doubled
    is an interval followed by ``+``, which Oniguruma reads as a repeated interval (Python as a
    possessive one)."""
    if i >= len(pattern):
        return i, 0, False, False
    c = pattern[i]
    if c in "*+?":
        end, most = i + 1, (1 if c == "?" else -1)
    else:
        m = _INTERVAL.match(pattern, i)
        if not m or not (m.group(1) or m.group(3)):
            return i, 0, False, False  # a "{" that is no interval is a literal
        end = m.end()
        if m.group(2) is None:
            most = int(m.group(1))
        else:
            most = int(m.group(3)) if m.group(3) else -1
        if end < len(pattern) and pattern[end] == "+":
            return end + 1, -1, False, True
    if end < len(pattern) and pattern[end] in "?+":
        return end + 1, most, pattern[end] == "+", False
    return end, most, False, False


def _repeated_repetition(pattern: str) -> str | None:
    """The first group that a quantifier repeats (more than once) and that holds a repeating
    quantifier or an alternation, as in ``(a+)+`` or ``(a|ab)*``; ``None`` if there is none.

    Such a group lets a backtracking engine (``re`` here, Oniguruma in ``tokenizers``) split a
    run of text in exponentially many ways before it gives up, which hangs the encoder. The
    pre-tokenisers of real tokenizers have none. Call this on a pattern that translated
    without error (no nested classes); a pattern it cannot read gives ``None`` and is left for
    ``re.compile`` to report.
    """
    open_groups: list[list] = [[0, False]]  # per open group: start, holds a repetition or "|"
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        closed = None
        atom = i
        if c == "\\":
            if pattern.startswith(("p{", "P{", "x{"), i + 1):
                i = pattern.find("}", i) + 1
                if i == 0:
                    return None
            else:
                i += 2
        elif c == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            j += 1  # a "]" right after the opening is a literal
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
        elif c == "(":
            j = i + 1
            if pattern.startswith("?", j):
                k = j + 1
                if pattern.startswith("#", k):  # a comment
                    i = pattern.find(")", k) + 1
                    if i == 0:
                        return None
                    continue
                if pattern.startswith(("<=", "<!"), k):
                    j = k + 2
                elif pattern.startswith(("<", "P<", "'"), k):
                    j = pattern.find(">" if pattern[k] != "'" else "'", k + 1) + 1
                    if j == 0:
                        return None
                else:
                    while k < n and pattern[k] not in ":=!>)":
                        k += 1
                    if k < n and pattern[k] == ")":  # inline flags, such as (?i)
                        i = k + 1
                        continue
                    j = k + 1
            open_groups.append([i, False])
            i = j
            continue
        elif c == ")":
            if len(open_groups) == 1:
                return None  # unbalanced: re.compile reports it
            closed = open_groups.pop()
            atom = closed[0]
            i += 1
        elif c == "|":
            open_groups[-1][1] = True
            i += 1
            continue
        else:
            i += 1
        end, most, possessive, doubled = _quantifier(pattern, i)
        repeats = most == -1 or most > 1
        if doubled or (closed is not None and closed[1] and repeats and not possessive):
            return pattern[atom:end]
        if repeats or (closed is not None and closed[1]):
            open_groups[-1][1] = True
        i = end
    return None


def _property_name(pattern: str, i: int) -> tuple[str, int]:
    if i < len(pattern) and pattern[i] == "{":
        close = pattern.find("}", i)
        if close < 0:
            raise UnsupportedRegex(f"unclosed \\p{{ in {pattern!r}")
        return pattern[i + 1 : close], close + 1
    if i < len(pattern):
        return pattern[i], i + 1  # one-letter form: \pL
    raise UnsupportedRegex(f"\\p without a property name in {pattern!r}")


def _category(name: str) -> str:
    name = _LONG_NAMES.get(name, name)
    if name not in _CATEGORIES:
        raise UnsupportedRegex(f"the Unicode property {name!r} is not supported (general categories only)")
    return name


class Splitter:
    """Base class: subclasses implement :meth:`split`."""

    def split(self, text: str) -> list[Piece]:
        raise NotImplementedError

    def findall(self, text: str) -> list[str]:
        return [p for p, _, _ in self.split(text)]


class Regex(Splitter):
    """Pieces are the matches of a stdlib pattern (tiktoken-style pre-tokenisation)."""

    def __init__(self, pattern: re.Pattern[str] | str) -> None:
        self.pattern = resolve_pattern(pattern)
        self.findall = self.pattern.findall  # type: ignore[method-assign]

    def split(self, text: str) -> list[Piece]:
        return [(m.group(), m.start(), m.end()) for m in self.pattern.finditer(text)]


#: HF ``SplitDelimiterBehavior`` names.
BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


class Split(Splitter):
    """HF ``Split``: cut at the matches of a pattern and treat them per ``behavior``.

    ``pattern`` is a translated regex source (see :func:`translate_regex`), which runs under the
    time limit of :mod:`lbpe.user_regex`, or, for HF's ``{"String": ...}`` form, pass
    ``literal=True``. ``trusted=True`` is for this package's own patterns (plain ``re``);
    ``shown`` is the pattern as its file spelled it, for error messages.
    """

    def __init__(
        self,
        pattern: str,
        behavior: str,
        *,
        invert: bool = False,
        literal: bool = False,
        trusted: bool = False,
        shown: str | None = None,
    ) -> None:
        if behavior not in BEHAVIORS:
            raise LbpeError(f"unknown Split behavior {behavior!r}; known: {', '.join(BEHAVIORS)}")
        self.regex: UserRegex | re.Pattern[str]
        if literal or trusted:
            self.regex = re.compile(re.escape(pattern) if literal else pattern, re.MULTILINE)
        else:
            self.regex = UserRegex(pattern, re.MULTILINE, what="the Split pre-tokenizer's pattern", shown=shown)
        self.behavior = behavior
        self.invert = invert

    def split(self, text: str) -> list[Piece]:
        spans: list[tuple[int, int, bool]] = []  # (start, end, is_delimiter)
        pos = 0
        for m in self.regex.finditer(text):
            s, e = m.span()
            if s == e:
                continue
            if s > pos:
                spans.append((pos, s, False))
            spans.append((s, e, True))
            pos = e
        if pos < len(text):
            spans.append((pos, len(text), False))
        if self.invert:
            spans = [(s, e, not d) for s, e, d in spans]
        return [(text[s:e], s, e) for s, e in _apply_behavior(spans, self.behavior)]


def _apply_behavior(spans: list[tuple[int, int, bool]], behavior: str) -> list[tuple[int, int]]:
    if behavior == "Isolated":
        return [(s, e) for s, e, _ in spans]
    if behavior == "Removed":
        return [(s, e) for s, e, d in spans if not d]
    out: list[list[int]] = []
    if behavior == "MergedWithPrevious":
        prev_delim = False
        for s, e, d in spans:
            if d and out and not prev_delim:
                out[-1][1] = e
            else:
                out.append([s, e])
            prev_delim = d
        return [(s, e) for s, e in out]
    if behavior == "MergedWithNext":
        pending: int | None = None
        for s, e, d in spans:
            if d:
                if pending is not None:
                    out.append([pending, s])
                pending = s
            else:
                out.append([s if pending is None else pending, e])
                pending = None
        if pending is not None:
            out.append([pending, spans[-1][1]])
        return [(s, e) for s, e in out]
    # Contiguous: runs of delimiters become one piece
    for s, e, d in spans:
        if d and out and out[-1][2]:
            out[-1][1] = e
        else:
            out.append([s, e, d])
    return [(s, e) for s, e, _ in out]


class ByteLevel(Splitter):
    """HF ``ByteLevel`` pre-tokeniser. Byte mapping is implicit (our byte-level units *are*
    bytes); what remains is the optional prefix space and the optional GPT-2 regex."""

    def __init__(self, *, add_prefix_space: bool = False, use_regex: bool = True) -> None:
        self.add_prefix_space = add_prefix_space
        self.regex = compile_pattern("gpt2") if use_regex else None

    def split(self, text: str) -> list[Piece]:
        shift = 0
        if self.add_prefix_space and not text.startswith(" "):
            text = " " + text
            shift = 1
        if self.regex is None:
            return [(text, 0, len(text) - shift)] if text else []
        return [(m.group(), max(m.start() - shift, 0), m.end() - shift) for m in self.regex.finditer(text)]


class Metaspace(Splitter):
    """HF ``Metaspace``: spaces become ``replacement`` (``▁``), a prefix is added per
    ``prepend_scheme`` and, with ``split``, each piece starts at a ``▁``."""

    def __init__(self, *, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True,
                 first: bool = True) -> None:
        if prepend_scheme not in ("always", "first", "never"):
            raise LbpeError(f"unknown Metaspace prepend_scheme {prepend_scheme!r}")
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split_pieces = split
        self.first = first  # whether the text given is the first section (for scheme "first")

    def split(self, text: str) -> list[Piece]:
        replaced = text.replace(" ", self.replacement)
        prepend = self.prepend_scheme == "always" or (self.prepend_scheme == "first" and self.first)
        shift = 0
        if prepend and not replaced.startswith(self.replacement):
            replaced = self.replacement + replaced
            shift = 1
        if not replaced:
            return []
        if not self.split_pieces:
            return [(replaced, 0, len(text))]
        starts = [i for i, c in enumerate(replaced) if c == self.replacement and i > 0]
        bounds = [0, *starts, len(replaced)]
        return [
            (replaced[a:b], max(a - shift, 0), b - shift) for a, b in zip(bounds, bounds[1:]) if b > a
        ]


class Digits(Splitter):
    """HF ``Digits``: digits apart from the rest, one by one or in runs."""

    def __init__(self, *, individual_digits: bool = False) -> None:
        body = _class_body("Nd")
        self._split = Split("[" + body + "]", "Isolated" if individual_digits else "Contiguous", trusted=True)

    def split(self, text: str) -> list[Piece]:
        return self._split.split(text)


class Punctuation(Splitter):
    """HF ``Punctuation``: ASCII punctuation and Unicode P* characters apart from the rest."""

    def __init__(self, *, behavior: str = "Isolated") -> None:
        ascii_punct = "".join(re.escape(c) for c in "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
        self._split = Split("[" + ascii_punct + _class_body("P") + "]", behavior, trusted=True)

    def split(self, text: str) -> list[Piece]:
        return self._split.split(text)


class WhitespaceSplit(Splitter):
    """HF ``WhitespaceSplit``: cut at Unicode white space, dropping it."""

    _regex = re.compile("[^" + _WS + "]+")

    def split(self, text: str) -> list[Piece]:
        return [(m.group(), m.start(), m.end()) for m in self._regex.finditer(text)]


class Sequence(Splitter):
    """Apply splitters one after another; each splits every piece of the one before."""

    def __init__(self, steps: Seq[Splitter]) -> None:
        self.steps = list(steps)

    def split(self, text: str) -> list[Piece]:
        with deadline(len(text)):  # the steps' patterns share one time allowance
            return self._split_all(text)

    def _split_all(self, text: str) -> list[Piece]:
        pieces: list[Piece] = [(text, 0, len(text))] if text else []
        for step in self.steps:
            nxt: list[Piece] = []
            for piece, start, end in pieces:
                exact = end - start == len(piece)
                for sub, s, e in step.split(piece):
                    if exact:
                        nxt.append((sub, start + s, start + e))
                    else:  # the piece was rewritten (▁ or prefix space): keep the outer span
                        nxt.append((sub, start + min(s, end - start), start + min(e, end - start)))
            pieces = nxt
        return pieces

