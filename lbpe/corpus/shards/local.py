"""The local engine: documents read in this process and encoded here or on a pool of worker
processes (:mod:`lbpe.corpus.workers`), in input order; on a fresh export the workers read runs
of lines of uncompressed line-based inputs themselves (:func:`_pooled`)."""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future

from lbpe.corpus.documents import BadRecord, Record, input_kind, iter_records, records_of_bytes
from lbpe.corpus.parallel import align_chunks
from lbpe.corpus.shards.batches import _encode_batch, _line_ranges, one_by_one
from lbpe.errors import LbpeError
from lbpe.tokenizer import Mode, Tokenizer

#: Characters of text per batch sent to a worker.
BATCH_CHARS = 1 << 20


def _ordered(tok: Tokenizer, records: Iterator[Record], mode: Mode, pool, num_proc: int, first: int):
    """``("ids", record, array)``, ``("end", record, source)`` and ``("bad", record, message)``
    in input order, with batches encoded ahead on the pool (at most a few in flight); a batch
    of whole documents comes as one ``("documents", metas, (lengths, ids))`` (see
    :func:`one_by_one`)."""
    pending: deque = deque()  # items: ("batch", future | result, metas) or ("bad", n, message)
    batch: list[str | Record] = []  # texts, and JSON lines the worker parses
    metas: list[tuple[int, bool, str]] = []
    size = 0

    def flush():
        nonlocal batch, metas, size
        if batch:
            job = pool.submit(_encode_batch, None, mode, batch) if pool else _encode_batch(tok, mode, batch)
            pending.append(("batch", job, metas))
            batch, metas, size = [], [], 0

    def drain(limit: int):
        while len(pending) > limit:
            kind, job, info = pending.popleft()
            if kind == "bad":
                yield ("bad", job, info)
                continue
            lengths_bytes, ids_bytes, errors = job.result() if isinstance(job, Future) else job
            lengths, ids = array("I"), array("I")
            lengths.frombytes(lengths_bytes)
            ids.frombytes(ids_bytes)
            if not errors and all(last for _, last, _ in info):
                yield ("documents", info, (lengths, ids))  # whole documents, written at once where they fit
            else:
                yield from one_by_one(info, lengths, ids, errors)

    ahead = 2 * max(num_proc, 1)
    number = first
    for record in records:
        number += 1
        if record.error is not None:
            flush()
            pending.append(("bad", number, record.error))
            yield from drain(ahead)
            continue
        if record.line is not None:  # a JSON line: parsed and encoded by the worker
            batch.append(record)
            metas.append((number, True, record.source))
            size += len(record.line)
            if size >= BATCH_CHARS:
                flush()
                yield from drain(ahead)
            continue
        pieces = record.pieces() if record.text is not None else align_chunks(tok, record.pieces())
        try:
            piece = next(pieces, None)
            if piece is None:  # an empty file: a document with no tokens
                metas.append((number, True, record.source))
                batch.append("")
            while piece is not None:
                following = next(pieces, None)
                batch.append(piece)
                metas.append((number, following is None, record.source))
                size += len(piece)
                if size >= BATCH_CHARS:
                    flush()
                    yield from drain(ahead)
                piece = following
        except BadRecord as exc:
            flush()
            pending.append(("bad", number, str(exc)))
        yield from drain(ahead)
    flush()
    yield from drain(0)


#: Bytes of a line-based input per task of the local worker processes.
POOL_RANGE_BYTES = 4 << 20


def _encode_range(mode: Mode, path: str, start: int, end: int, line: int, lines: bool, text_field: str):
    """A worker's task: the documents of a run of whole lines of ``path`` (bytes ``start`` to
    ``end``, its first line numbered ``line``), read, parsed and encoded here, as
    :func:`_encode_batch` returns them."""
    try:
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read(end - start)
    except OSError as exc:
        raise LbpeError(f"{path}: cannot be read ({exc.strerror})") from None
    records = records_of_bytes(path, data, lines=lines, text_field=text_field, first_line=line)
    lengths, ids, errors = _encode_batch(None, mode, [r.text if r.error is None else "" for r in records])
    errors.update({k: r.error for k, r in enumerate(records) if r.error is not None})
    return lengths, ids, errors


def _pooled(tok: Tokenizer, inputs, mode: Mode, pool, num_proc: int, *, lines: bool, text_field: str, progress):
    """The items of :func:`_ordered` for a fresh export on worker processes: the workers read
    runs of lines of uncompressed line-based inputs themselves (this process only writes);
    other inputs go through :func:`_ordered`."""
    number = 0
    for path in map(str, inputs):
        kind = input_kind(path)  # runs of lines: JSON lines, and text files read with --lines
        if not (kind == "jsonl" or (lines and kind == "text")) or path.lower().endswith(".gz"):
            records = iter_records([path], lines=lines, text_field=text_field, progress=progress, parse=False)
            for item in _ordered(tok, records, mode, pool, num_proc, number):
                number = max(number, item[1][-1][0] if item[0] == "documents" else item[1])
                yield item
            continue
        pending: deque = deque()
        ranges = iter(_line_ranges(path, size=POOL_RANGE_BYTES))
        while True:
            for r in ranges:
                pending.append(
                    (r, pool.submit(_encode_range, mode, path, r["start"], r["end"], r["line"], lines, text_field))
                )
                if len(pending) >= 2 * num_proc:
                    break
            if not pending:
                break
            r, job = pending.popleft()
            lengths_bytes, ids_bytes, errors = job.result()
            lengths, ids = array("I"), array("I")
            lengths.frombytes(lengths_bytes)
            ids.frombytes(ids_bytes)
            metas = [(number + k, True, path) for k in range(1, len(lengths) + 1)]
            number += len(lengths)
            if metas:
                if errors:
                    yield from one_by_one(metas, lengths, ids, errors)
                else:
                    yield ("documents", metas, (lengths, ids))
            progress(r["end"] - r["start"])
