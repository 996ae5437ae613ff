"""The vocabulary model: one table of token bytes -> id, and what is derived from it.

``Vocab.tokens`` is the single source of truth for ordinary tokens. Everything else the
encoders need (the id -> bytes decoder, the longest token length, LBPE's prefix index, the
merge priorities) is derived from it lazily and cached on the instance.

>>> v = Vocab({bytes([b]): b for b in range(256)} | {b"ab": 256}, special={"<|end|>": 257})
>>> v.max_len, v.n_vocab, v.token_bytes(256)
(2, 258, b'ab')
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Literal

from lbpe.errors import LbpeError
from lbpe.model.lbpe import build_prefix_index

__all__ = ["Vocab", "Unit"]

Unit = Literal["byte", "char"]


class Vocab:
    """Token bytes <-> ids, the unit kind, special tokens and (optionally) a merge list.

    * ``tokens``: ordinary token bytes -> id. With ``merges=None`` the id is also the merge
      priority of the token (tiktoken's rule: lower merges first).
    * ``merges``: ``(left bytes, right bytes) -> priority`` for merge-list vocabularies
      (GPT-2 ``vocab.bpe``, HF ``tokenizers``); ``None`` for rank files.
    * ``special``: special-token text -> id. Special tokens are never produced by BPE or LBPE.
    * ``unit``: ``"byte"`` (every byte is a unit; all 256 single bytes must be tokens) or
      ``"char"`` (every character is a unit).
    """

    __slots__ = ("tokens", "merges", "special", "unit", "name", "__dict__")

    def __init__(
        self,
        tokens: Mapping[bytes, int],
        *,
        special: Mapping[str, int] | None = None,
        merges: Mapping[tuple[bytes, bytes], int] | None = None,
        unit: Unit = "byte",
        name: str = "",
    ) -> None:
        if unit not in ("byte", "char"):
            raise LbpeError(f"unit must be 'byte' or 'char', not {unit!r}")
        self.tokens: dict[bytes, int] = dict(tokens)
        self.special: dict[str, int] = dict(special or {})
        self.merges: dict[tuple[bytes, bytes], int] | None = None if merges is None else dict(merges)
        self.unit: Unit = unit
        self.name = name
        self._check()

    def _check(self) -> None:
        if not self.tokens:
            raise LbpeError(f"vocabulary {self.name or '(unnamed)'} has no tokens")
        seen: dict[int, object] = {}
        for key, i in self.tokens.items():
            if not isinstance(key, bytes) or not key:
                raise LbpeError(f"token {key!r} must be non-empty bytes")
            if not isinstance(i, int) or i < 0:
                raise LbpeError(f"token {key!r} has id {i!r}; ids must be non-negative integers")
            if i in seen:
                raise LbpeError(f"id {i} is used by both {seen[i]!r} and {key!r}")
            seen[i] = key
        for text, i in self.special.items():
            if not isinstance(text, str) or not text:
                raise LbpeError(f"special token {text!r} must be a non-empty string")
            if not isinstance(i, int) or i < 0:
                raise LbpeError(f"special token {text!r} has id {i!r}; ids must be non-negative integers")
            if i in seen:
                raise LbpeError(f"id {i} is used by both {seen[i]!r} and special token {text!r}")
            seen[i] = text
        if self.unit == "byte":
            missing = [b for b in range(256) if bytes([b]) not in self.tokens]
            if missing:
                raise LbpeError(
                    f"byte-level vocabulary {self.name or '(unnamed)'} lacks single-byte tokens for "
                    f"{len(missing)} byte values (first: 0x{missing[0]:02x}); every byte must be a token"
                )

    # ---- derived data (computed once, on first use) ----

    @functools.cached_property
    def decoder(self) -> dict[int, bytes]:
        """id -> bytes for ordinary and special tokens."""
        out = {i: key for key, i in self.tokens.items()}
        for text, i in self.special.items():
            out[i] = text.encode("utf-8")
        return out

    @functools.cached_property
    def n_vocab(self) -> int:
        """One more than the largest id (ids may have gaps)."""
        return max(self.decoder) + 1

    @functools.cached_property
    def max_len(self) -> int:
        """Length of the longest ordinary token in units (the paper's ``m``)."""
        if self.unit == "byte":
            return max(map(len, self.tokens))
        return max(len(k.decode("utf-8", "replace")) for k in self.tokens)

    @functools.cached_property
    def prefix_index(self) -> dict[bytes, int]:
        """LBPE's index: every token -> id, every proper prefix -> -1 (byte units)."""
        return build_prefix_index(self.tokens)

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token (ordinary or special)."""
        try:
            return self.decoder[token_id]
        except (KeyError, TypeError):
            raise LbpeError(
                f"token id {token_id!r} is not in the vocabulary (ids run from 0 to {self.n_vocab - 1})"
            ) from None

    def __len__(self) -> int:
        return len(self.tokens) + len(self.special)

    def __repr__(self) -> str:
        kind = "merge list" if self.merges is not None else "ranks"
        return (
            f"Vocab(name={self.name!r}, tokens={len(self.tokens)}, special={len(self.special)}, "
            f"unit={self.unit!r}, {kind})"
        )
