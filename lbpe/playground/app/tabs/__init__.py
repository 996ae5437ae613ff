"""The app's views, one module per tab, each building its components and wiring its events:
:mod:`~.compare`, :mod:`~.corpus`, :mod:`~.across`, :mod:`~.train`. They share the session's
state, the vocabulary picker and the tabs (:class:`Shared`); the page around them is
:mod:`lbpe.playground.app.layout`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Shared:
    """What every tab reads or writes beyond its own components."""

    state: Any  # the session (gr.State of a lbpe.playground.service.Session)
    vocab: Any  # the vocabulary picker (gr.Dropdown)
    tabs: Any  # the tabs themselves (gr.Tabs): "Use it in Compare" selects one
    text: Any = None  # the Compare text (gr.Textbox), once the Compare tab is built
