"""The full path of an LBPE tokenizer: transformers' own encoding on a copy of the model's
backend whose pre-tokenizer is followed by one of ours (:class:`_MethodSplit`) that splits each
piece into the tokens :meth:`lbpe.Tokenizer.split_piece` gives with the tokenizer's method (the
piece stays one word to ``word_ids``)."""

from __future__ import annotations

from typing import Any

from lbpe.tokenizer import Method, Tokenizer

#: Pieces whose splits the full path remembers (cleared when full).
PIECE_CACHE = 1 << 16


class _MethodSplit:
    """A custom pre-tokenizer for the Rust pipeline of the full path: each piece split into the
    tokens of the inference method ``mode`` (LBPE's, longest prefix's, ...)."""

    def __init__(self, tok: Tokenizer, mode: Method, model: Any) -> None:
        self.tok = tok
        self.mode = mode
        self.model = model  # the backend's tokenizers model
        self.byte_level = tok.vocab.unit == "byte"
        if self.byte_level:
            from lbpe.decoders import stand_in_bytes

            self.stand_in_bytes = stand_in_bytes
        vocab = tok.vocab
        # a run of characters without a token is one unknown token (HF's fuse_unk), so one piece
        self.unknown = (lambda key: key not in vocab.tokens) if vocab.fuse_unk and vocab.byte_fallback is None else None
        self.cache: dict[str, list] = {}  # piece -> its tokens

    def lengths(self, piece: str) -> list[int]:
        """Token lengths, in characters of the piece as the pipeline spells it."""
        if self.byte_level:  # the piece is in GPT-2's byte alphabet: one character per byte
            try:
                raw = self.stand_in_bytes(piece)
                text = raw.decode("utf-8")
            except (KeyError, UnicodeDecodeError):
                out = [len(piece)]  # not a byte-level piece after all: leave it to the model
            else:
                out = [len(key) for key in self.tok.split_piece(text, mode=self.mode)]
        else:
            out = _char_lengths(self.tok.split_piece(piece, mode=self.mode), self.unknown)
        return out

    def tokens(self, piece: str) -> list:
        """The piece's tokens: each part of :meth:`lengths` given to the model, which keeps it
        whole (one vocabulary token, or its unknown or byte-fallback tokens for it); offsets in
        UTF-8 bytes of the piece, as the model gives them. Remembered per piece (pieces repeat:
        the model is asked once for each)."""
        from tokenizers import Token

        cached = self.cache.get(piece)
        if cached is not None:
            return cached
        out, at, shift = [], 0, 0
        for n in self.lengths(piece):
            part = piece[at : at + n]
            for token in self.model.tokenize(part):
                start, end = token.offsets
                out.append(Token(token.id, token.value, (start + shift, end + shift)))
            at, shift = at + n, shift + len(part.encode("utf-8"))
        if len(self.cache) >= PIECE_CACHE:
            self.cache.clear()
        self.cache[piece] = out
        return out

    def pre_tokenize(self, pretok) -> None:
        # tokens given here, not more splits: a split is a word to word_ids(), and a piece is one
        pretok.tokenize(self.tokens)


def _char_lengths(keys: list, unknown=None) -> list[int]:
    """Lengths in characters of keys that spell text (str, or UTF-8 bytes; the byte-fallback
    keys of one character together make one piece of that character; with ``unknown``, a run
    of keys it says have no token makes one piece)."""
    out: list[int] = []
    pending = b""
    was_unknown = False
    for key in keys:
        if unknown is not None:
            now = unknown(key)
            if now and was_unknown:
                out[-1] += len(key.decode("utf-8"))
                continue
            was_unknown = now
        if isinstance(key, str):
            out.append(len(key))
            continue
        pending += key
        try:
            out.append(len(pending.decode("utf-8")))
        except UnicodeDecodeError:
            continue  # part of a character: wait for the rest
        pending = b""
    if pending:
        out.append(len(pending.decode("utf-8", "replace")))
    return out


def encode_full(owner: Any, text, text_pair, options: dict, *, method: str = "_encode_plus"):
    """The full path: transformers' own encoding on a copy of the backend that splits each
    piece the tokenizer's method's way (the model's object is left as it is)."""
    base = owner._lbpe_base
    shadow = base.__new__(base)
    shadow.__dict__.update(owner.__dict__)
    shadow.__dict__["_tokenizer"] = full_backend(owner)
    if method == "_batch_encode_plus":
        return base._batch_encode_plus(shadow, text, **options)
    return base._encode_plus(shadow, text, text_pair=text_pair, **options)


def full_backend(owner: Any):
    """The full path's backend: the model's, with our pre-tokenizer after its own (rebuilt
    when the model's added tokens or post-processor change)."""
    from tokenizers import Tokenizer as Backend
    from tokenizers import pre_tokenizers

    model = owner._tokenizer
    post = model.post_processor
    signature = (
        tuple(
            (i, t.content, t.special, t.lstrip, t.rstrip, t.single_word, t.normalized)
            for i, t in sorted(model.get_added_tokens_decoder().items())
        ),
        None if post is None else post.__getstate__(),
        owner.lbpe_mode,
    )
    state = owner._lbpe
    if state.full is None or state.full[0] != signature:
        backend = Backend.from_str(model.to_str())
        ours = pre_tokenizers.PreTokenizer.custom(_MethodSplit(state.tok, owner.lbpe_mode, backend.model))
        original = backend.pre_tokenizer
        backend.pre_tokenizer = ours if original is None else pre_tokenizers.Sequence([original, ours])
        if hasattr(backend.model, "ignore_merges"):
            backend.model.ignore_merges = True  # each piece is one vocabulary token now: keep it whole
        state.full = (signature, backend)
    return state.full[1]
