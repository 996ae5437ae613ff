"""The export: :func:`export_shards` checks its options, takes the folder's lock, finds where a
resume continues, and writes the items of an engine (:mod:`~lbpe.corpus.shards.local` or
:mod:`~lbpe.corpus.shards.ray`) into the shards of :mod:`~lbpe.corpus.shards.writer`."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from lbpe.corpus.containers import Container, container
from lbpe.corpus.documents import check_reading, input_bytes, iter_records
from lbpe.corpus.parallel import pool_size
from lbpe.corpus.shards.batches import one_by_one
from lbpe.corpus.shards.consumed import Consumed
from lbpe.corpus.shards.folder import LOCK_NAME, _folder_lock, _our_files, _resume_state
from lbpe.corpus.shards.index import INDEX_NAME, SHARD_FORMAT, has_old_index, vocab_sha256
from lbpe.corpus.shards.local import _ordered, _pooled
from lbpe.corpus.shards.ray import _ray_ordered
from lbpe.corpus.shards.writer import NothingToExport, _Shards
from lbpe.corpus.workers import process_pool
from lbpe.errors import LbpeError
from lbpe.tokenizer import MODES, Mode, Tokenizer

__all__ = ["export_shards", "ExportOptions", "eos_id", "DEFAULT_SHARD_TOKENS"]

#: Tokens per shard unless asked otherwise (200 MB at uint16); a shard ends between documents.
DEFAULT_SHARD_TOKENS = 100_000_000
#: Bad documents whose messages index.json keeps (the count covers all of them).
KEPT_MESSAGES = 20
#: Errors that mean the disk (or a size limit) is full, not that the export is wrong.
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _whole_or_one_by_one(items, shards: _Shards, progress, read_bytes: Callable[[], int]):
    """The items, with each ``"documents"`` batch written whole when it fits in the current
    shard (then ``None`` is yielded, after ``progress`` is told) or expanded one by one."""
    for item in items:
        if item[0] != "documents":
            yield item
            continue
        _, metas, (lengths, ids) = item
        if shards.add_documents(metas, lengths, ids):
            if progress is not None:
                progress(read_bytes(), len(lengths), len(ids) + len(lengths) * shards.added)
            yield None
            continue
        yield from one_by_one(metas, lengths, ids)


def eos_id(tok: Tokenizer, eos: str | int) -> int:
    """The id of the end-of-text token ``eos``: a special or added token's spelling (e.g.
    ``"<|endoftext|>"``, ``"</s>"``) or an id."""
    return _token_id(tok, eos, "--eos")


def _token_id(tok: Tokenizer, token: str | int, flag: str) -> int:
    """The id of ``token`` given to ``flag`` (``--eos``, ``--bos``): a special or added token's
    spelling or an id."""
    specials = {**tok.special_tokens, **tok.added_tokens}
    digits = token.removeprefix("-") if isinstance(token, str) else ""
    if isinstance(token, int) or (digits.isascii() and digits.isdigit()):  # an id, negative ones too
        if isinstance(token, str) and len(token) > 20:  # no id has so many digits (and int() refuses 4,300)
            raise LbpeError(f"{flag} {token[:20]}… is not an id of this vocabulary (0 to {tok.n_vocab - 1:,})")
        i = int(token)
        if not 0 <= i < tok.n_vocab:
            raise LbpeError(f"{flag} {i} is not an id of this vocabulary (0 to {tok.n_vocab - 1:,})")
        try:
            tok.decode_bytes([i])
        except LbpeError:
            raise LbpeError(f"{flag} {i} is not an id of this vocabulary (no token has it)") from None
        return i
    if token in specials:
        return specials[token]
    listed = ", ".join(sorted(specials, key=specials.__getitem__)[:20]) or "none"
    raise LbpeError(
        f"{flag} {token!r} is not a special token of {tok.name} (its special tokens: {listed}); give one or an id"
    )


@dataclass(frozen=True)
class ExportOptions:
    """What an export is asked for, besides the tokenizer, the inputs and the folder: a value
    checked when made, built once (by the CLI, by a caller) and handed down whole. The fields
    are :func:`export_shards`'s keywords of the same names, and mean what it says of them."""

    mode: Mode
    format: str = "npy"
    eos: str | int | None = None
    bos: str | int | None = None
    lines: bool = False
    text_field: str = "text"
    shard_tokens: int = DEFAULT_SHARD_TOKENS
    num_proc: int = 1
    resume: bool = False
    skip_bad: bool = False
    shuffle: bool = False
    seed: int = 0
    val_fraction: float = 0.0
    engine: str = "local"
    address: str | None = None

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise LbpeError(f"mode must be 'bpe' or 'lbpe', not {self.mode!r}")
        if self.engine not in ("local", "ray"):
            raise LbpeError(f"engine must be 'local' or 'ray', not {self.engine!r}")
        if self.shard_tokens < 1:
            raise LbpeError(f"shard_tokens must be at least 1, not {self.shard_tokens} (CLI: --shard-tokens)")
        if not 0 <= self.val_fraction < 1:
            raise LbpeError(
                f"val_fraction must be at least 0 and below 1, not {self.val_fraction} (CLI: --val-fraction)"
            )
        pool_size(self.num_proc)  # a whole number, at least 1
        if self.address is not None and self.engine != "ray":
            raise LbpeError(
                "address names a Ray cluster, for engine='ray' (CLI: --engine ray --address A); "
                "add the engine or leave the address out"
            )


def export_shards(
    tok: Tokenizer,
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    options: ExportOptions | None = None,
    *,
    mode: Mode | None = None,
    format: str = "npy",
    eos: str | int | None = None,
    bos: str | int | None = None,
    lines: bool = False,
    text_field: str = "text",
    shard_tokens: int = DEFAULT_SHARD_TOKENS,
    num_proc: int = 1,
    resume: bool = False,
    skip_bad: bool = False,
    shuffle: bool = False,
    seed: int = 0,
    val_fraction: float = 0.0,
    separator_id: int | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    warn: Callable[[str], None] | None = None,
    engine: str = "local",
    address: str | None = None,
    checking: Callable[[int, int], None] | None = None,
) -> dict:
    """Encode the documents of ``inputs`` (a file, or a list of them) into shards of ``format``
    (:data:`FORMATS`) in the folder ``out``; returns the index (also written to
    ``out/lbpe-index.json``). An export that finds no document to write is refused.

    The options come as one :class:`ExportOptions` (``options``) or as keywords of the same
    names (``mode`` is then required), not both.

    ``progress(input_bytes, documents, tokens)`` is called with the amounts done since the
    last call. A bad document (invalid UTF-8, not JSON, a missing field) stops the export with
    its file and line named, after keeping the documents before it; ``skip_bad`` counts and
    skips it instead. ``eos`` (a special token's spelling or an id) is added once per document
    where the format puts it: before each document for ``llmc`` (as llm.c's prepare scripts),
    after it for the others. ``bos`` (likewise) starts each document, as LLaMA's, Mistral's and
    Gemma's tokenizers do (after ``eos`` for ``llmc``). ``shuffle`` puts the documents of each shard in a random order
    seeded by ``seed``; ``val_fraction`` holds that share of the documents out as a validation
    split, chosen by a hash of ``seed`` and the document's number (the same on any engine and
    number of processes). ``warn`` receives what a resume had to redo (damaged shards) and a val split left empty.

    One export writes into ``out`` at a time (a lock file there); files are written under
    names unique to the writer and renamed when complete; the index records each file's size
    and SHA-256, and each shard the SHA-256 of the input read through it
    (:mod:`~lbpe.corpus.shards.consumed`); ``resume`` checks every kept shard against both,
    calling ``checking(done, total)`` with the input bytes read so far of ``total`` (the inputs'
    size) as it reads them again.

    ``engine="ray"`` runs the same per-batch encoding on Ray Data (``address``: a cluster;
    default: the one ``ray.init`` finds, or a local instance): files are read by Ray's
    workers, parsed with the same rules (:func:`lbpe.corpus.documents.records_of_bytes`) and encoded,
    and this process writes the shards in input order, so they hold the same ids as
    ``engine="local"``. A line-based input is cut into runs of about 16 MB, read by the workers
    themselves (on a cluster the files must be on a file system every node sees).
    """
    if isinstance(inputs, (str, os.PathLike)):  # one file (a str is a sequence too: of characters)
        inputs = [inputs]
    keywords = ExportOptions(
        mode=mode if mode is not None else "bpe",  # checked below: required unless options are given
        format=format,
        eos=eos,
        bos=bos,
        lines=lines,
        text_field=text_field,
        shard_tokens=shard_tokens,
        num_proc=num_proc,
        resume=resume,
        skip_bad=skip_bad,
        shuffle=shuffle,
        seed=seed,
        val_fraction=val_fraction,
        engine=engine,
        address=address,
    )
    if options is None:
        if mode is None:
            raise TypeError("export_shards() needs mode= (or options=ExportOptions(mode=...))")
        options = keywords
    elif mode is not None or keywords != ExportOptions(mode="bpe"):
        raise TypeError("export_shards(): give the options once, as options=ExportOptions(...) or as keywords")
    if separator_id is not None:
        warnings.warn("separator_id is deprecated: use eos=ID", DeprecationWarning, stacklevel=2)
        if options.eos is not None:
            raise LbpeError("give the end-of-text token once: eos (separator_id is its deprecated name)")
        options = replace(options, eos=separator_id)
    fmt = container(options.format)
    out = Path(out)
    dtype = fmt.dtype(tok.n_vocab)
    eos_value = None if options.eos is None else eos_id(tok, options.eos)
    bos_value = None if options.bos is None else _token_id(tok, options.bos, "--bos")
    header = {
        "format": SHARD_FORMAT,
        "container": fmt.name,
        "vocab": tok.name,
        "vocab_sha256": vocab_sha256(tok),
        "n_vocab": tok.n_vocab,
        "mode": options.mode,
        "dtype": dtype,
        "inputs": [str(p) for p in inputs],
        "input_paths": [os.path.realpath(p) for p in inputs],  # what a resume compares, wherever it runs
        "lines": options.lines,
        "text_field": options.text_field,
        "eos_id": eos_value,
        "eos_position": None if eos_value is None else "before" if fmt.eos_before else "after",
        "bos_id": bos_value,
        "shuffle": options.shuffle,
        "seed": options.seed,
        "val_fraction": options.val_fraction,
        "shard_tokens": options.shard_tokens,
    }
    for path in inputs:  # read more than once (checked, encoded, resumed): a pipe would be empty the second time
        try:
            kind = os.stat(path).st_mode
        except OSError:
            continue  # input_bytes names it
        if not (stat.S_ISREG(kind) or stat.S_ISDIR(kind)):  # a folder is named below, with its own fix
            raise LbpeError(
                f"{path}: not a regular file (a pipe or a device); export reads its inputs more than once: "
                "save it to a file first"
            )
    input_bytes(inputs)  # every input readable, before anything is written
    check_reading(inputs, lines=options.lines, text_field=options.text_field)
    out.mkdir(parents=True, exist_ok=True)
    warn = warn or (lambda message: None)
    for flag, given in (("--eos", eos_value), ("--bos", bos_value)):
        if given is not None and given not in {**tok.special_tokens, **tok.added_tokens}.values():
            warn(_ordinary_token(tok, given, flag))
    if not (out / LOCK_NAME).exists() and not (out / INDEX_NAME).exists() and not has_old_index(out):
        _refuse_files(out, resume=options.resume)  # a folder no export wrote: left as it was
    with _folder_lock(out):
        index = _export_locked(
            tok, inputs, out, header, fmt, eos_value, options, progress=progress, warn=warn, checking=checking
        )
    if eos_value is None and bos_value is None and fmt.runs_together_in and index["documents"] > 1:
        warn(_runs_together(tok, fmt, index["documents"]))
    if fmt.name == "nanogpt" and not options.val_fraction:  # its train.py fails at its first eval
        warn(
            "--format nanogpt wrote no val.bin, which nanoGPT's train.py reads to estimate the loss: give "
            "--val-fraction (val_fraction=), such as 0.0005 as its openwebtext/prepare.py keeps"
        )
    if options.val_fraction and not index["val_documents"]:  # a trainer would find no val file
        n = index["documents"]
        warn(
            f"--val-fraction {options.val_fraction:g} (val_fraction=) drew none of the {n:,} "
            f"document{'' if n == 1 else 's'} for the val split: no val file was written; give more "
            "documents or a larger rate"
        )
    return index


#: End-of-text tokens a vocabulary's special tokens may hold, for the advice to give one.
_END_OF_TEXT = ("<|endoftext|>", "<|end_of_text|>", "</s>", "<eos>", "<|im_end|>")


def _ordinary_token(tok: Tokenizer, given: int, flag: str) -> str:
    known = {**tok.special_tokens, **tok.added_tokens}
    eot = next((t for t in _END_OF_TEXT if t in known), None) if flag == "--eos" else None
    which = f"its end-of-text token, {eot} (id {known[eot]})" if eot else "a special token's id"
    shown = tok.decode_bytes([given]).decode("utf-8", "backslashreplace")
    where = "end" if flag == "--eos" else "start"
    return (
        f"{flag} {given} ({flag[2:]}=) is {shown!r}, an ordinary token of {tok.name or 'the vocabulary'}, not a "
        f"special one: a trainer cannot tell a document's {where} from that token in the text; give {which}"
    )


def _runs_together(tok: Tokenizer, fmt: Container, documents: int) -> str:
    known = {**tok.special_tokens, **tok.added_tokens}
    eot = next((t for t in _END_OF_TEXT if t in known), None)
    which = f"the vocabulary's end-of-text token ({tok.name or 'it'}: {eot})" if eot else "an end-of-text token or id"
    return (
        f"--format {fmt.name} keeps no document boundaries and no --eos (eos=) was given: the {documents:,} "
        f"documents run into one another in {fmt.runs_together_in}; give --eos with {which}"
    )


def _refuse_files(out: Path, *, resume: bool) -> None:
    """Refuse an export into ``out``, which has no index to resume from, when it holds files."""
    leftovers = sorted(p.relative_to(out).as_posix() for p in _our_files(out))
    if not leftovers:
        return
    listed = f"{', '.join(leftovers[:3])}{', ...' if len(leftovers) > 3 else ''}"
    if resume:
        raise LbpeError(
            f"{out} holds files ({listed}) but no {INDEX_NAME}, so it holds no lbpe export to resume (an "
            "export interrupted before it recorded its first shard leaves none either: remove what it "
            "left); export into an empty folder"
        )
    raise LbpeError(
        f"{out} is not empty ({listed}); export into an empty folder, or pass --resume to continue an export there"
    )


def _export_locked(
    tok: Tokenizer,
    inputs,
    out: Path,
    header: dict,
    fmt: Container,
    eos: int | None,
    options: ExportOptions,
    *,
    progress,
    warn: Callable[[str], None],
    checking: Callable[[int, int], None] | None = None,
) -> dict:
    mode, lines, text_field, num_proc = options.mode, options.lines, options.text_field, pool_size(options.num_proc)
    for stray in [*out.glob("*.tmp"), *out.glob("*/*.tmp"), *out.glob("*/.litdata-*")]:
        if stray.is_dir():
            shutil.rmtree(stray, ignore_errors=True)
        else:
            stray.unlink(missing_ok=True)  # a writer that was killed left it (we hold the lock)
    consumed = Consumed(inputs, lines=lines, text_field=text_field)
    told, done = None, 0
    if checking is not None:
        total = input_bytes(inputs)

        def told(n: int) -> None:
            nonlocal done
            done += n
            checking(min(done, total), total)

    previous = _resume_state(out, header, warn, consumed, told) if options.resume else None
    if checking is not None and done:
        checking(done, done)  # all that needed reading was read: the phase ends full, not at a share of the inputs
    if previous is None:
        _refuse_files(out, resume=options.resume)
    shards = _Shards(
        out,
        header,
        options.shard_tokens,
        fmt,
        eos=eos,
        bos=header["bos_id"],
        val_fraction=options.val_fraction,
        seed=options.seed,
        shuffle=options.shuffle,
        consumed=consumed,
    )
    if previous is not None:
        if previous.get("complete"):
            return previous
        shards.streams["train"].shards = previous["shards"]
        shards.streams["val"].shards = previous["val_shards"]
        shards.skipped = previous.get("skipped_documents", 0)
        shards.messages = previous.get("skipped_messages", [])
        shards.records = previous.get("records", 0)
        shards.write_index(complete=False)
    skip = shards.records

    read_bytes = 0

    def on_read(n: int) -> None:
        nonlocal read_bytes
        read_bytes += n

    def bytes_read() -> int:  # read when a progress step is reported (the loop below resets it)
        return read_bytes

    pool = None
    if options.engine == "ray":
        items = _ray_ordered(
            tok, inputs, mode, lines=lines, text_field=text_field, skip=skip, address=options.address, progress=on_read
        )
    else:
        pool = process_pool(tok, num_proc) if num_proc > 1 else None
        if pool is not None and skip == 0:  # the workers read runs of lines themselves
            items = _pooled(tok, inputs, mode, pool, num_proc, lines=lines, text_field=text_field, progress=on_read)
        else:
            records = iter_records(inputs, lines=lines, text_field=text_field, skip=skip, progress=on_read, parse=False)
            items = _ordered(tok, records, mode, pool, num_proc, skip)
    try:
        for item in _whole_or_one_by_one(items, shards, progress, bytes_read):
            if item is None:  # a batch of documents was written whole
                read_bytes = 0
                consumed.read_to(shards.records)  # while the engine encodes the next ones
                continue
            kind, number, payload = item
            if kind == "ids":
                shards.add(number, payload)
                continue
            if kind == "end":
                s = shards.stream_of(number)
                before = s.count - s.offsets[-1] if s.file is not None else 0
                shards.end_document(number, payload)
                if progress is not None:
                    progress(read_bytes, 1, before + len(shards.tail))
                    read_bytes = 0
                continue
            # a bad document: its ids so far are dropped
            shards.drop_document(number)
            if not options.skip_bad:
                kept = shards.records_kept()
                so_far = (
                    "nothing before it was written"
                    if not kept
                    else "the 1 document before it is kept"
                    if kept == 1
                    else f"the {kept:,} documents before it are kept"
                )
                raise LbpeError(f"{payload}; {so_far}: fix it and rerun with --resume, or pass --skip-bad")
            shards.skipped += 1
            shards.records = number
            if len(shards.messages) < KEPT_MESSAGES:
                shards.messages.append(payload)
        return shards.finish()
    except OSError as exc:
        shards.abandon()
        if exc.errno in _FULL:
            raise LbpeError(_full_message(out, exc, shards)) from None
        raise
    except NothingToExport:
        raise  # nothing is kept: no shard a reader could open
    except BaseException:
        try:
            shards.close_shard(partial=True)  # keep every document completed before the stop
        except OSError as exc:
            shards.abandon()
            if exc.errno in _FULL:
                raise LbpeError(_full_message(out, exc, shards)) from None
            raise
        raise
    finally:
        if pool is not None:
            # wait for the batches already running (a second at most): a pool left running is
            # woken again at interpreter exit, and on Python 3.12 that prints a traceback (EBADF)
            pool.shutdown(wait=True, cancel_futures=True)
        shards.abandon()
        for stray in [*out.glob(f"*.{os.getpid()}-*.tmp"), *out.glob(f"*/*.{os.getpid()}-*.tmp")]:
            stray.unlink(missing_ok=True)


def _full_message(out: Path, exc: OSError, shards: _Shards) -> str:
    """One line for a full disk, a disk quota or a file-size limit: what stopped, what to free,
    what is kept. The room asked for is what the step that failed needs: a shard (more when a
    long document ends it), or the files a format joins its shards into."""
    kept = sum(len(s.shards) for s in shards.streams.values())
    shard_bytes = shards.shard_tokens * shards.itemsize
    fmt = shards.fmt
    joining = sum(shards.joining.values())
    joined = " and ".join(fmt.joined_file(split) for split in shards.joining)  # train.bin (and val.bin)
    # a shard (twice, for LitData), and the index written again beside the one it replaces (a
    # page more for each file's last part); files that grow with the documents make it more
    index = out / INDEX_NAME
    next_shard = shard_bytes * fmt.shard_copies + (index.stat().st_size if index.exists() else 0) + 3 * 4096
    shards_kept = f"{kept} complete shard{'' if kept == 1 else 's'}"
    if exc.errno == errno.EFBIG:
        what = f"a file reached the size limit of this process ({exc.strerror}; see ulimit -f)"
        if joining:
            largest = max(shards.joining, key=shards.joining.__getitem__)
            fix = f"raise the limit above {shards.joining[largest]:,} bytes (the size of {fmt.joined_file(largest)})"
        else:
            fix = f"raise the limit above {shard_bytes:,} bytes (a shard, more when a long document ends it)"
    elif exc.errno == errno.EDQUOT:
        what = f"the disk quota for {out} is used up ({exc.strerror})"
        room = (
            f"{joining:,} bytes to join the {shards_kept} into {joined}"
            if joining
            else (f"about {next_shard:,} bytes for the next shard and room for the shards still to come")
        )
        fix = f"free room under your quota ({room}) or export to another disk"
    else:
        free = shutil.disk_usage(out).free
        what = f"the disk of {out} is full ({exc.strerror}; {free:,} bytes free)"
        if joining:
            # a joined file already made is made again on the resume: its room counts as free
            made = sum(_size(out / fmt.joined_file(split)) for split in shards.joining)
            more = joining - free - made
            fix = (
                f"joining the {shards_kept} into {joined} needs {joining:,} bytes free there: "
                + (f"free {more:,} more" if more > 0 else "free more room")
                + " or export to another disk"
            )
        else:
            if next_shard > free:
                fix = f"free at least {next_shard - free:,} more bytes there for the next shard"
            else:
                fix = f"free more than the {free:,} bytes there are now for the next shard (about {shard_bytes:,})"
            fix += " (more when a long document ends it) and room for the shards still to come, or export elsewhere"
    return f"{what}: {fix}, then rerun with --resume; the {shards_kept} are kept and nothing half-written is left"


def _size(path: Path) -> int:
    """The size of ``path``, 0 when it is not there."""
    try:
        return path.stat().st_size
    except OSError:
        return 0
