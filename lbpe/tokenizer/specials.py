"""Special and added tokens in a text: the matcher of their texts (:class:`~lbpe.literals.Literals`)
and the split of a text into ordinary chunks and the tokens it matched, with tiktoken's checks
of ``allowed_special`` and ``disallowed_special``."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from collections.abc import Set as AbstractSet
from typing import Literal, TypeAlias, cast

from lbpe.errors import DisallowedSpecialError, LbpeError
from lbpe.literals import MAX_ADDED_TOKEN_CHARS, Literals

__all__ = [
    "ALL_NAMES",
    "NO_NAMES",
    "SpecialNames",
    "checked_names",
    "nothing_to_find",
    "read_once",
    "special_matcher",
    "split_specials",
]

#: No names, and every name: ``encode``'s defaults for ``allowed_special`` and
#: ``disallowed_special`` (told apart by identity, so a call with both costs two comparisons).
NO_NAMES: frozenset[str] = frozenset()
ALL_NAMES: Literal["all"] = "all"

#: What ``allowed_special`` and ``disallowed_special`` take: ``"all"``, a set, list or tuple of
#: token texts, or ``None`` (none). Not ``Collection[str]``, which a single string is: one is
#: refused (:func:`checked_names`), and the type says so.
SpecialNames: TypeAlias = Literal["all"] | AbstractSet[str] | list[str] | tuple[str, ...] | None


def checked_names(
    value: object, parameter: str, known: tuple[Collection[str], ...]
) -> Literal["all"] | AbstractSet[str]:
    """``allowed_special`` or ``disallowed_special`` (named by ``parameter``) as ``"all"`` or a set
    of texts, each in one of ``known``; else an error that says what to pass. ``None`` and an empty
    collection name nothing. A string other than ``"all"`` is refused: read as a collection it
    would be its characters, and the token it names would be let through or refused in silence."""
    if type(value) is tuple and not value:  # the usual "nothing refused", at no cost
        return NO_NAMES
    if isinstance(value, str):
        if value == "all":
            return "all"
        word = value.strip().lower()
        if word == "all":
            fix = 'pass "all" (in lower case) for every one'
        elif word in ("", "none"):
            fix = 'pass () for none, "all" for every one, or a collection of token texts'
        else:
            fix = f'pass "all" or a collection of token texts, such as {parameter}={{{value!r}}}'
        raise LbpeError(f"{parameter}={value!r} is a single string: {fix}")
    if value is None:
        return NO_NAMES
    names: AbstractSet[object] | None
    if isinstance(value, (frozenset, set)):
        names = value
    else:
        try:
            names = frozenset(value)  # type: ignore[call-overload]
        except TypeError:
            names = None
    if names is None or not all(isinstance(name, str) for name in names):
        raise LbpeError(
            f'{parameter} must be "all" or a collection of token texts (a set, list or tuple of str), '
            f"not {type(value).__name__} {value!r:.80}"
        )
    unknown = [str(name) for name in names if not any(name in texts for texts in known)]
    if unknown:
        raise LbpeError(f"{parameter} names tokens this vocabulary does not have: {sorted(unknown)}")
    return cast("AbstractSet[str]", names)


def read_once(value: object) -> object:
    """``allowed_special`` or ``disallowed_special`` as a value that can be read again: an
    iterator (a generator, ``iter(...)``) as the tuple of its items, anything else as it is
    (:func:`checked_names` checks it). A call that reads the value more than once (a check,
    then the split; a batch's texts) takes it through here first."""
    return tuple(value) if isinstance(value, Iterator) else value


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


def nothing_to_find(added_tokens: Mapping[str, int], allowed: object, refused: object) -> bool:
    """Whether a text need not be searched for special and added tokens' texts: no added token
    (those always match), none of the vocabulary's special tokens ``allowed`` (a set of names, or
    ``"all"``) and none ``refused`` (``"all"``, ``()`` or what :func:`checked_names` gives), so
    each such text is ordinary text."""
    return not allowed and not added_tokens and not refused  # "all" is truthy


def split_specials(
    text: str,
    matcher: Literals | None,
    specials: Mapping[str, int],
    added_tokens: Mapping[str, int],
    allowed_special: SpecialNames,
    disallowed_special: SpecialNames,
) -> list[tuple[bool, str]]:
    """Split text into (is_special, chunk) after checking for disallowed special tokens:
    ``specials`` are the vocabulary's special tokens, ``added_tokens`` always match, and
    ``matcher`` finds the texts of both (:func:`special_matcher`)."""
    allowed = checked_names(allowed_special, "allowed_special", (specials,))
    if allowed == "all":
        allowed = specials.keys()
    refused = checked_names(disallowed_special, "disallowed_special", (specials, added_tokens))
    if nothing_to_find(added_tokens, allowed, refused):
        return [(False, text)]
    first = None if matcher is None else matcher.search(text)
    if matcher is None or first is None:  # no special or added token's text: nothing to match, nothing to refuse
        return [(False, text)]
    disallowed = specials.keys() - allowed if refused == "all" else refused
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
