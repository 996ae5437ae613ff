"""The playground as a shared server under load and abuse: a Train is bounded in time, one
session cannot hold a kind of job for everyone, a job whose client went away stops, identical
uploads from many sessions all work, files are swept on a timer and at shutdown, Gradio's own
input errors are messages without tracebacks, and no visitor is told a server variable.

Each test drives a real ``python app.py`` with gradio_client or plain HTTP (one server for the
module; the sweeping test runs its own, with short file lifetimes, and stops it)."""

from __future__ import annotations

import json
import random
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError

from tests.support.app import ROOT, running_server, upload
from tests.support.data import data_file

pytestmark = pytest.mark.slow(reason="real playground servers, trainings run to their time limit")

#: Seconds a Train may run on the module's server (the default is 300).
TRAIN_SECONDS = 25
SERVER_ENV = {
    "LBPE_APP_TRAIN_SECONDS": str(TRAIN_SECONDS),
    "LBPE_APP_JOBS": "2",
    "LBPE_APP_JOBS_PER_ADDRESS": "1",
    "LBPE_APP_MAX_VOCAB_MB": "3",  # o200k_base.tiktoken (3.6 MB) is over it
}


def _random_letters(size: int) -> str:
    """``size`` random lowercase letters and no space: one pre-token of a megabyte, whose
    every merge goes through the whole of it (to 50,000 tokens: 8% after 240 s when Train had
    no time limit). Random words between spaces, some 170,000 short pre-tokens, ran out of
    merges and finished in under 25 s on a quiet machine."""
    r = random.Random(31)
    return "".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(size))


#: A training corpus that holds a server for hours (1 MB; the limit is 10 MB).
HOSTILE = _random_letters(1_000_000)
SMALL = data_file("text/moby_dick.txt").read_text("utf-8")[:20_000]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    cache = tmp_path_factory.mktemp("gradio-cache")
    env = {**SERVER_ENV, "GRADIO_TEMP_DIR": str(cache)}
    # run from the folder that holds Gradio's (as a container run from / does): Gradio then
    # refuses uploads whose names start with "."
    command = [sys.executable, str(ROOT / "app.py"), "--host", "127.0.0.1", "--port", "{port}"]
    with running_server(command, env=env, cwd=cache.parent) as s:
        s.gradio_cache = cache  # type: ignore[attr-defined]  (Gradio's uploads and files)
        yield s


def _log(server) -> str:
    return server.log.read_text("utf-8", "replace")


def _wait_for(condition, timeout: float, step: float = 0.25) -> float | None:
    """Seconds until ``condition()`` held, or ``None`` when it did not within ``timeout``."""
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        if condition():
            return time.monotonic() - began
        time.sleep(step)
    return None


def _call(url: str, api_name: str, data: list, timeout: float = 120) -> tuple[str, object]:
    """One call through Gradio's HTTP API (``/gradio_api/call``), as curl makes it: the event
    (``"complete"`` or ``"error"``) and its data. Files are given as the server's own paths."""
    with httpx.Client(timeout=timeout) as http:
        event_id = http.post(f"{url}gradio_api/call/{api_name}", json={"data": data}).json()["event_id"]
        event, payload = "", None
        with http.stream("GET", f"{url}gradio_api/call/{api_name}/{event_id}") as stream:
            for line in stream.iter_lines():
                if line.startswith("event: "):
                    event = line[len("event: ") :]
                elif line.startswith("data: ") and event in ("complete", "error"):
                    payload = json.loads(line[len("data: ") :])
                    return event, payload
    return event, payload


def _upload_raw(url: str, data: bytes, name: str) -> dict:
    """A file sent to the server's upload route, as the page sends one: its FileData."""
    with httpx.Client(timeout=60) as http:
        (path,) = http.post(f"{url}gradio_api/upload", files={"files": (name, data)}).json()
    return {"path": path, "meta": {"_type": "gradio.FileData"}, "orig_name": name}


# ---- Train: a time budget, one job per session, other sessions served alongside ----


def _visitor(server, address: str) -> Client:
    """A new session of a visitor at ``address``, as a proxy on this machine names it
    (every test client reaches the server from 127.0.0.1); each test uses its own addresses."""
    return Client(server.url, verbose=False, headers={"X-Forwarded-For": address})


def test_train_is_bounded_and_one_session_cannot_hold_it(server, tmp_path):
    attacker, other = _visitor(server, "198.51.100.1"), _visitor(server, "198.51.100.2")
    hostile = handle_file(upload(tmp_path, HOSTILE.encode(), "letters.txt"))
    began = time.monotonic()
    big = attacker.submit([hostile], 50_000, "char", False, api_name="/train")
    time.sleep(3)  # the big training runs

    # a second training of the same session is refused at once, saying why
    second = time.monotonic()
    with pytest.raises(AppError, match="A training is already running in this session") as busy:
        attacker.predict([handle_file(upload(tmp_path, SMALL.encode(), "small.txt"))], 500, "char", False,
                         api_name="/train")  # fmt: skip
    assert time.monotonic() - second < 15 and "Stop" in str(busy.value)

    # another visitor's small training runs beside it (it waited 237 s behind one)
    waited = time.monotonic()
    small = other.submit([handle_file(upload(tmp_path, SMALL.encode(), "small.txt"))], 500, "char", False,
                         api_name="/train")  # fmt: skip
    _, _, status = small.result(timeout=60)
    waited = time.monotonic() - waited
    assert status.startswith("Done: **trained: 500 char on small.txt**"), status
    assert not big.done(), "the big training ended first: nothing shows the small one ran beside it"
    assert waited < 30, f"a small training waited {waited:.0f} s behind another session's"

    # the big one stops at its budget with what to do instead, naming no server variable
    with pytest.raises(AppError) as stopped:
        big.result(timeout=TRAIN_SECONDS + 90)
    took, message = time.monotonic() - began, str(stopped.value)
    assert f"Training stopped after {TRAIN_SECONDS} s" in message, message
    assert "smaller file or a smaller vocabulary size" in message and "lbpe train --vocab-size 50000" in message
    assert "LBPE_" not in message and "Traceback" not in message, message
    assert took < TRAIN_SECONDS + 30, f"the training ran {took:.0f} s past a budget of {TRAIN_SECONDS} s"
    assert f"LBPE_APP_TRAIN_SECONDS={TRAIN_SECONDS}" in _log(server)  # the server's log names it
    print(f"a small training beside a big one took {waited:.1f} s; the big one stopped after {took:.1f} s")


def test_many_sessions_from_one_address_hold_one_job_of_a_kind(server, tmp_path):
    """A visitor who opens a new session for each job held every Train slot: one address now
    runs ``LBPE_APP_JOBS_PER_ADDRESS`` (here 1) of a kind, whatever its sessions; another
    address is served beside it."""
    hostile = handle_file(upload(tmp_path, HOSTILE.encode(), "letters.txt"))
    address = "198.51.100.3"
    first, second, elsewhere = _visitor(server, address), _visitor(server, address), _visitor(server, "198.51.100.4")
    big = first.submit([hostile], 50_000, "char", False, api_name="/train")
    assert _wait_for(lambda: big.status().code.name in ("PROCESSING", "PROGRESS"), 60) is not None
    try:
        asked = time.monotonic()
        with pytest.raises(AppError, match="already running from your network address") as busy:
            second.predict([hostile], 50_000, "char", False, api_name="/train")
        assert time.monotonic() - asked < 15 and "Stop" in str(busy.value)
        other = elsewhere.submit([hostile], 50_000, "char", False, api_name="/train")
        started = _wait_for(lambda: other.status().code.name in ("PROCESSING", "PROGRESS") or other.done(), 30)
        assert started is not None and not other.done(), f"another address's training did not run: {other.status()}"
    finally:
        first.predict(api_name="/stop_train")
        elsewhere.predict(api_name="/stop_train")
    for job in (big, other):
        _, _, status = job.result(timeout=60)
        assert status.startswith("Stopped"), status
    # the address's slot is free again once its job has ended
    _, _, status = second.predict([handle_file(upload(tmp_path, SMALL.encode(), "small.txt"))], 500, "char", False,
                                  api_name="/train")  # fmt: skip
    assert status.startswith("Done:"), status


def test_a_job_whose_client_went_away_is_stopped(server, tmp_path):
    hostile = upload(tmp_path, HOSTILE.encode(), "abandoned.txt")
    script = (
        "import sys, time\n"
        "from gradio_client import Client, handle_file\n"
        "c = Client(sys.argv[1], verbose=False)\n"
        "job = c.submit([handle_file(sys.argv[2])], 50000, 'char', False, api_name='/train')\n"
        "while job.status().code.name not in ('PROCESSING', 'PROGRESS'):\n"
        "    time.sleep(0.2)\n"
        "print('running', flush=True)\n"
        "time.sleep(600)\n"
    )
    client = subprocess.Popen(
        [sys.executable, "-c", script, server.url, hostile], stdout=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL
    )
    try:
        assert client.stdout is not None and client.stdout.readline().strip() == "running"
        time.sleep(2)
    finally:
        client.kill()
        client.wait(30)
    gone = _wait_for(lambda: "stopped: the client went away while abandoned.txt" in _log(server), 20)
    assert gone is not None, f"the abandoned training still ran 20 s after its client was killed:\n{server.tail()}"
    print(f"the abandoned training stopped {gone:.1f} s after its client was killed")


# ---- uploads belong to their session ----


def test_identical_uploads_from_many_sessions_all_work(server, tmp_path):
    """Eight visitors upload the same vocabulary file at once (6 of 8 failed with "the upload
    is gone" when each handler deleted the one path Gradio keeps for those bytes)."""
    source = upload(tmp_path, data_file("openai/r50k_base.tiktoken"), "r50k_base.tiktoken")
    clients = [Client(server.url, verbose=False) for _ in range(8)]
    start = threading.Barrier(len(clients))
    failures: list[str] = []
    ids: list[list[int]] = []

    def visitor(c: Client) -> None:
        start.wait()
        try:
            name = c.predict([handle_file(source)], "auto", api_name="/upload_vocab")[0]["value"]
            ids.append(c.predict("hello", name, True, False, api_name="/compare")[5]["bpe"]["ids"])
        except AppError as exc:
            failures.append(str(exc))

    threads = [threading.Thread(target=visitor, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(180)
    assert failures == [], f"{len(failures)} of {len(clients)} uploads failed: {failures[:2]}"
    assert ids == [[31373]] * len(clients)


def test_another_sessions_identical_upload_leaves_a_corpus_file_usable(server, tmp_path):
    """A Corpus file stays usable for its session (its box keeps the server's path) when
    another visitor sends the same bytes under the same name to a view that reads it once."""
    text = SMALL.encode()
    corpus_file = _upload_raw(server.url, text, "shared.txt")
    event, first = _call(server.url, "corpus_stats", [corpus_file, "gpt2"])
    assert event == "complete", first
    across = Client(server.url, verbose=False).predict(
        "", handle_file(upload(tmp_path, text, "shared.txt")), api_name="/across_vocabularies"
    )
    assert "shared.txt" in across[4]
    event, again = _call(server.url, "corpus_stats", [corpus_file, "o200k_base"])
    assert event == "complete", f"the Corpus file of one session was deleted by another's upload: {again}"
    assert "shared.txt" in again[5] and "o200k_base" in again[5]


# ---- Gradio's own input errors, and what visitors are told ----


def test_gradio_input_errors_are_messages_without_tracebacks(server, tmp_path):
    """Values Gradio itself refuses before a handler runs (wrong types, choices not offered,
    files not uploaded here, an empty file path): a message naming the problem for the caller,
    and no traceback on the server's console (there were 11)."""
    before = _log(server).count("Traceback")
    c = Client(server.url, verbose=False)
    refused = {
        "a vocabulary size that is no number": lambda: c.predict([], "abc", "char", False, api_name="/train"),
        "a unit not offered": lambda: c.predict([], 100, "word", False, api_name="/train"),
        "a step that is no number": lambda: c.predict("x", "gpt2", "abc", api_name="/explain_frame"),
        "a pattern not offered": lambda: c.predict([], "nope", api_name="/upload_vocab"),
    }
    told = {what: _message(call) for what, call in refused.items()}
    for what, message in told.items():
        assert "has not enabled verbose error reporting" not in message, f"{what}: {message}"
        assert "Traceback" not in message and len(message) < 400, f"{what}: {message}"
    assert "'abc'" in told["a vocabulary size that is no number"]
    assert "'word'" in told["a unit not offered"] and "'byte'" in told["a unit not offered"]
    assert "'abc'" in told["a step that is no number"]
    # files that were not uploaded here, or are no file at all, over plain HTTP
    for what, value in {
        "a server file never uploaded": [{"path": str(Path(__file__)), "meta": {"_type": "gradio.FileData"}}],
        "an empty file path": [{"path": "", "meta": {"_type": "gradio.FileData"}}],
        "no file description": [{"meta": {"_type": "gradio.FileData"}}],
    }.items():
        event, payload = _call(server.url, "upload_vocab", [value, "auto"])
        assert event == "error" and payload is not None, f"{what}: {event} {payload}"
        assert "uploaded to this server" in str(payload), f"{what}: {payload}"
    # too few or too many values over plain HTTP: how many the endpoint takes, not Gradio's
    # list of component objects and their addresses
    for given in (["hi", "gpt2", True, False, False, "bpe", "lbpe"], ["hi", "gpt2", True, False, False] + [0] * 7):
        event, payload = _call(server.url, "compare", given)
        assert event == "error", (event, payload)
        told = str(payload)
        assert "takes 9 values" in told and f"gave {len(given)}" in told, told
        assert "object at 0x" not in told and len(told) < 400, told
    # a file whose name starts with "." (Gradio will not keep it): said so, not "upload it first"
    dotted = tmp_path / "..tiktoken"
    dotted.write_bytes(data_file("openai/r50k_base.tiktoken").read_bytes())
    told = _message(lambda: c.predict([handle_file(str(dotted))], "gpt2", api_name="/upload_vocab"))
    assert 'starts with "."' in told and "rename" in told, told
    # Gradio's direct route skips the queue: closed (it answered HTTP 500 with a traceback)
    with httpx.Client(timeout=60) as http:
        direct = http.post(
            f"{server.url}gradio_api/run/upload_vocab",
            json={"data": [[{"path": "", "meta": {"_type": "gradio.FileData"}}], "auto"]},
        )
    assert direct.status_code != 500 and "queue" in direct.text, (direct.status_code, direct.text)
    time.sleep(0.5)
    after = _log(server).count("Traceback")
    assert after == before, f"{after - before} tracebacks on the server's console:\n{server.tail(60)}"


def test_no_route_writes_or_shows_another_sessions_state(server):
    """Gradio's deep-link route wrote each known session's component values to a new file on
    disk for anyone who named the session, and the page at ``?deep_link=`` showed them: the app
    offers no deep links (its links carry their state in the address), so the route is closed."""
    c = Client(server.url, verbose=False)
    c.predict("A private text of one visitor.", "gpt2", True, False, False, api_name="/compare")
    with httpx.Client(timeout=60) as http:
        answer = http.get(f"{server.url}gradio_api/deep_link", params={"session_hash": c.session_hash})
    assert answer.status_code == 404, (answer.status_code, answer.text)
    written = [p for p in server.gradio_cache.rglob("*") if "deep_links" in p.parts]
    assert written == []


def test_an_out_of_range_number_is_named_by_its_own_box(server):
    """Gradio's "Value -3 is less than minimum value 0." said of the box that holds -3: the
    Explain step, not the dropout rate beside it (the only box with two bounds)."""
    data = ["Capitals", "gpt2", -3, "The Capitals", "", False, "bpe", "lbpe", 0.1, 0]
    event, payload = _call(server.url, "explain_frame", data)
    assert event == "error", (event, payload)
    assert "Step -3 is out of range: give a number 0 or more" in str(payload), payload
    data = ["Capitals", "gpt2", 2, "The Capitals", "", False, "bpe", "dropout", 1.5, 0]
    event, payload = _call(server.url, "explain_frame", data)
    assert "Dropout rate 1.5 is out of range: give a number from 0 to 1" in str(payload), payload


def test_training_names_what_it_was_given_and_why_a_token_is_too_long(server, tmp_path):
    """The API's defaults (None) train as the page's do, and are named as such; a text that is
    one run of 100,000 bytes trains a token of that length, past the server's limit, and is
    told so in the text's terms, not as a refusal of a file the visitor never sent."""
    c = Client(server.url, verbose=False)
    text = tmp_path / "mixed.txt"
    text.write_text("the cat sat on the mat, the dog sat on the log. " * 200, "utf-8")
    done = c.predict([handle_file(str(text))], 300, None, False, None, api_name="/train")
    assert "None" not in done[-1] and "300 char" in done[-1], done[-1]
    nul = tmp_path / "nul.txt"
    nul.write_bytes(b"\x00" * 100_000)
    told = _message(lambda: c.predict([handle_file(str(nul))], 500, "byte", False, "gpt2", api_name="/train"))
    assert "tokenizer-" not in told and "a token of 100,000 bytes" in told, told
    assert "1,024 bytes" in told and "nul.txt" in told, told


def _message(call) -> str:
    with pytest.raises(AppError) as err:
        call()
    return str(err.value)


def test_messages_to_visitors_name_no_server_variable(server, tmp_path):
    c = Client(server.url, verbose=False)
    big = handle_file(upload(tmp_path, data_file("openai/o200k_base.tiktoken"), "o200k_base.tiktoken"))
    told = {
        "an upload over the size limit": _message(lambda: c.predict([big], "auto", api_name="/upload_vocab")),
        "a vocabulary size over the maximum": _message(
            lambda: c.predict(
                [handle_file(upload(tmp_path, b"some text", "t.txt"))], 60_000, "char", False, api_name="/train"
            )  # fmt: skip
        ),
        "a text over the Across limit": _message(
            lambda: c.predict("x" * 50_001, None, api_name="/across_vocabularies")
        ),
    }
    assert "over the limit of 3 MB for an uploaded vocabulary" in told["an upload over the size limit"]
    assert "between 1 and 50,000" in told["a vocabulary size over the maximum"]
    assert "at most 50,000 come from the text box" in told["a text over the Across limit"]
    for what, message in told.items():
        assert "LBPE_" not in message, f"{what}: {message}"
    assert "LBPE_APP_MAX_VOCAB_MB" in _log(server)  # the server's log may name them


# ---- files swept on a timer and at shutdown ----


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_files_are_swept_on_a_timer_and_at_shutdown(tmp_path):
    """Downloads, uploads and Gradio's copies go within seconds of their lifetime (downloads
    were swept only when a new one was written), and all of them when the server is stopped
    with SIGTERM (which left the download folder and Gradio's cache)."""
    cache, scratch = tmp_path / "gradio-cache", tmp_path / "tmp"
    cache.mkdir()
    scratch.mkdir()
    env = {"LBPE_APP_FILE_TTL": "4", "GRADIO_TEMP_DIR": str(cache), "TMPDIR": str(scratch)}
    command = [sys.executable, "app.py", "--host", "127.0.0.1", "--port", "{port}"]
    with running_server(command, env=env) as server:
        c = Client(server.url, verbose=False, download_files=str(tmp_path / "downloads"))

        def work() -> None:
            text = handle_file(upload(tmp_path, SMALL.encode(), "swept.txt"))
            assert "swept.txt" in c.predict(text, "gpt2", api_name="/corpus_stats")[5]
            vocab = handle_file(upload(tmp_path, data_file("openai/r50k_base.tiktoken"), "r50k_base.tiktoken"))
            c.predict([vocab], "auto", api_name="/upload_vocab")
            assert _files(cache) and _files(scratch), "the calls left no files to sweep"

        work()
        swept = _wait_for(lambda: not _files(cache) and not _files(scratch), 30)
        assert swept is not None, f"left 30 s after their 4 s lifetime: {_files(cache) + _files(scratch)}"
        work()
        _upload_raw(server.url, b"sent, never used", "unused.txt")  # no handler ever learns of it
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(60)
        left = _files(cache) + _files(scratch)
        assert left == [], f"left after SIGTERM: {left}"
        # nor the folders Gradio made for each upload (it deletes their files, not them)
        folders = [p.name for p in cache.rglob("*") if p.is_dir() and re.fullmatch(r"[0-9a-f]{20,}", p.name)]
        assert folders == [], f"empty upload folders left after SIGTERM: {folders}"
        assert [p for p in scratch.iterdir() if p.name.startswith("lbpe-")] == []
