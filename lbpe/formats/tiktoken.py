"""``.tiktoken`` rank files: one ``<base64 token> <rank>`` pair per line, parsed into a
:class:`~lbpe.vocab.Vocab` by :func:`parse_tiktoken_vocab`.

The rank is both the token id and its merge priority. The files carry no special tokens and no
pre-tokeniser, so both come from the encoding's name: the pre-tokeniser preset named so
(:func:`lbpe.pretokenize.presets.openai_encoding`) carries them.

>>> import base64
>>> lines = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)] + [b"YWI= 256"]
>>> vocab = parse_tiktoken_vocab(b"\\n".join(lines), source="tiny.tiktoken")
>>> vocab.tokens[b"ab"], len(vocab.tokens)
(256, 257)
"""

from __future__ import annotations

import binascii
import re

from lbpe import native
from lbpe.errors import LbpeError, VocabFormatError
from lbpe.limits import vocab_problem
from lbpe.vocab import Vocab

__all__ = ["parse_tiktoken_vocab"]


def parse_tiktoken_vocab(
    data: bytes,
    *,
    source: str,
    special: dict[str, int] | None = None,
    name: str = "",
) -> Vocab:
    """Parse the bytes of a rank file. ``source`` names the file in error messages."""
    if not data or data.isspace():
        raise VocabFormatError(source, "the file is empty; a .tiktoken file has one '<base64 token> <rank>' per line")
    problem = vocab_problem(data.count(b"\n") + (not data.endswith(b"\n")))  # before the slow part
    if problem:
        raise VocabFormatError(source, problem)
    tokens = native.parse_ranks(data)  # the same tokens as _well_formed, in C
    checked = tokens is not None  # ... with non-empty keys and distinct ranks
    if tokens is None:
        tokens = _well_formed(data)
    if tokens is None:
        tokens = _parse_lines(data, source)
    seen_ranks = tokens.values()
    top = max(seen_ranks)
    problem = vocab_problem(len(tokens), top)
    if problem:
        raise VocabFormatError(source, problem)
    special = dict(special or {})
    # distinct ranks up to len - 1 are every rank from 0 on (OpenAI's files)
    ranks = range(len(tokens)) if checked and top == len(tokens) - 1 else set(seen_ranks)
    # (an id that is no whole number is left to Vocab, which says so)
    clash = {t: i for t, i in special.items() if isinstance(i, int) and not isinstance(i, bool) and i in ranks}
    if clash:
        raise VocabFormatError(source, f"special token ids {clash} collide with ranks in the file")
    try:
        return Vocab(tokens, special=special, name=name, _ids=ranks if checked else None)
    except LbpeError as exc:
        raise VocabFormatError(source, str(exc)) from None


#: One token as canonical base64 (RFC 4648: whole groups of four, padding only to end the last).
#: Checked here rather than by ``a2b_base64(strict_mode=True)``, which Python 3.10 lacks and whose
#: rules moved between versions: one rule on every Python.
_TOKEN = rb"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)"
_CANONICAL = re.compile(_TOKEN)
#: A whole rank file with nothing unusual: every line one base64 token, one space, a rank.
_WELL_FORMED = re.compile(rb"(?:%s [0-9]{1,18}\n)*%s [0-9]{1,18}\n?" % (_TOKEN, _TOKEN))


def _well_formed(data: bytes) -> dict[bytes, int] | None:
    """The tokens of a file that is well formed throughout, read in bulk (C loops); ``None``
    when anything is unusual, and :func:`_parse_lines` then finds and names the problem."""
    if _WELL_FORMED.fullmatch(data) is None:
        return None
    fields = data.split()
    try:
        keys = list(map(binascii.a2b_base64, fields[0::2]))  # canonical, as the pattern checked
    except (binascii.Error, ValueError):
        return None
    tokens = dict(zip(keys, map(int, fields[1::2])))
    if len(tokens) != len(keys) or len(set(tokens.values())) != len(keys) or not all(keys):
        return None  # a token or a rank appears twice, or a token is empty
    return tokens


def _decode_token(encoded: bytes) -> bytes:
    """The bytes of one base64 token; ``binascii.Error`` unless it is canonical (:data:`_TOKEN`)."""
    if _CANONICAL.fullmatch(encoded) is None:
        raise binascii.Error("not canonical base64")
    return binascii.a2b_base64(encoded)


def _parse_lines(data: bytes, source: str) -> dict[bytes, int]:
    """Line by line, naming the first problem (with its line number)."""
    tokens: dict[bytes, int] = {}
    seen_ranks: dict[int, int] = {}
    for lineno, raw in enumerate(data.splitlines(), 1):
        if not raw.strip():
            continue
        fields = raw.split()
        if len(fields) != 2:
            raise VocabFormatError(
                source,
                f"expected '<base64 token> <rank>', found {len(fields)} field(s): {raw[:60]!r}",
                line=lineno,
            )
        encoded, rank_text = fields
        try:
            token = _decode_token(encoded)
        except (binascii.Error, ValueError):
            raise VocabFormatError(source, f"{encoded[:40]!r} is not valid base64", line=lineno) from None
        if not token:
            raise VocabFormatError(source, "a token decodes to zero bytes", line=lineno)
        if not rank_text.isdigit():
            raise VocabFormatError(source, f"rank {rank_text[:20]!r} is not a non-negative integer", line=lineno)
        if len(rank_text) > 18:
            raise VocabFormatError(
                source, f"rank {rank_text[:20].decode()}... is too large to be a token id", line=lineno
            )
        rank = int(rank_text)
        if token in tokens:
            raise VocabFormatError(source, f"token {token[:40]!r} appears twice (again with rank {rank})", line=lineno)
        if rank in seen_ranks:
            raise VocabFormatError(source, f"rank {rank} appears twice (first on line {seen_ranks[rank]})", line=lineno)
        tokens[token] = rank
        seen_ranks[rank] = lineno
    if not tokens:
        raise VocabFormatError(source, "the file has no '<base64 token> <rank>' lines")
    return tokens
