"""The process pool of long jobs that stream (corpus statistics, token shards): a
``ProcessPoolExecutor`` whose workers each hold one tokenizer (:func:`worker_tokenizer`), leave
Ctrl-C to this process and end with it. (Batch encoding forks per call: :mod:`lbpe.batch`.)
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

from lbpe.errors import LbpeError

if TYPE_CHECKING:
    from lbpe.tokenizer import Tokenizer

__all__ = ["process_pool", "worker_tokenizer"]

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
        raise LbpeError("worker_tokenizer() is only available in a process of lbpe.corpus.workers.process_pool")
    return _worker_tok
