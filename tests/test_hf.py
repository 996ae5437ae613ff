"""lbpe.hf.LBPETokenizer: a real transformers tokenizer on local files, encoding BPE exactly as
the model's own fast tokenizer and LBPE exactly as lbpe, with everything else the model's own."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from transformers import AutoTokenizer

import lbpe
from lbpe.hf import LBPETokenizer
from tests.conftest import data_file, run_cli, tiktoken_encoding

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


@pytest.mark.parametrize("name", ["botchan .model", "cl100k_base.tiktoken"])
def test_built_tokenizer_saves_and_loads_back(name, texts, tmp_path):
    path = data_file(OTHER_FILES[name])
    tok = LBPETokenizer.from_pretrained(path, mode="lbpe")
    tok.save_pretrained(tmp_path / "saved")
    assert (tmp_path / "saved" / path.name).read_bytes() == path.read_bytes()  # lbpe's vocabulary beside it
    again = LBPETokenizer.from_pretrained(tmp_path / "saved")
    assert again.lbpe_mode == "lbpe" and again(texts[:300])["input_ids"] == tok(texts[:300])["input_ids"]
    plain = AutoTokenizer.from_pretrained(str(tmp_path / "saved"))  # transformers alone: the BPE tokenizer
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
    plain = AutoTokenizer.from_pretrained(str(tmp_path / "saved"))  # transformers alone: the BPE tokenizer
    assert plain(texts[:50])["input_ids"] == AutoTokenizer.from_pretrained(folder)(texts[:50])["input_ids"]
    copy = pickle.loads(pickle.dumps(tok))
    assert copy.lbpe_mode == "lbpe" and copy(texts[:50])["input_ids"] == tok(texts[:50])["input_ids"]


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


def test_errors_say_what_to_give(tmp_path):
    with pytest.raises(lbpe.LbpeError, match="no vocabulary found in this folder.*LBPETokenizer takes a model folder"):
        LBPETokenizer.from_pretrained(tmp_path)
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(lbpe.LbpeError, match="LBPETokenizer takes"):
        LBPETokenizer.from_pretrained(tmp_path / "notes.txt")
    with pytest.raises(lbpe.LbpeError, match="mode must be 'bpe' or 'lbpe'"):
        LBPETokenizer.from_pretrained(str(data_file("hf/llama3/tokenizer.json").parent), mode="fast")
