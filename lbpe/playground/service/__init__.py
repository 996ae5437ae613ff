"""The service layer: what every front end (the Gradio app, the browser page, the CLI) does
the same way, so each of them only turns its input into calls here and the results into its
own widgets or text.

* :mod:`lbpe.playground.service.files`: uploads opened under one set of limits with one kind of error
  (:func:`open_upload`, :func:`open_vocabulary`, :func:`read_upload`, :func:`text_head`) and
  downloads (:class:`Downloads`);
* :mod:`lbpe.playground.service.session`: one visitor's vocabularies, Stop button and running jobs (:class:`Session`);
* each view as one function returning one JSON-able dict (a ``TypedDict``: ``CompareView``, ``CorpusView``, ...;
  JSON-able but for TrainView's Vocab; figures are plain Plotly figure dicts), the schema the app, the page and
  the CLI read: :mod:`lbpe.playground.service.compare` (:func:`compare_view`), :mod:`lbpe.playground.service.corpus`
  (:func:`corpus_view`, :func:`stats_view`, :func:`across_view`, :func:`methods_view`: the methods axis),
  :mod:`lbpe.playground.service.explain`
  (:func:`explain_view`, :func:`explain_target`) and :mod:`lbpe.playground.service.train` (:func:`train_view`,
  which a server gives a time limit: ``seconds``), with what they share in :mod:`lbpe.playground.service.shared`;
* :mod:`lbpe.playground.service.links`: a view's state in a link's query (:func:`link_state`).

The Compare, Corpus, Across and Explain views encode under a time budget
(:class:`lbpe.budget.time_budget`, ``LBPE_ENCODE_SECONDS`` per MiB of their text), so a request
with a hostile vocabulary stops with a message instead of holding the server.

The Gradio app hands each dict's parts to its components, the browser page returns the dicts to
its worker's caller, and the CLI prints them. Messages meant for a person (``"status"``) are
markdown, with the vocabulary's name in bold.

Standard library only (Pyodide runs it too).
"""

from lbpe.playground.service.compare import CompareView, compare_view
from lbpe.playground.service.corpus import (
    DEFAULT_DROPOUT,
    AcrossView,
    CorpusView,
    MethodsView,
    StatsView,
    across_view,
    corpus_view,
    methods_view,
    stats_view,
)
from lbpe.playground.service.explain import NOTHING_TO_EXPLAIN, ExplainTarget, ExplainView, explain_target, explain_view
from lbpe.playground.service.files import (
    AUTO_PATTERN,
    GPT2_PAIR,
    Downloads,
    SharedUploads,
    Uploads,
    check_upload_sizes,
    open_upload,
    open_vocabulary,
    read_upload,
    text_head,
    upload_fingerprint,
    upload_size,
    without_folder,
)
from lbpe.playground.service.links import MAX_LINK_TEXT, VIEWS, link_state
from lbpe.playground.service.session import Busy, Session, Stopped, describe
from lbpe.playground.service.shared import CORPUS_CHUNK_BYTES, file_stem
from lbpe.playground.service.train import TrainTimeError, TrainView, check_train_options, scaffold_note, train_view

__all__ = [
    "AcrossView",
    "CompareView",
    "CorpusView",
    "MethodsView",
    "ExplainTarget",
    "ExplainView",
    "StatsView",
    "TrainView",
    "AUTO_PATTERN",
    "GPT2_PAIR",
    "Downloads",
    "Uploads",
    "open_upload",
    "open_vocabulary",
    "read_upload",
    "without_folder",
    "text_head",
    "check_upload_sizes",
    "SharedUploads",
    "upload_fingerprint",
    "upload_size",
    "MAX_LINK_TEXT",
    "VIEWS",
    "link_state",
    "Busy",
    "Session",
    "Stopped",
    "describe",
    "CORPUS_CHUNK_BYTES",
    "across_view",
    "methods_view",
    "DEFAULT_DROPOUT",
    "check_train_options",
    "scaffold_note",
    "compare_view",
    "corpus_view",
    "stats_view",
    "NOTHING_TO_EXPLAIN",
    "explain_target",
    "explain_view",
    "file_stem",
    "train_view",
    "TrainTimeError",
]
