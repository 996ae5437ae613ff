"""How the playground server gives memory back: small per-session state, idle sessions
forgotten, freed memory returned to the system.

Gradio keeps one state per session (per browser tab or ``gradio_client.Client``) for as many
as 10,000 sessions and drops none for being idle. Two parts of it grow with use:

* a copy of every value an event read or wrote (Compare's panes: megabytes for a long text),
  kept for Gradio's deep links, which this app does not offer (their route is closed:
  :func:`close_routes`). :class:`SessionBlocks` drops
  those copies after each step of an event, so a session's state holds only what the app
  needs: its :class:`lbpe.playground.service.Session` and the components an event changed for it (the
  vocabulary picker with the session's uploads);
* the sessions themselves: :func:`sweep` forgets every session that made no request for
  ``LBPE_APP_SESSION_TTL`` seconds (its ``gr.State`` values go through their delete callbacks
  first, as when Gradio expires them), and :func:`lifespan` runs it on the server's event loop,
  beside Gradio's own expiry of ``gr.State`` values.

:func:`release_memory` collects the garbage (cycles that hold large pane texts) once the
server has been quiet for a few seconds after requests, and after forgetting sessions. (glibc's
``malloc_trim`` would give back a further ~17 MB after a 500-compare load; calling it needs
``ctypes``, which the package does not import: tests/robustness/test_security.py.)
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import gc
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import gradio as gr

__all__ = ["CLOSED_ROUTES", "SessionBlocks", "close_routes", "forget_values", "lifespan", "release_memory", "sweep"]

log = logging.getLogger("lbpe.playground.app")

#: Seconds without a request after which the server gives freed memory back.
QUIET_SECONDS = 5.0


def _touch(state: Any) -> None:
    """Note on a session's state that it is in use now (Gradio notes only when a request
    starts, and a long one would look idle)."""
    if state is not None:
        state.lbpe_used = datetime.datetime.now()


def forget_values(state: Any) -> None:
    """Drop the copies of component values that Gradio keeps in a session's state (only its
    deep links read them); the components an event changed for the session stay."""
    values = getattr(state, "config_values", None)
    if isinstance(values, dict):
        values.clear()


def _session_values(block_fn: Any, state: Any) -> list[Any]:
    """The values the session holds for an event's stateful inputs (its ``gr.State``)."""
    if state is None:
        return []
    return [state.get(block._id) for block in block_fn.inputs if getattr(block, "stateful", False)]


class SessionBlocks(gr.Blocks):
    """``gr.Blocks`` that keeps no copy of the values its events read or wrote in the session
    state (:func:`forget_values`), notes when the last event step ended (``last_step``,
    ``time.monotonic()``; 0 before any), and, given ``input_error``, raises what it makes of
    an input that Gradio itself refused before the event's function ran (instead of Gradio's
    traceback on the console and, for most, no reason in the page); it is called with the
    exception, the event (``block_fn``) and the values of the event's ``gr.State`` inputs."""

    last_step = 0.0

    def __init__(self, *args: Any, input_error: Callable[..., Exception] | None = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.input_error = input_error

    async def preprocess_data(self, block_fn: Any, inputs: Any, state: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            if self.input_error is not None and len(inputs) != len(block_fn.inputs):
                # Gradio fills in the session's own values (gr.State) when a call gives the
                # others; a call that gave another number of values was misread or refused
                # with a list of component objects
                takes = sum(not getattr(block, "stateful", False) for block in block_fn.inputs)
                raise self.input_error(
                    gr.Error(
                        f"This endpoint takes {takes} values, in the order /gradio_api/info lists them; "
                        f"the call gave {len(inputs)}."
                    )
                )
            return await super().preprocess_data(block_fn, inputs, state, *args, **kwargs)
        except Exception as exc:
            if self.input_error is None:
                raise
            raise self.input_error(
                exc, block_fn=block_fn, sessions=_session_values(block_fn, state), values=inputs
            ) from None
        finally:
            forget_values(state)
            _touch(state)

    async def postprocess_data(self, block_fn: Any, predictions: Any, state: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().postprocess_data(block_fn, predictions, state, *args, **kwargs)
        finally:
            forget_values(state)
            _touch(state)
            self.last_step = time.monotonic()


#: Gradio routes this app does not serve. ``/gradio_api/deep_link`` writes the component values
#: of any session it is named to a new file on disk (the page at ``?deep_link=`` shows them
#: again): the app's links carry their state in the address, and it keeps no values to link to.
CLOSED_ROUTES = frozenset({"/gradio_api/deep_link"})


def close_routes(app: Any, paths: frozenset[str] = CLOSED_ROUTES) -> int:
    """Remove the routes at ``paths`` from the server's app (a request for one is then answered
    404); returns how many were removed."""
    router = getattr(app, "router", None)
    routes = getattr(router, "routes", None)
    if not isinstance(routes, list):
        return 0
    kept = [route for route in routes if getattr(route, "path", None) not in paths]
    removed = len(routes) - len(kept)
    routes[:] = kept
    return removed


def sweep(holder: Any, *, ttl: float, now: datetime.datetime | None = None) -> int:
    """Forget every session of Gradio's state holder ``holder`` whose last request started
    and last event step ended more than ``ttl`` seconds before ``now``; returns how many were
    forgotten."""
    cutoff = (now or datetime.datetime.now()) - datetime.timedelta(seconds=ttl)
    last_used = getattr(holder, "time_last_used", None)
    sessions = getattr(holder, "session_data", None)
    if not isinstance(last_used, dict) or sessions is None:
        return 0
    stale = [
        sid
        for sid, when in list(last_used.items())
        if max(when, getattr(sessions.get(sid), "lbpe_used", when)) < cutoff
    ]
    for sid in stale:
        try:
            holder.delete_state(sid)  # the delete callbacks of its gr.State values
        except Exception:  # a callback's failure must not keep the session
            log.exception("deleting the state of an expired session failed")
        with holder.lock:
            sessions.pop(sid, None)
            last_used.pop(sid, None)
    return len(stale)


def release_memory() -> None:
    """Collect garbage, so that what the forgotten sessions and finished requests held is freed."""
    gc.collect()


def lifespan(
    demo: Any, *, ttl: float, every: float | None = None, inner: Callable[[Any], Any] | None = None
) -> Callable[[Any], Any]:
    """A lifespan for the server's app (``launch(app_kwargs={"lifespan": ...})``): it closes
    the :data:`CLOSED_ROUTES` before the first request, and while it serves, every ``every``
    seconds (default: a quarter of ``ttl``, at most 30 s) it forgets the sessions idle for
    ``ttl`` seconds (:func:`sweep`) and releases memory (:func:`release_memory`) after that
    or once requests have stopped for :data:`QUIET_SECONDS`. ``inner``: a lifespan of the
    caller's, run inside this one (a caller's own does not replace it)."""
    period = every if every is not None else min(max(ttl / 4, 0.5), 30.0)

    async def upkeep() -> None:
        released = 0.0
        while True:
            await asyncio.sleep(period)
            try:
                holder = getattr(demo, "state_holder", None)
                forgotten = sweep(holder, ttl=ttl) if holder is not None else 0
                if forgotten:
                    log.info("forgot %d session(s) idle for over %g s", forgotten, ttl)
                last = getattr(demo, "last_step", 0.0)
                quiet = last > released and time.monotonic() - last >= QUIET_SECONDS
                if forgotten or quiet:
                    await asyncio.to_thread(release_memory)
                    released = time.monotonic()
            except Exception:  # the server goes on serving; the log says what failed
                log.exception("the playground's memory upkeep failed")

    @contextlib.asynccontextmanager
    async def span(app: Any) -> AsyncIterator[None]:
        close_routes(app)
        task = asyncio.create_task(upkeep())
        try:
            if inner is None:
                yield
            else:
                async with inner(app):
                    yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    return span
