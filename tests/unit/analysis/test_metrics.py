"""Intrinsic metrics (lbpe.analysis.metrics, lbpe.analysis.stats): equal to the tokenization-scorer package on the
same token streams for every bundled vocabulary in both modes, mergeable over chunks, and small
known answers worked by hand."""

from __future__ import annotations

import functools
import json
import math
import sys

import pytest

from lbpe.analysis import metrics
from lbpe.analysis.comparison import compare_json
from lbpe.analysis.counting import token_lengths
from lbpe.analysis.metrics import PAPER_BYTES_PER_TOKEN, PAPER_LENGTH_COUNTS, PAPER_SCAFFOLD_ACCURACY
from lbpe.analysis.stats import BUCKETS, corpus_stats
from lbpe.presets import VOCAB_PRESETS, load_preset
from tests.support.data import data_file, english_text


@functools.cache
def sample() -> str:
    return english_text(200_000)[:200_000] + data_file("text/multilingual.txt").read_text("utf-8")[:100_000]


@pytest.mark.parametrize("name", list(VOCAB_PRESETS))
@pytest.mark.parametrize("mode", ["bpe", "lbpe"])
def test_equal_to_tokenization_scorer(name, mode):
    if sys.version_info < (3, 11):  # the reference package itself requires Python 3.11+
        pytest.skip("tokenization-scorer (the reference) does not install on Python 3.10; 3.11+ run this")
    from tokenization_scorer.metrics import get_metric

    tok = load_preset(name)
    stats = corpus_stats(tok, [sample()], modes=[mode])[mode]
    ours = stats.frequency_json()
    stream = [[str(i) for i in tok.encode(sample(), mode=mode, disallowed_special=())]]
    theirs = {
        "shannon_entropy": get_metric("shannon_entropy")(stream),
        "shannon_efficiency": get_metric("shannon_efficiency")(stream),
        "renyi_entropy": get_metric("renyi_entropy")(stream, power=2.5),
        "renyi_efficiency": get_metric("renyi_efficiency")(stream, power=2.5),
    }
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(float(value), abs=1e-9, rel=0), key
    assert ours["renyi_power"] == 2.5 and ours["distinct_tokens"] == len(set(stream[0]))


def test_frequency_tables_merge_exactly_over_chunks():
    tok = load_preset("cl100k_base")
    text = sample()
    whole = corpus_stats(tok, [text])
    parts = corpus_stats(tok, [text[:100_003], text[100_003:250_000], text[250_000:]])
    for mode in ("bpe", "lbpe"):
        # the chunks cut inside pieces here, so only the merging itself is compared
        expected = {}
        for chunk in (text[:100_003], text[100_003:250_000], text[250_000:]):
            for i in tok.encode(chunk, mode=mode, disallowed_special=()):
                expected[i] = expected.get(i, 0) + 1
        assert parts[mode].token_counts == expected
        assert sum(whole[mode].token_counts.values()) == whole[mode].tokens


def test_known_answers():
    counts = {1: 6, 2: 3, 3: 1}  # p = 0.6, 0.3, 0.1
    assert metrics.shannon_entropy(counts) == pytest.approx(-sum(p * math.log2(p) for p in (0.6, 0.3, 0.1)))
    assert metrics.renyi_entropy(counts, 1) == metrics.shannon_entropy(counts)
    assert metrics.renyi_entropy(counts, 2) == pytest.approx(-math.log2(0.6**2 + 0.3**2 + 0.1**2))
    assert metrics.gini({1: 5, 2: 5}) == 0 and metrics.gini(counts) == pytest.approx(1 / 3)
    assert metrics.efficiency(2.0, 4) == 1.0 and metrics.efficiency(1.0, 1) == 0.0
    assert metrics.shannon_entropy({}) == 0 and metrics.renyi_entropy({}, 2.5) == 0
    with pytest.raises(ValueError, match="Rényi power"):
        metrics.renyi_entropy(counts, -1)
    # a very high power tends to the min-entropy, -log2(max p) (no overflow to infinity)
    for power in (1e12, 1e300, sys.float_info.max):
        assert metrics.renyi_entropy(counts, power) == pytest.approx(-math.log2(0.6), rel=1e-9)
    many = {i: 1 + i % 7 for i in range(1000)}  # max p = 7/4000: power * log2(max p) overflows
    assert metrics.renyi_entropy(many, 1.7e308) == pytest.approx(-math.log2(7 / sum(many.values())), rel=1e-9)
    # a power a hair from 1 is Shannon's entropy (the sum of p^power is 1 to the last bits)
    for power in (1 + 2**-52, 1 + 1e-15, 1 - 1e-15, 1 + 1e-9):
        for table in (counts, many, {0: 3, 1: 2}):
            assert metrics.renyi_entropy(table, power) == pytest.approx(metrics.shannon_entropy(table), rel=1e-6)
    by = metrics.frequency_by_length(
        {10: 4, 11: 2, 12: 9, 13: 1, 99: 7}, {10: 1, 11: 2, 12: 3, 13: 8, 99: 0}.get, BUCKETS
    )
    assert by[(1, 3)] == {"distinct": 3, "occurrences": 15, "mean": 5.0, "median": 4.0}
    assert by[(7, 9)] == {"distinct": 1, "occurrences": 1, "mean": 1.0, "median": 1.0}
    assert by[(4, 6)]["distinct"] == 0  # the special token (length 0) counts nowhere


def test_stats_json_has_the_metrics_and_their_change():
    tok = load_preset("lbpe-32k")
    doc = compare_json(corpus_stats(tok, [sample()]), vocab=tok.name, unit=tok.vocab.unit, tok=tok)
    for mode in ("bpe", "lbpe"):
        side = doc[mode]
        assert 0 < side["renyi_efficiency"] < side["shannon_efficiency"] < 1
        assert side["vocab_utilisation"] == side["distinct_tokens"] / 32_000  # its 32,000 tokens
        assert side["type_token_ratio"] == side["distinct_tokens"] / side["tokens"]
        assert sum(v["occurrences"] for v in side["frequency_by_length"].values()) == sum(
            side["length_buckets"].values()
        )
        assert side["short_long_frequency_ratio"] > 1  # short tokens are the frequent ones
    assert doc["change"]["renyi_efficiency"] == doc["lbpe"]["renyi_efficiency"] - doc["bpe"]["renyi_efficiency"]
    # what each change is, said beside it (a fraction for tokens, a difference for the efficiencies)
    units = doc["change_units"]
    assert set(units) == set(doc["change"])
    assert units["tokens"] == "relative" and doc["change"]["tokens"] == doc["lbpe"]["tokens"] / doc["bpe"]["tokens"] - 1
    assert units["renyi_efficiency"] == "difference" and units["length_share_points"] == "percentage points"
    assert units["frequency_by_length"] == "relative"
    # special tokens' text in the counted text is counted as ordinary text: said, since HF counts it as one token
    assert doc["special_token_text"] == "ordinary"
    length = token_lengths(tok)
    assert all(length(i) > 0 for i in corpus_stats(tok, ["plain words"])["bpe"].token_counts)


# ---- agreement between the two encodings ----


def test_agreement_known_answer():
    # BPE: ab|c|d| |ab (merges "ab" first); LBPE: a|bcd| |ab (the longest token first)
    from lbpe.analysis.stats import text_stats_both
    from lbpe.tokenizer import Tokenizer
    from lbpe.vocab import Vocab

    toy = Tokenizer(Vocab({bytes([b]): b for b in range(256)} | {b"ab": 256, b"bc": 257, b"bcd": 258}), "paper")
    a = text_stats_both(toy, "abcd ab")["lbpe"].agreement
    # ends: BPE {2,3,4,5,7}, LBPE {1,4,5,7}; words "abcd" (cut differently) and "ab" (alike)
    assert (a.words, a.identical_words, a.bpe_boundaries, a.lbpe_boundaries, a.common_boundaries) == (2, 1, 5, 4, 3)
    assert (a.word_agreement, a.boundary_precision, a.boundary_recall) == (0.5, 0.75, 0.6)
    assert a.boundary_f1 == pytest.approx(2 * 0.75 * 0.6 / 1.35)


def naive_agreement(tok, text: str) -> tuple[int, int, int, int, int]:
    """From the display path's segments (character offsets; ASCII text, so bytes = characters)."""
    import bisect
    import re

    ends = {m: sorted({s.end for s in tok.segment(text, mode=m, disallowed_special=())}) for m in ("bpe", "lbpe")}

    def inside(m: str, s: int, e: int) -> list[int]:
        return ends[m][bisect.bisect_right(ends[m], s) : bisect.bisect_left(ends[m], e)]

    words = [(m.start(), m.end()) for m in re.finditer(r"[^ \t\n\r\x0b\x0c]+", text)]
    identical = sum(1 for s, e in words if inside("bpe", s, e) == inside("lbpe", s, e))
    common = len(set(ends["bpe"]) & set(ends["lbpe"]))
    return len(words), identical, len(ends["bpe"]), len(ends["lbpe"]), common


def agreements_on_both_paths(tok, text: str) -> list:
    """The agreement of ``text``'s two encodings with numpy, then with the standard library."""
    from lbpe.analysis import counting, stats

    out = []
    for override in ([], [None]):
        counting._numpy_override[:] = override
        try:
            out.append(stats.text_stats_both(tok, text)["lbpe"].agreement)
        finally:
            counting._numpy_override[:] = []
    return out


@pytest.mark.parametrize("name", ["cl100k_base", "lbpe-32k", "gpt2"])
def test_agreement_equals_a_naive_count_on_both_paths(name):
    tok = load_preset(name)
    text = "".join(ch for ch in english_text(120_000)[:120_000] if ch.isascii())
    expected = naive_agreement(tok, text)
    for a in agreements_on_both_paths(tok, text):
        assert (a.words, a.identical_words, a.bpe_boundaries, a.lbpe_boundaries, a.common_boundaries) == expected
    assert 0.5 < a.word_agreement < 1  # they differ somewhere, not everywhere


@pytest.mark.parametrize("name", ["cl100k_base", "gpt2"])
def test_agreement_splits_words_where_the_words_row_does(name):
    """The words the agreement counts are the words row's (``str.split``): every white space of
    Unicode, the no-break spaces of French and of grouped numbers and the ideographic space
    too, not ASCII's alone. Counted here on byte offsets: each token's bytes, each word's."""
    import re
    from itertools import accumulate

    from lbpe.analysis import counting

    tok = load_preset(name)
    spaces = [chr(c) for c in range(0x110000) if chr(c).isspace()]
    assert len(spaces) == 29
    words = ["Prix", "10", "000", "euros,", "antidisestablishmentarianism", "Capitals", "naïve", "x"]
    text = "".join(f"{words[i % len(words)]}{sp}" for i, sp in enumerate(spaces * 3)) + "\u00a0: 10\u00a0000\u202f€"

    def ends(mode: str) -> set[int]:
        ids = tok.encode(text, mode=mode, disallowed_special=())
        return set(accumulate(len(tok.vocab.id_to_bytes[i]) for i in ids))

    b, ln = ends("bpe"), ends("lbpe")
    one_side = sorted(b ^ ln)
    spans = [(len(text[: m.start()].encode()), len(text[: m.end()].encode())) for m in re.finditer(r"\S+", text)]
    assert len(spans) == len(text.split()) == counting.count_words(text)
    identical = sum(1 for s, e in spans if not any(s < x < e for x in one_side))
    expected = (len(spans), identical, len(b), len(ln), len(b & ln))
    for a in agreements_on_both_paths(tok, text):
        assert (a.words, a.identical_words, a.bpe_boundaries, a.lbpe_boundaries, a.common_boundaries) == expected


def test_agreement_merges_over_chunks_and_workers():
    import functools

    from lbpe.corpus.parallel import align_chunks, parallel_stats, read_chunks

    tok = load_preset("cl100k_base")
    path = data_file("text/moby_dick.txt")
    one = parallel_stats(
        functools.partial(load_preset, "cl100k_base"), align_chunks(tok, read_chunks([path])), workers=1
    )
    two = parallel_stats(
        functools.partial(load_preset, "cl100k_base"), align_chunks(tok, read_chunks([path])), workers=2
    )
    assert one["lbpe"].agreement == two["lbpe"].agreement and one["lbpe"].agreement.words > 100_000
    doc = compare_json(one, tok=tok)
    assert doc["agreement"]["word_agreement"] == one["lbpe"].agreement.word_agreement
    assert set(doc["agreement"]) >= {"word_agreement", "boundary_precision", "boundary_recall", "boundary_f1"}


def _rounding_bounds(before: float, after: float, half: float) -> tuple[float, float]:
    """The change in percent that figures rounded to +-``half`` allow, lowest and highest."""
    return 100 * ((after - half) / (before + half) - 1), 100 * ((after + half) / (before - half) - 1)


def test_the_papers_figures_agree_with_their_own_printed_changes():
    """Each of the paper's rows is transcribed as printed; its counts (four significant figures)
    or bytes per token (four decimals), rounded as printed, must allow the change it prints."""
    assert set(PAPER_LENGTH_COUNTS) == {"1-3", "4-6", "7-9", "10-12", "13-15"}
    for bucket, (before, after, printed) in PAPER_LENGTH_COUNTS.items():
        half = 0.5 * 10 ** (math.floor(math.log10(before)) - 3)
        low, high = _rounding_bounds(before, after, half)
        assert low - 0.005 <= float(printed.rstrip("%")) <= high + 0.005, (bucket, low, high, printed)
    assert list(PAPER_BYTES_PER_TOKEN) == ["32K", "64K", "128K"]
    for size, (before, after, printed) in PAPER_BYTES_PER_TOKEN.items():
        low, high = _rounding_bounds(before, after, 0.00005)
        assert low - 0.0005 <= float(printed.rstrip("%")) <= high + 0.0005, (size, low, high, printed)
    # bytes per token grow with the vocabulary, and LBPE's gain shrinks (Table 6)
    rows = list(PAPER_BYTES_PER_TOKEN.values())
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    assert [float(r[2].rstrip("%")) for r in rows] == [0.184, 0.098, 0.019]
    # Table 8: four columns per benchmark; LBPE alone beats BPE on every one
    assert len(PAPER_SCAFFOLD_ACCURACY) == 7
    assert all(len(row) == 4 and row[1] > row[0] for row in PAPER_SCAFFOLD_ACCURACY.values())


def test_vocab_utilisation_counts_the_tokens_an_encoding_can_give():
    """The share of the vocabulary used is over its tokens: not over one more than its largest id
    (a gap in the ids, or Scaffold-BPE's tokens after the normal ones, which no encoding gives)."""
    from lbpe.tokenizer import Tokenizer
    from lbpe.train import train

    vocab = train(sample()[:200_000], vocab_size=1000, scaffold=True)
    assert len(vocab.scaffold) > 0  # ids from 1,000 on
    tok = Tokenizer(vocab, "paper")
    doc = compare_json(corpus_stats(tok, [sample()]), vocab="mine", unit=vocab.unit, tok=tok)
    for mode in ("bpe", "lbpe"):
        assert doc[mode]["vocab_utilisation"] == doc[mode]["distinct_tokens"] / 1000


@pytest.mark.parametrize("power", [0, 0.7, 1, 1.3, 2.5, 1e300])
def test_one_token_has_entropy_zero_not_minus_zero(power):
    """A corpus of one distinct token: 0.0 bits, as JSON writes 0.0 (it wrote -0.0, and the
    table -0.0000)."""
    from lbpe.analysis import metrics

    for value in (metrics.shannon_entropy({7: 5}), metrics.renyi_entropy({7: 5}, power)):
        assert value == 0.0 and math.copysign(1, value) == 1 and json.dumps(value) == "0.0"
