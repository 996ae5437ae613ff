"""How LBPE's segmentation of a text agrees with BPE's: identical words and shared token
boundaries (:class:`Agreement`, additive), counted with numpy when it is installed and the text
is long, else with the standard library (the same counts either way)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import accumulate

from lbpe.analysis.counting import Ids, _dense, _numpy, as_id_array, id_list
from lbpe.tokenizer import Tokenizer

__all__ = ["Agreement", "text_agreement"]


@dataclass
class Agreement:
    """How LBPE segments a text compared with BPE (additive counts, so chunks merge with ``+=``).

    Boundaries are token ends in the token stream (bytes, in the vocabulary's own spelling);
    words are whitespace-separated runs of it (``▁`` counts as white space). A word agrees when
    no boundary of one mode falls strictly inside it without the other mode's.
    """

    words: int = 0
    identical_words: int = 0
    bpe_boundaries: int = 0
    lbpe_boundaries: int = 0
    common_boundaries: int = 0

    def __iadd__(self, other: Agreement) -> Agreement:
        self.words += other.words
        self.identical_words += other.identical_words
        self.bpe_boundaries += other.bpe_boundaries
        self.lbpe_boundaries += other.lbpe_boundaries
        self.common_boundaries += other.common_boundaries
        return self

    @property
    def word_agreement(self) -> float:
        return self.identical_words / self.words if self.words else 1.0

    @property
    def boundary_precision(self) -> float:
        """Share of LBPE's boundaries that BPE also has."""
        return self.common_boundaries / self.lbpe_boundaries if self.lbpe_boundaries else 1.0

    @property
    def boundary_recall(self) -> float:
        """Share of BPE's boundaries that LBPE keeps."""
        return self.common_boundaries / self.bpe_boundaries if self.bpe_boundaries else 1.0

    @property
    def boundary_f1(self) -> float:
        p, r = self.boundary_precision, self.boundary_recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_json(self) -> dict:
        return {
            "words": self.words,
            "identical_words": self.identical_words,
            "word_agreement": self.word_agreement,
            "bpe_boundaries": self.bpe_boundaries,
            "lbpe_boundaries": self.lbpe_boundaries,
            "common_boundaries": self.common_boundaries,
            "boundary_precision": self.boundary_precision,
            "boundary_recall": self.boundary_recall,
            "boundary_f1": self.boundary_f1,
        }


#: White space as ``str.split`` (the words row) takes it: these bytes, and the characters
#: beyond ASCII _WIDE_SPACE finds, spelled as spaces of their length in the stream.
_SPACE_BYTES = frozenset(b"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f ")
_WIDE_SPACE = re.compile(rb"\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80")
_METASPACE = "\u2581".encode()
_STREAM_WORD = re.compile(rb"[^\t-\r\x1c- ]+")


def _stream(tok: Tokenizer, ids: Ids, text: str | None, size: int) -> bytes:
    """The token stream's bytes (``size`` of them), ``▁`` and every white space beyond ASCII
    spelled as spaces: the text's own UTF-8 when the tokens spell it unchanged (no normaliser,
    same size; cheaper than joining the tokens), else the tokens joined."""
    raw = None
    if text is not None and tok.normalizer is None:
        raw = text.encode("utf-8", "surrogatepass")
        if len(raw) != size or "\u2581" in text:
            raw = None
    if raw is None:
        raw = tok.decode_bytes(id_list(ids)).replace(_METASPACE, b"   ")
    return _WIDE_SPACE.sub(lambda m: b" " * len(m.group()), raw)


def _agreement_numpy(tok: Tokenizer, bpe_ids: Ids, arrays: tuple, text: str | None, np) -> Agreement:
    lengths = _dense(tok, "_byte_length_array", _byte_lengths(tok), np)
    b_ends = np.cumsum(lengths[arrays[0]])
    l_ends = np.cumsum(lengths[arrays[1]])
    size = int(max(b_ends[-1] if len(b_ends) else 0, l_ends[-1] if len(l_ends) else 0))
    # one flag per byte offset: is it a boundary of the other mode? (linear, no search)
    b_mark = np.zeros(size + 1, dtype=bool)
    b_mark[b_ends] = True
    l_mark = np.zeros(size + 1, dtype=bool)
    l_mark[l_ends] = True
    in_b, in_l = b_mark[l_ends], l_mark[b_ends]
    common = int(np.count_nonzero(in_b))
    inside = np.concatenate((l_ends[~in_b], b_ends[~in_l]))  # one mode's boundaries only
    stream_bytes = np.frombuffer(_stream(tok, bpe_ids, text, size), dtype=np.uint8)
    is_space = np.zeros(256, dtype=bool)
    is_space[list(_SPACE_BYTES)] = True
    space = is_space[stream_bytes]
    edges = np.diff(np.concatenate(([True], space, [True])).astype(np.int8))
    starts, ends = np.flatnonzero(edges == -1), np.flatnonzero(edges == 1)
    word = np.searchsorted(starts, inside, side="right") - 1
    valid = word >= 0
    word, points = word[valid], inside[valid]
    hit = np.unique(word[(points > starts[word]) & (points < ends[word])]).size
    return Agreement(
        words=len(starts),
        identical_words=len(starts) - int(hit),
        bpe_boundaries=len(b_ends),
        lbpe_boundaries=len(l_ends),
        common_boundaries=common,
    )


def _byte_lengths(tok: Tokenizer) -> dict[int, int]:
    """id -> length in bytes of the token as the stream spells it (kept beside the other tables)."""
    vocab = tok.vocab
    table = vocab.__dict__.get("_byte_lengths")
    if table is None:
        table = {i: len(b) for i, b in vocab.id_to_bytes.items()}
        table.update({i: len(b) for i, b in tok._added_bytes.items()})
        vocab.__dict__["_byte_lengths"] = table
    return table


def text_agreement(
    tok: Tokenizer, bpe_ids: Ids, lbpe_ids: Ids, text: str | None = None, *, arrays: tuple | None = None
) -> Agreement:
    """The :class:`Agreement` of two encodings of one text (with numpy when installed and the
    text is long, or the ids are numpy arrays; the same counts either way)."""
    np = _numpy()
    if np is not None and arrays is None:
        found = (as_id_array(bpe_ids, np), as_id_array(lbpe_ids, np))
        if found[0] is not None or found[1] is not None:
            arrays = tuple(
                np.asarray(a if a is not None else ids, dtype=np.int64) for a, ids in zip(found, (bpe_ids, lbpe_ids))
            )
    if np is not None and arrays is not None:
        return _agreement_numpy(tok, bpe_ids, arrays, text, np)
    bpe_ids, lbpe_ids = id_list(bpe_ids), id_list(lbpe_ids)
    length = _byte_lengths(tok).__getitem__
    b_list = list(accumulate(map(length, bpe_ids)))
    b_ends, l_ends = set(b_list), set(accumulate(map(length, lbpe_ids)))
    spans = [m.span() for m in _STREAM_WORD.finditer(_stream(tok, bpe_ids, text, b_list[-1] if b_list else 0))]
    inside = sorted(b_ends ^ l_ends)
    hit = 0
    k = 0
    for start, end in spans:  # both sorted: one pass
        while k < len(inside) and inside[k] <= start:
            k += 1
        if k < len(inside) and inside[k] < end:
            hit += 1
    return Agreement(
        words=len(spans),
        identical_words=len(spans) - hit,
        bpe_boundaries=len(b_ends),
        lbpe_boundaries=len(l_ends),
        common_boundaries=len(b_ends & l_ends),
    )
