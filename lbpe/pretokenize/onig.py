"""Oniguruma -> ``re``: the regexes of HF ``tokenizers`` files, translated for the standard library.

This module owns :func:`translate_regex`, which turns the Oniguruma dialect of
``tokenizer.json`` patterns into ``re`` syntax with the explicit Unicode classes of
:mod:`lbpe.pretokenize.classes`, refuses what it cannot translate exactly
(:class:`UnsupportedRegex`) and refuses groups that backtrack exponentially. Which Oniguruma
regexes equal a preset is data of the presets (:mod:`lbpe.pretokenize.presets`).

>>> re.findall(translate_regex(r"\\p{N}{1,3}|\\s+"), "ab 12345")
[' ', '123', '45']
"""

from __future__ import annotations

import re

from lbpe.errors import LbpeError
from lbpe.pretokenize.classes import WHITE_SPACE, class_body

__all__ = ["translate_regex", "UnsupportedRegex"]

_CATEGORIES = {
    "L",
    "Lu",
    "Ll",
    "Lt",
    "Lm",
    "Lo",
    "M",
    "Mn",
    "Mc",
    "Me",
    "N",
    "Nd",
    "Nl",
    "No",
    "P",
    "Pc",
    "Pd",
    "Ps",
    "Pe",
    "Pi",
    "Pf",
    "Po",
    "S",
    "Sm",
    "Sc",
    "Sk",
    "So",
    "Z",
    "Zs",
    "Zl",
    "Zp",
    "C",
    "Cc",
    "Cf",
    "Co",
}
_LONG_NAMES = {
    "Letter": "L",
    "Mark": "M",
    "Number": "N",
    "Punctuation": "P",
    "Symbol": "S",
    "Separator": "Z",
    "Uppercase_Letter": "Lu",
    "Lowercase_Letter": "Ll",
    "Decimal_Number": "Nd",
}


class UnsupportedRegex(LbpeError):
    """An Oniguruma construct with no exact stdlib ``re`` equivalent here."""


def translate_regex(pattern: str) -> str:
    """Translate an Oniguruma pattern (as found in tokenizer.json) into stdlib ``re`` syntax.

    ``\\p{..}``/``\\P{..}`` general categories, ``\\s``/``\\S`` (Unicode White_Space) and
    ``\\d`` (decimal numbers) become explicit classes; ``$``/``^`` keep Oniguruma's line
    meaning through ``re.MULTILINE`` (see :class:`Regex`). As in Oniguruma's Ruby syntax,
    ``\\pL`` without braces is the letters "pL" and the option ``(?m)`` lets ``.`` match a line
    end (Python's ``(?s)``). ``\\w``, ``\\b``, POSIX brackets, class operations and options
    other than ``i``, ``m`` and ``x`` raise :class:`UnsupportedRegex`.
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
            if e in "pP" and not pattern.startswith("{", i + 2):
                out.append(e)  # Oniguruma (Ruby syntax) reads \pL as the letters "pL"
                i += 2
                continue
            if e in "pP":
                name, i = _property_name(pattern, i + 2)
                negate = (e == "P") != name.startswith("^")
                body = class_body(_category(name.lstrip("^")))
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
                    out.append(WHITE_SPACE)
                else:
                    out.append(("[" if e == "s" else "[^") + WHITE_SPACE + "]")
                i += 2
                continue
            if e == "d":
                body = class_body("Nd")
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
        options = _OPTIONS.match(pattern, i) if c == "(" else None
        if options is not None:
            letters = options.group(1)
            if set(letters) - set("imx-"):
                raise UnsupportedRegex(f"Oniguruma's options are i, m and x; {options.group()!r} in {pattern!r}")
            out.append("(?" + letters.replace("m", "s"))  # Ruby syntax: (?m) lets . match a line end
            i = options.end()
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
#: An option group's start, ``(?i:``, ``(?m)``, ``(?-i:``: the letters Oniguruma knows and the rest.
_OPTIONS = re.compile(r"\(\?([a-zA-Z-]+)(?=[:)])")


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
