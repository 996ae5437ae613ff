"""One text across many vocabularies (lbpe.analysis.across): the summaries equal each vocabulary's own
statistics, streamed corpora count exactly, and the table's numbers come from the token lengths."""

from __future__ import annotations

import json

import pytest

from lbpe.analysis.across import ACROSS_HEADERS, across_rows, across_spec, across_vocabularies, long_share
from lbpe.analysis.comparison import compare_json
from lbpe.analysis.stats import LONG_TOKEN, text_stats_both
from lbpe.corpus.parallel import align_chunks, iter_chunks
from lbpe.presets import VOCAB_PRESETS, load_preset
from tests.support.data import data_file

TEXT = "Capitals of internationalization: counterrevolutionary misunderstandings, naïve café, 東京 🙂\n\tcode(x)\n"


#: Each preset's tokens, as its files count them (ranks or pieces, and special tokens): not one
#: more than the largest id (cl100k_base's and o200k_base's special tokens leave gaps).
SIZES = {
    "mistral-7b": 32_000,
    "lbpe-llama-32k": 32_000,
    "lbpe-32k": 32_000,
    "gpt2": 50_257,
    "cl100k_base": 100_256 + 5,
    "o200k_base": 199_998 + 2,
}


@pytest.fixture(scope="module")
def tokenizers():
    return {name: load_preset(name) for name in VOCAB_PRESETS}


def test_every_change_column_says_its_unit():
    from lbpe.analysis.across import ACROSS_HEADERS

    changes = [h for h in ACROSS_HEADERS if "change" in h]
    assert changes and all(h.endswith(("%", "(points)", "(difference)")) for h in changes), changes


def test_each_summary_is_that_vocabularys_own_statistics(tokenizers):
    summaries = across_vocabularies(tokenizers, [TEXT])
    assert [s["vocab"] for s in summaries] == list(VOCAB_PRESETS)
    for s, (name, tok) in zip(summaries, tokenizers.items()):
        want = compare_json(text_stats_both(tok, TEXT), vocab=name, unit=tok.vocab.unit, tok=tok)
        assert s == {**want, "n_vocab": tok.n_vocab, "vocab_tokens": SIZES[name]}
        for mode in ("bpe", "lbpe"):
            assert s[mode]["tokens"] == len(tok.encode(TEXT, mode=mode, disallowed_special=()))


def test_a_streamed_corpus_counts_exactly_per_vocabulary(tokenizers):
    data = data_file("text/moby_dick.txt").read_bytes()[:300_000]
    text = data.decode("utf-8", "ignore")
    data = text.encode()

    def chunks(tok):
        blocks = (data[i : i + 65536] for i in range(0, len(data), 65536))
        return align_chunks(tok, iter_chunks(blocks, size=65536, source="moby"))

    seen = []
    summaries = across_vocabularies(tokenizers, chunks, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(k, len(tokenizers)) for k in range(1, len(tokenizers) + 1)]
    assert any(tok.continued() not in (None, tok) for tok in tokenizers.values())  # SentencePiece-style ones too
    for s, tok in zip(summaries, tokenizers.values()):
        for mode in ("bpe", "lbpe"):
            assert s[mode]["tokens"] == len(tok.encode(text, mode=mode, disallowed_special=())), (tok.name, mode)


def test_table_rows_come_from_the_token_lengths(tokenizers):
    summaries = across_vocabularies(tokenizers, [TEXT * 3])
    rows = across_rows(summaries)
    assert all(len(r) == len(ACROSS_HEADERS) for r in rows)
    column = {h: i for i, h in enumerate(ACROSS_HEADERS)}
    for row, (name, tok) in zip(rows, tokenizers.items()):
        assert row[column["vocabulary"]] == name and row[column["size"]] == SIZES[name]
        shares = {}
        for mode in ("bpe", "lbpe"):
            # naive: each token's length in units, from its spelling in the vocabulary
            length = {i: len(key) for key, i in tok.vocab.model_tokens.items()}
            ids = tok.encode(TEXT * 3, mode=mode, disallowed_special=())
            shares[mode] = sum(1 for i in ids if length.get(i, 1) >= LONG_TOKEN) / len(ids)
            assert row[column[f"{mode.upper()} tokens"]] == len(ids)
        assert row[column[f"BPE long tokens % (≥{LONG_TOKEN} units)"]] == pytest.approx(100 * shares["bpe"], abs=1e-3)
        assert row[column[f"LBPE long tokens % (≥{LONG_TOKEN} units)"]] == pytest.approx(100 * shares["lbpe"], abs=1e-3)
        assert row[column["long-token share change (points)"]] == pytest.approx(
            100 * (shares["lbpe"] - shares["bpe"]), abs=2e-3
        )
        bpe, lbpe = (row[column[f"{m} tokens"]] for m in ("BPE", "LBPE"))
        assert row[column["token change %"]] == pytest.approx(100 * (lbpe / bpe - 1), abs=1e-3)


def test_chart_puts_the_largest_change_on_top(tokenizers):
    summaries = across_vocabularies(tokenizers, [data_file("text/moby_dick.txt").read_text("utf-8")[:30_000]])
    spec = across_spec(summaries, title="t")
    assert json.loads(json.dumps(spec)) == spec
    names = spec["data"][0]["y"]
    assert sorted(names) == sorted(VOCAB_PRESETS)
    changes = [abs(next(s for s in summaries if s["vocab"] == n)["change"]["tokens"]) for n in names]
    assert changes == sorted(changes)  # Plotly draws the first bar at the bottom
    assert spec["data"][1]["x"] == [
        100 * (long_share(s["lbpe"]) - long_share(s["bpe"]))
        for s in sorted(summaries, key=lambda s: abs(s["change"]["tokens"]))
    ]
