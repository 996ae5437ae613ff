"""The pipeline: special and added tokens -> normalise -> pre-tokenise -> the model per piece
(cached) -> ids, and back: :class:`Tokenizer`, which keeps its state (vocabulary, pipeline,
caches) and orchestrates the stages; what each stage does on its own lives beside it in
:mod:`lbpe.tokenizer` (``specials``, ``keys``, ``compiled``, ``offsets``, ``cuts``, ``checks``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from typing import TYPE_CHECKING, cast

from lbpe import budget, native
from lbpe.decoders import Decoder
from lbpe.errors import LbpeError, UnknownTokenError
from lbpe.model import Method, Mode
from lbpe.normalize import Normalizer
from lbpe.pretokenize.compiled import PresetPattern
from lbpe.pretokenize.splitters import Regex, Splitter
from lbpe.tokenizer import cuts, keys
from lbpe.tokenizer.bulk import CACHED_PIECE_CHARS, BulkEncoding
from lbpe.tokenizer.checks import (
    Dropout,
    checked_added,
    checked_ends,
    checked_flag,
    dropout_options,
    replace_surrogates,
)
from lbpe.tokenizer.checks import check_mode as _check_mode
from lbpe.tokenizer.checks import checked_ids as _checked_ids
from lbpe.tokenizer.checks import checked_text as _checked_text
from lbpe.tokenizer.compiled import compiled_ids
from lbpe.tokenizer.offsets import Segment, given_positions, in_given_text, located, segments
from lbpe.tokenizer.specials import (
    ALL_NAMES,
    NO_NAMES,
    SpecialNames,
    checked_names,
    nothing_to_find,
    special_matcher,
    split_specials,
)
from lbpe.user_regex import deadline
from lbpe.vocab import Vocab

if TYPE_CHECKING:
    pass

__all__ = ["Tokenizer", "DEFAULT_CACHE_SIZE"]


#: Default bound on the number of cached pieces per mode.
DEFAULT_CACHE_SIZE = 200_000


class Tokenizer(BulkEncoding):
    """A vocabulary plus a pre-tokeniser, encoding with classic BPE, LBPE or another inference
    method of :data:`lbpe.METHODS` (``mode=``).

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

    Piece encodings are cached per mode (BPE-dropout's never); each cache holds at most
    ``cache_size`` pieces (it is emptied when full, so memory stays bounded).
    """

    def __init__(
        self,
        vocab: Vocab,
        pretokenizer: str | re.Pattern[str] | PresetPattern | Splitter,
        *,
        name: str = "",
        normalizer: Normalizer | None = None,
        added_tokens: Mapping[str, int] | None = None,
        decoder: Decoder | Callable[[Sequence[int]], str] | None = None,
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
        # for a text after a special token (Metaspace's "first" puts no ▁ there)
        self._later_splitter = self._splitter.later()
        self._later_findall = self._later_splitter.findall
        self.normalizer = normalizer
        # patterns from a file may run in the normaliser or the splitter: one time allowance per
        # text for all of them (lbpe.user_regex); a preset splitter alone needs none
        self._guarded = normalizer is not None or not isinstance(self._splitter, Regex)
        self._bind_compiled()
        # with a decoder of a file's own, the file's reader checks its ids and spelling
        own = decoder is None
        self.added_tokens: dict[str, int] = checked_added(added_tokens, vocab, own_bytes=own)
        self._decoder = decoder
        added_ids = set(self.added_tokens.values())
        self.bos = checked_ends("bos", bos, vocab, added_ids, known=own)
        self.eos = checked_ends("eos", eos, vocab, added_ids, known=own)
        self._added_bytes = {i: t.encode("utf-8") for t, i in self.added_tokens.items()}
        self.name = name or vocab.name
        self.cache_size = cache_size
        # piece -> ids; tuples of ints, which the garbage collector stops tracking
        # (the other deterministic methods' caches are added on first use; BPE-dropout has none)
        self._caches: dict[str, dict[str, tuple[int, ...]]] = {"bpe": {}, "lbpe": {}}
        # part of a piece -> keys, for pieces split at cuts (lbpe.model.cuts)
        self._part_caches: dict[str, dict[str, tuple]] = {"bpe": {}, "lbpe": {}}
        self._split = self._splitters()
        self._specials = special_matcher(set(vocab.special) | set(self.added_tokens))

    def __repr__(self) -> str:
        return f"Tokenizer(name={self.name!r}, pattern={self.pretokenizer_name!r}, vocab={self.vocab!r})"

    # ---- pickling (worker processes, datasets.map, Ray): caches stay behind ----

    # bound to this object or process, or derived: rebuilt
    _UNPICKLED = (
        "_findall",
        "_later_splitter",
        "_later_findall",
        "_split",
        "_preset_code",
        "_plain_code",
        "_compiled",
        "_continuation",
    )

    def __getstate__(self) -> dict:
        """Everything that defines the tokenizer; the piece caches travel empty."""
        state = {k: v for k, v in self.__dict__.items() if k not in self._UNPICKLED}
        state["_caches"] = {mode: {} for mode in self._caches}
        state["_part_caches"] = {mode: {} for mode in self._part_caches}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._findall = self._splitter.findall
        self._later_splitter = self._splitter.later()
        self._later_findall = self._later_splitter.findall
        self._bind_compiled()  # this process's (it may lack the extension, or not have set it up yet)
        self._split = self._splitters()

    def _bind_compiled(self) -> None:
        """What the compiled path needs of this tokenizer in this process: the code of the
        preset it splits with itself (``None``: the splitter's findall splits), that code again
        where the quick call applies (a preset and nothing before it), and the vocabulary's
        model, fetched on the quick call's first use."""
        self._preset_code = native.splitter_code(self._splitter)
        self._plain_code = None if self._guarded else self._preset_code
        self._compiled: native.CompiledModel | None = None

    def clear_cache(self) -> None:
        """Empty the piece caches (every method's) and what the vocabulary remembered about text
        it has seen, keeping the tables built from the vocabulary itself. The next encode runs
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
        if self.normalizer is None:
            return None
        cont = cuts.continuation_normalizer(self.vocab, self.normalizer, self._splitter, self.added_tokens)
        if cont is None:
            return None
        other = object.__new__(Tokenizer)
        other.__dict__.update(self.__dict__)  # the same vocabulary, splitter and piece caches
        other.normalizer = cont
        other._continuation = other
        other._split = other._splitters()
        return other

    def safe_cut(self, text: str) -> int | None:
        """A piece boundary ``c`` of ``text`` such that ``text[:c]`` on its own splits into the
        same pieces as it does inside ``text``, and the pieces from ``c`` on do not depend on
        what precedes ``c`` (the presets have no look-behind), and white space on one side of
        ``c`` (words stay whole). Chunks cut there encode exactly like the whole text.

        A SentencePiece-style pipeline (see :meth:`continued`) is cut right after the last line
        end that a visible ASCII character with a token follows: ``text[:c]`` encodes with this
        tokenizer, the rest with :meth:`continued`, and together they give the whole text's ids.

        A normaliser before a regex pre-tokeniser (Qwen 3's NFC) is cut where the normalised
        text splits into pieces and the normaliser acts on each side as on the whole; before a
        pre-tokeniser that cuts at one string or nowhere (Gemma 3), where no token holds the
        units on both sides.

        ``None`` when the pipeline has another normaliser or a non-regex pre-tokeniser, or no
        such boundary is found near the end."""
        if self.normalizer is not None:
            if self.continued() is not None:
                return cuts.line_end_cut(text, self.vocab)
            if isinstance(self._splitter, Regex):
                pattern = self._splitter.pattern
                return cuts.normalized_piece_cut(text, self.normalizer, pattern, self._preset_code, self.vocab)
            delimiter = cuts.literal_delimiter(self._splitter)
            if delimiter is None:
                return None
            if "_unit_pairs" not in self.__dict__:
                self._unit_pairs = cuts.unit_pairs(self.vocab, [*self.vocab.special, *self.added_tokens])
            return cuts.unmerged_cut(text, self.normalizer, delimiter, self.vocab, self._unit_pairs)
        if not isinstance(self._splitter, Regex):
            return None
        return cuts.piece_cut(text, self._splitter.pattern, self._preset_code, self.vocab)

    def pieces(self, text: str) -> list[str]:
        """The pre-tokens of ``text`` (after normalisation), as the model sees them."""
        return self._pieces(text, True)

    def _pieces(self, text: str, first: bool) -> list[str]:
        """:meth:`pieces` of ``text``; ``first`` false for a text after a special or added token."""
        text = _checked_text(text)
        with self._deadline(text):
            if self.normalizer is not None:
                text = self.normalizer(text)
            return (self._findall if first else self._later_findall)(text)

    def _splitter_at(self, first: bool) -> Splitter:
        """The splitter of a text that starts the input (``first``) or follows a special token."""
        return self._splitter if first else self._later_splitter

    def _ordinary_part(self, text: str, *, mode: Method, first: bool) -> list[int]:
        """:meth:`encode_ordinary` of a part of a text (between its special or added tokens);
        ``first`` false for a part after one (Metaspace's "first" puts no ``▁`` there)."""
        if first:
            return self.encode_ordinary(text, mode=mode)
        mode = _check_mode(mode)
        return cast(
            "list[int]", self._ordinary(_checked_text(text), mode, dropout_options(mode, None, None), first=False)
        )

    @property
    def n_vocab(self) -> int:
        """One more than the largest id an encoding can hold: the vocabulary's tokens, special
        tokens and added tokens (tiktoken's ``n_vocab``; ids may have gaps)."""
        return max(self.vocab.n_vocab, max(self.added_tokens.values(), default=-1) + 1)

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self.vocab.special)

    # ---- tiktoken's names for what the vocabulary holds ----

    @property
    def special_tokens_set(self) -> set[str]:
        """The special tokens' texts (tiktoken's ``special_tokens_set``)."""
        return set(self.vocab.special)

    @property
    def max_token_value(self) -> int:
        """The largest id an encoding can hold, ``n_vocab - 1`` (tiktoken's ``max_token_value``)."""
        return self.n_vocab - 1

    @property
    def eot_token(self) -> int:
        """The id of the special (or added) token ``<|endoftext|>`` (tiktoken's ``eot_token``); a
        vocabulary without it raises :class:`lbpe.errors.UnknownTokenError`, naming the ones it has.

        >>> from lbpe import load_preset
        >>> load_preset("gpt2").eot_token
        50256
        """
        try:
            return {**self.added_tokens, **self.vocab.special}["<|endoftext|>"]
        except KeyError:
            raise UnknownTokenError(
                f"this vocabulary has no special token '<|endoftext|>'; its special tokens: "
                f"{sorted(self.vocab.special)[:8] or 'none'} (special_tokens has their ids)"
            ) from None

    def encode_single_token(self, text_or_bytes: str | bytes) -> int:
        """The id of the one token spelled ``text_or_bytes`` (a str is taken as its UTF-8): an
        ordinary token, else a byte piece (``<0x41>``, where no ordinary token is that byte),
        else a special or added one, as tiktoken looks it up. Anything else raises
        :class:`lbpe.errors.UnknownTokenError` (a ``KeyError``, as tiktoken's).

        >>> from lbpe import load_preset
        >>> load_preset("cl100k_base").encode_single_token(" hello")
        24748
        """
        if isinstance(text_or_bytes, str):
            data = text_or_bytes.encode("utf-8", "surrogatepass")
        elif isinstance(text_or_bytes, (bytes, bytearray, memoryview)):
            data = bytes(text_or_bytes)
        else:
            raise TypeError(f"text_or_bytes must be str or bytes, not {type(text_or_bytes).__name__}")
        found = self.vocab.tokens.get(data)
        if found is None and len(data) == 1 and self.vocab.byte_fallback:  # a byte piece, <0xNN>
            found = self.vocab.byte_fallback.get(data[0])
        if found is not None:
            return found
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None:
            found = self.vocab.special.get(text, self.added_tokens.get(text))
            if found is not None:
                return found
        hint = ": encode it to get its tokens" if isinstance(text_or_bytes, str) else ""
        if self.vocab.unit == "char":
            hint += " (this vocabulary spells a space \u2581)"
        raise UnknownTokenError(f"no single token is {text_or_bytes!r:.80}{hint}")

    def decode_single_token_bytes(self, token: int) -> bytes:
        """The bytes of one token, in the vocabulary's own spelling (tiktoken's name); an id that
        is no token raises :class:`lbpe.errors.UnknownTokenError` (a ``KeyError``, as tiktoken's).

        >>> from lbpe import load_preset
        >>> load_preset("cl100k_base").decode_single_token_bytes(24748)
        b' hello'
        """
        try:
            return self._joined(_checked_ids([token]))
        except UnknownTokenError:
            raise
        except LbpeError as exc:
            raise UnknownTokenError(str(exc)) from None

    def token_byte_values(self) -> list[bytes]:
        """Every ordinary token's bytes, sorted (tiktoken's ``token_byte_values``: the tokens
        merges make; not special tokens, nor a SentencePiece-style vocabulary's byte pieces)."""
        return sorted(self.vocab.tokens)

    # ---- the model stage for one piece (lbpe.tokenizer.keys), with this tokenizer's part caches ----

    def _to_units(self, piece: str) -> bytes | str:
        return keys.to_units(self.vocab, piece)

    def _bpe_keys(self, piece: str) -> list:
        return keys.bpe_keys(self.vocab, self._part_caches["bpe"], piece)

    def _split_scaffold(self, keys_: list) -> list:
        return keys.split_scaffold(self.vocab, keys_)

    def _bpe_of_units(self, units: bytes | str) -> list:
        return keys.bpe_of_units(self.vocab, units)

    def _lbpe_keys(self, piece: str) -> list:
        return keys.lbpe_keys(self.vocab, self._part_caches["lbpe"], piece)

    def _splitters(self) -> dict[str, Callable[[str], list]]:
        """piece -> keys for each deterministic method (BPE-dropout's takes its draws per call)."""
        parts = self._part_caches.setdefault
        return {
            "bpe": self._bpe_keys,
            "lbpe": self._lbpe_keys,
            "longest-prefix": lambda piece: keys.prefix_keys(self.vocab, parts("longest-prefix", {}), piece),
            "longest-suffix": lambda piece: keys.suffix_keys(self.vocab, parts("longest-suffix", {}), piece),
            "least-tokens": lambda piece: keys.fewest_keys(self.vocab, parts("least-tokens", {}), piece),
        }

    def _split_for(self, mode: Method, dropout: Dropout | None) -> Callable[[str], list]:
        if dropout is None:
            return self._split[mode]
        vocab, rate, draw = self.vocab, dropout.rate, dropout.draw
        return lambda piece: keys.dropout_keys(vocab, piece, rate, draw)

    def _by_parts(self, piece: str, units: bytes | str, mode: Mode, model: Callable[[bytes | str], list]) -> list:
        return keys.by_parts(self.vocab, self._part_caches[mode], piece, units, model)

    def _key_ids(self, keys_: Sequence) -> list[int]:
        return keys.key_ids(self.vocab, keys_)

    def split_piece(
        self, piece: str, *, mode: Method, dropout: float | None = None, seed: int | None = None
    ) -> list[bytes]:
        """The model stage alone on one pre-token (as :meth:`pieces` gives them): its tokens as
        bytes; no cache, no pre-tokenisation. A character without a token (character-level
        vocabularies) comes back as its own bytes; encoding gives it byte-fallback ids.
        ``dropout`` and ``seed``: as for :meth:`encode`.

        >>> tok = Tokenizer(Vocab({bytes([b]): b for b in range(256)} | {b"ab": 256, b"bc": 257}), "paper")
        >>> tok.split_piece("abc", mode="bpe"), tok.split_piece("xbc", mode="lbpe")
        ([b'ab', b'c'], [b'x', b'bc'])
        >>> tok.split_piece("abc", mode="longest-suffix"), tok.split_piece("abc", mode="dropout", dropout=1.0)
        ([b'a', b'bc'], [b'a', b'b', b'c'])
        """
        mode = _check_mode(mode)
        piece = replace_surrogates(_checked_text(piece))  # as encode takes a text
        found = self._split_for(mode, dropout_options(mode, dropout, seed))(piece)
        return found if self.vocab.unit == "byte" else [k.encode("utf-8") for k in found]

    # ---- encoding ----

    def encode_ordinary(
        self, text: str, *, mode: Method, dropout: float | None = None, seed: int | None = None
    ) -> list[int]:
        """Encode ``text`` treating special-token strings as ordinary text; ``mode``,
        ``dropout`` and ``seed`` as for :meth:`encode`."""
        if dropout is None and seed is None:
            ids = self._plain_ids(text, mode, False)
            if ids is not None:
                return ids
        mode = _check_mode(mode)
        options = dropout_options(mode, dropout, seed)
        text = _checked_text(text)
        if options is not None:
            text = replace_surrogates(text)  # before any draw, so the draws are those of the fixed text
        return cast("list[int]", self._ordinary(text, mode, options))

    def _plain_ids(self, text: object, mode: object, specials: bool) -> list[int] | None:
        """The ids of a text that needs none of the general path's steps, else ``None`` (then
        that path runs): a ``str``, a method the compiled path encodes with a preset pattern, no
        normaliser or pattern from a file, no time budget in force (:mod:`lbpe.budget`), and
        with ``specials``, no special or added token's text in it. The general path's own last
        call, without its layers of checks and chunks, which cost a short text as much as its
        encoding (so each check here is the cheapest that decides)."""
        code = self._plain_code
        if code is None or not native.enabled or type(text) is not str or type(mode) is not str:
            return None
        method = native.METHOD_CODES.get(mode)
        if method is None or budget.in_force() is not None:
            return None
        matcher = self._specials
        if specials and matcher is not None:
            first = matcher.first_char  # (a text without it holds no special token, without a call)
            if (first is None or first in text) and matcher.search(text):
                return None
        model = self._compiled
        if model is None:
            model = self._compiled = native.model_for(self.vocab)
            if model is None:
                return None
        try:
            return model.encode_text(  # type: ignore[return-value]  # a list without buffer=True
                text,
                code,
                method=method,
                limit=self.cache_size,
                cached_chars=CACHED_PIECE_CHARS,
                seconds=0.0,
                buffer=False,
            )
        except UnicodeEncodeError:  # a lone surrogate: the general path replaces it
            return None

    def _ordinary(
        self, text: str, mode: Method, dropout: Dropout | None, buffer: bool = False, first: bool = True
    ) -> list[int] | bytes:
        """``text``'s ids; with ``buffer``, bytes of native-endian int32 where the compiled path
        encodes it (no Python int per id), a list elsewhere. ``first``: whether ``text`` starts
        the input (it is not the text after a special token)."""
        if self._guarded:
            with deadline(len(text)):
                return self._encode_guarded(text, mode, dropout, buffer, first)
        return self._encode_ordinary(text, mode, text, dropout, buffer, first)

    def _encode_guarded(
        self, text: str, mode: Method, dropout: Dropout | None, buffer: bool = False, first: bool = True
    ) -> list[int] | bytes:
        original = text
        if self.normalizer is not None:
            try:
                text = self.normalizer(text)
            except UnicodeEncodeError:  # a normaliser that works on UTF-8 met a lone surrogate
                return self._without_surrogates(original, mode, first)
        return self._encode_ordinary(text, mode, original, dropout, buffer, first)

    def _encode_ordinary(
        self,
        text: str,
        mode: Method,
        original: str,
        dropout: Dropout | None,
        buffer: bool = False,
        first: bool = True,
    ) -> list[int] | bytes:
        """The pieces of the (normalised) ``text`` encoded; ``original``: the text before the
        normaliser, to encode again when it holds a lone surrogate. The compiled path encodes
        every deterministic method (:data:`lbpe.native.METHOD_CODES`); BPE-dropout, and every
        method on the pure path, runs the pure model stage on the compiled pre-tokeniser's
        pieces (or the splitter's)."""
        limit = self.cache_size
        findall = self._findall if first else self._later_findall
        model = native.model_for(self.vocab) if mode in native.METHOD_CODES else None
        try:
            if model is not None:  # the compiled path (lbpe/_native.c): the same ids, faster
                code = self._preset_code
                return compiled_ids(
                    model,
                    text,
                    code,
                    findall,
                    method=native.METHOD_CODES[mode],
                    limit=limit,
                    cached_chars=CACHED_PIECE_CHARS,
                    buffer=buffer,
                )
            pieces = native.pieces(text, self._preset_code)
            if pieces is None:
                pieces = findall(text)
            if dropout is not None:  # never cached: every piece, repeated or not, draws anew
                vocab, split = self.vocab, self._split_for(mode, dropout)
                out: list[int] = []
                for piece in pieces:
                    budget.check()
                    out += keys.key_ids(vocab, split(piece))
                return out
            cache, split = self._caches.setdefault(mode, {}), self._split[mode]
            return keys.cached_ids(self.vocab, pieces, cache, split, limit, CACHED_PIECE_CHARS)
        except UnicodeEncodeError:
            return self._without_surrogates(original, mode, first)

    def _without_surrogates(self, text: str, mode: Method, first: bool = True) -> list[int]:
        """Lone surrogates cannot be UTF-8 encoded: encode the text with them replaced by
        U+FFFD (surrogate pairs joined), as tiktoken does. The replacement is made on the text
        as given, before any normaliser, so the normaliser runs once."""
        fixed = replace_surrogates(text)
        if fixed is text:  # the surrogate came from the vocabulary's own normaliser
            raise LbpeError(f"vocabulary {self.name or '(unnamed)'}: its normaliser produced a lone surrogate")
        return self._ordinary_part(fixed, mode=mode, first=first)

    def encode(
        self,
        text: str,
        *,
        mode: Method,
        allowed_special: SpecialNames = NO_NAMES,
        disallowed_special: SpecialNames = ALL_NAMES,
        add_special_tokens: bool = False,
        dropout: float | None = None,
        seed: int | None = None,
    ) -> list[int]:
        """Encode ``text`` with ``mode``, one of :data:`lbpe.METHODS`:

        * ``"bpe"``: classic BPE, the vocabulary's own encoding; ``"lbpe"``: long tokens first;
        * ``"longest-prefix"``: greedy from the left, at each position the longest token that
          starts there; ``"longest-suffix"``: greedy from the right, at each end the longest
          token that ends there;
        * ``"least-tokens"``: the fewest tokens per pre-token; among equally few, the one whose
          token lengths read from the left are lexicographically largest (longest first);
        * ``"dropout"``: BPE-dropout, classic BPE with each merge skipped with probability
          ``dropout`` (required, from 0 to 1; 0 is ``"bpe"``, 1 leaves single units). ``seed``
          (0 or more) makes it reproducible (the same seed, text and options give the same
          ids; ``None``: fresh randomness). Every piece draws anew, so two equal pieces of one text may come
          out differently, as in BPE-dropout training; nothing is cached.

        ``dropout`` and ``seed`` are for ``"dropout"`` only. Every method works within a
        pre-token, on the vocabulary's units (bytes, or characters for SentencePiece-style
        vocabularies), with byte fallback and special tokens, so ``decode`` gives the text back.
        The compiled path encodes every method but ``"dropout"``, which runs in Python.

        Special tokens follow tiktoken's rules: a special-token string in the text raises
        :class:`~lbpe.errors.DisallowedSpecialError` unless it is in ``allowed_special`` (then it
        becomes that special token) or excluded from ``disallowed_special`` (then it is
        encoded as ordinary text). Added (non-special) tokens are always matched. Each of the
        two takes ``"all"`` or a collection of token texts (a set, list or tuple, as the types
        say; a numpy array of str works too, untyped; empty or ``None``: none); a lone string
        other than ``"all"``, or a text the vocabulary has no special (or, refused, added) token
        for, is an error rather than a silent no-op.
        ``add_special_tokens=True`` adds the vocabulary's BOS/EOS ids (off by default, so counts
        never silently include them). Lone surrogates in ``text`` (which UTF-8 cannot encode) are
        replaced by U+FFFD and surrogate pairs joined before encoding, as tiktoken does, so
        ``decode(encode(text)) == replace_surrogates(text)``. There is no size limit here (see
        :mod:`lbpe.limits` for the caps the CLI and the app apply to untrusted input).
        """
        if allowed_special is NO_NAMES and disallowed_special is ALL_NAMES and add_special_tokens is False:
            # the defaults (every call a chat or a dataset's map makes): the compiled path at once
            ids = self._plain_ids(text, mode, True) if dropout is None and seed is None else None
            if ids is not None:
                return ids
        elif (
            add_special_tokens is False
            and dropout is None
            and seed is None
            and (
                (type(allowed_special) is str and allowed_special == "all")
                or (type(allowed_special) in (frozenset, set) and not allowed_special)
            )
        ):
            refused = disallowed_special
            if not ((type(refused) is str and refused == "all") or (type(refused) is tuple and not refused)):
                known = (self.vocab.special, self.added_tokens)
                # checked once (an iterator is read here), then used as checked below
                refused = disallowed_special = checked_names(refused, "disallowed_special", known)
            look = not nothing_to_find(self.added_tokens, allowed_special, refused)
            ids = self._plain_ids(text, mode, look)  # (no name in allowed_special to check)
            if ids is not None:
                return ids
        mode = _check_mode(mode)
        add_special_tokens = checked_flag(add_special_tokens, "add_special_tokens")
        options = dropout_options(mode, dropout, seed)
        if options is not None:
            text = replace_surrogates(_checked_text(text))  # before any draw (see encode_ordinary)
        out: list[int] = []
        if add_special_tokens:
            out += self.bos
        with self._deadline(text):
            chunks = self._chunks(text, allowed_special, disallowed_special)
            if not add_special_tokens and len(chunks) == 1 and not chunks[0][0]:
                return cast("list[int]", self._ordinary(chunks[0][1], mode, options))  # a new list: no copy
            for at, (is_special, chunk) in enumerate(chunks):
                if is_special:
                    out.append(self._matched_id(chunk))
                else:
                    out += cast("list[int]", self._ordinary(chunk, mode, options, first=not at))
        if add_special_tokens:
            out += self.eos
        return out

    def _deadline(self, text: object) -> deadline | nullcontext:
        return deadline(len(text)) if self._guarded and isinstance(text, str) else nullcontext()

    def _matched_id(self, chunk: str) -> int:
        found = self.added_tokens.get(chunk)
        return self.vocab.special[chunk] if found is None else found

    def _chunks(
        self,
        text: str,
        allowed_special: SpecialNames,
        disallowed_special: SpecialNames,
    ) -> list[tuple[bool, str]]:
        """Split text into (is_special, chunk) after checking for disallowed special tokens."""
        specials = self.vocab.special
        return split_specials(
            _checked_text(text), self._specials, specials, self.added_tokens, allowed_special, disallowed_special
        )

    # ---- segmentation for display ----

    def segment(
        self,
        text: str,
        *,
        mode: Method,
        allowed_special: SpecialNames = frozenset(),
        disallowed_special: SpecialNames = "all",
        dropout: float | None = None,
        seed: int | None = None,
    ) -> list[Segment]:
        """Encode ``text`` and locate every token in it (character offsets into ``text`` as given,
        where a surrogate pair that encodes as one character is two); see :class:`Segment`.
        ``mode``, ``dropout`` and ``seed`` as for :meth:`encode` (the same seed gives the tokens
        ``encode`` gives)."""
        mode = _check_mode(mode)
        split = self._split_for(mode, dropout_options(mode, dropout, seed))
        given = _checked_text(text)
        text = replace_surrogates(given)
        with self._deadline(text):
            chunks = self._chunks(text, allowed_special, disallowed_special)
            segs = segments(chunks, self.vocab, self.normalizer, self._splitter, split, self._matched_id)
        return segs if text is given else in_given_text(segs, given)  # a surrogate pair is two characters there

    def located_pieces(
        self, text: str, *, allowed_special: SpecialNames = frozenset()
    ) -> list[tuple[str, int, int, bool]] | None:
        """The pieces :meth:`segment` (with ``disallowed_special=()``) encodes one by one, where
        they lie in ``text``: ``(piece, start, end, special)``, a special or added token being a
        piece of its own; the segments of a piece depend on nothing else. ``None`` for a
        pipeline with a normaliser (its pieces are of the normalised text)."""
        if self.normalizer is not None:
            return None
        given = _checked_text(text)
        text = replace_surrogates(given)
        with self._deadline(text):
            pieces = located(self._chunks(text, allowed_special, ()), self._splitter)
        if text is given:
            return pieces
        at = given_positions(given)  # a surrogate pair is two characters there
        return [(piece, at[start], at[end], special) for piece, start, end, special in pieces]

    def special_spans(self, text: str) -> list[tuple[int, int]]:
        """Where :meth:`segment` finds the text of a special or added token in ``text`` (left to
        right, before it decides which become tokens)."""
        text = _checked_text(text)
        if self._specials is None:
            return []
        return [(m.start(), m.end()) for m in self._specials.finditer(text)]

    # ---- decoding ----

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The tokens' bytes joined, in the vocabulary's own spelling (for SentencePiece-style
        vocabularies that keeps ``▁``; :meth:`decode` applies the vocabulary's decoder)."""
        return self._joined(_checked_ids(ids))

    def _joined(self, ids: list) -> bytes:
        """:meth:`decode_bytes` of ids already checked (:func:`lbpe.tokenizer.checks.checked_ids`)."""
        id_to_bytes = self.vocab.id_to_bytes
        added = self._added_bytes
        try:
            return b"".join([id_to_bytes.get(i) or added[i] for i in ids])
        except KeyError as exc:
            raise LbpeError(
                f"token id {exc.args[0]!r} is not in the vocabulary (ids run from 0 to {self.n_vocab - 1})"
            ) from None

    def decode(self, ids: Iterable[int], *, errors: str = "replace") -> str:
        """Decode ``ids`` to text (all bytes joined first, then decoded once as UTF-8, then the
        vocabulary's own decoder steps, e.g. ``▁`` back to spaces). ``errors`` is how bytes that
        are not UTF-8 are decoded, as for :meth:`bytes.decode`: ``"replace"`` gives what the
        vocabulary's own library gives, ``"strict"`` raises :class:`UnicodeDecodeError`."""
        ids = _checked_ids(ids)
        if isinstance(self._decoder, Decoder):
            return self._decoder(ids, errors=errors)
        if self._decoder is not None:  # a plain function: ids -> text
            return self._decoder(ids)
        return self._joined(ids).decode("utf-8", errors=errors)
