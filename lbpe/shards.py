"""Token shards: a corpus encoded into numbered ``.npy`` files that a training loop memory-maps.

``export_shards`` reads documents (:mod:`lbpe.documents`), encodes them in one mode on
``num_proc`` processes, and writes to a folder::

    tokens-00000.npy    1-D uint16 (every id < 65536) or uint32: the documents' ids, one after another
    offsets-00000.npy   1-D int64, documents + 1 entries: where each document starts (and the end)
    index.json          vocabulary, its SHA-256, mode, dtype, and per shard: documents, tokens, inputs

A shard is written under a temporary name and renamed when complete, and ``index.json`` is
rewritten (also atomically) after each shard, so Ctrl-C, a crash or a bad document leaves only
complete shards; ``resume=True`` continues after them. When the export stops (a bad document
without ``skip_bad``, Ctrl-C), the documents completed so far are kept as a last shard.

Read a shard with ``numpy.load(path, mmap_mode="r")``: document ``i`` of a shard is
``tokens[offsets[i]:offsets[i + 1]]``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import signal
import sys
import threading
from array import array
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import BinaryIO

from lbpe.corpus import align_chunks
from lbpe.documents import (
    BadRecord,
    Record,
    check_parquet_column,
    input_bytes,
    input_kind,
    iter_records,
    parquet_record,
    records_of_bytes,
)
from lbpe.errors import LbpeError
from lbpe.tokenizer import MODES, Mode, Tokenizer
from lbpe.workers import process_pool, worker_tokenizer

__all__ = ["export_shards", "vocab_sha256", "ShardDataset", "SHARD_FORMAT", "DEFAULT_SHARD_TOKENS"]

SHARD_FORMAT = "lbpe-shards/1"
#: Tokens per shard unless asked otherwise (200 MB at uint16); a shard ends between documents.
DEFAULT_SHARD_TOKENS = 100_000_000
#: Characters of text per batch sent to a worker.
BATCH_CHARS = 1 << 20
#: Bad documents whose messages index.json keeps (the count covers all of them).
KEPT_MESSAGES = 20


def vocab_sha256(tok: Tokenizer) -> str:
    """A fingerprint of what decides the ids: every token's bytes and id, the special, added
    and byte-fallback tokens, the merges' order and the unit (not the file's spelling)."""
    v = tok.vocab
    h = hashlib.sha256()

    def put(*parts: object) -> None:
        for part in parts:
            data = part if isinstance(part, bytes) else str(part).encode("utf-8", "surrogatepass")
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)

    put("unit", v.unit, "pattern", tok.pretokenizer_name)
    h.update(
        b"".join(
            i.to_bytes(8, "little") + len(key).to_bytes(8, "little") + key
            for key, i in sorted(v.tokens.items(), key=lambda kv: kv[1])
        )
    )
    for text, i in sorted({**v.special, **tok.added_tokens}.items(), key=lambda kv: kv[1]):
        put("special", i, text)
    for b, i in sorted((v.byte_fallback or {}).items()):
        put("fallback", b, i)
    for (left, right), rank in sorted((v.merges or {}).items(), key=lambda kv: kv[1]):
        put("merge", rank, left, right)
    return h.hexdigest()


class ShardDataset:
    """The documents of a shard folder as a sequence (a PyTorch-style map dataset): ``len(ds)``
    documents, ``ds[i]`` the ids of document ``i`` as a read-only numpy view into the
    memory-mapped shard (nothing is read until used). Needs numpy::

        ds = ShardDataset("shards/")
        loader = torch.utils.data.DataLoader(ds, batch_size=None)
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        import numpy as np

        self.folder = Path(folder)
        try:
            self.index = json.loads((self.folder / "index.json").read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise LbpeError(f"{self.folder}: no readable index.json ({exc}); is it an lbpe export folder?") from None
        if self.index.get("format") != SHARD_FORMAT:
            raise LbpeError(f"{self.folder}: index.json is not {SHARD_FORMAT}")
        self._tokens = [np.load(self.folder / s["tokens_file"], mmap_mode="r") for s in self.index["shards"]]
        self._offsets = [np.load(self.folder / s["offsets_file"]) for s in self.index["shards"]]
        self._starts = np.cumsum([0] + [len(o) - 1 for o in self._offsets])

    def __len__(self) -> int:
        return int(self._starts[-1])

    def __getitem__(self, i: int):
        import numpy as np

        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"document {i} of {n}")
        i %= n
        shard = int(np.searchsorted(self._starts, i, side="right")) - 1
        k = i - int(self._starts[shard])
        offsets = self._offsets[shard]
        return self._tokens[shard][offsets[k] : offsets[k + 1]]


# ---- workers ----


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
        out = tok.encode(text, mode=mode, disallowed_special=())
        lengths.append(len(out))
        ids.extend(out)
    return lengths.tobytes(), ids.tobytes(), errors


# ---- the shard folder ----

_HEADER_LEN = 128  # fixed, so the shape can be rewritten in place once the count is known


def _npy_header(descr: str, count: int) -> bytes:
    """The header of a 1-D ``.npy`` file of ``count`` items (format 1.0, :data:`_HEADER_LEN` bytes)."""
    body = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({count},), }}".encode("latin1")
    pad = _HEADER_LEN - 10 - len(body) - 1
    return b"\x93NUMPY\x01\x00" + (_HEADER_LEN - 10).to_bytes(2, "little") + body + b" " * pad + b"\n"


class NpyWriter:
    """Append unsigned integers to a 1-D ``.npy`` file (``uint16`` or ``uint32``)."""

    def __init__(self, f: BinaryIO, *, itemsize: int) -> None:
        if itemsize not in (2, 4):
            raise ValueError("itemsize must be 2 (uint16) or 4 (uint32)")
        self.f = f
        self.itemsize = itemsize
        self.typecode = "H" if itemsize == 2 else "I" if array("I").itemsize == 4 else "L"
        self.descr = "<u2" if itemsize == 2 else "<u4"
        self.count = 0
        f.write(self._header())

    def _header(self) -> bytes:
        return _npy_header(self.descr, self.count)

    def write(self, ids: Sequence[int]) -> None:
        if isinstance(ids, array) and ids.typecode == self.typecode:
            data = ids
        else:
            try:
                data = array(self.typecode, ids)  # refuses a value that does not fit
            except OverflowError:
                raise LbpeError(f"token id {max(ids)} does not fit {self.descr}") from None
        if sys.byteorder == "big":
            data.byteswap()
        self.f.write(data.tobytes())
        self.count += len(ids)

    def truncate(self, count: int) -> None:
        """Forget every id after the first ``count``."""
        if count < self.count:
            self.f.truncate(_HEADER_LEN + count * self.itemsize)
            self.f.seek(0, os.SEEK_END)
            self.count = count

    def close(self) -> None:
        self.f.seek(0)
        self.f.write(self._header())
        self.f.seek(0, os.SEEK_END)


@dataclass
class _Shards:
    out: Path
    header: dict
    shard_tokens: int
    shards: list[dict] = field(default_factory=list)
    skipped: int = 0
    messages: list[str] = field(default_factory=list)
    records: int = 0  # records consumed through the last completed document
    writer: NpyWriter | None = None  # the shard being written (its file is ``writer.f``)
    offsets: list[int] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)

    def _name(self, kind: str) -> Path:
        return self.out / f"{kind}-{len(self.shards):05d}.npy"

    def _open(self) -> NpyWriter:
        tmp = Path(str(self._name("tokens")) + ".tmp")
        self.writer = NpyWriter(open(tmp, "w+b"), itemsize=2 if self.header["dtype"] == "uint16" else 4)
        self.offsets = [0]
        self.inputs = []
        return self.writer

    def writing(self) -> NpyWriter:
        """The writer of the shard being written, opened on first use."""
        return self._open() if self.writer is None else self.writer

    def add(self, ids: array) -> None:
        self.writing().write(ids)

    def end_document(self, record: int, source: str) -> None:
        writer = self.writing()
        self.offsets.append(writer.count)
        self.records = record
        if not self.inputs or self.inputs[-1] != source:
            self.inputs.append(source)
        if writer.count >= self.shard_tokens:
            self.close_shard()

    def add_documents(self, metas: list[tuple[int, bool, str]], lengths: array, ids: array) -> bool:
        """Whole documents at once (``lengths[k]`` ids each, in ``ids``), when they fit in the
        shard being written without reaching its size; ``False`` (nothing written) otherwise,
        and the caller adds them one by one."""
        writer = self.writing()
        if writer.count + len(ids) >= self.shard_tokens:
            return False
        start = writer.count
        writer.write(ids)
        self.offsets += list(accumulate(lengths, initial=start))[1:]
        self.records = metas[-1][0]
        for _, _, source in metas:
            if not self.inputs or self.inputs[-1] != source:
                self.inputs.append(source)
        return True

    def drop_document(self) -> None:
        """Forget the ids of the document being written (it turned out bad)."""
        if self.writer is not None:
            self.writer.truncate(self.offsets[-1])

    def close_shard(self) -> None:
        """Write the shard's documents so far (if any) and the index; drop the rest. Ctrl-C
        waits until this is done, so a shard is either complete or absent."""
        with _interrupts_deferred():
            self._close_shard()

    def _close_shard(self) -> None:
        if self.writer is None:
            return
        self.writer.truncate(self.offsets[-1])
        writer, file, self.writer = self.writer, self.writer.f, None
        if len(self.offsets) > 1:
            writer.close()
            file.flush()
            os.fsync(file.fileno())
            file.close()
            tokens, offsets = self._name("tokens"), self._name("offsets")
            _write_int64_npy(offsets, self.offsets)
            os.replace(file.name, tokens)
            self.shards.append(
                {
                    "tokens_file": tokens.name,
                    "offsets_file": offsets.name,
                    "documents": len(self.offsets) - 1,
                    "tokens": writer.count,
                    "records": self.records,
                    "inputs": self.inputs,
                }
            )
            self.write_index(complete=False)
        else:
            file.close()
            os.unlink(file.name)

    def write_index(self, *, complete: bool) -> dict:
        index = {
            **self.header,
            "complete": complete,
            "documents": sum(s["documents"] for s in self.shards),
            "tokens": sum(s["tokens"] for s in self.shards),
            "skipped_documents": self.skipped,
            "skipped_messages": self.messages,
            "shards": self.shards,
        }
        tmp = self.out / "index.json.tmp"
        tmp.write_text(json.dumps(index, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, self.out / "index.json")
        return index


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C (SIGINT) until the block is done, then raise it (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    except ValueError:  # no signals here (an embedded interpreter)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def _write_int64_npy(path: Path, values: list[int]) -> None:
    data = array("q", values)
    if sys.byteorder == "big":
        data.byteswap()
    tmp = Path(str(path) + ".tmp")
    with open(tmp, "wb") as f:
        f.write(_npy_header("<i8", len(values)) + data.tobytes())
    os.replace(tmp, path)


def _resume_state(out: Path, header: dict) -> dict | None:
    index_path = out / "index.json"
    if not index_path.is_file():
        return None
    try:
        index = json.loads(index_path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise LbpeError(f"{index_path}: cannot be read to resume ({exc}); start again in an empty folder") from None
    for key in ("format", "vocab_sha256", "mode", "dtype", "inputs", "lines", "text_field", "separator_id"):
        if index.get(key) != header.get(key):
            raise LbpeError(
                f"{out} was written with another {key} ({index.get(key)!r:.80}, now {header.get(key)!r:.80}); "
                "resume with the same vocabulary, mode and inputs, or export into an empty folder"
            )
    for shard in index["shards"]:
        for name in (shard["tokens_file"], shard["offsets_file"]):
            if not (out / name).is_file():
                raise LbpeError(f"{out / name} is missing; the folder cannot be resumed: export into an empty folder")
    return index


# ---- the export ----


def _whole_or_one_by_one(items, shards: _Shards, separator: array, progress, read_bytes: Callable[[], int]):
    """The items, with each ``"documents"`` batch written whole when it fits in the current
    shard (then ``None`` is yielded, after ``progress`` is told) or expanded one by one."""
    for item in items:
        if item[0] != "documents":
            yield item
            continue
        _, metas, (lengths, ids) = item
        if not separator and shards.add_documents(metas, lengths, ids):
            if progress is not None:
                progress(read_bytes(), len(lengths), len(ids))
            yield None
            continue
        yield from one_by_one(metas, lengths, ids)


def export_shards(
    tok: Tokenizer,
    inputs: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    mode: Mode,
    lines: bool = False,
    text_field: str = "text",
    shard_tokens: int = DEFAULT_SHARD_TOKENS,
    num_proc: int = 1,
    resume: bool = False,
    skip_bad: bool = False,
    separator_id: int | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    engine: str = "local",
    address: str | None = None,
) -> dict:
    """Encode the documents of ``inputs`` into shards in the folder ``out``; returns the index.

    ``progress(input_bytes, documents, tokens)`` is called with the amounts done since the
    last call. A bad document (invalid UTF-8, not JSON, a missing field) stops the export with
    its file and line named, after keeping the documents before it; ``skip_bad`` counts and
    skips it instead. ``separator_id`` (e.g. an end-of-text id) is appended to each document.

    ``engine="ray"`` runs the same per-batch encoding on Ray Data (``address``: a cluster;
    default: the one ``ray.init`` finds, or a local instance): files are read by Ray's
    workers, parsed with the same rules (:func:`lbpe.documents.records_of_bytes`) and encoded,
    and this process writes the shards in input order, so they hold the same ids as
    ``engine="local"``. A line-based input is cut into runs of about 16 MB, read by the workers
    themselves (on a cluster the files must be on a file system every node sees).
    """
    if mode not in MODES:
        raise LbpeError(f"mode must be 'bpe' or 'lbpe', not {mode!r}")
    if engine not in ("local", "ray"):
        raise LbpeError(f"engine must be 'local' or 'ray', not {engine!r}")
    if shard_tokens < 1:
        raise LbpeError(f"shard_tokens must be at least 1, not {shard_tokens}")
    out = Path(out)
    dtype = "uint16" if tok.n_vocab <= 1 << 16 else "uint32"
    if separator_id is not None and not 0 <= separator_id < (1 << 16 if dtype == "uint16" else 1 << 32):
        raise LbpeError(f"separator id {separator_id} does not fit {dtype}")
    header = {
        "format": SHARD_FORMAT,
        "vocab": tok.name,
        "vocab_sha256": vocab_sha256(tok),
        "n_vocab": tok.n_vocab,
        "mode": mode,
        "dtype": dtype,
        "inputs": [str(p) for p in inputs],
        "lines": lines,
        "text_field": text_field,
        "separator_id": separator_id,
        "shard_tokens": shard_tokens,
    }
    input_bytes(inputs)  # every input readable, before anything is written
    out.mkdir(parents=True, exist_ok=True)
    previous = _resume_state(out, header) if resume else None
    if previous is None:
        leftovers = sorted(p.name for p in out.iterdir() if p.name != ".gitkeep")
        if leftovers:
            raise LbpeError(
                f"{out} is not empty ({', '.join(leftovers[:3])}{', ...' if len(leftovers) > 3 else ''}); "
                "export into an empty folder, or pass --resume to continue an export there"
            )
    for stray in out.glob("*.tmp"):
        stray.unlink()
    shards = _Shards(out, header, shard_tokens)
    if previous is not None:
        if previous.get("complete"):
            return previous
        shards.shards = previous["shards"]
        shards.skipped = previous.get("skipped_documents", 0)
        shards.messages = previous.get("skipped_messages", [])
        shards.records = shards.shards[-1]["records"] if shards.shards else 0
    skip = shards.records

    read_bytes = 0

    def on_read(n: int) -> None:
        nonlocal read_bytes
        read_bytes += n

    def bytes_read() -> int:  # read when a progress step is reported (the loop below resets it)
        return read_bytes

    pool = None
    if engine == "ray":
        items = _ray_ordered(
            tok, inputs, mode, lines=lines, text_field=text_field, skip=skip, address=address, progress=on_read
        )
    else:
        pool = process_pool(tok, num_proc) if num_proc > 1 else None
        if pool is not None and skip == 0:  # the workers read runs of lines themselves
            items = _pooled(tok, inputs, mode, pool, num_proc, lines=lines, text_field=text_field, progress=on_read)
        else:
            records = iter_records(inputs, lines=lines, text_field=text_field, skip=skip, progress=on_read, parse=False)
            items = _ordered(tok, records, mode, pool, num_proc, skip)
    separator = array("I", [] if separator_id is None else [separator_id])
    try:
        for item in _whole_or_one_by_one(items, shards, separator, progress, bytes_read):
            if item is None:  # a batch of documents was written whole
                read_bytes = 0
                continue
            kind, number, payload = item
            if kind == "ids":
                shards.add(payload)
                continue
            if kind == "end":
                shards.add(separator)
                tokens = shards.writing().count - shards.offsets[-1]
                shards.end_document(number, payload)
                if progress is not None:
                    progress(read_bytes, 1, tokens)
                    read_bytes = 0
                continue
            # a bad document: its ids so far are dropped
            shards.drop_document()
            if not skip_bad:
                kept = sum(s["documents"] for s in shards.shards) + len(shards.offsets) - 1
                raise LbpeError(
                    f"{payload}; the {kept:,} documents "
                    "before it are kept: fix it and rerun with --resume, or pass --skip-bad"
                )
            shards.skipped += 1
            shards.records = number
            if len(shards.messages) < KEPT_MESSAGES:
                shards.messages.append(payload)
        shards.close_shard()
        return shards.write_index(complete=True)
    except BaseException:
        shards.close_shard()  # keep every document completed before the stop
        for stray in out.glob("*.tmp"):
            stray.unlink()
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


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
        if not (lines or input_kind(path) == "jsonl") or path.lower().endswith(".gz"):
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


# ---- Ray Data ----


#: Bytes of a line-based input per Ray task (a file is cut into such runs of whole lines).
RAY_RANGE_BYTES = 16 << 20


def _line_ranges(path: str, *, size: int = RAY_RANGE_BYTES) -> list[dict]:
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


#: Tokenizers a Ray worker process has unpickled, by export: kept warm (caches, compiled
#: tables) for every task that process runs.
_RAY_TOKENIZERS: dict[str, Tokenizer] = {}


def _ray_encode(batch: dict, *, tok_ref, key: str, mode: Mode, lines: bool, text_field: str, source: str) -> dict:
    """Ray Data map_batches: a run of an input file (or a batch of a Parquet column) -> one
    row with its documents' ids, encoded with the same per-batch function as the local
    processes, and its input (``path``) and size on disk (``bytes``) for the driver."""
    import ray

    tok = _RAY_TOKENIZERS.get(key)
    if tok is None:
        tok = _RAY_TOKENIZERS[key] = ray.get(tok_ref)
    if "start" in batch:
        records, size = [], 0
        for path, start, end, line in zip(batch["path"], batch["start"], batch["end"], batch["line"]):
            with open(str(path), "rb") as f:
                f.seek(int(start))
                data = f.read(int(end) - int(start))
            size += len(data)
            records += records_of_bytes(str(path), data, lines=lines, text_field=text_field, first_line=int(line))
        path = str(batch["path"][0])
    else:  # a Parquet column: rows are numbered by the driver, which reads the results in order
        records = [parquet_record(source, 0, value, text_field) for value in batch[text_field]]
        path, size = source, 0
    # one row for the whole batch (per-document rows cost Arrow more than the encoding saves)
    lengths, ids, errors = _encode_batch(tok, mode, [r.text if r.error is None else "" for r in records])
    errors.update({k: r.error for k, r in enumerate(records) if r.error is not None})
    return {"lengths": [lengths], "ids": [ids], "errors": [json.dumps(errors)], "path": [path], "bytes": [size]}


def _ray_ordered(tok: Tokenizer, inputs, mode: Mode, *, lines: bool, text_field: str, skip: int, address, progress):
    """The items of :func:`_ordered`, encoded on Ray Data and read back in input order: one
    dataset for each run of consecutive text and JSONL inputs (so Ray's start-up is paid once,
    not per file), one for each Parquet file."""
    import functools
    import time

    try:
        import ray
    except ImportError:
        raise LbpeError('--engine ray needs Ray: python -m pip install "lbpe[ray]"') from None
    if not ray.is_initialized():
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False  # lbpe's own bar counts; Ray's would interleave with it
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    number = 0
    tok_ref = ray.put(tok)  # sent once; each worker process unpickles it once (_RAY_TOKENIZERS)
    key = f"{os.getpid()}-{id(tok)}-{time.time_ns()}"
    encode = functools.partial(_ray_encode, tok_ref=tok_ref, key=key, mode=mode, lines=lines, text_field=text_field)
    groups: list[tuple[str, list]] = []  # ("parquet", [path]) or ("runs", [range, ...])
    for path in map(str, inputs):
        if input_kind(path) == "parquet":
            groups.append(("parquet", [path]))
            continue
        # runs of whole lines (or the whole file, for one document per file), read by the workers
        ranges = (
            _line_ranges(path)
            if lines or input_kind(path) == "jsonl"
            else [{"path": path, "start": 0, "end": os.path.getsize(path), "line": 1}]
        )
        if groups and groups[-1][0] == "runs":
            groups[-1][1].extend(ranges)
        else:
            groups.append(("runs", ranges))
    for kind, members in groups:
        if kind == "parquet":
            import pyarrow.parquet as pq

            path = members[0]
            check_parquet_column(path, pq.ParquetFile(path).schema_arrow.names, text_field)
            ds = (
                ray.data.read_parquet(path)
                .select_columns([text_field])
                .map_batches(functools.partial(encode, source=path), batch_format="numpy", batch_size=256)
            )
        else:
            ds = ray.data.from_items(members, override_num_blocks=len(members)).map_batches(
                functools.partial(encode, source=""), batch_format="numpy", batch_size=1
            )
        row = 0
        for batch in ds.iter_batches(batch_format="numpy", batch_size=None, prefetch_batches=2):
            for lengths_bytes, ids_bytes, errors_json, path, size in zip(
                batch["lengths"], batch["ids"], batch["errors"], batch["path"], batch["bytes"]
            ):
                path = str(path)
                lengths, ids = array("I"), array("I")
                lengths.frombytes(bytes(lengths_bytes))
                ids.frombytes(bytes(ids_bytes))
                errors = {int(k): message for k, message in json.loads(str(errors_json)).items()}
                if kind == "parquet":  # the worker could not know the rows' numbers
                    errors = {
                        k: m.replace(f"{path}: row 0:", f"{path}: row {row + k + 1}:", 1) for k, m in errors.items()
                    }
                row += len(lengths)
                progress(int(size))
                metas = [(number + k, True, path) for k in range(1, len(lengths) + 1)]
                number += len(lengths)
                if number <= skip:
                    continue
                if metas and metas[0][0] <= skip:  # a resumed export: this batch is partly done
                    keep = skip - metas[0][0] + 1
                    ids = ids[sum(lengths[:keep]) :]
                    metas, lengths = metas[keep:], lengths[keep:]
                    errors = {k - keep: m for k, m in errors.items() if k >= keep}
                if not metas:
                    continue
                if errors:
                    yield from one_by_one(metas, lengths, ids, errors)
                else:
                    yield ("documents", metas, (lengths, ids))
        if kind == "parquet":
            progress(os.path.getsize(members[0]))
