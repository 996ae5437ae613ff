"""lbpe.service: opening what a person uploads, the same way for the app and the page."""

from __future__ import annotations

import shutil

import pytest

import lbpe
from lbpe.errors import LbpeError, PatternNeededError
from lbpe.limits import Limits
from lbpe.service import corpus_view, open_upload, open_vocabulary
from tests.conftest import data_file

TEXT = "Tokenization matters: 12345 cafés, 日本語 and code()."


def copy(tmp_path, source, name):
    target = tmp_path / name
    shutil.copyfile(source, target)
    return target


def test_gpt2_pair_and_single_files_open_as_the_loader_reads_them(tmp_path):
    pair = [copy(tmp_path, data_file(f"gpt2/{n}"), n) for n in ("vocab.bpe", "encoder.json")]
    tok = open_upload(pair)
    want = lbpe.load(data_file("gpt2/encoder.json").parent)
    assert tok.name == "encoder.json + vocab.bpe"
    for mode in ("bpe", "lbpe"):
        assert tok.encode(TEXT, mode=mode) == want.encode(TEXT, mode=mode)
    assert all(p.is_file() for p in pair)  # the caller's uploads are left for the caller
    one = open_upload([copy(tmp_path, data_file("hf/llama3/tokenizer.json"), "tokenizer.json")])
    assert one.encode(TEXT, mode="lbpe") == lbpe.load(data_file("hf/llama3/tokenizer.json")).encode(TEXT, mode="lbpe")


def test_a_rank_file_without_a_known_name_asks_for_its_pretokenizer(tmp_path):
    mine = copy(tmp_path, data_file("openai/cl100k_base.tiktoken"), "mine.tiktoken")
    with pytest.raises(PatternNeededError) as info:
        open_upload([mine])
    assert info.value.source == "mine.tiktoken" and "lbpe-vocab-" not in str(info.value)
    for auto in ("auto", "", None):
        with pytest.raises(PatternNeededError):
            open_vocabulary(mine, pattern=auto)
    tok = open_upload([mine], pattern="cl100k_base")
    assert tok.encode(TEXT, mode="bpe") == lbpe.load_preset("cl100k_base").encode(TEXT, mode="bpe")
    # a tokenizer.json carries its own pre-tokenizer: a pattern chosen in a menu is ignored
    hf = copy(tmp_path, data_file("hf/qwen3/tokenizer.json"), "tokenizer.json")
    assert open_vocabulary(hf, pattern="gpt2").encode(TEXT, mode="bpe") == lbpe.load(hf).encode(TEXT, mode="bpe")


@pytest.mark.parametrize(
    "files, message",
    [
        ([], "Choose a vocabulary file"),
        (["a.json", "b.json"], "Two files can only be GPT-2's encoder.json and vocab.bpe, not a.json and b.json"),
        (["a", "b", "c"], "Upload one vocabulary file"),
    ],
)
def test_file_sets_that_are_not_a_vocabulary(tmp_path, files, message):
    paths = []
    for name in files:
        (tmp_path / name).write_text("{}")
        paths.append(tmp_path / name)
    with pytest.raises(LbpeError, match=message):
        open_upload(paths)


def test_bad_files_are_named_as_chosen_never_by_the_private_folder(tmp_path, monkeypatch):
    bad = tmp_path / "tokenizer.json"
    bad.write_bytes(b'{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [')
    with pytest.raises(LbpeError) as info:
        open_upload([bad])
    assert str(info.value).startswith("tokenizer.json") and "lbpe-vocab-" not in str(info.value)
    big = copy(tmp_path, data_file("openai/o200k_base.tiktoken"), "o200k_base.tiktoken")
    with pytest.raises(
        LbpeError, match=r"o200k_base.tiktoken is 3.6\d* MB, over the limit of 3 MB.*LBPE_APP_MAX_VOCAB_MB"
    ):
        open_upload([big], limits=Limits(vocab_bytes=3_000_000))
    monkeypatch.setenv("LBPE_MAX_VOCAB_BYTES", "1M")
    with pytest.raises(LbpeError, match=r"over the limit of .*LBPE_MAX_VOCAB_BYTES"):
        open_upload([big])


def test_corpus_view_counts_a_whole_file_exactly_with_progress():
    data = data_file("text/multilingual.txt").read_bytes()[:400_000]
    data = data[: len(data.decode("utf-8", "ignore").encode("utf-8"))]  # whole characters only
    tok = lbpe.load_preset("cl100k_base")
    seen: list[float] = []
    view = corpus_view(tok, data, "many.txt", progress=seen.append)
    text = data.decode("utf-8")
    for mode in ("bpe", "lbpe"):
        assert view["tokens"][mode] == len(tok.encode(text, mode=mode, disallowed_special=()))
    assert seen[0] == 0.0 and seen[-1] == pytest.approx(1.0) and seen == sorted(seen) and len(seen) > 3
    assert view["summary"]["file"] == "many.txt" and view["summary"]["vocab"] == "cl100k_base"
    assert view["rows"] and view["csv"].splitlines()[0].startswith("file,")
    with pytest.raises(LbpeError, match=r"x.txt is not UTF-8 text \(byte 0xff at offset 3\)"):
        corpus_view(tok, b"abc\xff", "x.txt")
