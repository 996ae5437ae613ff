"""Load: the playground (``python app.py``) driven by 50 concurrent gradio_client sessions x 10
``/compare`` requests of mixed sizes and vocabularies. No request may fail; p50/p95 latency is
printed (not asserted: it depends on the machine); the server's memory must stay bounded: the
second half of the requests may not grow its resident set by more than a small margin over the
first half (piece caches are capped, sessions hold no per-request data).

``LBPE_LOAD_CLIENTS`` / ``LBPE_LOAD_REQUESTS`` change the 50 x 10.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path

import pytest
from gradio_client import Client

import lbpe
from lbpe.presets import load_preset
from tests.support.app import running_server

pytestmark = pytest.mark.slow(reason="fifty concurrent sessions against a server")

CLIENTS = int(os.environ.get("LBPE_LOAD_CLIENTS", "50"))
REQUESTS = int(os.environ.get("LBPE_LOAD_REQUESTS", "10"))
VOCABS = ["lbpe-32k", "gpt2", "cl100k_base", "o200k_base"]
#: Seconds a client waits for any one HTTP exchange. gradio_client's own default for some of them
#: is httpx's 5 s, which fifty sessions joining the queue at once on a busy 2-core machine can
#: exceed: that would assert a latency, which this test prints instead.
CLIENT_TIMEOUT = 120
WORDS = (
    "tokenization matters naïve café 日本語 🙂 the of and counterrevolutionary misunderstanding "
    'Internationalization code(x) {"k": [1, 2, 3]} 12345 ... ümlaut Ελληνικά русский'
).split()


def _text(rng: random.Random, size: int) -> str:
    out, n = [], 0
    while n < size:
        w = rng.choice(WORDS)
        out.append(w)
        n += len(w) + 1
    return " ".join(out)[:size]


def _sizes(rng: random.Random) -> int:
    """Mostly short texts, some paragraphs, a few pages (the app allows 50,000 characters)."""
    r = rng.random()
    if r < 0.6:
        return rng.randint(1, 200)
    if r < 0.9:
        return rng.randint(200, 3000)
    return rng.randint(3000, 20000)


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def _clients(url: str) -> list[Client]:
    """CLIENTS sessions, connected in parallel."""
    clients: list[Client | None] = [None] * CLIENTS

    def connect(k: int) -> None:
        clients[k] = Client(url, verbose=False, httpx_kwargs={"timeout": CLIENT_TIMEOUT})

    threads = [threading.Thread(target=connect, args=(k,)) for k in range(CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert all(c is not None for c in clients), "a client could not connect"
    return clients  # type: ignore[return-value]


def _round(clients: list[Client], first: int, count: int, latencies: list[float], errors: list[str]) -> None:
    """Every session in parallel makes requests ``first .. first + count - 1``, one after another."""

    def session(k: int) -> None:
        for r in range(first, first + count):
            rng = random.Random(k * 1000 + r)
            text, vocab = _text(rng, _sizes(rng)), rng.choice(VOCABS)
            t0 = time.perf_counter()
            try:
                details = clients[k].predict(text, vocab, True, False, api_name="/compare")[5]
            except Exception as exc:  # noqa: BLE001 - every failure is reported
                errors.append(f"client {k} request {r} ({vocab}, {len(text)} chars): {exc!r}"[:300])
                continue
            latencies.append(time.perf_counter() - t0)
            if r % 7 == 0:  # spot-check the answer against the library
                want = load_preset(vocab).encode(text, mode="lbpe", disallowed_special=())
                if details["lbpe"]["ids"] != want:
                    errors.append(f"client {k} request {r}: wrong ids for {vocab}")

    threads = [threading.Thread(target=session, args=(k,)) for k in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not any(t.is_alive() for t in threads), "a client did not finish within 10 minutes"


def test_fifty_concurrent_sessions(tmp_path_factory):
    for name in VOCABS:
        load_preset(name)  # the spot checks compare with these
    cache = tmp_path_factory.mktemp("gradio-cache")
    env = {"GRADIO_TEMP_DIR": str(cache)}
    with running_server([sys.executable, "app.py", "--host", "127.0.0.1", "--port", "{port}"], env=env) as server:
        warm = Client(server.url, verbose=False, httpx_kwargs={"timeout": CLIENT_TIMEOUT})
        for name in VOCABS:  # load every preset once, so the rounds measure serving, not loading
            warm.predict("warm up", name, True, False, api_name="/compare")
        rss0 = _rss_kib(server.proc.pid)
        clients = _clients(server.url)
        report, rss, everything = [], [], []
        half = REQUESTS // 2
        for first, count in ((0, half), (half, REQUESTS - half)):  # each session: 10 requests in all
            latencies: list[float] = []
            errors: list[str] = []
            t0 = time.perf_counter()
            _round(clients, first, count, latencies, errors)
            wall = time.perf_counter() - t0
            assert not errors, f"{len(errors)} failed requests, e.g.:\n" + "\n".join(errors[:10]) + "\n" + server.tail()
            assert len(latencies) == CLIENTS * count
            rss.append(_rss_kib(server.proc.pid))
            report.append(
                f"requests {first + 1}-{first + count} of each session: {len(latencies)} in {wall:.1f} s; "
                f"server RSS {rss[-1] / 1024:.0f} MiB"
            )
            everything += latencies
        assert server.proc.poll() is None, "the server died under load"
    q = statistics.quantiles(everything, n=20)
    print(
        f"\n{CLIENTS} concurrent sessions x {REQUESTS} /compare requests: {len(everything)} requests, 0 errors; "
        f"latency p50 {statistics.median(everything):.3f} s, p95 {q[18]:.3f} s, max {max(everything):.3f} s "
        f"(server RSS after warm-up {rss0 / 1024:.0f} MiB)"
    )
    print("\n".join(report))
    # bounded memory: the second half (same mix, other texts) adds little on top of the first
    assert rss[1] <= rss[0] * 1.15 + 64 * 1024, f"server memory grew from {rss[0]} KiB to {rss[1]} KiB"
    assert rss[1] < 4 * 1024 * 1024, f"server RSS {rss[1]} KiB"
    assert lbpe.MODES  # (the library the spot checks use)
