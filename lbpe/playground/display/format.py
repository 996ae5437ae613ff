"""Small text helpers of the display modules: mode names, signed changes, quoted token text."""

from __future__ import annotations

from lbpe.analysis.trace import SHOWN

#: Display names of the modes.
MODE_NAMES = {"bpe": "BPE", "lbpe": "LBPE"}

#: Display names of every inference method (:data:`lbpe.METHODS`).
METHOD_NAMES = {
    "bpe": "BPE",
    "lbpe": "LBPE",
    "longest-prefix": "Longest prefix",
    "longest-suffix": "Longest suffix",
    "least-tokens": "Least tokens",
    "dropout": "BPE-dropout",
}


#: :data:`lbpe.analysis.trace.SHOWN`, and a double quote as ``\\"``.
_QUOTED = {**SHOWN, ord('"'): '\\"'}


def quote(chars: str) -> str:
    """``chars`` in double quotes, written with :data:`lbpe.analysis.trace.SHOWN` (control and
    formatting characters escaped) and a double quote as ``\\"``.

    >>> print(quote('say "hi"\\n\\u202e'))
    "say \\"hi\\"\\n\\u202e"
    """
    return '"' + chars.translate(_QUOTED) + '"'


def signed(value: float, digits: int = 2, *, percent: bool = False, places: int = 1) -> str:
    if percent:
        return f"{100 * value:+.{places}f}%".replace("-", "\u2212")
    return f"{value:+.{digits}f}".replace("-", "\u2212")


def ratio(new: float, old: float) -> float:
    return new / old - 1 if old else 0.0
