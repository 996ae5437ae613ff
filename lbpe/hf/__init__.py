"""LBPE inside Hugging Face transformers: the model's own tokenizer, encoding long tokens first::

    from lbpe.hf import LBPETokenizer
    tok = LBPETokenizer.from_pretrained("path/to/llama3", mode="lbpe")   # or "mistral-7b", "cl100k_base", ...
    tok(["a batch", "of texts"], padding=True, return_tensors="np")
    tok.save_pretrained("my-tokenizer")
    AutoTokenizer.from_pretrained("my-tokenizer", trust_remote_code=True)  # LBPE again (needs lbpe installed)

``from_pretrained`` loads the model's own fast tokenizer (a folder with ``tokenizer.json``, or
a ``tokenizer.json`` file; nothing is fetched from a hub), or a bundled vocabulary by its preset
name (:data:`lbpe.presets.VOCAB_PRESETS`; a file or folder of that name wins). Given a
SentencePiece ``.model``, a ``.tiktoken`` rank file or GPT-2's ``encoder.json`` + ``vocab.bpe``
instead (or a folder of one), it builds that fast tokenizer itself
(:func:`lbpe.formats.hf_write.tokenizer_json_of`: the LLaMA / Mistral form for SentencePiece, a
merge list replaying the ranks for rank files), whose ids equal ``sentencepiece``'s and
tiktoken's. The object returned is an instance of the model's own transformers class (a
subclass of it), and its ``backend_tokenizer`` is the model's own, untouched.

In ``mode="lbpe"`` encoding takes one of two exact paths:

* the fast path (the usual calls: texts or batches of texts, special tokens, truncation,
  padding, masks, ``return_tensors``): the text is split at the added tokens the backend
  holds, as ``tokenizers`` splits it, each other part is encoded by lbpe's compiled
  :meth:`lbpe.Tokenizer.encode_ordinary`, and the post-processor's special tokens, truncation
  and padding are applied as ``tokenizers`` applies them. ``.encodings`` (``word_ids``,
  ``tokens``, ...) of its result are computed by the full path when first asked for;
* the full path (offsets, pairs, words given pre-split, overflowing tokens, added tokens
  ``tokenizers`` matches in a way the fast path does not reproduce): a copy of the backend
  whose pre-tokenizer is followed by one of ours that splits each piece into the tokens
  :meth:`lbpe.Tokenizer.split_piece` places longest first, the BPE model keeping each whole.

Both give ``input_ids`` equal to ``lbpe.load(path).encode(text, mode="lbpe",
allowed_special="all")`` plus the special tokens the model adds (the tests hold the two paths
equal); ``mode="bpe"`` is the model's own tokenizer (for a Scaffold-BPE vocabulary, lbpe's BPE:
transformers emits its scaffold tokens). The other deterministic inference methods
(``"longest-prefix"``, ``"longest-suffix"``, ``"least-tokens"``) take the same two paths with
their own tokens in LBPE's place.

``save_pretrained`` writes the model's files, a module ``lbpe_tokenizer.py`` and in
``tokenizer_config.json`` the class ``LBPETokenizer``, an ``auto_map`` naming that module, the
mode (``lbpe_mode``) and the model's own class (``lbpe_base_class``); a tokenizer built from
another file keeps that file beside ``tokenizer.json`` (``lbpe_vocab_file``, with the rank
file's ``lbpe_pattern``). ``AutoTokenizer.from_pretrained(folder, trust_remote_code=True)``
then gives this tokenizer in the saved mode (the module imports lbpe: without it transformers
says ``pip install lbpe``); without ``trust_remote_code`` transformers refuses and names that
argument. ``datasets`` fingerprints the tokenizer by the model's backend, the mode and lbpe's
vocabulary (:func:`lbpe.corpus.shards.vocab_sha256`), so ``Dataset.map`` finds its cache again.
Needs the ``transformers`` package; ``import lbpe`` never imports it.
"""

from __future__ import annotations

from lbpe.hf.full import PIECE_CACHE as PIECE_CACHE
from lbpe.hf.mixin import _rebuild as _rebuild
from lbpe.hf.saving import BASE_KEY as BASE_KEY
from lbpe.hf.saving import CLASS_NAME as CLASS_NAME
from lbpe.hf.saving import MODE_KEY as MODE_KEY
from lbpe.hf.saving import MODULE_NAME as MODULE_NAME
from lbpe.hf.saving import MODULE_SOURCE as MODULE_SOURCE
from lbpe.hf.saving import PATTERN_KEY as PATTERN_KEY
from lbpe.hf.saving import SOURCE_KEY as SOURCE_KEY
from lbpe.hf.state import _fingerprint as _fingerprint
from lbpe.hf.tokenizer import LBPETokenizer

# Pickles and datasets' fingerprints name what they rebuild by this package (lbpe.hf.state.HOME),
# whichever module defines it: ``lbpe.hf._rebuild``, ``lbpe.hf._fingerprint``,
# ``lbpe.hf.LBPETokenizer`` and ``lbpe.hf.LBPE<the model's class>`` (made at run time and set here
# by lbpe.hf.mixin._subclass). The keys a saved folder records are importable here too.
__all__ = ["LBPETokenizer"]
