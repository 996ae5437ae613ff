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

import bisect
import re
import unicodedata
from collections.abc import Sequence as Seq
from typing import Literal, cast

from lbpe.errors import LbpeError
from lbpe.pretokenize.classes import WHITE_SPACE_RANGES
from lbpe.unicode import lowercase, normal_form
from lbpe.user_regex import UserRegex, deadline, onig_spans, onig_sub

__all__ = ["Normalizer", "Unicode", "Lowercase", "Strip", "Prepend", "Replace", "Sequence", "SentencePieceNormalizer"]

Aligned = tuple[str, list[int]]


class Normalizer:
    def __call__(self, text: str) -> str:
        return self.aligned(text)[0]

    def aligned(self, text: str) -> Aligned:
        raise NotImplementedError

    def continued(self) -> Normalizer | None:
        """This normaliser for a text that continues another one after a line end followed by
        a visible ASCII character (how corpus chunks are cut): what it does there must not
        depend on the text before. ``None`` when that cannot be promised (the default); a
        step that acts only at the start of a text (a dummy prefix) is left out."""
        return None

    def reach(self) -> int | None:
        """How far this normaliser looks: at a position beside white space, what it makes of the
        text on either side depends on at most this many characters across the position (so a
        long text cut there normalises as the whole does; see ``Tokenizer.safe_cut``). ``None``
        when it may look anywhere or acts at the start or end of a text (the default)."""
        return None


def _per_char(text: str, out: str, fn) -> Aligned:
    """Alignment for a normaliser that acts character by character (when that reproduces
    ``out``); otherwise every output character points at the start of the text."""
    if len(out) == len(text):
        return out, list(range(len(text)))
    pieces = [fn(c) for c in text]
    if "".join(pieces) == out:
        return out, [i for i, p in enumerate(pieces) for _ in p]
    return out, [0] * len(out)


UnicodeForm = Literal["NFC", "NFD", "NFKC", "NFKD"]


#: How many runs, and characters, :meth:`Unicode.aligned` takes together before it places a
#: stretch as one, up to the next white space: composition joins two or three runs (a Hangul
#: syllable's jamo); runs that never place alone (U+0F73 after marks it reorders with) would
#: otherwise cost time cubic in their length.
_MOST_RUNS = 8
_MOST_CHARS = 64


class Unicode(Normalizer):
    """NFC, NFD, NFKC or NFKD, as HF tokenizers' normalisers: Unicode 9.0's tables
    (:func:`lbpe.unicode.normal_form`)."""

    def __init__(self, form: str) -> None:
        if form not in ("NFC", "NFD", "NFKC", "NFKD"):
            raise LbpeError(f"unknown Unicode normal form {form!r}")
        self.form = cast(UnicodeForm, form)  # checked just above

    def __call__(self, text: str) -> str:
        return normal_form(self.form, text)

    def aligned(self, text: str) -> Aligned:
        out = self(text)
        if out is text:
            return out, list(range(len(text)))
        # normalise the runs that start at a character of combining class 0 one by one; a run
        # whose result is not what the whole text has there composes with the next (Hangul's
        # jamo and a few two-part vowels are of class 0): they are taken together
        starts = [i for i, c in enumerate(text) if unicodedata.combining(c) == 0 and i] + [len(text)]
        where: list[int] = []
        first = 0  # where the runs not yet placed begin
        k = 0  # the first of starts after first
        taken = 0  # runs taken together since first
        while first < len(text):
            end = starts[k]
            part = normal_form(self.form, text[first:end])
            if end < len(text) and not out.startswith(part, len(where)):
                taken += 1
                if taken < _MOST_RUNS and end - first < _MOST_CHARS:
                    k += 1  # taken with the next run
                    continue
                # no place within reach: the stretch up to the next white space, which composes
                # with nothing (reach()), placed as one
                space = _SPACE.search(text, end)
                end = space.start() if space else len(text)
                part = normal_form(self.form, text[first:end])
                if end < len(text) and not out.startswith(part, len(where)):
                    break  # cannot happen; the rest at this stretch's start below
            where += [first] * len(part)
            first, taken = end, 0
            k = bisect.bisect_right(starts, end)
        where += [first] * (len(out) - len(where))
        if len(where) != len(out):  # a run placed too early: no offsets rather than wrong ones
            return out, [0] * len(out)
        return out, where

    def continued(self) -> Normalizer:
        return self  # composition stays within a character and its combining marks, none across a line end

    def reach(self) -> int:
        # white space has combining class 0 and composes with nothing: it bounds every change
        return 1


class Lowercase(Normalizer):
    """Each character lowercased alone, at the pinned Unicode version (:func:`lbpe.unicode.lowercase`)."""

    def __call__(self, text: str) -> str:
        return lowercase(text)

    def aligned(self, text: str) -> Aligned:
        return _per_char(text, lowercase(text), lowercase)

    def continued(self) -> Normalizer:
        return self

    def reach(self) -> int:
        return 1  # each character alone


#: Unicode's White_Space characters, which Rust's ``trim`` removes (``str.strip`` also removes
#: U+001C-U+001F)
_WHITE_SPACE = "".join(chr(c) for first, last in WHITE_SPACE_RANGES for c in range(first, last + 1))
_SPACE = re.compile(f"[{re.escape(_WHITE_SPACE)}]")


class Strip(Normalizer):
    """Remove white space (Unicode's White_Space) at the start and/or end."""

    def __init__(self, *, left: bool = True, right: bool = True) -> None:
        self.left, self.right = left, right

    def __call__(self, text: str) -> str:
        if self.left:
            text = text.lstrip(_WHITE_SPACE)
        if self.right:
            text = text.rstrip(_WHITE_SPACE)
        return text

    def aligned(self, text: str) -> Aligned:
        start = len(text) - len(text.lstrip(_WHITE_SPACE)) if self.left else 0
        end = len(text.rstrip(_WHITE_SPACE)) if self.right else len(text)
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

    def continued(self) -> Normalizer:
        return Sequence([])  # the prefix belongs to the start of the text only


class Replace(Normalizer):
    """Replace every match of a literal string (or a translated regex, from a file: run under
    the time limit of :mod:`lbpe.user_regex`) by ``content``."""

    def __init__(self, pattern: str, content: str, *, regex: bool = False, shown: str | None = None) -> None:
        self.literal = None if regex else pattern
        self.regex: UserRegex | re.Pattern[str] = (
            UserRegex(pattern, re.MULTILINE, what="the Replace normalizer's pattern", shown=shown)
            if regex
            else re.compile(re.escape(pattern))
        )
        self.content = content

    def continued(self) -> Normalizer | None:
        # a literal replacement is local unless the literal could span a line end; a pattern from
        # a file might look anywhere
        return self if self.literal is not None and "\n" not in self.literal else None

    def reach(self) -> int | None:
        return None if self.literal is None else len(self.literal)

    def __call__(self, text: str) -> str:
        if self.literal is not None:
            return text.replace(self.literal, self.content)
        return onig_sub(self.regex, self.content, text)

    def aligned(self, text: str) -> Aligned:
        out: list[str] = []
        origin: list[int] = []
        pos = 0
        for s, e in onig_spans(self.regex, text):
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
        with deadline(len(text)):  # the steps' patterns share one time allowance
            for step in self.steps:
                text = step(text)
        return text

    def continued(self) -> Normalizer | None:
        steps = [step.continued() for step in self.steps]
        return None if any(step is None for step in steps) else Sequence(steps)  # type: ignore[arg-type]

    def reach(self) -> int | None:
        reaches = [step.reach() for step in self.steps]
        return None if None in reaches else sum(reaches)  # type: ignore[arg-type]

    def aligned(self, text: str) -> Aligned:
        origin = list(range(len(text)))
        with deadline(len(text)):
            for step in self.steps:
                text, inner = step.aligned(text)
                origin = [origin[i] if i < len(origin) else len(origin) for i in inner]
        return text, origin


#: Longest key the precompiled character map is searched for, in UTF-8 bytes. Real maps have
#: keys of a few characters (nmt_nfkc: at most 10 bytes); without a bound, a corrupt or hostile
#: map whose trie loops on itself would make every lookup run to the end of the text
#: (quadratic time: 8,000 characters took 5 s).
MAX_KEY_BYTES = 64


#: A run of spaces (U+0020 only: SentencePiece squeezes no other white space).
_SPACE_RUN = re.compile(" {2,}")


class SentencePieceNormalizer(Normalizer):
    """SentencePiece's normaliser: the precompiled character map (longest match first), then
    extra white space removed, ``▁`` for spaces and a dummy ``▁`` prefix.

    The character map is a darts-clone double array over UTF-8 keys followed by the
    NUL-terminated replacement strings; an empty map means "identity".
    """

    def __init__(
        self,
        charsmap: bytes = b"",
        *,
        add_dummy_prefix: bool = True,
        remove_extra_whitespaces: bool = True,
        escape_whitespaces: bool = True,
    ) -> None:
        self.charsmap = charsmap  # as in the model file (for writing it out again)
        self.add_dummy_prefix = add_dummy_prefix
        self.remove_extra_whitespaces = remove_extra_whitespaces
        self.space = "\u2581" if escape_whitespaces else " "
        self._trie: tuple[int, ...] = ()  # the double-array trie's 32-bit cells
        self._strings = b""
        if charsmap:
            if len(charsmap) < 4:
                raise LbpeError("precompiled_charsmap is truncated")
            size = int.from_bytes(charsmap[:4], "little")
            if size % 4 or 4 + size > len(charsmap):
                raise LbpeError("precompiled_charsmap has an impossible trie size")
            raw = charsmap[4 : 4 + size]
            self._trie = tuple(int.from_bytes(raw[i : i + 4], "little") for i in range(0, size, 4))
            self._strings = charsmap[4 + size :]

    def _lookup(self, data: bytes, start: int) -> tuple[int, bytes] | None:
        """Longest key of the map that prefixes ``data[start:]``: (length, replacement)."""
        trie = self._trie
        if not trie:
            return None
        best = None
        node = 0
        cell = trie[0]
        node ^= (cell >> 10) << ((cell & (1 << 9)) >> 6)
        for k in range(start, min(len(data), start + MAX_KEY_BYTES)):
            byte = data[k]
            node ^= byte
            if node >= len(trie):
                break
            cell = trie[node]
            if (cell & ((1 << 31) | 0xFF)) != byte:
                break
            node ^= (cell >> 10) << ((cell & (1 << 9)) >> 6)
            if (cell >> 8) & 1:
                if node >= len(trie):
                    break
                value = trie[node] & ((1 << 31) - 1)
                end = self._strings.find(b"\0", value)
                best = (k - start + 1, self._strings[value : end if end >= 0 else len(self._strings)])
        return best

    def _mapped(self, text: str) -> tuple[list[str], list[int]]:
        """Apply the character map: output strings and, per string, its input char index."""
        if not self._trie:
            return list(text), list(range(len(text)))
        data = text.encode("utf-8")
        char_at: list[int] = []  # byte offset -> char index
        for i, ch in enumerate(text):
            char_at += [i] * len(ch.encode("utf-8"))
        outs: list[str] = []
        origin: list[int] = []
        pos = 0
        while pos < len(data):
            hit = self._lookup(data, pos)
            if hit is None:
                ch = text[char_at[pos]]
                outs.append(ch)
                origin.append(char_at[pos])
                pos += len(ch.encode("utf-8"))
            else:
                length, replacement = hit
                # a key always ends on a character boundary in valid maps; stay safe otherwise
                end = pos + length
                while end < len(data) and (data[end] & 0xC0) == 0x80:
                    end += 1
                outs.append(replacement.decode("utf-8", "replace"))
                origin.append(char_at[pos])
                pos = end
        return outs, origin

    def __call__(self, text: str) -> str:
        if self._trie:
            return self.aligned(text)[0]
        # Without a character map, what aligned() does character by character, on the whole
        # string: encoding needs no alignment, and building it took 95% of a mistral-7b encode.
        if self.remove_extra_whitespaces:
            text = _SPACE_RUN.sub(" ", text).strip(" ")
        if not text:
            return ""
        out = (self.space if self.add_dummy_prefix else "") + text.replace(" ", self.space)
        if self.remove_extra_whitespaces:
            while out.endswith(self.space):
                out = out[: -len(self.space)]
        return out

    def continued(self) -> Normalizer | None:
        """Without the dummy prefix; ``None`` with a character map (its keys may span a line end)
        or with extra white space removed (that drops spaces at the start of every text)."""
        if self._trie or self.remove_extra_whitespaces:
            return None
        return SentencePieceNormalizer(
            add_dummy_prefix=False, remove_extra_whitespaces=False, escape_whitespaces=self.space != " "
        )

    def aligned(self, text: str) -> Aligned:
        pieces, where = self._mapped(text)
        out: list[str] = []
        origin: list[int] = []
        squeeze = self.remove_extra_whitespaces
        k = 0
        if squeeze:  # drop leading spaces
            while k < len(pieces) and pieces[k] == " ":
                k += 1
        if k == len(pieces):
            return "", []
        if self.add_dummy_prefix:
            out.append(self.space)
            origin.append(where[k])
        prev_space = squeeze
        for piece, at in zip(pieces[k:], where[k:]):
            if prev_space:
                piece = piece.lstrip(" ")
            if piece:
                out.append(piece.replace(" ", self.space))
                origin += [at] * len(piece)
                prev_space = squeeze and piece.endswith(" ")
        text_out = "".join(out)
        if squeeze:
            while text_out.endswith(self.space) and len(text_out) > 0:
                text_out = text_out[: -len(self.space)]
                origin = origin[: len(text_out)]
        return text_out, origin
