"""Token shards (lbpe export): every document's ids, in order, on one or many processes;
only complete shards after a stop; resume without redoing; bad input named or skipped."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

import lbpe
from lbpe.corpus.shards import INDEX_NAME, ExportOptions, ShardDataset, export_shards, vocab_sha256
from lbpe.errors import LbpeError
from lbpe.presets import load_preset
from tests.support.cli import CLI_WITH_CTRL_C, run_cli
from tests.support.data import data_file


def paragraphs(n: int) -> list[str]:
    text = data_file("text/moby_dick.txt").read_text("utf-8")
    out = [p for p in text.split("\n\n") if p.strip()]
    return out[:n]


def write_jsonl(path: Path, docs: list[str], *, field: str = "text", gz: bool = False) -> Path:
    lines = "".join(json.dumps({"id": i, field: d}, ensure_ascii=False) + "\n" for i, d in enumerate(docs))
    if gz:
        path.write_bytes(gzip.compress(lines.encode()))
    else:
        path.write_text(lines, encoding="utf-8")
    return path


def read_shards(folder: Path) -> tuple[dict, list[list[int]]]:
    index = json.loads((folder / INDEX_NAME).read_text("utf-8"))
    docs = []
    for shard in index["shards"]:
        tokens = np.load(folder / shard["tokens_file"], mmap_mode="r")
        offsets = np.load(folder / shard["offsets_file"])
        assert tokens.dtype == np.dtype(index["dtype"]) and offsets.dtype == np.int64
        assert offsets[0] == 0 and offsets[-1] == len(tokens) == shard["tokens"]
        assert len(offsets) == shard["documents"] + 1
        docs += [tokens[offsets[i] : offsets[i + 1]].tolist() for i in range(len(offsets) - 1)]
    return index, docs


def encoded(tok, docs: list[str], mode: str) -> list[list[int]]:
    return [tok.encode(d, mode=mode, disallowed_special=()) for d in docs]


@pytest.mark.parametrize("name", ["lbpe-32k", "cl100k_base"])
@pytest.mark.parametrize("num_proc", [1, 2])
def test_shards_hold_every_documents_ids_in_order(tmp_path, name, num_proc):
    tok = load_preset(name)
    docs = paragraphs(1500)
    inputs = [write_jsonl(tmp_path / "a.jsonl", docs[:900]), write_jsonl(tmp_path / "b.jsonl.gz", docs[900:], gz=True)]
    whole = tmp_path / "c.txt"
    whole.write_text(data_file("text/sotu.txt").read_text("utf-8")[:3_000_000], encoding="utf-8")  # chunked inside
    lines = tmp_path / "d.txt"
    lines.write_text("first line\n\nsecond line  \nthird\n", encoding="utf-8")
    out = tmp_path / "out"
    index = export_shards(tok, [*inputs, whole], out, mode="lbpe", num_proc=num_proc, shard_tokens=60_000)
    got_index, got = read_shards(out)
    want = encoded(tok, [*docs, whole.read_text("utf-8")], "lbpe")
    assert got == want
    ds = ShardDataset(out)  # the documents as a PyTorch-style map dataset
    assert len(ds) == len(want) and [ds[i].tolist() for i in (0, 899, 900, len(ds) - 1, -1)] == [
        want[0],
        want[899],
        want[900],
        want[-1],
        want[-1],
    ]
    assert index == got_index and index["complete"] and len(index["shards"]) > 2
    assert index["dtype"] == ("uint16" if tok.n_vocab <= 65536 else "uint32")
    assert index["vocab_sha256"] == vocab_sha256(tok) and index["documents"] == len(docs) + 1
    # one document per line (blank lines are not documents)
    index = export_shards(tok, [lines], tmp_path / "lines", mode="bpe", lines=True, num_proc=num_proc)
    assert read_shards(tmp_path / "lines")[1] == encoded(tok, ["first line", "second line  ", "third"], "bpe")


def _sentencepiece_ids(text: str) -> list[int]:
    import sentencepiece

    model = data_file("sentencepiece/mistral_tokenizer.model.v1")
    return sentencepiece.SentencePieceProcessor(model_file=str(model)).encode(text)


def _hf_ids(name: str, text: str) -> list[int]:
    import tokenizers

    hf = tokenizers.Tokenizer.from_file(str(data_file(f"hf/{name}/tokenizer.json")))
    return hf.encode(text, add_special_tokens=False).ids


#: A document longer than the 1 MiB a text file is read in, as the pipelines' own libraries
#: encode it whole: SentencePiece's start-of-text ``▁`` comes once, not once per chunk, and a
#: normaliser that promises nothing at a cut (Qwen 3's NFC before its pattern) sees the whole.
LONG_DOCUMENTS = {
    "mistral-7b": (
        lambda: load_preset("mistral-7b"),
        lambda: data_file("text/moby_dick.txt").read_text("utf-8"),
        _sentencepiece_ids,
    ),
    "qwen3": (
        lambda: lbpe.load(data_file("hf/qwen3/tokenizer.json")),
        lambda: " ".join(data_file("text/moby_dick.txt").read_text("utf-8").split()),
        lambda text: _hf_ids("qwen3", text),
    ),
}


@pytest.mark.parametrize("num_proc", [1, 2])
@pytest.mark.parametrize("name", list(LONG_DOCUMENTS))
def test_a_text_file_longer_than_a_read_has_the_ids_of_the_whole_text(tmp_path, name, num_proc):
    load, text_of, reference = LONG_DOCUMENTS[name]
    text = text_of()
    assert len(text.encode()) > 1 << 20  # read in more than one chunk
    path = tmp_path / "long.txt"
    path.write_text(text, encoding="utf-8")
    export_shards(load(), [path], tmp_path / "out", mode="bpe", num_proc=num_proc)
    got = read_shards(tmp_path / "out")[1]
    assert len(got) == 1
    want = reference(text)
    first = next((k for k, (a, b) in enumerate(zip(got[0], want)) if a != b), min(len(got[0]), len(want)))
    assert got[0] == want, f"{len(got[0])} ids against {len(want)}; the first difference at id {first}"


def test_vocab_hash_follows_the_ids_not_the_object():
    assert vocab_sha256(load_preset("gpt2")) == vocab_sha256(lbpe.load(data_file("openai/r50k_base.tiktoken")))
    assert vocab_sha256(load_preset("gpt2")) != vocab_sha256(load_preset("cl100k_base"))


def test_an_input_that_is_no_regular_file_is_refused_before_anything_is_written(tmp_path):
    """A pipe or a device (/dev/stdin) is read once, and an export reads its inputs more than
    once (to check them, to encode, to resume): refused up front, as "-" is, with the fix."""
    out = tmp_path / "out"
    done = run_cli(
        "export", "--vocab", "gpt2", "--mode", "bpe", "--out", str(out), "/dev/stdin", input='{"text": "a"}\n'
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "/dev/stdin: not a regular file (a pipe or a device)" in done.stderr, done.stderr
    assert "save it to a file first" in done.stderr and "--resume" not in done.stderr
    assert not out.exists()


def test_a_document_of_the_wrong_json_kind_is_named_in_json_words(tmp_path):
    path = tmp_path / "kinds.jsonl"
    path.write_text(
        '{"text": null}\n["a list"]\n{"text": 2.5}\n{"text": "kept"}\n{"text": "half of \\ud83d a pair"}\n',
        encoding="utf-8",
    )
    index = export_shards(load_preset("gpt2"), [path], tmp_path / "out", mode="bpe", skip_bad=True)
    assert [m.split("/")[-1] for m in index["skipped_messages"]] == [
        'kinds.jsonl:1: "text" is null, not a string',
        "kinds.jsonl:2: an array, not an object with a 'text' field",
        'kinds.jsonl:3: "text" is a fractional number, not a string',
        'kinds.jsonl:5: "text" holds half of a surrogate pair (\\ud83d at character 8), which is no text; '
        "the file that wrote it cut a pair in two",
    ]
    assert index["documents"] == 1


def test_bad_documents_are_named_kept_before_or_skipped(tmp_path):
    tok = load_preset("gpt2")
    good = paragraphs(50)
    path = tmp_path / "bad.jsonl"
    lines = [json.dumps({"text": d}) for d in good[:10]]
    lines += ["{not json", json.dumps({"body": "x"}), json.dumps({"text": 5})]
    lines += [json.dumps({"text": d}) for d in good[10:20]]
    path.write_bytes(
        ("\n".join(lines) + "\n").encode() + b'{"text": "caf\xe9"}\n' + json.dumps({"text": good[20]}).encode() + b"\n"
    )
    with pytest.raises(
        LbpeError, match=r"bad\.jsonl:11: not JSON .*10 documents before it are kept.*--resume.*--skip-bad"
    ):
        export_shards(tok, [path], tmp_path / "stop", mode="bpe")
    index, docs = read_shards(tmp_path / "stop")
    assert docs == encoded(tok, good[:10], "bpe") and not index["complete"]
    one = tmp_path / "one.jsonl"  # one document, then a bad one: counted in words that agree
    one.write_text(lines[0] + "\n" + lines[10] + "\n", "utf-8")
    with pytest.raises(LbpeError, match=r"one\.jsonl:2: not JSON .*; the 1 document before it is kept: fix it"):
        export_shards(tok, [one], tmp_path / "one", mode="bpe")
    index = export_shards(tok, [path], tmp_path / "skip", mode="bpe", skip_bad=True)
    assert read_shards(tmp_path / "skip")[1] == encoded(tok, good[:21], "bpe")
    assert index["skipped_documents"] == 4
    messages = index["skipped_messages"]
    assert "bad.jsonl:11: not JSON" in messages[0]
    assert 'bad.jsonl:12: no "text" field (fields: body); choose one with --text-field' in messages[1]
    assert 'bad.jsonl:13: "text" is an integer, not a string' in messages[2]
    assert "bad.jsonl:24: not UTF-8 text (byte 0xe9 at offset 13)" in messages[3]
    # resume after the stop: skipping now, it completes without redoing the first ten
    index = export_shards(tok, [path], tmp_path / "stop", mode="bpe", resume=True, skip_bad=True)
    assert read_shards(tmp_path / "stop")[1] == encoded(tok, good[:21], "bpe") and index["complete"]
    # a text file bad part way: the document is dropped whole
    broken = tmp_path / "broken.txt"
    broken.write_bytes(("x" * 3_000_000).encode() + b"\xff tail")
    index = export_shards(tok, [path, broken], tmp_path / "broken", mode="bpe", skip_bad=True, shard_tokens=10)
    assert read_shards(tmp_path / "broken")[1] == encoded(tok, good[:21], "bpe")
    assert "broken.txt: not UTF-8 text (byte 0xff at offset 3000000)" in index["skipped_messages"][-1]


def test_a_stopped_export_is_not_read_as_the_whole_corpus(tmp_path):
    """An export that stopped part way (a bad document here) looks like a finished one to a
    reader of its shards; ShardDataset reads its index and refuses it, saying how to finish it,
    unless the caller asks for the documents written so far."""
    tok = load_preset("gpt2")
    good = [f"document number {i}" for i in range(12)]
    path = tmp_path / "stops.jsonl"
    path.write_text("".join(json.dumps({"text": d}) + "\n" for d in good[:5]) + "{not json\n", encoding="utf-8")
    with pytest.raises(LbpeError, match="not JSON"):
        export_shards(tok, [path], tmp_path / "stop", mode="bpe")
    with pytest.raises(
        LbpeError, match=r"stop: the export stopped before its end \(5 documents written\).*--resume.*partial=True"
    ):
        ShardDataset(tmp_path / "stop")
    ds = ShardDataset(tmp_path / "stop", partial=True)
    assert [ds[i].tolist() for i in range(len(ds))] == encoded(tok, good[:5], "bpe")
    path.write_text("".join(json.dumps({"text": d}) + "\n" for d in good), encoding="utf-8")
    export_shards(tok, [path], tmp_path / "stop", mode="bpe", resume=True)
    ds = ShardDataset(tmp_path / "stop")
    assert [ds[i].tolist() for i in range(len(ds))] == encoded(tok, good, "bpe")


def test_a_line_that_is_not_json_is_named_in_one_clause(tmp_path):
    path = tmp_path / "notjson.jsonl"
    path.write_text('{"text": "a"}\n{"text": "tab\there"}\n{"text": "cut off', encoding="utf-8")
    index = export_shards(load_preset("gpt2"), [path], tmp_path / "out", mode="bpe", skip_bad=True)
    assert [m.split("/")[-1] for m in index["skipped_messages"]] == [
        "notjson.jsonl:2: not JSON (Invalid control character at column 14)",
        "notjson.jsonl:3: not JSON (Unterminated string starting at column 10)",
    ]


def test_one_input_may_be_given_as_a_path_alone(tmp_path):
    tok = load_preset("gpt2")
    path = write_jsonl(tmp_path / "a.jsonl", paragraphs(20))
    for one in (str(path), path):
        out = tmp_path / f"out-{type(one).__name__}"
        index = export_shards(tok, one, out, mode="bpe")
        assert index["inputs"] == [str(path)] and read_shards(out)[1] == encoded(tok, paragraphs(20), "bpe")


@pytest.mark.parametrize(
    "fmt", ["npy", "nanogpt", pytest.param("litdata", marks=pytest.mark.slow(reason="LitData's writer imports torch"))]
)
def test_an_export_of_no_documents_is_refused_and_leaves_nothing_to_read(tmp_path, fmt):
    """A trainer's reader cannot open an export of nothing (nanoGPT's np.memmap of an empty
    train.bin fails): say so where the export ran, as lbpe stats does for an empty corpus."""
    tok = load_preset("gpt2")
    eot = "<|endoftext|>"
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n\n  \n", encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": 1}\n{"body": "b"}\n', encoding="utf-8")
    for path, why in ((blank, "holds no documents"), (bad, r"all 2 documents were bad and skipped \(--skip-bad\)")):
        out = tmp_path / f"{path.stem}-{fmt}"
        with pytest.raises(LbpeError, match=rf"{path.name}.*nothing to export: .*{why}"):
            export_shards(tok, [path], out, mode="bpe", format=fmt, eos=eot, skip_bad=True)
        assert sorted(p.name for p in out.rglob("*") if p.is_file() and not p.name.startswith(".lbpe-export")) == []
    cli = run_cli("export", "--vocab", "gpt2", "--mode", "bpe", "--out", str(tmp_path / "cli"), str(blank))
    assert cli.returncode == 2 and "nothing to export" in cli.stderr and "Traceback" not in cli.stderr
    # documents, but not one id among them (empty texts, no end-of-text token): nothing either
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    empties = tmp_path / "empties.jsonl"
    empties.write_text('{"text": ""}\n{"text": ""}\n', encoding="utf-8")
    for path, n in ((empty, "1 document is"), (empties, "2 documents are")):
        out = tmp_path / f"{path.stem}-{fmt}"
        with pytest.raises(LbpeError, match=rf"{path.name}: nothing to export: its {n} empty and no --eos"):
            export_shards(tok, path, out, mode="bpe", format=fmt)
        assert sorted(p.name for p in out.rglob("*") if p.is_file() and not p.name.startswith(".lbpe-export")) == []
        index = export_shards(tok, path, tmp_path / f"{path.stem}-{fmt}-eos", mode="bpe", format=fmt, eos=eot)
        assert index["tokens"] == index["documents"] == int(n[0])  # each document is its end-of-text id


@pytest.mark.parametrize("fmt", ["npy", "nanogpt", "llmc"])
def test_a_val_split_that_takes_every_document_is_refused(tmp_path, fmt):
    """A val fraction that draws every document leaves the train split empty: nanoGPT's
    np.memmap of an empty train.bin fails, the other readers find no train file. Refused as an
    export of nothing is, with nothing left to read, at the API and in the CLI."""
    tok = load_preset("gpt2")
    path = tmp_path / "few.jsonl"
    path.write_text("".join(json.dumps({"text": f"document {i}"}) + "\n" for i in range(8)), encoding="utf-8")
    out = tmp_path / fmt
    with pytest.raises(
        LbpeError, match=r"few\.jsonl: nothing to train on: --val-fraction 0\.99 .*drew all 8 documents.*smaller"
    ):
        export_shards(tok, [path], out, mode="bpe", format=fmt, eos=50256, val_fraction=0.99)
    assert sorted(p.name for p in out.rglob("*") if p.is_file() and not p.name.startswith(".lbpe-export")) == []
    cli = run_cli(
        "export", "--vocab", "gpt2", "--mode", "bpe", "--format", fmt, "--eos", "50256",
        "--val-fraction", "0.99", "--out", str(tmp_path / "cli"), str(path),
    )  # fmt: skip
    assert cli.returncode == 2 and "nothing to train on" in cli.stderr and "Traceback" not in cli.stderr
    # train documents that are all empty, without an end-of-text token: said as that
    export_shards(tok, [path], tmp_path / f"{fmt}-probe", mode="bpe", eos=50256, val_fraction=0.5)
    val = ShardDataset(tmp_path / f"{fmt}-probe", split="val")
    drawn = {tok.decode(val[i].tolist()[:-1]) for i in range(len(val))}  # the val split's texts
    texts = [f"document {i}" for i in range(8)]
    assert 0 < len(drawn) < 8 and drawn <= set(texts)
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("".join(json.dumps({"text": t if t in drawn else ""}) + "\n" for t in texts), encoding="utf-8")
    kept = 8 - len(drawn)
    with pytest.raises(LbpeError, match=rf"nothing to train on: the train split's {kept} documents are empty .*--eos"):
        export_shards(tok, [mixed], tmp_path / f"{fmt}-mixed", mode="bpe", format=fmt, val_fraction=0.5)
    # a fraction that leaves some documents for training still exports both splits
    index = export_shards(tok, [path], tmp_path / f"{fmt}-half", mode="bpe", format=fmt, eos=50256, val_fraction=0.5)
    assert index["documents"] and index["val_documents"] and index["documents"] + index["val_documents"] == 8


def test_options_as_one_value_write_what_the_keywords_write(tmp_path):
    """ExportOptions: checked when made, frozen, and the same export as its keywords; given both
    ways at once, refused."""
    tok = load_preset("gpt2")
    path = write_jsonl(tmp_path / "a.jsonl", paragraphs(30))
    options = ExportOptions(mode="bpe", eos="<|endoftext|>", shard_tokens=500, val_fraction=0.2, shuffle=True, seed=3)
    by_value = export_shards(tok, [path], tmp_path / "value", options)
    by_keywords = export_shards(
        tok,
        [path],
        tmp_path / "keywords",
        mode="bpe",
        eos="<|endoftext|>",
        shard_tokens=500,
        val_fraction=0.2,
        shuffle=True,
        seed=3,
    )
    assert by_value["shards"] == by_keywords["shards"] and by_value["val_shards"] == by_keywords["val_shards"]
    assert by_value["eos_id"] == tok.special_tokens["<|endoftext|>"] and by_value["val_shards"]
    with pytest.raises(AttributeError):
        options.seed = 4
    for bad, message in [
        ({"mode": "wordpiece"}, "mode must be"),
        ({"engine": "spark"}, "engine must be"),
        ({"shard_tokens": 0}, "shard_tokens must be"),
        ({"val_fraction": 1.0}, "val_fraction must be"),
    ]:
        with pytest.raises(LbpeError, match=message):
            ExportOptions(**{"mode": "bpe", **bad})
    with pytest.raises(TypeError, match="once"):
        export_shards(tok, [path], tmp_path / "both", options, shuffle=False, seed=3)
    with pytest.raises(TypeError, match="once"):
        export_shards(tok, [path], tmp_path / "both", options, mode="bpe")
    with pytest.raises(TypeError, match="needs mode"):
        export_shards(tok, [path], tmp_path / "none")


def test_resume_refuses_another_vocabulary_and_a_full_folder(tmp_path):
    path = write_jsonl(tmp_path / "a.jsonl", paragraphs(20))
    export_shards(load_preset("gpt2"), [path], tmp_path / "out", mode="bpe")
    with pytest.raises(LbpeError, match="is not empty.*--resume"):
        export_shards(load_preset("gpt2"), [path], tmp_path / "out", mode="bpe")
    # each difference is named by its flag and keyword, as the person gave it
    with pytest.raises(LbpeError, match=r"another vocabulary \(--vocab, tok\)"):
        export_shards(load_preset("cl100k_base"), [path], tmp_path / "out", mode="bpe", resume=True)
    with pytest.raises(LbpeError, match=r"another --mode \(mode=\) \('bpe', now 'lbpe'\)"):
        export_shards(load_preset("gpt2"), [path], tmp_path / "out", mode="lbpe", resume=True)
    text = tmp_path / "b.txt"  # (--lines reads text files only)
    text.write_text("\n".join(paragraphs(5)), encoding="utf-8")
    export_shards(load_preset("gpt2"), [text], tmp_path / "text", mode="bpe")
    with pytest.raises(LbpeError, match=r"another --lines \(lines=\) \(False, now True\)"):
        export_shards(load_preset("gpt2"), [text], tmp_path / "text", mode="bpe", lines=True, resume=True)
    with pytest.raises(LbpeError, match=r"another --eos \(eos=\) \(None, now 50256\)"):
        export_shards(load_preset("gpt2"), [path], tmp_path / "out", mode="bpe", eos=50256, resume=True)
    with pytest.raises(LbpeError, match=r"another --format \(format=\) \('npy', now 'llmc'\)"):
        export_shards(load_preset("gpt2"), [path], tmp_path / "out", mode="bpe", format="llmc", resume=True)
    # shards of one size before the stop and another after it would not be the export asked for
    with pytest.raises(LbpeError, match=r"another --shard-tokens \(shard_tokens=\) \(100000000, now 3000\)"):
        export_shards(load_preset("gpt2"), [path], tmp_path / "out", mode="bpe", shard_tokens=3000, resume=True)


def test_resume_takes_the_same_inputs_however_their_paths_are_spelled(tmp_path, monkeypatch):
    """An input is the file it names: ./a.jsonl, a.jsonl and its absolute path are one file (a
    different file at the same path is still caught by the inputs' checksums)."""
    monkeypatch.chdir(tmp_path)
    path = write_jsonl(tmp_path / "a.jsonl", paragraphs(20))
    first = export_shards(load_preset("gpt2"), ["a.jsonl"], tmp_path / "out", mode="bpe", shard_tokens=200)
    for spelled in ["./a.jsonl", str(path), str(tmp_path / "." / "a.jsonl")]:
        again = export_shards(
            load_preset("gpt2"), [spelled], tmp_path / "out", mode="bpe", shard_tokens=200, resume=True
        )
        assert again["shards"] == first["shards"]
    # from another folder, the input named from there: the same file
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    again = export_shards(load_preset("gpt2"), ["../a.jsonl"], "../out", mode="bpe", shard_tokens=200, resume=True)
    assert again["shards"] == first["shards"]
    monkeypatch.chdir(tmp_path)
    other = write_jsonl(tmp_path / "b.jsonl", paragraphs(20))
    with pytest.raises(LbpeError, match=r"another list of inputs \(\['a.jsonl'\], now \['b.jsonl'\]\)"):
        export_shards(load_preset("gpt2"), [other.name], tmp_path / "out", mode="bpe", shard_tokens=200, resume=True)


@pytest.mark.parametrize("theirs", [["notes.txt"], ["index.json", "notes.txt"]])
def test_resume_into_a_folder_of_other_files_says_so_and_leaves_nothing(tmp_path, theirs):
    """A folder that holds files no export wrote (notes, another tool's shards, LitData's
    index.json: the name an earlier lbpe gave its index) is not an export stopped early, and a
    refused export adds nothing to it, not even its lock."""
    path = write_jsonl(tmp_path / "a.jsonl", paragraphs(5))
    folder = tmp_path / "mine"
    folder.mkdir()
    for name in theirs:
        (folder / name).write_text('{"chunks": [], "config": {}}' if name == "index.json" else "hi", "utf-8")
    before = sorted(p.name for p in folder.iterdir())
    for resume in (True, False):
        with pytest.raises(LbpeError) as refused:
            export_shards(load_preset("gpt2"), [path], folder, mode="bpe", resume=resume)
        assert "notes.txt" in str(refused.value) and "the export there was stopped" not in str(refused.value)
        assert "earlier lbpe" not in str(refused.value)
        assert sorted(p.name for p in folder.iterdir()) == before
    assert f"is not empty ({', '.join(theirs)}); export into an empty folder" in str(refused.value)


@pytest.mark.slow(reason="an export stopped and resumed")
def test_interrupted_export_keeps_complete_shards_and_resumes(tmp_path):
    docs = paragraphs(6000) * 6
    path = write_jsonl(tmp_path / "big.jsonl", docs)
    out = tmp_path / "out"
    args = [
        "export",
        "--vocab",
        "lbpe-32k",
        "--mode",
        "lbpe",
        "--out",
        str(out),
        "--shard-tokens",
        "20000",
        "--num-proc",
        "2",
        "-q",
        str(path),
    ]
    proc = subprocess.Popen([*CLI_WITH_CTRL_C, *args], stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(list(out.glob("tokens-*.npy"))) < 3 and proc.poll() is None:
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal reaches the whole process group
        err = proc.communicate(timeout=60)[1]
    finally:  # a failed test leaves nothing running
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130 and "Traceback" not in err, err  # the shell's code for Ctrl-C, as every command
    assert err.startswith("lbpe export: interrupted; ") and err.count("\n") == 1, err
    assert "complete shard(s)" in err and "are kept in" in err and "--resume" in err
    index, got = read_shards(out)
    assert not index["complete"] and len(index["shards"]) >= 3
    tok = load_preset("lbpe-32k")
    assert got == encoded(tok, docs[: len(got)], "lbpe")
    assert not list(out.glob("*.tmp"))
    done = run_cli(*args, "--resume", timeout=600)
    assert done.returncode == 0, done.stderr
    index, got = read_shards(out)
    assert index["complete"] and got == encoded(tok, docs, "lbpe")


def test_cli_export_messages(tmp_path):
    path = write_jsonl(tmp_path / "a.jsonl", ["hello world"] * 3)
    single = write_jsonl(tmp_path / "one.jsonl", ["hello world"])
    ok = run_cli("export", "--vocab", "gpt2", "--mode", "bpe", "--out", str(tmp_path / "o"), str(path))
    assert ok.returncode == 0 and "1 shard(s), 3 documents, 6 ids as uint16" in ok.stderr
    assert "\r" not in ok.stderr  # not a terminal: no progress frames in a log
    one = run_cli("export", "--vocab", "gpt2", "--mode", "bpe", "--out", str(tmp_path / "one"), str(single))
    assert one.returncode == 0 and "1 shard(s), 1 document, 2 ids as uint16" in one.stderr, one.stderr
    missing = run_cli(
        "export", "--vocab", "gpt2", "--mode", "bpe", "--text-field", "body", "--out", str(tmp_path / "m"), str(path)
    )
    assert missing.returncode == 2 and 'a.jsonl:1: no "body" field (fields: id, text)' in missing.stderr
    assert "Traceback" not in missing.stderr


def test_a_byte_order_mark_is_no_part_of_any_text_read(tmp_path):
    """Windows tools start a UTF-8 file with a byte order mark (EF BB BF). It is no part of the
    text: export (whole files and lines, one process and several), stats and training read a
    file with one as the same file without it, as they already read a JSONL file."""
    from lbpe.train import train

    tok = load_preset("cl100k_base")
    lines = ["First line of the file", "Second, with caf\u00e9 and more", "Third"]
    body = "\r\n".join(lines) + "\r\n"
    bom, plain = tmp_path / "bom.txt", tmp_path / "plain.txt"
    bom.write_bytes(b"\xef\xbb\xbf" + body.encode())
    plain.write_bytes(body.encode())
    whole = tok.encode(body, mode="bpe", disallowed_special=())
    assert whole[0] == tok.encode("First", mode="bpe")[0]  # what a reader without the mark gives
    for num_proc in (1, 2):
        export_shards(tok, [bom], tmp_path / f"whole-{num_proc}", mode="bpe", num_proc=num_proc)
        assert read_shards(tmp_path / f"whole-{num_proc}")[1] == [whole]
        export_shards(tok, [bom], tmp_path / f"lines-{num_proc}", mode="bpe", num_proc=num_proc, lines=True)
        assert read_shards(tmp_path / f"lines-{num_proc}")[1] == encoded(tok, lines, "bpe")
    for workers in ("1", "2"):
        got = json.loads(
            run_cli("stats", "--json", "-q", "--vocab", "cl100k_base", "--workers", workers, str(bom)).stdout
        )
        assert got["bpe"]["tokens"] == len(whole) and got["bpe"]["bytes"] == len(body.encode()), got["bpe"]
    with_mark = train([bom], vocab_size=300, unit="char")
    without = train([plain], vocab_size=300, unit="char")
    assert not any("\ufeff".encode() in t for t in with_mark.tokens)
    assert with_mark.tokens == without.tokens


def test_an_ordinary_token_as_the_end_of_text_is_warned_of(tmp_path):
    """gpt2's id 13 is "." : given as --eos, a document's end looks like every full stop of the
    text. It is written as asked, with a warning that names the token and the special one to
    give instead; a special token gets no such warning."""
    path = write_jsonl(tmp_path / "a.jsonl", ["First. Second.", "Third."])
    out = ("export", "--vocab", "gpt2", "--mode", "bpe")
    dot = run_cli(*out, "--eos", "13", "--out", str(tmp_path / "dot"), str(path))
    assert dot.returncode == 0, dot.stderr
    assert "--eos 13 (eos=) is '.', an ordinary token of gpt2" in dot.stderr, dot.stderr
    assert "<|endoftext|> (id 50256)" in dot.stderr, dot.stderr
    eot = run_cli(*out, "--eos", "50256", "--out", str(tmp_path / "eot"), str(path))
    assert eot.returncode == 0 and "ordinary token" not in eot.stderr, eot.stderr


def test_stats_reads_the_same_inputs(tmp_path):
    docs = paragraphs(300)
    path = write_jsonl(tmp_path / "a.jsonl", docs)
    bad = tmp_path / "b.jsonl"
    bad.write_text('{"text": "fine words"}\n{oops\n', encoding="utf-8")
    stats = ("stats", "--json", "-q", "--vocab", "gpt2")
    tok = load_preset("gpt2")
    for workers in ("1", "2"):
        result = run_cli(*stats, "--workers", workers, str(path))
        assert result.returncode == 0, result.stderr
        doc = json.loads(result.stdout)
        for mode in lbpe.MODES:
            assert doc[mode]["tokens"] == sum(map(len, encoded(tok, docs, mode)))
    stopped = run_cli(*stats, str(bad))
    assert stopped.returncode == 2 and "b.jsonl:2: not JSON" in stopped.stderr and "--skip-bad" in stopped.stderr
    skipped = run_cli(*stats, "--skip-bad", str(bad))
    assert skipped.returncode == 0 and "skipped 1 bad document(s)" in skipped.stderr
    assert json.loads(skipped.stdout)["bpe"]["tokens"] == len(tok.encode("fine words", mode="bpe"))


def test_parquet_input(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    docs = paragraphs(700)
    table = pa.table({"id": list(range(len(docs) + 1)), "body": [*docs[:300], None, *docs[300:]]})
    path = tmp_path / "c.parquet"
    pq.write_table(table, path, row_group_size=128)
    tok = load_preset("o200k_base")
    with pytest.raises(
        LbpeError, match=r'c\.parquet: no "text" column \(columns: id, body\); choose one with --text-field'
    ):
        export_shards(tok, [path], tmp_path / "none", mode="lbpe")
    with pytest.raises(LbpeError, match=r'c\.parquet: row 301: "body" is missing, not a string'):
        export_shards(tok, [path], tmp_path / "stop", mode="lbpe", text_field="body")
    with pytest.raises(LbpeError, match=r'c\.parquet: row 1: "id" is an int, not a string; nothing before it'):
        export_shards(tok, [path], tmp_path / "ints", mode="lbpe", text_field="id")
    index = export_shards(tok, [path], tmp_path / "out", mode="lbpe", text_field="body", skip_bad=True, num_proc=2)
    assert read_shards(tmp_path / "out")[1] == encoded(tok, docs, "lbpe") and index["skipped_documents"] == 1
    # with --lines beside a text file, on worker processes: the rows are still the documents
    lines = tmp_path / "d.txt"
    lines.write_text("first line\nsecond line\n", encoding="utf-8")
    index = export_shards(
        tok, [lines, path], tmp_path / "lines", mode="lbpe", text_field="body", skip_bad=True, lines=True, num_proc=2
    )
    want = encoded(tok, ["first line", "second line", *docs], "lbpe")
    assert read_shards(tmp_path / "lines")[1] == want and index["skipped_documents"] == 1


@pytest.mark.slow(reason="Ray")
def test_ray_engine_writes_the_same_shards(tmp_path, ray_local):
    import pyarrow as pa
    import pyarrow.parquet as pq

    docs = paragraphs(900)
    inputs = [
        write_jsonl(tmp_path / "a.jsonl", docs[:400]),
        write_jsonl(tmp_path / "b.jsonl.gz", docs[400:600], gz=True),
    ]
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"text": "fine"}\n{oops\n\n{"text": "caf\xe9"}\n{"body": 1}\n{"text": "end"}\n')
    whole = tmp_path / "w.txt"
    whole.write_text(data_file("text/sotu.txt").read_text("utf-8")[:500_000], encoding="utf-8")
    parquet = tmp_path / "p.parquet"
    pq.write_table(pa.table({"text": [*docs[600:700], None, *docs[700:]]}), parquet, row_group_size=64)
    inputs += [bad, whole, parquet]
    tok = load_preset("lbpe-32k")
    local = export_shards(tok, inputs, tmp_path / "local", mode="lbpe", skip_bad=True, shard_tokens=30_000)
    ray = export_shards(tok, inputs, tmp_path / "ray", mode="lbpe", skip_bad=True, shard_tokens=30_000, engine="ray")
    assert read_shards(tmp_path / "ray")[1] == read_shards(tmp_path / "local")[1]
    assert ray["shards"] == local["shards"] and ray["skipped_messages"] == local["skipped_messages"]
    assert ray["skipped_documents"] == local["skipped_documents"] == 4
    # --lines, resumed after an interruption simulated by dropping the last shards
    lines = tmp_path / "l.txt"
    lines.write_text("\n".join(docs[:300]).replace("\n\n", "\n"), encoding="utf-8")
    want = export_shards(tok, [lines], tmp_path / "lines", mode="bpe", lines=True, shard_tokens=5_000)
    index = json.loads((tmp_path / "lines" / INDEX_NAME).read_text())
    index["shards"], index["complete"] = index["shards"][:2], False
    (tmp_path / "lines" / INDEX_NAME).write_text(json.dumps(index))
    got = export_shards(
        tok, [lines], tmp_path / "lines", mode="bpe", lines=True, shard_tokens=5_000, resume=True, engine="ray"
    )
    assert got["shards"] == want["shards"]


def test_workers_reading_runs_of_lines_write_what_one_process_writes(tmp_path, monkeypatch):
    """A fresh export on worker processes has the workers read runs of lines of a JSONL or
    --lines file themselves: cut into many small runs here, with bad lines and a blank line,
    it writes the shards, messages and errors of one process, and every good document's ids."""
    import lbpe.corpus.shards.local

    monkeypatch.setattr(lbpe.corpus.shards.local, "POOL_RANGE_BYTES", 3000)  # about 60 runs (read by _pooled)
    docs = paragraphs(400)
    lines = [json.dumps({"text": d}).encode() for d in docs]
    lines[37], lines[250] = b"{oops", b'{"body": "no text"}'
    lines.insert(300, b'{"text": "caf\xe9"}')  # not UTF-8
    lines.insert(120, b"")  # a blank line is not a document
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    whole = tmp_path / "w.txt"  # one document per file: read by this process
    whole.write_text("\n".join(docs[:50]), encoding="utf-8")
    plain = tmp_path / "p.txt"
    plain.write_text("".join(d.replace("\n", " ") + "\n" for d in docs[:150]), encoding="utf-8")
    tok = load_preset("lbpe-32k")
    results = {}
    for n in (1, 2):
        index = export_shards(
            tok, [path, whole], tmp_path / f"skip{n}", mode="lbpe", num_proc=n, skip_bad=True, shard_tokens=40_000
        )
        results[n] = [read_shards(tmp_path / f"skip{n}")[1], index["skipped_documents"], index["skipped_messages"]]
        with pytest.raises(LbpeError) as stop:
            export_shards(tok, [path], tmp_path / f"stop{n}", mode="lbpe", num_proc=n)
        results[n] += [str(stop.value), read_shards(tmp_path / f"stop{n}")[1]]
        export_shards(tok, [plain], tmp_path / f"lines{n}", mode="bpe", lines=True, num_proc=n)
        results[n].append(read_shards(tmp_path / f"lines{n}")[1])
    assert results[1] == results[2]
    got, skipped, messages, stop, kept, by_line = results[2]
    good = [d for i, d in enumerate(docs) if i not in (37, 250)]
    assert got == encoded(tok, [*good, whole.read_text("utf-8")], "lbpe")
    assert skipped == 3 and len(messages) == 3
    assert "a.jsonl:38: not JSON" in messages[0] and 'a.jsonl:252: no "text" field' in messages[1]
    assert "a.jsonl:302: not UTF-8" in messages[2]
    assert "a.jsonl:38: not JSON" in stop and kept == encoded(tok, docs[:37], "lbpe")
    assert by_line == encoded(tok, [d.replace("\n", " ") for d in docs[:150]], "bpe")


def test_a_folder_of_an_earlier_lbpe_is_read_but_not_resumed(tmp_path):
    """lbpe once wrote index.json (the name LitData reads): ShardDataset still reads such a
    folder; resuming it says what to do, since its index has no checksums to check shards by."""
    tok = load_preset("gpt2")
    docs = paragraphs(40)
    want = encoded(tok, docs, "bpe")
    out = tmp_path / "old"
    out.mkdir()
    np.save(out / "tokens-00000.npy", np.array([i for d in want for i in d], dtype=np.uint16))
    np.save(out / "offsets-00000.npy", np.cumsum([0] + [len(d) for d in want]).astype(np.int64))
    shard = {"tokens_file": "tokens-00000.npy", "offsets_file": "offsets-00000.npy", "documents": len(docs)}
    (out / "index.json").write_text(json.dumps({"format": "lbpe-shards/1", "complete": True, "shards": [shard]}))
    ds = ShardDataset(out)
    assert [ds[i].tolist() for i in range(len(ds))] == want
    path = write_jsonl(tmp_path / "a.jsonl", docs)
    with pytest.raises(
        LbpeError, match=r"written by an earlier lbpe .*index\.json.* export again into an empty folder"
    ):
        export_shards(tok, [path], out, mode="bpe", resume=True)
    (out / "index.json").write_text(json.dumps({"chunks": [], "config": {}}))  # LitData's index.json is not ours
    with pytest.raises(LbpeError, match=r"no lbpe-index\.json \(nor an earlier lbpe's index\.json\)"):
        ShardDataset(out)
