"""The vocabulary model: one table of token bytes -> id, and what is derived from it.

This module owns :class:`Vocab`. ``Vocab.tokens`` is the single source of truth for ordinary
tokens. Everything else the encoders need (:attr:`Vocab.id_to_bytes`, the tokens and merges
spelled in units as the model stage sees them, :attr:`Vocab.model_tokens` and
:attr:`Vocab.model_merges`, the longest token length, LBPE's prefix index) is derived from it
lazily and cached on the instance.

>>> v = Vocab({bytes([b]): b for b in range(256)} | {b"ab": 256}, special={"<|end|>": 257})
>>> v.max_len, v.n_vocab, v.token_bytes(256)
(2, 258, b'ab')
"""

from __future__ import annotations

import functools
from collections.abc import Container, Mapping
from typing import Literal

from lbpe import native
from lbpe.errors import LbpeError, no_token_error
from lbpe.model.cuts import CutFinder
from lbpe.model.greedy import build_suffix_index
from lbpe.model.lbpe import LongTokens, build_prefix_index, long_tokens

__all__ = ["Vocab", "Unit"]

Unit = Literal["byte", "char"]

#: The largest id: ids are 32-bit unsigned, as in tiktoken and HF tokenizers (and lbpe's shards).
MAX_ID = 2**32 - 1


def _plain_ids(tokens: dict) -> set[int] | None:
    """The ids, when every key is non-empty ``bytes`` and the ids are distinct non-negative
    ``int`` values: what :meth:`Vocab._checked_tokens` asks of each byte-level token, tested in
    bulk (C loops); ``None`` otherwise, and the one-by-one check then finds and names the problem."""
    keys, ids = tokens.keys(), tokens.values()
    if set(map(type, keys)) != {bytes} or set(map(type, ids)) != {int} or not all(keys) or min(ids) < 0:
        return None
    distinct = set(ids)
    return distinct if len(distinct) == len(ids) else None


class Vocab:
    """Token bytes <-> ids, the unit kind, special tokens and (optionally) a merge list.

    * ``tokens``: ordinary token bytes -> id. With ``merges=None`` the id is also the merge
      priority of the token (tiktoken's rule: lower merges first).
    * ``merges``: ``(left bytes, right bytes) -> priority`` for merge-list vocabularies
      (GPT-2 ``vocab.bpe``, HF ``tokenizers``); ``None`` for rank files.
    * ``special``: special-token text -> id. Special tokens are never produced by BPE or LBPE.
    * ``unit``: ``"byte"`` (every byte is a unit; all 256 single bytes must be tokens) or
      ``"char"`` (every character is a unit; ``tokens`` keys are the UTF-8 of the token text).
    * ``byte_fallback``: for character-level vocabularies, byte value -> id of its ``<0xNN>``
      token; a character with no token is encoded as the tokens of its UTF-8 bytes. These ids
      are not in ``tokens`` (their text is not their meaning).
    * ``unk``: id of the unknown token, used for a character with no token and no byte fallback;
      with ``fuse_unk`` a run of such characters in one piece becomes a single unknown token.
    * ``whole_piece_first``: a piece that is itself a token is emitted as that token without
      merging (tiktoken, and HF's ``ignore_merges``); otherwise merges always run (HF default).
    * ``scaffold``: Scaffold-BPE's scaffold tokens, id -> the ids of the two tokens it was merged
      from. Classic BPE splits any scaffold token it produces back into those (recursively);
      LBPE never considers scaffold tokens at all.
    * ``trained``: how :func:`lbpe.train` made it (``{"style": "gpt2" | "llama", "pattern":
      preset}``), so a writer writes it as it was trained; empty for a vocabulary read from a file.
    * ``_ids``: lbpe's readers only: the ids of a byte-level ``tokens`` that the reader itself
      found to be non-empty ``bytes`` keys with distinct non-negative ``int`` ids, so that this
      check of the whole table is not made twice.
    """

    __slots__ = (
        "tokens",
        "merges",
        "special",
        "unit",
        "name",
        "byte_fallback",
        "unk",
        "whole_piece_first",
        "scaffold",
        "fuse_unk",
        "trained",
        "__dict__",
    )

    def __init__(
        self,
        tokens: Mapping[bytes, int],
        *,
        special: Mapping[str, int] | None = None,
        merges: Mapping[tuple[bytes, bytes], int] | None = None,
        unit: Unit = "byte",
        name: str = "",
        byte_fallback: Mapping[int, int] | None = None,
        unk: int | None = None,
        whole_piece_first: bool = True,
        scaffold: Mapping[int, tuple[int, int]] | None = None,
        fuse_unk: bool = False,
        trained: Mapping[str, str] | None = None,
        _ids: Container[int] | None = None,
    ) -> None:
        if unit not in ("byte", "char"):
            raise LbpeError(f"unit must be 'byte' or 'char', not {unit!r}")
        self.tokens: dict[bytes, int] = dict(tokens)
        self.special: dict[str, int] = dict(special or {})
        self.merges: dict[tuple[bytes, bytes], int] | None = None if merges is None else dict(merges)
        self.unit: Unit = unit
        self.name = name
        self.byte_fallback: dict[int, int] | None = None if byte_fallback is None else dict(byte_fallback)
        self.unk = unk
        self.whole_piece_first = whole_piece_first
        self.fuse_unk = fuse_unk
        self.trained: dict[str, str] = dict(trained or {})
        self.scaffold: dict[int, tuple[int, int]] = {i: (int(a), int(b)) for i, (a, b) in (scaffold or {}).items()}
        self._check(_ids)

    def _checked_tokens(self) -> dict[int, object]:
        """id -> token, checking the tokens one by one and naming the first bad one."""
        seen: dict[int, object] = {}
        for key, i in self.tokens.items():
            if not isinstance(key, bytes) or not key:
                raise LbpeError(f"token {key!r} must be non-empty bytes")
            if self.unit == "char":
                try:
                    key.decode("utf-8")
                except UnicodeDecodeError:
                    raise LbpeError(
                        f"token {key!r} is not UTF-8 text; a character-level vocabulary holds text tokens"
                    ) from None
            if not isinstance(i, int) or i < 0:
                raise LbpeError(f"token {key!r} has id {i!r}; ids must be non-negative integers")
            if i in seen:
                raise LbpeError(f"id {i} is used by both {seen[i]!r} and {key!r}")
            seen[i] = key
        return seen

    def _check(self, ids: Container[int] | None) -> None:
        if not self.tokens:
            raise LbpeError(f"vocabulary {self.name or '(unnamed)'} has no tokens")
        plain = ids if ids is not None else _plain_ids(self.tokens) if self.unit == "byte" else None
        ordinary: Container[int] = self._checked_tokens() if plain is None else plain
        seen: dict[int, object] = {}  # the special and byte-fallback ids so far -> what they are

        def owner(i: int) -> object:
            if i in seen:
                return seen[i]
            return next(key for key, j in self.tokens.items() if j == i)

        for text, i in self.special.items():
            if not isinstance(text, str) or not text:
                raise LbpeError(f"special token {text!r} must be a non-empty string")
            if not isinstance(i, int) or isinstance(i, bool) or i < 0:
                raise LbpeError(f"special token {text!r} has id {i!r}; ids must be non-negative integers")
            if i > MAX_ID:
                raise LbpeError(
                    f"special token {text!r} has id {i}; ids are 32-bit (at most {MAX_ID:,}), as in tiktoken "
                    "and HF tokenizers: give an id below that"
                )
            if i in ordinary or i in seen:
                raise LbpeError(f"id {i} is used by both {owner(i)!r} and special token {text!r}")
            seen[i] = text
        for b, i in (self.byte_fallback or {}).items():
            if not (isinstance(b, int) and 0 <= b < 256):
                raise LbpeError(f"byte fallback key {b!r} is not a byte value")
            if i in ordinary or i in seen:
                raise LbpeError(f"id {i} is used by both {owner(i)!r} and byte fallback <0x{b:02X}>")
            seen[i] = f"<0x{b:02X}>"
        if self.byte_fallback is not None and len(self.byte_fallback) != 256:
            raise LbpeError(f"byte fallback needs all 256 <0xNN> tokens, found {len(self.byte_fallback)}")
        for i, parts in self.scaffold.items():
            if i not in ordinary or any(p not in ordinary for p in parts):
                raise LbpeError(f"scaffold token {i} -> {parts} names ids that are not ordinary tokens")
            if self.id_to_bytes[parts[0]] + self.id_to_bytes[parts[1]] != self.id_to_bytes[i]:
                raise LbpeError(f"scaffold token {i} is not the concatenation of tokens {parts}")
        if self.unk is not None and self.unk not in ordinary and self.unk not in seen:
            raise LbpeError(f"unknown-token id {self.unk} is not in the vocabulary")
        if self.unit == "byte":
            missing = [b for b in range(256) if bytes([b]) not in self.tokens]
            if missing:
                raise LbpeError(
                    f"byte-level vocabulary {self.name or '(unnamed)'} lacks single-byte tokens for "
                    f"{len(missing)} byte values (first: 0x{missing[0]:02x}); every byte must be a token"
                )

    # ---- pickling: the vocabulary itself, never what was derived from it ----

    def __getstate__(self) -> dict:
        """The fields above only. The tables derived from them (indexes, the cut finder, the
        compiled model and its caches) stay behind and are rebuilt on first use where the
        vocabulary is unpickled: a pickle is small and holds nothing process-bound."""
        return {name: getattr(self, name) for name in self.__slots__ if name != "__dict__"}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)

    # ---- derived data (computed once, on first use) ----

    @functools.cached_property
    def id_to_bytes(self) -> dict[int, bytes]:
        """id -> bytes for ordinary, special and byte-fallback tokens (the inverse of ``tokens``,
        ``special`` and ``byte_fallback``); :meth:`token_bytes` is the checked lookup of one id."""
        out = {i: key for key, i in self.tokens.items()}
        for text, i in self.special.items():
            out[i] = text.encode("utf-8")
        for b, i in (self.byte_fallback or {}).items():
            out[i] = bytes([b])
        return out

    @functools.cached_property
    def n_vocab(self) -> int:
        """One more than the largest id (ids may have gaps)."""
        return max(self.id_to_bytes) + 1

    @functools.cached_property
    def max_len(self) -> int:
        """Length of the longest token LBPE may use, in units (the paper's ``m``)."""
        return max(len(k) for k, i in self.model_tokens.items() if i not in self.scaffold)

    @functools.cached_property
    def model_tokens(self) -> dict:
        """Ordinary tokens -> id, each spelled as the model stage sees it (a *key*): a string of
        units, so ``tokens`` itself for byte units and token text for character units."""
        if self.unit == "byte":
            return self.tokens
        return {k.decode("utf-8"): i for k, i in self.tokens.items()}

    @functools.cached_property
    def model_merges(self) -> dict | None:
        """``merges`` with both halves spelled as keys (see :attr:`model_tokens`)."""
        if self.merges is None or self.unit == "byte":
            return self.merges
        return {(a.decode("utf-8"), b.decode("utf-8")): r for (a, b), r in self.merges.items()}

    @functools.cached_property
    def prefix_index(self) -> dict:
        """LBPE's index over :attr:`model_tokens` minus scaffold tokens: every token -> id, every
        proper prefix -> -1."""
        if not self.scaffold:
            return build_prefix_index(self.model_tokens)
        return build_prefix_index({k: i for k, i in self.model_tokens.items() if i not in self.scaffold})

    @functools.cached_property
    def suffix_index(self) -> dict:
        """The mirror of :attr:`prefix_index` for longest-suffix: every token (scaffold tokens
        left out) -> id, every proper suffix of one -> -1."""
        return build_suffix_index({k: i for k, i in self.prefix_index.items() if i != -1})

    @functools.cached_property
    def long_tokens(self) -> LongTokens:
        """The tokens of :attr:`prefix_index` longer than LBPE walks, for its scan of long windows."""
        return long_tokens(self.prefix_index)

    @functools.cached_property
    def cut_finder(self) -> CutFinder:
        """Splits pieces where no token (nor any merge result) can cross; see :mod:`lbpe.model.cuts`."""
        keys = list(self.model_tokens)
        if self.model_merges is not None:
            keys += [a + b for a, b in self.model_merges]
        return CutFinder(keys, unit=self.unit)

    def forget_text(self) -> None:
        """Forget what was remembered about characters met in text (the cut finder's memos),
        without building any table that has not been built yet."""
        finder = self.__dict__.get("cut_finder")  # where cached_property keeps a built value
        if finder is not None:
            finder.clear()
        compiled = native.built_model(self)
        if compiled is not None:
            compiled.clear_cache()

    def expand_scaffold(self, ids: list[int]) -> list[int]:
        """Replace every scaffold token in ``ids`` by the normal tokens it was built from."""
        scaffold = self.scaffold
        if not scaffold or not any(i in scaffold for i in ids):
            return ids
        out: list[int] = []
        stack: list[int] = []
        for i in ids:
            stack.append(i)
            while stack:
                j = stack.pop()
                parts = scaffold.get(j)
                if parts is None:
                    out.append(j)
                else:
                    stack += (parts[1], parts[0])
        return out

    def fallback_ids(self, char: str) -> list[int]:
        """Ids for one character that has no token (character-level vocabularies)."""
        if self.byte_fallback is not None:
            return [self.byte_fallback[b] for b in char.encode("utf-8")]
        if self.unk is not None:
            return [self.unk]
        raise no_token_error(char, self.name)

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token (ordinary or special)."""
        try:
            return self.id_to_bytes[token_id]
        except (KeyError, TypeError):
            raise LbpeError(
                f"token id {token_id!r} is not in the vocabulary (ids run from 0 to {self.n_vocab - 1})"
            ) from None

    def __len__(self) -> int:
        return len(self.tokens) + len(self.special) + len(self.byte_fallback or ())

    def __repr__(self) -> str:
        kind = "merge list" if self.merges is not None else "ranks"
        return (
            f"Vocab(name={self.name!r}, tokens={len(self.tokens)}, special={len(self.special)}, "
            f"unit={self.unit!r}, {kind})"
        )
