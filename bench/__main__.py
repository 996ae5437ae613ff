"""Throughput benchmark: lbpe (classic BPE and LBPE) beside tiktoken and HF tokenizers.

    python -m bench [--quick] [--write docs/benchmarks.md]

Every figure in one table comes from one run on one machine, on the same texts (fetched by
``scripts/fetch_data.py``) and the same vocabularies; ratios are against tiktoken's
``encode_ordinary`` measured in the same run. None of the lbpe paths call tiktoken or
tokenizers. This is a benchmark: it asserts nothing.

* paths: every lbpe row is measured on the compiled path (``lbpe/_native.c``) and on the
  pure-Python one (what Pyodide runs), switched with ``lbpe.native.use`` in the same process;
* warm: the same Tokenizer encodes the text a second time (its piece cache is filled);
* cold: a loaded Tokenizer with empty caches (``clear_cache()``) encodes the text once: every
  piece is new the first time it appears. The vocabulary's own tables are built beforehand;
  the "load" table shows what that costs, next to tiktoken's ``get_encoding``;
* short: 20,000 English sentences, one ``encode`` call each with the default special-token
  checks (tiktoken's ``encode``), warm: the cost per call;
* batch: the English text as 1,024 documents, ``encode_batch(workers=all cores)`` vs
  ``workers=1``, cold and warm; beside it, the same split of a plain CPU-bound Python loop, which
  is the most any process-parallel code can gain on this machine;
* adversarial: time for 2x the input over time for 1x, cold, for each mode; and LBPE's time with
  a vocabulary of very long tokens (``bench/adversarial.py --long-tokens``);
* memory: peak RSS of a fresh process that loads o200k_base and encodes 10 MB;
* tokenizer.json: files with their own pre-tokeniser patterns, cold, beside HF tokenizers on
  the same file;
* corpus: ``lbpe stats`` and ``lbpe export`` (fresh processes, wall time) over a 100 MB file,
  beside a script that encodes the same file with tiktoken and writes the ids with ``array``;
* hf-bridge: ``lbpe.hf.LBPETokenizer`` (``tok(texts)["input_ids"]``, LBPE) beside lbpe's own
  ``encode_batch`` of the same 12,560 paragraphs (with the model's special tokens), cold and
  warm, and the model's own transformers tokenizer (BPE) for scale
  (``python -m bench --only hf-bridge`` runs this case alone);
* load: ``python -m bench --only load [options of bench/load.py]`` runs N clients against a real
  ``lbpe serve`` (latency percentiles, errors, the server's memory after load and after idle);
  it is not part of the full run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))  # fetch_data: where the registry data is cached

import fetch_data  # noqa: E402

import lbpe  # noqa: E402
from lbpe import native  # noqa: E402
from lbpe.presets import load_preset  # noqa: E402

#: The encoding paths every lbpe row is measured on (the compiled one only where it is built).
PATHS = ("compiled", "pure") if lbpe.backend().compiled_available else ("pure",)


#: Encoded once before any timing: it builds the tables an encoder makes on first use (the
#: prefix index for LBPE; the cut finder, which only non-ASCII pieces reach).
WARM_UP = "warm up the tables: caf\u00e9, \u4e2d\u6587, \u65e5\u672c\u8a9e"


DATA = fetch_data.data_dir()


def _read(name: str) -> str:
    path = DATA / name
    if not path.is_file():
        sys.exit(f"{path} is missing: run python scripts/fetch_data.py")
    return path.read_text("utf-8")


def _locale_block(text: str, locales: tuple[str, ...]) -> str:
    out, keep = [], False
    for line in text.splitlines(keepends=True):
        if line.startswith("# ") and len(line.strip()) <= 8:
            keep = line[2:].strip() in locales
            continue
        if keep:
            out.append(line)
    return "".join(out)


def inputs(quick: bool) -> dict[str, str]:
    english = _read("text/moby_dick.txt") + _read("text/sotu.txt")
    multilingual = _read("text/multilingual_words.txt")
    size = (1 if quick else 5) << 20
    return {
        "English prose": english[:size],
        "code": (_read("text/code.txt") + _read("text/code_more.txt"))[:size],
        "Chinese": _locale_block(multilingual, ("zh_CN", "zh_TW")),
        "Japanese": _locale_block(multilingual, ("ja_JP",)),
        "multilingual": multilingual,
    }


def tiktoken_encoding(name: str):
    """Official tiktoken encodings, offline, from the fetched files (same sha256 tiktoken pins)."""
    import hashlib
    import shutil

    import tiktoken

    cache = DATA / "_tiktoken_cache"
    cache.mkdir(exist_ok=True)
    url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
    target = cache / hashlib.sha1(url.encode()).hexdigest()
    if not target.exists():
        shutil.copyfile(DATA / "openai" / f"{name}.tiktoken", target)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    return tiktoken.get_encoding(name)


def mbps(text: str, seconds: float) -> float:
    return len(text.encode()) / seconds / 1e6


def _timed(times: dict[tuple[str, str], list[float]], key: tuple[str, str], fn, *args, **kwargs) -> None:
    """Append the wall time of ``fn(*args, **kwargs)`` to ``times[key]``."""
    t = time.perf_counter()
    fn(*args, **kwargs)
    times.setdefault(key, []).append(time.perf_counter() - t)


def throughput(rows: list, texts: dict[str, str], rounds: int) -> None:
    hf = {}
    try:
        from tokenizers import Tokenizer as HF

        hf["o200k_base"] = HF.from_file(str(DATA / "hf" / "gpt4o" / "tokenizer.json"))
    except Exception as exc:  # noqa: BLE001 - a missing optional peer only drops a column
        print(f"(HF tokenizers column skipped: {exc})", file=sys.stderr)
    for vocab in ("cl100k_base", "o200k_base"):
        ref = tiktoken_encoding(vocab)
        tok = load_preset(vocab)
        for mode in lbpe.MODES:
            tok.encode(WARM_UP, mode=mode)
        for label, text in texts.items():
            # every round times each encoder once, right after tiktoken: the ratio to tiktoken is
            # the median over rounds of the ratio within a round (a slow spell of the shared
            # machine stretches a whole round), the MB/s the best round
            times: dict[tuple[str, str], list[float]] = {}
            for _ in range(rounds):
                _timed(times, ("tiktoken", "-"), ref.encode_ordinary, text)
                if vocab in hf:
                    _timed(times, ("HF tokenizers", "-"), hf[vocab].encode, text, add_special_tokens=False)
                for mode in lbpe.MODES:
                    for path in PATHS:
                        native.use(path)
                        tok.clear_cache()
                        name = f"lbpe {mode} ({path})"
                        _timed(times, (name, "cold"), tok.encode, text, mode=mode, disallowed_special=())
                        _timed(times, (name, "warm"), tok.encode, text, mode=mode, disallowed_special=())
                native.use(PATHS[0])
            base = times[("tiktoken", "-")]
            for (encoder, cache), seconds in times.items():
                ratio = statistics.median(b / s for b, s in zip(base, seconds))
                slower = "-"
                if cache == "cold":  # cold and warm of a round ran back to back
                    slower = statistics.median(c / w for c, w in zip(seconds, times[(encoder, "warm")]))
                rows.append((vocab, label, encoder, cache, mbps(text, min(seconds)), ratio, slower))


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
        for which, path in [("tiktoken", "-")] + [(m, p) for m in lbpe.MODES for p in PATHS]:
            extra = str(DATA / "_tiktoken_cache") if which == "tiktoken" else str(ROOT)
            first, then = [], []
            for _ in range(rounds):
                out = subprocess.run(
                    [sys.executable, "-c", probe, which, vocab, extra, WARM_UP, path],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                a, b = map(float, out.stdout.split())
                first.append(a)
                then.append(b)
            label = "tiktoken" if which == "tiktoken" else f"lbpe {which} ({path})"
            rows.append((vocab, label, f"{min(first):.2f}s", f"+{min(then):.2f}s"))


def short_calls(rows: list, english: str, rounds: int) -> None:
    """Microseconds per ``encode`` call on short texts (sentences, one call each, warm caches):
    the per-call cost a chat or an API server pays, with the default special-token checks."""
    sentences = [s.strip() for s in english.replace("\n", " ").split(". ") if s.strip()][:20_000]
    for vocab in ("cl100k_base", "o200k_base"):
        ref = tiktoken_encoding(vocab)
        tok = load_preset(vocab)
        encoders = {"tiktoken": ref.encode}
        for mode in lbpe.MODES:
            for path in PATHS:

                def encode(s, m=mode, p=path, t=tok):
                    native.use(p)
                    return t.encode(s, mode=m)

                encoders[f"lbpe {mode} ({path})"] = encode
        for encode in encoders.values():
            for s in sentences:
                encode(s)  # warm
        times: dict[str, list[float]] = {}
        for _ in range(rounds):
            for label, encode in encoders.items():
                t = time.perf_counter()
                for s in sentences:
                    encode(s)
                times.setdefault(label, []).append(time.perf_counter() - t)
        native.use(PATHS[0])
        base = times["tiktoken"]
        for label, seconds in times.items():
            ratio = statistics.median(b / s for b, s in zip(base, seconds))
            rows.append(
                (vocab, f"{len(sentences):,} sentences", label, f"{min(seconds) / len(sentences) * 1e6:.1f} us", ratio)
            )


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


def adversarial(rows: list, size: int, rounds: int) -> None:
    from bench.adversarial import adversarial_inputs, doubling, long_tokens

    small, large = adversarial_inputs(size), adversarial_inputs(2 * size)
    tok = load_preset("cl100k_base")
    for mode in lbpe.MODES:
        tok.encode(WARM_UP, mode=mode)
    for label in small:
        for mode in lbpe.MODES:
            t1, t2, ratio = doubling(tok, small[label], large[label], mode, rounds)
            rows.append(
                (
                    label,
                    f"{size >> 10} KB -> {2 * size >> 10} KB",
                    f"lbpe {mode} ({lbpe.backend().name})",
                    f"{t1:.2f}s -> {t2:.2f}s",
                    ratio,
                )
            )
    for path in PATHS:  # a vocabulary of very long tokens: one run, no doubling
        seconds = min(long_tokens(2000, 50_000, path=path)["seconds"] for _ in range(rounds))
        rows.append(("50,000 'a', tokens 'a' * 1..2000", "50 KB", f"lbpe lbpe ({path})", f"{seconds:.2f}s", "-"))


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


#: tokenizer.json files with their own pre-tokeniser patterns (fetched by scripts/fetch_data.py).
HF_FILES = {
    "Llama 3": "hf/llama3/tokenizer.json",
    "Qwen 3": "hf/qwen3/tokenizer.json",
    "DeepSeek-V3": "hf/deepseek_v3/tokenizer.json",
}


def hf_files(rows: list, texts: dict[str, str], rounds: int) -> None:
    """Cold encodes of files whose pre-tokeniser is their own (not a bundled preset), next to HF
    tokenizers' Rust encoder on the same file and text."""
    from tokenizers import Tokenizer as HF

    text = texts["English prose"][: 1 << 20] + texts["code"][: 1 << 19] + texts["multilingual"][: 1 << 19]
    for label, relative in HF_FILES.items():
        ref = HF.from_file(str(DATA / relative))
        tok = lbpe.load(DATA / relative)
        times: dict[str, list[float]] = {}
        for _ in range(rounds):
            t = time.perf_counter()
            ref.encode(text, add_special_tokens=False)
            times.setdefault("HF tokenizers", []).append(time.perf_counter() - t)
            for mode in lbpe.MODES:
                for path in PATHS:
                    native.use(path)
                    tok.clear_cache()
                    t = time.perf_counter()
                    tok.encode(text, mode=mode, disallowed_special=())
                    times.setdefault(f"lbpe {mode} ({path}), cold", []).append(time.perf_counter() - t)
        native.use(PATHS[0])
        base = times["HF tokenizers"]
        for name, seconds in times.items():
            ratio = statistics.median(b / s for b, s in zip(base, seconds))
            rows.append((label, tok.pretokenizer_name, name, mbps(text, min(seconds)), ratio))


_TIKTOKEN_EXPORT = r"""
import os, sys, array
os.environ["TIKTOKEN_CACHE_DIR"] = sys.argv[3]
import tiktoken
enc = tiktoken.get_encoding("cl100k_base")
out = array.array("I")
with open(sys.argv[1], encoding="utf-8") as f:
    while True:
        block = f.read(1 << 22)
        if not block:
            break
        out.extend(enc.encode_ordinary(block))
with open(sys.argv[2], "wb") as f:
    out.tofile(f)
"""


def corpus_commands(rows: list, size: int, tmp: Path) -> None:
    """Wall time of whole commands over one file of ``size`` bytes (English, code and other
    languages, repeated): what a user waits for. tiktoken's line encodes the file in 4 MB
    blocks and writes uint32 ids; lbpe's run with their defaults (every core)."""
    tiktoken_encoding("cl100k_base")
    parts = [
        _read("text/moby_dick.txt"),
        _read("text/sotu.txt"),
        _read("text/code.txt"),
        _read("text/multilingual_words.txt"),
    ]
    block = "\n".join(parts)
    corpus = tmp / "corpus.txt"
    with open(corpus, "w", encoding="utf-8") as f:
        written = 0
        while written < size:
            f.write(block)
            written += len(block.encode())
    mb = corpus.stat().st_size / 1e6
    commands = {
        "tiktoken encode_ordinary + write ids": [
            sys.executable,
            "-c",
            _TIKTOKEN_EXPORT,
            str(corpus),
            str(tmp / "tt.bin"),
            str(DATA / "_tiktoken_cache"),
        ],
        "lbpe stats (both modes)": [
            sys.executable,
            "-m",
            "lbpe",
            "stats",
            "--vocab",
            "cl100k_base",
            "--json",
            str(corpus),
        ],
        "lbpe export --mode bpe": [
            sys.executable,
            "-m",
            "lbpe",
            "export",
            "--vocab",
            "cl100k_base",
            "--mode",
            "bpe",
            "--out",
            str(tmp / "bpe"),
            str(corpus),
        ],
        "lbpe export --mode lbpe": [
            sys.executable,
            "-m",
            "lbpe",
            "export",
            "--vocab",
            "cl100k_base",
            "--mode",
            "lbpe",
            "--out",
            str(tmp / "lbpe"),
            str(corpus),
        ],
    }
    for label, cmd in commands.items():
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True, cwd=ROOT)
        seconds = time.perf_counter() - t
        rows.append(("cl100k_base", f"{mb:.0f} MB", label, f"{seconds:.1f}s", f"{mb / seconds:.1f}"))


_PEER_SHARDS = r"""
import json, os, sys, array
peer, path, out = sys.argv[1], sys.argv[2], sys.argv[3]
if peer == "tiktoken":
    os.environ["TIKTOKEN_CACHE_DIR"] = sys.argv[4]
    import tiktoken
    enc = tiktoken.get_encoding("o200k_base")
    encode = lambda texts: enc.encode_ordinary_batch(texts, num_threads=os.cpu_count())
else:
    from tokenizers import Tokenizer
    hf = Tokenizer.from_file(sys.argv[4])
    encode = lambda texts: [e.ids for e in hf.encode_batch(texts, add_special_tokens=False)]
ids, offsets = array.array("I"), array.array("q", [0])
def flush(texts):
    for doc in encode(texts):
        ids.extend(doc)
        offsets.append(len(ids))
with open(path, encoding="utf-8") as f:
    texts = []
    for line in f:
        texts.append(json.loads(line)["text"])
        if len(texts) == 1024:
            flush(texts)
            texts = []
    flush(texts)
with open(out + ".tokens", "wb") as f:
    ids.tofile(f)
with open(out + ".offsets", "wb") as f:
    offsets.tofile(f)
"""


def shard_export(rows: list, size: int, tmp: Path) -> None:
    """Wall time of writing token shards (ids and document offsets) from JSONL documents of
    about 8 paragraphs (English, code, other languages), fresh processes. Cold: every paragraph
    of the fetched texts once (about 17 MB); warm: ``size`` bytes, where paragraphs repeat (lbpe's
    piece caches are warm after the first pass; the peers have no such cache). The peers encode
    batches of 1,024 documents on every core (tiktoken's encode_ordinary_batch, HF tokenizers'
    encode_batch); lbpe export runs on one process, on every core, and on a local Ray instance
    (start-up included)."""
    tiktoken_encoding("o200k_base")
    names = ("moby_dick", "sotu", "code", "code_more", "multilingual", "multilingual_words")
    paragraphs = [p for name in names for p in _read(f"text/{name}.txt").split("\n\n") if p.strip()]
    docs = ["\n\n".join(paragraphs[k : k + 8]) for k in range(0, len(paragraphs), 8)]
    gpt4o = DATA / "hf/gpt4o/tokenizer.json"  # o200k_base as HF tokenizers spells it
    for label, corpus in (("cold", tmp / "cold.jsonl"), ("warm", tmp / "warm.jsonl")):
        with open(corpus, "w", encoding="utf-8") as f:
            written = k = 0
            while k < len(docs) if label == "cold" else written < size:
                line = json.dumps({"text": docs[k % len(docs)]}, ensure_ascii=False) + "\n"
                f.write(line)
                written += len(line.encode())
                k += 1
        mb = corpus.stat().st_size / 1e6
        lbpe_cmd = [sys.executable, "-m", "lbpe", "export", "--vocab", "o200k_base", "-q"]
        commands = {
            "tiktoken encode_ordinary_batch (every core)": [
                sys.executable,
                "-c",
                _PEER_SHARDS,
                "tiktoken",
                str(corpus),
                str(tmp / "tt"),
                str(DATA / "_tiktoken_cache"),
            ],
            "HF tokenizers encode_batch (every core)": [
                sys.executable,
                "-c",
                _PEER_SHARDS,
                "hf",
                str(corpus),
                str(tmp / "hf"),
                str(gpt4o),
            ],
            "lbpe export --mode bpe --num-proc 1": [*lbpe_cmd, "--mode", "bpe", "--num-proc", "1"],
            "lbpe export --mode lbpe --num-proc 1": [*lbpe_cmd, "--mode", "lbpe", "--num-proc", "1"],
            "lbpe export --mode lbpe (every core)": [*lbpe_cmd, "--mode", "lbpe"],
            "lbpe export --mode lbpe --engine ray": [*lbpe_cmd, "--mode", "lbpe", "--engine", "ray"],
        }
        peer = None
        for k, (command, cmd) in enumerate(commands.items()):
            if command.startswith("lbpe"):
                cmd = [*cmd, "--out", str(tmp / f"{label}-{k}"), str(corpus)]
            t = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=True, cwd=ROOT)
            seconds = time.perf_counter() - t
            peer = peer or seconds
            rows.append(
                (
                    "o200k_base",
                    f"{label}, {mb:.0f} MB",
                    command,
                    f"{seconds:.1f}s",
                    f"{mb / seconds:.1f}",
                    f"{peer / seconds:.2f}",
                )
            )


def paragraphs() -> list[str]:
    """The real paragraphs the transformers tests encode (tests/test_hf.py): prose, code, many languages."""
    out = []
    for name, sep in (
        ("moby_dick.txt", "\n\n"),
        ("code.txt", "\n\n"),
        ("multilingual.txt", "\n"),
        ("multilingual_words.txt", "\n\n"),
    ):
        out += [p for p in _read(f"text/{name}").split(sep) if p.strip()]
    return out


#: The transformers bridge's cases: (label, what LBPETokenizer.from_pretrained takes, what lbpe.load reads).
HF_BRIDGE = (
    ("mistral-7b", "mistral-7b", None),
    ("cl100k_base", "cl100k_base", None),
    ("Llama 3 tokenizer.json", "hf/llama3", "hf/llama3/tokenizer.json"),
)


HF_BRIDGE_TITLE = (
    "transformers: LBPETokenizer(texts)['input_ids'] against lbpe's encode_batch, mode lbpe, one thread "
    "(ratio: median of within-round ratios; target <= 1.5)"
)
HF_BRIDGE_HEADER = ["vocabulary", "input", "lbpe encode_batch", "LBPETokenizer", "time / lbpe's", "model's own (BPE)"]


def hf_bridge(rows: list, rounds: int) -> None:
    """``LBPETokenizer(texts)["input_ids"]`` against lbpe's ``encode_batch`` of the same texts
    (mode lbpe, special tokens found in the text and added around it), one thread each; cold:
    both tokenizers' caches emptied first. The model's own tokenizer (BPE) is timed beside."""
    from lbpe.hf import LBPETokenizer

    texts = paragraphs()
    mb = sum(len(t.encode()) for t in texts) / 1e6
    for label, given, read in HF_BRIDGE:
        where = given if read is None else str(DATA / given)
        ours = load_preset(given) if read is None else lbpe.load(DATA / read)
        bridge = LBPETokenizer.from_pretrained(where, mode="lbpe")
        own = LBPETokenizer.from_pretrained(where, mode="bpe")
        inner = bridge._lbpe.tok  # the bridge's own lbpe tokenizer (its caches are its own)
        times: dict[str, list[float]] = {}
        for _ in range(rounds):
            for cache in ("cold", "warm"):
                if cache == "cold":
                    ours.clear_cache()
                    inner.clear_cache()
                _timed(
                    times,
                    ("lbpe", cache),
                    ours.encode_batch,
                    texts,
                    mode="lbpe",
                    allowed_special="all",
                    add_special_tokens=True,
                )
                _timed(times, ("bridge", cache), bridge, texts)
            _timed(times, ("own", "-"), own, texts)
        for cache in ("cold", "warm"):
            base, mine = times[("lbpe", cache)], times[("bridge", cache)]
            rows.append(
                (
                    label,
                    f"{len(texts):,} paragraphs, {mb:.1f} MB, {cache}",
                    f"{min(base):.2f}s",
                    f"{min(mine):.2f}s",
                    statistics.median(b / a for a, b in zip(base, mine)),
                    f"{min(times[('own', '-')]):.2f}s",
                )
            )


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return "(not installed)"


def render(sections: dict[str, tuple[list[str], list]]) -> str:
    out = []
    for title, (header, rows) in sections.items():
        out.append(f"\n### {title}\n")
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        for row in rows:
            cells = [f"{c:.2f}" if isinstance(c, float) else str(c) for c in row]
            out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 MB inputs, fewer rounds")
    parser.add_argument("--write", metavar="FILE", help="also write the tables (markdown) to FILE")
    parser.add_argument("--only", choices=["hf-bridge", "load"], help="run this case alone")
    args, rest = parser.parse_known_args()
    if args.only == "load":  # a real playground server under N clients (bench/load.py; its options follow)
        from bench import load

        return load.main(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    rounds = 2 if args.quick else 5
    sections: dict[str, tuple[list[str], list]] = {}
    rows: list = []
    if args.only == "hf-bridge":
        hf_bridge(rows, rounds)
        sections[HF_BRIDGE_TITLE] = (HF_BRIDGE_HEADER, rows)
        print(render(sections))
        return 0
    texts = inputs(args.quick)
    throughput(rows, texts, rounds)
    sections[
        "Throughput, one thread (MB/s: best round; x tiktoken: median over rounds of the ratio to "
        "tiktoken's encode_ordinary in the same round)"
    ] = (["vocabulary", "text", "encoder", "cache", "MB/s", "x tiktoken", "cold / warm (target <= 3)"], rows)
    rows = []
    load_times(rows, rounds)
    sections["Load: from the file to the first encoding, fresh process (best of runs)"] = (
        ["vocabulary", "encoder", "to a first ASCII text", "then a first non-ASCII text"],
        rows,
    )
    rows = []
    english = _read("text/moby_dick.txt") + _read("text/sotu.txt")
    short_calls(rows, english, rounds)
    sections[
        "Short texts, one encode call each, default special-token checks (time per call: best round; x "
        "tiktoken: median of within-round ratios)"
    ] = (["vocabulary", "input", "encoder", "per call", "x tiktoken"], rows)
    rows = []
    batch(rows, english[: 2 << 20] if args.quick else english, rounds)
    sections["Batch encoding over all cores (ratio to one core: median of back-to-back rounds)"] = (
        ["vocabulary", "input", "encoder", "workers", "MB/s", "x one core"],
        rows,
    )
    rows = []
    adversarial(rows, (256 if args.quick else 1024) << 10, rounds)
    sections[
        "Adversarial inputs: CPU time when the input doubles (best times; ratio: median of back-to-back "
        "rounds; target <= 2.2)"
    ] = (["input", "size", "encoder", "time", "ratio"], rows)
    rows = []
    memory(rows, 10 << 20)
    sections["Peak memory (ratio to tiktoken; target <= 1.3)"] = (
        ["vocabulary", "work", "encoder", "peak RSS", "x tiktoken"],
        rows,
    )
    rows = []
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        corpus_commands(rows, (20 if args.quick else 100) << 20, Path(tmp))
    sections["Corpus commands: wall time of a fresh process over one file (lbpe with its defaults: every core)"] = (
        ["vocabulary", "file", "command", "wall time", "MB/s"],
        rows,
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        shard_export(rows, (20 if args.quick else 200) << 20, Path(tmp))
    sections[
        "Token shards from JSONL documents: wall time of a fresh process, cold (each paragraph once) "
        "and warm (paragraphs repeat) (x tiktoken: its time over this row's)"
    ] = (["vocabulary", "documents", "command", "wall time", "MB/s", "x tiktoken"], rows)
    rows = []
    hf_files(rows, texts, rounds)
    sections[
        "tokenizer.json files with their own patterns: 2 MB of English, code and other languages (x HF "
        "tokenizers: median of within-round ratios)"
    ] = (["file", "pre-tokeniser", "encoder", "MB/s", "x HF tokenizers"], rows)
    rows = []
    hf_bridge(rows, rounds)
    sections[HF_BRIDGE_TITLE] = (HF_BRIDGE_HEADER, rows)
    machine = (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{datetime.date.today().isoformat()}"
    )
    body = render(sections)
    print(f"machine: {machine}\n{body}")
    if args.write:
        note = (
            f"Active path: {lbpe.backend().name} ({lbpe.backend().reason}). Rows marked (compiled) run "
            "lbpe/_native.c, rows marked (pure) the standard-library modules Pyodide runs; the two give the "
            "same ids (tests/test_native.py). tiktoken "
            + _version("tiktoken")
            + ", HF tokenizers "
            + _version("tokenizers")
            + "."
        )
        Path(args.write).write_text(
            f"# Benchmarks\n\nGenerated by `python -m bench{' --quick' if args.quick else ''} --write {args.write}`"
            f" on {machine}.\n\n{note}\n{body}",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
