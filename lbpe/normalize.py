"""Normalisers: text -> text before pre-tokenisation (HF ``normalizers``).

Each normaliser maps a text to ``(normalized, origin)`` where ``origin[i]`` is the index in the
input of the character that produced normalised character ``i`` (inserted characters point at
the position they were inserted before). :meth:`Normalizer.__call__` gives the text alone for
the encoder's hot path; ``aligned`` feeds display offsets.

>>> Sequence([Prepend("\\u2581"), Replace(" ", "\\u2581")])("a b")
'▁a▁b'
>>> Sequence([Prepend("\\u2581"), Replace(" ", "\\u2581")]).aligned("a b")
('▁a▁b', [0, 0, 1, 2])
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence as Seq

from lbpe.errors import LbpeError

__all__ = ["Normalizer", "Unicode", "Lowercase", "Strip", "Prepend", "Replace", "Sequence"]

Aligned = tuple[str, list[int]]


class Normalizer:
    def __call__(self, text: str) -> str:
        return self.aligned(text)[0]

    def aligned(self, text: str) -> Aligned:
        raise NotImplementedError


def _per_char(text: str, out: str, fn) -> Aligned:
    """Alignment for a normaliser that acts character by character (when that reproduces
    ``out``); otherwise every output character points at the start of the text."""
    if len(out) == len(text):
        return out, list(range(len(text)))
    pieces = [fn(c) for c in text]
    if "".join(pieces) == out:
        return out, [i for i, p in enumerate(pieces) for _ in p]
    return out, [0] * len(out)


class Unicode(Normalizer):
    """NFC, NFD, NFKC or NFKD (with the running Python's Unicode tables)."""

    def __init__(self, form: str) -> None:
        if form not in ("NFC", "NFD", "NFKC", "NFKD"):
            raise LbpeError(f"unknown Unicode normal form {form!r}")
        self.form = form

    def __call__(self, text: str) -> str:
        if unicodedata.is_normalized(self.form, text):
            return text
        return unicodedata.normalize(self.form, text)

    def aligned(self, text: str) -> Aligned:
        out = self(text)
        if out is text:
            return out, list(range(len(text)))
        # normalise runs that start at a character with combining class 0 separately
        starts = [i for i, c in enumerate(text) if unicodedata.combining(c) == 0] or [0]
        if starts[0] != 0:
            starts.insert(0, 0)
        bounds = starts + [len(text)]
        chunks = [unicodedata.normalize(self.form, text[a:b]) for a, b in zip(bounds, bounds[1:])]
        if "".join(chunks) == out:
            return out, [a for a, chunk in zip(bounds, chunks) for _ in chunk]
        return out, [0] * len(out)


class Lowercase(Normalizer):
    def __call__(self, text: str) -> str:
        return text.lower()

    def aligned(self, text: str) -> Aligned:
        return _per_char(text, text.lower(), str.lower)


class Strip(Normalizer):
    """Remove white space at the start and/or end."""

    def __init__(self, *, left: bool = True, right: bool = True) -> None:
        self.left, self.right = left, right

    def __call__(self, text: str) -> str:
        if self.left:
            text = text.lstrip()
        if self.right:
            text = text.rstrip()
        return text

    def aligned(self, text: str) -> Aligned:
        start = len(text) - len(text.lstrip()) if self.left else 0
        end = len(text.rstrip()) if self.right else len(text)
        end = max(end, start)
        return text[start:end], list(range(start, end))


class Prepend(Normalizer):
    """Put ``prefix`` in front of a non-empty text."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def __call__(self, text: str) -> str:
        return self.prefix + text if text else text

    def aligned(self, text: str) -> Aligned:
        if not text:
            return text, []
        return self.prefix + text, [0] * len(self.prefix) + list(range(len(text)))


class Replace(Normalizer):
    """Replace every match of a literal string (or a translated regex) by ``content``."""

    def __init__(self, pattern: str, content: str, *, regex: bool = False) -> None:
        self.literal = None if regex else pattern
        self.regex = re.compile(pattern if regex else re.escape(pattern))
        self.content = content

    def __call__(self, text: str) -> str:
        if self.literal is not None:
            return text.replace(self.literal, self.content)
        return self.regex.sub(lambda m: self.content, text)

    def aligned(self, text: str) -> Aligned:
        out: list[str] = []
        origin: list[int] = []
        pos = 0
        for m in self.regex.finditer(text):
            s, e = m.span()
            if s == e:
                continue
            out.append(text[pos:s])
            origin += range(pos, s)
            out.append(self.content)
            origin += [s] * len(self.content)
            pos = e
        out.append(text[pos:])
        origin += range(pos, len(text))
        return "".join(out), origin


class Sequence(Normalizer):
    def __init__(self, steps: Seq[Normalizer]) -> None:
        self.steps = list(steps)

    def __call__(self, text: str) -> str:
        for step in self.steps:
            text = step(text)
        return text

    def aligned(self, text: str) -> Aligned:
        origin = list(range(len(text)))
        for step in self.steps:
            text, inner = step.aligned(text)
            origin = [origin[i] if i < len(origin) else len(origin) for i in inner]
        return text, origin
