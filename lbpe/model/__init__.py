"""The model stage: turn one pre-token into vocabulary tokens.

* :mod:`lbpe.model.bpe` -- classic BPE (merge the best-ranked adjacent pair, repeat);
* :mod:`lbpe.model.lbpe` -- LBPE (place the longest vocabulary spans first);
* :mod:`lbpe.model.greedy` -- longest-prefix and longest-suffix (greedy longest match);
* :mod:`lbpe.model.shortest` -- least-tokens (the fewest tokens, with a stated tie rule);
* :mod:`lbpe.model.dropout` -- BPE-dropout (classic BPE, each merge skipped at random).

All are pure functions over plain data (a piece and dictionaries); they return the token
*keys* (``bytes`` slices for byte-level vocabularies, ``str`` slices for character-level ones)
in text order, so callers map them to ids or to offsets as they need.
"""

from typing import Literal

from lbpe.model.bpe import bpe_by_merges, bpe_by_rank
from lbpe.model.dropout import bpe_dropout, dropout_by_merges, dropout_by_rank
from lbpe.model.greedy import build_suffix_index, longest_prefix, longest_suffix
from lbpe.model.lbpe import longest_first
from lbpe.model.shortest import least_tokens

__all__ = [
    "MODES",
    "Mode",
    "METHODS",
    "Method",
    "bpe_by_rank",
    "bpe_by_merges",
    "longest_first",
    "longest_prefix",
    "longest_suffix",
    "build_suffix_index",
    "least_tokens",
    "bpe_dropout",
    "dropout_by_rank",
    "dropout_by_merges",
]

#: The two classic ways a text is encoded, which the comparisons, statistics, exports and the
#: playground work with: ``"bpe"`` (classic merges) or ``"lbpe"`` (longest tokens first).
Mode = Literal["bpe", "lbpe"]
MODES: tuple[Mode, ...] = ("bpe", "lbpe")

#: Every inference method ``Tokenizer.encode`` offers over any vocabulary: the two modes, then
#: greedy longest match from the left or the right, the fewest tokens, and BPE-dropout.
Method = Literal["bpe", "lbpe", "longest-prefix", "longest-suffix", "least-tokens", "dropout"]
METHODS: tuple[Method, ...] = ("bpe", "lbpe", "longest-prefix", "longest-suffix", "least-tokens", "dropout")
