"""Fuzzing every vocabulary loader with hypothesis: random bytes, byte-level mutations of tiny
valid files (flip, set, truncate, insert, delete, splice), structural mutations of
tokenizer.json/encoder.json trees, and generated SentencePiece protobufs.

Invariant: a loader returns a tokenizer or raises ``ValueError``, never anything else and
never hangs (a per-example alarm); a loaded tokenizer then encodes, segments and decodes a
hostile text in both modes, again with nothing but ``ValueError`` allowed.

``LBPE_FUZZ_EXAMPLES`` sets the examples per target (default 300: about 15 s for all targets).
Every failure found becomes a case in :data:`REGRESSIONS` with its minimal input.
"""

from __future__ import annotations

import copy
import gzip
import json
import math
import os
import signal
import struct
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import lbpe
from lbpe.formats.gpt2 import parse_gpt2_vocab
from lbpe.formats.hf import parse_hf_tokenizer
from lbpe.formats.sentencepiece import parse_sentencepiece_tokenizer
from lbpe.formats.tiktoken import parse_tiktoken_vocab
from lbpe.tokenizer import MODES, Tokenizer
from tests.support import tiny_vocabs as tv
from tests.support.data import data_file

EXAMPLES = int(os.environ.get("LBPE_FUZZ_EXAMPLES", "300"))
HANG_SECONDS = 10
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)

#: the text every loaded tokenizer must survive: specials, a lone surrogate, scripts, controls
HOSTILE = "hello wörld abc ab\u00a0 \u2581x <|endoftext|> <s> </s> <unk> \ud800 \U0001f99c 漢字\x00\t\r\n  end"


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang(f"no answer within {HANG_SECONDS} s")


def outcome(load: Callable[[], object]) -> str:
    """Run one loader call (and use what it returns) under an alarm; return "loaded" or
    "refused"; any other exception propagates and fails the example."""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS)
    try:
        try:
            tok = load()
        except ValueError:
            _note("refused")
            return "refused"
        assert isinstance(tok, Tokenizer), type(tok)
        exercise(tok)
        _note("loaded")
        return "loaded"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _note(what: str) -> None:
    """Count outcomes in hypothesis's statistics (--hypothesis-show-statistics)."""
    try:
        event(what)
    except Exception:  # outside a hypothesis test (the regressions)
        pass


def exercise(tok: Tokenizer) -> None:
    for mode in MODES:
        try:
            ids = tok.encode(HOSTILE, mode=mode, disallowed_special=())
            tok.decode(ids)
            tok.decode_bytes(ids)
        except ValueError:
            pass
        try:
            segs = tok.segment(HOSTILE, mode=mode, disallowed_special=())
            assert all(0 <= s.start <= s.end <= len(HOSTILE) for s in segs)
        except ValueError:
            pass


# ---- the loaders, as functions of bytes ----


def load_tiktoken(data: bytes) -> Tokenizer:
    vocab = parse_tiktoken_vocab(data, source="fuzz.tiktoken", special={"<|endoftext|>": 100257})
    return Tokenizer(vocab, "cl100k_base")


def load_gpt2(encoder: bytes, merges: bytes) -> Tokenizer:
    vocab = parse_gpt2_vocab(encoder, merges, encoder_source="encoder.json", merges_source="vocab.bpe")
    return Tokenizer(vocab, "gpt2")


def load_hf(data: bytes) -> Tokenizer:
    return parse_hf_tokenizer(data, source="tokenizer.json")


def load_sp(data: bytes) -> Tokenizer:
    return parse_sentencepiece_tokenizer(data, source="fuzz.model")


_TMP = Path(tempfile.mkdtemp(prefix="lbpe-fuzz-"))


def load_file(name: str, data: bytes) -> Tokenizer:
    """Through :func:`lbpe.load` (format detection, gzip, size limits)."""
    path = _TMP / name
    path.write_bytes(data)
    return lbpe.load(path, pattern="paper" if ".tiktoken" in name and not name.startswith("cl100k") else None)


# ---- seeds and strategies ----

SEEDS = {
    "tiktoken": tv.tiktoken_bytes(),
    "encoder": tv.json_bytes(tv.gpt2_encoder()),
    "merges": tv.gpt2_merges_text().encode(),
    "hf": tv.json_bytes(tv.hf_spec()),
    "hf_char": tv.json_bytes(tv.hf_char_spec()),
    "sp": tv.sp_model_bytes(),
}
INTERESTING = [
    0x00,
    0x01,
    0x7F,
    0x80,
    0xBF,
    0xC0,
    0xFF,
    0x0A,
    0x20,
    0x22,
    0x2C,
    0x2D,
    0x30,
    0x39,
    0x3A,
    0x5B,
    0x5D,
    0x7B,
    0x7D,
    0x5C,
    0x3D,
    0x2B,
    0x2F,
    0x08,
    0x0D,
    0x12,
    0x1A,
    0x22,
]


@st.composite
def mutated(draw, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "set", "truncate", "insert", "delete", "splice"]))
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        if op == "flip" and data:
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "set" and data:
            data[pos] = draw(st.sampled_from(INTERESTING))
        elif op == "truncate":
            del data[pos:]
        elif op == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=16))
        elif op == "delete":
            del data[pos : pos + draw(st.integers(1, 64))]
        elif op == "splice":
            a = draw(st.integers(0, len(seed)))
            b = draw(st.integers(a, min(len(seed), a + 512)))
            data[pos:pos] = seed[a:b]
    return bytes(data)


COMPONENTS = [
    "BPE",
    "WordPiece",
    "Unigram",
    "ByteLevel",
    "Split",
    "Sequence",
    "Metaspace",
    "Digits",
    "Punctuation",
    "WhitespaceSplit",
    "NFC",
    "NFKC",
    "Lowercase",
    "Strip",
    "Prepend",
    "Replace",
    "ByteFallback",
    "Fuse",
    "TemplateProcessing",
    "RobertaProcessing",
    "Precompiled",
    "Whitespace",
]
KEYS = [
    "type",
    "vocab",
    "merges",
    "pattern",
    "Regex",
    "String",
    "content",
    "id",
    "special",
    "behavior",
    "invert",
    "pretokenizers",
    "normalizers",
    "decoders",
    "processors",
    "prepend",
    "replacement",
    "prepend_scheme",
    "add_prefix_space",
    "use_regex",
    "single",
    "special_tokens",
    "ids",
    "start",
    "stop",
    "byte_fallback",
    "unk_token",
    "fuse_unk",
    "ignore_merges",
    "dropout",
    "lbpe_scaffold",
    "individual_digits",
    "split",
    "cls",
    "sep",
]
scalars = (
    st.none()
    | st.booleans()
    | st.sampled_from([0, 1, -1, 2, 255, 256, 257, 260, 2**31, 10**15])
    | st.integers(-300, 300)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.sampled_from(
        COMPONENTS
        + [
            "",
            " ",
            "\u2581",
            "a",
            "ab",
            "Ġ",
            "<s>",
            "<0x41>",
            "a b",
            "Isolated",
            "Removed",
            "MergedWithPrevious",
            "always",
            "first",
            "never",
            "\\p{L}+",
            "(a|b)*",
            "\\s+(?!\\S)",
            "[",
            "(?i:x)",
        ]
    )
    | st.text(max_size=6)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=10,
)


def _paths(node, prefix=()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        items = list(node.items())
        if len(items) > 24:  # the vocabulary: sample a few entries, not all 260
            items = items[:4] + items[-8:]
        for k, v in items:
            out += _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node[:6]):
            out += _paths(v, prefix + (i,))
    return out


@st.composite
def restructured(draw, spec: dict) -> bytes:
    """A JSON spec with 1-3 nodes replaced, deleted or given an extra key."""
    spec = copy.deepcopy(spec)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(spec)))
        if not path:
            continue
        parent = spec
        try:
            for key in path[:-1]:
                parent = parent[key]
            last = path[-1]
            op = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
            if op == "replace":
                parent[last] = draw(json_values)
            elif op == "delete":
                del parent[last]
            elif isinstance(parent[last], dict):
                parent[last][draw(st.sampled_from(KEYS))] = draw(json_values)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier step removed or replaced the path
    return tv.json_bytes(spec)


@st.composite
def sp_models(draw) -> bytes:
    """Generated SentencePiece protobufs: random pieces, types, scores and trainer fields."""
    texts = st.sampled_from(
        ["<unk>", "<s>", "</s>", "\u2581", "a", "b", "ab", "\u2581a", "abc", "<0x41>", "<0x00>", "<0xZZ>", "", "x" * 40]
    ) | st.text(max_size=4)
    kinds = st.sampled_from([1, 1, 1, 1, 1, 1, 2, 3, 4, 4, 5, 6, 0, 7])
    scores = st.floats(width=32) | st.sampled_from([0.0, -1.0, -2.0])
    pieces = draw(st.lists(st.tuples(texts, scores, kinds), max_size=12, unique_by=lambda p: p[0]))
    if draw(st.integers(0, 3)):  # mostly: the usual specials and byte pieces first, as real models
        pieces = (
            [("<unk>", 0.0, tv.UNKNOWN), ("<s>", 0.0, tv.CONTROL), ("</s>", 0.0, tv.CONTROL)]
            + [(f"<0x{b:02X}>", 0.0, tv.BYTE) for b in range(256)]
            + [p for p in pieces if not p[0].startswith("<")]
        )
    body = b"".join(tv.sp_piece(t, s, k) for t, s, k in pieces)
    trainer = b""
    for number in draw(st.lists(st.sampled_from([24, 35, 35, 40, 41, 42, 43, 44]), max_size=6)):
        if number == 44:
            value = draw(st.text(max_size=4).map(str.encode) | st.binary(max_size=6))
        else:
            value = draw(st.integers(-3, 300) if number >= 40 else st.integers(0, 1))
        trainer += tv.field(number, value)
    trainer = tv.field(3, draw(st.sampled_from([2, 2, 2, 2, 1, 0, 4, 99]))) + trainer
    body += tv.field(2, trainer)
    normalizer = b""
    for number in draw(st.lists(st.sampled_from([1, 2, 3, 4, 5]), max_size=4)):
        normalizer += tv.field(number, draw(st.binary(max_size=40)) if number <= 2 else draw(st.integers(0, 1)))
    if draw(st.booleans()):
        size = draw(st.integers(0, 64)) * 4
        normalizer += tv.field(2, struct.pack("<I", size) + draw(st.binary(min_size=size, max_size=size + 16)))
    body += tv.field(3, normalizer)
    return body


# ---- the targets ----


@FUZZ
@given(data=st.binary(max_size=4096))
def test_fuzz_tiktoken_bytes(data):
    outcome(lambda: load_tiktoken(data))


@FUZZ
@given(data=mutated(SEEDS["tiktoken"]))
def test_fuzz_tiktoken_mutations(data):
    outcome(lambda: load_tiktoken(data))


@FUZZ
@given(encoder=mutated(SEEDS["encoder"]), merges=st.just(SEEDS["merges"]) | mutated(SEEDS["merges"]))
def test_fuzz_gpt2_mutations(encoder, merges):
    outcome(lambda: load_gpt2(encoder, merges))


@pytest.mark.slow(reason="many generated files")
@FUZZ
@given(encoder=restructured(tv.gpt2_encoder()), merges=st.just(SEEDS["merges"]) | st.binary(max_size=64))
def test_fuzz_gpt2_structure(encoder, merges):
    outcome(lambda: load_gpt2(encoder, merges))


@pytest.mark.slow(reason="many generated files")
@FUZZ
@given(data=st.binary(max_size=2048) | st.builds(tv.json_bytes, json_values))
def test_fuzz_hf_bytes(data):
    outcome(lambda: load_hf(data))


@FUZZ
@given(data=mutated(SEEDS["hf"]) | mutated(SEEDS["hf_char"]))
def test_fuzz_hf_mutations(data):
    outcome(lambda: load_hf(data))


@pytest.mark.slow(reason="many generated files")
@FUZZ
@given(data=restructured(tv.hf_spec()))
def test_fuzz_hf_structure_byte_level(data):
    outcome(lambda: load_hf(data))


@pytest.mark.slow(reason="many generated files")
@FUZZ
@given(data=restructured(tv.hf_char_spec()))
def test_fuzz_hf_structure_char_level(data):
    outcome(lambda: load_hf(data))


@FUZZ
@given(data=st.binary(max_size=4096))
def test_fuzz_sentencepiece_bytes(data):
    outcome(lambda: load_sp(data))


@FUZZ
@given(data=mutated(SEEDS["sp"]))
def test_fuzz_sentencepiece_mutations(data):
    outcome(lambda: load_sp(data))


@pytest.mark.slow(reason="many generated files")
@FUZZ
@given(data=sp_models())
def test_fuzz_sentencepiece_generated(data):
    outcome(lambda: load_sp(data))


def _real_charsmap() -> bytes:
    """The nmt_nfkc precompiled charsmap of a real SentencePiece model."""
    from lbpe.formats.sentencepiece import read_fields

    model = data_file("sentencepiece/test/botchan_en_bpe_1000.model").read_bytes()
    normalizer = next(v for f, w, v in read_fields(model) if f == 3 and w == 2)
    return next(v for f, w, v in read_fields(normalizer) if f == 2 and w == 2)


@pytest.mark.slow(reason="many generated models")
@FUZZ
@given(data=st.data())
def test_fuzz_sentencepiece_charsmap(data):
    """Mutations of a real precompiled charsmap (a darts-clone trie) in an otherwise valid model."""
    charsmap = data.draw(mutated(_real_charsmap()))
    normalizer = tv.field(1, b"nmt_nfkc") + tv.field(2, charsmap) + tv.field(3, 1) + tv.field(4, 1)
    outcome(lambda: load_sp(tv.sp_model_bytes(normalizer=normalizer)))


@FUZZ
@given(
    name=st.sampled_from(["cl100k_base.tiktoken.gz", "tokenizer.json.gz", "t.model.gz", "vocab.gz"]),
    data=st.sampled_from([SEEDS["tiktoken"], SEEDS["hf"], SEEDS["sp"]]).flatmap(lambda s: mutated(gzip.compress(s))),
)
def test_fuzz_gzip_files(name, data):
    outcome(lambda: load_file(name, data))


@FUZZ
@given(
    name=st.sampled_from(["x.tiktoken", "tokenizer.json", "x.model", "vocab", "x.json", "encoder.json"]),
    data=st.binary(max_size=512) | mutated(SEEDS["tiktoken"]) | mutated(SEEDS["hf"]),
)
def test_fuzz_lbpe_load_files(name, data):
    if name == "encoder.json":
        (_TMP / "vocab.bpe").write_bytes(SEEDS["merges"])
    outcome(lambda: load_file(name, data))


# ---- regressions: the minimal inputs of failures the fuzzers found ----


def _char_spec_with(**parts) -> bytes:
    spec = tv.hf_char_spec()
    spec.update(parts)
    return tv.json_bytes(spec)


#: (name, loader call, expected outcome)
REGRESSIONS: list[tuple[str, Callable[[], object], str]] = [
    # a Prepend normaliser whose "prepend" is null loaded, then encode raised TypeError
    ("hf-prepend-null", lambda: load_hf(_char_spec_with(normalizer={"type": "Prepend", "prepend": None})), "refused"),
    # a Replace decoder whose "content" is an array loaded, then decode raised TypeError
    (
        "hf-replace-decoder-content-array",
        lambda: load_hf(_char_spec_with(decoder={"type": "Replace", "pattern": {"String": "\u2581"}, "content": []})),
        "refused",
    ),
]


@pytest.mark.parametrize("name, load, expected", REGRESSIONS, ids=[n for n, _, _ in REGRESSIONS])
def test_fuzz_regression(name, load, expected):
    assert outcome(load) == expected


def test_seeds_load():
    """The unmutated seeds are valid, so the mutations start from something that loads."""
    assert outcome(lambda: load_tiktoken(SEEDS["tiktoken"])) == "loaded"
    assert outcome(lambda: load_gpt2(SEEDS["encoder"], SEEDS["merges"])) == "loaded"
    assert outcome(lambda: load_hf(SEEDS["hf"])) == "loaded"
    assert outcome(lambda: load_hf(SEEDS["hf_char"])) == "loaded"
    assert outcome(lambda: load_sp(SEEDS["sp"])) == "loaded"
    assert math.isfinite(0.0) and json.loads(SEEDS["hf"])  # (imports used by the strategies)
