"""The pipeline: pre-tokenise -> encode each piece (cached) -> ids, and back.

This module owns :class:`Tokenizer` (special and added tokens, the normaliser, the
pre-tokeniser, the model stage per piece with its caches, decoding, segments for display) and
:class:`Segment`, one token located in the text.

>>> from lbpe.vocab import Vocab
>>> tokens = {bytes([b]): b for b in range(256)}
>>> tokens.update({b"aa": 256, b"bb": 257, b"bbb": 258, b"ab": 259, b"aab": 260})
>>> tok = Tokenizer(Vocab(tokens), "paper")
>>> tok.encode("aabbb", mode="bpe"), tok.encode("aabbb", mode="lbpe")
([256, 258], [260, 257])
>>> tok.decode([260, 257])
'aabbb'
"""

from __future__ import annotations

import os
import re
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from contextlib import nullcontext
from dataclasses import dataclass
from itertools import chain, compress, repeat
from operator import is_
from typing import Any, Literal, cast

from lbpe import budget, native
from lbpe.errors import DisallowedSpecialError, LbpeError
from lbpe.literals import MAX_ADDED_TOKEN_CHARS, Literals
from lbpe.model import MODES, Mode
from lbpe.model.bpe import bpe_by_merges, bpe_by_rank
from lbpe.model.lbpe import longest_first
from lbpe.normalize import Normalizer
from lbpe.pretokenize.compiled import PresetPattern
from lbpe.pretokenize.splitters import Regex, Splitter
from lbpe.pretokenize.splitters import Sequence as Steps
from lbpe.user_regex import deadline
from lbpe.vocab import Vocab

__all__ = ["Tokenizer", "Segment", "Mode", "MODES", "replace_surrogates"]


#: Default bound on the number of cached pieces per mode.
DEFAULT_CACHE_SIZE = 200_000
#: Longer pieces are not cached (they rarely repeat and would pin memory).
_CACHED_PIECE_CHARS = 256
_NO_NAMES: frozenset[str] = frozenset()
#: Bound on the number of cached parts of pieces (see :mod:`lbpe.model.cuts`) per mode.
_PART_CACHE_SIZE = 100_000


@dataclass(frozen=True, slots=True)
class Segment:
    """One token of a segmentation, located in the original text.

    ``start``/``end`` are character offsets into the text. A byte-level token that begins or
    ends inside a multi-byte character has ``partial=True``; its ``start``/``end`` cover every
    character it touches, so neighbouring partial tokens overlap. Draw partial tokens from
    ``token`` (their raw bytes, see :attr:`label`), never by decoding them on their own.
    """

    id: int
    start: int
    end: int
    token: bytes
    partial: bool = False
    special: bool = False

    @property
    def label(self) -> str:
        """Display text: the token's text, or ``\\xNN`` escapes for a partial UTF-8 token."""
        if self.partial:
            return "".join(f"\\x{b:02x}" for b in self.token)
        return self.token.decode("utf-8")

    @property
    def n_bytes(self) -> int:
        """Length of ``token`` in bytes (for any vocabulary, byte- or character-level)."""
        return len(self.token)


class Tokenizer:
    """A vocabulary plus a pre-tokeniser, encoding with classic BPE or with LBPE.

    Use :func:`lbpe.load` to build one from a file. The pipeline is: split out special and
    added tokens -> ``normalizer`` -> ``pretokenizer`` -> the model per piece -> ids.

    * ``pretokenizer``: a preset name (see :mod:`lbpe.pretokenize`), a compiled ``re`` pattern,
      or a :class:`~lbpe.pretokenize.splitters.Splitter`;
    * ``added_tokens``: non-special tokens matched in the text before anything else (HF);
    * ``decoder``: ids -> text, for vocabularies with their own decoding rules (HF decoders);
      the default joins the tokens' bytes and decodes them once as UTF-8 (U+FFFD for invalid
      bytes);
    * ``bos``/``eos``: ids added by ``encode(..., add_special_tokens=True)`` only;
    * ``pretokenizer_name``: how the pre-tokeniser is shown (default: the preset's name, the
      splitter's class name, or ``"custom"``).

    Piece encodings are cached per mode; each cache holds at most ``cache_size`` pieces (it is
    emptied when full, so memory stays bounded).
    """

    def __init__(
        self,
        vocab: Vocab,
        pretokenizer: str | re.Pattern[str] | PresetPattern | Splitter,
        *,
        name: str = "",
        normalizer: Normalizer | None = None,
        added_tokens: Mapping[str, int] | None = None,
        decoder: Callable[[Sequence[int]], str] | None = None,
        bos: Sequence[int] = (),
        eos: Sequence[int] = (),
        cache_size: int = DEFAULT_CACHE_SIZE,
        pretokenizer_name: str = "",
    ) -> None:
        self.vocab = vocab
        if isinstance(pretokenizer, Splitter):
            self.pretokenizer_name = pretokenizer_name or type(pretokenizer).__name__
            self._splitter: Splitter = pretokenizer
        else:
            self.pretokenizer_name = pretokenizer_name or (pretokenizer if isinstance(pretokenizer, str) else "custom")
            self._splitter = Regex(pretokenizer)
        self._findall = self._splitter.findall
        # a preset the compiled path splits itself (None: the splitter's findall does)
        self._preset_code = native.preset_code(self._splitter.pattern) if isinstance(self._splitter, Regex) else None
        self.normalizer = normalizer
        # patterns from a file may run in the normaliser or the splitter: one time allowance per
        # text for all of them (lbpe.user_regex); a preset splitter alone needs none
        self._guarded = normalizer is not None or not isinstance(self._splitter, Regex)
        self.added_tokens: dict[str, int] = dict(added_tokens or {})
        self._decoder = decoder
        self.bos, self.eos = list(bos), list(eos)
        self._added_bytes = {i: t.encode("utf-8") for t, i in self.added_tokens.items()}
        self.name = name or vocab.name
        self.cache_size = cache_size
        # piece -> ids; tuples of ints, which the garbage collector stops tracking
        self._caches: dict[str, dict[str, tuple[int, ...]]] = {"bpe": {}, "lbpe": {}}
        self._split: dict[str, Callable[[str], list]] = {"bpe": self._bpe_keys, "lbpe": self._lbpe_keys}
        # part of a piece -> keys, for pieces split at cuts (lbpe.model.cuts)
        self._part_caches: dict[str, dict[str, tuple]] = {"bpe": {}, "lbpe": {}}
        self._specials: Literals | None = None
        matched = set(vocab.special) | set(self.added_tokens)
        if matched:
            longest = max(matched, key=len)
            if len(longest) > MAX_ADDED_TOKEN_CHARS:
                raise LbpeError(
                    f"the added or special token {longest[:40]!r}... is {len(longest):,} characters long; lbpe matches "
                    f"added and special tokens of at most {MAX_ADDED_TOKEN_CHARS} characters (real tokenizers use "
                    "under 40), so that finding them in a text stays fast: shorten or drop it in the file"
                )
            self._specials = Literals(matched)

    def __repr__(self) -> str:
        return f"Tokenizer(name={self.name!r}, pattern={self.pretokenizer_name!r}, vocab={self.vocab!r})"

    # ---- pickling (worker processes, datasets.map, Ray): caches stay behind ----

    # bound to this object or process, or derived: rebuilt
    _UNPICKLED = ("_findall", "_split", "_preset_code", "_continuation")

    def __getstate__(self) -> dict:
        """Everything that defines the tokenizer; the piece caches travel empty."""
        state = {k: v for k, v in self.__dict__.items() if k not in self._UNPICKLED}
        state["_caches"] = {mode: {} for mode in self._caches}
        state["_part_caches"] = {mode: {} for mode in self._part_caches}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._findall = self._splitter.findall
        # this process's compiled path (it may lack the extension, or not have set it up yet)
        self._preset_code = native.preset_code(self._splitter.pattern) if isinstance(self._splitter, Regex) else None
        self._split = {"bpe": self._bpe_keys, "lbpe": self._lbpe_keys}

    def clear_cache(self) -> None:
        """Empty the piece caches (both modes) and what the vocabulary remembered about text it
        has seen, keeping the tables built from the vocabulary itself. The next encode runs
        cold: every piece is encoded anew."""
        for cache in (*self._caches.values(), *self._part_caches.values()):
            cache.clear()
        self.vocab.forget_text()  # also the compiled path's piece caches, kept with the vocabulary

    def continued(self) -> Tokenizer | None:
        """This tokenizer for a text that continues another one right after a line end (see
        :meth:`safe_cut`): itself when nothing in the pipeline looks at the start of a text; for
        a SentencePiece-style pipeline (a normaliser that puts ``▁`` before each text, no
        pre-tokeniser) the same tokenizer without that prefix, sharing the vocabulary and the
        piece caches; ``None`` when no such promise can be made (a normaliser that strips or
        squeezes white space, a character map, a pattern from a file, a pre-tokeniser after a
        normaliser)."""
        if self.normalizer is None:
            return self
        if "_continuation" not in self.__dict__:
            self._continuation = self._continued()
        return self._continuation

    def _continued(self) -> Tokenizer | None:
        cont = self.normalizer.continued() if self.normalizer is not None else None
        splitter = self._splitter
        if cont is None or not isinstance(splitter, Steps) or splitter.steps:  # no pre-tokeniser only
            return None
        # a line end that no token and no added token contains cannot be crossed by a merge or an
        # LBPE span (lbpe.model.cuts), so the text after it encodes on its own
        newline: str | bytes = "\n" if self.vocab.unit == "char" else b"\n"
        if any(newline in key for key in self.vocab.model_tokens) or any("\n" in t for t in self.added_tokens):
            return None
        other = object.__new__(Tokenizer)
        other.__dict__.update(self.__dict__)  # the same vocabulary, splitter and piece caches
        other.normalizer = cont
        other._continuation = other
        other._split = {"bpe": other._bpe_keys, "lbpe": other._lbpe_keys}
        return other

    def safe_cut(self, text: str) -> int | None:
        """A piece boundary ``c`` of ``text`` such that ``text[:c]`` on its own splits into the
        same pieces as it does inside ``text``, and the pieces from ``c`` on do not depend on
        what precedes ``c`` (the presets have no look-behind), and white space on one side of
        ``c`` (words stay whole). Chunks cut there encode exactly like the whole text.

        A SentencePiece-style pipeline (see :meth:`continued`) is cut right after the last line
        end that a visible ASCII character with a token follows: ``text[:c]`` encodes with this
        tokenizer, the rest with :meth:`continued`, and together they give the whole text's ids.

        ``None`` when the pipeline has another normaliser or a non-regex pre-tokeniser, or no
        such boundary is found near the end."""
        if self.normalizer is not None:
            if self.continued() is None:
                return None
            keys = self.vocab.model_tokens
            end = len(text) - 1  # the line end needs a character after it
            while end > 0:
                at = text.rfind("\n", 0, end)
                if at < 0 or len(text) - at > 1 << 16:
                    return None
                after = text[at + 1]
                if "!" <= after <= "~" and (after if self.vocab.unit == "char" else after.encode()) in keys:
                    return at + 1
                end = at
            return None
        if not isinstance(self._splitter, Regex):
            return None
        pattern = self._splitter.pattern
        if self._preset_code is not None and native.model_for(self.vocab) is not None:
            # the compiled splitter counts the pieces and keeps the last starts only
            total, starts = native.last_starts(text, self._preset_code, 16)
        else:
            starts = [m.start() for m in pattern.finditer(text)]
            total = len(starts)
        offset = total - len(starts)  # index in all the pieces of starts[0]
        ends = starts[1:] + [len(text)]
        for k in range(total - 2, max(total - 12, 0), -1):
            cut = starts[k - offset]
            first = max(k - 4, 0) - offset
            start = starts[first]
            if cut <= 0 or not (text[cut - 1].isspace() or text[cut].isspace()):
                continue  # also keep words (white-space separated) whole, for word counts
            alone = [m.group() for m in pattern.finditer(text, start, cut)]
            if alone == [text[a:b] for a, b in zip(starts[first : k - offset], ends[first : k - offset])]:
                return cut
        return None

    def pieces(self, text: str) -> list[str]:
        """The pre-tokens of ``text`` (after normalisation), as the model sees them."""
        with self._deadline(text):
            if self.normalizer is not None:
                text = self.normalizer(text)
            return self._findall(text)

    @property
    def n_vocab(self) -> int:
        return self.vocab.n_vocab

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self.vocab.special)

    # ---- the model stage for one piece ----

    def _to_units(self, piece: str) -> bytes | str:
        """``piece`` as a string of the vocabulary's units: its UTF-8 bytes, or itself."""
        return piece.encode("utf-8") if self.vocab.unit == "byte" else piece

    def _bpe_keys(self, piece: str) -> list:
        vocab = self.vocab
        units = self._to_units(piece)
        if vocab.whole_piece_first and units in vocab.model_tokens:
            keys = [units]
        else:
            keys = self._by_parts(piece, units, "bpe", self._bpe_of_units)
        return self._split_scaffold(keys) if vocab.scaffold else keys

    def _split_scaffold(self, keys: list) -> list:
        """Scaffold-BPE: split scaffold tokens among ``keys`` back into their parts."""
        vocab = self.vocab
        out = []
        for key in keys:
            i = vocab.model_tokens.get(key)
            if i is None or i not in vocab.scaffold:
                out.append(key)
                continue
            for j in vocab.expand_scaffold([i]):
                token = vocab.id_to_bytes[j]
                out.append(token if vocab.unit == "byte" else token.decode("utf-8"))
        return out

    def _bpe_of_units(self, units: bytes | str) -> list:
        """Classic BPE of a piece's units (no whole-piece shortcut, no scaffold splitting)."""
        vocab = self.vocab
        merges = vocab.model_merges
        if merges is None:
            return bpe_by_rank(units, vocab.model_tokens)
        return bpe_by_merges(units, merges)

    def _lbpe_of_units(self, units: bytes | str) -> list:
        vocab = self.vocab
        return longest_first(units, vocab.prefix_index, vocab.max_len, long=vocab.long_tokens)

    def _lbpe_keys(self, piece: str) -> list:
        return self._by_parts(piece, self._to_units(piece), "lbpe", self._lbpe_of_units)

    def _by_parts(self, piece: str, units: bytes | str, mode: Mode, model: Callable[[bytes | str], list]) -> list:
        """``model`` over the piece's ``units``, or over its parts where it has cuts
        (lbpe.model.cuts), each part's keys cached. Only non-ASCII pieces are tried: English and
        code have few cuts, while runs of Chinese or Japanese are long pieces made of words that
        repeat."""
        if piece.isascii():
            return model(units)
        parts = self.vocab.cut_finder.split(piece)
        if len(parts) == 1:
            return model(units)
        cache = self._part_caches[mode]
        found = list(map(cache.get, parts))
        if None in found:
            for k, part in enumerate(parts):
                if found[k] is None:
                    keys = cache.get(part)
                    if keys is None:
                        keys = tuple(model(self._to_units(part)))
                        if len(cache) >= _PART_CACHE_SIZE:
                            cache.clear()
                        cache[part] = keys
                    found[k] = keys
        return list(chain.from_iterable(cast("list[tuple]", found)))  # every part is found now

    def _key_ids(self, keys: Sequence) -> list[int]:
        """Ids of the model's keys; a character with no token takes the fallback ids."""
        table = self.vocab.model_tokens
        if self.vocab.unit == "byte":
            return list(map(table.__getitem__, keys))
        return [i for ids in self._key_groups(keys) for i in ids]

    def _key_groups(self, keys: Sequence[str]) -> list[list[int]]:
        """Per key, its ids (character units); a key fused into the unknown token before it
        gets an empty list."""
        table = self.vocab.model_tokens
        fuse = self.vocab.fuse_unk
        unk = self.vocab.unk
        out: list[list[int]] = []
        prev_unk = False
        for k in keys:
            i = table.get(k)
            if i is not None:
                out.append([i])
                prev_unk = False
                continue
            ids = self.vocab.fallback_ids(k)
            if fuse and ids == [unk]:
                out.append([] if prev_unk else ids)
                prev_unk = True
            else:
                out.append(ids)
                prev_unk = False
        return out

    def split_piece(self, piece: str, *, mode: Mode) -> list[bytes]:
        """The model stage alone on one pre-token (as :meth:`pieces` gives them): its tokens as
        bytes; no cache, no pre-tokenisation. A character without a token (character-level
        vocabularies) comes back as its own bytes; encoding gives it byte-fallback ids.

        >>> tok = Tokenizer(Vocab({bytes([b]): b for b in range(256)} | {b"ab": 256, b"bc": 257}), "paper")
        >>> tok.split_piece("abc", mode="bpe"), tok.split_piece("xbc", mode="lbpe")
        ([b'ab', b'c'], [b'x', b'bc'])
        """
        keys = self._split[_check_mode(mode)](piece)
        return keys if self.vocab.unit == "byte" else [k.encode("utf-8") for k in keys]

    # ---- encoding ----

    def encode_ordinary(self, text: str, *, mode: Mode) -> list[int]:
        """Encode ``text`` treating special-token strings as ordinary text."""
        _check_mode(mode)
        text = _checked_text(text)
        if self._guarded:
            with deadline(len(text)):
                return self._encode_guarded(text, mode)
        return self._encode_ordinary(text, mode, text)

    def _encode_guarded(self, text: str, mode: Mode) -> list[int]:
        original = text
        if self.normalizer is not None:
            try:
                text = self.normalizer(text)
            except UnicodeEncodeError:  # a normaliser that works on UTF-8 met a lone surrogate
                return self._without_surrogates(original, mode)
        return self._encode_ordinary(text, mode, original)

    def _encode_ordinary(self, text: str, mode: Mode, original: str) -> list[int]:
        """The pieces of the (normalised) ``text`` encoded; ``original``: the text before the
        normaliser, to encode again when it holds a lone surrogate."""
        cache = self._caches[mode]
        split = self._split[mode]
        key_ids = self._key_ids
        limit = self.cache_size
        model = native.model_for(self.vocab)
        if model is not None:  # the compiled path (lbpe/_native.c): the same ids, faster
            left = budget.remaining()  # a request's time budget (lbpe.budget), checked in C
            if left == 0.0:
                raise budget.spent()
            seconds = left or 0.0
            try:
                if self._preset_code is not None:
                    return model.encode_text(
                        text,
                        self._preset_code,
                        lbpe=mode == "lbpe",
                        limit=limit,
                        cached_chars=_CACHED_PIECE_CHARS,
                        seconds=seconds,
                    )
                return model.encode_pieces(
                    self._findall(text),
                    lbpe=mode == "lbpe",
                    limit=limit,
                    cached_chars=_CACHED_PIECE_CHARS,
                    seconds=seconds,
                )
            except UnicodeEncodeError:
                return self._without_surrogates(original, mode)
            except TimeoutError:
                raise budget.spent() from None
        pieces = self._findall(text)
        found = list(map(cache.get, pieces))  # the common case: every piece seen before
        if None in found:
            try:
                # each distinct new piece once, in order of first appearance
                new: dict[str, Any] = dict.fromkeys(compress(pieces, map(is_, found, repeat(None))))
                for piece in new:
                    budget.check()
                    new[piece] = tuple(key_ids(split(piece)))
            except UnicodeEncodeError:
                return self._without_surrogates(original, mode)
            found = list(map(new.get, pieces, found))
            if len(cache) + len(new) > limit:
                cache.clear()
            for piece, ids in new.items():
                if len(piece) <= _CACHED_PIECE_CHARS and len(cache) < limit:
                    cache[piece] = ids
        return list(chain.from_iterable(cast("list[tuple[int, ...]]", found)))

    def _without_surrogates(self, text: str, mode: Mode) -> list[int]:
        """Lone surrogates cannot be UTF-8 encoded: encode the text with them replaced by
        U+FFFD (surrogate pairs joined), as tiktoken does. The replacement is made on the text
        as given, before any normaliser, so the normaliser runs once."""
        fixed = replace_surrogates(text)
        if fixed is text:  # the surrogate came from the vocabulary's own normaliser
            raise LbpeError(f"vocabulary {self.name or '(unnamed)'}: its normaliser produced a lone surrogate")
        return self.encode_ordinary(fixed, mode=mode)

    def encode(
        self,
        text: str,
        *,
        mode: Mode,
        allowed_special: Literal["all"] | AbstractSet[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
        add_special_tokens: bool = False,
    ) -> list[int]:
        """Encode ``text`` with ``mode`` ``"bpe"`` or ``"lbpe"``.

        Special tokens follow tiktoken's rules: a special-token string in the text raises
        :class:`~lbpe.errors.DisallowedSpecialError` unless it is in ``allowed_special`` (then it
        becomes that special token) or excluded from ``disallowed_special`` (then it is
        encoded as ordinary text). Added (non-special) tokens are always matched.
        ``add_special_tokens=True`` adds the vocabulary's BOS/EOS ids (off by default, so counts
        never silently include them). Lone surrogates in ``text`` (which UTF-8 cannot encode) are
        replaced by U+FFFD and surrogate pairs joined before encoding, as tiktoken does, so
        ``decode(encode(text)) == replace_surrogates(text)``. There is no size limit here (see
        :mod:`lbpe.limits` for the caps the CLI and the app apply to untrusted input).
        """
        out: list[int] = []
        if add_special_tokens:
            out += self.bos
        with self._deadline(text):
            for is_special, chunk in self._chunks(text, allowed_special, disallowed_special):
                if is_special:
                    out.append(self._matched_id(chunk))
                else:
                    out += self.encode_ordinary(chunk, mode=mode)
        if add_special_tokens:
            out += self.eos
        return out

    def _deadline(self, text: object) -> deadline | nullcontext:
        return deadline(len(text)) if self._guarded and isinstance(text, str) else nullcontext()

    def _matched_id(self, chunk: str) -> int:
        found = self.added_tokens.get(chunk)
        return self.vocab.special[chunk] if found is None else found

    def encode_batch(
        self,
        texts: Iterable[str],
        *,
        mode: Mode,
        workers: int | None = 1,
        allowed_special: Literal["all"] | AbstractSet[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
        add_special_tokens: bool = False,
    ) -> list[list[int]]:
        """Encode several texts, in order; ``mode``, ``allowed_special``, ``disallowed_special``
        and ``add_special_tokens`` apply to each as in :meth:`encode`.

        ``workers`` share the work (``None``: one per core). On the compiled path with a preset
        pre-tokeniser they are threads of the extension that run without the GIL; otherwise
        processes: this one and forks of it, which start with this tokenizer as it is (tables
        built, caches filled), so nothing is loaded again. Each text is encoded whole, so the ids
        equal encoding them one by one. Parallel work pays off for megabytes of text, not for a
        few short strings. Where processes cannot be forked (Windows, Pyodide) the texts of the
        pure path are encoded here, one by one.
        """
        _check_mode(mode)
        texts = [_checked_text(t) for t in texts]
        if workers is None:
            workers = os.cpu_count() or 1
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise LbpeError(f"workers must be a whole number >= 1 or None (one per core), not {workers!r}")
        model = native.model_for(self.vocab)
        if (
            workers > 1
            and len(texts) > 1
            and model is not None
            and self._preset_code is not None
            and self.normalizer is None
        ):
            return self._encode_batch_threads(
                model,
                texts,
                mode,
                workers,
                allowed_special=allowed_special,
                disallowed_special=disallowed_special,
                add_special_tokens=add_special_tokens,
            )
        if workers > 1 and len(texts) > 1 and hasattr(os, "fork") and sys.platform != "emscripten":
            from lbpe.batch import forked_encode

            special = dict(
                allowed_special=allowed_special,
                disallowed_special=disallowed_special,
                add_special_tokens=add_special_tokens,
            )
            return forked_encode(self, texts, mode=mode, workers=workers, special=special)
        return [
            self.encode(
                t,
                mode=mode,
                allowed_special=allowed_special,
                disallowed_special=disallowed_special,
                add_special_tokens=add_special_tokens,
            )
            for t in texts
        ]

    def _encode_batch_threads(
        self,
        model,
        texts: list[str],
        mode: Mode,
        workers: int,
        *,
        allowed_special: Literal["all"] | AbstractSet[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
        add_special_tokens: bool = False,
    ) -> list[list[int]]:
        """encode_batch on the compiled path: special tokens are found here, as encode() finds
        them, and every ordinary chunk goes to threads that run without the GIL."""
        plans: list[list[int | None]] = []
        ordinary: list[str] = []
        for text in texts:
            plan: list[int | None] = []
            for is_special, chunk in self._chunks(text, allowed_special, disallowed_special):
                if is_special:
                    plan.append(self._matched_id(chunk))
                else:
                    plan.append(None)
                    # a lone surrogate is replaced, as encode_ordinary does (ASCII has none)
                    ordinary.append(chunk if chunk.isascii() else replace_surrogates(chunk))
            plans.append(plan)
        encoded = iter(
            model.encode_batch(
                ordinary,
                self._preset_code,
                lbpe=mode == "lbpe",
                limit=self.cache_size,
                cached_chars=_CACHED_PIECE_CHARS,
                threads=workers,
            )
        )
        out = []
        for plan in plans:
            if plan == [None] and not add_special_tokens:  # the usual case: one ordinary chunk
                out.append(next(encoded))
                continue
            ids: list[int] = list(self.bos) if add_special_tokens else []
            for item in plan:
                if item is None:
                    ids += next(encoded)
                else:
                    ids.append(item)
            if add_special_tokens:
                ids += self.eos
            out.append(ids)
        return out

    def _chunks(
        self,
        text: str,
        allowed_special: Literal["all"] | AbstractSet[str],
        disallowed_special: Literal["all"] | Collection[str],
    ) -> list[tuple[bool, str]]:
        """Split text into (is_special, chunk) after checking for disallowed special tokens."""
        text = _checked_text(text)
        specials = self.vocab.special
        if allowed_special == "all":
            allowed: AbstractSet[str] = specials.keys()
        else:
            allowed = set(allowed_special) if allowed_special else _NO_NAMES
            unknown = allowed - specials.keys() if allowed else None
            if unknown:
                raise LbpeError(f"allowed_special names tokens this vocabulary does not have: {sorted(unknown)}")
        first = None if self._specials is None else self._specials.search(text)
        if first is None:  # no special or added token's text: nothing to match, nothing to refuse
            return [(False, text)]
        disallowed = specials.keys() - allowed if disallowed_special == "all" else set(disallowed_special)
        chunks: list[tuple[bool, str]] = []
        pos = 0
        for m in cast(Literals, self._specials).finditer(text, first.start()):
            found = m.group()
            if found in disallowed:
                raise DisallowedSpecialError(found)
            if found in allowed or found in self.added_tokens:
                if m.start() > pos:
                    chunks.append((False, text[pos : m.start()]))
                chunks.append((True, found))
                pos = m.end()
        if pos < len(text) or not chunks:
            chunks.append((False, text[pos:]))
        return chunks

    # ---- segmentation for display ----

    def segment(
        self,
        text: str,
        *,
        mode: Mode,
        allowed_special: Literal["all"] | AbstractSet[str] = frozenset(),
        disallowed_special: Literal["all"] | Collection[str] = "all",
    ) -> list[Segment]:
        """Encode ``text`` and locate every token in it (character offsets); see :class:`Segment`."""
        split = self._split[_check_mode(mode)]
        text = replace_surrogates(_checked_text(text))
        out: list[Segment] = []
        offset = 0
        with self._deadline(text):
            for is_special, chunk in self._chunks(text, allowed_special, disallowed_special):
                if is_special:
                    i = self._matched_id(chunk)
                    out.append(
                        Segment(i, offset, offset + len(chunk), chunk.encode(), special=chunk in self.vocab.special)
                    )
                else:
                    out += self._segment_chunk(chunk, split, offset)
                offset += len(chunk)
        return out

    def located_pieces(
        self, text: str, *, allowed_special: Literal["all"] | AbstractSet[str] = frozenset()
    ) -> list[tuple[str, int, int, bool]] | None:
        """The pieces :meth:`segment` (with ``disallowed_special=()``) encodes one by one, where
        they lie in ``text``: ``(piece, start, end, special)``, a special or added token being a
        piece of its own; the segments of a piece depend on nothing else. ``None`` for a
        pipeline with a normaliser (its pieces are of the normalised text)."""
        if self.normalizer is not None:
            return None
        text = replace_surrogates(_checked_text(text))
        out: list[tuple[str, int, int, bool]] = []
        offset = 0
        with self._deadline(text):
            for is_special, chunk in self._chunks(text, allowed_special, ()):
                if is_special:
                    out.append((chunk, offset, offset + len(chunk), True))
                else:
                    out += [
                        (piece, start + offset, end + offset, False)
                        for piece, start, end in self._splitter.split(chunk)
                    ]
                offset += len(chunk)
        return out

    def special_spans(self, text: str) -> list[tuple[int, int]]:
        """Where :meth:`segment` finds the text of a special or added token in ``text`` (left to
        right, before it decides which become tokens)."""
        if self._specials is None:
            return []
        return [(m.start(), m.end()) for m in self._specials.finditer(text)]

    def _segment_chunk(self, chunk: str, split: Callable[[str], list], offset: int) -> list[Segment]:
        if self.normalizer is not None:
            norm, origin = self.normalizer.aligned(chunk)
        else:
            norm, origin = chunk, None
        out: list[Segment] = []
        for piece, start, end in self._splitter.split(norm):
            budget.check()
            keys = split(piece)
            if self.vocab.unit == "byte":
                segs = _locate_bytes(piece, keys, self._key_ids(keys), start)
            else:
                segs = self._locate_chars(keys, start)
            if len(piece) != end - start:  # the splitter rewrote the piece: stay inside its span
                segs = [_moved(s, min(max(s.start, start), end), min(max(s.end, start), end)) for s in segs]
            out += segs
        if origin is not None:
            size = len(chunk)

            def back(i: int, is_end: bool) -> int:
                if is_end:
                    return origin[i - 1] + 1 if 0 < i <= len(origin) else (size if i else 0)
                return origin[i] if i < len(origin) else size

            out = [_moved(s, back(s.start, False), max(back(s.end, True), back(s.start, False))) for s in out]
        if offset:
            out = [_moved(s, s.start + offset, s.end + offset) for s in out]
        return out

    def _locate_chars(self, keys: Sequence[str], pos: int) -> list[Segment]:
        """Segments of character-level keys; fallback bytes of one character share its span."""
        segs: list[Segment] = []
        for key, ids in zip(keys, self._key_groups(keys)):
            if not ids:  # fused into the unknown token before it
                segs[-1] = _moved(segs[-1], segs[-1].start, pos + len(key))
            elif len(ids) == 1 and key in self.vocab.model_tokens:
                segs.append(Segment(ids[0], pos, pos + len(key), key.encode("utf-8")))
            else:  # byte fallback (one token per UTF-8 byte) or the unknown token
                multi = len(ids) > 1
                for i in ids:
                    segs.append(Segment(i, pos, pos + len(key), self.vocab.token_bytes(i), partial=multi))
            pos += len(key)
        return segs

    # ---- decoding ----

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The tokens' bytes joined, in the vocabulary's own spelling (for SentencePiece-style
        vocabularies that keeps ``▁``; :meth:`decode` applies the vocabulary's decoder)."""
        id_to_bytes = self.vocab.id_to_bytes
        added = self._added_bytes
        try:
            return b"".join([id_to_bytes.get(i) or added[i] for i in ids])
        except (KeyError, TypeError) as exc:
            raise LbpeError(
                f"token id {exc.args[0]!r} is not in the vocabulary (ids run from 0 to {self.n_vocab - 1})"
            ) from None

    def decode(self, ids: Iterable[int], *, errors: str = "replace") -> str:
        """Decode ``ids`` to text (all bytes joined first, then decoded once as UTF-8, then the
        vocabulary's own decoder steps, e.g. ``▁`` back to spaces)."""
        if self._decoder is not None:
            return self._decoder(list(ids))
        return self.decode_bytes(ids).decode("utf-8", errors=errors)


def _moved(seg: Segment, start: int, end: int) -> Segment:
    return Segment(seg.id, start, end, seg.token, partial=seg.partial, special=seg.special)


def _check_mode(mode: str) -> Mode:
    if mode not in MODES:
        raise LbpeError(f"mode must be 'bpe' or 'lbpe', not {mode!r}")
    return mode


_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_surrogates(text: str) -> str:
    """Text that UTF-8 can encode: surrogate pairs joined, lone surrogates -> U+FFFD (as tiktoken)."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _checked_text(text: object) -> str:
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}; decode bytes first")
    return text


def _locate_bytes(piece: str, keys: Sequence[bytes], ids: Sequence[int], char_offset: int) -> list[Segment]:
    """Place the byte tokens of one piece at character offsets (see :class:`Segment`)."""
    if piece.isascii():
        segs = []
        pos = char_offset
        for key, i in zip(keys, ids):
            segs.append(Segment(i, pos, pos + len(key), key))
            pos += len(key)
        return segs
    starts = [0]  # byte offset at which each character starts, plus the end
    for ch in piece:
        starts.append(starts[-1] + len(ch.encode("utf-8")))
    segs = []
    b = 0
    for key, i in zip(keys, ids):
        e = b + len(key)
        first = bisect_right(starts, b) - 1
        last = bisect_left(starts, e)
        partial = starts[first] != b or starts[last] != e
        segs.append(Segment(i, char_offset + first, char_offset + last, key, partial=partial))
        b = e
    return segs
