"""Intrinsic metrics of a token stream, from its frequency table (token id -> occurrences).

The paper argues that BPE leaves long tokens rare and short ones frequent, and that LBPE
"smooths the frequency differences between short and long tokens". These functions measure
that balance and the measures tokenization research compares, on the mergeable frequency
tables that :class:`lbpe.stats.Stats` keeps (bounded by the vocabulary, whatever the corpus).

* :func:`shannon_entropy` and :func:`renyi_entropy`, in bits; :func:`efficiency` divides one by
  ``log2`` of a vocabulary size. By default that size is the number of distinct tokens seen,
  as in the ``tokenization-scorer`` package (Zouhar et al. 2023), whose figures these equal.
* :func:`gini`: 0 when every token used occurs equally often, towards 1 when a few dominate.
* :func:`frequency_by_length`: occurrences per distinct token, per length bucket.

>>> counts = {1: 6, 2: 3, 3: 1}
>>> round(shannon_entropy(counts), 6), round(renyi_entropy(counts, 2.5), 6)
(1.295462, 1.062491)
>>> round(efficiency(shannon_entropy(counts), 3), 6)
0.817345
>>> round(gini(counts), 6)
0.333333
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Mapping

__all__ = ["shannon_entropy", "renyi_entropy", "efficiency", "gini", "frequency_by_length", "RENYI_POWER"]

#: The Rényi power used unless another is asked for (Zouhar et al. recommend 2.5).
RENYI_POWER = 2.5


def _probabilities(counts: Mapping[int, int]) -> list[float]:
    total = sum(counts.values())
    # most frequent first, as tokenization-scorer sums them (the order changes the last bits)
    return [n / total for n in sorted(counts.values(), reverse=True) if n] if total else []


def shannon_entropy(counts: Mapping[int, int]) -> float:
    """``-sum p log2 p`` over the tokens' relative frequencies, in bits (0 for no tokens)."""
    return -sum(p * math.log2(p) for p in _probabilities(counts))


def renyi_entropy(counts: Mapping[int, int], power: float = RENYI_POWER) -> float:
    """``log2(sum p^power) / (1 - power)`` in bits; Shannon entropy at power 1."""
    if power < 0 or not math.isfinite(power):
        raise ValueError(f"the Rényi power must be a finite number >= 0, not {power!r}")
    if power == 1:
        return shannon_entropy(counts)
    probabilities = _probabilities(counts)
    if not probabilities:
        return 0.0
    return math.log2(sum(p**power for p in probabilities)) / (1 - power)


def efficiency(entropy: float, vocab_size: int) -> float:
    """``entropy / log2(vocab_size)``: 1 for a uniform use of ``vocab_size`` tokens (0 when
    fewer than two tokens are possible)."""
    return entropy / math.log2(vocab_size) if vocab_size > 1 else 0.0


def gini(counts: Mapping[int, int]) -> float:
    """Gini coefficient of the occurrences of the distinct tokens used."""
    values = sorted(n for n in counts.values() if n)
    total = sum(values)
    k = len(values)
    if k < 2 or not total:
        return 0.0
    return sum((2 * i - k - 1) * x for i, x in enumerate(values, 1)) / (k * total)


def frequency_by_length(
    counts: Mapping[int, int], length: Callable[[int], int], buckets: tuple[tuple[int, int | None], ...]
) -> dict[tuple[int, int | None], dict[str, float]]:
    """Per length bucket: the distinct tokens used, their total, mean and median occurrences.

    ``length`` gives a token id's length in units (0 leaves the token out: special and added
    tokens).
    """
    groups: dict[tuple[int, int | None], list[int]] = {b: [] for b in buckets}
    for token, n in counts.items():
        units = length(token)
        if not units or not n:
            continue
        for lo, hi in buckets:
            if units >= lo and (hi is None or units <= hi):
                groups[(lo, hi)].append(n)
                break
    return {
        bucket: {
            "distinct": len(values),
            "occurrences": sum(values),
            "mean": statistics.fmean(values) if values else 0.0,
            "median": float(statistics.median(values)) if values else 0.0,
        }
        for bucket, values in groups.items()
    }
