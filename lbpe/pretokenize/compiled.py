"""Compiled presets: what splits text into pre-tokens at run time.

This module owns :class:`PresetPattern` (a preset compiled from the sources of
:mod:`lbpe.pretokenize.rewrite`, with the ``findall``/``finditer`` of a ``re.Pattern``),
:func:`compile_pattern` (one per preset per process), :func:`resolve_pattern` (a name, a
compiled preset or any ``re.Pattern``) and :func:`split_text`.

>>> split_text("Hello world's 2024!", "cl100k_base")
['Hello', ' world', "'s", ' ', '202', '4', '!']
>>> split_text("abc 12345", "paper")
['abc', ' ', '1', '2', '3', '4', '5']
>>> [m.span() for m in compile_pattern("gpt2").finditer("a \\U0001d400b")]
[(0, 1), (1, 4)]
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Iterator

from lbpe.pretokenize.presets import pretokenizer_preset
from lbpe.pretokenize.rewrite import preset_source

__all__ = ["PresetPattern", "compile_pattern", "resolve_pattern", "split_text"]

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
        self.name = pretokenizer_preset(name).name
        # both compiled on first use: the compiled path's own splitter may never need them
        self._full: re.Pattern[str] | None = None
        self._bmp: re.Pattern[str] | None = None

    @property
    def regex(self) -> re.Pattern[str]:
        """The full pattern: a real ``re.Pattern``, exact on every input."""
        full = self._full
        if full is None:
            full = self._full = re.compile(preset_source(self.name, True))
        return full

    def _engine(self, string: str) -> re.Pattern[str]:
        # Either pattern gives the same results; this picks the faster one.
        if isinstance(string, str) and (string.isascii() or (len(string) > _SHORT and _bmp_only(string))):
            bmp = self._bmp
            if bmp is None:
                bmp = self._bmp = re.compile(preset_source(self.name, False))
            return bmp
        return self.regex

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[str]:
        return self._engine(string).findall(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self._engine(string).finditer(string, pos, endpos)

    def __getattr__(self, attr: str):
        # a slot not set yet (no recursion through self.regex), or a protocol's hook such as
        # __deepcopy__: the pattern's own would stand a bare re.Pattern in for this object
        if attr in PresetPattern.__slots__ or attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(self.regex, attr)

    def __reduce__(self):
        return (compile_pattern, (self.name,))

    def __repr__(self) -> str:
        return f"PresetPattern({self.name!r})"


def compile_pattern(name: str) -> PresetPattern:
    """The compiled preset pattern (cached per process); see :class:`PresetPattern`."""
    return _compiled(pretokenizer_preset(name).name)


@functools.cache
def _compiled(name: str) -> PresetPattern:
    return PresetPattern(name)


def resolve_pattern(pattern: str | re.Pattern[str] | PresetPattern) -> re.Pattern[str] | PresetPattern:
    """Accept a preset name, a compiled preset or an already compiled ``re`` pattern of ``str``."""
    if isinstance(pattern, re.Pattern) and not isinstance(pattern.pattern, str):
        raise TypeError(
            f"pattern must match str (text is split before it is encoded), not bytes: compile it from a str, "
            f"such as re.compile(r'\\w+') for {pattern.pattern!r}"
        )
    if isinstance(pattern, (re.Pattern, PresetPattern)):
        return pattern
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a preset name or a compiled re.Pattern, not {type(pattern).__name__}")
    return compile_pattern(pattern)


def split_text(text: str, pattern: str | re.Pattern[str] | PresetPattern) -> list[str]:
    """Split ``text`` into pre-tokens with a preset name or a compiled pattern."""
    return resolve_pattern(pattern).findall(text)
