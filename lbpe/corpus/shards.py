"""Token shards: a corpus encoded into the files a training loop reads.

``export_shards`` reads documents (:mod:`lbpe.corpus.documents`), encodes them in one mode on
``num_proc`` processes (or Ray Data) and writes them, in input order, as shards of one of the
formats of :mod:`lbpe.corpus.containers` (``npy``, ``nanogpt``, ``llmc``, ``megatron``,
``datatrove``, ``litdata``), with ``lbpe-index.json``: vocabulary, its SHA-256, mode, format,
dtype, the end-of-text id and where it goes, and per shard its documents, tokens, inputs and
every file's size and SHA-256.

One export writes into a folder at a time (``fcntl.flock`` on ``.lbpe-export.lock`` there; a
second one fails at once naming the holder). A shard is written under a name unique to the
writer and renamed when complete, and the index is rewritten (also atomically) after each
shard, so Ctrl-C, a crash, a full disk or a bad document leaves only complete shards;
``resume=True`` checks each kept shard against the index (size and SHA-256), redoes from the
first one that differs, and continues. When the export stops (a bad document without
``skip_bad``, Ctrl-C), the documents completed so far are kept as a last shard.

``npy`` shards: ``numpy.load(path, mmap_mode="r")``; document ``i`` of a shard is
``tokens[offsets[i]:offsets[i + 1]]`` (:class:`ShardDataset` does it for every shard).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import platform
import random
import shutil
import signal
import sys
import threading
import warnings
from array import array
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from itertools import accumulate
from pathlib import Path
from typing import BinaryIO

from lbpe.corpus.containers import FORMATS, Container, container, tmp_name, write_file
from lbpe.corpus.documents import (
    BadRecord,
    Record,
    check_parquet_column,
    input_bytes,
    input_kind,
    iter_records,
    parquet_record,
    records_of_bytes,
)
from lbpe.corpus.parallel import align_chunks
from lbpe.corpus.workers import process_pool, worker_tokenizer
from lbpe.errors import LbpeError
from lbpe.tokenizer import MODES, Mode, Tokenizer

__all__ = [
    "export_shards",
    "eos_id",
    "vocab_sha256",
    "ShardDataset",
    "FORMATS",
    "SHARD_FORMAT",
    "INDEX_NAME",
    "DEFAULT_SHARD_TOKENS",
]

SHARD_FORMAT = "lbpe-shards/2"
#: The index format of lbpe's first exports (npy shards, ``index.json``), still read by :class:`ShardDataset`.
OLD_SHARD_FORMAT = "lbpe-shards/1"
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


def read_index(folder: str | os.PathLike[str]) -> dict:
    """The index of an export folder: ``lbpe-index.json``, or the ``index.json`` of an earlier
    lbpe (npy shards) when it is lbpe's format."""
    folder = Path(folder)
    for name in (INDEX_NAME, OLD_INDEX_NAME):
        path = folder / name
        if not path.is_file():
            continue
        try:
            index = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise LbpeError(f"{path}: not readable ({exc}); is it an lbpe export folder?") from None
        if isinstance(index, dict) and index.get("format") in (SHARD_FORMAT, OLD_SHARD_FORMAT):
            return index
        if name == INDEX_NAME:
            raise LbpeError(f"{path} is not {SHARD_FORMAT}")
    raise LbpeError(f"{folder}: no {INDEX_NAME} (nor an earlier lbpe's index.json); is it an lbpe export folder?")


class ShardDataset:
    """The documents of a shard folder as a sequence (a PyTorch-style map dataset): ``len(ds)``
    documents, ``ds[i]`` the ids of document ``i`` as a read-only numpy view into the
    memory-mapped shard (nothing is read until used). Needs numpy::

        ds = ShardDataset("shards/")
        loader = torch.utils.data.DataLoader(ds, batch_size=None)
    """

    def __init__(self, folder: str | os.PathLike[str], *, split: str = "train") -> None:
        import numpy as np

        self.folder = Path(folder)
        self.index = read_index(self.folder)
        kind = self.index.get("container", "npy")
        if kind != "npy":
            raise LbpeError(
                f"{self.folder} holds a {kind} export; ShardDataset reads npy exports (read this one with its "
                "trainer's own reader, see lbpe.corpus.containers)"
            )
        if split not in ("train", "val"):
            raise LbpeError(f"split must be 'train' or 'val', not {split!r}")
        shards = self.index["shards"] if split == "train" else self.index.get("val_shards", [])
        self._tokens = [np.load(self.folder / s["tokens_file"], mmap_mode="r") for s in shards]
        self._offsets = [np.load(self.folder / s["offsets_file"]) for s in shards]
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

#: The export's own index (a name no consumer takes for its own: LitData reads ``index.json``).
INDEX_NAME = "lbpe-index.json"
#: What lbpe called it before; :class:`ShardDataset` still reads one of lbpe's format.
OLD_INDEX_NAME = "index.json"
#: One writer per folder: held with ``fcntl.flock`` while an export writes there.
LOCK_NAME = ".lbpe-export.lock"
SPLITS = ("train", "val")
#: Errors that mean the disk (or a size limit) is full, not that the export is wrong.
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _file_digest(path: Path) -> dict:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while block := f.read(1 << 22):
            h.update(block)
            size += len(block)
    return {"bytes": size, "sha256": h.hexdigest()}


def _file_problem(path: Path, want: dict) -> str | None:
    """Why ``path`` is not the file the index recorded (``None`` when it is)."""
    try:
        size = path.stat().st_size
    except OSError:
        return "missing"
    if size != want["bytes"]:
        return f"{size:,} bytes, the index recorded {want['bytes']:,}"
    if _file_digest(path)["sha256"] != want["sha256"]:
        return "its SHA-256 differs from the index's (the file was changed after it was written)"
    return None


def _in_val(seed: int, record: int, fraction: float) -> bool:
    """Whether document ``record`` (its number in the inputs) is held out: a hash of the seed
    and the number, so the split is the same on any number of processes and on resume."""
    digest = hashlib.sha256(f"lbpe-val:{seed}:{record}".encode()).digest()
    return int.from_bytes(digest[:8], "little") < fraction * (1 << 64)


class _Stream:
    """The shards of one split and the shard being written (its temporary token file)."""

    def __init__(self, split: str) -> None:
        self.split = split
        self.shards: list[dict] = []
        self.file: BinaryIO | None = None
        self.tmp: Path | None = None
        self.count = 0
        self.offsets: list[int] = [0]
        self.inputs: list[str] = []
        self.started = False  # the current document has begun (its ids or leading end-of-text written)


class _Shards:
    def __init__(
        self,
        out: Path,
        header: dict,
        shard_tokens: int,
        fmt: Container,
        *,
        eos: int | None,
        val_fraction: float,
        seed: int,
        shuffle: bool,
    ) -> None:
        self.out = out
        self.header = header
        self.shard_tokens = shard_tokens
        self.fmt = fmt
        self.val_fraction = val_fraction
        self.seed = seed
        self.shuffle = shuffle
        self.itemsize = 2 if header["dtype"] == "uint16" else 4
        self.typecode = "H" if self.itemsize == 2 else "I" if array("I").itemsize == 4 else "L"
        self.eos = array("I", [] if eos is None else [eos])
        self.streams = {split: _Stream(split) for split in SPLITS}
        self.skipped = 0
        self.messages: list[str] = []
        self.records = 0  # records consumed through the last completed document

    def stream_of(self, record: int) -> _Stream:
        if self.val_fraction and _in_val(self.seed, record, self.val_fraction):
            return self.streams["val"]
        return self.streams["train"]

    def _open(self, s: _Stream) -> BinaryIO:
        final = self.out / self.fmt.token_file(s.split, len(s.shards))
        final.parent.mkdir(exist_ok=True)
        s.tmp = tmp_name(final)
        s.file = open(s.tmp, "w+b")
        s.file.write(b"\0" * self.fmt.header_bytes)
        s.count, s.offsets, s.inputs = 0, [0], []
        return s.file

    def _write(self, s: _Stream, ids: array) -> None:
        f = s.file or self._open(s)
        if ids.typecode != self.typecode:
            try:
                ids = array(self.typecode, ids)  # refuses a value that does not fit
            except OverflowError:
                raise LbpeError(f"token id {max(ids)} does not fit {self.header['dtype']}") from None
        elif sys.byteorder == "big":
            ids = array(self.typecode, ids)
        if sys.byteorder == "big":
            ids.byteswap()
        f.write(ids.tobytes())
        s.count += len(ids)

    def _begin(self, s: _Stream) -> None:
        if not s.started:
            s.started = True
            if self.fmt.eos_before and self.eos:
                self._write(s, self.eos)

    def add(self, record: int, ids: array) -> None:
        s = self.stream_of(record)
        self._begin(s)
        self._write(s, ids)

    def end_document(self, record: int, source: str) -> None:
        s = self.stream_of(record)
        self._begin(s)
        if self.eos and not self.fmt.eos_before:
            self._write(s, self.eos)
        if s.file is None:
            self._open(s)
        s.offsets.append(s.count)
        s.started = False
        self.records = record
        if not s.inputs or s.inputs[-1] != source:
            s.inputs.append(source)
        if s.count >= self.shard_tokens:
            self.close_shard()

    def add_documents(self, metas: list[tuple[int, bool, str]], lengths: array, ids: array) -> bool:
        """Whole documents at once (``lengths[k]`` ids each, in ``ids``), when they fit in the
        shards being written without reaching their size; ``False`` (nothing written) otherwise,
        and the caller adds them one by one."""
        eos, before = self.eos, self.fmt.eos_before
        if not eos and not self.val_fraction:  # the common case: one run, written as it is
            groups = {"train": (ids, list(accumulate(lengths)), metas)}
        else:
            parts: dict[str, tuple[array, list[int], list]] = {}
            at = 0
            for meta, n in zip(metas, lengths):
                split = self.stream_of(meta[0]).split
                buf, ends, mine = parts.setdefault(split, (array("I"), [], []))
                if before:
                    buf.extend(eos)
                buf.extend(ids[at : at + n])
                if not before:
                    buf.extend(eos)
                at += n
                ends.append(len(buf))
                mine.append(meta)
            groups = parts
        for split, (buf, _, _) in groups.items():
            s = self.streams[split]
            if s.started or s.count + len(buf) >= self.shard_tokens:
                return False
        for split, (buf, ends, mine) in groups.items():
            s = self.streams[split]
            start = s.count
            self._write(s, buf)
            s.offsets += [start + e for e in ends]
            for _, _, source in mine:
                if not s.inputs or s.inputs[-1] != source:
                    s.inputs.append(source)
        self.records = metas[-1][0]
        return True

    def drop_document(self, record: int) -> None:
        """Forget the ids of the document being written (it turned out bad)."""
        s = self.stream_of(record)
        s.started = False
        if s.file is not None and s.count > s.offsets[-1]:
            s.file.truncate(self.fmt.header_bytes + s.offsets[-1] * self.itemsize)
            s.file.seek(0, os.SEEK_END)
            s.count = s.offsets[-1]

    def close_shard(self, *, partial: bool = False) -> None:
        """Write every split's documents so far (if any) as a shard and the index; drop a
        document in progress. Ctrl-C waits until this is done, so a shard is complete or absent.
        ``partial``: closed by a stop, before its size (a resume redoes it)."""
        with _interrupts_deferred():
            closed = [s for s in self.streams.values() if self._close(s, partial=partial)]
            for s in closed:
                self.fmt.folder_files(self.out, s.split, s.shards)
            if closed:
                self.write_index(complete=False)

    def _shuffled(self, s: _Stream) -> None:
        """Rewrite the shard being closed with its documents in a seeded random order."""
        assert s.file is not None
        head = self.fmt.header_bytes
        s.file.seek(head)
        ids = array(self.typecode)
        ids.frombytes(s.file.read())
        n = len(s.offsets) - 1
        order = list(range(n))
        random.Random(f"lbpe-shuffle:{self.seed}:{s.split}:{len(s.shards)}").shuffle(order)
        out, offsets = array(self.typecode), [0]
        for k in order:
            out.extend(ids[s.offsets[k] : s.offsets[k + 1]])
            offsets.append(len(out))
        s.file.seek(head)
        s.file.write(out.tobytes())
        s.offsets = offsets

    def _close(self, s: _Stream, *, partial: bool = False) -> bool:
        if s.file is None:
            return False
        file, tmp = s.file, s.tmp
        assert tmp is not None
        s.file = s.tmp = None
        try:
            file.truncate(self.fmt.header_bytes + s.offsets[-1] * self.itemsize)
            if len(s.offsets) == 1:
                file.close()
                tmp.unlink()
                return False
            if self.shuffle:
                s.file = file
                self._shuffled(s)
                s.file = None
            file.flush()
            os.fsync(file.fileno())
            file.close()
            number = len(s.shards)
            names = self.fmt.write_shard(self.out, tmp, s.split, number, self.header["dtype"], s.offsets)
        except BaseException:
            file.close()
            tmp.unlink(missing_ok=True)
            raise
        shard = {
            "tokens_file": names[0],
            "files": {name: _file_digest(self.out / name) for name in names},
            "documents": len(s.offsets) - 1,
            "tokens": s.offsets[-1],
            "records": self.records,
            "skipped_documents": self.skipped,
            "kept_messages": len(self.messages),
            "inputs": s.inputs,
        }
        if partial:
            shard["partial"] = True
        if self.fmt.name == "npy":
            shard["offsets_file"] = names[1]
        s.shards.append(shard)
        s.count, s.offsets, s.inputs, s.started = 0, [0], [], False
        return True

    def records_kept(self) -> int:
        """Documents kept so far: in complete shards and in the shards being written."""
        return sum(s["documents"] for st in self.streams.values() for s in st.shards) + sum(
            len(st.offsets) - 1 for st in self.streams.values()
        )

    def abandon(self) -> None:
        """Remove the shards being written (after an error that stops the export)."""
        for s in self.streams.values():
            if s.file is not None:
                with contextlib.suppress(OSError):
                    s.file.close()
            if s.tmp is not None:
                s.tmp.unlink(missing_ok=True)
            s.file = s.tmp = None

    def finish(self) -> dict:
        """Close the last shards, write what the format makes of a whole export, and mark it complete."""
        self.close_shard()
        with _interrupts_deferred():
            splits = {split: s.shards for split, s in self.streams.items()}
            for split, shards in splits.items():
                if shards:
                    self.fmt.folder_files(self.out, split, shards)
            made = self.fmt.complete(self.out, splits)
            return self.write_index(complete=True, files={name: _file_digest(self.out / name) for name in made})

    def write_index(self, *, complete: bool, files: dict | None = None) -> dict:
        train, val = self.streams["train"].shards, self.streams["val"].shards
        index = {
            **self.header,
            "complete": complete,
            "records": self.records,
            "documents": sum(s["documents"] for s in train),
            "tokens": sum(s["tokens"] for s in train),
            "val_documents": sum(s["documents"] for s in val),
            "val_tokens": sum(s["tokens"] for s in val),
            "skipped_documents": self.skipped,
            "skipped_messages": self.messages,
            "shards": train,
            "val_shards": val,
            "files": files or {},
        }
        write_file(self.out / INDEX_NAME, (json.dumps(index, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
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


@contextlib.contextmanager
def _folder_lock(out: Path) -> Iterator[None]:
    """Hold ``out``'s lock file for one writer; a second export into ``out`` fails at once,
    naming the process that holds it. (Where ``fcntl`` is missing, as on Windows, no lock.)"""
    try:
        import fcntl
    except ImportError:
        yield
        return
    path = out / LOCK_NAME
    f = open(path, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            try:
                holder = json.loads(f.read())
                who = f"process {holder['pid']} on {holder['host']}: {holder['command']}"
            except (ValueError, KeyError, TypeError):
                who = "another process"
            raise LbpeError(
                f"{out} is being written by another export ({who}); wait for it to end, or export into another folder"
            ) from None
        f.seek(0)
        f.truncate()
        f.write(json.dumps({"pid": os.getpid(), "host": platform.node(), "command": " ".join(sys.argv)}))
        f.flush()
        try:
            yield
        finally:
            f.seek(0)
            f.truncate()  # the file stays (removing it would let a waiting writer lock a stale inode)
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
    finally:
        f.close()


def _our_files(out: Path) -> list[Path]:
    """Every file an export may have left in ``out`` (and its split subfolders), but its lock."""
    found = [p for p in out.iterdir() if p.is_file() and p.name not in (LOCK_NAME, ".gitkeep")]
    for split in SPLITS:
        if (out / split).is_dir():
            found += [p for p in (out / split).iterdir() if p.is_file() or p.is_dir()]
    return found


def _resume_state(out: Path, header: dict, warn: Callable[[str], None]) -> dict | None:
    """The index to continue from, with every kept shard checked against it: a shard whose
    files differ from what the index recorded (size, SHA-256) is dropped with every shard
    written after it, and ``warn`` says so. ``None`` when there is nothing to resume."""
    index_path = out / INDEX_NAME
    if not index_path.is_file():
        if (out / OLD_INDEX_NAME).is_file():
            raise LbpeError(
                f"{out} was written by an earlier lbpe (its {OLD_INDEX_NAME} records no checksums), so it cannot "
                "be resumed safely: export again into an empty folder (ShardDataset still reads the old folder)"
            )
        return None
    try:
        index = json.loads(index_path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise LbpeError(f"{index_path}: cannot be read to resume ({exc}); start again in an empty folder") from None
    for key in ("format", "container", "vocab_sha256", "mode", "dtype", "inputs", "lines", "text_field"):
        if index.get(key) != header.get(key):
            raise LbpeError(
                f"{out} was written with another {key} ({index.get(key)!r:.80}, now {header.get(key)!r:.80}); "
                "resume with the same vocabulary, mode, format and inputs, or export into an empty folder"
            )
    for key in ("eos_id", "val_fraction", "seed", "shuffle"):
        if index.get(key) != header.get(key):
            raise LbpeError(
                f"{out} was written with another {key} ({index.get(key)!r}, now {header.get(key)!r}); "
                "resume with the same options, or export into an empty folder"
            )
    shards = {"train": index["shards"], "val": index["val_shards"]}
    problems: list[str] = []
    bad_at = None  # the first damaged shard's place in the inputs: it and every later shard are redone
    joined = index["complete"] and header["container"] == "nanogpt"  # its parts are now train.bin / val.bin
    if index["complete"]:
        problems += [f"{n}: {p}" for n, meta in index["files"].items() if (p := _file_problem(out / n, meta))]
        if problems and joined:
            bad_at = 0  # everything is redone
    if not joined:
        for split in SPLITS:
            for shard in shards[split]:
                for name, meta in shard["files"].items():
                    problem = _file_problem(out / name, meta)
                    if problem:
                        problems.append(f"{name}: {problem}")
                        start = shard["records"]
                        bad_at = start if bad_at is None else min(bad_at, start)
    if index["complete"] and not problems:
        return index
    if problems:
        redo = sum(1 for split in SPLITS for s in shards[split] if bad_at is not None and s["records"] >= bad_at)
        warn(
            f"{out}: {'; '.join(problems[:5])}{' ...' if len(problems) > 5 else ''}: "
            f"redoing {redo} shard(s) from the first damaged one"
        )
    # a shard closed by a stop (Ctrl-C, a bad document) is redone too, so that a resumed export
    # cuts its shards where an uninterrupted one does (the same bytes)
    for split in SPLITS:
        shards[split] = [s for s in shards[split] if not s.get("partial") and (bad_at is None or s["records"] < bad_at)]
    last = max((s for split in SPLITS for s in shards[split]), key=lambda s: s["records"], default=None)
    index["complete"] = False
    index["records"] = last["records"] if last else 0
    index["skipped_documents"] = last["skipped_documents"] if last else 0
    index["skipped_messages"] = index["skipped_messages"][: last["kept_messages"] if last else 0]
    index["shards"], index["val_shards"] = shards["train"], shards["val"]
    keep = {INDEX_NAME} | {n for split in SPLITS for s in shards[split] for n in s["files"]}
    for path in _our_files(out):
        if path.relative_to(out).as_posix() not in keep:
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
    return index


# ---- the export ----


def _whole_or_one_by_one(items, shards: _Shards, progress, read_bytes: Callable[[], int]):
    """The items, with each ``"documents"`` batch written whole when it fits in the current
    shard (then ``None`` is yielded, after ``progress`` is told) or expanded one by one."""
    for item in items:
        if item[0] != "documents":
            yield item
            continue
        _, metas, (lengths, ids) = item
        if shards.add_documents(metas, lengths, ids):
            if progress is not None:
                progress(read_bytes(), len(lengths), len(ids) + len(lengths) * len(shards.eos))
            yield None
            continue
        yield from one_by_one(metas, lengths, ids)


def eos_id(tok: Tokenizer, eos: str | int) -> int:
    """The id of the end-of-text token ``eos``: a special or added token's spelling (e.g.
    ``"<|endoftext|>"``, ``"</s>"``) or an id."""
    specials = {**tok.special_tokens, **tok.added_tokens}
    if isinstance(eos, int) or (isinstance(eos, str) and eos.isdigit()):
        i = int(eos)
        if not 0 <= i < tok.n_vocab:
            raise LbpeError(f"--eos {i} is not an id of this vocabulary (0 to {tok.n_vocab - 1:,})")
        return i
    if eos in specials:
        return specials[eos]
    listed = ", ".join(sorted(specials, key=specials.__getitem__)[:20]) or "none"
    raise LbpeError(
        f"--eos {eos!r} is not a special token of {tok.name} (its special tokens: {listed}); give one or an id"
    )


def export_shards(
    tok: Tokenizer,
    inputs: Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    *,
    mode: Mode,
    format: str = "npy",
    eos: str | int | None = None,
    lines: bool = False,
    text_field: str = "text",
    shard_tokens: int = DEFAULT_SHARD_TOKENS,
    num_proc: int = 1,
    resume: bool = False,
    skip_bad: bool = False,
    shuffle: bool = False,
    seed: int = 0,
    val_fraction: float = 0.0,
    separator_id: int | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    warn: Callable[[str], None] | None = None,
    engine: str = "local",
    address: str | None = None,
) -> dict:
    """Encode the documents of ``inputs`` into shards of ``format`` (:data:`FORMATS`) in the
    folder ``out``; returns the index (also written to ``out/lbpe-index.json``).

    ``progress(input_bytes, documents, tokens)`` is called with the amounts done since the
    last call. A bad document (invalid UTF-8, not JSON, a missing field) stops the export with
    its file and line named, after keeping the documents before it; ``skip_bad`` counts and
    skips it instead. ``eos`` (a special token's spelling or an id) is added once per document
    where the format puts it: before each document for ``llmc`` (as llm.c's prepare scripts),
    after it for the others. ``shuffle`` puts the documents of each shard in a random order
    seeded by ``seed``; ``val_fraction`` holds that share of the documents out as a validation
    split, chosen by a hash of ``seed`` and the document's number (the same on any engine and
    number of processes). ``warn`` receives what a resume had to redo (damaged shards).

    One export writes into ``out`` at a time (a lock file there); files are written under
    names unique to the writer and renamed when complete; the index records each file's size
    and SHA-256, and ``resume`` checks every kept shard against them.

    ``engine="ray"`` runs the same per-batch encoding on Ray Data (``address``: a cluster;
    default: the one ``ray.init`` finds, or a local instance): files are read by Ray's
    workers, parsed with the same rules (:func:`lbpe.corpus.documents.records_of_bytes`) and encoded,
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
    if not 0 <= val_fraction < 1:
        raise LbpeError(f"val_fraction must be at least 0 and below 1, not {val_fraction}")
    if separator_id is not None:
        warnings.warn("separator_id is deprecated: use eos=ID", DeprecationWarning, stacklevel=2)
        if eos is not None:
            raise LbpeError("give the end-of-text token once: eos (separator_id is its deprecated name)")
        eos = separator_id
    fmt = container(format)
    out = Path(out)
    dtype = fmt.dtype(tok.n_vocab)
    eos_value = None if eos is None else eos_id(tok, eos)
    header = {
        "format": SHARD_FORMAT,
        "container": fmt.name,
        "vocab": tok.name,
        "vocab_sha256": vocab_sha256(tok),
        "n_vocab": tok.n_vocab,
        "mode": mode,
        "dtype": dtype,
        "inputs": [str(p) for p in inputs],
        "lines": lines,
        "text_field": text_field,
        "eos_id": eos_value,
        "eos_position": None if eos_value is None else "before" if fmt.eos_before else "after",
        "shuffle": shuffle,
        "seed": seed,
        "val_fraction": val_fraction,
        "shard_tokens": shard_tokens,
    }
    input_bytes(inputs)  # every input readable, before anything is written
    out.mkdir(parents=True, exist_ok=True)
    with _folder_lock(out):
        return _export_locked(
            tok,
            inputs,
            out,
            header,
            fmt,
            eos_value,
            mode=mode,
            lines=lines,
            text_field=text_field,
            shard_tokens=shard_tokens,
            num_proc=num_proc,
            resume=resume,
            skip_bad=skip_bad,
            shuffle=shuffle,
            seed=seed,
            val_fraction=val_fraction,
            progress=progress,
            warn=warn or (lambda message: None),
            engine=engine,
            address=address,
        )


def _export_locked(
    tok: Tokenizer,
    inputs,
    out: Path,
    header: dict,
    fmt: Container,
    eos: int | None,
    *,
    mode: Mode,
    lines: bool,
    text_field: str,
    shard_tokens: int,
    num_proc: int,
    resume: bool,
    skip_bad: bool,
    shuffle: bool,
    seed: int,
    val_fraction: float,
    progress,
    warn: Callable[[str], None],
    engine: str,
    address: str | None,
) -> dict:
    for stray in [*out.glob("*.tmp"), *out.glob("*/*.tmp"), *out.glob("*/.litdata-*")]:
        if stray.is_dir():
            shutil.rmtree(stray, ignore_errors=True)
        else:
            stray.unlink(missing_ok=True)  # a writer that was killed left it (we hold the lock)
    previous = _resume_state(out, header, warn) if resume else None
    if previous is None:
        leftovers = sorted(p.relative_to(out).as_posix() for p in _our_files(out))
        if leftovers:
            raise LbpeError(
                f"{out} is not empty ({', '.join(leftovers[:3])}{', ...' if len(leftovers) > 3 else ''}); "
                "export into an empty folder, or pass --resume to continue an export there"
            )
    shards = _Shards(out, header, shard_tokens, fmt, eos=eos, val_fraction=val_fraction, seed=seed, shuffle=shuffle)
    if previous is not None:
        if previous.get("complete"):
            return previous
        shards.streams["train"].shards = previous["shards"]
        shards.streams["val"].shards = previous["val_shards"]
        shards.skipped = previous.get("skipped_documents", 0)
        shards.messages = previous.get("skipped_messages", [])
        shards.records = previous.get("records", 0)
        shards.write_index(complete=False)
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
    try:
        for item in _whole_or_one_by_one(items, shards, progress, bytes_read):
            if item is None:  # a batch of documents was written whole
                read_bytes = 0
                continue
            kind, number, payload = item
            if kind == "ids":
                shards.add(number, payload)
                continue
            if kind == "end":
                s = shards.stream_of(number)
                before = s.count - s.offsets[-1] if s.file is not None else 0
                shards.end_document(number, payload)
                if progress is not None:
                    progress(read_bytes, 1, before + (0 if shards.fmt.eos_before else len(shards.eos)))
                    read_bytes = 0
                continue
            # a bad document: its ids so far are dropped
            shards.drop_document(number)
            if not skip_bad:
                kept = shards.records_kept()
                raise LbpeError(
                    f"{payload}; the {kept:,} documents "
                    "before it are kept: fix it and rerun with --resume, or pass --skip-bad"
                )
            shards.skipped += 1
            shards.records = number
            if len(shards.messages) < KEPT_MESSAGES:
                shards.messages.append(payload)
        return shards.finish()
    except OSError as exc:
        shards.abandon()
        if exc.errno in _FULL:
            raise LbpeError(_full_message(out, exc, shards)) from None
        raise
    except BaseException:
        try:
            shards.close_shard(partial=True)  # keep every document completed before the stop
        except OSError as exc:
            shards.abandon()
            if exc.errno in _FULL:
                raise LbpeError(_full_message(out, exc, shards)) from None
            raise
        raise
    finally:
        if pool is not None:
            # wait for the batches already running (a second at most): a pool left running is
            # woken again at interpreter exit, and on Python 3.12 that prints a traceback (EBADF)
            pool.shutdown(wait=True, cancel_futures=True)
        shards.abandon()
        for stray in [*out.glob(f"*.{os.getpid()}-*.tmp"), *out.glob(f"*/*.{os.getpid()}-*.tmp")]:
            stray.unlink(missing_ok=True)


def _full_message(out: Path, exc: OSError, shards: _Shards) -> str:
    """One line for a full disk (or a file-size limit): what stopped, what to free, what is kept."""
    kept = sum(len(s.shards) for s in shards.streams.values())
    shard_bytes = shards.shard_tokens * shards.itemsize
    if exc.errno == errno.EFBIG:
        what = f"a file reached the size limit of this process ({exc.strerror}; see ulimit -f)"
        fix = f"raise the limit or lower --shard-tokens (a shard is up to {shard_bytes:,} bytes)"
    else:
        free = shutil.disk_usage(out).free
        what = f"the disk of {out} is full ({exc.strerror}; {free:,} bytes free)"
        fix = f"free at least {shard_bytes:,} bytes there (one shard of --shard-tokens) or export to another disk"
    return (
        f"{what}: {fix}, then rerun with --resume; the {kept} complete shard(s) are kept "
        "and nothing half-written is left"
    )


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
