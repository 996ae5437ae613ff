"""The project's exceptions. All are ``ValueError`` subclasses, so ``except ValueError`` works."""

from __future__ import annotations

__all__ = [
    "LbpeError",
    "VocabFormatError",
    "DisallowedSpecialError",
    "NotUtf8Error",
    "VocabSizeError",
    "NoTokenError",
    "UnknownTokenError",
    "no_token_error",
]


class LbpeError(ValueError):
    """Base class of every error raised on bad input by this package."""


class VocabFormatError(LbpeError):
    """A vocabulary file could not be read; the message names the file, the line and the fix."""

    def __init__(self, source: str, problem: str, *, line: int | None = None) -> None:
        self.source = source
        self.line = line
        self.problem = problem
        where = f"{source}, line {line}" if line is not None else source
        super().__init__(f"{where}: {problem}")


class PatternNeededError(VocabFormatError):
    """A rank file whose name does not tell its pre-tokenizer: the caller must choose one
    (``lbpe.load(..., pattern=...)``; the app and the page ask for it in their menu)."""


class UnknownTokenError(LbpeError, KeyError):
    """No token has these bytes, or this id (:meth:`lbpe.Tokenizer.encode_single_token` and
    :meth:`~lbpe.Tokenizer.decode_single_token_bytes`); also a ``KeyError``, as tiktoken raises."""

    def __str__(self) -> str:  # the message as it is (a KeyError's str() would quote it)
        return str(self.args[0]) if self.args else ""


class DisallowedSpecialError(LbpeError):
    """Text contains a special-token string that the caller did not allow."""

    def __init__(self, token: str) -> None:
        self.token = token
        super().__init__(
            f"the text contains the special token {token!r}, which is disallowed. "
            f'To encode it as the special token pass allowed_special={{{token!r}}} (or "all"); '
            f"to encode it as ordinary text pass disallowed_special=() (or use encode_ordinary)."
        )

    def __reduce__(self):  # pickles intact, so it reaches the caller of a multiprocessing pool
        return (type(self), (self.token,))


class NotUtf8Error(LbpeError):
    """Input that should be UTF-8 text is not (raised by :mod:`lbpe.corpus.textio`, the one reader of
    UTF-8 text). ``source`` names the input -- a file, or one line of it as ``file:N`` --
    ``byte`` is the first bad byte and ``offset`` its offset in bytes from the start of what
    ``source`` names."""

    def __init__(self, source: str, byte: int, offset: int, *, utf16: bool = False) -> None:
        self.source = source
        self.byte = byte
        self.offset = offset
        self.utf16 = utf16  # it starts with a UTF-16 byte-order mark
        if utf16:
            super().__init__(
                f"{source}: UTF-16 text, not UTF-8 (it starts with a UTF-16 byte-order mark); convert it to "
                "UTF-8 first (e.g. iconv -f UTF-16 -t UTF-8)"
            )
            return
        super().__init__(
            f"{source}: not UTF-8 text (byte 0x{byte:02x} at offset {offset}); "
            "convert it to UTF-8 first (e.g. iconv -t UTF-8)"
        )

    def __reduce__(self):  # pickles intact, so it reaches the caller of a multiprocessing pool
        return (_not_utf8, (self.source, self.byte, self.offset, self.utf16))


def _not_utf8(source: str, byte: int, offset: int, utf16: bool) -> NotUtf8Error:
    return NotUtf8Error(source, byte, offset, utf16=utf16)


class VocabSizeError(LbpeError):
    """A training asked for fewer tokens than its base tokens (raised by :func:`lbpe.train`).
    ``vocab_size`` is what was asked, ``base`` how many base tokens the corpus and options give,
    ``kind`` the vocabulary's kind (``"a byte-level vocabulary"``), ``parts`` what the base tokens
    are (``"256 byte-fallback + 9 characters"``) and ``hint`` an option that makes them fewer."""

    def __init__(self, vocab_size: int, base: int, kind: str, parts: str, hint: str = "") -> None:
        self.vocab_size, self.base, self.kind, self.parts, self.hint = vocab_size, base, kind, parts, hint
        told = f"{parts}; {hint}" if hint else parts
        super().__init__(
            f"vocab_size {vocab_size} (CLI: --vocab-size) is smaller than the {base} base tokens of {kind} ({told})"
        )

    def __reduce__(self):  # pickles intact, so it reaches the caller of a multiprocessing pool
        return (type(self), (self.vocab_size, self.base, self.kind, self.parts, self.hint))


class NoTokenError(LbpeError):
    """A character has no token in a vocabulary with neither byte-fallback tokens nor an
    unknown token (HF tokenizers drops such a character; lbpe says so)."""


def no_token_error(char: str, name: str) -> NoTokenError:
    """The error for a character that has no token in a vocabulary with neither byte-fallback
    tokens nor an unknown token (raised by both encoding paths)."""
    return NoTokenError(
        f"the character {char!r} has no token in vocabulary {name or '(unnamed)'}, which has neither "
        "byte-fallback tokens nor an unknown token"
    )
