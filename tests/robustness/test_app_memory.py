"""The playground server's memory: what Gradio keeps per session stays small whatever the
session did, idle sessions are forgotten, and freed memory goes back to the system.

One real server runs in this process (so the tests can look at Gradio's own per-session
state), driven by ``gradio_client`` as a visitor's tab would be. ``bench/load.py`` measures
the server's RSS under load from many clients; these tests check the bounds behind it.
"""

from __future__ import annotations

import datetime
import gc
import sys
import time
import types
from pathlib import Path

import pytest

from tests.support.app import free_port, load_app, running_server, upload
from tests.support.cli import CLI
from tests.support.data import data_file

pytestmark = pytest.mark.reliability

#: What one session may keep in the server (Gradio's state for it and the app's Session), in
#: bytes, after any number of compares of any size; before it was bounded, a session kept its
#: last Compare: 2-3 MB for 20,000 characters, up to ~10 MB at the 50,000-character limit.
SESSION_BYTES = 64 * 1024


def owned_bytes(root: object, shared: set[int]) -> int:
    """Bytes of the objects reachable from ``root`` that are not in ``shared`` (ids of objects
    every session shares: the app's blocks and everything reachable from them); functions,
    classes and modules are shared by nature and not followed."""
    seen, stack, total = set(shared), [root], 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType, types.MethodType)):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total


def shared_by_sessions(demo: object, *also: object) -> set[int]:
    """Ids of what every session shares: the objects reachable from the app's blocks (and
    ``also``), its state holder, which holds the sessions, left out."""
    seen = {id(demo.state_holder)}  # type: ignore[attr-defined]
    for root in (demo, *also):
        seen |= _reachable(root, seen)
    seen.discard(id(demo.state_holder))  # type: ignore[attr-defined]
    return seen


def _reachable(root: object, known: set[int]) -> set[int]:
    seen, stack = set(known), [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType, types.MethodType)):
            continue
        seen.add(id(obj))
        stack.extend(gc.get_referents(obj))
    return seen


@pytest.fixture(scope="module")
def served():
    """(the app module, its URL): the playground's demo served in this process."""
    app = load_app()
    port = free_port()
    app.launch("127.0.0.1", port, prevent_thread_lock=True, quiet=True)
    try:
        yield app, f"http://127.0.0.1:{port}/"
    finally:
        app.demo.close()


def _client(url: str, tmp_path: Path):
    from gradio_client import Client

    return Client(url, verbose=False, download_files=str(tmp_path / "downloads"))


def _text(chars: int) -> str:
    return data_file("text/moby_dick.txt").read_text("utf-8")[10_000 : 10_000 + chars]


@pytest.mark.slow(reason="a playground server, long compares")
def test_session_state_stays_small_whatever_was_compared(served, tmp_path):
    app, url = served
    holder = app.demo.state_holder
    clients = [_client(url, tmp_path) for _ in range(3)]
    try:
        sizes = {}
        for chars in (1_000, 20_000):
            for c in clients:
                details = c.predict(_text(chars), "mistral-7b", True, chars > 1_000, api_name="/compare")[5]
                assert details["bpe"]["tokens"] > chars // 10  # the compare really ran on the long text
            shared = shared_by_sessions(app.demo)
            sizes[chars] = [owned_bytes(holder.session_data[c.session_hash], shared) for c in clients]
        assert max(sizes[20_000]) <= SESSION_BYTES, sizes
        # nothing of the compared text stays: the long compare leaves what the short one did
        assert max(sizes[20_000]) <= 1.25 * min(sizes[1_000]) + 4096, sizes
    finally:
        for c in clients:
            c.close()


@pytest.mark.slow(reason="a playground server")
def test_an_uploaded_vocabulary_is_the_only_large_thing_a_session_keeps(served, tmp_path):
    app, url = served
    client = _client(url, tmp_path)
    try:
        from gradio_client import handle_file

        path = upload(tmp_path, data_file("gpt2/encoder.json"), "encoder.json")
        bpe = upload(tmp_path, data_file("gpt2/vocab.bpe"), "vocab.bpe")
        name = client.predict([handle_file(path), handle_file(bpe)], "gpt2", api_name="/upload_vocab")[0]["value"]
        client.predict(_text(20_000), name, True, True, api_name="/compare")
        session_state = app.demo.state_holder.session_data[client.session_hash]
        sessions = [v for v in session_state.state_data.values() if type(v).__name__ == "Session"]
        assert [list(s.vocabs) for s in sessions] == [[name]]
        vocab = sessions[0].vocabs[name]
        shared = shared_by_sessions(app.demo, vocab)
        assert owned_bytes(session_state, shared) <= SESSION_BYTES
    finally:
        client.close()


@pytest.mark.slow(reason="a playground server")
def test_idle_sessions_are_forgotten_and_their_vocabularies_freed(served, tmp_path):
    app, url = served
    holder = app.demo.state_holder
    client = _client(url, tmp_path)
    try:
        client.predict("a short text", "gpt2", True, False, api_name="/compare")
        assert client.session_hash in holder.session_data
        later = datetime.datetime.now() + datetime.timedelta(seconds=120)
        assert app.upkeep.sweep(holder, ttl=3600, now=later) == 0  # not idle long enough
        assert client.session_hash in holder.session_data
        assert app.upkeep.sweep(holder, ttl=60, now=later) >= 1
        assert client.session_hash not in holder.session_data
        assert client.session_hash not in holder.time_last_used
        # the visitor comes back: a fresh session, which works
        details = client.predict("a short text", "gpt2", True, False, api_name="/compare")[5]
        assert details["bpe"]["ids"] == [64, 1790, 2420]
    finally:
        client.close()


@pytest.mark.slow(reason="lbpe serve, and its sessions' time to live")
def test_lbpe_serve_forgets_idle_sessions_by_itself(tmp_path):
    """``lbpe serve`` with ``LBPE_APP_SESSION_TTL=5``: a vocabulary uploaded in a session is
    usable while the session is used, and forgotten, with a message that says why, once the
    session has made no request for longer than that, without any request in between."""
    from gradio_client import Client, handle_file
    from gradio_client.exceptions import AppError

    with running_server([*CLI, "serve", "--port", "{port}"], env={"LBPE_APP_SESSION_TTL": "5"}) as server:
        client = Client(server.url, verbose=False, download_files=str(tmp_path / "downloads"))
        try:
            src = upload(tmp_path, data_file("openai/r50k_base.tiktoken"), "r50k_base.tiktoken")
            name = client.predict([handle_file(src)], "auto", api_name="/upload_vocab")[0]["value"]
            assert client.predict("hello", name, True, False, api_name="/compare")[5]["bpe"]["ids"] == [31373]
            time.sleep(12)  # the time to live, and then some: the server sweeps every 1.25 s here
            with pytest.raises(AppError, match="forgotten after 5 seconds without a request"):
                client.predict("hello", name, True, False, api_name="/compare")
            assert "LBPE_APP" not in server.tail()  # (the log says nothing about the variable either)
        finally:
            client.close()
