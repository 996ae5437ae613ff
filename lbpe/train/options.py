"""The training options as one value: :class:`TrainOptions`, checked once when it is made, and
:func:`train_options`, which takes either one or the keywords :func:`lbpe.train` has always taken."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lbpe.decoders import char_to_byte
from lbpe.errors import LbpeError
from lbpe.pretokenize import resolve_pattern
from lbpe.vocab import Unit

__all__ = ["TrainOptions", "train_options", "STYLES"]

#: Training styles: ``"gpt2"`` (a regex pre-tokeniser preset) and ``"llama"`` (SentencePiece's way).
STYLES = ("gpt2", "llama")


@dataclass(frozen=True, kw_only=True)
class TrainOptions:
    """What to train: the options of :func:`lbpe.train` and :func:`lbpe.train.train_from_counts`
    as one value, checked when it is made (:class:`~lbpe.errors.LbpeError`, or ``TypeError`` for a
    value of the wrong type). ``special_tokens`` is kept as a tuple. ``pattern`` is the counting's:
    :func:`~lbpe.train.train_from_counts` takes pieces already counted and leaves it aside.

    >>> o = TrainOptions(vocab_size=300)
    >>> o.unit, o.style, o.scaffold, o.special_tokens
    ('char', 'gpt2', False, ())
    >>> TrainOptions(vocab_size=300, special_tokens=["<s>"]) == TrainOptions(vocab_size=300, special_tokens=("<s>",))
    True
    """

    #: Every normal token: special tokens, the 256 byte tokens, base characters and merged tokens.
    vocab_size: int
    #: ``"char"`` (characters with byte fallback) or ``"byte"``.
    unit: Unit = "char"
    #: One of :data:`STYLES`.
    style: str = "gpt2"
    #: The gpt2 style's pre-tokeniser: a preset name or a compiled pattern (``None``: ``"paper"``).
    pattern: str | re.Pattern[str] | None = None
    #: Scaffold-BPE (docs/training.md, "Scaffold-BPE").
    scaffold: bool = False
    #: Special tokens, at the first ids (after LLaMA's three in the llama style).
    special_tokens: tuple[str, ...] = ()
    #: Character units: keep only this many characters, the most frequent.
    max_chars: int | None = None
    #: Character units: keep the most frequent characters that make up this share (SentencePiece's option).
    character_coverage: float | None = None

    def __post_init__(self) -> None:
        unit, max_chars, character_coverage = self.unit, self.max_chars, self.character_coverage
        if unit not in ("byte", "char"):
            raise LbpeError(f"unit must be 'byte' or 'char', not {unit!r}")
        if not isinstance(self.vocab_size, int) or isinstance(self.vocab_size, bool):
            raise TypeError(f"vocab_size must be an int, not {type(self.vocab_size).__name__}")
        if max_chars is not None and (not isinstance(max_chars, int) or max_chars < 1):
            raise LbpeError(f"max_chars must be a positive int or None, not {max_chars!r} (CLI: --max-chars)")
        if character_coverage is not None and (
            isinstance(character_coverage, bool)
            or not isinstance(character_coverage, (int, float))
            or not 0 < character_coverage <= 1
        ):
            raise LbpeError(
                f"character_coverage must be a number above 0 and at most 1 (e.g. 0.99995) or None, "
                f"not {character_coverage!r} (CLI: --character-coverage)"
            )
        if unit == "byte" and (max_chars is not None or character_coverage is not None):
            raise LbpeError(
                "max_chars and character_coverage choose the characters of unit='char'; with unit='byte' "
                "the 256 bytes are the base units: leave them out (CLI: --max-chars, --character-coverage)"
            )
        _check_style(self.style)
        object.__setattr__(self, "special_tokens", _check_specials(self.special_tokens))
        _check_specials_apart(self.special_tokens, unit)
        if self.style == "llama":
            if self.pattern is not None:
                raise LbpeError("style='llama' has no regex pre-tokeniser: leave out pattern (CLI: --pattern)")
            if unit != "char":
                raise LbpeError(
                    "style='llama' trains characters with byte fallback: use unit='char' (CLI: --unit char)"
                )
        elif self.pattern is not None:
            try:
                resolve_pattern(self.pattern)  # a preset is compiled once per process
            except ValueError as exc:
                raise LbpeError(str(exc)) from None


def train_options(options: TrainOptions | None, keywords: dict[str, Any], *, where: str) -> TrainOptions:
    """``options``, or the :class:`TrainOptions` of ``keywords`` (those given: not ``None``),
    for ``where`` (the function taking them); one way or the other, never both."""
    given = {name: value for name, value in keywords.items() if value is not None}
    if options is None:
        if "vocab_size" not in given:
            raise TypeError(f"{where}() needs vocab_size=N, or options=TrainOptions(vocab_size=N, ...)")
        return TrainOptions(**given)
    if not isinstance(options, TrainOptions):
        raise TypeError(f"options must be a TrainOptions, not {type(options).__name__}")
    if given:
        raise LbpeError(
            f"{where}() takes the training options either as options=TrainOptions(...) or as keywords, not "
            f"both: move {', '.join(f'{name}=' for name in given)} into the TrainOptions"
        )
    return options


def _check_style(style: str) -> None:
    if style not in STYLES:
        raise LbpeError(f"style must be one of {', '.join(map(repr, STYLES))}, not {style!r}")


def _check_specials(special_tokens: Iterable[str]) -> tuple[str, ...]:
    if isinstance(special_tokens, str):
        raise TypeError("special_tokens must be an iterable of strings, e.g. ['<|endoftext|>'], not one string")
    specials = tuple(special_tokens)
    for s in specials:
        if not isinstance(s, str) or not s:
            raise LbpeError(f"special token {s!r} must be a non-empty string")
    if len(set(specials)) != len(specials):
        raise LbpeError(f"special tokens repeat: {sorted(s for s in set(specials) if specials.count(s) > 1)}")
    return specials


def _check_specials_apart(specials: tuple[str, ...], unit: str) -> None:
    """A special token must be no base token: with unit="byte", the spelling of one byte in
    tokenizer.json (GPT-2's byte alphabet: ``a``, ``§``, ``Ċ`` for a line end); with unit="char",
    one character (a character of the text is a token of its own) or a byte fallback token's
    spelling (``<0x0A>``). A tokenizer.json lists every token by its text, and two ids with one
    text cannot both be read back. (No merge makes a special's text: see
    :func:`lbpe.train.merge.train_from_counts`.)"""
    for s in specials:
        if unit == "byte" and len(s) == 1 and s in char_to_byte:
            what = f"how tokenizer.json spells byte 0x{char_to_byte[s]:02X}, a token of its own"
        elif unit == "char" and len(s) == 1:
            what = "one character, a token of its own where the text has it"
        elif unit == "char" and re.fullmatch("<0x[0-9A-F]{2}>", s):
            what = f"spelled as byte {s[1:5]}'s byte-fallback token"
        else:
            continue
        name = s.strip("<>")
        example = f"<|{name}|>" if name.isascii() and name.isalnum() else "<|sep|>"
        raise LbpeError(
            f"special token {s!r} is {what}; a tokenizer.json holds one id per text: give a special "
            f"that is no single unit, e.g. {example!r} (CLI: --special, --bos, --eos, --pad, --unk)"
        )
