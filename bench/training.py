"""What the two training benchmarks (``train_speed.py``, ``train_llama.py``) share: their
command line and corpus, and the alternating best-of-N loop over the trainers."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))  # fetch_data: where the registry data is cached

import fetch_data  # noqa: E402

#: A trainer run: ``(seconds of each phase, what it made)``.
Run = tuple[tuple[float, ...], Any]


def arguments(doc: str) -> tuple[argparse.Namespace, Path | None]:
    """``--rounds``, ``--vocab-size``, ``--file`` and the corpus's path (``None``, said on
    standard error, when the data cache does not hold it)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--vocab-size", type=int, default=32000)
    parser.add_argument("--file", default="text/sotu.txt", help="path inside the data cache")
    args = parser.parse_args()
    path = fetch_data.data_dir() / args.file
    if not path.is_file():
        print(f"{path} is missing: run python scripts/fetch_data.py first", file=sys.stderr)
        return args, None
    return args, path


def best_of(rounds: int, trainers: Mapping[str, Callable[[], Run]]) -> dict[str, Run]:
    """Each trainer's fastest run (by its total time) of ``rounds``, the trainers taking turns
    within each round, so a slower or busier moment of the machine falls on all of them."""
    best: dict[str, Run] = {}
    for _ in range(rounds):
        for name, run in trainers.items():
            times, made = run()
            if name not in best or sum(times) < sum(best[name][0]):
                best[name] = (times, made)
    return best
