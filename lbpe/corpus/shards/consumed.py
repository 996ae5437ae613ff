"""What an export has consumed of its inputs: a SHA-256 over its first records, as stored.

Each complete shard records the digest of every record read before it closed
(``inputs_sha256``); a resume reads the inputs again, compares, and redoes the shards whose
documents changed since (an input edited, replaced or reordered under the same name). A fix
after the last kept shard (the bad document that stopped the export) changes no recorded
digest, so it redoes nothing.

The inputs are read here, in this process, apart from the engine that encodes them (so the
local workers and Ray Data give the same digests), and only as far as asked. What is hashed is
each input's bytes as stored (decompressed), from its start through the end of the last record
asked for: the line that holds it (JSON lines, ``lines=True``), or the whole file (a text file
that is one document); a Parquet file's records one by one (its text, or why it is bad),
length-prefixed. A marker with the input's place in the list starts each input.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.jsonl").write_text('{"text": "one"}\\n\\n{"text": "two"}\\n')
>>> c = Consumed([d / "a.jsonl"], lines=False, text_field="text")
>>> first, both = c.digest_at(1), c.digest_at(2)
>>> first != both and c.digest_at(1) == first
True
>>> import hashlib
>>> both == hashlib.sha256(b"\\0lbpe-input\\0" + bytes(4) + (d / "a.jsonl").read_bytes()).hexdigest()
True
>>> c.sources(2, 2).endswith("a.jsonl")
True
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from lbpe.corpus.documents import BOM, GZIP_ERRORS, BadRecord, Record, _open, input_kind, iter_records
from lbpe.corpus.textio import CHUNK_BYTES
from lbpe.errors import LbpeError

#: Ends a Parquet record's parts (no part is this long).
_END = (2**64 - 1).to_bytes(8, "little")


def _marker(place: int) -> bytes:
    return b"\0lbpe-input\0" + place.to_bytes(4, "little")


def _parts(record: Record) -> Iterator[bytes]:
    """A record read by :func:`iter_records`, in parts: its kind first."""
    if record.error is not None:
        yield b"bad"
        yield record.error.encode("utf-8", "surrogatepass")
    else:
        yield b"text"
        try:
            for piece in record.pieces():
                yield piece.encode("utf-8", "surrogatepass")
        except BadRecord as exc:
            yield b"bad"
            yield str(exc).encode("utf-8", "surrogatepass")


class _Lines:
    """An input of one record a line (a line of only ASCII white space is none), read in
    blocks: :meth:`advance` hashes its bytes through the end of a later record's line. Each
    byte is looked at once, however long its line."""

    def __init__(self, path: Path, *, told: Callable[[int], None]) -> None:
        self.path = path
        self.stream, self.raw = _open(path)
        self.told = told  # the bytes read from the file (compressed, for .gz) since the last call
        self.seen = 0
        self.pending = b""  # read and not hashed: what follows the last record asked for
        self.first = True  # the file's first line has not been looked at (JSON lines drop a byte order mark there)
        self.text = False  # the line read so far holds more than white space
        self.ended = False

    def _read(self) -> bytes:
        if self.ended:
            return b""
        try:
            block = self.stream.read(CHUNK_BYTES)
        except GZIP_ERRORS as exc:
            raise LbpeError(f"{self.path}: cannot be read ({exc})") from None
        at = self.raw.tell()
        self.told(at - self.seen)
        self.seen = at
        if not block:
            self.ended = True
            self.stream.close()
            self.raw.close()
        return block

    def _has_text(self, data: bytes, start: int, end: int) -> bool:
        part = data[start:end]
        if self.first:  # a BOM before the first line is no text (lbpe.corpus.textio.BOM)
            self.first = False
            part = part.removeprefix(BOM)
        return bool(part.strip())

    def advance(self, want: int, update: Callable[[bytes | memoryview], object]) -> int:
        """Hash through the end of the ``want``-th record from here; the records passed (fewer
        than ``want`` when the input ends first, having hashed all of it)."""
        got = 0
        while True:
            data, self.pending = self.pending or self._read(), b""
            if not data:  # the end: a last line without a line end
                if self.text:
                    self.text = False
                    got += 1
                return got
            at = 0
            while (end := data.find(b"\n", at)) >= 0:
                if self.text or self._has_text(data, at, end):
                    self.text = False
                    got += 1
                    if got == want:
                        update(memoryview(data)[: end + 1])
                        self.pending = data[end + 1 :]
                        return got
                at = end + 1
            if at < len(data) and not self.text:  # a line that goes on in the next block
                self.text = self._has_text(data, at, len(data))
            update(data)


class Consumed:
    """The inputs read in order, hashed as they go; :meth:`digest_at` answers for any number of
    records (reading again from the start when asked for fewer than it has read)."""

    def __init__(self, inputs: Sequence[str | os.PathLike[str]], *, lines: bool, text_field: str) -> None:
        self._inputs = [Path(p) for p in inputs]
        self._lines = lines
        self._text_field = text_field
        #: called with the bytes of input read (compressed, for .gz) since the last call, when set
        self.on_read: Callable[[int], None] | None = None
        self._restart()

    def _told(self, n: int) -> None:
        if self.on_read is not None and n:
            self.on_read(n)

    def _restart(self) -> None:
        self._hash = hashlib.sha256()
        self._count = 0
        self._past = False  # read to the end looking for more records than there are
        self._place = -1  # the input being read
        self._reader: _Lines | Iterator[Record] | None = None
        self._starts: list[int] = []  # the count of records before each input begun

    def _next_input(self) -> bool:
        self._place += 1
        if self._place >= len(self._inputs):
            return False
        path = self._inputs[self._place]
        self._starts.append(self._count)
        self._hash.update(_marker(self._place))
        kind = input_kind(path)
        if kind == "jsonl" or (self._lines and kind == "text"):
            self._reader = _Lines(path, told=self._told)
        elif kind == "text":  # one document: the whole file
            stream, raw = _open(path)
            try:
                seen = 0
                while block := stream.read(CHUNK_BYTES):
                    self._hash.update(block)
                    at = raw.tell()  # on disk (compressed, for .gz), as the export's progress counts
                    self._told(at - seen)
                    seen = at
            except GZIP_ERRORS as exc:
                raise LbpeError(f"{path}: cannot be read ({exc})") from None
            finally:
                stream.close()
                raw.close()
            self._count += 1
            self._reader = None
        else:
            self._reader = iter_records(
                [path], lines=self._lines, text_field=self._text_field, parse=False, progress=self._told
            )
        return True

    def _advance(self, records: int) -> None:
        update = self._hash.update
        while self._count < records:
            reader = self._reader
            if isinstance(reader, _Lines):
                self._count += reader.advance(records - self._count, update)
                if self._count == records:
                    return
            elif reader is not None:
                for record in reader:
                    self._count += 1
                    for part in _parts(record):
                        update(len(part).to_bytes(8, "little"))
                        update(part)
                    update(_END)
                    if self._count == records:
                        return
            if not self._next_input():
                return

    def read_to(self, records: int) -> None:
        """Hash ahead, up to ``records`` records (what a shard asks for later is then ready)."""
        if records > self._count and not self._past:
            self._advance(records)
            self._past = self._count < records

    def digest_at(self, records: int) -> str:
        """The SHA-256 (hex) through the first ``records`` records; when the inputs now hold
        fewer, ``"only N records"`` (which equals no digest)."""
        if records < self._count or self._past:  # what was read past the last record is in the hash
            self._restart()
        self._advance(records)
        if self._count < records:
            self._past = True
            return f"only {self._count:,} records"
        return self._hash.hexdigest()

    def count(self) -> int:
        """How many records the inputs hold (all of them read)."""
        self.read_to(2**62)
        return self._count

    def sources(self, first: int, last: int, *, most: int = 3) -> str:
        """The inputs that records ``first`` to ``last`` (counted from 1) were read from (at most
        ``most`` of them named), joined by ", "."""
        self.read_to(last)
        starts = [*self._starts, self._count]
        names = [
            str(self._inputs[k])
            for k in range(len(self._starts))
            if starts[k] < starts[k + 1] and starts[k] < last and starts[k + 1] >= first
        ]
        more = f" and {len(names) - most} more" if len(names) > most else ""
        return ", ".join(names[:most]) + more
