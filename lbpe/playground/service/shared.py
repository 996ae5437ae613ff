"""What the views share: the Corpus and Across views' chunks, a vocabulary's tables built before a time
budget starts, and a name as part of a download's file name."""

from __future__ import annotations

import re
from collections.abc import Iterable

from lbpe.corpus.parallel import align_chunks
from lbpe.corpus.textio import iter_chunks
from lbpe.errors import LbpeError
from lbpe.tokenizer import MODES, Tokenizer

__all__ = ["CORPUS_CHUNK_BYTES", "file_stem", "prepared", "text_chunks"]


#: Bytes per chunk in the Corpus and Across views (progress is reported after each).
CORPUS_CHUNK_BYTES = 1 << 16


def file_stem(name: str) -> str:
    """A name as part of a download's file name: ``upload: my.json`` -> ``upload-my.json``.

    >>> file_stem("upload: my.json"), file_stem("::")
    ('upload-my.json', 'vocabulary')
    """
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "vocabulary"


def text_chunks(tok: Tokenizer, data: bytes, source: str) -> Iterable[str]:
    """The text of ``data`` in chunks cut where every total stays exact."""
    step = CORPUS_CHUNK_BYTES  # handed over in blocks of that size: the buffer never holds more
    blocks = (data[i : i + step] for i in range(0, len(data), step))
    return align_chunks(tok, iter_chunks(blocks, size=step, source=source))


#: Text that meets every table encoding builds on first use: ASCII (a preset pattern's
#: BMP-only engine), then characters of two, three and four bytes (its full engine, with the
#: astral classes, and the cut finder). Short, so that a file's own pattern runs on it at once.
FIRST_USE_TEXTS = (" a1", "é 中文 👍")


def prepared(*toks: Tokenizer) -> None:
    """Build each vocabulary's encoding tables (a first use's one-off cost, seconds for a large
    vocabulary on a busy machine) before a time budget starts: the budget is for the encoding.

    Any text then costs only its encoding: :data:`FIRST_USE_TEXTS` meets every such table. A
    vocabulary with no token for one of their characters (and neither byte fallback nor an
    unknown token) builds what it can; a text that holds such a character says so when encoded."""
    for tok in toks:
        for mode in MODES:
            for text in FIRST_USE_TEXTS:
                try:
                    tok.encode(text, mode=mode, disallowed_special=())
                except LbpeError:
                    continue
