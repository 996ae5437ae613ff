"""What a fresh process costs: seconds from the file to the first encoding, and peak memory."""

from __future__ import annotations

import subprocess
import sys

import lbpe
from bench.common import DATA, PATHS, ROOT, WARM_UP, tiktoken_encoding


def load_times(rows: list, rounds: int) -> None:
    """Seconds from a vocabulary file to the first encoding (a short ASCII text), in a fresh
    process each time; then the seconds the first non-ASCII text adds (lbpe builds its cut
    finder and compiles the full pre-tokeniser pattern only when such text first arrives)."""
    probe = (
        "import sys, time\n"
        "t = time.perf_counter()\n"
        "if sys.argv[1] == 'tiktoken':\n"
        "    import os, tiktoken\n"
        "    os.environ['TIKTOKEN_CACHE_DIR'] = sys.argv[3]\n"
        "    enc = tiktoken.get_encoding(sys.argv[2])\n"
        "    encode = enc.encode_ordinary\n"
        "else:\n"
        "    sys.path.insert(0, sys.argv[3])\n"
        "    import lbpe\n"
        "    lbpe.native.use(sys.argv[5])\n"
        "    from lbpe.presets import load_preset\n"
        "    tok = load_preset(sys.argv[2])\n"
        "    encode = lambda text: tok.encode(text, mode=sys.argv[1])\n"
        "encode('hello world')\n"
        "t1 = time.perf_counter()\n"
        "encode(sys.argv[4])\n"
        "print(t1 - t, time.perf_counter() - t1)\n"
    )
    for vocab in ("cl100k_base", "o200k_base"):
        tiktoken_encoding(vocab)  # seeds the offline cache
        encoders = [("tiktoken", "-")] + [(m, p) for m in lbpe.MODES for p in PATHS]
        first: dict[tuple[str, str], list[float]] = {e: [] for e in encoders}
        then: dict[tuple[str, str], list[float]] = {e: [] for e in encoders}
        # each round runs every encoder once, so a slow spell of the shared machine falls on all
        for _ in range(rounds):
            for which, path in encoders:
                extra = str(DATA / "_tiktoken_cache") if which == "tiktoken" else str(ROOT)
                out = subprocess.run(
                    [sys.executable, "-c", probe, which, vocab, extra, WARM_UP, path],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                a, b = map(float, out.stdout.split())
                first[which, path].append(a)
                then[which, path].append(b)
        for which, path in encoders:
            label = "tiktoken" if which == "tiktoken" else f"lbpe {which} ({path})"
            rows.append((vocab, label, f"{min(first[which, path]):.2f}s", f"+{min(then[which, path]):.2f}s"))


_RSS_PROBE = r"""
import sys
which, path, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(path, encoding="utf-8").read()
text = (text * (size // len(text) + 1))[:size]
if which == "tiktoken":
    import os
    os.environ["TIKTOKEN_CACHE_DIR"] = sys.argv[4]
    import tiktoken
    enc = tiktoken.get_encoding("o200k_base")
    enc.encode_ordinary(text)
else:
    sys.path.insert(0, sys.argv[4])
    import lbpe
    from lbpe.presets import load_preset
    lbpe.native.use(sys.argv[5])
    load_preset("o200k_base").encode(text, mode=which, disallowed_special=())
# VmHWM: this process's own peak (ru_maxrss would carry the forking parent's peak over exec)
print(next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")))
"""


def memory(rows: list, size: int) -> None:
    tiktoken_encoding("o200k_base")  # seeds the offline cache
    english = DATA / "text" / "sotu.txt"
    peak = {}
    for which, path in [("tiktoken", "-")] + [(m, p) for m in lbpe.MODES for p in PATHS]:
        extra = str(DATA / "_tiktoken_cache") if which == "tiktoken" else str(ROOT)
        out = subprocess.run(
            [sys.executable, "-c", _RSS_PROBE, which, str(english), str(size), extra, path],
            capture_output=True,
            text=True,
            check=True,
        )
        label = "tiktoken" if which == "tiktoken" else f"lbpe {which} ({path})"
        peak[label] = int(out.stdout.strip()) / 1024
    for label, mb in peak.items():
        rows.append(("o200k_base", f"load + encode {size >> 20} MB", label, f"{mb:.0f} MB", mb / peak["tiktoken"]))
