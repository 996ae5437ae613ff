"""The ``lbpe`` command line.

    lbpe encode --vocab PATH [--pattern NAME] --mode {bpe,lbpe} [FILE|-]
    lbpe compare --vocab PATH [--pattern NAME] [FILE|-]
    lbpe explain [--vocab PATH|PRESET] [--json] TEXT...      (e.g. lbpe explain --vocab gpt2 Capitals)
    lbpe stats [--vocab PATH|PRESET] [--json] [--renyi-power P] [--lines] [--text-field F] [--skip-bad] INPUT...
    lbpe export [--vocab PATH|PRESET] --mode {bpe,lbpe} --out DIR [--format F] [--eos TOKEN]
                [--shuffle] [--seed N] [--val-fraction F] [--num-proc N | --engine ray [--address A]]
                [--resume] [--lines] [--text-field F] [--skip-bad] [--shard-tokens N] INPUT...
    lbpe train --vocab-size N [--style {gpt2,llama}] [--unit {char,byte}] [--scaffold] [--pattern NAME]
               [--bos|--eos|--pad|--unk TOKEN] -o DIR/tokenizer.json FILE...
    lbpe build-web --out DIR [--space [DIR]] [--root DIR]
    lbpe serve [--host HOST] [--port PORT]

Errors in the input (a bad vocabulary, undecodable text) print one line to stderr and exit 2.
Inputs are capped by :mod:`lbpe.limits`: ``encode``/``compare`` read at most
``LBPE_MAX_TEXT_BYTES``, ``train`` at most ``LBPE_MAX_TRAIN_BYTES``, vocabularies at most
``LBPE_MAX_VOCAB_BYTES``/``LBPE_MAX_VOCAB_TOKENS`` (``stats``/``export`` stream any size).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from lbpe import __version__, limits
from lbpe.analysis.metrics import RENYI_POWER
from lbpe.errors import LbpeError
from lbpe.load import load
from lbpe.native import backend
from lbpe.progress import Bar
from lbpe.tokenizer import MODES, Tokenizer

__all__ = ["main"]


_STREAM_HINT = "lbpe stats and lbpe export stream files of any size"


def _read_text(name: str) -> str:
    """The whole of a UTF-8 text file (or standard input), within the ``text_bytes`` limit."""
    limit = limits.get("text_bytes")
    if name == "-":
        data = sys.stdin.buffer.read(limit + 1) if limit else sys.stdin.buffer.read()
        source = "standard input"
    else:
        try:
            with open(name, "rb") as f:
                limits.check("text_bytes", os.fstat(f.fileno()).st_size, name, hint=_STREAM_HINT)
                data = f.read(limit + 1) if limit else f.read()
        except OSError as exc:
            raise LbpeError(f"{name}: cannot be read ({exc.strerror})") from None
        source = name
    if limit and len(data) > limit:  # standard input, a pipe or a device: no size up front
        limits.check("text_bytes", len(data), f"{source} (at least)", hint=_STREAM_HINT)
    from lbpe.corpus.textio import decode

    return decode(data, source)


def _loader(args: argparse.Namespace):
    """A picklable callable that loads the chosen vocabulary: a file or folder, a bundled
    preset name, or (no --vocab) the default preset."""
    import functools
    from pathlib import Path

    from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS, load_preset

    spec = args.vocab
    if spec is None or (spec in VOCAB_PRESETS and not Path(spec).exists()):
        if args.pattern is not None:
            raise LbpeError("--pattern applies to vocabulary files; a bundled preset has its own")
        return functools.partial(load_preset, spec or DEFAULT_PRESET)
    return functools.partial(load, spec, pattern=args.pattern)


def _tokenizer(args: argparse.Namespace) -> Tokenizer:
    return _loader(args)()


def _cmd_encode(args: argparse.Namespace, out: TextIO) -> None:
    tok = _tokenizer(args)
    ids = tok.encode(_read_text(args.file), mode=args.mode, disallowed_special=())
    out.write(" ".join(map(str, ids)) + "\n")


def _cmd_compare(args: argparse.Namespace, out: TextIO) -> None:
    tok = _tokenizer(args)
    text = _read_text(args.file)
    counts = {}
    for mode in MODES:
        segments = tok.segment(text, mode=mode, disallowed_special=())
        counts[mode] = len(segments)
        out.write(f"{mode}: {len(segments)} tokens\n")
        out.write("|".join(s.label for s in segments) + "\n")
    diff = counts["lbpe"] - counts["bpe"]
    out.write(f"lbpe - bpe: {diff:+d} tokens\n")


def _cmd_explain(args: argparse.Namespace, out: TextIO) -> None:
    import json

    from lbpe.analysis.explain import explain
    from lbpe.playground.display import explain_text

    tok = _tokenizer(args)
    text = " ".join(args.words) if args.words else _read_text("-")
    if not args.words and text.endswith("\n"):
        text = text[:-1]  # the line end a shell pipe adds is not part of the span
    result = explain(tok, text)
    if args.json:
        out.write(json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(explain_text(result) + "\n")


# ---- lbpe train ----


def _cmd_train(args: argparse.Namespace, out: TextIO) -> None:
    from pathlib import Path

    from lbpe.formats.hf_write import write_tokenizer_json, write_transformers_config
    from lbpe.playground.service import check_train_options, train_view
    from lbpe.train import TrainOptions

    llama = args.style == "llama"
    check_train_options(style=args.style, unit=args.unit, pattern=args.pattern)  # before any file is read
    given = {role: getattr(args, role) for role in ("bos", "eos", "pad", "unk") if getattr(args, role)}
    # llama: LLaMA's special tokens (at ids 0-2 whatever is given), unless other roles are named
    roles = {"bos": "<s>", "eos": "</s>", "unk": "<unk>", **given} if llama else given
    specials = list(dict.fromkeys([*args.special, *roles.values()]))  # a role's token is a special token too
    if Path(args.output).name != "tokenizer.json" and given:
        raise LbpeError(
            "--bos/--eos/--pad/--unk write tokenizer_config.json beside the output: name it "
            "tokenizer.json (e.g. -o my-tokenizer/tokenizer.json)"
        )
    options = TrainOptions(
        vocab_size=args.vocab_size,
        unit=args.unit,
        style=args.style,
        pattern=args.pattern,
        scaffold=args.scaffold,
        special_tokens=tuple(specials),
        max_chars=args.max_chars,
        character_coverage=args.character_coverage,
    )
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    bar = Bar(enabled=not args.quiet)
    try:
        trained = train_view(
            args.files,
            options=options,
            progress=bar.phase("merging "),
            read_progress=bar.phase("counting", in_bytes=True),
        )
    finally:
        bar.close()
    write_tokenizer_json(trained["vocab"], args.output)  # as trained: its style and preset
    print(f"wrote {args.output}: {trained['message']}", file=sys.stderr)
    if Path(args.output).name == "tokenizer.json":
        folder = Path(args.output).parent
        names = write_transformers_config(folder, roles)
        print(
            f"wrote {', '.join(names)} beside it: transformers.AutoTokenizer.from_pretrained({str(folder)!r})",
            file=sys.stderr,
        )


def _cmd_stats(args: argparse.Namespace, out: TextIO) -> None:
    import json

    from lbpe.playground.service import stats_view

    bar = Bar(enabled=not args.quiet)
    try:
        view = stats_view(
            _loader(args),
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


def _add_inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lines", action="store_true", help="text files: one document per line (default: per file)")
    p.add_argument(
        "--text-field", default="text", metavar="NAME", help="JSONL/Parquet: the text's field (default: text)"
    )
    p.add_argument(
        "--skip-bad",
        action="store_true",
        help="count and skip bad documents (invalid UTF-8, not JSON, no text field) instead of stopping",
    )


def _renyi_power(value: str) -> float:
    import math

    try:
        power = float(value)
    except ValueError:
        power = math.nan
    if not math.isfinite(power) or power < 0:
        raise argparse.ArgumentTypeError(f"{value!r} is not a finite number >= 0 (e.g. 2.5; 1 gives Shannon entropy)")
    return power


def _cmd_export(args: argparse.Namespace, out: TextIO) -> None:
    from lbpe.corpus.documents import input_bytes
    from lbpe.corpus.shards import ExportOptions, export_shards

    tok = _tokenizer(args)
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


def _add_train(sub) -> None:
    p = sub.add_parser("train", help="train a BPE vocabulary and write it as an HF tokenizer.json")
    p.add_argument(
        "--vocab-size", required=True, type=int, help="number of tokens (specials, 256 bytes, base units, merges)"
    )
    p.add_argument(
        "--style",
        choices=("gpt2", "llama"),
        default="gpt2",
        help="gpt2: split with a pre-tokenizer preset (default); llama: SentencePiece's way, as LLaMA "
        "(lines, \u2581 for spaces, digits alone, no token across scripts, at most 16 characters; "
        "<unk> <s> </s> at ids 0-2; LLaMA's tokenizer.json form)",
    )
    p.add_argument("--unit", choices=("char", "byte"), default="char", help="char (byte fallback; default) or byte")
    p.add_argument("--scaffold", action="store_true", help="Scaffold-BPE training (Lian et al. 2024)")
    p.add_argument("--pattern", default=None, help="pre-tokenizer preset (default: paper; not with --style llama)")
    p.add_argument("--special", action="append", default=[], metavar="TOKEN", help="a special token (repeatable)")
    for role, example in (("bos", "<s>"), ("eos", "<|endoftext|>"), ("pad", "<pad>"), ("unk", "<unk>")):
        p.add_argument(
            f"--{role}",
            default=None,
            metavar="TOKEN",
            help=f"the {role} special token (e.g. {example}), written to tokenizer_config.json for transformers",
        )
    p.add_argument("--max-chars", type=int, default=None, help="char unit: keep only the N most frequent characters")
    p.add_argument(
        "--character-coverage",
        type=float,
        default=None,
        metavar="SHARE",
        help="char unit: keep the most frequent characters that make up this share of the text's "
        "characters (SentencePiece's option; LLaMA: 0.99995; default: all)",
    )
    p.add_argument("-o", "--output", required=True, help="the tokenizer.json to write (.gz: gzip-compressed)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files")
    p.set_defaults(run=_cmd_train)


def _cmd_build_web(args: argparse.Namespace, out: TextIO) -> None:
    from pathlib import Path

    from lbpe.playground.page.site import build_site, find_root

    root = find_root(Path(args.root) if args.root else None)
    space = None if args.space is None else Path(args.space) if args.space else root / "build" / "spaces" / "static"
    # A Space folder is deployed: build it from git's index, never from uncommitted edits.
    files = build_site(Path(args.out), root=root, space=space, sources="tree" if space is None else "index")
    size = sum((Path(args.out) / f).stat().st_size for f in files)
    out.write(
        f"wrote {args.out}: {len(files)} files, {size / 1e6:.1f} MB; serve it over http "
        f"(e.g. python -m http.server -d {args.out})\n"
    )
    if space is not None:
        out.write(f"wrote the static Space folder {space} (lbpe code and static/ as staged in git's index)\n")


def _add_build_web(sub) -> None:
    p = sub.add_parser("build-web", help="assemble the offline browser page (Pyodide + lbpe) into a static folder")
    p.add_argument("--out", required=True, help="the folder to write (emptied first if it holds an earlier build)")
    p.add_argument(
        "--space",
        nargs="?",
        const="",
        default=None,
        metavar="DIR",
        help="also write a Hugging Face static Space folder (default DIR: build/spaces/static in the checkout)",
    )
    p.add_argument("--root", default=None, help="the lbpe checkout with static/ and node_modules/ (default: found)")
    p.set_defaults(run=_cmd_build_web)


def _cmd_serve(args: argparse.Namespace, out: TextIO) -> None:
    """Run the Gradio playground (:mod:`lbpe.playground.app`; needs the ``app`` extra)."""
    import importlib.util

    if importlib.util.find_spec("gradio") is None:
        raise LbpeError('the playground needs Gradio: python -m pip install "lbpe[app]"')
    from lbpe.playground import app  # imports gradio; `import lbpe` itself never does

    argv = (["--host", args.host] if args.host else []) + (["--port", str(args.port)] if args.port else [])
    app.main(argv)


def _add_serve(sub) -> None:
    p = sub.add_parser("serve", help="run the Gradio playground (needs the [app] extra)")
    p.add_argument("--host", default=None, help="address to listen on (default: $GRADIO_SERVER_NAME or 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default: $GRADIO_SERVER_PORT or 7860)")
    p.set_defaults(run=_cmd_serve)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lbpe", description="Classic BPE and long-token-first BPE (LBPE).")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, *, many: bool = False) -> None:
        p.add_argument(
            "--vocab",
            default=None,
            help="vocabulary file or folder (.tiktoken, encoder.json + vocab.bpe, tokenizer.json, SentencePiece "
            ".model, optionally .gz) or a bundled preset: mistral-7b (default), lbpe-llama-32k, lbpe-32k, gpt2, "
            "cl100k_base, o200k_base",
        )
        p.add_argument("--pattern", default=None, help="pre-tokenizer preset (default: inferred from the vocabulary)")
        if many:
            p.add_argument(
                "files",
                nargs="+",
                metavar="INPUT",
                help="UTF-8 text files (.txt; one document each, or per line with --lines), "
                ".jsonl/.ndjson (optionally .gz) or .parquet",
            )
        else:
            p.add_argument("file", nargs="?", default="-", help="UTF-8 text file, or - for standard input (default)")

    p = sub.add_parser("encode", help="print token ids separated by spaces")
    common(p)
    p.add_argument("--mode", required=True, choices=MODES, help="bpe (classic) or lbpe (long-token-first)")
    p.set_defaults(run=_cmd_encode)

    p = sub.add_parser("compare", help="print the BPE and LBPE segmentations and their token counts")
    common(p)
    p.set_defaults(run=_cmd_compare)

    p = sub.add_parser(
        "explain", help="both encodings of a word or short span worked step by step, and why they differ"
    )
    p.add_argument(
        "words",
        nargs="*",
        metavar="TEXT",
        help="the word or span (several arguments are joined by one space; none: read standard input); "
        "quote a leading space: ' Capitals'",
    )
    p.add_argument("--vocab", default=None, help="vocabulary file or folder, or a bundled preset (default mistral-7b)")
    p.add_argument("--pattern", default=None, help="pre-tokenizer preset (default: inferred from the vocabulary)")
    p.add_argument(
        "--json", action="store_true", help="print the steps as JSON (schema: lbpe.analysis.explain.Explanation)"
    )
    p.set_defaults(run=_cmd_explain)

    _add_train(sub)
    _add_build_web(sub)
    _add_serve(sub)

    p = sub.add_parser("stats", help="corpus statistics for BPE and LBPE (token lengths, compression)")
    common(p, many=True)
    _add_inputs(p)
    p.add_argument("--json", action="store_true", help="print the JSON document (schema: lbpe.analysis.comparison)")
    p.add_argument(
        "--renyi-power",
        type=_renyi_power,
        default=RENYI_POWER,
        metavar="P",
        help=f"power of the Rényi entropy and efficiency (default {RENYI_POWER}, as Zouhar et al. 2023)",
    )
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_stats)

    p = sub.add_parser("export", help="token ids of a corpus as shards a trainer reads (npy, nanoGPT, llm.c, ...)")
    common(p, many=True)
    _add_inputs(p)
    p.add_argument("--mode", required=True, choices=MODES, help="bpe (classic) or lbpe (long-token-first)")
    p.add_argument("--out", required=True, help="the folder for the shards and lbpe-index.json")
    p.add_argument(
        "--format",
        choices=("npy", "nanogpt", "llmc", "megatron", "datatrove", "litdata"),
        default="npy",
        help="npy (default: tokens-*.npy + offsets-*.npy), nanogpt (train.bin/val.bin), llmc (llm.c .bin), "
        "megatron (.bin + .idx), datatrove (.ds + .ds.index), litdata (StreamingDataset chunks)",
    )
    p.add_argument(
        "--eos",
        default=None,
        metavar="TOKEN",
        help="the end-of-text token, by spelling (e.g. '<|endoftext|>', '</s>') or id, once per document "
        "(before each for llmc, as llm.c does; after each for the others)",
    )
    p.add_argument("--shuffle", action="store_true", help="documents of each shard in a random order (see --seed)")
    p.add_argument("--seed", type=int, default=0, help="seed of --shuffle and --val-fraction (default 0)")
    p.add_argument(
        "--val-fraction",
        type=float,
        default=0.0,
        metavar="F",
        help="hold out about this share of the documents as a validation split (e.g. 0.005; chosen by --seed)",
    )
    p.add_argument(
        "--shard-tokens",
        type=int,
        default=100_000_000,
        metavar="N",
        help="start a new shard after N ids (at a document end; default 100,000,000)",
    )
    p.add_argument("--num-proc", type=int, default=None, metavar="N", help="processes (default: all cores)")
    p.add_argument("--resume", action="store_true", help="continue an export in --out after its complete shards")
    p.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local processes (default) or Ray Data (the lbpe[ray] extra), on this machine or a cluster",
    )
    p.add_argument(
        "--address",
        default=None,
        help="with --engine ray: the cluster (e.g. ray://head:10001; default: $RAY_ADDRESS, or a local instance)",
    )
    p.add_argument("--separator-id", type=int, default=None, help="deprecated: use --eos ID")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_export)
    return parser


def _version() -> str:
    """What ``lbpe --version`` prints: the version, the encoding path in use, the Python."""
    return f"lbpe {__version__} ({backend().name} path, Python {sys.version.split()[0]})"


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        args.run(args, sys.stdout)
    except LbpeError as exc:
        print(f"lbpe {args.command}: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
