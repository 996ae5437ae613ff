"""The LLaMA-family presets: lbpe-llama-32k (trained here) and mistral-7b (Mistral-7B v0.1's model).

Both rebuild from their recipes byte for byte (the scripts' ``--check`` modes), load with the
ids of the reference implementations, and are what the playground opens with.
"""

from __future__ import annotations

import fnmatch
import gzip
import hashlib
import json
import subprocess
import sys

import pytest

import lbpe
from lbpe.playground.examples import DEFAULT_EXAMPLE
from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS, load_preset, preset_path, sample_corpus
from tests.support.data import ROOT, data_file, pyproject

TEXTS = [
    "The Capitals of Europe hold the geographers' maps.",
    "def longest_first(piece: bytes) -> list[bytes]:\n\treturn [piece[:16]]  # 1234567 digits\n",
    "Пространство и время, 東京タワー, naïve café, emoji 👍🏽 and  double  spaces.\n\n",
]


def run_script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / name), *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow(reason="trains a vocabulary")
def test_the_llama_vocabulary_rebuilds_from_its_recipe():
    """Retrains 32K on the 15 MB corpus (about 10 s) and compares the file and the record."""
    proc = run_script("train_llama_vocab.py", "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_llama_record_names_its_corpus_and_holds_the_sample_out():
    folder = preset_path("lbpe-llama-32k").parent
    record = json.loads((folder / "training.json").read_text("utf-8"))
    assert record["file_sha256"] == hashlib.sha256(preset_path("lbpe-llama-32k").read_bytes()).hexdigest()
    assert record["parameters"]["style"] == "llama" and record["parameters"]["vocab_size"] == 32000
    assert record["result"]["tokens"] == 32000 == load_preset("lbpe-llama-32k").n_vocab
    pins = {item.out: item.sha256 for item in __import__("fetch_data").MANIFEST}
    kinds = set()
    for part in record["parts"]:
        raw = data_file(part["input"]).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == part["input_sha256"] == pins[part["input"]]
        assert part["licence"] and part["bytes"] > 0
        kinds.add(part["part"].split("-")[0])
    assert kinds == {"prose", "speeches", "code", "languages"}
    assert record["corpus_bytes"] == sum(p["bytes"] for p in record["parts"]) > 10_000_000
    # the sample corpus (the Corpus view's text, the paper report's held-out text) is not trained on
    sample = json.loads((ROOT / "lbpe" / "data" / "sample" / "corpus.json").read_text("utf-8"))
    held = {p["input"] for p in sample["parts"]}
    assert {p["input"] for p in record["parts"]} <= held


def test_the_mistral_model_is_the_wheels_file_with_its_licence():
    proc = run_script("bundle_mistral_vocab.py", "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = preset_path("mistral-7b").parent
    cached = data_file("sentencepiece/mistral_tokenizer.model.v1").read_bytes()
    assert gzip.decompress(preset_path("mistral-7b").read_bytes()) == cached
    assert "Apache License" in (folder / "LICENSE").read_text("utf-8")
    assert "Apache" in VOCAB_PRESETS["mistral-7b"][1] and "Mistral AI" in (folder / "NOTICE").read_text("utf-8")


@pytest.mark.parametrize("text", TEXTS)
def test_mistral_preset_encodes_as_sentencepiece(text):
    import sentencepiece as spm

    sp = spm.SentencePieceProcessor(model_file=str(data_file("sentencepiece/mistral_tokenizer.model.v1")))
    tok = load_preset("mistral-7b")
    assert tok.encode(text, mode="bpe") == sp.encode(text)
    assert tok.decode(tok.encode(text, mode="lbpe")) == text


@pytest.mark.parametrize("text", TEXTS)
def test_llama_preset_encodes_as_hf_tokenizers(text):
    import tokenizers

    hf = tokenizers.Tokenizer.from_str(gzip.decompress(preset_path("lbpe-llama-32k").read_bytes()).decode("utf-8"))
    tok = load_preset("lbpe-llama-32k")
    assert tok.encode(text, mode="bpe") == hf.encode(text, add_special_tokens=False).ids
    assert tok.decode(tok.encode(text, mode="lbpe")) == text


def test_the_playground_opens_with_the_default_a_real_models_llama_family_vocabulary():
    assert DEFAULT_EXAMPLE.vocabulary == DEFAULT_PRESET == "mistral-7b"
    tok = load_preset(DEFAULT_PRESET)
    assert tok.n_vocab == 32000 and tok.vocab.unit == "char" and tok.vocab.byte_fallback
    # BPE and LBPE differ on the bundled sample corpus with it (the point of the playground)
    text = sample_corpus().decode("utf-8")[:50_000]
    assert tok.encode(text, mode="bpe") != tok.encode(text, mode="lbpe")


def test_every_bundled_file_is_package_data():
    patterns = pyproject()["tool"]["setuptools"]["package-data"]
    data = ROOT / "lbpe" / "data"
    for name in VOCAB_PRESETS:
        rel = preset_path(name).relative_to(data).as_posix()
        assert any(fnmatch.fnmatch(rel, p) for p in patterns["lbpe.data"]), rel
    for rel in ("mistral/LICENSE", "mistral/NOTICE", "llama/training.json"):
        assert (data / rel).is_file() and any(fnmatch.fnmatch(rel, p) for p in patterns["lbpe.data"]), rel


def test_unknown_preset_lists_the_new_ones():
    with pytest.raises(lbpe.LbpeError, match="mistral-7b, lbpe-llama-32k"):
        load_preset("llama-7b")
