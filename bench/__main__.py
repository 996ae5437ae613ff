"""Throughput benchmark: lbpe (classic BPE and LBPE) beside tiktoken and HF tokenizers.

    python -m bench [--quick] [--write docs/benchmarks.md]

Every figure in one table comes from one run on one machine, on the same texts (fetched by
``scripts/fetch_data.py``) and the same vocabularies; ratios are against tiktoken's
``encode_ordinary`` measured in the same run. None of the lbpe paths call tiktoken or
tokenizers. This is a benchmark: it asserts nothing.

* paths: every lbpe row is measured on the compiled path (``lbpe/_native.c``) and on the
  pure-Python one (what Pyodide runs), switched with ``lbpe.native.use`` in the same process;
* warm: the same Tokenizer encodes the text a second time (its piece cache is filled);
* cold: a loaded Tokenizer with empty caches (``clear_cache()``) encodes the text once: every
  piece is new the first time it appears. The vocabulary's own tables are built beforehand;
  the "load" table shows what that costs, next to tiktoken's ``get_encoding``;
* short: 20,000 English sentences, one ``encode`` call each with the default special-token
  checks (tiktoken's ``encode``), warm: the cost per call;
* batch: the English text as 1,024 documents, ``encode_batch(workers=all cores)`` vs
  ``workers=1``, cold and warm; beside it, the same split of a plain CPU-bound Python loop, which
  is the most any process-parallel code can gain on this machine;
* adversarial: time for 2x the input over time for 1x, cold, for each mode; and LBPE's time with
  a vocabulary of very long tokens (``bench/adversarial.py --long-tokens``);
* memory: peak RSS of a fresh process that loads o200k_base and encodes 10 MB;
* tokenizer.json: files with their own pre-tokeniser patterns, cold, beside HF tokenizers on
  the same file;
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
module: ``throughput.py`` (throughput, short texts), ``footprint.py`` (load, memory), ``batch.py``,
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
from bench.common import inputs, read_text, render
from bench.corpus import corpus_commands, shard_export
from bench.footprint import load_times, memory
from bench.hf import HF_BRIDGE_HEADER, HF_BRIDGE_TITLE, hf_bridge, hf_files
from bench.throughput import short_calls, throughput


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "(not installed)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 MB inputs, fewer rounds")
    parser.add_argument("--write", metavar="FILE", help="also write the tables (markdown) to FILE")
    parser.add_argument("--only", choices=["hf-bridge", "load"], help="run this case alone")
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
    texts = inputs(args.quick)
    throughput(rows, texts, rounds)
    sections[
        "Throughput, one thread (MB/s: best round; x tiktoken: median over rounds of the ratio to "
        "tiktoken's encode_ordinary in the same round)"
    ] = (["vocabulary", "text", "encoder", "cache", "MB/s", "x tiktoken", "cold / warm (target <= 3)"], rows)
    rows = []
    load_times(rows, rounds)
    sections["Load: from the file to the first encoding, fresh process (best of runs)"] = (
        ["vocabulary", "encoder", "to a first ASCII text", "then a first non-ASCII text"],
        rows,
    )
    rows = []
    english = read_text("text/moby_dick.txt") + read_text("text/sotu.txt")
    short_calls(rows, english, rounds)
    sections[
        "Short texts, one encode call each, default special-token checks (time per call: best round; x "
        "tiktoken: median of within-round ratios)"
    ] = (["vocabulary", "input", "encoder", "per call", "x tiktoken"], rows)
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
    sections[
        "tokenizer.json files with their own patterns: 2 MB of English, code and other languages (x HF "
        "tokenizers: median of within-round ratios)"
    ] = (["file", "pre-tokeniser", "encoder", "MB/s", "x HF tokenizers"], rows)
    rows = []
    hf_bridge(rows, rounds)
    sections[HF_BRIDGE_TITLE] = (HF_BRIDGE_HEADER, rows)
    machine = (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{datetime.date.today().isoformat()}"
    )
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
            + "."
        )
        Path(args.write).write_text(
            f"# Benchmarks\n\nGenerated by `python -m bench{' --quick' if args.quick else ''} --write {args.write}`"
            f" on {machine}.\n\n{note}\n{body}",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
