"""BPE against LBPE on the same text as one JSON document: :func:`compare_json` of the two modes'
:class:`~lbpe.analysis.stats.Stats` (``lbpe stats --json``; what the playground's tables and charts read).

JSON layout of :func:`compare_json`::

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
     "change_units": {"tokens": "relative", "renyi_efficiency": "difference", ...,  # each key of "change"
                      "length_share_points": "percentage points", "frequency_by_length": "relative"},
     "special_token_text": "ordinary",   # text spelling a special token is counted as ordinary text
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

from lbpe.analysis import metrics
from lbpe.analysis.counting import token_lengths, vocab_tokens
from lbpe.analysis.stats import Stats
from lbpe.tokenizer import Tokenizer

__all__ = ["compare_json"]


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
        frequency.update(vocab_tokens=vocab_tokens(tok), token_length=token_lengths(tok))
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
    units: dict[str, str] = {m.key: m.change for m in metrics.CATALOGUE if m.key in change}
    units["length_share_points"] = "percentage points"
    if "frequency_by_length" in change:
        units["frequency_by_length"] = "relative"
    out = {"vocab": vocab, "unit": unit, "bpe": b_json, "lbpe": l_json, "change": change, "change_units": units}
    out["special_token_text"] = "ordinary"  # counted as text, as lbpe.analysis.counting encodes it
    if lbpe.agreement is not None:
        out["agreement"] = lbpe.agreement.to_json()
    return out


def _shares(s: Stats) -> dict[str, float]:
    b = s.buckets()
    total = sum(b.values())
    return {k: (v / total if total else 0.0) for k, v in b.items()}
