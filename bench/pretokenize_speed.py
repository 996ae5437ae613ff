#!/usr/bin/env python3
"""Pre-tokeniser speed, in MB of UTF-8 text per second, for every preset.

Columns:

* ``plain``  -- the plain stdlib ``re`` translation of the preset (the module's previous build,
  still available as ``lbpe.pretokenize.rewrite.plain_pattern``);
* ``full``   -- the rewritten pattern, ``compile_pattern(name).regex.findall`` (exact on every
  input);
* ``new``    -- ``compile_pattern(name).findall``, what ``split_text`` and the Tokenizer use
  (the full pattern, or its astral-free twin when the text has no astral characters);
* ``regex``  -- the third-party ``regex`` module running tiktoken's own pattern string (the
  ``paper`` preset: r50k's with the number alternative replaced by a single ``\\p{N}``); left
  out when ``regex``/``tiktoken`` or the fetched rank files are missing.

Texts: Moby-Dick, then the other files of ``scripts/fetch_data.py`` that exist (multilingual
word lists with emoji, source code). Every candidate runs once per round, interleaved, and
the best of ``--rounds`` rounds (more for texts under 1.2 MB) is shown, which steadies the
numbers on a busy machine. The
script also checks that ``plain``, ``full`` and ``new`` give the same pieces.

Usage: python bench/pretokenize_speed.py [--rounds N] [--presets r50k_base,o200k_base]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # fetch_data: where the registry data is cached

import fetch_data  # noqa: E402

from lbpe import pretokenize  # noqa: E402
from lbpe.pretokenize.rewrite import plain_pattern  # noqa: E402

TEXTS = ("moby_dick.txt", "multilingual.txt", "code.txt")


def reference_patterns() -> dict:
    """tiktoken's pattern strings compiled by ``regex`` (empty when unavailable)."""
    try:
        import regex
        import tiktoken_ext.openai_public as public

        from tests.support.data import tiktoken_encoding

        sources = {
            "r50k_base": public.r50k_pat_str,
            "cl100k_base": tiktoken_encoding("cl100k_base")._pat_str,
            "o200k_base": tiktoken_encoding("o200k_base")._pat_str,
            "paper": public.r50k_pat_str.replace(r" ?\p{N}++", r"\p{N}"),
        }
    except BaseException as exc:  # ImportError, or pytest's Failed for missing rank files
        print(f"(no regex column: {type(exc).__name__}: {exc})")
        return {}
    return {name: regex.compile(source) for name, source in sources.items()}


def race(candidates: dict, text: str, rounds: int) -> dict:
    best = dict.fromkeys(candidates, float("inf"))
    for _ in range(rounds):
        for label, findall in candidates.items():
            start = time.perf_counter()
            findall(text)
            best[label] = min(best[label], time.perf_counter() - start)
    megabytes = len(text.encode("utf-8")) / 1e6
    return {label: megabytes / seconds for label, seconds in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--presets", default=",".join(pretokenize.PRETOKENIZER_PRESETS))
    args = parser.parse_args()

    folder = fetch_data.data_dir() / "text"
    texts = {name: (folder / name).read_text("utf-8") for name in TEXTS if (folder / name).is_file()}
    if "moby_dick.txt" not in texts:
        sys.exit(f"{folder / 'moby_dick.txt'} is missing: run `python {ROOT / 'scripts' / 'fetch_data.py'}`")
    references = reference_patterns()

    print(f"Python {sys.version.split()[0]}, best of {args.rounds}+ rounds, MB/s of UTF-8")
    for name, text in texts.items():
        astral = sum(ord(ch) > 0xFFFF for ch in text)
        print(f"  {name}: {len(text.encode()) / 1e6:.2f} MB, {astral} astral characters")
    columns = ["plain", "full", "new", "regex"] if references else ["plain", "full", "new"]
    print()
    print(f"{'preset':12} {'text':17} {'compile s':>9} " + " ".join(f"{c:>7}" for c in columns) + "  new/plain")
    for name in args.presets.split(","):
        start = time.perf_counter()
        compiled = pretokenize.compile_pattern(name)  # the first also builds the Unicode tables
        compile_seconds = time.perf_counter() - start
        plain = re.compile(plain_pattern(name))
        candidates = {"plain": plain.findall, "full": compiled.regex.findall, "new": compiled.findall}
        if name in references:
            candidates["regex"] = references[name].findall
        for text_name, text in texts.items():
            expected = plain.findall(text)
            if compiled.regex.findall(text) != expected or compiled.findall(text) != expected:
                sys.exit(f"MISMATCH: {name} on {text_name}")
            # Small texts get more rounds, so that every cell is the best of similar work.
            rounds = max(args.rounds, min(200, round(args.rounds * 1.2e6 / len(text.encode()))))
            speeds = race(candidates, text, rounds)
            row = " ".join(f"{speeds[c]:7.1f}" if c in speeds else f"{'-':>7}" for c in columns)
            shown = f"{compile_seconds:9.3f}" if text_name == next(iter(texts)) else " " * 9
            print(f"{name:12} {text_name:17} {shown} {row}  {speeds['new'] / speeds['plain']:8.1f}x")


if __name__ == "__main__":
    main()
