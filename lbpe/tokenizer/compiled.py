"""The tokenizer's calls of the compiled path (``lbpe/_native.c``): a text's ids under a
request's time budget (:mod:`lbpe.budget`), and ``Tokenizer.encode_batch``'s texts, already
split into ordinary chunks and special or added tokens, whose ordinary chunks the extension's
threads encode together without the GIL, each text's ids put back in order."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lbpe import budget, native
from lbpe.tokenizer.checks import replace_surrogates

__all__ = ["compiled_ids", "encode_on_threads"]


def compiled_ids(
    model: native.CompiledModel,
    text: str,
    preset_code: int | None,
    findall: Callable[[str], list[str]],
    *,
    method: int,
    limit: int,
    cached_chars: int,
    buffer: bool = False,
) -> list[int] | bytes:
    """The ids of the (normalised) ``text``: the extension splits it itself (``preset_code``)
    or encodes the pieces ``findall`` gives; with ``buffer``, as bytes of native-endian int32
    (no Python int per id). A lone surrogate raises :class:`UnicodeEncodeError`; a spent time
    budget :class:`~lbpe.budget.TimeBudgetError`."""
    left = budget.remaining()  # a request's time budget (lbpe.budget), checked in C
    if left == 0.0:
        raise budget.spent()
    seconds = left or 0.0
    try:
        if preset_code is not None:
            return model.encode_text(
                text, preset_code, method=method, limit=limit, cached_chars=cached_chars, seconds=seconds, buffer=buffer
            )
        return model.encode_pieces(
            findall(text), method=method, limit=limit, cached_chars=cached_chars, seconds=seconds, buffer=buffer
        )
    except TimeoutError:
        raise budget.spent() from None


def encode_on_threads(
    model: native.CompiledModel,
    preset_code: int,
    chunked: Sequence[Sequence[tuple[bool, str]]],
    matched_id: Callable[[str], int],
    *,
    method: int,
    limit: int,
    cached_chars: int,
    workers: int,
    ends: tuple[Sequence[int], Sequence[int]] | None = None,
) -> list[list[int]]:
    """The ids of each text of ``chunked`` (its ``(is_special, chunk)`` pairs, as
    ``Tokenizer._chunks`` gives them): a special chunk's id by ``matched_id``, every ordinary
    chunk encoded by ``model`` on ``workers`` threads; ``ends``: the BOS and EOS ids to add."""
    plans: list[list[int | None]] = []
    ordinary: list[str] = []
    for chunks in chunked:
        plan: list[int | None] = []
        for is_special, chunk in chunks:
            if is_special:
                plan.append(matched_id(chunk))
            else:
                plan.append(None)
                ordinary.append(chunk)
        plans.append(plan)
    options = dict(method=method, limit=limit, cached_chars=cached_chars, threads=workers)
    try:
        encoded_lists = model.encode_batch(ordinary, preset_code, **options)
    except UnicodeEncodeError:
        # a lone surrogate: replaced, as encode_ordinary does, and the batch encoded again (the
        # texts are not searched for one beforehand: that search alone cost 8% of a batch)
        ordinary = [chunk if chunk.isascii() else replace_surrogates(chunk) for chunk in ordinary]
        encoded_lists = model.encode_batch(ordinary, preset_code, **options)
    encoded = iter(encoded_lists)
    out = []
    for plan in plans:
        if plan == [None] and ends is None:  # the usual case: one ordinary chunk
            out.append(next(encoded))
            continue
        ids: list[int] = list(ends[0]) if ends is not None else []
        for item in plan:
            if item is None:
                ids += next(encoded)
            else:
                ids.append(item)
        if ends is not None:
            ids += ends[1]
        out.append(ids)
    return out
