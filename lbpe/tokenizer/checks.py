"""The tokenizer's input checks: a text is a ``str``, a mode is one of :data:`lbpe.METHODS`
with the options it takes (a dropout rate and seed for ``"dropout"`` only), a worker count is
a whole number, and a text holds no lone surrogate by the time it is encoded
(:func:`replace_surrogates`)."""

from __future__ import annotations

import difflib
import operator
import os
import random
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, NamedTuple, SupportsIndex, TypeGuard

from lbpe.errors import LbpeError
from lbpe.model import METHODS, MODES, Method

if TYPE_CHECKING:
    from lbpe.vocab import Vocab

__all__ = [
    "checked_flag",
    "check_mode",
    "check_dropout",
    "checked_added",
    "checked_ends",
    "checked_ids",
    "checked_text",
    "checked_workers",
    "replace_surrogates",
]


def check_mode(mode: object) -> Method:
    """``mode`` if it is one of :data:`lbpe.METHODS`; otherwise an error that lists them and
    names the closest one (``"longest_prefix"`` -> ``"longest-prefix"``).

    >>> check_mode("Least_Tokens")
    Traceback (most recent call last):
    ...
    lbpe.errors.LbpeError: mode must be 'bpe' or 'lbpe', or one of the other methods 'longest-prefix', \
'longest-suffix', 'least-tokens', 'dropout'; not 'Least_Tokens'; did you mean mode='least-tokens'?
    """
    if mode in METHODS:
        return mode
    others = ", ".join(repr(m) for m in METHODS if m not in MODES)
    hint = ""
    if isinstance(mode, str):
        spelled = mode.strip().lower().replace("_", "-").replace(" ", "-")
        close = [spelled] if spelled in METHODS else difflib.get_close_matches(spelled, METHODS, n=1)
        if close:
            hint = f"; did you mean mode={close[0]!r}?"
    raise LbpeError(f"mode must be 'bpe' or 'lbpe', or one of the other methods {others}; not {mode!r}{hint}")


def negative_seed(seed: int) -> str:
    """Why a negative ``seed`` is refused: ``random.Random(-n)`` draws as ``random.Random(n)``."""
    return f"0 or more, not {seed} (Python's random draws alike for {seed} and {-seed})"


def check_dropout(mode: str, dropout: object, seed: object) -> float | None:
    """The dropout rate for ``mode="dropout"`` (a number from 0 to 1, required), ``None`` for
    the other modes, which take neither a rate nor a seed; ``seed`` is an ``int`` from 0, or
    ``None``."""
    if mode != "dropout":
        if dropout is not None or seed is not None:
            given = "dropout=" if dropout is not None else "seed="
            raise LbpeError(f"{given} only applies to mode='dropout' (BPE-dropout), not mode={mode!r}; leave it out")
        return None
    if dropout is None:
        raise LbpeError("mode='dropout' needs a rate: encode(text, mode='dropout', dropout=0.1, seed=0)")
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout <= 1.0:
        raise LbpeError(
            f"dropout must be a number from 0 to 1 (the chance to skip each merge, e.g. 0.1), not {dropout!r}"
        )
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise LbpeError(f"seed must be a whole number (or None for fresh randomness), not {seed!r}")
    if seed is not None and seed < 0:
        raise LbpeError(f"seed must be {negative_seed(seed)}")
    return float(dropout)


_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_at(text: str) -> int | None:
    """Where the first surrogate code point of ``text`` is (half of a UTF-16 pair, which a
    Python string or JSON can hold but is no character), or ``None``."""
    if text.isascii():
        return None
    found = _SURROGATE.search(text)
    return None if found is None else found.start()


def replace_surrogates(text: str) -> str:
    """Text that UTF-8 can encode: surrogate pairs joined, lone surrogates -> U+FFFD (as tiktoken)."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def checked_text(text: object) -> str:
    if not isinstance(text, str):
        hint = "; decode bytes first" if isinstance(text, (bytes, bytearray, memoryview)) else ""
        raise TypeError(f"text must be str, not {type(text).__name__}{hint}")
    return text


def checked_flag(value: object, name: str) -> bool:
    """A yes/no option (``add_special_tokens``) as a bool: ``True``, ``False`` or numpy's bool;
    anything else is a ``TypeError`` (``"no"`` is truthy and would have meant yes).

    >>> checked_flag("no", "add_special_tokens")
    Traceback (most recent call last):
    ...
    TypeError: add_special_tokens must be True or False, not str 'no'
    """
    kind = type(value)
    if kind is bool or (kind.__module__ == "numpy" and kind.__name__ in ("bool_", "bool")):
        return bool(value)
    raise TypeError(f"{name} must be True or False, not {kind.__name__} {value!r:.40}")


def checked_ids(ids: object) -> list:
    """The ids ``decode`` was given, as a list: an iterable of whole numbers (``int``, numpy's
    integers: anything with ``__index__``; an array is read by its ``tolist()``). A float equal
    to an id would otherwise be looked up as that id (``9906.0 == 9906``), where tiktoken and HF
    tokenizers refuse it.

    >>> checked_ids([9906.0])
    Traceback (most recent call last):
    ...
    TypeError: token ids are whole numbers; 9906.0 (float) is not
    """
    if not _many(ids):
        hint = f"; for one id, decode([{ids!r}])" if hasattr(type(ids), "__index__") else ""
        raise TypeError(f"ids must be a sequence of token ids, not {type(ids).__name__}{hint}")
    if isinstance(ids, (AbstractSet, Mapping)):  # no order (or keys): the text would come out shuffled
        raise TypeError(
            f"ids must be a sequence of token ids in order (a list, tuple or array), not {type(ids).__name__}"
        )
    if type(ids) is not list and hasattr(ids, "tolist"):  # numpy, array.array, torch: plain numbers
        return checked_ids(ids.tolist())
    out = ids if type(ids) is list else list(ids)
    for kind in set(map(type, out)):  # a few kinds at most: each checked once
        if not hasattr(kind, "__index__"):
            wrong = next(i for i in out if type(i) is kind)
            raise TypeError(f"token ids are whole numbers; {_named(wrong)} is not")
    return out


def _many(ids: object) -> TypeGuard[Iterable[object]]:
    """Whether ``ids`` can be a sequence of ids: iterable, and no string of text or bytes."""
    return hasattr(ids, "__iter__") and not isinstance(ids, (str, bytes, bytearray))


def _named(value: object) -> str:
    """A value that is no id, as an error names it: ``9906.0 (float)``, ``'a' (str)``."""
    shown = repr(value) if isinstance(value, (str, bytes)) else str(value)
    return f"{shown} ({type(value).__name__})"


def _whole(value: object) -> TypeGuard[SupportsIndex]:
    """An id's type: a whole number (``int``, numpy's integers), not a bool."""
    return not isinstance(value, bool) and hasattr(type(value), "__index__")


def checked_added(added: Mapping[str, int] | None, vocab: Vocab, *, own_bytes: bool = True) -> dict[str, int]:
    """A tokenizer's ``added_tokens`` (text -> id): each a non-empty ``str`` of text (no lone
    surrogate) with a whole id of 0 or more, no two with one id, and a special token's text
    only with that token's id. With ``own_bytes`` (ids decode to the vocabulary's bytes, no
    decoder of a file's own) an id the vocabulary has must be the token of the same text, or
    the added token would decode as another; a file's reader checks its own spelling instead
    (tokenizer.json may list the vocabulary's ``ĠĠ`` as an added token).

    >>> from lbpe.vocab import Vocab
    >>> checked_added({"<x>": 97}, Vocab({bytes([b]): b for b in range(256)}))
    Traceback (most recent call last):
    ...
    lbpe.errors.LbpeError: added token '<x>' has id 97, which is the token 'a'; give it an id of its own \
(256 and up are free) or the text of token 97
    """
    out: dict[str, int] = {}
    owner: dict[int, str] = {}
    for text, i in (added or {}).items():
        if not isinstance(text, str):
            raise TypeError(f"added tokens are str, not {type(text).__name__}: {text!r}")
        if not _whole(i):
            raise TypeError(f"added token {text!r} has id {i!r} ({type(i).__name__}); ids are whole numbers")
        i = operator.index(i)
        if not text:
            raise LbpeError(f"an added token cannot be empty (id {i})")
        if i < 0:
            raise LbpeError(f"added token {text!r} has id {i}; ids are 0 or more")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise LbpeError(f"added token {text!r} holds a lone surrogate, which is no text") from None
        special = vocab.special.get(text)
        if special is not None and special != i:
            raise LbpeError(f"added token {text!r} is the special token of id {special}, not {i}")
        if i in owner:
            raise LbpeError(f"added tokens {owner[i]!r} and {text!r} both have id {i}; decoding {i} could give either")
        owner[i] = text
        out[text] = i
    if own_bytes:
        for text, i in out.items():
            taken = vocab.id_to_bytes.get(i)
            if taken is not None and taken != text.encode("utf-8"):
                free = max(vocab.n_vocab, max(owner) + 1)
                raise LbpeError(
                    f"added token {text!r} has id {i}, which is the token {_shown(taken)}; give it an id of "
                    f"its own ({free} and up are free) or the text of token {i}"
                )
    return out


def _shown(data: bytes) -> str:
    """A token's bytes as a person reads them: its text quoted, or the bytes if not UTF-8."""
    try:
        return repr(data.decode("utf-8"))
    except UnicodeDecodeError:
        return repr(data)


def checked_ends(name: str, ids: object, vocab: Vocab, added: Collection[int] = (), *, known: bool = True) -> list[int]:
    """A tokenizer's ``bos`` or ``eos`` (``name``): a sequence of whole ids; with ``known``, each
    the id of a token of ``vocab`` or of an added token (``added``: their ids). A file's reader
    passes what the file names (HF tokenizers emits a post-processor's id as it is)."""
    if not _many(ids):
        raise TypeError(f"{name} must be a sequence of token ids (e.g. {name}=[1]), not {type(ids).__name__}")
    out = []
    for i in ids:
        if not _whole(i):
            raise TypeError(f"{name} ids are whole numbers; {_named(i)} is not")
        i = operator.index(i)
        if known and i not in vocab.id_to_bytes and i not in added:
            raise LbpeError(f"{name} id {i} is neither a token of the vocabulary nor an added token")
        out.append(i)
    return out


def checked_workers(workers: object) -> int:
    """``encode_batch``'s ``workers``: a whole number >= 1, or ``None`` for one per core."""
    if workers is None:
        workers = os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise LbpeError(f"workers must be a whole number >= 1 or None (one per core), not {workers!r}")
    return workers


class Dropout(NamedTuple):
    """BPE-dropout's options for one call: the rate and the draws (a seeded generator's)."""

    rate: float
    draw: Callable[[], float]


def dropout_options(mode: Method, dropout: float | None, seed: int | None) -> Dropout | None:
    """The checked options of one call; ``None`` for a deterministic method."""
    rate = check_dropout(mode, dropout, seed)
    return None if rate is None else Dropout(rate, random.Random(seed).random)
