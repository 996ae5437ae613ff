"""Composable pre-tokenisers, as HF ``tokenizers`` files describe them.

Every splitter turns a text into pieces with offsets: :meth:`Splitter.split` returns
``(piece, start, end)`` triples, where ``start``/``end`` index the splitter's input and
``piece`` is usually ``text[start:end]`` (Metaspace and ByteLevel's prefix space change it).
``findall`` returns only the pieces, for the encoder's hot path.

This module owns the splitters (the HF ``pre_tokenizer`` types lbpe runs); the Oniguruma regexes
of those files are translated by :mod:`lbpe.pretokenize.onig`, and the presets that
:class:`Regex` and :class:`ByteLevel` run come from :mod:`lbpe.pretokenize.compiled`.

>>> from lbpe.pretokenize.onig import translate_regex
>>> Split(translate_regex(r"\\p{N}{1,3}"), "Isolated").findall("abc12345")
['abc', '123', '45']
>>> Sequence([Split(" ", "MergedWithPrevious")]).findall("a b  c")
['a ', 'b ', ' ', 'c']
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence as Seq

from lbpe.errors import LbpeError
from lbpe.pretokenize.classes import WHITE_SPACE, hf_numeric_body, hf_punctuation_body
from lbpe.pretokenize.compiled import PresetPattern, compile_pattern, resolve_pattern
from lbpe.user_regex import UserRegex, deadline, onig_spans

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
    "KnownSequence",
    "BEHAVIORS",
]

Piece = tuple[str, int, int]


class Splitter:
    """Base class: subclasses implement :meth:`split`."""

    def split(self, text: str) -> list[Piece]:
        raise NotImplementedError

    def findall(self, text: str) -> list[str]:
        return [p for p, _, _ in self.split(text)]

    def later(self) -> Splitter:
        """This splitter for a text that does not start the input (after a special token, or
        a piece an earlier step cut off after the start): itself, unless it acts at the start."""
        return self


def _whole_matches(pattern: re.Pattern[str], text: str) -> list[str]:
    return [m.group() for m in pattern.finditer(text)]


class Regex(Splitter):
    """Pieces are the matches of a stdlib pattern (tiktoken-style pre-tokenisation): whole
    matches, also where the pattern has groups (whose text alone ``re.findall`` would give)."""

    def __init__(self, pattern: re.Pattern[str] | PresetPattern | str) -> None:
        self.pattern = resolve_pattern(pattern)
        if self.pattern.groups:
            self.findall = functools.partial(_whole_matches, self.pattern)  # type: ignore[method-assign, arg-type]
        else:
            self.findall = self.pattern.findall  # type: ignore[method-assign, assignment]  # the C method, for speed

    def split(self, text: str) -> list[Piece]:
        return [(m.group(), m.start(), m.end()) for m in self.pattern.finditer(text)]


#: HF ``SplitDelimiterBehavior`` names.
BEHAVIORS = ("Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous")


class Split(Splitter):
    """HF ``Split``: cut at the matches of a pattern and treat them per ``behavior``.

    ``pattern`` is a translated regex source (see :func:`lbpe.pretokenize.onig.translate_regex`), which runs under the
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
        self.literal = pattern if literal else None  # the text cut at, when it is one string
        if literal or trusted:
            self.regex = re.compile(re.escape(pattern) if literal else pattern, re.MULTILINE)
        else:
            self.regex = UserRegex(pattern, re.MULTILINE, what="the Split pre-tokenizer's pattern", shown=shown)
        self.behavior = behavior
        self.invert = invert

    def split(self, text: str) -> list[Piece]:
        spans: list[tuple[int, int, bool]] = []  # (start, end, is_delimiter)
        pos = 0
        for s, e in onig_spans(self.regex, text):
            if s > pos:
                spans.append((pos, s, False))
            spans.append((s, e, True))  # an empty match cuts there, as HF's does
            pos = e
        if pos < len(text):
            spans.append((pos, len(text), False))
        if self.invert:
            spans = [(s, e, not d) for s, e, d in spans]
        return [(text[s:e], s, e) for s, e in _apply_behavior(spans, self.behavior) if e > s]


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
    # Contiguous: neighbouring spans of one kind become one piece (delimiters; with invert, the
    # text between matches that met)
    for s, e, d in spans:
        if out and out[-1][2] == d:
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
        if not text:  # HF: nothing to put a space before
            return []
        if self.add_prefix_space and not text.startswith(" "):
            text = " " + text
            shift = 1
        if self.regex is None:
            return [(text, 0, len(text) - shift)] if text else []
        return [(m.group(), max(m.start() - shift, 0), m.end() - shift) for m in self.regex.finditer(text)]


class Metaspace(Splitter):
    """HF ``Metaspace``: spaces become ``replacement`` (``▁``), a prefix is added per
    ``prepend_scheme`` and, with ``split``, each piece starts at a ``▁``."""

    def __init__(
        self, *, replacement: str = "\u2581", prepend_scheme: str = "always", split: bool = True, first: bool = True
    ) -> None:
        if prepend_scheme not in ("always", "first", "never"):
            raise LbpeError(f"unknown Metaspace prepend_scheme {prepend_scheme!r}")
        self.replacement = replacement
        self.prepend_scheme = prepend_scheme
        self.split_pieces = split
        self.first = first  # whether the text given starts the input (for scheme "first")

    def later(self) -> Metaspace:
        if self.prepend_scheme != "first" or not self.first:
            return self
        if "_later" not in self.__dict__:
            self._later = Metaspace(
                replacement=self.replacement, prepend_scheme="first", split=self.split_pieces, first=False
            )
        return self._later

    def split(self, text: str) -> list[Piece]:
        if not text:  # HF: nothing to put the prefix before
            return []
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
        return [(replaced[a:b], max(a - shift, 0), b - shift) for a, b in zip(bounds, bounds[1:]) if b > a]


class Digits(Splitter):
    """HF ``Digits``: numbers (``char::is_numeric``: "7", "²", "½") apart from the rest, one
    by one or in runs."""

    def __init__(self, *, individual_digits: bool = False) -> None:
        body = hf_numeric_body()
        self._split = Split("[" + body + "]", "Isolated" if individual_digits else "Contiguous", trusted=True)

    def split(self, text: str) -> list[Piece]:
        return self._split.split(text)


class Punctuation(Splitter):
    """HF ``Punctuation``: ASCII punctuation and Unicode 8.0's punctuation apart from the rest."""

    def __init__(self, *, behavior: str = "Isolated") -> None:
        self._split = Split("[" + hf_punctuation_body() + "]", behavior, trusted=True)

    def split(self, text: str) -> list[Piece]:
        return self._split.split(text)


class WhitespaceSplit(Splitter):
    """HF ``WhitespaceSplit``: cut at Unicode white space, dropping it."""

    _regex = re.compile("[^" + WHITE_SPACE + "]+")

    def split(self, text: str) -> list[Piece]:
        return [(m.group(), m.start(), m.end()) for m in self._regex.finditer(text)]


class Sequence(Splitter):
    """Apply splitters one after another; each splits every piece of the one before."""

    def __init__(self, steps: Seq[Splitter]) -> None:
        self.steps = list(steps)

    def split(self, text: str) -> list[Piece]:
        with deadline(len(text)):  # the steps' patterns share one time allowance
            return self._split_all(text)

    def later(self) -> Sequence:
        if "_later" not in self.__dict__:
            steps = [step.later() for step in self.steps]
            self._later = self if all(a is b for a, b in zip(steps, self.steps)) else Sequence(steps)
        return self._later

    def _split_all(self, text: str) -> list[Piece]:
        pieces: list[Piece] = [(text, 0, len(text))] if text else []
        for step in self.steps:
            nxt: list[Piece] = []
            later = step.later()
            for piece, start, end in pieces:
                exact = end - start == len(piece)
                for sub, s, e in (later if start else step).split(piece):
                    if exact:
                        nxt.append((sub, start + s, start + e))
                    else:  # the piece was rewritten (▁ or prefix space): keep the outer span
                        nxt.append((sub, start + min(s, end - start), start + min(e, end - start)))
            pieces = nxt
        return pieces


class KnownSequence(Sequence):
    """A :class:`Sequence` that a ``tokenizer.json`` file spells as one of
    :data:`lbpe.pretokenize.presets.HF_SEQUENCES` (``name``): its steps stay the pure path and
    the reference; the compiled path splits it itself (:func:`lbpe.native.splitter_code`)."""

    def __init__(self, steps: Seq[Splitter], name: str) -> None:
        super().__init__(steps)
        self.name = name
