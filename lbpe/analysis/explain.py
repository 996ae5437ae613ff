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

The same :class:`Explanation` feeds ``lbpe explain`` (:func:`explain_text`), the Gradio app and
the browser page (:func:`explain_html`, one frame per step; :meth:`Explanation.to_json`).

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

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lbpe.errors import LbpeError
from lbpe.model.lbpe import NOT_A_TOKEN
from lbpe.tokenizer import Tokenizer, replace_surrogates

__all__ = [
    "MAX_EXPLAIN_CHARS",
    "Merge",
    "Placement",
    "PieceTrace",
    "Explanation",
    "explain",
    "explain_span",
    "bpe_trace",
    "lbpe_trace",
    "pick_span",
    "explain_text",
    "explain_html",
]

#: Longest text :func:`explain` accepts, in characters: a word, a phrase or a differing span.
MAX_EXPLAIN_CHARS = 400


@dataclass(frozen=True)
class Merge:
    """One BPE step: the part starting at unit ``start`` (``left``) joins the next (``right``)."""

    step: int
    start: int
    left: str
    right: str
    priority: int
    parts: tuple[str, ...]  # every part after this step

    @property
    def token(self) -> str:
        return self.left + self.right


@dataclass(frozen=True)
class Placement:
    """One LBPE check: the ``length``-unit span at ``start`` is a token; ``placed`` says
    whether it was free, else ``taken_by`` is the placed token that holds a unit of it."""

    step: int
    length: int
    start: int
    token: str
    placed: bool
    taken_by: str = ""


@dataclass
class PieceTrace:
    """Both encodings of one pre-token. Token texts are shown as the vocabulary spells them
    (bytes that are not whole UTF-8 characters as ``<E6><97>``)."""

    piece: str
    units: list[str]
    bpe: list[Merge]
    bpe_tokens: list[str]
    bpe_ids: list[int]
    lbpe: list[Placement]
    lbpe_tokens: list[str]
    lbpe_ids: list[int]
    whole: bool = False  # BPE took the whole piece as one token without merging
    scaffold: list[tuple[str, list[str]]] = field(default_factory=list)  # BPE tokens split back
    special: bool = False  # a special or added token matched whole
    why: list[str] = field(default_factory=list)
    # a part of a longer pre-token (explain_span): a few of its units before and after the part
    before: str = ""
    after: str = ""

    @property
    def differs(self) -> bool:
        return self.bpe_ids != self.lbpe_ids

    def to_json(self) -> dict:
        return {
            "piece": self.piece,
            "before": self.before,
            "after": self.after,
            "units": self.units,
            "special": self.special,
            "differs": self.differs,
            "bpe": {
                "whole_piece": self.whole,
                "steps": [
                    {
                        "step": s.step,
                        "start": s.start,
                        "left": s.left,
                        "right": s.right,
                        "token": s.token,
                        "priority": s.priority,
                        "parts": list(s.parts),
                    }
                    for s in self.bpe
                ],
                "scaffold_split": [{"token": t, "parts": p} for t, p in self.scaffold],
                "tokens": self.bpe_tokens,
                "ids": self.bpe_ids,
            },
            "lbpe": {
                "steps": [
                    {
                        "step": s.step,
                        "window": s.length,
                        "start": s.start,
                        "token": s.token,
                        "placed": s.placed,
                        "taken_by": s.taken_by,
                    }
                    for s in self.lbpe
                ],
                "tokens": self.lbpe_tokens,
                "ids": self.lbpe_ids,
            },
            "why": self.why,
        }


@dataclass
class Explanation:
    """:func:`explain`'s result: one :class:`PieceTrace` per pre-token of ``text``."""

    text: str
    vocabulary: str
    unit: str  # "byte" or "char"
    priority: str  # "rank" (rank files) or "merge" (merge lists)
    max_len: int  # the paper's m: the longest token LBPE may place, in units
    pieces: list[PieceTrace]
    # explain_span: where ``text`` stands in the text it was taken from (else both None)
    start: int | None = None
    end: int | None = None

    @property
    def frames(self) -> int:
        """Number of frames of :func:`explain_html`: the start plus the longest run of steps."""
        return 1 + max((max(len(p.bpe), len(p.lbpe)) for p in self.pieces), default=0)

    @property
    def bpe_ids(self) -> list[int]:
        return [i for p in self.pieces for i in p.bpe_ids]

    @property
    def lbpe_ids(self) -> list[int]:
        return [i for p in self.pieces for i in p.lbpe_ids]

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "vocabulary": self.vocabulary,
            "unit": self.unit,
            "priority": self.priority,
            "max_len": self.max_len,
            "in_text": None if self.start is None else {"start": self.start, "end": self.end},
            "frames": self.frames,
            "bpe_tokens": len(self.bpe_ids),
            "lbpe_tokens": len(self.lbpe_ids),
            "pieces": [p.to_json() for p in self.pieces],
        }


# ---------------------------------------------------------------------------------------------
# the two algorithms, one step at a time
# ---------------------------------------------------------------------------------------------


#: A piece or a part of one: bytes or str (one kind in a call), concatenated with ``+``.
Key = Any


def bpe_trace(
    units: Sequence, priority: Callable[[Key, Key], int | None]
) -> list[tuple[int, Key, Key, int, list[Key]]]:
    """Classic BPE of ``units`` (a bytes or str piece) one merge at a time.

    ``priority(left, right)`` is the pair's priority (lower merges first) or ``None``. Returns
    ``(start unit, left, right, priority, parts after)`` per merge.

    >>> ranks = {b"a": 0, b"b": 1, b"ab": 2, b"aa": 3}
    >>> [(s, l, r, p) for s, l, r, p, _ in bpe_trace(b"aab", lambda l, r: ranks.get(l + r))]
    [(1, b'a', b'b', 2)]
    """
    parts: list[Key] = [units[i : i + 1] for i in range(len(units))]
    starts = list(range(len(units)))
    steps = []
    while len(parts) > 1:
        best = None
        for k in range(len(parts) - 1):
            p = priority(parts[k], parts[k + 1])
            if p is not None and (best is None or p < best[0]):
                best = (p, k)
        if best is None:
            break
        p, k = best
        left, right = parts[k], parts[k + 1]
        parts[k : k + 2] = [left + right]
        del starts[k + 1]
        steps.append((starts[k], left, right, p, list(parts)))
    return steps


def lbpe_trace(units: Sequence, is_token: Callable[[object], bool], longest: int) -> tuple[list, list]:
    """The paper's LBPE over ``units`` with every check recorded.

    Returns ``(checks, keys)``: ``(window, start, placed, blocking token's start and length)``
    for every span that is a token (blocked one-unit spans left out; a placed span has
    ``(-1, 0)``), and the keys in text order (a unit no token covers stays one key).

    >>> toks = {"a", "b", "c", "ab", "bc", "abc"}
    >>> lbpe_trace("abcbc", toks.__contains__, 3)
    ([(3, 0, True, -1, 0), (2, 0, False, 0, 3), (2, 1, False, 0, 3), (2, 3, True, -1, 0)], ['abc', 'bc'])
    """
    n = len(units)
    owner = [-1] * n  # start of the placed token holding each unit
    length_at = [0] * n
    checks = []
    for length in range(min(longest, n), 0, -1):
        for i in range(n - length + 1):
            if not is_token(units[i : i + length]):
                continue
            held = [owner[j] for j in range(i, i + length) if owner[j] >= 0]
            if held:
                if length > 1:
                    checks.append((length, i, False, held[0], length_at[held[0]]))
                continue
            owner[i : i + length] = [i] * length
            length_at[i] = length
            checks.append((length, i, True, -1, 0))
    keys = []
    i = 0
    while i < n:
        step = length_at[i] or 1
        keys.append(units[i : i + step])
        i += step
    return checks, keys


# ---------------------------------------------------------------------------------------------
# explaining a text with a tokenizer
# ---------------------------------------------------------------------------------------------


def show_key(key: bytes | str) -> str:
    """A token key as text: bytes decoded as UTF-8, runs that are not whole characters as
    ``<E6><97>``.

    >>> show_key(b"caf\\xc3\\xa9"), show_key(b"\\xe6\\x97"), show_key(b"a\\xe6")
    ('café', '<E6><97>', 'a<E6>')
    """
    if isinstance(key, str):
        return key
    try:
        return key.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = "".join(f"<{b:02X}>" for b in key[exc.start : exc.end])
        return show_key(key[: exc.start]) + bad + show_key(key[exc.end :])


def explain(tok: Tokenizer, text: str) -> Explanation:
    """Both encodings of every pre-token of ``text`` (at most :data:`MAX_EXPLAIN_CHARS`
    characters), worked step by step. Special and added tokens in the text are matched whole,
    as ``tok.encode(text, allowed_special="all")`` does, so the ids of the result are that call's."""
    if not isinstance(text, str):
        raise LbpeError(f"text to explain must be a str, not {type(text).__name__}")
    if not text:
        raise LbpeError("nothing to explain: give a word or a short span of text")
    _check_length(len(text))
    vocab = tok.vocab
    pieces: list[PieceTrace] = []
    for is_special, chunk in tok._chunks(text, "all", ()):
        if is_special:
            i = tok._matched_id(chunk)
            pieces.append(PieceTrace(chunk, [chunk], [], [chunk], [i], [], [chunk], [i], special=True))
            continue
        for piece in tok.pieces(chunk):
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
            f"{_q(text[start:end][:60])} becomes nothing: {tok.name}'s normaliser removes it, so no token of "
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


def _check_length(chars: int) -> None:
    if chars > MAX_EXPLAIN_CHARS:
        raise LbpeError(
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
            found += [(a + c0, b + c0, item) for a, b, item in _chunk_parts(tok, chunk, start - c0, end - c0)]
    return found


def _chunk_parts(tok: Tokenizer, chunk: str, start: int, end: int) -> list[tuple[int, int, Any]]:
    """:func:`_span_parts` within one ordinary chunk (offsets in the chunk)."""
    if tok.normalizer is not None:
        norm, origin = tok.normalizer.aligned(chunk)
    else:
        norm, origin = chunk, list(range(len(chunk)))
    size = len(chunk)

    def back(i: int, is_end: bool) -> int:  # a normalised offset in the chunk, as segment() maps it
        if is_end:
            return origin[i - 1] + 1 if 0 < i <= len(origin) else (size if i else 0)
        return origin[i] if i < len(origin) else size

    vocab = tok.vocab
    out = []
    for piece, ps, pe in tok._splitter.split(norm):
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
        bpe_tokens=[show_key(k) for k in bpe_keys],
        bpe_ids=tok._key_ids(bpe_keys),
        lbpe=placements,
        lbpe_tokens=[show_key(k) for k in lbpe_keys],
        lbpe_ids=tok._key_ids(lbpe_keys),
        whole=whole,
        scaffold=scaffold,
        before=before,
        after=after,
    )
    if trace.differs:
        trace.why = _why(trace, raw, bpe_keys, lbpe_keys, "rank" if vocab.merges is None else "merge")
    return trace


def _spans(keys: Sequence) -> list[tuple[int, int]]:
    out, pos = [], 0
    for k in keys:
        out.append((pos, pos + len(k)))
        pos += len(k)
    return out


def _q(text: str) -> str:
    return '"' + text.replace("\n", "\\n").replace("\t", "\\t") + '"'


def _why(trace: PieceTrace, raw: list, bpe_keys: list, lbpe_keys: list, priority: str) -> list[str]:
    """One line per token only one side has: what kept the other side from making it."""
    bpe_spans, lbpe_spans = _spans(bpe_keys), _spans(lbpe_keys)
    lines = []
    for (a, b), name in zip(lbpe_spans, trace.lbpe_tokens):
        if (a, b) in bpe_spans or b - a < 2:
            continue
        for k, (start, left, right, p, _) in enumerate(raw):
            end = start + len(left) + len(right)
            if start < a < end or start < b < end:
                where = "start" if start < a < end else "end"
                lines.append(
                    f"BPE never makes {_q(name)}: its step {k + 1} merges {_q(show_key(left))} + {_q(show_key(right))} "
                    f"({priority} {p:,}) across the {where} of {_q(name)}."
                )
                break
        else:
            if trace.whole:
                lines.append(f"BPE takes the whole piece as one token, so it never makes {_q(name)}.")
            else:
                inside = " + ".join(_q(t) for (s, e), t in zip(bpe_spans, trace.bpe_tokens) if a <= s and e <= b)
                lines.append(f"BPE never makes {_q(name)}: no merge joins its parts {inside}.")
    for (a, b), name in zip(bpe_spans, trace.bpe_tokens):
        if (a, b) in lbpe_spans or b - a < 2:
            continue
        for s in trace.lbpe:
            length, i = s.length, s.start
            if s.placed and i < b and a < i + length:
                other = s.token
                if length > b - a:
                    reason = f"the longer {_q(other)} ({length} units) was placed over it first"
                else:
                    reason = f"{_q(other)}, as long and further left, was placed over it first"
                lines.append(f"LBPE never places {_q(name)}: {reason}.")
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


# ---------------------------------------------------------------------------------------------
# rendering: text for the CLI, HTML frames for the app and the page
# ---------------------------------------------------------------------------------------------


def _count(n: int, unit: str) -> str:
    return f"{n:,} {unit}{'' if n == 1 else 's'}"


def _bar(parts: Sequence[str]) -> str:
    """Parts joined by ``|``, a space shown as ``·`` (leading spaces matter in tokens)."""
    return "|".join(p.replace(" ", "·").replace("\n", "\\n").replace("\t", "\\t") for p in parts)


def explain_text(ex: Explanation) -> str:
    """The explanation as plain text (``lbpe explain``)."""
    rule = "the rank of the merged token" if ex.priority == "rank" else "the pair's position in the merge list"
    lines = [
        f"{ex.vocabulary}: {ex.unit}-level units; BPE merges by {rule} (lower first); "
        f"LBPE windows from m = {ex.max_len} units down to 1.",
        f"{_q(ex.text)} {_where(ex)}: "
        f"BPE {_count(len(ex.bpe_ids), 'token')}; LBPE {_count(len(ex.lbpe_ids), 'token')}.",
    ]
    for n, p in enumerate(ex.pieces, 1):
        lines.append("")
        if p.special:
            lines.append(f"piece {n}: {_q(p.piece)} is a special or added token, matched whole: id {p.bpe_ids[0]}")
            continue
        same = "same in both" if not p.differs else "differs"
        lines.append(f"piece {n}: {_q(p.piece)} ({_count(len(p.units), ex.unit)}, {same})")
        if p.before or p.after:
            lines.append(f"  part of the pre-token {_q(p.before + '[' + p.piece + ']' + p.after)}")
        lines.append(f"  units: {_bar(p.units)}")
        lines.append("  BPE:")
        if p.whole:
            lines.append("    the whole piece is a token: taken without merging")
        for s in p.bpe:
            lines.append(
                f"    {s.step:>3}. {_q(s.left)} + {_q(s.right)}  ({ex.priority} {s.priority:,})  -> {_bar(s.parts)}"
            )
        for token, parts in p.scaffold:
            lines.append(f"    scaffold token {_q(token)} split back into {' + '.join(map(_q, parts))}")
        lines.append(f"    tokens: {_bar(p.bpe_tokens)}   ids {p.bpe_ids}")
        lines.append("  LBPE:")
        window = None
        for c in p.lbpe:
            if c.length != window:
                window = c.length
                lines.append(f"    window {window}:")
            what = "placed" if c.placed else f"blocked by {_q(c.taken_by)}"
            lines.append(f"      {c.step:>3}. {_q(c.token)} at unit {c.start}: {what}")
        lines.append(f"    tokens: {_bar(p.lbpe_tokens)}   ids {p.lbpe_ids}")
        for line in p.why:
            lines.append(f"  why: {line}")
    return "\n".join(lines)


def _where(ex: Explanation) -> str:
    """Which text an explanation is of: a span where it stands in a text, or a text on its own."""
    if ex.start is None:
        return "on its own"
    return f"at characters {ex.start:,}-{ex.end:,} of the text, encoded as there"


def _e(text: str) -> str:
    return html.escape(text.replace("\n", "↵").replace("\t", "→").replace(" ", "·"))


def _bpe_frame(p: PieceTrace, k: int) -> tuple[str, str]:
    """(boxes, caption) of the BPE side of piece ``p`` after ``k`` steps."""
    shown = min(k, len(p.bpe))
    parts = list(p.bpe_tokens) if p.whole else list(p.bpe[shown - 1].parts) if shown else list(p.units)
    new_start = p.bpe[shown - 1].start if shown and shown == k else -1
    boxes, pos = [], 0
    for part in parts:
        cls = "lbpe-x-part lbpe-x-new" if pos == new_start else "lbpe-x-part"
        boxes.append(f'<span class="{cls}">{_e(part)}</span>')
        pos += _unit_len(p, pos, part)
    if p.whole:
        caption = "The whole piece is a token: taken without merging."
    elif shown and shown == k:
        s = p.bpe[shown - 1]
        caption = f"Step {s.step}: {_q(s.left)} + {_q(s.right)} ({s.priority:,}) → {_q(s.token)}"
    elif k == 0:
        caption = "Units, before any merge."
    else:
        caption = "Done: no adjacent pair can merge."
    return "".join(boxes), caption


def _unit_len(p: PieceTrace, pos: int, part: str) -> int:
    """How many units ``part`` spans from unit ``pos`` (units may show as ``<E6>``)."""
    n, acc = 0, ""
    while pos + n < len(p.units) and acc != part:
        acc += p.units[pos + n]
        n += 1
    return max(n, 1)


def _lbpe_frame(p: PieceTrace, k: int) -> tuple[str, str]:
    shown = min(k, len(p.lbpe))
    owner: dict[int, tuple[int, int]] = {}
    for s in p.lbpe[:shown]:
        if s.placed:
            owner[s.start] = (s.length, s.step)
    current = p.lbpe[shown - 1] if shown and shown == k else None
    boxes, i = [], 0
    n = len(p.units)
    while i < n:
        if i in owner:
            length, step = owner[i]
            cls = (
                "lbpe-x-part lbpe-x-new"
                if current is not None and current.placed and current.start == i
                else "lbpe-x-part"
            )
            boxes.append(f'<span class="{cls}">{_e("".join(p.units[i : i + length]))}</span>')
            i += length
        else:
            cls = "lbpe-x-free"
            if current is not None and not current.placed and current.start <= i < current.start + current.length:
                cls += " lbpe-x-blocked"
            boxes.append(f'<span class="{cls}">{_e(p.units[i])}</span>')
            i += 1
    if current is not None:
        if current.placed:
            caption = f"Window {current.length}: {_q(current.token)} at unit {current.start} placed."
        else:
            caption = (
                f"Window {current.length}: {_q(current.token)} at unit {current.start} is a token, "
                f"but {_q(current.taken_by)} holds part of it."
            )
    elif k == 0:
        caption = "Units, nothing placed yet."
    else:
        caption = "Done: every unit is placed."
    return "".join(boxes), caption


_RULE = {"rank": "merges, lowest rank first", "merge": "merges in merge-list order"}


def explain_html(ex: Explanation, frame: int | None = None) -> str:
    """HTML of one frame (``0`` .. ``ex.frames - 1``; default: the last, every step done).

    In frame ``k`` each piece shows BPE after its first ``k`` merges next to LBPE after its
    first ``k`` checks (a piece that finished earlier shows its result), the step just taken
    highlighted, then the tokens, ids and the reasons they differ."""
    last = ex.frames - 1
    k = last if frame is None else min(max(int(frame), 0), last)
    rows = []
    for n, p in enumerate(ex.pieces, 1):
        if p.special:
            rows.append(
                f'<div class="lbpe-x-piece"><div class="lbpe-x-title">{_e(p.piece)}: a special or added token, '
                f"id {p.bpe_ids[0]}</div></div>"
            )
            continue
        bpe_boxes, bpe_caption = _bpe_frame(p, k)
        lbpe_boxes, lbpe_caption = _lbpe_frame(p, k)
        state = "differs" if p.differs else "same in both"
        cls = "lbpe-x-piece lbpe-x-differs" if p.differs else "lbpe-x-piece"
        done = k >= max(len(p.bpe), len(p.lbpe))
        result = ""
        if done:
            result = (
                f'<div class="lbpe-x-result"><b>BPE</b> {len(p.bpe_ids)} token{"s" if len(p.bpe_ids) != 1 else ""}: '
                f"{html.escape(' '.join(map(str, p.bpe_ids)))} · <b>LBPE</b> {len(p.lbpe_ids)} "
                f"token{'s' if len(p.lbpe_ids) != 1 else ''}: {html.escape(' '.join(map(str, p.lbpe_ids)))}</div>"
            )
            if p.why:
                result += '<ul class="lbpe-x-why">' + "".join(f"<li>{html.escape(w)}</li>" for w in p.why) + "</ul>"
        title = _e(p.piece)
        if p.before or p.after:
            title = (
                f'<span class="lbpe-x-ctx" title="the rest of the pre-token">{_e(p.before)}</span>{title}'
                f'<span class="lbpe-x-ctx" title="the rest of the pre-token">{_e(p.after)}</span>'
            )
        rows.append(
            f'<div class="{cls}" data-piece="{n}"><div class="lbpe-x-title">{title} '
            f'<span class="lbpe-x-note">{_count(len(p.units), ex.unit)} · {state}</span></div>'
            '<div class="lbpe-x-sides">'
            f'<div class="lbpe-x-side"><div class="lbpe-x-label">BPE · merges by {ex.priority}</div>'
            f'<div class="lbpe-x-boxes">{bpe_boxes}</div>'
            f'<div class="lbpe-x-caption">{html.escape(bpe_caption)}</div></div>'
            f'<div class="lbpe-x-side"><div class="lbpe-x-label">LBPE · longest first</div>'
            f'<div class="lbpe-x-boxes">{lbpe_boxes}</div>'
            f'<div class="lbpe-x-caption">{html.escape(lbpe_caption)}</div></div>'
            f"</div>{result}</div>"
        )
    head = (
        f'<div class="lbpe-x-head">Step {k} of {last} · {_e(ex.text)} {_where(ex)}, with {html.escape(ex.vocabulary)}: '
        f"BPE {_count(len(ex.bpe_ids), 'token')}, LBPE {_count(len(ex.lbpe_ids), 'token')}</div>"
    )
    return f'<div class="lbpe-explain" data-frame="{k}" data-frames="{ex.frames}">{head}{"".join(rows)}</div>'
