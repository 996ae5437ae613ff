"""What every table of ``python -m bench`` shares: the data, the texts, tiktoken offline, timing, rendering.

Importing this module puts the checkout and ``scripts/`` on ``sys.path`` (``fetch_data``: where the
registry data is cached).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # fetch_data: where the registry data is cached

import fetch_data  # noqa: E402

import lbpe  # noqa: E402

#: The encoding paths every lbpe row is measured on (the compiled one only where it is built).
PATHS = ("compiled", "pure") if lbpe.backend().compiled_available else ("pure",)


#: Encoded once before any timing: it builds the tables an encoder makes on first use (the
#: prefix index for LBPE; the cut finder, which only non-ASCII pieces reach).
WARM_UP = "warm up the tables: caf\u00e9, \u4e2d\u6587, \u65e5\u672c\u8a9e"


DATA = fetch_data.data_dir()


def read_text(name: str) -> str:
    path = DATA / name
    if not path.is_file():
        sys.exit(f"{path} is missing: run python scripts/fetch_data.py")
    return path.read_text("utf-8")


def _locale_block(text: str, locales: tuple[str, ...]) -> str:
    out, keep = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("# ") and len(line.strip()) <= 8:
            keep = line[2:].strip() in locales
            continue
        if keep:
            out.append(line)
    return "".join(out)


def inputs(quick: bool) -> dict[str, str]:
    english = read_text("text/moby_dick.txt") + read_text("text/sotu.txt")
    multilingual = read_text("text/multilingual_words.txt")
    size = (1 if quick else 5) << 20
    return {
        "English prose": english[:size],
        "code": (read_text("text/code.txt") + read_text("text/code_more.txt"))[:size],
        "Chinese": _locale_block(multilingual, ("zh_CN", "zh_TW")),
        "Japanese": _locale_block(multilingual, ("ja_JP",)),
        "multilingual": multilingual,
        # the Cyrillic and the German (umlauts, long compounds) blocks of the same text
        "Russian": _locale_block(multilingual, ("ru_RU",)),
        "German": _locale_block(multilingual, ("de_DE",)),
    }


def tiktoken_encoding(name: str):
    """Official tiktoken encodings, offline, from the fetched files (same sha256 tiktoken pins)."""
    import hashlib
    import shutil

    import tiktoken

    cache = DATA / "_tiktoken_cache"
    cache.mkdir(exist_ok=True)
    url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
    target = cache / hashlib.sha1(url.encode()).hexdigest()
    if not target.exists():
        shutil.copyfile(DATA / "openai" / f"{name}.tiktoken", target)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    return tiktoken.get_encoding(name)


def mbps(text: str, seconds: float) -> float:
    return len(text.encode()) / seconds / 1e6


def timed(times: dict[tuple[str, str], list[float]], key: tuple[str, str], fn, *args, **kwargs) -> None:
    """Append the wall time of ``fn(*args, **kwargs)`` to ``times[key]``."""
    t = time.perf_counter()
    fn(*args, **kwargs)
    times.setdefault(key, []).append(time.perf_counter() - t)


def render(sections: dict[str, tuple[list[str], list]]) -> str:
    out = []
    for title, (header, rows) in sections.items():
        out.append(f"\n### {title}\n")
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        for row in rows:
            cells = [f"{c:.2f}" if isinstance(c, float) else str(c) for c in row]
            out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
