"""What the commands read: a text file or standard input within its limit, and the chosen vocabulary."""

from __future__ import annotations

import argparse
import os
import sys

from lbpe import limits
from lbpe.errors import LbpeError
from lbpe.load import load
from lbpe.tokenizer import Tokenizer

__all__ = ["STREAM_HINT", "loader", "read_text", "tokenizer"]


STREAM_HINT = "lbpe stats and lbpe export stream files of any size"


def read_text(name: str, *, command: str = "encode") -> str:
    """The whole of a UTF-8 text file (or standard input), within the ``text_bytes`` limit.
    ``command`` (``"encode"``) is named in the hint for a text given where its file goes."""
    limit = limits.get("text_bytes")
    if name == "-":
        data = sys.stdin.buffer.read(limit + 1) if limit else sys.stdin.buffer.read()
        source = "standard input"
    else:
        try:
            with open(name, "rb") as f:
                limits.check("text_bytes", os.fstat(f.fileno()).st_size, name, hint=STREAM_HINT)
                data = f.read(limit + 1) if limit else f.read()
        except FileNotFoundError:
            shown = name if len(name) <= 40 else name[:40] + "…"
            raise LbpeError(
                f"{shown}: no such file; lbpe {command} reads a file (or - for standard input): to give it a text "
                f"itself, pipe it in, e.g. echo 'hello world' | lbpe {command} ..."
            ) from None
        except OSError as exc:
            raise LbpeError(f"{name}: cannot be read ({exc.strerror})") from None
        source = name
    if limit and len(data) > limit:  # standard input, a pipe or a device: no size up front
        limits.check("text_bytes", len(data), source, hint=STREAM_HINT, at_least=True)
    from lbpe.corpus.textio import decode_file

    return decode_file(data, source)


def loader(args: argparse.Namespace):
    """A picklable callable that loads the chosen vocabulary: a file or folder, a bundled
    preset name, or (no --vocab) the default preset."""
    import functools
    from pathlib import Path

    from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS, load_preset

    spec = args.vocab
    given: list[tuple[str, int]] = getattr(args, "special_tokens", None) or []  # from --special-token
    special = dict(given) if given else None
    if special is not None and len(special) < len(given):
        twice = sorted({t for t, _ in given if [u for u, _ in given].count(t) > 1})
        raise LbpeError(f"--special-token gives {', '.join(map(repr, twice))} more than once: give each once")
    if spec is None or (spec in VOCAB_PRESETS and not Path(spec).exists()):
        if args.pattern is not None:
            raise LbpeError("--pattern applies to vocabulary files; a bundled preset has its own")
        if special is not None:
            raise LbpeError(
                "--special-token applies to rank files (.tiktoken); a bundled preset has its own special tokens"
            )
        return functools.partial(load_preset, spec or DEFAULT_PRESET)
    if not Path(spec).exists():
        raise LbpeError(unknown_vocab(spec))
    return functools.partial(load, spec, pattern=args.pattern, special_tokens=special)


#: tiktoken's encodings that are not bundled here, and what to give instead.
_NOT_BUNDLED = {
    "r50k_base": "r50k_base is GPT-2's vocabulary: --vocab gpt2",
    "p50k_base": "give p50k_base's rank file, p50k_base.tiktoken",
    "p50k_edit": "give p50k_edit's rank file, p50k_edit.tiktoken",
}


def unknown_vocab(spec: str) -> str:
    """What to say of a --vocab that is no file, no folder and no bundled vocabulary."""
    from lbpe.presets import VOCAB_PRESETS

    instead = f"; {_NOT_BUNDLED[spec]}" if spec in _NOT_BUNDLED else ""
    return f"{spec}: no such file or folder, nor a bundled vocabulary ({', '.join(VOCAB_PRESETS)}){instead}"


def tokenizer(args: argparse.Namespace) -> Tokenizer:
    return loader(args)()


def processes(command: str, flag: str, asked: int | None) -> int | None:
    """The process count a command was given, with a note on standard error when it is more than
    the usable cores, which is all a pool starts (:func:`lbpe.corpus.parallel.pool_size`)."""
    from lbpe.corpus.parallel import usable_cores

    cores = usable_cores()
    if asked is not None and asked > cores:
        print(
            f"lbpe {command}: {flag} {asked}: this machine has {cores} usable core{'s' if cores > 1 else ''}; "
            f"starting {cores} process{'es' if cores > 1 else ''}",
            file=sys.stderr,
        )
    return asked
