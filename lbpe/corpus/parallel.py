"""Working over corpora: streaming text files in chunks and statistics over all cores (batch
encoding on forked processes is :mod:`lbpe.batch`, token shards :mod:`lbpe.corpus.shards`). Files
and byte streams are read and cut into UTF-8 chunks by :mod:`lbpe.corpus.textio` (its
:func:`~lbpe.corpus.textio.iter_chunks` is re-exported here).

Chunks are encoded independently. With :func:`align_chunks`, chunks for regex pre-tokenisers
are re-cut at :meth:`~lbpe.tokenizer.Tokenizer.safe_cut` so that totals equal encoding each file
at once; for pipelines with a normaliser or without a pre-tokeniser (SentencePiece-style) each
chunk, cut at a line end, is one encoding call, as when such tokenizers run per document.

>>> list(iter_chunks([b"ab\\ncd\\n", b"ef"], size=4))
['ab\\n', 'cd\\n', 'ef']
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from lbpe.analysis.methods import check_options, corpus_methods_stats, texts_methods_stats
from lbpe.analysis.stats import Continuation, Stats, corpus_stats, texts_stats
from lbpe.corpus.textio import CHUNK_BYTES, iter_chunks
from lbpe.errors import LbpeError
from lbpe.tokenizer import METHODS, MODES, Method, Mode, Tokenizer

__all__ = [
    "iter_chunks",
    "read_chunks",
    "align_chunks",
    "parallel_stats",
    "parallel_methods_stats",
    "usable_cores",
    "pool_size",
]


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def pool_size(workers: int | None) -> int:
    """The processes a pool asked for ``workers`` gets: one per usable core at most (encoding
    keeps each busy, and every process holds a tokenizer of its own), all of them for ``None``.

    >>> pool_size(1)
    1
    """
    if workers is None:
        return usable_cores()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise LbpeError(f"workers must be a whole number, at least 1 (or None: one per core), not {workers!r}")
    return min(workers, usable_cores())


def read_chunks(paths: Sequence[str | os.PathLike[str]], *, size: int = CHUNK_BYTES) -> Iterator[str]:
    """Text chunks of each file in turn (a chunk never spans two files), read by
    :func:`lbpe.corpus.textio.iter_chunks`."""
    for path in paths:
        yield from iter_chunks(path, size=size)


#: The most characters :func:`align_chunks` carries on while it finds no safe cut; past it the
#: text is cut where the reader cut it, which may split a piece (a 64 MiB stretch with no safe cut).
CARRY_MOST = 64 * CHUNK_BYTES


def align_chunks(tok: Tokenizer, chunks: Iterable[str]) -> Iterator[str]:
    """Re-cut consecutive chunks of ONE text so that every cut is a safe piece boundary for
    ``tok`` (the tail after the cut moves on to the next chunk). Unchanged when ``tok`` has no
    safe cut (see :meth:`~lbpe.tokenizer.Tokenizer.safe_cut`). For a SentencePiece-style
    pipeline every chunk after the first is a :class:`~lbpe.analysis.stats.Continuation`, which the
    statistics and the export encode without the start-of-text prefix: the ids equal the whole
    text's. Where no cut is safe (a normaliser that promises nothing at a cut, a stretch with no
    white space) the text is carried on whole, up to :data:`CARRY_MOST` characters."""
    continued = tok.continued()
    mark = Continuation if continued is not None and continued is not tok else str
    carry = ""
    first = True
    for chunk in chunks:
        text = carry + chunk
        cut = tok.safe_cut(text)
        if cut is None:  # no cut is known to be safe: the text goes on whole, up to a bound
            if len(text) > CARRY_MOST:
                yield text if first else mark(text)
                carry, first = "", False
            else:
                carry = text
            continue
        yield text[:cut] if first else mark(text[:cut])
        carry, first = text[cut:], False
    if carry:
        yield carry if first else mark(carry)


# ---- statistics over processes ----


def _chunk_stats(args: tuple[str | list[str], tuple[Mode, ...]]) -> dict[str, Stats]:
    from lbpe.corpus.workers import worker_tokenizer

    text, modes = args
    return texts_stats(worker_tokenizer(), text, modes)


def _chunk_methods_stats(
    args: tuple[str | list[str], tuple[Method, ...], float | None, int | None],
) -> dict[str, Stats]:
    from lbpe.corpus.workers import worker_tokenizer

    text, methods, dropout, seed = args
    return texts_methods_stats(worker_tokenizer(), text, methods, dropout=dropout, seed=seed)


def parallel_stats(
    loader: Callable[[], Tokenizer],
    chunks: Iterable[str | list[str]],
    *,
    modes: Sequence[Mode] = MODES,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Stats]:
    """Sum :class:`~lbpe.analysis.stats.Stats` per mode over chunks, on ``workers`` processes.

    A chunk is a text, or a list of texts (documents) each encoded on its own. ``loader`` (a
    picklable callable, e.g. ``functools.partial(lbpe.load, path)``) builds the tokenizer once
    per process, and there is at most one process per core (:func:`pool_size`). ``workers=1``
    runs in this process (also the fallback where processes are unavailable, as in Pyodide).
    ``progress`` receives the UTF-8 bytes done (the statistics count them already: one unit with
    the files' sizes).
    """
    modes = tuple(modes)
    workers = pool_size(workers)
    if workers <= 1 or sys.platform == "emscripten":
        return corpus_stats(loader(), chunks, modes=modes, progress=progress)
    return _pooled(loader, ((_chunk_stats, (text, modes)) for text in chunks), modes, workers, progress)


def parallel_methods_stats(
    loader: Callable[[], Tokenizer],
    chunks: Iterable[str | list[str]],
    *,
    methods: Sequence[Method] = METHODS,
    dropout: float | None = None,
    seed: int | None = None,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Stats]:
    """Sum the stats of every method in ``methods`` (each with its agreement with BPE:
    :func:`lbpe.analysis.methods.texts_methods_stats`) over chunks, on ``workers`` processes,
    as :func:`parallel_stats` does for the two modes. With ``"dropout"`` and a ``seed``, every
    chunk is encoded with that seed, so the totals do not depend on ``workers``."""
    methods = tuple(methods)
    check_options(methods, dropout, seed)
    workers = pool_size(workers)
    if workers <= 1 or sys.platform == "emscripten":
        return corpus_methods_stats(loader(), chunks, methods, dropout=dropout, seed=seed, progress=progress)
    jobs = ((_chunk_methods_stats, (text, methods, dropout, seed)) for text in chunks)
    return _pooled(loader, jobs, methods, workers, progress)


def _pooled(
    loader: Callable[[], Tokenizer],
    jobs: Iterable[tuple[Callable[[Any], dict[str, Stats]], Any]],
    keys: Sequence[str],
    workers: int,
    progress: Callable[[int], None] | None,
) -> dict[str, Stats]:
    """Run ``(function, argument)`` jobs on a pool of ``workers`` processes and sum the
    :class:`Stats` they return per key, a few jobs in flight at a time."""
    from lbpe.corpus.workers import process_pool  # processes: multiprocessing, imported only when used

    totals: dict[str, Stats] = {k: Stats() for k in keys}
    done = 0
    with process_pool(loader, workers) as pool:
        pending: list = []

        def drain(limit: int) -> None:
            nonlocal done
            while len(pending) > limit:
                part = pending.pop(0).result()
                for k in keys:
                    totals[k] += part[k]
                done += part[keys[0]].bytes
                if progress:
                    progress(done)

        for function, argument in jobs:
            pending.append(pool.submit(function, argument))
            drain(2 * workers)  # bounded memory: at most a few chunks in flight
        drain(0)
    return totals
