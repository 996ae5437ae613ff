"""Special and added tokens in a text: the matcher of their texts (:class:`~lbpe.literals.Literals`)
and the split of a text into ordinary chunks and the tokens it matched, with tiktoken's checks
of ``allowed_special`` and ``disallowed_special``."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from collections.abc import Set as AbstractSet
from typing import Literal

from lbpe.errors import DisallowedSpecialError, LbpeError
from lbpe.literals import MAX_ADDED_TOKEN_CHARS, Literals

__all__ = ["nothing_to_find", "special_matcher", "split_specials"]

_NO_NAMES: frozenset[str] = frozenset()


def special_matcher(names: Collection[str]) -> Literals | None:
    """The matcher of the special and added tokens' texts ``names`` (``None``: there are none)."""
    if not names:
        return None
    longest = max(names, key=len)
    if len(longest) > MAX_ADDED_TOKEN_CHARS:
        raise LbpeError(
            f"the added or special token {longest[:40]!r}... is {len(longest):,} characters long; lbpe matches "
            f"added and special tokens of at most {MAX_ADDED_TOKEN_CHARS} characters (real tokenizers use "
            "under 40), so that finding them in a text stays fast: shorten or drop it in the file"
        )
    return Literals(names)


def nothing_to_find(
    added_tokens: Mapping[str, int], allowed: object, disallowed_special: Literal["all"] | Collection[str]
) -> bool:
    """Whether a text need not be searched for special and added tokens' texts: no added token
    (those always match), none of the vocabulary's special tokens ``allowed`` (a set of names, or
    ``"all"``) and none refused, so each such text is ordinary text."""
    return not allowed and not added_tokens and not disallowed_special  # "all" is truthy


def split_specials(
    text: str,
    matcher: Literals | None,
    specials: Mapping[str, int],
    added_tokens: Mapping[str, int],
    allowed_special: Literal["all"] | AbstractSet[str],
    disallowed_special: Literal["all"] | Collection[str],
) -> list[tuple[bool, str]]:
    """Split text into (is_special, chunk) after checking for disallowed special tokens:
    ``specials`` are the vocabulary's special tokens, ``added_tokens`` always match, and
    ``matcher`` finds the texts of both (:func:`special_matcher`)."""
    if allowed_special == "all":
        allowed: AbstractSet[str] = specials.keys()
    else:
        allowed = set(allowed_special) if allowed_special else _NO_NAMES
        unknown = allowed - specials.keys() if allowed else None
        if unknown:
            raise LbpeError(f"allowed_special names tokens this vocabulary does not have: {sorted(unknown)}")
    if nothing_to_find(added_tokens, allowed, disallowed_special):
        return [(False, text)]
    first = None if matcher is None else matcher.search(text)
    if matcher is None or first is None:  # no special or added token's text: nothing to match, nothing to refuse
        return [(False, text)]
    disallowed = specials.keys() - allowed if disallowed_special == "all" else set(disallowed_special)
    chunks: list[tuple[bool, str]] = []
    pos = 0
    for m in matcher.finditer(text, first.start()):
        found = m.group()
        if found in disallowed:
            raise DisallowedSpecialError(found)
        if found in allowed or found in added_tokens:
            if m.start() > pos:
                chunks.append((False, text[pos : m.start()]))
            chunks.append((True, found))
            pos = m.end()
    if pos < len(text) or not chunks:
        chunks.append((False, text[pos:]))
    return chunks
