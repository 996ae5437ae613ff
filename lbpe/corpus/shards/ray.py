"""The Ray Data engine: the inputs read and encoded by Ray's workers, with the same per-batch
function as the local engine (:func:`lbpe.corpus.shards.batches._encode_batch`), and read back
here in input order. Ray is imported only when this engine runs."""

from __future__ import annotations

import json
import logging
import os
from array import array

from lbpe.corpus.documents import check_parquet_column, input_kind, parquet_record, records_of_bytes
from lbpe.corpus.shards.batches import _encode_batch, _line_ranges, one_by_one
from lbpe.errors import LbpeError
from lbpe.tokenizer import Mode, Tokenizer

#: Bytes of a line-based input per Ray task (a file is cut into such runs of whole lines).
RAY_RANGE_BYTES = 16 << 20


#: Tokenizers a Ray worker process has unpickled, by export: kept warm (caches, compiled
#: tables) for every task that process runs.
_RAY_TOKENIZERS: dict[str, Tokenizer] = {}


def _ray_encode(batch: dict, *, tok_ref, key: str, mode: Mode, lines: bool, text_field: str, source: str) -> dict:
    """Ray Data map_batches: a run of an input file (or a batch of a Parquet column) -> one
    row with its documents' ids, encoded with the same per-batch function as the local
    processes, and its input (``path``) and size on disk (``bytes``) for the driver."""
    import ray

    tok = _RAY_TOKENIZERS.get(key)
    if tok is None:
        tok = _RAY_TOKENIZERS[key] = ray.get(tok_ref)
    if "start" in batch:
        records, size = [], 0
        for path, start, end, line in zip(batch["path"], batch["start"], batch["end"], batch["line"]):
            with open(str(path), "rb") as f:
                f.seek(int(start))
                data = f.read(int(end) - int(start))
            size += len(data)
            records += records_of_bytes(str(path), data, lines=lines, text_field=text_field, first_line=int(line))
        path = str(batch["path"][0])
    else:  # a Parquet column: rows are numbered by the driver, which reads the results in order
        records = [parquet_record(source, 0, value, text_field) for value in batch[text_field]]
        path, size = source, 0
    # one row for the whole batch (per-document rows cost Arrow more than the encoding saves)
    lengths, ids, errors = _encode_batch(tok, mode, [r.text if r.error is None else "" for r in records])
    errors.update({k: r.error for k, r in enumerate(records) if r.error is not None})
    return {"lengths": [lengths], "ids": [ids], "errors": [json.dumps(errors)], "path": [path], "bytes": [size]}


def _ray_ordered(tok: Tokenizer, inputs, mode: Mode, *, lines: bool, text_field: str, skip: int, address, progress):
    """The items of :func:`lbpe.corpus.shards.local._ordered`, encoded on Ray Data and read back in input order: one
    dataset for each run of consecutive text and JSONL inputs (so Ray's start-up is paid once,
    not per file), one for each Parquet file."""
    import functools
    import time

    try:
        import ray
    except ImportError:
        raise LbpeError('--engine ray needs Ray: python -m pip install "lbpe[ray]"') from None
    if not ray.is_initialized():
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        ray.init(address=address, include_dashboard=False, log_to_driver=False, configure_logging=False)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False  # lbpe's own bar counts; Ray's would interleave with it
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    number = 0
    tok_ref = ray.put(tok)  # sent once; each worker process unpickles it once (_RAY_TOKENIZERS)
    key = f"{os.getpid()}-{id(tok)}-{time.time_ns()}"
    encode = functools.partial(_ray_encode, tok_ref=tok_ref, key=key, mode=mode, lines=lines, text_field=text_field)
    groups: list[tuple[str, list]] = []  # ("parquet", [path]) or ("runs", [range, ...])
    for path in map(str, inputs):
        if input_kind(path) == "parquet":
            groups.append(("parquet", [path]))
            continue
        # runs of whole lines (or the whole file, for one document per file), read by the workers
        ranges = (
            _line_ranges(path, size=RAY_RANGE_BYTES)
            if lines or input_kind(path) == "jsonl"
            else [{"path": path, "start": 0, "end": os.path.getsize(path), "line": 1}]
        )
        if groups and groups[-1][0] == "runs":
            groups[-1][1].extend(ranges)
        else:
            groups.append(("runs", ranges))
    for kind, members in groups:
        if kind == "parquet":
            import pyarrow.parquet as pq

            path = members[0]
            check_parquet_column(path, pq.ParquetFile(path).schema_arrow.names, text_field)
            ds = (
                ray.data.read_parquet(path)
                .select_columns([text_field])
                .map_batches(functools.partial(encode, source=path), batch_format="numpy", batch_size=256)
            )
        else:
            ds = ray.data.from_items(members, override_num_blocks=len(members)).map_batches(
                functools.partial(encode, source=""), batch_format="numpy", batch_size=1
            )
        row = 0
        for batch in ds.iter_batches(batch_format="numpy", batch_size=None, prefetch_batches=2):
            for lengths_bytes, ids_bytes, errors_json, path, size in zip(
                batch["lengths"], batch["ids"], batch["errors"], batch["path"], batch["bytes"]
            ):
                path = str(path)
                lengths, ids = array("I"), array("I")
                lengths.frombytes(bytes(lengths_bytes))
                ids.frombytes(bytes(ids_bytes))
                errors = {int(k): message for k, message in json.loads(str(errors_json)).items()}
                if kind == "parquet":  # the worker could not know the rows' numbers
                    errors = {
                        k: m.replace(f"{path}: row 0:", f"{path}: row {row + k + 1}:", 1) for k, m in errors.items()
                    }
                row += len(lengths)
                progress(int(size))
                metas = [(number + k, True, path) for k in range(1, len(lengths) + 1)]
                number += len(lengths)
                if number <= skip:
                    continue
                if metas and metas[0][0] <= skip:  # a resumed export: this batch is partly done
                    keep = skip - metas[0][0] + 1
                    ids = ids[sum(lengths[:keep]) :]
                    metas, lengths = metas[keep:], lengths[keep:]
                    errors = {k - keep: m for k, m in errors.items() if k >= keep}
                if not metas:
                    continue
                if errors:
                    yield from one_by_one(metas, lengths, ids, errors)
                else:
                    yield ("documents", metas, (lengths, ids))
        if kind == "parquet":
            progress(os.path.getsize(members[0]))
