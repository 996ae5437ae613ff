"""The check of ``decode(errors="strict")`` against a library's own decoding, shared by the
parity tests of each vocabulary format."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest


def check_strict_decode(
    tok, decode: Callable[[list[int]], str], known: Sequence[int], single: Sequence[int], *, tries: int
) -> int:
    """Decode ``tries`` random id sequences (half drawn from ``known``, half from ``single``: ids
    of one byte, which may be half a character) with ``errors="strict"``: it must raise exactly
    when the ids' bytes are not UTF-8, and otherwise equal ``decode`` (the library's). Returns how
    many raised."""
    rng = random.Random(5)
    raised = 0
    for _ in range(tries):
        ids = rng.choices(known if rng.random() < 0.5 else single, k=rng.randrange(1, 5))
        try:
            tok.decode_bytes(ids).decode("utf-8")
        except UnicodeDecodeError:
            raised += 1
            with pytest.raises(UnicodeDecodeError):
                tok.decode(ids, errors="strict")
        else:
            assert tok.decode(ids, errors="strict") == decode(ids), ids
    return raised
