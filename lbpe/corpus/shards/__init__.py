"""Token shards: a corpus encoded into the files a training loop reads.

``export_shards`` reads documents (:mod:`lbpe.corpus.documents`), encodes them in one mode on
``num_proc`` processes (or Ray Data) and writes them, in input order, as shards of one of the
formats of :mod:`lbpe.corpus.containers` (``npy``, ``nanogpt``, ``llmc``, ``megatron``,
``datatrove``, ``litdata``), with ``lbpe-index.json``: vocabulary, its SHA-256, mode, format,
dtype, the end-of-text id and where it goes, and per shard its documents, tokens, inputs,
every file's size and SHA-256, and the SHA-256 of the input read through it.

One export writes into a folder at a time (``fcntl.flock`` on ``.lbpe-export.lock`` there; a
second one fails at once naming the holder). A shard is written under a name unique to the
writer and renamed when complete, and the index is rewritten (also atomically) after each
shard, so Ctrl-C, a crash, a full disk or a bad document leaves only complete shards;
``resume=True`` checks each kept shard against the index (size and SHA-256) and its documents
against the inputs as they are now (:mod:`~lbpe.corpus.shards.consumed`), redoes from the first
one that differs, and continues. When the export stops (a bad document without
``skip_bad``, Ctrl-C), the documents completed so far are kept as a last shard.

``npy`` shards: ``numpy.load(path, mmap_mode="r")``; document ``i`` of a shard is
``tokens[offsets[i]:offsets[i + 1]]`` (:class:`ShardDataset` does it for every shard).

The package, one module per job, lowest first (each imports only those before it):
:mod:`~lbpe.corpus.shards.index` (the index format, :func:`read_index`, :class:`ShardDataset`,
:func:`vocab_sha256`), :mod:`~lbpe.corpus.shards.consumed` (a digest of the inputs read so far),
:mod:`~lbpe.corpus.shards.folder` (the folder's lock, its files' digests,
the state a resume continues from), :mod:`~lbpe.corpus.shards.writer` (the shards of each split,
written and closed atomically), :mod:`~lbpe.corpus.shards.batches` (what both engines share: a
batch encoded, the items it makes, runs of whole lines), :mod:`~lbpe.corpus.shards.local` (the
engine of this process and its worker processes), :mod:`~lbpe.corpus.shards.ray` (the Ray Data
engine) and :mod:`~lbpe.corpus.shards.export` (:func:`export_shards` and its :class:`ExportOptions`,
the loop that writes the engine's items into the shards).
"""

from __future__ import annotations

from lbpe.corpus.containers import FORMATS
from lbpe.corpus.shards.export import DEFAULT_SHARD_TOKENS, ExportOptions, eos_id, export_shards
from lbpe.corpus.shards.folder import LOCK_NAME as LOCK_NAME
from lbpe.corpus.shards.index import INDEX_NAME, SHARD_FORMAT, ShardDataset, vocab_sha256
from lbpe.corpus.shards.index import read_index as read_index

__all__ = [
    "export_shards",
    "ExportOptions",
    "eos_id",
    "vocab_sha256",
    "ShardDataset",
    "FORMATS",
    "SHARD_FORMAT",
    "INDEX_NAME",
    "DEFAULT_SHARD_TOKENS",
]
