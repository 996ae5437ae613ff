"""lbpe beside the fastest installable peers: fastokens, bpe-openai and rs-bpe, with tiktoken and HF
tokenizers, for cl100k_base and o200k_base on every text kind.

Each peer is checked first: its ids for every paragraph of every text (and for the whole text) are
compared with tiktoken's ``encode_ordinary``; a peer that differs anywhere is timed in a table of its
own and never named in the summary. Then two measurements, each in a fresh process so that the
peers' thread pools start with the settings wanted (fastokens and rayon read theirs once):

* one thread, CPU time (``time.process_time``, which counts every thread of the process, so a peer
  that used helper threads would gain nothing from them): ``FASTOKENS_BPE_THREADS=1`` (fastokens
  splits one long encode over every core by default), ``RAYON_NUM_THREADS=1`` (rs-bpe's and HF
  tokenizers' pools) and ``TOKENIZERS_PARALLELISM=false``; the wall / CPU column checks it (1 or
  more on one thread, below 1 only if helper threads ran). Cold: lbpe after ``clear_cache()``,
  fastokens a newly built tokenizer (it keeps a piece cache in the object and in each thread, keyed
  by the object, and has no call that empties them), HF tokenizers after ``model._clear_cache()``;
  each has encoded a short warm-up text first, which builds the tables an encoder makes on first
  use. Warm: the same object encodes the text again. tiktoken, bpe-openai and rs-bpe keep no piece
  cache: one row each. Before every call but a warm one, 64 MB are written, more than the
  processor's caches hold, so each encoder starts with its tables in memory, as after other work
  (without it a repeat of lbpe's cold call found its tables still in cache, while fastokens' new
  object had its own in freshly allocated memory). A text under 256 KB is timed up to 5 times a
  round, the best kept;
* every core, wall time, the text as 256 documents: lbpe ``encode_batch(workers=N)`` beside each
  peer's own batch call with N threads (fastokens' and HF's pools, tiktoken's, rs-bpe's
  ``encode_batch_parallel``, bpe-openai's Python thread pool, whose binding holds the GIL), each
  batch's ids checked against one-by-one encoding.

Everything loads offline: tiktoken and fastokens (``Tokenizer.from_tiktoken(path,
encoding=name)``) read the OpenAI rank files of the data cache, HF tokenizers its o200k
tokenizer.json (it has none for cl100k_base); bpe-openai (``_bindings.tokenizer_for_encoding``) and
rs-bpe (``rs_bpe.bpe.openai.cl100k_base()``) carry their vocabularies inside their wheels.
bpe-openai is timed through its binding: the tiktoken-like ``get_encoding(name).encode_ordinary``
refuses a text of a million characters or more and a result over 200,000 tokens.

    python -m bench.peers single|batch [--quick] [--rounds N]   # one part, JSON rows on stdout
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

import lbpe
from bench.common import DATA, PATHS, ROOT, WARM_UP, inputs, mbps, tiktoken_encoding
from lbpe import native
from lbpe.presets import load_preset

VOCABS = ("cl100k_base", "o200k_base")

#: How the one-thread child pins every peer to one thread.
ONE_THREAD_ENV = {"FASTOKENS_BPE_THREADS": "1", "RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}

#: Bytes written before each call but a warm one: more than the processor's caches hold.
EVICT_BYTES = 64 << 20
_evict_buffer: list = []  # made at the first call


def evict() -> None:
    """Push every encoder's tables out of the processor's caches: EVICT_BYTES written (a write
    takes each line into the caches whatever the bytes were)."""
    if not _evict_buffer:
        _evict_buffer.append(ctypes.create_string_buffer(EVICT_BYTES))
    ctypes.memset(_evict_buffer[0], 1, EVICT_BYTES)


#: Texts smaller than this are timed up to SMALL_REPEATS times a round (the best kept).
SMALL_TEXT = 256 << 10
SMALL_REPEATS = 5

#: Documents per text in the batch table.
DOCUMENTS = 256

Encode = Callable[[str], list[int]]


@dataclass
class Peer:
    """One encoder beside lbpe: ``load()`` builds it (untimed), ``encode(obj, text)`` encodes.

    ``cold(obj)`` returns the object with empty piece caches (``None``: it keeps none, one row);
    ``batch(obj, texts, threads)`` is the peer's own batch call (``None``: it has none)."""

    name: str
    load: Callable[[], Any]
    encode: Callable[[Any, str], list[int]]
    cold: Callable[[Any], Any] | None = None
    batch: Callable[[Any, list[str], int], list[list[int]]] | None = None


def _tiktoken(vocab: str) -> Peer:
    return Peer(
        "tiktoken",
        lambda: tiktoken_encoding(vocab),
        lambda enc, text: enc.encode_ordinary(text),
        batch=lambda enc, texts, n: enc.encode_ordinary_batch(texts, num_threads=n),
    )


def _hf(vocab: str) -> Peer | None:
    if vocab != "o200k_base":
        return None  # the data cache has no tokenizer.json for cl100k_base
    from tokenizers import Tokenizer

    def load():
        tok = Tokenizer.from_file(str(DATA / "hf" / "gpt4o" / "tokenizer.json"))
        tok.encode_special_tokens = True  # <|endoftext|> in a text is text, as encode_ordinary reads it
        tok.encode(WARM_UP, add_special_tokens=False)
        return tok

    def cold(tok):
        tok.model._clear_cache()
        return tok

    return Peer(
        "HF tokenizers",
        load,
        lambda tok, text: tok.encode(text, add_special_tokens=False).ids,
        cold=cold,
        batch=lambda tok, texts, n: [e.ids for e in tok.encode_batch(texts, add_special_tokens=False)],
    )


def _fastokens(vocab: str) -> Peer:
    from fastokens import Tokenizer

    def load():
        # the OpenAI rank file with the encoding's own pattern; from_file on the gpt4o
        # tokenizer.json fails in 0.3.5 ("unsupported model type"), from_model downloads
        tok = Tokenizer.from_tiktoken(str(DATA / "openai" / f"{vocab}.tiktoken"), encoding=vocab)
        tok.encode_ordinary(WARM_UP)
        return tok

    return Peer(
        "fastokens",
        load,
        lambda tok, text: tok.encode_ordinary(text).ids,
        cold=lambda _tok: load(),  # its caches cannot be emptied: a new tokenizer
        batch=lambda tok, texts, n: [e.ids for e in tok.encode_batch(texts, split_special_tokens=True)],
    )


def _bpe_openai(vocab: str) -> Peer:
    import bpe_openai
    from bpe_openai import _bindings

    # The Rust tokenizer itself: the tiktoken-like wrapper's encode_ordinary refuses texts of a
    # million characters or more and results over 200,000 tokens. Its batch call is the
    # wrapper's (a Python thread pool over the same binding).
    return Peer(
        "bpe-openai",
        lambda: _bindings.tokenizer_for_encoding(vocab),
        lambda tok, text: tok.encode(text),
        batch=lambda _tok, texts, n: bpe_openai.get_encoding(vocab).encode_ordinary_batch(texts, num_threads=n),
    )


def _rs_bpe(vocab: str) -> Peer:
    from rs_bpe.bpe import openai

    def batch(tok, texts, n):
        return tok.encode_batch_parallel(texts, openai.ParallelOptions(1, max(1, len(texts) // (4 * n)), n))[0]

    return Peer("rs-bpe", getattr(openai, vocab), lambda tok, text: tok.encode(text), batch=batch)


def peers(vocab: str, notes: list[str] | None = None) -> list[Peer]:
    """tiktoken first (the reference), then every peer installed; a missing one is left out with a
    one-line note on stderr (and in ``notes``)."""
    out = [_tiktoken(vocab)]
    for name, make in (
        ("HF tokenizers", _hf),
        ("fastokens", _fastokens),
        ("bpe-openai", _bpe_openai),
        ("rs-bpe", _rs_bpe),
    ):
        try:
            peer = make(vocab)
        except ImportError as exc:
            note = f"{name} rows skipped: {exc}"
            print(f"({note})", file=sys.stderr)
            if notes is not None:
                notes.append(note)
            continue
        if peer is not None:
            out.append(peer)
    return out


def paragraphs(text: str) -> list[str]:
    return [p for p in text.split("\n\n") if p.strip()]


def exactness(reference: Encode, encoders: dict[str, Encode], texts: dict[str, str]) -> dict[str, dict]:
    """For each encoder: how many paragraphs (of how many) and which whole texts give other ids
    than ``reference``; ``exact`` is true when none does."""
    report = {}
    for name, encode in encoders.items():
        differing = total = 0
        kinds = []
        for label, text in texts.items():
            parts = paragraphs(text)
            total += len(parts)
            bad = sum(encode(p) != reference(p) for p in parts)
            differing += bad
            if bad or list(encode(text)) != list(reference(text)):
                kinds.append(label)
        report[name] = {"differing": differing, "paragraphs": total, "texts": kinds, "exact": not kinds}
    return report


def _cpu(fn, *args) -> tuple[float, float, Any]:
    """CPU time, wall time and result of ``fn(*args)``."""
    w, c = time.perf_counter(), time.process_time()
    out = fn(*args)
    return time.process_time() - c, time.perf_counter() - w, out


def _lbpe_encoders(tok) -> dict[str, Encode]:
    path = PATHS[0]
    return {
        f"lbpe {mode} ({path})": (lambda text, m=mode: tok.encode(text, mode=m, disallowed_special=()))
        for mode in lbpe.MODES
    }


SINGLE_TITLE = (
    "Peers, one thread, CPU time (MB/s: best round; x tiktoken: median over rounds of the ratio to "
    "tiktoken's encode_ordinary in the same round; wall / CPU: median, 1 or more on one thread (more "
    "while the shared machine runs other work), below 1 only if helper threads ran)"
)
SINGLE_HEADER = ["vocabulary", "text", "encoder", "cache", "MB/s", "x tiktoken", "wall / CPU"]
INEXACT_TITLE = "Inexact peers (their ids differ from tiktoken's: timed apart, never in the summary)"
EXACT_TITLE = "Peers' exactness: ids against tiktoken's encode_ordinary, paragraph by paragraph and whole texts"
EXACT_HEADER = ["vocabulary", "encoder", "paragraphs differing", "texts differing"]
SUMMARY_TITLE = (
    f"Summary: lbpe ({PATHS[0]}, one thread, CPU time) over the fastest exact peer of each row "
    "(> 1: lbpe is faster; median over rounds of the within-round ratio)"
)
SUMMARY_HEADER = [
    "vocabulary",
    "text",
    "fastest peer, cold",
    "lbpe bpe cold",
    "lbpe lbpe cold",
    "fastest peer, warm",
    "lbpe bpe warm",
    "lbpe lbpe warm",
]
BATCH_TITLE = (
    "Peers, batch over every core, wall time (the text as 256 documents; x tiktoken: median over rounds "
    "of the ratio to tiktoken's encode_ordinary_batch; CPU / wall: the cores kept busy; ids: the batch's "
    "ids equal one-by-one encoding, tiktoken's, or lbpe's own for mode lbpe)"
)
BATCH_HEADER = ["vocabulary", "text", "encoder", "cache", "threads", "MB/s", "x tiktoken", "CPU / wall", "ids"]


class Times:
    """CPU and wall times of each (encoder, cache) over the rounds, one entry a round."""

    def __init__(self) -> None:
        self.cpu: dict[tuple[str, str], list[float]] = {}
        self.wall: dict[tuple[str, str], list[float]] = {}

    def add(self, key: tuple[str, str], cpu: float, wall: float) -> None:
        self.cpu.setdefault(key, []).append(cpu)
        self.wall.setdefault(key, []).append(wall)

    def best_of(self, name: str, repeat: int, reset: Callable[[], tuple] | None, fn, args: tuple = ()) -> None:
        """Time ``fn(*args)`` ``repeat`` times, keeping the least CPU time: cold then warm after
        each ``reset()`` (which returns the arguments), or once as "-" without one."""
        best: dict[str, tuple[float, float]] = {}
        for _ in range(repeat):
            if reset is not None:
                args = reset()
            for cache in ("cold", "warm") if reset is not None else ("-",):
                if cache != "warm":
                    evict()
                c, w, _ = _cpu(fn, *args)
                if cache not in best or c < best[cache][0]:
                    best[cache] = (c, w)
        for cache, (c, w) in best.items():
            self.add((name, cache), c, w)


def _turned(jobs: list, r: int) -> list:
    """The jobs of round ``r``: each round starts one later (ratios are taken within rounds, and a
    slow spell of the shared machine stretches a whole round)."""
    return jobs[r % len(jobs) :] + jobs[: r % len(jobs)]


def _fresh(peer: Peer, objs: dict, *rest) -> Callable[[], tuple]:
    def reset() -> tuple:
        assert peer.cold is not None
        objs[peer.name] = peer.cold(objs[peer.name])
        return (objs[peer.name], *rest)

    return reset


def _cleared(tok, *args) -> Callable[[], tuple]:
    def reset() -> tuple:
        tok.clear_cache()
        return args

    return reset


def _lbpe_tokenizer(vocab: str):
    tok = load_preset(vocab)
    native.use(PATHS[0])
    for mode in lbpe.MODES:
        tok.encode(WARM_UP, mode=mode)
    return tok


def _time_text(text: str, listed: list[Peer], objs: dict, ours: dict[str, Encode], tok, rounds: int) -> Times:
    times = Times()
    # a text of tens of kilobytes encodes in a millisecond or less, where the processor's caches
    # (emptied by the encoder before) weigh most: it is timed a few times a round, the best kept
    repeat = max(1, min(SMALL_REPEATS, SMALL_TEXT // max(1, len(text.encode()))))
    jobs: list = list(listed) + list(ours)
    for r in range(rounds):
        for job in _turned(jobs, r):
            if isinstance(job, str):
                times.best_of(job, repeat, _cleared(tok, text), ours[job])
            elif job.cold is None:
                times.best_of(job.name, repeat, None, job.encode, (objs[job.name], text))
            else:
                times.best_of(job.name, repeat, _fresh(job, objs, text), job.encode)
    return times


def single(texts: dict[str, str], rounds: int, vocabs: Iterable[str] = VOCABS) -> dict:
    """The exactness check and the one-thread timings: the sections' rows (JSON-able)."""
    exact_rows, rows, inexact_rows, summary = [], [], [], []
    notes: list[str] = []
    for vocab in vocabs:
        listed = peers(vocab, notes)
        objs = {p.name: p.load() for p in listed}
        others: dict[str, Encode] = {p.name: partial(p.encode, objs[p.name]) for p in listed[1:]}
        report = exactness(objs["tiktoken"].encode_ordinary, others, texts)
        for name, r in report.items():
            exact_rows.append(
                (vocab, name, f"{r['differing']:,} of {r['paragraphs']:,}", ", ".join(r["texts"]) or "none")
            )
        tok = _lbpe_tokenizer(vocab)
        ours = _lbpe_encoders(tok)
        for label, text in texts.items():
            times = _time_text(text, listed, objs, ours, tok, rounds)
            base = times.cpu[("tiktoken", "-")]
            for (name, cache), seconds in times.cpu.items():
                row = (
                    vocab,
                    label,
                    name,
                    cache,
                    mbps(text, min(seconds)),
                    statistics.median(b / s for b, s in zip(base, seconds)),
                    statistics.median(w / c for w, c in zip(times.wall[(name, cache)], seconds)),
                )
                (rows if name not in report or report[name]["exact"] else inexact_rows).append(row)
            summary.append(_summary_row(vocab, label, text, times.cpu, report, list(ours)))
    return {
        "sections": {
            SUMMARY_TITLE: (SUMMARY_HEADER, summary),
            EXACT_TITLE: (EXACT_HEADER, exact_rows),
            SINGLE_TITLE: (SINGLE_HEADER, rows),
            INEXACT_TITLE: (SINGLE_HEADER, inexact_rows),
        },
        "notes": notes,
    }


def _summary_row(vocab: str, label: str, text: str, cpu: dict, report: dict, ours: list[str]) -> tuple:
    row: list = [vocab, label]
    for cache in ("cold", "warm"):
        # a peer without a cache is the same object cold and warm
        candidates = {
            name: seconds
            for (name, c), seconds in cpu.items()
            if name not in ours and (name == "tiktoken" or report[name]["exact"]) and c in (cache, "-")
        }
        best = min(candidates, key=lambda n: statistics.median(candidates[n]))
        row.append(f"{best} ({mbps(text, min(candidates[best])):.0f} MB/s)")
        for name in ours:
            mine = cpu[(name, cache)]
            row.append(statistics.median(b / s for b, s in zip(candidates[best], mine)))
    return tuple(row)


def documents(text: str, n: int = DOCUMENTS) -> list[str]:
    size = max(1, -(-len(text) // n))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _batch_text(docs: list[str], listed: list[Peer], objs: dict, tok, rounds: int) -> tuple[Times, dict[str, bool]]:
    threads = os.cpu_count() or 1
    # every batch must give the ids of one-by-one encoding: tiktoken's, or for mode lbpe
    # (another encoding by design) lbpe's own encode
    expected = {
        "bpe": [objs["tiktoken"].encode_ordinary(d) for d in docs],
        "lbpe": [tok.encode(d, mode="lbpe", disallowed_special=()) for d in docs],
    }
    times = Times()
    same: dict[str, bool] = {}

    def record(key: tuple[str, str], fn, *args) -> None:
        c, w, out = _cpu(fn, *args)
        want = expected["lbpe" if key[0].startswith("lbpe lbpe") else "bpe"]
        same[key[0]] = same.get(key[0], True) and [list(ids) for ids in out] == want
        times.add(key, c, w)

    jobs: list = list(listed) + list(lbpe.MODES)
    for r in range(rounds):
        for job in _turned(jobs, r):
            if isinstance(job, str):
                name = f"lbpe {job} ({PATHS[0]})"
                tok.clear_cache()
                for cache in ("cold", "warm"):
                    record(
                        (name, cache), partial(tok.encode_batch, mode=job, workers=threads, disallowed_special=()), docs
                    )
            elif job.batch is not None and job.cold is None:
                record((job.name, "-"), job.batch, objs[job.name], docs, threads)
            elif job.batch is not None:
                obj = _fresh(job, objs)()[0]
                record((job.name, "cold"), job.batch, obj, docs, threads)
                record((job.name, "warm"), job.batch, obj, docs, threads)
    return times, same


def batch(texts: dict[str, str], rounds: int, vocabs: Iterable[str] = VOCABS) -> dict:
    """Every core, wall time: lbpe ``encode_batch(workers=N)`` beside each peer's batch call."""
    threads = os.cpu_count() or 1
    rows = []
    notes: list[str] = []
    for vocab in vocabs:
        listed = [p for p in peers(vocab, notes) if p.batch is not None]
        objs = {p.name: p.load() for p in listed}
        tok = _lbpe_tokenizer(vocab)
        for label, text in texts.items():
            docs = documents(text)
            times, same = _batch_text(docs, listed, objs, tok, rounds)
            base = times.wall[("tiktoken", "-")]
            for (name, cache), seconds in times.wall.items():
                rows.append(
                    (
                        vocab,
                        f"{label}, {len(docs)} documents",
                        name,
                        cache,
                        threads,
                        mbps(text, min(seconds)),
                        statistics.median(b / s for b, s in zip(base, seconds)),
                        statistics.median(c / w for c, w in zip(times.cpu[(name, cache)], seconds)),
                        "exact" if same[name] else "DIFFER",
                    )
                )
    return {"sections": {BATCH_TITLE: (BATCH_HEADER, rows)}, "notes": notes}


def run_part(part: str, quick: bool, rounds: int) -> dict:
    """One part in a fresh process (``single`` pinned to one thread, ``batch`` with every core)."""
    env = {k: v for k, v in os.environ.items() if k not in ONE_THREAD_ENV}
    if part == "single":
        env.update(ONE_THREAD_ENV)
    cmd = [sys.executable, "-m", "bench.peers", part, "--rounds", str(rounds)] + (["--quick"] if quick else [])
    out = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=["single", "batch"])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    texts = inputs(args.quick)
    result = (single if args.part == "single" else batch)(texts, args.rounds)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
