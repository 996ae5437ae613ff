"""The ``lbpe`` command line.

    lbpe encode --vocab PATH [--pattern NAME] --mode {bpe,lbpe} [FILE|-]
    lbpe compare --vocab PATH [--pattern NAME] [FILE|-]

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
