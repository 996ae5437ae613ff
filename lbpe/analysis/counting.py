"""Counting an encoding's ids: tokens per length in the vocabulary's units and occurrences per
id (with numpy when it is installed and the ids are many), and whitespace-separated words.

Token length is measured in the vocabulary's units (bytes for byte-level vocabularies,
characters for character-level ones; a byte-fallback token is one unit).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from typing import Any

from lbpe.tokenizer import Method, Tokenizer

#: Ids to count: a list, or a numpy array (:func:`encode_for_counting`).
Ids = list[int] | Any

__all__ = ["token_lengths", "vocab_tokens", "encode_for_counting", "count_tokens", "count_words"]


def _length_table(tok: Tokenizer) -> dict[int, int]:
    """id -> length in units of every ordinary, byte-fallback and unknown token; built once per
    vocabulary (kept in its ``__dict__``, next to its other derived tables)."""
    vocab = tok.vocab
    table = vocab.__dict__.get("_length_table")
    if table is None:
        table = {i: len(key) for key, i in vocab.model_tokens.items()}
        for i in (vocab.byte_fallback or {}).values():
            table[i] = 1
        if vocab.unk is not None:
            table.setdefault(vocab.unk, 1)
        vocab.__dict__["_length_table"] = table
    return table


def vocab_tokens(tok: Tokenizer) -> int:
    """How many tokens an encoding with ``tok`` can give: every id with a token (special and
    added tokens too), Scaffold-BPE's scaffold tokens left out (``n_vocab`` is one more than the
    largest id, and counts gaps and scaffold ids)."""
    ids = tok.vocab.id_to_bytes.keys() | set(tok.added_tokens.values())
    return len(ids - set(tok.vocab.scaffold))


def token_lengths(tok: Tokenizer) -> Callable[[int], int]:
    """id -> length in the vocabulary's units (0 for special and added tokens)."""
    get = _length_table(tok).get
    return lambda i: get(i, 0)


#: Below this many ids the standard library counts faster than a round trip through numpy.
_NUMPY_MIN_IDS = 4096
_numpy_override: list = []  # tests: [None] counts with the standard library even where numpy is


@functools.cache
def _numpy_module():
    """numpy, imported on first use (``import lbpe`` never loads it), or ``None``."""
    try:
        import numpy
    except ImportError:  # the browser page, or CPython without lbpe[numpy]
        return None
    return numpy


def _numpy():
    """numpy for counting, or ``None`` (not installed, or a test asked for the stdlib path)."""
    return _numpy_override[-1] if _numpy_override else _numpy_module()


def _dense(tok: Tokenizer, key: str, table: dict[int, int], np):
    """``table`` (id -> number) as a numpy array indexed by id (0 elsewhere), kept in the
    vocabulary's ``__dict__`` under ``key`` beside its other derived tables."""
    vocab = tok.vocab
    array_ = vocab.__dict__.get(key)
    if array_ is None:
        array_ = np.zeros(max(max(table, default=0) + 1, tok.n_vocab), dtype=np.int64)
        array_[np.fromiter(table.keys(), np.int64, len(table))] = np.fromiter(table.values(), np.int64, len(table))
        vocab.__dict__[key] = array_
    return array_


#: From this many characters a text's ids for counting come in one numpy buffer (most texts
#: have a token per 2-5 characters, so as many ids as :data:`_NUMPY_MIN_IDS` or more).
_BUFFER_MIN_CHARS = 4 * _NUMPY_MIN_IDS


def encode_for_counting(tok: Tokenizer, text: str, *, mode: Method, **options: Any) -> Ids:
    """``tok.encode(text, mode=mode, disallowed_special=(), **options)``'s ids, for counting:
    when numpy counts (installed, and a long text) a numpy array filled by the encoder, with
    no Python int made per id (:meth:`Tokenizer.encode_to_numpy`); else the list."""
    if _numpy() is not None and len(text) >= _BUFFER_MIN_CHARS:
        return tok.encode_to_numpy(text, mode=mode, disallowed_special=(), **options)
    return tok.encode(text, mode=mode, disallowed_special=(), **options)


def as_id_array(ids: Ids, np) -> Any:
    """``ids`` as a numpy array of ids when numpy should count them (an array already, or a
    list of :data:`_NUMPY_MIN_IDS` ids or more), else ``None``."""
    if not isinstance(ids, list):
        return ids
    return np.asarray(ids, dtype=np.int64) if len(ids) >= _NUMPY_MIN_IDS else None


def id_list(ids: Ids) -> list[int]:
    """``ids`` as a list of ints (a numpy array's ``tolist``)."""
    return ids if isinstance(ids, list) else ids.tolist()


def count_tokens(tok: Tokenizer, ids: Ids, *, array=None) -> tuple[dict[int, int], dict[int, int]]:
    """``(tokens per length in units, occurrences per id)`` among ``ids``; special and added
    tokens have no length, so they count in the second table only.

    With numpy installed (``lbpe[numpy]``) and many ids (or ids in a numpy array already:
    :func:`encode_for_counting`), ``bincount`` does the counting (``array``: the ids already as a
    numpy array); otherwise ``Counter``: the same tables.
    """
    np = _numpy()
    a = None
    if np is not None:
        a = array if array is not None else as_id_array(ids, np)
    if a is not None:
        if not len(a):
            return {}, {}
        lengths = _dense(tok, "_length_array", _length_table(tok), np)
        if int(a.max()) < len(lengths) and int(a.min()) >= 0:
            per_id = np.bincount(a)
            seen = np.flatnonzero(per_id)
            by_length = np.bincount(lengths[seen], weights=per_id[seen]).astype(np.int64)
            lengths_out = {n_units: int(n) for n_units, n in enumerate(by_length.tolist()) if n_units and n}
            return lengths_out, dict(zip(seen.tolist(), per_id[seen].tolist()))
    length = _length_table(tok).get
    per_id_counter = Counter(id_list(ids))  # counted in C, then one lookup per distinct id
    counts: Counter[int] = Counter()
    for i, n in per_id_counter.items():
        n_units = length(i, 0)
        if n_units:
            counts[n_units] += n
    return dict(counts), dict(per_id_counter)


def count_words(text: str) -> int:
    """Whitespace-separated words (``str.split`` and ``\\S+`` agree on what white space is)."""
    return len(text.split())
