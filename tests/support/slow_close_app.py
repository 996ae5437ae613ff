"""The playground's server behind a network that is slow to carry the end of a queue stream:
``python tests/support/slow_close_app.py --port P``.

Each ``close_stream`` message of Gradio's queue stream reaches the page :data:`DELAY` seconds
after the server sent it, as it may through a busy machine or a slow link. An event the page
sends in that time, after it has read the answer before the close, is the one Gradio's clients
can lose (:mod:`lbpe.playground.app.streams`)."""

from __future__ import annotations

import argparse
import asyncio

from starlette.middleware import Middleware

from lbpe.playground import app

#: Seconds between the server's sending a close and the page's reading it.
DELAY = 3.0


class SlowClose:
    """Delays every chunk of a queue stream that holds the message ``close_stream``."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].endswith("/queue/data"):
            return await self.inner(scope, receive, send)

        async def late(message):
            if message["type"] == "http.response.body" and b'"msg":"close_stream"' in message.get("body", b""):
                await asyncio.sleep(DELAY)
            await send(message)

        await self.inner(scope, receive, late)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port
    app.launch("127.0.0.1", port, quiet=True, app_kwargs={"middleware": [Middleware(SlowClose)]})
