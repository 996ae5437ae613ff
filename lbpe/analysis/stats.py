"""Corpus statistics for classic BPE and LBPE on the same text (the paper's Tables 2 and 6).

:class:`Stats` holds additive counts, so partial results from chunks, processes or machines
merge with ``+``. Token length is measured in the vocabulary's units (bytes for byte-level
vocabularies, characters for character-level ones; a byte-fallback token is one unit).

>>> from lbpe.vocab import Vocab
>>> from lbpe.tokenizer import Tokenizer
>>> tok = Tokenizer(Vocab({bytes([b]): b for b in range(256)} | {b"ab": 256}), "paper")
>>> s = text_stats(tok, "abab c", mode="lbpe")
>>> s.tokens, s.bytes, s.length_counts
(4, 6, {2: 2, 1: 2})
>>> s.buckets()["1-3"]
4

JSON layout of :func:`compare_json` (``lbpe stats --json``)::

    {"vocab": str, "unit": "byte" | "char",
     "bpe":  {"tokens": int, "bytes": int, "chars": int, "words": int,
              "bytes_per_token": float, "chars_per_token": float, "fertility": float,   # tokens/word
              "length_buckets": {"1-3": int, ..., "16+": int},
              "length_counts": {"<length>": int, ...},
              # from the token-frequency table (lbpe.analysis.metrics), when the Stats has one:
              "distinct_tokens": int, "type_token_ratio": float,
              "vocab_utilisation": float | None,          # distinct / vocabulary size (needs tok)
              "shannon_entropy": float, "shannon_efficiency": float,       # bits; / log2(distinct)
              "renyi_power": float, "renyi_entropy": float, "renyi_efficiency": float,
              "gini": float,
              "frequency_by_length": {"1-3": {"distinct": int, "occurrences": int,
                                              "mean": float, "median": float}, ...},   # needs tok
              "short_long_frequency_ratio": float | None},                              # needs tok
     "lbpe": {... the same keys ...},
     "change": {"tokens": float, "bytes_per_token": float, ...   # each metric of lbpe.analysis.metrics.CATALOGUE
                "length_share_points": {"1-3": float, ...},
                "frequency_by_length": {"1-3": float | None, ...}},     # relative change of the mean
     # when both modes encoded the same text (corpus_stats, parallel_stats; see Agreement):
     "agreement": {"words": int, "identical_words": int, "word_agreement": float,
                   "bpe_boundaries": int, "lbpe_boundaries": int, "common_boundaries": int,
                   "boundary_precision": float, "boundary_recall": float, "boundary_f1": float}}

Each change is relative (lbpe / bpe - 1) or a difference (lbpe - bpe) as
:data:`lbpe.analysis.metrics.CATALOGUE` says (differences for figures that are ratios already);
``length_share_points`` is the difference of each bucket's share of all tokens, in
percentage points (the paper's Table 2 convention). ``short_long_frequency_ratio`` is the mean
occurrences of a distinct 1-3 unit token over that of a distinct token of 7 units or more: the
paper expects LBPE to lower it (rarer short tokens, more frequent long ones).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Protocol

from lbpe.analysis import metrics
from lbpe.tokenizer import MODES, Mode, Tokenizer

__all__ = [
    "BUCKETS",
    "PerToken",
    "Stats",
    "text_stats",
    "corpus_stats",
    "compare_json",
    "bucket_label",
    "token_lengths",
    "count_tokens",
    "count_words",
    "Agreement",
    "text_agreement",
    "text_stats_both",
    "texts_stats",
    "Continuation",
]

#: The paper's token-length buckets: (low, high) inclusive, ``None`` for open-ended.
BUCKETS: tuple[tuple[int, int | None], ...] = ((1, 3), (4, 6), (7, 9), (10, 12), (13, 15), (16, None))


#: Tokens of at least this many units count as long in ``short_long_frequency_ratio`` (the
#: paper's buckets from 7-9 up; short is its first bucket, 1-3).
LONG_TOKEN = 7


def bucket_label(low: int, high: int | None) -> str:
    return f"{low}-{high}" if high is not None else f"{low}+"


class _Counts(Protocol):
    """What :class:`PerToken` averages over (fields or properties)."""

    @property
    def tokens(self) -> int: ...

    @property
    def bytes(self) -> int: ...

    @property
    def chars(self) -> int: ...


class PerToken:
    """The per-token averages of anything that counts ``tokens``, ``bytes`` and ``chars``."""

    @property
    def bytes_per_token(self: _Counts) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def chars_per_token(self: _Counts) -> float:
        return self.chars / self.tokens if self.tokens else 0.0


@dataclass
class Stats(PerToken):
    """Additive counts for one encoding mode over some text."""

    tokens: int = 0
    bytes: int = 0
    chars: int = 0
    words: int = 0
    length_counts: dict[int, int] = field(default_factory=dict)
    #: occurrences of each token id: the frequency table the intrinsic metrics come from
    #: (bounded by the vocabulary, so a corpus of any size keeps it small)
    token_counts: dict[int, int] = field(default_factory=dict, repr=False)
    #: on the LBPE side of a comparison: how its segmentation agrees with BPE's
    agreement: Agreement | None = field(default=None, compare=False)

    def __add__(self, other: Stats) -> Stats:
        out = Stats(self.tokens, self.bytes, self.chars, self.words, dict(self.length_counts), dict(self.token_counts))
        if self.agreement is not None:
            out.agreement = Agreement()
            out.agreement += self.agreement
        out += other
        return out

    def __iadd__(self, other: Stats) -> Stats:
        """Merge ``other`` into this one in place (what corpus totals use: no copy per chunk)."""
        self.tokens += other.tokens
        self.bytes += other.bytes
        self.chars += other.chars
        self.words += other.words
        for table, more in ((self.length_counts, other.length_counts), (self.token_counts, other.token_counts)):
            get = table.get
            for key, n in more.items():
                table[key] = get(key, 0) + n
        if other.agreement is not None:
            if self.agreement is None:
                self.agreement = Agreement()
            self.agreement += other.agreement
        return self

    @property
    def fertility(self) -> float:
        """Tokens per whitespace-separated word."""
        return self.tokens / self.words if self.words else 0.0

    def buckets(self) -> dict[str, int]:
        """Token counts per paper bucket (``"1-3"`` ... ``"16+"``)."""
        out = {bucket_label(lo, hi): 0 for lo, hi in BUCKETS}
        for length, count in self.length_counts.items():
            for lo, hi in BUCKETS:
                if length >= lo and (hi is None or length <= hi):
                    out[bucket_label(lo, hi)] += count
                    break
        return out

    def frequency_json(
        self,
        *,
        n_vocab: int | None = None,
        token_length: Callable[[int], int] | None = None,
        renyi_power: float = metrics.RENYI_POWER,
    ) -> dict:
        """The intrinsic metrics of :data:`token_counts` (see :mod:`lbpe.analysis.metrics`)."""
        counts = self.token_counts
        distinct = sum(1 for n in counts.values() if n)
        entropy = metrics.shannon_entropy(counts)
        renyi = metrics.renyi_entropy(counts, renyi_power)
        out: dict = {
            "distinct_tokens": distinct,
            "type_token_ratio": distinct / self.tokens if self.tokens else 0.0,
            "vocab_utilisation": distinct / n_vocab if n_vocab else None,
            "shannon_entropy": entropy,
            "shannon_efficiency": metrics.efficiency(entropy, distinct),
            "renyi_power": renyi_power,
            "renyi_entropy": renyi,
            "renyi_efficiency": metrics.efficiency(renyi, distinct),
            "gini": metrics.gini(counts),
        }
        if token_length is not None:
            by_length = metrics.frequency_by_length(counts, token_length, BUCKETS)
            out["frequency_by_length"] = {bucket_label(*b): v for b, v in by_length.items()}
            short = by_length[BUCKETS[0]]
            long = [v for (lo, _), v in by_length.items() if lo >= LONG_TOKEN]
            long_distinct = sum(v["distinct"] for v in long)
            long_mean = sum(v["occurrences"] for v in long) / long_distinct if long_distinct else 0.0
            out["short_long_frequency_ratio"] = short["mean"] / long_mean if long_mean else None
        return out

    def to_json(self, **frequency: Any) -> dict:
        """Counts, per-token averages, the length buckets and, when the frequency table is
        there, the intrinsic metrics (``frequency``: the arguments of :meth:`frequency_json`)."""
        out = {
            "tokens": self.tokens,
            "bytes": self.bytes,
            "chars": self.chars,
            "words": self.words,
            "bytes_per_token": self.bytes_per_token,
            "chars_per_token": self.chars_per_token,
            "fertility": self.fertility,
            "length_buckets": self.buckets(),
            "length_counts": {str(k): v for k, v in sorted(self.length_counts.items())},
        }
        if self.token_counts:
            out.update(self.frequency_json(**frequency))
        return out


def _length_table(tok: Tokenizer) -> dict[int, int]:
    """id -> length in units of every ordinary, byte-fallback and unknown token; built once per
    vocabulary (kept in its ``__dict__``, next to its other derived tables)."""
    vocab = tok.vocab
    table = vocab.__dict__.get("_length_table")
    if table is None:
        table = {i: len(key) for key, i in vocab.model_tokens.items()}
        for i in (vocab.byte_fallback or {}).values():
            table[i] = 1
        if vocab.unk is not None:
            table.setdefault(vocab.unk, 1)
        vocab.__dict__["_length_table"] = table
    return table


def token_lengths(tok: Tokenizer) -> Callable[[int], int]:
    """id -> length in the vocabulary's units (0 for special and added tokens)."""
    get = _length_table(tok).get
    return lambda i: get(i, 0)


#: Below this many ids the standard library counts faster than a round trip through numpy.
_NUMPY_MIN_IDS = 4096
_numpy_override: list = []  # tests: [None] counts with the standard library even where numpy is


@functools.cache
def _numpy_module():
    """numpy, imported on first use (``import lbpe`` never loads it), or ``None``."""
    try:
        import numpy
    except ImportError:  # the browser page, or CPython without lbpe[numpy]
        return None
    return numpy


def _numpy():
    """numpy for counting, or ``None`` (not installed, or a test asked for the stdlib path)."""
    return _numpy_override[-1] if _numpy_override else _numpy_module()


def _dense(tok: Tokenizer, key: str, table: dict[int, int], np):
    """``table`` (id -> number) as a numpy array indexed by id (0 elsewhere), kept in the
    vocabulary's ``__dict__`` under ``key`` beside its other derived tables."""
    vocab = tok.vocab
    array_ = vocab.__dict__.get(key)
    if array_ is None:
        array_ = np.zeros(max(max(table, default=0) + 1, tok.n_vocab), dtype=np.int64)
        array_[np.fromiter(table.keys(), np.int64, len(table))] = np.fromiter(table.values(), np.int64, len(table))
        vocab.__dict__[key] = array_
    return array_


def count_tokens(tok: Tokenizer, ids: list[int], *, array=None) -> tuple[dict[int, int], dict[int, int]]:
    """``(tokens per length in units, occurrences per id)`` among ``ids``; special and added
    tokens have no length, so they count in the second table only.

    With numpy installed (``lbpe[numpy]``) and many ids, ``bincount`` does the counting
    (``array``: the ids already as a numpy int64 array); otherwise ``Counter``: the same tables.
    """
    np = _numpy()
    if np is not None and len(ids) >= _NUMPY_MIN_IDS:
        lengths = _dense(tok, "_length_array", _length_table(tok), np)
        a = np.asarray(ids, dtype=np.int64) if array is None else array
        if int(a.max()) < len(lengths) and int(a.min()) >= 0:
            per_id = np.bincount(a)
            seen = np.flatnonzero(per_id)
            by_length = np.bincount(lengths[seen], weights=per_id[seen]).astype(np.int64)
            lengths_out = {n_units: int(n) for n_units, n in enumerate(by_length.tolist()) if n_units and n}
            return lengths_out, dict(zip(seen.tolist(), per_id[seen].tolist()))
    length = _length_table(tok).get
    per_id_counter = Counter(ids)  # counted in C, then one lookup per distinct id
    counts: Counter[int] = Counter()
    for i, n in per_id_counter.items():
        n_units = length(i, 0)
        if n_units:
            counts[n_units] += n
    return dict(counts), dict(per_id_counter)


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


_SPACE_BYTES = frozenset(b" \t\n\r\x0b\x0c")
_METASPACE = "\u2581".encode()
_STREAM_WORD = re.compile(rb"[^ \t\n\r\x0b\x0c]+")


def _stream(tok: Tokenizer, ids: list[int], text: str | None, size: int) -> bytes:
    """The token stream's bytes (``size`` of them), ``▁`` spelled as spaces: the text's own
    UTF-8 when the tokens spell it unchanged (no normaliser, same size; cheaper than joining
    the tokens), else the tokens joined."""
    if text is not None and tok.normalizer is None:
        raw = text.encode("utf-8", "surrogatepass")
        if len(raw) == size and "\u2581" not in text:
            return raw
    return tok.decode_bytes(ids).replace(_METASPACE, b"   ")


def _agreement_numpy(tok: Tokenizer, bpe_ids: list[int], arrays: tuple, text: str | None, np) -> Agreement:
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
    tok: Tokenizer, bpe_ids: list[int], lbpe_ids: list[int], text: str | None = None, *, arrays: tuple | None = None
) -> Agreement:
    """The :class:`Agreement` of two encodings of one text (with numpy when installed and the
    text is long; the same counts either way)."""
    np = _numpy()
    if np is not None and len(bpe_ids) >= _NUMPY_MIN_IDS:
        if arrays is None:
            arrays = (np.asarray(bpe_ids, dtype=np.int64), np.asarray(lbpe_ids, dtype=np.int64))
        return _agreement_numpy(tok, bpe_ids, arrays, text, np)
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


def text_stats(tok: Tokenizer, text: str, *, mode: Mode) -> Stats:
    """Counts for one text and one mode (special-token strings count as ordinary text)."""
    return _stats_of(tok, text, tok.encode(text, mode=mode, disallowed_special=()))


def text_stats_both(tok: Tokenizer, text: str, modes: Iterable[Mode] = MODES) -> dict[str, Stats]:
    """:func:`text_stats` per mode; with both modes the LBPE side also carries the
    :class:`Agreement` of the two encodings (``Stats.agreement``)."""
    ids = {m: tok.encode(text, mode=m, disallowed_special=()) for m in modes}
    np = _numpy()
    arrays = {}
    if np is not None and all(len(i) >= _NUMPY_MIN_IDS for i in ids.values()):
        arrays = {m: np.asarray(i, dtype=np.int64) for m, i in ids.items()}  # converted once, used twice
    words = count_words(text)  # the same for both modes: counted once
    out: dict[str, Stats] = {m: _stats_of(tok, text, i, arrays.get(m), words) for m, i in ids.items()}
    if "bpe" in ids and "lbpe" in ids:
        pair = (arrays["bpe"], arrays["lbpe"]) if arrays else None
        out["lbpe"].agreement = text_agreement(tok, ids["bpe"], ids["lbpe"], text, arrays=pair)
    return out


def count_words(text: str) -> int:
    """Whitespace-separated words (``str.split`` and ``\\S+`` agree on what white space is)."""
    return len(text.split())


def _stats_of(tok: Tokenizer, text: str, ids: list[int], array=None, words: int | None = None) -> Stats:
    counts, per_id = count_tokens(tok, ids, array=array)
    return Stats(
        tokens=len(ids),
        bytes=len(text.encode("utf-8", "surrogatepass")),
        chars=len(text),
        words=count_words(text) if words is None else words,
        length_counts=counts,
        token_counts=per_id,
    )


class Continuation(str):
    """A chunk of a text that continues the chunk before it (:func:`lbpe.corpus.parallel.align_chunks`):
    encoded with :meth:`Tokenizer.continued`, so that no start-of-text rule (SentencePiece's
    dummy ``▁``) applies at the cut."""

    __slots__ = ()


def texts_stats(tok: Tokenizer, texts: str | list[str], modes: Iterable[Mode] = MODES) -> dict[str, Stats]:
    """Stats of one text, or the sum over a list of texts (documents, each encoded on its own);
    a :class:`Continuation` is encoded as the rest of the text before it."""
    modes = tuple(modes)
    if isinstance(texts, Continuation):
        return text_stats_both(tok.continued() or tok, str(texts), modes)
    if isinstance(texts, str):
        return text_stats_both(tok, texts, modes)
    totals: dict[str, Stats] = {m: Stats() for m in modes}
    for text in texts:
        for m, part in text_stats_both(tok, text, modes).items():
            totals[m] += part
    return totals


def corpus_stats(
    tok: Tokenizer,
    texts: Iterable[str | list[str]],
    *,
    modes: Iterable[Mode] = MODES,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Stats]:
    """Stream texts (chunks of files, or lists of documents each encoded on its own) and sum
    their :class:`Stats` per mode.

    ``progress`` is called with the UTF-8 bytes done after each item (the unit of file sizes).
    """
    modes = tuple(modes)
    totals: dict[str, Stats] = {m: Stats() for m in modes}
    done = 0
    for text in texts:
        part = texts_stats(tok, text, modes)
        for m in modes:
            totals[m] += part[m]
        done += part[modes[0]].bytes
        if progress is not None:
            progress(done)
    return totals


def compare_json(
    stats: dict[str, Stats],
    *,
    vocab: str = "",
    unit: str = "",
    tok: Tokenizer | None = None,
    renyi_power: float = metrics.RENYI_POWER,
) -> dict:
    """The documented JSON for BPE vs LBPE (see the module docstring). With ``tok``, the
    vocabulary's size and token lengths complete the frequency metrics."""
    bpe, lbpe = stats["bpe"], stats["lbpe"]
    b_share = _shares(bpe)
    l_share = _shares(lbpe)
    frequency: dict = {"renyi_power": renyi_power}
    if tok is not None:
        frequency.update(n_vocab=tok.n_vocab, token_length=token_lengths(tok))
    b_json, l_json = bpe.to_json(**frequency), lbpe.to_json(**frequency)
    change: dict = {}
    for metric in metrics.CATALOGUE:
        b, lb = b_json.get(metric.key), l_json.get(metric.key)
        if b is None or lb is None:
            continue
        if metric.change == "difference":
            change[metric.key] = lb - b
        else:
            change[metric.key] = (lb / b - 1) if b else 0.0
    change["length_share_points"] = {k: 100 * (l_share[k] - b_share[k]) for k in b_share}
    if "frequency_by_length" in b_json and "frequency_by_length" in l_json:
        change["frequency_by_length"] = {
            k: (v["mean"] / b_json["frequency_by_length"][k]["mean"] - 1)
            if b_json["frequency_by_length"][k]["mean"]
            else None
            for k, v in l_json["frequency_by_length"].items()
        }
    out = {"vocab": vocab, "unit": unit, "bpe": b_json, "lbpe": l_json, "change": change}
    if lbpe.agreement is not None:
        out["agreement"] = lbpe.agreement.to_json()
    return out


def _shares(s: Stats) -> dict[str, float]:
    b = s.buckets()
    total = sum(b.values())
    return {k: (v / total if total else 0.0) for k, v in b.items()}
