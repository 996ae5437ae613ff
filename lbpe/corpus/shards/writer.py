"""The shards of an export as it writes them: each split's stream (train, and val when a share
is held out), its shard written under a temporary name and renamed when complete (shuffled
first if asked), and the index rewritten after each shard, with Ctrl-C held meanwhile."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import signal
import sys
import threading
from array import array
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path
from typing import BinaryIO, NoReturn

from lbpe.corpus.containers import Container, tmp_name, write_file
from lbpe.corpus.shards.consumed import Consumed
from lbpe.corpus.shards.folder import SPLITS, _file_digest
from lbpe.corpus.shards.index import INDEX_NAME
from lbpe.errors import LbpeError


def _in_val(seed: int, record: int, fraction: float) -> bool:
    """Whether document ``record`` (its number in the inputs) is held out: a hash of the seed
    and the number, so the split is the same on any number of processes and on resume."""
    digest = hashlib.sha256(f"lbpe-val:{seed}:{record}".encode()).digest()
    return int.from_bytes(digest[:8], "little") < fraction * (1 << 64)


class NothingToExport(LbpeError):
    """The inputs hold no id to write (no documents, or only empty ones and no end-of-text id):
    the export stops with nothing written."""


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
        bos: int | None = None,
        val_fraction: float,
        seed: int,
        shuffle: bool,
        consumed: Consumed | None = None,
    ) -> None:
        self.out = out
        self.consumed = consumed  # what each complete shard records of the inputs read
        self.header = header
        self.shard_tokens = shard_tokens
        self.fmt = fmt
        self.val_fraction = val_fraction
        self.seed = seed
        self.shuffle = shuffle
        self.itemsize = 2 if header["dtype"] == "uint16" else 4
        self.typecode = "H" if self.itemsize == 2 else "I" if array("I").itemsize == 4 else "L"
        # the ids that start and end each document: llm.c's end-of-text first, the start-of-text
        # token next; the others' end-of-text last
        ends = [] if eos is None else [eos]
        self.head = array("I", (ends if fmt.eos_before else []) + ([] if bos is None else [bos]))
        self.tail = array("I", [] if fmt.eos_before else ends)
        self.added = len(self.head) + len(self.tail)  # ids added to each document
        self.streams = {split: _Stream(split) for split in SPLITS}
        self.skipped = 0
        self.messages: list[str] = []
        self.records = 0  # records consumed through the last completed document
        #: split -> the bytes of its joined file (Container.joined_file), while they are joined
        self.joining: dict[str, int] = {}

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
            if self.head:
                self._write(s, self.head)

    def add(self, record: int, ids: array) -> None:
        s = self.stream_of(record)
        self._begin(s)
        self._write(s, ids)

    def end_document(self, record: int, source: str) -> None:
        s = self.stream_of(record)
        self._begin(s)
        if self.tail:
            self._write(s, self.tail)
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
        head, tail = self.head, self.tail
        if not self.added and not self.val_fraction:  # the common case: one run, written as it is
            groups = {"train": (ids, list(accumulate(lengths)), metas)}
        else:
            parts: dict[str, tuple[array, list[int], list]] = {}
            at = 0
            for meta, n in zip(metas, lengths):
                split = self.stream_of(meta[0]).split
                buf, ends, mine = parts.setdefault(split, (array("I"), [], []))
                buf.extend(head)
                buf.extend(ids[at : at + n])
                buf.extend(tail)
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
        # read before Ctrl-C is held: a partial shard is redone on resume, so needs none
        digest = None if partial or self.consumed is None else self.consumed.digest_at(self.records)
        with _interrupts_deferred():
            # (the format's files of a whole split, LitData's index.json, wait for finish: a
            # stopped export is no dataset a trainer could take for the whole)
            closed = [s for s in self.streams.values() if self._close(s, partial=partial, digest=digest)]
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

    def _close(self, s: _Stream, *, partial: bool = False, digest: str | None = None) -> bool:
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
        if digest is not None:
            shard["inputs_sha256"] = digest  # of every record read through "records"
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
        streams = self.streams.values()
        ids = sum(shard["tokens"] for s in streams for shard in s.shards) + sum(s.count for s in streams)
        if not ids:  # (the shard being written is removed as the export stops)
            documents = sum(shard["documents"] for s in streams for shard in s.shards)
            self._remove_shards(self._nothing_to_export(documents + sum(len(s.offsets) - 1 for s in streams)))
        train = self.streams["train"]
        if not sum(shard["tokens"] for shard in train.shards) + train.count:
            kept = sum(shard["documents"] for shard in train.shards) + len(train.offsets) - 1
            val = self.streams["val"]
            drawn = sum(shard["documents"] for shard in val.shards) + len(val.offsets) - 1
            inputs = ", ".join(self.header["inputs"])
            if kept:
                why = (
                    f"the train split's {kept:,} document{' is' if kept == 1 else 's are'} empty (--val-fraction "
                    "drew the others) and no --eos (eos=) was given, so it has not one id"
                )
                fix = "give --eos"
            else:
                why = (
                    f"--val-fraction {self.val_fraction:g} (val_fraction=) drew all {drawn:,} "
                    f"document{'' if drawn == 1 else 's'} for the val split"
                )
                fix = "give more documents or a smaller rate"
            self._remove_shards(
                f"{inputs}: nothing to train on: {why}; no trainer could read a train split of nothing, so none "
                f"was written: {fix}"
            )
        self.close_shard()
        with _interrupts_deferred():
            splits = {split: s.shards for split, s in self.streams.items()}
            if self.fmt.joined_file("train"):  # what the joined files take, for the advice on a full disk
                self.joining = {
                    split: sum(shard["files"][shard["tokens_file"]]["bytes"] for shard in shards)
                    for split, shards in splits.items()
                    if shards
                }
            for split, shards in splits.items():
                if shards:
                    self.fmt.folder_files(self.out, split, shards)
            made = self.fmt.complete(self.out, splits)
            self.joining = {}
            return self.write_index(complete=True, files={name: _file_digest(self.out / name) for name in made})

    def _remove_shards(self, message: str) -> NoReturn:
        """Remove every shard closed so far and the index, and refuse the export with ``message``."""
        for s in self.streams.values():  # shards of empty documents, closed as batches were written whole
            for shard in s.shards:
                for name in shard["files"]:
                    (self.out / name).unlink(missing_ok=True)
            s.shards = []
        (self.out / INDEX_NAME).unlink(missing_ok=True)
        raise NothingToExport(message)

    def _nothing_to_export(self, documents: int) -> str:
        inputs = self.header["inputs"]
        its = "its" if len(inputs) == 1 else "their"
        if documents:
            are = "1 document is" if documents == 1 else f"{documents:,} documents are"
            why = f"{its} {are} empty and no --eos (eos=) was given, so there is not one id"
        elif self.skipped > 1:
            why = f"all {self.skipped:,} documents were bad and skipped (--skip-bad), the first: {self.messages[0]}"
        elif self.skipped:
            why = f"the one document was bad and skipped (--skip-bad): {self.messages[0]}"
        else:
            why = f"{'it holds' if len(inputs) == 1 else 'they hold'} no documents (blank lines only)"
        return (
            f"{', '.join(inputs)}: nothing to export: {why}; no trainer could read an export of nothing, "
            "so none was written"
        )

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
        if complete and self.consumed is not None:  # every record read, the last ones after the last shard too
            index["inputs_sha256"] = self.consumed.digest_at(self.records)
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
