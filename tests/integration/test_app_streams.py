"""The playground's queue-stream middleware (:class:`lbpe.playground.app.streams.SessionStreams`)
on its own, in front of a stand-in for Gradio's two queue routes, speaking ASGI (the real server:
tests/robustness/test_queue_stream.py)."""

from __future__ import annotations

import asyncio
import json

from lbpe.playground.app import streams
from lbpe.playground.app.streams import SessionStreams

CLOSE = b'data: {"msg":"close_stream"}\n\n'


def answer(event: str) -> bytes:
    return b'data: {"msg":"process_completed","event_id":"%s","success":true}\n\n' % event.encode()


class Gradio:
    """Gradio's queue routes, as far as the middleware sees them. A stream sends what
    :meth:`say` gives its session, and ends after a close; it records how many ran, whether one
    was told of a disconnect and whether one was cancelled. A join answers an event id; any other
    GET, an empty page."""

    def __init__(self) -> None:
        self.queues: dict[str, asyncio.Queue] = {}
        self.streams = 0
        self.pages = 0
        self.disconnects = 0
        self.cancelled = 0

    def say(self, session: str, chunk: bytes) -> None:
        self.queues.setdefault(session, asyncio.Queue()).put_nowait(chunk)

    async def __call__(self, scope, receive, send):
        if scope["method"] == "GET" and not scope["path"].endswith("/queue/data"):
            self.pages += 1
            await send({"type": "http.response.start", "status": 200, "headers": []})
        elif scope["method"] == "GET":
            self.streams += 1
            session = scope["query_string"].decode().partition("=")[2]
            queue = self.queues.setdefault(session, asyncio.Queue())

            async def watch():
                while (await receive())["type"] != "http.disconnect":
                    pass
                self.disconnects += 1

            watcher = asyncio.create_task(watch())
            await send({"type": "http.response.start", "status": 200, "headers": []})
            try:
                while True:
                    chunk = await queue.get()
                    await send({"type": "http.response.body", "body": chunk, "more_body": True})
                    if chunk == CLOSE:
                        break
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
            finally:
                watcher.cancel()
        else:  # the whole request is read before the answer starts
            while (await receive()).get("more_body"):
                pass
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b'{"event_id": "b"}', "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def stream(session: str) -> dict:
    query = f"session_hash={session}"
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
    def chunks(self) -> list[bytes]:
        return [m["body"] for m in self.sent if m["type"] == "http.response.body" and m["body"]]

    @property
    def answered(self) -> bool:
        return any(m["type"] == "http.response.start" for m in self.sent)

    @property
    def ended(self) -> bool:
        return any(m["type"] == "http.response.body" and not m.get("more_body") for m in self.sent)


def join_body(session: str) -> bytes:
    return json.dumps({"data": [], "fn_index": 1, "session_hash": session}).encode()


async def settle() -> None:
    await asyncio.sleep(0.05)


async def gone(client: Client) -> None:
    await settle()
    client.gone.set()


def test_a_closed_stream_holds_the_sessions_next_join_until_its_client_goes():
    async def run():
        gradio = Gradio()
        held = SessionStreams(gradio, wait=30)
        reader = Client()
        streaming = asyncio.create_task(held(stream("s"), reader.receive, reader.send))
        await settle()
        gradio.say("s", answer("a"))
        gradio.say("s", CLOSE)
        await settle()
        assert reader.chunks == [answer("a"), CLOSE]  # the close went out at once...
        assert not reader.ended  # ...and the response stays open
        joiner, other = Client(join_body("s")), Client(join_body("t"))
        joining = asyncio.create_task(held(JOIN, joiner.receive, joiner.send))
        await held(JOIN, other.receive, other.send)  # another session's join is answered at once
        await settle()
        assert other.answered and not joiner.answered
        reader.gone.set()  # the client read the close and went
        await asyncio.wait_for(asyncio.gather(streaming, joining), 5)
        assert joiner.answered and json.loads(joiner.sent[1]["body"]) == {"event_id": "b"}
        assert not reader.ended  # nothing more is sent to a client that has gone
        assert not held.closing() and not held.sessions

    asyncio.run(run())


def test_a_client_that_stays_is_sent_the_end_after_the_wait():
    async def run():
        gradio = Gradio()
        held = SessionStreams(gradio, wait=0.2)
        reader, joiner = Client(), Client(join_body("s"))
        streaming = asyncio.create_task(held(stream("s"), reader.receive, reader.send))
        await settle()
        gradio.say("s", CLOSE)
        await settle()
        await asyncio.wait_for(held(JOIN, joiner.receive, joiner.send), 5)  # answered after the wait at most
        await asyncio.wait_for(streaming, 5)
        assert reader.ended and joiner.answered
        assert not held.closing() and not held.sessions

    asyncio.run(run())


def test_two_requests_of_a_session_share_one_gradio_stream_and_both_get_every_message():
    async def run():
        gradio = Gradio()
        held = SessionStreams(gradio, wait=30)
        first, second = Client(), Client()
        streams = [asyncio.create_task(held(stream("s"), first.receive, first.send))]
        await settle()
        gradio.say("s", answer("a"))
        await settle()
        streams.append(asyncio.create_task(held(stream("s"), second.receive, second.send)))
        await settle()
        gradio.say("s", answer("b"))
        gradio.say("s", CLOSE)
        await settle()
        assert gradio.streams == 1
        # the later connection was sent the answer that went out before it came
        assert first.chunks == second.chunks == [answer("a"), answer("b"), CLOSE]
        assert [m["type"] for m in second.sent][0] == "http.response.start"
        second.gone.set()  # the client read the close on the second: the first is ended
        await asyncio.wait_for(asyncio.gather(*streams), 5)
        assert first.ended and not second.ended
        assert not held.sessions

    asyncio.run(run())


def test_a_request_that_comes_again_after_the_close_is_sent_what_the_stream_sent():
    """The copy nobody reads came first and was sent an answer and the close, before the copy the
    client reads arrived: that one is sent them too, and no new Gradio stream runs for it."""

    async def run():
        gradio = Gradio()
        held = SessionStreams(gradio, wait=30)
        behind, read = Client(), Client()
        streams = [asyncio.create_task(held(stream("s"), behind.receive, behind.send))]
        await settle()
        gradio.say("s", answer("a"))
        gradio.say("s", CLOSE)
        await settle()
        streams.append(asyncio.create_task(held(stream("s"), read.receive, read.send)))
        await settle()
        assert read.chunks == [answer("a"), CLOSE] and gradio.streams == 1
        joiner = Client(join_body("s"))
        joining = asyncio.create_task(held(JOIN, joiner.receive, joiner.send))
        await settle()
        assert not joiner.answered  # the close is still being read
        read.gone.set()
        await asyncio.wait_for(asyncio.gather(joining, *streams), 5)
        assert joiner.answered and behind.ended

    asyncio.run(run())


def test_a_close_sent_while_no_connection_is_open_goes_to_the_next():
    """The copy nobody reads came and went before the one the client reads arrived, and the
    event's answer and the close went out in between: the copy the client reads is sent both."""

    async def run():
        gradio = Gradio()
        held = SessionStreams(gradio, wait=30)
        behind, read = Client(), Client()
        await asyncio.wait_for(asyncio.gather(held(stream("s"), behind.receive, behind.send), gone(behind)), 5)
        gradio.say("s", answer("a"))
        gradio.say("s", CLOSE)
        await settle()
        streaming = asyncio.create_task(held(stream("s"), read.receive, read.send))
        await settle()
        assert read.chunks == [answer("a"), CLOSE] and gradio.streams == 1
        read.gone.set()
        await asyncio.wait_for(streaming, 5)
        assert not held.sessions

    asyncio.run(run())


def test_a_connection_sent_the_close_is_ended_after_the_wait_with_no_join():
    async def run():
        gradio = Gradio()
        held = SessionStreams(gradio, wait=0.2)
        reader = Client()
        streaming = asyncio.create_task(held(stream("s"), reader.receive, reader.send))
        await settle()
        gradio.say("s", CLOSE)
        await asyncio.wait_for(streaming, 5)  # the client never goes, and no event follows
        assert reader.ended and not held.sessions

    asyncio.run(run())


def test_a_long_stream_still_sends_a_late_connection_its_answers_and_close(monkeypatch):
    monkeypatch.setattr(streams, "REPLAY_LIMIT", 1000)

    async def run():
        gradio = Gradio()
        held = SessionStreams(gradio, wait=30)
        behind, read = Client(), Client()
        tasks = [asyncio.create_task(held(stream("s"), behind.receive, behind.send))]
        await settle()
        progress = b'data: {"msg":"process_generating","output":"%s"}\n\n' % (b"x" * 600)
        for chunk in (progress, progress, progress, answer("a"), CLOSE):
            gradio.say("s", chunk)
        await settle()
        tasks.append(asyncio.create_task(held(stream("s"), read.receive, read.send)))
        await settle()
        assert read.chunks[-2:] == [answer("a"), CLOSE]  # beyond the limit, but what ends the event
        read.gone.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 5)

    asyncio.run(run())


def test_gradio_never_sees_a_connection_go_until_none_is_left():
    async def run():
        gradio = Gradio()
        held = SessionStreams(gradio, wait=30, gone_wait=0.3)
        first, second = Client(), Client()
        streams = [asyncio.create_task(held(stream("s"), c.receive, c.send)) for c in (first, second)]
        await settle()
        first.gone.set()
        await settle()
        gradio.say("s", answer("a"))
        await settle()
        assert second.chunks == [answer("a")]
        second.gone.set()
        await asyncio.wait_for(asyncio.gather(*streams), 5)
        await asyncio.sleep(0.1)
        assert gradio.disconnects == 0 and gradio.cancelled == 0  # a connection may still come
        third = Client()
        streaming = asyncio.create_task(held(stream("s"), third.receive, third.send))
        await asyncio.sleep(0.5)
        assert gradio.streams == 1 and gradio.cancelled == 0 and third.chunks == [answer("a")]
        third.gone.set()
        await asyncio.wait_for(streaming, 5)
        await asyncio.sleep(0.5)  # none came back: Gradio's stream is cancelled, as for a client that went
        assert gradio.cancelled == 1 and gradio.disconnects == 0
        assert not held.sessions

    asyncio.run(run())


def test_other_routes_pass_through():
    async def run():
        gradio = Gradio()
        held = SessionStreams(gradio, wait=30)
        page = Client()
        other = {"type": "http", "method": "GET", "path": "/config", "query_string": b"session_hash=s"}
        await asyncio.wait_for(held(other, page.receive, page.send), 5)  # a GET of another route...
        assert page.ended and gradio.pages == 1  # ...reaches the stand-in directly
        assert not held.sessions

    asyncio.run(run())
