"""How the playground's server answers every event of a session, however closely one follows
another.

Gradio answers a session's queued events on one server-sent stream (``/gradio_api/queue/data``)
and ends it with a ``close_stream`` message once none of them is pending. Its clients (the page's,
bundled with Gradio, and gradio_client) open a new stream for an event only if they have read
that close when the event's join (``/gradio_api/queue/join``) is answered. So an event joined
just after the server decided to close, whose join was answered before its client read the
close, was answered into a stream no one read: the page showed it pending, its timer counting,
until another event opened a stream; gradio_client cancelled it.

:class:`HoldCloses`, a middleware of the server's app, holds those two routes to an order in
which a client always reads the close before it learns that its next event was joined:

* the stream sends its close and then stays open until the client disconnects, which both
  clients do as soon as they read a close (:data:`CLOSE_WAIT` seconds at most);
* the answer to a session's join waits while one of the session's streams is between the two.

The event itself is queued and runs at once; only the answer to its join waits, for the time the
client takes to read a message it was already sent.

A session can also have two streams open at once (a page that reconnects while its old stream is
up). Gradio forgets the session's pending messages when the first of them is cancelled, and raises
``KeyError`` when the second one is: the middleware ends that stream quietly, with a line in the
log instead of a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["CLOSE_WAIT", "QUEUE_DATA", "QUEUE_JOIN", "Closes", "HoldCloses"]

log = logging.getLogger("lbpe.playground.app")

#: The routes of Gradio's queue: a session's stream of answers, and the join of one event.
QUEUE_DATA = "/gradio_api/queue/data"
QUEUE_JOIN = "/gradio_api/queue/join"

#: Seconds a stream that sent its close waits for its client to disconnect (a client that keeps
#: reading gets the end of the response then), and so the longest a join's answer waits. A
#: proxy that does not pass a client's disconnect on makes every such wait this long (logged).
CLOSE_WAIT = 10.0

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class Closes:
    """The sessions whose stream has sent its close and whose client has not yet gone."""

    def __init__(self) -> None:
        self._closing: dict[str, int] = {}
        self._gone: dict[str, asyncio.Event] = {}

    def begin(self, session: str) -> None:
        """A stream of ``session`` sent its close (synchronous: nothing runs in between)."""
        if session not in self._gone:
            self._gone[session] = asyncio.Event()
        self._closing[session] = self._closing.get(session, 0) + 1

    def end(self, session: str) -> None:
        """That stream's client has gone (or the wait is over)."""
        left = self._closing.get(session, 0) - 1
        if left > 0:
            self._closing[session] = left
            return
        self._closing.pop(session, None)
        gone = self._gone.pop(session, None)
        if gone is not None:
            gone.set()

    def closing(self, session: str) -> bool:
        return session in self._closing

    def __bool__(self) -> bool:
        """Whether any session is closing."""
        return bool(self._closing)

    async def settled(self, session: str, timeout: float = CLOSE_WAIT) -> None:
        """Return once no stream of ``session`` is between its close and its client's going."""
        gone = self._gone.get(session)
        if gone is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(gone.wait(), timeout)


def _is_close(body: bytes) -> bool:
    """Whether a chunk of the stream is the message ``close_stream``."""
    if b"close_stream" not in body or not body.startswith(b"data:"):
        return False
    try:
        message = json.loads(body[5:])
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("msg") == "close_stream"


def _query_value(scope: Scope, name: str) -> str | None:
    """A value of the request's query, as sent (Gradio's clients send session hashes of letters
    and digits, which need no decoding; a hash that did would only go unmatched, and unheld)."""
    for part in scope.get("query_string", b"").decode("latin-1").split("&"):
        key, _, value = part.partition("=")
        if key == name:
            return value
    return None


def _session_of(body: bytes) -> str | None:
    try:
        value = json.loads(body).get("session_hash")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def _after_cancel(error: BaseException) -> bool:
    """Whether ``error`` was raised while a cancellation was handled (its cause or context)."""
    link: BaseException | None = error
    for _ in range(8):
        if link is None:
            return False
        if isinstance(link, asyncio.CancelledError):
            return True
        link = link.__cause__ or link.__context__
    return False


async def _until_disconnect(receive: Receive, timeout: float) -> bool:
    """Whether the client disconnected within ``timeout`` seconds."""

    async def wait() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    try:
        await asyncio.wait_for(wait(), timeout)
    except asyncio.TimeoutError:
        return False
    return True


class HoldCloses:
    """The server app's middleware for its queue routes (:data:`QUEUE_DATA`, :data:`QUEUE_JOIN`),
    as this module says; every other request passes straight through.

    >>> from starlette.middleware import Middleware
    >>> app_kwargs = {"middleware": [Middleware(HoldCloses)]}  # for gr.Blocks.launch(app_kwargs=...)
    """

    def __init__(self, app: ASGIApp, *, wait: float = CLOSE_WAIT) -> None:
        self.app = app
        self.wait = wait
        self.closes = Closes()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "http":
            path, method = scope.get("path", ""), scope.get("method")
            if method == "GET" and path.endswith(QUEUE_DATA):
                return await self._stream(scope, receive, send)
            if method == "POST" and path.endswith(QUEUE_JOIN):
                return await self._join(scope, receive, send)
        await self.app(scope, receive, send)

    async def _stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Gradio's stream, kept open after its close until the client goes."""
        session = _query_value(scope, "session_hash")
        closed = False

        async def forward(message: Message) -> None:
            nonlocal closed
            if message.get("type") == "http.response.body" and session is not None:
                if not closed and _is_close(bytes(message.get("body", b""))):
                    closed = True
                    self.closes.begin(session)  # before the send's first await: no join slips in between
                elif closed and not message.get("more_body", False):
                    return  # the end of the response: sent once the client has gone, or later
            await send(message)

        try:
            try:
                await self.app(scope, receive, forward)
            except KeyError as error:
                # Gradio forgets a session's pending messages when one of its streams is
                # cancelled (its client went), and raises this when a second stream of the
                # session is cancelled too: nothing is left to clean up, and no one to answer.
                if session is None or error.args != (session,) or not _after_cancel(error):
                    raise
                log.info("a second queue stream of a session ended with its client")
                return
            if closed and not await _until_disconnect(receive, self.wait):
                log.warning(
                    "a queue stream's client did not disconnect within %g s of its close "
                    "(a proxy that does not pass disconnects on?): its next event waited that long",
                    self.wait,
                )
                with contextlib.suppress(OSError):
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            if closed and session is not None:
                self.closes.end(session)

    async def _join(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Gradio's join, whose answer waits while the session's stream is closing."""
        body = bytearray()

        async def read() -> Message:
            message = await receive()
            if message.get("type") == "http.request":
                body.extend(message.get("body", b""))
            return message

        async def answer(message: Message) -> None:
            if message.get("type") == "http.response.start" and message.get("status") == 200 and self.closes:
                session = _session_of(bytes(body))
                if session is not None and self.closes.closing(session):
                    await self.closes.settled(session, self.wait)
            await send(message)

        await self.app(scope, read, answer)
