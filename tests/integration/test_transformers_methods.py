"""LBPETokenizer with the other deterministic inference methods (longest prefix, longest suffix,
least tokens): ids equal lbpe's own encoding with that method, the fast path equals the full
path (the model's transformers code around the method's tokens), a saved folder keeps the
method, and BPE-dropout, whose draws change from call to call, is refused with the reason."""

from __future__ import annotations

import pytest

import lbpe
from lbpe.errors import LbpeError
from lbpe.hf import LBPETokenizer
from lbpe.hf.fast import _LazyEncodings
from tests.support.data import data_file

FILES = {"llama3": "hf/llama3/tokenizer.json", "mistral_v0.1": "hf/mistral_v0.1/tokenizer.json"}
METHODS = ["longest-prefix", "longest-suffix", "least-tokens"]


def sample() -> list[str]:
    prose = data_file("text/moby_dick.txt").read_text("utf-8").split("\n\n")[100:160]
    many = data_file("text/multilingual.txt").read_text("utf-8").split("\n")[:40]
    code = data_file("text/code.txt").read_text("utf-8").split("\n\n")[:20]
    return [t for t in prose + many + code if t.strip()]


@pytest.mark.parametrize("name", list(FILES))
@pytest.mark.parametrize("method", METHODS)
def test_ids_equal_lbpe_with_the_method(name, method):
    path = data_file(FILES[name])
    tok = LBPETokenizer.from_pretrained(str(path.parent), mode=method)
    ours = lbpe.load(path)
    texts = sample()
    assert tok.lbpe_mode == method
    got = tok(texts, add_special_tokens=False)["input_ids"]
    want = [ours.encode(t, mode=method, allowed_special="all") for t in texts]
    assert sum(a != b for a, b in zip(got, want)) == 0
    lbpe_ids = [ours.encode(t, mode="lbpe", allowed_special="all") for t in texts]
    assert sum(a != b for a, b in zip(got, lbpe_ids)) > 0  # the method is not LBPE under another name
    # the full path (offsets asked for) gives the same ids, and offsets that spell the tokens
    full = tok(texts[:30], add_special_tokens=False, return_offsets_mapping=True)
    assert full["input_ids"] == got[:30]
    fast = tok(texts[:30], padding=True, return_tensors="np") if tok.pad_token else tok(texts[:30])
    assert isinstance(fast.encodings, _LazyEncodings)
    assert tok.encode(texts[0], add_special_tokens=False) == want[0]


def test_a_saved_folder_keeps_the_method(tmp_path):
    path = data_file(FILES["llama3"])
    tok = LBPETokenizer.from_pretrained(str(path.parent), mode="least-tokens")
    tok.save_pretrained(str(tmp_path / "saved"))
    again = LBPETokenizer.from_pretrained(str(tmp_path / "saved"))
    assert again.lbpe_mode == "least-tokens"
    text = sample()[3]
    want = lbpe.load(path).encode(text, mode="least-tokens", allowed_special="all")
    assert again(text, add_special_tokens=False)["input_ids"] == want


@pytest.mark.parametrize(
    ("mode", "says"),
    [
        ("dropout", "BPE-dropout draws afresh"),
        ("longest", "mode must be one of 'bpe', 'lbpe', 'longest-prefix', 'longest-suffix', 'least-tokens'"),
    ],
)
def test_other_modes_are_refused_with_the_reason(mode, says):
    with pytest.raises(LbpeError, match=says):
        LBPETokenizer.from_pretrained(str(data_file(FILES["llama3"]).parent), mode=mode)
