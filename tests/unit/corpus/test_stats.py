"""Corpus statistics, chunked streaming, process-parallel sums and .npy export."""

from __future__ import annotations

import functools
import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lbpe
from lbpe.analysis.comparison import compare_json
from lbpe.analysis.stats import Continuation, corpus_stats, text_stats
from lbpe.corpus.parallel import align_chunks, iter_chunks, parallel_stats, read_chunks
from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS, load_preset
from lbpe.tokenizer import Tokenizer
from lbpe.vocab import Vocab
from tests.support.cli import run_cli
from tests.support.data import data_file, english_text


def tiny() -> Tokenizer:
    tokens = {bytes([b]): b for b in range(256)}
    tokens.update({b"aa": 256, b"bb": 257, b"bbb": 258, b"ab": 259, b"aab": 260, b"aabbbb": 261})
    return Tokenizer(Vocab(tokens), "paper")


def test_known_answer_buckets_and_ratios():
    # "aabbb bb": BPE -> aa|bbb| |bb ; LBPE -> aab|bb| |bb  (lengths 2,3,1,2 vs 3,2,1,2)
    tok = tiny()
    bpe = text_stats(tok, "aabbb bb", mode="bpe")
    lbpe_ = text_stats(tok, "aabbb bb", mode="lbpe")
    assert (bpe.tokens, bpe.bytes, bpe.words) == (4, 8, 2)
    assert bpe.length_counts == {2: 2, 3: 1, 1: 1}
    assert lbpe_.length_counts == {3: 1, 2: 2, 1: 1}
    assert bpe.bytes_per_token == 2.0 and bpe.fertility == 2.0
    long = text_stats(tok, "aabbbb", mode="lbpe")
    assert long.buckets() == {"1-3": 0, "4-6": 1, "7-9": 0, "10-12": 0, "13-15": 0, "16+": 0}
    doc = compare_json({"bpe": bpe, "lbpe": lbpe_})
    assert doc["change"]["tokens"] == 0.0
    assert set(doc["bpe"]) >= {"tokens", "bytes", "bytes_per_token", "length_buckets"}


def test_stats_add_up():
    tok = load_preset("gpt2")
    a, b = "Call me Ishmael.\n", "Some years ago—never mind how long precisely."
    for mode in lbpe.MODES:
        whole = text_stats(tok, a + b, mode=mode)
        parts = text_stats(tok, a, mode=mode) + text_stats(tok, b, mode=mode)
        assert parts == whole  # these two texts split at a piece boundary


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=17))
def test_chunks_keep_characters_whole(text, size, block):
    data = text.encode("utf-8", "surrogatepass")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        return
    blocks = [data[i : i + block] for i in range(0, len(data), block)]
    chunks = list(iter_chunks(blocks, size=size))
    assert "".join(chunks) == text
    assert all(chunks)


def test_parallel_equals_serial_on_real_text():
    path = data_file("text/moby_dick.txt")
    loader = functools.partial(load_preset, "lbpe-32k")
    tok = loader()
    serial = parallel_stats(loader, align_chunks(tok, read_chunks([path], size=1 << 18)), workers=1)
    parallel = parallel_stats(loader, align_chunks(tok, read_chunks([path], size=1 << 18)), workers=2)
    assert serial == parallel
    assert serial["bpe"].bytes == path.stat().st_size
    text = path.read_text("utf-8")
    assert serial["lbpe"].tokens == len(tok.encode(text, mode="lbpe", disallowed_special=()))
    assert serial["lbpe"].words == len(text.split())


def test_cli_stats_json_matches_library(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("Tokenization of internationalization, 2024 edition.\n" * 50, encoding="utf-8")
    result = run_cli("stats", "--json", "--workers", "1", "-q", "--vocab", "cl100k_base", str(path))
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    tok = load_preset("cl100k_base")
    text = path.read_text("utf-8")
    for mode in lbpe.MODES:
        assert doc[mode]["tokens"] == len(tok.encode(text, mode=mode))
        assert doc[mode]["bytes"] == len(text.encode())
        assert sum(doc[mode]["length_buckets"].values()) == doc[mode]["tokens"]


def test_cli_stats_default_vocabulary_and_errors(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("hello world\n", encoding="utf-8")
    ok = run_cli("stats", "--json", "-q", str(path))
    assert ok.returncode == 0 and json.loads(ok.stdout)["vocab"] == DEFAULT_PRESET
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\n\xff\xfe")
    result = run_cli("stats", "-q", str(bad))
    assert result.returncode == 2 and "not UTF-8" in result.stderr and "Traceback" not in result.stderr
    # a folder given as an input, and a vocabulary name that is neither a file nor bundled
    result = run_cli("stats", "-q", str(tmp_path))
    assert result.returncode == 2 and f"{tmp_path}: is a folder; give the files in it" in result.stderr
    result = run_cli("export", "--mode", "bpe", "-q", "--out", str(tmp_path / "o"), str(tmp_path))
    assert result.returncode == 2 and f"{tmp_path}: is a folder; give the files in it" in result.stderr
    result = run_cli("stats", "--vocab", "r50k_base", "-q", str(path))
    assert result.returncode == 2 and "r50k_base: no such file or folder, nor a bundled vocabulary (" in result.stderr
    assert "r50k_base is GPT-2's vocabulary: --vocab gpt2" in result.stderr


def test_cli_export_separator_and_dtype(tmp_path):
    text_path = tmp_path / "t.txt"
    text = "Call me Ishmael. Some years ago, never mind how long precisely.\n" * 20
    text_path.write_text(text, encoding="utf-8")
    for preset, dtype, eot in (("gpt2", np.uint16, 50256), ("cl100k_base", np.uint32, 100257)):
        out = tmp_path / preset
        result = run_cli(
            "export",
            "--vocab",
            preset,
            "--mode",
            "lbpe",
            "-q",
            "--out",
            str(out),
            str(text_path),
            "--eos",
            str(eot),
        )
        assert result.returncode == 0, result.stderr
        ids = np.load(out / "tokens-00000.npy", mmap_mode="r")
        assert ids.dtype == dtype
        assert ids.tolist() == load_preset(preset).encode(text, mode="lbpe") + [eot]
        assert np.load(out / "offsets-00000.npy").tolist() == [0, len(ids)]
        index = json.loads((out / "lbpe-index.json").read_text())
        assert index["tokens"] == len(ids) and index["mode"] == "lbpe" and index["eos_id"] == eot


@settings(max_examples=150, deadline=None)
@given(st.text(st.sampled_from("ab \n\t12.'日"), max_size=400), st.integers(min_value=1, max_value=50))
def test_aligned_chunks_encode_like_the_whole_text(text, size):
    for preset in ("gpt2", "cl100k_base", "o200k_base", "lbpe-32k"):
        tok = load_preset(preset)
        raw = [text[i : i + size] for i in range(0, len(text), size)]
        chunks = list(align_chunks(tok, raw))
        assert "".join(chunks) == text
        for mode in lbpe.MODES:
            ids = [i for c in chunks for i in tok.encode(c, mode=mode, disallowed_special=())]
            assert ids == tok.encode(text, mode=mode, disallowed_special=())


@settings(max_examples=150, deadline=None)
@given(st.text(st.sampled_from("ab \n\n\t12.'日A"), max_size=400), st.integers(min_value=1, max_value=50))
def test_sentencepiece_style_chunks_continue_without_the_dummy_prefix(text, size):
    for preset in ("mistral-7b", "lbpe-llama-32k"):
        tok = load_preset(preset)
        cont = tok.continued()
        assert cont is not None and cont is not tok and cont.vocab is tok.vocab
        raw = [text[i : i + size] for i in range(0, len(text), size)]
        chunks = list(align_chunks(tok, raw))
        assert "".join(chunks) == text
        assert all(isinstance(c, Continuation) for c in chunks[1:]) and not any(
            isinstance(c, Continuation) for c in chunks[:1]
        )
        for mode in lbpe.MODES:
            ids = tok.encode(chunks[0], mode=mode, disallowed_special=()) if chunks else []
            ids += [i for c in chunks[1:] for i in cont.encode(c, mode=mode, disallowed_special=())]
            assert ids == tok.encode(text, mode=mode, disallowed_special=())
        if chunks:
            assert corpus_stats(tok, chunks)["lbpe"].tokens == len(tok.encode(text, mode="lbpe", disallowed_special=()))


@functools.cache
def _hf(name: str):
    import tokenizers

    return tokenizers.Tokenizer.from_file(str(data_file(f"hf/{name}/tokenizer.json")))


@functools.cache
def _qwen3() -> Tokenizer:
    return lbpe.load(data_file("hf/qwen3/tokenizer.json"))


#: Characters NFC changes or joins (a decomposed é, Hangul jamo, the Ångström sign, a lone
#: combining mark), beside white space, digits and a final-sigma case.
NFC_SENSITIVE = [
    "e\u0301",
    "\u1100\u1161",
    "\u212b",
    "\u0301",
    "\u0327",
    "Σ",
    "a",
    "b",
    " ",
    "  ",
    "\n",
    "\t",
    "7",
    ".",
    "'s",
]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(NFC_SENSITIVE), max_size=300).map("".join), st.integers(min_value=1, max_value=40))
def test_chunks_of_a_normalised_regex_pipeline_encode_like_the_whole_text(text, size):
    """Qwen 3 normalises (NFC) before its pattern: a cut must split the normalised text where
    the pattern does, and NFC must not join characters across it."""
    tok = _qwen3()
    raw = [text[i : i + size] for i in range(0, len(text), size)]
    chunks = list(align_chunks(tok, raw))
    assert "".join(chunks) == text
    assert not any(isinstance(c, Continuation) for c in chunks)
    assert [i for c in chunks for i in tok.encode(c, mode="bpe")] == _hf("qwen3").encode(
        text, add_special_tokens=False
    ).ids
    lbpe_ids = [i for c in chunks for i in tok.encode(c, mode="lbpe")]
    assert lbpe_ids == tok.encode(text, mode="lbpe")
    # NFKC, lower case (a final sigma looks at its neighbours) and a literal of three characters
    from lbpe.normalize import Lowercase, Replace, Sequence, Unicode

    steps = Sequence([Unicode("NFKC"), Lowercase(), Replace("a b", "ab")])
    other = Tokenizer(load_preset("cl100k_base").vocab, "cl100k_base", normalizer=steps)
    chunks = list(align_chunks(other, raw))
    assert "".join(chunks) == text
    for mode in lbpe.MODES:
        assert [i for c in chunks for i in other.encode(c, mode=mode)] == other.encode(text, mode=mode)


def test_a_normalised_regex_pipeline_is_cut_where_the_pattern_splits():
    """A long text for Qwen 3 (NFC, then a pattern) is cut near every read, not carried whole,
    so the Corpus view's progress and Stop act between chunks and stats spread over processes."""
    tok = _qwen3()
    text = english_text(60_000).replace("e", "e\u0301")  # NFC changes every word with an e
    raw = [text[i : i + 4096] for i in range(0, len(text), 4096)]
    chunks = list(align_chunks(tok, raw))
    assert "".join(chunks) == text and len(chunks) >= len(raw) - 1
    assert all(len(c) < 8192 for c in chunks)
    assert [i for c in chunks for i in tok.encode(c, mode="bpe")] == _hf("qwen3").encode(
        text, add_special_tokens=False
    ).ids


@functools.cache
def _gemma3() -> Tokenizer:
    return lbpe.load(data_file("hf/gemma3/tokenizer.json"))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(["the", "e", "s", " ", "  ", "\n", "\n\n", "\t", ".", ",", "7", "日本", "<eos>"]), max_size=200
    ).map("".join),
    st.integers(min_value=1, max_value=40),
)
def test_chunks_of_a_pipeline_with_no_pattern_encode_like_the_whole_text(text, size):
    """Gemma 3 writes spaces as ``▁`` and then splits at spaces, so a text is one piece: a cut
    must fall where no token, nor an added or special token, holds the characters on both sides."""
    tok = _gemma3()
    raw = [text[i : i + size] for i in range(0, len(text), size)]
    chunks = list(align_chunks(tok, raw))
    assert "".join(chunks) == text
    ids = [i for c in chunks for i in tok.encode(c, mode="bpe", allowed_special="all")]
    assert ids == _hf("gemma3").encode(text, add_special_tokens=False).ids
    for mode in lbpe.MODES:
        whole = tok.encode(text, mode=mode, allowed_special="all")
        assert [i for c in chunks for i in tok.encode(c, mode=mode, allowed_special="all")] == whole


def test_a_pipeline_with_no_pattern_is_cut_where_no_token_spans():
    tok = _gemma3()
    text = english_text(60_000)[:300_000]
    raw = [text[i : i + 4096] for i in range(0, len(text), 4096)]
    chunks = list(align_chunks(tok, raw))
    assert "".join(chunks) == text and len(chunks) >= len(raw) - 1
    assert [i for c in chunks for i in tok.encode(c, mode="bpe")] == _hf("gemma3").encode(
        text, add_special_tokens=False
    ).ids


def test_a_cut_where_no_token_spans_keeps_added_tokens_whole():
    from lbpe.normalize import Replace
    from lbpe.pretokenize.splitters import Split

    vocab = Vocab({b"a": 0, b"b": 1, "\u2581".encode(): 2, "\u2581b".encode(): 3}, unit="char")
    tok = Tokenizer(vocab, Split(" ", "MergedWithPrevious", literal=True), normalizer=Replace(" ", "\u2581"))
    assert tok.safe_cut("b a b") == 3  # "a▁" is in no token; "▁b" is
    with_added = Tokenizer(
        vocab,
        Split(" ", "MergedWithPrevious", literal=True),
        normalizer=Replace(" ", "\u2581"),
        added_tokens={"a b": 4},
    )
    assert with_added.safe_cut("b a b") == 2  # before the added token "a b", not inside it
    assert with_added.encode("b a b", mode="bpe") == [1, 2, 4]


def test_a_cut_where_no_token_spans_aligns_the_text_once():
    """The search for a cut maps places back to the raw text from one alignment, however many
    places it tries (per place it was quadratic: 32,000 characters with no white space, 14 s)."""
    from lbpe.normalize import Replace
    from lbpe.pretokenize.splitters import Split

    class Counted(Replace):
        calls = 0

        def aligned(self, text):
            Counted.calls += 1
            return super().aligned(text)

    vocab = Vocab({b"a": 0, b"b": 1, "\u2581".encode(): 2, "\U00010000".encode(): 3}, unit="char")
    tok = Tokenizer(vocab, Split(" ", "MergedWithPrevious", literal=True), normalizer=Counted(" ", "\u2581"))
    text = "a b " + "\U00010000" * 5000  # every place a candidate, none beside white space but the first
    assert tok.safe_cut(text) == 4 and Counted.calls == 1  # after "a b "


def test_continued_only_where_nothing_looks_at_the_start_of_a_text():
    from lbpe.normalize import Prepend, Replace, Sequence, Strip
    from lbpe.pretokenize.splitters import Sequence as Steps

    vocab = Vocab({b"a": 0, b"\xe2\x96\x81": 1, b"\xe2\x96\x81a": 2}, unit="char")
    prefix = Sequence([Prepend("\u2581"), Replace(" ", "\u2581")])
    tok = Tokenizer(vocab, Steps([]), normalizer=prefix)
    assert tok.continued().encode("a a", mode="bpe") == [0, 2] and tok.encode("a a", mode="bpe") == [2, 2]
    assert Tokenizer(vocab, Steps([]), normalizer=Sequence([Strip(), prefix])).continued() is None
    assert Tokenizer(vocab, "paper").continued().normalizer is None  # nothing to drop: itself
    with_newline = Vocab({b"a": 0, b"\n": 1, b"a\na": 2}, unit="char")
    assert Tokenizer(with_newline, Steps([]), normalizer=prefix).continued() is None  # a token spans a line end
    assert tok.safe_cut("a a\n a\na b") == len("a a\n a\n")  # after a line end that a token follows


@pytest.mark.parametrize("name", list(VOCAB_PRESETS))
def test_numpy_and_the_standard_library_count_alike(name):
    # lbpe.analysis.counting counts token lengths with numpy when it is installed (CPython with lbpe[numpy])
    # and with Counter otherwise (the browser page): the same counts, on real text, both modes
    from lbpe.analysis import counting

    tok = load_preset(name)
    text = data_file("text/multilingual.txt").read_text("utf-8")[:200_000] + english_text(300_000)[:300_000]
    text += "".join(tok.vocab.special)  # special-token strings as ordinary text
    assert counting._numpy_module() is not None
    for mode in ("bpe", "lbpe"):
        ids = tok.encode(text, mode=mode, disallowed_special=())
        assert len(ids) >= counting._NUMPY_MIN_IDS
        with_numpy = counting.count_tokens(tok, ids)
        counting._numpy_override.append(None)
        try:
            assert counting.count_tokens(tok, ids) == with_numpy
        finally:
            counting._numpy_override.pop()
        # a special id counts nowhere, on both paths (the unknown token is an emitted unit: it counts)
        special = next((i for i in tok.vocab.special.values() if i != tok.vocab.unk), None)
        if special is not None:
            assert counting.count_tokens(tok, ids + [special] * 5000)[0] == with_numpy[0]


@pytest.mark.slow(reason="a CLI process over a corpus")
def test_cli_stats_table_and_renyi_power(tmp_path):
    from lbpe.analysis.metrics import AGREEMENT, CATALOGUE, renyi_entropy

    path = tmp_path / "t.txt"
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:20_000]
    path.write_text(text, encoding="utf-8")
    tok = load_preset("gpt2")
    counts = {m: Counter(tok.encode(text, mode=m, disallowed_special=())) for m in lbpe.MODES}
    for power in ("1", "3"):
        result = run_cli(
            "stats", "--json", "--workers", "1", "-q", "--vocab", "gpt2", "--renyi-power", power, str(path)
        )
        assert result.returncode == 0, result.stderr
        doc = json.loads(result.stdout)
        for mode in lbpe.MODES:
            assert doc[mode]["renyi_power"] == float(power)
            assert doc[mode]["renyi_entropy"] == pytest.approx(renyi_entropy(counts[mode], float(power)), rel=1e-12)
            assert doc[mode]["fertility"] == doc[mode]["tokens"] / doc[mode]["words"]
    table = run_cli("stats", "--workers", "1", "-q", "--vocab", "gpt2", str(path))
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    for metric in (*CATALOGUE, *AGREEMENT):
        assert sum(line.startswith(metric.label + " ") for line in lines) == 1, metric.label
        assert f"  {metric.label}: {metric.meaning}" in lines
    bad = run_cli("stats", "-q", "--renyi-power", "-2", str(path))
    assert bad.returncode == 2 and "finite number >= 0" in bad.stderr and "Traceback" not in bad.stderr


@given(
    st.text(
        alphabet=st.sampled_from(
            list("ab \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2028\u2029\u202f\u205f\u3000\u200b\ufeffé")
        ),
        max_size=60,
    )
)
@settings(max_examples=300, deadline=None)
def test_words_are_runs_of_non_white_space(text):
    import re

    from lbpe.analysis.counting import count_words

    assert count_words(text) == len(re.findall(r"\S+", text))
