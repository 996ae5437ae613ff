"""LBPETokenizer asked for numpy arrays or torch tensors: the fast path fills them from lbpe's id
buffers (no list of Python ints per token in between), and they equal the full path's (the
model's own transformers code around lbpe's ids): keys, dtype, shape and every value."""

from __future__ import annotations

import numpy as np
import pytest

import lbpe
from lbpe.hf import LBPETokenizer
from lbpe.hf.fast import _LazyEncodings
from tests.support.data import data_file

FOLDERS = {"llama3": "hf/llama3", "mistral_v0.1": "hf/mistral_v0.1"}

#: Padding, truncation and the optional rows, on both sides.
OPTIONS = [
    {"padding": True},
    {"padding": True, "add_special_tokens": False},
    {"padding": True, "truncation": True, "max_length": 16, "return_special_tokens_mask": True, "return_length": True},
    {"padding": "max_length", "truncation": True, "max_length": 72, "pad_to_multiple_of": 24, "padding_side": "left"},
    {"padding": "longest", "pad_to_multiple_of": 8, "return_token_type_ids": True, "return_attention_mask": False},
    {"padding": "max_length", "max_length": 300, "return_special_tokens_mask": True, "padding_side": "right"},
]


def sample() -> list[str]:
    text = data_file("text/multilingual.txt").read_text("utf-8").split("\n")
    code = data_file("text/code.txt").read_text("utf-8").split("\n\n")
    return [t for t in text[:40:3] + code[:30:4] if t.strip()] + ["", "short", "<s> and </s> inside"]


@pytest.fixture(scope="module", params=list(FOLDERS))
def name(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def tok(name):
    found = LBPETokenizer.from_pretrained(str(data_file(f"{FOLDERS[name]}/tokenizer.json").parent), mode="lbpe")
    found.pad_token = found.pad_token or found.convert_ids_to_tokens(0)
    return found


#: ``return_tensors`` values: numpy everywhere, torch where the test extra installs it (3.11,
#: the full suite's Python).
TENSORS = ["np", pytest.param("pt", marks=pytest.mark.slow(reason="torch: the test extra installs it on 3.11 only"))]


def plain(value):
    if type(value).__module__.startswith("torch"):  # a torch.Tensor (torch imported by transformers)
        return ("torch", str(value.dtype), tuple(value.shape), value.tolist())
    if isinstance(value, np.ndarray):
        return ("numpy", str(value.dtype), value.shape, value.tolist())
    return ("list", None, None, value)


def same(fast, full) -> None:
    full = dict(full)
    full.pop("offset_mapping")
    assert list(fast.keys()) == list(full.keys())
    for key in full:
        assert plain(fast[key]) == plain(full[key]), key


@pytest.mark.parametrize("tensors", TENSORS)
def test_tensors_equal_the_full_path(tok, tensors):
    texts = sample()
    for options in OPTIONS:
        for side in ("right", "left"):
            tok.truncation_side = side
            fast = tok(texts, return_tensors=tensors, **options)
            assert isinstance(fast.encodings, _LazyEncodings)  # the fast path made it
            same(fast, tok(texts, return_tensors=tensors, return_offsets_mapping=True, **options))
            one = tok(texts[1], return_tensors=tensors, **options)
            same(one, tok(texts[1], return_tensors=tensors, return_offsets_mapping=True, **options))
    tok.truncation_side = "right"


def test_rows_come_from_lbpe(tok, name):
    texts = sample()
    ours = lbpe.load(data_file(f"{FOLDERS[name]}/tokenizer.json"))
    got = tok(texts, padding=True, add_special_tokens=False, return_tensors="np")
    for row, mask, text in zip(got["input_ids"], got["attention_mask"], texts):
        assert row[mask == 1].tolist() == ours.encode(text, mode="lbpe", allowed_special="all")


def test_no_list_of_ids_is_built(tok, monkeypatch):
    texts = sample()
    want = tok(texts, padding=True, return_tensors="np")

    def refuse(self, *args, **kwargs):
        raise AssertionError("a list of ids was built for tensors")

    monkeypatch.setattr(lbpe.Tokenizer, "encode_ordinary", refuse)
    monkeypatch.setattr(lbpe.Tokenizer, "encode", refuse)
    got = tok(texts, padding=True, return_tensors="np")
    assert plain(got["input_ids"]) == plain(want["input_ids"])
    assert plain(got["attention_mask"]) == plain(want["attention_mask"])


def outcome(call) -> object:
    """What a call gives: its error's type, or every row as plain lists (transformers 5 makes a
    numpy array of arrays from ragged rows; 4 raises)."""
    try:
        got = call()
    except ValueError as exc:
        return type(exc)
    rows = {}
    for key, value in got.items():
        if key != "offset_mapping":
            value = value.tolist() if isinstance(value, np.ndarray) else value
            rows[key] = [r.tolist() if isinstance(r, np.ndarray) else r for r in value]
    return rows


@pytest.mark.parametrize("tensors", TENSORS)
@pytest.mark.parametrize(
    "options",
    [{}, {"padding": "max_length", "max_length": 8}],
    ids=["rows of different lengths", "rows longer than max_length"],
)
def test_ragged_rows_do_what_transformers_does(tok, options, tensors):
    texts = sample()
    full = outcome(lambda: tok(texts, return_tensors=tensors, return_offsets_mapping=True, **options))
    assert outcome(lambda: tok(texts, return_tensors=tensors, **options)) == full
