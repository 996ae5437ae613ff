"""Any two inference methods worked step by step on a short text: each method's own steps.

:mod:`lbpe.analysis.explain` explains BPE against LBPE (merges, windows, and why they differ);
this module explains any pair of :data:`lbpe.METHODS`, each with the steps it really takes on
each pre-token, as lines of text:

* ``bpe``: its merges (:func:`lbpe.analysis.trace.bpe_trace`); ``lbpe``: its windows
  (:func:`lbpe.analysis.trace.lbpe_trace`);
* ``longest-prefix``, ``longest-suffix``: the spans tried at each position and the longest
  token found (:mod:`lbpe.analysis.greedy_trace`);
* ``least-tokens``: the table ``fewest[i]`` from the right and the path read from the left,
  the tie rule named where it chose (:mod:`lbpe.analysis.fewest_trace`);
* ``dropout``: each merge considered, its draw and whether it was dropped
  (:mod:`lbpe.analysis.dropout_trace`), the draws those of ``random.Random(seed)`` taken
  through the text in order, as :meth:`lbpe.Tokenizer.encode` takes them.

The tokens of each side are the method's own (the tests check them against
:meth:`lbpe.Tokenizer.split_piece` and ``encode``).

>>> from lbpe.vocab import Vocab
>>> from lbpe.tokenizer import Tokenizer
>>> tokens = {bytes([b]): b for b in range(256)} | {b"ab": 256, b"bc": 257, b"abc": 258, b"cd": 259}
>>> ex = explain_pair(Tokenizer(Vocab(tokens), "paper"), "abcd", ("longest-prefix", "least-tokens"))
>>> [(side.method, side.tokens) for side in ex.pieces[0].sides]
[('longest-prefix', ['abc', 'd']), ('least-tokens', ['abc', 'd'])]
>>> print(ex.pieces[0].sides[0].steps[0])
at unit 0: "a" is a token, "ab" is a token, "abc" is a token, "abcd" begins no token → "abc" (units 0-3)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lbpe.analysis.dropout_trace import dropout_trace
from lbpe.analysis.explain import _AROUND, _bounds, _check_length, _trace_piece, aligned_chunk
from lbpe.analysis.fewest_trace import fewest_trace
from lbpe.analysis.greedy_trace import PART, TOKEN, Match, match_keys, prefix_trace, suffix_trace
from lbpe.analysis.trace import barred, quoted, show_key
from lbpe.errors import LbpeError
from lbpe.model import METHODS
from lbpe.tokenizer import Tokenizer, replace_surrogates
from lbpe.tokenizer.checks import check_dropout

__all__ = ["MethodTrace", "PairPiece", "PairExplanation", "explain_pair", "explain_pair_span", "method_trace"]


@dataclass
class MethodTrace:
    """One method on one pre-token: its ``steps`` as lines, then its ``tokens`` and ``ids``."""

    method: str
    steps: list[str]
    tokens: list[str]
    ids: list[int]

    def to_json(self) -> dict:
        return {"method": self.method, "steps": self.steps, "tokens": self.tokens, "ids": self.ids}


@dataclass
class PairPiece:
    """One pre-token (or a part of one, with some of its units ``before`` and ``after``) and
    both methods' traces, left then right; ``special``: a special or added token matched whole."""

    piece: str
    units: list[str]
    sides: tuple[MethodTrace, MethodTrace]
    special: bool = False
    before: str = ""
    after: str = ""

    @property
    def differs(self) -> bool:
        return self.sides[0].ids != self.sides[1].ids

    def to_json(self) -> dict:
        return {
            "piece": self.piece,
            "before": self.before,
            "after": self.after,
            "units": self.units,
            "special": self.special,
            "differs": self.differs,
            "sides": [s.to_json() for s in self.sides],
        }


@dataclass
class PairExplanation:
    """:func:`explain_pair`'s result: the pair, BPE-dropout's options, and one
    :class:`PairPiece` per pre-token of ``text``; ``start``/``end`` as in
    :class:`lbpe.analysis.trace.Explanation`."""

    text: str
    vocabulary: str
    unit: str
    methods: tuple[str, str]
    pieces: list[PairPiece]
    dropout: float | None = None
    seed: int | None = None
    start: int | None = None
    end: int | None = None

    @property
    def frames(self) -> int:
        """The start plus the longest run of steps of either side of any piece."""
        return 1 + max((len(s.steps) for p in self.pieces for s in p.sides), default=0)

    def ids(self, side: int) -> list[int]:
        return [i for p in self.pieces for i in p.sides[side].ids]

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "vocabulary": self.vocabulary,
            "unit": self.unit,
            "methods": list(self.methods),
            "dropout": self.dropout,
            "seed": self.seed,
            "in_text": None if self.start is None else {"start": self.start, "end": self.end},
            "frames": self.frames,
            "tokens": [len(self.ids(0)), len(self.ids(1))],
            "pieces": [p.to_json() for p in self.pieces],
        }


def _checked(methods: Sequence[str], dropout: float | None, seed: int | None) -> tuple[str, str]:
    if isinstance(methods, str) or len(methods) != 2 or any(m not in METHODS for m in methods):
        raise LbpeError(f"methods must be two of {', '.join(METHODS)}, left and right; not {methods!r}")
    if "dropout" in methods:
        check_dropout("dropout", dropout, seed)
    elif dropout is not None or seed is not None:
        raise LbpeError("a dropout rate or seed only applies when one of the methods is dropout")
    return methods[0], methods[1]


def _special(chunk: str, i: int, methods: tuple[str, str]) -> PairPiece:
    side = [MethodTrace(m, [], [chunk], [i]) for m in methods]
    return PairPiece(chunk, [chunk], (side[0], side[1]), special=True)


def explain_pair(
    tok: Tokenizer,
    text: str,
    methods: Sequence[str],
    *,
    dropout: float | None = None,
    seed: int | None = None,
    specials: bool = True,
) -> PairExplanation:
    """Both methods' steps on every pre-token of ``text`` (at most
    :data:`lbpe.analysis.explain.MAX_EXPLAIN_CHARS` characters), special and added tokens matched
    whole as ``encode(text, allowed_special="all")`` does (``specials=False``: their text read as
    ordinary text); BPE-dropout draws from ``random.Random(seed)`` through the pieces in order, so
    its ids are that call's."""
    pair = _checked(methods, dropout, seed)
    if not isinstance(text, str):
        raise LbpeError(f"text to explain must be a str, not {type(text).__name__}")
    if not text:
        raise LbpeError("nothing to explain: give a word or a short span of text")
    _check_length(len(text))
    text = replace_surrogates(text)  # as the encoders read a lone surrogate: U+FFFD
    draw = random.Random(seed).random
    pieces: list[PairPiece] = []
    for at, (is_special, chunk) in enumerate(tok._chunks(text, "all" if specials else frozenset(), ())):
        if is_special:
            pieces.append(_special(chunk, tok._matched_id(chunk), pair))
            continue
        for piece in tok._pieces(chunk, not at):
            pieces.append(_pair_piece(tok, piece, pair, dropout, draw))
    return PairExplanation(text, tok.name, tok.vocab.unit, pair, pieces, dropout, seed)


def explain_pair_span(
    tok: Tokenizer,
    text: str,
    start: int,
    end: int,
    methods: Sequence[str],
    *,
    dropout: float | None = None,
    seed: int | None = None,
    specials: bool = False,
) -> PairExplanation:
    """``text[start:end]`` explained where it stands in ``text`` as the Compare view encodes
    ``text`` with the pair (as :func:`lbpe.analysis.explain.explain_span` for BPE and LBPE):
    widened to the nearest token boundaries both methods share in each pre-token it touches
    (a method never crosses its own boundary, so the part between is encoded as in the whole
    pre-token); with BPE-dropout, to whole pre-tokens, its draws taken through the text before
    them first."""
    pair = _checked(methods, dropout, seed)
    if not isinstance(text, str):
        raise LbpeError(f"text to explain must be a str, not {type(text).__name__}")
    text = replace_surrogates(text)
    start, end = int(start), int(end)
    if not 0 <= start < end <= len(text):
        raise LbpeError(
            f"characters {start:,} to {end:,} are not a span of the text ({len(text):,} characters): "
            "click a token again, or type the word"
        )
    _check_length(end - start)
    draw = random.Random(seed).random
    found: list[tuple[int, int, PairPiece]] = []
    offset = 0
    with tok._deadline(text):
        for is_special, chunk in tok._chunks(text, "all" if specials else frozenset(), ()):
            c0 = offset
            offset += len(chunk)
            if c0 >= end:
                break
            if is_special:
                if offset > start:
                    found.append((c0, offset, _special(chunk, tok._matched_id(chunk), pair)))
                continue
            for a, b, item in _chunk_pieces(tok, chunk, start - c0, end - c0, pair, dropout, draw, first=not c0):
                found.append((a + c0, b + c0, item))
    if not found:
        raise LbpeError(
            f"{quoted(text[start:end][:60])} becomes nothing: {tok.name}'s normaliser removes it, so no token of "
            "either method covers it"
        )
    lo, hi = min(f[0] for f in found), max(f[1] for f in found)
    _check_length(hi - lo)
    return PairExplanation(
        text[lo:hi], tok.name, tok.vocab.unit, pair, [f[2] for f in found], dropout, seed, start=lo, end=hi
    )


def _chunk_pieces(
    tok: Tokenizer,
    chunk: str,
    start: int,
    end: int,
    pair: tuple[str, str],
    rate: float | None,
    draw: Callable[[], float],
    *,
    first: bool,
) -> list[tuple[int, int, PairPiece]]:
    """:func:`explain_pair_span` within one ordinary chunk (offsets in the chunk; ``first``: it
    starts the text); every piece
    before the span still takes its BPE-dropout draws."""
    from lbpe.tokenizer import keys

    norm, back = aligned_chunk(tok, chunk)
    vocab = tok.vocab
    out = []
    for piece, ps, pe in tok._splitter_at(first).split(norm):
        if pe <= ps:
            continue
        chosen = [k for k in range(len(piece)) if start <= back(min(ps + k, pe - 1), False) < end]
        if not chosen:
            if "dropout" in pair and back(ps, False) < end:  # before the span: its draws are taken
                keys.dropout_keys(vocab, piece, rate or 0.0, draw)
                continue
            if back(ps, False) >= end:
                break
            continue
        units = tok._to_units(piece)
        offs = [0]
        for ch in piece:
            offs.append(offs[-1] + (len(ch.encode("utf-8")) if vocab.unit == "byte" else 1))
        shared = set(offs)
        for method in pair:
            shared &= _method_bounds(tok, method, piece, units)
        ua, ub = offs[chosen[0]], offs[chosen[-1] + 1]
        ka = offs.index(max(c for c in shared if c <= ua))
        kb = offs.index(min(c for c in shared if c >= ub))
        before = ("…" if ka > _AROUND else "") + piece[max(ka - _AROUND, 0) : ka]
        after = piece[kb : kb + _AROUND] + ("…" if len(piece) - kb > _AROUND else "")
        part = ka > 0 or kb < len(piece)
        item = _pair_piece(tok, piece[ka:kb], pair, rate, draw, part=part, before=before, after=after)
        a, b = min(ps + ka, pe), min(ps + kb, pe)
        out.append((back(a, False), max(back(b, True), back(a, False)), item))
    return out


def _method_bounds(tok: Tokenizer, method: str, piece: str, units: Any) -> set[int]:
    """Unit offsets where ``method`` may be cut in ``piece`` (BPE-dropout: only its ends)."""
    vocab = tok.vocab
    if method == "dropout":
        return {0, len(units)}
    if method == "bpe":
        if vocab.whole_piece_first and units in vocab.model_tokens:
            return {0, len(units)}
        return _bounds(tok, tok._by_parts(piece, units, "bpe", tok._bpe_of_units))
    return _bounds(tok, tok._split[method](piece))


def _pair_piece(
    tok: Tokenizer,
    piece: str,
    pair: tuple[str, str],
    rate: float | None,
    draw: Callable[[], float],
    *,
    part: bool = False,
    before: str = "",
    after: str = "",
) -> PairPiece:
    units = tok._to_units(piece)
    sides = tuple(method_trace(tok, m, piece, rate=rate, draw=draw, part=part) for m in pair)
    shown = [show_key(units[i : i + 1]) for i in range(len(units))]
    return PairPiece(piece, shown, (sides[0], sides[1]), before=before, after=after)


def method_trace(
    tok: Tokenizer,
    method: str,
    piece: str,
    *,
    rate: float | None = None,
    draw: Callable[[], float] | None = None,
    part: bool = False,
) -> MethodTrace:
    """``method``'s own steps on ``piece`` (a pre-token as :meth:`Tokenizer.pieces` gives it;
    ``part``: a part of a longer one, which BPE never takes whole). ``rate`` and ``draw``: BPE-dropout's."""
    vocab = tok.vocab
    units = tok._to_units(piece)
    if method in ("bpe", "lbpe"):
        return _classic(tok, method, piece, part)
    if method == "longest-prefix":
        matches = prefix_trace(units, vocab.prefix_index)
        return _done(tok, method, [_match_line(units, m, "starts") for m in matches], match_keys(units, matches))
    if method == "longest-suffix":
        matches = suffix_trace(units, vocab.suffix_index)
        return _done(tok, method, [_match_line(units, m, "ends") for m in matches], match_keys(units, matches))
    if method == "least-tokens":
        t = fewest_trace(units, vocab.prefix_index)
        steps = []
        for i in range(len(units) - 1, -1, -1):
            tried = ", ".join(f"{quoted(show_key(units[i:e]))} + fewest[{e}] = {total}" for e, total in t.options[i])
            line = f"fewest[{i}] = {t.fewest[i]}: {tried}"
            ties = t.ties(i)
            if ties:
                line += f"; tie among {', '.join(quoted(show_key(units[i:e])) for e in ties)}: the longest is kept"
            steps.append(line)
        steps += [
            f"from unit {a}: take {quoted(show_key(units[a:b]))} (fewest[{a}] = {t.fewest[a]})" for a, b in t.path
        ]
        return _done(tok, method, steps, t.keys)
    if method == "dropout":
        if rate is None or draw is None:
            raise LbpeError("BPE-dropout's steps need its rate and draws")
        return _dropout(tok, units, rate, draw, part)
    raise LbpeError(f"unknown inference method {method!r}; the methods are {', '.join(METHODS)}")


def _classic(tok: Tokenizer, method: str, piece: str, part: bool) -> MethodTrace:
    """BPE's merges or LBPE's windows, as :mod:`lbpe.analysis.explain` traces them."""
    t = _trace_piece(tok, piece, part=part)
    if method == "bpe":
        steps = ["the whole piece is a token: taken without merging"] if t.whole else []
        steps += [
            f"{quoted(s.left)} + {quoted(s.right)} ({_rule(tok)} {s.priority:,}) → {barred(s.parts)}" for s in t.bpe
        ]
        steps += [f"scaffold token {quoted(k)} split back into {' + '.join(map(quoted, ps))}" for k, ps in t.scaffold]
        return MethodTrace(method, steps, t.bpe_tokens, t.bpe_ids)
    steps = [
        f"window {s.length}: {quoted(s.token)} at unit {s.start}: "
        + ("placed" if s.placed else f"blocked by {quoted(s.taken_by)}")
        for s in t.lbpe
    ]
    return MethodTrace(method, steps, t.lbpe_tokens, t.lbpe_ids)


def _rule(tok: Tokenizer) -> str:
    return "rank" if tok.vocab.merges is None else "merge"


_SAYS = {
    "starts": {TOKEN: "is a token", PART: "only begins longer tokens", "neither": "begins no token"},
    "ends": {TOKEN: "is a token", PART: "only ends longer tokens", "neither": "ends no token"},
}


def _match_line(units: Any, m: Match, verb: str) -> str:
    """One greedy step as a line: the spans tried, what each is, the token taken."""
    where = f"at unit {m.at}" if verb == "starts" else f"ending at unit {m.at}"
    tried = ", ".join(f"{quoted(show_key(units[a:b]))} {_SAYS[verb][v]}" for a, b, v in m.tried)
    token = quoted(show_key(units[m.start : m.end]))
    if not m.found:
        return f"{where}: {tried} → no token {verb} here: {token} alone"
    return f"{where}: {tried} → {token} (units {m.start}-{m.end})"


def _done(tok: Tokenizer, method: str, steps: list[str], keys: list) -> MethodTrace:
    return MethodTrace(method, steps, [show_key(k) for k in keys], tok._key_ids(keys))


def _dropout(tok: Tokenizer, units: Any, rate: float, draw: Callable[[], float], part: bool) -> MethodTrace:
    """BPE-dropout's steps as :func:`lbpe.tokenizer.keys.dropout_keys` takes them: the whole
    piece first (one draw) for a vocabulary that takes a piece whole, then the merges."""
    vocab = tok.vocab
    steps: list[str] = []
    if not part and vocab.whole_piece_first and len(units) > 1 and units in vocab.model_tokens:
        value = draw()
        if value >= rate:
            steps.append(f"the whole piece is a token: draw {value:.4f} ≥ {rate:g}, taken whole")
            return _done(tok, "dropout", steps, _scaffold(tok, [units], steps))
        steps.append(f"the whole piece is a token: draw {value:.4f} < {rate:g}, not taken whole")
    elif not part and vocab.whole_piece_first and units in vocab.model_tokens:
        draw()  # dropout_keys draws for a one-unit piece too
    table = vocab.model_tokens
    if vocab.model_merges is None:

        def priority(left, right):
            return table.get(left + right)
    else:
        merges = vocab.model_merges

        def priority(left, right):
            return merges.get((left, right))

    found, keys = dropout_trace(units, priority, rate, draw)
    rule = _rule(tok)
    for k, step in enumerate(found, 1):
        said = []
        for c in step.considered:
            pair = f"{quoted(show_key(c.left))} + {quoted(show_key(c.right))} ({rule} {c.priority:,})"
            if c.dropped:
                said.append(f"{pair} draw {c.draw:.4f} < {rate:g}: dropped")
            else:
                said.append(f"{pair} draw {c.draw:.4f}: merged → {barred([show_key(p) for p in step.parts])}")
        line = f"step {k}: " + "; ".join(said)
        if not step.applied:
            line += "; every merge dropped: stop"
        steps.append(line)
    return _done(tok, "dropout", steps, _scaffold(tok, keys, steps))


def _scaffold(tok: Tokenizer, keys: list, steps: list[str]) -> list:
    """Scaffold-BPE's scaffold tokens among ``keys`` split back, each split said in ``steps``."""
    if not tok.vocab.scaffold:
        return keys
    out = []
    for key in keys:
        parts = tok._split_scaffold([key])
        if parts != [key]:
            split = " + ".join(quoted(show_key(p)) for p in parts)
            steps.append(f"scaffold token {quoted(show_key(key))} split back into {split}")
        out += parts
    return out
