"""Corpus statistics for classic BPE and LBPE on the same text (the paper's Tables 2 and 6):
the :class:`Stats` accumulator, the paper's length buckets, and texts, documents and corpora
encoded in both modes and summed into it.

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

How the two modes compare, as JSON: :func:`lbpe.analysis.comparison.compare_json`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from lbpe.analysis import metrics
from lbpe.analysis.agreement import Agreement, text_agreement
from lbpe.analysis.counting import (
    _NUMPY_MIN_IDS,
    Ids,
    _numpy,
    as_id_array,
    count_tokens,
    count_words,
    encode_for_counting,
)
from lbpe.tokenizer import MODES, Mode, Tokenizer

__all__ = [
    "BUCKETS",
    "PerToken",
    "Stats",
    "text_stats",
    "corpus_stats",
    "bucket_label",
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
        vocab_tokens: int | None = None,
        token_length: Callable[[int], int] | None = None,
        renyi_power: float = metrics.RENYI_POWER,
    ) -> dict:
        """The intrinsic metrics of :data:`token_counts` (see :mod:`lbpe.analysis.metrics`);
        ``vocab_tokens``: the tokens an encoding can give
        (:func:`lbpe.analysis.counting.vocab_tokens`), for the share of them used."""
        counts = self.token_counts
        distinct = sum(1 for n in counts.values() if n)
        entropy = metrics.shannon_entropy(counts)
        renyi = metrics.renyi_entropy(counts, renyi_power)
        out: dict = {
            "distinct_tokens": distinct,
            "type_token_ratio": distinct / self.tokens if self.tokens else 0.0,
            "vocab_utilisation": distinct / vocab_tokens if vocab_tokens else None,
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


def text_stats(tok: Tokenizer, text: str, *, mode: Mode) -> Stats:
    """Counts for one text and one mode (special-token strings count as ordinary text)."""
    return _stats_of(tok, text, encode_for_counting(tok, text, mode=mode))


def text_stats_both(tok: Tokenizer, text: str, modes: Iterable[Mode] = MODES) -> dict[str, Stats]:
    """:func:`text_stats` per mode; with both modes the LBPE side also carries the
    :class:`Agreement` of the two encodings (``Stats.agreement``)."""
    ids = {m: encode_for_counting(tok, text, mode=m) for m in modes}
    np = _numpy()
    arrays = {}
    if np is not None and all(len(i) >= _NUMPY_MIN_IDS or not isinstance(i, list) for i in ids.values()):
        arrays = {m: as_id_array(i, np) for m, i in ids.items()}  # converted once, used twice
    words = count_words(text)  # the same for both modes: counted once
    out: dict[str, Stats] = {m: _stats_of(tok, text, i, arrays.get(m), words) for m, i in ids.items()}
    if "bpe" in ids and "lbpe" in ids:
        pair = (arrays["bpe"], arrays["lbpe"]) if arrays else None
        out["lbpe"].agreement = text_agreement(tok, ids["bpe"], ids["lbpe"], text, arrays=pair)
    return out


def _stats_of(tok: Tokenizer, text: str, ids: Ids, array=None, words: int | None = None) -> Stats:
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
