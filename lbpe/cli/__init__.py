"""The ``lbpe`` command line.

    lbpe encode --vocab PATH [--pattern NAME] --mode METHOD [--dropout RATE] [--seed N] [FILE|-]
                (METHOD: bpe, lbpe, longest-prefix, longest-suffix, least-tokens, dropout)
    lbpe compare --vocab PATH [--pattern NAME] [--methods LEFT,RIGHT [--dropout RATE] [--seed N]] [FILE|-]
    lbpe explain [--vocab PATH|PRESET] [--methods L,R] [--json] TEXT...  (e.g. lbpe explain --vocab gpt2 Capitals)
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

import sys
from collections.abc import Sequence

from lbpe.cli.parser import build_parser
from lbpe.errors import LbpeError

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        args.run(args, sys.stdout)
    except LbpeError as exc:
        print(f"lbpe {args.command}: error: {exc}", file=sys.stderr)
        return 2
    return 0
