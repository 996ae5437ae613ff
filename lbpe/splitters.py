"""The composable HF pre-tokenisers, under their first import path.

They live in :mod:`lbpe.pretokenize.splitters` (the splitters) and :mod:`lbpe.pretokenize.onig`
(the Oniguruma -> ``re`` translation); this module re-exports both so that
``from lbpe.splitters import Split, translate_regex`` keeps working.
"""

from __future__ import annotations

from lbpe.pretokenize.onig import UnsupportedRegex, translate_regex
from lbpe.pretokenize.splitters import (
    BEHAVIORS,
    ByteLevel,
    Digits,
    Metaspace,
    Punctuation,
    Regex,
    Sequence,
    Split,
    Splitter,
    WhitespaceSplit,
)

__all__ = [
    "Splitter",
    "Regex",
    "Split",
    "ByteLevel",
    "Metaspace",
    "Digits",
    "Punctuation",
    "WhitespaceSplit",
    "Sequence",
    "translate_regex",
    "UnsupportedRegex",
    "BEHAVIORS",
]
