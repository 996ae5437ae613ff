"""Counting pieces for training: the pre-tokens of texts and files (:func:`count_pieces`, split
GPT-2's way by a regex) or SentencePiece's words (:func:`count_llama_pieces`), streaming files
block by block (docs/training.md, "How training works")."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Union

from lbpe.corpus.textio import iter_chunks
from lbpe.errors import LbpeError
from lbpe.pretokenize import PresetPattern, resolve_pattern
from lbpe.train.llama import SPACE
from lbpe.unicode import category

__all__ = ["count_pieces", "count_llama_pieces", "TextSource", "Progress", "CHUNK_CHARS"]


#: A text (``str``) or a file (any ``os.PathLike``, e.g. :class:`pathlib.Path`).
TextSource = Union[str, "os.PathLike[str]"]
#: A progress callback, called as ``progress(done, total)``.
Progress = Callable[[int, int], None]

#: Characters per block when splitting large texts and files.
CHUNK_CHARS = 1 << 20


def _sources(texts_or_files: TextSource | Iterable[TextSource]) -> Iterator[TextSource]:
    if isinstance(texts_or_files, (str, os.PathLike)):
        yield texts_or_files
        return
    if isinstance(texts_or_files, (bytes, bytearray)):
        raise TypeError("texts must be str (decode bytes first) or os.PathLike file paths")
    for item in texts_or_files:
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"expected a text (str) or a file path (os.PathLike), not {type(item).__name__}")
        yield item


def count_pieces(
    texts_or_files: TextSource | Iterable[TextSource],
    pattern: str | re.Pattern[str] | PresetPattern = "paper",
    *,
    progress: Progress | None = None,
    chunk_chars: int = CHUNK_CHARS,
    text_field: str = "text",
) -> Counter[str]:
    """Count the pre-tokens of texts and files (streaming; docs/training.md, "How training works").

    >>> sorted(count_pieces(["ab ab", "ab"]).items())
    [(' ab', 1), ('ab', 2)]
    """
    regex = resolve_pattern(pattern)
    return _count_sources(
        texts_or_files,
        lambda blocks, counts: _count_blocks(blocks, regex, counts, chunk_chars),
        progress,
        chunk_chars,
        text_field,
    )


def _count_sources(
    texts_or_files: TextSource | Iterable[TextSource],
    count_document: Callable[[Iterable[str], Counter[str]], None],
    progress: Progress | None,
    chunk_chars: int,
    text_field: str = "text",
) -> Counter[str]:
    """Count each text and each document of the files with ``count_document(blocks, counts)``:
    a text file is one document; a ``.jsonl``/``.ndjson`` file's lines and a ``.parquet`` file's
    rows are documents by their ``text_field``, and ``.gz`` files are read through, as
    ``lbpe stats`` and ``lbpe export`` read them (:func:`lbpe.corpus.documents.iter_records`)."""
    sources = list(_sources(texts_or_files))
    total = 0
    for src in sources:
        if not isinstance(src, str):
            try:
                total += os.path.getsize(src)
            except OSError as exc:
                raise LbpeError(f"{os.fsdecode(src)}: cannot be read ({exc.strerror})") from None
    counts: Counter[str] = Counter()
    state = {"done": 0}

    def report(nbytes: int) -> None:
        state["done"] += nbytes
        if progress is not None:
            progress(state["done"], total)

    report(0)
    for src in sources:
        if isinstance(src, str):
            count_document((src,), counts)
        elif _plain_text(src):
            count_document(iter_chunks(src, size=chunk_chars, progress=report), counts)
        else:
            _count_documents(src, count_document, counts, report, text_field)
    return counts


def _plain_text(path: os.PathLike[str] | str) -> bool:
    """An uncompressed text file, read here in chunks (the corpus readers take the others)."""
    from lbpe.corpus.documents import input_kind  # when training reads a file, not at import

    name = os.fsdecode(path)
    return input_kind(name) == "text" and not name.lower().endswith(".gz")


def _count_documents(
    path: os.PathLike[str] | str,
    count_document: Callable[[Iterable[str], Counter[str]], None],
    counts: Counter[str],
    report: Callable[[int], None],
    text_field: str,
) -> None:
    from lbpe.corpus.documents import BadRecord, iter_records  # only for such files

    try:
        for record in iter_records([path], text_field=text_field, progress=report):
            if record.error is not None:
                raise LbpeError(record.error)
            count_document(record.pieces(), counts)
    except BadRecord as exc:
        raise LbpeError(str(exc)) from None


def count_llama_pieces(
    texts_or_files: TextSource | Iterable[TextSource],
    *,
    progress: Progress | None = None,
    chunk_chars: int = CHUNK_CHARS,
    text_field: str = "text",
) -> Counter[str]:
    """Count SentencePiece's words of texts and files: each line (``\\n``; a ``\\r`` before it
    is dropped) that is not empty becomes ``"\u2581" + line`` with every space as ``"\u2581"``,
    and is cut before every ``"\u2581"`` that follows another character (a run of them stays
    together). See "The llama style" in docs/training.md.

    >>> sorted(count_llama_pieces(["a b\\n\\n  a", "b"]).items())
    [('\u2581a', 1), ('\u2581b', 2), ('\u2581\u2581\u2581a', 1)]
    """
    raw = _count_sources(texts_or_files, _count_llama_document, progress, chunk_chars, text_field)
    words: Counter[str] = Counter()
    for token, c in raw.items():  # "\n" + the start of a line, or spaces + a word
        if token[0] == "\n":
            if len(token) == 1:
                continue  # an empty line
            token = " " + token[1:]  # the dummy prefix
        words[token.replace(" ", SPACE)] += c
    return words


#: What SentencePiece's words are made of, before spaces become ``▁``: a line start ("\n") and
#: its first word, or a run of spaces and the word after it.
_RAW_WORD = re.compile(r"\n *[^ \n]*| +[^ \n]*")


def _count_llama_document(blocks: Iterable[str], counts: Counter[str]) -> None:
    pending: list[str] = []  # the start of a line not yet ended
    for block in blocks:
        end = block.rfind("\n") + 1  # whole lines only; the rest waits for the next block
        if not end:
            pending.append(block)
            continue
        _count_llama_lines("".join(pending) + block[:end], counts)
        pending = [block[end:]]
    if pending:
        _count_llama_lines("".join(pending), counts)


def _count_llama_lines(text: str, counts: Counter[str]) -> None:
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    counts.update(_RAW_WORD.findall("\n" + text))


def _count_blocks(blocks: Iterable[str], regex, counts: Counter[str], chunk_chars: int) -> None:
    """Count the pieces of one document given as consecutive blocks of text."""
    preset = isinstance(regex, PresetPattern)
    pending: list[str] = []  # text not yet split: no cut found in it
    for block in blocks:
        # A long text given whole is cut into chunk-sized blocks as well.
        for start in range(0, len(block), chunk_chars):
            part = block[start : start + chunk_chars]
            probe = pending[-1][-1] + part if pending else part
            cut = _find_cut(probe, 0)
            if cut < 0:
                pending.append(part)
                continue
            buf = "".join(pending) + part
            cut += len(buf) - len(probe)
            if preset:
                pieces = regex.findall(buf, 0, cut + 1)
                pieces.pop()  # the lone letter at ``cut``: its piece goes on in the next block
                counts.update(pieces)
                pending = [buf[cut:]]
            else:  # any other pattern: keep only the pieces that end before the cut
                end = 0
                for m in regex.finditer(buf, 0, cut + 1):
                    if m.end() > cut:
                        break
                    counts[m.group()] += 1
                    end = m.end()
                pending = [buf[end:]] if end < len(buf) else []
    if pending:
        rest = "".join(pending)
        # whole matches (a pattern's groups would give their own text to findall)
        counts.update(regex.findall(rest) if preset else (m.group() for m in regex.finditer(rest)))


def _find_cut(buf: str, lo: int) -> int:
    """The last position ``p > lo`` with ``buf[p - 1] == "\\n"`` and ``buf[p]`` a letter (``\\p{L}``
    at the pinned Unicode version, as the pre-tokenisers see it), or -1."""
    i = buf.rfind("\n", lo, len(buf) - 1)
    while i >= 0:
        if category(buf[i + 1])[0] == "L":
            return i + 1
        i = buf.rfind("\n", lo, i)
    return -1
