"""The ``lbpe`` command line.

    lbpe encode --vocab PATH [--pattern NAME] --mode {bpe,lbpe} [FILE|-]
    lbpe compare --vocab PATH [--pattern NAME] [FILE|-]
    lbpe train --vocab-size N --unit {char,byte} [--scaffold] [--pattern NAME] -o tokenizer.json FILE...

Errors in the input (a bad vocabulary, undecodable text) print one line to stderr and exit 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from lbpe.errors import LbpeError
from lbpe.load import load
from lbpe.tokenizer import MODES, Tokenizer

__all__ = ["main"]


def _read_text(name: str) -> str:
    if name == "-":
        data = sys.stdin.buffer.read()
        source = "standard input"
    else:
        try:
            with open(name, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise LbpeError(f"{name}: cannot be read ({exc.strerror})") from None
        source = name
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LbpeError(
            f"{source}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "convert it to UTF-8 first (e.g. iconv -t UTF-8)"
        ) from None


def _tokenizer(args: argparse.Namespace) -> Tokenizer:
    return load(args.vocab, pattern=args.pattern)


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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lbpe", description="Classic BPE and long-token-first BPE (LBPE).")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--vocab", required=True, help="vocabulary file or folder (.tiktoken, encoder.json/vocab.bpe)")
        p.add_argument("--pattern", default=None, help="pre-tokenizer preset (default: inferred from the vocabulary)")
        p.add_argument("file", nargs="?", default="-", help="UTF-8 text file, or - for standard input (default)")

    p = sub.add_parser("encode", help="print token ids separated by spaces")
    common(p)
    p.add_argument("--mode", required=True, choices=MODES, help="bpe (classic) or lbpe (long-token-first)")
    p.set_defaults(run=_cmd_encode)

    p = sub.add_parser("compare", help="print the BPE and LBPE segmentations and their token counts")
    common(p)
    p.set_defaults(run=_cmd_compare)

    _add_train(sub)
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
