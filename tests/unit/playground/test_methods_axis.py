"""The methods axis of the Across and Corpus views (:func:`lbpe.playground.service.methods_view`):
one vocabulary, every chosen method. Each figure is checked against what ``Tokenizer.encode``
gives for that method, counted here by hand, and the whole table against ``lbpe stats
--methods``' own function; a link's ``ax``/``ms``/``mdr``/``mseed`` keys are read back."""

from __future__ import annotations

import json

import pytest

from lbpe import METHODS
from lbpe.analysis.methods import methods_stats
from lbpe.errors import LbpeError, NotUtf8Error
from lbpe.playground.service import link_state, methods_view
from lbpe.presets import load_preset

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


def by_method(view) -> dict[str, list]:
    return {row[0]: row for row in view["rows"]}


def test_every_method_by_default_with_its_own_token_count(tok):
    view = methods_view(tok, text=TEXT, dropout=RATE, seed=SEED)
    assert view["methods"] == list(METHODS)
    rows = by_method(view)
    assert list(rows) == list(METHODS)
    size = len(TEXT.encode("utf-8"))
    words = len(TEXT.split())
    for method in METHODS:
        ids = encoded(tok, TEXT, method)
        tokens, bytes_per_token, fertility = rows[method][1], rows[method][2], rows[method][5]
        assert tokens == len(ids), method
        assert bytes_per_token == round(size / len(ids), 4), method
        assert fertility == round(len(ids) / words, 4), method
    # the methods really differ on this text: the table is not one row repeated
    assert len({rows[m][1] for m in METHODS}) > 2


def test_the_long_token_share_and_agreement_by_hand(tok):
    view = methods_view(tok, text=TEXT, methods=("bpe", "longest-prefix"))
    rows = by_method(view)
    assert rows["bpe"][6] == 100.0  # BPE agrees with itself on every word
    for method in ("bpe", "longest-prefix"):
        pieces = [tok.decode_bytes([i]) for i in encoded(tok, TEXT, method)]
        long = sum(len(p) >= 7 for p in pieces)
        assert rows[method][3] == round(100 * long / len(pieces), 3), method
    assert 0 <= rows["longest-prefix"][6] < 100


def test_the_table_is_lbpe_stats_methods(tok):
    chosen = ("lbpe", "least-tokens", "dropout")
    view = methods_view(tok, text=TEXT, methods=chosen, dropout=RATE, seed=SEED)
    want = methods_stats(tok, TEXT, methods=chosen, dropout=RATE, seed=SEED)
    assert view["stats"] == want
    assert json.loads(view["json"])["methods"] == json.loads(json.dumps(want["methods"]))
    assert view["csv"].splitlines()[0].split(",")[0] == "method"
    assert [line.split(",")[0] for line in view["csv"].splitlines()[1:]] == list(chosen)


def test_a_file_gives_what_its_text_gives(tok):
    from_text = methods_view(tok, text=TEXT, methods=("bpe", "lbpe", "longest-suffix"))
    from_file = methods_view(tok, data=TEXT.encode(), source="t.txt", methods=("bpe", "lbpe", "longest-suffix"))
    assert from_file["rows"] == from_text["rows"]
    assert from_file["status"].startswith("t.txt")
    with pytest.raises(NotUtf8Error):
        methods_view(tok, data=b"ok \xc3\x28", source="bad.txt")


def test_the_html_table_figure_and_status_name_every_method(tok):
    view = methods_view(tok, text=TEXT, methods=("bpe", "lbpe", "least-tokens"))
    for method in ("bpe", "lbpe", "least-tokens"):
        assert f">{method}<" in view["table"]
        assert f">{len(encoded(tok, TEXT, method))}<" in view["table"]
    assert view["table"].startswith("<table")
    assert sorted(view["figure"]["data"][0]["y"]) == sorted(("bpe", "lbpe", "least-tokens"))
    assert "**cl100k_base**" in view["status"] and "3 methods" in view["status"]


def test_the_status_names_every_method_tied_for_the_fewest_tokens(tok):
    """Methods with equally few tokens are all named (one was named, as if it alone were best)."""
    chosen = ("bpe", "lbpe", "least-tokens")
    counts = {m: len(encoded(tok, TEXT, m)) for m in chosen}
    least = min(counts.values())
    tied = [m for m in chosen if counts[m] == least]
    assert len(tied) >= 2, counts  # the text makes a tie (least-tokens is never above the others)
    status = methods_view(tok, text=TEXT, methods=chosen)["status"]
    assert all(f"**{m}**" in status for m in tied) and f"need the fewest tokens ({least:,})" in status, status
    alone = methods_view(tok, text="a", methods=chosen)["status"]
    assert "all 3 methods need 1 token" in alone, alone


def test_a_dropout_rate_is_ignored_without_dropout(tok):
    with_rate = methods_view(tok, text=TEXT, methods=("bpe", "lbpe"), dropout=0.5, seed=1)
    assert with_rate["stats"]["dropout"] is None
    assert with_rate["rows"] == methods_view(tok, text=TEXT, methods=("bpe", "lbpe"))["rows"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"text": TEXT, "methods": ("bpe", "longest_prefx")}, r"unknown method 'longest_prefx'.*longest-prefix"),
        ({"text": TEXT, "methods": ()}, "no method"),
        ({"text": "   "}, "Type or paste a text"),
        ({"text": TEXT, "methods": ("dropout",), "dropout": 2.0}, "from 0 to 1"),
    ],
)
def test_bad_input_says_what_to_do(tok, options, message):
    with pytest.raises(LbpeError, match=message):
        methods_view(tok, **options)


# ---- links ----


def test_a_link_carries_the_axis_and_the_methods():
    wanted = link_state({"ax": "methods", "ms": "bpe,least-tokens,dropout", "mdr": "0.3", "mseed": "7"}, text_chars=10)
    assert wanted["notes"] == []
    assert wanted["axis"] == "methods"
    assert wanted["axis_methods"] == ("bpe", "least-tokens", "dropout")
    assert (wanted["axis_dropout"], wanted["axis_seed"]) == (0.3, 7)


def test_a_link_without_methods_means_every_method():
    wanted = link_state({"ax": "methods"}, text_chars=10)
    assert wanted["axis"] == "methods" and "axis_methods" not in wanted and wanted["notes"] == []


def test_a_link_with_every_method_keeps_dropouts_rate_and_seed():
    # both UIs write mdr and mseed while dropout is ticked, ms only when not every method is
    wanted = link_state({"ax": "methods", "mdr": "0.3", "mseed": "7"}, text_chars=10)
    assert wanted["notes"] == [] and "axis_methods" not in wanted
    assert (wanted["axis_dropout"], wanted["axis_seed"]) == (0.3, 7)
    fresh = link_state({"ax": "methods", "mdr": "0.05"}, text_chars=10)
    assert (fresh["axis_dropout"], fresh["axis_seed"]) == (0.05, None)
    bad = link_state({"ax": "methods", "mdr": "7"}, text_chars=10)
    assert "axis_dropout" not in bad and bad["axis"] == "methods"
    (note,) = bad["notes"]
    assert "from 0 to 1" in note and "every method is shown" in note


def test_a_link_with_an_unknown_method_says_so():
    wanted = link_state({"ax": "methods", "ms": "bpe,lbpee"}, text_chars=10)
    assert wanted["axis"] == "methods" and "axis_methods" not in wanted
    (note,) = wanted["notes"]
    assert "lbpee" in note and "did you mean lbpe?" in note and "every method is shown" in note


def test_a_link_with_an_unknown_axis_says_so():
    wanted = link_state({"ax": "tokenizers"}, text_chars=10)
    assert "axis" not in wanted
    (note,) = wanted["notes"]
    assert "tokenizers" in note and "vocabularies or methods" in note


def test_a_bad_dropout_rate_in_a_link_says_so():
    wanted = link_state({"ax": "methods", "ms": "bpe,dropout", "mdr": "7"}, text_chars=10)
    assert "axis_methods" not in wanted
    assert "from 0 to 1" in wanted["notes"][0]
