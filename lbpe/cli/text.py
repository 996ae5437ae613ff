"""``lbpe encode``, ``lbpe compare`` and ``lbpe explain``: one text's tokens (by any method), both
modes side by side, and why they differ."""

from __future__ import annotations

import argparse
from typing import TextIO

from lbpe.cli.inputs import read_text, tokenizer
from lbpe.errors import LbpeError
from lbpe.tokenizer import MODES

__all__ = ["cmd_compare", "cmd_encode", "cmd_explain"]


def cmd_encode(args: argparse.Namespace, out: TextIO) -> None:
    if args.mode == "dropout" and args.dropout is None:
        raise LbpeError("--mode dropout needs --dropout RATE, the chance to skip each merge (e.g. --dropout 0.1)")
    if args.mode != "dropout" and (args.dropout is not None or args.seed is not None):
        raise LbpeError(f"--dropout and --seed only apply to --mode dropout, not --mode {args.mode}; leave them out")
    if args.dropout is not None and not 0.0 <= args.dropout <= 1.0:
        raise LbpeError(f"--dropout must be from 0 to 1 (e.g. 0.1), not {args.dropout}")
    tok = tokenizer(args)
    ids = tok.encode(read_text(args.file), mode=args.mode, disallowed_special=(), dropout=args.dropout, seed=args.seed)
    out.write(" ".join(map(str, ids)) + "\n")


def cmd_compare(args: argparse.Namespace, out: TextIO) -> None:
    tok = tokenizer(args)
    text = read_text(args.file)
    counts = {}
    for mode in MODES:
        segments = tok.segment(text, mode=mode, disallowed_special=())
        counts[mode] = len(segments)
        out.write(f"{mode}: {len(segments)} tokens\n")
        out.write("|".join(s.label for s in segments) + "\n")
    diff = counts["lbpe"] - counts["bpe"]
    out.write(f"lbpe - bpe: {diff:+d} tokens\n")


def cmd_explain(args: argparse.Namespace, out: TextIO) -> None:
    import json

    from lbpe.analysis.explain import explain
    from lbpe.playground.display import explain_text

    tok = tokenizer(args)
    text = " ".join(args.words) if args.words else read_text("-")
    if not args.words and text.endswith("\n"):
        text = text[:-1]  # the line end a shell pipe adds is not part of the span
    result = explain(tok, text)
    if args.json:
        out.write(json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(explain_text(result) + "\n")
