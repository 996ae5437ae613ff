"""The export folder: its lock (one writer at a time), the size and SHA-256 of its files, the
files an export may leave there, and the index a resume continues from (every kept shard
checked against it)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from lbpe.corpus.shards.consumed import Consumed
from lbpe.corpus.shards.index import INDEX_NAME, OLD_INDEX_NAME, has_old_index
from lbpe.errors import LbpeError

#: One writer per folder: held with ``fcntl.flock`` while an export writes there.
LOCK_NAME = ".lbpe-export.lock"
SPLITS = ("train", "val")


def _file_digest(path: Path) -> dict:
    h = hashlib.sha256()
    size = 0
    with open(path, "rb") as f:
        while block := f.read(1 << 22):
            h.update(block)
            size += len(block)
    return {"bytes": size, "sha256": h.hexdigest()}


def _file_problem(path: Path, want: dict) -> str | None:
    """Why ``path`` is not the file the index recorded (``None`` when it is)."""
    try:
        size = path.stat().st_size
    except OSError:
        return "missing"
    if size != want["bytes"]:
        return f"{size:,} bytes, the index recorded {want['bytes']:,}"
    if _file_digest(path)["sha256"] != want["sha256"]:
        return "its SHA-256 differs from the index's (the file was changed after it was written)"
    return None


@contextlib.contextmanager
def _folder_lock(out: Path) -> Iterator[None]:
    """Hold ``out``'s lock file for one writer; a second export into ``out`` fails at once,
    naming the process that holds it. (Where ``fcntl`` is missing, as on Windows, no lock.)"""
    try:
        import fcntl
    except ImportError:
        yield
        return
    path = out / LOCK_NAME
    f = open(path, "a+", encoding="utf-8")
    try:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.seek(0)
            try:
                holder = json.loads(f.read())
                who = f"process {holder['pid']} on {holder['host']}: {holder['command']}"
            except (ValueError, KeyError, TypeError):
                who = "another process"
            raise LbpeError(
                f"{out} is being written by another export ({who}); wait for it to end, or export into another folder"
            ) from None
        f.seek(0)
        f.truncate()
        f.write(json.dumps({"pid": os.getpid(), "host": platform.node(), "command": " ".join(sys.argv)}))
        f.flush()
        try:
            yield
        finally:
            f.seek(0)
            f.truncate()  # the file stays (removing it would let a waiting writer lock a stale inode)
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)
    finally:
        f.close()


def _our_files(out: Path) -> list[Path]:
    """Every file an export may have left in ``out`` (and its split subfolders), but its lock."""
    found = [p for p in out.iterdir() if p.is_file() and p.name not in (LOCK_NAME, ".gitkeep")]
    for split in SPLITS:
        if (out / split).is_dir():
            found += [p for p in (out / split).iterdir() if p.is_file() or p.is_dir()]
    return found


#: What a resume must find as the export was begun: each key of the index, named as the person
#: gave it (the command's flag, ``export_shards``' keyword).
_RESUMED_AS_GIVEN = {
    "format": "shard layout (an earlier lbpe's)",
    "container": "--format (format=)",
    "vocab_sha256": "vocabulary (--vocab, tok)",
    "mode": "--mode (mode=)",
    "dtype": "id type (the vocabulary's size)",
    "inputs": "list of inputs",
    "lines": "--lines (lines=)",
    "text_field": "--text-field (text_field=)",
    "eos_id": "--eos (eos=)",
    "bos_id": "--bos (bos=)",
    "val_fraction": "--val-fraction (val_fraction=)",
    "seed": "--seed (seed=)",
    "shuffle": "--shuffle (shuffle=)",
    "shard_tokens": "--shard-tokens (shard_tokens=)",
}


def _same_files(index: dict, header: dict) -> bool:
    """Whether the inputs an index recorded are the inputs given now, however each path is
    spelled (``./a.jsonl``, ``a.jsonl``, its absolute path) and wherever the command runs: by
    the absolute paths the export recorded (an index without them: by the paths as given,
    resolved here). A changed file is caught later, by the checksums of what each shard read."""
    was, now = index.get("input_paths"), header.get("input_paths")
    if not isinstance(was, list):  # an index of an earlier lbpe
        was = index.get("inputs")
        was = (
            [os.path.realpath(a) for a in was]
            if isinstance(was, list) and all(isinstance(a, str) for a in was)
            else None
        )
    return was == now


def _resume_state(
    out: Path,
    header: dict,
    warn: Callable[[str], None],
    consumed: Consumed,
    checking: Callable[[int], None] | None = None,
) -> dict | None:
    """The index to continue from, with every kept shard checked against it: a shard whose
    files differ from what the index recorded (size, SHA-256), or whose documents are no longer
    those of the inputs (``consumed``), is dropped with every shard written after it, and
    ``warn`` says so. ``checking(n)`` is told the bytes of input read meanwhile. ``None`` when
    there is nothing to resume."""
    index_path = out / INDEX_NAME
    if not index_path.is_file():
        if has_old_index(out):
            raise LbpeError(
                f"{out} was written by an earlier lbpe (its {OLD_INDEX_NAME} records no checksums), so it cannot "
                "be resumed safely: export again into an empty folder (ShardDataset still reads the old folder)"
            )
        return None
    try:
        index = json.loads(index_path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise LbpeError(f"{index_path}: cannot be read to resume ({exc}); start again in an empty folder") from None
    for key, what in _RESUMED_AS_GIVEN.items():
        if key == "inputs" and _same_files(index, header):
            continue
        if index.get(key) != header.get(key):
            was, now = index.get(key), header.get(key)
            if key == "vocab_sha256" and index.get("vocab") != header.get("vocab"):  # names, when they tell
                was, now = index.get("vocab"), header.get("vocab")
            raise LbpeError(
                f"{out} was written with another {what} ({was!r:.80}, now {now!r:.80}); resume with the "
                f"options it was written with (its {INDEX_NAME} lists them), or export into an empty folder"
            )
    shards = {"train": index["shards"], "val": index["val_shards"]}
    problems: list[str] = []
    bad_at = None  # the first damaged shard's place in the inputs: it and every later shard are redone
    joined = index["complete"] and header["container"] == "nanogpt"  # its parts are now train.bin / val.bin
    if index["complete"]:
        problems += [f"{n}: {p}" for n, meta in index["files"].items() if (p := _file_problem(out / n, meta))]
        if problems and joined:
            bad_at = 0  # everything is redone
    if not joined:
        for split in SPLITS:
            for shard in shards[split]:
                for name, meta in shard["files"].items():
                    problem = _file_problem(out / name, meta)
                    if problem:
                        problems.append(f"{name}: {problem}")
                        start = shard["records"]
                        bad_at = start if bad_at is None else min(bad_at, start)
    consumed.on_read = checking
    try:
        return _checked(out, index, shards, problems, bad_at, joined, consumed, warn)
    finally:
        consumed.on_read = None


def _checked(
    out: Path,
    index: dict,
    shards: dict[str, list[dict]],
    problems: list[str],
    bad_at: int | None,
    joined: bool,
    consumed: Consumed,
    warn: Callable[[str], None],
) -> dict:
    """:func:`_resume_state` after the files' check: the inputs' check, and the index to go on from."""
    tail = False  # a complete export's records after its last shard differ
    changed = _changed_inputs(shards, bad_at, consumed, lambda message: warn(f"{out}: {message}"))
    if changed is not None:
        problems.append(changed[1])
        bad_at = 0 if joined else changed[0] if bad_at is None else min(bad_at, changed[0])
    elif index["complete"] and not problems and "inputs_sha256" in index:
        # the records after the last shard (bad ones skipped), and any added since
        end = max((s["records"] for split in SPLITS for s in shards[split]), default=0)
        same = consumed.digest_at(index["records"]) == index["inputs_sha256"]
        total = consumed.count()
        if total > index["records"]:
            more = total - index["records"]
            problems.append(f"the inputs hold {more:,} record(s) more than when the export completed")
        elif not same:
            problems.append(
                f"records {end + 1:,} to {index['records']:,} (from {consumed.sources(end + 1, index['records'])}) "
                "changed since the export completed"
            )
        if problems:
            bad_at = 0 if joined else end
            tail = True
    if index["complete"] and not problems:
        return index
    if problems:
        assert bad_at is not None
        redo = sum(1 for split in SPLITS for s in shards[split] if not s.get("partial") and s["records"] >= bad_at)
        if bad_at == 0:
            what = f"redoing all {redo} shard(s)"
        else:
            first = "the last one" if tail else "the first that differs" if changed else "the first damaged one"
            what = f"redoing {redo} shard(s) from {first}"
        warn(f"{out}: {'; '.join(problems[:5])}{' ...' if len(problems) > 5 else ''}: {what}")
    # a shard closed by a stop (Ctrl-C, a bad document) is redone too, so that a resumed export
    # cuts its shards where an uninterrupted one does (the same bytes)
    for split in SPLITS:
        shards[split] = [s for s in shards[split] if not s.get("partial") and (bad_at is None or s["records"] < bad_at)]
    last = max((s for split in SPLITS for s in shards[split]), key=lambda s: s["records"], default=None)
    index["complete"] = False
    index["records"] = last["records"] if last else 0
    index["skipped_documents"] = last["skipped_documents"] if last else 0
    index["skipped_messages"] = index["skipped_messages"][: last["kept_messages"] if last else 0]
    index["shards"], index["val_shards"] = shards["train"], shards["val"]
    keep = {INDEX_NAME} | {n for split in SPLITS for s in shards[split] for n in s["files"]}
    for path in _our_files(out):
        if path.relative_to(out).as_posix() not in keep:
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
    return index


def _changed_inputs(
    shards: dict[str, list[dict]], bad_at: int | None, consumed: Consumed, warn: Callable[[str], None]
) -> tuple[int, str] | None:
    """Where the inputs first differ from what the complete shards before ``bad_at`` were made
    of: ``(records, problem)``, the "records" of the first shard to redo (the first after the
    last one found unchanged) and what to say; or ``None``. Shards that record no digest (an
    earlier lbpe's) are taken as unchanged unless a later digest differs, and ``warn`` says so."""
    by_end: dict[int, dict] = {}
    for split in SPLITS:  # train and val shards closed together share their "records" and digest
        for s in shards[split]:
            if not s.get("partial") and (bad_at is None or s["records"] < bad_at):
                by_end[s["records"]] = s
    unchecked = False
    good = 0  # records through the last shard found unchanged
    found = None
    for records in sorted(by_end):
        if "inputs_sha256" not in by_end[records]:
            unchecked = True
            continue
        digest = consumed.digest_at(records)
        if digest == by_end[records]["inputs_sha256"]:
            good = records
            continue
        if digest.startswith("only "):
            held = consumed.count()
            problem = f"the inputs now hold {held:,} records, fewer than the {records:,} its shards were made of"
        else:
            problem = (
                f"records {good + 1:,} to {records:,} (from {consumed.sources(good + 1, records)}) "
                "changed since its shards were written"
            )
        found = min(r for r in by_end if r > good), problem
        break
    if unchecked:
        warn(
            "some of its shards record no digest of their documents (an earlier lbpe wrote them), so a "
            "change to the inputs they were made of cannot be found; if they changed, export into an empty folder"
        )
    return found
