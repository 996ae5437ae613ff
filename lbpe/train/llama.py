"""The llama style's pieces and tokens: SentencePiece's cuts of a word where no token can span
(:func:`llama_pieces`) and its rule for what a token may hold (:func:`valid_llama_token`), as
LLaMA trained them (docs/training.md, "The llama style")."""

from __future__ import annotations

import re
from collections import Counter

from lbpe.unicode import script

__all__ = ["llama_pieces", "valid_llama_token", "LLAMA_SPECIALS", "LLAMA_MAX_TOKEN_CHARS", "SPACE"]

#: The special tokens of the llama style, at ids 0, 1, 2 (LLaMA's unk, bos, eos).
LLAMA_SPECIALS = ("<unk>", "<s>", "</s>")
#: Longest token of the llama style, in characters (SentencePiece's ``max_sentencepiece_length``).
LLAMA_MAX_TOKEN_CHARS = 16
#: SentencePiece's meta symbol for white space.
SPACE = "\u2581"


#: Characters a llama-style token holds only alone: ASCII digits (``split_digits``), and NUL
#: and U+2585, which SentencePiece never puts in a piece.
_ALONE = frozenset("0123456789\0\u2585")
_SCRIPT_KEY: dict[str, str] = {}


def _script_key(ch: str) -> str:
    """The script as SentencePiece compares it: Hiragana, Katakana and U+30FC count as Han."""
    key = _SCRIPT_KEY.get(ch)
    if key is None:
        key = script(ch)
        if key in ("HIRAGANA", "KATAKANA") or ch == "\u30fc":
            key = "HAN"
        _SCRIPT_KEY[ch] = key
    return key


def _llama_cut(c: str, d: str) -> bool:
    """True when no llama-style token can hold ``c`` directly followed by ``d``."""
    if d == SPACE:
        return c != SPACE
    if c in _ALONE or d in _ALONE:
        return True
    if c == SPACE:
        return False
    a, b = _script_key(c), _script_key(d)
    return a != b and a != "INHERITED" and b != "INHERITED"


_ASCII_PIECE = re.compile(f"{SPACE}*(?:[A-Za-z]+|[^A-Za-z0-9{SPACE}]+)|{SPACE}+|[0-9]")


def llama_pieces(words: Counter[str] | dict[str, int]) -> Counter[str]:
    """SentencePiece's words cut where no token can span: before a ``"\u2581"`` that follows
    another character, around every ASCII digit, and between two characters of
    different scripts (a combining mark, script Inherited, goes with either side).

    >>> sorted(llama_pieces({"\u2581abc.12\u4e2d\u3042": 1}))
    ['.', '1', '2', '\u2581abc', '\u4e2d\u3042']
    """
    out: Counter[str] = Counter()
    ascii_pieces = _ASCII_PIECE.findall
    for word, c in words.items():
        if not word:
            continue
        rest = word.lstrip(SPACE)
        if rest.isascii() and "\0" not in rest:  # the same cuts, faster: letters are Latin, the rest Common
            for piece in ascii_pieces(word):
                out[piece] += c
            continue
        start = 0
        prev = word[0]
        for i in range(1, len(word)):
            ch = word[i]
            if _llama_cut(prev, ch):
                out[word[start:i]] += c
                start = i
            prev = ch
        out[word[start:]] += c
    return out


def valid_llama_token(token: str, max_chars: int = LLAMA_MAX_TOKEN_CHARS) -> bool:
    """Whether the llama style may make ``token`` (SentencePiece's rule for a piece, with LLaMA's
    options): at most ``max_chars`` characters; ``"\u2581"`` only at the start, unless the
    token is nothing else; an ASCII digit only alone; one script (combining marks take the
    script before them; Hiragana and Katakana count as Han).

    >>> [valid_llama_token(t) for t in ("\u2581the", "\u2581\u2581", "\u2581\u2581a", "a1", "a.", "e\u0301")]
    [True, True, False, False, False, True]
    """
    if not token or len(token) > max_chars:
        return False
    if token.find(SPACE, 1) > 0 and token.strip(SPACE):
        return False
    prev = None
    for ch in token:
        if ch == SPACE:
            continue
        if ch in _ALONE and (len(token) > 1 or ch in "\0\u2585"):
            return False
        key: str | None = _script_key(ch)
        if key == "INHERITED":
            key = prev
        if prev is not None and key != prev:
            return False
        prev = key
    return True
