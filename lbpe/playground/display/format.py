"""Small text helpers of the display modules: mode names, signed changes, quoted token text."""

from __future__ import annotations

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


def quote(chars: str) -> str:
    """``chars`` in double quotes, control characters escaped (``\\n``, ``\\t``, ``\\xNN``)."""
    named = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", '"': '\\"'}
    out = "".join(named.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x20 or ord(c) == 0x7F else c) for c in chars)
    return f'"{out}"'


def signed(value: float, digits: int = 2, *, percent: bool = False, places: int = 1) -> str:
    if percent:
        return f"{100 * value:+.{places}f}%".replace("-", "\u2212")
    return f"{value:+.{digits}f}".replace("-", "\u2212")


def ratio(new: float, old: float) -> float:
    return new / old - 1 if old else 0.0
