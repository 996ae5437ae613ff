"""Batch encoding on forked processes (``Tokenizer.encode_batch(..., workers=N)`` off the
compiled path's threads): this process and ``N - 1`` forks of it each encode one run of
consecutive texts; the forks inherit the tokenizer with its warm caches, and ids come back
through pipes as raw integers, never pickled. Forked per call, since a call is one batch.

Below the tokenizer, which calls it: it knows a tokenizer only as an :class:`Encoder`.
"""

from __future__ import annotations

import os
import signal
from array import array
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from itertools import chain, islice
from typing import Literal, Protocol

from lbpe import native
from lbpe.errors import DisallowedSpecialError, LbpeError
from lbpe.model import Method

__all__ = ["Encoder", "forked_encode"]


class Encoder(Protocol):
    """What batch encoding needs of a tokenizer (:class:`lbpe.Tokenizer` is one)."""

    @property
    def vocab(self) -> native.Tables: ...
    @property
    def n_vocab(self) -> int: ...
    def encode(
        self,
        text: str,
        *,
        mode: Method,
        allowed_special: Literal["all"] | AbstractSet[str] | list[str] | tuple[str, ...] | None = ...,
        disallowed_special: Literal["all"] | AbstractSet[str] | list[str] | tuple[str, ...] | None = ...,
        add_special_tokens: bool = ...,
    ) -> list[int]: ...


def forked_encode(tok: Encoder, texts: Sequence[str], *, mode: Method, workers: int, special: dict) -> list[list[int]]:
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


def _encode_share_and_exit(tok: Encoder, texts: Sequence[str], mode: Method, special: dict, fd: int) -> None:
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
