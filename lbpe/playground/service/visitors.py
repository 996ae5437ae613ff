"""What a visitor of the playground or the browser page is told: a limit's message without the
variables that raise it (they are the server's business, or there is no environment at all, in
a browser), with what a visitor can do instead."""

from __future__ import annotations

import re

__all__ = ["for_visitors"]


def _clauses(place: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    return (
        (re.compile(r" \(set LBPE_\w+[^)]*\)"), ""),
        (re.compile(r", shorten the text, or allow it more time with LBPE_\w+ \([^)]*\)"), " or shorten the text"),
        (
            re.compile(r", or allow more time with LBPE_ENCODE_SECONDS \([^)]*\)"),
            ", or encode it with lbpe on your own machine (pip install lbpe), where it has no time limit",
        ),
        (re.compile(r",? or allow (?:it )?more time with LBPE_\w+(?: \([^)]*\))?"), ""),
        (
            re.compile(r"set LBPE_\w+ to raise it(?: \([^)]*\))?"),
            f"{place} allows no more (lbpe on your own machine does: pip install lbpe)",
        ),
        (re.compile(r"LBPE_\w+(?:=\S+)?"), f"a setting of {place}"),
    )


_PLACES = {place: _clauses(place) for place in ("this server", "this page")}


def for_visitors(message: str, *, place: str = "this server") -> str:
    """``message`` as a visitor is shown it, ``place`` (``"this server"``, ``"this page"``)
    saying whose limit it is: the clauses naming lbpe's variables are left out or replaced.

    >>> for_visitors("big.txt is 9 MB; set LBPE_APP_MAX_TEXT_MB to raise it", place="this page")
    'big.txt is 9 MB; this page allows no more (lbpe on your own machine does: pip install lbpe)'
    """
    for pattern, replacement in _PLACES[place]:
        message = pattern.sub(replacement, message)
    return message
