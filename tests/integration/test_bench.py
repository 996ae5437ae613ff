"""The peers' benchmark (bench/peers.py) on a tiny input: its exactness check flags an encoder that
drops a token and passes tiktoken and the real peers, and such an encoder is timed apart, never
named in the summary. The tokenizer.json table (bench/hf.py) likewise times only ids equal to HF
tokenizers'. Nothing here asserts a time."""

from __future__ import annotations

import importlib.util

import pytest

from bench import ceilings
from bench import peers as P

#: A few paragraphs of each kind the benchmark times, with a special token's text in the code.
TEXTS = {
    "English prose": "Call me Ishmael. Some years ago, never mind how long precisely.\n\nIt is a way I have.",
    "code": "def f(x):\n    return x  # '<|endoftext|>'\n\n\nclass A:\n    pass\n",
    "Russian": "Разводить остановить ягода изображать палец.\n\nБолото горький хотеть единый страсть.",
    "German": "Später los, turnen fertig los wohnen schwarz 98% Bauer er.\n\nSonne Küche ihn «natürlich».",
}


def _dropping(vocab: str) -> P.Peer:
    """A deliberately inexact peer: tiktoken's ids without the last one."""
    return P.Peer(
        "drops a token",
        lambda: P.tiktoken_encoding(vocab),
        lambda enc, text: enc.encode_ordinary(text)[:-1],
        batch=lambda enc, texts, n: [enc.encode_ordinary(t)[:-1] for t in texts],
    )


def test_exactness_flags_an_encoder_that_drops_a_token():
    ref = P.tiktoken_encoding("cl100k_base")
    fake = _dropping("cl100k_base")
    report = P.exactness(
        ref.encode_ordinary,
        {"fake": lambda text: fake.encode(ref, text), "tiktoken": ref.encode_ordinary},
        TEXTS,
    )
    paragraphs = sum(len(P.paragraphs(t)) for t in TEXTS.values())
    assert report["fake"] == {"differing": paragraphs, "paragraphs": paragraphs, "texts": list(TEXTS), "exact": False}
    assert report["tiktoken"]["exact"] and report["tiktoken"]["differing"] == 0


@pytest.mark.slow(reason="every peer encoder on real text")
@pytest.mark.parametrize("vocab", P.VOCABS)
def test_the_installed_peers_are_exact(vocab):
    listed = P.peers(vocab)
    objs = {p.name: p.load() for p in listed}
    encoders = {p.name: (lambda text, p=p: list(p.encode(objs[p.name], text))) for p in listed}
    report = P.exactness(objs["tiktoken"].encode_ordinary, encoders, TEXTS)
    assert all(r["exact"] for r in report.values()), report


@pytest.fixture
def with_fake(monkeypatch):
    real = P.peers
    monkeypatch.setattr(P, "peers", lambda vocab, notes=None: [*real(vocab, notes), _dropping(vocab)])
    monkeypatch.setattr(P, "SMALL_REPEATS", 1)


@pytest.mark.slow(reason="a benchmark run")
def test_an_inexact_peer_is_timed_apart(with_fake):
    texts = {k: TEXTS[k] for k in ("English prose", "Russian")}
    sections = P.single(texts, 1, ["cl100k_base"])["sections"]
    exact = {row[1]: row[3] for row in sections[P.EXACT_TITLE][1]}
    assert exact["drops a token"] == ", ".join(texts)
    assert {name for name, kinds in exact.items() if kinds == "none"} == exact.keys() - {"drops a token"}
    timed = {row[2] for row in sections[P.SINGLE_TITLE][1]}
    apart = {row[2] for row in sections[P.INEXACT_TITLE][1]}
    assert apart == {"drops a token"}
    assert "drops a token" not in timed
    assert {"tiktoken", f"lbpe bpe ({P.PATHS[0]})", f"lbpe lbpe ({P.PATHS[0]})"} <= timed
    summary = sections[P.SUMMARY_TITLE][1]
    assert [row[1] for row in summary] == list(texts)
    assert not any("drops a token" in cell for row in summary for cell in row if isinstance(cell, str))


@pytest.mark.slow(reason="a benchmark run")
def test_the_batch_table_marks_a_batch_whose_ids_differ(with_fake):
    rows = P.batch({"German": TEXTS["German"]}, 1, ["cl100k_base"])["sections"][P.BATCH_TITLE][1]
    ids = {row[2]: row[8] for row in rows}
    assert ids.pop("drops a token") == "DIFFER"
    assert set(ids.values()) == {"exact"}, ids


def _hf_texts() -> dict[str, str]:
    """What hf_files takes: it reads the English prose, code and multilingual texts."""
    return {"English prose": TEXTS["English prose"], "code": TEXTS["code"], "multilingual": TEXTS["Russian"]}


@pytest.mark.slow(reason="loads Gemma 3's tokenizer.json, 262,144 tokens")
def test_the_tokenizer_json_table_times_files_whose_ids_equal_hf(monkeypatch):
    from bench import hf

    monkeypatch.setattr(hf, "HF_FILES", {"Gemma 3": "hf/gemma3/tokenizer.json"})
    rows: list = []
    hf.hf_files(rows, _hf_texts(), rounds=1)
    encoders = [row[2] for row in rows]
    assert encoders[0] == "HF tokenizers"
    assert "lbpe bpe (compiled), cold" in encoders or "lbpe bpe (pure), cold" in encoders
    assert all(isinstance(row[4], float) for row in rows)


@pytest.mark.slow(reason="loads Gemma 3's tokenizer.json, 262,144 tokens")
def test_the_tokenizer_json_table_refuses_to_time_ids_that_differ(monkeypatch):
    from bench import hf

    real = hf._encode
    monkeypatch.setattr(hf, "HF_FILES", {"Gemma 3": "hf/gemma3/tokenizer.json"})
    monkeypatch.setattr(hf, "_encode", lambda *args: real(*args)[:-1])
    rows: list = []
    hf.hf_files(rows, _hf_texts(), rounds=1)
    assert len(rows) == 1
    assert "NOT HF's ids" in rows[0][2] and rows[0][3:] == ("-", "-")


def test_the_latency_walk_visits_every_index_once_per_lap():
    # n = 8: the step is i -> (5 i + 1) mod 8 (the multiplier is 5 modulo 8), written out by hand
    assert list(ceilings.cycle(8)) == [1, 6, 3, 0, 5, 2, 7, 4]
    n = 1 << 12
    c = ceilings.cycle(n)
    seen, i = set(), 0
    for _ in range(n):
        seen.add(i)
        i = c[i]
    assert i == 0 and len(seen) == n
    # a step almost never stays within a cache line (8 indices) of the index before it
    near = sum(min((c[i] - i) % n, (i - c[i]) % n) < 8 for i in range(n))
    assert near < n // 100
    for bad in (6, 2, 0):
        with pytest.raises(ValueError, match="power of two"):
            ceilings.cycle(bad)


def test_the_ceilings_tables_have_a_row_for_every_vocabulary_text_mode_and_cache(monkeypatch):
    monkeypatch.setattr(ceilings, "BANDWIDTH_BYTES", 1 << 20)
    monkeypatch.setattr(ceilings, "LARGE_CYCLE", 1 << 12)
    monkeypatch.setattr(ceilings, "STEPS", 1 << 10)
    texts = {k: TEXTS[k] for k in ("English prose", "Russian")}
    rows: list = []
    distance: list = []
    ceilings.ceilings(rows, distance, texts, rounds=1)
    assert [r[0] for r in rows] == ["read bandwidth", "copy bandwidth", "memory latency"]
    assert rows[0][1].endswith(" GB/s") and float(rows[0][1].split()[0]) > 0
    assert rows[2][1].endswith(" ns")
    keys = [(r[0], r[1], r[2], r[3]) for r in distance]
    path = P.PATHS[0]
    assert keys == [
        (vocab, text, f"lbpe {mode} ({path})", cache)
        for vocab in ("cl100k_base", "o200k_base")
        for text in texts
        for mode in ("bpe", "lbpe")
        for cache in ("cold", "warm")
    ]
    for row in distance:
        assert row[4] > 0 and row[5].endswith("%")
        float(row[6])


def test_the_short_table_times_the_fastest_peer_beside_tiktoken_and_lbpe():
    from bench.throughput import short_calls

    rows: list = []
    short_calls(rows, "Call me Ishmael. Some years ago. Never mind how long precisely. It is a way I have.", 1)
    for vocab in ("cl100k_base", "o200k_base"):
        encoders = [row[2] for row in rows if row[0] == vocab]
        assert encoders[0] == "tiktoken"
        assert ("fastokens" in encoders) == (importlib.util.find_spec("fastokens") is not None)
        assert {"lbpe bpe (compiled)", "lbpe lbpe (compiled)", "lbpe bpe (pure)", "lbpe lbpe (pure)"} <= set(encoders)
        assert all(row[3].endswith(" us") and row[4] > 0 for row in rows)
