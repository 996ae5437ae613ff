"""Work on more than one process, in two shapes, both here:

* :func:`forked_encode` -- batch encoding (``Tokenizer.encode_batch(..., workers=N)``): this
  process and ``N - 1`` forks of it each encode one run of consecutive texts; the forks inherit
  the tokenizer with its warm caches, and ids come back through pipes as raw integers, never
  pickled. Forked per call, since a call is one batch.
* :func:`process_pool` -- long jobs that stream (corpus statistics, token shards): a
  ``ProcessPoolExecutor`` whose workers each hold one tokenizer (:func:`worker_tokenizer`) and
  leave Ctrl-C to this process.

Imports no pipeline module at run time, so the tokenizer can use it without an import cycle.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from array import array
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from itertools import chain, islice
from typing import TYPE_CHECKING

from lbpe import native
from lbpe.errors import DisallowedSpecialError, LbpeError

if TYPE_CHECKING:
    from lbpe.tokenizer import Mode, Tokenizer

__all__ = ["forked_encode", "process_pool", "worker_tokenizer"]

_worker_tok: Tokenizer | None = None


def process_pool(source: Tokenizer | Callable[[], Tokenizer], workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes, each holding one tokenizer for :func:`worker_tokenizer`:
    ``source`` itself (a Tokenizer pickles small: its caches stay behind) or what the callable
    ``source`` returns (e.g. ``functools.partial(lbpe.load, path)``, loaded once per process).
    The workers end when this process ends, even when it is killed (``kill -9``)."""
    return ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(source, os.getpid()))


def _die_with_parent(parent: int) -> None:
    """End this worker when ``parent`` ends (also by ``kill -9``, which runs no clean-up there):
    a daemon thread watches for the worker being handed to another parent."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="lbpe-parent-watch", daemon=True).start()


def _init_worker(source: Tokenizer | Callable[[], Tokenizer], parent: int) -> None:
    global _worker_tok
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    _die_with_parent(parent)
    _worker_tok = source() if callable(source) else source


def worker_tokenizer() -> Tokenizer:
    """The tokenizer of this worker process of :func:`process_pool`."""
    if _worker_tok is None:
        raise LbpeError("worker_tokenizer() is only available in a process of lbpe.workers.process_pool")
    return _worker_tok


def forked_encode(tok: Tokenizer, texts: Sequence[str], *, mode: Mode, workers: int, special: dict) -> list[list[int]]:
    """Encode ``texts`` on ``workers`` processes: this one and ``workers - 1`` forks of it (see
    ``Tokenizer.encode_batch``). Each takes one run of consecutive texts of about equal size.

    The forks inherit the tokenizer and the texts, so nothing is loaded or sent to them; each
    sends its ids back through a pipe as raw 64-bit integers (no pickle), and an error as a
    short message that is raised here. If anything fails here, the forks are killed.
    """
    shares = _shares([len(t) for t in texts], workers)
    children: list[tuple[int, int]] = []
    try:
        for a, b in shares[1:]:
            read_fd, write_fd = os.pipe()
            pid = os.fork()
            if pid == 0:  # the fork: encode its share, send it, and leave without cleanup
                os.close(read_fd)
                _encode_share_and_exit(tok, texts[a:b], mode, special, write_fd)
            os.close(write_fd)
            children.append((pid, read_fd))
        a, b = shares[0]
        out = [tok.encode(t, mode=mode, **special) for t in texts[a:b]]
        while children:
            pid, fd = children[0]
            with os.fdopen(fd, "rb") as f:
                data = f.read()
            children.pop(0)
            os.waitpid(pid, 0)
            model = native.model_for(tok.vocab)
            out += model.unpack(data) if data[:1] == b"I" and model is not None else _read_share(data, tok.n_vocab)
        return out
    finally:
        for pid, fd in children:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
            try:
                os.close(fd)
            except OSError:
                pass


def _shares(sizes: Sequence[int], workers: int) -> list[tuple[int, int]]:
    """``workers`` (or fewer) runs of consecutive indices with about equal total size."""
    total = sum(sizes) or 1
    bounds: list[tuple[int, int]] = []
    start = done = 0
    for k, size in enumerate(sizes):
        done += size
        if done * workers >= total * (len(bounds) + 1) or k == len(sizes) - 1:
            bounds.append((start, k + 1))
            start = k + 1
    return bounds


def _encode_share_and_exit(tok: Tokenizer, texts: Sequence[str], mode: Mode, special: dict, fd: int) -> None:
    try:
        ids = [tok.encode(t, mode=mode, **special) for t in texts]
        if native.model_for(tok.vocab) is not None:  # the compiled path packs in C (int32 ids)
            payload = native.pack(ids)
        else:
            lengths = array("q", map(len, ids))
            payload = (
                b"K"
                + len(lengths).to_bytes(8, "little")
                + lengths.tobytes()
                + array("q", chain.from_iterable(ids)).tobytes()
            )
    except DisallowedSpecialError as exc:
        payload = b"D" + exc.token.encode("utf-8", "surrogatepass")
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it
        payload = b"E" + f"{type(exc).__name__}: {exc}".encode("utf-8", "replace")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
    finally:
        os._exit(0)


#: The ints 0, 1, 2, ...: ids read back from a fork are mapped onto these shared objects
#: instead of becoming millions of new int objects (which made the parent slower than the forks).
_INTS: list[int] = []


def _read_share(data: bytes, n_vocab: int = 0) -> list[list[int]]:
    kind, body = data[:1], data[1:]
    if kind == b"K":
        count = int.from_bytes(body[:8], "little")
        lengths = array("q")
        lengths.frombytes(body[8 : 8 + 8 * count])
        flat = array("q")
        flat.frombytes(body[8 + 8 * count :])
        if len(_INTS) < n_vocab:
            _INTS.extend(range(len(_INTS), n_vocab))
        ids = map(_INTS.__getitem__, flat)
        return [list(islice(ids, n)) for n in lengths]
    if kind == b"D":
        raise DisallowedSpecialError(body.decode("utf-8", "surrogatepass"))
    if kind == b"E":
        raise LbpeError(f"a worker process failed: {body.decode('utf-8', 'replace')}")
    raise LbpeError("a worker process ended without sending its result (killed, or out of memory?)")
