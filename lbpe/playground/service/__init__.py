"""The service layer: what every front end (the Gradio app, the browser page, the CLI) does
the same way, so each of them only turns its input into calls here and the results into its
own widgets or text.

* :mod:`lbpe.playground.service.files`: uploads opened under one set of limits with one kind of error
  (:func:`open_upload`, :func:`open_vocabulary`, :func:`read_upload`, :func:`text_head`) and
  downloads (:class:`Downloads`);
* :mod:`lbpe.playground.service.session`: one visitor's vocabularies, Stop button and running jobs (:class:`Session`);
* :mod:`lbpe.playground.service.views`: each view as one function returning one JSON-able dict (a
  ``TypedDict``: ``CompareView``, ``CorpusView``, ...)
  (:func:`compare_view`, :func:`corpus_view`, :func:`stats_view`, :func:`across_view`, :func:`explain_view`,
  :func:`explain_target`, :func:`train_view`);
* :mod:`lbpe.playground.service.links`: a view's state in a link's query (:func:`link_state`).

Standard library only (Pyodide runs it too).
"""

from lbpe.playground.service.files import (
    AUTO_PATTERN,
    GPT2_PAIR,
    Downloads,
    Uploads,
    open_upload,
    open_vocabulary,
    read_upload,
    text_head,
    upload_size,
)
from lbpe.playground.service.links import MAX_LINK_TEXT, VIEWS, link_state
from lbpe.playground.service.session import Busy, Session, Stopped, describe
from lbpe.playground.service.views import (
    CORPUS_CHUNK_BYTES,
    AcrossView,
    CompareView,
    CorpusView,
    ExplainTarget,
    ExplainView,
    StatsView,
    TrainTimeError,
    TrainView,
    across_view,
    check_train_options,
    compare_view,
    corpus_view,
    explain_target,
    explain_view,
    file_stem,
    stats_view,
    train_view,
)

__all__ = [
    "AcrossView",
    "CompareView",
    "CorpusView",
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
    "text_head",
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
    "check_train_options",
    "compare_view",
    "corpus_view",
    "stats_view",
    "explain_target",
    "explain_view",
    "file_stem",
    "train_view",
    "TrainTimeError",
]
