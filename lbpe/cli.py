"""The ``lbpe`` command line.

    lbpe encode --vocab PATH [--pattern NAME] --mode {bpe,lbpe} [FILE|-]
    lbpe compare --vocab PATH [--pattern NAME] [FILE|-]
    lbpe stats [--vocab PATH|PRESET] [--json] [--renyi-power P] FILE...
    lbpe export [--vocab PATH|PRESET] --mode {bpe,lbpe} -o OUT.npy FILE...
    lbpe train --vocab-size N --unit {char,byte} [--scaffold] [--pattern NAME] -o tokenizer.json FILE...
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

from lbpe import limits
from lbpe.errors import LbpeError
from lbpe.load import load
from lbpe.metrics import RENYI_POWER
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
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LbpeError(
            f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "convert it to UTF-8 first (e.g. iconv -t UTF-8)"
        ) from None


def _loader(args: argparse.Namespace):
    """A picklable callable that loads the chosen vocabulary: a file or folder, a bundled
    preset name, or (no --vocab) the default preset."""
    import functools
    from pathlib import Path

    from lbpe.presets import DEFAULT_PRESET, PRESETS, load_preset

    spec = args.vocab
    if spec is None or (spec in PRESETS and not Path(spec).exists()):
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

# ---- lbpe train ----


class _ProgressBar:
    """A one-line progress bar on stderr, redrawn at most ten times a second."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.label, self.in_bytes = "", False
        self.last = 0.0
        self.shown = False

    def phase(self, label: str, *, in_bytes: bool = False):
        """The callback ``(done, total)`` for one phase; it ends the previous phase's line."""

        def update(done: int, total: int) -> None:
            if (label, in_bytes) != (self.label, self.in_bytes):
                self.close()
                self.label, self.in_bytes, self.last = label, in_bytes, 0.0
            self.draw(done, total)

        return update

    def draw(self, done: int, total: int) -> None:
        import time

        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.1 and done < total):
            return
        self.last = now
        frac = min(done / total, 1.0) if total else 1.0
        amount = f"{done / 1e6:.1f}/{total / 1e6:.1f} MB" if self.in_bytes else f"{done}/{total}"
        sys.stderr.write(f"\r{self.label} [{'#' * int(24 * frac):<24}] {100 * frac:5.1f}% {amount}")
        sys.stderr.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.shown = False


def _cmd_train(args: argparse.Namespace, out: TextIO) -> None:
    from pathlib import Path

    from lbpe.formats.hf_write import hf_regex, write_tokenizer_json
    from lbpe.train import train

    hf_regex(args.pattern)  # an unknown preset fails before the corpus is read
    total = _total_chars(args.files)
    limits.check("train_bytes", total, f"the training corpus ({len(args.files)} file(s))")
    bar = _ProgressBar(enabled=not args.quiet)
    try:
        vocab = train(
            [Path(f) for f in args.files],
            vocab_size=args.vocab_size,
            unit=args.unit,
            pattern=args.pattern,
            scaffold=args.scaffold,
            special_tokens=args.special,
            max_chars=args.max_chars,
            progress=bar.phase("merging "),
            read_progress=bar.phase("counting", in_bytes=True),
        )
    finally:
        bar.close()
    write_tokenizer_json(vocab, args.output, pattern=args.pattern)
    extra = f" + {len(vocab.scaffold)} scaffold tokens" if vocab.scaffold else ""
    print(f"wrote {args.output}: {len(vocab) - len(vocab.scaffold)} tokens{extra}", file=sys.stderr)


def _total_chars(files: Sequence[str]) -> int:
    import os

    total = 0
    for f in files:
        try:
            total += os.path.getsize(f)
        except OSError as exc:
            raise LbpeError(f"{f}: cannot be read ({exc.strerror})") from None
    return total


def _cmd_stats(args: argparse.Namespace, out: TextIO) -> None:
    import json

    from lbpe.corpus import align_chunks, parallel_stats, read_chunks
    from lbpe.stats import compare_json

    loader = _loader(args)
    tok = loader()  # fail early on a bad vocabulary
    total = _total_chars(args.files)
    bar = _ProgressBar(enabled=not args.quiet)
    update = bar.phase("encoding", in_bytes=True)
    try:
        chunks = (c for f in args.files for c in align_chunks(tok, read_chunks([f])))
        stats = parallel_stats(loader, chunks, workers=args.workers,
                               progress=lambda done: update(min(done, total), total))
    finally:
        bar.close()
    doc = compare_json(stats, vocab=tok.name, unit=tok.vocab.unit, tok=tok, renyi_power=args.renyi_power)
    if args.json:
        out.write(json.dumps(doc, indent=2) + "\n")
        return
    _write_stats_table(doc, out)


def _write_stats_table(doc: dict, out: TextIO) -> None:
    """The text table of ``lbpe stats``: the rows the app's Corpus view shows, then one line per
    metric on what it means."""
    from lbpe.display import summary_rows

    rows = summary_rows(doc)
    unit = "bytes" if doc["unit"] == "byte" else "chars"
    out.write(f"vocabulary {doc['vocab']} ({doc['unit']}-level); token length in {unit}; "
              f"Rényi power {doc['bpe'].get('renyi_power', '')}\n")
    table = [("", "bpe", "lbpe", "change", "paper predicts")] + [(r.label, r.bpe, r.lbpe, r.change, r.paper) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    for row in table:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:4], widths[1:4])] + [row[4]]
        out.write("  ".join(cells).rstrip() + "\n")
    out.write("\nWhat the rows mean (paper predicts: the way the paper expects LBPE to move it; "
              "\u2713 where it did here):\n")
    seen = set()
    for r in rows:
        if r.meaning not in seen:
            seen.add(r.meaning)
            label = {"frequency": "occurrences per token, length L", "length": "length L"}.get(r.key.split()[0], r.label)
            out.write(f"  {label}: {r.meaning}\n")


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
    from lbpe.corpus import export_ids

    tok = _tokenizer(args)
    total = _total_chars(args.files)
    bar = _ProgressBar(enabled=not args.quiet)
    update = bar.phase("encoding", in_bytes=True)
    try:
        sidecar = export_ids(tok, args.files, args.output, mode=args.mode, separator=args.separator_id,
                             progress=lambda done: update(min(done, total), total))
    finally:
        bar.close()
    print(f"wrote {args.output}: {sidecar['tokens']} ids as {sidecar['dtype']}", file=sys.stderr)


def _add_train(sub) -> None:
    p = sub.add_parser("train", help="train a BPE vocabulary and write it as an HF tokenizer.json")
    p.add_argument("--vocab-size", required=True, type=int, help="number of tokens (specials, 256 bytes, base units, merges)")
    p.add_argument("--unit", choices=("char", "byte"), default="char", help="char (byte fallback; default) or byte")
    p.add_argument("--scaffold", action="store_true", help="Scaffold-BPE training (Lian et al. 2024)")
    p.add_argument("--pattern", default="paper", help="pre-tokenizer preset (default: paper)")
    p.add_argument("--special", action="append", default=[], metavar="TOKEN", help="a special token (repeatable)")
    p.add_argument("--max-chars", type=int, default=None, help="char unit: keep only the N most frequent characters")
    p.add_argument("-o", "--output", required=True, help="the tokenizer.json to write (.gz: gzip-compressed)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files")
    p.set_defaults(run=_cmd_train)


def _cmd_build_web(args: argparse.Namespace, out: TextIO) -> None:
    from pathlib import Path

    from lbpe.web import build_site, find_root

    root = find_root(Path(args.root) if args.root else None)
    space = None if args.space is None else Path(args.space) if args.space else root / "spaces" / "static"
    # The Space folder is committed: build it from git's index, never from uncommitted edits.
    files = build_site(Path(args.out), root=root, space=space, sources="tree" if space is None else "index")
    size = sum((Path(args.out) / f).stat().st_size for f in files)
    out.write(f"wrote {args.out}: {len(files)} files, {size / 1e6:.1f} MB; serve it over http "
              f"(e.g. python -m http.server -d {args.out})\n")
    if space is not None:
        out.write(f"wrote the static Space folder {space} (lbpe code and static/ as staged in git's index)\n")


def _add_build_web(sub) -> None:
    p = sub.add_parser("build-web", help="assemble the offline browser page (Pyodide + lbpe) into a static folder")
    p.add_argument("--out", required=True, help="the folder to write (emptied first if it holds an earlier build)")
    p.add_argument("--space", nargs="?", const="", default=None, metavar="DIR",
                   help="also write a Hugging Face static Space folder (default DIR: spaces/static in the checkout)")
    p.add_argument("--root", default=None, help="the lbpe checkout with static/ and node_modules/ (default: found)")
    p.set_defaults(run=_cmd_build_web)


def _cmd_serve(args: argparse.Namespace, out: TextIO) -> None:
    """Run the Gradio playground: app.py beside the package (a checkout or the Space folder)."""
    import importlib.util
    from pathlib import Path

    app_file = Path(__file__).resolve().parent.parent / "app.py"
    if not app_file.is_file():
        raise LbpeError(f"{app_file} not found: `lbpe serve` runs the app.py of an lbpe checkout")
    if importlib.util.find_spec("gradio") is None:
        raise LbpeError('the playground needs Gradio: python -m pip install -e ".[app]"')
    spec = importlib.util.spec_from_file_location("lbpe_app", app_file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses in app.py look their module up there
    spec.loader.exec_module(module)  # imports gradio; `import lbpe` itself never does
    argv = (["--host", args.host] if args.host else []) + (["--port", str(args.port)] if args.port else [])
    module.main(argv)


def _add_serve(sub) -> None:
    p = sub.add_parser("serve", help="run the Gradio playground (needs the [app] extra)")
    p.add_argument("--host", default=None, help="address to listen on (default: $GRADIO_SERVER_NAME or 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default: $GRADIO_SERVER_PORT or 7860)")
    p.set_defaults(run=_cmd_serve)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lbpe", description="Classic BPE and long-token-first BPE (LBPE).")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, *, many: bool = False) -> None:
        p.add_argument(
            "--vocab",
            default=None,
            help="vocabulary file or folder (.tiktoken, encoder.json + vocab.bpe, tokenizer.json, SentencePiece "
            ".model, optionally .gz) or a bundled preset: lbpe-32k (default), gpt2, cl100k_base, o200k_base",
        )
        p.add_argument("--pattern", default=None, help="pre-tokenizer preset (default: inferred from the vocabulary)")
        if many:
            p.add_argument("files", nargs="+", metavar="FILE", help="UTF-8 text files")
        else:
            p.add_argument("file", nargs="?", default="-", help="UTF-8 text file, or - for standard input (default)")

    p = sub.add_parser("encode", help="print token ids separated by spaces")
    common(p)
    p.add_argument("--mode", required=True, choices=MODES, help="bpe (classic) or lbpe (long-token-first)")
    p.set_defaults(run=_cmd_encode)

    p = sub.add_parser("compare", help="print the BPE and LBPE segmentations and their token counts")
    common(p)
    p.set_defaults(run=_cmd_compare)

    _add_train(sub)
    _add_build_web(sub)
    _add_serve(sub)

    p = sub.add_parser("stats", help="corpus statistics for BPE and LBPE (token lengths, compression)")
    common(p, many=True)
    p.add_argument("--json", action="store_true", help="print the JSON document (schema: lbpe.stats)")
    p.add_argument("--renyi-power", type=_renyi_power, default=RENYI_POWER, metavar="P",
                   help=f"power of the Rényi entropy and efficiency (default {RENYI_POWER}, as Zouhar et al. 2023)")
    p.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_stats)

    p = sub.add_parser("export", help="token ids of a corpus as a .npy array (+ JSON sidecar)")
    common(p, many=True)
    p.add_argument("--mode", required=True, choices=MODES, help="bpe (classic) or lbpe (long-token-first)")
    p.add_argument("-o", "--output", required=True, help="the .npy file to write (sidecar: OUTPUT.json)")
    p.add_argument("--separator-id", type=int, default=None, help="an id written after each file (e.g. end of text)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_cmd_export)
    return parser


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
