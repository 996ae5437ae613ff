"""lbpe export --format: each format read back by its consumer's own reader (numpy as nanoGPT
and llm.c read their files, megatron-core's IndexedDataset, datatrove's and LitData's
datasets), holding every document's ids from Tokenizer.encode with the end-of-text token where
that trainer puts it; the same bytes on one or two processes and after an interrupted run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import lbpe
from lbpe.corpus.shards import INDEX_NAME, ShardDataset, export_shards
from lbpe.errors import LbpeError
from lbpe.presets import load_preset
from tests.support.cli import Stop, run_cli
from tests.support.data import data_file

EOT = "<|endoftext|>"


def paragraphs(n: int) -> list[str]:
    text = data_file("text/moby_dick.txt").read_text("utf-8")
    return [p for p in text.split("\n\n") if p.strip()][:n]


def corpus(tmp_path: Path, n: int = 400) -> tuple[Path, list[str]]:
    docs = paragraphs(n)
    docs[7] = ""  # an empty document
    docs[9] = f"text that spells {EOT} is ordinary text"
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"text": d}) + "\n" for d in docs), encoding="utf-8")
    return path, docs


def encoded(tok, docs: list[str], *, eos: int | None = None, before: bool = False) -> list[list[int]]:
    out = []
    for d in docs:
        ids = tok.encode(d, mode="lbpe", disallowed_special=())
        if eos is not None:
            ids = [eos, *ids] if before else [*ids, eos]
        out.append(ids)
    return out


def flat(docs: list[list[int]]) -> list[int]:
    return [i for d in docs for i in d]


def tree(folder: Path) -> dict[str, bytes]:
    """Every file of an export folder (but its lock) and its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".lbpe-export.lock"
    }


def llmc_read(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """An llm.c .bin as llm.c's train_gpt2.py / train_llama3.py read it: 256 int32, then the ids."""
    with open(path, "rb") as f:
        header = np.frombuffer(f.read(256 * 4), dtype=np.int32)
        width = np.uint16 if header[0] == 20240520 else np.uint32
        tokens = np.frombuffer(f.read(), dtype=width)
    return header, tokens


@pytest.mark.parametrize("preset", ["gpt2", "cl100k_base"])
def test_npy_nanogpt_and_llmc_read_as_their_trainers_read(tmp_path, preset):
    tok = load_preset(preset)
    path, docs = corpus(tmp_path)
    eot = tok.special_tokens[EOT]
    # npy: numpy.load and ShardDataset
    export_shards(tok, [path], tmp_path / "npy", mode="lbpe", format="npy", eos=EOT, shard_tokens=15_000)
    ds = ShardDataset(tmp_path / "npy")
    assert [ds[i].tolist() for i in range(len(ds))] == encoded(tok, docs, eos=eot)
    assert not (tmp_path / "npy" / "index.json").exists()  # LitData's name stays free
    # llm.c: shards in glob order, header checked as llm.c checks it, EOT before each document
    index = export_shards(tok, [path], tmp_path / "llmc", mode="lbpe", format="llmc", eos=EOT, shard_tokens=5_000)
    files = sorted((tmp_path / "llmc").glob("train_*.bin"))
    assert len(files) == len(index["shards"]) > 2
    got = []
    for f in files:
        header, tokens = llmc_read(f)
        magic, version = (20240520, 1) if preset == "gpt2" else (20240801, 7)
        assert header[0] == magic and header[1] == version and header[2] == len(tokens) > 0
        assert f.stat().st_size == 256 * 4 + len(tokens) * tokens.itemsize
        got += tokens.tolist()
    assert got == flat(encoded(tok, docs, eos=eot, before=True))
    # nanoGPT: one flat uint16 file, EOT after each document (its prepare.py); refused beyond uint16
    if preset == "gpt2":
        export_shards(tok, [path], tmp_path / "ng", mode="lbpe", format="nanogpt", eos=EOT, shard_tokens=15_000)
        data = np.memmap(tmp_path / "ng" / "train.bin", dtype=np.uint16, mode="r")  # as nanoGPT's train.py
        assert data.tolist() == flat(encoded(tok, docs, eos=eot))
        assert sorted(p.name for p in (tmp_path / "ng").iterdir()) == [".lbpe-export.lock", INDEX_NAME, "train.bin"]
    else:
        with pytest.raises(LbpeError, match=r"100,\d+ ids \(more than 65,536\): use --format llmc or megatron"):
            export_shards(tok, [path], tmp_path / "ng", mode="lbpe", format="nanogpt")


def test_an_id_past_megatrons_int32_is_refused_not_wrapped(tmp_path):
    # Megatron's DType has no uint32: ids are int32, and 3,000,000,000 would be read back negative
    import shutil

    vocab = tmp_path / "mine.tiktoken"
    shutil.copy(data_file("openai/r50k_base.tiktoken"), vocab)
    tok = lbpe.load(vocab, pattern="gpt2", special_tokens={EOT: 3_000_000_000})
    path, _ = corpus(tmp_path, 20)
    says = r"int32, which holds ids below 2,147,483,648.*3,000,000,000.*--format npy or llmc"
    with pytest.raises(LbpeError, match=says):
        export_shards(tok, [path], tmp_path / "m", mode="bpe", format="megatron", eos=EOT)
    assert not (tmp_path / "m").exists()
    export_shards(tok, [path], tmp_path / "n", mode="bpe", format="npy", eos=EOT)  # uint32 holds it
    assert ShardDataset(tmp_path / "n")[0].tolist()[-1] == 3_000_000_000


def test_eos_by_spelling_or_id_and_a_clear_error(tmp_path):
    tok = load_preset("mistral-7b")
    path, docs = corpus(tmp_path, 30)
    export_shards(tok, [path], tmp_path / "a", mode="bpe", eos="</s>")
    assert [ShardDataset(tmp_path / "a")[i].tolist()[-1] for i in range(30)] == [2] * 30  # </s> is id 2
    with pytest.raises(LbpeError, match=r"--eos '<\|endoftext\|>' is not a special token .*<unk>, <s>, </s>"):
        export_shards(tok, [path], tmp_path / "b", mode="bpe", eos=EOT)
    with pytest.raises(LbpeError, match=r"--eos 99999 is not an id of this vocabulary \(0 to 31,999\)"):
        export_shards(tok, [path], tmp_path / "c", mode="bpe", eos=99999)
    for negative in ("-1", -1):  # an id, as the command line gives it or as Python does: named as one
        with pytest.raises(LbpeError, match=r"--eos -1 is not an id of this vocabulary \(0 to 31,999\)"):
            export_shards(tok, [path], tmp_path / "c", mode="bpe", eos=negative)
    bad = run_cli(
        "export", "--vocab", "gpt2", "--mode", "bpe", "--eos", "</s>", "--out", str(tmp_path / "d"), str(path)
    )
    assert bad.returncode == 2 and "is not a special token of" in bad.stderr and "<|endoftext|>" in bad.stderr
    assert "Traceback" not in bad.stderr
    old = run_cli(
        "export",
        "-q",
        "--vocab",
        "gpt2",
        "--mode",
        "bpe",
        "--separator-id",
        "50256",
        "--out",
        str(tmp_path / "e"),
        str(path),
    )
    assert old.returncode == 0 and "--separator-id is deprecated; use --eos" in old.stderr
    assert ShardDataset(tmp_path / "e")[0].tolist()[-1] == 50256


def test_an_added_tokens_id_is_an_eos_and_counts_in_n_vocab(tmp_path):
    """Qwen 3's ``</think>`` (id 151,668) is an added token, no special one: the index's
    ``n_vocab`` (what a trainer sizes its embedding by) holds it, as HF's own table does, and
    ``--eos`` takes it by id as by spelling. An id in a gap of the vocabulary, or digits that
    are not ASCII, are no ids."""
    from tokenizers import Tokenizer as HFTokenizer

    file = data_file("hf/qwen3/tokenizer.json")
    largest = max(HFTokenizer.from_file(str(file)).get_vocab(with_added_tokens=True).values())
    tok = lbpe.load(file)
    path, _ = corpus(tmp_path, 10)
    by_id = export_shards(tok, [path], tmp_path / "a", mode="bpe", eos=str(largest))
    by_name = export_shards(tok, [path], tmp_path / "b", mode="bpe", eos="</think>")
    assert by_id["n_vocab"] == by_name["n_vocab"] == largest + 1
    assert by_id["eos_id"] == by_name["eos_id"] == largest
    assert [ShardDataset(tmp_path / "a")[i].tolist()[-1] for i in range(10)] == [largest] * 10
    o200k = load_preset("o200k_base")  # 199,998 ranks; <|endoftext|> at 199,999, <|endofprompt|> at 200,018
    with pytest.raises(LbpeError, match=r"--eos 199998 is not an id of this vocabulary \(no token has it\)"):
        export_shards(o200k, [path], tmp_path / "c", mode="bpe", eos=199998)
    with pytest.raises(LbpeError, match=r"--eos '²' is not a special token"):
        export_shards(o200k, [path], tmp_path / "d", mode="bpe", eos="²")
    with pytest.raises(LbpeError, match=r"--eos '１２' is not a special token"):
        export_shards(o200k, [path], tmp_path / "e", mode="bpe", eos="１２")
    with pytest.raises(LbpeError, match=r"--eos 9{20}… is not an id of this vocabulary \(0 to 200,018\)"):
        export_shards(o200k, [path], tmp_path / "f", mode="bpe", eos="9" * 5000)


def test_val_split_and_shuffle_are_seeded(tmp_path):
    tok = load_preset("gpt2")
    path, docs = corpus(tmp_path, 1000)
    want = encoded(tok, docs)
    runs = {}
    for name, seed in (("a", 1), ("b", 1), ("c", 2)):
        export_shards(
            tok, [path], tmp_path / name, mode="lbpe", val_fraction=0.1, shuffle=True, seed=seed, shard_tokens=30_000
        )
        train = ShardDataset(tmp_path / name)
        val = ShardDataset(tmp_path / name, split="val")
        runs[name] = ([train[i].tolist() for i in range(len(train))], [val[i].tolist() for i in range(len(val))])
    assert runs["a"] == runs["b"] and runs["a"] != runs["c"]  # reproducible with the seed
    for train, val in runs.values():
        assert sorted(train + val) == sorted(want)  # every document once, in one split
        assert 60 <= len(val) <= 140  # about a tenth
        assert train != [d for d in want if d in train]  # shuffled, not in input order
    # the held-out documents do not depend on shuffling
    export_shards(tok, [path], tmp_path / "d", mode="lbpe", val_fraction=0.1, seed=1, shard_tokens=30_000)
    val = ShardDataset(tmp_path / "d", split="val")
    assert sorted(val[i].tolist() for i in range(len(val))) == sorted(runs["a"][1])
    # nanogpt writes val.bin beside train.bin
    export_shards(tok, [path], tmp_path / "ng", mode="lbpe", format="nanogpt", eos=EOT, val_fraction=0.1, seed=1)
    val_bin = np.memmap(tmp_path / "ng" / "val.bin", dtype=np.uint16, mode="r").tolist()
    assert sorted(val_bin) == sorted(flat([[*v, 50256] for v in runs["a"][1]]))
    # too few documents for any to be drawn: said, not a missing val.bin found by the trainer
    one = tmp_path / "one.txt"
    one.write_text(docs[0], encoding="utf-8")
    said: list[str] = []
    index = export_shards(tok, [one], tmp_path / "nv", mode="bpe", format="nanogpt", val_fraction=0.5, warn=said.append)
    assert index["val_documents"] == 0 and not (tmp_path / "nv" / "val.bin").exists()
    assert said == [
        "--val-fraction 0.5 (val_fraction=) drew none of the 1 document for the val split: no val file was "
        "written; give more documents or a larger rate"
    ]
    cli = run_cli("export", "-q", "--vocab", "gpt2", "--mode", "bpe", "--format", "nanogpt", "--val-fraction", "0.5",
                  "--out", str(tmp_path / "nc"), str(one))  # fmt: skip
    assert cli.returncode == 0 and "drew none of the 1 document for the val split" in cli.stderr, cli.stderr


#: nanoGPT's train.py reads val.bin to estimate the loss (its first step): an export without it is said to lack it
NO_VAL_BIN = (
    "--format nanogpt wrote no val.bin, which nanoGPT's train.py reads to estimate the loss: give "
    "--val-fraction (val_fraction=), such as 0.0005 as its openwebtext/prepare.py keeps"
)


def test_nanogpt_without_a_val_split_says_train_py_needs_one(tmp_path):
    tok = load_preset("gpt2")
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"text": f"document {i}"}) + "\n" for i in range(40)), encoding="utf-8")
    said: list[str] = []
    export_shards(tok, [path], tmp_path / "none", mode="bpe", format="nanogpt", eos=EOT, warn=said.append)
    assert said == [NO_VAL_BIN] and not (tmp_path / "none" / "val.bin").exists()
    said.clear()
    export_shards(
        tok, [path], tmp_path / "val", mode="bpe", format="nanogpt", eos=EOT, val_fraction=0.2, warn=said.append
    )
    assert said == [] and (tmp_path / "val" / "val.bin").exists()


def test_a_flat_format_without_eos_says_its_documents_run_together(tmp_path):
    """nanogpt's train.bin and llm.c's shards are one run of ids: without --eos nothing marks
    where a document ends (nanoGPT's prepare.py and llm.c's fineweb.py always put one)."""
    tok = load_preset("gpt2")
    path = tmp_path / "two.jsonl"
    path.write_text('{"text": "one document"}\n{"text": "another"}\n', encoding="utf-8")
    for fmt, where in (("nanogpt", "train.bin"), ("llmc", "its shards")):
        said: list[str] = []
        export_shards(tok, [path], tmp_path / fmt, mode="bpe", format=fmt, warn=said.append)
        assert said[0] == (
            f"--format {fmt} keeps no document boundaries and no --eos (eos=) was given: the 2 documents run "
            f"into one another in {where}; give --eos with the vocabulary's end-of-text token "
            "(gpt2: <|endoftext|>)"
        )
        assert said[1:] == ([NO_VAL_BIN] if fmt == "nanogpt" else [])
        said.clear()
        export_shards(tok, [path], tmp_path / f"{fmt}-eos", mode="bpe", format=fmt, eos=EOT, warn=said.append)
        assert said == ([NO_VAL_BIN] if fmt == "nanogpt" else [])
    said = []
    export_shards(tok, [path], tmp_path / "npy", mode="bpe", format="npy", warn=said.append)  # offsets keep them
    assert said == []


def same_bytes_everywhere(tok, path: Path, root: Path, fmt: str, **options) -> dict[str, bytes]:
    """Export on one process, on two, and stopped part way then resumed (on two): the same
    files, byte for byte; returns them."""
    kwargs = dict(mode="lbpe", format=fmt, shard_tokens=7_000, **options)
    export_shards(tok, [path], root / "one", num_proc=1, **kwargs)
    export_shards(tok, [path], root / "two", num_proc=2, **kwargs)
    with pytest.raises(KeyboardInterrupt):
        export_shards(tok, [path], root / "cut", num_proc=1, progress=Stop(150), **kwargs)
    index = json.loads((root / "cut" / INDEX_NAME).read_text())
    assert not index["complete"] and index["shards"] and not list((root / "cut").rglob("*.tmp"))
    export_shards(tok, [path], root / "cut", num_proc=2, resume=True, **kwargs)
    one = tree(root / "one")
    assert tree(root / "two") == one
    assert tree(root / "cut") == one
    return one


@pytest.mark.parametrize("fmt", ["npy", "nanogpt", "llmc", "megatron", "datatrove"])
def test_same_bytes_on_one_or_two_processes_and_after_a_resume(tmp_path, fmt):
    path, _ = corpus(tmp_path, 600)
    files = same_bytes_everywhere(
        load_preset("gpt2"), path, tmp_path, fmt, eos=EOT, shuffle=True, seed=5, val_fraction=0.05
    )
    assert len(files) > 2


@pytest.mark.slow(reason="imports torch and megatron-core (~14 s)")
def test_megatron_indexed_dataset_reads_it(tmp_path):
    import torch
    from megatron.core.datasets.indexed_dataset import IndexedDataset, IndexedDatasetBuilder

    path, docs = corpus(tmp_path)
    for preset, dtype in (("gpt2", np.uint16), ("cl100k_base", np.int32)):
        tok = load_preset(preset)
        eot = tok.special_tokens[EOT]
        out = tmp_path / preset
        index = export_shards(tok, [path], out, mode="lbpe", format="megatron", eos=EOT, shard_tokens=20_000)
        got = []
        for k in range(len(index["shards"])):
            ds = IndexedDataset(str(out / f"train-{k:05d}"))
            assert ds.index.dtype == dtype
            assert ds.document_indices.tolist() == list(range(len(ds) + 1))  # one sequence per document
            got += [ds[i].tolist() for i in range(len(ds))]
        assert got == encoded(tok, docs, eos=eot)
        # megatron-core's own writer, given the same documents, writes the same bytes
        builder = IndexedDatasetBuilder(str(tmp_path / "theirs.bin"), dtype=dtype)
        for ids in encoded(tok, docs, eos=eot)[: index["shards"][0]["documents"]]:
            builder.add_document(torch.tensor(ids, dtype=torch.int64), [len(ids)])
        builder.finalize(str(tmp_path / "theirs.idx"))
        for suffix in ("bin", "idx"):
            assert (out / f"train-00000.{suffix}").read_bytes() == (tmp_path / f"theirs.{suffix}").read_bytes()


@pytest.mark.slow(reason="imports torch and datatrove (~7 s)")
def test_datatrove_reader_reads_it(tmp_path):
    from datatrove.utils.dataset import DatatroveFolderDataset

    path, docs = corpus(tmp_path)
    for preset, size in (("gpt2", 2), ("cl100k_base", 4)):
        tok = load_preset(preset)
        eot = tok.special_tokens[EOT]
        want = encoded(tok, docs, eos=eot)
        out = tmp_path / preset
        export_shards(tok, [path], out, mode="lbpe", format="datatrove", eos=EOT)
        total = len(flat(want))
        # one window of the whole file; positions from the .ds.index restart at each document
        ds = DatatroveFolderDataset(str(out / "train"), seq_len=total - 1, token_size=size, return_positions=True)
        assert len(ds) == 1
        item = ds[0]
        ids, positions = item["input_ids"].tolist(), item["positions"].tolist()
        starts = [k for k, p in enumerate(positions) if p == 0] + [total]
        assert [ids[a:b] for a, b in zip(starts, starts[1:])] == want


@pytest.mark.slow(reason="imports datatrove (~7 s)")
def test_datatrove_writes_the_same_files_in_bpe_mode(tmp_path):
    """In BPE mode the export is byte for byte what datatrove's own DocumentTokenizer writes
    (with the model's tokenizer.json and its EOS after each document)."""
    from datatrove.data import Document
    from datatrove.pipeline.tokens.tokenizer import DocumentTokenizer

    import lbpe

    tokenizer_json = data_file("hf/mistral_v0.1/tokenizer.json")
    docs = paragraphs(300)
    step = DocumentTokenizer(
        str(tmp_path / "theirs"),
        tokenizer_name_or_path=str(tokenizer_json),
        eos_token="</s>",
        shuffle_documents=False,
        save_filename="x",
    )
    step.run(iter(Document(text=d, id=str(i)) for i, d in enumerate(docs)), rank=0, world_size=1)
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"text": d}) + "\n" for d in docs), encoding="utf-8")
    export_shards(lbpe.load(tokenizer_json), [path], tmp_path / "ours", mode="bpe", format="datatrove", eos="</s>")
    for suffix in (".ds", ".ds.index"):
        theirs = (tmp_path / "theirs" / f"x_00000_unshuffled{suffix}").read_bytes()
        assert (tmp_path / "ours" / "train" / f"00000{suffix}").read_bytes() == theirs


@pytest.mark.parametrize(("name", "bos", "eos"), [("mistral_v0.1", "<s>", "</s>"), ("gemma3", "<bos>", "<eos>")])
def test_each_document_starts_with_the_bos_its_tokenizer_puts(tmp_path, name, bos, eos):
    """Mistral's and Gemma's tokenizers start every text with their start-of-text token (their
    post-processor): --bos exports each document as HF tokenizers encodes it with its special
    tokens, then --eos; llm.c's end-of-text goes first, then the start-of-text token."""
    from tokenizers import Tokenizer as HfTokenizer

    file = data_file(f"hf/{name}/tokenizer.json")
    hf = HfTokenizer.from_file(str(file))
    tok = lbpe.load(file)
    docs = paragraphs(40)
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"text": d}) + "\n" for d in docs), encoding="utf-8")
    b, e = hf.token_to_id(bos), hf.token_to_id(eos)
    theirs = [hf.encode(d).ids for d in docs]
    assert all(ids[0] == b for ids in theirs)  # the tokenizer's own start-of-text
    index = export_shards(tok, [path], tmp_path / "npy", mode="bpe", bos=bos, eos=eos)
    assert index["bos_id"] == b and index["eos_id"] == e
    ds = ShardDataset(tmp_path / "npy")
    assert [ds[i].tolist() for i in range(len(ds))] == [[*ids, e] for ids in theirs]
    export_shards(tok, [path], tmp_path / "llmc", mode="bpe", format="llmc", bos=b, eos=eos)
    _, tokens = llmc_read(next((tmp_path / "llmc").glob("train_*.bin")))
    assert tokens.tolist() == flat([[e, *ids] for ids in theirs])
    cli = run_cli(
        "export", "--vocab", str(file), "--mode", "bpe", "--bos", bos, "--out", str(tmp_path / "c"), str(path)
    )
    assert cli.returncode == 0, cli.stderr
    ds = ShardDataset(tmp_path / "c")
    assert [ds[i].tolist() for i in range(len(ds))] == theirs
    # a resume asked with another start-of-text token is refused, as for --eos
    with pytest.raises(LbpeError, match=r"another --bos \(bos=\)"):
        export_shards(tok, [path], tmp_path / "npy", mode="bpe", eos=eos, resume=True)


@pytest.mark.slow(reason="imports torch and LitData (~7 s)")
def test_litdata_streaming_dataset_reads_it(tmp_path):
    from litdata import StreamingDataset

    path, docs = corpus(tmp_path)
    for preset in ("gpt2", "cl100k_base"):
        tok = load_preset(preset)
        eot = tok.special_tokens[EOT]
        out = tmp_path / preset
        index = export_shards(tok, [path], out, mode="lbpe", format="litdata", eos=EOT, shard_tokens=5_000)
        assert len(index["shards"]) > 2
        ds = StreamingDataset(str(out / "train"), cache_dir=str(tmp_path / f"cache-{preset}"))
        assert [ds[i].tolist() for i in range(len(ds))] == encoded(tok, docs, eos=eot)
    path, _ = corpus(tmp_path, 600)
    same_bytes_everywhere(load_preset("gpt2"), path, tmp_path / "bytes", "litdata", shuffle=True, seed=5)


@pytest.mark.slow(reason="imports torch and LitData (~7 s)")
def test_litdata_tokens_loader_reads_it_in_blocks(tmp_path):
    """LitGPT pretrains on LitData chunks read by TokensLoader: blocks of block_size ids from
    each chunk's stream of documents, the ids after a chunk's last whole block left unread
    (the per-document litdata export records no count of ids a chunk, which that loader needs)."""
    from litdata import StreamingDataset
    from litdata.streaming.item_loader import TokensLoader

    path, docs = corpus(tmp_path)
    block = 64
    for preset in ("gpt2", "cl100k_base"):
        tok = load_preset(preset)
        stream = [i for ids in encoded(tok, docs, eos=tok.special_tokens[EOT]) for i in ids]
        out = tmp_path / preset
        index = export_shards(tok, [path], out, mode="lbpe", format="litdata-tokens", eos=EOT, shard_tokens=5_000)
        assert len(index["shards"]) > 2 and index["tokens"] == len(stream)
        ds = StreamingDataset(
            str(out / "train"), item_loader=TokensLoader(block_size=block), cache_dir=str(tmp_path / f"c-{preset}")
        )
        got = [ds[i].tolist() for i in range(len(ds))]
        chunks = json.loads((out / "train" / "index.json").read_text())["chunks"]
        want, at = [], 0
        for chunk in chunks:  # LitData's own record of each chunk's ids
            want += [stream[at + k * block : at + (k + 1) * block] for k in range(chunk["dim"] // block)]
            at += chunk["dim"]
        assert at == len(stream) and got == want and len(got) > 10


@pytest.mark.slow(reason="imports torch and LitData (~7 s)")
def test_a_stopped_litdata_export_is_no_dataset_until_resumed(tmp_path):
    """LitData reads a split's index.json as the whole dataset: after a stop (the shards kept
    for --resume) there is none, so no trainer takes the part for the whole."""
    from litdata import StreamingDataset

    path, docs = corpus(tmp_path, 600)
    tok = load_preset("gpt2")
    out = tmp_path / "cut"
    options = dict(mode="lbpe", format="litdata", eos=EOT, shard_tokens=7_000)
    with pytest.raises(KeyboardInterrupt):
        export_shards(tok, [path], out, progress=Stop(150), **options)
    index = json.loads((out / INDEX_NAME).read_text())
    assert not index["complete"] and index["shards"] and list((out / "train").glob("chunk-*.bin"))
    assert not (out / "train" / "index.json").exists()
    with pytest.raises(ValueError, match="contain any index.json"):
        StreamingDataset(str(out / "train"), cache_dir=str(tmp_path / "cache-cut"))
    export_shards(tok, [path], out, resume=True, **options)
    ds = StreamingDataset(str(out / "train"), cache_dir=str(tmp_path / "cache-done"))
    assert [ds[i].tolist() for i in range(len(ds))] == encoded(tok, docs, eos=tok.special_tokens[EOT])


@pytest.mark.slow(reason="Ray")
def test_ray_engine_writes_the_same_bytes_in_every_format(tmp_path, ray_local):
    tok = load_preset("gpt2")
    path, _ = corpus(tmp_path, 600)
    for fmt in ("npy", "nanogpt", "llmc", "megatron", "datatrove", "litdata", "litdata-tokens"):
        kwargs = dict(mode="lbpe", format=fmt, shard_tokens=7_000, eos=EOT, shuffle=True, seed=5, val_fraction=0.05)
        export_shards(tok, [path], tmp_path / f"{fmt}-local", **kwargs)
        export_shards(tok, [path], tmp_path / f"{fmt}-ray", engine="ray", **kwargs)
        assert tree(tmp_path / f"{fmt}-ray") == tree(tmp_path / f"{fmt}-local"), fmt
