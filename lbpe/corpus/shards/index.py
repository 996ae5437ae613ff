"""The index of an export folder (``lbpe-index.json``, format :data:`SHARD_FORMAT`), the
vocabulary's fingerprint it records (:func:`vocab_sha256`), and its readers: :func:`read_index`
and :class:`ShardDataset` (npy exports)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from lbpe.errors import LbpeError
from lbpe.tokenizer import Tokenizer

__all__ = ["SHARD_FORMAT", "INDEX_NAME", "vocab_sha256", "read_index", "ShardDataset"]

SHARD_FORMAT = "lbpe-shards/2"
#: The index format of lbpe's first exports (npy shards, ``index.json``), still read by :class:`ShardDataset`.
OLD_SHARD_FORMAT = "lbpe-shards/1"
#: The export's own index (a name no consumer takes for its own: LitData reads ``index.json``).
INDEX_NAME = "lbpe-index.json"
#: What lbpe called it before; :class:`ShardDataset` still reads one of lbpe's format.
OLD_INDEX_NAME = "index.json"


def vocab_sha256(tok: Tokenizer) -> str:
    """A fingerprint of what decides the ids: every token's bytes and id, the special, added
    and byte-fallback tokens, the unit, the pattern's name and the merges' order where the file
    lists merges. Two spellings of one vocabulary with different rules hash apart even where
    their ids agree: GPT-2 as ``r50k_base.tiktoken`` (ranks) and as ``encoder.json`` with
    ``vocab.bpe`` (merges, pattern ``gpt2``)."""
    v = tok.vocab
    h = hashlib.sha256()

    def put(*parts: object) -> None:
        for part in parts:
            data = part if isinstance(part, bytes) else str(part).encode("utf-8", "surrogatepass")
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)

    put("unit", v.unit, "pattern", tok.pretokenizer_name)
    h.update(
        b"".join(
            i.to_bytes(8, "little") + len(key).to_bytes(8, "little") + key
            for key, i in sorted(v.tokens.items(), key=lambda kv: kv[1])
        )
    )
    for text, i in sorted({**v.special, **tok.added_tokens}.items(), key=lambda kv: kv[1]):
        put("special", i, text)
    for b, i in sorted((v.byte_fallback or {}).items()):
        put("fallback", b, i)
    for (left, right), rank in sorted((v.merges or {}).items(), key=lambda kv: kv[1]):
        put("merge", rank, left, right)
    return h.hexdigest()


def has_old_index(folder: str | os.PathLike[str]) -> bool:
    """Whether ``folder`` holds an earlier lbpe's ``index.json`` (not another tool's file of
    that name: LitData's, say)."""
    try:
        index = json.loads((Path(folder) / OLD_INDEX_NAME).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(index, dict) and index.get("format") == OLD_SHARD_FORMAT


def read_index(folder: str | os.PathLike[str]) -> dict:
    """The index of an export folder: ``lbpe-index.json``, or the ``index.json`` of an earlier
    lbpe (npy shards) when it is lbpe's format."""
    folder = Path(folder)
    for name in (INDEX_NAME, OLD_INDEX_NAME):
        path = folder / name
        if not path.is_file():
            continue
        try:
            index = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise LbpeError(f"{path}: not readable ({exc}); is it an lbpe export folder?") from None
        if isinstance(index, dict) and index.get("format") in (SHARD_FORMAT, OLD_SHARD_FORMAT):
            return index
        if name == INDEX_NAME:
            raise LbpeError(f"{path} is not {SHARD_FORMAT}")
    raise LbpeError(f"{folder}: no {INDEX_NAME} (nor an earlier lbpe's index.json); is it an lbpe export folder?")


class ShardDataset:
    """The documents of a shard folder as a sequence (a PyTorch-style map dataset): ``len(ds)``
    documents, ``ds[i]`` the ids of document ``i`` as a read-only numpy view into the
    memory-mapped shard (nothing is read until used). An export that stopped before its end
    is refused unless ``partial=True`` (its documents so far). Needs numpy::

        ds = ShardDataset("shards/")
        loader = torch.utils.data.DataLoader(ds, batch_size=None)
    """

    def __init__(self, folder: str | os.PathLike[str], *, split: str = "train", partial: bool = False) -> None:
        import numpy as np

        self.folder = Path(folder)
        self.index = read_index(self.folder)
        if not self.index.get("complete", True) and not partial:
            n = self.index.get("documents", 0) + self.index.get("val_documents", 0)
            raise LbpeError(
                f"{self.folder}: the export stopped before its end ({n:,} document{'' if n == 1 else 's'} written): "
                "finish it with the same lbpe export command and --resume, or pass partial=True to read the "
                "documents written so far"
            )
        kind = self.index.get("container", "npy")
        if kind != "npy":
            raise LbpeError(
                f"{self.folder} holds a {kind} export; ShardDataset reads npy exports (read this one with its "
                "trainer's own reader, see lbpe.corpus.containers)"
            )
        if split not in ("train", "val"):
            raise LbpeError(f"split must be 'train' or 'val', not {split!r}")
        shards = self.index["shards"] if split == "train" else self.index.get("val_shards", [])
        self._tokens = [np.load(self.folder / s["tokens_file"], mmap_mode="r") for s in shards]
        self._offsets = [np.load(self.folder / s["offsets_file"]) for s in shards]
        self._starts = np.cumsum([0] + [len(o) - 1 for o in self._offsets])

    def __len__(self) -> int:
        return int(self._starts[-1])

    def __getitem__(self, i: int):
        import numpy as np

        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"document {i} of {n}")
        i %= n
        shard = int(np.searchsorted(self._starts, i, side="right")) - 1
        k = i - int(self._starts[shard])
        offsets = self._offsets[shard]
        return self._tokens[shard][offsets[k] : offsets[k + 1]]
