"""The app's Compare tab with two methods picked (the handlers called directly, no server): the
panes and ids are each method's own (``Tokenizer.encode``), the default pair is the classic
view, a wrong pair is a readable gr.Error, a link carries the pair (written by the page's own
script, app.js, run in Node) and restores it, and an edit with a session's kept comparison
gives what comparing afresh gives when the pair changes."""

from __future__ import annotations

import json
import re
import urllib.parse
from types import SimpleNamespace

import pytest

from lbpe.playground.service import MAX_LINK_TEXT, link_state
from lbpe.presets import load_preset
from tests.support.app import app_script_query, load_app, run_app_script

app = load_app()
gr = app.handlers.common.gr

TEXT = (
    "The unbelievably overcomplicated anticonstitutional reorganisation of electroencephalography departments "
    "continues."
)
VOCAB = "cl100k_base"


@pytest.fixture(scope="module")
def tok():
    return load_preset(VOCAB)


def pane_ids(pane: str) -> list[int]:
    return [int(i) for group in re.findall(r'data-i="([^"]*)"', pane) for i in group.split()]


def encoded(tok, text: str, method: str, **options) -> list[int]:
    return tok.encode(text, mode=method, disallowed_special=(), **options)


def test_the_default_pair_is_what_compare_gave(tok):
    plain = app.handlers.compare(TEXT, VOCAB, True, False, None, False)
    named = app.handlers.compare(TEXT, VOCAB, True, False, None, False, "bpe", "lbpe")
    # a dropout rate and seed left in their (hidden) boxes change nothing
    hidden = app.handlers.compare(TEXT, VOCAB, True, False, None, False, "bpe", "lbpe", 0.5, 3)

    # the same comparison; only what each was asked (details["asked"], for the page) differs
    def shown(out):
        return (*out[:3], {k: v for k, v in out[5].items() if k != "asked"}, *out[6:])

    assert shown(plain) == shown(named) == shown(hidden)
    # ...and the answer is of no rate or seed, as the page then holds it (its check leaves them out)
    assert (hidden[5]["asked"]["dropout"], hidden[5]["asked"]["seed"]) == (None, None)
    assert (plain[5]["asked"]["left"], plain[5]["asked"]["dropout"]) == ("bpe", None)
    assert "methods" not in plain[5]
    assert pane_ids(plain[0]) == encoded(tok, TEXT, "bpe")
    assert pane_ids(plain[1]) == encoded(tok, TEXT, "lbpe")


@pytest.mark.parametrize("pair", [("longest-prefix", "least-tokens"), ("lbpe", "longest-suffix")], ids="-".join)
def test_a_pair_fills_the_panes_and_ids_with_each_methods_tokens(tok, pair):
    left, right = pair
    out = app.handlers.compare(TEXT, VOCAB, True, False, None, False, left, right)
    want = encoded(tok, TEXT, left), encoded(tok, TEXT, right)
    assert want[0] != want[1]
    assert (pane_ids(out[0]), pane_ids(out[1])) == want
    assert out[5]["methods"] == [left, right]
    assert app.handlers.ids_text(out[5]) == tuple(" ".join(map(str, ids)) for ids in want)
    names = [app.handlers.compare_tab.display.METHOD_NAMES[m] for m in pair]
    assert f'<span class="lbpe-mode">{names[0]}</span>' in out[0]
    assert f'<span class="lbpe-mode">{names[1]}</span>' in out[1]
    assert f"<th>{names[0]}</th><th>{names[1]}</th>" in out[2]


def test_dropout_reads_the_rate_and_seed_boxes(tok):
    # gr.Number sends floats; an empty seed box sends None
    out = app.handlers.compare(TEXT, VOCAB, True, False, None, False, "dropout", "bpe", 0.25, 4.0)
    assert pane_ids(out[0]) == encoded(tok, TEXT, "dropout", dropout=0.25, seed=4)
    assert pane_ids(out[1]) == encoded(tok, TEXT, "bpe")
    assert (out[5]["dropout"], out[5]["seed"]) == (0.25, 4)
    assert "BPE-dropout 0.25" in out[0]
    fresh = app.handlers.compare(TEXT, VOCAB, True, False, None, False, "bpe", "dropout", 1.0, None)
    assert pane_ids(fresh[1]) == encoded(tok, TEXT, "dropout", dropout=1.0, seed=None)  # rate 1: no merge


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("lbpe", "lbpe"), "compare two different methods, not 'lbpe' with itself"),
        (("bpe", "fastest"), "unknown inference method 'fastest'"),
        (("bpe", "dropout", None, 0), "needs a rate"),
        (("bpe", "dropout", 1.5, 0), "dropout must be a number from 0 to 1"),
        (("bpe", "dropout", 0.1, 1.5), "The seed must be a whole number"),
        # beyond 64 bits an answer's JSON cannot hold it: said here, not an error after the handler
        (("bpe", "dropout", 0.1, 1e30), "The seed must be a whole number from 0 to 999,999,999,999"),
        (("bpe", "dropout", 0.1, 2.0**64), "The seed must be a whole number from 0 to 999,999,999,999"),
        (("bpe", "dropout", 0.1, 10**30), "The seed must be a whole number from 0 to 999,999,999,999"),
        (("bpe", "dropout", 0.1, -3.0), "The seed must be a whole number from 0 to 999,999,999,999"),
    ],
)
def test_a_wrong_pair_is_a_readable_error(args, message):
    with pytest.raises(gr.Error, match=re.escape(message)) as refused:
        app.handlers.compare(TEXT, VOCAB, True, False, None, False, *args)
    if args[-1] == 10**30:  # the seed as sent, cut short visibly: not 20 of its digits as if whole
        assert "not '10000000000000000000…' (31 digits)" in refused.value.message, refused.value.message


def test_the_pair_controls_name_the_id_boxes_and_show_dropouts_options():
    ids_left, ids_right, rate, seed, note = app.handlers.pair_controls("least-tokens", "dropout")
    assert (ids_left["label"], ids_right["label"]) == ("Least tokens ids", "BPE-dropout ids")
    assert rate["visible"] is seed["visible"] is True
    # Explain shows the pair's own steps: no note says they are another pair's
    assert note["visible"] is False and note["value"] == ""
    *_, rate, seed, note = app.handlers.pair_controls("bpe", "lbpe")
    assert rate["visible"] is seed["visible"] is note["visible"] is False


def test_the_compare_event_takes_the_pair():
    config = app.demo.get_config_file()
    by_id = {c["id"]: c["props"].get("elem_id") for c in config["components"]}
    compare = next(d for d in config["dependencies"] if d.get("api_name") == "compare")
    assert [by_id[i] for i in compare["inputs"]][-4:] == ["left-method", "right-method", "dropout-rate", "dropout-seed"]


# ---- links ----


def page_link(*args) -> str:
    """The query the page's own script writes for the Compare view's state ``args`` (text,
    vocab, ws, ids, sp, span, where, left, right, rate, seed)."""
    return app_script_query("link", args)


def query(link: str) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(link))


def test_a_link_carries_a_text_by_its_characters_and_an_empty_one_too():
    """The link carries the text up to MAX_LINK_TEXT characters, counted as Python counts them
    (restore takes it back): 1,500 emoji are 1,500 characters, not the 3,000 UTF-16 units the
    page's script sees. An empty text is carried as empty, not left to the default text."""
    emoji = "\U0001f600" * 1500
    assert len(emoji) == 1500 <= MAX_LINK_TEXT < len(emoji.encode("utf-16-le")) // 2
    args = ["cl100k_base", True, False, False, "", "", "bpe", "lbpe", "0.1", "0"]
    carried = query(page_link(emoji, *args))
    assert carried.get("t") == emoji and "tl" not in carried, sorted(carried)
    assert link_state(carried, text_chars=5_000)["text"] == emoji
    longer = emoji + "\U0001f600" * (MAX_LINK_TEXT - 1500 + 1)
    assert query(page_link(longer, *args)).get("tl") == str(MAX_LINK_TEXT + 1)
    empty = urllib.parse.parse_qs(page_link("", *args), keep_blank_values=True)
    assert empty.get("t") == [""], empty
    assert link_state({k: v[0] for k, v in empty.items()}, text_chars=5_000)["text"] == ""


def test_a_link_carries_an_emptied_explain_box_as_empty():
    """An Explain box emptied by hand is carried as x= and restored empty, not left out of the
    link, which then opened on the default span."""
    args = [TEXT, "cl100k_base", True, False, False, "", "", "bpe", "lbpe", "0.1", "0"]
    carried = urllib.parse.parse_qs(page_link(*args), keep_blank_values=True)
    assert carried.get("x") == [""] and "xa" not in carried, carried
    assert link_state({k: v[0] for k, v in carried.items()}, text_chars=5_000)["explain"] == ""
    assert "explain" not in link_state({"t": TEXT}, text_chars=5_000)  # no x at all: the default span


@pytest.mark.parametrize(
    "seed", ["1234567890123", "abc", "1.5", "-4", "１２", "0" * 21 + "1234567890123", "0" * 4400 + "1"]
)
def test_a_links_seed_that_is_no_seed_is_named(seed):
    """A seed the playground would refuse in its box (13 digits, letters, a fraction, below 0,
    digits that are not ASCII) is named, and the pair kept with fresh draws; never read as
    another seed or dropped unsaid."""
    wanted = link_state({"t": TEXT, "m": "bpe,dropout", "dr": "0.5", "seed": seed}, text_chars=10_000)
    assert wanted["methods"] == ("bpe", "dropout") and wanted["dropout"] == 0.5 and wanted["seed"] is None
    (note,) = wanted["notes"]
    assert f"Its seed “{seed[:20]}”" in note and "cannot be used" in note and "fresh draws" in note
    axis = link_state({"ax": "methods", "ms": "bpe,dropout", "mseed": seed}, text_chars=10)
    assert axis["axis_methods"] == ("bpe", "dropout") and any(f"“{seed[:20]}”" in n for n in axis["notes"])
    assert axis.get("axis_seed") is None


def test_the_address_waits_for_the_pages_load_to_be_answered():
    """Until restored() the page's changes leave the address (the link restore is about to
    read); restored() writes the last value of each key, and later changes go straight in."""
    body = """
    const seen = [location.href];
    window.lbpeApp.link("default text", "cl100k_base", true, false, false, "", "", "bpe", "lbpe", 0.1, 0);
    window.lbpeApp.view(null);
    window.lbpeApp.link("linked text", "cl100k_base", false, false, false, "", "", "bpe", "lbpe", 0.1, 0);
    seen.push(location.href);
    window.lbpeApp.restored();
    seen.push(location.href);
    window.lbpeApp.view("train");
    seen.push(location.href);
    process.stdout.write(JSON.stringify(seen));
    """
    start = "http://127.0.0.1/?t=linked%20text&view=across"
    seen = json.loads(run_app_script(body, address=start, restored=False))
    assert seen[:2] == [start, start]
    address = [query(urllib.parse.urlparse(url).query) for url in seen[2:]]
    assert address[0] == {"t": "linked text", "v": "cl100k_base", "ws": "0"}  # view(null): Compare
    assert address[1] == {"t": "linked text", "v": "cl100k_base", "ws": "0", "view": "train"}
    # a restore that failed: the page shows the defaults, the address keeps the link to try again
    failed = body.replace("window.lbpeApp.restored();", "window.lbpeApp.restored(false);")
    seen = json.loads(run_app_script(failed, address=start, restored=False))
    assert seen[:3] == [start, start, start]
    assert query(urllib.parse.urlparse(seen[3]).query) == {"t": "linked text", "view": "train"}


def test_a_link_leaves_out_the_default_pair():
    link = page_link("hello", VOCAB, True, False, False, "", "", "bpe", "lbpe", 0.1, 0)
    assert query(link) == {"t": "hello", "v": VOCAB}
    assert "methods" not in link_state(query(link), text_chars=1000)


@pytest.mark.parametrize(
    ("pair", "options", "want"),
    [
        (("longest-prefix", "least-tokens"), (0.1, 0), {"methods": ("longest-prefix", "least-tokens")}),
        (("lbpe", "bpe"), (None, None), {"methods": ("lbpe", "bpe")}),
        (("bpe", "dropout"), (0.3, 7), {"methods": ("bpe", "dropout"), "dropout": 0.3, "seed": 7}),
        (("dropout", "lbpe"), (0.05, None), {"methods": ("dropout", "lbpe"), "dropout": 0.05, "seed": None}),
    ],
)
def test_a_link_carries_the_pair_and_restores_it(tok, pair, options, want):
    link = page_link(TEXT, VOCAB, True, False, False, "", "", *pair, *options)
    params = query(link)
    assert params["m"] == ",".join(pair)
    wanted = link_state(params, text_chars=10_000)
    assert {k: wanted[k] for k in want} == want
    if "dropout" not in pair:
        assert "dr" not in params and "seed" not in params
    out = app.handlers.restore(SimpleNamespace(query_params=params))
    shown, restored = out[9:16], out[16:-1]  # (the last: the key of the comparison drawn)
    assert restored[:2] == pair
    # dropout's boxes are set before the methods (the browser test shows why), to the same values
    first = app.handlers.restore_dropout(SimpleNamespace(query_params=params))
    if "dropout" in pair:
        assert first == (want["dropout"], want["seed"]) == tuple(restored[2:4])
    else:
        assert first == ({"__type__": "update"},) * 2
    extra = {"dropout": want["dropout"], "seed": want["seed"]} if "dropout" in pair else {}
    for pane, method in zip(shown[:2], pair):
        if method == "dropout" and extra["seed"] is None:
            continue  # fresh draws: nothing to compare with
        assert pane_ids(pane) == encoded(tok, TEXT, method, **(extra if method == "dropout" else {}))
    assert shown[5]["methods"] == list(pair)
    assert restored[4]["label"] == f"{app.handlers.compare_tab.display.METHOD_NAMES[pair[0]]} ids"
    assert restored[6]["visible"] is ("dropout" in pair)


def test_a_link_without_a_pair_or_with_a_wrong_one_opens_bpe_and_lbpe():
    keep = app.handlers.restore(SimpleNamespace(query_params={"t": "hello"}))
    assert all(update == {"__type__": "update"} for update in keep[16:-1])
    assert "methods" not in keep[9 + 5]
    wrong = app.handlers.restore(SimpleNamespace(query_params={"t": "hello", "m": "lbpe,lbpe"}))
    assert "cannot be compared" in wrong[8] and "BPE and LBPE are shown" in wrong[8]
    assert "methods" not in wrong[9 + 5]


# ---- a session's kept comparison ----


def test_a_pair_change_after_an_edit_gives_what_comparing_afresh_gives(tok):
    state = app.handlers.new_session()
    steps = [
        (TEXT, "bpe", "lbpe"),
        (TEXT + " More words", "bpe", "lbpe"),
        (TEXT + " More words", "longest-prefix", "least-tokens"),
        (TEXT + " More words, edited", "longest-prefix", "least-tokens"),
        (TEXT + " More", "least-tokens", "bpe"),
        (TEXT + " More", "bpe", "lbpe"),
    ]
    for text, left, right in steps:
        got = app.handlers.compare(text, VOCAB, True, False, state, False, left, right)
        afresh = app.handlers.compare(text, VOCAB, True, False, None, False, left, right)
        assert got[:3] + got[5:] == afresh[:3] + afresh[5:]
        assert (pane_ids(got[0]), pane_ids(got[1])) == (encoded(tok, text, left), encoded(tok, text, right))


def steps_ids(steps: dict, side: int) -> list[int]:
    return [i for piece in steps["pieces"] for i in piece["sides"][side]["ids"]]


@pytest.mark.parametrize(
    ("left", "right", "options"),
    [("longest-prefix", "least-tokens", {}), ("longest-suffix", "dropout", {"dropout": 0.3, "seed": 5})],
)
def test_explain_follows_the_pair_with_each_methods_own_steps(tok, left, right, options):
    rate, seed = options.get("dropout"), options.get("seed")
    # the whole text, clicked where it stands: each side's ids are the method's own there
    html, steps, slider = app.handlers.explain(TEXT, VOCAB, None, None, TEXT, "0", False, left, right, rate, seed)
    assert steps["methods"] == [left, right]
    assert steps_ids(steps, 0) == encoded(tok, TEXT, left, **(options if left == "dropout" else {}))
    assert steps_ids(steps, 1) == encoded(tok, TEXT, right, **(options if right == "dropout" else {}))
    names = {"longest-prefix": "Longest prefix", "least-tokens": "Least tokens", "longest-suffix": "Longest suffix"}
    assert f'lbpe-x-method">{names[left]}</div>' in html
    right_name = names.get(right, "BPE-dropout 0.3, seed 5")
    assert f'lbpe-x-method">{right_name}</div>' in html
    assert "merges by rank" not in html  # no BPE against LBPE frame
    assert slider["maximum"] == steps["frames"] - 1
    # a frame shows the steps so far; the buttons move within the pair's frames
    first = app.handlers.explain_frame(TEXT, VOCAB, 1, None, TEXT, "0", False, left, right, rate, seed)
    assert 'data-frame="1"' in first and first.count("<li") < html.count("<li")
    last = steps["frames"] - 1
    move = app.handlers.explain_move(1, last, TEXT, VOCAB, None, TEXT, "0", False, left, right, rate, seed)
    assert move == last


def test_a_click_picks_a_span_where_the_pair_differs(tok):
    # least-tokens and longest-prefix differ somewhere in TEXT; a click there explains that span
    ranges = [
        (s.start, s.end)
        for s in tok.segment(TEXT, mode="least-tokens", disallowed_special=())
        if (s.start, s.end)
        not in {(t.start, t.end) for t in tok.segment(TEXT, mode="longest-prefix", disallowed_special=())}
    ]
    assert ranges
    at = ranges[0][0]
    span, where = app.handlers.explain_click(TEXT, f"{at}:1", VOCAB, None, False, "longest-prefix", "least-tokens")
    start = int(where)
    assert TEXT[start : start + len(span)] == span and start <= at < start + len(span)
    _, steps, _ = app.handlers.explain(span, VOCAB, None, None, TEXT, where, False, "longest-prefix", "least-tokens")
    assert steps["in_text"] == {"start": start, "end": start + len(span)}
    segments = {m: tok.segment(TEXT, mode=m, disallowed_special=()) for m in ("longest-prefix", "least-tokens")}
    for side, method in enumerate(("longest-prefix", "least-tokens")):
        inside = [s.id for s in segments[method] if start <= s.start and s.end <= start + len(span)]
        assert steps_ids(steps, side) == inside


def test_classic_explain_is_unchanged_by_the_pair_arguments():
    plain = app.handlers.explain(" Capitals", VOCAB)
    assert app.handlers.explain(" Capitals", VOCAB, None, None, "", "", False, "bpe", "lbpe", None, None) == plain


def test_the_explain_events_take_the_pair():
    config = app.demo.get_config_file()
    by_id = {c["id"]: c["props"].get("elem_id") for c in config["components"]}
    for name in ("explain", "explain_on_page", "explain_frame", "explain_click"):
        event = next(d for d in config["dependencies"] if d.get("api_name") == name)
        inputs = [by_id[i] for i in event["inputs"]][-4:]
        assert inputs == ["left-method", "right-method", "dropout-rate", "dropout-seed"], name
