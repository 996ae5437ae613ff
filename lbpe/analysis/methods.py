"""Every inference method of :data:`lbpe.METHODS` on the same text, side by side: ``lbpe stats
--methods``. One row per method with the figures that tell the methods apart: tokens, bytes per
token, the share of long tokens, Rényi efficiency, fertility and how many words the method cuts
exactly as classic BPE does.

Each method's counts are a :class:`~lbpe.analysis.stats.Stats` (additive, so chunks and
processes merge with ``+=``) whose ``agreement`` compares that method's encoding with BPE's
(:class:`~lbpe.analysis.agreement.Agreement`); BPE is always encoded, as the baseline, even when
it is not among the methods asked for. The definitions are the existing ones: a token is long
from :data:`~lbpe.analysis.stats.LONG_TOKEN` units (the paper's buckets from 7-9 up, in the
vocabulary's units), fertility is tokens per whitespace-separated word, Rényi efficiency is
:func:`lbpe.analysis.metrics.renyi_entropy` over ``log2`` of the distinct tokens used, and a
word agrees when no boundary of one encoding falls inside it without the other's (with no words at
all, the agreement is 1, as :attr:`~lbpe.analysis.agreement.Agreement.word_agreement` has it).

BPE-dropout draws at random: with a ``seed`` each text (document or chunk) is encoded with
that seed, so a run is reproducible; without one every run differs.

JSON layout of :func:`methods_json` (and of ``lbpe stats --methods ... --json``)::

    {"vocab": str, "unit": "byte" | "char", "renyi_power": float, "long_token": 7,
     "baseline": "bpe", "dropout": float | None, "seed": int | None,
     "methods": {"<method>": {"tokens": int, "bytes": int, "words": int,
                              "bytes_per_token": float, "fertility": float,
                              "long_tokens": int, "long_token_share": float,
                              "distinct_tokens": int, "renyi_efficiency": float,
                              "agreement_words": int, "identical_words": int,
                              "word_agreement": float, "boundary_f1": float}, ...}}

>>> from lbpe.vocab import Vocab
>>> from lbpe.tokenizer import Tokenizer
>>> tok = Tokenizer(Vocab({bytes([b]): b for b in range(256)} | {b"ab": 256, b"bc": 257}), "paper")
>>> doc = methods_stats(tok, "abc", methods=("bpe", "longest-suffix"))
>>> [(m, row["tokens"], row["word_agreement"]) for m, row in doc["methods"].items()]
[('bpe', 2, 1.0), ('longest-suffix', 2, 0.0)]
"""

from __future__ import annotations

import csv
import difflib
import io
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from lbpe.analysis import metrics
from lbpe.analysis.across import change_bars
from lbpe.analysis.agreement import Agreement, text_agreement
from lbpe.analysis.counting import count_words, encode_for_counting
from lbpe.analysis.stats import LONG_TOKEN, Continuation, Stats, _stats_of
from lbpe.errors import LbpeError
from lbpe.tokenizer import METHODS, Method, Tokenizer
from lbpe.tokenizer.checks import negative_seed

__all__ = [
    "BASELINE",
    "parse_methods",
    "check_options",
    "text_methods_stats",
    "texts_methods_stats",
    "corpus_methods_stats",
    "methods_json",
    "methods_stats",
    "METHODS_HEADERS",
    "METHODS_TYPES",
    "methods_rows",
    "methods_csv",
    "methods_spec",
]

#: The method every other one is compared with (word agreement).
BASELINE: Method = "bpe"


def parse_methods(spec: str | Iterable[str]) -> tuple[Method, ...]:
    """Methods from ``"bpe,lbpe,least-tokens"`` (or a list of names), in the order given, each
    once; ``"all"`` is every method of :data:`lbpe.METHODS`. An unknown name raises an error
    that lists the methods.

    >>> parse_methods("lbpe, bpe,lbpe")
    ('lbpe', 'bpe')
    >>> parse_methods("all") == METHODS
    True
    """
    names = [n.strip() for n in spec.split(",")] if isinstance(spec, str) else [str(n).strip() for n in spec]
    names = [n for n in names if n]
    if names and set(names) == {"all"}:
        return METHODS
    valid = ", ".join(METHODS)
    if not names:
        raise LbpeError(f"no method given; name some of {valid} (comma-separated), or all")
    out: list[Method] = []
    if "all" in names:
        others = ", ".join(n for n in names if n != "all")
        raise LbpeError(
            f"'all' stands for every method and goes alone, not with {others}: give all, or name the methods"
        )
    for name in names:
        if name not in METHODS:
            spelled = name.lower().replace("_", "-").replace(" ", "-")
            close = [spelled] if spelled in METHODS else difflib.get_close_matches(spelled, METHODS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise LbpeError(f"unknown method {name!r}{hint}; the methods are {valid}, or all")
        if name not in out:
            out.append(name)
    return tuple(out)


def check_options(methods: Sequence[Method], dropout: float | None, seed: int | None) -> None:
    """Raise unless the dropout options fit the methods: ``"dropout"`` needs a rate from 0 to
    1, and a rate or seed without ``"dropout"`` would be ignored."""
    if "dropout" in methods:
        if dropout is None:
            raise LbpeError("the dropout method needs a rate from 0 to 1: --dropout 0.1 (in Python: dropout=0.1)")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0.0 <= dropout <= 1.0:
            raise LbpeError(f"the dropout rate must be a number from 0 to 1 (e.g. 0.1), not {dropout!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise LbpeError(f"the seed must be a whole number, not {seed!r}")
        if seed is not None and seed < 0:
            raise LbpeError(f"the seed must be {negative_seed(seed)}")
    elif dropout is not None or seed is not None:
        raise LbpeError(
            "a dropout rate or seed only applies to the dropout method: add dropout to the methods (or leave them out)"
        )


def text_methods_stats(
    tok: Tokenizer, text: str, methods: Sequence[Method], *, dropout: float | None = None, seed: int | None = None
) -> dict[str, Stats]:
    """:class:`Stats` of one text per method, each with its ``agreement`` with BPE (special-token
    strings count as ordinary text, as in :func:`lbpe.analysis.stats.text_stats`)."""
    bpe_ids = encode_for_counting(tok, text, mode=BASELINE)
    words = count_words(text)  # the same for every method: counted once
    out: dict[str, Stats] = {}
    for method in methods:
        if method == BASELINE:
            ids = bpe_ids
        elif method == "dropout":
            ids = encode_for_counting(tok, text, mode=method, dropout=dropout, seed=seed)
        else:
            ids = encode_for_counting(tok, text, mode=method)
        stats = _stats_of(tok, text, ids, None, words)
        stats.agreement = text_agreement(tok, bpe_ids, ids, text)
        out[method] = stats
    return out


def texts_methods_stats(
    tok: Tokenizer,
    texts: str | list[str],
    methods: Sequence[Method],
    *,
    dropout: float | None = None,
    seed: int | None = None,
) -> dict[str, Stats]:
    """Per method, the stats of one text or the sum over a list of texts (documents, each
    encoded on its own); a :class:`~lbpe.analysis.stats.Continuation` is encoded as the rest of
    the text before it. The unit of work of :func:`lbpe.corpus.parallel.parallel_methods_stats`."""
    if isinstance(texts, Continuation):
        return text_methods_stats(tok.continued() or tok, str(texts), methods, dropout=dropout, seed=seed)
    if isinstance(texts, str):
        return text_methods_stats(tok, texts, methods, dropout=dropout, seed=seed)
    totals: dict[str, Stats] = {m: Stats() for m in methods}
    for text in texts:
        for m, part in text_methods_stats(tok, text, methods, dropout=dropout, seed=seed).items():
            totals[m] += part
    return totals


def corpus_methods_stats(
    tok: Tokenizer,
    texts: Iterable[str | list[str]],
    methods: Sequence[Method],
    *,
    dropout: float | None = None,
    seed: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Stats]:
    """Stream texts (chunks, or lists of documents) and sum their stats per method in this
    process (:func:`lbpe.corpus.parallel.parallel_methods_stats` shares them among processes).
    ``progress`` is called with the UTF-8 bytes done after each item."""
    methods = tuple(methods)
    check_options(methods, dropout, seed)
    totals: dict[str, Stats] = {m: Stats() for m in methods}
    done = 0
    for text in texts:
        part = texts_methods_stats(tok, text, methods, dropout=dropout, seed=seed)
        for m in methods:
            totals[m] += part[m]
        done += part[methods[0]].bytes
        if progress is not None:
            progress(done)
    return totals


def methods_json(
    stats: dict[str, Stats],
    *,
    tok: Tokenizer | None = None,
    vocab: str | None = None,
    unit: str | None = None,
    renyi_power: float = metrics.RENYI_POWER,
    dropout: float | None = None,
    seed: int | None = None,
) -> dict:
    """The documented JSON (see the module docstring) of per-method stats."""
    rows: dict[str, dict] = {}
    for method, s in stats.items():
        with_length = sum(s.length_counts.values())
        long = sum(n for length, n in s.length_counts.items() if length >= LONG_TOKEN)
        frequency = s.frequency_json(renyi_power=renyi_power)
        agreement = s.agreement or Agreement()  # no text: no word to disagree on
        rows[method] = {
            "tokens": s.tokens,
            "bytes": s.bytes,
            "words": s.words,
            "bytes_per_token": s.bytes_per_token,
            "fertility": s.fertility,
            "long_tokens": long,
            "long_token_share": long / with_length if with_length else 0.0,
            "distinct_tokens": frequency["distinct_tokens"],
            "renyi_efficiency": frequency["renyi_efficiency"],
            "agreement_words": agreement.words,
            "identical_words": agreement.identical_words,
            "word_agreement": agreement.word_agreement,
            "boundary_f1": agreement.boundary_f1,
        }
    return {
        "vocab": vocab if vocab is not None else (tok.name if tok is not None else ""),
        "unit": unit if unit is not None else (tok.vocab.unit if tok is not None else ""),
        "renyi_power": renyi_power,
        "long_token": LONG_TOKEN,
        "baseline": BASELINE,
        "dropout": dropout,
        "seed": seed,
        "methods": rows,
    }


def methods_stats(
    tok: Tokenizer,
    texts: str | Iterable[str],
    *,
    methods: str | Iterable[str] = METHODS,
    dropout: float | None = None,
    seed: int | None = None,
    renyi_power: float = metrics.RENYI_POWER,
) -> dict:
    """The methods table (:func:`methods_json`) of a text, or of documents each encoded on its
    own. ``methods``: names, ``"a,b"`` or ``"all"`` (:func:`parse_methods`); the default is
    every method, which needs ``dropout`` (leave ``"dropout"`` out otherwise).

    This runs in one process, a text after another; for corpus files on every core see
    :func:`lbpe.corpus.parallel.parallel_methods_stats` (what ``lbpe stats --methods`` uses). Every
    method but ``"dropout"`` has a compiled path; BPE-dropout runs in Python.
    """
    chosen = parse_methods(methods)
    items: Iterable[str | list[str]] = [texts] if isinstance(texts, str) else ([t] for t in texts)
    stats = corpus_methods_stats(tok, items, chosen, dropout=dropout, seed=seed)
    return methods_json(stats, tok=tok, renyi_power=renyi_power, dropout=dropout, seed=seed)


#: Column headers of :func:`methods_rows` (the columns of ``lbpe stats --methods``).
METHODS_HEADERS = [
    "method",
    "tokens",
    "bytes/token",
    f"long tokens % (≥{LONG_TOKEN} units)",
    "Rényi efficiency",
    "fertility (tokens/word)",
    "words cut as BPE %",
]
#: Per column of :data:`METHODS_HEADERS`: "str" or "number" (a table sorts numbers as numbers).
_NUMBER: Literal["number"] = "number"
METHODS_TYPES: list[Literal["str", "number"]] = ["str", *[_NUMBER] * (len(METHODS_HEADERS) - 1)]


def methods_rows(doc: dict) -> list[list]:
    """One row per method of a :func:`methods_json` document under :data:`METHODS_HEADERS`;
    numbers rounded as ``lbpe stats --methods`` prints them (the document keeps them whole)."""
    return [
        [
            method,
            r["tokens"],
            round(r["bytes_per_token"], 4),
            round(100 * r["long_token_share"], 3),
            round(r["renyi_efficiency"], 4),
            round(r["fertility"], 4),
            round(100 * r["word_agreement"], 2),
        ]
        for method, r in doc["methods"].items()
    ]


def methods_csv(rows: Iterable[list]) -> str:
    """CSV of :func:`methods_rows` under :data:`METHODS_HEADERS`."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(METHODS_HEADERS)
    writer.writerows(rows)
    return buf.getvalue()


def methods_spec(doc: dict, *, title: str | None = None, height: int | None = None) -> dict:
    """A plain Plotly figure of a :func:`methods_json` document: per method, its change in tokens
    (%) and in the share of long tokens (points) from BPE's (or, without BPE among the methods,
    from the first method's), as horizontal bars, the document's first method on top."""
    rows = doc["methods"]
    base_name = BASELINE if BASELINE in rows else next(iter(rows))
    base = rows[base_name]
    order = list(reversed(rows))  # Plotly draws the first at the bottom
    tokens = [100 * (rows[m]["tokens"] / base["tokens"] - 1) if base["tokens"] else 0.0 for m in order]
    shares = [100 * (rows[m]["long_token_share"] - base["long_token_share"]) for m in order]
    return change_bars(
        order,
        tokens,
        shares,
        tokens_axis=f"each method vs {base_name}: tokens (%)",
        tokens_hover=f"%{{y}} needs %{{x:+.3f}}% tokens (vs {base_name})",
        title=title,
        height=height,
    )
