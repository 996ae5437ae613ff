"""A Tokenizer travels to worker processes: standard pickle, spawn pools, executors.

Spawn is the default start method on macOS and Windows and the safe one everywhere; it
pickles the callable and its arguments. The caches stay behind, so a pickle is as small after
encoding as before, and the unpickled tokenizer gives the same ids on both paths.
"""

from __future__ import annotations

import concurrent.futures
import functools
import multiprocessing
import pickle

import pytest

import lbpe
from lbpe.presets import VOCAB_PRESETS, load_preset
from tests.support.data import data_file

FILES = {
    "llama3": "hf/llama3/tokenizer.json",
    "qwen3": "hf/qwen3/tokenizer.json",
    "deepseek_v3": "hf/deepseek_v3/tokenizer.json",
    "gemma3": "hf/gemma3/tokenizer.json",
    "mistral_v0.1": "hf/mistral_v0.1/tokenizer.json",
    "mistral.model": "sentencepiece/mistral_tokenizer.model.v1",
}

TEXT = (
    "Pickled tokenizers travel: internationalization, naïve café, 東京タワー, Привет мир, 🙂🚀, "
    "<|endoftext|> <s> [INST]\n\tdef f(x):\n        return x ** 2  # 12345678\n"
)


def tokenizer(name: str) -> lbpe.Tokenizer:
    return load_preset(name) if name in VOCAB_PRESETS else lbpe.load(data_file(FILES[name]))


def encodings(tok: lbpe.Tokenizer, text: str) -> dict:
    ids = {m: tok.encode(text, mode=m, disallowed_special=()) for m in lbpe.MODES}
    return {**ids, "decoded": tok.decode(ids["bpe"]), "lbpe_decoded": tok.decode(ids["lbpe"])}


@pytest.mark.parametrize("name", [*VOCAB_PRESETS, *FILES])
def test_round_trip_gives_the_same_ids_and_leaves_caches_behind(name, encode_path):
    tok = tokenizer(name)
    tok.clear_cache()
    before = pickle.dumps(tok)
    want = encodings(tok, TEXT * 20)
    after = pickle.dumps(tok)
    assert len(after) == len(before)  # the piece caches filled by encoding did not travel
    copy = pickle.loads(after)
    assert copy is not tok and copy.name == tok.name
    assert encodings(copy, TEXT * 20) == want
    assert encodings(pickle.loads(pickle.dumps(copy)), TEXT * 20) == want  # a used copy travels again


def _encode_in_worker(tok: lbpe.Tokenizer, text: str) -> dict:
    return encodings(tok, text)


@pytest.mark.slow(reason="spawned processes load the tokenizer")
@pytest.mark.parametrize("name", ["lbpe-32k", "cl100k_base", "llama3", "mistral.model"])
def test_spawn_pool_and_process_pool_executor(name):
    tok = tokenizer(name)
    texts = [TEXT, TEXT.upper(), data_file("text/multilingual.txt").read_text("utf-8")[:5000]]
    want = [encodings(tok, t) for t in texts]
    spawn = multiprocessing.get_context("spawn")
    with spawn.Pool(2) as pool:
        assert pool.map(functools.partial(_encode_in_worker, tok), texts) == want
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=spawn) as pool:
        assert list(pool.map(_encode_in_worker, [tok] * len(texts), texts)) == want


@pytest.mark.slow(reason="pickles the large vocabularies")
def test_a_pickle_is_about_the_size_of_the_file():
    # a tokenizer.json spells merges as text; the pickle holds the same tables as bytes. (A
    # SentencePiece .model keeps only scores: its pickle holds the merges derived from them,
    # 1.9 MB for Mistral's 0.5 MB file.)
    for name, relative in FILES.items():
        if relative.endswith(".json"):
            assert len(pickle.dumps(tokenizer(name))) <= 1.3 * data_file(relative).stat().st_size, name


@pytest.mark.slow(reason="datasets.map with worker processes")
def test_datasets_map_with_two_processes(tmp_path, monkeypatch):
    import datasets  # the lbpe[data] extra, part of lbpe[test]

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    tok = tokenizer("llama3")
    texts = [p for p in data_file("text/moby_dick.txt").read_text("utf-8").split("\n\n") if p.strip()][:400]
    ds = datasets.Dataset.from_dict({"text": texts})

    def encode(batch):
        return {m: [tok.encode(t, mode=m, disallowed_special=()) for t in batch["text"]] for m in lbpe.MODES}

    out = ds.map(encode, batched=True, num_proc=2, cache_file_name=str(tmp_path / "cache" / "mapped.arrow"))
    for mode in lbpe.MODES:
        assert out[mode] == [tok.encode(t, mode=mode, disallowed_special=()) for t in texts]


@pytest.mark.slow(reason="Ray")
def test_ray_tasks_receive_a_tokenizer(ray_local):
    ray = ray_local
    tok = tokenizer("cl100k_base")
    texts = [TEXT, TEXT[::-1], data_file("text/multilingual.txt").read_text("utf-8")[:3000]]
    shared = ray.put(tok)
    remote = ray.remote(_encode_in_worker)
    assert ray.get([remote.remote(shared, t) for t in texts]) == [encodings(tok, t) for t in texts]
