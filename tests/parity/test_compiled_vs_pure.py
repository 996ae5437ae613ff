"""The compiled fast path (lbpe/_native.c) against the pure-Python reference and the naive
transcriptions: same ids on every bundled vocabulary, an HF tokenizer.json and a
SentencePiece model, both modes, on real and adversarial text; and it is safe (debug
allocator, Ctrl-C during a long encode, bounded memory).

The compiled path must be built here: a missing build fails :func:`test_compiled_path_is_active`
(with the reason), unless ``LBPE_PURE_PYTHON`` is set on purpose.
"""

from __future__ import annotations

import functools
import itertools
import os
import random
import signal
import struct
import subprocess
import sys
import textwrap
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lbpe
from lbpe import native
from lbpe.model.lbpe import WALKED
from lbpe.presets import VOCAB_PRESETS, load_preset
from lbpe.tokenizer import MODES
from lbpe.vocab import Vocab
from tests.support.cli import CTRL_C_AS_IN_A_TERMINAL
from tests.support.data import ROOT, data_file, mixed_text
from tests.support.naive import naive_bpe_by_merges, naive_bpe_by_rank, naive_lbpe

pytestmark = pytest.mark.skipif(
    os.environ.get(native.ENV_VAR, "") not in ("", "0"), reason=f"{native.ENV_VAR} forces the pure path"
)

EXTRA = {
    "hf:llama3": "hf/llama3/tokenizer.json",
    "hf:mistral_v0.1": "hf/mistral_v0.1/tokenizer.json",
    "sp:mistral_v1": "sentencepiece/mistral_tokenizer.model.v1",
}
VOCABS = [*VOCAB_PRESETS, *EXTRA]


@functools.cache
def tokenizer(name: str) -> lbpe.Tokenizer:
    return lbpe.load(data_file(EXTRA[name])) if name in EXTRA else load_preset(name)


def both_paths(tok: lbpe.Tokenizer, text: str, mode: str) -> tuple[list[int], list[int]]:
    """(compiled ids, pure ids) of ``text``, each path starting from empty caches."""
    out = []
    try:
        for path in ("compiled", "pure"):
            native.use(path)
            tok.clear_cache()
            out.append(tok.encode(text, mode=mode, disallowed_special=()))
    finally:
        native.use("compiled")
    return out[0], out[1]


def test_compiled_path_is_active():
    info = lbpe.backend()
    assert info.name == "compiled", f"the compiled path is not active: {info.reason}"
    assert info.compiled_available


def test_use_switches_paths_and_names_them():
    try:
        assert native.use("pure").name == "pure"
        assert "use('pure')" in lbpe.backend().reason
        assert native.use("compiled").name == "compiled"
        with pytest.raises(ValueError, match="'compiled' or 'pure'"):
            native.use("fast")  # type: ignore[arg-type]
    finally:
        native.use("compiled")


def test_use_switches_a_tokenizer_that_already_ran_compiled():
    """A tokenizer keeps its compiled model once asked for: use("pure") still takes it off it
    (the model's cache of pieces does not grow), and use("compiled") puts it back on."""
    tok = tokenizer("cl100k_base")
    model = native.model_for(tok.vocab)
    tok.clear_cache()
    tok.encode("a first text", mode="bpe")
    before = model.cached()
    try:
        native.use("pure")
        assert tok.encode(" unseen words here", mode="bpe") == tok.encode_ordinary(" unseen words here", mode="bpe")
        assert model.cached() == before
    finally:
        native.use("compiled")
    tok.encode(" other unseen words", mode="bpe")
    assert model.cached() != before


def test_lbpe_run_from_its_sources_says_the_extension_is_not_built(tmp_path):
    """lbpe copied as source, unbuilt (as a Gradio Space carries it): the pure path, and a
    reason that says the extension was never built there, not an import error's words."""
    import shutil

    shutil.copytree(ROOT / "lbpe", tmp_path / "lbpe", ignore=shutil.ignore_patterns("*.so", "__pycache__", "data"))
    code = "import lbpe; b = lbpe.backend(); print(b.name, '|', b.reason)"
    # -S: no site-packages, so no installed lbpe can answer in place of the copy
    out = subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout
    assert out.startswith("pure | the compiled extension lbpe._native is not built here"), out
    assert "circular" not in out and "pip install" in out, out


def test_env_var_forces_pure_path_in_a_fresh_process():
    code = "import lbpe; b = lbpe.backend(); print(b.name, '|', b.reason)"
    env = {**os.environ, native.ENV_VAR: "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.startswith("pure |") and native.ENV_VAR in out


def test_every_vocabulary_gets_compiled_tables():
    for name in VOCABS:
        assert native.model_for(tokenizer(name).vocab) is not None, name


# ---- same ids as the pure path on real text ----


@pytest.mark.slow(reason="megabytes on both paths")
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", VOCABS)
def test_compiled_equals_pure_on_real_text(name, mode):
    tok = tokenizer(name)
    compared = 0
    for label, text in mixed_text(300_000):
        text = text[:300_000]
        compiled, pure = both_paths(tok, text, mode)
        assert compiled == pure, f"{name} {mode} {label}: first difference at id {_first_difference(compiled, pure)}"
        compared += len(text)
    assert compared > 600_000


def _first_difference(a: list[int], b: list[int]) -> int:
    return next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


# ---- hypothesis: adversarial text on every vocabulary ----

FRAGMENTS = [
    " ",
    "  ",
    "\n",
    "\r\n",
    "\t",
    "\u3000",
    "\u00a0",
    "'s",
    "'LL",
    "e\u0301",
    "👩\u200d💻",
    "🦜",
    "\U0010ffff",
    "日本語",
    "中文字符",
    "한국어",
    "мир",
    "مرحبا",
    "12345",
    "\u2581",
    "<|endoftext|>",
    "<0xFF>",
    "Ġ",
    "ß",
    "İ",
    "a" * 50,
    "ab" * 30,
    " " * 70,
    "-" * 90,
    "=" * 40,
    "\ud800",
    "\udfff",
    "\ud83d\ude00",
    "x\udc80y",
]
TEXTS = (
    st.text(max_size=160)  # every code point, lone surrogates included
    | st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=5), max_size=30).map("".join)
)
EXAMPLES = int(os.environ.get("LBPE_HYPOTHESIS_EXAMPLES", "60"))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", VOCABS)
def test_compiled_equals_pure_on_generated_text(name, mode):
    tok = tokenizer(name)
    runs = []

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(text=TEXTS)
    def check(text):
        runs.append(text)
        compiled, pure = both_paths(tok, text, mode)
        assert compiled == pure

    check()
    assert len(runs) >= EXAMPLES


@pytest.mark.slow(reason="megabyte pieces on both paths")
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "lbpe-32k", "sp:mistral_v1"])
def test_compiled_equals_pure_on_megabyte_pieces(name, mode):
    tok = tokenizer(name)
    # (white space stays at 20,000: the pure path's SentencePiece normaliser is quadratic on it)
    for text in ("a" * 300_000, "ab" * 150_000, "中文" * 100_000, " " * 20_000 + "x", "🦜" * 50_000):
        compiled, pure = both_paths(tok, text, mode)
        assert compiled == pure, f"{name} {mode} {text[:3]!r}..."


# ---- the model stage alone, against the naive transcriptions ----

_words = st.text(alphabet="abc", min_size=2, max_size=6)


def _byte_tokens(*extra: bytes) -> dict[bytes, int]:
    tokens = {bytes([b]): b for b in range(256)}
    for t in extra:
        tokens.setdefault(t, len(tokens))
    return tokens


def _split(vocab: Vocab, ids: tuple[int, ...]) -> list[bytes]:
    return [vocab.id_to_bytes[i] for i in ids]


#: (short, long[, handover]) thresholds of the compiled BPE: the defaults, the heap for every
#: piece, the bucketed sweep for every piece, and the sweep handing over to the heap at its first
#: interrupted sweep (so small examples reach all three algorithms and the hand-over)
THRESHOLDS = [None, (1, 1 << 30), (1, 1), (1, 1, 0)]


@pytest.fixture(params=THRESHOLDS, ids=["default", "heap", "buckets", "handover"])
def bpe_algorithm(request):
    from lbpe import _native

    if request.param is None:
        yield "default"
        return
    old = _native._set_bpe_thresholds(*request.param)
    try:
        yield request.param
    finally:
        _native._set_bpe_thresholds(*old)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_words, max_size=40, unique=True), st.text(alphabet="abc", max_size=300))
def test_compiled_bpe_by_rank_and_lbpe_equal_naive(bpe_algorithm, words, text):
    vocab = Vocab(_byte_tokens(*[w.encode() for w in words]))
    model = native.model_for(vocab)
    piece = text.encode()
    ranks = vocab.tokens
    m = max(map(len, ranks))
    # without the whole-piece shortcut BPE is plain merging; with it a whole token wins
    assert _split(vocab, model.encode_piece(text, False)) == (
        [piece] if piece in ranks else naive_bpe_by_rank(piece, ranks)
    )
    assert _split(vocab, model.encode_piece(text, True)) == naive_lbpe(
        [piece[i : i + 1] for i in range(len(piece))], set(ranks), m
    )


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(alphabet="ab\0", min_size=2, max_size=18), max_size=60, unique=True),
    st.text(alphabet="ab\0", max_size=120),
)
def test_compiled_bpe_and_lbpe_with_nul_bytes_and_long_tokens_equal_naive(words, text):
    """Tokens of 2 to 18 bytes over an alphabet with NUL, which pads a short token's word: the
    compiled lookups (a table for 3 to 8 bytes, one for 9 to 16, the token table beyond) give
    what plain merging and the paper's loop give, on pieces short enough for LBPE to look every
    span up whole and on longer ones that it walks."""
    vocab = Vocab(_byte_tokens(*[w.encode() for w in words]))
    model = native.model_for(vocab)
    ranks = vocab.tokens
    m = max(map(len, ranks))
    for part in (text[:16], text):
        piece = part.encode()
        assert _split(vocab, model.encode_piece(part, False)) == (
            [piece] if piece in ranks else naive_bpe_by_rank(piece, ranks)
        )
        assert _split(vocab, model.encode_piece(part, True)) == naive_lbpe(
            [piece[i : i + 1] for i in range(len(piece))], set(ranks), m
        )


def test_one_and_two_byte_spans_equal_their_tokens():
    """The compiled path answers spans of one or two bytes from a table of their ids: a pair in
    either order, a high byte pair, and a prefix that is not a token (ids by hand)."""
    vocab = Vocab(_byte_tokens(b"xy", b"\xc3\xa9", b"abc"))  # xy 256, \xc3\xa9 257, abc 258
    model = native.model_for(vocab)
    expected = {
        "xy": [256],
        "yx": [121, 120],
        "xyq": [256, 113],
        "qxy": [113, 256],
        "\u00e9": [257],
        "\u00e9x": [257, 120],
        "x\u00e9y": [120, 257, 121],
        "ab": [97, 98],
        "abc": [258],
        "abd": [97, 98, 100],
        "abcd": [97, 98, 99, 100],
    }
    for text, ids in expected.items():
        assert list(model.encode_piece(text, False)) == ids, text
        got = model.encode_pieces([text], method=0, limit=100, cached_chars=64, seconds=0.0, buffer=False)
        assert got == ids, text


def test_lookups_tell_apart_long_tokens_with_one_head():
    """Strings longer than 8 bytes are told apart past their first 8 bytes (ids by hand)."""
    vocab = Vocab(_byte_tokens(b"abcdefghij", b"abcdefghik"))  # 256, 257
    model = native.model_for(vocab)
    for lbpe_mode in (False, True):
        assert list(model.encode_piece("abcdefghij", lbpe_mode)) == [256]
        assert list(model.encode_piece("abcdefghik", lbpe_mode)) == [257]
        assert list(model.encode_piece("abcdefghil", lbpe_mode)) == [*b"abcdefghil"]
    assert list(model.encode_piece("xabcdefghikx", True)) == [120, 257, 120]


def test_lookups_of_3_to_17_bytes_tell_apart_length_and_last_byte():
    """Tokens of 3 to 8 and of 9 to 16 bytes are looked up in tables of their own, keyed by their
    bytes as words: a token and the same bytes with a NUL byte more, two tokens of 16 bytes that
    differ in their last byte, and the lengths at each table's edges, as whole pieces and as
    merges BPE reaches (ids by hand)."""
    vocab = Vocab(
        _byte_tokens(
            b"ab",  # 256
            b"abc",  # 257
            b"abc\0",  # 258
            b"abcd",  # 259
            b"abcdefgh",  # 260
            b"efgh",  # 261
            b"ef",  # 262
            b"efg",  # 263
            b"abcdefghi",  # 264
            b"abcdefgh\0",  # 265
            b"abcdefghabcdefgh",  # 266
            b"abcdefghabcdefgi",  # 267
            b"abcdefghabcdefgh\0",  # 268
        )
    )
    model = native.model_for(vocab)
    x = 120
    expected = {
        "abc": [257],
        "abc\0": [258],
        "abc\0\0": [258, 0],
        "abcdx": [259, x],
        "abcdefgh": [260],
        "abcdefghx": [260, x],
        "abcdefghi": [264],
        "abcdefghix": [264, x],
        "abcdefgh\0": [265],
        "abcdefgh\0x": [265, x],
        "abcdefghabcdefgh": [266],
        "abcdefghabcdefgi": [267],
        "abcdefghabcdefghx": [266, x],
        "abcdefghabcdefgj": [260, 259, 263, ord("j")],
        "abcdefghabcdefgh\0": [268],
        "abcdefghabcdefgh\0x": [268, x],
    }
    for text, ids in expected.items():
        assert list(model.encode_piece(text, False)) == ids, text
        got = model.encode_pieces([text], method=0, limit=100, cached_chars=64, seconds=0.0, buffer=False)
        assert got == ids, text


def test_lbpe_finds_a_token_of_every_length_up_to_20_bytes_inside_a_piece():
    """Each length from 3 to 20 bytes has a token of its own first two bytes (a letter and a
    dash), beside the 2-byte token of those bytes: LBPE places the long one, whatever length,
    in pieces of up to 16 and of 17 to 32 bytes, and inside a longer run (ids by hand)."""
    letters = [chr(ord("A") + k) for k in range(18)]  # A for 3 bytes ... R for 20
    longs = [(c + "-" * (3 + k - 1)).encode() for k, c in enumerate(letters)]
    pairs = [(c + "-").encode() for c in letters]
    vocab = Vocab(_byte_tokens(*longs, *pairs))  # longs 256..273, pairs 274..291
    model = native.model_for(vocab)
    x, dash = 120, 45
    for k, c in enumerate(letters):
        length = 3 + k
        token = c + "-" * (length - 1)
        assert list(model.encode_piece(token + "x", True)) == [256 + k, x], length
        assert list(model.encode_piece("x" + token + "-", True)) == [x, 256 + k, dash], length
        # one dash fewer: only the 2-byte token of the pair is left, then single dashes
        shorter = token[:-1] + "x"
        assert list(model.encode_piece(shorter, True)) == [274 + k] + [dash] * (length - 3) + [x]


def test_an_empty_piece_encodes_to_no_ids():
    """An empty piece (a user's pattern may match the empty string) is no token on either path,
    whatever the vocabulary: here one whose token of 3 bytes lands on the filter bit that the
    empty string's hash reads in the compiled tables of short tokens (ids by hand)."""
    import re

    vocab = Vocab(_byte_tokens(b"kpm"))  # kpm 256
    model = native.model_for(vocab)
    for method in range(5):
        got = model.encode_pieces(["", "x"], method=method, limit=100, cached_chars=64, seconds=0.0, buffer=False)
        assert got == [120], method
    tok = lbpe.Tokenizer(vocab, re.compile(r"[a-z]*"))
    for mode in ("bpe", "lbpe"):
        assert both_paths(tok, "ab 1", mode) == ([97, 98], [97, 98]), mode


def test_lookups_find_prefixes_and_witnesses():
    """Lookups of strings that are not in the tables end early (a filter of their hashes): a walk
    must still pass the prefixes that are not tokens, and a boundary inside a token must not be
    taken for a cut (ids by hand)."""
    zh, wen = "\u4e2d".encode(), "\u6587".encode()
    vocab = Vocab(_byte_tokens(b"abcd", zh + wen))  # abcd 256, the two characters 257
    model = native.model_for(vocab)
    # LBPE walks ab and abc (prefixes, not tokens) to reach abcd
    assert list(model.encode_piece("abcd", True)) == [256]
    assert list(model.encode_piece("xabcdx", True)) == [120, 256, 120]
    # BPE by rank reaches abcd only as the whole piece (no ab, bc or cd)
    assert list(model.encode_piece("abcd", False)) == [256]
    assert list(model.encode_piece("abcdx", False)) == [97, 98, 99, 100, 120]
    # the boundary between the two characters is inside a token: no cut there, one after
    piece = "\u4e2d\u6587\u4e2d"
    got = model.encode_pieces([piece], method=1, limit=100, cached_chars=64, seconds=0.0, buffer=False)
    assert got == [257, *zh]
    assert model.encode_pieces([piece], method=0, limit=100, cached_chars=64, seconds=0.0, buffer=False) == [
        *zh,
        *wen,
        *zh,
    ]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(_words.map(lambda w: w[:1]) | _words, _words), max_size=40, unique=True),
    st.text(alphabet="abc", max_size=300),
)
def test_compiled_bpe_by_merges_equals_naive(bpe_algorithm, pairs, text):
    tokens = _byte_tokens(*[t.encode() for a, b in pairs for t in (a, b, a + b)])
    merges = {(a.encode(), b.encode()): r for r, (a, b) in enumerate(pairs)}
    vocab = Vocab(tokens, merges=merges, whole_piece_first=False)
    assert _split(vocab, native.model_for(vocab).encode_piece(text, False)) == naive_bpe_by_merges(
        text.encode(), merges
    )


def test_a_token_no_merge_makes_is_kept_whole_only_where_whole_pieces_come_first():
    """The token "abc" is one no merge makes (only b + c merges). A text's pieces through the
    whole encoder, both paths: BPE keeps the piece "abc" whole only when whole pieces come first
    (tiktoken, HF's ignore_merges), else merges it; LBPE takes the longest token either way."""
    tokens = _byte_tokens(b"bc", b"abc")
    merges = {(b"b", b"c"): 0}
    expected = {
        (False, "bpe"): [b"a", b"bc", b" ", b"a", b"bc"],
        (True, "bpe"): [b"abc", b" ", b"a", b"bc"],
        (False, "lbpe"): [b"abc", b" ", b"abc"],
        (True, "lbpe"): [b"abc", b" ", b"abc"],
    }
    before = native.backend().name
    try:
        for (whole_first, mode), split in expected.items():
            vocab = Vocab(tokens, merges=merges, whole_piece_first=whole_first)
            tok = lbpe.Tokenizer(vocab, "paper")
            for path in ("compiled", "pure"):
                native.use(path)
                tok.clear_cache()
                assert _split(vocab, tuple(tok.encode("abc abc", mode=mode))) == split, (path, mode)
    finally:
        native.use(before)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(_words, st.integers(0, 3), max_size=30), st.text(alphabet="abc", max_size=300))
def test_compiled_bpe_with_tied_priorities_equals_naive(bpe_algorithm, tied, text):
    # several tokens share a priority: the leftmost best pair merges first, in short and long pieces
    tokens = _byte_tokens(*[w.encode() for w in tied])
    merges = {}
    ranks = {t: 10 for t in tokens if len(t) == 1}
    for w, r in tied.items():
        ranks[w.encode()] = r
    # the merge-list form of "priority = rank of the merged token", with ties
    for w, r in tied.items():
        b = w.encode()
        for cut in range(1, len(b)):
            if b[:cut] in tokens and b[cut:] in tokens:
                merges[(b[:cut], b[cut:])] = r
    vocab = Vocab(tokens, merges=merges, whole_piece_first=False)
    assert _split(vocab, native.model_for(vocab).encode_piece(text, False)) == naive_bpe_by_merges(
        text.encode(), merges
    )


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.text(alphabet="aé中", min_size=1, max_size=4), min_size=1, max_size=20, unique=True),
    st.text(alphabet="aé中z", max_size=60),
)
def test_compiled_character_units_equal_naive(bpe_algorithm, words, text):
    tokens = {w.encode(): i for i, w in enumerate(words)}
    vocab = Vocab(tokens, unit="char", unk=len(tokens) + 1, special={"<unk>": len(tokens) + 1})
    model = native.model_for(vocab)
    m = max(map(len, words))
    expected = naive_lbpe(list(text), set(words), m)
    got = model.encode_piece(text, True)
    assert got == tuple(tokens.get(k.encode(), vocab.unk) for k in expected)
    assert model.encode_piece(text, False) == tuple(
        tokens.get(k.encode(), vocab.unk)
        for k in ([text] if text in words else naive_bpe_by_rank(text, {w: i for i, w in enumerate(words)}))
    )


_long_words = st.text(alphabet="ab", min_size=WALKED - 3, max_size=3 * WALKED)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_long_words, max_size=12, unique=True),
    st.lists(_words, max_size=20, unique=True),
    st.text(alphabet="abc", max_size=8 * WALKED),
)
def test_compiled_lbpe_with_tokens_longer_than_walked_equals_naive(long_words, words, text):
    # windows over WALKED units: the polynomial hashes and the gaps of the compiled scan
    vocab = Vocab(_byte_tokens(*[w.encode() for w in [*words, *long_words]]))
    piece = text.encode()
    expected = naive_lbpe([piece[i : i + 1] for i in range(len(piece))], set(vocab.tokens), vocab.max_len)
    assert _split(vocab, native.model_for(vocab).encode_piece(text, True)) == expected


def test_compiled_token_table_grows_past_its_first_size():
    """The compiled token table holds every token and every proper prefix of one, sized at first
    for about 2.5 of them a token: 40 tokens of 200-240 bytes (about 9,000 prefixes for 296
    tokens) make it grow several times. Every token is found again afterwards, and LBPE of a text
    of them, overlapping, equals the naive transcription."""
    import random

    rng = random.Random(5)
    long_tokens = [bytes(rng.choice(b"abcdefgh") for _ in range(200 + k)) for k in range(40)]
    vocab = Vocab(_byte_tokens(*long_tokens))
    model = native.model_for(vocab)
    for t in long_tokens:  # one token each, found through the grown table
        assert model.encode_piece(t.decode(), True) == (vocab.tokens[t],)
    piece = b"".join(t[: len(t) // 2] + t for t in long_tokens[::3])
    expected = naive_lbpe([piece[i : i + 1] for i in range(len(piece))], set(vocab.tokens), vocab.max_len)
    assert _split(vocab, model.encode_piece(piece.decode(), True)) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="aé中", min_size=WALKED - 3, max_size=2 * WALKED), max_size=10, unique=True),
    st.lists(st.text(alphabet="aé中", min_size=1, max_size=4), min_size=1, max_size=20, unique=True),
    st.text(alphabet="aé中z", max_size=6 * WALKED),
)
def test_compiled_character_units_with_long_tokens_equal_naive(long_words, words, text):
    # long windows of characters: units of several bytes, windows of a length in units
    tokens = {w.encode(): i for i, w in enumerate(dict.fromkeys([*words, *long_words]))}
    vocab = Vocab(tokens, unit="char", unk=len(tokens) + 1, special={"<unk>": len(tokens) + 1})
    expected = naive_lbpe(list(text), {k.decode() for k in tokens}, vocab.max_len)
    got = native.model_for(vocab).encode_piece(text, True)
    assert got == tuple(tokens.get(k.encode(), vocab.unk) for k in expected)


# ---- safety ----


def _python(code: str, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow(reason="a process under the debug allocator")
def test_differential_under_the_debug_allocator():
    """PYTHONMALLOC=debug catches buffer overruns and misuse of the allocator by the extension."""
    code = f"""
        import lbpe
        from lbpe import native
        texts = ["a" * 5000, "中文" * 3000, " " * 4000 + "x", "\\ud800 x \\U0010ffff", "Hello world's 123 🦜",
                 open({str(data_file("text/multilingual.txt"))!r}, encoding='utf-8').read()[:60000]]
        checked = 0
        for name in ("cl100k_base", "lbpe-32k"):
            tok = lbpe.load_preset(name)
            for mode in ("bpe", "lbpe"):
                for text in texts:
                    native.use("compiled"); tok.clear_cache(); a = tok.encode(text, mode=mode)
                    native.use("pure"); tok.clear_cache(); b = tok.encode(text, mode=mode)
                    assert a == b, (name, mode, text[:20])
                    checked += 1
                native.use("compiled"); tok.clear_cache()
                batch = tok.encode_batch(texts * 2, mode=mode, workers=2)
                assert batch == [tok.encode(t, mode=mode) for t in texts * 2]
        print("checked", checked)
    """
    proc = _python(code, PYTHONMALLOC="debug")
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-3000:]
    assert "checked 24" in out


def test_ctrl_c_interrupts_a_long_compiled_encode():
    code = f"""
        {CTRL_C_AS_IN_A_TERMINAL}
        import sys, time, lbpe
        tok = lbpe.load_preset("cl100k_base")
        text = "ab" * 4_000_000 + " " + "中" * 3_000_000
        print("ready", flush=True)
        t = time.perf_counter()
        try:
            while True:
                tok.clear_cache()
                tok.encode(text, mode="bpe")
                tok.encode(text, mode="lbpe")
        except KeyboardInterrupt:
            print("interrupted after", round(time.perf_counter() - t, 2), flush=True)
            sys.exit(3)
    """
    proc = _python(code)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(1.0)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        waited = time.monotonic() - sent
    finally:  # a failed test leaves nothing running
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 3, err[-2000:]
    assert "interrupted" in out
    print(f"KeyboardInterrupt reached Python {waited:.2f}s after SIGINT")
    assert waited < 10


@pytest.mark.slow(reason="a process encoding megabytes")
def test_memory_stays_bounded_over_many_distinct_pieces():
    """Encoding a stream of never-repeating pieces keeps the process size flat: the piece cache
    is bounded and the extension frees its per-call buffers."""
    code = """
        import resource, random, lbpe
        tok = lbpe.load_preset("o200k_base")
        tok.cache_size = 20_000
        rnd = random.Random(5)
        def word():
            return "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz中文") for _ in range(rnd.randint(3, 12)))
        def text():
            return " ".join(word() for _ in range(20_000))
        for mode in ("bpe", "lbpe"):
            for _ in range(3):
                tok.encode(text(), mode=mode)
        first = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for mode in ("bpe", "lbpe"):
            for _ in range(12):
                tok.encode(text(), mode=mode)
        print(first, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    """
    proc = _python(code)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    first, last = map(int, out.split())
    assert last < first * 1.15 + 20_000, f"peak RSS grew from {first} to {last} KiB"


def test_a_first_list_of_ids_makes_only_the_ints_it_holds():
    """The model's shared ints are made as ids are first listed: a short text's list of ids
    makes a few Python objects, not one for every token of the vocabulary (200,000 for
    o200k_base, about 6 MB that a one-off encode never used). A listed id is the same int
    object in every later list, encode_batch's included."""
    code = """
        import sys, lbpe
        from lbpe import native
        tok = lbpe.load_preset("o200k_base")
        native.use("compiled")
        text = "Tokenizers split text into pieces, then pieces into tokens."
        for mode in ("bpe", "lbpe"):
            tok.encode_to_array(text, mode=mode)  # the tables built, no list of ids yet
        before = sys.getallocatedblocks()
        first = tok.encode(text, mode="lbpe")
        made = sys.getallocatedblocks() - before
        again = tok.encode(text, mode="bpe") + tok.encode(text, mode="lbpe")
        batch = tok.encode_batch([text] * 4, mode="lbpe", workers=2)
        same = all(x is y for x, y in zip(first, again[len(again) - len(first):]))
        same = same and all(x is y for ids in batch for x, y in zip(first, ids))
        print(made, len(first), same, batch == [first] * 4)
    """
    proc = _python(code)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-2000:]
    made, count, same, batch_equal = out.split()
    assert int(count) > 5
    assert int(made) < 200, f"listing {count} ids made {made} objects"
    assert same == "True", "a listed id came back as another int object"
    assert batch_equal == "True"


def test_the_tables_do_not_hold_their_vocabulary():
    """The tables live in the vocabulary's __dict__; if they referred back to it, no vocabulary
    (an uploaded one in the playground, say) would ever be freed."""
    vocab = Vocab({b"a": 0, b"b": 1, b"ab": 2}, unit="char", unk=0)
    before = sys.getrefcount(vocab)
    assert native.model_for(vocab) is not None
    assert sys.getrefcount(vocab) == before


# ---- the compiled pre-tokenisers of the presets ----

SPLIT_TEXTS = (
    st.text(max_size=120)  # every code point: letters, marks, digits of all scripts, surrogates
    | st.lists(
        st.sampled_from(FRAGMENTS + ["'S", "'ll", "'Ve", "\u017f", "'\u017f", "/", "\r\n\r\n  ", "\n \n", " \t"])
        | st.text(max_size=4),
        max_size=30,
    ).map("".join)
)


@pytest.mark.parametrize("name", sorted(native.PRESET_CODES))
def test_compiled_split_equals_the_preset_pattern(name):
    from lbpe.pretokenize import compile_pattern, split_text

    pattern = compile_pattern(name).regex  # the full pattern, exact on every input
    for label, text in mixed_text(200_000):
        text = text[:200_000]
        assert native.split(text, name) == pattern.findall(text), f"{name} {label}"
    runs = []

    @settings(max_examples=4 * EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(text=SPLIT_TEXTS)
    def check(text):
        runs.append(text)
        assert native.split(text, name) == pattern.findall(text) == split_text(text, name)

    check()
    assert len(runs) >= 4 * EXAMPLES


@pytest.mark.parametrize("name", sorted(native.PRESET_CODES))
def test_compiled_split_of_letter_runs_across_blocks(name):
    """Letter runs of every length up to 40, in both cases, with a letter (or a non-letter)
    beyond ASCII at each place, in texts of each storage width, before each kind of end (the
    ASCII neighbours of the letter ranges among them), and at the text's end."""
    from lbpe.pretokenize import compile_pattern

    pattern = compile_pattern(name).regex
    # an ASCII filler forces nothing; \xe9 (1 byte), \u0436 (2), \U0001d41a (4) are letters,
    # \xd7 and \u2014 are not
    widths = {"1": "\xe9", "2": "\u0436", "4": "\U0001d41a"}
    # with the ASCII neighbours of the letter ranges (@ [ ` {), also after bit 5 is set
    enders = ["", " ", ".", "7", "'s", "\n", "\xd7", "\u2014", "A", "a", "@", "[", "`", "{", "_", "\x7f"]
    for width, letter in widths.items():
        for length in range(1, 41):
            word = "".join("abcXYZqrsTUVwxyz"[k % 16] for k in range(length))
            for at in range(0, length + 1, 3):
                for odd in (letter, "\xd7", "\u2014"):
                    run = word[:at] + odd + word[at:]
                    for end in enders:
                        text = f"{letter} {run}{end} {run.lower()}{end}{run.upper()}"
                        assert native.split(text, name) == pattern.findall(text), (name, width, text)


def test_ascii_blocks_serve_the_presets_they_were_written_for():
    """The splitter's ASCII blocks are on for cl100k_base, o200k_base, llama3 and qwen2 with the
    class table lbpe gives the extension (it switches them off for a table whose ASCII classes
    differ), and off for the presets they do not know."""
    import lbpe._native as ext

    native.split("a b", "cl100k_base")  # sets the class table
    on = {name for name, code in native.PRESET_CODES.items() if ext.block_path(code)}
    assert on == {"cl100k_base", "o200k_base", "llama3", "qwen2"}
    # a table that makes "_" a letter, in a fresh interpreter (the table is the module's)
    script = textwrap.dedent(
        """
        import lbpe._native as ext
        from lbpe.pretokenize.classes import field_ranges
        from lbpe.unicode import category_ranges
        fields = [field_ranges(f) for f in ("L", "N", "Lu_Lt_Lm_Lo_M", "Ll_Lm_Lo_M", "WS")]
        ext.set_classes([*fields[0], (95, 95)], *fields[1:], category_ranges("M"),
                        category_ranges("P S"), [])
        print(ext.block_path(1), ext.split("a_b c", 1))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split(None, 1) == ["False", "['a_b', ' c']\n"]


# ASCII of every class the splitter's blocks tell apart (letters, digits, \s and the rest, \r \n,
# the space, the apostrophe, the slash, ASCII that is not \s); then Latin-1, which the blocks
# classify by the class table (letters of either case, letters that are both upper and lower to
# o200k_base, digits, white space, controls and signs), and wider code points, which they leave
# to the code-point splitter (a letter of each width, U+AC00 and U+FFFF, negative as 16-bit
# integers, a digit, a mark, a symbol, white space)
BLOCK_ASCII = "abzAZ09 \t\r\n\x0b\x0c\x1c\x00\x7f'/.,!-(\"_`{@["
BLOCK_OTHERS = (
    "\xe9\xc9\xdf\xb5\xaa\xba\xd7\xab\xb2\xbd\xa0\x85\x80\u0436\u4e2d\uac00\uffff\U0001d41a\u0661\u0301\u2014\u2028"
)
BLOCK_TEXTS = st.lists(
    st.sampled_from(list(BLOCK_ASCII)) | st.sampled_from(["'s", "'LL", "  ", "\r\n", "word", " the", "123"]),
    min_size=1,
    max_size=160,
).map("".join)


@pytest.mark.parametrize("name", sorted(native.PRESET_CODES))
@settings(max_examples=3 * EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(text=BLOCK_TEXTS, odd=st.sampled_from(list(BLOCK_OTHERS)), at=st.lists(st.integers(0, 200), max_size=3))
def test_compiled_split_of_ascii_blocks(name, text, odd, at):
    """Text that is mostly ASCII, up to 160 code points (so pieces cross the 64-code-point
    blocks the compiled splitter classifies, at every offset), with a code point beyond ASCII
    put in at up to three places, stored 1, 2 and 4 bytes a code point: the same pieces as the
    preset's pattern."""
    from lbpe.pretokenize import compile_pattern

    pattern = compile_pattern(name).regex
    for k in sorted(at, reverse=True):
        text = text[:k] + odd + text[k:]
    # the same text in each storage width: a widening code point in front, split off on its own
    for wide in ("", "\u0100 ", "\U0001f600 "):
        t = wide + text
        assert native.split(t, name) == pattern.findall(t), (name, t)


@pytest.mark.parametrize("name", sorted(native.PRESET_CODES))
def test_compiled_split_of_runs_across_ascii_blocks(name):
    """Each kind of run the ASCII blocks end with bit operations (letters with and without a
    leading character, in each case and before a contraction, digits, punctuation with and
    without a space, and a punctuation's [\r\n]* or [\r\n/]* tail), of lengths 1-70, starting at
    every offset 0-70 of the text, then ended by ASCII, by a code point beyond ASCII of the run's
    own class or not, or by the text's end."""
    from lbpe.pretokenize import compile_pattern

    pattern = compile_pattern(name).regex
    runs = {
        "letters": lambda m: "x" * m,
        "lead": lambda m: " " + "x" * m,
        "capitals": lambda m: "X" * m,
        "capitalised": lambda m: "X" * (m // 2 + 1) + "x" * m,
        "camel case": lambda m: ("xxX" * m)[:m],
        "contraction": lambda m: "x" * m + "'Ve",
        "digits": lambda m: "7" * m,
        "punctuation": lambda m: "!" * m,
        "spaced": lambda m: " " + "!" * m,
        "tail": lambda m: "!" + "\n" * m,
        "crlf tail": lambda m: " ?" + "\r\n" * m,
        "slash tail": lambda m: "!" + "\n/" * m,
    }
    # \uac00 (a letter) and \uffff are negative as 16-bit integers, which a plain narrowing
    # of the text stored 2 bytes a code point would make NUL, an ASCII "other"
    enders = ["", ".", " ", "\n", "x", "\xe9", "\u0663", "\u2014", "\xa0", "\uac00", "\uffff"]
    offsets = range(71)
    if os.environ.get("LBPE_SANITIZED"):  # scripts/sanitize.sh: about 30 times slower there
        offsets = [*range(4), *range(28, 36), *range(60, 71)]  # the rescan point and block's end
    for label, run in runs.items():
        for m in (1, 2, 3, 4, 15, 16, 17, 31, 32, 33, 63, 64, 65, 70):
            for offset in offsets:
                for end in enders:
                    text = "ab"[: offset % 2] + " ab" * (offset // 3) + "." * (offset % 3 == 2)
                    text = text[:offset].ljust(offset, ".") + run(m) + end
                    for wide in ("", "\u0100 "):
                        t = wide + text
                        assert native.split(t, name) == pattern.findall(t), (name, label, m, offset, t)


#: one code point of each class the ASCII blocks tell apart, a quote and LF (which they settle by
#: what follows them), and a letter and a space beyond ASCII (which end what they settle)
SETTLED_CLASSES = "aB1! \t'\n\xe9\xa0"


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama3", "qwen2"])
def test_compiled_split_of_every_short_string_of_classes(name):
    """Every string of up to five code points drawn from SETTLED_CLASSES, alone (the text ends
    after it) and after 60 ASCII code points (it crosses a block's end): the same pieces as the
    preset's pattern. The ASCII blocks settle several pieces at once for these presets, from the
    classes of each code point's neighbours, so every neighbourhood of up to five is tried."""
    from lbpe.pretokenize import compile_pattern

    pattern = compile_pattern(name).regex
    strings = [""]
    # scripts/sanitize.sh: up to four, every neighbourhood a rule looks at (a code point, two
    # before it and one after)
    for _ in range(4 if os.environ.get("LBPE_SANITIZED") else 5):
        strings = [s + c for s in strings for c in SETTLED_CLASSES]
        for s in strings:
            for t in (s, "ab! 12 " * 8 + "cdef" + s + "z"):
                assert native.split(t, name) == pattern.findall(t), (name, t)


#: what the ASCII blocks settle through runs of: white space with CR and LF, the tails of "other"
#: runs (o200k_base's take '/'), quotes before letters and not
RUN_CLASSES = " \t\n\r\x0b/'s(!aB1\xe9\xa0"


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "llama3", "qwen2"])
def test_compiled_split_of_random_runs_of_white_space_newlines_and_quotes(name):
    """Strings of up to 30 code points, half of them white space, CR or LF and the rest drawn
    from RUN_CLASSES (the same strings on every run): alone (the text ends in them), after up
    to 84 ASCII code points (across a block's end) and twice with a word between: the same
    pieces as the preset's pattern. A white-space run's pieces depend on its last CR or LF and
    on whether it ends the text, which the short strings above do not reach."""
    from lbpe.pretokenize import compile_pattern

    pattern = compile_pattern(name).regex
    rng = random.Random(33)
    for _ in range(2000 if os.environ.get("LBPE_SANITIZED") else 20000):
        s = "".join(rng.choice(" \n\r\t" if rng.random() < 0.5 else RUN_CLASSES) for _ in range(rng.randint(1, 30)))
        prefix = "ab! 12 " * rng.randint(0, 12) + "cd"[: rng.randint(0, 2)]
        for t in (s, prefix + s + "z", s + "q" * rng.randint(0, 70) + s):
            assert native.split(t, name) == pattern.findall(t), (name, t)


@pytest.mark.parametrize("mode", ["bpe", "lbpe"])
@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_compiled_ids_of_ascii_pieces_in_wider_texts(name, mode):
    """ASCII pieces of every length up to 20 in texts stored 1, 2 and 4 bytes a code point, with
    a code point beyond ASCII at each place in and after them, and ending 0-20 code points before
    the text's end: the compiled path reads such pieces 16 code points at a time, and a code
    point beyond ASCII taken for ASCII there would change the ids. Cold and warm, against the
    pure path."""
    tok = tokenizer(name)
    # per storage width, code points beyond ASCII that a narrowing could mistake for ASCII:
    # 1 byte: \x80-\xff; 2 bytes: also \u0100 (above a byte) and \uac00 (negative as int16);
    # 4 bytes: also above U+FFFF
    odds = {
        1: ["\x80", "\xe9", "\xff"],
        2: ["\xe9", "\u0100", "\u2014", "\uac00", "\uffff"],
        4: ["\xe9", "\u0100", "\uac00", "\U00010000", "\U0001f642"],
    }
    for width, chars in odds.items():
        parts = []
        for length in range(1, 21):
            word = "".join("the QUICK 42 fox's {jumps}."[k % 27] for k in range(length))
            for at in range(length + 2):
                for odd in chars:
                    parts.append(word[:at] + odd + word[at:])
        text = " ".join(parts)
        texts = [text] + [text[: len(text) - cut] for cut in range(0, 21)] + [p for p in parts[::7]]
        for t in texts:
            assert max(map(ord, t), default=0) >= 0x80
            compiled, pure = both_paths(tok, t, mode)
            assert compiled == pure, (width, t[-40:])
            for _ in range(2):  # the second time from the piece cache
                assert tok.encode(t, mode=mode, disallowed_special=()) == pure, (width, "warm", t[-40:])


@pytest.fixture(params=["SSE2", "AVX2", "AVX-512BW"])
def block_classifier(request):
    """Each classifier of the splitter's ASCII blocks that this processor runs, set for the test
    (the process uses the widest otherwise)."""
    import lbpe._native as ext

    level = ["SSE2", "AVX2", "AVX-512BW"].index(request.param)
    best = ext._block_simd()[1]
    if level > best:
        pytest.skip(f"this processor has no {request.param}")
    old = ext._block_simd(level)[0]
    yield request.param
    ext._block_simd(old)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_every_block_classifier_splits_and_encodes_alike(name, block_classifier):
    """Texts of ASCII of every class the blocks tell apart, with code points beyond ASCII of
    each width among them (stored 1, 2 and 4 bytes a code point), and real text: the pieces of
    the preset's pattern, and the ids of the pure path, cold and warm, with each classifier."""
    from lbpe.pretokenize import compile_pattern

    pattern = compile_pattern(name).regex
    tok = tokenizer(name)
    rng = random.Random(64)
    texts = [text[:100_000] for _, text in mixed_text(100_000)]
    for _ in range(300):
        odd = rng.choice(BLOCK_OTHERS)
        text = "".join(
            rng.choice(BLOCK_ASCII)
            if rng.random() < 0.8
            else rng.choice(["'s", " the", "123", odd, " f\xfcr", "\xdcBER", "\xe0\xba", "X\xb2\xb3"])
            for _ in range(rng.randint(60, 400))
        )
        texts += [text, "\u0100 " + text, "\U0001f600 " + text]
    for text in texts:
        assert native.split(text, name) == pattern.findall(text), (block_classifier, text[:80])
    for text in texts[:4] + texts[4::40]:
        compiled, pure = both_paths(tok, text, "bpe")
        assert compiled == pure, (block_classifier, text[:80])
        assert tok.encode(text, mode="bpe", disallowed_special=()) == pure, (block_classifier, "warm")


@pytest.mark.slow(reason="every code point, every pattern")
@pytest.mark.parametrize("name", sorted(native.PRESET_CODES))
def test_compiled_split_on_every_code_point(name):
    """Each code point alone, after a space, before a letter, and doubled: the class tables
    the extension was given agree with the pattern's classes everywhere."""
    from lbpe.pretokenize import compile_pattern

    pattern = compile_pattern(name).regex
    step = 0x400
    for lo in range(0, 0x110000, step):
        chars = [chr(c) for c in range(lo, lo + step)]
        text = "".join(f" {c}a{c}{c}'s\n" for c in chars)
        assert native.split(text, name) == pattern.findall(text), f"{name} near U+{lo:04X}"


#: a tokenizer whose text the extension splits with each preset (qwen2's is not among the data)
PRESET_TOKENIZERS = {
    "r50k_base": "gpt2",
    "cl100k_base": "cl100k_base",
    "o200k_base": "o200k_base",
    "llama3": "hf:llama3",
    "paper": "lbpe-32k",
}


@pytest.mark.parametrize("name", sorted(native.PRESET_CODES))
def test_compiled_split_of_latin1_text_on_every_code_point(name, block_classifier):
    """A text of Latin-1 alone (one byte a code point, which the blocks classify beyond ASCII by
    the class table): each code point from U+0080 to U+00FF among ASCII letters, digits, quotes,
    spaces and line ends, and in runs, as the pattern splits it, and its ids as the pure path's."""
    from lbpe.pretokenize import compile_pattern

    pattern = compile_pattern(name).regex
    chars = [chr(c) for c in range(0x80, 0x100)]
    text = "".join(f" {c}a{c}{c}'s\n x{c}Y 1{c}2 '{c} {c}{c}{c}\r\n{c}  {c}.{c}\t" for c in chars)
    text += " " + "".join(chars) + " " + "".join(reversed(chars)) + "".join(chars[::3])
    assert max(map(ord, text)) <= 0xFF and not text.isascii()
    for t in (text, text[:-1], text[: len(text) // 3]):
        assert native.split(t, name) == pattern.findall(t), (block_classifier, name)
    if name in PRESET_TOKENIZERS:
        tok = tokenizer(PRESET_TOKENIZERS[name])
        assert tok._preset_code == native.PRESET_CODES[name]
        compiled, pure = both_paths(tok, text, "bpe")
        assert compiled == pure, block_classifier


@pytest.mark.parametrize("name", ["cl100k_base", "gpt2", "lbpe-32k"])
def test_compiled_bpe_on_very_long_pieces_equals_pure(name):
    """Pieces beyond the heap's range take the bucketed sweep: random letters (many distinct
    pairs), one repeated letter (every pair ties) and a repeated syllable, against the pure path."""
    import random

    rng = random.Random(7)
    tok = tokenizer(name)
    for text in (
        "".join(rng.choice("abcdefghij") for _ in range(60_000)),
        "a" * 50_000,
        "abc" * 20_000,
        "".join(rng.choice("аб中文") for _ in range(20_000)),
    ):
        compiled, pure = both_paths(tok, text, "bpe")
        assert compiled == pure, f"{name} {text[:5]!r}"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.text(alphabet="aé中b", min_size=2, max_size=4), max_size=25, unique=True),
    st.text(alphabet="aé中b", min_size=1, max_size=80),
    st.booleans(),
)
def test_compiled_cuts_equal_naive(bpe_algorithm, words, text, merge_list):
    """A whole text as one piece (so the compiled path splits it at cuts and caches the parts),
    against the naive transcriptions over the whole piece, byte units, both modes."""
    import re

    tokens = _byte_tokens(*[w.encode() for w in words])
    merges = None
    if merge_list:  # every split of a token into two tokens, in token order
        merges = {}
        for t, i in sorted(tokens.items(), key=lambda kv: kv[1]):
            for cut in range(1, len(t)):
                if t[:cut] in tokens and t[cut:] in tokens:
                    merges.setdefault((t[:cut], t[cut:]), i)
    vocab = Vocab(tokens, merges=merges)
    tok = lbpe.Tokenizer(vocab, re.compile(r"(?s).+"))
    piece = text.encode()
    if merges is None:
        bpe = [piece] if piece in tokens else naive_bpe_by_rank(piece, tokens)
    else:
        bpe = [piece] if piece in tokens else naive_bpe_by_merges(piece, merges)
    m = max(map(len, tokens))
    for _ in range(2):  # the second time from the caches
        assert tok.encode(text, mode="bpe") == [tokens[k] for k in bpe]
        assert tok.encode(text, mode="lbpe") == [
            tokens[k] for k in naive_lbpe([piece[i : i + 1] for i in range(len(piece))], set(tokens), m)
        ]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(st.text(alphabet="aé中b", min_size=2, max_size=4), st.integers(0, 2), st.integers(0, 2)),
        max_size=25,
    ),
    st.text(alphabet="aé中b", min_size=1, max_size=80),
)
def test_compiled_cuts_with_tokens_inside_characters_equal_naive(words, text):
    """Tokens that start or end inside a character (a word's bytes less up to two at either end,
    as byte-level vocabularies have them): a boundary such a token covers is no cut, on the
    compiled path as in the naive transcriptions of the whole piece, both modes."""
    import re

    cut = {w.encode()[head : len(w.encode()) - tail] for w, head, tail in words}
    tokens = _byte_tokens(*sorted(t for t in cut if len(t) >= 2))
    tok = lbpe.Tokenizer(Vocab(tokens), re.compile(r"(?s).+"))
    piece = text.encode()
    bpe = [piece] if piece in tokens else naive_bpe_by_rank(piece, tokens)
    m = max(map(len, tokens))
    for _ in range(2):  # the second time from the caches
        assert tok.encode(text, mode="bpe") == [tokens[k] for k in bpe]
        assert tok.encode(text, mode="lbpe") == [
            tokens[k] for k in naive_lbpe([piece[i : i + 1] for i in range(len(piece))], set(tokens), m)
        ]


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "o200k_base"])
def test_safe_cut_is_the_same_on_both_paths(name):
    """Tokenizer.safe_cut (where lbpe stats and export cut a stream) asks the compiled splitter
    for the last piece starts only; it must choose the same cut as the full regex scan."""
    import random

    text = data_file("text/multilingual_words.txt").read_text("utf-8") + data_file("text/code.txt").read_text("utf-8")
    rng = random.Random(3)
    tok = tokenizer(name)
    try:
        for _ in range(150):
            a = rng.randrange(len(text))
            sample = text[a : a + rng.randrange(0, 4000)]
            native.use("compiled")
            compiled = tok.safe_cut(sample)
            native.use("pure")
            assert tok.safe_cut(sample) == compiled
    finally:
        native.use("compiled")


def test_tiny_piece_caches_give_the_pure_paths_ids():
    """The compiled encoder looks pieces up a few pieces after it has split them: with a cache
    that is emptied every few pieces (and pieces over 16 bytes among short ones), every piece
    still gets its own ids, in order, alone and in batches."""
    tok = tokenizer("cl100k_base")
    text = "".join(t[:6_000] for _, t in mixed_text(6_000)) + " supercalifragilisticexpialidocious a" * 40
    docs = [text[k : k + 1_500] for k in range(0, len(text), 1_500)]
    for mode in MODES:
        native.use("pure")
        try:
            tok.clear_cache()
            expected = tok.encode(text, mode=mode, disallowed_special=())
            expected_docs = [tok.encode(d, mode=mode, disallowed_special=()) for d in docs]
        finally:
            native.use("compiled")
        kept = tok.cache_size
        try:
            for size in (1, 3, 9, 50):
                tok.cache_size = size
                tok.clear_cache()
                assert tok.encode(text, mode=mode, disallowed_special=()) == expected, (mode, size)
                assert tok.encode(text, mode=mode, disallowed_special=()) == expected, (mode, size)
                assert tok.encode_batch(docs, mode=mode, workers=2, disallowed_special=()) == expected_docs
        finally:
            tok.cache_size = kept
            tok.clear_cache()


def test_encode_batch_threads_equal_one_by_one():
    """encode_batch on the compiled path runs threads without the GIL: the same ids as encode()
    one by one, with special tokens, lone surrogates, BOS/EOS and empty texts, in both modes."""
    tok = tokenizer("cl100k_base")
    docs = [t[:20_000] for _, t in mixed_text(200_000)] * 3
    docs += ["", "a<|endoftext|>b", "x\ud800y \udc00", "pair \ud83e\udd9c", "🦜" * 500, " " * 3000]
    docs += ["日本語のテキスト" * 100]
    for mode in MODES:
        for special in ({"allowed_special": "all"}, {"disallowed_special": ()}):
            tok.clear_cache()
            one_by_one = [tok.encode(d, mode=mode, **special) for d in docs]
            tok.clear_cache()
            assert tok.encode_batch(docs, mode=mode, workers=2, **special) == one_by_one
            assert tok.encode_batch(docs, mode=mode, workers=3, **special) == one_by_one  # warm, 3 threads
    # many texts, taken by the threads in turn
    many = [t[i : i + 1_000] for _, t in mixed_text(100_000) for i in range(0, 40_000, 1_000)]
    assert len(many) >= 150
    for mode in MODES:
        tok.clear_cache()
        one_by_one = [tok.encode(d, mode=mode, disallowed_special=()) for d in many]
        assert sum(map(len, one_by_one)) >= 1 << 15, "too few ids to fill the lists on threads"
        tok.clear_cache()
        assert tok.encode_batch(many, mode=mode, workers=2, disallowed_special=()) == one_by_one
        assert tok.encode_batch(many, mode=mode, workers=3, disallowed_special=()) == one_by_one  # warm
    with pytest.raises(lbpe.DisallowedSpecialError):
        tok.encode_batch(["fine", "a<|endoftext|>b"], mode="bpe", workers=2)


def _refcounts(objects: list) -> list[int]:
    return [sys.getrefcount(obj) for obj in objects]


def _occurrences(lists: list[list[int]]) -> dict[int, int]:
    """How many items of ``lists`` are each object (by identity)."""
    held: dict[int, int] = {}
    for ids in lists:
        for obj in ids:
            held[id(obj)] = held.get(id(obj), 0) + 1
    return held


def test_encode_batch_counts_every_int_it_hands_out():
    """The ids encode_batch returns are the model's shared int objects: each list item holds one
    reference, however the lists were filled (on threads, in a batch this large). Counted with
    sys.getrefcount on ids past the small ints Python keeps for itself."""
    tok = tokenizer("cl100k_base")
    docs = [t[i : i + 4_000] for _, t in mixed_text(400_000) for i in range(0, len(t), 4_000)]
    for mode in MODES:
        tok.clear_cache()
        shared = {i: i for i in itertools.chain(*tok.encode_batch(docs, mode=mode, disallowed_special=())) if i > 1_000}
        watched = [shared[i] for i in sorted(shared)[:: max(1, len(shared) // 50)]]
        before = _refcounts(watched)
        batch = tok.encode_batch(docs, mode=mode, workers=2, disallowed_special=())
        assert sum(map(len, batch)) > 100_000, "too few ids to fill the lists on threads"
        assert all(x is shared[x] for x in itertools.chain(*batch) if x in shared), "not the shared int"
        held = _occurrences(batch)
        assert _refcounts(watched) == [was + held.get(id(obj), 0) for obj, was in zip(watched, before)]
        del batch
        assert _refcounts(watched) == before


def test_encode_batch_finishes_while_tracemalloc_traces(tmp_path):
    """With tracemalloc on, every allocation through PyMem_RawMalloc takes the GIL: a thread of
    encode_batch that allocates while the caller holds the GIL and waits for it would wait for
    ever. A cold batch of many distinct long pieces (the model's cache grows as the threads'
    caches are gathered) must finish, in a child process that is stopped if it does not."""
    code = textwrap.dedent(
        """
        import random, tracemalloc
        from lbpe import native
        from lbpe.presets import load_preset
        native.use("compiled")
        tok = load_preset("cl100k_base")
        rng = random.Random(1)
        docs = [" ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(20))
                         for _ in range(400)) for _ in range(64)]
        expected = [tok.encode(d, mode="bpe", disallowed_special=()) for d in docs]
        tracemalloc.start()
        for _ in range(2):
            tok.clear_cache()
            assert tok.encode_batch(docs, mode="bpe", workers=2, disallowed_special=()) == expected
        print("done")
        """
    )
    try:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this tree's lbpe, wherever lbpe is installed
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path, env=env
        )
    except subprocess.TimeoutExpired:
        pytest.fail("encode_batch did not finish with tracemalloc on")
    assert out.returncode == 0 and out.stdout.strip() == "done", out.stderr


def test_encode_batch_threads_raise_the_real_error():
    """A share that fails in a thread (here: a character this vocabulary cannot encode) is encoded
    again on the caller's thread, which raises the error encode() raises."""
    bare = lbpe.Tokenizer(Vocab({b"a": 0, b"b": 1}, unit="char"), "paper")
    assert bare.encode_batch(["ab", "ba", "aa"], mode="lbpe", workers=2) == [[0, 1], [1, 0], [0, 0]]
    with pytest.raises(lbpe.LbpeError, match="has no token"):
        bare.encode_batch(["ab", "a z", "b"], mode="bpe", workers=2)
    with pytest.raises(lbpe.LbpeError, match="has no token"):  # among many
        bare.encode_batch(["ab"] * 60 + ["a z"] + ["ba"] * 60, mode="bpe", workers=2)
    # and the model is usable afterwards
    assert bare.encode("ab", mode="bpe") == [0, 1]


@pytest.mark.slow(reason="a pip install")
def test_installing_without_a_c_compiler_gives_the_pure_path(tmp_path):
    """With no working compiler the build only warns: the wheel has no extension, lbpe imports,
    encodes, and lbpe.backend() says why it runs the pure path."""
    import shutil
    import zipfile

    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    source = tmp_path / "src"
    for name in files:
        if name.startswith(("spaces/", "tests/", "static/")):
            continue
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, source / name)
    env = {**os.environ, "CC": "/bin/false"}
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "-q", "-w", str(tmp_path / "wheel")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    (wheel,) = (tmp_path / "wheel").glob("lbpe-*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        assert not [n for n in names if n.endswith((".so", ".pyd"))], names
        z.extractall(tmp_path / "site")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import lbpe; b = lbpe.backend(); "
        "t = lbpe.load_preset('gpt2'); print(b.name, t.encode('hello world', mode='lbpe'), b.reason)"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code, str(tmp_path / "site")],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout
    assert out.startswith("pure [31373, 995]") and "not built" in out, out


def test_misuse_and_edge_cases_of_the_glue_stay_safe():
    """Misuse of the compiled module and edge cases of its glue: each of these once crashed, hung
    or gave other ids than the pure path."""
    import threading

    from lbpe import _native
    from lbpe.normalize import Unicode

    # a Model that was never initialised refuses politely
    with pytest.raises(RuntimeError, match="not initialised"):
        _native.Model.__new__(_native.Model).encode_piece("ab", False)

    # pack() takes exact ints only: an __index__ that changes the list cannot make it overrun
    class Grows(int):
        pass

    with pytest.raises(TypeError):
        _native.pack([[Grows(1)]])
    # encode_batch on threads normalises like encode() (Qwen 2's NFC normaliser with its preset)
    tokens = {bytes([b]): b for b in range(256)} | {"é".encode(): 256}
    tok = lbpe.Tokenizer(Vocab(tokens), "qwen2", normalizer=Unicode("NFC"))
    texts = ["e\u0301t\u00e9", "cafe\u0301"] * 3
    assert tok.encode_batch(texts, mode="bpe", workers=2) == [tok.encode(t, mode="bpe") for t in texts]
    # scaffold tokens nested deeper than any fixed stack split fully, as in the pure path
    chain = {bytes([b]): b for b in range(256)}
    scaffold = {}
    for k in range(2, 81):
        chain[b"a" * k] = 254 + k
        if k < 80:
            scaffold[254 + k] = (chain[b"a" * (k - 1)], ord("a"))
    deep = lbpe.Tokenizer(Vocab(chain, scaffold=scaffold), "paper")
    both = both_paths(deep, "a" * 80 + " " + "a" * 70, "bpe")
    assert both[0] == both[1]
    # other threads wait for an encode_batch instead of failing, and clear_cache waits too
    big = lbpe.Tokenizer(tokenizer("cl100k_base").vocab, "cl100k_base")
    docs = [t[:50_000] for _, t in mixed_text(400_000)] * 4
    errors, results = [], []

    def batch():
        try:
            results.append(big.encode_batch(docs, mode="lbpe", workers=2))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    worker = threading.Thread(target=batch)
    worker.start()
    alone = [big.encode(d, mode="lbpe") for d in docs[:3]]
    big.clear_cache()
    worker.join()
    assert not errors and results[0][:3] == alone


def _stub_names(body: list) -> set[str]:
    import ast

    names = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_stub_describes_exactly_what_the_extension_exports():
    """lbpe/_native.pyi names every function of the module and every method of Model, and no
    more (mypy checks the wrapper against it)."""
    import ast

    from lbpe import _native

    stub = ast.parse((ROOT / "lbpe" / "_native.pyi").read_text(encoding="utf-8"))
    public = {name for name in dir(_native) if not name.startswith("__")}
    assert _stub_names(stub.body) == public
    (model,) = [node for node in stub.body if isinstance(node, ast.ClassDef) and node.name == "Model"]
    methods = {name for name in vars(_native.Model) if not name.startswith("__")} | {"__init__"}
    assert _stub_names(model.body) == methods


def test_each_module_object_keeps_its_own_state():
    """Multi-phase init: a second module object made from the same file has its own classes and
    thresholds (set_classes on one leaves the other without), and its own Model type."""
    import importlib.util

    from lbpe import _native

    native.split("hello world", "cl100k_base")  # sets the classes on the imported module
    spec = importlib.util.spec_from_file_location("lbpe._native", _native.__file__)
    fresh = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fresh)
    assert fresh is not _native and fresh.Model is not _native.Model
    with pytest.raises(RuntimeError, match=r"set_classes\(\) first"):
        fresh.split("hello world", native.PRESET_CODES["cl100k_base"])
    assert _native.split("hello world", native.PRESET_CODES["cl100k_base"]) == ["hello", " world"]
    old = fresh._set_bpe_thresholds(1, 1)
    try:
        assert _native._set_bpe_thresholds(*old) == old  # the imported module's are untouched
    finally:
        fresh._set_bpe_thresholds(*old)


def test_model_keywords_are_named():
    """The options the wrapper passes are keyword-only, so a swapped pair cannot pass silently."""
    vocab = tokenizer("cl100k_base").vocab
    model = native.model_for(vocab)
    with pytest.raises(TypeError):
        model.encode_pieces(["ab"], True, 100, 64, 0.0)
    got = model.encode_pieces(["ab"], method=1, limit=100, cached_chars=64, seconds=0.0, buffer=False)
    assert got == [vocab.tokens[b"ab"]]
    # names made at run time (not the interned strings a call site passes) are the same names
    made = {"".join(name): value for name, value in ((("meth", "od"), 1), (("lim", "it"), 100))}
    made |= {"".join(("cached", "_chars")): 64, "".join(("sec", "onds")): 0.0, "".join(("buf", "fer")): False}
    assert all(sys.intern(name) is not name for name in made)
    assert model.encode_pieces(["ab"], **made) == [vocab.tokens[b"ab"]]
    with pytest.raises(TypeError, match="unexpected keyword argument 'methods'"):
        model.encode_pieces(["ab"], **made, **{"".join(("meth", "ods")): 1})
    with pytest.raises(TypeError, match="missing required keyword argument 'buffer'"):
        model.encode_pieces(["ab"], method=1, limit=100, cached_chars=64, seconds=0.0)
    # buffer=True: the same ids as bytes of native-endian int32, one per id
    raw = model.encode_pieces(["ab", " x"], method=1, limit=100, cached_chars=64, seconds=0.0, buffer=True)
    assert raw == struct.pack("=2i", vocab.tokens[b"ab"], vocab.tokens[b" x"])


def test_the_core_is_plain_c():
    """csrc/ is the algorithm without CPython: no file there includes Python.h, and each compiles
    on its own with no Python headers on the include path (lbpe/_native.c is the only glue)."""
    import shutil
    import sysconfig

    sources = sorted((ROOT / "csrc").glob("*.[ch]"))
    assert {p.name for p in sources} >= {"core.h", "table.c", "bpe.c", "lbpe.c", "cuts.c", "cache.c"}
    for path in sources:
        assert "Python.h" not in path.read_text(encoding="utf-8"), path.name
    assert "Python.h" in (ROOT / "lbpe" / "_native.c").read_text(encoding="utf-8")
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    assert shutil.which(cc), f"no C compiler {cc!r} on PATH (the compiled path needs one)"
    for path in sources:
        if path.suffix == ".c":
            done = subprocess.run(
                [cc, "-std=c11", "-fsyntax-only", "-Wall", "-Werror", "-I", str(ROOT / "csrc"), str(path)],
                capture_output=True,
                text=True,
            )
            assert done.returncode == 0, f"{path.name}: {done.stderr[-2000:]}"


def test_c_sources_keep_to_100_columns():
    """The C sources end their lines by column 100, as .clang-format lays them out."""
    sources = [*sorted((ROOT / "csrc").glob("*.[ch]")), ROOT / "lbpe" / "_native.c"]
    long = [
        f"{path.name}:{number}"
        for path in sources
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if len(line) > 100
    ]
    assert not long, long
    assert "ColumnLimit: 100" in (ROOT / ".clang-format").read_text(encoding="utf-8")
