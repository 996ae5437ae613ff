"""The playground's queue-stream middleware (:class:`lbpe.playground.app.streams.HoldCloses`) on
its own, in front of a stand-in for Gradio's two queue routes, speaking ASGI: a stream that sent
its close stays open until its client goes, and the answer to the session's next join waits for
that (the real server: tests/robustness/test_queue_stream.py)."""

from __future__ import annotations

import asyncio
import json

from lbpe.playground.app.streams import HoldCloses

CLOSE = b'data: {"msg":"close_stream"}\n\n'
ANSWER = b'data: {"msg":"process_completed","event_id":"a","success":true}\n\n'


async def gradio(scope, receive, send):
    """Gradio's queue routes, as far as the middleware sees them: the stream sends the messages
    named in its query (``close``: an answer, then the close), the join answers an event id."""
    if scope["method"] == "GET":
        await send({"type": "http.response.start", "status": 200, "headers": []})
        chunks = [ANSWER, CLOSE] if b"close" in scope["query_string"] else [ANSWER]
        for chunk in chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
    else:  # the whole request is read before the answer starts
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b'{"event_id": "b"}', "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def stream(session: str, *, close: bool = True) -> dict:
    query = f"session_hash={session}" + ("&close=1" if close else "")
    return {"type": "http", "method": "GET", "path": "/gradio_api/queue/data", "query_string": query.encode()}


JOIN = {"type": "http", "method": "POST", "path": "/gradio_api/queue/join", "query_string": b""}


class Client:
    """One request's side: what it was sent, and a disconnect to give when told."""

    def __init__(self, body: bytes = b""):
        self.sent: list[dict] = []
        self.gone = asyncio.Event()
        self.body = body

    async def receive(self) -> dict:
        if self.body is not None:
            body, self.body = self.body, None
            return {"type": "http.request", "body": body, "more_body": False}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict) -> None:
        self.sent.append(message)

    @property
    def answered(self) -> bool:
        return any(m["type"] == "http.response.start" for m in self.sent)

    @property
    def ended(self) -> bool:
        return any(m["type"] == "http.response.body" and not m.get("more_body") for m in self.sent)


def join_body(session: str) -> bytes:
    return json.dumps({"data": [], "fn_index": 1, "session_hash": session}).encode()


def test_a_closed_stream_holds_the_sessions_next_join_until_its_client_goes():
    async def run():
        held = HoldCloses(gradio, wait=30)
        reader = Client()
        streaming = asyncio.create_task(held(stream("s"), reader.receive, reader.send))
        await asyncio.sleep(0.05)
        assert [m.get("body") for m in reader.sent[1:]] == [ANSWER, CLOSE]  # the close went out at once...
        assert not reader.ended  # ...and the response stays open
        joiner, other = Client(join_body("s")), Client(join_body("t"))
        joining = asyncio.create_task(held(JOIN, joiner.receive, joiner.send))
        await held(JOIN, other.receive, other.send)  # another session's join is answered at once
        await asyncio.sleep(0.05)
        assert other.answered and not joiner.answered
        reader.gone.set()  # the client read the close and went
        await asyncio.wait_for(asyncio.gather(streaming, joining), 5)
        assert joiner.answered and json.loads(joiner.sent[1]["body"]) == {"event_id": "b"}
        assert not reader.ended  # nothing more is sent to a client that has gone
        assert not held.closes

    asyncio.run(run())


def test_a_client_that_stays_is_sent_the_end_after_the_wait():
    async def run():
        held = HoldCloses(gradio, wait=0.2)
        reader, joiner = Client(), Client(join_body("s"))
        streaming = asyncio.create_task(held(stream("s"), reader.receive, reader.send))
        await asyncio.sleep(0.05)
        await asyncio.wait_for(held(JOIN, joiner.receive, joiner.send), 5)  # answered after the wait at most
        await asyncio.wait_for(streaming, 5)
        assert reader.ended and joiner.answered
        assert not held.closes

    asyncio.run(run())


def test_a_stream_without_a_close_and_other_routes_pass_through():
    async def run():
        held = HoldCloses(gradio, wait=30)
        reader = Client()
        await asyncio.wait_for(held(stream("s", close=False), reader.receive, reader.send), 5)
        assert reader.ended and [m.get("body") for m in reader.sent[1:-1]] == [ANSWER]
        page = Client()
        other = {"type": "http", "method": "GET", "path": "/config", "query_string": b"close=1"}
        await asyncio.wait_for(held(other, page.receive, page.send), 5)
        assert page.ended
        assert not held.closes

    asyncio.run(run())
