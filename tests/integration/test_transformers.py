"""lbpe.hf.LBPETokenizer: a real transformers tokenizer on local files, encoding BPE exactly as
the model's own fast tokenizer and LBPE exactly as lbpe, with everything else the model's own."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path

import numpy as np
import pytest
from transformers import AutoTokenizer, PreTrainedTokenizerFast

import lbpe
from lbpe.hf import LBPETokenizer
from lbpe.hf.fast import _LazyEncodings
from lbpe.presets import VOCAB_PRESETS, load_preset
from tests.support.cli import run_cli
from tests.support.data import data_file, tiktoken_encoding

MODELS = {"llama3": "hf/llama3", "qwen3": "hf/qwen3", "mistral_v0.1": "hf/mistral_v0.1"}


def paragraphs() -> list[str]:
    """12,560 real paragraphs: English prose, code, many languages."""
    out = []
    for name, sep in (
        ("moby_dick.txt", "\n\n"),
        ("code.txt", "\n\n"),
        ("multilingual.txt", "\n"),
        ("multilingual_words.txt", "\n\n"),
    ):
        out += [p for p in data_file(f"text/{name}").read_text("utf-8").split(sep) if p.strip()]
    return out


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return paragraphs()


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("trained")
    corpus = folder / "c.txt"
    corpus.write_text(data_file("text/moby_dick.txt").read_text("utf-8")[:400_000], encoding="utf-8")
    result = run_cli(
        "train",
        "--vocab-size",
        "2000",
        "--eos",
        "<|endoftext|>",
        "--pad",
        "<pad>",
        "-q",
        "-o",
        str(folder / "tok" / "tokenizer.json"),
        str(corpus),
    )
    assert result.returncode == 0, result.stderr
    return str(folder / "tok")


def folder_of(name: str, trained: str) -> str:
    return trained if name == "trained" else str(data_file(f"{MODELS[name]}/tokenizer.json").parent)


@pytest.mark.slow(reason="transformers over real text, per model")
@pytest.mark.parametrize("name", [*MODELS, "trained"])
def test_ids_equal_the_models_own_tokenizer_and_lbpe(name, texts, trained):
    folder = folder_of(name, trained)
    own = AutoTokenizer.from_pretrained(folder)
    bpe = LBPETokenizer.from_pretrained(folder, mode="bpe")
    lbpe_tok = LBPETokenizer.from_pretrained(folder, mode="lbpe")
    ours = lbpe.load(f"{folder}/tokenizer.json")
    assert isinstance(lbpe_tok, type(own)) and lbpe_tok.lbpe_mode == "lbpe"
    assert len(texts) >= 10_000
    got_bpe = bpe(texts, add_special_tokens=False)["input_ids"]
    assert got_bpe == own(texts, add_special_tokens=False)["input_ids"]
    got_lbpe = lbpe_tok(texts, add_special_tokens=False)["input_ids"]
    want = [ours.encode(t, mode="lbpe", allowed_special="all") for t in texts]  # HF finds special tokens in text
    assert sum(a != b for a, b in zip(got_lbpe, want)) == 0
    assert sum(a != b for a, b in zip(got_lbpe, got_bpe)) > 0  # the two modes do differ somewhere
    # with the model's special tokens: the same ones around LBPE's ids
    for text in texts[:200]:
        with_special, plain = own(text)["input_ids"], own(text, add_special_tokens=False)["input_ids"]
        prefix = with_special[: with_special.index(plain[0])] if plain else with_special
        suffix = with_special[len(prefix) + len(plain) :]
        assert lbpe_tok(text)["input_ids"] == prefix + ours.encode(text, mode="lbpe", allowed_special="all") + suffix


@pytest.mark.parametrize("name", ["llama3", "qwen3", "mistral_v0.1", "trained"])
def test_word_ids_are_the_models_own_words_in_every_mode(name, texts, trained):
    """A word is a pre-token: LBPE changes the tokens inside each, not where words begin and end
    (token classification and whole-word masking align labels by word_ids)."""
    folder = folder_of(name, trained)
    own = AutoTokenizer.from_pretrained(folder)
    sample = texts[::211] + ["indivisibility internationalization", "a  b\n\n  c"]
    for mode in ("lbpe", "longest-prefix"):
        tok = LBPETokenizer.from_pretrained(folder, mode=mode)
        for result in (
            tok(sample, add_special_tokens=False),
            tok(sample, add_special_tokens=False, return_offsets_mapping=True),
        ):
            want = own(sample, add_special_tokens=False)
            for k, text in enumerate(sample):
                words = sorted({w for w in want.word_ids(k) if w is not None})
                got = sorted({w for w in result.word_ids(k) if w is not None})
                assert got == words, (mode, text[:60])
                assert [result.word_to_chars(k, w) for w in got] == [want.word_to_chars(k, w) for w in words]
                for t, w in enumerate(result.word_ids(k)):
                    assert result.token_to_word(k, t) == w


@pytest.mark.parametrize("name", ["llama3", "mistral_v0.1", "trained"])
def test_padding_truncation_tensors_offsets_decode(name, texts, trained):
    folder = folder_of(name, trained)
    tok = LBPETokenizer.from_pretrained(folder, mode="lbpe")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token or tok.convert_ids_to_tokens(0)
    ours = lbpe.load(f"{folder}/tokenizer.json")
    batch = texts[:8]
    out = tok(batch, padding=True, truncation=True, max_length=64, return_tensors="np", add_special_tokens=False)
    assert isinstance(out["input_ids"], np.ndarray) and out["input_ids"].shape[1] <= 64
    for row, mask, text in zip(out["input_ids"], out["attention_mask"], batch):
        want = ours.encode(text, mode="lbpe", disallowed_special=())[:64]
        assert row[mask == 1].tolist() == want
        assert (row[mask == 0] == tok.pad_token_id).all()
    english = [t for t in texts[:400] if t.isascii()][:50]
    encoded = tok(english, add_special_tokens=False, return_offsets_mapping=True)
    for text, ids, offsets in zip(english, encoded["input_ids"], encoded["offset_mapping"]):
        assert tok.decode(ids) == text
        pieces = [text[a:b] for a, b in offsets]
        assert len(pieces) == len(ids)
        # each token's span spells that token (spaces as the vocabulary spells them)
        labels = [s.label for s in ours.segment(text, mode="lbpe", disallowed_special=())]
        spelled = [tok.convert_tokens_to_string([t]) for t in tok.convert_ids_to_tokens(ids)]
        assert [p.strip() for p in pieces] == [w.strip() for w in spelled], (labels[:5], pieces[:5])


#: Vocabularies that are not a tokenizer.json: LBPETokenizer builds the fast tokenizer itself.
OTHER_FILES = {
    "cl100k_base.tiktoken": "openai/cl100k_base.tiktoken",
    "o200k_base.tiktoken": "openai/o200k_base.tiktoken",
    "gpt2 folder": "gpt2/encoder.json",
    "mistral .model": "sentencepiece/mistral_tokenizer.model.v1",
    "botchan .model": "sentencepiece/test/botchan_en_bpe_1000.model",
}


def reference_encoder(name: str):
    """The model's own encoder (tiktoken or sentencepiece), with special tokens found in text as
    transformers finds them."""
    if name.endswith(".model"):
        import sentencepiece

        sp = sentencepiece.SentencePieceProcessor(model_file=str(data_file(OTHER_FILES[name])))
        return sp.encode, sp.decode
    enc = tiktoken_encoding("gpt2" if name == "gpt2 folder" else name.split(".")[0])
    return (lambda text: enc.encode(text, allowed_special="all")), enc.decode


@pytest.mark.slow(reason="transformers over real text, per file")
@pytest.mark.parametrize("name", list(OTHER_FILES))
def test_model_and_rank_files_encode_as_their_own_library(name, texts):
    path = data_file(OTHER_FILES[name])
    if name == "gpt2 folder":
        path = path.parent
    encode, decode = reference_encoder(name)
    bpe = LBPETokenizer.from_pretrained(path, mode="bpe")
    lbpe_tok = LBPETokenizer.from_pretrained(path, mode="lbpe")
    ours = lbpe.load(path)
    got_bpe = bpe(texts, add_special_tokens=False)["input_ids"]
    want_bpe = [encode(t) for t in texts]
    assert len(texts) >= 10_000
    assert sum(a != b for a, b in zip(got_bpe, want_bpe)) == 0
    got_lbpe = lbpe_tok(texts, add_special_tokens=False)["input_ids"]
    want_lbpe = [ours.encode(t, mode="lbpe", allowed_special="all") for t in texts]
    assert sum(a != b for a, b in zip(got_lbpe, want_lbpe)) == 0
    assert sum(a != b for a, b in zip(got_lbpe, got_bpe)) > 0
    # decoding as the model's own library does (texts without unknown pieces: transformers drops
    # <unk> as a special token where sentencepiece writes " ⁇ ")
    unk = bpe.unk_token_id
    for ids in got_lbpe[:2000]:
        if unk is None or unk not in ids:
            assert lbpe_tok.decode(ids) == decode(ids)
    # the special tokens the model's own library adds: SentencePiece's BOS, nothing for tiktoken
    if name.endswith(".model"):
        assert bpe.bos_token == "<s>" and bpe.eos_token == "</s>" and bpe.unk_token == "<unk>"
        assert lbpe_tok(texts[0])["input_ids"] == [1, *want_lbpe[0]]
    else:
        assert bpe.eos_token == "<|endoftext|>" and bpe(texts[0])["input_ids"] == want_bpe[0]


@pytest.mark.slow(reason="transformers, per file")
@pytest.mark.parametrize("name", ["botchan .model", "cl100k_base.tiktoken", "gpt2 folder"])
def test_built_tokenizer_saves_and_loads_back(name, texts, tmp_path):
    path = data_file(OTHER_FILES[name])
    tok = LBPETokenizer.from_pretrained(path, mode="lbpe")
    tok.save_pretrained(tmp_path / "saved")
    # lbpe's vocabulary beside it: every file of it (GPT-2's are two)
    for own in [path, *([path.parent / "vocab.bpe"] if name == "gpt2 folder" else [])]:
        assert (tmp_path / "saved" / own.name).read_bytes() == own.read_bytes()
    assert "local_files_only" not in json.loads((tmp_path / "saved" / "tokenizer_config.json").read_text("utf-8"))
    again = LBPETokenizer.from_pretrained(tmp_path / "saved")
    assert again.lbpe_mode == "lbpe" and again(texts[:300])["input_ids"] == tok(texts[:300])["input_ids"]
    # the saved tokenizer.json is the model's own pipeline (BPE), lbpe's stage is not in it
    plain = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "saved" / "tokenizer.json"))
    encode, _ = reference_encoder(name)
    assert plain(texts[:300], add_special_tokens=False)["input_ids"] == [encode(t) for t in texts[:300]]
    copy = pickle.loads(pickle.dumps(again))
    assert copy(texts[:50])["input_ids"] == tok(texts[:50])["input_ids"]


def test_a_rank_file_with_an_unknown_name_takes_its_pattern(tmp_path, texts):
    mine = tmp_path / "my_ranks.tiktoken"
    mine.write_bytes(data_file("openai/cl100k_base.tiktoken").read_bytes())
    with pytest.raises(lbpe.PatternNeededError, match="my_ranks.tiktoken"):
        LBPETokenizer.from_pretrained(mine)
    tok = LBPETokenizer.from_pretrained(mine, mode="bpe", pattern="cl100k_base")
    encode, _ = reference_encoder("cl100k_base.tiktoken")
    assert tok(texts[:500], add_special_tokens=False)["input_ids"] == [encode(t) for t in texts[:500]]
    # its special tokens given as lbpe.load takes them (the PatternNeededError says so), kept
    # through a save and a load
    eot = {"<|endoftext|>": 100257}
    tok = LBPETokenizer.from_pretrained(mine, mode="bpe", pattern="cl100k_base", special_tokens=eot)
    text = f"{texts[0]}<|endoftext|>"
    assert tok.eos_token == "<|endoftext|>" and tok(text)["input_ids"] == encode(text)
    tok.save_pretrained(tmp_path / "saved")
    again = LBPETokenizer.from_pretrained(tmp_path / "saved")
    assert again.eos_token == "<|endoftext|>" and again(text)["input_ids"] == encode(text)
    assert again._lbpe.tok.special_tokens == eot


@pytest.mark.slow(reason="transformers")
def test_gpt2_files_with_another_pattern_load_back_with_it(tmp_path, texts):
    """GPT-2's two files read with pattern= keep that pattern through a save and a load (the
    saved folder went back to GPT-2's own, and so to other ids)."""
    folder = data_file("gpt2/encoder.json").parent
    tok = LBPETokenizer.from_pretrained(folder, mode="bpe", pattern="cl100k_base")
    with_pattern, own = lbpe.load(folder, pattern="cl100k_base"), lbpe.load(folder)
    want = [with_pattern.encode(t, mode="bpe") for t in texts[:300]]
    assert tok(texts[:300], add_special_tokens=False)["input_ids"] == want
    tok.save_pretrained(tmp_path / "saved")
    again = LBPETokenizer.from_pretrained(tmp_path / "saved")
    assert again(texts[:300], add_special_tokens=False)["input_ids"] == want
    assert want != [own.encode(t, mode="bpe") for t in texts[:300]]  # the patterns differ here


@pytest.mark.slow(reason="transformers")
def test_chat_template_save_load_and_pickle(tmp_path, texts):
    folder = str(data_file("hf/qwen3/tokenizer.json").parent)
    tok = LBPETokenizer.from_pretrained(folder, mode="lbpe")
    tok.chat_template = "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    messages = [{"role": "user", "content": texts[5]}, {"role": "assistant", "content": texts[6]}]
    rendered = tok.apply_chat_template(messages, tokenize=False)
    ids = tok.apply_chat_template(messages, tokenize=True)
    ids = ids["input_ids"] if isinstance(ids, dict) or hasattr(ids, "keys") else ids
    assert ids == tok(rendered, add_special_tokens=False)["input_ids"]
    ours = lbpe.load(f"{folder}/tokenizer.json")
    assert ids == ours.encode(rendered, mode="lbpe", allowed_special="all")
    tok.save_pretrained(tmp_path / "saved")
    again = LBPETokenizer.from_pretrained(tmp_path / "saved")
    assert again.lbpe_mode == "lbpe" and again(texts[:50])["input_ids"] == tok(texts[:50])["input_ids"]
    plain = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "saved" / "tokenizer.json"))  # the model's own
    assert plain(texts[:50])["input_ids"] == AutoTokenizer.from_pretrained(folder)(texts[:50])["input_ids"]
    copy = pickle.loads(pickle.dumps(tok))
    assert copy.lbpe_mode == "lbpe" and copy(texts[:50])["input_ids"] == tok(texts[:50])["input_ids"]


@pytest.mark.slow(reason="datasets.map with transformers")
def test_datasets_map_with_the_wrapper(tmp_path, texts):
    import datasets

    tok = LBPETokenizer.from_pretrained(str(data_file("hf/llama3/tokenizer.json").parent), mode="lbpe")
    ds = datasets.Dataset.from_dict({"text": texts[:300]})
    out = ds.map(
        lambda b: tok(b["text"], add_special_tokens=False),
        batched=True,
        num_proc=2,
        cache_file_name=str(tmp_path / "mapped.arrow"),
    )
    assert out["input_ids"] == tok(texts[:300], add_special_tokens=False)["input_ids"]


def test_errors_say_what_to_give(tmp_path, monkeypatch):
    with pytest.raises(lbpe.LbpeError, match="no vocabulary found in this folder.*LBPETokenizer takes a model folder"):
        LBPETokenizer.from_pretrained(tmp_path)
    # a Hub id: nothing is downloaded, and the error says how to have the files
    monkeypatch.chdir(tmp_path)
    with pytest.raises(lbpe.LbpeError, match="reads local files only.*huggingface-cli download meta-llama/Llama-3-8B"):
        LBPETokenizer.from_pretrained("meta-llama/Llama-3-8B")
    with pytest.raises(lbpe.LbpeError, match=r"LBPETokenizer.from_pretrained\(path, mode=.*\)"):
        LBPETokenizer(tokenizer_file="tokenizer.json")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(lbpe.LbpeError, match="LBPETokenizer takes"):
        LBPETokenizer.from_pretrained(tmp_path / "notes.txt")
    with pytest.raises(lbpe.LbpeError, match="mode must be one of 'bpe', 'lbpe', 'longest-prefix'"):
        LBPETokenizer.from_pretrained(str(data_file("hf/llama3/tokenizer.json").parent), mode="fast")
    with pytest.raises(lbpe.LbpeError, match=r"special_tokens= is for a rank file \(\.tiktoken\).*carries its own"):
        LBPETokenizer.from_pretrained(str(data_file("hf/llama3/tokenizer.json").parent), special_tokens={"<x>": 1})
    with pytest.raises(lbpe.LbpeError, match=r"pattern= is for a rank file or GPT-2's .*carries its own pre-tokenizer"):
        LBPETokenizer.from_pretrained(str(data_file("hf/llama3/tokenizer.json").parent), pattern="gpt2")


# ---- saved folders load back as LBPE, through transformers' own AutoTokenizer ----


@pytest.fixture
def modules_cache(tmp_path, monkeypatch):
    """transformers copies a folder's tokenizer module into its modules cache before importing
    it: a temporary one here (and sys.path restored afterwards)."""
    import transformers.dynamic_module_utils as dynamic

    monkeypatch.setattr(dynamic, "HF_MODULES_CACHE", str(tmp_path / "modules"))
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    return tmp_path / "modules"


#: What each saved tokenizer is made from: (what LBPETokenizer.from_pretrained is given, what
#: lbpe.load reads, the special tokens the model's own library adds around a text).
SAVED = {
    "mistral-7b": ("mistral-7b", "mistral-7b", "sentencepiece"),
    "cl100k_base": ("cl100k_base", "cl100k_base", "tiktoken"),
    "llama3": ("hf/llama3", "hf/llama3/tokenizer.json", "own"),
    "mistral_v0.1": ("hf/mistral_v0.1", "hf/mistral_v0.1/tokenizer.json", "own"),
    "trained": ("trained", "trained", "own"),
}
#: Also in the tests of the two paths (a normaliser and added tokens that are not special).
PATHS = {**SAVED, "qwen3": ("hf/qwen3", "hf/qwen3/tokenizer.json", "own")}


def saved_source(name: str, trained: str) -> tuple[str, lbpe.Tokenizer, object]:
    """(what from_pretrained takes, lbpe's tokenizer of it, a function text -> (prefix, suffix)
    ids the model's own library adds)."""
    given, read, kind = PATHS[name]
    if name == "trained":
        given, ours = trained, lbpe.load(f"{trained}/tokenizer.json")
    elif read in VOCAB_PRESETS:
        ours = load_preset(read)
    else:
        given, ours = str(data_file(read).parent), lbpe.load(data_file(read))
    if kind == "sentencepiece":  # sentencepiece's own BOS: <s> (id 1) before every text
        return given, ours, lambda text: ([1], [])
    if kind == "tiktoken":  # tiktoken adds nothing
        return given, ours, lambda text: ([], [])
    own = AutoTokenizer.from_pretrained(given)

    def around(text: str) -> tuple[list[int], list[int]]:
        full, plain = own(text)["input_ids"], own(text, add_special_tokens=False)["input_ids"]
        start = next(k for k in range(len(full) - len(plain) + 1) if full[k : k + len(plain)] == plain)
        return full[:start], full[start + len(plain) :]

    return given, ours, around


@pytest.mark.slow(reason="saves and loads, both modes")
@pytest.mark.parametrize("name", list(SAVED))
def test_a_saved_folder_loads_back_as_lbpe_with_trust_remote_code(name, texts, trained, tmp_path, modules_cache):
    given, ours, around = saved_source(name, trained)
    sample = texts[::25]
    for mode in lbpe.MODES:
        folder = tmp_path / f"saved-{mode}"
        LBPETokenizer.from_pretrained(given, mode=mode).save_pretrained(folder)
        config = json.loads((folder / "tokenizer_config.json").read_text("utf-8"))
        assert config["auto_map"]["AutoTokenizer"][1] == "lbpe_tokenizer.LBPETokenizer"
        assert config["tokenizer_class"] == "LBPETokenizer" and config["lbpe_mode"] == mode
        loaded = AutoTokenizer.from_pretrained(str(folder), trust_remote_code=True)
        assert loaded.lbpe_mode == mode
        got = loaded(sample)["input_ids"]
        want = []
        for text in sample:
            prefix, suffix = around(text)
            want.append(prefix + ours.encode(text, mode=mode, allowed_special="all") + suffix)
        assert sum(a != b for a, b in zip(got, want)) == 0, mode
        # the folder also loads with lbpe alone, in the mode it was saved in
        assert LBPETokenizer.from_pretrained(folder)(sample)["input_ids"] == want


@pytest.mark.slow(reason="saves and loads")
@pytest.mark.parametrize("name", ["cl100k_base", "llama3"])
def test_without_trust_remote_code_transformers_refuses_and_names_the_fix(name, trained, tmp_path, modules_cache):
    given, _, _ = saved_source(name, trained)
    LBPETokenizer.from_pretrained(given, mode="lbpe").save_pretrained(tmp_path / "saved")
    with pytest.raises(
        ValueError, match=r"(?s)contains custom code.*Please pass the argument `trust_remote_code=True`"
    ):
        AutoTokenizer.from_pretrained(str(tmp_path / "saved"))


BLOCK_LBPE = """
import importlib.abc, sys
class NoLbpe(importlib.abc.MetaPathFinder):  # as if lbpe were not installed
    def find_spec(self, name, path, target=None):
        if name == "lbpe" or name.startswith("lbpe."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NoLbpe())
import transformers.dynamic_module_utils as dynamic
dynamic.HF_MODULES_CACHE = sys.argv[2]
from transformers import AutoTokenizer
try:
    AutoTokenizer.from_pretrained(sys.argv[1], trust_remote_code=True)
except ImportError as exc:
    print(exc)
"""


@pytest.mark.slow(reason="transformers in a subprocess")
def test_without_lbpe_installed_transformers_says_pip_install_lbpe(tmp_path):
    import subprocess
    import sys

    LBPETokenizer.from_pretrained("cl100k_base").save_pretrained(tmp_path / "saved")
    out = subprocess.run(
        [sys.executable, "-c", BLOCK_LBPE, str(tmp_path / "saved"), str(tmp_path / "modules")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert "requires the following packages that were not found in your environment: lbpe" in out.stdout, out.stderr
    assert "pip install lbpe" in out.stdout


@pytest.mark.slow(reason="loads each bundled vocabulary into transformers")
@pytest.mark.parametrize("name", sorted(VOCAB_PRESETS))
def test_every_bundled_preset_by_name(name, texts):
    tok = LBPETokenizer.from_pretrained(name)
    ours = load_preset(name)
    sample = texts[::60]
    assert tok.lbpe_mode == "lbpe"
    assert tok(sample, add_special_tokens=False)["input_ids"] == [
        ours.encode(t, mode="lbpe", allowed_special="all") for t in sample
    ]
    bos = [ours.bos[0]] if name in ("mistral-7b", "lbpe-llama-32k") else []
    assert tok(sample[0])["input_ids"] == bos + ours.encode(sample[0], mode="lbpe", allowed_special="all")


# ---- datasets fingerprints the tokenizer ----


@pytest.mark.slow(reason="loads and hashes four tokenizers")
def test_datasets_hashes_the_tokenizer_by_its_state():
    from datasets.fingerprint import Hasher

    folder = str(data_file("hf/llama3/tokenizer.json").parent)
    first = Hasher.hash(LBPETokenizer.from_pretrained(folder, mode="lbpe"))
    assert first == Hasher.hash(LBPETokenizer.from_pretrained(folder, mode="lbpe"))
    assert first != Hasher.hash(LBPETokenizer.from_pretrained(folder, mode="bpe"))
    assert first != Hasher.hash(LBPETokenizer.from_pretrained(str(data_file("hf/qwen3/tokenizer.json").parent)))
    used = LBPETokenizer.from_pretrained(folder, mode="lbpe")
    used(["warm the caches", "a second text"], truncation=True, max_length=3, return_offsets_mapping=True)
    assert Hasher.hash(used) == first  # encoding (caches, the truncation it set) changes nothing


HASH_IN_A_FRESH_PROCESS = """
import sys
from datasets.fingerprint import Hasher
from lbpe.hf import LBPETokenizer
print(Hasher.hash(LBPETokenizer.from_pretrained(sys.argv[1], mode="lbpe")))
"""


@pytest.mark.slow(reason="transformers in a subprocess")
def test_the_hash_is_the_same_in_another_process():
    import subprocess
    import sys

    from datasets.fingerprint import Hasher

    folder = str(data_file("hf/mistral_v0.1/tokenizer.json").parent)
    here = Hasher.hash(LBPETokenizer.from_pretrained(folder, mode="lbpe"))
    env = {**__import__("os").environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(Path(lbpe.__file__).parents[1])}
    out = subprocess.run(
        [sys.executable, "-c", HASH_IN_A_FRESH_PROCESS, folder], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.stdout.strip() == here, out.stderr


@pytest.mark.slow(reason="datasets.map with transformers")
def test_dataset_map_twice_loads_the_second_from_the_cache(texts, tmp_path, monkeypatch):
    import datasets

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "cache"))
    folder = str(data_file("hf/llama3/tokenizer.json").parent)
    datasets.Dataset.from_dict({"text": texts[:2000]}).save_to_disk(str(tmp_path / "ds"))
    ds = datasets.load_from_disk(str(tmp_path / "ds"))
    runs = []
    for _ in range(2):
        tok = LBPETokenizer.from_pretrained(folder, mode="lbpe")  # a fresh load each time, as a new run would
        before = sorted(p.name for p in (tmp_path / "ds").iterdir())
        out = ds.map(lambda b, tok=tok: tok(b["text"]), batched=True)
        runs.append((before, sorted(p.name for p in (tmp_path / "ds").iterdir()), out.cache_files))
    (before1, after1, files1), (before2, after2, files2) = runs
    assert len(after1) == len(before1) + 1  # the first map wrote its cache file
    assert after2 == before2 == after1 and files2 == files1  # the second read it back
    assert out["input_ids"][:50] == tok(texts[:50])["input_ids"]  # what the cache gave back is the encoding


# ---- the fast path and the full path give the same results ----

#: Call options covering what the fast path reproduces (the full path runs whenever offsets are asked for).
OPTIONS = [
    {},
    {"add_special_tokens": False},
    {"split_special_tokens": True},
    {"padding": True, "truncation": True, "max_length": 40, "return_special_tokens_mask": True, "return_length": True},
    {"padding": "max_length", "max_length": 64, "pad_to_multiple_of": 24, "padding_side": "left"},
    {"padding": "longest", "pad_to_multiple_of": 8, "return_token_type_ids": True, "return_attention_mask": False},
    {"truncation": "only_first", "max_length": 7, "return_special_tokens_mask": True},
    {"padding": True, "return_tensors": "np"},
]


def equal_results(fast, full) -> None:
    full = dict(full)
    full.pop("offset_mapping")
    assert list(fast.keys()) == list(full.keys())
    for key, value in full.items():
        mine = fast[key]
        if isinstance(value, np.ndarray):
            assert isinstance(mine, np.ndarray) and mine.dtype == value.dtype, key
            mine, value = mine.tolist(), value.tolist()
        assert mine == value, key


@pytest.mark.slow(reason="both paths, every option, per vocabulary")
@pytest.mark.parametrize("name", ["llama3", "qwen3", "mistral_v0.1", "cl100k_base", "trained"])
def test_the_fast_path_equals_the_full_path(name, texts, trained):
    given, ours, _ = saved_source(name, trained)
    tok = LBPETokenizer.from_pretrained(given, mode="lbpe")
    tok.pad_token = tok.pad_token or tok.eos_token or tok.convert_ids_to_tokens(0)
    added = sorted(tok.added_tokens_encoder)[:6]  # special and other added tokens inside texts
    sample = texts[::97] + [f"{t[:40]}{a}{t[40:90]} {a}" for t, a in zip(texts[5::300], added * 10)] + [""]
    for options in OPTIONS:
        for side in ("right", "left"):
            tok.truncation_side = side
            fast = tok(sample, **options)
            assert isinstance(fast.encodings, _LazyEncodings)  # made by the fast path: encodings not computed yet
            equal_results(fast, tok(sample, return_offsets_mapping=True, **options))
            one = tok(sample[-2], **options)
            assert isinstance(one.encodings, _LazyEncodings)
            equal_results(one, tok(sample[-2], return_offsets_mapping=True, **options))
    # what the fast result's encodings say (computed by the full path when asked for)
    fast, full = tok(sample[:40]), tok(sample[:40], return_offsets_mapping=True)
    for k in range(40):
        assert fast.tokens(k) == full.tokens(k) and fast.word_ids(k) == full.word_ids(k)
    assert tok.tokenize(sample[3]) == full.tokens(3)[len(full.tokens(3)) - len(tok.tokenize(sample[3])) :]
    assert tok.encode(sample[3]) == full["input_ids"][3]
    # pairs (the full path): each text LBPE's own way
    for a, b in zip(sample[:20], sample[20:40]):
        pair = tok(a, b, add_special_tokens=False)["input_ids"]
        assert pair == ours.encode(a, mode="lbpe", allowed_special="all") + ours.encode(
            b, mode="lbpe", allowed_special="all"
        )


@pytest.mark.slow(reason="transformers over real text")
@pytest.mark.parametrize("normalized", [True, False])
def test_tokens_added_through_transformers_are_matched_on_both_paths(normalized, texts):
    from tokenizers import AddedToken

    folder = str(data_file("hf/llama3/tokenizer.json").parent)
    tok = LBPETokenizer.from_pretrained(folder, mode="lbpe")
    own = AutoTokenizer.from_pretrained(folder)
    for t in (tok, own):
        t.add_tokens([AddedToken("ing the wh", normalized=normalized), AddedToken("Moby", normalized=normalized)])
        t.add_special_tokens({"pad_token": "<|lbpe-pad|>"})
    sample = [t for t in texts[:3000] if "ing the wh" in t or "Moby" in t][:60] + ["<|lbpe-pad|> Moby-Dick"]
    assert len(sample) > 20
    fast = tok(sample, padding=True, add_special_tokens=False)  # (transformers 4.x's Llama class adds a BOS)
    equal_results(fast, tok(sample, padding=True, add_special_tokens=False, return_offsets_mapping=True))
    ours = lbpe.load(f"{folder}/tokenizer.json")
    moby, pad = own.convert_tokens_to_ids(["Moby", "<|lbpe-pad|>"])
    assert moby in fast["input_ids"][0] or moby in fast["input_ids"][1]
    # each part between added tokens is lbpe's encoding of it; the added tokens are the model's ids
    for text, ids, mask in zip(sample, fast["input_ids"], fast["attention_mask"]):
        ids = [i for i, m in zip(ids, mask) if m]
        want, rest = [], text
        for piece in re.split(r"(ing the wh|Moby|<\|lbpe-pad\|>)", rest):
            if piece in ("ing the wh", "Moby", "<|lbpe-pad|>"):
                want.append(own.convert_tokens_to_ids(piece))
            elif piece:
                want += ours.encode(piece, mode="lbpe", allowed_special="all")
        assert ids == want
    assert want[0] == pad  # the last text starts with the new special token


def test_a_token_added_with_lstrip_and_rstrip_saves_and_loads_back(tmp_path, modules_cache):
    """transformers strips the white space beside such a token (the full path runs its own
    matching); the saved folder must load back and give the same ids."""
    from tokenizers import AddedToken

    folder = str(data_file("hf/llama3/tokenizer.json").parent)
    tok = LBPETokenizer.from_pretrained(folder, mode="lbpe")
    own = AutoTokenizer.from_pretrained(folder)
    for t in (tok, own):
        t.add_tokens([AddedToken("<ls>", lstrip=True, rstrip=True)])
    text = "indivisibility  <ls>  internationalization <ls>x"
    ours = lbpe.load(f"{folder}/tokenizer.json")
    mark = own.convert_tokens_to_ids("<ls>")
    # the white space beside the token goes with it (transformers' own says so in mode bpe)
    assert own(text, add_special_tokens=False)["input_ids"] == (
        ours.encode("indivisibility", mode="bpe")
        + [mark]
        + ours.encode("internationalization", mode="bpe")
        + [mark]
        + ours.encode("x", mode="bpe")
    )
    want = ours.encode("indivisibility", mode="lbpe") + [mark] + ours.encode("internationalization", mode="lbpe")
    want += [mark] + ours.encode("x", mode="lbpe")
    assert tok(text, add_special_tokens=False)["input_ids"] == want
    tok.save_pretrained(tmp_path / "saved")
    again = LBPETokenizer.from_pretrained(tmp_path / "saved")
    assert again.lbpe_mode == "lbpe" and again(text, add_special_tokens=False)["input_ids"] == want
    auto = AutoTokenizer.from_pretrained(tmp_path / "saved", trust_remote_code=True)
    assert auto(text, add_special_tokens=False)["input_ids"] == want


@pytest.mark.parametrize("mode", ["bpe", "lbpe"])
def test_a_token_added_in_a_file_with_a_normaliser_saves_and_loads_back(mode, tmp_path, modules_cache):
    """transformers' add_tokens marks a token "normalized": true by default, which lbpe.load
    refuses in a file with a normaliser (Mistral's); the folder such a tokenizer is saved to must
    still load back, with the ids it gave before and, in mode bpe, the model's own."""
    from tokenizers import AddedToken

    folder = str(data_file("hf/mistral_v0.1/tokenizer.json").parent)
    tok = LBPETokenizer.from_pretrained(folder, mode=mode)
    own = AutoTokenizer.from_pretrained(folder)
    for t in (tok, own):
        t.add_tokens(["Moby", AddedToken("<raw>", normalized=False)])
    text = "Call me Ishmael. Moby Dick<raw>internationalization, Moby"
    ids = tok(text)["input_ids"]
    assert own.convert_tokens_to_ids("<raw>") in ids
    if mode == "bpe":
        assert ids == own(text)["input_ids"]
    tok.save_pretrained(tmp_path / "saved")
    own.save_pretrained(tmp_path / "own")
    saved = json.loads((tmp_path / "saved" / "tokenizer.json").read_text("utf-8"))
    assert any(a["content"] == "Moby" and a["normalized"] for a in saved["added_tokens"])
    again = LBPETokenizer.from_pretrained(tmp_path / "saved")
    assert again.lbpe_mode == mode and again(text)["input_ids"] == ids
    auto = AutoTokenizer.from_pretrained(tmp_path / "saved", trust_remote_code=True)
    assert auto(text)["input_ids"] == ids
    if mode == "bpe":
        assert ids == AutoTokenizer.from_pretrained(tmp_path / "own")(text)["input_ids"]


def test_every_path_treats_a_lone_surrogate_and_an_unknown_character_as_transformers_does(tmp_path):
    """Options that pick the path (offsets or not, tensors or not) must not change whether a
    text is refused or what its ids are."""
    from tokenizers import Tokenizer as Backend
    from tokenizers import models, pre_tokenizers, trainers

    folder = str(data_file("hf/mistral_v0.1/tokenizer.json").parent)
    own, tok = AutoTokenizer.from_pretrained(folder), LBPETokenizer.from_pretrained(folder, mode="lbpe")
    with pytest.raises(TypeError):
        own("a\ud800b")
    for options in ({}, {"return_offsets_mapping": True}, {"return_tensors": "np"}):
        with pytest.raises(TypeError):
            tok("a\ud800b", **options)
        with pytest.raises(TypeError):
            tok(["fine", "a\ud800b"], **options)
    # a BPE with no unknown token and no byte fallback: transformers' own drops a character it has no token for
    backend = Backend(models.BPE())
    backend.pre_tokenizer = pre_tokenizers.Metaspace()
    lines = data_file("text/moby_dick.txt").read_text("utf-8")[:100_000].splitlines()
    backend.train_from_iterator(lines, trainers.BpeTrainer(vocab_size=500, show_progress=False))
    backend.save(str(tmp_path / "tokenizer.json"))
    plain = PreTrainedTokenizerFast(tokenizer_file=str(tmp_path / "tokenizer.json"))
    text = "the whale\tran"
    assert "\t" not in "".join(plain.convert_ids_to_tokens(plain(text)["input_ids"]))  # the tab is gone
    for mode in ("bpe", "lbpe"):
        ours = LBPETokenizer.from_pretrained(str(tmp_path / "tokenizer.json"), mode=mode)
        got = [ours(text, **options)["input_ids"] for options in ({}, {"return_offsets_mapping": True})]
        got.append(ours(text, return_tensors="np")["input_ids"][0].tolist())
        assert got[0] == got[1] == got[2], mode
        if mode == "bpe":
            assert got[0] == plain(text)["input_ids"]


def test_a_tokenizer_in_a_subfolder_loads_as_transformers_loads_it(tmp_path):
    import shutil

    (tmp_path / "repo" / "tokenizer").mkdir(parents=True)
    shutil.copy(data_file("hf/llama3/tokenizer.json"), tmp_path / "repo" / "tokenizer" / "tokenizer.json")
    own = AutoTokenizer.from_pretrained(tmp_path / "repo", subfolder="tokenizer")
    tok = LBPETokenizer.from_pretrained(tmp_path / "repo", subfolder="tokenizer", mode="bpe")
    text = "Subfolders hold tokenizers in multi-part repositories."
    assert tok(text)["input_ids"] == own(text)["input_ids"]
    tok.save_pretrained(tmp_path / "saved" / "tokenizer")
    again = LBPETokenizer.from_pretrained(tmp_path / "saved", subfolder="tokenizer")
    assert again.lbpe_mode == "bpe" and again(text)["input_ids"] == own(text)["input_ids"]
    with pytest.raises(lbpe.LbpeError, match="no folder named .missing. in"):
        LBPETokenizer.from_pretrained(tmp_path / "repo", subfolder="missing")


def test_the_readmes_transformers_example_runs_as_printed(tmp_path):
    import os
    import subprocess
    import sys

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    (example,) = [b for b in blocks if "LBPETokenizer.from_pretrained" in b and "save_pretrained" in b]
    check = (  # two padded rows, and the folder loads back as LBPE
        "\nimport lbpe\nassert batch['input_ids'].shape[0] == 2, batch\n"
        "text = 'Tokenization, internationally'\n"
        "assert tok(text, add_special_tokens=False)['input_ids'] == "
        "lbpe.load_preset('mistral-7b').encode(text, mode='lbpe')\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", example + check], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.slow(reason="transformers over real text")
def test_a_class_whose_pipeline_transformers_rebuilds_is_encoded_with_that_pipeline(tmp_path, texts):
    """Mistral-7B's folder names LlamaTokenizer, for which transformers 5 builds its own pipeline
    (a Metaspace pre-tokenizer, no Prepend normaliser) instead of the file's: every path encodes
    with the pipeline transformers runs, as the model's own tokenizer does."""
    folder = tmp_path / "mistral"
    folder.mkdir()
    (folder / "tokenizer.json").write_bytes(data_file("hf/mistral_v0.1/tokenizer.json").read_bytes())
    config = {"tokenizer_class": "LlamaTokenizer", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}
    (folder / "tokenizer_config.json").write_text(json.dumps({**config, "add_bos_token": True, "legacy": True}))
    own = AutoTokenizer.from_pretrained(str(folder))
    tok = LBPETokenizer.from_pretrained(str(folder), mode="lbpe")
    # texts whose BPE and LBPE splits agree: the ids are the model's own
    shown = {" ": ["<s>", "▁"], "  two": ["<s>", "▁", "▁two"], "Hi</s> ok": ["<s>", "▁Hi", "</s>", "▁ok"]}
    for text, tokens in shown.items():
        assert own.convert_ids_to_tokens(own(text)["input_ids"]) == tokens  # transformers' own pipeline
        for options in ({}, {"return_offsets_mapping": True}):
            assert tok.convert_ids_to_tokens(tok(text, **options)["input_ids"]) == tokens, (text, options)
    sample = texts[::50]
    assert tok(sample)["input_ids"] == tok(sample, return_offsets_mapping=True)["input_ids"]
    assert tok.decode(tok("Hi</s> ok")["input_ids"], skip_special_tokens=True) == own.decode(
        own("Hi</s> ok")["input_ids"], skip_special_tokens=True
    )


@pytest.mark.slow(reason="transformers")
def test_a_saved_folder_loaded_by_a_class_named_outright_is_classic_bpe(tmp_path, texts):
    """What the README says of a saved folder read with a transformers class by name: the
    model's own files, so classic BPE (only AutoTokenizer reads the LBPE class)."""
    folder = str(data_file("hf/llama3/tokenizer.json").parent)
    tok = LBPETokenizer.from_pretrained(folder, mode="lbpe")
    tok.save_pretrained(tmp_path / "saved")
    plain = PreTrainedTokenizerFast.from_pretrained(str(tmp_path / "saved"))
    sample = texts[::200]
    own = AutoTokenizer.from_pretrained(folder)(sample)["input_ids"]
    assert plain(sample)["input_ids"] == own != tok(sample)["input_ids"]


@pytest.mark.slow(reason="transformers")
def test_a_mode_set_on_the_tokenizer_is_checked_when_set(tmp_path):
    """lbpe_mode is checked as from_pretrained(mode=) checks it, when it is set: a bad value is
    refused there, with the modes it takes, and never encoded with or saved."""
    tok = LBPETokenizer.from_pretrained(str(data_file("hf/llama3/tokenizer.json").parent), mode="lbpe")
    for bad, said in (("nonsense", "mode must be one of 'bpe', 'lbpe'"), ("dropout", "BPE-dropout draws afresh")):
        with pytest.raises(lbpe.LbpeError, match=said):
            tok.lbpe_mode = bad
        assert tok.lbpe_mode == "lbpe"
    tok.lbpe_mode = "longest-prefix"
    assert tok("hello world", add_special_tokens=False)["input_ids"] == lbpe.load(
        data_file("hf/llama3/tokenizer.json")
    ).encode("hello world", mode="longest-prefix")
    tok.save_pretrained(tmp_path / "saved")
    assert LBPETokenizer.from_pretrained(str(tmp_path / "saved")).lbpe_mode == "longest-prefix"


@pytest.mark.slow(reason="trains, saves and loads, both modes")
def test_a_scaffold_vocabulary_saves_and_loads_back_with_its_scaffold(texts, tmp_path, modules_cache):
    """Scaffold-BPE's scaffold tokens are lbpe's own key in tokenizer.json, which transformers
    drops when it writes the file again: a saved folder keeps them, so it encodes as the file
    the training data was exported with."""
    corpus = tmp_path / "c.txt"
    corpus.write_text(data_file("text/moby_dick.txt").read_text("utf-8")[:300_000], encoding="utf-8")
    trained = tmp_path / "tok"
    args = ("--vocab-size", "1500", "--scaffold", "--eos", "<|endoftext|>", "-q")
    result = run_cli("train", *args, "-o", str(trained / "tokenizer.json"), str(corpus))
    assert result.returncode == 0, result.stderr
    ours = lbpe.load(trained / "tokenizer.json")  # the file lbpe export reads
    scaffold = set(ours.vocab.scaffold)
    assert scaffold
    sample = texts[::40]
    for mode in ("bpe", "lbpe"):
        want = [ours.encode(text, mode=mode, allowed_special="all") for text in sample]
        assert not scaffold & {i for ids in want for i in ids}  # lbpe splits scaffold tokens back
        folder = tmp_path / f"saved-{mode}"
        LBPETokenizer.from_pretrained(str(trained), mode=mode).save_pretrained(folder)
        saved = json.loads((folder / "tokenizer.json").read_text("utf-8"))
        original = json.loads((trained / "tokenizer.json").read_text("utf-8"))
        assert saved["model"]["lbpe_scaffold"] == original["model"]["lbpe_scaffold"]
        again = lbpe.load(folder / "tokenizer.json")
        assert [again.encode(text, mode=mode, allowed_special="all") for text in sample] == want
        # transformers' own BPE emits scaffold ids: the wrapper encodes as lbpe in mode "bpe" too
        loaded = AutoTokenizer.from_pretrained(str(folder), trust_remote_code=True)
        assert loaded(sample, add_special_tokens=False)["input_ids"] == want
        offsets = loaded(sample[:20], add_special_tokens=False, return_offsets_mapping=True)  # the full path
        assert offsets["input_ids"] == want[:20]


@pytest.mark.slow(reason="transformers, trains")
def test_transformers_makes_new_tokenizers_of_the_lbpe_class(tmp_path, texts):
    """transformers makes a tokenizer of a tokenizer's own class when it trains a new one
    (``train_new_from_iterator``) or is asked to (``type(tok)(...)``, ``type(tok).from_pretrained``):
    each is an LBPE tokenizer of the vocabulary it was built with, in the mode it was given, or
    the trained one's mode, else "lbpe"."""
    folder = data_file("hf/llama3/tokenizer.json").parent
    tok = LBPETokenizer.from_pretrained(str(folder), mode="longest-prefix")
    sample = texts[::300]
    own = lbpe.load(folder / "tokenizer.json")
    want = [own.encode(t, mode="lbpe", allowed_special="all") for t in sample]
    made = type(tok)(tokenizer_file=str(folder / "tokenizer.json"))
    loaded = type(tok).from_pretrained(str(folder))
    for new in (made, loaded):
        assert new.lbpe_mode == "lbpe"
        assert new(sample, add_special_tokens=False)["input_ids"] == want
    assert (
        type(tok).from_pretrained(str(folder), lbpe_mode="bpe")(sample)["input_ids"]
        == (PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))(sample)["input_ids"])
    )
    # trained anew: the new vocabulary, encoded as the trained tokenizer was (longest-prefix)
    trained = tok.train_new_from_iterator(texts[:2000], vocab_size=600)
    assert trained.lbpe_mode == "longest-prefix" and len(trained) == 600
    trained.backend_tokenizer.save(str(tmp_path / "tokenizer.json"))
    reference = lbpe.load(tmp_path / "tokenizer.json")
    assert trained(sample, add_special_tokens=False)["input_ids"] == [
        reference.encode(t, mode="longest-prefix", allowed_special="all") for t in sample
    ]
    assert [trained.decode(ids) for ids in trained(sample, add_special_tokens=False)["input_ids"]] == sample


@pytest.mark.slow(reason="transformers")
def test_a_results_encodings_are_never_those_of_a_changed_tokenizer():
    """The fast path's result makes its ``tokenizers`` encodings (tokens, word_ids, ...) when
    first asked for: after tokens were added or the mode was set, they would be another
    tokenizer's, out of step with the result's ids; asked for then, they are refused, saying why."""
    tok = LBPETokenizer.from_pretrained(str(data_file("hf/llama3/tokenizer.json").parent), mode="lbpe")
    kept = tok("The quick brown fox")
    kept.tokens()  # made before the change: kept as they were
    for change in (lambda: tok.add_tokens(["quick"]), lambda: setattr(tok, "lbpe_mode", "bpe")):
        tok.lbpe_mode = "lbpe"
        result = tok("The quick brown fox")
        ids = result["input_ids"]
        change()
        with pytest.raises(lbpe.LbpeError, match="changed since .* encode the text again"):
            result.tokens()
        assert len(kept.tokens()) == len(kept["input_ids"])
        assert result["input_ids"] == ids
    again = tok("The quick brown fox")
    assert len(again.tokens()) == len(again["input_ids"])


@pytest.mark.slow(reason="transformers")
def test_a_stride_as_long_as_the_room_left_is_refused_on_every_path():
    """Truncating to ``max_length`` with a ``stride`` of at least what is left of it after the
    special tokens: transformers refuses it (a ValueError; at exactly that length ``tokenizers``
    stops with a Rust panic). An LBPE tokenizer refuses both with a ValueError that says so,
    whether its result overflows or not; a shorter stride runs."""
    folder = str(data_file("hf/mistral_v0.1/tokenizer.json").parent)
    tok = LBPETokenizer.from_pretrained(folder, mode="lbpe")
    text = "The quick brown fox jumps over the lazy dog"
    room = 4 - tok.num_special_tokens_to_add()
    for stride in (10, room):
        for overflow in (False, True):
            with pytest.raises(ValueError, match=f"stride={stride} .* max_length=4"):
                tok(text, truncation=True, max_length=4, stride=stride, return_overflowing_tokens=overflow)
    short = tok(text, truncation=True, max_length=4, stride=room - 1)["input_ids"]
    assert short == tok(text, truncation=True, max_length=4)["input_ids"]


@pytest.mark.slow(reason="transformers")
@pytest.mark.parametrize("source", ["hf/llama3", "mistral-7b"])
def test_saving_to_a_file_does_as_transformers_does(tmp_path, source):
    """save_pretrained given a file, not a folder: transformers logs that it should be a folder
    and returns None; an LBPE tokenizer does the same (it raised the system's NotADirectoryError
    from writing its own files into it), and the file is left as it was."""
    path = str(data_file(f"{source}/tokenizer.json").parent) if "/" in source else source
    tok = LBPETokenizer.from_pretrained(path, mode="lbpe")
    afile = tmp_path / "afile"
    afile.write_text("kept\n")
    assert (
        PreTrainedTokenizerFast(tokenizer_file=str(data_file("hf/llama3/tokenizer.json"))).save_pretrained(str(afile))
        is None
    )
    assert tok.save_pretrained(str(afile)) is None
    assert afile.read_text() == "kept\n" and sorted(tmp_path.iterdir()) == [afile]
