"""Progress bars on standard error for the command line.

tqdm draws them when it is installed (rate and time left); otherwise a plain bar redrawn at
most ten times a second. Either way nothing is drawn when standard error is not a terminal,
so a log file never fills with ``\\r`` frames. Amounts are in one unit per bar (bytes of input,
or steps), never characters against a byte total.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Bar"]


class Bar:
    """One bar at a time; :meth:`phase` gives the ``(done, total)`` callback of a phase."""

    def __init__(self, *, enabled: bool = True, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled and _is_terminal(self.stream)
        self._label: tuple[str, bool] | None = None
        self._tqdm = None
        self._last = 0.0
        self._shown = False
        self._counts: dict[str, int] = {}
        self._started = 0.0

    def phase(self, label: str, *, in_bytes: bool = False):
        """The callback ``(done, total)`` for one phase; a new label ends the previous bar."""

        def update(done: int, total: int) -> None:
            if self._label != (label, in_bytes):
                self.close()
                self._label = (label, in_bytes)
                self._open(label, total, in_bytes)
            self._draw(done, total)

        return update

    def count(self, **counts: int) -> None:
        """Add to counters shown beside the bar (documents, tokens)."""
        for key, n in counts.items():
            self._counts[key] = self._counts.get(key, 0) + n

    def _open(self, label: str, total: int, in_bytes: bool) -> None:
        self._started = time.monotonic()
        if not self.enabled:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self._tqdm = tqdm(
            total=total,
            desc=label.strip(),
            unit="B" if in_bytes else "it",
            unit_scale=in_bytes,
            unit_divisor=1000,
            file=self.stream,
            dynamic_ncols=True,
            leave=True,
        )

    def _draw(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self._tqdm is not None:
            self._tqdm.total = total
            self._tqdm.update(done - self._tqdm.n)
            if self._counts:
                self._tqdm.set_postfix({k: f"{v:,}" for k, v in self._counts.items()}, refresh=False)
            return
        now = time.monotonic()
        if now - self._last < 0.1 and done < total:
            return
        self._last = now
        label, in_bytes = self._label or ("", False)
        frac = min(done / total, 1.0) if total else 1.0
        amount = f"{done / 1e6:.1f}/{total / 1e6:.1f} MB" if in_bytes else f"{done}/{total}"
        rate = ""
        elapsed = now - self._started
        if in_bytes and elapsed > 0.5:
            rate = f" {done / 1e6 / elapsed:.1f} MB/s"
        counts = "".join(f" {k} {v:,}" for k, v in self._counts.items())
        self.stream.write(f"\r{label} [{'#' * int(24 * frac):<24}] {100 * frac:5.1f}% {amount}{rate}{counts}")
        self.stream.flush()
        self._shown = True

    def close(self) -> None:
        if self._tqdm is not None:
            self._tqdm.close()
            self._tqdm = None
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = False
        self._label = None


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
