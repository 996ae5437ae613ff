"""Regular expressions that came from a vocabulary file, run under a time limit.

A tokenizer.json carries its own regular expressions (``Split`` pre-tokenizers, ``Replace``
normalizers and decoders). lbpe refuses the ones that backtrack exponentially when it loads
them (``(a+)+``), but a pattern can also be slow in a polynomial way: ``\\s*\\s*\\s*x|\\s+``
tries every way of sharing a run of spaces among its three ``\\s*``, so a few thousand spaces
take minutes and 50,000 take hours. On a server that is a denial of service.

So such a pattern runs through :class:`UserRegex`. In CPython, when the ``regex`` package is
installed (``pip install lbpe[regex]``; the playground's dependencies include it), every call
runs with its ``timeout=``, and a call that passes it raises :class:`RegexTimeoutError`,
which names the pattern and says what to do. The time allowed is the ``regex_seconds`` limit
(``LBPE_REGEX_SECONDS``, default 2 s) per MiB of text, a text under 1 MiB counting as 1 MiB:
real pre-tokenizers need well under a tenth of that, and a slow pattern cannot hold a worker
longer than a time proportional to its input. A pipeline step that runs several patterns over
the pieces of one text (:class:`deadline` in ``Sequence``) gives them one shared allowance,
so splitting a text into many pieces does not multiply it.

Without ``regex`` (CPython without the extra, or the browser page, whose Pyodide has no
``regex`` wheel offline) the standard library's ``re`` runs the same pattern with no time
limit: the page's main thread stops a worker that takes too long instead. The presets of
:mod:`lbpe.pretokenize` always run on ``re`` (twice as fast as ``regex`` on them) because they
are ours, not the file's.

>>> p = UserRegex(r"\\s+", what="a Split pattern")
>>> [m.span() for m in p.finditer("a  b")]
[(1, 3)]
>>> p.sub(lambda m: "_", "a  b c")
'a_b_c'
"""

from __future__ import annotations

import contextvars
import functools
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

from lbpe import limits
from lbpe.errors import LbpeError

__all__ = ["UserRegex", "RegexTimeoutError", "deadline", "engine", "onig_spans", "onig_sub"]

_MIB = 1 << 20

_engine_override: list = []  # tests: [None] runs the stdlib path even where regex is installed


@functools.cache
def _regex_module():
    """The ``regex`` package, imported when the first pattern from a file is compiled (so
    ``import lbpe`` never loads it), or ``None`` where it is not installed."""
    try:
        import regex
    except ImportError:  # the browser page, or CPython without lbpe[regex]
        return None
    return regex


def engine() -> str:
    """``"regex"`` when patterns from files run under the time limit, ``"re"`` when not."""
    return "regex" if _active_regex() is not None else "re"


def _active_regex():
    return _engine_override[-1] if _engine_override else _regex_module()


class RegexTimeoutError(LbpeError):
    """A regular expression from a vocabulary file ran past its time limit."""

    def __init__(self, pattern: str, what: str, chars: int, seconds: float) -> None:
        self.pattern, self.what, self.chars, self.seconds = pattern, what, chars, seconds
        shown = pattern if len(pattern) <= 80 else pattern[:77] + "..."
        per_mib = limits.get("regex_seconds")
        took = f"{seconds:.1f}" if seconds >= 1 else f"{seconds:.2f}"
        super().__init__(
            f"{what} `{shown}` from the vocabulary file was stopped after {took} s on a text of "
            f"{chars:,} characters: it backtracks heavily on this text (quantified parts that can match the "
            f"same characters in many ways, such as \\s*\\s* or (?:x?)*). Fix the pattern in the file (e.g. one "
            f"\\s+ instead of \\s*\\s*), shorten the text, or allow it more time with LBPE_REGEX_SECONDS "
            f"(now {per_mib:g} s per MiB of text; 0 for no limit)."
        )


#: A text shorter than this many MiB gets the allowance of one this long.
_FLOOR_MIB = 0.1


def _allowance(chars: int) -> float:
    """Seconds allowed for ``chars`` characters of text (0: no limit)."""
    per_mib = limits.get("regex_seconds")
    if not per_mib:
        return 0.0
    return per_mib * max(_FLOOR_MIB, chars / _MIB)


class _Allowance:
    """What is left of one text's allowance: only time inside pattern calls uses it up, so the
    work between them (encoding, a busy machine) never makes a quick pattern time out."""

    __slots__ = ("left", "total", "chars")

    def __init__(self, seconds: float, chars: int) -> None:
        self.left = self.total = seconds
        self.chars = chars


# The allowance of the running step (None: each call gets its own).
_current: contextvars.ContextVar[_Allowance | None] = contextvars.ContextVar("lbpe_regex_allowance", default=None)


class deadline:
    """Context manager: every :class:`UserRegex` call inside shares one allowance for a text of
    ``chars`` characters; the time between the calls does not count. Inside another
    ``deadline`` it keeps the outer one."""

    def __init__(self, chars: int) -> None:
        self.chars = chars
        self._token: contextvars.Token | None = None

    def __enter__(self) -> deadline:
        if _current.get() is None:
            seconds = _allowance(self.chars)
            if seconds:
                self._token = _current.set(_Allowance(seconds, self.chars))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _current.reset(self._token)
            self._token = None


class UserRegex:
    """A pattern from a file: compiled with ``re`` (which checks it and is the fallback) and,
    where installed, with ``regex``, whose calls then run under the time limit.

    ``what`` says what the pattern is for and ``shown`` how the file spelled it (default:
    ``pattern``), both for error messages.
    Offers the few ``re.Pattern`` methods the pipeline uses; match objects are ``re``'s or
    ``regex``'s, which agree on ``group``, ``start``, ``end`` and ``span``.
    """

    __slots__ = ("pattern", "flags", "what", "shown", "_re", "_regex")

    def __init__(self, pattern: str, flags: int = 0, *, what: str = "the pattern", shown: str | None = None) -> None:
        self.pattern, self.flags, self.what = pattern, flags, what
        self.shown = pattern if shown is None else shown
        self._re = re.compile(pattern, flags)
        self._regex = None
        module = _regex_module()
        if module is not None:
            # VERSION0 is re's dialect; flags of re and regex share their values
            self._regex = module.compile(pattern, flags | module.VERSION0)

    def __repr__(self) -> str:
        return f"UserRegex({self.pattern!r}, what={self.what!r})"

    def __reduce__(self):
        return (_rebuild, (self.pattern, self.flags, self.what, self.shown))

    def _run(self, text: str, call: Callable[[Any, float | None], Any]) -> Any:
        if self._regex is None or _active_regex() is None:
            return call(self._re, None)
        allowance = _current.get()
        if allowance is None:
            seconds = _allowance(len(text))
            if not seconds:
                return call(self._regex, None)
            allowance = _Allowance(seconds, len(text))
        started = time.monotonic()
        try:
            return call(self._regex, max(allowance.left, 0.001))
        except TimeoutError:
            allowance.left = 0.0
            raise RegexTimeoutError(self.shown, self.what, allowance.chars, allowance.total) from None
        finally:
            allowance.left -= time.monotonic() - started

    def finditer(self, text: str) -> Iterator[Any]:
        """Every match, as ``re.finditer`` (collected under the time limit, then iterated)."""
        return iter(
            self._run(text, lambda p, t: list(p.finditer(text)) if t is None else list(p.finditer(text, timeout=t)))
        )

    def findall(self, text: str) -> list[Any]:
        return self._run(text, lambda p, t: p.findall(text) if t is None else p.findall(text, timeout=t))

    def sub(self, repl: Callable[[Any], str] | str, text: str) -> str:
        return self._run(text, lambda p, t: p.sub(repl, text) if t is None else p.sub(repl, text, timeout=t))

    def search(self, text: str, pos: int = 0) -> Any:
        return self._run(text, lambda p, t: p.search(text, pos) if t is None else p.search(text, pos, timeout=t))


def _rebuild(pattern: str, flags: int, what: str, shown: str) -> UserRegex:
    return UserRegex(pattern, flags, what=what, shown=shown)


def onig_spans(pattern: UserRegex | re.Pattern[str], text: str) -> list[tuple[int, int]]:
    """The spans of ``pattern``'s matches in ``text`` as HF tokenizers' engine (Oniguruma)
    finds them: an empty match counts, except one right after a match (which Python's own
    iteration gives: ``a*`` in ``"aa"`` is one match there, two here), and an empty text has none.

    >>> onig_spans(re.compile("a*"), "aab")
    [(0, 2), (3, 3)]
    """
    if not text:
        return []
    out: list[tuple[int, int]] = []
    last = None  # where the last match ended
    for m in pattern.finditer(text):
        start, end = m.span()
        if start == end == last:
            continue
        out.append((start, end))
        last = end
    return out


def onig_sub(pattern: UserRegex | re.Pattern[str], content: str, text: str) -> str:
    """``text`` with each match of :func:`onig_spans` replaced by ``content``, taken literally."""
    parts: list[str] = []
    pos = 0
    for start, end in onig_spans(pattern, text):
        parts += (text[pos:start], content)
        pos = end
    parts.append(text[pos:])
    return "".join(parts)
