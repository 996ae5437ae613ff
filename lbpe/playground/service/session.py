"""One person's session in a playground: the vocabularies they uploaded or trained (by name,
beside the bundled presets), the one trained last, and whether they pressed Stop.

A server keeps one :class:`Session` per visitor (the Gradio app in a ``gr.State``), so nobody
sees another's files. :meth:`Session.reporter` turns a view's progress into a callback that
also ends the work with :class:`Stopped` once Stop was pressed.

>>> s = Session(keep=2)
>>> s.tokenizer("gpt2").name
'gpt2'
>>> s.choices()[0][1] in VOCAB_PRESETS
True
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator

from lbpe.analysis.counting import vocab_tokens
from lbpe.errors import LbpeError
from lbpe.presets import VOCAB_PRESETS, load_preset, preset_label
from lbpe.tokenizer import Tokenizer

__all__ = ["Session", "Stopped", "Busy", "describe"]

#: Guards every session's set of running jobs (a lock in the session itself could not be
#: deep-copied, as a server's per-visitor state is).
_JOBS_LOCK = threading.Lock()
#: How many jobs of each kind run for each network address: ``(address, kind) -> count``.
_ADDRESS_JOBS: Counter[tuple[str, str]] = Counter()


class Stopped(Exception):
    """The session's Stop button was pressed; ``fraction`` of the work was done."""

    def __init__(self, fraction: float) -> None:
        super().__init__(f"stopped at {fraction:.0%}")
        self.fraction = fraction


class Busy(LbpeError):
    """A session asked for a second job of a kind while one is running (:meth:`Session.job`)."""


class Session:
    """A visitor's vocabularies (name -> tokenizer, the oldest dropped beyond ``keep``; the
    names the last :meth:`remember` dropped in ``dropped``, every one dropped in ``let_go``;
    what each name was made from in ``made_from``: a name means one vocabulary for the whole
    session), the name of the one trained last,
    the Stop flag, and the kinds of job running (:meth:`job`)."""

    def __init__(self, *, keep: int = 8) -> None:
        self.keep = keep
        self.vocabs: dict[str, Tokenizer] = {}
        self.trained: str | None = None
        self.dropped: list[str] = []
        self.let_go: set[str] = set()  # every name dropped to stay within ``keep``
        self.made_from: dict[str, str] = {}  # name -> what made it (an upload's fingerprint), every name given
        self.stop = False
        self.running: set[str] = set()
        self.shown: dict[str, str] = {}  # tab -> the view ("corpus-methods", ...) whose finished run fills it

    @contextlib.contextmanager
    def job(self, kind: str, what: str, *, address: str | None = None, per_address: int = 0) -> Iterator[None]:
        """Run one job of ``kind`` (``"train"``, ``"corpus"``, ...) in this session: a second one
        of the same kind while the first runs raises :class:`Busy`, saying ``what`` runs (so one
        visitor cannot fill a server's queue with their jobs). With ``address`` and
        ``per_address``, at most that many jobs of the kind run at once from that network
        address over every session (a visitor opening many sessions holds no more).

        >>> s = Session()
        >>> with s.job("train", "A training"):
        ...     with s.job("train", "A training"):
        ...         pass
        Traceback (most recent call last):
          ...
        lbpe.playground.service.session.Busy: A training is already running in this session: ...
        >>> with s.job("train", "A training", address="192.0.2.1", per_address=1):
        ...     with Session().job("train", "A training", address="192.0.2.1", per_address=1):
        ...         pass
        Traceback (most recent call last):
          ...
        lbpe.playground.service.session.Busy: A training is already running from your network address, ...
        """
        counted = (address, kind) if address and per_address > 0 else None
        with _JOBS_LOCK:
            if kind in self.running:
                raise Busy(
                    f"{what} is already running in this session: wait for it to finish, or press Stop, "
                    "then start again (one at a time per visitor)."
                )
            if counted is not None and _ADDRESS_JOBS[counted] >= per_address:
                times = "one" if per_address == 1 else f"{per_address}"
                raise Busy(
                    f"{what} is already running from your network address, in another tab or client or "
                    f"by someone who shares the address (this server runs {times} at a time per address): "
                    "wait for it to finish, or press Stop there, then start again."
                )
            self.running.add(kind)
            if counted is not None:
                _ADDRESS_JOBS[counted] += 1
        try:
            yield
        finally:
            with _JOBS_LOCK:
                self.running.discard(kind)
                if counted is not None:
                    _ADDRESS_JOBS[counted] -= 1
                    if _ADDRESS_JOBS[counted] <= 0:
                        del _ADDRESS_JOBS[counted]

    def choices(self) -> list[tuple[str, str]]:
        """The vocabulary picker's ``(label, name)`` pairs: presets with their models
        ("GPT-4o: o200k_base"), then this session's uploaded and trained vocabularies."""
        return [(preset_label(name), name) for name in VOCAB_PRESETS] + [(name, name) for name in self.vocabs]

    def tokenizer(self, name: str) -> Tokenizer:
        """A vocabulary this session uploaded or trained, or a bundled preset, by name."""
        if name in self.vocabs:
            return self.vocabs[name]
        if name in VOCAB_PRESETS:
            return load_preset(name)
        raise LbpeError(f"Unknown vocabulary {name!r}; choose one of: {', '.join(n for _, n in self.choices())}.")

    def named(self, made_from: str) -> str | None:
        """The name this session gave what ``made_from`` fingerprints, or ``None``."""
        return next((name for name, made in self.made_from.items() if made == made_from), None)

    def remember(self, base: str, tok: Tokenizer, *, made_from: str = "") -> str:
        """Keep ``tok`` under a name made from ``base`` (``base (2)``, ... when this session
        gave it before: a name in a download or a link never comes to mean another
        vocabulary). ``made_from``: a fingerprint of what ``tok`` was read from; the same
        again gets the name it got before, kept once. Returns the name."""
        name = self.named(made_from) if made_from else None
        if name is None:
            name, n = base, 2
            while name in self.made_from or name in self.vocabs or name in VOCAB_PRESETS:
                name, n = f"{base} ({n})", n + 1
        tok.name = name
        self.vocabs.pop(name, None)  # kept again: the newest
        self.let_go.discard(name)
        self.vocabs[name] = tok
        self.made_from[name] = made_from or name
        self.dropped = []
        while len(self.vocabs) > self.keep:
            oldest = next(iter(self.vocabs))
            self.vocabs.pop(oldest)
            self.dropped.append(oldest)
            self.let_go.add(oldest)
        return name

    def to_let_go(self, made_from: str) -> list[Tokenizer]:
        """What :meth:`remember` would drop to keep the vocabulary ``made_from`` fingerprints (the
        oldest, when the session holds as many as it keeps and not that one)."""
        if self.named(made_from) is not None or len(self.vocabs) < self.keep:
            return []
        return [next(iter(self.vocabs.values()))]

    def dropped_note(self) -> str:
        """What the last :meth:`remember` dropped, said for a person; empty when nothing.

        >>> s, vocab = Session(keep=1), load_preset("gpt2").vocab
        >>> for name in ("upload: a.json", "upload: b.json"):
        ...     _ = s.remember(name, Tokenizer(vocab, "gpt2"))
        >>> s.dropped_note()
        'This session keeps the latest 1 vocabulary: “upload: a.json” was dropped (upload it again to use it).'
        """
        if not self.dropped:
            return ""
        names = ", ".join(f"“{n}”" for n in self.dropped)
        verb = "was" if len(self.dropped) == 1 else "were"
        return (
            f"This session keeps the latest {self.keep} {'vocabulary' if self.keep == 1 else 'vocabularies'}: "
            f"{names} {verb} dropped "
            "(upload it again to use it)."
        )

    def reporter(self, progress: Callable[[float], None]) -> Callable[[float], None]:
        """A progress callback ``(fraction)`` for a view: it passes the fraction (kept within
        0..1) to ``progress``, then raises :class:`Stopped` if Stop was pressed. Clears the flag
        first, so an old press does not stop new work."""
        self.stop = False

        def report(fraction: float) -> None:
            fraction = min(max(fraction, 0.0), 1.0)
            progress(fraction)
            if self.stop:
                raise Stopped(fraction)

        return report


#: Special tokens a vocabulary's line names (the rest are counted).
NAMED_SPECIALS = 3


def describe(tok: Tokenizer) -> str:
    """One line about a vocabulary (markdown): its name once (with the models a preset belongs
    to), its size and units, its pre-tokenizer and its special tokens.

    >>> for part in describe(load_preset("gpt2")).split(", "):
    ...     print(part)
    **gpt2** (GPT-2 / r50k_base): 50,257 tokens
    bytes as units
    pre-tokenizer r50k_base
    special token `<|endoftext|>`.
    """
    units = (
        "bytes"
        if tok.vocab.unit == "byte"
        else "characters with byte fallback"
        if tok.vocab.byte_fallback
        else "characters"
    )
    who = ""
    if tok.name in VOCAB_PRESETS:
        about = VOCAB_PRESETS[tok.name][1]  # e.g. "cl100k_base (GPT-3.5/GPT-4): 100K byte-level tokens"
        if about.startswith(tok.name):
            about = about[len(tok.name) :].strip()
            who = about[1 : about.index(")")] if about.startswith("(") and ")" in about else ""
        else:
            who = about.split(":")[0]
        who = f" ({who.replace(' (default)', ', the default')})" if who else ""
    pre = tok.pretokenizer_name
    pre = (
        f"the pre-tokenizer of its {pre}"
        if pre == "tokenizer.json"
        else "its own pre-tokenizer"
        if pre == tok.name
        else f"pre-tokenizer {pre}"
    )
    return f"**{tok.name}**{who}: {vocab_tokens(tok):,} tokens, {units} as units, {pre}, {_specials(tok)}."


def _specials(tok: Tokenizer) -> str:
    names = list(tok.special_tokens)
    if not names:
        return "no special tokens"
    shown = ", ".join(_code(t) for t in names[:NAMED_SPECIALS])
    more = f" and {len(names) - NAMED_SPECIALS:,} more" if len(names) > NAMED_SPECIALS else ""
    return f"special token{'' if len(names) == 1 else 's'} {shown}{more}"


def _code(text: str) -> str:
    """``text`` as a markdown code span (shown as written: ``<s>`` is no HTML tag there)."""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
