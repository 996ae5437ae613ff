"""The model stage: turn one pre-token into vocabulary tokens.

* :mod:`lbpe.model.bpe` -- classic BPE (merge the best-ranked adjacent pair, repeat);
* :mod:`lbpe.model.lbpe` -- LBPE (place the longest vocabulary spans first).

Both are pure functions over plain data (a piece and dictionaries); they return the token
*keys* (``bytes`` slices for byte-level vocabularies, ``str`` slices for character-level ones)
in text order, so callers map them to ids or to offsets as they need.
"""

from typing import Literal

from lbpe.model.bpe import bpe_by_merges, bpe_by_rank
from lbpe.model.lbpe import longest_first

__all__ = ["MODES", "Mode", "bpe_by_rank", "bpe_by_merges", "longest_first"]

#: How a text is encoded: ``"bpe"`` (classic merges) or ``"lbpe"`` (longest tokens first).
Mode = Literal["bpe", "lbpe"]
MODES: tuple[Mode, ...] = ("bpe", "lbpe")
