"""Whole commands over big files, fresh processes: ``lbpe stats`` and ``lbpe export``, and token shards."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from bench.common import DATA, ROOT, read_text, tiktoken_encoding

_TIKTOKEN_EXPORT = r"""
import os, sys, array
os.environ["TIKTOKEN_CACHE_DIR"] = sys.argv[3]
import tiktoken
enc = tiktoken.get_encoding("cl100k_base")
out = array.array("I")
with open(sys.argv[1], encoding="utf-8") as f:
    while True:
        block = f.read(1 << 22)
        if not block:
            break
        out.extend(enc.encode_ordinary(block))
with open(sys.argv[2], "wb") as f:
    out.tofile(f)
"""


def corpus_commands(rows: list, size: int, tmp: Path) -> None:
    """Wall time of whole commands over one file of ``size`` bytes (English, code and other
    languages, repeated): what a user waits for. tiktoken's line encodes the file in 4 MB
    blocks and writes uint32 ids; lbpe's run with their defaults (every core)."""
    tiktoken_encoding("cl100k_base")
    parts = [
        read_text("text/moby_dick.txt"),
        read_text("text/sotu.txt"),
        read_text("text/code.txt"),
        read_text("text/multilingual_words.txt"),
    ]
    block = "\n".join(parts)
    corpus = tmp / "corpus.txt"
    with open(corpus, "w", encoding="utf-8") as f:
        written = 0
        while written < size:
            f.write(block)
            written += len(block.encode())
    mb = corpus.stat().st_size / 1e6
    commands = {
        "tiktoken encode_ordinary + write ids": [
            sys.executable,
            "-c",
            _TIKTOKEN_EXPORT,
            str(corpus),
            str(tmp / "tt.bin"),
            str(DATA / "_tiktoken_cache"),
        ],
        "lbpe stats (both modes)": [
            sys.executable,
            "-m",
            "lbpe",
            "stats",
            "--vocab",
            "cl100k_base",
            "--json",
            str(corpus),
        ],
        "lbpe export --mode bpe": [
            sys.executable,
            "-m",
            "lbpe",
            "export",
            "--vocab",
            "cl100k_base",
            "--mode",
            "bpe",
            "--out",
            str(tmp / "bpe"),
            str(corpus),
        ],
        "lbpe export --mode lbpe": [
            sys.executable,
            "-m",
            "lbpe",
            "export",
            "--vocab",
            "cl100k_base",
            "--mode",
            "lbpe",
            "--out",
            str(tmp / "lbpe"),
            str(corpus),
        ],
    }
    for label, cmd in commands.items():
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True, cwd=ROOT)
        seconds = time.perf_counter() - t
        rows.append(("cl100k_base", f"{mb:.0f} MB", label, f"{seconds:.1f}s", f"{mb / seconds:.1f}"))


_PEER_SHARDS = r"""
import json, os, sys, array
peer, path, out = sys.argv[1], sys.argv[2], sys.argv[3]
if peer == "tiktoken":
    os.environ["TIKTOKEN_CACHE_DIR"] = sys.argv[4]
    import tiktoken
    enc = tiktoken.get_encoding("o200k_base")
    encode = lambda texts: enc.encode_ordinary_batch(texts, num_threads=os.cpu_count())
else:
    from tokenizers import Tokenizer
    hf = Tokenizer.from_file(sys.argv[4])
    encode = lambda texts: [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)]
ids, offsets = array.array("I"), array.array("q", [0])
def flush(texts):
    for doc in encode(texts):
        ids.extend(doc)
        offsets.append(len(ids))
with open(path, encoding="utf-8") as f:
    texts = []
    for line in f:
        texts.append(json.loads(line)["text"])
        if len(texts) == 1024:
            flush(texts)
            texts = []
    flush(texts)
with open(out + ".tokens", "wb") as f:
    ids.tofile(f)
with open(out + ".offsets", "wb") as f:
    offsets.tofile(f)
"""


def shard_export(rows: list, size: int, tmp: Path) -> None:
    """Wall time of writing token shards (ids and document offsets) from JSONL documents of
    about 8 paragraphs (English, code, other languages), fresh processes. Cold: every paragraph
    of the fetched texts once (about 17 MB); warm: ``size`` bytes, where paragraphs repeat (lbpe's
    piece caches are warm after the first pass; the peers have no such cache). The peers encode
    batches of 1,024 documents on every core (tiktoken's encode_ordinary_batch, HF tokenizers'
    encode_batch); lbpe export runs on one process, on every core, and on a local Ray instance
    (start-up included)."""
    tiktoken_encoding("o200k_base")
    names = ("moby_dick", "sotu", "code", "code_more", "multilingual", "multilingual_words")
    paragraphs = [p for name in names for p in read_text(f"text/{name}.txt").split("\n\n") if p.strip()]
    docs = ["\n\n".join(paragraphs[k : k + 8]) for k in range(0, len(paragraphs), 8)]
    gpt4o = DATA / "hf/gpt4o/tokenizer.json"  # o200k_base as HF tokenizers spells it
    for label, corpus in (("cold", tmp / "cold.jsonl"), ("warm", tmp / "warm.jsonl")):
        with open(corpus, "w", encoding="utf-8") as f:
            written = k = 0
            while k < len(docs) if label == "cold" else written < size:
                line = json.dumps({"text": docs[k % len(docs)]}, ensure_ascii=False) + "\n"
                f.write(line)
                written += len(line.encode())
                k += 1
        mb = corpus.stat().st_size / 1e6
        lbpe_cmd = [sys.executable, "-m", "lbpe", "export", "--vocab", "o200k_base", "-q"]
        commands = {
            "tiktoken encode_ordinary_batch (every core)": [
                sys.executable,
                "-c",
                _PEER_SHARDS,
                "tiktoken",
                str(corpus),
                str(tmp / "tt"),
                str(DATA / "_tiktoken_cache"),
            ],
            "HF tokenizers encode_batch (every core)": [
                sys.executable,
                "-c",
                _PEER_SHARDS,
                "hf",
                str(corpus),
                str(tmp / "hf"),
                str(gpt4o),
            ],
            "lbpe export --mode bpe --num-proc 1": [*lbpe_cmd, "--mode", "bpe", "--num-proc", "1"],
            "lbpe export --mode lbpe --num-proc 1": [*lbpe_cmd, "--mode", "lbpe", "--num-proc", "1"],
            "lbpe export --mode lbpe (every core)": [*lbpe_cmd, "--mode", "lbpe"],
            "lbpe export --mode lbpe --engine ray": [*lbpe_cmd, "--mode", "lbpe", "--engine", "ray"],
        }
        peer = None
        for k, (command, cmd) in enumerate(commands.items()):
            if command.startswith("lbpe"):
                cmd = [*cmd, "--out", str(tmp / f"{label}-{k}"), str(corpus)]
            t = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=True, cwd=ROOT)
            seconds = time.perf_counter() - t
            peer = peer or seconds
            rows.append(
                (
                    "o200k_base",
                    f"{label}, {mb:.0f} MB",
                    command,
                    f"{seconds:.1f}s",
                    f"{mb / seconds:.1f}",
                    f"{peer / seconds:.2f}",
                )
            )
