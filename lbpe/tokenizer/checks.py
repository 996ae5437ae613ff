"""The tokenizer's input checks: a text is a ``str``, a mode is ``"bpe"`` or ``"lbpe"``, a
worker count is a whole number, and a text holds no lone surrogate by the time it is encoded
(:func:`replace_surrogates`)."""

from __future__ import annotations

import os
import re

from lbpe.errors import LbpeError
from lbpe.model import MODES, Mode

__all__ = ["check_mode", "checked_text", "checked_workers", "replace_surrogates"]


def check_mode(mode: str) -> Mode:
    if mode not in MODES:
        raise LbpeError(f"mode must be 'bpe' or 'lbpe', not {mode!r}")
    return mode


_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_surrogates(text: str) -> str:
    """Text that UTF-8 can encode: surrogate pairs joined, lone surrogates -> U+FFFD (as tiktoken)."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def checked_text(text: object) -> str:
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}; decode bytes first")
    return text


def checked_workers(workers: object) -> int:
    """``encode_batch``'s ``workers``: a whole number >= 1, or ``None`` for one per core."""
    if workers is None:
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise LbpeError(f"workers must be a whole number >= 1 or None (one per core), not {workers!r}")
    return workers
