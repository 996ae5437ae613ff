"""A time budget for one request of a server: how long its encoding may run.

A server's view opens :class:`time_budget` around its work (``lbpe.playground.service``'s Compare,
Explain, Across and Corpus views do). Inside, the encoder checks the budget between pieces of
work, never inside its inner loops: the pure path between pre-tokens and between the window
lengths of LBPE's long-window scan, the compiled path where it also checks for Ctrl-C (every
few thousand pre-tokens or window checks). Once the budget is spent the work stops with
:class:`TimeBudgetError`, which says what took too long and how to allow more.

The time allowed is the ``encode_seconds`` limit (``LBPE_ENCODE_SECONDS``, default 10 s) per
MiB of the request's text, a text under 1 MiB counting as 1 MiB: real vocabularies encode a MiB
in well under a second, so only a hostile vocabulary or text meets it. Outside a budget nothing
is checked: ``Tokenizer.encode`` in a script or the CLI never stops on time.

>>> with time_budget(1000, what="a test"):
...     check()
...     remaining() > 0
True
>>> remaining() is None
True
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable
from dataclasses import dataclass

from lbpe import limits
from lbpe.errors import LbpeError

__all__ = ["time_budget", "check", "remaining", "TimeBudgetError"]

_MIB = 1 << 20


class TimeBudgetError(LbpeError):
    """A request's encoding ran past its time budget (:class:`time_budget`)."""

    def __init__(self, what: str, seconds: float, per_mib: float) -> None:
        self.what, self.seconds = what, seconds
        super().__init__(
            f"{what}: this text took longer than {seconds:g} s with this vocabulary, which is far more than "
            f"real vocabularies need. Shorten the text, choose another vocabulary, or allow more time with "
            f"LBPE_ENCODE_SECONDS (now {per_mib:g} s per MiB of text; 0 for no limit)."
        )


@dataclass(frozen=True)
class _Budget:
    end: float  # time.monotonic() when it is spent
    seconds: float
    per_mib: float
    what: str


_current: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("lbpe_time_budget", default=None)


class time_budget:
    """Context manager: the encoding inside may run for the ``encode_seconds`` limit per MiB
    of a text of ``chars`` characters (at least one MiB's worth); ``what`` names the work in the
    error. Inside another budget, the one that ends first holds. A limit of 0: no budget."""

    def __init__(self, chars: int, *, what: str) -> None:
        self.chars, self.what = chars, what
        self._token: contextvars.Token | None = None

    def __enter__(self) -> time_budget:
        per_mib = limits.get("encode_seconds")
        if per_mib:
            seconds = per_mib * max(1.0, self.chars / _MIB)
            end = time.monotonic() + seconds
            outer = _current.get()
            if outer is None or end < outer.end:
                self._token = _current.set(_Budget(end, seconds, per_mib, self.what))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _current.reset(self._token)
            self._token = None


#: The budget in force, or ``None`` outside one: whether there is a budget, at the cost of one
#: C call (the compiled path's quick call asks it of every text).
in_force: Callable[[], object] = _current.get


def remaining() -> float | None:
    """Seconds left of the budget in force (0.0 when spent), or ``None`` outside a budget."""
    budget = _current.get()
    return None if budget is None else max(0.0, budget.end - time.monotonic())


def check() -> None:
    """Raise :class:`TimeBudgetError` when the budget in force is spent."""
    budget = _current.get()
    if budget is not None and time.monotonic() > budget.end:
        raise spent()


def spent() -> TimeBudgetError:
    """The error for the budget in force (the compiled path's timeout becomes this)."""
    budget = _current.get()
    if budget is None:  # pragma: no cover - only called inside a budget
        return TimeBudgetError("the encoding", 0.0, 0.0)
    return TimeBudgetError(budget.what, budget.seconds, budget.per_mib)
