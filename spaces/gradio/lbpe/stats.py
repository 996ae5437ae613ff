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
              "bytes_per_token": float, "chars_per_token": float, "tokens_per_word": float,
              "length_buckets": {"1-3": int, ..., "16+": int},
              "length_counts": {"<length>": int, ...},
              # from the token-frequency table (lbpe.metrics), when the Stats has one:
              "distinct_tokens": int, "type_token_ratio": float,
              "vocab_utilisation": float | None,          # distinct / vocabulary size (needs tok)
              "shannon_entropy": float, "shannon_efficiency": float,       # bits; / log2(distinct)
              "renyi_power": float, "renyi_entropy": float, "renyi_efficiency": float,
              "gini": float,
              "frequency_by_length": {"1-3": {"distinct": int, "occurrences": int,
                                              "mean": float, "median": float}, ...},   # needs tok
              "short_long_frequency_ratio": float | None},                              # needs tok
     "lbpe": {... the same keys ...},
     "change": {"tokens": float, "bytes_per_token": float,
                "length_share_points": {"1-3": float, ...},
                "renyi_efficiency": float, "shannon_efficiency": float, "gini": float,
                "type_token_ratio": float}}

``change.tokens`` and ``change.bytes_per_token`` are relative (lbpe / bpe - 1);
``length_share_points`` is the difference of each bucket's share of all tokens, in
percentage points (the paper's Table 2 convention); the metric changes are differences
(lbpe - bpe), the metrics being ratios already. ``short_long_frequency_ratio`` is the mean
occurrences of a distinct 1-3 unit token over that of a distinct token of 7 units or more: the
paper expects LBPE to lower it (rarer short tokens, more frequent long ones).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from lbpe import metrics
from lbpe.tokenizer import MODES, Mode, Tokenizer

__all__ = [
    "BUCKETS", "PerToken", "Stats", "text_stats", "corpus_stats", "compare_json", "bucket_label", "token_lengths",
    "count_lengths", "count_tokens",
]

#: The paper's token-length buckets: (low, high) inclusive, ``None`` for open-ended.
BUCKETS: tuple[tuple[int, int | None], ...] = ((1, 3), (4, 6), (7, 9), (10, 12), (13, 15), (16, None))

_WORD = re.compile(r"\S+")

#: Tokens of at least this many units count as long in ``short_long_frequency_ratio`` (the
#: paper's buckets from 7-9 up; short is its first bucket, 1-3).
LONG_TOKEN = 7


def bucket_label(low: int, high: int | None) -> str:
    return f"{low}-{high}" if high is not None else f"{low}+"


class PerToken:
    """The per-token averages of anything that counts ``tokens``, ``bytes`` and ``chars``."""

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens if self.tokens else 0.0

    @property
    def chars_per_token(self) -> float:
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

    def __add__(self, other: Stats) -> Stats:
        out = Stats(self.tokens, self.bytes, self.chars, self.words, dict(self.length_counts), dict(self.token_counts))
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
        return self

    @property
    def tokens_per_word(self) -> float:
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
        self, *, n_vocab: int | None = None, token_length: Callable[[int], int] | None = None,
        renyi_power: float = metrics.RENYI_POWER,
    ) -> dict:
        """The intrinsic metrics of :data:`token_counts` (see :mod:`lbpe.metrics`)."""
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

    def to_json(self, **frequency: object) -> dict:
        """Counts, per-token averages, the length buckets and, when the frequency table is
        there, the intrinsic metrics (``frequency``: the arguments of :meth:`frequency_json`)."""
        out = {
            "tokens": self.tokens,
            "bytes": self.bytes,
            "chars": self.chars,
            "words": self.words,
            "bytes_per_token": self.bytes_per_token,
            "chars_per_token": self.chars_per_token,
            "tokens_per_word": self.tokens_per_word,
            "length_buckets": self.buckets(),
            "length_counts": {str(k): v for k, v in sorted(self.length_counts.items())},
        }
        if self.token_counts:
            out.update(self.frequency_json(**frequency))  # type: ignore[arg-type]
        return out


def _length_table(tok: Tokenizer) -> dict[int, int]:
    """id -> length in units of every ordinary, byte-fallback and unknown token; built once per
    vocabulary (kept in its ``__dict__``, next to its other derived tables)."""
    vocab = tok.vocab
    table = vocab.__dict__.get("_length_table")
    if table is None:
        table = {i: len(key) for key, i in vocab.units.items()}
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


@functools.lru_cache(maxsize=None)
def _numpy_module():
    """numpy, imported on first use (``import lbpe`` never loads it), or ``None``."""
    try:
        import numpy
    except ImportError:  # the browser page, or CPython without lbpe[numpy]
        return None
    return numpy


def _length_array(tok: Tokenizer, np):
    """The id -> length table as a numpy array (0 for ids without units), kept beside the dict."""
    vocab = tok.vocab
    array_ = vocab.__dict__.get("_length_array")
    if array_ is None:
        table = _length_table(tok)
        array_ = np.zeros(max(max(table, default=0) + 1, tok.n_vocab), dtype=np.int64)
        array_[np.fromiter(table.keys(), dtype=np.int64, count=len(table))] = np.fromiter(
            table.values(), dtype=np.int64, count=len(table)
        )
        vocab.__dict__["_length_array"] = array_
    return array_


def count_tokens(tok: Tokenizer, ids: list[int]) -> tuple[dict[int, int], dict[int, int]]:
    """``(tokens per length in units, occurrences per id)`` among ``ids``; special and added
    tokens have no length, so they count in the second table only.

    With numpy installed (``lbpe[numpy]``) and many ids, ``bincount`` does the counting;
    otherwise ``Counter``: the same tables.
    """
    np = _numpy_override[-1] if _numpy_override else _numpy_module()
    if np is not None and len(ids) >= _NUMPY_MIN_IDS:
        lengths = _length_array(tok, np)
        a = np.asarray(ids, dtype=np.int64)
        if int(a.max()) < len(lengths) and int(a.min()) >= 0:
            per_id = np.bincount(a)
            seen = np.flatnonzero(per_id)
            by_length = np.bincount(lengths[seen], weights=per_id[seen]).astype(np.int64)
            lengths_out = {units: int(n) for units, n in enumerate(by_length.tolist()) if units and n}
            return lengths_out, dict(zip(seen.tolist(), per_id[seen].tolist()))
    length = _length_table(tok).get
    per_id_counter = Counter(ids)  # counted in C, then one lookup per distinct id
    counts: Counter[int] = Counter()
    for i, n in per_id_counter.items():
        units = length(i, 0)
        if units:
            counts[units] += n
    return dict(counts), dict(per_id_counter)


def count_lengths(tok: Tokenizer, ids: list[int]) -> dict[int, int]:
    """Tokens per length in units among ``ids`` (special and added tokens left out)."""
    return count_tokens(tok, ids)[0]


def text_stats(tok: Tokenizer, text: str, *, mode: Mode) -> Stats:
    """Counts for one text and one mode (special-token strings count as ordinary text)."""
    ids = tok.encode(text, mode=mode, disallowed_special=())
    counts, per_id = count_tokens(tok, ids)
    return Stats(
        tokens=len(ids),
        bytes=len(text.encode("utf-8", "surrogatepass")),
        chars=len(text),
        words=len(_WORD.findall(text)),
        length_counts=counts,
        token_counts=per_id,
    )


def corpus_stats(
    tok: Tokenizer,
    texts: Iterable[str],
    *,
    modes: Iterable[Mode] = MODES,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Stats]:
    """Stream texts (e.g. chunks of files) and sum their :class:`Stats` per mode.

    ``progress`` is called with the number of characters done after each text.
    """
    modes = tuple(modes)
    totals = {m: Stats() for m in modes}
    done = 0
    for text in texts:
        for m in modes:
            totals[m] += text_stats(tok, text, mode=m)
        done += len(text)
        if progress is not None:
            progress(done)
    return totals


def compare_json(
    stats: dict[str, Stats], *, vocab: str = "", unit: str = "", tok: Tokenizer | None = None,
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
    change: dict = {
        "tokens": (lbpe.tokens / bpe.tokens - 1) if bpe.tokens else 0.0,
        "bytes_per_token": (lbpe.bytes_per_token / bpe.bytes_per_token - 1) if bpe.bytes_per_token else 0.0,
        "length_share_points": {k: 100 * (l_share[k] - b_share[k]) for k in b_share},
    }
    for key in ("renyi_efficiency", "shannon_efficiency", "gini", "type_token_ratio"):
        if key in b_json and key in l_json:
            change[key] = l_json[key] - b_json[key]  # a difference: these are already ratios
    return {"vocab": vocab, "unit": unit, "bpe": b_json, "lbpe": l_json, "change": change}


def _shares(s: Stats) -> dict[str, float]:
    b = s.buckets()
    total = sum(b.values())
    return {k: (v / total if total else 0.0) for k, v in b.items()}
