"""Broken vocabulary files of every format: each is refused with a ``ValueError`` (a
``VocabFormatError``) whose message names the file and the problem; none hangs, none crashes
the interpreter, and the process loading them keeps working afterwards.

Every case runs in a separate worker process (one worker for the whole module, restarted if it
dies) under a per-case timeout, so a hang or a crash fails that case instead of the test run.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import pickle
import select
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import tiny_vocabs as tv
from tests.support.data import ROOT, data_file

TIMEOUT = 20.0  # seconds per case; the slowest case takes well under 2 s

# ---- the worker: loads a path, reports what happened as one JSON line ----

_WORKER = r"""
import json, os, sys, time, traceback
import lbpe
from lbpe.errors import VocabFormatError

for line in sys.stdin:
    req = json.loads(line)
    saved = {k: os.environ.get(k) for k in req["env"]}
    os.environ.update(req["env"])
    t0 = time.perf_counter()
    out = {}
    try:
        tok = lbpe.load(req["path"], pattern=req["pattern"])
        ids = tok.encode("hello world", mode="lbpe")
        out = {"loaded": True, "text": tok.decode(ids)}
    except BaseException as exc:
        out = {"loaded": False, "type": type(exc).__name__, "value_error": isinstance(exc, ValueError),
               "format_error": isinstance(exc, VocabFormatError), "message": str(exc)[:2000],
               "traceback": "" if isinstance(exc, ValueError) else traceback.format_exc()[-3000:]}
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    out["seconds"] = time.perf_counter() - t0
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"""


class Worker:
    """A Python process that loads vocabularies on request; killed and restarted on a timeout."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        return subprocess.Popen(
            [sys.executable, "-c", _WORKER],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=ROOT,
        )

    def load(self, path: Path, *, pattern: str | None = None, env: dict[str, str] | None = None) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        proc = self.proc
        proc.stdin.write((json.dumps({"path": str(path), "pattern": pattern, "env": env or {}}) + "\n").encode())
        proc.stdin.flush()
        buf = b""
        deadline = time.monotonic() + TIMEOUT
        while not buf.endswith(b"\n"):
            left = deadline - time.monotonic()
            ready, _, _ = select.select([proc.stdout], [], [], max(left, 0))
            if not ready:
                self.close()
                pytest.fail(f"loading {path} did not finish within {TIMEOUT} s (a hang)")
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                err = proc.stderr.read().decode(errors="replace")[-3000:]
                code = proc.wait()
                self.proc = None
                pytest.fail(f"the interpreter died (exit code {code}) loading {path}:\n{err}")
            buf += chunk
        return json.loads(buf)

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


@pytest.fixture(scope="module")
def worker():
    w = Worker()
    yield w
    w.close()


# ---- the cases ----


@dataclass
class Case:
    name: str
    build: Callable[[Path], Path]  # writes the file(s) into a folder, returns what to load
    problem: str  # a phrase the message must contain
    names: str = ""  # the file name the message must contain (default: the loaded path)
    pattern: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    max_seconds: float | None = None


def _file(name: str, data: bytes | Callable[[], bytes]):
    def build(d: Path) -> Path:
        (d / name).write_bytes(data() if callable(data) else data)
        return d / name

    return build


def _gpt2(encoder: bytes | None = None, merges: bytes | None = None, load: str = "."):
    def build(d: Path) -> Path:
        (d / "encoder.json").write_bytes(tv.json_bytes(tv.gpt2_encoder()) if encoder is None else encoder)
        (d / "vocab.bpe").write_bytes(tv.gpt2_merges_text().encode() if merges is None else merges)
        return d / load if load != "." else d

    return build


def _encoder(**change) -> bytes:
    enc = tv.gpt2_encoder()
    enc.update(change)
    return tv.json_bytes(enc)


def _hf(mutate: Callable[[dict], object] | None = None, *, char: bool = False, raw: bytes | None = None):
    def data() -> bytes:
        if raw is not None:
            return raw
        spec = tv.hf_char_spec() if char else tv.hf_spec()
        if mutate is not None:
            mutate(spec)
        return tv.json_bytes(spec)

    return _file("tokenizer.json", data)


def _set(path: str, value):
    def mutate(spec: dict) -> None:
        *parents, last = path.split(".")
        node = spec
        for key in parents:
            node = node[key]
        node[last] = value

    return mutate


def _vocab_entry(text: str, value):
    def mutate(spec: dict) -> None:
        spec["model"]["vocab"][text] = value

    return mutate


def _sparse(size: int):
    def build(d: Path) -> Path:
        path = d / "r50k_base.tiktoken"
        with open(path, "wb") as f:
            f.truncate(size)  # a sparse file: instant, takes no disk space
        return path

    return build


def _gzip_bomb(d: Path) -> Path:
    """~300 KB of concatenated gzip members that inflate to 300 MiB of rank-file-looking text."""
    line = base64.b64encode(b"a") + b" 97\n"
    block = gzip.compress(line * ((1 << 20) // len(line)), compresslevel=9)
    path = d / "cl100k_base.tiktoken.gz"
    path.write_bytes(block * 300)
    return path


def _nested(depth: int) -> bytes:
    return b'{"model": ' + b"[" * depth + b"]" * depth + b"}"


def _nested_sequences(depth: int) -> Callable[[dict], None]:
    def mutate(spec: dict) -> None:
        node: dict = {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True}
        for _ in range(depth):
            node = {"type": "Sequence", "pretokenizers": [node]}
        spec["pre_tokenizer"] = node

    return mutate


def _sp_real_truncated() -> bytes:
    data = data_file("sentencepiece/test/botchan_en_bpe_1000.model").read_bytes()
    return data[: len(data) // 2]


def _sp_real_pieces_only() -> bytes:
    """The real BPE model cut where its pieces end, a field boundary: the trainer_spec that
    says its type (and the normaliser's) are gone, and every field read is whole."""
    data = data_file("sentencepiece/test/botchan_en_bpe_1000.model").read_bytes()
    pos = 0
    while data[pos] == 0x0A:  # field 1, length-delimited: a piece; its length a varint
        length, shift, pos = 0, 0, pos + 1
        while True:
            byte = data[pos]
            pos += 1
            length |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        pos += length
    assert 1000 < pos < len(data)
    return data[:pos]


def _sp_bad_charsmap() -> bytes:
    normalizer = tv.field(1, b"nmt_nfkc") + tv.field(2, b"\xff\xff\x00\x00garbage") + tv.field(3, 1)
    return tv.sp_model_bytes(normalizer=normalizer)


def _sp_pieces(*extra: tuple[str, float, int]) -> bytes:
    pieces = [("<unk>", 0.0, tv.UNKNOWN), ("<s>", 0.0, tv.CONTROL), ("</s>", 0.0, tv.CONTROL)]
    pieces += [(f"<0x{b:02X}>", 0.0, tv.BYTE) for b in range(256)]
    pieces += [("a", -1.0, tv.NORMAL), ("b", -2.0, tv.NORMAL)]
    return tv.sp_model_bytes(pieces=pieces + list(extra))


def _junk_folder(d: Path) -> Path:
    (d / "notes.txt").write_text("hello")
    (d / "model.bin").write_bytes(os.urandom(64))
    return d


def _two_rank_files(d: Path) -> Path:
    for name in ("a.tiktoken", "b.tiktoken"):
        (d / name).write_bytes(tv.tiktoken_bytes())
    return d


class _Evil:
    def __reduce__(self):
        return (os.system, ("touch pwned-by-pickle",))


RANKS = "cl100k_base.tiktoken"
TK = tv.tiktoken_bytes

CASES = [
    # ---- .tiktoken rank files ----
    Case("tiktoken-empty", _file(RANKS, b""), "empty"),
    Case("tiktoken-only-blank-lines", _file(RANKS, b"\n\n  \n"), "empty"),
    Case("tiktoken-bad-base64", _file(RANKS, TK([b"!!!! 300"])), "not valid base64"),
    Case("tiktoken-base64-bad-padding", _file(RANKS, TK([b"YWJjZA 300"])), "not valid base64"),
    # canonical base64 only, the same rule on every Python (3.10 has no strict_mode; later ones differ)
    Case("tiktoken-base64-excess-padding", _file(RANKS, TK([b"YWJj== 300"])), "not valid base64"),
    Case("tiktoken-base64-three-pads", _file(RANKS, TK([b"YQ=== 300"])), "not valid base64"),
    Case("tiktoken-base64-only-padding", _file(RANKS, TK([b"== 300"])), "not valid base64"),
    Case("tiktoken-base64-pad-inside", _file(RANKS, TK([b"YQ==YQ== 300"])), "not valid base64"),
    Case("tiktoken-rank-negative", _file(RANKS, TK([b"eHl6 -3"])), "not a non-negative integer"),
    Case("tiktoken-rank-float", _file(RANKS, TK([b"eHl6 300.5"])), "not a non-negative integer"),
    Case("tiktoken-rank-5000-digits", _file(RANKS, TK([b"eHl6 " + b"9" * 5000])), "too large"),
    Case("tiktoken-rank-out-of-range", _file(RANKS, TK([b"eHl6 4000000000"])), "LBPE_MAX_VOCAB_TOKENS"),
    Case("tiktoken-duplicate-token", _file(RANKS, TK([b"YQ== 300"])), "appears twice"),
    Case("tiktoken-duplicate-rank", _file(RANKS, TK([b"eHl6 256"])), "rank 256 appears twice"),
    Case("tiktoken-three-fields", _file(RANKS, TK([b"eHl6 300 1"])), "found 3 field"),
    Case("tiktoken-missing-bytes", _file(RANKS, b"YQ== 0\nYg== 1\n"), "lacks single-byte tokens"),
    Case("tiktoken-rank-collides-with-special", _file(RANKS, TK([b"eHl6 100257"])), "collide"),
    Case("tiktoken-random-binary", _file(RANKS, bytes(range(256)) * 40), "expected '<base64 token> <rank>'"),
    Case("tiktoken-too-many-tokens", _file(RANKS, TK()), "LBPE_MAX_VOCAB_TOKENS", env={"LBPE_MAX_VOCAB_TOKENS": "100"}),
    Case("tiktoken-200MB-sparse", _sparse(200 << 20), "over the limit", max_seconds=1.0),
    Case("tiktoken-gzip-bomb", _gzip_bomb, "decompresses to more than", max_seconds=10.0),
    Case("tiktoken-gzip-truncated", _file(RANKS + ".gz", lambda: gzip.compress(TK())[:200]), "not a valid gzip file"),
    Case("tiktoken-gzip-not-gzip", _file(RANKS + ".gz", TK()), "not a valid gzip file"),
    Case("tiktoken-unknown-name-no-pattern", _file("mine.tiktoken", TK()), "pass pattern="),
    Case("tiktoken-bad-pattern", _file("mine.tiktoken", TK()), "unknown pre-tokenizer pattern", pattern="gpt5"),
    # ---- GPT-2 encoder.json + vocab.bpe ----
    Case(
        "gpt2-truncated-json",
        _gpt2(encoder=tv.json_bytes(tv.gpt2_encoder())[:500]),
        "not valid JSON",
        names="encoder.json",
    ),
    Case(
        "gpt2-non-utf8-json",
        _gpt2(encoder='{"caf\u00e9": 0}'.encode("latin-1")),
        "not UTF-8 text",
        names="encoder.json",
    ),
    Case(
        "gpt2-utf16-json",
        _gpt2(encoder=json.dumps(tv.gpt2_encoder()).encode("utf-16")),
        "not UTF-8 text",
        names="encoder.json",
    ),
    Case("gpt2-vocab-is-a-list", _gpt2(encoder=b'["a", "b"]'), "found an array", names="encoder.json"),
    Case("gpt2-empty-object", _gpt2(encoder=b"{}"), "non-empty JSON object", names="encoder.json"),
    Case("gpt2-id-is-a-string", _gpt2(encoder=_encoder(xyz="300")), "a string", names="encoder.json"),
    Case("gpt2-id-is-a-float", _gpt2(encoder=_encoder(xyz=300.5)), "a fractional number", names="encoder.json"),
    Case("gpt2-id-is-a-bool", _gpt2(encoder=_encoder(xyz=True)), "a boolean", names="encoder.json"),
    Case("gpt2-id-negative", _gpt2(encoder=_encoder(xyz=-1)), "non-negative integers", names="encoder.json"),
    Case(
        "gpt2-id-5000-digits",
        _gpt2(encoder=b'{"a": ' + b"7" * 5000 + b"}"),
        "an integer of 5000 digits, too large to be a token id",  # not sys.set_int_max_str_digits
        names="encoder.json",
    ),
    Case(
        "hf-id-5000-digits",
        _hf(raw=b'{"model": {"vocab": {"a": -' + b"7" * 5000 + b"}}}"),
        "integer of 5000 digits, too large",
    ),
    Case("gpt2-duplicate-id", _gpt2(encoder=_encoder(xyz=5)), "id 5 is used by both", names="encoder.json"),
    Case("gpt2-duplicate-key", _gpt2(encoder=b'{"a": 0, "a": 1}'), "appears twice", names="encoder.json"),
    Case("gpt2-nan-id", _gpt2(encoder=b'{"a": NaN}'), "NaN", names="encoder.json"),
    Case(
        "gpt2-deeply-nested", _gpt2(encoder=b"[" * 100_000 + b"]" * 100_000), "nested too deeply", names="encoder.json"
    ),
    Case("gpt2-merge-unknown-token", _gpt2(merges=b"#version: 0.2\nq z\n"), "needs the token", names="vocab.bpe"),
    Case(
        "gpt2-merges-longer-than-vocab",
        _gpt2(merges=tv.gpt2_merges_text(tv.MERGES * 200).encode()),
        "appears twice",
        names="vocab.bpe",
    ),
    Case("gpt2-merge-three-parts", _gpt2(merges=b"a b c\n"), "expected 'left right'", names="vocab.bpe"),
    Case("gpt2-merges-non-utf8", _gpt2(merges=b"a \xff\n"), "not UTF-8 text", names="vocab.bpe"),
    Case("gpt2-not-a-stand-in", _gpt2(merges="a \u4e00\n".encode()), "not a GPT-2 byte stand-in", names="vocab.bpe"),
    Case(
        "gpt2-missing-vocab-bpe",
        _file("encoder.json", lambda: tv.json_bytes(tv.gpt2_encoder())),
        "missing",
        names="vocab.bpe",
    ),
    # ---- HF tokenizer.json ----
    Case("hf-empty", _hf(raw=b""), "empty"),
    Case("hf-truncated", _hf(raw=tv.json_bytes(tv.hf_spec())[:-300]), "not valid JSON"),
    Case("hf-utf16", _hf(raw=json.dumps(tv.hf_spec()).encode("utf-16")), "not UTF-8 text"),
    Case("hf-top-level-array", _hf(raw=b"[1, 2, 3]"), "the top level must be a JSON object"),
    Case("hf-no-model", _hf(raw=b'{"version": "1.0"}'), '"model" must be a JSON object'),
    Case("hf-vocab-is-a-list", _hf(_set("model.vocab", ["a", "b"])), '"model.vocab" must be a JSON object'),
    Case("hf-id-is-a-string", _hf(_vocab_entry("xyz", "300")), "a string"),
    Case("hf-id-is-a-float", _hf(_vocab_entry("xyz", 3.5)), "a fractional number"),
    Case("hf-id-is-a-bool", _hf(_vocab_entry("xyz", False)), "a boolean"),
    Case("hf-id-negative", _hf(_vocab_entry("xyz", -7)), "non-negative integers"),
    Case("hf-id-out-of-range", _hf(_vocab_entry("xyz", 10**12)), "LBPE_MAX_VOCAB_TOKENS"),
    Case("hf-duplicate-id", _hf(_vocab_entry("xyz", 7)), "id 7 is given to both"),
    Case(
        "hf-duplicate-key",
        _hf(raw=b'{"model": {"type": "BPE", "vocab": {"a": 0, "a": 1}, "merges": []}}'),
        "appears twice",
    ),
    Case("hf-merges-are-numbers", _hf(_set("model.merges", [1, 2, 3])), "expected 'a b'"),
    Case("hf-merges-not-a-list", _hf(_set("model.merges", 17)), "must be a list"),
    Case("hf-merge-unknown-token", _hf(_set("model.merges", ["q z"])), "needs the token"),
    Case("hf-merge-three-parts", _hf(_set("model.merges", ["a b c"])), "exactly two non-empty parts"),
    Case("hf-merge-empty-part", _hf(_set("model.merges", ["a "])), "exactly two non-empty parts"),
    Case("hf-merge-part-a-number", _hf(_set("model.merges", [["a", 5]])), "exactly two non-empty parts"),
    Case("hf-merge-an-object", _hf(_set("model.merges", [{"a": 1, "b": 2}])), "expected 'a b'"),
    Case(
        "hf-merges-longer-than-vocab",
        _hf(lambda s: s["model"].update(merges=s["model"]["merges"] * 100)),
        "repeats merge",
    ),
    Case("hf-added-token-collides", _hf(lambda s: s["added_tokens"][0].update(id=97)), "the vocabulary gives to"),
    Case(
        "hf-added-token-gap-collision",
        _hf(lambda s: s["added_tokens"].append(dict(s["added_tokens"][0], content="<|other|>"))),
        "the same id",
    ),
    Case("hf-added-token-id-string", _hf(lambda s: s["added_tokens"][0].update(id="261")), "a string"),
    Case("hf-added-tokens-not-objects", _hf(_set("added_tokens", [5])), "expected an object"),
    Case("hf-added-token-out-of-range", _hf(lambda s: s["added_tokens"][0].update(id=2**40)), "LBPE_MAX_VOCAB_TOKENS"),
    Case("hf-model-wordpiece", _hf(_set("model.type", "WordPiece")), "model type 'WordPiece' is not supported"),
    Case("hf-model-unigram", _hf(_set("model.type", "Unigram")), "'Unigram'"),
    Case("hf-model-type-number", _hf(_set("model.type", 3)), "model type 3"),
    Case("hf-nan", _hf(raw=tv.json_bytes(tv.hf_spec()).replace(b'"dropout": null', b'"dropout": NaN')), "NaN"),
    Case(
        "hf-infinity",
        _hf(raw=tv.json_bytes(tv.hf_spec()).replace(b'"dropout": null', b'"dropout": -Infinity')),
        "Infinity",
    ),
    Case("hf-deeply-nested-100k", _hf(raw=_nested(100_000)), "nested too deeply"),
    Case("hf-nested-sequences", _hf(_nested_sequences(450)), "nested too deeply"),
    Case("hf-byte-fallback-incomplete", _hf(lambda s: s["model"]["vocab"].pop("<0x41>"), char=True), "256"),
    Case("hf-unk-not-in-vocab", _hf(_set("model.unk_token", "<nope>"), char=True), "unk_token"),
    Case(
        "hf-bad-regex",
        _hf(_set("pre_tokenizer", {"type": "Split", "pattern": {"Regex": "(?<"}, "behavior": "Isolated"})),
        "regular expression",
    ),
    # a regex that backtracks exponentially would hang the encoder on a run of "a"s: refused
    Case(
        "hf-redos-nested-quantifier",
        _hf(_set("pre_tokenizer", {"type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated"})),
        "catastrophic backtracking",
    ),
    Case(
        "hf-redos-repeated-alternation",
        _hf(
            _set(
                "pre_tokenizer",
                {
                    "type": "Sequence",
                    "pretokenizers": [
                        {"type": "Split", "pattern": {"Regex": " ?\\p{L}+"}, "behavior": "Isolated"},
                        {"type": "Split", "pattern": {"Regex": "(?:a|ab)*c"}, "behavior": "Isolated"},
                    ],
                },
            )
        ),
        "(?:a|ab)*",
    ),
    Case(
        "hf-regex-unclosed-hex-escape",
        _hf(_set("pre_tokenizer", {"type": "Split", "pattern": {"Regex": "\\x{41"}, "behavior": "Isolated"})),
        "closing brace",
    ),
    Case(
        "hf-redos-in-normalizer",
        _hf(_set("normalizer", {"type": "Replace", "pattern": {"Regex": "(?:\\s+)*x"}, "content": " "})),
        "catastrophic backtracking",
    ),
    Case(
        "hf-template-unknown-token",
        _hf(lambda s: s["post_processor"]["single"][0]["SpecialToken"].update(id="<nope>"), char=True),
        "<nope>",
    ),
    Case("hf-python-code", _hf(raw=b"import os\nos.system('touch pwned')\n"), "not valid JSON"),
    # ---- SentencePiece .model ----
    Case("sp-empty", _file("tokenizer.model", b""), "empty"),
    Case("sp-truncated", _file("botchan.model", _sp_real_truncated), "not a valid SentencePiece model"),
    Case("sp-cut-after-its-pieces", _file("botchan.model", _sp_real_pieces_only), "without the trainer_spec"),
    Case("sp-random-bytes", _file("x.model", bytes(range(7, 256)) * 10), "not a valid SentencePiece model"),
    Case("sp-unigram", _file("u.model", lambda: tv.sp_model_bytes(model_type=1)), "model type UNIGRAM"),
    Case("sp-unknown-model-type", _file("u.model", lambda: tv.sp_model_bytes(model_type=9)), "model type 9"),
    Case("sp-no-pieces", _file("u.model", lambda: tv.field(2, tv.field(3, 2))), "no pieces"),
    Case("sp-bad-byte-piece", _file("b.model", lambda: _sp_pieces(("<0xZZ>", 0.0, tv.BYTE))), "two hex digits"),
    Case("sp-nan-score", _file("n.model", lambda: _sp_pieces(("ab", float("nan"), tv.NORMAL))), "finite"),
    Case("sp-unused-piece", _file("n.model", lambda: _sp_pieces(("ab", -3.0, tv.UNUSED))), "UNUSED"),
    Case("sp-unknown-piece-type", _file("n.model", lambda: _sp_pieces(("ab", -3.0, 9))), "unknown type 9"),
    Case("sp-duplicate-piece", _file("n.model", lambda: _sp_pieces(("a", -3.0, tv.NORMAL))), "appears twice"),
    Case("sp-bad-wire-type", _file("w.model", lambda: tv.sp_model_bytes() + b"\x0f"), "wire type"),
    Case("sp-bad-charsmap", _file("c.model", _sp_bad_charsmap), "precompiled_charsmap"),
    Case("sp-pickle-payload", _file("tokenizer.model", lambda: pickle.dumps(_Evil())), "not a valid SentencePiece"),
    # ---- folders and odd paths ----
    Case("folder-empty", lambda d: d, "no vocabulary found"),
    Case("folder-with-junk", _junk_folder, "no vocabulary found"),
    Case("folder-with-two-rank-files", _two_rank_files, "holds 2 .tiktoken files"),
    Case("pickle-file", _file("vocab.pkl", lambda: pickle.dumps(_Evil())), "unrecognised vocabulary format"),
    Case("missing-file", lambda d: d / "nope.tiktoken", "no such file"),
]


def test_enough_cases_across_formats():
    assert len(CASES) >= 30
    assert len({c.name for c in CASES}) == len(CASES)
    for prefix in ("tiktoken-", "gpt2-", "hf-", "sp-", "folder-"):
        assert sum(c.name.startswith(prefix) for c in CASES) >= 2, prefix


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_malformed_vocabulary_is_refused_clearly(case, worker, tmp_path):
    target = case.build(tmp_path)
    result = worker.load(target, pattern=case.pattern, env=case.env)
    assert not result["loaded"], f"{case.name}: loaded without error"
    assert result["value_error"], f"{case.name}: {result['type']} escaped:\n{result['traceback']}"
    assert result["format_error"], f"{case.name}: a plain {result['type']}, not VocabFormatError: {result['message']}"
    message = result["message"]
    names = str(tmp_path / case.names) if case.names else str(target)
    assert names in message, f"{case.name}: the message does not name {names}: {message}"
    assert case.problem in message, f"{case.name}: the message does not say {case.problem!r}: {message}"
    if case.max_seconds is not None:
        assert result["seconds"] < case.max_seconds, f"{case.name}: took {result['seconds']:.2f} s"
    assert not (tmp_path / "pwned-by-pickle").exists() and not (ROOT / "pwned-by-pickle").exists()


def test_worker_keeps_working_after_every_refusal(worker, tmp_path):
    """After all the broken files, the same process loads and encodes a good vocabulary."""
    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(tv.tiktoken_bytes())
    result = worker.load(path)
    assert result["loaded"] and result["text"] == "hello world"


def test_the_size_limit_follows_the_environment(worker, tmp_path):
    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(tv.tiktoken_bytes())
    result = worker.load(path, env={"LBPE_MAX_VOCAB_BYTES": "1K"})
    assert not result["loaded"] and "LBPE_MAX_VOCAB_BYTES" in result["message"]
    assert worker.load(path, env={"LBPE_MAX_VOCAB_BYTES": "0"})["loaded"]  # 0: no limit


def test_a_gzipped_vocabulary_over_the_limit_is_measured_decompressed(worker, tmp_path):
    """The limit counts decompressed bytes: a .gz file smaller than the limit but larger
    decompressed is refused as such, and one larger only compressed is not told a size that
    would not load it (the compressed size)."""
    raw = tv.tiktoken_bytes()
    path = tmp_path / "cl100k_base.tiktoken.gz"
    path.write_bytes(gzip.compress(raw))
    assert len(raw) > path.stat().st_size > 500
    result = worker.load(path, env={"LBPE_MAX_VOCAB_BYTES": "500"})
    assert not result["loaded"], result
    assert "decompresses to more than 500 bytes" in result["message"], result["message"]
    assert f"={path.stat().st_size}" not in result["message"], result["message"]
    assert worker.load(path, env={"LBPE_MAX_VOCAB_BYTES": str(len(raw))})["loaded"]
    assert not worker.load(path, env={"LBPE_MAX_VOCAB_BYTES": str(len(raw) - 1)})["loaded"]


def test_gzip_bomb_under_a_raised_limit_is_only_read_to_the_limit(worker, tmp_path):
    path = _gzip_bomb(tmp_path)
    result = worker.load(path, env={"LBPE_MAX_VOCAB_BYTES": "4M"})
    assert "decompresses to more than 4,194,304 bytes" in result["message"]
    assert result["seconds"] < 2
