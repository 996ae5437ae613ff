"""The Across and Corpus tabs' methods axis (the handlers called directly, no server): one
vocabulary, every method ticked. Token counts are ``Tokenizer.encode``'s, the whole table is
what ``lbpe stats --methods --json`` prints for the same file (run as a subprocess), bad input
is a readable gr.Error, the axis shows its own controls, and a link carries the axis and the
methods (written by the page's own script, app.js, run in Node) and restores them, an unknown
method said in the link's note."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from types import SimpleNamespace

import pytest

from lbpe import METHODS
from lbpe.playground.service import link_state
from lbpe.presets import load_preset
from tests.support.app import app_script_query, load_app, upload
from tests.support.cli import run_cli

app = load_app()
gr = app.handlers.common.gr

TEXT = (
    "The unbelievably overcomplicated anticonstitutional reorganisation of electroencephalography departments "
    "continues, while internationalisation proceeds.\nIts counterrevolutionaries disagree."
)
VOCAB = "cl100k_base"
RATE, SEED = 0.2, 5


@pytest.fixture(scope="module")
def tok():
    return load_preset(VOCAB)


def encoded(tok, text: str, method: str) -> list[int]:
    options = {"dropout": RATE, "seed": SEED} if method == "dropout" else {}
    return tok.encode(text, mode=method, disallowed_special=(), **options)


def cli_methods(path: Path, methods: tuple[str, ...]) -> dict:
    """``lbpe stats --methods ... --json`` of ``path``, as a person runs it."""
    options = ["--dropout", str(RATE), "--seed", str(SEED)] if "dropout" in methods else []
    done = run_cli(
        "stats", "--vocab", VOCAB, "--methods", ",".join(methods), *options, "--json", "-q", "--workers", "1", str(path)
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


# ---- Across ----


def test_across_methods_counts_each_methods_tokens(tok):
    state = app.new_session()
    rows, figure, json_path, csv_path, status, cleared = app.handlers.across_methods(
        TEXT, None, VOCAB, state, list(METHODS), RATE, SEED
    )
    assert [r[0] for r in rows] == list(METHODS) and cleared is None
    for row in rows:
        assert row[1] == len(encoded(tok, TEXT, row[0])), row[0]
    doc = json.loads(Path(json_path).read_text("utf-8"))
    assert doc["source"].startswith(f"the Compare text ({len(TEXT):,} characters: `") and doc["vocab"] == VOCAB
    assert (doc["dropout"], doc["seed"]) == (RATE, SEED)
    assert Path(csv_path).read_text("utf-8").splitlines()[0].startswith("method,tokens,")
    assert sorted(figure.data[0].y) == sorted(METHODS)
    assert f"**{VOCAB}**" in status and "6 methods" in status


def test_across_methods_of_a_file_is_lbpe_stats_methods(tmp_path):
    chosen = ("bpe", "longest-suffix", "dropout")
    source = tmp_path / "doc.txt"
    source.write_text(TEXT, "utf-8")
    rows, _, json_path, _, status, _ = app.handlers.across_methods(
        "ignored when a file is given", upload(tmp_path, source, "doc.txt"), VOCAB, None, list(chosen), RATE, SEED
    )
    doc = json.loads(Path(json_path).read_text("utf-8"))
    assert doc["methods"] == cli_methods(source, chosen)["methods"]
    assert status.startswith("doc.txt")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("hello", None, VOCAB, None, []), "Tick at least one method"),
        (("hello", None, VOCAB, None, ["bpe", "dropout"], None), "rate"),
        (("hello", None, VOCAB, None, ["bpe", "dropout"], 0.1, 1.5), "whole number"),
        (("hello", None, VOCAB, None, ["bpe", "nope"]), r"unknown method 'nope'"),
        (("  ", None, VOCAB, None, ["bpe"]), "Type or paste a text"),
    ],
)
def test_across_methods_bad_input_is_a_readable_error(args, message):
    with pytest.raises(gr.Error, match=message):
        app.handlers.across_methods(*args)


# ---- Corpus ----


def test_corpus_methods_is_lbpe_stats_methods(tmp_path, tok):
    chosen = ("bpe", "lbpe", "least-tokens", "dropout")
    text = (TEXT + "\n") * 40
    source = tmp_path / "corpus.txt"
    source.write_text(text, "utf-8")
    rows, figure, frequency, json_path, csv_path, status = app.handlers.corpus_methods(
        upload(tmp_path, source, "corpus.txt"), VOCAB, None, list(chosen), RATE, SEED
    )
    doc = json.loads(Path(json_path).read_text("utf-8"))
    assert doc["methods"] == cli_methods(source, chosen)["methods"]
    assert [r[0] for r in rows] == list(chosen)
    assert rows[1][1] == len(tok.encode(text, mode="lbpe", disallowed_special=()))
    assert frequency is None and "corpus.txt" in status
    with pytest.raises(gr.Error, match="Choose a text file"):
        app.handlers.corpus_methods(None, VOCAB, None, ["bpe"])


def test_corpus_sample_methods_covers_the_sample():
    from lbpe.presets import sample_corpus

    text = sample_corpus().decode("utf-8")
    tok = load_preset("gpt2")
    rows, *_, status = app.handlers.corpus_sample_methods("gpt2", None, ["bpe", "lbpe"])
    assert [r[1] for r in rows] == [len(tok.encode(text, mode=m, disallowed_special=())) for m in ("bpe", "lbpe")]
    assert status.startswith(app.handlers.SAMPLE_NAME)


# ---- the controls ----


def component_ids(event: str) -> tuple[list, list]:
    config = app.demo.get_config_file()
    by_id = {c["id"]: c["props"].get("elem_id") for c in config["components"]}
    dep = next(d for d in config["dependencies"] if d.get("api_name") == event)
    return [by_id[i] for i in dep["inputs"]], [by_id[i] for i in dep["outputs"]]


def test_the_events_take_the_axis_controls():
    inputs, outputs = component_ids("across_methods")
    assert inputs == [
        "text",
        "across-upload",
        "vocab",
        None,
        "across-methods",
        "across-dropout-rate",
        "across-dropout-seed",
    ]
    assert outputs[0] == "across-methods-table"
    inputs, outputs = component_ids("corpus_methods")
    assert inputs == ["corpus-upload", "vocab", None, "corpus-methods", "corpus-dropout-rate", "corpus-dropout-seed"]
    assert outputs[0] == "corpus-methods-table"
    inputs, _ = component_ids("corpus_sample_methods")
    assert inputs[-3:] == ["corpus-methods", "corpus-dropout-rate", "corpus-dropout-seed"]


def test_the_axis_shows_its_own_controls():
    vocab_side, methods_side = app.handlers.axis_controls("methods")
    assert vocab_side["visible"] is False and methods_side["visible"] is True
    vocab_side, methods_side = app.handlers.axis_controls("vocabularies")
    assert vocab_side["visible"] is True and methods_side["visible"] is False


# ---- links ----


def page_axis_link(*args) -> str:
    """The query the page's own script writes for the methods axis' state ``args`` (axis,
    methods, rate, seed)."""
    return app_script_query("axis", args, address="http://127.0.0.1/?view=across", page={"methods": list(METHODS)})


def query(link: str) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(link))


def test_the_vocabularies_axis_leaves_the_link_alone():
    assert query(page_axis_link("vocabularies", ["bpe"], 0.3, 7)) == {"view": "across"}


def test_every_method_is_left_out_of_the_link():
    assert query(page_axis_link("methods", list(METHODS), 0.1, 0)) == {
        "view": "across",
        "ax": "methods",
        "mdr": "0.1",
        "mseed": "0",
    }


@pytest.mark.parametrize(
    ("methods", "options", "want"),
    [
        (["bpe", "least-tokens"], (0.1, 0), {"ax": "methods", "ms": "bpe,least-tokens"}),
        (["lbpe", "dropout"], (0.3, 7), {"ax": "methods", "ms": "lbpe,dropout", "mdr": "0.3", "mseed": "7"}),
        (["dropout"], (0.05, None), {"ax": "methods", "ms": "dropout", "mdr": "0.05"}),
    ],
)
def test_a_link_carries_the_methods_and_restores_them(methods, options, want):
    params = query(page_axis_link("methods", methods, *options))
    assert {k: v for k, v in params.items() if k != "view"} == want
    wanted = link_state(params, text_chars=1000)
    assert wanted["axis"] == "methods" and wanted["axis_methods"] == tuple(methods)
    out = app.handlers.restore(SimpleNamespace(query_params=params))
    restored = out[-9:-1]  # (the last: the key of the comparison drawn)
    for axis, chosen, rate, seed in (restored[:4], restored[4:]):
        assert axis == "methods" and chosen == methods
        if "dropout" in methods:
            assert (rate, seed) == options
    assert out[8] == app.handlers._link_note("")


def test_a_link_with_every_method_restores_dropouts_rate_and_seed():
    params = query(page_axis_link("methods", list(METHODS), 0.3, 7))
    assert "ms" not in params and (params["mdr"], params["mseed"]) == ("0.3", "7")
    out = app.handlers.restore(SimpleNamespace(query_params=params))
    restored = out[-9:-1]  # (the last: the key of the comparison drawn)
    for axis, chosen, rate, seed in (restored[:4], restored[4:]):
        assert (axis, chosen, rate, seed) == ("methods", list(METHODS), 0.3, 7)


def test_a_link_with_an_unknown_method_says_so_in_the_note():
    out = app.handlers.restore(SimpleNamespace(query_params={"view": "across", "ax": "methods", "ms": "bpe,lbpee"}))
    note = out[8]
    assert "lbpee" in note and "did you mean lbpe?" in note and "every method is shown" in note
    restored = out[-9:-1]  # (the last: the key of the comparison drawn)
    assert restored[0] == restored[4] == "methods"
    assert restored[1] == restored[5] == list(METHODS)
