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

Errors in the input (a bad vocabulary, undecodable text) and outputs that cannot be written (a
file in the way of a folder, no permission) print one line to stderr and exit 2.
Inputs are capped by :mod:`lbpe.limits`: ``encode``/``compare`` read at most
``LBPE_MAX_TEXT_BYTES``, ``train`` at most ``LBPE_MAX_TRAIN_BYTES``, vocabularies at most
``LBPE_MAX_VOCAB_BYTES``/``LBPE_MAX_VOCAB_TOKENS`` (``stats``/``export`` stream any size).
"""

from __future__ import annotations

import errno
import io
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from lbpe.cli.parser import build_parser
from lbpe.errors import LbpeError

__all__ = ["main"]


#: What to do about the system's refusals a command meets when it writes its outputs.
_FIXES = {
    errno.EEXIST: "a file is in the way of that folder: choose another path or move the file",
    errno.ENOTDIR: "part of that path is a file, not a folder: choose another path",
    errno.EACCES: "choose a path you may write to",
    errno.EPERM: "choose a path you may write to",
    errno.EROFS: "choose a path on a writable disk",
    errno.ENOSPC: "free some space or choose another disk",
    errno.ENOENT: "check the path",
}


def _refusal(exc: OSError) -> str:
    """One line for an error of the system: the path, the reason, and what to do about it."""
    where = f"{os.fsdecode(exc.filename)}: " if exc.filename is not None else ""
    fix = _FIXES.get(exc.errno or 0)
    return f"{where}{exc.strerror or exc}" + (f" ({fix})" if fix else "")


class _ClosedOutput(io.TextIOBase):
    """Standard output when the process was started without one."""

    def write(self, text: str) -> int:
        raise LbpeError(
            "standard output is closed; give the command somewhere to write (`> out.txt`, or "
            "`> /dev/null` to keep only its files)"
        )


#: Characters written to standard output at a time: at most 4 KiB of UTF-8, what its buffer
#: holds (the file system's block size, 4 KiB on Linux's pipes and files).
_SLICE = 1024


class _StandardOutput(io.TextIOBase):
    """Standard output, whose refusals (a full disk under `> out.txt`) name it: the system's
    error for a write carries no file name."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._stream.encoding

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        try:
            # in slices the stream's buffer takes whole: one write longer than it goes to the
            # system at once, and when the reader stops part-way Python drops the rest without
            # an error (the command would end with 0, its output cut off)
            for at in range(0, len(text), _SLICE):
                self._stream.write(text[at : at + _SLICE])
            return len(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _named(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _named(exc) from None


def _named(exc: OSError) -> OSError:
    if exc.filename is None:
        exc.filename = "standard output"
    return exc


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # started with it closed (`lbpe encode ... >&-`), Python has none: a command that writes only
    # files still runs, one that writes there says so
    out = _StandardOutput(sys.stdout) if sys.stdout is not None else _ClosedOutput()
    try:
        args.run(args, out)
        out.flush()
    except BrokenPipeError:
        # the reader stopped early (`lbpe compare ... | head -1`): end quietly, as `cat` does, and
        # send what is still buffered nowhere so that the exit's own flush cannot fail
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt as exc:  # Ctrl-C: one line (a command may say what it kept) and the shell's code
        print(f"lbpe {args.command}: interrupted" + (f"; {exc}" if str(exc) else ""), file=sys.stderr)
        return 130
    except LbpeError as exc:
        print(f"lbpe {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"lbpe {args.command}: error: {_refusal(exc)}", file=sys.stderr)
        return 2
    return 0
