"""Finding a set of literal strings (added and special tokens) in a text.

At each position of a text the longest of the strings that starts there is the match; the scan
goes on after it (a regular expression's leftmost match, its alternatives tried longest first).
:class:`Literals` does it for any number of strings: a few thousand through
:func:`literal_trie_pattern` (one compiled ``re``), more with a dictionary of the strings by
their first character, since a pattern of hundreds of thousands of tokens takes tens of seconds
to spell and to compile (HF tokenizers loads such a file in about 2 s).

>>> found = Literals(["<s>", "<sep>", "</s>"])
>>> [(m.start(), m.group()) for m in found.finditer("a<sep>b</s><s")]
[(1, '<sep>'), (7, '</s>')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

__all__ = ["Literals", "literal_trie_pattern", "MAX_ADDED_TOKEN_CHARS", "TRIE_PATTERN_MAX"]

#: Up to this many strings, :class:`Literals` compiles one trie pattern; beyond, it looks the
#: strings up by their first character (spelling and compiling the pattern grows with the
#: strings: ~35 s for 420,000 added tokens).
TRIE_PATTERN_MAX = 5_000

_NOTHING = re.compile(r"(?!)")  # matches nowhere

#: The trie pattern's search is led by ``str.find`` of the strings' first characters when they
#: are this few: ``find`` of one character runs at memory speed, where ``re`` steps through the
#: text a character at a time (1.5 ms on 1 MB of English held in two bytes a character,
#: against 0.04 ms).
FIND_FIRSTS_MAX = 4

#: Places holding a first character where no string starts, tried one by one before the pattern
#: searches the rest of the text itself (a text full of ``<`` costs no more than before).
FIND_TRIES = 8


class Found:
    """One match of :class:`Literals`: ``start()``, ``end()`` and ``group()`` as a ``re.Match``'s."""

    __slots__ = ("_start", "_text")

    def __init__(self, start: int, text: str) -> None:
        self._start, self._text = start, text

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._start + len(self._text)

    def group(self) -> str:
        return self._text


class Literals:
    """The strings in ``strings`` (empty ones ignored), found in texts: :meth:`search` and
    :meth:`finditer` as a compiled pattern's, the longest string at the leftmost position."""

    #: The first character of every string when they all share one (``"<"``, most often): a
    #: text without it holds none of them, which one ``str.find`` tells; else ``None`` (also
    #: for an object pickled before it was kept).
    first_char: str | None = None

    def __init__(self, strings: Iterable[str], *, trie_max: int = TRIE_PATTERN_MAX) -> None:
        self.strings = frozenset(s for s in strings if s)
        self._pattern: re.Pattern[str] | None = None
        self._lengths: dict[str, tuple[int, ...]] = {}
        self._starts = _NOTHING
        self._firsts: tuple[str, ...] = ()
        firsts = {s[0] for s in self.strings}
        self.first_char = next(iter(firsts)) if len(firsts) == 1 else None
        if len(self.strings) <= trie_max:
            self._pattern = re.compile(literal_trie_pattern(self.strings))
            if len(firsts) <= FIND_FIRSTS_MAX:
                self._firsts = tuple(sorted(firsts))
            return
        lengths: dict[str, set[int]] = {}
        for s in self.strings:
            lengths.setdefault(s[0], set()).add(len(s))
        self._lengths = {ch: tuple(sorted(ls, reverse=True)) for ch, ls in lengths.items()}
        self._starts = re.compile("[" + "".join(_class_char(ch) for ch in sorted(self._lengths)) + "]")

    def search(self, text: str, pos: int = 0) -> re.Match[str] | Found | None:
        """The first match at or after ``pos``, or ``None``."""
        if self.first_char is not None and pos >= 0 and text.find(self.first_char, pos) < 0:
            return None  # (all a short text's search costs, with most vocabularies)
        if self._pattern is not None:
            return self._found_first(self._pattern, text, pos) if self._firsts else self._pattern.search(text, pos)
        return next(self._scan(text, pos), None)

    def _found_first(self, pattern: re.Pattern[str], text: str, pos: int) -> re.Match[str] | None:
        """``pattern.search(text, pos)``: a match starts with one of the first characters, so
        the places holding one are tried in order, each found once by ``str.find``; after
        :data:`FIND_TRIES` of them start no string, the pattern searches on from there."""
        if pos < 0:  # as ``re`` takes a negative pos (``find`` would count from the end)
            pos = 0
        ahead = {ch: text.find(ch, pos) for ch in self._firsts}
        for _ in range(FIND_TRIES):
            found = [at for at in ahead.values() if at >= 0]
            if not found:
                return None
            at = min(found)
            m = pattern.match(text, at)
            if m is not None:
                return m
            ch = text[at]
            ahead[ch] = text.find(ch, at + 1)
        return pattern.search(text, at + 1)

    def finditer(self, text: str, pos: int = 0) -> Iterator[re.Match[str] | Found]:
        """Every match from ``pos`` on, left to right, none overlapping."""
        if self._pattern is not None:
            return self._pattern.finditer(text, pos)
        return self._scan(text, pos)

    def _scan(self, text: str, pos: int) -> Iterator[Found]:
        starts, lengths, strings = self._starts, self._lengths, self.strings
        m = starts.search(text, pos)
        while m is not None:
            at = m.start()
            for n in lengths[text[at]]:  # longest first
                piece = text[at : at + n]
                if len(piece) == n and piece in strings:
                    yield Found(at, piece)
                    m = starts.search(text, at + n)
                    break
            else:
                m = starts.search(text, at + 1)


def literal_trie_pattern(strings: Iterable[str]) -> str:
    """A ``re`` source matching any of ``strings``, the longest where several start at one
    position, spelled as a trie: ``<(?:s(?:ep>|tart>)?|unk>)`` for ``<s``, ``<sep>``, ``<start>``,
    ``<unk>``.

    A plain alternation sorted longest first gives the same matches, but the engine tries every
    alternative that starts with the character at hand, comparing each as far as it agrees: a
    vocabulary file with many long added tokens that share a prefix (``a...ab`` for a few
    hundred lengths) made 50,000 characters of ``a`` cost seconds. The trie compares each
    character once per level; the children that end there share one character class. Below
    :data:`MAX_ADDED_TOKEN_CHARS` levels (never reached by a :class:`lbpe.tokenizer.Tokenizer`, which refuses
    longer added tokens) the rest of each string is a plain alternation, which keeps the
    pattern's nesting within what ``re`` compiles.

    >>> literal_trie_pattern(["<sep>", "<start>", "<unk>", "<s"])
    '<(?:s(?:ep>|tart>)?|unk>)'
    """
    trie: dict = {}
    for text in strings:
        if not text:
            continue
        node = trie
        for ch in text:
            node = node.setdefault(ch, {})
        node[""] = True

    def suffixes(node: dict, prefix: str) -> list[str]:
        out = [prefix] if "" in node else []
        stack = [(node, prefix)]
        while stack:
            current, text = stack.pop()
            for ch, child in current.items():
                if ch:
                    if "" in child:
                        out.append(text + ch)
                    stack.append((child, text + ch))
        return out

    def render(node: dict, depth: int) -> str:
        if depth >= MAX_ADDED_TOKEN_CHARS:
            rest = sorted(set(suffixes(node, "")), key=lambda t: (-len(t), t))  # "" (ends here) last
            return "(?:" + "|".join(map(re.escape, rest)) + ")"
        leaves = sorted(ch for ch, child in node.items() if ch and child.keys() == {""})
        inner = sorted(ch for ch, child in node.items() if ch and child.keys() != {""})
        # one alternative per next character, so at most one applies; then ending here
        parts = []
        for ch in inner:  # a loop, not a comprehension: one stack frame per level
            parts.append(re.escape(ch) + render(node[ch], depth + 1))
        if len(leaves) == 1:
            parts.append(re.escape(leaves[0]))
        elif leaves:
            parts.append("[" + "".join(_class_char(ch) for ch in leaves) + "]")
        if not parts:
            return ""
        if "" in node:
            return parts[0] + "?" if len(parts) == 1 and _is_atom(parts[0]) else "(?:" + "|".join(parts) + ")?"
        return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"

    return render(trie, 0)


#: The longest added or special token a :class:`lbpe.tokenizer.Tokenizer` accepts, in characters
#: (real ones have under 40), and the levels of :func:`literal_trie_pattern`'s trie spelled as
#: nested groups.
MAX_ADDED_TOKEN_CHARS = 256


def _class_char(ch: str) -> str:
    return "\\" + ch if ch in "\\]^-[" else ch


def _is_atom(part: str) -> bool:
    """Whether ``part`` is one character, escape or class (so ``?`` applies to all of it)."""
    return len(part) == 1 or (part.startswith("[") and part.endswith("]")) or (len(part) == 2 and part[0] == "\\")
