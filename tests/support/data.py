"""The registry data cache (``scripts/fetch_data.py``), real text, the official tiktoken
encodings built offline from it, and the project's own files.

A missing file is a test *failure* with the command that fixes it, never a skip.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

import pytest

#: The repository's root (tests/support/data.py is two folders down).
ROOT = Path(__file__).resolve().parents[2]

sys.path.insert(0, str(ROOT / "scripts"))  # fetch_data: where the registry data is cached
import fetch_data  # noqa: E402

DATA = fetch_data.data_dir()


def pyproject() -> dict:
    """pyproject.toml, parsed (tomllib; its backport tomli on Python 3.10)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))


def data_file(relative: str) -> Path:
    """Path of a fetched file; fails the test with the fix when it is missing."""
    path = DATA / relative
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `python {ROOT / 'scripts' / 'fetch_data.py'}` first", pytrace=False)
    return path


RANK_FILES = ("r50k_base", "p50k_base", "cl100k_base", "o200k_base")

# Where tiktoken would download each file from; seeding its cache with our copies (same sha256,
# which tiktoken checks) gives the official encodings offline.
_TIKTOKEN_URLS = {
    **{
        f"openai/{n}.tiktoken": f"https://openaipublic.blob.core.windows.net/encodings/{n}.tiktoken" for n in RANK_FILES
    },
    "gpt2/vocab.bpe": "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/vocab.bpe",
    "gpt2/encoder.json": "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/encoder.json",
}


def tiktoken_encoding(name: str):
    """The official tiktoken encoding ``name``, built offline from the fetched files."""
    import tiktoken

    cache = DATA / "_tiktoken_cache"
    cache.mkdir(parents=True, exist_ok=True)
    for relative, url in _TIKTOKEN_URLS.items():
        target = cache / hashlib.sha1(url.encode()).hexdigest()
        if not target.exists():
            shutil.copyfile(data_file(relative), target)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    return tiktoken.get_encoding(name)


def english_text(min_bytes: int) -> str:
    """Public-domain English (Moby-Dick, then State of the Union addresses) of at least ``min_bytes``."""
    text = data_file("text/moby_dick.txt").read_text("utf-8")
    if len(text.encode()) < min_bytes:
        text += "\n\n" + data_file("text/sotu.txt").read_text("utf-8")
    if len(text.encode()) < min_bytes:
        raise AssertionError(f"only {len(text.encode())} bytes of English text available, wanted {min_bytes}")
    return text


def mixed_text(english_bytes: int) -> list[tuple[str, str]]:
    """(name, text) samples: English prose, many languages and scripts, and source code."""
    return [
        ("english", english_text(english_bytes)[:english_bytes]),
        ("multilingual", data_file("text/multilingual_words.txt").read_text("utf-8")),
        ("multilingual-stdlib", data_file("text/multilingual.txt").read_text("utf-8")),
        ("code", data_file("text/code.txt").read_text("utf-8") + data_file("text/code_more.txt").read_text("utf-8")),
    ]


def chunks(text: str, size: int = 65536) -> list[str]:
    """Split text at line ends into blocks of about ``size`` characters."""
    out, block, length = [], [], 0
    for line in text.splitlines(keepends=True):
        block.append(line)
        length += len(line)
        if length >= size:
            out.append("".join(block))
            block, length = [], 0
    if block:
        out.append("".join(block))
    return out
