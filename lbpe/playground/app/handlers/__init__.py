"""The playground's Gradio handlers: each turns its components' values into one call of
:mod:`lbpe.playground.service` (which the browser page and the CLI share) and the result into component
updates, and says what went wrong as a ``gr.Error`` (never a traceback). Every handler is
reachable through ``gradio_client`` under the ``api_name`` :mod:`lbpe.playground.app.layout` gives it, and
callable without a server (the tests call them directly). The shared machinery is in
:mod:`~lbpe.playground.app.handlers.common`, each view's handlers beside it (``compare_tab``,
``corpus_tab``, ``train_tab``, ``links``); this package re-exports them all.

The limits are :data:`lbpe.limits.PLAYGROUND`'s (``LBPE_APP_*``), read once at start-up into
:data:`LIMITS`; downloads go to a private folder swept after ``LBPE_APP_FILE_TTL``, uploads are
deleted once no session can need them (:class:`lbpe.playground.service.Uploads`), both on a timer and when
the server stops (:func:`sweep_files`). Messages shown to visitors never name the server's
variables (the server's log does). The long jobs (Corpus, Across, Train) run one of a kind per
session, Train within ``LBPE_APP_TRAIN_SECONDS``, and each stops at its next progress step
when its client has gone away.
"""

from __future__ import annotations

from lbpe.playground.app.handlers.common import (
    KEPT_NOTE,
    LIMITS,
    PATTERN_CHOICES,
    PATTERN_LABEL,
    TRUSTED_PROXIES,
    UPLOAD_LIMITS,
    UPLOAD_TYPES,
    ClientGone,
    _mb,  # noqa: F401  (the tabs' layouts use it)
    client_address,
    client_gone,
    describe_vocab,
    failure_note,
    for_visitors,
    get_tokenizer,
    input_error,
    new_session,
    refused_note,
    remove_served_files,
    stop,
    sweep_files,
    upload_note,
    upload_vocab,
    vocab_choices,
)
from lbpe.playground.app.handlers.compare_tab import (
    DEFAULT_EXPLAIN,
    DEFAULT_TEXT,
    PAUSE,
    PLAY,
    compare,
    compare_key,
    compare_on_page,
    decode_ids,
    explain,
    explain_click,
    explain_frame,
    explain_move,
    explain_on_page,
    ids_text,
    load_text,
    pair_controls,
    play_start,
    play_step,
    play_tick,
    play_toggle,
    shown_key,
)
from lbpe.playground.app.handlers.corpus_tab import (
    AXIS_CHOICES,
    SAMPLE_NAME,
    STATS_HEADERS,
    across,
    across_methods,
    axis_controls,
    corpus,
    corpus_methods,
    corpus_sample,
    corpus_sample_methods,
)
from lbpe.playground.app.handlers.links import _link_note, restore, restore_dropout  # noqa: F401  (the layout uses _link_note)
from lbpe.playground.app.handlers.train_tab import (
    CHOOSE_FILES,
    GPT2_UNITS,
    files_note,
    style_units,
    train,
    use_trained,
)

__all__ = [
    "DEFAULT_EXPLAIN",
    "DEFAULT_TEXT",
    "LIMITS",
    "TRUSTED_PROXIES",
    "UPLOAD_LIMITS",
    "UPLOAD_TYPES",
    "PATTERN_CHOICES",
    "PATTERN_LABEL",
    "PAUSE",
    "PLAY",
    "SAMPLE_NAME",
    "STATS_HEADERS",
    "AXIS_CHOICES",
    "CHOOSE_FILES",
    "across",
    "across_methods",
    "axis_controls",
    "compare",
    "compare_key",
    "compare_on_page",
    "corpus",
    "corpus_sample",
    "corpus_methods",
    "corpus_sample_methods",
    "decode_ids",
    "describe_vocab",
    "explain",
    "explain_click",
    "explain_frame",
    "explain_move",
    "explain_on_page",
    "failure_note",
    "KEPT_NOTE",
    "files_note",
    "get_tokenizer",
    "ids_text",
    "pair_controls",
    "load_text",
    "new_session",
    "refused_note",
    "play_start",
    "input_error",
    "sweep_files",
    "remove_served_files",
    "for_visitors",
    "client_address",
    "client_gone",
    "ClientGone",
    "play_step",
    "play_tick",
    "play_toggle",
    "restore",
    "restore_dropout",
    "shown_key",
    "stop",
    "train",
    "upload_note",
    "upload_vocab",
    "GPT2_UNITS",
    "style_units",
    "use_trained",
    "vocab_choices",
]
