"""An export is never wrong: workers that end with their parent."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from lbpe.presets import load_preset
from lbpe.shards import ShardDataset
from tests.conftest import CLI, data_file, run_cli


def paragraphs(n: int) -> list[str]:
    text = data_file("text/moby_dick.txt").read_text("utf-8")
    return [p for p in text.split("\n\n") if p.strip()][:n]


def jsonl(path: Path, docs: list[str]) -> Path:
    path.write_text("".join(json.dumps({"text": d}) + "\n" for d in docs), encoding="utf-8")
    return path


def documents(folder: Path) -> list[list[int]]:
    ds = ShardDataset(folder)
    return [ds[i].tolist() for i in range(len(ds))]


def encoded(tok, docs: list[str], mode: str) -> list[list[int]]:
    return [tok.encode(d, mode=mode, disallowed_special=()) for d in docs]


def export_args(out: Path, path: Path, *more: str, mode: str = "lbpe") -> list[str]:
    return [
        "export",
        "--vocab",
        "lbpe-32k",
        "--mode",
        mode,
        "--out",
        str(out),
        "-q",
        "--shard-tokens",
        "20000",
        *more,
        str(path),
    ]


def wait_for(condition, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.02)


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            found |= {int(c) for c in f.read().split()}
    return found


def test_workers_end_when_the_export_is_killed(tmp_path):
    docs = paragraphs(6000) * 6
    path = jsonl(tmp_path / "big.jsonl", docs)
    out = tmp_path / "out"
    proc = subprocess.Popen([*CLI, *export_args(out, path, "--num-proc", "2")], stderr=subprocess.PIPE)
    try:
        wait_for(lambda: len(children(proc.pid)) >= 2 and list(out.glob("tokens-*.npy")))
        workers = children(proc.pid)
    finally:
        proc.kill()  # kill -9: nothing of the export runs any more
        proc.wait()
    deadline = time.monotonic() + 10
    while any(os.path.exists(f"/proc/{w}") for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)  # they are not ours to reap: wait for them to go
    alive = []
    for w in workers:
        try:
            with open(f"/proc/{w}/stat") as f:
                if f.read().split(")")[-1].split()[0] != "Z":
                    alive.append(w)
        except OSError:
            pass
    for w in alive:
        os.kill(w, signal.SIGKILL)
    assert not alive, f"workers {alive} outlived the killed export"
    done = run_cli(*export_args(out, path, "--resume"), timeout=600)  # the lock went with them
    assert done.returncode == 0, done.stderr
    assert documents(out) == encoded(load_preset("lbpe-32k"), docs, "lbpe")
