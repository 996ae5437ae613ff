"""Cuts in a text (``Tokenizer.safe_cut``, ``Tokenizer.continued``): where a long text can be
cut so that its parts, encoded one by one, give the whole text's ids. A regex pre-tokeniser's
text is cut at a piece boundary beside white space; a SentencePiece-style pipeline's after a
line end, the text after it encoded without the dummy prefix."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from lbpe import native
from lbpe.normalize import Aligned, Normalizer
from lbpe.pretokenize.compiled import PresetPattern
from lbpe.pretokenize.splitters import Sequence as Steps
from lbpe.pretokenize.splitters import Split, Splitter
from lbpe.vocab import Vocab

__all__ = [
    "continuation_normalizer",
    "line_end_cut",
    "literal_delimiter",
    "normalized_piece_cut",
    "piece_cut",
    "unit_pairs",
    "unmerged_cut",
]


def continuation_normalizer(
    vocab: Vocab, normalizer: Normalizer, splitter: Splitter, added_tokens: Mapping[str, int]
) -> Normalizer | None:
    """The normaliser for a text that continues another right after a line end, or ``None``
    when the pipeline cannot promise that such a text encodes on its own (see
    ``Tokenizer.continued``)."""
    cont = normalizer.continued()
    if cont is None or not isinstance(splitter, Steps) or splitter.steps:  # no pre-tokeniser only
        return None
    # a line end that no token and no added token contains cannot be crossed by a merge or an
    # LBPE span (lbpe.model.cuts), so the text after it encodes on its own
    newline: str | bytes = "\n" if vocab.unit == "char" else b"\n"
    if any(newline in key for key in vocab.model_tokens) or any("\n" in t for t in added_tokens):
        return None
    return cont


def line_end_cut(text: str, vocab: Vocab) -> int | None:
    """Right after the last line end of ``text`` that a visible ASCII character with a token
    follows (a SentencePiece-style pipeline's safe cut), or ``None``."""
    keys = vocab.model_tokens
    end = len(text) - 1  # the line end needs a character after it
    while end > 0:
        at = text.rfind("\n", 0, end)
        if at < 0 or len(text) - at > 1 << 16:
            return None
        after = text[at + 1]
        if "!" <= after <= "~" and (after if vocab.unit == "char" else after.encode()) in keys:
            return at + 1
        end = at
    return None


def piece_cut(text: str, pattern: re.Pattern[str] | PresetPattern, preset_code: int | None, vocab: Vocab) -> int | None:
    """A piece boundary of ``text`` split by ``pattern`` (a regex pre-tokeniser) that is a safe
    cut (see ``Tokenizer.safe_cut``), or ``None``; ``preset_code``: the compiled path's code
    for the pattern, if it has one."""
    if preset_code is not None and native.model_for(vocab) is not None:
        # the compiled splitter counts the pieces and keeps the last starts only
        total, starts = native.last_starts(text, preset_code, 16)
    else:
        starts = [m.start() for m in pattern.finditer(text)]
        total = len(starts)
    offset = total - len(starts)  # index in all the pieces of starts[0]
    ends = starts[1:] + [len(text)]
    for k in range(total - 2, max(total - 12, 0), -1):
        cut = starts[k - offset]
        first = max(k - 4, 0) - offset
        start = starts[first]
        if cut <= 0 or not (text[cut - 1].isspace() or text[cut].isspace()):
            continue  # also keep words (white-space separated) whole, for word counts
        alone = [m.group() for m in pattern.finditer(text, start, cut)]
        if alone == [text[a:b] for a, b in zip(starts[first : k - offset], ends[first : k - offset])]:
            return cut
    return None


def normalized_piece_cut(
    text: str,
    normalizer: Normalizer,
    pattern: re.Pattern[str] | PresetPattern,
    preset_code: int | None,
    vocab: Vocab,
) -> int | None:
    """A safe cut (see ``Tokenizer.safe_cut``) of ``text`` for a pipeline that normalises
    before a regex pre-tokeniser (Qwen 3: NFC): a piece boundary of the normalised text beside
    white space in both texts, at least the normaliser's :meth:`~lbpe.normalize.Normalizer.reach`
    from either end, where the two sides normalise as the whole does. ``None`` when the
    normaliser may look anywhere or no such cut is found near the end."""
    reach = normalizer.reach()
    if reach is None:
        return None
    normal = normalizer(text)
    cut = piece_cut(normal, pattern, preset_code, vocab)
    if cut is None or min(cut, len(normal) - cut) < max(reach, 1):
        return None
    raw = _raw_positions(text, normalizer, normal, len(normal) - cut)
    at = None if raw is None else raw(cut)
    if at is None or min(at, len(text) - at) < max(reach, 1) or not (text[at - 1].isspace() or text[at].isspace()):
        return None
    if normalizer(text[at:]) != normal[cut:] or normalizer(text[:at]) != normal[:cut]:
        return None  # the normaliser joins or changes something across the cut
    return at


def literal_delimiter(splitter: Splitter) -> str | None:
    """The one string a pre-tokeniser cuts at (``""``: it cuts nowhere), or ``None`` when it
    is something else (a pattern, several steps)."""
    if isinstance(splitter, Steps) and not splitter.steps:
        return ""
    if isinstance(splitter, Split) and splitter.literal is not None and not splitter.invert:
        return splitter.literal
    return None


def unit_pairs(vocab: Vocab, texts: Iterable[str]) -> tuple[frozenset[str | bytes], frozenset[str]]:
    """Every two neighbouring units inside a token of ``vocab``, and every two neighbouring
    characters inside ``texts`` (its special and added tokens): what :func:`unmerged_cut`
    must not cut between."""
    inside = frozenset(key[i : i + 2] for key in vocab.model_tokens for i in range(len(key) - 1))
    return inside, frozenset(text[i : i + 2] for text in texts for i in range(len(text) - 1))


def unmerged_cut(
    text: str,
    normalizer: Normalizer,
    delimiter: str,
    vocab: Vocab,
    pairs: tuple[frozenset[str | bytes], frozenset[str]],
) -> int | None:
    """A safe cut (see ``Tokenizer.safe_cut``) of ``text`` for a pipeline whose pre-tokeniser
    cuts at one string or nowhere (Gemma 3 writes spaces as ``▁`` and then cuts at spaces, so a
    text is one piece): a place beside white space where no token holds the units on both sides
    of it (so no merge, LBPE span or longest match crosses it), no special or added token holds
    the characters there, no delimiter spans it, and the normaliser gives each side as it gives
    the whole. ``pairs``: :func:`unit_pairs`. ``None`` when none is found near the end."""
    reach = normalizer.reach()
    if reach is None:
        return None
    inside, added = pairs
    normal = normalizer(text)
    byte = vocab.unit == "byte"
    wide = len(delimiter) - 1
    lowest = max(len(normal) - _SCANNED, reach, 1)
    raw = _raw_positions(text, normalizer, normal, len(normal) - lowest)  # aligned once, not per place
    if raw is None:
        return None
    for cut in range(len(normal) - max(reach, 1), lowest - 1, -1):
        left, right = normal[cut - 1], normal[cut]
        if (left.encode()[-1:] + right.encode()[:1] if byte else left + right) in inside:
            continue
        if wide > 0 and delimiter in normal[cut - wide : cut + wide]:
            continue
        at = raw(cut)
        if at is None or min(at, len(text) - at) < max(reach, 1):
            continue
        if not (text[at - 1].isspace() or text[at].isspace()) or text[at - 1 : at + 1] in added:
            continue
        if normalizer(text[at:]) != normal[cut:] or normalizer(text[:at]) != normal[:cut]:
            return None  # the normaliser joins or changes something across the cut
        return at
    return None


#: How far from a text's end :func:`unmerged_cut` looks for a cut, in characters.
_SCANNED = 1 << 16


def _raw_positions(text: str, normalizer: Normalizer, normal: str, tail: int) -> Callable[[int], int | None] | None:
    """Where in ``text`` a position among the last ``tail`` of the normalised text ``normal``
    comes from (``None`` for one it cannot tell; each answer is checked by the caller), read
    from one alignment of ``text``'s end from white space; ``None`` when that alignment does
    not give the end of ``normal``."""
    if normal is text or normal == text:
        return lambda cut: cut
    start = max(len(text) - 2 * tail - 256, 0)
    floor = max(start - 1024, 0)
    while start > floor and not text[start].isspace():
        start -= 1
    part: Aligned = normalizer.aligned(text[start:])
    out, origin = part
    offset = len(normal) - len(out)
    if offset < 0 or not normal.endswith(out):
        return None
    return lambda cut: start + origin[cut - offset] if 0 <= cut - offset < len(origin) else None
