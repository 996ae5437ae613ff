"""Why BPE and LBPE split a word differently: both encodings worked step by step.

The paper's Figure 1 as data. For each pre-token of a short text, :func:`explain` records

* **BPE**: every merge in the order classic BPE makes it: the two parts joined, their
  priority (the rank of the merged token in a rank file; the position of the pair in a merge
  list) and the parts after the step. Among equal priorities the leftmost pair goes first.
* **LBPE**: the paper's passes, window length ``l`` from the longest possible down to 1 and,
  within a window, left to right: every span of ``l`` units that is a token is *placed* when
  none of its units is taken yet, and *blocked* otherwise (blocked spans of one unit are left
  out: every unit is either free or inside a longer token).
* **why**: for a piece where the two differ, one line per token only one side has, naming the
  step that ruled it out on the other side (the BPE merge that crossed its boundary, or the
  longer LBPE token placed over it).

Each trace is the slow, obvious transcription of the algorithm, one step at a time; the tests
check that its tokens are exactly those :meth:`lbpe.Tokenizer.split_piece` gives on the fast
paths, so the explanation can never tell a story the encoder does not follow.

The steps, the traces and the two algorithms one step at a time are :mod:`lbpe.analysis.trace`'s
(this module re-exports them); here a tokenizer's text is cut into its pre-tokens and each is
traced. The same :class:`Explanation` feeds ``lbpe explain`` and the Gradio app and the browser page
(:meth:`Explanation.to_json`); :mod:`lbpe.playground.display.explain` draws it as text
(:func:`~lbpe.playground.display.explain_text`) and as HTML, one frame per step
(:func:`~lbpe.playground.display.explain_html`).

>>> from lbpe.vocab import Vocab
>>> from lbpe.tokenizer import Tokenizer, replace_surrogates
>>> tokens = {bytes([b]): b for b in range(256)}
>>> tokens.update({b"al": 256, b"als": 257, b"it": 258, b"ital": 259, b"Cap": 260, b"Capital": 261, b"Ca": 262})
>>> tok = Tokenizer(Vocab(tokens), "paper")
>>> ex = explain(tok, "Capitals")
>>> piece = ex.pieces[0]
>>> [(s.left, s.right, s.priority) for s in piece.bpe][:3]
[('a', 'l', 256), ('al', 's', 257), ('i', 't', 258)]
>>> piece.bpe_tokens, piece.lbpe_tokens
(['Cap', 'it', 'als'], ['Capital', 's'])
>>> print(piece.why[0])
BPE never makes "Capital": its step 2 merges "al" + "s" (rank 257) across the end of "Capital".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lbpe.analysis.trace import (
    Explanation,
    Merge,
    PieceTrace,
    Placement,
    bpe_trace,
    lbpe_trace,
    quoted,
    show_key,
)
from lbpe.errors import LbpeError
from lbpe.model.lbpe import NOT_A_TOKEN
from lbpe.tokenizer import Tokenizer, replace_surrogates
from lbpe.tokenizer.keys import key_groups

__all__ = [
    "MAX_EXPLAIN_CHARS",
    "SpanTooLongError",
    "Merge",
    "Placement",
    "PieceTrace",
    "Explanation",
    "explain",
    "explain_span",
    "bpe_trace",
    "lbpe_trace",
    "pick_span",
]

#: Longest text :func:`explain` accepts, in characters: a word, a phrase or a differing span.
MAX_EXPLAIN_CHARS = 400


# ---------------------------------------------------------------------------------------------
# explaining a text with a tokenizer
# ---------------------------------------------------------------------------------------------


def explain(tok: Tokenizer, text: str, *, specials: bool = True) -> Explanation:
    """Both encodings of every pre-token of ``text`` (at most :data:`MAX_EXPLAIN_CHARS`
    characters), worked step by step. Special and added tokens in the text are matched whole,
    as ``tok.encode(text, allowed_special="all")`` does, so the ids of the result are that call's;
    with ``specials=False`` their text is ordinary text, as ``tok.encode(text,
    disallowed_special=())`` reads it."""
    if not isinstance(text, str):
        raise LbpeError(f"text to explain must be a str, not {type(text).__name__}")
    if not text:
        raise LbpeError("nothing to explain: give a word or a short span of text")
    _check_length(len(text))
    text = replace_surrogates(text)  # as the encoders read a lone surrogate: U+FFFD
    vocab = tok.vocab
    pieces: list[PieceTrace] = []
    for at, (is_special, chunk) in enumerate(tok._chunks(text, "all" if specials else frozenset(), ())):
        if is_special:
            i = tok._matched_id(chunk)
            pieces.append(PieceTrace(chunk, [chunk], [], [chunk], [i], [], [chunk], [i], special=True))
            continue
        for piece in tok._pieces(chunk, not at):
            pieces.append(_trace_piece(tok, piece))
    return Explanation(
        text=text,
        vocabulary=tok.name,
        unit=vocab.unit,
        priority="rank" if vocab.merges is None else "merge",
        max_len=vocab.max_len,
        pieces=pieces,
    )


def explain_span(tok: Tokenizer, text: str, start: int, end: int, *, specials: bool = False) -> Explanation:
    """``text[start:end]`` explained where it stands in ``text``, as the whole text is encoded:
    each pre-token it touches as the normaliser and the pre-tokeniser made it (no dummy prefix
    in the middle of a text, the rest of a word before and after it), so the ids are exactly
    those :meth:`Tokenizer.segment` of ``text`` places over the span.

    Where the span ends inside a token of either encoding, it is widened to the nearest
    boundaries both encodings share (BPE never merges across such a boundary and LBPE never
    places a token over it, so the part between them is encoded as in the whole pre-token);
    the result's ``start``, ``end`` and ``text`` say what was explained. ``specials``: special
    tokens' text as those tokens (as the Compare view's toggle), else as ordinary text. Offsets
    index ``text`` with lone surrogates replaced, as in :class:`lbpe.playground.display.Comparison`."""
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
    found = _span_parts(tok, text, start, end, specials=specials)
    if not found:
        raise LbpeError(
            f"{quoted(text[start:end][:60])} becomes nothing: {tok.name}'s normaliser removes it, so no token of "
            "either encoding covers it"
        )
    lo, hi = min(f[0] for f in found), max(f[1] for f in found)
    _check_length(hi - lo)
    pieces = [
        trace
        if isinstance(trace, PieceTrace)
        else _trace_piece(tok, trace[0], part=bool(trace[1] or trace[2]), before=trace[1], after=trace[2])
        for _, _, trace in found
    ]
    vocab = tok.vocab
    return Explanation(
        text=text[lo:hi],
        vocabulary=tok.name,
        unit=vocab.unit,
        priority="rank" if vocab.merges is None else "merge",
        max_len=vocab.max_len,
        pieces=pieces,
        start=lo,
        end=hi,
    )


class SpanTooLongError(LbpeError):
    """A text or span longer than :data:`MAX_EXPLAIN_CHARS` (once widened to the boundaries both
    encodings share)."""


def _check_length(chars: int) -> None:
    if chars > MAX_EXPLAIN_CHARS:
        raise SpanTooLongError(
            f"the text to explain has {chars:,} characters; explain works on a word or a short span of at most "
            f"{MAX_EXPLAIN_CHARS} characters (a step list for more is too long to read): pick a shorter span"
        )


#: Units of the pre-token shown before and after a part of it.
_AROUND = 12


def _span_parts(tok: Tokenizer, text: str, start: int, end: int, *, specials: bool) -> list[tuple[int, int, Any]]:
    """What ``text[start:end]`` is to the model, in text order: ``(start, end, item)`` where the
    offsets are in ``text`` as :meth:`Tokenizer.segment` places tokens and ``item`` is a special
    token's :class:`PieceTrace`, or ``(part, before, after)``: the part of a pre-token to trace
    (widened to boundaries both encodings share) and the pre-token's units around it."""
    found: list[tuple[int, int, Any]] = []
    offset = 0
    with tok._deadline(text):
        for is_special, chunk in tok._chunks(text, "all" if specials else frozenset(), ()):
            c0 = offset
            offset += len(chunk)
            if offset <= start or c0 >= end:
                continue
            if is_special:
                i = tok._matched_id(chunk)
                trace = PieceTrace(chunk, [chunk], [], [chunk], [i], [], [chunk], [i], special=True)
                found.append((c0, offset, trace))
                continue
            parts = _chunk_parts(tok, chunk, start - c0, end - c0, first=not c0)
            found += [(a + c0, b + c0, item) for a, b, item in parts]
    return found


def aligned_chunk(tok: Tokenizer, chunk: str) -> tuple[str, Callable[[int, bool], int]]:
    """``chunk`` normalised, and ``back(i, is_end)``: the offset in ``chunk`` of normalised offset
    ``i`` (a start, or an end when ``is_end``), as :meth:`Tokenizer.segment` maps it."""
    if tok.normalizer is not None:
        norm, origin = tok.normalizer.aligned(chunk)
    else:
        norm, origin = chunk, list(range(len(chunk)))
    size = len(chunk)

    def back(i: int, is_end: bool) -> int:
        if is_end:
            return origin[i - 1] + 1 if 0 < i <= len(origin) else (size if i else 0)
        return origin[i] if i < len(origin) else size

    return norm, back


def _chunk_parts(tok: Tokenizer, chunk: str, start: int, end: int, *, first: bool) -> list[tuple[int, int, Any]]:
    """:func:`_span_parts` within one ordinary chunk (offsets in the chunk; ``first``: it
    starts the text)."""
    norm, back = aligned_chunk(tok, chunk)
    vocab = tok.vocab
    out = []
    for piece, ps, pe in tok._splitter_at(first).split(norm):
        if pe <= ps:
            continue
        # a character of the piece stands where segment() places a token starting with it
        chosen = [k for k in range(len(piece)) if start <= back(min(ps + k, pe - 1), False) < end]
        if not chosen:
            continue
        units = tok._to_units(piece)
        offs = [0]  # unit offset of each character of the piece, plus the end
        for ch in piece:
            offs.append(offs[-1] + (len(ch.encode("utf-8")) if vocab.unit == "byte" else 1))
        if vocab.whole_piece_first and units in vocab.model_tokens:
            bpe_keys: list = [units]
        else:
            bpe_keys = tok._by_parts(piece, units, "bpe", tok._bpe_of_units)
        lbpe_keys = tok._lbpe_keys(piece)
        shared = _bounds(tok, bpe_keys) & _bounds(tok, lbpe_keys) & set(offs)
        ua, ub = offs[chosen[0]], offs[chosen[-1] + 1]
        ka = offs.index(max(c for c in shared if c <= ua))
        kb = offs.index(min(c for c in shared if c >= ub))
        before = ("…" if ka > _AROUND else "") + piece[max(ka - _AROUND, 0) : ka]
        after = piece[kb : kb + _AROUND] + ("…" if len(piece) - kb > _AROUND else "")
        a, b = min(ps + ka, pe), min(ps + kb, pe)
        out.append((back(a, False), max(back(b, True), back(a, False)), (piece[ka:kb], before, after)))
    return out


def _bounds(tok: Tokenizer, keys: Sequence) -> set[int]:
    """Unit offsets between ``keys`` (and both ends) where the encoding may be cut: with
    ``fuse_unk``, not between two keys that both become the one unknown token."""
    table = tok.vocab.model_tokens
    fuse = tok.vocab.fuse_unk
    out, pos = {0}, 0
    for k, key in enumerate(keys):
        pos += len(key)
        if not (fuse and k + 1 < len(keys) and key not in table and keys[k + 1] not in table):
            out.add(pos)
    return out


def _trace_piece(tok: Tokenizer, piece: str, *, part: bool = False, before: str = "", after: str = "") -> PieceTrace:
    """Both encodings of ``piece`` worked step by step; ``part``: it is a part of a longer
    pre-token (cut where neither encoding crosses), so BPE never takes it whole."""
    vocab = tok.vocab
    units = tok._to_units(piece)
    table = vocab.model_tokens
    if vocab.model_merges is None:
        get_rank = table.get

        def priority(left, right):
            return get_rank(left + right)
    else:
        get_merge = vocab.model_merges.get

        def priority(left, right):
            return get_merge((left, right))

    whole = not part and vocab.whole_piece_first and len(units) > 1 and units in table
    raw = [] if whole else bpe_trace(units, priority)
    bpe_keys = [units] if whole else (raw[-1][4] if raw else [units[i : i + 1] for i in range(len(units))])
    scaffold = []
    if vocab.scaffold:
        split = [(k, tok._split_scaffold([k])) for k in bpe_keys]
        scaffold = [(show_key(k), [show_key(p) for p in parts]) for k, parts in split if parts != [k]]
        bpe_keys = [p for _, parts in split for p in parts]
    index = vocab.prefix_index
    checks, lbpe_keys = lbpe_trace(units, lambda key: index.get(key, NOT_A_TOKEN) != NOT_A_TOKEN, vocab.max_len)

    merges = [
        Merge(k + 1, start, show_key(left), show_key(right), p, tuple(show_key(x) for x in parts))
        for k, (start, left, right, p, parts) in enumerate(raw)
    ]
    placements = [
        Placement(
            k + 1,
            length,
            i,
            show_key(units[i : i + length]),
            placed,
            "" if placed else show_key(units[by : by + by_length]),
        )
        for k, (length, i, placed, by, by_length) in enumerate(checks)
    ]
    trace = PieceTrace(
        piece=piece,
        units=[show_key(units[i : i + 1]) for i in range(len(units))],
        bpe=merges,
        bpe_tokens=_shown_tokens(tok, bpe_keys),
        bpe_ids=tok._key_ids(bpe_keys),
        lbpe=placements,
        lbpe_tokens=_shown_tokens(tok, lbpe_keys),
        lbpe_ids=tok._key_ids(lbpe_keys),
        whole=whole,
        scaffold=scaffold,
        before=before,
        after=after,
    )
    if trace.differs:
        trace.why = _why(trace, raw, bpe_keys, lbpe_keys, "rank" if vocab.merges is None else "merge")
    return trace


def _shown_tokens(tok: Tokenizer, keys: Sequence) -> list[str]:
    """The token of each id the keys encode to, as shown: a character without a token of its own
    shows the tokens it falls back to (its bytes as ``<F0>``, or the unknown token's name), so the
    tokens line up with the ids."""
    vocab = tok.vocab
    if vocab.unit == "byte":
        return [show_key(k) for k in keys]
    table = vocab.model_tokens
    out = []
    for key, ids in zip(keys, key_groups(vocab, keys)):
        if key in table:
            out.append(show_key(key))
        else:
            out += [show_key(vocab.token_bytes(i)) for i in ids]
    return out


def _spans(keys: Sequence) -> list[tuple[int, int]]:
    out, pos = [], 0
    for k in keys:
        out.append((pos, pos + len(k)))
        pos += len(k)
    return out


def _why(trace: PieceTrace, raw: list, bpe_keys: list, lbpe_keys: list, priority: str) -> list[str]:
    """One line per token only one side has: what kept the other side from making it."""
    bpe_spans, lbpe_spans = _spans(bpe_keys), _spans(lbpe_keys)
    lines = []
    for (a, b), name in zip(lbpe_spans, trace.lbpe_tokens):
        if (a, b) in bpe_spans or b - a < 2:
            continue
        made = next(
            (k for k, (start, left, right, _, _) in enumerate(raw) if (start, len(left) + len(right)) == (a, b - a)),
            None,
        )
        if made is not None:  # made, then merged into a longer token
            for k in range(made + 1, len(raw)):
                start, left, right, p, _ = raw[k]
                if start <= a and b <= start + len(left) + len(right):
                    lines.append(
                        f"BPE makes {quoted(name)} at its step {made + 1}, then its step {k + 1} merges "
                        f"{quoted(show_key(left))} + {quoted(show_key(right))} ({priority} {p:,}) into "
                        f"{quoted(show_key(left + right))}, which holds it."
                    )
                    break
            continue
        for k, (start, left, right, p, _) in enumerate(raw):
            end = start + len(left) + len(right)
            if start < a < end or start < b < end:
                where = "start" if start < a < end else "end"
                lines.append(
                    f"BPE never makes {quoted(name)}: its step {k + 1} merges {quoted(show_key(left))} + "
                    f"{quoted(show_key(right))} ({priority} {p:,}) across the {where} of {quoted(name)}."
                )
                break
        else:
            if trace.whole:
                lines.append(f"BPE takes the whole piece as one token, so it never makes {quoted(name)}.")
            else:
                inside = " + ".join(quoted(t) for (s, e), t in zip(bpe_spans, trace.bpe_tokens) if a <= s and e <= b)
                lines.append(f"BPE never makes {quoted(name)}: no merge joins its parts {inside}.")
    for (a, b), name in zip(bpe_spans, trace.bpe_tokens):
        if (a, b) in lbpe_spans or b - a < 2:
            continue
        for s in trace.lbpe:
            length, i = s.length, s.start
            if s.placed and i < b and a < i + length:
                other = s.token
                if length > b - a:
                    reason = f"the longer {quoted(other)} ({length} units) was placed over it first"
                else:
                    reason = f"{quoted(other)}, as long and further left, was placed over it first"
                lines.append(f"LBPE never places {quoted(name)}: {reason}.")
                break
    return lines


# ---------------------------------------------------------------------------------------------
# choosing what to explain from a click
# ---------------------------------------------------------------------------------------------


def pick_span(text: str, offset: int, differ: Sequence[tuple[int, int]] = ()) -> tuple[int, int]:
    """The span of ``text`` to explain for a click at character ``offset``: the differing span
    (see :func:`lbpe.playground.display.differing_spans`) that holds it, else the white-space separated
    word around it with one space before it (pre-tokenisers join that space to the word).

    >>> pick_span("the Capitals of", 6)
    (3, 12)
    >>> pick_span("the Capitals of", 6, [(4, 10)])
    (4, 10)
    """
    if not text:
        return (0, 0)
    offset = min(max(int(offset), 0), len(text) - 1)
    for a, b in differ:
        if a <= offset < b:
            return (a, b)
    if text[offset].isspace():
        k = offset
        while k < len(text) and text[k].isspace():
            k += 1
        if k == len(text):
            return (offset, offset + 1)
        offset = k
    a = offset
    while a > 0 and not text[a - 1].isspace():
        a -= 1
    b = offset
    while b < len(text) and not text[b].isspace():
        b += 1
    if a > 0 and text[a - 1] == " ":
        a -= 1
    if b - a > MAX_EXPLAIN_CHARS:
        a, b = max(a, offset - MAX_EXPLAIN_CHARS // 2), min(b, offset + MAX_EXPLAIN_CHARS // 2)
    return (a, b)
