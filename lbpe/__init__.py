"""lbpe: classic BPE and long-token-first BPE (LBPE) encoding over real BPE vocabularies.

The pipeline, one module per stage:

* :mod:`lbpe.pretokenize` -- split text into pieces (tiktoken-exact presets, stdlib ``re``);
* :mod:`lbpe.model` -- encode one piece: :func:`~lbpe.model.bpe_by_rank` /
  :func:`~lbpe.model.bpe_by_merges` (classic BPE) and :func:`~lbpe.model.longest_first` (LBPE),
  and the other inference methods of :data:`METHODS` (longest-prefix, longest-suffix,
  least-tokens, BPE-dropout);
* :mod:`lbpe.vocab` -- the vocabulary (token bytes <-> id) and its derived indexes;
* :mod:`lbpe.formats` + :mod:`lbpe.load` -- vocabulary files;
* :mod:`lbpe.tokenizer` -- the whole pipeline, caching, special tokens, decoding, segments.

The package imports only the Python standard library, so it also runs in Pyodide. In CPython
a compiled extension (``lbpe/_native.c``, built at install when a C compiler is there) encodes
the same ids faster; :func:`backend` says which path is active and why.
"""

from lbpe.errors import DisallowedSpecialError, LbpeError, PatternNeededError, VocabFormatError
from lbpe.load import load
from lbpe.native import Backend, backend
from lbpe.presets import load_preset
from lbpe.tokenizer import METHODS, MODES, Method, Mode, Segment, Tokenizer
from lbpe.train import train
from lbpe.vocab import Vocab

__all__ = [
    "load",
    "backend",
    "Backend",
    "load_preset",
    "train",
    "Tokenizer",
    "Segment",
    "Vocab",
    "Mode",
    "MODES",
    "Method",
    "METHODS",
    "LbpeError",
    "VocabFormatError",
    "PatternNeededError",
    "DisallowedSpecialError",
]

__version__ = "0.1.0"
