"""Vocabulary file formats: parse bytes, never open files (reading and detection: :mod:`lbpe.load`).

``parse_<format>_vocab`` returns a :class:`~lbpe.vocab.Vocab` (the file carries only tokens);
``parse_<format>_tokenizer`` returns a :class:`~lbpe.tokenizer.Tokenizer` (it carries a pipeline).

* :mod:`lbpe.formats.tiktoken` -- ``.tiktoken`` rank files: :func:`~lbpe.formats.tiktoken.parse_tiktoken_vocab`;
* :mod:`lbpe.formats.gpt2` -- GPT-2's ``encoder.json`` + ``vocab.bpe``: :func:`~lbpe.formats.gpt2.parse_gpt2_vocab`;
* :mod:`lbpe.formats.hf` -- HF ``tokenizer.json``: :func:`~lbpe.formats.hf.parse_hf_tokenizer`;
  its normalizer, pre-tokenizer, post-processor and decoder in :mod:`lbpe.formats.hf_components`;
* :mod:`lbpe.formats.sentencepiece` -- SentencePiece ``.model``:
  :func:`~lbpe.formats.sentencepiece.parse_sentencepiece_tokenizer`;
* :mod:`lbpe.formats.hf_write` -- the way back: a ``Vocab`` or ``Tokenizer`` as ``tokenizer.json``.
"""
