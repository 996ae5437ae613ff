"""lbpe.playground.display: comparisons, differing spans, HTML, length shift, Plotly spec, corpus tables."""

from __future__ import annotations

import csv
import html
import io
import json
import re

import pytest

from lbpe.analysis.stats import Stats, text_stats
from lbpe.playground import display
from lbpe.playground.display.render import _groups
from lbpe.presets import VOCAB_PRESETS, load_preset
from lbpe.tokenizer import Segment, Tokenizer
from lbpe.vocab import Vocab
from tests.support.data import data_file

MIXED = (
    "Tokenization <b>&amp;</b> naïve café, 日本語 🙂 internationalization\n"
    "\tdef f(x):\r\n        return x  # <|endoftext|> stays text\n"
)


def segs(*spans, token=None):
    return [Segment(0, s, e, token if token is not None else b"x" * (e - s)) for s, e in spans]


def toy() -> Tokenizer:
    tokens = {bytes([b]): b for b in range(256)}
    tokens.update({b"aa": 256, b"bb": 257, b"bbb": 258, b"ab": 259, b"aab": 260})
    return Tokenizer(Vocab(tokens), "paper")


# ---- differing_spans: tiny known answers ----


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (segs((0, 2), (2, 5)), segs((0, 2), (2, 5)), ()),
        (segs((0, 2), (2, 5)), segs((0, 3), (3, 5)), ((0, 5),)),
        (segs((0, 1), (1, 3), (3, 4)), segs((0, 1), (1, 2), (2, 4)), ((1, 4),)),
        (segs((0, 2), (2, 3), (3, 5), (5, 6)), segs((0, 1), (1, 3), (3, 5), (5, 6)), ((0, 3),)),
        (segs((0, 2), (2, 4)), segs((0, 1), (1, 2), (2, 3), (3, 4)), ((0, 2), (2, 4))),
        ([], [], ()),
    ],
)
def test_differing_spans_known_answers(a, b, expected):
    assert display.differing_spans(a, b) == expected
    assert display.differing_spans(b, a) == expected


def test_differing_spans_sees_partial_tokens_that_split_one_character_differently():
    # "日" (3 bytes): two partial tokens on one side, one whole token on the other
    a = [Segment(1, 0, 1, b"\xe6\x97", partial=True), Segment(2, 0, 1, b"\xa5", partial=True), Segment(3, 1, 2, b"x")]
    b = [Segment(4, 0, 1, "日".encode()), Segment(3, 1, 2, b"x")]
    assert display.differing_spans(a, b) == ((0, 1),)
    # a partial token straddling a character boundary is never cut through
    a = [Segment(1, 0, 2, b"\xe6\x97\xa5\xe6", partial=True), Segment(2, 1, 2, b"\x9c\xac", partial=True)]
    b = [Segment(3, 0, 1, "日".encode()), Segment(4, 1, 2, "本".encode())]
    assert display.differing_spans(a, b) == ((0, 2),)


def test_compare_on_a_toy_vocabulary():
    c = display.compare(toy(), "aabbb aabbb")
    assert [s.label for s in c.bpe.segments] == ["aa", "bbb", " ", "aa", "bbb"]
    assert [s.label for s in c.lbpe.segments] == ["aab", "bb", " ", "aab", "bb"]
    assert c.differ == ((0, 5), (6, 11))
    assert c.differing_chars == 10
    assert c.to_json()["differ"] == [[0, 5], [6, 11]]


# ---- compare on the bundled vocabularies ----


@pytest.mark.parametrize("name", list(VOCAB_PRESETS))
def test_compare_matches_encode_and_covers_the_text(name):
    tok = load_preset(name)
    c = display.compare(tok, MIXED)
    for mode in ("bpe", "lbpe"):
        side = c.side(mode)
        assert side.ids == tok.encode(MIXED, mode=mode, disallowed_special=())
        assert side.bytes == len(MIXED.encode()) and side.chars == len(MIXED)
        assert side.bytes_per_token == pytest.approx(side.bytes / side.tokens)

    # every differing range holds a token boundary of one side that the other lacks
    def inside(side, start, end):
        return [(s.start, s.end, s.token) for s in side.segments if start <= s.start and s.end <= end]

    for start, end in c.differ:
        assert inside(c.bpe, start, end) != inside(c.lbpe, start, end)
    json.dumps(c.to_json())


def test_special_token_strings_stay_ordinary_text():
    tok = load_preset("cl100k_base")
    c = display.compare(tok, "a <|endoftext|> b")
    assert 100257 not in c.bpe.ids and 100257 not in c.lbpe.ids
    assert not any(s.special for s in c.bpe.segments)


def test_lone_surrogates_are_replaced_not_fatal():
    c = display.compare(load_preset("gpt2"), "a\ud800b")
    assert c.text == "a\ufffdb"
    assert c.bpe.ids == load_preset("gpt2").encode("a\ufffdb", mode="bpe")


# ---- HTML ----


def visible_text(fragment: str) -> str:
    """The characters a reader sees, without ids (whitespace glyphs left as they are)."""
    fragment = re.sub(r'<span class="lbpe-id">.*?</span>', "", fragment)
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


@pytest.mark.parametrize("name", list(VOCAB_PRESETS))
def test_render_html_shows_the_text_once_escaped_and_never_u_fffd(name):
    tok = load_preset(name)
    c = display.compare(tok, MIXED)
    for mode in ("bpe", "lbpe"):
        out = display.render_html(c.side(mode).segments, c.text, differ=c.differ, show_whitespace=False)
        assert re.search(r"<b[ >]|</b>", out) is None  # the user's markup is text
        assert "\ufffd" not in out
        assert visible_text(out) == c.text
        assert out.count('class="lbpe-tok ') == len(list(_groups(c.side(mode).segments)))


def test_byte_tokens_are_grouped_with_their_bytes_in_the_tooltip():
    tok = load_preset("gpt2")
    c = display.compare(tok, "日")
    out = display.render_html(c.bpe.segments, c.text)
    assert len(c.bpe.segments) == 2
    assert out.count('class="lbpe-tok ') == 1 and "lbpe-bytes" in out
    title = html.unescape(re.search(r'title="([^"]*)"', out).group(1))
    assert title.splitlines() == ['2 tokens for "日"', f"#{c.bpe.ids[0]}  \\xe6\\x97", f"#{c.bpe.ids[1]}  \\xa5"]
    # character-level byte fallback (the default vocabulary has no token for "🙂")
    c = display.compare(load_preset("lbpe-32k"), "🙂")
    out = display.render_html(c.bpe.segments, c.text)
    assert c.bpe.tokens == 4 and out.count('class="lbpe-tok ') == 1
    assert "\\xf0" in html.unescape(out) and ">🙂<" in out


#: Characters that show nothing or move the text around them (a right-to-left override, an
#: isolate and its end, a zero-width space, a byte order mark, a line separator, a soft hyphen)
#: and a C1 control: each view writes them as their escapes.
HIDDEN = "\u202e\u2067\u2069\u200b\ufeff\u2028\u00ad\u0085"

#: Characters that show nothing and are no format control: tag characters (a language tag, and
#: "hi" spelled in tags: text hidden in what reads as plain text), the Hangul fillers, the
#: combining grapheme joiner, a Khmer inherent vowel, a shorthand format control, a musical
#: format character, variation selectors (a run of them can spell bytes after one letter), a
#: Mongolian one, and default-ignorable code points not assigned yet.
INVISIBLE = (
    "\U000e0001\U000e0068\U000e0069\u3164\u115f\u1160\uffa0\u034f\u17b4\U0001bca0\U0001d173"
    "\ufe00\ufe0f\U000e0100\U000e01ef\u180b\u2065\ufff0\U000e0000\U000e0080\U000e0fff"
)


def escape(ch: str) -> str:
    """How a person writes the character in Python: four hex digits, or eight."""
    return f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}"


@pytest.mark.parametrize(
    ("hidden", "text"),
    [
        (
            HIDDEN,
            "left \u202eright words\u2067 isolated\u2069 \u200bzero\ufeffwidth\u2028line soft\u00adhyphen \u0085end",
        ),
        (
            INVISIBLE,
            f"please summarise{INVISIBLE[:3]} this \u3164 filler\u115f\u1160\uffa0 a\u034fb \u17b4\U0001bca0\U0001d173"
            " hi\ufe00\ufe0f\U000e0100\U000e01ef there \u1820\u180b \u2065\ufff0\U000e0000\U000e0080\U000e0fff",
        ),
    ],
    ids=["format controls", "other invisible characters"],
)
def test_every_view_writes_hidden_characters_as_escapes(hidden, text):
    from lbpe.analysis.explain import explain
    from lbpe.analysis.pair_steps import explain_pair
    from lbpe.analysis.trace import quoted

    tok = load_preset("gpt2")
    assert set(hidden) <= set(text)
    c = display.compare(tok, text)
    views = {
        "pane": display.render_pane(c, "bpe"),
        "pane, no glyphs": display.render_pane(c, "lbpe", show_whitespace=False),
        "differences": display.differences_html(c),
        "explain": display.explain_html(explain(tok, text)),
        "explain, first step": display.explain_html(explain(tok, text), 0),
        "pair": display.pair_html(explain_pair(tok, text, ("longest-prefix", "least-tokens"))),
        "explain text": display.explain_text(explain(tok, text)),
        "quoted": quoted(text),
    }
    for name, view in views.items():
        raw = [f"U+{ord(ch):04X}" for ch in hidden if ch in html.unescape(view)]
        assert not raw, (name, raw)
    assert escape("\U000e0068") == "\\U000e0068" and escape("\u3164") == "\\u3164"
    for name in ("pane", "pane, no glyphs", "explain", "pair"):
        for ch in hidden:
            assert f'<span class="lbpe-mark">{escape(ch)}</span>' in views[name], (name, f"U+{ord(ch):04X}")
    assert all(escape(ch) in views["quoted"] for ch in hidden)


def test_whitespace_glyphs_ids_and_diff_marks_toggle():
    c = display.compare(toy(), "aabbb\taa\n")
    with_ws = display.render_html(c.bpe.segments, c.text, differ=c.differ)
    assert '<span class="lbpe-ws">\u2192</span>' in with_ws and "\u21b5\n" in with_ws
    plain = display.render_html(c.bpe.segments, c.text, differ=c.differ, show_whitespace=False)
    assert "lbpe-ws" not in plain and "\t" in plain
    assert "lbpe-id" not in plain
    ids = display.render_html(c.bpe.segments, c.text, show_ids=True)
    assert [int(x) for x in re.findall(r'<span class="lbpe-id">(\d+)</span>', ids)] == c.bpe.ids
    marked = re.findall(r'class="([^"]*lbpe-diff[^"]*)"[^>]*>([^<]*)<', plain)
    assert [text for _, text in marked] == ["aa", "bbb"]
    assert "lbpe-diff" not in display.render_html(c.bpe.segments, c.text)


def one_token_a_character(text: str) -> list[Segment]:
    return [Segment(ord(c), k, k + 1, c.encode()) for k, c in enumerate(text)]


def runs_of(markup: str) -> list[tuple[str, str, str | None, int, int]]:
    """Each run of a long pane: its tag, classes, guessed lines, first token's offset and tokens."""
    shown = []
    for run in markup.split(display.RUN_MARK)[1:-1]:
        head = re.match(r'<(div|span) class="([^"]*)"(?: style="--lbpe-lines:(\d+)")?>', run)
        assert head, run[:80]
        first = int(re.search(r'data-s="(\d+)"', run)[1])
        shown.append((head[1], head[2], head[3], first, run.count('class="lbpe-tok')))
    return shown


@pytest.mark.parametrize("show_whitespace", [True, False])
def test_a_long_pane_comes_in_runs_of_whole_lines(show_whitespace):
    """A run ends at the first line end after 256 tokens; one that starts and ends a line (but
    the last) is a block with its lines counted, 80 characters a line; 1,024 tokens without a
    line end are cut inline; ids drawn after each token leave no run ending a line."""
    text = "0123456789\n" * 60  # 11 tokens a line: line ends after 264 and 528 tokens
    out = display.render_html(one_token_a_character(text), text, show_whitespace=show_whitespace)
    assert runs_of(out) == [
        ("div", "lbpe-run lbpe-lines lbpe-eol", "24", 0, 264),
        ("div", "lbpe-run lbpe-lines lbpe-eol", "24", 264, 264),
        ("span", "lbpe-run", None, 528, 132),
    ]
    text = "a" * 1100 + "\n" + "0123456789\n" * 30
    out = display.render_html(one_token_a_character(text), text, show_whitespace=show_whitespace)
    assert runs_of(out) == [
        ("span", "lbpe-run", None, 0, 1024),
        ("span", "lbpe-run lbpe-eol", None, 1024, 264),  # starts inside a line
        ("span", "lbpe-run", None, 1288, 143),
    ]
    text = ("x" * 170 + "\n") * 3  # lines of three guessed lines each
    out = display.render_html(one_token_a_character(text), text, show_whitespace=show_whitespace)
    assert runs_of(out) == [("div", "lbpe-run lbpe-lines lbpe-eol", "6", 0, 342), ("span", "lbpe-run", None, 342, 171)]
    text = "0123456789\n" * 100  # every line starts with a character no token covers (a gap)
    gaps = [s for s in one_token_a_character(text) if s.start % 11]
    out = display.render_html(gaps, text, show_whitespace=show_whitespace)
    assert runs_of(out)[:2] == [
        ("div", "lbpe-run lbpe-lines lbpe-eol", "24", 1, 240),
        ("div", "lbpe-run lbpe-lines lbpe-eol", "24", 265, 240),
    ]
    ids = display.render_html(one_token_a_character(text), text, show_whitespace=show_whitespace, show_ids=True)
    assert runs_of(ids) == [("span", "lbpe-run", None, 0, 1024), ("span", "lbpe-run", None, 1024, 76)]


def test_an_edit_keeps_the_runs_before_it():
    """Where a run ends depends on the tokens before it alone: text typed at the end of a long
    pane leaves every run but the last one or two as it was (the page redraws only those)."""
    text = "".join(f"line {k} " + "w" * (k % 37) + "\n" for k in range(400))
    before = display.render_html(one_token_a_character(text), text).split(display.RUN_MARK)
    for more in ("x", "\n", " more words" * 40, "y" * 3000, "z\n" * 500):
        after = display.render_html(one_token_a_character(text + more), text + more).split(display.RUN_MARK)
        assert after[: len(before) - 3] == before[:-3], more[:12]
        assert len(before) > 10


def test_control_characters_are_shown_as_pictures():
    tok = load_preset("gpt2")
    c = display.compare(tok, "a\x00b\x1b")
    out = display.render_html(c.bpe.segments, c.text)
    assert "\x00" not in out and "\u2400" in out and "\u241b" in out


def test_render_pane_and_metrics():
    c = display.compare(toy(), "aabbb")
    pane = display.render_pane(c, "lbpe", show_ids=True)
    assert 'data-mode="lbpe"' in pane and 'data-tokens="2"' in pane and 'data-differ="1"' in pane
    assert "LBPE" in pane and "1 differing span" in pane
    table = display.metrics_html(c)
    assert "<th>BPE</th>" in table and "2.500" in table  # 5 bytes / 2 tokens
    empty = display.compare(toy(), "")
    assert "(no text)" in display.render_pane(empty, "bpe")
    assert empty.differ == () and display.metrics_html(empty)


def test_a_pane_heading_groups_its_thousands_as_the_status_lines_do():
    # "aabbb" is one differing span, LBPE "aab" "bb" (the test above); "." is a token of its
    # own: 3 tokens a repeat on both sides
    c = display.compare(toy(), "aabbb." * 1000)
    for mode in ("bpe", "lbpe"):
        pane = display.render_pane(c, mode)
        assert '<span class="lbpe-count">3,000 tokens</span>' in pane, pane[:300]
        assert '<span class="lbpe-ndiff">1,000 differing spans</span>' in pane, pane[:300]
        assert 'data-tokens="3000"' in pane  # the attribute stays a number scripts read
    table = display.metrics_html(c)  # the table under the panes, and its note, alike
    assert "<td>tokens</td><td>3,000</td><td>3,000</td>" in table, table
    assert "6,000 bytes, 6,000 characters; 1,000 differing spans covering 5,000 characters" in table, table


def test_a_text_of_no_tokens_has_no_per_token_figures():
    """Nothing over nothing is no number: an empty text's bytes and characters per token read
    as not applicable, not 0.000."""
    table = display.metrics_html(display.compare(toy(), ""))
    rows = dict(re.findall(r"<tr><td>([^<]+)</td>(.*?)</tr>", table))
    assert rows["bytes / token"].count("—") == 3 and "0.000" not in rows["bytes / token"], rows
    assert rows["characters / token"].count("—") == 3, rows
    assert "<td>0</td><td>0</td>" in rows["tokens"] and "—" in rows["tokens"], rows


# ---- length shift and the chart ----


@pytest.mark.parametrize("name", ["lbpe-32k", "cl100k_base"])
def test_length_shift_reuses_the_stats_module(name):
    tok = load_preset(name)
    c = display.compare(tok, MIXED)
    stats = display.comparison_stats(tok, c)
    for mode in ("bpe", "lbpe"):
        assert stats[mode] == text_stats(tok, MIXED, mode=mode)
    shift = display.length_shift(tok, c)
    assert shift.buckets == ("1-3", "4-6", "7-9", "10-12", "13-15", "16+")
    assert sum(shift.bpe_buckets) == sum(shift.bpe_lengths) == c.bpe.tokens
    assert sum(shift.lbpe_buckets) == sum(shift.lbpe_lengths) == c.lbpe.tokens
    assert shift.lengths == tuple(range(1, len(shift.lengths) + 1))
    for b, lb, r in zip(shift.bpe_buckets, shift.lbpe_buckets, shift.relative_change):
        assert r is None if b == 0 else r == pytest.approx(lb / b - 1)
    spec = display.plotly_spec(shift, title="t")
    assert json.loads(json.dumps(spec)) == spec
    assert [t["name"] for t in spec["data"]] == ["BPE", "LBPE", "BPE", "LBPE"]
    assert spec["data"][1]["y"] == list(shift.lbpe_buckets)
    assert spec["data"][3]["x"] == list(shift.lengths)


def test_relative_change_labels():
    shift = display.shift_from_stats(
        Stats(tokens=4, length_counts={1: 2, 5: 2}), Stats(tokens=3, length_counts={1: 1, 5: 1, 20: 1}), unit="byte"
    )
    labels = display.plotly_spec(shift)["data"][1]["text"]
    assert labels == ["\u221250%", "\u221250%", "", "", "", "new"]


# ---- corpus tables ----


def test_stats_rows_and_csv():
    from lbpe.analysis.comparison import compare_json

    tok = load_preset("gpt2")
    stats = {m: text_stats(tok, MIXED, mode=m) for m in ("bpe", "lbpe")}
    summary = compare_json(stats, vocab="gpt2", unit="byte")
    rows = {r[0]: r for r in display.stats_rows(summary)}
    assert rows["tokens"][1:3] == [f"{stats['bpe'].tokens:,}", f"{stats['lbpe'].tokens:,}"]
    assert all(len(r) == len(display.STATS_HEADERS) for r in rows.values())
    # counts; without a tokenizer no vocabulary size or token lengths: 11 metrics; 6 buckets
    assert len(rows) == 3 + 11 + 6
    table = list(csv.DictReader(io.StringIO(display.stats_csv({**summary, "file": "mixed.txt"}))))
    assert list(table[0]) == display.CSV_HEADERS
    assert {(r["file"], r["vocabulary"]) for r in table} == {("mixed.txt", "gpt2")}  # every row says what it is
    by_name = {r["metric"]: r for r in table}
    assert (
        int(by_name["tokens"]["bpe"]) == stats["bpe"].tokens and int(by_name["tokens"]["lbpe"]) == stats["lbpe"].tokens
    )
    # relative changes in percent, as the tables show them
    assert by_name["tokens"]["change_unit"] == "%"
    assert float(by_name["tokens"]["change"]) == pytest.approx(100 * summary["change"]["tokens"], abs=1e-9)
    for n, count in stats["lbpe"].length_counts.items():
        assert int(by_name[f"length {n}"]["lbpe"]) == count


def test_every_metric_reaches_the_tables_with_its_meaning_and_the_papers_direction():
    from lbpe.analysis.comparison import compare_json
    from lbpe.analysis.metrics import AGREEMENT, CATALOGUE
    from lbpe.analysis.stats import text_stats_both

    tok = load_preset("lbpe-32k")
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:40_000]
    summary = compare_json(text_stats_both(tok, text), vocab=tok.name, unit="char", tok=tok)
    rows = display.summary_rows(summary)
    keys = [r.key for r in rows]
    for metric in (*CATALOGUE, *AGREEMENT):
        assert keys.count(metric.key) == 1, metric.key
    for r in rows:
        assert r.meaning, r.key
    metric = {m.key: m for m in CATALOGUE}
    for r in rows:
        if r.key in metric and metric[r.key].paper:
            change = summary["change"][r.key]
            went = "lower" if change < 0 else "higher" if change > 0 else None
            direction = r.paper.split(";")[0]  # then, where the paper reports one, its figure
            assert direction.startswith(metric[r.key].paper)
            assert direction.endswith("\u2713") == (went == metric[r.key].paper)
            assert direction.endswith("\u2717") == (went is not None and went != metric[r.key].paper)
    # the paper's own figures beside ours: Table 6's bytes per token, Table 2's buckets
    by_key = {r.key: r for r in rows}
    assert by_key["bytes_per_token"].paper.endswith("; paper: +0.184% at 32K (3.4318 -> 3.4381)")
    assert by_key["length 7-9"].paper.endswith("paper: tokens +2.37% at 32K")
    assert by_key["length 4-6"].paper.endswith("paper: tokens +0.37% at 32K")
    assert "paper:" not in by_key["length 16+"].paper  # the paper's buckets stop at 13-15
    # the CSV carries the JSON's numbers (to 9 significant digits)
    table = {r["metric"]: r for r in csv.DictReader(io.StringIO(display.stats_csv(summary)))}
    for m in CATALOGUE:
        for mode in ("bpe", "lbpe"):
            assert float(table[m.key][mode]) == pytest.approx(summary[mode][m.key], rel=1e-8)
        scale, unit = (100, "%") if m.change == "relative" else (1, "difference")
        assert float(table[m.key]["change"]) == pytest.approx(scale * summary["change"][m.key], rel=1e-8, abs=1e-13)
        assert table[m.key]["change_unit"] == unit
    for m in AGREEMENT:
        assert float(table[m.key]["change"]) == pytest.approx(summary["agreement"][m.key], rel=1e-8)
        assert table[m.key]["change_unit"] == "value"
    for label, bucket in summary["lbpe"]["frequency_by_length"].items():
        assert float(table[f"frequency_by_length {label} mean"]["lbpe"]) == pytest.approx(bucket["mean"], rel=1e-8)
        assert int(table[f"frequency_by_length {label} distinct"]["lbpe"]) == bucket["distinct"]
    for label, points in summary["change"]["length_share_points"].items():
        assert float(table[f"bucket {label} share"]["change"]) == pytest.approx(points, rel=1e-8, abs=1e-12)
    # the Compare view's folded table has every row but the first three metrics and the counts
    c = display.compare(tok, text[:3000])
    folded = display.metrics_html(c, display.comparison_summary(tok, c))
    for m in (*CATALOGUE[3:], *AGREEMENT):
        # its meaning opens under its name (a tap or the keyboard reaches it; a title would not)
        shown = f'<summary>{html.escape(m.label)}</summary><span class="lbpe-meaning-text">{html.escape(m.meaning)}'
        assert shown in folded, m.label
    assert " title=" not in folded
    assert "lbpe-more" not in display.metrics_html(c)


def test_frequency_chart_is_the_summarys_means_on_a_log_axis():
    from lbpe.analysis.comparison import compare_json
    from lbpe.analysis.stats import text_stats_both

    tok = load_preset("cl100k_base")
    summary = compare_json(text_stats_both(tok, MIXED * 20), unit="byte", tok=tok)
    spec = display.frequency_spec(summary, title="t")
    assert json.loads(json.dumps(spec)) == spec
    assert spec["layout"]["yaxis"]["type"] == "log"
    assert [t["name"] for t in spec["data"]] == ["BPE", "LBPE"]
    for trace, mode in zip(spec["data"], ("bpe", "lbpe")):
        buckets = summary[mode]["frequency_by_length"]
        assert trace["x"] == list(buckets)
        assert trace["y"] == [b["mean"] or None for b in buckets.values()]
        assert [d[1] for d in trace["customdata"]] == [b["distinct"] for b in buckets.values()]
    assert display.frequency_spec(compare_json(text_stats_both(tok, MIXED))) is None  # no tokenizer: no lengths


def test_counts_of_one_are_singular():
    """ "1 token", not "1 tokens": Explain's head and text, the list of differences' change."""
    from lbpe.analysis.explain import explain
    from lbpe.playground.display import explain_html, explain_text

    ex = explain(load_preset("gpt2"), " the")
    assert "BPE 1 token, LBPE 1 token" in explain_html(ex) and "1 tokens" not in explain_html(ex)
    assert "BPE 1 token; LBPE 1 token." in explain_text(ex)


def test_a_text_without_differences_says_so():
    c = display.compare(load_preset("gpt2"), "hello world")
    assert not c.differ
    assert "BPE and LBPE agree here" in display.differences_html(c)
    assert display.differences_html(display.compare(load_preset("gpt2"), "")) == ""


def test_the_list_of_differences_shows_tokens_as_the_panes_do():
    """Byte tokens of one character are one box in the panes (the character, the bytes in its
    title): the list shows them so too, never as \\x escapes."""
    from lbpe.playground.examples import example

    text = example("russian").text  # gpt2: BPE о|н, LBPE's two tokens share the bytes of "н"
    c = display.compare(load_preset("gpt2"), text)
    listed = display.differences_html(c)
    visible = re.sub(r'title="[^"]*"', "", listed)  # the bytes stay in the title, as in the pane
    assert c.differ and "\\x" not in visible, listed
    item = next(li for li in re.findall(r"<li>.*?</li>", listed) if "lbpe-bytes" in li)
    assert re.search(r'→ <span class="lbpe-bytes" title="2 tokens for &quot;он&quot;[^"]*">он</span>', item), item
    pane = display.render_pane(c, "lbpe")
    assert re.search(r'class="[^"]*lbpe-bytes[^"]*"[^>]*>он</span>', pane)  # as the pane shows it


def test_a_bucket_median_between_two_counts_is_shown_as_it_is():
    # two tokens of a bucket, seen once and twice: mean 1.5, median 1.5 (not rounded to 2)
    from lbpe.playground.display.tables import _frequency_cell

    assert _frequency_cell({"distinct": 2, "mean": 1.5, "median": 1.5}) == "1.5 (median 1.5; 2 tokens)"
    assert _frequency_cell({"distinct": 4, "mean": 3.0, "median": 2.5}) == "3.0 (median 2.5; 4 tokens)"
    assert _frequency_cell({"distinct": 1, "mean": 1200.0, "median": 1200}) == "1,200.0 (median 1,200; 1 token)"
