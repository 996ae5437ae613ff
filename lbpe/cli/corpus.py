"""``lbpe stats`` and ``lbpe export``: a corpus's statistics, and its token ids as shards."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TextIO

from lbpe.cli.inputs import loader, tokenizer
from lbpe.errors import LbpeError
from lbpe.progress import Bar

__all__ = ["cmd_export", "cmd_stats"]


def cmd_stats(args: argparse.Namespace, out: TextIO) -> None:
    import json

    from lbpe.playground.service import stats_view

    bar = Bar(enabled=not args.quiet)
    try:
        view = stats_view(
            loader(args),
            args.files,
            lines=args.lines,
            text_field=args.text_field,
            skip_bad=args.skip_bad,
            workers=args.workers,
            renyi_power=args.renyi_power,
            progress=bar.phase("encoding", in_bytes=True),
        )
    finally:
        bar.close()
    skipped = view["skipped"]
    if skipped:
        print(f"lbpe stats: skipped {len(skipped):,} bad document(s); the first: {skipped[0]}", file=sys.stderr)
    if args.json:
        out.write(json.dumps(view["summary"], indent=2) + "\n")
        return
    _write_stats_table(view["summary"], out)


def _write_stats_table(doc: dict, out: TextIO) -> None:
    """The text table of ``lbpe stats``: the rows the app's Corpus view shows, then one line per
    metric on what it means."""
    from lbpe.playground.display import summary_rows

    rows = summary_rows(doc)
    unit = "bytes" if doc["unit"] == "byte" else "chars"
    out.write(
        f"vocabulary {doc['vocab']} ({doc['unit']}-level); token length in {unit}; "
        f"Rényi power {doc['bpe'].get('renyi_power', '')}\n"
    )
    table = [("", "bpe", "lbpe", "change", "paper predicts")] + [
        (r.label, r.bpe, r.lbpe, r.change, r.paper) for r in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    for row in table:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:4], widths[1:4])] + [row[4]]
        out.write("  ".join(cells).rstrip() + "\n")
    out.write(
        "\nWhat the rows mean (paper predicts: the way the paper expects LBPE to move it; \u2713 where it did here):\n"
    )
    seen = set()
    for r in rows:
        if r.meaning not in seen:
            seen.add(r.meaning)
            label = {"frequency": "occurrences per token, length L", "length": "length L"}.get(
                r.key.split()[0], r.label
            )
            out.write(f"  {label}: {r.meaning}\n")


def cmd_export(args: argparse.Namespace, out: TextIO) -> None:
    from lbpe.corpus.documents import input_bytes
    from lbpe.corpus.shards import ExportOptions, export_shards

    tok = tokenizer(args)
    total = input_bytes(args.files)
    bar = Bar(enabled=not args.quiet)
    update = bar.phase("encoding", in_bytes=True)
    done = 0

    def progress(nbytes: int, documents: int, tokens: int) -> None:
        nonlocal done
        done += nbytes
        bar.count(documents=documents, tokens=tokens)
        update(min(done, total), total)

    eos = args.eos
    if args.separator_id is not None:
        print("lbpe export: --separator-id is deprecated; use --eos ID (or the token's spelling)", file=sys.stderr)
        if eos is not None:
            raise LbpeError("give the end-of-text token once, with --eos (--separator-id is its deprecated name)")
        eos = args.separator_id

    def warn(message: str) -> None:
        bar.close()
        print(f"lbpe export: {message}", file=sys.stderr)

    try:
        options = ExportOptions(
            mode=args.mode,
            format=args.format,
            eos=eos,
            lines=args.lines,
            text_field=args.text_field,
            shard_tokens=args.shard_tokens,
            num_proc=args.num_proc or os.cpu_count() or 1,
            resume=args.resume,
            skip_bad=args.skip_bad,
            shuffle=args.shuffle,
            seed=args.seed,
            val_fraction=args.val_fraction,
            engine=args.engine,
            address=args.address,
        )
        index = export_shards(tok, args.files, args.out, options, progress=progress, warn=warn)
    except KeyboardInterrupt:
        bar.close()
        raise LbpeError(f"interrupted; {_kept(args.out)} continue with the same command and --resume") from None
    finally:
        bar.close()
    skipped = f"; skipped {index['skipped_documents']:,} bad document(s)" if index["skipped_documents"] else ""
    val = (
        f"; val: {len(index['val_shards'])} shard(s), {index['val_documents']:,} documents, {index['val_tokens']:,} ids"
        if index["val_shards"]
        else ""
    )
    print(
        f"wrote {args.out} ({index['container']}): {len(index['shards'])} shard(s), {index['documents']:,} documents, "
        f"{index['tokens']:,} ids as {index['dtype']}{val}{skipped}",
        file=sys.stderr,
    )


def _kept(folder: str) -> str:
    """What an interrupted export left: its complete shards (from its index)."""
    from lbpe.corpus.shards import read_index

    try:
        index = read_index(folder)
    except LbpeError:
        return f"no shard was complete, nothing is kept in {folder};"
    count = len(index["shards"]) + len(index.get("val_shards", []))
    documents = index["documents"] + index.get("val_documents", 0)
    return f"{count} complete shard(s) ({documents:,} documents) are kept in {folder};"
