"""The Train handlers: train a vocabulary on uploaded files, then use it in Compare."""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import Any

import gradio as gr

from lbpe import limits
from lbpe.errors import LbpeError, NotUtf8Error, VocabSizeError
from lbpe.formats.hf_write import write_tokenizer_json
from lbpe.limits import PLAYGROUND
from lbpe.playground.app.handlers import common
from lbpe.playground.app.handlers.common import (
    _DOWNLOADS,
    _handler,
    _job,
    _kept,
    _paths,
    _reporter,
    _session,
    shown,
    stopped,
)
from lbpe.playground.service import (
    Session,
    Stopped,
    TrainTimeError,
    open_vocabulary,
    scaffold_note,
    train_view,
    without_folder,
)

log = logging.getLogger("lbpe.playground.app")

#: What the Train view says before a training: its status box's first words.
CHOOSE_FILES = "Choose text files, then press Train."


def files_note(files: Any, status: Any):
    """The training files changed (chosen, added to, removed). The page refuses a choice over the
    limit before sending it, but files added one at a time are each within it: while together
    they are over it, ``status`` says so now rather than when Train is pressed. Once within it
    again, that refusal, or a note that files are ready naming others than those there are, gives
    way to the files that are ready (:data:`CHOOSE_FILES` when none is). Anything else the status
    says stays (``gr.skip()``)."""
    paths = _paths(files)
    size = 0
    for path in paths:
        try:
            size += path.stat().st_size
        except OSError:  # swept with its session: Train says so
            pass
    note = common.over_limit_note("train-upload", "", size, len(paths))
    if note is not None:
        return note
    said = str(status or "")
    ready = common.ready_note([path.name for path in paths], "press Train") if paths else CHOOSE_FILES
    refused = PLAYGROUND["train_bytes"].what in said  # the words of that refusal
    if said != ready and (refused or said.endswith(" ready: press Train.")):
        return ready
    return gr.skip()


@_handler
def train(
    files: Any,
    vocab_size: float = 8000,
    unit: str = "char",
    scaffold: bool = False,
    state: Any = None,
    progress: gr.Progress = gr.Progress(),
    style: str = "gpt2",
):
    """Train a vocabulary on uploaded text files (:func:`lbpe.playground.service.train_view`); keep it in
    the session for Compare. ``style``: ``"gpt2"`` (the paper's pre-tokenizer) or ``"llama"``
    (SentencePiece's way, characters with byte fallback).

    Returns ``(state, vocabulary dropdown update, tokenizer.json file, status markdown)``.
    """
    size = _whole_size(vocab_size)
    unit, style = unit or "char", style or "gpt2"  # the API's None: the defaults, named as such
    session, paths = _session(state), _paths(files)
    with _job(session, "train", "A training"), _kept(paths):
        return _train(session, paths, size, unit, bool(scaffold), progress, style)


def _whole_size(value: Any) -> int:
    """The size box's value as a whole number (empty: 0, which training refuses with its range)."""
    rule = f"The vocabulary size must be a whole number between 1 and {common.LIMITS.train_vocab:,}"
    return common.whole_number(value, rule, empty=0)


def _train(session: Session, paths: list[Path], size: int, unit: str, scaffold: bool, progress: Any, style: str):
    names = ", ".join(p.name for p in paths)
    report = _reporter(progress, session, f"{names}: counting pre-tokens")
    merging = _reporter(progress, session, f"{names}: merging")
    try:
        trained = train_view(
            paths,
            vocab_size=size,
            style=style,
            unit=unit,
            pattern=None if style == "llama" else "paper",
            scaffold=scaffold,
            limits=common.LIMITS,
            max_vocab=common.LIMITS.train_vocab,
            read_progress=lambda done, total: report(done / max(total, 1)),
            progress=lambda done, wanted: merging(done / max(wanted, 1)),
            seconds=common.LIMITS.train_seconds,
        )
    except NotUtf8Error as bad:  # named as the person uploaded it, not by the server's folder
        source = functools.reduce(without_folder, {p.parent for p in paths}, bad.source)
        raise NotUtf8Error(source, bad.byte, bad.offset, utf16=bad.utf16) from None
    except VocabSizeError as small:  # in this view's words: it has a size box, no other option to change
        raise LbpeError(
            f"The vocabulary size {small.vocab_size:,} is smaller than the {small.base:,} base tokens of "
            f"{small.kind} trained on these files ({small.parts}): choose {small.base:,} or more."
        ) from None
    except TrainTimeError:
        log.info(
            "a training on %s ran past LBPE_APP_TRAIN_SECONDS=%s and was stopped", names, common.LIMITS.train_seconds
        )
        raise
    except LbpeError as exc:  # any other reason about a file: named as uploaded (a .gz read through)
        raise LbpeError(functools.reduce(without_folder, {p.parent for p in paths}, str(exc))) from None
    except Stopped as stop:
        status = (
            f"Stopped at {stop.fraction:.0%} of training a {size:,}-token {unit} vocabulary on {names}; "
            "this run kept nothing. Press Train to start again."
        )
        return (session, *stopped(session, "train", "train", status, (gr.update(), None)))
    corpus_name = paths[0].name if len(paths) == 1 else f"{len(paths)} files"
    with limits.using(common.LIMITS):
        most = limits.get("token_bytes")
    longest = max(map(len, trained["vocab"].tokens), default=0)
    if most and longest > most:  # else the server's check of the file written next names that file
        raise LbpeError(
            f"Training on {names} made a token of {longest:,} bytes, over the {most:,} bytes this server "
            "allows in a token: the text holds a run that long with no break the pre-tokenizer splits at "
            "(merges joined it whole). Train on text without such a run, or with lbpe train on your machine."
        )
    kind = f"{size} {unit}{' scaffold' if scaffold else ''}{' llama' if style == 'llama' else ''}"
    path = _DOWNLOADS.write(f"tokenizer-{kind.replace(' ', '-')}.json", b"")
    write_tokenizer_json(trained["vocab"], path)  # in the style and with the preset it was trained with
    tok = open_vocabulary(path, scratch=Path(path).parent)  # exactly what the download holds
    session.trained = name = session.remember(f"trained: {kind} on {corpus_name}", tok)
    shown(session, "train", "train")
    status = f"Done: **{name}**, {trained['message']} ({names}). Download it below, or use it in Compare."
    if trained["vocab"].scaffold:  # what other readers of the download do with them
        status += f" Note: {scaffold_note(trained['vocab'])}."
    if session.dropped:
        status += " " + session.dropped_note()
    return session, gr.update(choices=session.choices()), path, status


#: Beside the Unit: what each means in the GPT-2 style, and the LLaMA style's one.
GPT2_UNITS = "char: characters, plus 256 byte-fallback tokens; byte: the 256 bytes."
LLAMA_UNITS = "The LLaMA style trains characters, with byte fallback."


def style_units(style: str = "gpt2"):
    """The Train view's style changed: the LLaMA style trains only characters (byte units would
    be refused), so its Unit is char and fixed, with why; GPT-2 style offers both.

    Returns an update of the Unit radio."""
    if style == "llama":
        return gr.update(value="char", interactive=False, info=LLAMA_UNITS)
    return gr.update(interactive=True, info=GPT2_UNITS)


@_handler
def use_trained(state: Any = None):
    """Select the vocabulary trained last in this session and switch to Compare.

    Returns ``(vocabulary dropdown update, tabs update)``.
    """
    session = _session(state)
    if not session.trained or session.trained not in session.vocabs:
        raise gr.Error("Train a vocabulary first (or it was dropped: only the latest few are kept).")
    return gr.update(choices=session.choices(), value=session.trained), gr.update(selected="compare")
