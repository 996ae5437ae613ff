"""Adversarial inputs: does encoding time grow linearly? Time at N bytes and at 2N bytes.

    python bench/adversarial.py [--size 1M] [--rounds 3] [--vocab NAME ...] [--profile]

Inputs (deterministic): one repeated character, one run of spaces (a single piece of ▁ in
SentencePiece-style vocabularies, whose merge lists give several pairs of ▁ one priority), CJK
without spaces, random printable ASCII, and one long "word" of random lowercase letters (a
single pre-token). For every vocabulary
(the bundled presets, plus Mistral's HF tokenizer.json and SentencePiece model from the data
cache) and both modes it prints the best cold-cache CPU time at N and at 2N, and the median
over rounds of the ratio of the two timed back to back; a linear encoder gives ~2.0 (target:
at most ~2.2). ``--profile`` prints the top functions of the
slowest case. This is a benchmark: it asserts nothing (the unit test
``tests/test_hostile_text.py`` only checks that small versions round-trip).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # fetch_data: where the registry data is cached

import fetch_data  # noqa: E402

import lbpe  # noqa: E402
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="1M", help="N, the smaller size (default 1M; 2N is also timed)")
    parser.add_argument("--rounds", type=int, default=3, help="best of this many runs per timing (default 3)")
    parser.add_argument("--vocab", action="append", choices=[*VOCAB_PRESETS, *EXTRA], help="default: all")
    parser.add_argument("--profile", action="store_true", help="profile the case with the highest ratio")
    args = parser.parse_args(argv)
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
