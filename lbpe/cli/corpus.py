"""``lbpe stats`` and ``lbpe export``: a corpus's statistics, and its token ids as shards."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from lbpe.cli.inputs import loader, processes, tokenizer
from lbpe.corpus.documents import check_reading, check_words
from lbpe.errors import LbpeError
from lbpe.progress import Bar

__all__ = ["cmd_export", "cmd_stats"]


def cmd_stats(args: argparse.Namespace, out: TextIO) -> None:
    import json

    from lbpe.playground.service import stats_view

    check_reading(args.files, lines=args.lines, text_field=args.text_field)
    if args.methods is not None:
        _methods_stats(args, out)
        return
    if args.dropout is not None or args.seed is not None:
        raise LbpeError("--dropout and --seed apply to the methods table: add --methods ...,dropout")
    bar = Bar(enabled=not args.quiet)
    try:
        view = stats_view(
            loader(args),
            args.files,
            lines=args.lines,
            text_field=args.text_field,
            skip_bad=args.skip_bad,
            workers=processes("stats", "--workers", args.workers),
            renyi_power=args.renyi_power,
            progress=bar.phase("encoding", in_bytes=True),
        )
    finally:
        bar.close()
    skipped = view["skipped"]
    if skipped:
        print(f"lbpe stats: skipped {len(skipped):,} bad document(s); the first: {skipped[0]}", file=sys.stderr)
    check_words(view["summary"]["bpe"]["words"], args.files, skipped)
    if args.json:
        out.write(json.dumps({**view["summary"], **_skipped_json(args, skipped)}, indent=2) + "\n")
        return
    _write_stats_table(view["summary"], out)


def _skipped_json(args: argparse.Namespace, skipped: list[str]) -> dict:
    """With --skip-bad, the documents the figures leave out, as an export's index counts them:
    how many, and the first few reasons."""
    from lbpe.corpus.shards.export import KEPT_MESSAGES

    if not args.skip_bad:
        return {}
    return {"skipped_documents": len(skipped), "skipped_messages": skipped[:KEPT_MESSAGES]}


def _methods_stats(args: argparse.Namespace, out: TextIO) -> None:
    """``lbpe stats --methods``: one row per inference method (:mod:`lbpe.analysis.methods`)."""
    import json

    from lbpe.analysis.methods import check_options, methods_json, parse_methods
    from lbpe.corpus.documents import document_texts, input_bytes
    from lbpe.corpus.parallel import parallel_methods_stats

    methods = parse_methods(args.methods)
    check_options(methods, args.dropout, args.seed)
    load = loader(args)
    tok = load()  # a bad vocabulary fails before any file is read
    total = input_bytes(args.files)
    skipped: list[str] = []
    texts = document_texts(
        tok, args.files, lines=args.lines, text_field=args.text_field, on_bad=skipped.append if args.skip_bad else None
    )
    bar = Bar(enabled=not args.quiet)
    update = bar.phase("encoding", in_bytes=True)
    try:
        stats = parallel_methods_stats(
            load,
            texts,
            methods=methods,
            dropout=args.dropout,
            seed=args.seed,
            workers=processes("stats", "--workers", args.workers),
            progress=lambda done: update(min(done, total), total),
        )
    finally:
        bar.close()
    if skipped:
        print(f"lbpe stats: skipped {len(skipped):,} bad document(s); the first: {skipped[0]}", file=sys.stderr)
    check_words(next(iter(stats.values())).words, args.files, skipped)
    doc = methods_json(stats, tok=tok, renyi_power=args.renyi_power, dropout=args.dropout, seed=args.seed)
    if args.json:
        out.write(json.dumps({**doc, **_skipped_json(args, skipped)}, indent=2) + "\n")
        return
    _write_methods_table(doc, out)


def _write_methods_table(doc: dict, out: TextIO) -> None:
    """The text table of ``lbpe stats --methods``: a row per method, then what the columns mean."""
    unit = "bytes" if doc["unit"] == "byte" else "chars"
    seed = "fresh draws (no --seed)" if doc["seed"] is None else f"seed {doc['seed']}"
    dropout = f"; dropout rate {doc['dropout']}, {seed}" if doc["dropout"] is not None else ""
    out.write(
        f"vocabulary {doc['vocab']} ({doc['unit']}-level); token length in {unit}; "
        f"Rényi power {doc['renyi_power']}{dropout}\n"
    )
    header = ("method", "tokens", "bytes/token", f"long ({doc['long_token']}+)", "Rényi eff.", "fertility", "as BPE")
    table = [header]
    for method, r in doc["methods"].items():
        table.append(
            (
                method,
                f"{r['tokens']:,}",
                f"{r['bytes_per_token']:.4f}",
                f"{100 * r['long_token_share']:.2f}%",
                f"{r['renyi_efficiency']:.4f}",
                f"{r['fertility']:.4f}",
                f"{100 * r['word_agreement']:.2f}%",
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        out.write("  ".join(cells).rstrip() + "\n")
    out.write(
        "\nWhat the columns mean:\n"
        f"  long ({doc['long_token']}+): share of tokens of {doc['long_token']} {unit} or more\n"
        "  Rényi eff.: Rényi entropy of the token frequencies / log2(distinct tokens used)\n"
        "  fertility: tokens per whitespace-separated word\n"
        "  as BPE: share of words the method cuts exactly as classic BPE does\n"
    )


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
    from lbpe.corpus.parallel import usable_cores
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
            bos=args.bos,
            lines=args.lines,
            text_field=args.text_field,
            shard_tokens=args.shard_tokens,
            num_proc=processes("export", "--num-proc", args.num_proc) or usable_cores(),
            resume=args.resume,
            skip_bad=args.skip_bad,
            shuffle=args.shuffle,
            seed=args.seed,
            val_fraction=args.val_fraction,
            engine=args.engine,
            address=args.address,
        )
        index = export_shards(
            tok,
            args.files,
            args.out,
            options,
            progress=progress,
            warn=warn,
            checking=bar.phase("checking the kept shards against the inputs", in_bytes=True),
        )
    except KeyboardInterrupt:  # main() says "interrupted" and this, with the shell's code for Ctrl-C
        bar.close()
        raise KeyboardInterrupt(f"{_kept(args.out)} continue with the same command and --resume") from None
    finally:
        bar.close()
    skipped = f"; skipped {index['skipped_documents']:,} bad document(s)" if index["skipped_documents"] else ""
    val = (
        f"; val: {len(index['val_shards'])} shard(s), {_documents(index['val_documents'])}, {index['val_tokens']:,} ids"
        if index["val_shards"]
        else ""
    )
    print(
        f"wrote {args.out} ({index['container']}): {len(index['shards'])} shard(s), {_documents(index['documents'])}, "
        f"{index['tokens']:,} ids as {index['dtype']}{val}{skipped}",
        file=sys.stderr,
    )


def _documents(n: int) -> str:
    return f"{n:,} document{'' if n == 1 else 's'}"


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
