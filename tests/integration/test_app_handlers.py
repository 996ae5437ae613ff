"""The playground's handlers called directly (no server): outputs equal lbpe called directly,
bad input becomes a readable gr.Error, uploads are removed, sessions are isolated."""

from __future__ import annotations

import dataclasses
import gc
import gzip
import ipaddress
import json
import os
import re
import time
from pathlib import Path

import pytest

import lbpe
from lbpe.analysis.comparison import compare_json
from lbpe.analysis.stats import text_stats_both
from lbpe.errors import LbpeError
from lbpe.formats.hf_write import to_tokenizer_json
from lbpe.limits import Limits
from lbpe.playground import display
from lbpe.playground.app.addresses import trusted_proxies, visitor_address
from lbpe.presets import VOCAB_PRESETS, load_preset
from tests.support import tiny_vocabs as tv
from tests.support.app import load_app, upload
from tests.support.data import data_file

app = load_app()
gr = app.handlers.common.gr

TEXT = "Internationalization of counterrevolutionary misunderstandings: naïve café, 日本語 🙂\n\tcode(x)\n"


#: How a visitor is told a limit of the server is reached (the log names its variable).
SERVER_LIMIT = re.escape("; this server allows no more (lbpe on your own machine does: pip install lbpe)")


def swept_later(*paths: str) -> None:
    """Uploads a handler read once stay (another session may have sent the same bytes, which
    Gradio keeps at the same path) until a sweep after their grace deletes them."""
    assert all(Path(p).exists() for p in paths), "an upload was deleted from under other sessions"
    long_ago = time.time() - app.handlers.common._UPLOADS.grace - 1
    for p in paths:
        os.utime(p, (long_ago, long_ago))
    app.sweep_files()
    assert not any(Path(p).exists() for p in paths), "an upload read once was not swept after its grace"


@pytest.fixture
def limits(monkeypatch):
    """Change app limits for one test: ``limits(vocab_bytes=...)``."""

    def set_limits(**changes):
        monkeypatch.setattr(app.handlers.common, "LIMITS", dataclasses.replace(app.handlers.common.LIMITS, **changes))

    return set_limits


# ---- Compare ----


def test_the_special_tokens_box_names_no_token_some_vocabularies_lack():
    """The box is shown for every vocabulary: its label names none of them (the vocabulary's
    line under the list does)."""
    by_elem = {c["props"].get("elem_id"): c for c in app.demo.get_config_file()["components"]}
    label = by_elem["show-special"]["props"]["label"]
    assert label.startswith("Special tokens") and not any(
        t in label for name in VOCAB_PRESETS for t in load_preset(name).special_tokens
    ), label


@pytest.mark.parametrize("name", list(VOCAB_PRESETS))
def test_compare_equals_lbpe_called_directly(name):
    tok = load_preset(name)
    bpe_html, lbpe_html, metrics, figure, frequency, details, diffs = app.compare(TEXT, name, True, False, None)
    c = display.compare(tok, TEXT)
    assert bpe_html == display.render_pane(c, "bpe", show_whitespace=True, show_ids=False)
    assert lbpe_html == display.render_pane(c, "lbpe", show_whitespace=True, show_ids=False)
    summary = compare_json(text_stats_both(tok, TEXT), vocab=tok.name, unit=tok.vocab.unit, tok=tok)
    assert details["metrics"] == summary  # the same figures as encoding the text directly
    assert metrics == display.metrics_html(c, summary)
    assert [list(t.y) for t in frequency.data] == [t["y"] for t in display.frequency_spec(summary)["data"]]
    for mode in ("bpe", "lbpe"):
        ids = tok.encode(TEXT, mode=mode, disallowed_special=())
        assert details[mode]["ids"] == ids
        assert f'data-mode="{mode}" data-tokens="{len(ids)}"' in (bpe_html if mode == "bpe" else lbpe_html)
    assert details["differ"] == [list(r) for r in c.differ]
    shift = display.length_shift(tok, c)
    assert details["length_shift"] == shift.to_json()
    assert [list(t.y) for t in figure.data] == [
        list(shift.bpe_buckets),
        list(shift.lbpe_buckets),
        list(shift.bpe_lengths),
        list(shift.lbpe_lengths),
    ]


def test_compare_toggles_and_empty_text():
    with_ids = app.compare("hello world", "gpt2", False, True, None)[0]
    assert '<span class="lbpe-id">31373</span>' in with_ids and "lbpe-ws" not in with_ids
    glyphs = app.compare("hello world", "gpt2", True, False, None)[0]
    assert '<span class="lbpe-ws">\u00b7</span>' in glyphs and "lbpe-id" not in glyphs
    empty = app.compare("", "lbpe-32k", True, False, None)
    assert 'data-tokens="0"' in empty[0] and "(no text)" in empty[0]
    assert app.compare(None, "lbpe-32k", True, False, None)[5]["bpe"]["tokens"] == 0


def test_a_session_edit_equals_a_fresh_compare_and_few_sessions_keep_one():
    sessions = [app.handlers.new_session() for _ in range(app.handlers.compare_tab.KEPT_COMPARISONS + 3)]
    text = TEXT * 20
    for k, session in enumerate(sessions):
        app.compare(text + str(k), "gpt2", True, False, session)
    for k, session in enumerate(sessions[-2:]):
        edited = text + str(k) + " tokens"
        got = app.compare(edited, "gpt2", True, False, session)
        assert app.handlers.compare_tab._recompare(session).reused > 0  # the session's last comparison was reused
        want = app.compare(edited, "gpt2", True, False, None)  # no session: compared afresh
        assert got[:3] == want[:3] and got[5:] == want[5:]
    assert len(app.handlers.compare_tab._KEPT) == app.handlers.compare_tab.KEPT_COMPARISONS  # the memory stays bounded
    assert {id(s) for s in sessions[-app.handlers.compare_tab.KEPT_COMPARISONS :]} == set(
        app.handlers.compare_tab._KEPT
    )
    forgotten = id(sessions[-1])
    del sessions[-1], session
    gc.collect()
    assert forgotten not in app.handlers.compare_tab._KEPT  # a forgotten session's comparison goes with it


def test_compare_treats_special_token_strings_as_text():
    out = app.compare("<|endoftext|>", "cl100k_base", True, False, None)[5]
    assert 100257 not in out["bpe"]["ids"] and out["bpe"]["tokens"] > 1


def test_the_special_tokens_toggle():
    tok = load_preset("cl100k_base")
    text = "end<|endoftext|>start"
    out = app.compare(text, "cl100k_base", True, False, None, True)
    for mode in ("bpe", "lbpe"):
        assert out[5][mode]["ids"] == tok.encode(text, mode=mode, allowed_special="all")
    assert 100257 in out[5]["bpe"]["ids"] and out[0].count("lbpe-special") == 1
    assert "lbpe-special" not in app.compare(text, "cl100k_base", True, False, None)[0]


def test_compare_limits_and_unknown_vocabulary(limits):
    limits(text_chars=10)
    # over the limit: the first 10 characters are compared, and the metrics say what was cut
    out = app.compare("Capitals and more", "gpt2", True, False, None)
    assert out[5]["bpe"]["ids"] == load_preset("gpt2").encode("Capitals a", mode="bpe")
    assert "The text has 17 characters; Compare shows its first 10. The Corpus view reads whole files" in out[2]
    assert "LBPE_APP" not in out[2]  # nothing for an end user to set
    assert "lbpe-cut" not in app.compare("Capitals", "gpt2", True, False, None)[2]
    with pytest.raises(gr.Error, match="Unknown vocabulary 'nope'"):
        app.compare("x", "nope", True, False, None)


def test_load_text_reads_and_removes_the_upload(tmp_path, limits, monkeypatch):
    path = upload(tmp_path, "héllo\r\nworld\n".encode(), "a.txt")
    assert app.load_text(path) == ("héllo\r\nworld\n", None)
    swept_later(path)
    bad = upload(tmp_path, b"ok \xff\xfe", "latin.txt")
    with pytest.raises(gr.Error, match=r"latin.txt: not UTF-8 text \(byte 0xff at offset 3\)"):
        app.load_text(bad)
    swept_later(bad)
    limits(text_chars=5)
    warnings = []
    monkeypatch.setattr(gr, "Warning", lambda message, **_: warnings.append(message))
    assert app.load_text(upload(tmp_path, "12345é".encode(), "long.txt")) == ("12345", None)
    assert warnings[-1].startswith("long.txt has 6 characters; Compare shows its first 5.")
    # a file far over the limit is read only as far as needed, without splitting a character
    assert app.load_text(upload(tmp_path, "日本語".encode() * 1000, "big.txt")) == ("日本語日本", None)
    assert warnings[-1].startswith("big.txt is longer than 5 characters; Compare shows its first 5.")
    with pytest.raises(gr.Error, match="Choose a .txt file"):
        app.load_text(None)
    # a file over the .txt limit (sent over the API; the page refuses it before sending) is
    # refused whole, in the words the page shows, and removed
    limits(text_file_bytes=1000)
    over = upload(tmp_path, b"word " * 201, "over.txt")
    with pytest.raises(gr.Error) as refused:
        app.load_text(over)
    assert refused.value.message == (
        "over.txt is 0.001005 MB, over the limit of 0.001 MB for a .txt file for the Compare view; "
        "this server allows no more (lbpe on your own machine does: pip install lbpe)"
    )
    swept_later(over)


# ---- vocabulary uploads ----


def _gz(path: Path) -> bytes:
    return gzip.compress(path.read_bytes())


@pytest.mark.parametrize(
    "files, reference",
    [
        (lambda: [(data_file("openai/cl100k_base.tiktoken"), "cl100k_base.tiktoken")], "openai/cl100k_base.tiktoken"),
        (lambda: [(_gz(data_file("openai/r50k_base.tiktoken")), "r50k_base.tiktoken.gz")], "openai/r50k_base.tiktoken"),
        (
            lambda: [(data_file("gpt2/encoder.json"), "encoder.json"), (data_file("gpt2/vocab.bpe"), "vocab.bpe")],
            "gpt2",
        ),
        (lambda: [(data_file("hf/mistral_v0.1/tokenizer.json"), "tokenizer.json")], "hf/mistral_v0.1/tokenizer.json"),
        (
            lambda: [(data_file("sentencepiece/mistral_tokenizer.model.v1"), "mistral.model")],
            "sentencepiece/mistral_tokenizer.model.v1",
        ),
    ],
    ids=["tiktoken", "tiktoken.gz", "gpt2", "tokenizer.json", "sentencepiece"],
)
def test_upload_vocab_every_format_then_compare(tmp_path, files, reference):
    paths = [upload(tmp_path, src, name) for src, name in files()]
    state, dropdown, cleared = app.upload_vocab(paths, "auto", app.new_session())
    name = dropdown["value"]
    assert name.startswith("upload: ") and (name, name) in dropdown["choices"] and cleared is None
    assert list(state.vocabs) == [name]
    swept_later(*paths)  # uploads are deleted once read, when no other session can need them
    ref = lbpe.load(data_file(reference) if "/" in reference else data_file("gpt2/encoder.json").parent)
    details = app.compare(TEXT, name, True, False, state)[5]
    for mode in ("bpe", "lbpe"):
        assert details[mode]["ids"] == ref.encode(TEXT, mode=mode, disallowed_special=())
    assert re.match(rf"\*\*{re.escape(name)}\*\*: [\d,]+ tokens, ", app.describe_vocab(name, state))


def test_sessions_uploading_the_same_files_share_one_vocabulary(tmp_path):
    """Every session that uploads the same files (names, bytes, pre-tokenizer) gets a tokenizer
    of its own name over one vocabulary: the server held a copy per session (about 120 MB each
    for Gemma 3's tokenizer.json). Other files, or the same with another pre-tokenizer, are not
    shared, and each session's name stays its own."""
    src = data_file("openai/r50k_base.tiktoken")
    first, d1, _ = app.upload_vocab([upload(tmp_path, src, "r50k_base.tiktoken")], "auto", app.new_session())
    other = app.new_session()
    app.upload_vocab([upload(tmp_path, data_file("openai/p50k_base.tiktoken"), "p.tiktoken")], "gpt2", other)
    second, d2, _ = app.upload_vocab([upload(tmp_path, src, "r50k_base.tiktoken")], "auto", other)
    a, b = first.tokenizer(d1["value"]), second.tokenizer(d2["value"])
    assert a.vocab is b.vocab and a is not b
    assert (d1["value"], d2["value"]) == ("upload: r50k_base.tiktoken", "upload: r50k_base.tiktoken")
    assert a.name == b.name == "upload: r50k_base.tiktoken"
    assert a.encode(TEXT, mode="lbpe") == b.encode(TEXT, mode="lbpe") == load_preset("gpt2").encode(TEXT, mode="lbpe")
    assert second.tokenizer("upload: p.tiktoken").vocab is not a.vocab
    third, d3, _ = app.upload_vocab([upload(tmp_path, src, "r50k_base.tiktoken")], "gpt2", app.new_session())
    assert third.tokenizer(d3["value"]).vocab is not a.vocab  # another pre-tokenizer chosen: another vocabulary


def test_the_server_holds_a_bounded_number_of_uploaded_vocabularies(tmp_path, limits):
    """Sessions each kept their uploads with no bound over all of them: a few dozen scripted
    sessions could exhaust the server's memory. Past LBPE_APP_SERVER_VOCABS distinct uploads
    held at once, another is refused (saying why and what to do) until one is let go; the same
    files again are shared, never refused."""
    limits(server_vocabs=1)
    r50k, p50k = data_file("openai/r50k_base.tiktoken"), data_file("openai/p50k_base.tiktoken")
    first, _, _ = app.upload_vocab([upload(tmp_path, r50k, "held.tiktoken")], "gpt2", app.new_session())
    with pytest.raises(gr.Error) as refused:
        app.upload_vocab([upload(tmp_path, p50k, "more.tiktoken")], "gpt2", app.new_session())
    message = refused.value.message
    assert "holds 1 uploaded vocabulary" in message and "bundled" in message and "LBPE_" not in message, message
    again, dropdown, _ = app.upload_vocab([upload(tmp_path, r50k, "held.tiktoken")], "gpt2", app.new_session())
    assert again.tokenizer(dropdown["value"]).vocab is first.tokenizer("upload: held.tiktoken").vocab
    del first, again
    gc.collect()  # the sessions are gone (as Gradio forgets them after LBPE_APP_SESSION_TTL)
    app.upload_vocab([upload(tmp_path, p50k, "more.tiktoken")], "gpt2", app.new_session())


def test_one_address_cannot_take_every_place_for_uploaded_vocabularies(tmp_path, limits, monkeypatch):
    """Past LBPE_APP_ADDRESS_VOCABS distinct uploads held for one network address (over all its
    sessions), another from there is refused, saying so, while another address's is read: one
    visitor with a few scripted sessions of tiny files took every place of the server's."""
    import base64

    limits(server_vocabs=4, address_vocabs=2)
    here = "203.0.113.7"
    monkeypatch.setattr(app.handlers.common, "client_address", lambda: here)
    tiny = [tmp_path / f"tiny{k}.tiktoken" for k in range(4)]
    for k, path in enumerate(tiny):
        path.write_text(
            "\n".join(f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256))
            + f"\n{base64.b64encode(b'ab' * (k + 1)).decode()} 256\n"
        )
    held = [
        app.upload_vocab([upload(tmp_path, tiny[k], f"t{k}.tiktoken")], "gpt2", app.new_session())[0] for k in (0, 1)
    ]
    with pytest.raises(gr.Error) as refused:
        app.upload_vocab([upload(tmp_path, tiny[2], "t2.tiktoken")], "gpt2", app.new_session())
    message = refused.value.message
    assert "Your network address holds 2 uploaded vocabularies" in message and "LBPE_" not in message, message
    # one it holds already is shared, not refused
    again = app.upload_vocab([upload(tmp_path, tiny[0], "t0.tiktoken")], "gpt2", app.new_session())
    here = "198.51.100.9"  # another visitor still gets the places left
    kept = app.upload_vocab([upload(tmp_path, tiny[2], "t2.tiktoken")], "gpt2", app.new_session())
    assert held and again and kept
    # a vocabulary another address holds counts for this one too: joining it at the bound is refused
    # (else one address could hold any number, each first uploaded from another and then let go)
    other = app.upload_vocab([upload(tmp_path, tiny[3], "t3.tiktoken")], "gpt2", app.new_session())
    with pytest.raises(gr.Error, match="Your network address holds 2"):
        app.upload_vocab([upload(tmp_path, tiny[0], "t0.tiktoken")], "gpt2", app.new_session())
    assert other


def test_this_machines_own_tabs_are_bounded_by_the_server_only(tmp_path, limits, monkeypatch):
    """A server run locally sees every tab of its person as 127.0.0.1 (or ::1): the per-address
    bound would count them all as one visitor, so it does not apply there."""
    import base64

    limits(server_vocabs=4, address_vocabs=1)
    for address in ("127.0.0.1", "::1"):
        monkeypatch.setattr(app.handlers.common, "client_address", lambda: address)  # noqa: B023
        held = []
        for k in range(2):
            path = tmp_path / f"local{address.count(':')}{k}.tiktoken"
            lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
            path.write_text("\n".join(lines) + f"\n{base64.b64encode(b'zq' * (k + 2)).decode()} 256\n")
            held.append(app.upload_vocab([upload(tmp_path, path, path.name)], "gpt2", app.new_session())[0])
        assert len(held) == 2


def test_one_tab_uploads_more_vocabularies_than_it_keeps(tmp_path, limits, monkeypatch):
    """A session at its bound drops its oldest upload for a new one: that one does not count
    against its address (the fifth upload of one tab was refused)."""
    import base64

    limits(session_vocabs=2, address_vocabs=2)
    monkeypatch.setattr(app.handlers.common, "client_address", lambda: "203.0.113.8")
    session = app.new_session()
    for k in range(4):
        path = tmp_path / f"own{k}.tiktoken"
        lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
        path.write_text("\n".join(lines) + f"\n{base64.b64encode(b'xy' * (k + 1)).decode()} 256\n")
        session, dropdown, _ = app.upload_vocab([upload(tmp_path, path, f"own{k}.tiktoken")], "gpt2", session)
    assert list(session.vocabs) == ["upload: own2.tiktoken", "upload: own3.tiktoken"]


def test_the_vocabulary_line_counts_its_tokens_not_its_largest_id(tmp_path):
    """A rank file with a gap in its ids (256 bytes, then id 1000) has 257 tokens, not 1,001;
    cl100k_base has its 100,256 ranks and 5 special tokens (ids up to 100,276)."""
    import base64

    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines.append(f"{base64.b64encode(b'ab').decode()} 1000")
    gap = tmp_path / "gap.tiktoken"
    gap.write_text("\n".join(lines) + "\n", encoding="utf-8")
    state, dropdown, _ = app.upload_vocab([upload(tmp_path, gap, "gap.tiktoken")], "gpt2", app.new_session())
    assert ": 257 tokens," in app.describe_vocab(dropdown["value"], state)
    ranks = sum(1 for line in data_file("openai/cl100k_base.tiktoken").read_text().splitlines() if line.strip())
    assert ranks == 100_256
    assert f": {ranks + 5:,} tokens," in app.describe_vocab("cl100k_base", app.new_session())
    # the browser page's line about the vocabulary says the same
    from lbpe.playground.page import use_preset

    assert json.loads(use_preset("cl100k_base"))["tokens"] == ranks + 5


def test_unknown_rank_file_names_need_a_pattern(tmp_path):
    src = data_file("openai/cl100k_base.tiktoken")
    with pytest.raises(gr.Error) as refused:
        app.upload_vocab([upload(tmp_path, src, "mine.tiktoken")], "auto", app.new_session())
    # in the app's words: its menu and what the menu offers, not the library's keywords
    said = refused.value.message
    assert said.startswith("mine.tiktoken: the file name does not tell which pre-tokenizer"), said
    assert "Pre-tokenizer for .tiktoken / GPT-2 files" in said and "gpt2, cl100k_base, o200k_base or paper" in said
    assert not any(word in said for word in ("pattern=", "--pattern", "special_tokens=", "qwen2", "llama3")), said
    state, dropdown, _ = app.upload_vocab([upload(tmp_path, src, "mine.tiktoken")], "cl100k_base", app.new_session())
    ids = app.compare("Hello world", dropdown["value"], True, False, state)[5]["bpe"]["ids"]
    assert ids == load_preset("cl100k_base").encode("Hello world", mode="bpe")


MALFORMED = [
    ("tokenizer.json", b'{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [', "tokenizer.json"),
    ("tokenizer.json", b"[" * 100_000, "tokenizer.json"),
    ("tokenizer.json", b'{"model": {"type": "WordPiece", "vocab": {}}}', "tokenizer.json"),
    ("cl100k_base.tiktoken", b"IQ== 0\nnot base64 !! 1\n", "cl100k_base.tiktoken"),
    ("weird.model", b"\x0a\xff\xff\xff\xff\x0f" + bytes(range(256)), "weird.model"),
    ("r50k_base.tiktoken.gz", b"this is not gzip", "r50k_base.tiktoken.gz"),
    ("empty.json", b"", "empty.json"),
    ("notes.txt", b"hello there\n", "notes.txt"),
    # a pre-tokenizer that backtracks exponentially ("aaaa...!" would hang the server's worker)
    (
        "tokenizer.json",
        tv.json_bytes(
            dict(
                tv.hf_spec(),
                pre_tokenizer={"type": "Split", "pattern": {"Regex": "(?:\\p{L}+\\s?)*!"}, "behavior": "Isolated"},
            )
        ),
        "catastrophic backtracking",
    ),
]


@pytest.mark.parametrize("name, data, mentioned", MALFORMED, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(MALFORMED)])
def test_malformed_vocabularies_give_a_readable_message(tmp_path, name, data, mentioned):
    path = upload(tmp_path, data, name)
    state = app.new_session()
    with pytest.raises(gr.Error) as err:
        app.upload_vocab([path], "auto", state)
    message = err.value.message
    assert mentioned in message and "Traceback" not in message and "lbpe-vocab-" not in message, message
    assert "/tmp" not in message and str(tmp_path) not in message, message
    assert state.vocabs == {}
    swept_later(path)


def test_upload_limits(tmp_path, limits):
    src = data_file("openai/cl100k_base.tiktoken")
    limits(vocab_bytes=1_000_000)
    with pytest.raises(
        gr.Error,
        match=r"cl100k_base.tiktoken is 1.68\d* MB, over the limit of 1 MB for an uploaded vocabulary.*" + SERVER_LIMIT,
    ):
        app.upload_vocab([upload(tmp_path, src, "cl100k_base.tiktoken")], "auto", app.new_session())
    bomb = gzip.compress(b"A" * 3_000_000)
    with pytest.raises(gr.Error, match=r"x.tiktoken.gz: decompresses to more than 1 MB.*" + SERVER_LIMIT):
        app.upload_vocab([upload(tmp_path, bomb, "x.tiktoken.gz")], "auto", app.new_session())
    limits(vocab_bytes=50_000_000, vocab_tokens=1000)
    with pytest.raises(gr.Error, match=r"is 100,\d+ tokens, over the limit of 1,000 tokens.*" + SERVER_LIMIT):
        app.upload_vocab([upload(tmp_path, src, "cl100k_base.tiktoken")], "auto", app.new_session())
    with pytest.raises(gr.Error, match="Two files can only be GPT-2's encoder.json and vocab.bpe"):
        app.upload_vocab(
            [upload(tmp_path, b"{}", "a.json"), upload(tmp_path, b"{}", "b.json")], "auto", app.new_session()
        )
    with pytest.raises(gr.Error, match="Choose a vocabulary file"):
        app.upload_vocab(None, "auto", app.new_session())


def test_sessions_are_isolated_and_bounded(tmp_path, limits):
    limits(session_vocabs=2)
    src = data_file("openai/r50k_base.tiktoken")
    alice, bob = app.new_session(), app.new_session()
    alice, dropdown, _ = app.upload_vocab([upload(tmp_path, src, "r50k_base.tiktoken")], "auto", alice)
    name = dropdown["value"]
    assert (name, name) in app.vocab_choices(alice) and (name, name) not in app.vocab_choices(bob)
    with pytest.raises(gr.Error, match="Unknown vocabulary"):
        app.compare("hi", name, True, False, bob)
    names = [name]
    lines = src.read_bytes().splitlines(keepends=True)
    for fewer in (1, 2):  # other files under the same name (the last ranks left out)
        again = upload(tmp_path, b"".join(lines[:-fewer]), "r50k_base.tiktoken")
        alice, dropdown, _ = app.upload_vocab([again], "auto", alice)
        names.append(dropdown["value"])
    assert names[1:] == ["upload: r50k_base.tiktoken (2)", "upload: r50k_base.tiktoken (3)"]
    assert list(alice.vocabs) == names[1:]  # the oldest was dropped
    assert [value for _, value in app.vocab_choices(alice)] == [*VOCAB_PRESETS, *names[1:]]
    # asked for by name after that (a stale dropdown, a link): the reason is the session's bound,
    # not the hour without a request
    with pytest.raises(gr.Error) as dropped:
        app.compare("hi", names[0], True, False, alice)
    said = str(dropped.value.message)
    assert "keeps the latest 2 uploaded or trained vocabularies" in said and "Upload it" in said
    assert "without a request" not in said


# ---- Corpus ----


def test_corpus_equals_lbpe_stats_on_the_whole_file(tmp_path):
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:300_000]
    path = upload(tmp_path, text.encode(), "moby.txt")
    rows, figure, frequency, json_path, csv_path, status = app.corpus(path, "cl100k_base", None)
    tok = load_preset("cl100k_base")
    stats = text_stats_both(tok, text)
    summary = compare_json(stats, vocab="cl100k_base", unit="byte", tok=tok)
    got = json.loads(Path(json_path).read_text("utf-8"))
    # lbpe.corpus.parallel cuts chunks at piece boundaries: token counts are exact, a word may be cut
    for mode in ("bpe", "lbpe"):
        assert abs(got[mode].pop("words") - summary[mode].pop("words")) <= 2
        assert got[mode].pop("fertility") == pytest.approx(summary[mode].pop("fertility"), rel=1e-3)
    got_agreement, agreement = got.pop("agreement"), summary.pop("agreement")
    for key in ("bpe_boundaries", "lbpe_boundaries", "common_boundaries"):
        assert got_agreement[key] == agreement[key]
    assert abs(got_agreement["words"] - agreement["words"]) <= 2
    assert abs(got_agreement["identical_words"] - agreement["identical_words"]) <= 2
    assert got == {**summary, "file": "moby.txt"}
    # chunks may cut a word in two: the rows counting words differ by a word or two
    by_words = {"words", "fertility", "words segmented identically"}
    assert [r for r in rows if r[0] not in by_words] == [
        r
        for r in display.stats_rows(compare_json(stats, vocab="cl100k_base", unit="byte", tok=tok))
        if r[0] not in by_words
    ]
    assert list(frequency.data[1].y) == [b["mean"] or None for b in summary["lbpe"]["frequency_by_length"].values()]
    assert f"moby.txt,cl100k_base,tokens,{stats['bpe'].tokens},{stats['lbpe'].tokens}," in Path(csv_path).read_text(
        "utf-8"
    )
    assert Path(json_path).name == "moby-cl100k_base-stats.json" and Path(csv_path).name == "moby-cl100k_base-stats.csv"
    assert f"BPE {stats['bpe'].tokens:,} tokens" in status
    assert "text that spells a special token (`<|endoftext|>`, ...) is counted as ordinary text" in status
    assert list(figure.data[0].y) == list(
        display.shift_from_stats(stats["bpe"], stats["lbpe"], unit="byte").bpe_buckets
    )
    # the file stays usable while it shows in its box: another vocabulary, same upload
    again = app.corpus(path, "gpt2")
    assert Path(path).exists() and again[5].startswith("moby.txt: ") and "**gpt2**" in again[5]
    Path(path).unlink()
    with pytest.raises(gr.Error, match="moby.txt is no longer on the server.*upload it again"):
        app.corpus(path, "gpt2")


def test_corpus_errors(tmp_path, limits):
    limits(corpus_bytes=100)
    with pytest.raises(
        gr.Error,
        match=r"big.txt is 0.0002 MB, over the limit of 0.0001 MB for a file for the Corpus view" + SERVER_LIMIT,
    ):
        app.corpus(upload(tmp_path, b"x" * 200, "big.txt"), "gpt2", None)
    with pytest.raises(gr.Error, match="not UTF-8"):
        app.corpus(upload(tmp_path, b"\xc3\x28", "bad.txt"), "gpt2", None)
    with pytest.raises(gr.Error, match="Choose a text file"):
        app.corpus(None, "gpt2", None)


# ---- Train ----


def test_train_downloads_the_tokenizer_json_and_compare_uses_it(tmp_path):
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:100_000]
    state = app.new_session()
    with pytest.raises(gr.Error, match="Train a vocabulary first"):
        app.use_trained(state)
    path = upload(tmp_path, text.encode(), "moby.txt")
    state, dropdown, out, status = app.train([path], 600, "byte", True, state)
    expected = to_tokenizer_json(lbpe.train(text, vocab_size=600, unit="byte", scaffold=True), pattern="paper")
    assert json.loads(Path(out).read_text("utf-8")) == json.loads(expected)
    name = state.trained
    assert name == "trained: 600 byte scaffold on moby.txt" and (name, name) in dropdown["choices"]
    assert "value" not in dropdown and f"**{name}**, 600 tokens" in status and "(moby.txt)" in status
    # the download's scaffold tokens, which HF's reader emits and lbpe's does not, are named
    scaffold = sorted(json.loads(Path(out).read_text("utf-8"))["model"]["lbpe_scaffold"], key=int)
    assert f"read its {len(scaffold):,} scaffold tokens (ids {scaffold[0]} to {scaffold[-1]})" in status
    from tokenizers import Tokenizer as HfTokenizer

    ids = set(map(int, scaffold))
    assert ids & set(HfTokenizer.from_file(out).encode(text[:20_000]).ids)
    assert not ids & set(lbpe.load(out).encode(text[:20_000], mode="bpe"))
    assert Path(path).exists()  # still in its box, usable for another run
    selected, tabs = app.use_trained(state)
    assert selected["value"] == name and tabs["selected"] == "compare"
    ref = lbpe.load(out)
    details = app.compare(TEXT, name, True, False, state)[5]
    for mode in ("bpe", "lbpe"):
        assert details[mode]["ids"] == ref.encode(TEXT, mode=mode, disallowed_special=())


def test_train_in_the_llama_style_writes_its_tokenizer_json(tmp_path):
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:60_000]
    state, dropdown, out, status = app.train(
        [upload(tmp_path, text.encode(), "moby.txt")], 1000, "char", False, app.new_session(), style="llama"
    )
    expected = to_tokenizer_json(lbpe.train(text, vocab_size=1000, style="llama"), style="llama")
    assert json.loads(Path(out).read_text("utf-8")) == json.loads(expected)
    assert state.trained == "trained: 1000 char llama on moby.txt" and "1,000 tokens" in status
    tok = state.vocabs[state.trained]
    assert tok.decode(tok.encode(TEXT, mode="lbpe")) == TEXT
    with pytest.raises(gr.Error, match="llama style trains characters"):
        app.train([upload(tmp_path, b"abc", "b.txt")], 300, "byte", False, None, style="llama")


def test_train_errors(tmp_path, limits):
    txt = upload(tmp_path, b"hello hello world\n", "a.txt")
    with pytest.raises(gr.Error, match=r"between 1 and 50,000\.'$"):
        app.train([txt], 60_000, "char", False, None)
    with pytest.raises(gr.Error, match="unit must be 'char' or 'byte'"):
        app.train([upload(tmp_path, b"hi", "b.txt")], 300, "word", False, None)
    with pytest.raises(gr.Error, match="smaller than the 256"):
        app.train([upload(tmp_path, b"hi", "c.txt")], 100, "byte", False, None)
    limits(train_bytes=10)
    with pytest.raises(gr.Error, match=r"over the limit of 1e-05 MB for the training files together.*" + SERVER_LIMIT):
        app.train([upload(tmp_path, b"x" * 6, "d.txt"), upload(tmp_path, b"y" * 6, "e.txt")], 300, "char", False, None)
    with pytest.raises(gr.Error, match="Choose one or more"):
        app.train(None, 300, "char", False, None)
    # a compressed file that is not UTF-8, or is damaged, is named as uploaded: never the server's folder
    import gzip

    for content, says in (
        (gzip.compress("café".encode("latin-1")), "not UTF-8"),
        (b"\x1f\x8b" + b"x" * 40, "cannot be read"),
    ):
        with pytest.raises(gr.Error) as refused:
            app.train([upload(tmp_path, content, "latin.txt.gz")], 300, "byte", False, None)
        said = str(refused.value.message)
        assert said.startswith("latin.txt.gz: ") and says in said and str(tmp_path) not in said, said


def test_the_training_files_note_says_at_once_when_they_pass_the_limit_together(tmp_path, limits):
    limits(train_bytes=10)
    first, second = upload(tmp_path, b"x" * 6, "d.txt"), upload(tmp_path, b"y" * 6, "e.txt")
    within, over = app.files_note([first], app.CHOOSE_FILES), app.files_note([first, second], app.CHOOSE_FILES)
    assert within == {"__type__": "update"}  # the status stays as it is
    assert "the training corpus (2 file(s)) is 1.2e-05 MB, over the limit of 1e-05 MB" in over
    assert 'class="lbpe-failed"' in over and "LBPE_APP" not in over
    # one removed: the refusal gives way to what is left; any other status (a training's result) stays
    assert app.files_note([second], over) == "e.txt is ready: press Train."
    assert app.files_note([second], "Trained 300 tokens on d.txt") == {"__type__": "update"}
    assert app.files_note(None, over) == "Choose text files, then press Train."
    # a note that files are ready names those there are, not one removed
    both = "d.txt, e.txt are ready: press Train."
    assert app.files_note([first], both) == "d.txt is ready: press Train."
    assert app.files_note([], both) == "Choose text files, then press Train."
    assert app.files_note([first], "d.txt is ready: press Train.") == {"__type__": "update"}


def test_train_says_the_least_vocabulary_size_in_the_views_words(tmp_path):
    """Too small a size for the files: the reason gives the least size and names no flag or
    option the Train view does not have (the library's own names ``--vocab-size`` and ``max_chars``)."""
    txt = upload(tmp_path, b"hello hello world\n", "a.txt")  # 9 characters: h e l o w r d, space, newline
    for size, unit, least, parts in (
        (5, "char", 265, "256 byte-fallback + 9 characters"),
        (100, "byte", 256, "256 bytes"),
    ):
        with pytest.raises(gr.Error) as raised:
            app.train([txt], size, unit, False, None)
        told = str(raised.value)
        assert f"The vocabulary size {size} is smaller than the {least} base tokens" in told, told
        assert f"({parts})" in told and f"choose {least} or more" in told, told
        assert "CLI" not in told and "--" not in told and "max_chars" not in told, told


def test_train_names_a_file_that_is_not_utf8_as_the_person_uploaded_it(tmp_path):
    """The reason names the file and the byte, never the server's folder of the upload."""
    good, bad = upload(tmp_path, b"hello world\n", "good.txt"), upload(tmp_path, b"ok\ncaf\xe9\n", "latin.txt")
    with pytest.raises(gr.Error) as raised:
        app.train([good, bad], 300, "char", False, None)
    told = str(raised.value)
    assert "latin.txt: not UTF-8 text (byte 0xe9 at offset 6)" in told, told
    assert str(tmp_path) not in told and "upload-" not in told, told


class PressStop:
    """A gr.Progress stand-in that presses Stop (as the Stop button does) on its ``n``-th report."""

    def __init__(self, state: dict, n: int) -> None:
        self.state, self.n, self.calls = state, n, 0

    def __call__(self, fraction, desc=None):
        self.calls += 1
        if self.calls == self.n:
            app.stop(self.state)


def test_stop_ends_training_and_corpus_statistics(tmp_path):
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:300_000]
    state = app.new_session()
    press = PressStop(state, 5)
    # stopping is information, not an error: it says where, with which file and vocabulary
    state, dropdown, out, status = app.train(
        [upload(tmp_path, text.encode(), "t.txt")], 2000, "char", False, state, progress=press
    )
    # nothing of the run is kept, and no run finished before: nothing is below
    assert press.calls == 5 and state.trained is None and state.vocabs == {} and out is None
    assert status.startswith("Stopped at ") and "2,000-token char vocabulary on t.txt" in status
    assert "still those of the last run" not in status
    press = PressStop(state, 2)
    rows, lengths, frequency, json_file, csv_file, status = app.corpus(
        upload(tmp_path, text.encode(), "c.txt"), "gpt2", state, progress=press
    )
    assert press.calls == 2 and rows == [] and lengths is frequency is json_file is csv_file is None
    assert status.startswith("Stopped at ") and "of c.txt with **gpt2**" in status
    assert "still those of the last run" not in status
    # after a run that finished, its results stay below a stopped run of the same view, which
    # says whose they are...
    assert app.corpus(upload(tmp_path, b"some words here\n", "s.txt"), "gpt2", state)[0]
    press = PressStop(state, 2)
    *results, status = app.corpus(upload(tmp_path, text.encode(), "c.txt"), "gpt2", state, progress=press)
    assert results == [gr.skip()] * 5 and "still those of the last run that finished" in status
    # ...but not below one of the other axis, whose chart and files they share
    press = PressStop(state, 2)
    *results, status = app.handlers.corpus_methods(
        upload(tmp_path, text.encode(), "c.txt"), "gpt2", state, ["bpe", "lbpe"], None, None, progress=press
    )
    assert results == [[], None, None, None, None] and "still those of the last run" not in status
    # Across: what was kept (nothing), and that its file box is empty now (the upload is read once)
    press = PressStop(state, 2)
    *_, status, _ = app.across("", upload(tmp_path, text.encode(), "a.txt"), state, progress=press)
    assert status.startswith("Stopped at ") and "of a.txt: nothing is shown for a part of a file" in status
    assert "choose a.txt again" in status, status
    press = PressStop(state, 2)
    *_, status, _ = app.across(text[:50_000], None, state, progress=press)
    assert f"of {compare_text_named(text[:50_000])}: nothing is shown for a part of it" in status
    assert "Press Compare across vocabularies to run it again" in status, status
    # the next run starts afresh
    assert app.train([upload(tmp_path, b"abc abd abe\n", "s.txt")], 260, "byte", False, state)[0].trained


# ---- the Blocks app, limits, unexpected failures ----


@pytest.mark.parametrize("name", list(VOCAB_PRESETS))
def test_the_vocabulary_line_names_a_preset_once(name):
    line = app.describe_vocab(name)
    assert line.startswith(f"**{name}**") and line.count(name) == 1, line
    assert re.search(r": [\d,]+ tokens, ", line) and "((" not in line and "))" not in line


def test_every_handler_has_an_api_name():
    names = {fn.api_name for fn in app.demo.fns.values() if fn.api_visibility == "public"}
    assert names == {
        "compare",
        "load_text",
        "upload_vocab",
        "describe_vocab",
        "corpus_stats",
        "train",
        "use_trained",
        "stop_corpus",
        "stop_train",
        "stop_across",
        "across_vocabularies",
        "across_methods",
        "corpus_methods",
        "corpus_sample_methods",
        "explain",
        "explain_frame",
        "explain_click",
        "decode_ids",
        "corpus_sample",
    }


def test_limits_from_the_environment():
    limits = Limits.from_env(
        {"LBPE_APP_MAX_TEXT_CHARS": "1000", "LBPE_APP_MAX_VOCAB_MB": "2.5", "LBPE_APP_FILE_TTL": "60"}
    )
    assert (limits.text_chars, limits.vocab_bytes, limits.file_ttl) == (1000, 2_500_000, 60)
    assert limits.corpus_bytes == Limits().corpus_bytes
    with pytest.raises(LbpeError, match="LBPE_APP_MAX_TRAIN_MB='lots' is not a number"):
        Limits.from_env({"LBPE_APP_MAX_TRAIN_MB": "lots"})


def test_an_unexpected_failure_is_a_short_message(monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("internal")

    monkeypatch.setattr(display, "compare", broken)
    with pytest.raises(gr.Error, match=r"Something went wrong \(KeyError\).*still running"):
        app.compare("x", "gpt2", True, False, None)


# ---- Across vocabularies ----


def compare_text_named(text: str) -> str:
    """How an Across run names the Compare text it measured: its length and its start, so a
    result still shown after the text changed says what it was computed on."""
    start = " ".join(text.split()).replace("`", "'")
    return f"the Compare text ({len(text):,} characters: `{start[:24]}{'…' if len(start) > 24 else ''}`)"


def test_across_names_the_compare_text_it_measured():
    """Results stay on the Across view after the Compare text changes: the status, the chart and
    the files name the text they were computed on, so an earlier run never passes for the text
    now in the box."""
    state = app.new_session()
    for text in (TEXT, "Totally different text now.", "  two\nlines with `ticks`  "):
        _, figure, json_path, _, status, _ = app.across(text, None, state)
        named = compare_text_named(text)
        assert status.startswith(named + " with "), status
        assert named in figure.layout.title.text
        assert json.loads(Path(json_path).read_text("utf-8"))["source"] == named
        _, figure, json_path, _, status, _ = app.handlers.across_methods(
            text, None, "gpt2", state, ["bpe", "lbpe"], None, None
        )
        assert status.startswith(named + " with "), status
        assert json.loads(Path(json_path).read_text("utf-8"))["source"] == named


def test_across_covers_every_preset_and_the_sessions_own_vocabulary(tmp_path):
    from lbpe.analysis.across import ACROSS_HEADERS

    state = app.new_session()
    src = data_file("openai/r50k_base.tiktoken")
    state, dropdown, _ = app.upload_vocab([upload(tmp_path, src, "mine.tiktoken")], "gpt2", state)
    rows, figure, json_path, csv_path, status, cleared = app.across(TEXT, None, state)
    names = [r[0] for r in rows]
    assert names == [*VOCAB_PRESETS, dropdown["value"]] and cleared is None
    doc = json.loads(Path(json_path).read_text("utf-8"))
    assert doc["source"] == compare_text_named(TEXT)
    for summary in doc["vocabularies"]:
        tok = app.get_tokenizer(summary["vocab"], state)
        want = compare_json(text_stats_both(tok, TEXT), vocab=summary["vocab"], unit=tok.vocab.unit, tok=tok)
        extra = {"n_vocab": tok.n_vocab, "vocab_tokens": summary["vocab_tokens"]}  # sizes: test_across
        assert summary == json.loads(json.dumps({**want, **extra}))
    assert Path(csv_path).read_text("utf-8").splitlines()[0].split(",")[:3] == ACROSS_HEADERS[:3]
    assert sorted(figure.data[0].y) == sorted(names)
    assert "vocabularies" in status and "sort" in status


def test_across_a_file_and_its_errors(tmp_path):
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:150_000]
    path = upload(tmp_path, text.encode(), "moby.txt")
    rows, _, json_path, _, status, _ = app.across("ignored when a file is given", path, None)
    tok = load_preset("gpt2")
    gpt2 = next(s for s in json.loads(Path(json_path).read_text("utf-8"))["vocabularies"] if s["vocab"] == "gpt2")
    for mode in ("bpe", "lbpe"):
        assert gpt2[mode]["tokens"] == len(tok.encode(text, mode=mode, disallowed_special=()))
    assert status.startswith(f"moby.txt with {len(VOCAB_PRESETS)} vocabularies")
    swept_later(path)
    with pytest.raises(gr.Error, match="Type or paste a text"):
        app.across("  ", None, None)
    with pytest.raises(gr.Error, match="UTF-8"):
        app.across("", upload(tmp_path, b"ok \xc3\x28", "bad.txt"), None)


# ---- Explain and the examples ----


def test_the_app_opens_on_the_shared_example_and_explains_capitals():
    from lbpe.playground.examples import DEFAULT_EXAMPLE, EXAMPLES

    assert app.DEFAULT_TEXT == DEFAULT_EXAMPLE.text
    config = app.demo.get_config_file()
    by_id = {c["id"]: c for c in config["components"]}
    by_elem = {c["props"].get("elem_id"): c for c in config["components"]}
    assert by_elem["text"]["props"]["value"] == DEFAULT_EXAMPLE.text
    assert by_elem["vocab"]["props"]["value"] == DEFAULT_EXAMPLE.vocabulary
    assert by_elem["explain-text"]["props"]["value"] == DEFAULT_EXAMPLE.explain
    at = DEFAULT_EXAMPLE.text.index(DEFAULT_EXAMPLE.explain)
    assert by_elem["explain-where"]["props"]["value"] == ""  # over the API: a span on its own
    opening = by_elem["explain"]["props"]["value"]
    # explained where it stands in the opening text: the panes' tokens, no dummy prefix
    tok = load_preset(DEFAULT_EXAMPLE.vocabulary)
    for mode in ("bpe", "lbpe"):
        ids = [s.id for s in tok.segment(DEFAULT_EXAMPLE.text, mode=mode) if at <= s.start < at + 9]
        assert " ".join(map(str, ids)) + "</div>" in opening or " ".join(map(str, ids)) + " · " in opening
    # " Capital" as the vocabulary spells it: with a space, or SentencePiece's "\u2581"
    assert re.search("BPE never makes &quot;[ \u2581]Capital&quot;", opening), opening
    assert "&quot;al&quot; + &quot;s&quot;" in opening
    examples = next(c for c in config["components"] if c["type"] == "dataset")
    assert examples["props"]["sample_labels"] == [e.label for e in EXAMPLES]
    assert [by_id[i]["props"].get("elem_id") for i in examples["props"]["component_ids"]] == [
        "text",
        "vocab",
        "explain-text",
        "explain-where",
    ]
    assert examples["props"]["samples"][1][3] == str(EXAMPLES[1].text.index(EXAMPLES[1].explain))


def test_explain_returns_the_library_steps():
    from lbpe.analysis.explain import explain
    from lbpe.playground.display import explain_html

    html, steps, slider = app.explain(" Capitals", "gpt2")
    ex = explain(load_preset("gpt2"), " Capitals")
    assert steps == ex.to_json() and html == explain_html(ex)
    assert slider["maximum"] == ex.frames - 1 and slider["value"] == ex.frames - 1
    assert app.explain(" Capitals", "gpt2", 0)[0] == explain_html(ex, 0)
    assert app.explain_frame(" Capitals", "gpt2", 2) == explain_html(ex, 2)
    # the step slider moved to 0 by an emptied box: the prompt stays (not a blank view)
    assert "Type a word or a short span to explain" in app.explain_frame("", "gpt2", 0)
    with pytest.raises(gr.Error, match="at most 400 characters"):
        app.explain("x" * 401, "gpt2")
    # an empty box says what to do, as a note and not a failure (the text's changes explain it again)
    prompt, steps, slider = app.explain("", "gpt2")
    assert "Type a word or a short span to explain" in prompt and 'class="lbpe-x-prompt"' in prompt
    assert steps is None and slider["interactive"] is False
    # a span of the text, where it stands (as a click, an example or a link gives it), is
    # explained there; typed, or no longer there, on its own
    from lbpe.analysis.explain import explain_span

    text = "The Capitals of Europe hold the geographers' maps"
    at = text.index("ographers")
    inside = explain_span(load_preset("mistral-7b"), text, at, at + 9)
    assert app.explain("ographers", "mistral-7b", None, None, text, str(at))[1] == inside.to_json()
    assert app.explain_frame("ographers", "mistral-7b", 1, None, text, str(at)) == explain_html(inside, 1)
    alone = explain(load_preset("mistral-7b"), "ographers")
    assert alone.bpe_ids != inside.bpe_ids
    for where in ("", str(at + 1), "nonsense"):
        assert app.explain("ographers", "mistral-7b", None, None, text, where)[1] == alone.to_json()
    assert app.explain("ographers", "mistral-7b", None, None, "changed " + text, str(at))[1] == alone.to_json()


def test_the_pages_explain_leaves_an_explanation_it_shows_as_it_is():
    """The page's Explain answers with a key of what it shows; asked again while the page shows
    that answer (Gradio's page runs an event again after a second change came while it ran), it
    changes nothing, so a step taken meanwhile stays. Any other explanation is answered in full."""
    from lbpe.analysis.explain import explain
    from lbpe.playground.display import explain_html

    ex = explain(load_preset("gpt2"), " Capitals")
    html, steps, slider, key = app.handlers.explain_on_page("", " Capitals", "gpt2")
    assert (html, steps, slider["value"]) == (explain_html(ex), ex.to_json(), ex.frames - 1)
    assert re.fullmatch("[0-9a-f]{24}", key)
    assert app.handlers.explain_on_page(key, " Capitals", "gpt2") == ({"__type__": "update"},) * 4
    # another span, another vocabulary, another pair, or an emptied key (a failure's reason
    # replaced the view): answered in full, each with a key of its own
    others = [
        ("", " Capitals", "gpt2"),
        (key, " Capital", "gpt2"),
        (key, " Capitals", "cl100k_base"),
        (key, " Capitals", "gpt2", None, None, "", "", False, "bpe", "longest-prefix"),
    ]
    keys = set()
    for args in others:
        answer = app.handlers.explain_on_page(*args)
        assert answer[:3] == app.explain(*args[1:]), args
        keys.add(answer[3])
    assert len(keys) == len(others) and key in keys  # the first is the one the key names
    # the opening view's key is in the page from the start: its first run changes nothing
    config = app.demo.get_config_file()
    shown = next(c for c in config["components"] if c["props"].get("elem_id") == "explain-shown")
    from lbpe.playground.examples import DEFAULT_EXAMPLE

    opening = app.handlers.explain_on_page(
        shown["props"]["value"],
        DEFAULT_EXAMPLE.explain,
        DEFAULT_EXAMPLE.vocabulary,
        None,
        None,
        app.DEFAULT_TEXT,
        str(app.DEFAULT_TEXT.index(DEFAULT_EXAMPLE.explain)),
    )
    assert opening == ({"__type__": "update"},) * 4


def test_a_click_picks_the_differing_span_or_the_word():
    text = "The Capitals of Europe"
    tok = load_preset("gpt2")
    differ = display.compare(tok, text).differ
    at = text.index("pit")
    inside = [r for r in differ if r[0] <= at < r[1]]
    want = text[slice(*inside[0])] if inside else " Capitals"
    assert app.explain_click(text, f"{at}:123", "gpt2") == (want, str(text.index(want)))
    assert app.explain_click(text, f"{text.index('Eu')}:9", "gpt2") == (" Europe", str(text.index(" Europe")))
    with pytest.raises(gr.Error, match="Click a token"):
        app.explain_click(text, "nonsense", "gpt2")


def test_step_buttons_and_play_stay_within_the_explanation():
    from lbpe.analysis.explain import explain

    frames = explain(load_preset("gpt2"), " Capitals").frames
    assert app.explain_move(1, frames - 1, " Capitals", "gpt2") == frames - 1
    assert app.explain_move(-1, 0, " Capitals", "gpt2") == 0
    assert app.explain_move(1, 3, " Capitals", "gpt2") == 4
    value, timer = app.play_start(frames - 1, " Capitals", "gpt2")
    assert value == 0 and timer.active  # at the end, Play starts again
    value, timer = app.play_step(frames - 2, " Capitals", "gpt2")
    assert value == frames - 1 and timer.active is False  # the last frame stops the timer
    value, timer = app.play_step(0, "", "gpt2")
    assert value == 0 and timer.active is False


def test_presets_are_offered_with_their_models():
    from lbpe.presets import preset_label

    labels = dict((value, label) for label, value in app.vocab_choices())
    assert labels["o200k_base"] == "GPT-4o: o200k_base" and labels["gpt2"] == "GPT-2: gpt2"
    assert labels["cl100k_base"] == "GPT-3.5 / GPT-4: cl100k_base"
    assert all(labels[name] == preset_label(name) and name in labels[name] for name in VOCAB_PRESETS)


def test_decode_pasted_ids_and_the_copy_boxes():
    tok = load_preset("cl100k_base")
    text = "Hi 日本語 🙂 <|endoftext|>"
    ids = tok.encode(text, mode="lbpe", allowed_special="all")
    out = app.decode_ids(json.dumps(ids), "cl100k_base")
    assert f"{len(ids)} ids decode to {len(text)} characters" in out
    assert "1 id decodes to 1 character:" in app.decode_ids("15", "cl100k_base")
    assert html_text(out.split('<pre class="lbpe-decoded-text">')[1].split("</pre>")[0]) == text  # whole characters
    assert "\ufffd" not in out and out.count('class="lbpe-tok ') == len(ids)
    assert app.decode_ids(" ".join(map(str, ids)), "cl100k_base") == out
    for bad, message in (
        ("", "paste token ids"),
        ("12 x3", "'x3' is not a token id"),
        ("12 999999999", "token id 999999999 is not in the vocabulary"),
        # digits that are not ASCII are no ids (int() reads "١٢" as 12), nor is a 5,000-digit number
        ("12 ²", "'²' is not a token id"),
        ("١٢٣", "'١٢٣' is not a token id"),
        ("12 " + "9" * 5000, "'99999999999999999999…' \\(5,000 digits\\) is too large to be a token id"),
        ("12 " + "9" * 26, "'99999999999999999999…' \\(26 digits\\) is too large to be a token id"),
        # a paste larger than the panes ever show is refused before it is drawn (15 MB of HTML)
        (" ".join(["15"] * 20_001), "at most 20,000 ids at a time; this paste has 20,001"),
        ("1 " * 650_000, "at most 20,000 ids at a time"),
    ):
        with pytest.raises(gr.Error, match=message):
            app.decode_ids(bad, "cl100k_base")
    details = app.compare("Capitals", "gpt2", True, False, None)[5]
    assert app.ids_text(details) == tuple(
        " ".join(map(str, load_preset("gpt2").encode("Capitals", mode=m))) for m in ("bpe", "lbpe")
    )


def html_text(fragment: str) -> str:
    import html as html_module

    return html_module.unescape(fragment)


def test_the_sample_corpus_in_one_click():
    from lbpe.presets import sample_corpus

    rows, lengths, frequency, json_path, csv_path, status = app.corpus_sample("gpt2")
    text = sample_corpus().decode("utf-8")
    tok = load_preset("gpt2")
    doc = json.loads(Path(json_path).read_text("utf-8"))
    assert doc["file"] == "sample-corpus.txt" and doc["vocab"] == "gpt2"
    for mode in ("bpe", "lbpe"):
        assert doc[mode]["tokens"] == len(tok.encode(text, mode=mode, disallowed_special=()))
    assert status.startswith(f"sample-corpus.txt: {len(text.encode()):,} bytes with **gpt2**")
    paper = {r[0]: r[4] for r in rows}
    assert paper["bytes / token"].endswith("paper: +0.184% at 32K (3.4318 -> 3.4381)")
    assert Path(csv_path).name == "sample-corpus-gpt2-stats.csv"


def test_a_failure_is_kept_for_its_session_until_shown(tmp_path):
    """The reason a handler failed is kept for the session that called it (for the page to show
    beside the control after the notice fades), once, escaped; other sessions see nothing."""
    mine, other = app.new_session(), app.new_session()
    with pytest.raises(gr.Error, match="Choose a text file"):
        app.corpus(None, "gpt2", mine)
    with pytest.raises(gr.Error, match="between 1 and"):
        app.train([upload(tmp_path, b"some text " * 50, "t.txt")], 10**9, "char", False, mine)
    assert app.failure_note("corpus", other) == "" and app.failure_note("corpus", None) == ""
    note = app.failure_note("corpus", mine)
    assert note.startswith('<p class="lbpe-failed" role="alert">Choose a text file') and note.endswith("</p>")
    assert app.failure_note("corpus", mine) == ""  # shown once; the next action replaces it
    with pytest.raises(gr.Error):
        app.upload_vocab([upload(tmp_path, b"{", "x<b>.json")], "auto", mine)
    assert "&lt;b&gt;" in app.failure_note("upload_vocab", mine)


def test_an_upload_name_means_one_vocabulary_for_the_whole_session(tmp_path, limits):
    """A name in a download or a link must not come to mean another model: a dropped name is not
    given again, and the same file uploaded again is the vocabulary already kept, not a copy that
    pushes another out."""
    limits(session_vocabs=2)
    session = app.new_session()
    files = {n: data_file(f"openai/{n}.tiktoken") for n in ("r50k_base", "cl100k_base", "o200k_base")}
    names = []
    for n in ("r50k_base", "cl100k_base", "o200k_base"):
        session, dropdown, _ = app.upload_vocab([upload(tmp_path, files[n], "vocab.tiktoken")], "cl100k_base", session)
        names.append(dropdown["value"])
    assert names == ["upload: vocab.tiktoken", "upload: vocab.tiktoken (2)", "upload: vocab.tiktoken (3)"]
    assert list(session.vocabs) == names[1:]  # the first was dropped; its name stays its own
    session, dropdown, _ = app.upload_vocab(
        [upload(tmp_path, files["o200k_base"], "vocab.tiktoken")], "cl100k_base", session
    )
    assert dropdown["value"] == names[2] and list(session.vocabs) == names[1:]  # the same file: kept once
    assert app.upload_note(session) == ""  # nothing dropped for it
    session, dropdown, _ = app.upload_vocab(
        [upload(tmp_path, files["r50k_base"], "vocab.tiktoken")], "cl100k_base", session
    )
    assert dropdown["value"] == names[0]  # the dropped file again: its name again, since it means the same
    assert app.get_tokenizer(names[0], session).vocab.tokens == load_preset("gpt2").vocab.tokens
    session, dropdown, _ = app.upload_vocab([upload(tmp_path, files["cl100k_base"], "vocab.tiktoken")], "gpt2", session)
    assert dropdown["value"] == "upload: vocab.tiktoken (4)"  # the same file read another way is another vocabulary


def test_an_upload_over_the_session_limit_says_which_vocabulary_it_dropped(tmp_path):
    """A session keeps the latest few vocabularies: the upload that drops the oldest says so
    beside the upload box (and a training in its status), naming it."""
    from tests.support.data import data_file

    session = app.new_session()
    keep = app.LIMITS.session_vocabs
    src = data_file("openai/r50k_base.tiktoken")
    for k in range(keep):
        app.upload_vocab([upload(tmp_path, src, f"v{k}.tiktoken")], "gpt2", session)
        assert app.upload_note(session) == ""
    app.upload_vocab([upload(tmp_path, src, "last.tiktoken")], "gpt2", session)
    note = app.upload_note(session)
    assert f"keeps the latest {keep} vocabularies" in note and "upload: v0.tiktoken" in note, note
    assert "upload: v0.tiktoken" not in dict(app.vocab_choices(session)).values()
    text = upload(tmp_path, b"plain words for a tiny vocabulary " * 40, "t.txt")
    *_, status = app.train([text], 300, "char", False, session)
    assert "upload: v1.tiktoken" in status and "dropped" in status, status


def test_play_pauses():
    from lbpe.analysis.explain import explain

    frames = explain(load_preset("gpt2"), " Capitals").frames
    value, timer, label = app.play_toggle(app.PLAY, frames - 1, " Capitals", "gpt2")
    assert (value, timer.active, label) == (0, True, app.PAUSE)  # from the start when at the end
    value, timer, label = app.play_tick(app.PAUSE, 2, " Capitals", "gpt2")
    assert value == 3 and label == {"__type__": "update"}  # playing on
    value, timer, label = app.play_toggle(app.PAUSE, 3, " Capitals", "gpt2")
    assert timer.active is False and label == app.PLAY and value == {"__type__": "update"}
    value, timer, label = app.play_tick(app.PLAY, 3, " Capitals", "gpt2")  # a tick sent before the pause
    assert timer.active is False and value == {"__type__": "update"}
    value, timer, label = app.play_tick(app.PAUSE, frames - 2, " Capitals", "gpt2")
    assert (value, timer.active, label) == (frames - 1, False, app.PLAY)  # the last step: Play again


def test_visitors_are_never_told_a_server_variable(caplog):
    """Each error that says how to raise a limit names its variable; the app tells visitors
    what is wrong without it, and its log keeps the whole message."""
    from lbpe import limits as lbpe_limits
    from lbpe.budget import TimeBudgetError
    from lbpe.user_regex import RegexTimeoutError

    with lbpe_limits.using(Limits(vocab_bytes=1_000_000)):
        over = lbpe_limits.exceeded("vocab_bytes", 2_000_000, "big.json")
    said = {
        "a limit": over,
        "a limit with a hint": lbpe_limits.exceeded("text_bytes", 1 << 30, "in.txt", hint="stream it with lbpe stats"),
        "the encoding budget": str(TimeBudgetError("the Compare view", 10.0, 10.0)),
        "a pattern's time": str(RegexTimeoutError(r"(\s*)*x", "the Split pattern", 50_000, 2.0)),
    }
    assert all("LBPE_" in message for message in said.values()), said
    with caplog.at_level("INFO", logger="lbpe.playground.app"):
        told = {what: app.for_visitors(message) for what, message in said.items()}
    for what, message in told.items():
        assert "LBPE_" not in message, f"{what}: {message}"
        assert message.rstrip(".").strip(), what
    assert told["a limit"] == (
        "big.json is 2 MB, over the limit of 1 MB for an uploaded vocabulary file, also after gunzip; "
        "this server allows no more "
        "(lbpe on your own machine does: pip install lbpe)"
    )
    assert told["a limit with a hint"].endswith("this server allows no more (lbpe on your own machine does: "
                                                "pip install lbpe); stream it with lbpe stats")  # fmt: skip
    assert told["the encoding budget"].endswith(
        "Shorten the text, choose another vocabulary, or encode it with lbpe on your own machine "
        "(pip install lbpe), where it has no time limit."
    )
    assert told["a pattern's time"].endswith(r"(e.g. one \s+ instead of \s*\s*) or shorten the text.")
    assert all(message in caplog.text for message in said.values())  # the server's log has each in full


LOCAL = trusted_proxies({})  # this machine only
SPACE = trusted_proxies({"SPACE_ID": "someone/lbpe"})  # and the private networks


@pytest.mark.parametrize(
    ("peer", "forwarded", "trusted", "visitor"),
    [
        # (public addresses below are real ones: Python counts the documentation ranges private)
        ("8.8.4.4", [], LOCAL, "8.8.4.4"),  # a visitor straight to the server
        ("8.8.4.4", ["198.51.100.1"], LOCAL, "8.8.4.4"),  # ... who says it was forwarded: not believed
        ("127.0.0.1", ["192.0.2.44"], LOCAL, "192.0.2.44"),  # a proxy on this machine names the visitor
        ("127.0.0.1", ["1.1.1.1, 192.0.2.44"], LOCAL, "192.0.2.44"),  # what the visitor wrote first: not believed
        ("127.0.0.1", ["6.6.6.6", "9.9.9.9"], LOCAL, "9.9.9.9"),  # the proxy's own header line is the last
        ("10.1.2.3", ["192.0.2.44"], LOCAL, "10.1.2.3"),  # a private peer is no proxy unless trusted
        ("10.1.2.3", ["192.0.2.44"], SPACE, "192.0.2.44"),  # ... as in a Space
        ("10.1.2.3", ["8.8.8.8, 10.0.0.7"], SPACE, "8.8.8.8"),  # two proxies
        ("127.0.0.1", ["10.0.0.1"], SPACE, "10.0.0.1"),  # nothing but proxies: the first of them
        ("127.0.0.1", ["192.0.2.44:5678"], LOCAL, "192.0.2.44"),  # a port is not a new visitor
        ("127.0.0.1", ["[2001:db8::1]:443"], LOCAL, "2001:db8::/64"),
        ("2001:db8:1:2::5", [], LOCAL, "2001:db8:1:2::/64"),  # an IPv6 visitor holds a /64
        ("::ffff:8.8.4.4", [], LOCAL, "8.8.4.4"),
        ("127.0.0.1", ["nonsense"], LOCAL, "127.0.0.1"),  # not an address: the proxy itself
        ("testclient", [], LOCAL, "testclient"),
    ],
)
def test_the_visitor_is_the_first_address_past_the_trusted_proxies(peer, forwarded, trusted, visitor):
    assert visitor_address(peer, forwarded, trusted) == visitor


def test_trusted_proxies_are_read_from_the_environment():
    assert trusted_proxies({"LBPE_APP_TRUSTED_PROXIES": "10.9.0.0/16, 192.0.2.1"}) == (
        ipaddress.ip_network("10.9.0.0/16"),
        ipaddress.ip_network("192.0.2.1/32"),
    )
    with pytest.raises(LbpeError, match=r"LBPE_APP_TRUSTED_PROXIES: 'ten' is not an address or a network"):
        trusted_proxies({"LBPE_APP_TRUSTED_PROXIES": "ten"})


def test_a_handler_called_without_a_request_has_no_visitor_address():
    assert app.client_address() is None


def test_the_upkeep_lifespan_closes_the_deep_link_route_and_runs_the_callers_own():
    import asyncio
    import contextlib

    import fastapi

    from lbpe.playground.app import upkeep

    server_app = fastapi.FastAPI()
    server_app.get("/gradio_api/deep_link")(lambda: "")
    server_app.get("/config")(lambda: {})
    entered = []

    @contextlib.asynccontextmanager
    async def callers(app):
        entered.append(app)
        yield

    async def run():
        async with upkeep.lifespan(app.demo, ttl=3600, inner=callers)(server_app):
            return [getattr(r, "path", None) for r in server_app.router.routes]

    paths = asyncio.run(run())
    assert "/config" in paths and "/gradio_api/deep_link" not in paths
    assert entered == [server_app]


def test_no_event_shows_progress_on_a_layout_block_or_a_token_pane():
    """Gradio's page copies the properties of every component an event shows progress on, and
    of everything inside it, each time any event's status changes. A layout block (the tabs)
    there copies every view at each keystroke; a token pane copies its whole markup. Measured
    on a 30,000-character text: a 7-character edit took 0.9-1.5 s to redraw, 0.5-0.8 s without
    them (bench/web_speed.py)."""
    config = app.demo.get_config_file()
    by_id = {c["id"]: c for c in config["components"]}
    layout = {"tabs", "tabitem", "row", "column", "group", "accordion", "form", "sidebar"}
    heavy = {"bpe-pane", "lbpe-pane", "details"}
    shown = []
    for dep in config["dependencies"]:
        if not dep.get("backend_fn"):
            continue  # the browser's own steps show no progress
        for target in dep.get("show_progress_on") or dep["outputs"]:
            c = by_id[target]
            if c["type"] in layout or c["props"].get("elem_id") in heavy:
                shown.append((dep.get("api_name"), c["type"], c["props"].get("elem_id")))
    assert shown == []


def test_the_explain_box_says_how_much_it_holds():
    """The browser stops the Explain box at its length without a word (a longer paste is cut):
    its label says the limit, and it is Explain's own."""
    from lbpe.analysis.explain import MAX_EXPLAIN_CHARS

    config = app.demo.get_config_file()
    box = next(c for c in config["components"] if c["props"].get("elem_id") == "explain-text")
    assert box["props"]["max_length"] == MAX_EXPLAIN_CHARS == 400
    assert "up to 400 characters" in box["props"]["label"], box["props"]["label"]


def test_the_tabs_hold_only_tabs():
    """Gradio's tabs count their children as tabs: any other component among them (a
    ``gr.State`` made while the tabs are open) shifts the tabs a link selects."""
    config = app.demo.get_config_file()
    by_id = {c["id"]: c for c in config["components"]}

    def find(node):
        if by_id.get(node["id"], {}).get("type") == "tabs":
            return node
        return next((found for child in node.get("children", []) if (found := find(child))), None)

    tabs = find(config["layout"])
    kinds = [by_id[child["id"]]["type"] for child in tabs["children"]]
    assert kinds == ["tabitem"] * 4


# ---- the page's Compare: a comparison the panes show is not sent again ----


def test_the_page_is_not_sent_a_comparison_it_shows():
    """The key a link's restore gives is the one the page's own Compare makes of the same
    controls (the page then asks again at no cost); any change of the text or a control that
    Compare reads asks anew; an uploaded vocabulary, or dropout without a seed, always does."""
    from types import SimpleNamespace

    state = app.handlers.new_session()
    out = app.handlers.restore(SimpleNamespace(query_params={"t": TEXT, "v": "o200k_base", "ids": "1"}))
    key = out[-1]
    assert isinstance(key, str) and len(key) == 32
    page = [TEXT, "o200k_base", True, True, state, False, "bpe", "lbpe", 0.1, 0]  # dropout's boxes unread
    skip = app.handlers.compare_on_page(key, *page)
    assert len(skip) == 8 and all(update == {"__type__": "update"} for update in skip)
    fresh = app.handlers.compare(*page)
    changes = [(0, TEXT[:-2] + "x\n"), (1, "cl100k_base"), (2, False), (3, False), (5, True), (7, "longest-prefix")]
    for i, changed in changes:
        asked = [*page[:i], changed, *page[i + 1 :]]
        again = app.handlers.compare_on_page(key, *asked)
        assert again[-1] not in ("", key) and again[:7] == app.handlers.compare(*asked)
    assert app.handlers.compare_on_page(key, *page)[:7] == (gr.skip(),) * 7
    assert app.handlers.compare_on_page("", *page)[:7] == fresh
    seeded = [*page[:7], "dropout", 0.2, 3]
    assert app.handlers.compare_key(*seeded[:4], *seeded[5:]) != ""
    for never in ([*page[:7], "dropout", 0.2, None], [*page[:1], "upload: o200k_base", *page[2:]]):
        assert app.handlers.compare_key(*never[:4], *never[5:]) == ""


def test_the_page_refuses_files_over_a_limit_in_the_servers_words(limits):
    """What the page shows for files it refused before sending them (refused_note): the reason
    the server gives for the same files, never more than the request says."""
    limits(vocab_bytes=100, train_bytes=1_000_000)
    refused = app.handlers.refused_note
    note = refused("vocab-upload", '["big.json", 200, 1, 1]')
    assert note == (
        '<p class="lbpe-failed" role="alert">big.json is 0.0002 MB, over the limit of 0.0001 MB for an uploaded '
        "vocabulary file, also after gunzip; this server allows no more (lbpe on your own machine does: pip install "
        "lbpe)</p>"
    )
    assert "the training corpus (3 file(s)) is 1.5 MB" in refused("train-upload", '["", 1500000, 3, 1]')
    assert "&lt;b&gt;.json is" in refused("vocab-upload", '["<b>.json", 200, 1, 1]')  # a name is text
    for within_or_not_asked in ('["a.json", 100, 1, 1]', "", "nonsense", '["a.json"]', "[1, 2, 3, 4]"):
        note = refused("vocab-upload", within_or_not_asked)
        assert isinstance(note, type(gr.skip())), (within_or_not_asked, note)
