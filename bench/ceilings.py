"""How far lbpe's compiled path is from what this machine's memory allows, on one core.

Two ceilings, measured here with the standard library alone (CPU time, best of rounds):

* bandwidth: reading a 256 MB buffer that no cache holds (``bytes.find`` of a byte it lacks
  runs C's ``memchr`` over all of it) and copying it (a slice assignment to a memoryview, C's ``memcpy``);
* latency: one read that misses every cache, when the next address depends on it (a walk of a
  64 MB cycle of pseudo-random indices, less the same walk of a 32 KB one, whose reads stay in
  the first-level cache; the interpreter's cost per step cancels out). This is what a lookup in
  a table larger than the caches costs when nothing asked for its line ahead.

Then, for each vocabulary and text, lbpe's compiled encoder (cold and warm, both modes) as a share
of the read bandwidth (the text's UTF-8 bytes per second over the bytes per second the core
can read) and as memory latencies per piece (CPU time per pre-token over one latency): a path
that reads its input at a small share of the bandwidth is not held back by it, and a path that
takes about one latency per piece is as slow as one unhidden miss a piece would make it.
"""

from __future__ import annotations

import statistics
import time
from array import array

import lbpe
from bench.common import PATHS, WARM_UP, mbps
from lbpe import native
from lbpe.presets import load_preset

CEILINGS_TITLE = "This machine's memory, one core (best of rounds, CPU time)"
CEILINGS_HEADER = ["measure", "value", "how"]
DISTANCE_TITLE = (
    "lbpe (compiled, one thread, CPU time) against the memory ceilings above (best round; share of "
    "the read bandwidth: the text's bytes per second over it; latencies per piece: time per "
    "pre-token over one memory latency)"
)
DISTANCE_HEADER = ["vocabulary", "text", "encoder", "cache", "MB/s", "share of read bandwidth", "latencies per piece"]

#: The buffer the bandwidth is measured on, and the cycles the latency is walked on (in 8-byte
#: indices): far larger than any cache, and well inside the first-level one.
BANDWIDTH_BYTES = 256 << 20
LARGE_CYCLE = 8 << 20
SMALL_CYCLE = 4 << 10
STEPS = 1 << 21


def _cpu(fn, *args, **kwargs) -> float:
    t = time.process_time()
    fn(*args, **kwargs)
    return time.process_time() - t


def cycle(n: int) -> array:
    """Indices 0..n-1 (n a power of two) in which following ``i = c[i]`` from any index visits
    every index once before it returns: the successor of i is (a * i + 1) mod n, a full-period
    linear congruential step (the increment is odd and a - 1 is a multiple of 4), whose
    successive indices are far apart, so no hardware prefetcher can follow them."""
    if n < 4 or n & (n - 1):
        raise ValueError(f"cycle: n must be a power of two >= 4, not {n}")
    a, mask = 0x5851F42D4C957F2D, n - 1  # a % 4 == 1
    return array("q", ((a * i + 1) & mask for i in range(n)))


def walk(c: array, steps: int) -> int:
    """Follow the cycle from 0 for ``steps`` steps; the index reached."""
    i = 0
    for _ in range(steps):
        i = c[i]
    return i


def machine(rounds: int) -> dict[str, float]:
    """Read and copy bandwidth (bytes per second) and the latency of a dependent read that misses
    every cache (seconds), best of ``rounds``."""
    src = b"\0" * BANDWIDTH_BYTES  # written, so every page is a page of its own
    dst = memoryview(bytearray(b"\1" * BANDWIDTH_BYTES))  # a memoryview's slice assignment is one memcpy
    large, small = cycle(LARGE_CYCLE), cycle(SMALL_CYCLE)
    reads, copies, latencies = [], [], []
    for _ in range(rounds):
        reads.append(_cpu(src.find, b"\1"))
        copies.append(_cpu(dst.__setitem__, slice(None), src))
        latencies.append((_cpu(walk, large, STEPS) - _cpu(walk, small, STEPS)) / STEPS)
    return {
        "read": BANDWIDTH_BYTES / min(reads),
        "copy": BANDWIDTH_BYTES / min(copies),
        "latency": statistics.median(latencies),
    }


def ceilings(rows: list, distance: list, texts: dict[str, str], rounds: int) -> None:
    """The machine's ceilings into ``rows`` and lbpe's distance from them into ``distance``."""
    m = machine(rounds)
    rows.append(("read bandwidth", f"{m['read'] / 1e9:.1f} GB/s", "memchr over 256 MB"))
    rows.append(("copy bandwidth", f"{m['copy'] / 1e9:.1f} GB/s", "memcpy of 256 MB (read and write)"))
    rows.append(("memory latency", f"{m['latency'] * 1e9:.0f} ns", "dependent reads over 64 MB, less over 32 KB"))
    native.use(PATHS[0])
    for vocab in ("cl100k_base", "o200k_base"):
        tok = load_preset(vocab)
        for mode in lbpe.MODES:
            tok.encode(WARM_UP, mode=mode)
        for label, text in texts.items():
            pieces = len(tok.pieces(text))
            for mode in lbpe.MODES:
                times: dict[str, list[float]] = {"cold": [], "warm": []}
                for _ in range(rounds):
                    tok.clear_cache()
                    for cache in ("cold", "warm"):
                        times[cache].append(_cpu(tok.encode, text, mode=mode, disallowed_special=()))
                for cache, seconds in times.items():
                    best = min(seconds)
                    share = len(text.encode()) / best / m["read"]
                    distance.append(
                        (
                            vocab,
                            label,
                            f"lbpe {mode} ({PATHS[0]})",
                            cache,
                            mbps(text, best),
                            f"{share:.1%}",
                            f"{best / pieces / m['latency']:.2f}",
                        )
                    )
