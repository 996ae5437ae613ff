"""The model stage on the pure path: a piece's keys (tokens as the model spells them, see
:attr:`lbpe.vocab.Vocab.model_tokens`) by classic BPE, LBPE or another inference method
(longest-prefix, longest-suffix, least-tokens, BPE-dropout), part by part where the piece has
cuts (:mod:`lbpe.model.cuts`, each part's keys cached), Scaffold-BPE's scaffold tokens split
back; the keys' ids (byte fallback and the unknown token for characters without a token); and
the ids of a text's pieces through the tokenizer's piece cache."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import chain, compress, repeat
from operator import is_
from typing import Any, cast

from lbpe import budget
from lbpe.model.bpe import bpe_by_merges, bpe_by_rank
from lbpe.model.dropout import dropout_by_merges, dropout_by_rank
from lbpe.model.greedy import longest_prefix, longest_suffix
from lbpe.model.lbpe import longest_first
from lbpe.model.shortest import least_tokens
from lbpe.vocab import Vocab

__all__ = [
    "to_units",
    "bpe_keys",
    "lbpe_keys",
    "split_scaffold",
    "bpe_of_units",
    "lbpe_of_units",
    "prefix_keys",
    "suffix_keys",
    "fewest_keys",
    "dropout_keys",
    "by_parts",
    "key_ids",
    "key_groups",
    "cached_ids",
]

#: Bound on the number of cached parts of pieces (see :mod:`lbpe.model.cuts`) per mode.
_PART_CACHE_SIZE = 100_000


def to_units(vocab: Vocab, piece: str) -> bytes | str:
    """``piece`` as a string of the vocabulary's units: its UTF-8 bytes, or itself."""
    return piece.encode("utf-8") if vocab.unit == "byte" else piece


def bpe_keys(vocab: Vocab, part_cache: dict[str, tuple], piece: str) -> list:
    """Classic BPE of ``piece``: the whole piece when it is a token (``whole_piece_first``),
    scaffold tokens split back."""
    units = to_units(vocab, piece)
    if vocab.whole_piece_first and units in vocab.model_tokens:
        keys = [units]
    else:
        keys = by_parts(vocab, part_cache, piece, units, lambda u: bpe_of_units(vocab, u))
    return split_scaffold(vocab, keys) if vocab.scaffold else keys


def split_scaffold(vocab: Vocab, keys: list) -> list:
    """Scaffold-BPE: split scaffold tokens among ``keys`` back into their parts."""
    out = []
    for key in keys:
        i = vocab.model_tokens.get(key)
        if i is None or i not in vocab.scaffold:
            out.append(key)
            continue
        for j in vocab.expand_scaffold([i]):
            token = vocab.id_to_bytes[j]
            out.append(token if vocab.unit == "byte" else token.decode("utf-8"))
    return out


def bpe_of_units(vocab: Vocab, units: bytes | str) -> list:
    """Classic BPE of a piece's units (no whole-piece shortcut, no scaffold splitting)."""
    merges = vocab.model_merges
    if merges is None:
        return bpe_by_rank(units, vocab.model_tokens)
    return bpe_by_merges(units, merges)


def lbpe_of_units(vocab: Vocab, units: bytes | str) -> list:
    return longest_first(units, vocab.prefix_index, vocab.max_len, long=vocab.long_tokens)


def lbpe_keys(vocab: Vocab, part_cache: dict[str, tuple], piece: str) -> list:
    return by_parts(vocab, part_cache, piece, to_units(vocab, piece), lambda u: lbpe_of_units(vocab, u))


def prefix_keys(vocab: Vocab, part_cache: dict[str, tuple], piece: str) -> list:
    """Longest-prefix (greedy from the left) over the tokens LBPE uses (no scaffold tokens)."""
    index = vocab.prefix_index
    return by_parts(vocab, part_cache, piece, to_units(vocab, piece), lambda u: longest_prefix(u, index))


def suffix_keys(vocab: Vocab, part_cache: dict[str, tuple], piece: str) -> list:
    """Longest-suffix (greedy from the right) over the tokens LBPE uses (no scaffold tokens)."""
    index = vocab.suffix_index
    return by_parts(vocab, part_cache, piece, to_units(vocab, piece), lambda u: longest_suffix(u, index))


def fewest_keys(vocab: Vocab, part_cache: dict[str, tuple], piece: str) -> list:
    """Least-tokens over the tokens LBPE uses (no scaffold tokens). A cut (lbpe.model.cuts) no
    token crosses splits every segmentation, so the fewest tokens of the parts, joined, are
    the piece's, and the tie rule (longest first, from the left) holds part by part."""
    index = vocab.prefix_index
    return by_parts(vocab, part_cache, piece, to_units(vocab, piece), lambda u: least_tokens(u, index))


def dropout_keys(vocab: Vocab, piece: str, rate: float, draw: Callable[[], float]) -> list:
    """BPE-dropout of ``piece``, never cached (each call draws anew from ``draw``). A piece that
    is itself a token, for a vocabulary that takes it whole (``whole_piece_first``), is taken
    whole unless one draw skips that, with probability ``rate``, as for a merge; scaffold
    tokens are split back as classic BPE does."""
    units = to_units(vocab, piece)
    if vocab.whole_piece_first and units in vocab.model_tokens and draw() >= rate:
        keys = [units]
    elif vocab.model_merges is None:
        keys = dropout_by_rank(units, vocab.model_tokens, rate, draw)
    else:
        keys = dropout_by_merges(units, vocab.model_merges, rate, draw)
    return split_scaffold(vocab, keys) if vocab.scaffold else keys


def by_parts(
    vocab: Vocab, cache: dict[str, tuple], piece: str, units: bytes | str, model: Callable[[bytes | str], list]
) -> list:
    """``model`` over the piece's ``units``, or over its parts where it has cuts
    (lbpe.model.cuts), each part's keys cached. Only non-ASCII pieces are tried: English and
    code have few cuts, while runs of Chinese or Japanese are long pieces made of words that
    repeat."""
    if piece.isascii():
        return model(units)
    parts = vocab.cut_finder.split(piece)
    if len(parts) == 1:
        return model(units)
    found = list(map(cache.get, parts))
    if None in found:
        for k, part in enumerate(parts):
            if found[k] is None:
                keys = cache.get(part)
                if keys is None:
                    keys = tuple(model(to_units(vocab, part)))
                    if len(cache) >= _PART_CACHE_SIZE:
                        cache.clear()
                    cache[part] = keys
                found[k] = keys
    return list(chain.from_iterable(cast("list[tuple]", found)))  # every part is found now


def key_ids(vocab: Vocab, keys: Sequence) -> list[int]:
    """Ids of the model's keys; a character with no token takes the fallback ids."""
    table = vocab.model_tokens
    if vocab.unit == "byte":
        return list(map(table.__getitem__, keys))
    return [i for ids in key_groups(vocab, keys) for i in ids]


def key_groups(vocab: Vocab, keys: Sequence[str]) -> list[list[int]]:
    """Per key, its ids (character units); a key fused into the unknown token before it
    gets an empty list."""
    table = vocab.model_tokens
    fuse = vocab.fuse_unk
    unk = vocab.unk
    out: list[list[int]] = []
    prev_unk = False
    for k in keys:
        i = table.get(k)
        if i is not None:
            out.append([i])
            prev_unk = False
            continue
        ids = vocab.fallback_ids(k)
        if fuse and ids == [unk]:
            out.append([] if prev_unk else ids)
            prev_unk = True
        else:
            out.append(ids)
            prev_unk = False
    return out


def cached_ids(
    vocab: Vocab,
    pieces: list[str],
    cache: dict[str, tuple[int, ...]],
    split: Callable[[str], list],
    limit: int,
    cached_chars: int,
) -> list[int]:
    """The ids of ``pieces``: each found in ``cache`` or split into keys by ``split``; new
    pieces of at most ``cached_chars`` characters are kept, ``limit`` pieces at most (the cache
    is emptied when full). A lone surrogate in a new piece raises :class:`UnicodeEncodeError`."""
    found = list(map(cache.get, pieces))  # the common case: every piece seen before
    if None in found:
        # each distinct new piece once, in order of first appearance
        new: dict[str, Any] = dict.fromkeys(compress(pieces, map(is_, found, repeat(None))))
        for piece in new:
            budget.check()
            new[piece] = tuple(key_ids(vocab, split(piece)))
        found = list(map(new.get, pieces, found))
        if len(cache) + len(new) > limit:
            cache.clear()
        for piece, ids in new.items():
            if len(piece) <= cached_chars and len(cache) < limit:
                cache[piece] = ids
    return list(chain.from_iterable(cast("list[tuple[int, ...]]", found)))
