#!/usr/bin/env python3
"""Training speed: a 32K character-level vocabulary on 10 MB of text, lbpe beside HF tokenizers.

Both trainers see the same text (``text/sotu.txt`` from ``scripts/fetch_data.py``, 10.7 MB of
State of the Union addresses) and the same pre-tokenisation: lbpe's ``"paper"`` preset, and
for HF a ``Split`` pre-tokenizer with the equivalent Oniguruma regex
(:func:`lbpe.formats.hf_write.hf_regex`). HF's ``BpeTrainer`` gets the 256 ``<0xNN>`` tokens as
special tokens, so both vocabularies hold 256 byte tokens + the characters + merges = the
same size. HF trains with all the cores it finds (Rayon); lbpe runs on one.

Times are wall-clock seconds, best of ``--rounds`` (the two trainers alternate), in one run.
The target of issue 4 is lbpe <= 3x HF. This is a benchmark, not a test.

Usage: python bench/train_speed.py [--rounds 3] [--vocab-size 32000] [--file text/sotu.txt]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.training import arguments, best_of  # noqa: E402
from lbpe.formats.hf_write import hf_regex  # noqa: E402
from lbpe.train import count_pieces, train_from_counts  # noqa: E402


def ours(path: Path, vocab_size: int) -> tuple[tuple[float, float], int]:
    """((seconds counting, seconds merging), tokens)."""
    t0 = time.perf_counter()
    counts = count_pieces([path], "paper")
    t1 = time.perf_counter()
    vocab = train_from_counts(counts, vocab_size=vocab_size, unit="char")
    t2 = time.perf_counter()
    return (t1 - t0, t2 - t1), len(vocab)


def hf(path: Path, vocab_size: int) -> tuple[tuple[float], int]:
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(byte_fallback=True))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(hf_regex("paper")), behavior="isolated")
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, show_progress=False, special_tokens=[f"<0x{b:02X}>" for b in range(256)]
    )
    t0 = time.perf_counter()
    tok.train([str(path)], trainer)
    return (time.perf_counter() - t0,), tok.get_vocab_size()


def main() -> int:
    args, path = arguments(__doc__)
    if path is None:
        return 1
    import tokenizers

    best = best_of(
        args.rounds,
        {
            "lbpe": lambda: ours(path, args.vocab_size),
            "hf": lambda: hf(path, args.vocab_size),
        },
    )
    (count, merge), n_ours = best["lbpe"]
    (best_hf,), n_hf = best["hf"]
    total = count + merge
    mb = path.stat().st_size / 1e6
    print(
        f"text: {path.name}, {mb:.1f} MB; vocab_size {args.vocab_size}; best of {args.rounds}; "
        f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}; tokenizers {tokenizers.__version__}"
    )
    print(f"{'trainer':<26}{'seconds':>9}{'tokens':>9}")
    print(f"{'lbpe (1 core)':<26}{total:>9.2f}{n_ours:>9}   (counting {count:.2f} s, merging {merge:.2f} s)")
    print(f"{'HF BpeTrainer (all cores)':<26}{best_hf:>9.2f}{n_hf:>9}")
    print(f"lbpe / HF: {total / best_hf:.2f}x (target <= 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
