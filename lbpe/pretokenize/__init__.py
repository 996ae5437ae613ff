"""Pre-tokenisation: split text into the pieces that BPE and LBPE encode one at a time.

One module per concept, as HF ``tokenizers`` has one folder per stage:

* :mod:`lbpe.pretokenize.presets` -- the presets, one :class:`PretokenizerPreset` record each
  (names, ``re`` template, Oniguruma regexes, OpenAI special tokens) in
  :data:`PRETOKENIZER_PRESETS`, the one table every other module reads;
* :mod:`lbpe.pretokenize.classes` -- Unicode classes (general categories at the pinned Unicode
  16.0 of :mod:`lbpe.unicode`, White_Space) and code point range arithmetic;
* :mod:`lbpe.pretokenize.rewrite` -- a preset's template filled in (the plain pattern) and
  rewritten into an equivalent ``re`` source that runs 5-15 times faster;
* :mod:`lbpe.pretokenize.compiled` -- :class:`PresetPattern`, :func:`compile_pattern`,
  :func:`resolve_pattern`, :func:`split_text`: the compiled presets;
* :mod:`lbpe.pretokenize.onig` -- the Oniguruma -> ``re`` translation of ``tokenizer.json``
  regexes;
* :mod:`lbpe.pretokenize.splitters` -- the composable HF pre-tokenisers (Split, ByteLevel,
  Metaspace, ...).

The OpenAI patterns are written for engines with ``\\p{..}`` Unicode classes and possessive
quantifiers. The presets rewrite them for the standard library ``re`` module so that the same
code runs in CPython and in Pyodide:

* ``\\p{L}``, ``\\p{N}``, ``\\p{M}`` and the letter sub-categories become explicit character
  ranges from :mod:`lbpe.unicode` (Unicode 16.0, as in tiktoken and HF tokenizers, whatever
  the interpreter's own :mod:`unicodedata` has);
* ``\\s`` becomes the Unicode ``White_Space`` set (Python's own ``\\s`` also matches the
  separators U+001C..U+001F, which are not white space in Unicode or in tiktoken);
* ``$`` (end of text in tiktoken's engine) becomes ``\\Z``;
* ``(?i:...)`` is spelled out with explicit case classes (``s`` also matches U+017F LONG S);
* possessive quantifiers are dropped: in every preset nothing after them can make the engine
  backtrack into them, so the greedy form finds the same matches (tested against tiktoken).

>>> split_text("Hello world's 2024!", "cl100k_base")
['Hello', ' world', "'s", ' ', '202', '4', '!']
>>> sorted(PRETOKENIZER_PRESETS)
['cl100k_base', 'llama3', 'o200k_base', 'paper', 'qwen2', 'r50k_base']
"""

from __future__ import annotations

from lbpe.pretokenize.compiled import PresetPattern, compile_pattern, resolve_pattern, split_text
from lbpe.pretokenize.presets import PRETOKENIZER_PRESETS, PretokenizerPreset, pretokenizer_preset
from lbpe.pretokenize.rewrite import preset_pattern

__all__ = [
    "PRETOKENIZER_PRESETS",
    "PretokenizerPreset",
    "pretokenizer_preset",
    "PresetPattern",
    "preset_pattern",
    "compile_pattern",
    "resolve_pattern",
    "split_text",
]
