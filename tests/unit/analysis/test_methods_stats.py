"""``lbpe stats --methods`` and :mod:`lbpe.analysis.methods`: every inference method on one text,
one row each (tokens, bytes per token, long-token share, Rényi efficiency, fertility, words cut as
BPE cuts them)."""

from __future__ import annotations

import functools
import json
import math

import pytest

from lbpe.analysis.comparison import compare_json
from lbpe.analysis.methods import methods_stats, parse_methods
from lbpe.analysis.stats import texts_stats
from lbpe.corpus.parallel import align_chunks, parallel_methods_stats
from lbpe.errors import LbpeError
from lbpe.presets import load_preset
from lbpe.tokenizer import METHODS, Tokenizer
from lbpe.vocab import Vocab
from tests.support.cli import run_cli
from tests.support.data import english_text

# ---- known answers on a hand-written vocabulary -------------------------------------------------

#: Byte-level, merged by rank (the id). "bcdefgh" (7 bytes, the only long token) is reachable by
#: its own merges, but in "abcdefgh" BPE merges "ab" first and never gets to it.
TINY_TOKENS = [b"ab", b"cd", b"ef", b"gh", b"cdef", b"cdefgh", b"bcdefgh", b"qr", b"pq", b"rs"]

#: Pieces (the "paper" pre-tokeniser): "abcdefgh", " pqrs", " pqrs"; 18 bytes, 3 words.
TEXT = "abcdefgh pqrs pqrs"

# Worked by hand:
#   "abcdefgh"  bpe: ab (rank 256) first, then cd, ef, gh, cdef, cdefgh -> ab|cdefgh
#               lbpe: longest window first, "bcdefgh" at 1            -> a|bcdefgh
#               longest-prefix: longest token at 0 is "ab", then "cdefgh" -> ab|cdefgh
#               longest-suffix: longest token ending at h: "bcdefgh"  -> a|bcdefgh
#               least-tokens: 2 tokens either way; lengths (2,6) beat (1,7) -> ab|cdefgh
#   " pqrs"     bpe: qr (rank 263) before pq and rs; then "pqr", "qrs" are no tokens -> " "|p|qr|s
#               every other method: " "|pq|rs
#   dropout 1.0: no merge at all -> 18 single bytes; dropout 0.0 is bpe.
# Token counts: bpe 2 + 4 + 4 = 10; every other method 2 + 3 + 3 = 8 (longest-prefix and
# least-tokens keep BPE's ab|cdefgh). Long tokens (7+ bytes): one "bcdefgh" for lbpe and
# longest-suffix. Distinct tokens: bpe ab cdefgh " " p qr s = 6; the others 5.
# Words cut as BPE cuts them: lbpe/longest-suffix none of 3 ("abcdefgh" is cut after "a", not
# after "ab"; "pqrs" after "pq", not after "p" and "pqr"); longest-prefix/least-tokens 1 of 3.
EXPECTED = {
    # method: (tokens, long tokens, distinct tokens, identical words)
    "bpe": (10, 0, 6, 3),
    "lbpe": (8, 1, 5, 0),
    "longest-prefix": (8, 0, 5, 1),
    "longest-suffix": (8, 1, 5, 0),
    "least-tokens": (8, 0, 5, 1),
    "dropout": (18, 0, 13, 0),  # rate 1.0: a b c d e f g h, then " " p q r s twice
}


def renyi_efficiency(counts: list[int], power: float = 2.5) -> float:
    """The formula, written out: log2(sum p^a) / (1 - a) / log2(distinct)."""
    total = sum(counts)
    return math.log2(sum((n / total) ** power for n in counts)) / (1 - power) / math.log2(len(counts))


#: occurrences per distinct token, by hand from the segmentations above
EXPECTED_COUNTS = {
    "bpe": [1, 1, 2, 2, 2, 2],  # ab cdefgh, then " " p qr s twice
    "lbpe": [1, 1, 2, 2, 2],  # a bcdefgh, then " " pq rs twice
    "longest-prefix": [1, 1, 2, 2, 2],  # ab cdefgh, " " pq rs twice
    "longest-suffix": [1, 1, 2, 2, 2],
    "least-tokens": [1, 1, 2, 2, 2],
    "dropout": [1] * 8 + [2] * 5,  # a..h once; " ", p, q, r, s twice
}


def tiny() -> Tokenizer:
    tokens = {bytes([b]): b for b in range(256)}
    tokens.update({t: 256 + k for k, t in enumerate(TINY_TOKENS)})
    return Tokenizer(Vocab(tokens), "paper")


def test_known_answers_on_a_tiny_vocabulary(encode_path):
    doc = methods_stats(tiny(), TEXT, methods="all", dropout=1.0, seed=0)
    assert list(doc["methods"]) == list(METHODS)
    assert (doc["unit"], doc["long_token"], doc["baseline"], doc["dropout"]) == ("byte", 7, "bpe", 1.0)
    for method, (tokens, long, distinct, identical) in EXPECTED.items():
        row = doc["methods"][method]
        assert (row["tokens"], row["long_tokens"], row["distinct_tokens"]) == (tokens, long, distinct), method
        assert row["bytes"] == 18 and row["words"] == 3
        assert row["bytes_per_token"] == pytest.approx(18 / tokens)
        assert row["fertility"] == pytest.approx(tokens / 3)
        assert row["long_token_share"] == pytest.approx(long / tokens)
        assert (row["agreement_words"], row["identical_words"]) == (3, identical), method
        assert row["word_agreement"] == pytest.approx(identical / 3)
        assert row["renyi_efficiency"] == pytest.approx(renyi_efficiency(EXPECTED_COUNTS[method]))
    # spot checks of the formula on numbers worked out on paper:
    # bpe: p = 0.1, 0.1, 0.2 x4; sum p^2.5 = 2 * 0.0031623 + 4 * 0.0178885 = 0.0778787;
    # log2 = -3.68262; / -1.5 = 2.45508; / log2(6) = 2.58496 -> 0.94975
    assert doc["methods"]["bpe"]["renyi_efficiency"] == pytest.approx(0.94975, abs=1e-4)
    # lbpe: p = 1/8 x2, 2/8 x3; sum p^2.5 = 2 * 0.0055243 + 3 * 0.03125 = 0.1047985;
    # log2 = -3.25431; / -1.5 = 2.16954; / log2(5) = 2.32193 -> 0.93437
    assert doc["methods"]["lbpe"]["renyi_efficiency"] == pytest.approx(0.93437, abs=1e-4)


def test_dropout_rate_zero_is_bpe_and_bpe_is_always_the_baseline():
    doc = methods_stats(tiny(), TEXT, methods=["dropout", "lbpe"], dropout=0.0, seed=1)
    assert list(doc["methods"]) == ["dropout", "lbpe"]  # the order asked for; bpe only as the baseline
    assert doc["methods"]["dropout"]["tokens"] == 10 and doc["methods"]["dropout"]["word_agreement"] == 1.0
    assert doc["methods"]["lbpe"]["identical_words"] == 0


def test_documents_are_encoded_each_on_its_own():
    # "abcdefgh" then " pqrs" as two documents: the same pieces as the text "abcdefgh pqrs"
    doc = methods_stats(tiny(), ["abcdefgh", " pqrs"], methods="bpe,longest-suffix")
    assert doc["methods"]["bpe"]["tokens"] == 2 + 4 and doc["methods"]["longest-suffix"]["tokens"] == 2 + 3
    assert doc["methods"]["bpe"]["words"] == 2


def test_no_text_gives_zeros_and_full_agreement():
    doc = methods_stats(tiny(), [], methods="all", dropout=0.5, seed=0)
    for row in doc["methods"].values():
        assert (row["tokens"], row["bytes"], row["long_token_share"], row["renyi_efficiency"]) == (0, 0, 0.0, 0.0)
        assert (row["agreement_words"], row["word_agreement"]) == (0, 1.0)  # no word cut differently


def test_parse_methods_and_option_errors():
    assert parse_methods("all") == METHODS
    assert parse_methods(" least-tokens ,bpe,least-tokens") == ("least-tokens", "bpe")
    with pytest.raises(LbpeError, match=r"unknown method 'longest_prefix' \(did you mean longest-prefix\?\); "):
        parse_methods("bpe,longest_prefix")
    with pytest.raises(LbpeError, match="the methods are bpe, lbpe, longest-prefix, longest-suffix, least-tokens"):
        parse_methods("bogus")
    # "all" is a method list of its own: beside others it is named as such, not as unknown
    with pytest.raises(LbpeError, match=r"^'all' stands for every method and goes alone, not with dropout: give all, "):
        parse_methods("all,dropout")
    with pytest.raises(LbpeError, match="needs a rate"):
        methods_stats(tiny(), TEXT, methods="bpe,dropout")
    with pytest.raises(LbpeError, match="only applies to the dropout method"):
        methods_stats(tiny(), TEXT, methods="bpe,lbpe", dropout=0.1)
    with pytest.raises(LbpeError, match="from 0 to 1"):
        methods_stats(tiny(), TEXT, methods="dropout", dropout=1.5)


# ---- the same figures as today's `lbpe stats` for bpe and lbpe ----------------------------------


@pytest.mark.parametrize("preset", ["cl100k_base", "mistral-7b"])  # byte-level, character-level
def test_bpe_and_lbpe_rows_equal_the_comparison(preset, encode_path):
    tok = load_preset(preset)
    text = english_text(60_000)[:60_000]
    doc = methods_stats(tok, text, methods="bpe,lbpe,longest-prefix")
    summary = compare_json(texts_stats(tok, text), tok=tok)
    assert doc["unit"] == ("byte" if preset == "cl100k_base" else "char")
    for mode in ("bpe", "lbpe"):
        row, old = doc["methods"][mode], summary[mode]
        for key in ("tokens", "bytes", "words", "bytes_per_token", "fertility", "distinct_tokens", "renyi_efficiency"):
            assert row[key] == old[key], (mode, key)
        buckets = old["length_buckets"]
        long = buckets["7-9"] + buckets["10-12"] + buckets["13-15"] + buckets["16+"]
        assert row["long_tokens"] == long
        assert row["long_token_share"] == pytest.approx(long / sum(buckets.values()))
    assert doc["methods"]["bpe"]["word_agreement"] == 1.0
    assert doc["methods"]["lbpe"]["identical_words"] == summary["agreement"]["identical_words"]
    assert doc["methods"]["lbpe"]["word_agreement"] == summary["agreement"]["word_agreement"]
    assert doc["methods"]["longest-prefix"]["bytes"] == len(text.encode())


def test_processes_give_the_same_totals_as_one():
    loader = functools.partial(load_preset, "cl100k_base")
    tok = loader()
    text = english_text(200_000)[:200_000]
    chunks = [text[i : i + 50_000] for i in range(0, len(text), 50_000)]
    kwargs = dict(methods=("bpe", "lbpe", "dropout"), dropout=0.1, seed=7)
    serial = parallel_methods_stats(loader, align_chunks(tok, chunks), workers=1, **kwargs)
    parallel = parallel_methods_stats(loader, align_chunks(tok, chunks), workers=2, **kwargs)
    assert serial == parallel
    assert serial["lbpe"].agreement.identical_words == parallel["lbpe"].agreement.identical_words
    assert serial["bpe"].tokens == len(tok.encode(text, mode="bpe"))


# ---- the command line -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    path = tmp_path_factory.mktemp("methods") / "t.txt"
    path.write_text(english_text(30_000)[:30_000], encoding="utf-8")
    return path


@pytest.mark.slow(reason="every method through the CLI")
def test_cli_methods_json_agrees_with_plain_stats(corpus):
    args = ("--json", "--workers", "1", "-q", "--vocab", "cl100k_base", str(corpus))
    plain = run_cli("stats", *args)
    methods = run_cli("stats", *args, "--methods", "bpe,lbpe")
    assert plain.returncode == 0 and methods.returncode == 0, plain.stderr + methods.stderr
    old, doc = json.loads(plain.stdout), json.loads(methods.stdout)
    assert doc["vocab"] == old["vocab"] == "cl100k_base" and list(doc["methods"]) == ["bpe", "lbpe"]
    for mode in ("bpe", "lbpe"):
        for key in ("tokens", "bytes_per_token", "fertility", "renyi_efficiency"):
            assert doc["methods"][mode][key] == old[mode][key], (mode, key)
    assert doc["methods"]["lbpe"]["word_agreement"] == old["agreement"]["word_agreement"]


@pytest.mark.slow(reason="every method through the CLI")
def test_cli_methods_table_all_with_seeded_dropout(corpus):
    args = ("stats", "-q", "--vocab", "lbpe-llama-32k", str(corpus), "--methods", "all", "--dropout", "0.5")
    first = run_cli(*args, "--seed", "3", "--workers", "1")
    again = run_cli(*args, "--seed", "3", "--workers", "2")
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout  # seeded: the same figures, however many processes
    lines = first.stdout.splitlines()
    assert lines[0].startswith("vocabulary lbpe-llama-32k (char-level); token length in chars;")
    assert "dropout rate 0.5, seed 3" in lines[0]
    fresh = run_cli(*args, "--workers", "1")  # no seed: fresh draws, said so (it read "seed None")
    assert "dropout rate 0.5, fresh draws (no --seed)" in fresh.stdout.splitlines()[0], fresh.stdout[:300]
    assert lines[1].split() == [
        "method",
        "tokens",
        "bytes/token",
        "long",
        "(7+)",
        "Rényi",
        "eff.",
        "fertility",
        "as",
        "BPE",
    ]
    assert [line.split()[0] for line in lines[2:8]] == list(METHODS)
    assert lines[2].split()[-1] == "100.00%"  # bpe cuts every word as bpe does


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ("--methods", "bpe,longest_prefix"),
            "unknown method 'longest_prefix' (did you mean longest-prefix?); the "
            "methods are bpe, lbpe, longest-prefix, longest-suffix, least-tokens, dropout, or all",
        ),
        (("--methods", ""), "no method given"),
        (("--methods", "bpe,dropout"), "the dropout method needs a rate from 0 to 1: --dropout 0.1"),
        (("--methods", "bpe,lbpe", "--seed", "1"), "only applies to the dropout method"),
        (("--methods", "bpe,dropout", "--dropout", "0.1", "--seed", "-7"), "the seed must be 0 or more, not -7"),
        (("--dropout", "0.1"), "--dropout and --seed apply to the methods table: add --methods ...,dropout"),
    ],
)
def test_cli_bad_methods_input_is_one_line(corpus, extra, message):
    result = run_cli("stats", "-q", "--vocab", "cl100k_base", str(corpus), *extra)
    assert result.returncode == 2 and result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("lbpe stats: error: ")
    assert message in result.stderr
