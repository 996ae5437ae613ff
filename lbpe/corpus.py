"""Working over corpora: streaming text files in chunks and statistics over all cores (batch
encoding on forked processes is :mod:`lbpe.workers`, token shards :mod:`lbpe.shards`).

Chunks are encoded independently. With :func:`align_chunks`, chunks for regex pre-tokenisers
are re-cut at :meth:`~lbpe.tokenizer.Tokenizer.safe_cut` so that totals equal encoding each file
at once; for pipelines with a normaliser or without a pre-tokeniser (SentencePiece-style) each
chunk, cut at a line end, is one encoding call, as when such tokenizers run per document.

>>> list(iter_chunks([b"ab\\ncd\\n", b"ef"], size=4))
['ab\\n', 'cd\\n', 'ef']
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence

from lbpe.errors import LbpeError
from lbpe.stats import Continuation, Stats, corpus_stats, texts_stats
from lbpe.tokenizer import MODES, Mode, Tokenizer
from lbpe.workers import process_pool, worker_tokenizer

__all__ = ["iter_chunks", "read_chunks", "align_chunks", "parallel_stats"]

#: Default chunk size in bytes when streaming files.
CHUNK_BYTES = 1 << 20


def iter_chunks(blocks: Iterable[bytes], *, size: int = CHUNK_BYTES, source: str = "input") -> Iterator[str]:
    """Regroup raw byte blocks into UTF-8 text chunks of about ``size`` bytes, cut after a
    newline (or anywhere at a character boundary if a line is longer than ``size``)."""
    buf = bytearray()
    consumed = 0

    def decode(data: bytes) -> str:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise LbpeError(
                f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {consumed + exc.start}); "
                "convert it to UTF-8 first"
            ) from None

    for block in blocks:
        buf += block
        while len(buf) >= size:
            cut = _boundary(buf, size)
            if not cut:
                break  # no complete character to cut after yet: read more
            yield decode(bytes(buf[:cut]))
            consumed += cut
            del buf[:cut]
    if buf:
        yield decode(bytes(buf))


# A single newline between two visible ASCII characters: every preset pre-tokeniser makes that
# newline a piece of its own whether or not the text is cut right after it, so chunked
# statistics equal whole-text ones (tested). Other cuts fall back to any newline, then to any
# character boundary.
_SAFE_CUT = re.compile(rb"[\x21-\x7e]\n(?=[\x21-\x7e])")


def _boundary(buf: bytearray, size: int) -> int:
    """A cut position in ``buf`` (0 < cut < len(buf)) that starts a character: after the last
    safe newline before ``size`` if any, else after any newline, else the character boundary
    nearest ``size``; 0 if there is none yet."""
    window = bytes(buf[: min(size + 1, len(buf))])
    safe = 0
    for m in _SAFE_CUT.finditer(window):
        safe = m.end()
    if 0 < safe < len(buf):
        return safe
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


def read_chunks(paths: Sequence[str | os.PathLike[str]], *, size: int = CHUNK_BYTES) -> Iterator[str]:
    """Text chunks of each file in turn (a chunk never spans two files)."""
    for path in paths:
        try:
            with open(path, "rb") as f:
                yield from iter_chunks(iter(lambda: f.read(size), b""), size=size, source=str(path))
        except OSError as exc:
            raise LbpeError(f"{path}: cannot be read ({exc.strerror})") from None


def align_chunks(tok: Tokenizer, chunks: Iterable[str]) -> Iterator[str]:
    """Re-cut consecutive chunks of ONE text so that every cut is a safe piece boundary for
    ``tok`` (the tail after the cut moves on to the next chunk). Unchanged when ``tok`` has no
    safe cut (see :meth:`~lbpe.tokenizer.Tokenizer.safe_cut`). For a SentencePiece-style
    pipeline every chunk after the first is a :class:`~lbpe.stats.Continuation`, which the
    statistics encode without the start-of-text prefix: the totals equal the whole text's."""
    continued = tok.continued()
    mark = Continuation if continued is not None and continued is not tok else str
    carry = ""
    first = True
    for chunk in chunks:
        text = carry + chunk
        cut = tok.safe_cut(text)
        if cut is None:
            if (tok.normalizer is not None and mark is str) or len(text) > 64 * CHUNK_BYTES:
                yield text if first else mark(text)  # nothing better is known (or the carry grew too large)
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
    text, modes = args
    return texts_stats(worker_tokenizer(), text, modes)


def parallel_stats(
    loader: Callable[[], Tokenizer],
    chunks: Iterable[str | list[str]],
    *,
    modes: Sequence[Mode] = MODES,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Stats]:
    """Sum :class:`~lbpe.stats.Stats` per mode over chunks, on ``workers`` processes.

    A chunk is a text, or a list of texts (documents) each encoded on its own. ``loader`` (a
    picklable callable, e.g. ``functools.partial(lbpe.load, path)``) builds the tokenizer once
    per process. ``workers=1`` runs in this process (also the fallback where processes are
    unavailable, as in Pyodide). ``progress`` receives the UTF-8 bytes done (the statistics
    count them already: one unit with the files' sizes).
    """
    modes = tuple(modes)
    workers = workers or os.cpu_count() or 1
    if workers <= 1 or sys.platform == "emscripten":
        return corpus_stats(loader(), chunks, modes=modes, progress=progress)
    totals: dict[str, Stats] = {m: Stats() for m in modes}
    done = 0
    with process_pool(loader, workers) as pool:
        pending: list = []

        def drain(limit: int) -> None:
            nonlocal done
            while len(pending) > limit:
                part = pending.pop(0).result()
                for m in modes:
                    totals[m] += part[m]
                done += part[modes[0]].bytes
                if progress:
                    progress(done)

        for text in chunks:
            pending.append(pool.submit(_chunk_stats, (text, modes)))
            drain(2 * workers)  # bounded memory: at most a few chunks in flight
        drain(0)
    return totals
