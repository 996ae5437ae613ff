"""Load on a real playground server: N clients x M compares, latency and the server's memory.

    python -m bench.load [--clients 20] [--compares 25] [--idle 600] [--rounds 1]
                         [--sizes 1000,5000,20000] [--vocab NAME] [--env KEY=VALUE ...]
    python -m bench --only load          # the same, with the defaults

Starts ``lbpe serve`` (this checkout's lbpe, a fresh process on a free port of 127.0.0.1, offline),
then each round opens ``--clients`` ``gradio_client`` clients (one session each, as one browser
tab), which call the Compare API ``--compares`` times each, all at once, on slices of real text
of ``--sizes`` characters (each call a different slice; the data cache of
``scripts/fetch_data.py``). The clients close (as a tab does), and the server idles ``--idle``
seconds. Reported: compare latency (p50, p95, max, over every call of the round), errors, and
the server's resident memory (RSS, with its child processes; read from ``/proc``, so Linux
only) at start, right after the round, and after the idle time, plus its peak.

The playground's memory settings are the server's environment: ``--env
LBPE_APP_SESSION_TTL=60`` makes an idle session expire after a minute, so a short ``--idle``
shows what a long one would. This is a benchmark: it asserts nothing (the reliability tests
check the bounds).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))  # fetch_data: where the registry data is cached

import fetch_data  # noqa: E402

#: The server's environment: offline, no analytics (as the tests run it).
OFFLINE = {
    "GRADIO_ANALYTICS_ENABLED": "False",
    "HF_HUB_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "NO_PROXY": "127.0.0.1,localhost",
}
#: Seconds the server may take to answer its first request.
STARTUP_SECONDS = 180
MIB = 1 << 20


def rss_bytes(pid: int) -> int:
    """Resident memory of process ``pid`` and all its descendants (``/proc``), in bytes."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
    return total


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A running ``lbpe serve``: its address, process and output file."""

    url: str
    proc: subprocess.Popen
    log: Path

    def rss(self) -> int:
        return rss_bytes(self.proc.pid)

    def tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text("utf-8", "replace").splitlines()[-lines:])
        except OSError:
            return "(no output)"


@contextlib.contextmanager
def serve(env: dict[str, str] | None = None, *, root: Path = ROOT) -> Iterator[Server]:
    """Run ``python -m lbpe serve`` of ``root``'s lbpe on a free port of 127.0.0.1 with ``env``
    added to the environment; stopped (by its pid) on leaving."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}/"
    handle, name = tempfile.mkstemp(prefix="lbpe-load-", suffix=".log")
    os.close(handle)
    log = Path(name)
    full = {**os.environ, **OFFLINE, "PYTHONPATH": str(root), **(env or {})}
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "lbpe", "serve", "--host", "127.0.0.1", "--port", str(port)],
            cwd=root,
            env=full,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    server = Server(url, proc, log)
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"lbpe serve exited with {proc.returncode}:\n{server.tail()}")
            try:
                with urllib.request.urlopen(url + "config", timeout=5) as r:
                    if r.status == 200:
                        break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"lbpe serve did not answer on {url} in {STARTUP_SECONDS} s:\n{server.tail()}")
            time.sleep(0.5)
        yield server
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=30)
        log.unlink(missing_ok=True)


def texts(sizes: Sequence[int], count: int, *, offset: int = 0) -> list[str]:
    """``count`` different slices of real text (English prose, code, many languages), of the
    ``sizes`` in turn."""
    data = fetch_data.data_dir() / "text"
    parts = []
    for name in ("moby_dick.txt", "multilingual.txt", "code.txt"):
        path = data / name
        if not path.is_file():
            raise SystemExit(f"{path} is missing: run python scripts/fetch_data.py")
        parts.append(path.read_text("utf-8"))
    source = "\n".join(parts)
    out = []
    for k in range(count):
        size = sizes[k % len(sizes)]
        start = ((offset + k) * 7919) % max(len(source) - size, 1)
        out.append(source[start : start + size])
    return out


@dataclass
class Round:
    """One round of load: every call's latency (seconds) and the errors."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


def drive(url: str, *, clients: int, compares: int, sizes: Sequence[int], vocab: str, offset: int = 0) -> Round:
    """``clients`` gradio_client sessions, each calling Compare ``compares`` times, all at once."""
    from gradio_client import Client

    result, lock = Round(), threading.Lock()
    work = texts(sizes, clients * compares, offset=offset)

    def one(c: int) -> None:
        try:  # a busy server may take a while to hand out its API description
            client = Client(url, verbose=False, httpx_kwargs={"timeout": 300})
        except Exception as exc:  # noqa: BLE001 - each compare of this client counts as failed
            with lock:
                result.errors.extend([f"client: {type(exc).__name__}: {str(exc)[:200]}"] * compares)
            return
        try:
            for j in range(compares):
                text = work[c * compares + j]
                t0 = time.perf_counter()
                try:
                    out = client.predict(text, vocab, True, j % 2 == 1, api_name="/compare")
                    if not (isinstance(out, (list, tuple)) and out[5]["bpe"]["tokens"] > 0):
                        raise RuntimeError(f"unexpected answer: {str(out)[:200]}")
                except Exception as exc:  # noqa: BLE001 - counted and reported, the load goes on
                    with lock:
                        result.errors.append(f"{type(exc).__name__}: {str(exc)[:200]}")
                    continue
                with lock:
                    result.latencies.append(time.perf_counter() - t0)
        finally:
            client.close()

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        list(pool.map(one, range(clients)))
    result.seconds = time.perf_counter() - t0
    return result


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, by the nearest rank."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def _peak(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run(
    *,
    clients: int,
    compares: int,
    idle: float,
    rounds: int = 1,
    sizes: Sequence[int] = (1000, 5000, 20000),
    vocab: str = "mistral-7b",
    env: dict[str, str] | None = None,
    root: Path = ROOT,
    say=print,
) -> list[dict]:
    """Start a server, run ``rounds`` rounds of load, each followed by ``idle`` seconds; one row
    (dict) per round."""
    rows = []
    with serve(env, root=root) as server:
        start = server.rss()
        say(f"server {server.url} pid {server.proc.pid}: {start / MIB:.0f} MB at start")
        for r in range(rounds):
            load = drive(
                server.url, clients=clients, compares=compares, sizes=sizes, vocab=vocab, offset=r * clients * compares
            )
            time.sleep(1)
            after = server.rss()
            say(f"round {r + 1}: {len(load.latencies)} compares in {load.seconds:.0f} s, {after / MIB:.0f} MB")
            waited = 0.0
            while waited < idle:
                step = min(30.0, idle - waited)
                time.sleep(step)
                waited += step
                say(f"  idle {waited:.0f} s: {server.rss() / MIB:.0f} MB")
            rows.append(
                {
                    "round": r + 1,
                    "clients": clients,
                    "compares": compares,
                    "errors": len(load.errors),
                    "first_error": load.errors[0] if load.errors else "",
                    "p50": percentile(load.latencies, 0.5),
                    "p95": percentile(load.latencies, 0.95),
                    "max": max(load.latencies, default=float("nan")),
                    "seconds": load.seconds,
                    "rss_start": start,
                    "rss_after": after,
                    "rss_idle": server.rss(),
                    "idle": idle,
                    "peak": _peak(server.proc.pid),
                }
            )
    return rows


def table(rows: list[dict]) -> str:
    """The rows as a markdown table."""
    head = (
        "| round | clients x compares | errors | p50 | p95 | max | RSS start | RSS after | RSS after idle | "
        "x start | peak RSS |\n|---|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"| {r['round']} | {r['clients']} x {r['compares']} | {r['errors']} | {r['p50']:.2f} s | "
            f"{r['p95']:.2f} s | {r['max']:.2f} s | {r['rss_start'] / MIB:,.0f} MB | {r['rss_after'] / MIB:,.0f} MB | "
            f"{r['rss_idle'] / MIB:,.0f} MB ({r['idle']:g} s) | {r['rss_idle'] / r['rss_start']:.2f} | "
            f"{r['peak'] / MIB:,.0f} MB |"
        )
    errors = [r["first_error"] for r in rows if r["first_error"]]
    return "\n".join(lines) + ("\n\nfirst error: " + errors[0] if errors else "")


def _env_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--env wants KEY=VALUE, not {text!r}")
    return key, value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20, help="sessions at once (default 20)")
    parser.add_argument("--compares", type=int, default=25, help="Compare calls per client (default 25)")
    parser.add_argument("--idle", type=float, default=600, help="seconds idle after each round (default 600)")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of load, new clients each (default 1)")
    parser.add_argument(
        "--sizes", default="1000,5000,20000", help="text sizes in characters, taken in turn (default 1000,5000,20000)"
    )
    parser.add_argument("--vocab", default="mistral-7b", help="the vocabulary compared with (default mistral-7b)")
    parser.add_argument("--env", type=_env_pair, action="append", default=[], help="KEY=VALUE for the server")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose lbpe serves (default: this one)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    rows = run(
        clients=args.clients,
        compares=args.compares,
        idle=args.idle,
        rounds=args.rounds,
        sizes=sizes,
        vocab=args.vocab,
        env=dict(args.env),
        root=args.root.resolve(),
    )
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
