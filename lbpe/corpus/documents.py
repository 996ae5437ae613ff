"""Documents from corpus files, streamed: the input stage of ``lbpe export`` and ``lbpe stats``.

Formats, by file name:

* ``.txt`` (and any other name): the whole file is one document, read in chunks (a file larger
  than memory streams); with ``lines=True`` each line is one document, except a line of only
  ASCII white space (spaces, tabs, line ends), which is skipped.
* ``.jsonl``, ``.ndjson`` (optionally ``.gz``): one JSON object per line, its text in
  ``text_field``; blank lines are ignored.
* ``.parquet``: read with pyarrow in record batches (the ``lbpe[data]`` extra, as HF
  ``datasets`` uses), the text in ``text_field``.

:func:`iter_records` yields, in a fixed order, one :class:`Record` per document attempt: its
text in pieces, or why it is bad (invalid UTF-8, not JSON, a missing or non-string field). A
consumer either stops at the first bad record (its message names the file and line) or counts
and skips it. ``skip`` records are passed over unread (to resume an export).

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.jsonl").write_text('{"text": "one"}\\n\\n{"text": "two"}\\n{"id": 3}\\n')
>>> [(r.text, r.error) for r in iter_records([d / "a.jsonl"])]  # doctest: +ELLIPSIS
[('one', None), ('two', None), (None, '...a.jsonl:4: no "text" field (fields: id); ...')]
"""

from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lbpe.corpus.parallel import align_chunks
from lbpe.corpus.textio import BOM, CHUNK_BYTES, cannot_read, decode, decode_file, iter_chunks
from lbpe.errors import LbpeError, NotUtf8Error
from lbpe.formats._json import json_type
from lbpe.tokenizer.checks import surrogate_at

__all__ = [
    "check_reading",
    "check_words",
    "Record",
    "BadRecord",
    "iter_records",
    "records_of_bytes",
    "input_kind",
    "input_bytes",
    "document_texts",
    "check_parquet_column",
    "parquet_record",
]


@dataclass
class Record:
    """One document attempt. ``pieces`` yields its text in order (several pieces for a whole
    text file read in chunks); ``error`` says why it is bad instead. Reading ``pieces`` may
    itself find the document bad (invalid UTF-8 further into a file): it then raises
    :class:`BadRecord`."""

    source: str
    where: str
    text: str | None = None
    error: str | None = None
    chunks: Iterator[str] | None = field(default=None, repr=False)
    #: a JSON line not parsed yet (``iter_records(..., parse=False)``), its number and the
    #: field to read: see :meth:`parsed`
    line: bytes | None = field(default=None, repr=False)
    number: int = 0
    text_field: str = "text"

    def parsed(self) -> Record:
        """This record with its JSON line parsed (itself when there is none)."""
        if self.line is None:
            return self
        return _jsonl_record(self.source, self.number, self.line, self.text_field)

    def pieces(self) -> Iterator[str]:
        if self.text is not None:
            yield self.text
        elif self.chunks is not None:
            yield from self.chunks


class BadRecord(LbpeError):
    """A document found bad while its pieces were read."""


def input_kind(path: str | os.PathLike[str]) -> str:
    """``"jsonl"``, ``"parquet"`` or ``"text"``, from the file name."""
    name = Path(path).name.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith(".parquet"):
        return "parquet"
    return "text"


def check_reading(paths: Sequence[str | os.PathLike[str]], *, lines: bool = False, text_field: str = "text") -> None:
    """Refuse a way of reading that none of ``paths`` takes: ``lines`` splits text files, and
    ``text_field`` names the field of ``.jsonl`` lines and ``.parquet`` rows (an option no input
    takes would do nothing, without a word)."""
    kinds = {input_kind(p) for p in paths}
    names = ", ".join(os.fsdecode(p) for p in list(paths)[:3]) + (" ..." if len(paths) > 3 else "")
    if lines and "text" not in kinds:
        raise LbpeError(
            f"--lines (lines=True) makes each line of a text file a document, and none of the inputs is a text "
            f"file ({names}: each line or row of these is a document already); drop --lines"
        )
    if text_field != "text" and not kinds & {"jsonl", "parquet"}:
        raise LbpeError(
            f"--text-field {text_field} (text_field=) names the field of .jsonl lines or .parquet rows, and none "
            f"of the inputs is a .jsonl or .parquet file ({names}: a text file is all text); drop --text-field"
        )


def input_bytes(paths: Sequence[str | os.PathLike[str]]) -> int:
    """The total size of the inputs on disk (compressed size for ``.gz``): what progress counts."""
    total = 0
    for p in paths:
        try:
            total += os.path.getsize(p)
        except OSError as exc:
            raise cannot_read(p, exc) from None
    return total


#: What reading a damaged or cut ``.gz`` raises (zlib.error for bad deflate data is no OSError).
GZIP_ERRORS = (OSError, EOFError, zlib.error)


def _open(path: Path):
    try:
        f = open(path, "rb", buffering=CHUNK_BYTES)  # long lines: few system calls
    except OSError as exc:
        raise cannot_read(path, exc) from None
    if path.name.lower().endswith(".gz"):
        return gzip.GzipFile(fileobj=f, mode="rb"), f
    return f, f


def iter_records(
    paths: Sequence[str | os.PathLike[str]],
    *,
    lines: bool = False,
    text_field: str = "text",
    skip: int = 0,
    progress=None,
    parse: bool = True,
) -> Iterator[Record]:
    """Every document attempt of ``paths`` in order (see the module docstring); the first
    ``skip`` are passed over. ``progress(n)`` is called with the bytes of input (as stored on
    disk) read since the last call. With ``parse=False`` JSON lines come unparsed
    (:meth:`Record.parsed` parses one), so that worker processes can parse them."""
    n = 0
    for path in map(Path, paths):
        kind = input_kind(path)
        if kind == "jsonl":
            records = _jsonl(path, text_field, progress, parse)
        elif kind == "parquet":
            records = _parquet(path, text_field, progress)
        elif lines:
            records = _lines(path, progress)
        else:
            records = _whole_file(path, progress)
        for record in records:
            n += 1
            if n > skip:
                yield record


def _lines_of(path: Path, progress) -> Iterator[tuple[int, bytes]]:
    stream, raw = _open(path)
    seen = 0
    try:
        for number, line in enumerate(stream, 1):
            if progress is not None and not number & 255:  # every 256 lines: tell() is not free
                at = raw.tell()
                if at != seen:
                    progress(at - seen)
                    seen = at
            yield number, line.removeprefix(BOM) if number == 1 else line
        if progress is not None and raw.tell() != seen:
            progress(raw.tell() - seen)
    except GZIP_ERRORS as exc:
        raise LbpeError(f"{path}: cannot be read ({exc})") from None
    finally:
        stream.close()
        raw.close()


def _decode(data: bytes, where: str, number: int) -> tuple[str | None, str | None]:
    """Line ``number``'s text, or why it is not UTF-8 (the offset counts from the start of the line)."""
    try:
        return decode(data, where, file_start=number == 1), None
    except NotUtf8Error as exc:
        return None, str(exc)


def _jsonl(path: Path, text_field: str, progress, parse: bool = True) -> Iterator[Record]:
    source = str(path)
    for number, line in _lines_of(path, progress):
        if line.strip():
            if parse:
                yield _jsonl_record(source, number, line, text_field)
            else:
                yield Record(source, f"{source}:{number}", line=line, number=number, text_field=text_field)


def _jsonl_record(source: str, number: int, line: bytes, text_field: str) -> Record:
    where = f"{source}:{number}"
    text, error = _decode(line, where, number)
    if text is not None:  # decoded (no error)
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            # (some of json's messages end in "at": "Unterminated string starting at")
            error = f"{where}: not JSON ({exc.msg.removesuffix(' at')} at column {exc.colno})"
        else:
            text, error = _field(obj, text_field, where)
    return Record(source, where, text=text if error is None else None, error=error)


def records_of_bytes(
    source: str, data: bytes, *, lines: bool = False, text_field: str = "text", first_line: int = 1
) -> list[Record]:
    """The records of one whole input file given as bytes (``.gz`` still compressed), with the
    same rules and messages as :func:`iter_records` reading it from disk: what a Ray worker
    does with a file it was handed (:mod:`lbpe.corpus.shards` ``engine="ray"``). ``data`` may also be
    a run of whole lines of a JSONL or ``lines`` file starting at line ``first_line``."""
    if source.lower().endswith(".gz") and data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except GZIP_ERRORS as exc:
            raise LbpeError(f"{source}: cannot be read ({exc})") from None
    kind = input_kind(source)
    if kind == "text" and not lines:
        try:  # decoded as the disk reader decodes it, for the same message
            return [Record(source, source, text=decode_file(data, source))]
        except NotUtf8Error as exc:
            return [Record(source, source, error=str(exc))]
    if first_line == 1:
        data = data.removeprefix(BOM)
    if kind == "jsonl":
        return [
            _jsonl_record(source, n, line, text_field)
            for n, line in enumerate(io.BytesIO(data), first_line)
            if line.strip()
        ]  # lines as a file gives them
    if kind == "text":
        return [_line_record(source, n, line) for n, line in enumerate(io.BytesIO(data), first_line) if line.strip()]
    raise LbpeError(f"{source}: Parquet files are read by their own reader, not as bytes")


def _field(obj: object, text_field: str, where: str) -> tuple[str | None, str | None]:
    if not isinstance(obj, dict):
        return None, f"{where}: {json_type(obj)}, not an object with a {text_field!r} field"
    if text_field not in obj:
        fields = ", ".join(list(obj)[:8]) or "none"
        return None, f'{where}: no "{text_field}" field (fields: {fields}); choose one with --text-field'
    value = obj[text_field]
    if not isinstance(value, str):
        return None, f'{where}: "{text_field}" is {json_type(value)}, not a string'
    at = surrogate_at(value)
    if at is not None:  # JSON's \ud83d escape alone: no character (tokenizers refuses such a string)
        return None, (
            f'{where}: "{text_field}" holds half of a surrogate pair (\\u{ord(value[at]):04x} at character '
            f"{at}), which is no text; the file that wrote it cut a pair in two"
        )
    return value, None


def _lines(path: Path, progress) -> Iterator[Record]:
    for number, line in _lines_of(path, progress):
        if line.strip():
            yield _line_record(str(path), number, line)


def _line_record(source: str, number: int, line: bytes) -> Record:
    where = f"{source}:{number}"
    text, error = _decode(line.rstrip(b"\r\n"), where, number)
    return Record(source, where, text=text, error=error)


def _whole_file(path: Path, progress) -> Iterator[Record]:
    stream, raw = _open(path)

    def blocks():
        seen = 0
        try:
            while block := stream.read(CHUNK_BYTES):
                if progress is not None:
                    at = raw.tell()
                    progress(at - seen)
                    seen = at
                yield block
        except GZIP_ERRORS as exc:
            raise LbpeError(f"{path}: cannot be read ({exc})") from None
        finally:
            stream.close()
            raw.close()

    def chunks():
        try:
            yield from iter_chunks(blocks(), size=CHUNK_BYTES, source=str(path))
        except LbpeError as exc:  # not UTF-8, or a read error part way (a damaged .gz)
            raise BadRecord(str(exc)) from None

    yield Record(str(path), str(path), chunks=chunks())


def _parquet(path: Path, text_field: str, progress) -> Iterator[Record]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise LbpeError(f'{path}: reading Parquet needs pyarrow: python -m pip install "lbpe[data]"') from None
    try:
        reader = pq.ParquetFile(path)
    except (OSError, ValueError) as exc:
        raise LbpeError(f"{path}: not a Parquet file lbpe can read ({exc})") from None
    check_parquet_column(path, reader.schema_arrow.names, text_field)
    size = os.path.getsize(path)
    rows = max(reader.metadata.num_rows, 1)
    row = 0
    for batch in reader.iter_batches(columns=[text_field], batch_size=1024):
        for value in batch.column(0).to_pylist():
            row += 1
            yield parquet_record(str(path), row, value, text_field)
        if progress is not None:
            progress(size * batch.num_rows // rows)


def check_parquet_column(path: str | os.PathLike[str], names: Sequence[str], text_field: str) -> None:
    """Raise, naming the columns there are, when a Parquet file has no ``text_field`` column."""
    if text_field not in names:
        raise LbpeError(
            f'{path}: no "{text_field}" column (columns: {", ".join(list(names)[:8])}); choose one with --text-field'
        )


def parquet_record(source: str, row: int, value: object, text_field: str) -> Record:
    """The record of row ``row`` (1-based) of a Parquet text column."""
    where = f"{source}: row {row}"
    if isinstance(value, str):
        return Record(source, where, text=value)
    name = type(value).__name__
    kind = "missing" if value is None else f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
    return Record(source, where, error=f'{where}: "{text_field}" is {kind}, not a string')


def document_texts(
    tok,
    paths: Sequence[str | os.PathLike[str]],
    *,
    lines: bool = False,
    text_field: str = "text",
    on_bad=None,
):
    """The documents' texts for statistics, in order: a whole text file in aligned chunks
    (:func:`lbpe.corpus.parallel.align_chunks`, so its totals equal encoding it at once), small
    documents grouped into lists of about :data:`~lbpe.corpus.textio.CHUNK_BYTES` characters (each
    still encoded on its own). A bad document raises, or with ``on_bad`` is passed to it and
    skipped (a text file found bad part way has its part before the bad byte counted)."""
    group: list[str] = []
    size = 0
    for record in iter_records(paths, lines=lines, text_field=text_field):
        if record.error is not None:
            if on_bad is None:
                raise LbpeError(f"{record.error} (pass --skip-bad to count and skip bad documents)")
            on_bad(record.error)
            continue
        if record.text is not None:
            group.append(record.text)
            size += len(record.text)
            if size >= CHUNK_BYTES:
                yield group
                group, size = [], 0
            continue
        if group:
            yield group
            group, size = [], 0
        try:
            yield from align_chunks(tok, record.pieces())
        except BadRecord as exc:
            if on_bad is None:
                raise LbpeError(f"{exc} (pass --skip-bad to count and skip bad documents)") from None
            on_bad(str(exc))
    if group:
        yield group


def check_words(
    words: int,
    paths: Sequence[str | os.PathLike[str]],
    skipped: Sequence[str] = (),
    *,
    fix: str = "give files with text",
) -> None:
    """Refuse to report statistics of ``paths`` when their documents had no word (``words``:
    whitespace-separated words counted): tokens per byte or per word of no text are not 0.
    ``skipped``: why each bad document counted out was bad; ``fix``: what to do instead.

    >>> check_words(0, ["a.txt"], fix="choose a file with text")
    Traceback (most recent call last):
    ...
    lbpe.errors.LbpeError: a.txt holds no words to measure (it is empty or white space only); choose a file with text
    """
    if words:
        return
    names = ", ".join(map(os.fsdecode, paths[:3])) + (f" and {len(paths) - 3:,} more" if len(paths) > 3 else "")
    verb = "holds" if len(paths) == 1 else "hold"
    if skipped:
        why = f"every document was bad or blank; {len(skipped):,} bad, the first: {skipped[0]}"
    else:
        why = f"{'it is' if len(paths) == 1 else 'they are'} empty or white space only"
    raise LbpeError(f"{names} {verb} no words to measure ({why}); {fix}")
