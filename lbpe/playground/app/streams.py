"""How the playground's server answers every event of a session on the stream its client reads.

Gradio answers a session's queued events on one server-sent stream (``/gradio_api/queue/data``)
and ends it with a ``close_stream`` message once none of them is pending. Its clients (the page's,
bundled with Gradio, and gradio_client) read one stream at a time, and open a new one for an event
only if they have read that close when the event's join (``/gradio_api/queue/join``) is answered.
Left alone, Gradio lost events in two ways:

* An event joined just after the server decided to close, whose join was answered before its
  client read the close, was answered into a stream no one read.
* The server can receive one stream request twice: a browser sends a request again on a new
  connection when the connection it had reused for it seemed closed, and the first copy may
  still arrive, to be answered where nobody reads. Gradio runs a stream per request, each taking
  messages from the session's one queue, so an answer could go to the copy nobody read; the page
  then also held back every later event of that view, waiting for it.

:class:`SessionStreams`, a middleware of the server's app, keeps both from happening:

* It runs one Gradio stream per session, apart from the connections that asked for it, and sends
  each of its messages to every open connection of the session: whichever one the client reads
  has them all. A connection that comes while the stream runs is first sent what it sent before.
* Gradio's stream never sees a connection go (one copy going would make Gradio drop the
  session's messages and events): once no connection of the session has been open for
  :data:`GONE_WAIT` seconds, the stream is cancelled, and Gradio cleans up as for a client that
  went.
* A connection that was sent the close stays open until its client disconnects, which both
  clients do as soon as they read it (:data:`CLOSE_WAIT` seconds at most), and the answer to the
  session's next join waits until then. The event itself is queued and runs at once; only the
  answer to its join waits, for the time the client takes to read a message it was already sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["CLOSE_WAIT", "GONE_WAIT", "QUEUE_DATA", "QUEUE_JOIN", "SessionStreams"]

log = logging.getLogger("lbpe.playground.app")

#: The routes of Gradio's queue: a session's stream of answers, and the join of one event.
QUEUE_DATA = "/gradio_api/queue/data"
QUEUE_JOIN = "/gradio_api/queue/join"

#: Seconds a connection that was sent the close waits for its client to disconnect (a client that
#: keeps reading gets the end of the response then), and so the longest a join's answer waits. A
#: proxy that does not pass a client's disconnect on makes every such wait this long (logged).
CLOSE_WAIT = 10.0

#: Seconds a session's stream runs on with none of its connections open before it is cancelled.
GONE_WAIT = 10.0

#: Bytes of a stream's messages kept to send to a connection that comes while it runs; of a
#: stream that sends more (a long event streaming large outputs), a connection that comes late
#: misses those after them (logged). Connections come late by moments, not by megabytes.
REPLAY_LIMIT = 16 << 20

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Put in a connection's outbox when its client disconnects.
_GONE: Message = {"type": "lbpe.gone"}
_END: Message = {"type": "http.response.body", "body": b"", "more_body": False}


def _is_end(message: Message) -> bool:
    return message.get("type") == "http.response.body" and not message.get("more_body", False)


def _is_close(body: bytes) -> bool:
    """Whether a chunk of the stream is the message ``close_stream``."""
    if b"close_stream" not in body or not body.startswith(b"data:"):
        return False
    try:
        message = json.loads(body[5:])
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("msg") == "close_stream"


def _is_heartbeat(body: bytes) -> bool:
    return b'"heartbeat"' in body and len(body) < 64


def _query_value(scope: Scope, name: str) -> str | None:
    """A value of the request's query, as sent (Gradio's clients send session hashes of letters
    and digits, which need no decoding; a hash that did would only go unmatched)."""
    for part in scope.get("query_string", b"").decode("latin-1").split("&"):
        key, _, value = part.partition("=")
        if key == name:
            return value
    return None


def _http_status(error: BaseException) -> int | None:
    """The status of the HTTP error ``error`` was raised for (Starlette raises another when a
    handler's error comes after its response started), if it was."""
    link: BaseException | None = error
    for _ in range(4):
        if link is None:
            return None
        status = getattr(link, "status_code", None)
        if isinstance(status, int):
            return status
        link = link.__cause__ or link.__context__
    return None


def _session_of(body: bytes) -> str | None:
    try:
        value = json.loads(body).get("session_hash")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


class _Connection:
    """One stream request's connection: what is to be sent on it, in order."""

    def __init__(self) -> None:
        self.outbox: asyncio.Queue[Message] = asyncio.Queue()


class _Run:
    """One run of Gradio's stream for a session, and what it has sent."""

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self.start: Message | None = None
        self.sent: list[Message] = []
        self.sent_bytes = 0
        self.closed = False
        self.ended = False
        self.connections: set[_Connection] = set()

    def keep(self, message: Message) -> None:
        body = bytes(message.get("body", b""))
        if _is_heartbeat(body):
            return
        if self.sent_bytes > REPLAY_LIMIT and not (b'"process_completed"' in body or _is_close(body)):
            return  # past the limit, only what ends an event or the stream is kept
        self.sent.append(message)
        before, self.sent_bytes = self.sent_bytes, self.sent_bytes + len(body)
        if before <= REPLAY_LIMIT < self.sent_bytes:
            log.warning("a queue stream sent over %d bytes: a connection that comes later misses some", REPLAY_LIMIT)


class _Session:
    """A session's stream runs, its open connections, and those that were sent its close."""

    def __init__(self) -> None:
        self.run: _Run | None = None
        #: The run whose close is being read, kept to be sent again to its request come again.
        self.last: _Run | None = None
        self.connections: set[_Connection] = set()
        self.closing: set[_Connection] = set()
        self.settled = asyncio.Event()
        self.settled.set()
        self.idle: asyncio.TimerHandle | None = None
        self.expire: asyncio.TimerHandle | None = None

    def settle(self) -> None:
        """The client read the close (or the wait is over): end the rest of its connections."""
        if self.expire is not None:
            self.expire.cancel()
            self.expire = None
        for connection in self.closing:
            connection.outbox.put_nowait(_END)
        self.closing.clear()
        self.last = None
        self.settled.set()

    def unused(self) -> bool:
        return self.run is None and self.last is None and not self.connections and not self.closing


class SessionStreams:
    """The server app's middleware for its queue routes (:data:`QUEUE_DATA`, :data:`QUEUE_JOIN`),
    as this module says; every other request passes straight through.

    >>> from starlette.middleware import Middleware
    >>> app_kwargs = {"middleware": [Middleware(SessionStreams)]}  # for gr.Blocks.launch(app_kwargs=...)
    """

    def __init__(self, app: ASGIApp, *, wait: float = CLOSE_WAIT, gone_wait: float = GONE_WAIT) -> None:
        self.app = app
        self.wait = wait
        self.gone_wait = gone_wait
        self.sessions: dict[str, _Session] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "http":
            path, method = scope.get("path", ""), scope.get("method")
            if method == "GET" and path.endswith(QUEUE_DATA):
                name = _query_value(scope, "session_hash")
                if name:
                    return await self._connect(name, scope, receive, send)
            if method == "POST" and path.endswith(QUEUE_JOIN):
                return await self._join(scope, receive, send)
        await self.app(scope, receive, send)

    # -- a stream request's connection -------------------------------------------------------

    async def _connect(self, name: str, scope: Scope, receive: Receive, send: Send) -> None:
        """Send a connection what the session's stream sends, until its response ends or its
        client goes."""
        session = self.sessions.setdefault(name, _Session())
        if session.idle is not None:
            session.idle.cancel()
            session.idle = None
        connection = _Connection()
        session.connections.add(connection)
        run = session.last
        if run is not None and not session.settled.is_set():
            # No connection that was sent the last run's close has gone: its client has not
            # read it, so this is its request come again. It is sent what that run sent.
            session.closing.add(connection)
            self._replay(run, connection)
        else:
            session.settle()  # a client asks for a stream once it has read the last one's close
            run = session.run
            if run is None or run.closed or run.ended:
                run = session.run = _Run()
                run.connections.add(connection)
                run.task = asyncio.create_task(self._host(name, session, run, dict(scope)))
            else:
                run.connections.add(connection)
                self._replay(run, connection)

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            connection.outbox.put_nowait(_GONE)

        watcher = asyncio.create_task(watch())
        try:
            while True:
                message = await connection.outbox.get()
                if message is _GONE:
                    break
                try:
                    await send(message)
                except OSError:
                    break
                if _is_end(message):
                    break
        finally:
            watcher.cancel()
            self._leave(name, session, run, connection)

    @staticmethod
    def _replay(run: _Run, connection: _Connection) -> None:
        if run.start is not None:
            connection.outbox.put_nowait(run.start)
        for message in run.sent:
            connection.outbox.put_nowait(message)

    def _leave(self, name: str, session: _Session, run: _Run, connection: _Connection) -> None:
        session.connections.discard(connection)
        run.connections.discard(connection)
        if connection in session.closing:
            session.closing.discard(connection)
            session.settle()  # its client read the close and went
        if not session.connections and session.run is run and not (run.closed or run.ended):
            if session.idle is not None:
                session.idle.cancel()
            session.idle = asyncio.get_running_loop().call_later(self.gone_wait, self._abandon, name, session, run)
        if session.unused() and self.sessions.get(name) is session:
            del self.sessions[name]

    def _abandon(self, name: str, session: _Session, run: _Run) -> None:
        """No connection of the session came back: cancel its stream, so Gradio drops its
        events as for a client that went."""
        session.idle = None
        if session.run is run and not session.connections and run.task is not None:
            run.task.cancel()

    # -- Gradio's stream, one per session ---------------------------------------------------

    async def _host(self, name: str, session: _Session, run: _Run, scope: Scope) -> None:
        """Run Gradio's stream for ``session``, on a connection of its own that never goes."""
        request: list[Message] = [{"type": "http.request", "body": b"", "more_body": False}]
        forever = asyncio.Event()

        async def receive() -> Message:
            if request:
                return request.pop()
            await forever.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            if message.get("type") == "http.response.start":
                run.start = message
                for connection in run.connections:
                    connection.outbox.put_nowait(message)
                return
            if message.get("type") != "http.response.body":
                return
            if _is_end(message):
                run.ended = True
                if not run.closed:
                    for connection in run.connections:
                        connection.outbox.put_nowait(message)
                return
            if run.closed:
                return
            body = bytes(message.get("body", b""))
            for connection in run.connections:
                connection.outbox.put_nowait(message)
            run.keep(message)
            if _is_close(body):
                # Every connection sent the close waits for its client to go; so does the
                # answer to the session's next join, from now (nothing runs in between).
                # (When no connection is open, the one to come is sent it.)
                run.closed = True
                session.closing.update(run.connections)
                session.last = run
                session.settled.clear()
                session.expire = asyncio.get_running_loop().call_later(self.wait, self._expire, name, session)

        try:
            await self.app(scope, receive, send)
        except asyncio.CancelledError:
            log.info("a queue stream was cancelled (no connection of its session was left, or the server stopped)")
        except KeyError as error:
            # Gradio forgets a session's pending messages when its stream is cancelled, and
            # raises this when they were already gone.
            if error.args != (name,):
                log.exception("a queue stream failed")
        except Exception as error:
            status = _http_status(error)
            if status is None:
                log.exception("a queue stream failed")
            else:  # Gradio's answer for a session its queue does not know, sent on the stream
                log.info("a queue stream ended with HTTP status %d", status)
        finally:
            if not run.ended:
                run.ended = True
                for connection in run.connections:
                    if run.start is None:
                        connection.outbox.put_nowait({"type": "http.response.start", "status": 500, "headers": []})
                    connection.outbox.put_nowait(_END)
            if session.last is not run:
                run.sent.clear()
            if session.run is run:
                session.run = None
            if session.unused() and self.sessions.get(name) is session:
                del self.sessions[name]

    # -- a join ------------------------------------------------------------------------------

    async def _join(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Gradio's join, whose answer waits while the session's close is being read."""
        body = bytearray()

        async def read() -> Message:
            message = await receive()
            if message.get("type") == "http.request":
                body.extend(message.get("body", b""))
            return message

        async def answer(message: Message) -> None:
            if message.get("type") == "http.response.start" and message.get("status") == 200:
                name = _session_of(bytes(body))
                session = self.sessions.get(name) if name is not None else None
                if session is not None and not session.settled.is_set():
                    await self._settled(session)
            await send(message)

        await self.app(scope, read, answer)

    async def _settled(self, session: _Session) -> None:
        # _expire settles the session after the wait; this bound only guards against a lost timer
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(session.settled.wait(), 2 * self.wait)
        session.settle()

    def _expire(self, name: str, session: _Session) -> None:
        """A close was sent :data:`CLOSE_WAIT` seconds ago and no client that was sent it went."""
        session.expire = None
        if session.closing:
            log.warning(
                "a queue stream's client did not disconnect within %g s of its close "
                "(a proxy that does not pass disconnects on?): an event joined meanwhile waited that long",
                self.wait,
            )
        session.settle()
        if session.unused() and self.sessions.get(name) is session:
            del self.sessions[name]

    def closing(self) -> bool:
        """Whether any session's close is being read."""
        return any(session.closing for session in self.sessions.values())
