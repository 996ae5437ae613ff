"""What both engines share: a batch of texts encoded into compact arrays (:func:`_encode_batch`,
run by a worker process or a Ray task), a batch's results as the items the export writes
(:func:`one_by_one`), and a line-based file cut into runs of whole lines (:func:`_line_ranges`)."""

from __future__ import annotations

import os
from array import array

from lbpe.analysis.stats import Continuation
from lbpe.corpus.documents import Record
from lbpe.corpus.workers import worker_tokenizer
from lbpe.tokenizer import Mode, Tokenizer


def _encode_batch(tok: Tokenizer | None, mode: Mode, texts: list) -> tuple[bytes, bytes, dict[int, str]]:
    """The ids of each text, as (lengths, ids) in native uint32 arrays (compact between
    processes), and the errors of items that are unparsed JSON lines (:class:`Record`s) found
    bad here, by position."""
    tok = tok or worker_tokenizer()
    lengths, ids = array("I"), array("I")
    errors: dict[int, str] = {}
    for k, text in enumerate(texts):
        if isinstance(text, Record):
            record = text.parsed()
            if record.error is not None:
                errors[k] = record.error
                lengths.append(0)
                continue
            text = record.text
        # a later piece of a long text file goes on from the piece before it (align_chunks)
        encoder = (tok.continued() or tok) if isinstance(text, Continuation) else tok
        out = encoder.encode_to_array(text, mode=mode, disallowed_special=())  # no Python int per id
        lengths.append(len(out))
        ids.extend(out)
    return lengths.tobytes(), ids.tobytes(), errors


def one_by_one(metas: list[tuple[int, bool, str]], lengths: array, ids: array, errors: dict[int, str] | None = None):
    """A batch's results as ``("ids", ...)``, ``("end", ...)`` and ``("bad", ...)`` items, one
    document (or piece of one) at a time."""
    errors = errors or {}
    at = 0
    for k, (n, (number, last, source)) in enumerate(zip(lengths, metas)):
        if k in errors:
            yield ("bad", number, errors[k])
            continue
        yield ("ids", number, ids[at : at + n])
        at += n
        if last:
            yield ("end", number, source)


def _line_ranges(path: str, *, size: int) -> list[dict]:
    """Runs of whole lines of about ``size`` bytes: ``{"path", "start", "end", "line"}``
    (``line``: the number of the run's first line). A ``.gz`` file cannot be entered in the
    middle: it is one run."""
    total = os.path.getsize(path)
    if path.lower().endswith(".gz"):
        return [{"path": path, "start": 0, "end": total, "line": 1}]
    ranges, start, line = [], 0, 1
    with open(path, "rb") as f:
        while start < total:
            f.seek(min(start + size, total))
            if f.tell() < total:
                f.readline()  # to the end of the line the cut falls in
            end = f.tell()
            f.seek(start)
            newlines = 0
            at = start
            while at < end:  # count the run's lines (to number the next run's first one)
                block = f.read(min(1 << 20, end - at))
                newlines += block.count(b"\n")
                at += len(block)
            ranges.append({"path": path, "start": start, "end": end, "line": line})
            start, line = end, line + newlines
    return ranges
