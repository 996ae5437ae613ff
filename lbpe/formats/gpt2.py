"""GPT-2's ``encoder.json`` (token text -> id) and ``vocab.bpe`` (the merge list), parsed into a
:class:`~lbpe.vocab.Vocab` by :func:`parse_gpt2_vocab`.

Both files spell bytes with GPT-2's printable stand-ins (``bytes_to_unicode``): each of the
256 byte values maps to one visible character, so that ``"\\u0120"`` (``Ġ``) is a space.
"""

from __future__ import annotations

from lbpe.decoders import stand_in_bytes
from lbpe.errors import LbpeError, VocabFormatError
from lbpe.formats._json import json_type, load_json
from lbpe.limits import vocab_problem
from lbpe.vocab import Vocab

__all__ = ["parse_gpt2_vocab", "parse_merges_text"]


def decode_symbol(text: str, *, source: str, line: int | None = None) -> bytes:
    """GPT-2 stand-in text -> the bytes it stands for."""
    try:
        return stand_in_bytes(text)
    except KeyError as exc:
        raise VocabFormatError(
            source,
            f"{text[:60]!r} contains {exc.args[0]!r}, which is not a GPT-2 byte stand-in character "
            "(encoder.json and vocab.bpe spell bytes with bytes_to_unicode)",
            line=line,
        ) from None


def parse_merges_text(text: str, *, source: str) -> list[tuple[int, str, str]]:
    """Parse ``vocab.bpe``: an optional ``#version`` line, then one ``left right`` pair per line.

    Returns ``(line number, left, right)`` in file order.
    """
    merges: list[tuple[int, str, str]] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip() or (lineno == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise VocabFormatError(source, f"expected 'left right', found {line[:60]!r}", line=lineno)
        merges.append((lineno, parts[0], parts[1]))
    return merges


def parse_gpt2_vocab(
    encoder_json: bytes, vocab_bpe: bytes, *, encoder_source: str, merges_source: str, name: str = ""
) -> Vocab:
    """Build the vocabulary from the two files' bytes.

    Tokens of the form ``<|...|>`` in ``encoder.json`` become special tokens. Merge priority is
    the line order of ``vocab.bpe``, as in GPT-2's own encoder.
    """
    encoder = load_json(encoder_json, source=encoder_source)
    if not isinstance(encoder, dict) or not encoder:
        found = "an empty object" if encoder == {} else json_type(encoder)
        raise VocabFormatError(
            encoder_source, f"expected a non-empty JSON object mapping token text to id, found {found}"
        )
    problem = vocab_problem(len(encoder), max((i for i in encoder.values() if type(i) is int), default=None))
    if problem:
        raise VocabFormatError(encoder_source, problem)
    tokens: dict[bytes, int] = {}
    special: dict[str, int] = {}
    for text, i in encoder.items():
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise VocabFormatError(
                encoder_source,
                f"token {text[:40]!r} has id {i!r:.40} ({json_type(i)}); ids must be non-negative integers",
            )
        if text.startswith("<|") and text.endswith("|>") and len(text) > 4:
            special[text] = i
            continue
        key = decode_symbol(text, source=encoder_source)
        if key in tokens:
            raise VocabFormatError(encoder_source, f"two entries decode to the same bytes {key!r}")
        tokens[key] = i
    try:
        merge_text = vocab_bpe.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VocabFormatError(
            merges_source, f"not UTF-8 text (byte 0x{vocab_bpe[exc.start]:02x} at offset {exc.start}); save it as UTF-8"
        ) from None
    merges: dict[tuple[bytes, bytes], int] = {}
    merge_line: dict[tuple[bytes, bytes], int] = {}
    for rank, (lineno, left, right) in enumerate(parse_merges_text(merge_text, source=merges_source)):
        a = decode_symbol(left, source=merges_source, line=lineno)
        b = decode_symbol(right, source=merges_source, line=lineno)
        if a not in tokens or b not in tokens or a + b not in tokens:
            missing = next(t for t in (a, b, a + b) if t not in tokens)
            raise VocabFormatError(
                merges_source,
                f"merge '{left[:40]} {right[:40]}' needs the token {missing[:60]!r}, which is not in {encoder_source}",
                line=lineno,
            )
        if (a, b) in merges:
            raise VocabFormatError(
                merges_source,
                f"merge '{left[:40]} {right[:40]}' appears twice (first on line {merge_line[(a, b)]}); "
                "each pair may appear once",
                line=lineno,
            )
        merges[(a, b)] = rank
        merge_line[(a, b)] = lineno
    try:
        return Vocab(tokens, special=special, merges=merges, name=name)
    except LbpeError as exc:
        raise VocabFormatError(encoder_source, str(exc)) from None
