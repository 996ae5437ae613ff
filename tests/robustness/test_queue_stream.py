"""A session's events are all answered, however closely one follows another.

Gradio answers a session's queued events on one server-sent stream (``/gradio_api/queue/data``),
which it ends with ``close_stream`` once none of the session's events is pending. Both of
Gradio's clients (the page's, bundled with Gradio, and gradio_client) decide whether to open a
new stream for an event when its join (``/gradio_api/queue/join``) is answered: only if they
have already read a close. :class:`StreamClient` speaks the protocol that way, with a reader
that may read the close late, as a busy page does.

Each test drives a real ``python app.py`` over plain HTTP."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
import uuid

import httpx
import pytest

from lbpe.playground.app.streams import GONE_WAIT
from tests.support.app import running_server

pytestmark = pytest.mark.slow(reason="starts a real playground server")

#: Seconds a test waits for an event's answer before calling it lost.
ANSWER_TIMEOUT = 30.0


@pytest.fixture(scope="module")
def server():
    with running_server([sys.executable, "app.py", "--host", "127.0.0.1", "--port", "{port}"]) as s:
        yield s


class StreamClient:
    """One session of the playground, spoken to as Gradio's own clients do: events are joined
    with a POST, their messages come on the session's stream, and a stream is opened for a
    joined event only if the last one has been closed (its ``close_stream`` read).

    ``read_delay``: seconds the reader waits before reading each message after the first
    completion, as a page busy drawing that answer would."""

    def __init__(self, url: str, *, read_delay: float = 0.0):
        self.url = url
        self.session = uuid.uuid4().hex[:11]
        self.read_delay = read_delay
        self.http = httpx.Client(timeout=ANSWER_TIMEOUT)
        self.lock = threading.Lock()
        self.open = False
        self.streams = 0
        self.answers: dict[str, dict] = {}
        self.answered = threading.Condition(self.lock)

    def join(self, fn_index: int, data: list) -> str:
        """Join an event; open a stream if none is open (as the clients do, after the join)."""
        response = self.http.post(
            self.url + "gradio_api/queue/join",
            json={"data": data, "fn_index": fn_index, "session_hash": self.session, "event_data": None},
        )
        response.raise_for_status()
        event = response.json()["event_id"]
        with self.lock:
            start = not self.open
            self.open = True
        if start:
            threading.Thread(target=self._read, daemon=True).start()
        return event

    def _read(self) -> None:
        with self.lock:
            self.streams += 1
        slow = False
        with httpx.Client(timeout=httpx.Timeout(ANSWER_TIMEOUT, read=None)) as http:
            with http.stream("GET", self.url + "gradio_api/queue/data", params={"session_hash": self.session}) as r:
                for line in r.iter_lines():
                    if not line.startswith("data:"):
                        continue
                    if slow:
                        time.sleep(self.read_delay)
                    message = json.loads(line[5:])
                    if message["msg"] == "close_stream":
                        with self.lock:
                            self.open = False
                        return  # and the connection is closed, as both clients do
                    if message["msg"] == "process_completed":
                        with self.lock:
                            self.answers[message["event_id"]] = message
                            self.answered.notify_all()
                        slow = self.read_delay > 0
        with self.lock:  # the server ended the stream without a close
            self.open = False

    def answer(self, event: str, timeout: float = ANSWER_TIMEOUT) -> dict | None:
        """The event's completion message, or ``None`` when none came within ``timeout``."""
        with self.lock:
            self.answered.wait_for(lambda: event in self.answers, timeout=timeout)
            return self.answers.get(event)

    def close(self) -> None:
        self.http.close()


def _fn_index(url: str, api_name: str) -> int:
    config = httpx.get(url + "config", timeout=30).json()
    return next(d["id"] for d in config["dependencies"] if d.get("api_name") == api_name)


@pytest.fixture
def decode(server):
    """The fn_index of Decode (token ids to text), a quick event."""
    return _fn_index(server.url, "decode_ids")


def test_an_event_joined_as_the_last_one_finishes_is_answered(server, decode):
    """The page sends its next event as soon as it reads an answer (a follow-up, or a person's
    quick click), and reads the close that came after the answer only later. That event is
    answered: on this stream, or on one the client opens because it had read the close."""
    client = StreamClient(server.url, read_delay=1.0)
    try:
        first = client.join(decode, ["1 2 3", "mistral-7b", None])
        assert client.answer(first) is not None, "the first event was not answered"
        second = client.join(decode, ["4 5", "mistral-7b", None])
        answered = client.answer(second)
        assert answered is not None, (
            f"an event joined right after the last one finished was never answered "
            f"({client.streams} stream(s) opened for 2 events)"
        )
        assert answered["success"], answered
        # released by the client's going, not by the server's wait running out
        assert "did not disconnect" not in server.tail(400), server.tail()
    finally:
        client.close()


def test_events_in_quick_succession_are_all_answered(server, decode):
    """Forty events, each joined the moment the one before it is answered, with a reader
    that reads late: every one is answered."""
    client = StreamClient(server.url, read_delay=0.05)
    try:
        for i in range(40):
            event = client.join(decode, [f"{i + 1} 2", "mistral-7b", None])
            assert client.answer(event) is not None, f"event {i} of 40 was never answered"
    finally:
        client.close()


def _stream_nobody_reads(url: str, session: str) -> socket.socket:
    """A stream request of ``session`` that no one will read, though its connection stays up: a
    browser leaves one behind when it sends a request again on a new connection (it does when the
    reused connection it sent it on seemed closed), and the server may see both."""
    address = httpx.URL(url)
    left = socket.create_connection((address.host, address.port), timeout=10)
    left.sendall(
        f"GET /gradio_api/queue/data?session_hash={session} HTTP/1.1\r\n"
        f"Host: {address.host}:{address.port}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    return left


def test_a_stream_request_left_behind_takes_no_answer(server, decode):
    """The server can see a session's stream requested twice, of which the client reads only the
    later one. Every event is answered on the stream the client reads: none goes to the one left
    behind."""
    client = StreamClient(server.url)
    left = []
    try:
        for i in range(5):
            left.append(_stream_nobody_reads(server.url, client.session))
            time.sleep(0.3)  # the server has the request left behind before the client's own
            event = client.join(decode, [f"{i + 1} 2 3", "mistral-7b", None])
            assert client.answer(event, timeout=15) is not None, (
                f"event {i + 1} of 5 was never answered ({client.streams} stream(s) read, {len(left)} left behind)"
            )
    finally:
        for connection in left:
            connection.close()
        client.close()


def test_two_streams_of_a_session_dropped_together_leave_no_traceback(server, decode):
    """A session can have two streams open (a page that reconnects while its old stream is still
    up). When both clients go while the streams wait, the server lets the session's stream go
    once neither came back, and logs no traceback for it."""
    client = StreamClient(server.url)
    try:
        assert client.answer(client.join(decode, ["1 2 3", "mistral-7b", None])) is not None
        time.sleep(0.5)  # the first stream has read its close and gone
        readers = [httpx.Client(timeout=httpx.Timeout(ANSWER_TIMEOUT, read=None)) for _ in range(2)]
        for reader in readers:
            response = reader.send(
                reader.build_request(
                    "GET", server.url + "gradio_api/queue/data", params={"session_hash": client.session}
                ),
                stream=True,
            )
            assert response.status_code == 200
        time.sleep(1.0)  # both wait for the session's next message
        for reader in readers:
            reader.close()
        deadline = time.monotonic() + GONE_WAIT + 10
        while time.monotonic() < deadline and "queue stream was cancelled" not in server.tail(400):
            time.sleep(0.2)
        log = server.tail(400)
        assert "queue stream was cancelled" in log, log
        assert "Traceback" not in log and "KeyError" not in log, log
    finally:
        client.close()
