"""Training BPE vocabularies: classic BPE and Scaffold-BPE, character or byte units, split
GPT-2's way (a regex pre-tokeniser) or LLaMA's (SentencePiece).

>>> v = train(["low lower lowest"] * 3, vocab_size=4, unit="byte", special_tokens=())  # doctest: +ELLIPSIS
Traceback (most recent call last):
  ...
lbpe.errors.VocabSizeError: vocab_size 4 (CLI: --vocab-size) is smaller than the 256 base tokens of a byte-level...
>>> v = train(["low lower lowest"], vocab_size=259, unit="byte")
>>> [v.token_bytes(i) for i in range(256, 259)]
[b'lo', b'low', b' low']

How training works (counting, merging), the tie-break, the units and base alphabet, the id
layout, Scaffold-BPE and the llama style, with where lbpe differs from SentencePiece's
trainer: docs/training.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lbpe.pretokenize import resolve_pattern
from lbpe.train.count import Progress, TextSource, count_llama_pieces, count_pieces
from lbpe.train.llama import LLAMA_MAX_TOKEN_CHARS, LLAMA_SPECIALS, llama_pieces, valid_llama_token
from lbpe.train.merge import train_from_counts
from lbpe.train.options import STYLES, TrainOptions, train_options
from lbpe.vocab import Unit, Vocab

__all__ = [
    "train",
    "TrainOptions",
    "count_pieces",
    "count_llama_pieces",
    "train_from_counts",
    "llama_pieces",
    "valid_llama_token",
    "STYLES",
    "LLAMA_SPECIALS",
    "LLAMA_MAX_TOKEN_CHARS",
    "TextSource",
    "Progress",
]


def train(
    texts_or_files: TextSource | Iterable[TextSource],
    *,
    options: TrainOptions | None = None,
    vocab_size: int | None = None,
    unit: Unit | None = None,
    pattern: str | re.Pattern[str] | None = None,
    scaffold: bool | None = None,
    special_tokens: Iterable[str] | None = None,
    max_chars: int | None = None,
    character_coverage: float | None = None,
    style: str | None = None,
    progress: Progress | None = None,
    read_progress: Progress | None = None,
    text_field: str = "text",
) -> Vocab:
    """Train a BPE vocabulary of ``vocab_size`` tokens.

    ``texts_or_files``: a text (``str``), a file (``os.PathLike``, UTF-8), or an iterable of
    them. A plain ``str`` is always text, never a file name: pass ``pathlib.Path`` for files.
    A text file is one document; ``.jsonl``/``.ndjson`` lines and ``.parquet`` rows are
    documents by their ``text_field``; ``.gz`` files are read through (as ``lbpe stats`` reads
    them).

    The options (all but the progress callbacks) come as one ``options=TrainOptions(...)`` or
    as keywords, not both; a keyword left out or ``None`` takes the default of
    :class:`TrainOptions`, which checks them all before any text is read.

    ``vocab_size`` counts every normal token: special tokens, the 256 byte tokens, base
    characters and merged tokens (scaffold tokens are extra: docs/training.md, "Scaffold-BPE").
    It raises :class:`~lbpe.errors.LbpeError` (a ``ValueError``) when it is smaller than the
    base tokens. Training stops early, with a smaller vocabulary, when no pair is left.

    ``progress(done, total)`` is called after every merge with the merged (normal) tokens made
    so far and the number wanted; ``read_progress(done, total)`` while counting, with the bytes
    of files read so far and their total size (texts given as ``str`` count as 0).

    ``style``: ``"gpt2"`` (default) splits texts with the pre-tokeniser preset ``pattern``
    (default ``"paper"``); ``"llama"`` trains SentencePiece's way, as LLaMA (see "The llama
    style" in docs/training.md): no ``pattern``, ``unit="char"``, and ``<unk>``,
    ``<s>``, ``</s>`` at ids 0, 1, 2 before the ``special_tokens`` given.

    The result has ``merges`` (pair -> rank, in merge order), ``whole_piece_first=False``
    (merges always run, HF ``tokenizers``' default), ``byte_fallback`` (``unit="char"``),
    ``special``, ``scaffold`` and ``trained`` (the style, and the preset of a gpt2-style
    vocabulary trained with one). Encode with ``Tokenizer(vocab, pattern).encode(text,
    mode="bpe")``, or write it with :func:`lbpe.formats.hf_write.write_tokenizer_json`, which
    writes it in the style and with the preset it was trained with (the file then encodes with
    ``lbpe.load``).

    >>> v = train("hug hugs hugged", vocab_size=256 + 7 + 1)  # 256 fallback, 7 characters, 1 merge
    >>> len(v), v.token_bytes(263)
    (264, b'hu')
    >>> v = train("hug hugs hugged", vocab_size=3 + 256 + 7 + 2, style="llama")  # + the character "\u2581"
    >>> [v.token_bytes(i).decode() for i in (266, 267)], v.special
    (['hu', 'hug'], {'<unk>': 0, '<s>': 1, '</s>': 2})
    >>> train("hug hugs hugged", options=TrainOptions(vocab_size=264)).token_bytes(263)
    b'hu'
    """
    opts = train_options(
        options,
        {
            "vocab_size": vocab_size,
            "unit": unit,
            "pattern": pattern,
            "scaffold": scaffold,
            "special_tokens": special_tokens,
            "max_chars": max_chars,
            "character_coverage": character_coverage,
            "style": style,
        },
        where="train",
    )
    if opts.style == "llama":
        counts = count_llama_pieces(texts_or_files, progress=read_progress, text_field=text_field)
    else:
        regex = resolve_pattern("paper" if opts.pattern is None else opts.pattern)
        counts = count_pieces(texts_or_files, regex, progress=read_progress, text_field=text_field)
    vocab = train_from_counts(counts, options=opts, progress=progress)
    if opts.style == "gpt2" and (opts.pattern is None or isinstance(opts.pattern, str)):
        # a compiled regex has no name to keep
        vocab.trained["pattern"] = "paper" if opts.pattern is None else opts.pattern
    return vocab
