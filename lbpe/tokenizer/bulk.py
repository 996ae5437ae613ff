"""Encoding in bulk, a mixin of :class:`lbpe.Tokenizer`: many texts at once
(:meth:`~BulkEncoding.encode_batch`, on threads of the extension or forked processes) and one
text's ids in a single buffer (:meth:`~BulkEncoding.encode_to_array`,
:meth:`~BulkEncoding.encode_to_numpy`)."""

from __future__ import annotations

import os
import sys
from array import array
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from lbpe import native
from lbpe.model import Method
from lbpe.normalize import Normalizer
from lbpe.tokenizer import buffers
from lbpe.tokenizer.checks import (
    Dropout,
    check_dropout,
    checked_flag,
    checked_text,
    checked_workers,
    dropout_options,
    replace_surrogates,
)
from lbpe.tokenizer.checks import check_mode as _check_mode
from lbpe.tokenizer.compiled import encode_on_threads
from lbpe.tokenizer.specials import SpecialNames, read_once
from lbpe.vocab import Vocab

if TYPE_CHECKING:
    import numpy

__all__ = ["BulkEncoding", "CACHED_PIECE_CHARS"]

#: Longer pieces are not cached (they rarely repeat and would pin memory).
CACHED_PIECE_CHARS = 256


class BulkEncoding:
    """What :class:`lbpe.Tokenizer` encodes in bulk; the tokenizer supplies the parts below."""

    vocab: Vocab
    normalizer: Normalizer | None
    cache_size: int
    bos: list[int]
    eos: list[int]
    _preset_code: int | None

    @property
    def n_vocab(self) -> int:
        raise NotImplementedError

    def encode(
        self,
        text: str,
        *,
        mode: Method,
        allowed_special: SpecialNames = frozenset(),
        disallowed_special: SpecialNames = "all",
        add_special_tokens: bool = False,
        dropout: float | None = None,
        seed: int | None = None,
    ) -> list[int]:
        raise NotImplementedError

    def _chunks(
        self,
        text: str,
        allowed_special: SpecialNames,
        disallowed_special: SpecialNames,
    ) -> list[tuple[bool, str]]:
        raise NotImplementedError

    def _matched_id(self, chunk: str) -> int:
        raise NotImplementedError

    def _ordinary(
        self, text: str, mode: Method, dropout: Dropout | None, buffer: bool = False, first: bool = True
    ) -> list[int] | bytes:
        raise NotImplementedError

    def _deadline(self, text: object) -> AbstractContextManager:
        raise NotImplementedError

    def encode_batch(
        self,
        texts: Iterable[str],
        *,
        mode: Method,
        workers: int | None = 1,
        allowed_special: SpecialNames = frozenset(),
        disallowed_special: SpecialNames = "all",
        add_special_tokens: bool = False,
        dropout: float | None = None,
        seed: int | None = None,
    ) -> list[list[int]]:
        """Encode several texts, in order; ``mode``, ``allowed_special``, ``disallowed_special``,
        ``add_special_tokens``, ``dropout`` and ``seed`` apply to each as in :meth:`encode`
        (with BPE-dropout each text draws from its own generator seeded with ``seed``, as if
        encoded alone: pass a different seed per batch, or per text by encoding one by one, for
        different draws).

        ``workers`` share the work (``None``: one per core). On the compiled path with a preset
        pre-tokeniser they are threads of the extension that run without the GIL; otherwise
        processes: this one and forks of it, which start with this tokenizer as it is (tables
        built, caches filled), so nothing is loaded again. Each text is encoded whole, so the ids
        equal encoding them one by one. Parallel work pays off for megabytes of text, not for a
        few short strings. Where processes cannot be forked (Windows, Pyodide) the texts of the
        pure path are encoded here, one by one.
        """
        mode = _check_mode(mode)
        check_dropout(mode, dropout, seed)
        if isinstance(texts, (str, bytes, bytearray)):  # iterable, but as its characters
            raise TypeError(
                f"texts must be a list of str (an iterable of texts), not one {type(texts).__name__}: pass [text]"
            )
        if not isinstance(texts, Iterable):
            raise TypeError(f"texts must be a list of str (an iterable of texts), not {type(texts).__name__}")
        texts = [checked_text(t) for t in texts]
        add_special_tokens = checked_flag(add_special_tokens, "add_special_tokens")
        # read by every text's split: an iterator only once
        allowed_special = read_once(allowed_special)  # type: ignore[assignment]
        disallowed_special = read_once(disallowed_special)  # type: ignore[assignment]
        workers = checked_workers(workers)
        model = native.model_for(self.vocab) if mode in native.METHOD_CODES else None
        if (
            workers > 1
            and len(texts) > 1
            and model is not None
            and self._preset_code is not None
            and self.normalizer is None
        ):
            # special tokens are found here, as encode() finds them, and every ordinary chunk
            # goes to threads that run without the GIL
            return encode_on_threads(
                model,
                self._preset_code,
                [self._chunks(text, allowed_special, disallowed_special) for text in texts],
                self._matched_id,
                method=native.METHOD_CODES[mode],
                limit=self.cache_size,
                cached_chars=CACHED_PIECE_CHARS,
                workers=workers,
                ends=(self.bos, self.eos) if add_special_tokens else None,
            )
        if workers > 1 and len(texts) > 1 and hasattr(os, "fork") and sys.platform != "emscripten":
            from lbpe.batch import forked_encode

            special: dict = dict(
                allowed_special=allowed_special,
                disallowed_special=disallowed_special,
                add_special_tokens=add_special_tokens,
            )
            if mode == "dropout":
                special.update(dropout=dropout, seed=seed)
            return forked_encode(self, texts, mode=mode, workers=workers, special=special)
        return [
            self.encode(
                t,
                mode=mode,
                allowed_special=allowed_special,
                disallowed_special=disallowed_special,
                add_special_tokens=add_special_tokens,
                dropout=dropout,
                seed=seed,
            )
            for t in texts
        ]

    def encode_to_array(
        self,
        text: str,
        *,
        mode: Method,
        allowed_special: SpecialNames = frozenset(),
        disallowed_special: SpecialNames = "all",
        add_special_tokens: bool = False,
        dropout: float | None = None,
        seed: int | None = None,
    ) -> array:
        """:meth:`encode`'s ids as an ``array.array("I")`` of 32-bit ids, every option as there.
        On the compiled path no Python int is made per id: for writing shards, counting or
        handing to numpy (:meth:`encode_to_numpy`) or torch without a list in between.

        >>> from lbpe import Tokenizer, Vocab
        >>> tok = Tokenizer(Vocab({bytes([b]): b for b in range(256)} | {b"ab": 256}), "paper")
        >>> tok.encode_to_array("abc ab", mode="lbpe")
        array('I', [256, 99, 32, 256])
        """
        mode = _check_mode(mode)
        add_special_tokens = checked_flag(add_special_tokens, "add_special_tokens")
        options = dropout_options(mode, dropout, seed)
        if options is not None:
            text = replace_surrogates(checked_text(text))  # before any draw, as encode does
        out = array(buffers.ID_TYPECODE, self.bos if add_special_tokens else ())
        with self._deadline(text):
            for at, (is_special, chunk) in enumerate(self._chunks(text, allowed_special, disallowed_special)):
                if is_special:
                    out.append(self._matched_id(chunk))
                    continue
                ids = self._ordinary(chunk, mode, options, True, first=not at)
                if isinstance(ids, bytes):
                    buffers.extend(out, ids)
                else:
                    out.extend(ids)
        if add_special_tokens:
            out.extend(self.eos)
        return out

    def encode_to_numpy(
        self,
        text: str,
        *,
        mode: Method,
        allowed_special: SpecialNames = frozenset(),
        disallowed_special: SpecialNames = "all",
        add_special_tokens: bool = False,
        dropout: float | None = None,
        seed: int | None = None,
    ) -> numpy.ndarray:
        """:meth:`encode_to_array`'s ids as a ``numpy.uint32`` array sharing its memory (numpy
        needed: ``pip install numpy``)."""
        found = self.encode_to_array(
            text,
            mode=mode,
            allowed_special=allowed_special,
            disallowed_special=disallowed_special,
            add_special_tokens=add_special_tokens,
            dropout=dropout,
            seed=seed,
        )
        return buffers.as_numpy(found)
