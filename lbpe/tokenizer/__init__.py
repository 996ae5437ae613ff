"""The pipeline: pre-tokenise -> encode each piece (cached) -> ids, and back.

This package owns :class:`Tokenizer` (special and added tokens, the normaliser, the
pre-tokeniser, the model stage per piece with its caches, decoding, segments for display) and
:class:`Segment`, one token located in the text. One module per job:

* :mod:`lbpe.tokenizer.core` -- :class:`Tokenizer`: its state, pickling and the orchestration
  of the stages;
* :mod:`lbpe.tokenizer.specials` -- special and added tokens found in a text, with the
  ``allowed_special`` / ``disallowed_special`` checks;
* :mod:`lbpe.tokenizer.keys` -- the model stage on the pure path: a piece's keys (by parts,
  cached), their ids, the piece cache;
* :mod:`lbpe.tokenizer.compiled` -- the calls of the compiled path: a text's ids, a batch on
  threads;
* :mod:`lbpe.tokenizer.offsets` -- :class:`Segment` and the segments and pieces placed in the
  text;
* :mod:`lbpe.tokenizer.cuts` -- where a long text can be cut so that its parts encode like the
  whole (``safe_cut``, ``continued``);
* :mod:`lbpe.tokenizer.checks` -- input checks (text, mode, workers) and :func:`replace_surrogates`.

>>> from lbpe.vocab import Vocab
>>> tokens = {bytes([b]): b for b in range(256)}
>>> tokens.update({b"aa": 256, b"bb": 257, b"bbb": 258, b"ab": 259, b"aab": 260})
>>> tok = Tokenizer(Vocab(tokens), "paper")
>>> tok.encode("aabbb", mode="bpe"), tok.encode("aabbb", mode="lbpe")
([256, 258], [260, 257])
>>> tok.decode([260, 257])
'aabbb'
"""

from __future__ import annotations

from lbpe.model import METHODS, MODES, Method, Mode
from lbpe.tokenizer.checks import replace_surrogates
from lbpe.tokenizer.core import DEFAULT_CACHE_SIZE, Tokenizer
from lbpe.tokenizer.offsets import Segment

__all__ = ["Tokenizer", "Segment", "Mode", "MODES", "Method", "METHODS", "replace_surrogates", "DEFAULT_CACHE_SIZE"]
