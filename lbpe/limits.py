"""Size limits for untrusted input: vocabulary files, texts read whole, training corpora, uploads.

Every limit has a documented default and an environment variable that overrides it. The
value is read at each check (so a server or a test can change it while running): a plain
number of bytes (or tokens), optionally with a ``K``/``M``/``G`` suffix (powers of 1024);
``0`` switches the limit off. Who enforces what:

* ``vocab_bytes`` -- :func:`lbpe.load`: a vocabulary file, after decompression;
* ``vocab_tokens`` -- the vocabulary parsers: entries in a file and the largest id;
* ``token_bytes`` -- :func:`lbpe.load`: the longest token of a vocabulary (LBPE checks windows
  up to that long, so its time per text grows with it);
* ``regex_chars`` -- the tokenizer.json reader: a regular expression in the file (a 200,000-way
  alternation took over a minute to translate and compile);
* ``text_bytes`` -- the CLI (``lbpe encode``/``compare`` read the whole text);
  :meth:`lbpe.Tokenizer.encode` itself has **no** cap (library callers pass what they like);
* ``train_bytes`` -- ``lbpe train`` (total size of the corpus files);
* ``upload_bytes`` -- for servers built on ``lbpe``: one uploaded file, as received;
* ``regex_seconds`` -- :mod:`lbpe.user_regex`: the time a regular expression that came from a
  vocabulary file may run, per MiB of text it is given (a text under 0.1 MiB counts as 0.1 MiB);
  only the time inside the pattern's calls counts.
  It is a number of seconds, decimals allowed;
* ``encode_seconds`` -- :mod:`lbpe.budget`: the time one request of a server (the views of
  :mod:`lbpe.playground.service` open a budget) may spend encoding, per MiB of its text, likewise.

A server reads its limits once, into a :class:`Limits` snapshot: :data:`PLAYGROUND` holds
the Gradio playground's smaller caps (``LBPE_APP_*``, read at start-up), and
``lbpe.load(path, limits=...)`` (or ``with using(limits):``) makes :func:`get` answer from the
snapshot for the keys it has, so an uploaded vocabulary meets the playground's
``vocab_bytes``/``vocab_tokens`` and the messages name the playground's variables.

>>> get("vocab_tokens") == LIMITS["vocab_tokens"].default or "LBPE_MAX_VOCAB_TOKENS" in os.environ
True
>>> parse_size("64M", "LBPE_MAX_TEXT_BYTES")
67108864
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, fields

from lbpe.errors import LbpeError

__all__ = [
    "Limit",
    "LIMITS",
    "PLAYGROUND",
    "Limits",
    "LimitExceededError",
    "get",
    "check",
    "exceeded",
    "vocab_problem",
    "parse_size",
    "parse_seconds",
    "describe",
    "using",
    "amount",
    "how_to_raise",
]

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
#: The playground's sizes are written in decimal megabytes (``LBPE_APP_MAX_VOCAB_MB=2.5``).
MB = 1_000_000


@dataclass(frozen=True)
class Limit:
    """One limit: its key, environment variable, default and what it bounds."""

    key: str
    env: str
    default: int
    unit: str  # "bytes", "tokens", "characters", "vocabularies", "jobs" or "seconds"
    what: str
    #: How the variable is written: 0, a size with optional K/M/G (powers of 1024) where 0
    #: switches the limit off; otherwise a positive number (decimals allowed) of this many
    #: units (``MB`` for the playground's ``..._MB`` variables, 1 for its counts).
    scale: int = 0

    def parse(self, raw: str) -> int | float:
        """The value of the environment variable's text ``raw`` (``LbpeError`` naming it)."""
        if not self.scale:
            return parse_seconds(raw, self.env) if self.unit == "seconds" else parse_size(raw, self.env)
        try:
            value = float(raw) * self.scale
        except ValueError:
            raise LbpeError(f"{self.env}={raw!r} is not a number") from None
        if not 0 < value < 1e18:
            raise LbpeError(f"{self.env}={raw!r} must be positive")
        if int(value) < 1:  # 0.5 jobs would be 0, which would switch the limit off
            raise LbpeError(f"{self.env}={raw!r} must be at least 1 {self.unit}")
        return int(value)


#: The limits by key. Defaults suit a shared server and a laptop alike; raise them with the
#: environment variables for big jobs (``lbpe stats``/``lbpe export`` stream corpora and are
#: not capped).
LIMITS: dict[str, Limit] = {
    lim.key: lim
    for lim in (
        Limit(
            "text_bytes",
            "LBPE_MAX_TEXT_BYTES",
            8 * MIB,
            "bytes",
            "a text read whole (the input of lbpe encode and lbpe compare)",
        ),
        Limit(
            "upload_bytes",
            "LBPE_MAX_UPLOAD_BYTES",
            128 * MIB,
            "bytes",
            "one uploaded file in a server built on lbpe, as received (compressed or not)",
        ),
        Limit(
            "vocab_bytes",
            "LBPE_MAX_VOCAB_BYTES",
            128 * MIB,
            "bytes",
            "a vocabulary file, after gzip decompression (the largest real tokenizer.json files are ~35 MB)",
        ),
        Limit(
            "vocab_tokens",
            "LBPE_MAX_VOCAB_TOKENS",
            1 << 20,
            "tokens",
            "entries in a vocabulary file, and one more than its largest id (real vocabularies: <= 262,144)",
        ),
        Limit(
            "token_bytes",
            "LBPE_MAX_TOKEN_BYTES",
            1 * KIB,
            "bytes",
            "the longest token of a vocabulary (LBPE's time grows with it; the longest token of real "
            "vocabularies is 128 bytes)",
        ),
        Limit(
            "regex_chars",
            "LBPE_MAX_REGEX_CHARS",
            8 * KIB,
            "characters",
            "a regular expression in a vocabulary file (compiling one grows with its length; the longest "
            "pre-tokenizer pattern of real tokenizers is under 1,000 characters)",
        ),
        Limit(
            "train_bytes",
            "LBPE_MAX_TRAIN_BYTES",
            1 * GIB,
            "bytes",
            "the training corpus of lbpe train, all files together",
        ),
        Limit(
            "regex_seconds",
            "LBPE_REGEX_SECONDS",
            20,
            "seconds",
            "a regular expression from a vocabulary file, per MiB of the text it runs on, at least 0.1 MiB "
            "(DeepSeek-V3's pre-tokenizer needs about 4 s per MiB on one core)",
        ),
        Limit(
            "encode_seconds",
            "LBPE_ENCODE_SECONDS",
            10,
            "seconds",
            "the encoding of one request of a server built on lbpe (the playground's views), per MiB "
            "of its text (real vocabularies need well under 1 s per MiB)",
        ),
    )
}

#: The Gradio playground's caps (``lbpe.playground.app``), smaller than a library caller's; a server reads
#: them once, at start-up (:meth:`Limits.from_env`).
PLAYGROUND: dict[str, Limit] = {
    lim.key: lim
    for lim in (
        Limit(
            "text_chars",
            "LBPE_APP_MAX_TEXT_CHARS",
            50_000,
            "characters",
            "the Compare view (text box and .txt upload)",
            scale=1,
        ),
        Limit(
            "vocab_bytes",
            "LBPE_APP_MAX_VOCAB_MB",
            50 * MB,
            "bytes",
            "an uploaded vocabulary file, also after gunzip",
            scale=MB,
        ),
        Limit("vocab_tokens", "LBPE_APP_MAX_VOCAB_TOKENS", 500_000, "tokens", "an uploaded vocabulary", scale=1),
        Limit(
            "text_file_bytes",
            "LBPE_APP_MAX_TEXT_FILE_MB",
            20 * MB,
            "bytes",
            "a .txt file for the Compare view",
            scale=MB,
        ),
        Limit("corpus_bytes", "LBPE_APP_MAX_CORPUS_MB", 20 * MB, "bytes", "a file for the Corpus view", scale=MB),
        Limit("train_bytes", "LBPE_APP_MAX_TRAIN_MB", 10 * MB, "bytes", "the training files together", scale=MB),
        Limit(
            "train_vocab", "LBPE_APP_MAX_TRAIN_VOCAB", 50_000, "tokens", "the largest vocabulary size to train", scale=1
        ),
        Limit(
            "session_vocabs",
            "LBPE_APP_SESSION_VOCABS",
            4,
            "vocabularies",
            "uploaded/trained vocabularies kept per session (oldest dropped)",
            scale=1,
        ),
        Limit(
            "server_vocabs",
            "LBPE_APP_SERVER_VOCABS",
            24,
            "vocabularies",
            "distinct uploaded vocabularies the server holds for all its sessions together (one more is refused)",
            scale=1,
        ),
        Limit(
            "address_vocabs",
            "LBPE_APP_ADDRESS_VOCABS",
            4,
            "vocabularies",
            "distinct uploaded vocabularies held for one network address (every tab and client there together)",
            scale=1,
        ),
        Limit(
            "train_seconds",
            "LBPE_APP_TRAIN_SECONDS",
            300,
            "seconds",
            "one training in the Train view (lbpe train on the command line has no time limit)",
            scale=1,
        ),
        Limit(
            "jobs",
            "LBPE_APP_JOBS",
            4,
            "jobs",
            "Corpus, Across or Train jobs of one kind running at once (each visitor runs one of a kind)",
            scale=1,
        ),
        Limit(
            "address_jobs",
            "LBPE_APP_JOBS_PER_ADDRESS",
            2,
            "jobs",
            "Corpus, Across or Train jobs of one kind running at once from one network address "
            "(every tab and client there together)",
            scale=1,
        ),
        Limit(
            "file_ttl",
            "LBPE_APP_FILE_TTL",
            3600,
            "seconds",
            "how long downloads (and Gradio's copies of uploads) are kept",
            scale=1,
        ),
        Limit(
            "session_ttl",
            "LBPE_APP_SESSION_TTL",
            3600,
            "seconds",
            "how long a session that makes no request is kept (its vocabularies and Gradio's state)",
            scale=1,
        ),
    )
}


@dataclass(frozen=True)
class Limits:
    """The playground's limits read at one moment (a server reads them once, at start-up).

    Each field is the :data:`PLAYGROUND` limit of that name. Handed to ``lbpe.load(...,
    limits=...)`` (or :func:`using`), it also bounds what the library checks under the same
    key (``vocab_bytes``, ``vocab_tokens``, ``train_bytes``), naming its own variables.

    >>> Limits.from_env({"LBPE_APP_MAX_VOCAB_MB": "2.5"}).vocab_bytes
    2500000
    """

    text_chars: int = PLAYGROUND["text_chars"].default
    vocab_bytes: int = PLAYGROUND["vocab_bytes"].default
    vocab_tokens: int = PLAYGROUND["vocab_tokens"].default
    text_file_bytes: int = PLAYGROUND["text_file_bytes"].default
    corpus_bytes: int = PLAYGROUND["corpus_bytes"].default
    train_bytes: int = PLAYGROUND["train_bytes"].default
    train_vocab: int = PLAYGROUND["train_vocab"].default
    session_vocabs: int = PLAYGROUND["session_vocabs"].default
    server_vocabs: int = PLAYGROUND["server_vocabs"].default
    address_vocabs: int = PLAYGROUND["address_vocabs"].default
    train_seconds: int = PLAYGROUND["train_seconds"].default
    jobs: int = PLAYGROUND["jobs"].default
    address_jobs: int = PLAYGROUND["address_jobs"].default
    file_ttl: int = PLAYGROUND["file_ttl"].default
    session_ttl: int = PLAYGROUND["session_ttl"].default

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Limits:
        """Each field from its environment variable (``env``, default ``os.environ``) or its
        default; ``LbpeError`` names a variable that is not a positive number."""
        env = os.environ if env is None else env
        values = {}
        for field in fields(cls):
            lim = PLAYGROUND[field.name]
            raw = env.get(lim.env, "").strip()
            values[field.name] = int(lim.parse(raw)) if raw else lim.default
        return cls(**values)


_active: ContextVar[Limits | None] = ContextVar("lbpe_limits", default=None)


@contextlib.contextmanager
def using(limits: Limits | None) -> Iterator[None]:
    """Within the block, :func:`get` answers from ``limits`` for the keys it has (nothing
    changes for ``None``). Per thread and per asyncio task, as a ``ContextVar``."""
    token = _active.set(limits) if limits is not None else None
    try:
        yield
    finally:
        if token is not None:
            _active.reset(token)


def _record(key: str) -> tuple[Limit, int | float | None]:
    """The limit in force for ``key`` and, when a :class:`Limits` snapshot supplies it, its value."""
    active = _active.get()
    if active is not None and key in PLAYGROUND and hasattr(active, key):
        return PLAYGROUND[key], getattr(active, key)
    return LIMITS[key], None


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

    An ``int`` for sizes and counts, a ``float`` for the ``seconds`` limits. Within
    :func:`using`, the snapshot's value for the keys it has."""
    lim, value = _record(key)
    if value is not None:
        return value
    raw = os.environ.get(lim.env)
    if raw is None or not raw.strip():
        return lim.default
    return lim.parse(raw)


def amount(key: str, n: int | float) -> str:
    """``n`` in the unit of the limit in force for ``key``, as its variable counts it
    (``"1.5 MB"`` for the playground's sizes, ``"4,194,304 bytes (4.0 MiB)"`` otherwise)."""
    return _amount(n, _record(key)[0])


def _amount(n: int | float, lim: Limit) -> str:
    if lim.unit == "bytes" and lim.scale == MB:
        return f"{n / MB:g} MB"
    if lim.unit == "bytes" and n >= MIB:
        return f"{n:,} bytes ({n / MIB:.1f} MiB)"
    return f"{n:,} {lim.unit}"


def exceeded(key: str, amount: int, what: str, *, hint: str = "", at_least: bool = False) -> str | None:
    """The message for ``amount`` over limit ``key``, or ``None`` when within it.

    ``what`` starts the message (``"input.txt"``, ``"the training corpus"``); the message ends
    with the environment variable that raises the limit. ``at_least``: ``amount`` is only as
    far as was read (a pipe's size is not known up front), so no value is suggested from it.
    """
    limit = get(key)
    if not limit or amount <= limit:
        return None
    lim = _record(key)[0]
    size = f"more than {_amount(limit, lim)}" if at_least else _amount(amount, lim)
    return (
        f"{what} is {size}, over the limit of {_amount(limit, lim)} for {lim.what}; "
        + how_to_raise(key, None if at_least else amount)
        + (f"; {hint}" if hint else "")
    )


def how_to_raise(key: str, amount: int | None = None) -> str:
    """``"set LBPE_... to raise it (...)"`` for the limit in force for ``key``, with a value
    that admits ``amount`` when one is given."""
    lim = _record(key)[0]
    example = [f"e.g. {lim.env}={_suggest(amount, lim)}"] if amount is not None else []
    off = [] if lim.scale else ["0 for no limit" if not example else "or 0 for no limit"]
    return f"set {lim.env} to raise it" + (f" ({', '.join(example + off)})" if example or off else "")


def check(key: str, amount: int, what: str, *, hint: str = "", at_least: bool = False) -> None:
    """Raise :class:`LimitExceededError` if ``amount`` is over limit ``key`` (see :func:`exceeded`)."""
    message = exceeded(key, amount, what, hint=hint, at_least=at_least)
    if message is not None:
        raise LimitExceededError(message, key=key, amount=amount, limit=get(key))


def vocab_problem(count: int, max_id: int | None = None) -> str | None:
    """The message if a vocabulary of ``count`` entries with largest id ``max_id`` is over the
    ``vocab_tokens`` limit, else ``None`` (for the parsers, which add the file name)."""
    problem = exceeded("vocab_tokens", count, "the vocabulary")
    if problem is None and max_id is not None:
        problem = exceeded("vocab_tokens", max_id + 1, f"the id range (0 to {max_id})")
    return problem


def _suggest(amount: int, lim: Limit) -> str:
    if lim.scale:
        return f"{-(-amount // lim.scale):d}"
    return f"{-(-amount // MIB)}M" if lim.unit == "bytes" and amount >= MIB else str(amount)


def describe() -> list[dict[str, object]]:
    """The limits as rows (key, env, default, current value, unit, what), for docs and UIs."""
    return [
        {
            "key": lim.key,
            "env": lim.env,
            "default": lim.default,
            "value": get(lim.key),
            "unit": lim.unit,
            "what": lim.what,
        }
        for lim in LIMITS.values()
    ]
