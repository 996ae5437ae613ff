"""Intrinsic metrics of a token stream, from its frequency table (token id -> occurrences).

The paper argues that BPE leaves long tokens rare and short ones frequent, and that LBPE
"smooths the frequency differences between short and long tokens". These functions measure
that balance and the measures tokenization research compares, on the mergeable frequency
tables that :class:`lbpe.analysis.stats.Stats` keeps (bounded by the vocabulary, whatever the corpus).

* :func:`shannon_entropy` and :func:`renyi_entropy`, in bits; :func:`efficiency` divides one by
  ``log2`` of a vocabulary size. By default that size is the number of distinct tokens seen,
  as in the ``tokenization-scorer`` package (Zouhar et al. 2023), whose figures these equal.
* :func:`gini`: 0 when every token used occurs equally often, towards 1 when a few dominate.
* :func:`frequency_by_length`: occurrences per distinct token, per length bucket.
* :data:`CATALOGUE`: every metric the CLI, the app, the page and the reports show, with one line
  on what it means and which way the paper predicts LBPE moves it.

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
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "shannon_entropy",
    "renyi_entropy",
    "efficiency",
    "gini",
    "frequency_by_length",
    "RENYI_POWER",
    "Metric",
    "CATALOGUE",
    "AGREEMENT",
    "predicted",
]

#: The Rényi power used unless another is asked for (Zouhar et al. recommend 2.5).
RENYI_POWER = 2.5


def _probabilities(counts: Mapping[int, int]) -> list[float]:
    total = sum(counts.values())
    # most frequent first, as tokenization-scorer sums them (the order changes the last bits)
    return [n / total for n in sorted(counts.values(), reverse=True) if n] if total else []


def shannon_entropy(counts: Mapping[int, int]) -> float:
    """``-sum p log2 p`` over the tokens' relative frequencies, in bits (0 for no tokens)."""
    return 0.0 - sum(p * math.log2(p) for p in _probabilities(counts))  # 0.0 - 0.0 is 0.0, never -0.0


def renyi_entropy(counts: Mapping[int, int], power: float = RENYI_POWER) -> float:
    """``log2(sum p^power) / (1 - power)`` in bits; Shannon entropy at power 1."""
    if power < 0 or not math.isfinite(power):
        raise ValueError(f"the Rényi power must be a finite number >= 0, not {power!r}")
    if power == 1:
        return shannon_entropy(counts)
    probabilities = _probabilities(counts)
    if not probabilities:
        return 0.0
    if abs(power - 1) < 0.5:
        # near 1, sum p^power is 1 plus a sliver that rounding would lose: take the sliver alone,
        # sum p * (p^(power-1) - 1), with expm1 and log1p (a power a hair from 1 gives Shannon's)
        sliver = sum(p * math.expm1((power - 1) * math.log(p)) for p in probabilities)
        return math.log1p(sliver) / ((1 - power) * math.log(2)) + 0.0  # never -0.0
    total = sum(p**power for p in probabilities)
    if total < sys.float_info.min:  # a high power: every p^power underflows, so scale by the largest p
        top = probabilities[0]
        # power * log2(top) would overflow for a power near the largest float: divide first
        # (power / (1 - power) tends to -1, the min-entropy -log2(top))
        scaled = math.log2(sum((p / top) ** power for p in probabilities))
        return math.log2(top) * (power / (1 - power)) + scaled / (1 - power) + 0.0
    return math.log2(total) / (1 - power) + 0.0  # one token only: log2(1) = 0 over a negative: never -0.0


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
        n_units = length(token)
        if not n_units or not n:
            continue
        for lo, hi in buckets:
            if n_units >= lo and (hi is None or n_units <= hi):
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


# ---------------------------------------------------------------------------------------------
# the catalogue: what each metric means and which way the paper predicts it moves
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """One figure of :func:`lbpe.analysis.comparison.compare_json`, described once for every front end."""

    #: its key in a mode's block (or in ``"agreement"``)
    key: str
    #: a short label for tables
    label: str
    #: one line: what it measures
    meaning: str
    #: the way the paper predicts LBPE moves it against BPE (``None``: no prediction)
    paper: Literal["lower", "higher"] | None
    #: how the change is given: ``"relative"`` (lbpe / bpe - 1), ``"difference"`` (lbpe - bpe)
    change: Literal["relative", "difference"] = "relative"
    #: ``"int"`` or the number of decimals shown
    digits: int | Literal["int"] = 4


#: Per-mode metrics, in the order tables show them.
CATALOGUE: tuple[Metric, ...] = (
    Metric("tokens", "tokens", "tokens needed for the text", "lower", digits="int"),
    Metric("bytes_per_token", "bytes / token", "UTF-8 bytes per token: compression (the paper's Table 6)", "higher"),
    Metric("chars_per_token", "characters / token", "characters per token", "higher"),
    Metric("fertility", "fertility", "tokens per whitespace-separated word", "lower"),
    Metric("distinct_tokens", "distinct tokens", "vocabulary entries the text uses", None, digits="int"),
    Metric("vocab_utilisation", "vocabulary utilisation", "distinct tokens used / vocabulary size", None, "difference"),
    Metric("type_token_ratio", "type-token ratio", "distinct tokens / tokens", None, "difference", 6),
    Metric(
        "short_long_frequency_ratio",
        "short/long frequency ratio",
        "mean occurrences of a 1-3 unit token over those of a token of 7+ units: the paper's imbalance",
        "lower",
        digits=3,
    ),
    Metric(
        "gini",
        "Gini coefficient",
        "inequality of token frequencies: 0 even, towards 1 when few tokens dominate",
        "lower",
        "difference",
    ),
    Metric(
        "shannon_entropy",
        "Shannon entropy (bits)",
        "entropy of the token-frequency distribution",
        "higher",
        "difference",
    ),
    Metric(
        "shannon_efficiency", "Shannon efficiency", "Shannon entropy / log2(distinct tokens)", "higher", "difference"
    ),
    Metric(
        "renyi_efficiency",
        "Rényi efficiency",
        "Rényi entropy (power 2.5 unless set) / log2(distinct tokens); Zouhar et al. 2023",
        "higher",
        "difference",
    ),
)

#: Figures of ``compare_json(...)["agreement"]``: how LBPE's segmentation agrees with BPE's.
AGREEMENT: tuple[Metric, ...] = (
    Metric(
        "word_agreement",
        "words segmented identically",
        "share of whitespace words both modes cut the same way",
        None,
        "difference",
    ),
    Metric(
        "boundary_precision",
        "boundary precision",
        "share of LBPE's token boundaries that BPE also has",
        None,
        "difference",
    ),
    Metric("boundary_recall", "boundary recall", "share of BPE's token boundaries that LBPE keeps", None, "difference"),
    Metric("boundary_f1", "boundary F1", "harmonic mean of the two", None, "difference"),
)


def predicted(metric: Metric, change: float | None) -> bool | None:
    """Whether ``change`` goes the way the paper predicts (``None``: no prediction, or no change)."""
    if metric.paper is None or change is None or change == 0 or math.isnan(change):
        return None
    return (change < 0) == (metric.paper == "lower")


#: The paper's own figures (Lian et al., LBPE: character-level BPE vocabularies trained "following
#: LLaMA", measured on the Pile), each with the change as the paper prints it. Tables show them
#: beside the measured ones. Table 6: bytes per token, BPE then LBPE, at each vocabulary size.
PAPER_BYTES_PER_TOKEN = {
    "32K": (3.4318, 3.4381, "+0.184%"),
    "64K": (3.5777, 3.5812, "+0.098%"),
    "128K": (3.6817, 3.6824, "+0.019%"),
}
#: Table 2 (32K): tokens per length bucket (in characters), BPE then LBPE.
PAPER_LENGTH_COUNTS = {
    "1-3": (2.287e11, 2.264e11, "-0.97%"),
    "4-6": (1.002e11, 1.005e11, "+0.37%"),
    "7-9": (3.618e10, 3.704e10, "+2.37%"),
    "10-12": (1.204e10, 1.231e10, "+2.24%"),
    "13-15": (2.066e9, 2.114e9, "+2.28%"),
}
#: Table 8 (468M-parameter models): accuracy per benchmark for BPE, LBPE, Scaffold-BPE and
#: Scaffold-BPE with LBPE. Only trained models give these; tables show them for reference.
PAPER_SCAFFOLD_ACCURACY = {
    "BoolQ": (58.64, 60.89, 60.52, 60.40),
    "HellaSwag": (40.78, 41.61, 41.68, 42.17),
    "OpenBookQA": (30.50, 31.70, 32.20, 32.20),
    "PIQA": (66.57, 67.08, 68.69, 69.15),
    "SIQA": (43.40, 43.71, 44.09, 44.27),
    "StoryCloze": (62.77, 63.52, 63.04, 64.64),
    "Winogrande": (53.00, 54.81, 54.22, 55.25),
}


def paper_figure(key: str) -> str | None:
    """What the paper reports for a table row: ``"bytes_per_token"`` or ``"length 7-9"``.

    >>> paper_figure("bytes_per_token"), paper_figure("length 1-3"), paper_figure("gini")
    ('+0.184% at 32K (3.4318 -> 3.4381)', 'tokens -0.97% at 32K', None)
    """
    if key == "bytes_per_token":
        b, lb, change = PAPER_BYTES_PER_TOKEN["32K"]
        return f"{change} at 32K ({b} -> {lb})"
    if key.startswith("length ") and key[7:] in PAPER_LENGTH_COUNTS:
        return f"tokens {PAPER_LENGTH_COUNTS[key[7:]][2]} at 32K"
    return None
