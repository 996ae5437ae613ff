"""The containers ``lbpe export`` writes: how one shard's ids become the files a trainer reads.

:mod:`lbpe.corpus.shards` streams each shard's ids (little-endian, after :attr:`Container.header_bytes`
reserved bytes) into a temporary file and hands it here with the documents' offsets; a
container names and writes the shard's final files and, where the consumer reads a whole
folder, the folder's own index. Every file is written under a temporary name and renamed.

======== ====================================================== ==========================================
format   files (train split; the val split as noted)            read by
======== ====================================================== ==========================================
npy      ``tokens-00000.npy``, ``offsets-00000.npy``            ``numpy.load(..., mmap_mode="r")``,
         (``val-tokens-*``, ``val-offsets-*``)                  :class:`lbpe.corpus.shards.ShardDataset`
nanogpt  ``train.bin`` (``val.bin``): flat uint16, no header    nanoGPT's ``np.memmap(path, np.uint16)``
llmc     ``train_000000.bin`` (``val_000000.bin``): 256 int32   llm.c's dataloader (``train_gpt2.c``,
         header (magic, version, token count), then the ids     ``train_gpt2.py``, ``train_llama3.py``)
megatron ``train-00000.bin`` + ``.idx`` (``val-00000.*``)       megatron-core ``IndexedDataset``
datatrove ``train/00000.ds`` + ``.ds.index`` (``val/``)         datatrove ``DatatroveFolderDataset``
litdata  ``train/index.json`` + ``chunk-0-N.bin`` (``val/``)    LitData ``StreamingDataset``
litdata- the same files, the ids as one stream for LitData's      ``StreamingDataset(...,
tokens   ``TokensLoader`` (LitGPT's pretraining data)           item_loader=TokensLoader(block_size))``
======== ====================================================== ==========================================
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import shutil
import struct
import sys
from array import array
from collections.abc import Sequence
from pathlib import Path

from lbpe.errors import LbpeError

__all__ = ["FORMATS", "Container", "container", "tmp_name", "write_file"]

FORMATS = ("npy", "nanogpt", "llmc", "megatron", "datatrove", "litdata", "litdata-tokens")

#: llm.c's header: 256 little-endian int32; (magic, version) by token width, as llm.c's
#: dev/data/data_common.py writes and its loaders check.
LLMC_HEADER_INTS = 256
LLMC_MAGIC = {2: (20240520, 1), 4: (20240801, 7)}
#: Megatron-LM's MMIDIDX index: header, version, and its dtype codes (megatron.core.datasets.indexed_dataset.DType)
MEGATRON_HEADER = b"MMIDIDX\x00\x00"
MEGATRON_DTYPE_CODES = {"uint16": 8, "int32": 4}


def tmp_name(path: Path) -> Path:
    """A temporary name beside ``path``, unique to this writer (process id and random)."""
    return path.with_name(f"{path.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")


def write_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file, synced, then renamed)."""
    tmp = tmp_name(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _le(values: array) -> bytes:
    if sys.byteorder == "big":
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def _npy_header(descr: str, count: int, length: int = 128) -> bytes:
    """The header of a 1-D ``.npy`` file of ``count`` items (format 1.0, ``length`` bytes)."""
    body = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({count},), }}".encode("latin1")
    pad = length - 10 - len(body) - 1
    return b"\x93NUMPY\x01\x00" + (length - 10).to_bytes(2, "little") + body + b" " * pad + b"\n"


_DESCR = {"uint16": "<u2", "uint32": "<u4", "int32": "<i4"}


class Container:
    """One export format. ``dtype`` is the stored type of the ids (``uint16``, ``uint32`` or
    ``int32``); ``offsets`` the documents' starts in the shard plus its end (in ids)."""

    name = ""
    #: bytes reserved before the ids in the token file, filled by :meth:`header`
    header_bytes = 0
    #: the end-of-text id goes before each document (llm.c) instead of after it
    eos_before = False
    #: where the documents' ids run into one another when no end-of-text id parts them (a format
    #: with no offsets), for the warning; "" for a format that keeps each document's extent
    runs_together_in = ""
    #: how many times a shard's ids are on the disk at once while it is written (LitData's
    #: writer makes its chunks from the shard's token file), for the advice on a full disk
    shard_copies = 1

    def joined_file(self, split: str) -> str:
        """The file :meth:`complete` joins the split's shards into ("": none), which takes the
        shards' size again until they are removed (nanoGPT's train.bin)."""
        return ""

    def dtype(self, n_vocab: int) -> str:
        return "uint16" if n_vocab <= 1 << 16 else "uint32"

    def token_file(self, split: str, number: int) -> str:
        raise NotImplementedError

    def header(self, dtype: str, count: int) -> bytes:
        return b""

    def side_files(self, split: str, number: int, dtype: str, offsets: Sequence[int]) -> dict[str, bytes]:
        """The shard's other files (name relative to the export folder -> content)."""
        return {}

    def write_shard(self, out: Path, tmp: Path, split: str, number: int, dtype: str, offsets: list[int]) -> list[str]:
        """Turn the shard's token file ``tmp`` (header space reserved, ids after) into its final
        files; returns their names relative to ``out``."""
        with open(tmp, "r+b") as f:
            f.write(self.header(dtype, offsets[-1]))
            f.flush()
            os.fsync(f.fileno())
        names = []
        for name, data in self.side_files(split, number, dtype, offsets).items():
            write_file(out / name, data)
            names.append(name)
        name = self.token_file(split, number)
        os.replace(tmp, out / name)
        return [name, *names]

    def folder_files(self, out: Path, split: str, shards: list[dict]) -> list[str]:
        """Files describing a split's shards so far (rewritten after each shard); names relative to ``out``."""
        return []

    def complete(self, out: Path, splits: dict[str, list[dict]]) -> dict[str, str]:
        """The last step of a complete export: files made from the shards (name -> what
        they hold), written atomically. Most formats need none."""
        return {}

    def subfolders(self) -> tuple[str, ...]:
        return ()


class Npy(Container):
    name = "npy"
    header_bytes = 128

    def token_file(self, split: str, number: int) -> str:
        return f"{'val-' if split == 'val' else ''}tokens-{number:05d}.npy"

    def header(self, dtype: str, count: int) -> bytes:
        return _npy_header(_DESCR[dtype], count)

    def side_files(self, split: str, number: int, dtype: str, offsets: Sequence[int]) -> dict[str, bytes]:
        name = f"{'val-' if split == 'val' else ''}offsets-{number:05d}.npy"
        return {name: _npy_header("<i8", len(offsets)) + _le(array("q", offsets))}


class NanoGpt(Container):
    """Shards are parts, joined into ``train.bin`` / ``val.bin`` when the export completes (nanoGPT
    reads one file per split)."""

    name = "nanogpt"
    runs_together_in = "train.bin"

    def dtype(self, n_vocab: int) -> str:
        if n_vocab > 1 << 16:
            raise LbpeError(
                f"--format nanogpt stores ids as uint16 (nanoGPT's train.bin), but this vocabulary has "
                f"{n_vocab:,} ids (more than 65,536): use --format llmc or megatron (uint32/int32 ids) or npy"
            )
        return "uint16"

    def token_file(self, split: str, number: int) -> str:
        return f"{split}.bin.{number:05d}.part"

    def joined_file(self, split: str) -> str:
        return f"{split}.bin"

    def complete(self, out: Path, splits: dict[str, list[dict]]) -> dict[str, str]:
        done = {}
        for split, shards in splits.items():
            if split == "val" and not shards:
                continue
            final = out / self.joined_file(split)
            tmp = tmp_name(final)
            try:
                with open(tmp, "wb") as dst:
                    for shard in shards:
                        with open(out / shard["tokens_file"], "rb") as src:
                            shutil.copyfileobj(src, dst, 1 << 22)
                    dst.flush()
                    os.fsync(dst.fileno())
                os.replace(tmp, final)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
            done[final.name] = split
        for shards in splits.values():
            for shard in shards:
                (out / shard["tokens_file"]).unlink(missing_ok=True)
        return done


class Llmc(Container):
    name = "llmc"
    runs_together_in = "its shards"
    header_bytes = LLMC_HEADER_INTS * 4
    eos_before = True  # llm.c's dev/data/fineweb.py: the delimiter token starts every document

    def token_file(self, split: str, number: int) -> str:
        return f"{split}_{number:06d}.bin"

    def header(self, dtype: str, count: int) -> bytes:
        if count >= 1 << 31:
            raise LbpeError("an llm.c file holds fewer than 2**31 ids (its header is int32): lower --shard-tokens")
        magic, version = LLMC_MAGIC[2 if dtype == "uint16" else 4]
        return struct.pack(f"<{LLMC_HEADER_INTS}i", magic, version, count, *[0] * (LLMC_HEADER_INTS - 3))


class Megatron(Container):
    name = "megatron"

    def dtype(self, n_vocab: int) -> str:
        if n_vocab > 1 << 31:  # Megatron's DType has no uint32: a larger id would be read back negative
            raise LbpeError(
                f"--format megatron stores ids as int32, which holds ids below 2,147,483,648, but this vocabulary "
                f"has ids up to {n_vocab - 1:,}: use --format npy or llmc (uint32 ids)"
            )
        return "uint16" if n_vocab <= 1 << 16 else "int32"

    def token_file(self, split: str, number: int) -> str:
        return f"{split}-{number:05d}.bin"

    def side_files(self, split: str, number: int, dtype: str, offsets: Sequence[int]) -> dict[str, bytes]:
        n = len(offsets) - 1
        size = 2 if dtype == "uint16" else 4
        lengths = array("i", (offsets[k + 1] - offsets[k] for k in range(n)))
        pointers = array("q", (offsets[k] * size for k in range(n)))
        documents = array("q", range(n + 1))  # one sequence per document
        head = MEGATRON_HEADER + struct.pack("<QBQQ", 1, MEGATRON_DTYPE_CODES[dtype], n, n + 1)
        return {f"{split}-{number:05d}.idx": head + _le(lengths) + _le(pointers) + _le(documents)}


class Datatrove(Container):
    name = "datatrove"

    def token_file(self, split: str, number: int) -> str:
        return f"{split}/{number:05d}.ds"

    def side_files(self, split: str, number: int, dtype: str, offsets: Sequence[int]) -> dict[str, bytes]:
        return {f"{split}/{number:05d}.ds.index": _le(array("Q", offsets[1:]))}  # each document's end, uint64

    def subfolders(self) -> tuple[str, ...]:
        return ("train", "val")


class LitData(Container):
    """LitData's chunks are written by LitData's own ``BinaryWriter`` (the optional ``litdata``
    package): its chunk layout and its index's config (serializer codes, the item's tree spec,
    a schema) are its internals and change between its releases, so lbpe does not write them
    by hand. One item per document, a 1-D numpy array of ids; the split's ``index.json`` lists
    every shard's chunks."""

    name = "litdata"
    CHUNK_BYTES = 1 << 26
    shard_copies = 2  # the shard's ids, and the chunks made of them

    def token_file(self, split: str, number: int) -> str:
        return f"{split}/.ids-{number:05d}.raw"

    def subfolders(self) -> tuple[str, ...]:
        return ("train", "val")

    def write_shard(self, out: Path, tmp: Path, split: str, number: int, dtype: str, offsets: list[int]) -> list[str]:
        try:
            import numpy as np
            from litdata.streaming.writer import BinaryWriter
        except ImportError:
            raise LbpeError("--format litdata needs LitData: python -m pip install litdata") from None
        ids = np.fromfile(tmp, dtype="<u2" if dtype == "uint16" else "<u4")
        work = tmp_name(out / split / f".litdata-{number:05d}")
        try:
            # chunks numbered from the shard's number, so a redone shard overwrites its own names
            writer = BinaryWriter(
                str(work), chunk_bytes=self.CHUNK_BYTES, chunk_index=number * 100_000, **self._writer_options()
            )
            for k in range(len(offsets) - 1):
                writer.add_item(k, ids[offsets[k] : offsets[k + 1]])
            writer.done()
            index = json.loads((work / "0.index.json").read_text("utf-8"))
            names = []
            for chunk in index["chunks"]:
                os.replace(work / chunk["filename"], out / split / chunk["filename"])
                names.append(f"{split}/{chunk['filename']}")
            write_file(out / split / f".chunks-{number:05d}.json", json.dumps(index, sort_keys=True).encode())
        finally:
            shutil.rmtree(work, ignore_errors=True)
        tmp.unlink()
        return [*names, f"{split}/.chunks-{number:05d}.json"]

    def _writer_options(self) -> dict:
        return {}

    def folder_files(self, out: Path, split: str, shards: list[dict]) -> list[str]:
        chunks, config = [], None
        for number in range(len(shards)):
            part = json.loads((out / split / f".chunks-{number:05d}.json").read_text("utf-8"))
            chunks += part["chunks"]
            config = config or part["config"]
        # updated_at names LitData's cache folder: derived from the contents, so a changed export is not read stale
        stamp = "".join(f["sha256"] for s in shards for f in s["files"].values())
        index = {"chunks": chunks, "config": config, "updated_at": hashlib.sha256(stamp.encode()).hexdigest()[:16]}
        write_file(out / split / "index.json", json.dumps(index, sort_keys=True).encode())
        return [f"{split}/index.json"]


class LitDataTokens(LitData):
    """LitData's chunks for its ``TokensLoader``, as LitGPT prepares pretraining data: the same
    files, written by LitData's writer with that loader, so each chunk records its count of ids
    and a reader takes blocks of ``block_size`` ids from the stream of a chunk's documents
    (the ids left after a chunk's last whole block are not read, as LitData does)."""

    name = "litdata-tokens"
    runs_together_in = "LitData's TokensLoader blocks"

    def _writer_options(self) -> dict:
        try:
            from litdata.streaming.item_loader import TokensLoader
        except ImportError:
            raise LbpeError("--format litdata-tokens needs LitData: python -m pip install litdata") from None
        return {"item_loader": TokensLoader()}


_CONTAINERS: dict[str, type[Container]] = {
    "npy": Npy,
    "nanogpt": NanoGpt,
    "llmc": Llmc,
    "megatron": Megatron,
    "datatrove": Datatrove,
    "litdata": LitData,
    "litdata-tokens": LitDataTokens,
}


def container(name: str) -> Container:
    """The container of format ``name`` (one of :data:`FORMATS`)."""
    if name not in _CONTAINERS:
        raise LbpeError(f"format must be one of {', '.join(FORMATS)}, not {name!r}")
    return _CONTAINERS[name]()
