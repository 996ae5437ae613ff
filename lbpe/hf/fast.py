"""The fast path of an LBPE tokenizer (the usual calls): the text split at the added tokens the
backend holds, as ``tokenizers`` splits it, each other part encoded by lbpe's compiled
:meth:`lbpe.Tokenizer.encode_ordinary`, the post-processor's special tokens, truncation and
padding applied as ``tokenizers`` applies them; ``.encodings`` of its result computed by the
full path when first asked for."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lbpe.errors import LbpeError, NoTokenError
from lbpe.hf.full import encode_full
from lbpe.literals import Literals
from lbpe.tokenizer import Tokenizer, buffers
from lbpe.tokenizer.checks import surrogate_at

#: transformers' own keyword arguments of ``_encode_plus`` that the fast path reproduces.
_FAST_OPTIONS = frozenset(
    {
        "add_special_tokens",
        "padding_strategy",
        "truncation_strategy",
        "max_length",
        "stride",
        "is_split_into_words",
        "pad_to_multiple_of",
        "padding_side",
        "return_tensors",
        "return_token_type_ids",
        "return_attention_mask",
        "return_overflowing_tokens",
        "return_special_tokens_mask",
        "return_offsets_mapping",
        "return_length",
        "verbose",
        "split_special_tokens",
    }
)


class _Added:
    """The added tokens the backend matches, for the fast path: two passes as ``tokenizers``
    makes them (the tokens matched in the raw text, then those matched after normalisation),
    each leftmost-longest."""

    def __init__(self, backend, tok: Tokenizer) -> None:
        decoder = backend.get_added_tokens_decoder()
        self.ids = {t.content: i for i, t in decoder.items()}
        self.special = frozenset(t.content for t in decoder.values() if t.special)
        raw = [t.content for t in decoder.values() if not t.normalized]
        normalized = [t.content for t in decoder.values() if t.normalized]
        # what the fast path reproduces: no stripping or word rules, normalised tokens only
        # where nothing normalises, and lbpe's own added tokens matched there too
        self.exact = (
            all(not (t.lstrip or t.rstrip or t.single_word) for t in decoder.values())
            and (not normalized or backend.normalizer is None)
            and all(self.ids.get(c) == i and c not in self.special for c, i in tok.added_tokens.items())
        )
        self.passes = [Literals(group) for group in (raw, normalized) if group]

    def split(self, text: str, split_special: bool) -> list[str | int]:
        """``text`` as ordinary parts (str) and added tokens' ids, in order."""
        parts: list[str | int] = [text]
        for pattern in self.passes:
            out: list[str | int] = []
            for part in parts:
                if isinstance(part, int):
                    out.append(part)
                    continue
                pos = 0
                for m in pattern.finditer(part):
                    found = m.group()
                    if split_special and found in self.special:
                        continue
                    if m.start() > pos:
                        out.append(part[pos : m.start()])
                    out.append(self.ids[found])
                    pos = m.end()
                if pos < len(part):
                    out.append(part[pos:])
            parts = out
        return parts


def _made_by(owner) -> tuple:
    """What a fast-path result's encodings depend on besides its text and options."""
    return (owner.lbpe_mode, owner._lbpe.version)


class _LazyEncodings(Sequence):
    """The ``tokenizers`` encodings of a fast-path result, computed by the full path when first
    asked for (``word_ids``, ``tokens``, ``char_to_token`` ...)."""

    def __init__(self, owner, text, options: dict) -> None:
        self._owner, self._text, self._options, self._n = owner, text, options, len(text)
        self._done: list | None = None
        self._made_by = _made_by(owner)

    def _all(self) -> list:
        if self._done is None:
            owner = self._owner
            if _made_by(owner) != self._made_by:
                raise LbpeError(
                    "this result's encodings (tokens, word ids, offsets) are made when first asked for, and "
                    "the tokenizer has changed since (tokens added, or lbpe_mode set): they would no longer "
                    "match its ids; encode the text again, or ask for them before changing the tokenizer"
                )
            # a list of texts is a batch to 5.x's _encode_plus; 4.x takes batches in _batch_encode_plus
            method = "_batch_encode_plus" if hasattr(owner._lbpe_base, "_batch_encode_plus") else "_encode_plus"
            self._done = list(encode_full(owner, self._text, None, self._options, method=method).encodings)
            self._owner = self._text = None
        return self._done

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, item):
        return self._all()[item]

    def __reduce__(self):
        return (list, (self._all(),))


def added_tokens(owner: Any) -> _Added:
    """The added tokens of ``owner``'s backend, as the fast path matches them (kept until they change)."""
    backend, state = owner._tokenizer, owner._lbpe
    key = (id(backend), backend.get_vocab_size(with_added_tokens=True), state.version)
    if state.added is None or state.added[0] != key:
        state.added = (key, _Added(backend, state.tok))
    return state.added[1]


def special_tokens(owner: Any) -> tuple[list[int], list[int], list[int], list[int], int]:
    """(ids before, ids after, their type ids, the text's type id) the post-processor adds to one
    sequence, as ``tokenizers`` applies it."""
    post = owner._tokenizer.post_processor
    key = b"" if post is None else post.__getstate__()
    found = owner._lbpe.specials.get(key)
    if found is None:
        if post is None:
            found = ([], [], [], [], 0)
        else:
            from tokenizers import Tokenizer as Backend
            from tokenizers import models

            one = Backend(models.WordLevel({"a": 0}, unk_token="a")).encode("a", add_special_tokens=False)
            done = post.process(one)
            where = done.sequence_ids.index(0)
            ids, types = done.ids, done.type_ids
            found = (ids[:where], ids[where + 1 :], types[:where], types[where + 1 :], types[where])
        owner._lbpe.specials[key] = found
    return found


def encode_fast(owner: Any, text, text_pair, options: dict):
    """The fast path (see the module docstring), or None where the full path must run: also
    for a text transformers refuses (a lone surrogate: its TypeError) and for a character the
    vocabulary has no token for (its model drops it), so that every path does as it does."""
    if text_pair is not None or not options.keys() <= _FAST_OPTIONS:
        return None
    o = options.get
    if o("is_split_into_words") or o("return_overflowing_tokens") or o("return_offsets_mapping"):
        return None
    batched = isinstance(text, (list, tuple))
    texts = list(text) if batched else [text]
    if not texts or not all(isinstance(t, str) for t in texts):
        return None
    if any(surrogate_at(t) is not None for t in texts):
        return None
    try:
        return _encode_fast(owner, texts, batched, options)
    except NoTokenError:
        return None


def _encode_fast(owner: Any, texts: list[str], batched: bool, options: dict):
    o = options.get
    added = added_tokens(owner)
    if not added.exact:
        return None
    add_special = o("add_special_tokens", True)
    before, after, types_before, types_after, seq_type = special_tokens(owner) if add_special else ([], [], [], [], 0)
    truncation = getattr(o("truncation_strategy"), "value", o("truncation_strategy")) or "do_not_truncate"
    padding = getattr(o("padding_strategy"), "value", o("padding_strategy")) or "do_not_pad"
    max_length = o("max_length")
    if truncation not in ("do_not_truncate", "longest_first", "only_first") or padding not in (
        "do_not_pad",
        "longest",
        "max_length",
    ):
        return None
    room = None
    if truncation != "do_not_truncate" and max_length is not None:
        room = max_length - len(before) - len(after)
        if room <= 0:
            return None  # tokenizers' own error or rule
    if padding == "max_length" and max_length is None:
        return None
    split_special = o("split_special_tokens")
    if split_special is None:
        split_special = owner.split_special_tokens

    # ordinary parts encoded by lbpe in one go, added tokens by the backend's ids
    plans = [added.split(t, split_special) for t in texts]
    pad_left = (o("padding_side") or owner.padding_side) == "left"
    return_tensors = o("return_tensors")
    if return_tensors in _ARRAY_TENSORS and (padding == "do_not_pad" or owner.pad_token_id is not None):
        arrays = _array_rows(
            owner, plans, room, (before, after, types_before, types_after, seq_type), padding, pad_left, options
        )
        if arrays is not None:
            _warn_too_long(owner, arrays["input_ids"], max_length, options)
            return _batch_encoding(owner, texts, options, arrays)
    tok = owner._lbpe.tok
    ids_of = []
    for plan in plans:
        if len(plan) == 1 and isinstance(plan[0], str):
            ids_of.append(tok.encode_ordinary(plan[0], mode=owner.lbpe_mode))
            continue
        ids: list[int] = []
        for at, part in enumerate(plan):
            if isinstance(part, int):
                ids.append(part)
            else:  # a part after an added token does not start the text (Metaspace's "first")
                ids += tok._ordinary_part(part, mode=owner.lbpe_mode, first=not at)
        ids_of.append(ids)
    if room is not None:
        left = owner.truncation_side == "left"
        ids_of = [ids if len(ids) <= room else (ids[-room:] if left else ids[:room]) for ids in ids_of]

    want_types = o("return_token_type_ids")
    if want_types is None:
        want_types = "token_type_ids" in owner.model_input_names
    want_mask = o("return_attention_mask")
    if want_mask is None:
        want_mask = "attention_mask" in owner.model_input_names
    want_special, want_length = o("return_special_tokens_mask"), o("return_length")
    n_before, n_after = len(before), len(after)
    input_ids = [before + ids + after for ids in ids_of] if n_before or n_after else ids_of
    lengths = [len(ids) for ids in input_ids]
    target = None
    if padding != "do_not_pad":
        target = max_length if padding == "max_length" else max(lengths, default=0)
        multiple = o("pad_to_multiple_of")
        if multiple and target % multiple:
            target += multiple - target % multiple

    def padded(rows: list[list[int]], value: int) -> list[list[int]]:
        if target is None:
            return rows
        out = []
        for row in rows:
            missing = target - len(row)
            out.append(row if missing <= 0 else ([value] * missing + row if pad_left else row + [value] * missing))
        return out

    data: dict[str, list] = {}
    if target is not None:
        pad_id = owner.pad_token_id
        if pad_id is None:
            return None  # transformers' own error
        data["input_ids"] = padded(input_ids, pad_id)
    else:
        data["input_ids"] = input_ids
    if want_types:
        rows = [types_before + [seq_type] * len(ids) + types_after for ids in ids_of]
        data["token_type_ids"] = padded(rows, owner.pad_token_type_id)
    if want_mask:
        data["attention_mask"] = padded([[1] * n for n in lengths], 0)
    if want_special:
        rows = [[1] * n_before + [0] * len(ids) + [1] * n_after for ids in ids_of]
        data["special_tokens_mask"] = padded(rows, 1)
    if want_length:
        data["length"] = [len(row) for row in data["input_ids"]]
    _warn_too_long(owner, data["input_ids"], max_length, options)
    if not batched and return_tensors is None:
        # one text: rows of tokens lose the batch level, as transformers does it (``length`` keeps it)
        data = {k: v[0] if v and isinstance(v[0], list) else v for k, v in data.items()}
    return _batch_encoding(owner, texts, options, data)


def _batch_encoding(owner: Any, texts: list[str], options: dict, data: dict):
    """The fast path's result: ``data`` (rows of ids and the optional rows) as transformers
    returns it."""
    from transformers import BatchEncoding

    lazy = _LazyEncodings(owner, texts, {**options, "return_tensors": None})
    return BatchEncoding(data, lazy, tensor_type=options.get("return_tensors"), n_sequences=1)


def _warn_too_long(owner: Any, rows, max_length: int | None, options: dict) -> None:
    """transformers' warning about sequences longer than the model takes, for each row."""
    verbose = options.get("verbose", True)
    for row in rows:
        owner._eventual_warn_about_too_long_sequence(row, max_length, verbose)


#: ``return_tensors`` values whose rows the fast path fills from id buffers (numpy arrays, which
#: transformers turns into torch tensors without a list in between).
_ARRAY_TENSORS = frozenset({"np", "pt"})


def _array_rows(
    owner: Any, plans: list[list[str | int]], room: int | None, specials: tuple, padding: str, pad_left: bool, options
) -> dict | None:
    """The rows of a fast-path result as 2-D ``int64`` numpy arrays, each text's ids from lbpe's
    id buffer (:meth:`lbpe.Tokenizer.encode_to_array`): no Python int per token. ``None`` when
    numpy is missing or the rows would be ragged (what transformers does with those, the list
    path does)."""
    try:
        import numpy as np
    except ImportError:
        return None
    from array import array

    before, after, types_before, types_after, seq_type = specials
    tok = owner._lbpe.tok
    contents = []
    for plan in plans:
        ids = None
        for at, part in enumerate(plan):
            if isinstance(part, int):
                found = array(buffers.ID_TYPECODE, (part,))
            elif not at or tok._later_splitter is tok._splitter:
                found = tok.encode_to_array(part, mode=owner.lbpe_mode, disallowed_special=())
            else:  # after an added token, where Metaspace's "first" puts no ▁
                found = array(buffers.ID_TYPECODE, tok._ordinary_part(part, mode=owner.lbpe_mode, first=False))
            if ids is None:
                ids = found
            else:
                ids += found
        row = buffers.as_numpy(ids if ids is not None else array(buffers.ID_TYPECODE))
        if room is not None and len(row) > room:
            row = row[-room:] if owner.truncation_side == "left" else row[:room]
        contents.append(row)
    o = options.get
    n_before, n_after = len(before), len(after)
    lengths = [n_before + len(row) + n_after for row in contents]
    width = max(lengths, default=0)
    if padding != "do_not_pad":
        target = o("max_length") if padding == "max_length" else width
        multiple = o("pad_to_multiple_of")
        if multiple and target % multiple:
            target += multiple - target % multiple
        if width > target:
            return None  # a row longer than the padding: ragged
        width = target
    elif len(set(lengths)) > 1:
        return None
    n = len(contents)
    input_ids = np.full((n, width), owner.pad_token_id if padding != "do_not_pad" else 0, dtype=np.int64)
    mask = np.zeros((n, width), dtype=np.int64)
    content = np.zeros((n, width), dtype=bool)  # where each text's own ids are
    starts = []
    for k, (row, length) in enumerate(zip(contents, lengths)):
        start = width - length if pad_left else 0
        starts.append(start)
        middle = start + n_before
        input_ids[k, start:middle] = before
        input_ids[k, middle : middle + len(row)] = row
        input_ids[k, middle + len(row) : start + length] = after
        mask[k, start : start + length] = 1
        content[k, middle : middle + len(row)] = True
    data: dict[str, Any] = {"input_ids": input_ids}
    want_types = o("return_token_type_ids")
    if want_types is None:
        want_types = "token_type_ids" in owner.model_input_names
    want_mask = o("return_attention_mask")
    if want_mask is None:
        want_mask = "attention_mask" in owner.model_input_names
    if want_types:
        types = np.full((n, width), owner.pad_token_type_id, dtype=np.int64)
        for k, (row, start) in enumerate(zip(contents, starts)):
            middle = start + len(types_before)
            types[k, start:middle] = types_before
            types[k, middle : middle + len(row)] = seq_type
            types[k, middle + len(row) : middle + len(row) + len(types_after)] = types_after
        data["token_type_ids"] = types
    if want_mask:
        data["attention_mask"] = mask
    if o("return_special_tokens_mask"):
        data["special_tokens_mask"] = (~content).astype(np.int64)
    if o("return_length"):
        data["length"] = [width] * n
    return data
