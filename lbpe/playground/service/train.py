"""The Train view and ``lbpe train``: a vocabulary trained on text files, within a server's time limit."""

from __future__ import annotations

import gzip
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from lbpe import limits as _limits
from lbpe.errors import LbpeError
from lbpe.limits import Limits
from lbpe.vocab import Vocab

if TYPE_CHECKING:
    from lbpe.train import TrainOptions

__all__ = ["TrainTimeError", "TrainView", "check_train_options", "scaffold_note", "train_view"]


class TrainView(TypedDict):
    vocab: Vocab
    tokens: int  # normal tokens made
    scaffold: int  # scaffold tokens
    bytes: int  # the corpus size
    message: str


def check_train_options(*, style: str, unit: str, pattern: str | None) -> None:
    """Refuse a combination :func:`lbpe.train` cannot train, before a corpus is read: the
    llama style has no regex pre-tokenizer and trains characters; a gpt2-style ``pattern`` must
    be a preset lbpe can write."""
    from lbpe.formats.hf_write import hf_regex

    if style not in ("gpt2", "llama"):
        raise LbpeError(f"style must be 'gpt2' or 'llama', not {style!r}")
    if unit not in ("char", "byte"):
        raise LbpeError(f"unit must be 'char' or 'byte', not {unit!r}")
    if style == "llama":
        if pattern is not None:
            raise LbpeError(
                "the llama style has no regex pre-tokenizer: leave out the pattern (CLI: leave out --pattern)"
            )
        if unit != "char":
            raise LbpeError(
                "the llama style trains characters with byte fallback: choose char units (CLI: leave out --unit byte)"
            )
    else:
        hf_regex(pattern or "paper")  # an unknown preset fails before the corpus is read


def train_view(
    sources: Sequence[str | os.PathLike[str]],
    *,
    options: TrainOptions | None = None,
    vocab_size: int | None = None,
    style: str | None = None,
    unit: str | None = None,
    pattern: str | None = None,
    scaffold: bool | None = None,
    special_tokens: Sequence[str] | None = None,
    max_chars: int | None = None,
    character_coverage: float | None = None,
    limits: Limits | None = None,
    max_vocab: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    read_progress: Callable[[int, int], None] | None = None,
    seconds: float | None = None,
    text_field: str = "text",
) -> TrainView:
    """Train a vocabulary on UTF-8 text files and write it as a ``tokenizer.json``: the Train
    view of the app and ``lbpe train``.

    The training options come as one ``options`` (:class:`lbpe.train.TrainOptions`) or as
    keywords, as :func:`lbpe.train` takes them. They are checked first
    (:func:`check_train_options`, then the library's checks; ``vocab_size`` within
    ``max_vocab`` when given), then the files' total size against ``train_bytes`` (of
    ``limits``, else the environment's), before any text is read. ``progress`` and
    ``read_progress`` are :func:`lbpe.train`'s. ``seconds``: the time the training may take (a
    server's budget; ``None``: no limit, as ``lbpe train``); past it, at the next step of the
    counting or the merging, :class:`TrainTimeError` says how far it got and what to do.
    ``text_field``: the text's field in ``.jsonl`` and ``.parquet`` files (:func:`lbpe.train`).

    Returns ``{"vocab": the Vocab, "tokens": normal tokens made, "scaffold": scaffold tokens,
    "bytes": the corpus size, "message"}``; :func:`lbpe.formats.hf_write.write_tokenizer_json`
    writes the vocabulary in the style and with the preset it was trained with.
    """
    from lbpe.train import train
    from lbpe.train.options import train_options

    if not sources:
        raise LbpeError("Choose one or more UTF-8 text files to train on.")
    if options is None:  # in this view's words, before the library's checks
        check_train_options(style=style or "gpt2", unit=unit or "char", pattern=pattern)
    keywords = {
        "vocab_size": vocab_size,
        "style": style,
        "unit": unit,
        "pattern": pattern,
        "scaffold": scaffold,
        "special_tokens": special_tokens,
        "max_chars": max_chars,
        "character_coverage": character_coverage,
    }
    options = train_options(options, keywords, where="train_view")
    if options.pattern is not None and not isinstance(options.pattern, str):
        raise LbpeError("a tokenizer.json names its pre-tokenizer: give the pattern as a preset name, not a regex")
    check_train_options(style=options.style, unit=options.unit, pattern=options.pattern)
    vocab_size = options.vocab_size
    if max_vocab is not None and not 1 <= vocab_size <= max_vocab:
        raise LbpeError(
            f"The vocabulary size must be between 1 and {max_vocab:,} "
            "(set LBPE_APP_MAX_TRAIN_VOCAB to change the maximum)."
        )
    paths = [Path(s) for s in sources]
    with _limits.using(limits):
        most = _limits.get("train_bytes")
        total, whole = _text_bytes(paths, most)
        _limits.check("train_bytes", total, f"the training corpus ({len(paths)} file(s))", at_least=not whole)
    if seconds is not None:
        flags = [
            f"--vocab-size {vocab_size}",
            "--style llama" if options.style == "llama" else "",
            "--unit byte" if options.unit == "byte" else "",
        ]
        flags.append("--scaffold" if options.scaffold else "")
        command = "lbpe train " + " ".join(f for f in flags if f) + " -o tokenizer.json FILE"
        progress, read_progress = _timed(seconds, command, progress, read_progress)
    vocab: Vocab = train(paths, options=options, progress=progress, read_progress=read_progress, text_field=text_field)
    made = len(vocab) - len(vocab.scaffold)
    extra = f" + {len(vocab.scaffold):,} scaffold tokens" if vocab.scaffold else ""
    short = (
        f" (fewer than the {vocab_size:,} asked: the corpus has no pair left that may be merged)"
        if made < vocab_size
        else ""
    )
    from lbpe.corpus.documents import input_kind

    # JSON lines and Parquet are counted with their framing: on disk, or once unpacked for .gz
    framed = any(input_kind(p) != "text" for p in paths)
    packed = any(p.name.lower().endswith(".gz") for p in paths)
    counted = (
        "of text"
        if not framed
        else "of files (JSON lines and Parquet with their framing, .gz files unpacked)"
        if packed
        else "of files as stored (JSON lines and Parquet with their framing)"
    )
    return {
        "vocab": vocab,
        "tokens": made,
        "scaffold": len(vocab.scaffold),
        "bytes": total,
        "message": f"{made:,} tokens{extra} from {total:,} bytes {counted}{short}",
    }


def scaffold_note(vocab: Vocab, *, option: str = "Scaffold-BPE") -> str:
    """What readers that know nothing of Scaffold-BPE do with a trained file's scaffold tokens
    (empty without them): the ids lbpe's own readers never emit. ``option``: what the person
    turned on to get them (the command line's ``--scaffold``, the app's box)."""
    scaffold = sorted(vocab.scaffold or ())
    if not scaffold:
        return ""
    return (
        f"Hugging Face tokenizers and transformers read its {len(scaffold):,} scaffold tokens (ids {scaffold[0]} "
        f"to {scaffold[-1]}) as ordinary ones and emit them where lbpe's BPE splits them back; lbpe.load() of "
        f"the file and lbpe.hf.LBPETokenizer of its folder encode as trained (train without {option} for a "
        "file they encode alike)"
    )


def _text_bytes(paths: Sequence[Path], most: int | None) -> tuple[int, bool]:
    """The bytes of text the files hold (a ``.gz`` file's once unpacked, read only as far as
    needed to pass ``most``), and whether that is all of it."""
    from lbpe.corpus.documents import GZIP_ERRORS, input_bytes

    total = 0
    for path in paths:
        if not path.name.lower().endswith(".gz"):
            total += input_bytes([path])
            continue
        try:
            with gzip.open(path, "rb") as f:
                while block := f.read(1 << 20):
                    total += len(block)
                    if most and total > most:
                        return total, False
        except GZIP_ERRORS as exc:
            raise LbpeError(f"{path}: cannot be read ({exc})") from None
    return total, True


class TrainTimeError(LbpeError):
    """A training ran past the time a server gives one (:func:`train_view`'s ``seconds``)."""

    def __init__(self, seconds: float, command: str, where: str) -> None:
        self.seconds = seconds
        super().__init__(
            f"Training stopped after {seconds:g} s, the most this server gives one training ({where}); "
            "nothing was kept. Train on a smaller file or a smaller vocabulary size, or train on your own "
            f"machine, where it has no time limit: pip install lbpe, then {command}"
        )


_Progress = Callable[[int, int], None]


def _timed(
    seconds: float, command: str, progress: _Progress | None, read_progress: _Progress | None
) -> tuple[_Progress, _Progress]:
    """``progress`` and ``read_progress`` that also raise :class:`TrainTimeError` once
    ``seconds`` have passed (each passes its step on first, so a progress bar stays right)."""
    end = time.monotonic() + seconds

    def check(where: Callable[[], str]) -> None:
        if time.monotonic() > end:
            raise TrainTimeError(seconds, command, where())

    def merging(done: int, wanted: int) -> None:
        if progress is not None:
            progress(done, wanted)
        check(lambda: f"{done:,} of {wanted:,} merges were done")

    def reading(done: int, total: int) -> None:
        if read_progress is not None:
            read_progress(done, total)
        check(lambda: f"while counting the words, {done:,} of {total:,} bytes read")

    return merging, reading
