"""The playground's server behind a network that is slow to carry two kinds of message of
Gradio's queue stream: ``python tests/support/slow_stream_app.py --port P``.

Each ``close_stream`` message, and each answer of an event that failed, reaches the page
:data:`DELAY` seconds after the server sent it, as it may through a busy machine or a slow
link. What the page does in that time is what a person can do before the message arrives:

* an event sent after the page has read an answer, but before it has read the close that
  follows, is the one Gradio's clients could lose (:mod:`lbpe.playground.app.streams`);
* a change made while an event that will fail still runs is deferred by Gradio's page (the
  events are ``trigger_mode="always_last"``), and Gradio's page drops a deferred change when
  the running event fails."""

from __future__ import annotations

import argparse
import asyncio

from starlette.middleware import Middleware

from lbpe.playground import app

#: Seconds between the server's sending a close and the page's reading it.
DELAY = 3.0


def _late(body: bytes) -> bool:
    """Whether a chunk of the stream is a close, or the answer of a failed event."""
    return b'"msg":"close_stream"' in body or (b'"msg":"process_completed"' in body and b'"success":false' in body)


class SlowStream:
    """Delays every chunk of a queue stream that :func:`_late` names."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].endswith("/queue/data"):
            return await self.inner(scope, receive, send)

        async def late(message):
            if message["type"] == "http.response.body" and _late(message.get("body", b"")):
                await asyncio.sleep(DELAY)
            await send(message)

        await self.inner(scope, receive, late)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port
    app.launch("127.0.0.1", port, quiet=True, app_kwargs={"middleware": [Middleware(SlowStream)]})
