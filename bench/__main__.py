"""Throughput benchmark: lbpe (classic BPE and LBPE) beside tiktoken, HF tokenizers and the fastest peers.

    python -m bench [--quick] [--only ceilings|hf-bridge|hf-files|peers|short|load] [--write docs/benchmarks.md]

Every figure in one table comes from one run on one machine, on the same texts (fetched by
``scripts/fetch_data.py``) and the same vocabularies; ratios are against tiktoken's
``encode_ordinary`` measured in the same run. None of the lbpe paths call tiktoken or
tokenizers. This is a benchmark: it asserts nothing.

* texts: English prose, code, and the Chinese, Japanese, Russian and German blocks of the
  multilingual text beside the whole of it;
* summary (first in the file): lbpe bpe and lbpe lbpe (compiled, cold and warm, one thread, CPU
  time) as a ratio to the fastest exact peer of each vocabulary and text, which it names;
* peers (``python -m bench --only peers`` runs these alone): fastokens, bpe-openai and rs-bpe beside
  tiktoken and HF tokenizers (o200k_base only: the data cache has no cl100k tokenizer.json), for
  cl100k_base and o200k_base on every text. Each peer's ids are first checked against tiktoken's,
  paragraph by paragraph and whole texts (the exactness table); a peer that differs is timed in
  a table of its own and left out of the summary, and a peer not installed drops its rows with a
  note. One thread by CPU time, in a fresh process pinned with ``FASTOKENS_BPE_THREADS=1``,
  ``RAYON_NUM_THREADS=1`` and ``TOKENIZERS_PARALLELISM=false`` (the wall / CPU column shows no
  helper thread ran), cold (lbpe: ``clear_cache()``; fastokens, which caches pieces and cannot
  empty its caches: a newly built tokenizer; HF: ``model._clear_cache()``) and warm (a second
  encode); then every core by wall time in another fresh process: the text as 256 documents,
  lbpe's ``encode_batch(workers=N)`` beside each peer's own batch call, whose ids are checked too.
  All load offline (bench/peers.py says from where);
* ceilings (``python -m bench --only ceilings`` runs these alone): this machine's memory
  bandwidth and latency on one core, and lbpe's compiled path on every text as a share of that
  bandwidth and in memory latencies per piece (bench/ceilings.py says how each is measured);
* paths: every lbpe row is measured on the compiled path (``lbpe/_native.c``) and on the
  pure-Python one (what Pyodide runs), switched with ``lbpe.native.use`` in the same process;
* warm: the same Tokenizer encodes the text a second time (its piece cache is filled);
* cold: a loaded Tokenizer with empty caches (``clear_cache()``) encodes the text once: every
  piece is new the first time it appears. The vocabulary's own tables are built beforehand;
  the "load" table shows what that costs, next to tiktoken's ``get_encoding``;
* short: 20,000 English sentences, one ``encode`` call each with the default special-token
  checks (tiktoken's ``encode``; fastokens' ``encode``, which matches special tokens instead),
  warm: the cost per call;
* batch: the English text as 1,024 documents, ``encode_batch(workers=all cores)`` vs
  ``workers=1``, cold and warm; beside it, the same split of a plain CPU-bound Python loop, which
  is the most any process-parallel code can gain on this machine;
* adversarial: time for 2x the input over time for 1x, cold, for each mode; and LBPE's time with
  a vocabulary of very long tokens (``bench/adversarial.py --long-tokens``);
* memory: peak RSS of a fresh process that loads o200k_base and encodes 10 MB;
* tokenizer.json: files with their own pre-tokeniser patterns (Llama 3, Qwen 3, DeepSeek-V3,
  Gemma 3), cold, one thread by CPU time, beside HF tokenizers on the same file, its ids checked
  first (``python -m bench --only hf-files`` runs this case alone);
* corpus: ``lbpe stats`` and ``lbpe export`` (fresh processes, wall time) over a 100 MB file,
  beside a script that encodes the same file with tiktoken and writes the ids with ``array``;
* hf-bridge: ``lbpe.hf.LBPETokenizer`` (``tok(texts)["input_ids"]``, LBPE) beside lbpe's own
  ``encode_batch`` of the same 12,560 paragraphs (with the model's special tokens), cold and
  warm, and the model's own transformers tokenizer (BPE) for scale
  (``python -m bench --only hf-bridge`` runs this case alone);
* load: ``python -m bench --only load [options of bench/load.py]`` runs N clients against a real
  ``lbpe serve`` (latency percentiles, errors, the server's memory after load and after idle);
  it is not part of the full run.

This module is the runner (options, order, the tables' titles); each table's code is in its own
module: ``throughput.py`` (throughput, short texts), ``peers.py`` (the summary, the peers' exactness,
one thread and batch), ``ceilings.py`` (the memory ceilings), ``footprint.py`` (load, memory), ``batch.py``,
``adversarial.py``, ``corpus.py`` (corpus commands, token shards), ``hf.py`` (tokenizer.json files,
hf-bridge), and what they share in ``common.py``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from pathlib import Path

import lbpe
from bench.adversarial import adversarial
from bench.batch import batch
from bench.ceilings import CEILINGS_HEADER, CEILINGS_TITLE, DISTANCE_HEADER, DISTANCE_TITLE, ceilings
from bench.common import inputs, read_text, render
from bench.corpus import corpus_commands, shard_export
from bench.footprint import load_times, memory
from bench.hf import HF_BRIDGE_HEADER, HF_BRIDGE_TITLE, HF_FILES_HEADER, HF_FILES_TITLE, hf_bridge, hf_files
from bench.peers import SUMMARY_TITLE, run_part
from bench.throughput import short_calls, throughput


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "(not installed)"


def run_peers(sections: dict, quick: bool, rounds: int) -> list[str]:
    """The peers' tables (bench/peers.py), each part in a fresh process: one thread, then every
    core; returns the notes on peers left out (not installed)."""
    notes: list[str] = []
    for part in ("single", "batch"):
        result = run_part(part, quick, rounds)
        for title, (header, rows) in result["sections"].items():
            sections[title] = (header, rows)
        notes += [n for n in result["notes"] if n not in notes]
    return notes


SHORT_TITLE = (
    "Short texts, one encode call each, each encoder's default for special tokens' text (time per call: "
    "best round; x tiktoken: median of within-round ratios)"
)
SHORT_HEADER = ["vocabulary", "input", "encoder", "per call", "x tiktoken"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 MB inputs, fewer rounds")
    parser.add_argument("--write", metavar="FILE", help="also write the tables (markdown) to FILE")
    parser.add_argument(
        "--only", choices=["ceilings", "hf-bridge", "hf-files", "load", "peers", "short"], help="run this case alone"
    )
    args, rest = parser.parse_known_args()
    if args.only == "load":  # a real playground server under N clients (bench/load.py; its options follow)
        from bench import load

        return load.main(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    rounds = 2 if args.quick else 5
    sections: dict[str, tuple[list[str], list]] = {}
    rows: list = []
    if args.only == "hf-bridge":
        hf_bridge(rows, rounds)
        sections[HF_BRIDGE_TITLE] = (HF_BRIDGE_HEADER, rows)
        print(render(sections))
        return 0
    if args.only == "hf-files":
        hf_files(rows, inputs(args.quick), rounds)
        sections[HF_FILES_TITLE] = (HF_FILES_HEADER, rows)
        print(render(sections))
        return 0
    if args.only == "ceilings":
        distance: list = []
        ceilings(rows, distance, inputs(args.quick), rounds)
        sections[CEILINGS_TITLE] = (CEILINGS_HEADER, rows)
        sections[DISTANCE_TITLE] = (DISTANCE_HEADER, distance)
        print(render(sections))
        return 0
    if args.only == "short":
        short_calls(rows, read_text("text/moby_dick.txt") + read_text("text/sotu.txt"), rounds)
        sections[SHORT_TITLE] = (SHORT_HEADER, rows)
        print(render(sections))
        return 0
    if args.only == "peers":
        notes = run_peers(sections, args.quick, rounds)
        print("".join(f"({n})\n" for n in notes) + render(sections))
        return 0
    texts = inputs(args.quick)
    throughput(rows, texts, rounds)
    sections[
        "Throughput, one thread (MB/s: best round; x tiktoken: median over rounds of the ratio to "
        "tiktoken's encode_ordinary in the same round)"
    ] = (["vocabulary", "text", "encoder", "cache", "MB/s", "x tiktoken", "cold / warm (target <= 3)"], rows)
    peer_notes = run_peers(sections, args.quick, rounds)
    rows, distance = [], []
    ceilings(rows, distance, texts, rounds)
    sections[CEILINGS_TITLE] = (CEILINGS_HEADER, rows)
    sections[DISTANCE_TITLE] = (DISTANCE_HEADER, distance)
    rows = []
    load_times(rows, rounds)
    sections["Load: from the file to the first encoding, fresh process (best of runs)"] = (
        ["vocabulary", "encoder", "to a first ASCII text", "then a first non-ASCII text"],
        rows,
    )
    rows = []
    english = read_text("text/moby_dick.txt") + read_text("text/sotu.txt")
    short_calls(rows, english, rounds)
    sections[SHORT_TITLE] = (SHORT_HEADER, rows)
    rows = []
    batch(rows, english[: 2 << 20] if args.quick else english, rounds)
    sections["Batch encoding over all cores (ratio to one core: median of back-to-back rounds)"] = (
        ["vocabulary", "input", "encoder", "workers", "MB/s", "x one core"],
        rows,
    )
    rows = []
    adversarial(rows, (256 if args.quick else 1024) << 10, rounds)
    sections[
        "Adversarial inputs: CPU time when the input doubles (best times; ratio: median of back-to-back "
        "rounds; target <= 2.2)"
    ] = (["input", "size", "encoder", "time", "ratio"], rows)
    rows = []
    memory(rows, 10 << 20)
    sections["Peak memory (ratio to tiktoken; target <= 1.3)"] = (
        ["vocabulary", "work", "encoder", "peak RSS", "x tiktoken"],
        rows,
    )
    rows = []
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        corpus_commands(rows, (20 if args.quick else 100) << 20, Path(tmp))
    sections["Corpus commands: wall time of a fresh process over one file (lbpe with its defaults: every core)"] = (
        ["vocabulary", "file", "command", "wall time", "MB/s"],
        rows,
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        shard_export(rows, (20 if args.quick else 200) << 20, Path(tmp))
    sections[
        "Token shards from JSONL documents: wall time of a fresh process, cold (each paragraph once) "
        "and warm (paragraphs repeat) (x tiktoken: its time over this row's)"
    ] = (["vocabulary", "documents", "command", "wall time", "MB/s", "x tiktoken"], rows)
    rows = []
    hf_files(rows, texts, rounds)
    sections[HF_FILES_TITLE] = (HF_FILES_HEADER, rows)
    rows = []
    hf_bridge(rows, rounds)
    sections[HF_BRIDGE_TITLE] = (HF_BRIDGE_HEADER, rows)
    machine = (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{datetime.date.today().isoformat()}"
    )
    # the summary against the fastest peers opens the file
    sections = {SUMMARY_TITLE: sections.pop(SUMMARY_TITLE), **sections}
    body = render(sections)
    print(f"machine: {machine}\n{body}")
    if args.write:
        note = (
            f"Active path: {lbpe.backend().name} ({lbpe.backend().reason}). Rows marked (compiled) run "
            "lbpe/_native.c, rows marked (pure) the standard-library modules Pyodide runs; the two give the "
            "same ids (tests/parity/test_compiled_vs_pure.py). tiktoken "
            + _version("tiktoken")
            + ", HF tokenizers "
            + _version("tokenizers")
            + ", fastokens "
            + _version("fastokens")
            + ", bpe-openai "
            + _version("bpe-openai")
            + ", rs-bpe "
            + _version("rs-bpe")
            + "."
            + "".join(f" ({n}.)" for n in peer_notes)
        )
        Path(args.write).write_text(
            f"# Benchmarks\n\nGenerated by `python -m bench{' --quick' if args.quick else ''} --write {args.write}`"
            f" on {machine}.\n\n{note}\n{body}",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
