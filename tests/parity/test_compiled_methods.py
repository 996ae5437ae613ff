"""The compiled longest-prefix, longest-suffix and least-tokens (csrc/greedy.c, csrc/shortest.c,
csrc/starts.c) against the pure methods (lbpe.model.greedy, .shortest) and the naive loops of
tests/support/naive.py: the same ids, on hand-worked examples and on real vocabularies and text.

Hand-worked answers are written out here, not computed by the code under test. Every test needs
the compiled extension: a missing build fails (as the ``encode_path`` fixture does), never skips.
"""

from __future__ import annotations

import array
import functools
import re
import sys
import tracemalloc

import pytest

import lbpe
from lbpe import native
from lbpe.tokenizer import Tokenizer, keys
from lbpe.tokenizer.bulk import CACHED_PIECE_CHARS
from lbpe.vocab import Vocab
from tests.support.data import data_file, english_text
from tests.support.naive import naive_least_tokens, naive_longest_prefix, naive_longest_suffix

NEW = ("longest-prefix", "longest-suffix", "least-tokens")
CODES = native.METHOD_CODES

#: lbpe.model.lbpe.WALKED and csrc/core.h's WALKED: longer tokens come from the long-token hash
WALKED = 16


@pytest.fixture(autouse=True)
def compiled():
    """The compiled path, built (a missing build fails here), restored afterwards."""
    before = native.backend().name
    native.use("compiled")
    yield
    native.use(before)


def piece_ids(tok: Tokenizer, piece: str, mode: str) -> list[int]:
    """One piece through the compiled model stage (no cache)."""
    model = native.model_for(tok.vocab)
    assert model is not None
    return list(model.encode_piece(piece, CODES[mode]))


def pure_piece_ids(tok: Tokenizer, piece: str, mode: str) -> list[int]:
    """One piece through the pure model stage (lbpe.tokenizer.keys, with its cuts)."""
    return keys.key_ids(tok.vocab, tok._split[mode](piece))


# ---- a tiny hand-written vocabulary, expected ids worked out by hand ----------------------------

#: after the 256 bytes: ab=256 abc=257 cd=258 cde=259 bc=260 bcd=261, then x*20=262 x*17=263 xx=264
TINY_MERGED = [b"ab", b"abc", b"cd", b"cde", b"bc", b"bcd", b"x" * 20, b"x" * 17, b"xx"]


def tiny() -> Tokenizer:
    tokens = {bytes([b]): b for b in range(256)}
    tokens.update({t: 256 + k for k, t in enumerate(TINY_MERGED)})
    return Tokenizer(Vocab(tokens, special={"<|end|>": 300}), "paper")


#: piece -> (longest-prefix, longest-suffix, least-tokens) ids, by hand
TINY_ANSWERS = {
    # from the left abc is the longest at 0, then d, e; from the right cde, then ab; the only
    # two-token segmentation is ab|cde
    "abcde": ([257, 100, 101], [256, 259], [256, 259]),
    # ab|cd, abc|d, a|bcd: two tokens each; the tie rule takes abc|d (lengths 3, 1 largest)
    "abcd": ([257, 100], [97, 261], [257, 100]),
    # d bc ab from either end, and no two tokens cover it
    "dbcab": ([100, 260, 256], [100, 260, 256], [100, 260, 256]),
    # 40 x: two tokens of 20 from either end (longer than WALKED: the long-token hash)
    "x" * 40: ([262, 262], [262, 262], [262, 262]),
    # 37 x: 20 then 17 from the left, 17 then 20 from the right; fewest: two, 20|17 first
    "x" * 37: ([262, 263], [263, 262], [262, 263]),
    # 21 x: 20 and a single x; fewest 20|1 (larger than 1|20)
    "x" * 21: ([262, 120], [120, 262], [262, 120]),
    # 34 x: greedy takes 20 and then seven xx; the fewest are 17|17
    "x" * 34: ([262] + [264] * 7, [264] * 7 + [262], [263, 263]),
    # 16 x (WALKED): eight xx, whichever way
    "x" * 16: ([264] * 8, [264] * 8, [264] * 8),
    # a long token among short ones: ab, then 20 x, then cd
    "ab" + "x" * 20 + "cd": ([256, 262, 258], [256, 262, 258], [256, 262, 258]),
}


@pytest.mark.parametrize("piece", list(TINY_ANSWERS))
def test_known_answers_on_a_tiny_vocabulary(piece):
    tok = tiny()
    for mode, expected in zip(NEW, TINY_ANSWERS[piece]):
        assert piece_ids(tok, piece, mode) == expected, (piece, mode)
        assert pure_piece_ids(tok, piece, mode) == expected, (piece, mode)


def test_known_answers_with_character_units_and_byte_fallback():
    # characters as units: "é" has no token, so it stands alone and takes its UTF-8 bytes'
    # fallback ids (0xC3 0xA9 -> 100 + byte); ж*18 (18 units, 36 bytes) is longer than WALKED
    tokens = {b"a": 0, b"b": 1, b"ab": 2, "ж".encode(): 3, ("ж" * 18).encode(): 4, ("ж" * 2).encode(): 5}
    fallback = {b: 100 + b for b in range(256)}
    vocab = Vocab(tokens, unit="char", byte_fallback=fallback, merges={(b"a", b"b"): 0})
    tok = Tokenizer(vocab, "paper")
    e_ids = [100 + 0xC3, 100 + 0xA9]
    for mode in NEW:
        assert piece_ids(tok, "abéab", mode) == [2, *e_ids, 2], mode
        assert piece_ids(tok, "éé", mode) == e_ids * 2, mode
    # 19 ж: 18|1 from the left and for the fewest (larger first), 1|18 from the right
    assert piece_ids(tok, "ж" * 19, "longest-prefix") == [4, 3]
    assert piece_ids(tok, "ж" * 19, "longest-suffix") == [3, 4]
    assert piece_ids(tok, "ж" * 19, "least-tokens") == [4, 3]
    # 20 ж: 18|2 from the left, 2|18 from the right, fewest 18|2
    assert piece_ids(tok, "ж" * 20, "longest-prefix") == [4, 5]
    assert piece_ids(tok, "ж" * 20, "longest-suffix") == [5, 4]
    assert piece_ids(tok, "ж" * 20, "least-tokens") == [4, 5]


def test_a_vocabulary_without_fallback_names_the_character():
    tok = Tokenizer(Vocab({b"a": 0, b"b": 1, b"ab": 2}, unit="char", merges={(b"a", b"b"): 0}), "paper")
    for mode in NEW:
        with pytest.raises(lbpe.LbpeError, match="é"):
            piece_ids(tok, "abé", mode)


def test_an_unknown_method_code_is_refused():
    model = native.model_for(tiny().vocab)
    for code in (-1, len(CODES)):
        with pytest.raises(ValueError, match="unknown method code"):
            model.encode_piece("ab", code)
        with pytest.raises(ValueError, match="unknown method code"):
            model.encode_pieces(["ab"], method=code, limit=10, cached_chars=64, seconds=0.0, buffer=False)
        with pytest.raises(ValueError, match="unknown method code"):
            model.encode_text("ab", 1, method=code, limit=10, cached_chars=64, seconds=0.0, buffer=False)
        with pytest.raises(ValueError, match="unknown method code"):
            model.encode_batch(["ab"], 1, method=code, limit=10, cached_chars=64, threads=1)


class Index:
    """An integer that is no int: numpy's ints are such."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


def test_the_encode_calls_name_what_is_wrong_with_their_arguments():
    model = native.model_for(tiny().vocab)
    code = native.PRESET_CODES["cl100k_base"]
    options = dict(method=0, limit=10, cached_chars=64, seconds=0.0, buffer=False)
    assert model.encode_text("ab", code, **options) == model.encode_pieces(["ab"], **options)
    ids = model.encode_text("ab", code, **options)
    assert model.encode_text("ab", code, **{**options, "buffer": 1}) == array.array("i", ids).tobytes()
    for name, args in (("encode_text", ("ab", code)), ("encode_pieces", (["ab"],))):
        call = getattr(model, name)
        with pytest.raises(TypeError, match=f"{name}\\(\\) missing required keyword argument 'seconds'"):
            call(*args, **{k: v for k, v in options.items() if k != "seconds"})
        with pytest.raises(TypeError, match=f"{name}\\(\\) got an unexpected keyword argument 'limits'"):
            call(*args, **options, limits=3)
        takes = f"{len(args)} positional argument{'s' if len(args) > 1 else ''} \\({len(args) + 1} given\\)"
        with pytest.raises(TypeError, match=f"{name}\\(\\) takes {takes}"):
            call(*args, 0, **options)
        # numbers as the "i" and "n" formats took them: any object with __index__ (numpy's ints)
        assert call(*args, **{**options, "method": Index(0), "limit": Index(10), "cached_chars": Index(64)}) == ids
        with pytest.raises(TypeError, match="integer"):
            call(*args, **{**options, "limit": "10"})
        with pytest.raises(OverflowError, match="method out of range"):
            call(*args, **{**options, "method": 2**40})
    with pytest.raises(TypeError, match="text must be str, not bytes"):
        model.encode_text(b"ab", code, **options)
    with pytest.raises(TypeError, match="pieces must be a list, not tuple"):
        model.encode_pieces(("ab",), **options)
    with pytest.raises(ValueError, match="unknown preset"):
        model.encode_text("ab", -1, **options)


# ---- real vocabularies and real text ------------------------------------------------------------


@functools.cache
def real(name: str) -> Tokenizer:
    """cl100k_base (byte units, a rank file) and Mistral-7B (character units, byte fallback)."""
    return lbpe.load_preset(name)


REAL = ("cl100k_base", "mistral-7b")

#: code with long runs of spaces, dashes and equals signs (cl100k has tokens of them longer
#: than WALKED bytes), emoji, CJK, and characters Mistral has no token for
ODD = (
    "def f():\n" + " " * 40 + "return 1\n" + "#" + "-" * 79 + "\n" + "=" * 64 + "\n" + "/" * 33 + "\n"
    "    " * 12 + "x = {'a': 1}\n" + "*" * 70 + "\n"
    "東京都の天気は晴れです。中文分词测试。 🤖🎉👍🏽 👨‍👩‍👧 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ꙮ \U0001f9ff \x00\x7f\u200b"
)


def sample_text() -> str:
    multilingual = data_file("text/multilingual.txt").read_text("utf-8")
    code = data_file("text/code.txt").read_text("utf-8")
    return english_text(20_000)[:20_000] + multilingual[:20_000] + code[:10_000] + ODD


def distinct_pieces(tok: Tokenizer, text: str) -> list[str]:
    found = set(tok.pieces(text))
    if tok.vocab.unit == "char":  # no pre-tokeniser: the whole text is one piece; take its words
        found |= {word for piece in found for word in re.findall("\u2581?[^\u2581]+|\u2581+", piece)}
    return sorted(found)


def model_keys(tok: Tokenizer) -> set:
    vocab = tok.vocab
    return {k for k, i in vocab.model_tokens.items() if i not in vocab.scaffold}


@pytest.mark.parametrize("name", REAL)
def test_real_pieces_equal_the_pure_and_naive_methods(name):
    tok = real(name)
    tokens = model_keys(tok)
    naive = {"longest-prefix": naive_longest_prefix, "longest-suffix": naive_longest_suffix}
    compared = dict.fromkeys(NEW, 0)
    for piece in distinct_pieces(tok, sample_text()):
        units = piece.encode() if tok.vocab.unit == "byte" else piece
        for mode in NEW:
            got = piece_ids(tok, piece, mode)
            assert got == pure_piece_ids(tok, piece, mode), (mode, piece[:80])
            if mode in naive and len(units) <= 200:
                assert got == keys.key_ids(tok.vocab, naive[mode](units, tokens)), (mode, piece)
                compared[mode] += 1
            elif mode == "least-tokens" and len(units) <= 9:  # the naive one tries every segmentation
                assert got == keys.key_ids(tok.vocab, naive_least_tokens(units, tokens)), piece
                compared[mode] += 1
    assert min(compared.values()) > 300, compared  # the sample really exercised every method


def test_tokens_longer_than_walked_units_are_found():
    tok = real("cl100k_base")
    lengths = {i: len(t) for t, i in tok.vocab.tokens.items()}
    for mode in NEW:
        ids = piece_ids(tok, " " * 40, mode)  # cl100k has tokens of runs of spaces up to 128
        assert max(lengths[i] for i in ids) > WALKED, mode
        for piece in tok.pieces(ODD):
            assert piece_ids(tok, piece, mode) == pure_piece_ids(tok, piece, mode), (mode, piece)
    # the runs of dashes and spaces in ODD take such tokens in every method
    for mode in NEW:
        ids = [i for piece in tok.pieces(ODD) for i in piece_ids(tok, piece, mode)]
        assert sum(lengths.get(i, 0) > WALKED for i in ids) >= 3, mode


def test_the_piece_cache_is_kept_per_method():
    """One model asked for every method in turn on the same pieces: a piece cached for one
    method is never served for another (the methods really differ on these pieces)."""
    tok = real("cl100k_base")
    model = native.model_for(tok.vocab)
    model.clear_cache()
    pieces = tok.pieces(sample_text())
    expected = {mode: [i for p in pieces for i in pure_piece_ids(tok, p, mode)] for mode in (*NEW, "bpe", "lbpe")}
    assert len({tuple(ids) for ids in expected.values()}) == 5  # five different answers
    for _ in range(2):  # cold, then warm
        for mode in (*NEW, "bpe", "lbpe", *reversed(NEW)):
            got = model.encode_pieces(
                pieces, method=CODES[mode], limit=100_000, cached_chars=64, seconds=0.0, buffer=False
            )
            assert got == expected[mode], mode
    assert all(model.cached())


def test_the_piece_cache_keeps_each_piece_once():
    """Pieces of every kind a cache slot stores (up to 16 bytes and two ids in the slot alone,
    longer keys and more ids in the arenas too), through the slots growing from 1,024 to 16,384
    and a batch's worker caches merged into the model's: every distinct piece is cached once,
    and a second pass finds each one (it adds none) and gives the same ids. (Pieces of more
    characters than cached_chars are never cached: 64 below, the tokenizer's own in a batch.)"""
    tok = real("cl100k_base")
    model = native.model_for(tok.vocab)
    text = sample_text()
    pieces = sorted(set(tok.pieces(text)))
    ids = {p: pure_piece_ids(tok, p, "bpe") for p in pieces}
    long_keys = [p for p in pieces if len(p.encode()) > 16]
    many_ids = [p for p in pieces if len(p.encode()) <= 16 and len(ids[p]) > 2]
    assert len(pieces) > 1_100 and len(long_keys) >= 20 and len(many_ids) >= 20
    expected = [i for p in pieces for i in ids[p]]
    model.clear_cache()
    for _ in range(2):
        got = model.encode_pieces(
            pieces, method=CODES["bpe"], limit=100_000, cached_chars=64, seconds=0.0, buffer=False
        )
        assert got == expected
        assert model.cached()[CODES["bpe"]] == sum(len(p) <= 64 for p in pieces)
    docs = [text[k : k + 2_000] for k in range(0, len(text), 2_000)]
    in_docs = {p for d in docs for p in tok.pieces(d) if len(p) <= CACHED_PIECE_CHARS}
    one_by_one = [tok.encode(d, mode="bpe", disallowed_special=()) for d in docs]
    tok.clear_cache()
    assert tok.encode_batch(docs, mode="bpe", workers=2, disallowed_special=()) == one_by_one
    assert model.cached()[CODES["bpe"]] == len(in_docs)
    assert [tok.encode(d, mode="bpe", disallowed_special=()) for d in docs] == one_by_one
    assert model.cached()[CODES["bpe"]] == len(in_docs)
    tok.clear_cache()


def distinct_words() -> list[str]:
    """38,400 pieces of English-like syllables, each a different pre-token of cl100k_base."""
    syllables = [c + v for c in "bcdfghklmnprstvz" for v in "aeiou"]  # 80
    return [" " + a + b + c for a in syllables[:24] for b in syllables for c in syllables[:20]]


def test_a_cache_of_megabytes_keeps_each_piece_once():
    """Pieces enough that the slots outgrow 2 MB (65,536 of 32 bytes, then 131,072: on Linux
    they are mapped on their own, on huge pages), in a text long enough that the cache makes
    room for them ahead (a million code points), and in a batch whose workers' caches grow as
    far: every piece keeps its own ids, the cache holds each once, and it is emptied and grown
    again with the same answers."""
    tok = real("cl100k_base")
    model = native.model_for(tok.vocab)
    words = distinct_words()
    assert len(set(words)) == 38_400 and len(set(tok.pieces("".join(words)))) == 38_400
    expected = {w: pure_piece_ids(tok, w, "bpe") for w in words}
    ids = [i for w in words for i in expected[w]]
    text = "".join(words) * 4
    assert len(text) > 1_000_000
    for _ in range(2):
        tok.clear_cache()
        got = model.encode_pieces(words, method=CODES["bpe"], limit=100_000, cached_chars=64, seconds=0.0, buffer=False)
        assert got == ids
        assert model.cached()[CODES["bpe"]] == len(words)
        tok.clear_cache()
        assert tok.encode(text, mode="bpe") == ids * 4
        assert model.cached()[CODES["bpe"]] == len(words)
    docs = ["".join(words[k : k + 3_000]) * 2 for k in range(0, len(words), 3_000)]
    one_by_one = [[i for w in words[k : k + 3_000] for i in expected[w]] * 2 for k in range(0, len(words), 3_000)]
    tok.clear_cache()
    assert tok.encode_batch(docs, mode="bpe", workers=2) == one_by_one
    assert model.cached()[CODES["bpe"]] == len(words)
    tok.clear_cache()


def test_the_model_counts_a_cache_of_megabytes():
    """A cache whose slots are mapped on their own (4 MB of them) is memory tracemalloc sees and
    ``sys.getsizeof`` of the model counts, and it is given back when the cache is emptied."""
    tok = real("cl100k_base")
    model = native.model_for(tok.vocab)
    words = distinct_words()
    model.clear_cache()
    size = sys.getsizeof(model)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        ids = model.encode_pieces(words, method=CODES["bpe"], limit=100_000, cached_chars=64, seconds=0.0, buffer=True)
        held = tracemalloc.get_traced_memory()[0] - before - sys.getsizeof(ids)
        grown = sys.getsizeof(model) - size
        model.clear_cache()
        freed = held - (tracemalloc.get_traced_memory()[0] - before - sys.getsizeof(ids))
    finally:
        tracemalloc.stop()
    assert held > 4 << 20
    assert 0.98 * held <= grown <= 1.02 * held, (grown, held)
    assert freed > 4 << 20
    # a batch's workers map their caches and the caller's thread gathers them (taking one as
    # the model's): traced wherever they were mapped or given back, none left behind
    docs = ["".join(words[k : k + 12_000]) * 2 for k in range(0, len(words), 12_000)]
    tok.encode_batch(docs, mode="bpe", workers=2)  # (the model keeps an int for each id it made)
    tok.clear_cache()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tok.encode_batch(docs, mode="bpe", workers=2)
        cached = tracemalloc.get_traced_memory()[0] - before
        tok.clear_cache()
        left = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert cached > 4 << 20 and left < 1 << 20, (cached, left)


# ---- the tokenizer: encode, encode_batch, encode_to_array go compiled ---------------------------


def pure_encode(tok: Tokenizer, text: str, mode: str, **kw) -> list[int]:
    """``tok.encode`` on the pure path, its caches emptied first and afterwards."""
    native.use("pure")
    try:
        tok.clear_cache()
        return tok.encode(text, mode=mode, **kw)
    finally:
        tok.clear_cache()
        native.use("compiled")


def test_tokenizer_known_answers_run_compiled():
    tok = tiny()
    model = native.model_for(tok.vocab)
    # ids by hand (TINY_ANSWERS), a special token between two pieces
    text = "abcde<|end|>abcd " + "x" * 34
    space = [32]
    expected = {
        "longest-prefix": [257, 100, 101, 300, 257, 100] + space + [262] + [264] * 7,
        "longest-suffix": [256, 259, 300, 97, 261] + space + [264] * 7 + [262],
        "least-tokens": [256, 259, 300, 257, 100] + space + [263, 263],
    }
    for mode in NEW:
        assert tok.encode(text, mode=mode, allowed_special="all") == expected[mode], mode
        assert model.cached()[CODES[mode]] > 0, mode  # the compiled path encoded it
        assert not tok._caches.get(mode), mode  # the pure path's cache stayed empty
        assert pure_encode(tok, text, mode, allowed_special="all") == expected[mode], mode


def no_pure_model_stage(tok: Tokenizer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the pure model stage of the three methods fail on ``tok`` (for this test)."""

    def refuse(piece: str) -> list:
        raise AssertionError(f"the pure model stage ran on {piece[:40]!r}")

    for mode in NEW:
        monkeypatch.setitem(tok._split, mode, refuse)


@pytest.mark.parametrize("name", REAL)
def test_tokenizer_ids_equal_the_pure_path(name, monkeypatch):
    tok = real(name)
    text = sample_text()
    expected = {mode: pure_encode(tok, text, mode, disallowed_special=()) for mode in NEW}
    no_pure_model_stage(tok, monkeypatch)  # from here on, only the compiled path can answer
    for mode in NEW:
        assert tok.encode(text, mode=mode, disallowed_special=()) == expected[mode], mode  # cold
        assert tok.encode(text, mode=mode, disallowed_special=()) == expected[mode], mode  # warm
        assert list(tok.encode_to_array(text, mode=mode, disallowed_special=())) == expected[mode], mode
        assert tok.decode(expected[mode]) == tok.decode(tok.encode(text, mode="bpe", disallowed_special=()))


def test_one_tokenizer_alternating_methods_keeps_them_apart(monkeypatch):
    """Every method in turn on the same text, cold then warm, through encode, encode_batch on
    threads and encode_to_array: each equals its pure answer, so no method's cached pieces
    (whole pieces or parts between cuts) leak into another's."""
    tok = real("cl100k_base")
    text = sample_text()
    docs = [text[k : k + 7000] for k in range(0, len(text), 7000)]
    modes = (*NEW, "bpe", "lbpe")
    expected = {mode: pure_encode(tok, text, mode, disallowed_special=()) for mode in modes}
    assert len({tuple(ids) for ids in expected.values()}) == len(modes)  # all five differ
    one_by_one = {}
    for mode in modes:
        native.use("pure")
        one_by_one[mode] = [tok.encode(doc, mode=mode, disallowed_special=()) for doc in docs]
        native.use("compiled")
    tok.clear_cache()
    no_pure_model_stage(tok, monkeypatch)
    for _ in range(2):
        for mode in (*modes, *reversed(modes)):
            assert tok.encode(text, mode=mode, disallowed_special=()) == expected[mode], mode
            assert tok.encode_batch(docs, mode=mode, workers=2, disallowed_special=()) == one_by_one[mode], mode
            assert list(tok.encode_to_array(text, mode=mode, disallowed_special=())) == expected[mode], mode
    assert all(native.model_for(tok.vocab).cached())


@pytest.mark.slow(reason="a megabyte of text through every method on both paths")
@pytest.mark.parametrize("name", REAL)
def test_a_megabyte_equals_the_pure_path(name):
    tok = real(name)
    multilingual = data_file("text/multilingual.txt").read_text("utf-8")
    code = data_file("text/code.txt").read_text("utf-8") + data_file("text/code_more.txt").read_text("utf-8")
    text = english_text(700_000)[:700_000] + multilingual + code + ODD
    assert len(text.encode()) > 1_000_000
    for mode in NEW:
        expected = pure_encode(tok, text, mode, disallowed_special=())
        tok.clear_cache()
        assert tok.encode(text, mode=mode, disallowed_special=()) == expected, mode


def test_the_model_counts_every_byte_it_holds():
    """``sys.getsizeof`` of a compiled model is the memory its tables, caches and buffers hold:
    what tracemalloc saw the C core allocate (it traces CPython's raw allocator, which the core
    uses) for building it and for encoding through every method, less the ints of the ids
    (objects of their own, as a list's size leaves out its items), within 2%."""
    tok = real("cl100k_base")
    text = sample_text()
    options = dict(limit=200_000, cached_chars=256, seconds=0.0, buffer=False)

    def encode(model, code):
        return model.encode_text(text, native.PRESET_CODES["cl100k_base"], method=code, **options)

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        model = native._build(tok.vocab)
        assert model is not None
        for code in native.METHOD_CODES.values():
            assert encode(model, code)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    made = {i for code in native.METHOD_CODES.values() for i in encode(model, code) if i > 256}
    held -= sum(sys.getsizeof(i) for i in made)  # (CPython keeps its own ints of -5..256)
    assert 0.98 * held <= sys.getsizeof(model) <= 1.02 * held, (sys.getsizeof(model), held)
