"""``lbpe encode``, ``lbpe compare`` and ``lbpe explain``: one text's tokens (by any method), both
modes side by side, and why they differ."""

from __future__ import annotations

import argparse
import os
import unicodedata
from typing import Literal, TextIO

from lbpe.analysis.trace import SHOWN
from lbpe.cli.inputs import read_text, tokenizer
from lbpe.errors import LbpeError

__all__ = ["cmd_compare", "cmd_encode", "cmd_explain"]


def cmd_encode(args: argparse.Namespace, out: TextIO) -> None:
    if args.mode == "dropout" and args.dropout is None:
        raise LbpeError("--mode dropout needs --dropout RATE, the chance to skip each merge (e.g. --dropout 0.1)")
    if args.mode != "dropout" and (args.dropout is not None or args.seed is not None):
        raise LbpeError(f"--dropout and --seed only apply to --mode dropout, not --mode {args.mode}; leave them out")
    if args.dropout is not None and not 0.0 <= args.dropout <= 1.0:
        raise LbpeError(f"--dropout must be from 0 to 1 (e.g. 0.1), not {args.dropout}")
    tok = tokenizer(args)
    ids = tok.encode(
        read_text(args.file, command="encode"),
        mode=args.mode,
        allowed_special=_allowed(args),
        disallowed_special=(),
        dropout=args.dropout,
        seed=args.seed,
    )
    out.write(" ".join(map(str, ids)) + "\n")


def _allowed(args: argparse.Namespace) -> Literal["all"] | frozenset[str]:
    """--specials as encode's allowed_special: every special token's text as that token, or none."""
    return "all" if args.specials else frozenset()


def _methods(spec: str, args: argparse.Namespace):
    """--methods as a checked pair, the dropout flags checked against it in the flags' words."""
    from lbpe.analysis.methods import check_options
    from lbpe.playground.display import check_methods
    from lbpe.playground.display.model import check_pair

    methods = tuple(m.strip() for m in spec.split(","))
    check_pair(methods)  # what is wrong with the pair first, then the flags
    check_options(("dropout",) if "dropout" in methods else (), args.dropout, args.seed)
    return check_methods(methods, args.dropout, args.seed)


def cmd_compare(args: argparse.Namespace, out: TextIO) -> None:
    spec = getattr(args, "methods", "bpe,lbpe")
    methods = _methods(spec, args)
    tok = tokenizer(args)
    text = read_text(args.file, command="compare")
    counts = []
    for method in methods:
        options = {"dropout": args.dropout, "seed": args.seed} if method == "dropout" else {}
        segments = tok.segment(text, mode=method, allowed_special=_allowed(args), disallowed_special=(), **options)
        counts.append(len(segments))
        out.write(f"{method}: {len(segments)} token{'' if len(segments) == 1 else 's'}\n")
        out.write("|".join(map(_shown, segments)) + "\n")
    left, right = methods
    change = counts[1] - counts[0]
    out.write(f"{right} - {left}: {change:+d} token{'' if abs(change) == 1 else 's'}\n")


#: How ``lbpe compare`` writes the characters that would make its lines ambiguous or that a
#: terminal would act on: as explain writes them (:data:`lbpe.analysis.trace.SHOWN`), and the bar.
_ESCAPES = {**SHOWN, ord("|"): "\\|"}


def _shown(segment) -> str:
    """A token as ``lbpe compare`` writes it between bars: its text, with backslash, bar and
    control characters escaped, and the bytes of a character split across tokens as ``\\xNN``
    (80-ff)."""
    if not segment.partial:
        shown = segment.label.translate(_ESCAPES)
    else:
        text = segment.token.decode("utf-8", "surrogateescape")  # a split byte: U+DC80 to U+DCFF
        shown = "".join(
            f"\\x{ord(c) - 0xDC00:02x}" if "\udc80" <= c <= "\udcff" else c.translate(_ESCAPES) for c in text
        )
    if shown and _joins_the_one_before(shown[0]):  # it would stack on the bar before it
        shown = (
            f"\\u{ord(shown[0]):04x}{shown[1:]}" if ord(shown[0]) <= 0xFFFF else f"\\U{ord(shown[0]):08x}{shown[1:]}"
        )
    return shown


def _joins_the_one_before(char: str) -> bool:
    """Whether a terminal draws ``char`` on the character before it: a combining mark (spacing
    ones too, as U+093E), or a skin-tone modifier."""
    return unicodedata.category(char) in ("Mn", "Me", "Mc") or "\U0001f3fb" <= char <= "\U0001f3ff"


def cmd_explain(args: argparse.Namespace, out: TextIO) -> None:
    import json

    from lbpe.analysis.explain import explain
    from lbpe.analysis.pair_steps import explain_pair
    from lbpe.playground.display import DEFAULT_METHODS, explain_text, pair_text

    methods = _methods(args.methods, args)
    tok = tokenizer(args)
    if args.words:  # the bytes the shell passed, read as UTF-8 as a file's would be
        from lbpe.corpus.textio import decode

        text = decode(os.fsencode(" ".join(args.words)), "the text on the command line")
    else:
        text = read_text("-")
    if not args.words and text.endswith("\n"):  # the line end a pipe adds is not part of the span
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    if methods != DEFAULT_METHODS:  # any other pair: each method's own steps
        pair = explain_pair(tok, text, methods, dropout=args.dropout, seed=args.seed, specials=args.specials)
        if args.json:
            out.write(json.dumps(pair.to_json(), ensure_ascii=False, indent=2) + "\n")
        else:
            out.write(pair_text(pair) + "\n")
        return
    result = explain(tok, text, specials=args.specials)
    if args.json:
        out.write(json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        out.write(explain_text(result) + "\n")
