"""The playground as a real server (``python app.py`` and ``lbpe serve`` on 127.0.0.1), driven by
gradio_client through every api_name; results equal lbpe called directly on the same input."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError

import lbpe
from lbpe.analysis.across import ACROSS_HEADERS
from lbpe.analysis.comparison import compare_json
from lbpe.analysis.stats import text_stats_both
from lbpe.formats.hf_write import to_tokenizer_json
from lbpe.playground import display
from lbpe.presets import VOCAB_PRESETS, load_preset
from tests.support.app import ROOT, running_server, upload
from tests.support.data import data_file
from tests.support.hostile import CHARS, POLYNOMIAL, hostile_tokenizer_json

pytestmark = pytest.mark.slow(reason="starts real playground servers")

TEXT = "Internationalization of counterrevolutionary misunderstandings: naïve café, 日本語 🙂\n\tcode(x)\n"
API_NAMES = {
    "/compare",
    "/load_text",
    "/upload_vocab",
    "/describe_vocab",
    "/corpus_stats",
    "/train",
    "/use_trained",
    "/stop_corpus",
    "/stop_train",
    "/stop_across",
    "/across_vocabularies",
    "/across_methods",
    "/corpus_methods",
    "/corpus_sample_methods",
    "/explain",
    "/explain_frame",
    "/explain_click",
    "/decode_ids",
    "/corpus_sample",
}
#: A small vocabulary limit so that a real file (o200k_base.tiktoken, 3.6 MB) is over it.
SERVER_ENV = {"LBPE_APP_MAX_VOCAB_MB": "3"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    cache = tmp_path_factory.mktemp("gradio-cache")
    env = {**SERVER_ENV, "GRADIO_TEMP_DIR": str(cache)}
    with running_server([sys.executable, "app.py", "--host", "127.0.0.1", "--port", "{port}"], env=env) as s:
        s.cache = cache
        yield s


@pytest.fixture
def client(server, tmp_path):
    """A fresh gradio_client session (its own gr.State) on the running server."""
    return Client(server.url, verbose=False, download_files=str(tmp_path / "downloads"))


def check_compare(result, tok, text: str, *, show_whitespace=True, show_ids=False) -> None:
    bpe_html, lbpe_html, metrics, plot, frequency, details, diffs = result
    c = display.compare(tok, text)
    assert diffs == display.differences_html(c)
    assert bpe_html == display.render_pane(c, "bpe", show_whitespace=show_whitespace, show_ids=show_ids)
    assert lbpe_html == display.render_pane(c, "lbpe", show_whitespace=show_whitespace, show_ids=show_ids)
    summary = compare_json(text_stats_both(tok, text), vocab=tok.name, unit=tok.vocab.unit, tok=tok)
    assert details["metrics"] == json.loads(json.dumps(summary))
    assert metrics == display.metrics_html(c, summary)
    assert [t["y"] for t in json.loads(frequency["plot"])["data"]] == [
        t["y"] for t in display.frequency_spec(summary)["data"]
    ]
    for mode in ("bpe", "lbpe"):
        assert details[mode]["ids"] == tok.encode(text, mode=mode, disallowed_special=())
    assert details["differ"] == [list(r) for r in c.differ]
    shift = display.length_shift(tok, c)
    figure = json.loads(plot["plot"])
    assert plot["type"] == "plotly"
    assert [t["y"] for t in figure["data"]] == [
        list(shift.bpe_buckets),
        list(shift.lbpe_buckets),
        list(shift.bpe_lengths),
        list(shift.lbpe_lengths),
    ]


def test_every_api_name_is_served(client):
    api = client.view_api(return_format="dict", print_info=False)
    assert set(api["named_endpoints"]) == API_NAMES
    assert api["unnamed_endpoints"] == {}


@pytest.mark.parametrize("name", list(VOCAB_PRESETS))
def test_compare_equals_lbpe(client, name):
    check_compare(client.predict(TEXT, name, True, False, api_name="/compare"), load_preset(name), TEXT)
    check_compare(
        client.predict(TEXT, name, False, True, api_name="/compare"),
        load_preset(name),
        TEXT,
        show_whitespace=False,
        show_ids=True,
    )


def test_the_special_tokens_toggle_reaches_compare(client):
    """The "Special tokens as specials" checkbox is an input of /compare: on, ``<|endoftext|>``
    is cl100k_base's special token; off (the default), plain text."""
    tok, text = load_preset("cl100k_base"), "end<|endoftext|>start"
    for specials, allowed in ((True, "all"), (False, frozenset())):
        details = client.predict(text, "cl100k_base", True, False, specials, api_name="/compare")[5]
        for mode in ("bpe", "lbpe"):
            want = tok.encode(text, mode=mode, allowed_special=allowed, disallowed_special=())
            assert details[mode]["ids"] == want
    assert 100257 in tok.encode(text, mode="bpe", allowed_special="all")
    assert 100257 not in tok.encode(text, mode="bpe", disallowed_special=())


def test_load_text_and_describe_vocab(client, tmp_path):
    text = "line one\r\nzweite Zeile, naïve\n"
    result = client.predict(handle_file(upload(tmp_path, text.encode(), "t.txt")), api_name="/load_text")
    assert result[0] == text
    about = client.predict("o200k_base", api_name="/describe_vocab")
    assert about.startswith("**o200k_base**") and ": 200,000 tokens," in about  # 199,998 ranks, 2 special


@pytest.mark.parametrize(
    "files, reference",
    [
        ([("openai/cl100k_base.tiktoken", "cl100k_base.tiktoken")], "openai/cl100k_base.tiktoken"),
        ([("gpt2/encoder.json", "encoder.json"), ("gpt2/vocab.bpe", "vocab.bpe")], "gpt2/encoder.json"),
        ([("hf/mistral_v0.1/tokenizer.json", "tokenizer.json")], "hf/mistral_v0.1/tokenizer.json"),
        ([("sentencepiece/mistral_tokenizer.model.v1", "mistral.model")], "sentencepiece/mistral_tokenizer.model.v1"),
    ],
    ids=["tiktoken", "gpt2", "tokenizer.json", "sentencepiece"],
)
def test_upload_vocab_then_compare(server, client, tmp_path, files, reference):
    paths = [handle_file(upload(tmp_path, data_file(rel), name)) for rel, name in files]
    update, cleared = client.predict(paths, "auto", api_name="/upload_vocab")
    name = update["value"]  # a dropdown update: the new vocabulary is selected and listed
    assert name.startswith("upload: ") and [name, name] in update["choices"] and cleared is None
    ref = lbpe.load(data_file(reference).parent if reference.startswith("gpt2/") else data_file(reference))
    ref.name = name
    # the upload itself stays until a sweep after its grace (another session may have sent the
    # same bytes): tests/robustness/test_server_reliability.py sees it swept
    check_compare(client.predict(TEXT, name, True, False, api_name="/compare"), ref, TEXT)


def test_bad_uploads_give_a_clear_message_and_the_server_keeps_serving(client, tmp_path):
    bad = upload(tmp_path, b'{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [', "tokenizer.json")
    with pytest.raises(AppError) as err:
        client.predict([handle_file(bad)], "auto", api_name="/upload_vocab")
    message = str(err.value)
    assert "tokenizer.json" in message and "JSON" in message and "Traceback" not in message, message
    big = upload(tmp_path, data_file("openai/o200k_base.tiktoken"), "o200k_base.tiktoken")
    with pytest.raises(
        AppError,
        match=r"o200k_base.tiktoken is 3.6\d* MB, over the limit of 3 MB for an uploaded vocabulary"
        r".*; this server allows no more",
    ):
        client.predict([handle_file(big)], "auto", api_name="/upload_vocab")
    with pytest.raises(AppError, match="UTF-16 text, not UTF-8"):  # it starts with a UTF-16 byte-order mark
        client.predict(handle_file(upload(tmp_path, b"\xff\xfe\x00", "x.txt")), api_name="/load_text")
    with pytest.raises(AppError, match="Unknown vocabulary"):
        client.predict("hi", "no-such-vocab", True, False, api_name="/compare")
    with pytest.raises(AppError, match=r"The vocabulary is given by its name, e\.g\. '[\w.-]+', not a list"):
        client.predict("hi", ["cl100k_base"], True, False, api_name="/compare")
    # still serving, in this session and in a new one
    check_compare(
        client.predict("still here", "gpt2", True, False, api_name="/compare"), load_preset("gpt2"), "still here"
    )
    fresh = Client(client.src, verbose=False)
    assert fresh.predict("ok", "lbpe-32k", True, False, api_name="/compare")[5]["bpe"]["tokens"] > 0


def test_uploaded_vocabularies_stay_in_their_session(server, tmp_path):
    alice = Client(server.url, verbose=False)
    bob = Client(server.url, verbose=False)
    src = upload(tmp_path, data_file("openai/r50k_base.tiktoken"), "r50k_base.tiktoken")
    name = alice.predict([handle_file(src)], "auto", api_name="/upload_vocab")[0]["value"]
    assert alice.predict("hello", name, True, False, api_name="/compare")[5]["bpe"]["ids"] == [31373]
    with pytest.raises(AppError, match="Unknown vocabulary"):
        bob.predict("hello", name, True, False, api_name="/compare")


def test_corpus_stats(client, tmp_path):
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:200_000]
    table, plot, frequency, json_file, csv_file, status = client.predict(
        handle_file(upload(tmp_path, text.encode(), "moby.txt")), "gpt2", api_name="/corpus_stats"
    )
    tok = load_preset("gpt2")
    stats = text_stats_both(tok, text)
    summary = compare_json(stats, vocab="gpt2", unit="byte", tok=tok)
    assert table["headers"] == display.STATS_HEADERS
    by_words = {"words", "fertility", "words segmented identically"}  # chunks may cut a word in two
    expected = [r for r in display.stats_rows(summary) if r[0] not in by_words]
    assert [r for r in table["data"] if r[0] not in by_words] == expected
    assert json.loads(frequency["plot"])["layout"]["yaxis"]["type"] == "log"
    got = json.loads(Path(json_file).read_text("utf-8"))
    for mode in ("bpe", "lbpe"):
        assert (
            got[mode]["tokens"] == stats[mode].tokens and got[mode]["length_counts"] == summary[mode]["length_counts"]
        )
    assert Path(csv_file).read_text("utf-8").startswith(",".join(display.CSV_HEADERS) + "\nmoby.txt,gpt2,bytes,")
    assert json.loads(plot["plot"])["data"][0]["y"] == list(
        display.shift_from_stats(stats["bpe"], stats["lbpe"], unit="byte").bpe_buckets
    )
    assert "moby.txt" in status


def test_train_then_use_it_in_compare(client, tmp_path):
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:60_000]
    with pytest.raises(AppError, match="Train a vocabulary first"):
        client.predict(api_name="/use_trained")
    update, out, status = client.predict(
        [handle_file(upload(tmp_path, text.encode(), "moby.txt"))], 500, "char", False, api_name="/train"
    )
    expected = to_tokenizer_json(lbpe.train(text, vocab_size=500, unit="char"), pattern="paper")
    assert json.loads(Path(out).read_text("utf-8")) == json.loads(expected)
    assert "trained: 500 char on moby.txt" in status and ["trained: 500 char on moby.txt"] * 2 in update["choices"]
    name = client.predict(api_name="/use_trained")["value"]
    assert name == "trained: 500 char on moby.txt"
    ref = lbpe.load(out)
    ref.name = name
    check_compare(client.predict(TEXT, name, True, False, api_name="/compare"), ref, TEXT)


def test_stop_ends_a_running_training(server, client, tmp_path):
    text = data_file("text/sotu.txt").read_text("utf-8")[:4_000_000]
    job = client.submit(
        [handle_file(upload(tmp_path, text.encode(), "sotu.txt"))], 50_000, "char", False, api_name="/train"
    )
    deadline = time.monotonic() + 120
    while not (job.status().progress_data or job.done()):  # wait until it is running
        assert time.monotonic() < deadline, "training never reported progress"
        time.sleep(0.05)
    client.predict(api_name="/stop_train")
    _, out, status = job.result(timeout=120)  # a result that says where it stopped, not an error
    assert out is None and status.startswith("Stopped at ") and "vocabulary on sotu.txt" in status, status
    assert "sotu.txt: merging" in server.tail(200) or "sotu.txt: counting" in server.tail(200)
    # the session goes on: a small training afterwards completes
    _, out, status = client.predict(
        [handle_file(upload(tmp_path, b"abc abd\n", "s.txt"))], 260, "byte", False, api_name="/train"
    )
    assert "Done" in status
    client.predict(api_name="/stop_corpus")  # nothing running: a no-op


def test_a_number_that_is_not_whole_is_refused_not_rounded(client, tmp_path):
    """A seed or a vocabulary size of 3.7 or 260.5 is refused with the rule, never rounded in
    silence (Gradio's whole-number boxes round what is sent before a handler sees it)."""
    with pytest.raises(AppError, match=r"The seed must be .*not .?3\.7"):
        client.predict(TEXT, "gpt2", True, False, False, "bpe", "dropout", 0.1, 3.7, api_name="/compare")
    with pytest.raises(AppError, match=r"The seed must be .*not .?3\.7"):
        client.predict(TEXT, None, "gpt2", ["dropout"], 0.1, 3.7, api_name="/across_methods")
    with pytest.raises(AppError, match=r"The vocabulary size must be a whole number .*not .?260\.5"):
        client.predict([handle_file(upload(tmp_path, b"abc abd\n", "s.txt"))], 260.5, "byte", False, api_name="/train")
    # whole numbers are taken as they are
    dropped = client.predict(TEXT, "gpt2", True, False, False, "bpe", "dropout", 0.1, 4.0, api_name="/compare")[5]
    tok = load_preset("gpt2")
    assert dropped["lbpe"]["ids"] == tok.encode(TEXT, mode="dropout", dropout=0.1, seed=4, disallowed_special=())


def test_lbpe_serve_launches_the_same_app(tmp_path):
    with running_server([sys.executable, "-m", "lbpe", "serve", "--host", "127.0.0.1", "--port", "{port}"]) as s:
        c = Client(s.url, verbose=False)
        check_compare(c.predict(TEXT, "lbpe-32k", True, False, api_name="/compare"), load_preset("lbpe-32k"), TEXT)
        # what it prints is true of lbpe serve: where it listens, no hint about a share flag it
        # does not have, no HTTP client chatter
        output = s.tail(200)
        assert f"Running on {s.url}" in output, output
        assert "share=True" not in output and "httpx" not in output, output


def test_lbpe_serve_from_a_plain_install(tmp_path):
    """``pip install "lbpe[app]" && lbpe serve`` works anywhere: the app is part of the package.
    lbpe is installed (not editable) into a folder and served from another, with no checkout on
    the path."""
    import subprocess

    target = tmp_path / "site-packages"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PYTHONPATH": str(target)}
    probe = subprocess.run(
        [sys.executable, "-c", "import lbpe.playground.app, lbpe; print(lbpe.__file__)"],
        cwd=elsewhere,
        env={**os.environ, **env, "GRADIO_ANALYTICS_ENABLED": "False"},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert probe.returncode == 0 and probe.stdout.strip().startswith(str(target)), probe.stderr[-2000:]
    command = [
        sys.executable,
        "-c",
        "import sys; from lbpe.cli import main; sys.exit(main(sys.argv[1:]))",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "{port}",
    ]
    with running_server(command, env=env, cwd=elsewhere) as s:
        c = Client(s.url, verbose=False)
        check_compare(c.predict(TEXT, "gpt2", True, False, api_name="/compare"), load_preset("gpt2"), TEXT)


def test_a_busy_port_is_a_hint_not_a_traceback():
    import socket
    import subprocess

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "lbpe", "serve", "--host", "127.0.0.1", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"},
        )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert f"port {port} is taken" in proc.stderr and "--port" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (["--host", "999.1.1.1"], {}, "the address 999.1.1.1 (--host) is no host name or address this machine can"),
        (["--host", "203.0.113.5"], {}, "203.0.113.5 (--host) is not an address of this machine"),
        ([], {"GRADIO_SERVER_NAME": "999.1.1.1"}, "the address 999.1.1.1 (GRADIO_SERVER_NAME) is no host name"),
        (["--port", "70000"], {}, "--port 70000 is not a port: choose one from 1 to 65535"),
        (["--port", "-1"], {}, "--port -1 is not a port: choose one from 1 to 65535"),
        ([], {"GRADIO_SERVER_PORT": "abc"}, "GRADIO_SERVER_PORT='abc' is not a port: choose one from 1 to 65535"),
    ],
)
def test_an_address_it_cannot_listen_on_is_said_at_once(args, env, said):
    import subprocess

    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "lbpe", "serve", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", **env},
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert said in proc.stderr and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert "is taken" not in proc.stderr
    assert time.monotonic() - started < 30  # no retries: Gradio tried a bad host for minutes


def test_bad_input_leaves_no_traceback_on_the_server_console(server, client):
    before = server.tail(100_000).count("Traceback")
    for call in (
        lambda: client.predict("y" * 401, "gpt2", api_name="/explain"),
        lambda: client.predict(None, "gpt2", api_name="/corpus_stats"),
        lambda: client.predict("x", "no-such-vocabulary", True, False, api_name="/compare"),
    ):
        with pytest.raises(AppError):
            call()
    time.sleep(0.5)
    assert server.tail(100_000).count("Traceback") == before, server.tail()


@pytest.mark.parametrize("name", list(POLYNOMIAL))
def test_a_polynomial_pattern_cannot_hold_the_server(server, tmp_path, name):
    """An uploaded tokenizer.json whose Split pattern backtracks polynomially, on 50,000
    characters: a clear error within 10 s, while another client's request is served."""
    pattern, char = POLYNOMIAL[name]
    attacker, other = Client(server.url, verbose=False), Client(server.url, verbose=False)
    hostile = upload(tmp_path, hostile_tokenizer_json(pattern), "tokenizer.json")
    vocab = attacker.predict([handle_file(hostile)], "auto", api_name="/upload_vocab")[0]["value"]
    served: dict = {}

    def normal_request():
        began = time.monotonic()
        served["result"] = other.predict(TEXT, "gpt2", True, False, api_name="/compare")
        served["seconds"] = time.monotonic() - began

    started = time.monotonic()
    job = attacker.submit(char * CHARS, vocab, True, False, api_name="/compare")
    time.sleep(0.5)  # the hostile request is running
    second = threading.Thread(target=normal_request)
    second.start()
    with pytest.raises(AppError) as err:
        job.result(timeout=60)
    elapsed = time.monotonic() - started
    second.join(60)
    message = str(err.value)
    assert elapsed < 10, f"the hostile request took {elapsed:.1f} s"
    assert pattern in message and "backtracks heavily" in message and "Traceback" not in message, message
    assert "LBPE_" not in message, message  # the server's variables are for its log, not its visitors
    assert served["seconds"] < 10, f"the other client waited {served['seconds']:.1f} s"
    check_compare(served["result"], load_preset("gpt2"), TEXT)


def test_across_vocabularies(client):
    rows, plot, json_file, csv_file, status, cleared = client.predict(TEXT, None, api_name="/across_vocabularies")
    assert rows["headers"] == ACROSS_HEADERS
    assert [r[0] for r in rows["data"]] == list(VOCAB_PRESETS)
    doc = json.loads(Path(json_file).read_text("utf-8"))
    for row, summary in zip(rows["data"], doc["vocabularies"]):
        tok = load_preset(summary["vocab"])
        for mode, column in (("bpe", 3), ("lbpe", 4)):
            assert row[column] == summary[mode]["tokens"] == len(tok.encode(TEXT, mode=mode, disallowed_special=()))
    assert json.loads(plot["plot"])["data"][0]["orientation"] == "h"
    with pytest.raises(AppError, match="Type or paste a text"):
        client.predict("", None, api_name="/across_vocabularies")


@pytest.mark.parametrize("name", list(VOCAB_PRESETS))
def test_explain_over_the_api_equals_lbpe(client, name):
    from lbpe.analysis.explain import explain
    from lbpe.playground.display import explain_html

    tok = load_preset(name)
    html, steps, slider = client.predict(" Capitals", name, api_name="/explain")
    ex = explain(tok, " Capitals")
    assert steps == json.loads(json.dumps(ex.to_json())) and html == explain_html(ex)
    assert steps["bpe_tokens"] == len(tok.encode(" Capitals", mode="bpe"))
    assert [i for p in steps["pieces"] for i in p["lbpe"]["ids"]] == tok.encode(" Capitals", mode="lbpe")
    if tok.normalizer is None:  # the pieces are text the encoder takes as it is: each encodes alone alike
        alone = [tok.encode(p, mode="lbpe") for p in tok.pieces(" Capitals")]
        assert [p["lbpe"]["ids"] for p in steps["pieces"]] == alone
    assert client.predict(" Capitals", name, 1, api_name="/explain_frame") == explain_html(ex, 1)
    text = "The Capitals of Europe"
    assert client.predict(text, f"{text.index('Eu')}:1", name, api_name="/explain_click") == (" Europe", "15")
    with pytest.raises(AppError, match="at most 400 characters"):
        client.predict("y" * 401, name, api_name="/explain")


LONG_SPAN = "The unbelievably overcomplicated anticonstitutional reorganisation of electroencephalography departments."


def test_explain_frame_over_the_api_reaches_every_step_of_a_long_span(client):
    """The step slider starts with the opening example's few frames; a caller's step of a
    longer explanation is that explanation's, not refused as past the example's last."""
    from lbpe.analysis.explain import explain
    from lbpe.playground.display import explain_html

    ex = explain(load_preset("cl100k_base"), LONG_SPAN)
    assert ex.frames > 41
    assert client.predict(LONG_SPAN, "cl100k_base", 40, api_name="/explain_frame") == explain_html(ex, 40)


def test_a_step_asked_before_the_explanation_shrank_shows_its_last_step(client):
    """A step taken while the pair changes reaches the server after the new explanation set the
    slider's range (a page under load): the new explanation's last step, not Gradio's refusal
    (which replaced the steps in the page's Explain box)."""
    tok = load_preset("cl100k_base")
    pair = ("longest-prefix", "least-tokens")
    where = (LONG_SPAN, "0", False)
    _, long_steps, slider = client.predict(
        LONG_SPAN, "cl100k_base", *where, "bpe", "lbpe", None, None, api_name="/explain"
    )
    html, steps, _ = client.predict(LONG_SPAN, "cl100k_base", *where, *pair, None, None, api_name="/explain")
    last = steps["frames"] - 1
    assert slider["maximum"] == long_steps["frames"] - 1 > last  # the frame below is past the new range
    for side, method in enumerate(pair):
        ids = [i for piece in steps["pieces"] for i in piece["sides"][side]["ids"]]
        assert ids == tok.encode(LONG_SPAN, mode=method, disallowed_special=())
    stale = client.predict(
        LONG_SPAN, "cl100k_base", slider["maximum"], *where, *pair, None, None, api_name="/explain_frame"
    )
    assert f'data-frame="{last}"' in stale and stale == html


def test_decode_ids_over_the_api(client):
    tok = load_preset("o200k_base")
    ids = tok.encode("naïve Capitals 東京", mode="lbpe")
    out = client.predict(str(ids), "o200k_base", api_name="/decode_ids")
    assert out == display.decode_html(tok, ids) and "naïve Capitals 東京" in out
    with pytest.raises(AppError, match="not a token id"):
        client.predict("1 2 three", "o200k_base", api_name="/decode_ids")
