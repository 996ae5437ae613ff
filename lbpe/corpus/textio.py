"""Reading UTF-8 text in chunks: the one reader beneath corpus statistics (:mod:`lbpe.corpus.parallel`),
training (:mod:`lbpe.train`) and whole-file documents (:mod:`lbpe.corpus.documents`).

It is a module of its own, on the standard library and :mod:`lbpe.errors` only, because its
users sit at different layers: :mod:`lbpe.train` must not pull in :mod:`lbpe.corpus.parallel` (the
statistics, the tokenizer, worker processes) just to read a file, and :mod:`lbpe.corpus.parallel`
builds on it.

:func:`iter_chunks` turns a file, bytes or an iterable of raw byte blocks of any sizes into
``str`` chunks of about ``size`` UTF-8 bytes. The cut policy, the same for every caller:

* a cut is **never inside a UTF-8 sequence**: every chunk decodes on its own, and the chunks
  joined are the whole input decoded (less a byte order mark at its start, :data:`BOM`);
* a cut goes **after a line end where possible**: after the last single ``"\\n"`` between two
  visible ASCII characters within about ``size`` bytes (every preset pre-tokeniser makes that
  newline a piece of its own whether or not the text is cut right after it); failing that,
  after the last ``"\\n"`` before ``size`` bytes; failing that (a line longer than ``size``),
  at the character boundary nearest ``size``.

Why this policy: it is the one corpus statistics had, and it keeps every caller exact. A
pipeline that cannot be re-cut at a piece boundary (a normaliser with no safe cut) encodes
each chunk on its own, as a document cut at a line end; a layer that needs more re-cuts the
chunks as it goes -- :func:`lbpe.corpus.parallel.align_chunks` at a tokenizer's safe piece boundary
(:meth:`lbpe.tokenizer.Tokenizer.safe_cut`), training before a line that starts with a letter
(so no pre-token spans a cut) -- and is exact whatever the chunks. A chunk comes out as soon
as ``size`` bytes are buffered, so where the raw blocks end can move a cut, never the text.

Input that is not UTF-8 raises :class:`~lbpe.errors.NotUtf8Error` naming the source, the first
bad byte and its offset, with the fix; :func:`decode` gives the same error for one whole piece
of bytes (a line of a JSONL file, an upload).

>>> list(iter_chunks([b"ab\\ncd\\n", b"ef"], size=4))
['ab\\n', 'cd\\n', 'ef']
>>> list(iter_chunks(b"ok\\n\\xff", source="x.txt"))
Traceback (most recent call last):
  ...
lbpe.errors.NotUtf8Error: x.txt: not UTF-8 text (byte 0xff at offset 3); convert it to UTF-8 first (e.g. iconv -t UTF-8)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator

from lbpe.errors import LbpeError, NotUtf8Error

__all__ = ["BOM", "CHUNK_BYTES", "iter_chunks", "decode", "decode_file"]

#: Default chunk size in bytes.
CHUNK_BYTES = 1 << 20

#: UTF-8's byte order mark, which Windows tools write at the start of a file: no part of its
#: text, so every reader of inputs drops it there (a JSONL file's first record could not be
#: read with it: json.loads refuses it).
BOM = b"\xef\xbb\xbf"


def decode(data: bytes, source: str, offset: int = 0, *, file_start: bool = True) -> str:
    """``data`` decoded as UTF-8; :class:`~lbpe.errors.NotUtf8Error` naming ``source`` and the
    bad byte's offset (``offset`` plus its index in ``data``) when it is not UTF-8. A UTF-16
    mark at offset 0 is named as one unless ``file_start`` is false (a later line of a file)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        utf16 = file_start and offset == exc.start == 0 and data[:2] in (b"\xff\xfe", b"\xfe\xff")
        raise NotUtf8Error(source, data[exc.start], offset + exc.start, utf16=utf16) from None


def decode_file(data: bytes, source: str) -> str:
    """A whole file's bytes (or its start) as :func:`decode` gives them, less a :data:`BOM` at
    its start (a bad byte's offset still counts the mark, as the file's own)."""
    if data.startswith(BOM):
        return decode(data[len(BOM) :], source, len(BOM))
    return decode(data, source)


def iter_chunks(
    data: str | os.PathLike[str] | bytes | Iterable[bytes],
    *,
    size: int = CHUNK_BYTES,
    source: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> Iterator[str]:
    """The text of ``data`` in chunks of about ``size`` UTF-8 bytes, cut by the module's policy.

    ``data`` is a file path (``str`` or ``os.PathLike``; read in blocks of ``size`` bytes), the
    input's bytes, or an iterable of raw byte blocks of any sizes (a stream). ``source`` names
    the input in errors (default: the path, or ``"input"``). ``progress(n)`` is called after
    each chunk has been consumed, with its size in UTF-8 bytes (so the calls add up to the
    input's size). A file that cannot be opened or read raises :class:`~lbpe.errors.LbpeError`;
    input that is not UTF-8 raises :class:`~lbpe.errors.NotUtf8Error` when the chunk holding
    the bad byte is reached (the chunks before it come out first)."""
    if isinstance(data, (str, os.PathLike)):
        yield from _file_chunks(data, size, os.fsdecode(data) if source is None else source, progress)
        return
    blocks: Iterable[bytes] = [bytes(data)] if isinstance(data, (bytes, bytearray)) else data
    buf = bytearray()
    consumed = 0  # bytes of the input before buf
    name = "input" if source is None else source
    started = False  # whether the input's first bytes were checked for a BOM
    for block in blocks:
        buf += block
        if not started and (len(buf) >= len(BOM) or not BOM.startswith(buf)):
            started = True
            if buf.startswith(BOM):
                del buf[: len(BOM)]
                consumed = len(BOM)
                if progress is not None:
                    progress(len(BOM))
        while len(buf) >= size:
            cut = _boundary(buf, size)
            if not cut:
                if len(buf) > size + 3:  # no character starts in over 3 bytes: not UTF-8, say so now
                    decode(bytes(buf), name, consumed)
                break  # no complete character to cut after yet: read more
            yield decode(bytes(buf[:cut]), name, consumed)
            consumed += cut
            del buf[:cut]
            if progress is not None:
                progress(cut)
    if buf:
        yield decode(bytes(buf), name, consumed)
        if progress is not None:
            progress(len(buf))


def cannot_read(source: object, exc: OSError) -> LbpeError:
    """The error for an input that cannot be opened or read; a folder is told to give its files."""
    if isinstance(exc, IsADirectoryError):
        return LbpeError(f"{source}: is a folder; give the files in it (a shell glob such as {source}/*.txt)")
    return LbpeError(f"{source}: cannot be read ({exc.strerror or exc})")


def _file_chunks(
    path: str | os.PathLike[str], size: int, source: str, progress: Callable[[int], None] | None
) -> Iterator[str]:
    try:
        with open(path, "rb") as f:
            yield from iter_chunks(iter(lambda: f.read(size), b""), size=size, source=source, progress=progress)
    except OSError as exc:
        raise cannot_read(source, exc) from None


def _boundary(buf: bytearray, size: int) -> int:
    """A cut position in ``buf`` (0 < cut < len(buf)) that starts a character, by the module's
    policy: after the last ``"\\n"`` between two visible ASCII characters in the first
    ``size + 1`` bytes, else after the last ``"\\n"`` before ``size``, else the character
    boundary nearest ``size`` (at or before it first); 0 if there is none yet."""
    window = min(size + 1, len(buf))
    at = buf.rfind(b"\n", 1, window - 1)  # a "\n" with a byte on each side inside the window
    while at > 0:
        if 0x21 <= buf[at - 1] <= 0x7E and 0x21 <= buf[at + 1] <= 0x7E:
            return at + 1  # < len(buf): buf[at + 1] is there
        at = buf.rfind(b"\n", 1, at)
    newline = buf.rfind(b"\n", 0, size) + 1
    if 0 < newline < len(buf):
        return newline
    for cut in range(min(size, len(buf) - 1), 0, -1):
        if (buf[cut] & 0xC0) != 0x80:
            return cut
    for cut in range(size + 1, len(buf)):
        if (buf[cut] & 0xC0) != 0x80:
            return cut
    return 0
