"""The decoding stage: ids back to text, for vocabularies with their own rules.

A :class:`Decoder` turns ids into text; :class:`lbpe.Tokenizer` calls the one its vocabulary's
file describes (``Tokenizer(decoder=...)``) and otherwise joins the tokens' bytes and decodes
them once as UTF-8. Two decoders come from files:

* :class:`Tokens` -- a tokenizer.json's: each id becomes its token's text, then HF's decoder
  steps (each a :class:`Step`: token texts in, token texts out) run in order, and the texts are
  joined;
* :class:`SentencePiece` -- a SentencePiece model's: byte pieces decoded together, ``▁`` back
  to a space, control pieces empty, the dummy prefix dropped.

Every decoder and step is a plain object of a module-level class, so a tokenizer pickles.

>>> Tokens({0: "\u2581Hello", 1: "\u2581world"}, Metaspace("\u2581", strip_first=True))([0, 1])
'Hello world'
>>> Sequence([ByteFallback(), Fuse()])(["<0xE2>", "<0x82>", "<0xAC>", "!"])
['€!']
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping
from collections.abc import Sequence as Seq
from typing import Any

from lbpe.errors import LbpeError
from lbpe.user_regex import onig_sub

__all__ = [
    "Decoder",
    "Step",
    "Tokens",
    "SentencePiece",
    "ByteLevel",
    "ByteFallback",
    "Fuse",
    "Strip",
    "Replace",
    "Metaspace",
    "Sequence",
    "BYTE_TOKEN",
    "byte_to_char",
    "char_to_byte",
    "stand_in_bytes",
]

#: A byte-fallback token's text, ``<0xNN>``; its group is the byte in hex.
BYTE_TOKEN = re.compile(r"<0x([0-9A-Fa-f]{2})>")


def _byte_to_char() -> dict[int, str]:
    visible = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("\xa1"), ord("\xac") + 1),
        *range(ord("\xae"), ord("\xff") + 1),
    ]
    table = {b: chr(b) for b in visible}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = chr(256 + extra)
            extra += 1
    return table


#: byte value -> its GPT-2 stand-in character (byte-level vocabularies spell tokens with
#: them: ``Ġ`` for a space), and back.
byte_to_char: dict[int, str] = _byte_to_char()
char_to_byte: dict[str, int] = {c: b for b, c in byte_to_char.items()}

# each stand-in to the code point of its byte, so that latin-1 then gives the byte itself
_TO_BYTE_CODE_POINT = str.maketrans({c: chr(b) for c, b in char_to_byte.items()})
_NOT_A_STAND_IN = re.compile("[^" + "".join(map(re.escape, sorted(char_to_byte))) + "]")


def stand_in_bytes(text: str) -> bytes:
    """The bytes that GPT-2 stand-in text spells; KeyError names the first character that is
    not a stand-in. (Equal to ``bytes(char_to_byte[c] for c in text)``, and far faster.)

    >>> stand_in_bytes("\u0120caf\u00c3\u00a9")
    b' caf\xc3\xa9'
    """
    bad = _NOT_A_STAND_IN.search(text)
    if bad is not None:
        raise KeyError(bad.group())
    return text.translate(_TO_BYTE_CODE_POINT).encode("latin-1")


def _each_bad_byte(exc: UnicodeError) -> tuple[str, int]:
    """An error handler for :meth:`bytes.decode`: one U+FFFD for the first byte that starts no
    character, decoding going on at the next byte (Python's ``"replace"`` gives one for a whole
    cut sequence)."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return "\ufffd", exc.start + 1


#: SentencePiece's decoding of bytes that are not UTF-8: U+FFFD for each byte that starts no
#: character (``b"\xf0\xa0"``, a character cut after two bytes, gives two)
EACH_BAD_BYTE = "lbpe.each_bad_byte"
codecs.register_error(EACH_BAD_BYTE, _each_bad_byte)


class Decoder:
    """Ids -> text. Raises :class:`lbpe.errors.LbpeError` for an id not in the vocabulary.
    ``errors`` is how bytes that are not UTF-8 are decoded, as for :meth:`bytes.decode`
    (``"replace"``: as the vocabulary's own library does; ``"strict"`` raises
    :class:`UnicodeDecodeError`)."""

    def __call__(self, ids: Seq[int], *, errors: str = "replace") -> str:
        raise NotImplementedError


class Step:
    """One of HF's decoder steps: the tokens' texts -> texts (fewer, when it joins them);
    ``errors`` as for :class:`Decoder` (only the steps that decode bytes read it)."""

    def __call__(self, tokens: list[str], *, errors: str = "replace") -> list[str]:
        raise NotImplementedError


class Tokens(Decoder):
    """A tokenizer.json's decoding: ids -> token texts (``id_to_text``), then ``step`` (none:
    the texts as they are), joined."""

    def __init__(self, id_to_text: Mapping[int, str], step: Step | None = None) -> None:
        self.id_to_text = id_to_text
        self.step = step

    def __call__(self, ids: Seq[int], *, errors: str = "replace") -> str:
        try:
            tokens = [self.id_to_text[i] for i in ids]
        except KeyError as exc:
            raise LbpeError(f"token id {exc.args[0]!r} is not in the vocabulary") from None
        return "".join(tokens if self.step is None else self.step(tokens, errors=errors))


class SentencePiece(Decoder):
    """SentencePiece's decoding. ``surfaces``: each id's text (``None``: a byte piece, whose
    byte is in ``byte_of``; ``""``: a control piece); ``space``: the piece spelling of a space
    (``▁``, or ``" "`` when white space is not escaped). At the very start one ``space`` is
    dropped (``dummy``: the dummy prefix), or all of them (``squeeze``: extra white space is
    removed on encoding); control pieces do not end the start. With ``errors="replace"``, bytes
    that are not UTF-8 give one U+FFFD for each byte that starts no character, as SentencePiece
    gives.

    >>> SentencePiece({0: "", 1: "\u2581a", 2: None}, {2: 0x21}, dummy=True)([0, 1, 2])
    'a!'
    """

    def __init__(
        self,
        surfaces: Mapping[int, str | None],
        byte_of: Mapping[int, int],
        *,
        space: str = "\u2581",
        dummy: bool = True,
        squeeze: bool = False,
    ) -> None:
        self.surfaces, self.byte_of = surfaces, byte_of
        self.space, self.dummy, self.squeeze = space, dummy, squeeze

    def __call__(self, ids: Seq[int], *, errors: str = "replace") -> str:
        surfaces, byte_of, space = self.surfaces, self.byte_of, self.space
        if errors == "replace":
            errors = EACH_BAD_BYTE
        out: list[str] = []
        pending = bytearray()
        at_start = True
        for i in ids:
            if i not in surfaces:
                raise LbpeError(f"token id {i!r} is not in the vocabulary (ids run from 0 to {len(surfaces) - 1})")
            if i in byte_of:
                pending.append(byte_of[i])
                at_start = False
                continue
            if pending:
                out.append(pending.decode("utf-8", errors))
                pending.clear()
            piece = surfaces[i] or ""
            if piece:
                if at_start and (self.dummy or self.squeeze) and piece.startswith(space):
                    piece = piece.lstrip(space) if self.squeeze else piece[len(space) :]
                at_start = at_start and self.squeeze and not piece
                piece = piece.replace(space, " ")
            out.append(piece)
        if pending:
            out.append(pending.decode("utf-8", errors))
        return "".join(out)


class ByteLevel(Step):
    """GPT-2's byte-level text (``Ġ`` for a space, ...) back to bytes, decoded together; a
    character outside that alphabet stands for its own UTF-8 bytes.

    >>> ByteLevel()(["\u0120caf", "\u00c3\u00a9"])
    [' café']
    """

    def __call__(self, tokens: list[str], *, errors: str = "replace") -> list[str]:
        tokens = list(tokens)  # read twice below: an iterator would be empty the second time
        try:  # every token byte-level text (the usual case): all at once
            return [stand_in_bytes("".join(tokens)).decode("utf-8", errors)]
        except KeyError:
            pass
        data = bytearray()
        for t in tokens:
            try:
                data += stand_in_bytes(t)
            except KeyError:
                data += t.encode("utf-8")
        return [data.decode("utf-8", errors)]


class ByteFallback(Step):
    """Runs of ``<0xNN>`` tokens become the text of their bytes; with ``errors="replace"``, a run
    that is not valid UTF-8 becomes one U+FFFD per byte (as HF's ByteFallback decoder does),
    otherwise it is decoded with ``errors``.

    >>> ByteFallback()(["<0xE2>", "<0x82>", "a", "<0xFF>"])
    ['\ufffd', '\ufffd', 'a', '\ufffd']
    """

    def __call__(self, tokens: list[str], *, errors: str = "replace") -> list[str]:
        out: list[str] = []
        pending = bytearray()

        def flush() -> None:
            if pending:
                try:
                    out.append(pending.decode("utf-8"))
                except UnicodeDecodeError:
                    if errors != "replace":
                        out.append(pending.decode("utf-8", errors))
                    else:
                        out.extend("\ufffd" for _ in pending)
                pending.clear()

        for t in tokens:
            m = BYTE_TOKEN.fullmatch(t)
            if m:
                pending.append(int(m.group(1), 16))
            else:
                flush()
                out.append(t)
        flush()
        return out


class Fuse(Step):
    """All texts joined into one."""

    def __call__(self, tokens: list[str], *, errors: str = "replace") -> list[str]:
        return ["".join(tokens)]


class Strip(Step):
    """At most ``start`` copies of ``content`` off the front of each text, ``stop`` off its end.

    >>> Strip(" ", 1, 0)(["  a ", "b"])
    [' a ', 'b']
    """

    def __init__(self, content: str = " ", start: int = 0, stop: int = 0) -> None:
        self.content, self.start, self.stop = content, start, stop

    def __call__(self, tokens: list[str], *, errors: str = "replace") -> list[str]:
        out = []
        for t in tokens:
            a = 0
            while a < self.start and a < len(t) and t[a] == self.content:
                a += 1
            b = len(t)
            while len(t) - b < self.stop and b > a and t[b - 1] == self.content:
                b -= 1
            out.append(t[a:b])
        return out


class Replace(Step):
    """Every match of ``pattern`` (a compiled ``re`` pattern, or a :class:`lbpe.user_regex.UserRegex`
    for a file's own regular expression) in each text replaced by ``content``, taken literally."""

    def __init__(self, pattern: Any, content: str) -> None:
        self.pattern, self.content = pattern, content

    def __call__(self, tokens: list[str], *, errors: str = "replace") -> list[str]:
        return [onig_sub(self.pattern, self.content, t) for t in tokens]


class Metaspace(Step):
    """``replacement`` (``▁``) back to a space; with ``strip_first`` (a prefix scheme), the first
    text's are dropped instead, as HF's decoder does (its prefix among them).

    >>> Metaspace("\u2581", strip_first=True)(["\u2581a", "\u2581b\u2581c"])
    ['a', ' b c']
    """

    def __init__(self, replacement: str = "\u2581", *, strip_first: bool = True) -> None:
        self.replacement, self.strip_first = replacement, strip_first

    def __call__(self, tokens: list[str], *, errors: str = "replace") -> list[str]:
        out = [t.replace(self.replacement, " ") for t in tokens]
        if out and self.strip_first:
            out[0] = tokens[0].replace(self.replacement, "")
        return out


class Sequence(Step):
    """``steps`` in order."""

    def __init__(self, steps: Seq[Step]) -> None:
        self.steps = tuple(steps)

    def __call__(self, tokens: list[str], *, errors: str = "replace") -> list[str]:
        for step in self.steps:
            tokens = step(tokens, errors=errors)
        return tokens
