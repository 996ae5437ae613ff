"""Adversarial inputs: does encoding time grow linearly? Time at N bytes and at 2N bytes.

    python bench/adversarial.py [--size 1M] [--rounds 3] [--vocab NAME ...] [--profile]
    python bench/adversarial.py --long-tokens 2000 [--run 50000]

Inputs (deterministic): one repeated character, one run of spaces (a single piece of ▁ in
SentencePiece-style vocabularies, whose merge lists give several pairs of ▁ one priority), CJK
without spaces, random printable ASCII, and one long "word" of random lowercase letters (a
single pre-token). For every vocabulary
(the bundled presets, plus Mistral's HF tokenizer.json and SentencePiece model from the data
cache) and both modes it prints the best cold-cache CPU time at N and at 2N, and the median
over rounds of the ratio of the two timed back to back; a linear encoder gives ~2.0 (target:
at most ~2.2). ``--profile`` prints the top functions of the
slowest case. This is a benchmark: it asserts nothing (the unit test
``tests/robustness/test_hostile_text.py`` only checks that small versions round-trip).

``--long-tokens K`` times a hostile vocabulary instead: a byte-level tokenizer.json whose tokens
are the runs ``"a" * k`` up to ``K`` bytes (``tests/support/tiny_vocabs.py``; 4 MB for K = 2,000),
encoding one run of ``--run`` ``a`` in LBPE mode, on each path in a fresh process: CPU seconds
and how much the peak RSS grew during the encode (``tests/unit/model/test_long_tokens.py`` bounds that
memory; HF tokenizers' BPE takes ~0.03 s on the same file and text).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # fetch_data: where the registry data is cached

import fetch_data  # noqa: E402

import lbpe  # noqa: E402
from bench.common import PATHS, WARM_UP  # noqa: E402
from lbpe.limits import parse_size  # noqa: E402
from lbpe.presets import VOCAB_PRESETS, load_preset  # noqa: E402

#: extra vocabularies from the data cache (scripts/fetch_data.py)
EXTRA = {
    "hf:mistral_v0.1": "hf/mistral_v0.1/tokenizer.json",
    "sp:mistral_v1": "sentencepiece/mistral_tokenizer.model.v1",
}


def adversarial_inputs(size: int) -> dict[str, str]:
    """The five inputs, each about ``size`` UTF-8 bytes, the same on every call."""
    rng = random.Random(size)
    letters = "abcdefghijklmnopqrstuvwxyz"
    return {
        "repeated char": "a" * size,
        "run of spaces": " " * size,
        "CJK, no spaces": "".join(chr(rng.randrange(0x4E00, 0x9FA6)) for _ in range(size // 3)),
        "random ASCII": "".join(chr(rng.randrange(32, 127)) for _ in range(size)),
        "one long word": "".join(rng.choice(letters) for _ in range(size)),
    }


def _tokenizer(name: str) -> lbpe.Tokenizer:
    if name in EXTRA:
        return lbpe.load(fetch_data.data_dir() / EXTRA[name])
    return load_preset(name)


def cold_time(tok: lbpe.Tokenizer, text: str, mode: str, rounds: int) -> float:
    """Best of ``rounds`` encodings, each with empty piece caches, in CPU seconds of this
    process (steadier than wall time on a shared machine; the encoder is single-threaded)."""
    best = float("inf")
    for _ in range(rounds):
        tok.clear_cache()
        t0 = time.process_time()
        tok.encode(text, mode=mode, disallowed_special=())
        best = min(best, time.process_time() - t0)
    return best


def doubling(tok: lbpe.Tokenizer, small: str, large: str, mode: str, rounds: int) -> tuple[float, float, float]:
    """Cold CPU times for ``small`` and ``large``, timed back to back in each round: the best
    of each, and the median over rounds of the ratio within a round. A slow spell of a shared
    machine then stretches both sizes of a round alike instead of one size only."""
    pairs = [(cold_time(tok, small, mode, 1), cold_time(tok, large, mode, 1)) for _ in range(rounds)]
    return min(a for a, _ in pairs), min(b for _, b in pairs), statistics.median(b / a for a, b in pairs)


_LONG_CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    import lbpe
    from lbpe import native

    path, which, run = sys.argv[1], sys.argv[2], int(sys.argv[3])
    native.use(which)
    tok = lbpe.load(path)
    tok.encode("aaaa", mode="lbpe")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.process_time()
    ids = tok.encode("a" * run, mode="lbpe")
    seconds = time.process_time() - t
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    print(json.dumps({"seconds": seconds, "grown_kib": grown, "ids": len(ids)}))
    """
)


def long_tokens(longest: int, run: int, *, path: str, root: Path = ROOT) -> dict:
    """Encode ``"a" * run`` in LBPE mode with the tokens ``"a" * 1..longest`` on ``path``
    ("compiled" or "pure") in a fresh process running the lbpe of ``root``: its CPU seconds and
    the growth of its peak RSS (KiB) during the encode."""
    from tests.support.tiny_vocabs import json_bytes, long_run_spec

    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "tokenizer.json"
        file.write_bytes(json_bytes(long_run_spec(longest)))
        out = subprocess.run(
            [sys.executable, "-c", _LONG_CHILD, str(file), path, str(run)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONPATH": str(root), "LBPE_MAX_TOKEN_BYTES": "0"},  # over the limit on purpose
        )
    return json.loads(out.stdout)


def adversarial(rows: list, size: int, rounds: int) -> None:
    """The rows of ``python -m bench``'s adversarial table: cl100k_base on each input at ``size`` and
    ``2 * size``, then the vocabulary of very long tokens on each path."""
    small, large = adversarial_inputs(size), adversarial_inputs(2 * size)
    tok = load_preset("cl100k_base")
    for mode in lbpe.MODES:
        tok.encode(WARM_UP, mode=mode)
    for label in small:
        for mode in lbpe.MODES:
            t1, t2, ratio = doubling(tok, small[label], large[label], mode, rounds)
            rows.append(
                (
                    label,
                    f"{size >> 10} KB -> {2 * size >> 10} KB",
                    f"lbpe {mode} ({lbpe.backend().name})",
                    f"{t1:.2f}s -> {t2:.2f}s",
                    ratio,
                )
            )
    for path in PATHS:  # a vocabulary of very long tokens: one run, no doubling
        seconds = min(long_tokens(2000, 50_000, path=path)["seconds"] for _ in range(rounds))
        rows.append(("50,000 'a', tokens 'a' * 1..2000", "50 KB", f"lbpe lbpe ({path})", f"{seconds:.2f}s", "-"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="1M", help="N, the smaller size (default 1M; 2N is also timed)")
    parser.add_argument("--rounds", type=int, default=3, help="best of this many runs per timing (default 3)")
    parser.add_argument("--vocab", action="append", choices=[*VOCAB_PRESETS, *EXTRA], help="default: all")
    parser.add_argument("--profile", action="store_true", help="profile the case with the highest ratio")
    parser.add_argument("--long-tokens", type=int, metavar="K", help="time the vocabulary of runs 'a' * 1..K instead")
    parser.add_argument("--run", type=int, default=50_000, help="with --long-tokens: the run of 'a' encoded")
    args = parser.parse_args(argv)
    if args.long_tokens:
        print(f"{'tokens':>16} {'text':>10} {'path':8} {'CPU time':>9} {'peak RSS grew':>14}")
        for path in ("compiled", "pure") if lbpe.backend().compiled_available else ("pure",):
            r = long_tokens(args.long_tokens, args.run, path=path)
            label, grown = f"a * 1..{args.long_tokens}", r["grown_kib"] / 1024
            print(f"{label:>16} {args.run:>10,} {path:8} {r['seconds']:8.2f}s {grown:11.1f} MB")
        return 0
    size = parse_size(args.size, "--size")
    small, large = adversarial_inputs(size), adversarial_inputs(2 * size)
    print(f"{'vocabulary':16} {'input':15} {'mode':5} {'N':>9} {'t(N)':>8} {'t(2N)':>8} {'ratio':>6}")
    worst = (0.0, None)
    for name in args.vocab or [*VOCAB_PRESETS, *EXTRA]:
        tok = _tokenizer(name)
        for mode in lbpe.MODES:
            tok.encode("warm up the derived tables", mode=mode)
        for kind in small:
            for mode in lbpe.MODES:
                t1, t2, ratio = doubling(tok, small[kind], large[kind], mode, args.rounds)
                print(f"{name:16} {kind:15} {mode:5} {size:>9} {t1:7.2f}s {t2:7.2f}s {ratio:6.2f}", flush=True)
                if ratio > worst[0]:
                    worst = (ratio, (tok, large[kind], mode, f"{name} {kind} {mode}"))
    if args.profile and worst[1] is not None:
        import cProfile
        import pstats

        tok, text, mode, label = worst[1]
        print(f"\nprofile of the highest ratio ({worst[0]:.2f}): {label}")
        tok.clear_cache()
        profiler = cProfile.Profile()
        profiler.runcall(tok.encode, text, mode=mode, disallowed_special=())
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(12)
    return 0


if __name__ == "__main__":
    sys.exit(main())
