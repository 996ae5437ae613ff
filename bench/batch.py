"""Batch encoding over all cores against one core, beside the machine's ceiling (a plain CPU-bound loop)."""

from __future__ import annotations

import os
import statistics
import time

import lbpe
from bench.common import WARM_UP, mbps
from lbpe.presets import load_preset


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i & 7
    return total


def _forked(jobs: int, work) -> float:
    """Wall time of ``work()`` run in this process and in ``jobs - 1`` forks at once."""
    t = time.perf_counter()
    pids = []
    for _ in range(jobs - 1):
        pid = os.fork()
        if pid == 0:
            work()
            os._exit(0)
        pids.append(pid)
    work()
    for pid in pids:
        os.waitpid(pid, 0)
    return time.perf_counter() - t


def batch(rows: list, text: str, rounds: int) -> None:
    size = len(text) // 1024
    docs = [text[i : i + size] for i in range(0, len(text), size)]
    workers = os.cpu_count() or 1
    tok = load_preset("cl100k_base")
    for mode in lbpe.MODES:
        tok.encode(WARM_UP, mode=mode)
        for cache in ("cold", "warm"):

            def run(w: int, cache: str = cache, mode: str = mode) -> float:
                if cache == "cold":
                    tok.clear_cache()
                else:
                    tok.encode_batch(docs, mode=mode, disallowed_special=())
                t = time.perf_counter()
                tok.encode_batch(docs, mode=mode, workers=w, disallowed_special=())
                return time.perf_counter() - t

            pairs = [(run(1), run(workers)) for _ in range(rounds)]  # back to back: the load drifts
            rows.append(
                (
                    "cl100k_base",
                    f"{len(docs)} documents, {cache}",
                    f"lbpe {mode} ({lbpe.backend().name})",
                    f"{workers} workers",
                    mbps(text, min(b for _, b in pairs)),
                    statistics.median(a / b for a, b in pairs),
                )
            )
    n = 20_000_000
    pairs = [(_forked(1, lambda: _spin(n)), _forked(workers, lambda: _spin(n // workers))) for _ in range(rounds)]
    rows.append(
        (
            "-",
            "CPU-bound Python loop (the machine's ceiling)",
            "-",
            f"{workers} processes",
            "-",
            statistics.median(a / b for a, b in pairs),
        )
    )
