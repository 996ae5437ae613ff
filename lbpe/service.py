"""What every front end does the same way with what a person hands it (the Gradio app, the
browser page, the CLI): opening an uploaded vocabulary under one set of limits, with one kind
of error.

:func:`open_upload` takes the files a person chose (one vocabulary file, or GPT-2's
``encoder.json`` and ``vocab.bpe`` together), checks each against the ``vocab_bytes`` limit,
copies them into a private folder under their own names and opens them with
:func:`open_vocabulary`. That one reads them with :func:`lbpe.load` as data only (nothing in an
upload is executed), under a :class:`lbpe.limits.Limits` snapshot when given, and turns every
failure into an :class:`~lbpe.errors.LbpeError` whose message names the file as the person
chose it, never the folder it was written to. A rank file whose name does not tell its
pre-tokenizer raises :class:`~lbpe.errors.PatternNeededError`, so a front end can ask for one.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> (folder / "notes.txt").write_text("not a vocabulary")
16
>>> open_vocabulary(folder / "notes.txt", scratch=folder)
Traceback (most recent call last):
  ...
lbpe.errors.LbpeError: notes.txt: unrecognised vocabulary format; ...
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from lbpe import limits as _limits
from lbpe.errors import LbpeError, PatternNeededError
from lbpe.limits import Limits
from lbpe.load import detect_format, load
from lbpe.tokenizer import Tokenizer

__all__ = ["open_vocabulary", "open_upload", "AUTO_PATTERN", "GPT2_PAIR"]

#: The pattern choice that means "from the file" (what the app's and the page's menus offer first).
AUTO_PATTERN = "auto"
#: The two files GPT-2's vocabulary comes in, chosen together.
GPT2_PAIR = ("encoder.json", "vocab.bpe")


def _scrub(message: str, scratch: Path | None) -> str:
    """``message`` without the private folder a front end wrote the upload to."""
    if scratch is None:
        return message
    folder = str(scratch)
    return message.replace(folder + os.sep, "").replace(folder + "/", "").replace(folder, "the upload")


def open_vocabulary(
    target: str | os.PathLike[str],
    *,
    pattern: str | None = None,
    limits: Limits | None = None,
    scratch: str | os.PathLike[str] | None = None,
    shown: str = "",
) -> Tokenizer:
    """Read a vocabulary file (or GPT-2's folder) that came from a person.

    ``pattern``: a pre-tokenizer preset for a rank file, or ``None`` / ``""`` / ``"auto"`` for
    what the file says (ignored for ``tokenizer.json`` and SentencePiece models, which carry
    their own). ``limits``: the server's snapshot (see :func:`lbpe.load`). ``scratch``: the
    private folder the upload was written to, left out of messages; a tokenizer named after it
    takes ``shown`` (or the file's name) instead.
    """
    target = Path(target)
    folder = Path(scratch) if scratch is not None else None
    try:
        fmt, _ = detect_format(target)
        chosen = None if pattern in (None, "", AUTO_PATTERN) or fmt in ("hf", "sentencepiece") else pattern
        tok = load(target, pattern=chosen, limits=limits)
    except PatternNeededError as exc:
        raise PatternNeededError(_scrub(exc.source, folder), exc.problem) from None
    except LbpeError as exc:
        raise LbpeError(_scrub(str(exc), folder)) from None
    except RecursionError:
        raise LbpeError(f"{shown or target.name}: nested too deeply to be a vocabulary") from None
    except (ValueError, KeyError, IndexError, TypeError, MemoryError, OverflowError) as exc:
        message = f"{shown or target.name}: not a vocabulary lbpe can read ({type(exc).__name__}: {exc})"
        raise LbpeError(_scrub(message, folder)) from None
    if folder is not None and tok.name == folder.name:  # named after the scratch folder
        tok.name = shown or target.name
    return tok


def open_upload(
    paths: Sequence[str | os.PathLike[str]], *, pattern: str | None = None, limits: Limits | None = None
) -> Tokenizer:
    """Open the vocabulary in uploaded files: one file, or GPT-2's ``encoder.json`` and
    ``vocab.bpe`` together. Each is checked against ``vocab_bytes`` (of ``limits``, else the
    environment's) before it is read, copied into a private folder that is removed afterwards,
    and read by :func:`open_vocabulary`. The caller keeps (or deletes) the uploads themselves."""
    files = [Path(p) for p in paths]
    if not files:
        raise LbpeError("Choose a vocabulary file to upload.")
    names = sorted(p.name for p in files)
    if len(files) > 2:
        raise LbpeError("Upload one vocabulary file (or GPT-2's encoder.json and vocab.bpe together).")
    if len(files) == 2 and tuple(names) != GPT2_PAIR:
        raise LbpeError(f"Two files can only be GPT-2's encoder.json and vocab.bpe, not {' and '.join(names)}.")
    with _limits.using(limits), tempfile.TemporaryDirectory(prefix="lbpe-vocab-") as tmp:
        folder = Path(tmp)
        for p in files:
            try:
                size = p.stat().st_size
            except OSError:
                raise LbpeError(f"{p.name}: the upload is gone; please upload it again") from None
            _limits.check("vocab_bytes", size, p.name)
            shutil.copyfile(p, folder / p.name)
        target = folder if len(files) == 2 else folder / files[0].name
        shown = " + ".join(GPT2_PAIR) if len(files) == 2 else files[0].name
        return open_vocabulary(target, pattern=pattern, limits=limits, scratch=folder, shown=shown)
