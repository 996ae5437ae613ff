"""An export is never wrong: one writer per folder, kept shards checked on resume, workers that
end with their parent, and a full disk reported in one line with nothing half-written left."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from lbpe.corpus.shards import INDEX_NAME, LOCK_NAME, ShardDataset, export_shards
from lbpe.errors import LbpeError
from lbpe.presets import load_preset
from tests.support.cli import CLI, Stop, run_cli
from tests.support.data import data_file


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


def holder(out: Path) -> dict | None:
    try:
        return json.loads((out / LOCK_NAME).read_text())
    except (OSError, ValueError):
        return None


@pytest.mark.slow(reason="exports 24,000 documents")
def test_a_second_writer_fails_at_once_and_the_export_stays_right(tmp_path):
    """Two --resume runs into one folder, one --mode lbpe and one --mode bpe, then a third:
    the second stops at once naming the first; the folder ends holding the first's ids."""
    docs = paragraphs(6000) * 4
    path = jsonl(tmp_path / "big.jsonl", docs)
    out = tmp_path / "out"
    first = subprocess.Popen(
        [*CLI, *export_args(out, path, "--resume", "--num-proc", "1")], stderr=subprocess.PIPE, text=True
    )
    try:
        wait_for(lambda: holder(out) is not None)
        # Freeze the first while it holds the lock, so the second meets it on any machine
        # (unfrozen, a fast machine may finish the first before the second starts).
        os.kill(first.pid, signal.SIGSTOP)
        try:
            started = time.monotonic()
            second = run_cli(*export_args(out, path, "--resume", "--num-proc", "1", mode="bpe"), timeout=60)
        finally:
            os.kill(first.pid, signal.SIGCONT)
        assert time.monotonic() - started < 20
        assert second.returncode == 2 and "Traceback" not in second.stderr
        assert f"is being written by another export (process {first.pid} on " in second.stderr
        assert "export --vocab lbpe-32k --mode lbpe" in second.stderr
    finally:
        assert first.wait(timeout=600) == 0, first.stderr.read()
    third = run_cli(*export_args(out, path, "--resume"), timeout=600)
    assert third.returncode == 0, third.stderr
    assert documents(out) == encoded(load_preset("lbpe-32k"), docs, "lbpe")


@pytest.mark.parametrize("fmt", ["npy", "llmc"])
def test_resume_checks_every_kept_shard_and_redoes_a_damaged_one(tmp_path, fmt):
    tok = load_preset("gpt2")
    docs = paragraphs(800)
    path = jsonl(tmp_path / "a.jsonl", docs)
    out = tmp_path / "out"
    options = dict(mode="bpe", format=fmt, shard_tokens=5_000)
    if fmt == "llmc":
        options["eos"] = "<|endoftext|>"  # llm.c's shards part documents with it
    with pytest.raises(KeyboardInterrupt):
        export_shards(tok, [path], out, progress=Stop(400), **options)
    index = json.loads((out / INDEX_NAME).read_text())
    assert len(index["shards"]) >= 4 and not index["complete"]
    damaged = out / index["shards"][1]["tokens_file"]
    data = bytearray(damaged.read_bytes())
    data[-2:] = b"\x01\x02"  # the same size, other ids: only the checksum tells
    damaged.write_bytes(bytes(data))
    said: list[str] = []
    index = export_shards(tok, [path], out, resume=True, warn=said.append, **options)
    assert index["complete"] and len(said) == 1
    assert f"{damaged.name}: its SHA-256 differs from the index's" in said[0] and "redoing" in said[0]
    if fmt == "npy":
        assert documents(out) == encoded(tok, docs, "bpe")
    # a complete export: a shard cut short is found and redone too
    last = out / index["shards"][-1]["tokens_file"]
    last.write_bytes(last.read_bytes()[:-10])
    said.clear()
    index = export_shards(tok, [path], out, resume=True, warn=said.append, **options)
    assert (
        index["complete"] and len(said) == 1 and f"{last.name}: " in said[0] and "bytes, the index recorded" in said[0]
    )
    fresh = export_shards(tok, [path], tmp_path / "fresh", **options)
    assert fresh["shards"] == index["shards"]
    for shard in fresh["shards"]:
        for name in shard["files"]:
            assert (out / name).read_bytes() == (tmp_path / "fresh" / name).read_bytes()


def same_as_fresh(out: Path, inputs: list[Path], fresh: Path, **options) -> bool:
    """Whether ``out`` holds what a fresh export of the inputs as they are now writes: the same
    index (shards, counts, digests) and the same bytes in every file."""
    index = export_shards(load_preset("gpt2"), inputs, fresh, **options)
    ours = json.loads((out / INDEX_NAME).read_text())
    keys = ("shards", "val_shards", "records", "documents", "tokens", "files", "complete", "inputs_sha256")
    if any(ours.get(k) != index.get(k) for k in keys):
        return False
    names = sorted(n for s in index["shards"] + index["val_shards"] for n in s["files"])
    return all((out / n).read_bytes() == (fresh / n).read_bytes() for n in names)


def complete_shards(out: Path) -> int:
    index = json.loads((out / INDEX_NAME).read_text())
    return sum(1 for s in index["shards"] + index["val_shards"] if not s.get("partial"))


def test_resume_redoes_the_shards_whose_documents_changed(tmp_path):
    """A resume after an input was edited: the kept shards made of documents that are no longer
    there are redone (the folder ends as a fresh export of the inputs as they are now), and
    the person is told; a fix after the kept shards (a bad line) redoes nothing."""
    tok = load_preset("gpt2")
    docs = paragraphs(800)
    path = jsonl(tmp_path / "a.jsonl", docs)
    out = tmp_path / "out"
    options = dict(mode="bpe", shard_tokens=5_000)
    with pytest.raises(KeyboardInterrupt):
        export_shards(tok, [path], out, progress=Stop(400), **options)
    shards = json.loads((out / INDEX_NAME).read_text())["shards"]
    kept = complete_shards(out)
    assert kept >= 4
    # a document in the third shard rewritten (the same number of records: only their
    # contents tell)
    ends = [s["records"] for s in shards]
    edited = list(docs)
    edited[ends[1] + 2] = "This paragraph was rewritten after the export began."
    said: list[str] = []
    jsonl(path, edited)
    checked: list[tuple[int, int]] = []
    export_shards(tok, [path], out, resume=True, warn=said.append, checking=lambda *a: checked.append(a), **options)
    size = path.stat().st_size
    assert len(checked) >= 2 and all(total == size for _, total in checked[:-1]), (checked, size)
    assert [done for done, _ in checked] == sorted(done for done, _ in checked) and 0 < checked[-1][0] <= size
    assert checked[-1][0] == checked[-1][1]  # the phase ends full, however little of the inputs it read
    assert len(said) == 1, said
    assert f"records {ends[1] + 1:,} to {ends[2]:,} (from {path}) changed since its shards were written" in said[0]
    assert f"redoing {kept - 2} shard(s) from the first that differs" in said[0], said[0]
    assert documents(out) == encoded(tok, edited, "bpe")
    assert same_as_fresh(out, [path], tmp_path / "fresh", **options)

    # a complete export: its last document edited, its last shard redone
    edited[-1] += " And one sentence more."
    jsonl(path, edited)
    said.clear()
    index = export_shards(tok, [path], out, resume=True, warn=said.append, **options)
    assert len(said) == 1 and "redoing 1 shard(s)" in said[0], said
    assert index["complete"] and same_as_fresh(out, [path], tmp_path / "fresh2", **options)
    # documents added to it: its last shard (closed short) redone, and the export goes on
    edited += paragraphs(820)[800:]
    jsonl(path, edited)
    said.clear()
    export_shards(tok, [path], out, resume=True, warn=said.append, **options)
    assert len(said) == 1 and "the inputs hold 20 record(s) more than when the export completed" in said[0], said
    assert same_as_fresh(out, [path], tmp_path / "fresh3", **options)
    # the last 30 taken away, and a blank line left at the end: redone once, then nothing to do
    del edited[-30:]
    path.write_text("".join(json.dumps({"text": d}) + "\n" for d in edited) + "\n", encoding="utf-8")
    said.clear()
    export_shards(tok, [path], out, resume=True, warn=said.append, **options)
    assert len(said) == 1 and f"the inputs now hold {len(edited)} records, fewer than" in said[0], said
    assert same_as_fresh(out, [path], tmp_path / "fresh4", **options)
    said.clear()
    export_shards(tok, [path], out, resume=True, warn=said.append, **options)
    assert said == []

    # the documented flow: a bad document stops the export, the person fixes it and resumes
    del edited[3]
    bad = ends[1] + 40
    path.write_text(
        "".join(json.dumps({"text": d}) + "\n" if k != bad else '{"body": 1}\n' for k, d in enumerate(edited)),
        encoding="utf-8",
    )
    out2 = tmp_path / "out2"
    with pytest.raises(LbpeError, match="fix it and rerun with --resume"):
        export_shards(tok, [path], out2, **options)
    kept = json.loads((out2 / INDEX_NAME).read_text())["shards"]
    kept_files = {n: (out2 / n).stat().st_mtime_ns for s in kept if not s.get("partial") for n in s["files"]}
    assert kept_files
    jsonl(path, edited)
    said.clear()
    export_shards(tok, [path], out2, resume=True, warn=said.append, **options)
    assert said == []
    assert documents(out2) == encoded(tok, edited, "bpe")
    assert all((out2 / n).stat().st_mtime_ns == t for n, t in kept_files.items())  # not redone


def test_shards_without_a_digest_are_resumed_and_checked_by_later_ones(tmp_path):
    """Shards an earlier lbpe wrote record no digest: resumed with a warning; and when shards
    with one follow them, a document edited in the old ones is still found, from the start."""
    tok = load_preset("gpt2")
    docs = paragraphs(800)
    path = jsonl(tmp_path / "a.jsonl", docs)
    out = tmp_path / "out"
    options = dict(mode="bpe", shard_tokens=5_000, val_fraction=0.1)
    with pytest.raises(KeyboardInterrupt):
        export_shards(tok, [path], out, progress=Stop(250), **options)
    index = json.loads((out / INDEX_NAME).read_text())
    old = [s for s in index["shards"] + index["val_shards"] if not s.get("partial")]
    assert len(old) >= 2
    for s in old:
        del s["inputs_sha256"]
    (out / INDEX_NAME).write_text(json.dumps(index))
    said: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        export_shards(tok, [path], out, resume=True, warn=said.append, progress=Stop(150), **options)
    assert len(said) == 1 and "some of its shards record no digest of their documents" in said[0], said
    assert complete_shards(out) > len(old)
    edited = list(docs)
    edited[10] = "An edit in the first shard, which records no digest."
    jsonl(path, edited)
    said.clear()
    export_shards(tok, [path], out, resume=True, warn=said.append, **options)
    assert len(said) == 2 and "record no digest" in said[0], said
    assert "records 1 to " in said[1] and "changed since its shards were written" in said[1], said
    assert same_as_fresh(out, [path], tmp_path / "fresh", **options)


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            found |= {int(c) for c in f.read().split()}
    return found


@pytest.mark.slow(reason="an export killed, then resumed")
def test_workers_end_when_the_export_is_killed(tmp_path):
    docs = paragraphs(6000) * 6
    path = jsonl(tmp_path / "big.jsonl", docs)
    out = tmp_path / "out"
    proc = subprocess.Popen([*CLI, *export_args(out, path, "--num-proc", "2")], stderr=subprocess.PIPE)
    try:
        # a shard recorded in the index (killed between a shard and its index, there is nothing
        # to resume: test_resume_without_an_index_says_there_is_nothing_to_resume)
        wait_for(lambda: len(children(proc.pid)) >= 2 and (out / INDEX_NAME).is_file())
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


def test_resume_without_an_index_says_there_is_nothing_to_resume(tmp_path):
    """An export killed after writing its first shard and before recording it in the index: the
    message must not tell a person who passed --resume to pass --resume."""
    path = jsonl(tmp_path / "docs.jsonl", paragraphs(50))
    out = tmp_path / "out"
    out.mkdir()
    (out / "tokens-00000.npy").write_bytes(b"half a shard")
    done = run_cli(*export_args(out, path, "--resume"), timeout=120)
    assert done.returncode != 0
    assert f"no {INDEX_NAME}" in done.stderr and "no lbpe export to resume" in done.stderr
    assert "pass --resume" not in done.stderr and "Traceback" not in done.stderr
    assert (out / "tokens-00000.npy").read_bytes() == b"half a shard"  # nothing of the person's is removed


def _file_size_limit(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


@pytest.mark.slow(reason="exports in subprocesses")
@pytest.mark.parametrize("fmt", ["npy", "nanogpt"])
def test_a_full_disk_is_one_line_and_leaves_nothing_half_written(tmp_path, fmt):
    """A full disk simulated with RLIMIT_FSIZE: a write past it fails with EFBIG (Python ignores
    SIGXFSZ), as a write to a full disk fails with ENOSPC; both take the same path."""
    docs = paragraphs(2000)
    path = jsonl(tmp_path / "a.jsonl", docs)
    out = tmp_path / "out"
    # npy: shards of up to 80 KB fail at 60 KB; nanogpt: 8 KB parts fit, joining them into train.bin does not
    shard = "40000" if fmt == "npy" else "4000"
    args = [
        "export",
        "--vocab",
        "gpt2",
        "--mode",
        "bpe",
        "--format",
        fmt,
        "--out",
        str(out),
        "-q",
        "--shard-tokens",
        shard,
        str(path),
    ]
    full = subprocess.run(
        [*CLI, *args], capture_output=True, text=True, preexec_fn=_file_size_limit(60_000), timeout=300
    )
    assert full.returncode == 2 and "Traceback" not in full.stderr
    lines = full.stderr.strip().splitlines()
    assert len(lines) == 1, full.stderr
    assert "size limit" in lines[0] and "--resume" in lines[0] and "nothing half-written is left" in lines[0]
    assert "--shard-tokens" not in lines[0]  # a resume keeps the size its shards were cut to
    assert not list(out.rglob("*.tmp"))
    index = json.loads((out / INDEX_NAME).read_text()) if (out / INDEX_NAME).exists() else None
    assert index is None or not index["complete"]
    assert not (out / "train.bin").exists()  # nothing that looks complete
    done = run_cli(*args, "--resume")
    assert done.returncode == 0, done.stderr
    want = encoded(load_preset("gpt2"), docs, "bpe")
    if fmt == "npy":
        assert documents(out) == want
    else:
        assert np.memmap(out / "train.bin", dtype=np.uint16, mode="r").tolist() == [i for d in want for i in d]
        # the parts fit, train.bin did not: a smaller shard would not help, a higher limit would
        assert "lower --shard-tokens" not in lines[0]
        assert f"raise the limit above {(out / 'train.bin').stat().st_size:,} bytes" in lines[0]


#: An export onto a small disk of its own (tmpfs, in a mount namespace of its own: nothing is
#: mounted outside it), then the disk grown by the room the message asked for, then --resume.
#: Arguments: the disk's size, the folder to mount it on, then the export's command.
_ON_A_SMALL_DISK = r"""
set -u
size=$1 disk=$2
shift 2
mkdir -p "$disk"
mount -t tmpfs -o size="$size" tmpfs "$disk"
"$@" 2> "$disk.first"
echo $? > "$disk.first_rc"
more=$(sed -n 's/.* free \(at least \)\?\([0-9,]*\) more .*/\2/p' "$disk.first" | tr -d ,)
if [ -n "$more" ]; then
  mount -o remount,size=$(( $(df -B1 --output=size "$disk" | tail -1) + more )) "$disk"
  "$@" --resume 2> "$disk.second"
  echo $? > "$disk.second_rc"
  ls "$disk/out" > "$disk.listed"
fi
umount "$disk"
"""


def _can_mount_a_disk() -> bool:
    """Whether this machine lets a process mount a tmpfs in a namespace of its own (containers
    with a strict seccomp or AppArmor profile do not)."""
    try:
        return subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.slow(reason="exports in subprocesses")
@pytest.mark.skipif(not _can_mount_a_disk(), reason="this machine lets no process mount a disk of its own")
@pytest.mark.parametrize("fmt", ["nanogpt", "npy"])
def test_a_full_disk_asks_for_room_that_lets_the_export_go_on(tmp_path, fmt):
    """A real full disk (ENOSPC, a tmpfs): the message asks for more room than there is, and
    the room it names is enough to go on. nanoGPT's parts fit and joining them into train.bin
    does not: the room asked is train.bin's, and with it the resume completes. npy: the room for
    the next shard, and with it more shards are written."""
    docs = paragraphs(2000)
    path = jsonl(tmp_path / "a.jsonl", docs)
    disk = tmp_path / "disk"
    export = [*CLI, "export", "--vocab", "gpt2", "--mode", "bpe", "--format", fmt, "--out", str(disk / "out")]
    export += ["-q", "--shard-tokens", "4000", str(path)]
    size = "600k" if fmt == "nanogpt" else "300k"
    ran = subprocess.run(
        ["unshare", "-rm", "bash", "-c", _ON_A_SMALL_DISK, "bash", size, str(disk), *export],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr
    first = (tmp_path / "disk.first").read_text()
    assert (tmp_path / "disk.first_rc").read_text().strip() == "2" and "Traceback" not in first
    assert first.count("\n") == 1 and "No space left on device" in first and "--resume" in first, first
    assert (tmp_path / "disk.second_rc").exists(), f"no room was asked for: {first}"
    second = (tmp_path / "disk.second").read_text()
    if fmt == "nanogpt":
        joined = 2 * sum(len(ids) for ids in encoded(load_preset("gpt2"), docs, "bpe"))  # train.bin's uint16 ids
        assert f"complete shards into train.bin needs {joined:,} bytes free" in first, first  # no val split
        assert (tmp_path / "disk.second_rc").read_text().strip() == "0", second
        assert "train.bin" in (tmp_path / "disk.listed").read_text().split()
    else:
        assert "for the next shard" in first
        kept = [int(line.split("; the ")[1].split()[0]) for line in (first, second)]
        assert kept[1] > kept[0], (first, second)


def test_a_damaged_gzip_input_is_named_not_a_traceback(tmp_path):
    """Deflate data damaged inside a .gz (zlib.error, which is no OSError) escaped as a traceback
    from a fresh export, a resume's check of the inputs, a Ray worker's reading and stats."""
    import gzip

    from lbpe.corpus.documents import iter_records, records_of_bytes

    tok = load_preset("gpt2")
    docs = paragraphs(2000)
    good = gzip.compress("".join(json.dumps({"text": d}) + "\n" for d in docs).encode(), mtime=0)
    path = tmp_path / "a.jsonl.gz"
    path.write_bytes(good)
    out = tmp_path / "out"
    options = dict(mode="bpe", shard_tokens=5_000)
    with pytest.raises(KeyboardInterrupt):
        export_shards(tok, [path], out, progress=Stop(3), **options)
    # a second gzip member whose first deflate block has the reserved type 3
    damaged = good + bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF, 0x07])
    path.write_bytes(damaged)
    with pytest.raises(gzip.zlib.error, match="invalid block type"):  # what Python's gzip raises for it
        gzip.decompress(damaged)
    text = tmp_path / "b.txt.gz"
    text.write_bytes(damaged)
    for run in {
        "resume": lambda: export_shards(tok, [path], out, resume=True, **options),
        "fresh export": lambda: export_shards(tok, [path], tmp_path / "fresh", **options),
        "a whole text file": lambda: [list(r.pieces()) for r in iter_records([text])],
        "a Ray worker's bytes": lambda: records_of_bytes(str(path), damaged),
    }.values():
        with pytest.raises(LbpeError, match=r"\.gz: cannot be read \("):
            run()
