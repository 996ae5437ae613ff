"""Size limits for untrusted input: vocabulary files, texts read whole, training corpora, uploads.

Every limit has a documented default and an environment variable that overrides it. The
value is read at each check (so a server or a test can change it while running): a plain
number of bytes (or tokens), optionally with a ``K``/``M``/``G`` suffix (powers of 1024);
``0`` switches the limit off. Who enforces what:

* ``vocab_bytes`` -- :func:`lbpe.load`: a vocabulary file, after decompression;
* ``vocab_tokens`` -- the vocabulary parsers: entries in a file and the largest id;
* ``text_bytes`` -- the CLI (``lbpe encode``/``compare`` read the whole text);
  :meth:`lbpe.Tokenizer.encode` itself has **no** cap (library callers pass what they like);
* ``train_bytes`` -- ``lbpe train`` (total size of the corpus files);
* ``upload_bytes`` -- for servers built on ``lbpe``: one uploaded file, as received;
* ``regex_seconds`` -- :mod:`lbpe.user_regex`: the time a regular expression that came from a
  vocabulary file may run, per MiB of text it is given (a text under 1 MiB counts as 1 MiB).
  It is a number of seconds, decimals allowed.

The Gradio playground (``app.py``) has its own, smaller caps (``LBPE_APP_*``); uploads it
loads still go through :func:`lbpe.load` and so also meet ``vocab_bytes``/``vocab_tokens``.

>>> get("vocab_tokens") == LIMITS["vocab_tokens"].default or "LBPE_MAX_VOCAB_TOKENS" in os.environ
True
>>> parse_size("64M", "LBPE_MAX_TEXT_BYTES")
67108864
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from lbpe.errors import LbpeError

__all__ = [
    "Limit", "LIMITS", "LimitExceededError", "get", "check", "exceeded", "vocab_problem", "parse_size", "parse_seconds",
    "describe",
]

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


@dataclass(frozen=True)
class Limit:
    """One limit: its key, environment variable, default and what it bounds."""

    key: str
    env: str
    default: int
    unit: str  # "bytes", "tokens" or "seconds"
    what: str


#: The limits by key. Defaults suit a shared server and a laptop alike; raise them with the
#: environment variables for big jobs (``lbpe stats``/``lbpe export`` stream corpora and are
#: not capped).
LIMITS: dict[str, Limit] = {
    lim.key: lim
    for lim in (
        Limit("text_bytes", "LBPE_MAX_TEXT_BYTES", 8 * MIB, "bytes",
              "a text read whole (the input of lbpe encode and lbpe compare)"),
        Limit("upload_bytes", "LBPE_MAX_UPLOAD_BYTES", 128 * MIB, "bytes",
              "one uploaded file in a server built on lbpe, as received (compressed or not)"),
        Limit("vocab_bytes", "LBPE_MAX_VOCAB_BYTES", 128 * MIB, "bytes",
              "a vocabulary file, after gzip decompression (the largest real tokenizer.json files are ~35 MB)"),
        Limit("vocab_tokens", "LBPE_MAX_VOCAB_TOKENS", 1 << 20, "tokens",
              "entries in a vocabulary file, and one more than its largest id (real vocabularies: <= 262,144)"),
        Limit("train_bytes", "LBPE_MAX_TRAIN_BYTES", 1 * GIB, "bytes",
              "the training corpus of lbpe train, all files together"),
        Limit("regex_seconds", "LBPE_REGEX_SECONDS", 2, "seconds",
              "a regular expression from a vocabulary file, per MiB of the text it runs on "
              "(real pre-tokenizers need well under 0.5 s per MiB)"),
    )
}

_SUFFIX = {"": 1, "K": KIB, "M": MIB, "G": GIB}


class LimitExceededError(LbpeError):
    """An input is over one of the :data:`LIMITS`; the message says which and how to raise it."""

    def __init__(self, message: str, *, key: str, amount: int, limit: int) -> None:
        self.key, self.amount, self.limit = key, amount, limit
        super().__init__(message)


def parse_size(text: str, env: str) -> int:
    """``"1048576"``, ``"512K"``, ``"64M"``, ``"2G"`` -> a count; ``env`` names the variable in errors."""
    raw = text.strip().upper().removesuffix("B").removesuffix("I")
    number, suffix = (raw[:-1], raw[-1]) if raw[-1:] in _SUFFIX and raw[-1:] else (raw, "")
    if not number.isdigit() or len(number) > 18:
        raise LbpeError(
            f"{env}={text!r} is not a size; use a whole number, optionally with K, M or G (e.g. 64M), or 0 for no limit"
        )
    return int(number) * _SUFFIX[suffix]


def parse_seconds(text: str, env: str) -> float:
    """``"2"``, ``"0.5"``, ``"10s"`` -> seconds; ``env`` names the variable in errors."""
    raw = text.strip().lower().removesuffix("s").strip()
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value < 1e9:  # also refuses nan and inf
        raise LbpeError(f"{env}={text!r} is not a number of seconds; use e.g. 2 or 0.5, or 0 for no limit")
    return value


def get(key: str):
    """The current value of limit ``key`` (environment variable, else the default); 0 = no limit.

    An ``int`` for sizes and counts, a ``float`` for the ``seconds`` limits."""
    lim = LIMITS[key]
    raw = os.environ.get(lim.env)
    if raw is None or not raw.strip():
        return lim.default
    if lim.unit == "seconds":
        return parse_seconds(raw, lim.env)
    return parse_size(raw, lim.env)


def _amount(n: int, unit: str) -> str:
    if unit == "bytes" and n >= MIB:
        return f"{n:,} bytes ({n / MIB:.1f} MiB)"
    return f"{n:,} {unit}"


def exceeded(key: str, amount: int, what: str, *, hint: str = "") -> str | None:
    """The message for ``amount`` over limit ``key``, or ``None`` when within it.

    ``what`` starts the message (``"input.txt"``, ``"the training corpus"``); the message ends
    with the environment variable that raises the limit.
    """
    limit = get(key)
    if not limit or amount <= limit:
        return None
    lim = LIMITS[key]
    return (
        f"{what} is {_amount(amount, lim.unit)}, over the limit of {_amount(limit, lim.unit)} for {lim.what}; "
        f"set {lim.env} to raise it (e.g. {lim.env}={_suggest(amount, lim.unit)}, or 0 for no limit)"
        + (f"; {hint}" if hint else "")
    )


def check(key: str, amount: int, what: str, *, hint: str = "") -> None:
    """Raise :class:`LimitExceededError` if ``amount`` is over limit ``key`` (see :func:`exceeded`)."""
    message = exceeded(key, amount, what, hint=hint)
    if message is not None:
        raise LimitExceededError(message, key=key, amount=amount, limit=get(key))


def vocab_problem(count: int, max_id: int | None = None) -> str | None:
    """The message if a vocabulary of ``count`` entries with largest id ``max_id`` is over the
    ``vocab_tokens`` limit, else ``None`` (for the parsers, which add the file name)."""
    problem = exceeded("vocab_tokens", count, "the vocabulary")
    if problem is None and max_id is not None:
        problem = exceeded("vocab_tokens", max_id + 1, f"the id range (0 to {max_id})")
    return problem


def _suggest(amount: int, unit: str) -> str:
    return f"{-(-amount // MIB)}M" if unit == "bytes" and amount >= MIB else str(amount)


def describe() -> list[dict[str, object]]:
    """The limits as rows (key, env, default, current value, unit, what), for docs and UIs."""
    return [
        {"key": lim.key, "env": lim.env, "default": lim.default, "value": get(lim.key), "unit": lim.unit, "what": lim.what}
        for lim in LIMITS.values()
    ]
