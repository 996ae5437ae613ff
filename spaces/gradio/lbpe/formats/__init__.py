"""Vocabulary file formats. Each module parses bytes into a :class:`~lbpe.vocab.Vocab` and
never reads files itself (reading and format detection live in :mod:`lbpe.load`).

* :mod:`lbpe.formats.tiktoken` -- ``.tiktoken`` rank files (base64 token, space, rank);
* :mod:`lbpe.formats.gpt2` -- GPT-2's ``encoder.json`` + ``vocab.bpe``.
"""
