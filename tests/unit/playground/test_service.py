"""lbpe.playground.service: what the app, the page and the CLI share (uploads, sessions, views, links)."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
from pathlib import Path

import pytest

import lbpe
from lbpe.analysis.across import across_vocabularies
from lbpe.analysis.explain import MAX_EXPLAIN_CHARS, explain, explain_span, pick_span
from lbpe.errors import LbpeError, PatternNeededError
from lbpe.limits import Limits
from lbpe.playground.service import (
    Busy,
    Downloads,
    Session,
    Stopped,
    TrainTimeError,
    Uploads,
    across_view,
    corpus_view,
    describe,
    explain_target,
    explain_view,
    link_state,
    methods_view,
    open_upload,
    open_vocabulary,
    text_head,
    train_view,
)
from lbpe.presets import load_preset
from lbpe.tokenizer import Tokenizer
from tests.support.data import data_file

TEXT = "Tokenization matters: 12345 cafés, 日本語 and code()."


def copy(tmp_path, source, name):
    target = tmp_path / name
    shutil.copyfile(source, target)
    return target


@pytest.mark.slow(reason="every GPT-2 file layout")
def test_gpt2_pair_and_single_files_open_as_the_loader_reads_them(tmp_path):
    pair = [copy(tmp_path, data_file(f"gpt2/{n}"), n) for n in ("vocab.bpe", "encoder.json")]
    tok = open_upload(pair)
    want = lbpe.load(data_file("gpt2/encoder.json").parent)
    assert tok.name == "encoder.json + vocab.bpe"
    for mode in ("bpe", "lbpe"):
        assert tok.encode(TEXT, mode=mode) == want.encode(TEXT, mode=mode)
    assert all(p.is_file() for p in pair)  # the caller's uploads are left for the caller
    one = open_upload([copy(tmp_path, data_file("hf/llama3/tokenizer.json"), "tokenizer.json")])
    assert one.encode(TEXT, mode="lbpe") == lbpe.load(data_file("hf/llama3/tokenizer.json")).encode(TEXT, mode="lbpe")


@pytest.mark.slow(reason="every rank file")
def test_a_rank_file_without_a_known_name_asks_for_its_pretokenizer(tmp_path):
    mine = copy(tmp_path, data_file("openai/cl100k_base.tiktoken"), "mine.tiktoken")
    with pytest.raises(PatternNeededError) as info:
        open_upload([mine])
    assert info.value.source == "mine.tiktoken" and "lbpe-vocab-" not in str(info.value)
    for auto in ("auto", "", None):
        with pytest.raises(PatternNeededError):
            open_vocabulary(mine, pattern=auto)
    tok = open_upload([mine], pattern="cl100k_base")
    assert tok.encode(TEXT, mode="bpe") == lbpe.load_preset("cl100k_base").encode(TEXT, mode="bpe")
    # a tokenizer.json carries its own pre-tokenizer: a pattern chosen in a menu is ignored
    hf = copy(tmp_path, data_file("hf/qwen3/tokenizer.json"), "tokenizer.json")
    assert open_vocabulary(hf, pattern="gpt2").encode(TEXT, mode="bpe") == lbpe.load(hf).encode(TEXT, mode="bpe")


def test_a_file_that_is_not_a_rank_file_is_refused_before_a_pretokenizer_is_asked(tmp_path):
    """Choosing a pre-tokenizer for a file that cannot be one is wasted: the format's fault is
    said first."""
    junk = tmp_path / "mine.tiktoken"
    junk.write_bytes(bytes(range(256)) * 20)
    with pytest.raises(LbpeError) as info:
        open_upload([junk])
    assert not isinstance(info.value, PatternNeededError)
    assert "mine.tiktoken" in str(info.value) and "line 1" in str(info.value)
    # a pattern given is checked before the file is read through: a mistyped one is said first
    with pytest.raises(LbpeError, match="unknown pre-tokenizer pattern 'nonsense'"):
        open_upload([junk], pattern="nonsense")


@pytest.mark.parametrize(
    "files, message",
    [
        ([], "Choose a vocabulary file"),
        (["a.json", "b.json"], "Two files can only be GPT-2's encoder.json and vocab.bpe, not a.json and b.json"),
        (["a", "b", "c"], "Upload one vocabulary file"),
    ],
)
def test_file_sets_that_are_not_a_vocabulary(tmp_path, files, message):
    paths = []
    for name in files:
        (tmp_path / name).write_text("{}")
        paths.append(tmp_path / name)
    with pytest.raises(LbpeError, match=message):
        open_upload(paths)


def test_bad_files_are_named_as_chosen_never_by_the_private_folder(tmp_path, monkeypatch):
    bad = tmp_path / "tokenizer.json"
    bad.write_bytes(b'{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [')
    with pytest.raises(LbpeError) as info:
        open_upload([bad])
    assert str(info.value).startswith("tokenizer.json") and "lbpe-vocab-" not in str(info.value)
    # a message that names the vocabulary by its folder (an empty one) names the file instead
    bad.write_text('{"model": {"type": "BPE", "vocab": {}, "merges": []}}')
    with pytest.raises(LbpeError) as info:
        open_upload([bad])
    assert "vocabulary tokenizer.json has no tokens" in str(info.value), str(info.value)
    assert "lbpe-vocab-" not in str(info.value)
    big = copy(tmp_path, data_file("openai/o200k_base.tiktoken"), "o200k_base.tiktoken")
    with pytest.raises(
        LbpeError, match=r"o200k_base.tiktoken is 3.6\d* MB, over the limit of 3 MB.*LBPE_APP_MAX_VOCAB_MB"
    ):
        open_upload([big], limits=Limits(vocab_bytes=3_000_000))
    monkeypatch.setenv("LBPE_MAX_VOCAB_BYTES", "1M")
    with pytest.raises(LbpeError, match=r"over the limit of .*LBPE_MAX_VOCAB_BYTES"):
        open_upload([big])
    # a vocabulary read from a private folder is named as chosen in what it says later, too
    tiny = tmp_path / "tiny.json"
    tiny.write_text('{"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}}')
    tok = open_upload([copy(tmp_path, tiny, "tokenizer.json")])
    assert tok.encode("ab", mode="bpe") == [2]
    with pytest.raises(LbpeError) as info:
        tok.encode("The", mode="bpe")
    assert "vocabulary tokenizer.json" in str(info.value) and "lbpe-vocab-" not in str(info.value)


def test_corpus_view_counts_a_whole_file_exactly_with_progress():
    data = data_file("text/multilingual.txt").read_bytes()[:400_000]
    data = data[: len(data.decode("utf-8", "ignore").encode("utf-8"))]  # whole characters only
    tok = lbpe.load_preset("cl100k_base")
    seen: list[float] = []
    view = corpus_view(tok, data, "many.txt", progress=seen.append)
    text = data.decode("utf-8")
    for mode in ("bpe", "lbpe"):
        assert view["tokens"][mode] == len(tok.encode(text, mode=mode, disallowed_special=()))
    assert seen[0] == 0.0 and seen[-1] == pytest.approx(1.0) and seen == sorted(seen) and len(seen) > 3
    assert view["summary"]["file"] == "many.txt" and view["summary"]["vocab"] == "cl100k_base"
    assert view["rows"] and view["csv"].splitlines()[0].startswith("file,")
    with pytest.raises(LbpeError, match=r"x.txt: not UTF-8 text \(byte 0xff at offset 3\)"):
        corpus_view(tok, b"abc\xff", "x.txt")


def test_a_files_byte_order_mark_is_counted_nowhere_on_the_page():
    """A file saved with a UTF-8 byte order mark: the status line and the table under it give
    the same bytes, the text's, and the tokens of the text without the mark; the Across and
    methods views alike."""
    from lbpe.playground.service import methods_view

    tok = lbpe.load_preset("gpt2")
    text = "Plain text for the statistics, with caf\u00e9. " * 3
    body = text.encode("utf-8")
    view = corpus_view(tok, b"\xef\xbb\xbf" + body, "bom.txt")
    assert view["summary"]["bpe"]["bytes"] == len(body)
    assert view["status"].startswith(f"bom.txt: {len(body):,} bytes of text (its byte order mark left out) "), view[
        "status"
    ]
    assert view["tokens"]["bpe"] == len(tok.encode(text, mode="bpe", disallowed_special=()))
    plain = corpus_view(tok, body, "plain.txt")
    assert plain["status"].startswith(f"plain.txt: {len(body):,} bytes with "), plain["status"]
    across = json.loads(across_view({"gpt2": tok}, data=b"\xef\xbb\xbf" + body, source="bom.txt")["json"])
    assert across["vocabularies"][0]["bpe"]["bytes"] == len(body)
    methods = methods_view(tok, data=b"\xef\xbb\xbf" + body, source="bom.txt", methods="bpe,lbpe")
    assert json.loads(methods["json"])["methods"]["bpe"]["bytes"] == len(body)


TEXT_CHARS = 5_000  # a Compare limit above the longest text a link carries (MAX_LINK_TEXT)


def test_a_link_restores_the_view_and_says_what_it_left_out():
    state = link_state(
        {"t": "Capitals", "v": "o200k_base", "ws": "0", "ids": "1", "sp": "1", "x": " Capitals", "view": "across"},
        text_chars=TEXT_CHARS,
    )
    assert state == {
        "notes": [],
        "text": "Capitals",
        "vocab": "o200k_base",
        "show_whitespace": False,
        "show_ids": True,
        "specials": True,
        "explain": " Capitals",
        "view": "across",
    }
    odd = link_state(
        {
            "v": "upload: secret.json",
            "ws": "maybe",
            "view": "admin",
            "x": "y" * 900,
            "t": "z" * (TEXT_CHARS + 1),
        },
        text_chars=TEXT_CHARS,
    )
    assert set(odd) == {"notes", "explain"} and len(odd["explain"]) == 400
    # where the span stands in the text: a whole number of ASCII digits, else left out
    assert link_state({"t": "a Capitals", "x": " Capitals", "xa": "1"}, text_chars=TEXT_CHARS)["explain_at"] == 1
    for bad in ("-1", "x", "\u00b2", "1" * 12):
        assert "explain_at" not in link_state({"x": "a", "xa": bad}, text_chars=TEXT_CHARS)
    assert "explain_at" not in link_state({"xa": "3"}, text_chars=TEXT_CHARS)
    # a text too long for a link: its receiver is told, with its length
    (note,) = link_state({"tl": "2600"}, text_chars=TEXT_CHARS)["notes"]
    assert "had 2,600 characters, more than a link carries (2,000)" in note and "paste the text again" in note
    assert link_state({"tl": "lots"}, text_chars=TEXT_CHARS)["notes"] == []
    assert any("not a bundled one" in n and "never put in a link" in n for n in odd["notes"])
    assert any(f"over {TEXT_CHARS:,} characters" in n for n in odd["notes"])


# ---- sessions, text uploads, downloads ----


def test_a_session_names_keeps_and_drops_vocabularies():
    session, tok = Session(keep=2), load_preset("gpt2")
    names = [session.remember("upload: a.json", Tokenizer(tok.vocab, "gpt2")) for _ in range(3)]
    assert names == ["upload: a.json", "upload: a.json (2)", "upload: a.json (3)"]
    assert list(session.vocabs) == names[1:]  # the oldest went
    assert session.tokenizer(names[2]).name == names[2] and session.tokenizer("gpt2").n_vocab == tok.n_vocab
    assert [n for _, n in session.choices()][-2:] == names[1:]
    with pytest.raises(LbpeError, match="Unknown vocabulary 'upload: a.json'"):
        session.tokenizer(names[0])
    assert session.remember("gpt2", Tokenizer(tok.vocab, "gpt2")) == "gpt2 (2)"  # never a preset's name


def test_stop_ends_a_view_at_its_next_step_and_a_new_view_starts_afresh():
    session, seen = Session(), []
    report = session.reporter(seen.append)
    report(-0.5)
    report(0.25)
    session.stop = True
    with pytest.raises(Stopped) as stopped:
        report(2.0)
    assert seen == [0.0, 0.25, 1.0] and stopped.value.fraction == 1.0
    session.reporter(seen.append)(0.5)  # a new view clears the flag
    assert seen[-1] == 0.5 and not session.stop


def test_text_head_cuts_at_a_character_and_says_when_the_file_is_longer(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("ab" + "é" * 10, "utf-8")
    assert text_head(path, 100) == ("ab" + "é" * 10, 12)
    assert text_head(path, 6) == ("abéééé", 12)  # the 24 bytes read hold the whole file (22)
    assert text_head(path, 5) == ("abééé", None)  # 20 bytes read: the file goes on
    assert text_head(path, 2) == ("ab", None)  # 8 bytes read: "ab" and three "é"; the file goes on
    path.write_bytes(b"ab" + "é".encode()[:1] + b"x" * 20)
    with pytest.raises(LbpeError, match=r"t.txt: not UTF-8 text \(byte 0xc3 at offset 2\)"):
        text_head(path, 100)


def test_downloads_live_in_their_own_folders_and_old_ones_are_swept(tmp_path):
    downloads = Downloads(ttl=60, root=tmp_path)
    first = Path(downloads.write("s.json", "{}"))
    second = Path(downloads.write("s.json", b"\x00"))
    assert first.parent != second.parent and first.read_text() == "{}" and second.read_bytes() == b"\x00"
    os.utime(first.parent, (0, 0))  # written long ago
    downloads.write("t.csv", "")
    assert not first.exists() and second.exists()
    downloads.remove()
    assert not tmp_path.exists()


def test_downloads_are_swept_without_a_new_one(tmp_path):
    downloads = Downloads(ttl=60, root=tmp_path / "d")
    old = Path(downloads.write("s.json", "{}"))
    os.utime(old.parent, (0, 0))
    downloads.sweep()
    assert not old.exists()


def test_an_upload_shared_by_sessions_is_swept_only_when_none_can_need_it(tmp_path):
    """Gradio keeps identical uploads at one path: it stays while a handler holds it, and for
    ``grace`` seconds after it last arrived (another session's handler may be on its way)."""
    shared = tmp_path / "same-bytes" / "vocab.json"
    shared.parent.mkdir()
    shared.write_text("{}")
    uploads = Uploads(grace=60)
    with uploads.hold([shared], keep=0):
        with uploads.hold([shared], keep=0):
            pass
        uploads.sweep(everything=True)
        assert shared.exists()  # still held by the first handler
    uploads.sweep()
    assert shared.exists()  # arrived just now: another session's handler may still come
    long_ago = os.stat(shared).st_mtime - 61
    os.utime(shared, (long_ago, long_ago))
    uploads.sweep()
    assert not shared.exists() and not shared.parent.exists()
    with pytest.raises(LbpeError, match="vocab.json: the upload is gone; please upload it again"):
        with uploads.hold([shared], keep=0):
            pass


def test_a_session_runs_one_job_of_a_kind_at_a_time():
    session = Session()
    with session.job("train", "A training"):
        with pytest.raises(Busy, match="A training is already running in this session: wait for it"):
            with session.job("train", "A training"):
                pass
        with session.job("corpus", "A corpus statistics job"):  # another kind runs beside it
            assert session.running == {"train", "corpus"}
    assert session.running == set()
    with session.job("train", "A training"):  # free again, also after a failure inside
        pass
    with pytest.raises(KeyError), session.job("train", "A training"):
        raise KeyError("a failure inside the job")
    assert session.running == set()


# ---- views ----


def test_a_vocabularys_line_names_its_pre_tokenizer_and_special_tokens():
    """What the "Special tokens as specials" box turns on, and which pre-tokenizer an upload was
    read with (two uploads of one file with two patterns are otherwise alike)."""
    assert describe(load_preset("mistral-7b")).endswith(
        ": 32,000 tokens, characters with byte fallback as units, pre-tokenizer sentencepiece, special tokens "
        "`<unk>`, `<s>`, `</s>`."
    )
    assert describe(load_preset("cl100k_base")).endswith(
        "100,261 tokens, bytes as units, its own pre-tokenizer, special tokens `<|endoftext|>`, "
        "`<|fim_prefix|>`, `<|fim_middle|>` and 2 more."
    )
    assert describe(load_preset("lbpe-32k")).endswith(
        "as units, the pre-tokenizer of its tokenizer.json, no special tokens."
    )
    with_pattern = lbpe.load(data_file("openai/r50k_base.tiktoken"), pattern="o200k_base", special_tokens={})
    assert "pre-tokenizer o200k_base, no special tokens." in describe(with_pattern)


def test_across_view_names_every_vocabulary_tied_for_the_largest_change():
    """Two vocabularies whose token counts LBPE changes by the same share are both named."""
    text = "Tokenization matters. The Capitals of Europe, unrescinded redelivery 12345."
    toks = {name: load_preset(name) for name in ("lbpe-32k", "lbpe-llama-32k", "gpt2")}
    change = {}
    for name, tok in toks.items():
        bpe, ours = (len(tok.encode(text, mode=m, disallowed_special=())) for m in ("bpe", "lbpe"))
        change[name] = (ours - bpe) / bpe
    assert change["lbpe-32k"] == change["lbpe-llama-32k"] != 0 and abs(change["gpt2"]) < abs(change["lbpe-32k"])
    status = across_view(toks, text=text)["status"]
    share = f"{100 * change['lbpe-32k']:+.2f}%"
    assert f"most with **lbpe-32k** and **lbpe-llama-32k** ({share} each)" in status, status


def test_across_view_of_a_text_and_of_its_file_equal_the_library():
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:30_000]
    toks = {name: load_preset(name) for name in ("gpt2", "mistral-7b")}
    expected = across_vocabularies(toks, [text])
    fractions: list[float] = []
    of_text = across_view(toks, text=text, progress=fractions.append)
    of_file = across_view(toks, data=text.encode(), source="moby.txt")
    for view in (of_text, of_file):
        assert [(s["vocab"], s["bpe"]["tokens"], s["lbpe"]["tokens"]) for s in view["vocabularies"]] == [
            (s["vocab"], s["bpe"]["tokens"], s["lbpe"]["tokens"]) for s in expected
        ]
        assert json.loads(view["json"])["vocabularies"] == view["vocabularies"]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert of_file["status"].startswith("moby.txt with 2 vocabularies: ")
    with pytest.raises(LbpeError, match="Type or paste a text"):
        across_view(toks, text="  ")
    with pytest.raises(LbpeError, match=r"bad.txt: not UTF-8 text \(byte 0xff at offset 1\)"):
        across_view(toks, data=b"a\xff", source="bad.txt")


def test_explain_view_and_target_are_the_explainer_s():
    tok = load_preset("cl100k_base")
    ex = explain(tok, " tokenization")
    last = explain_view(tok, " tokenization")
    assert last["frames"] == ex.frames and last["frame"] == ex.frames - 1 and last["steps"] == ex.to_json()
    assert explain_view(tok, " tokenization", 0)["frame"] == 0
    assert explain_view(tok, " tokenization", 10**6)["frame"] == ex.frames - 1
    with pytest.raises(LbpeError, match="Type a word"):
        explain_view(tok, "")
    text = "Hello tokenization world"
    a, b = pick_span(text, 8, lbpe.playground.display.compare(tok, text).differ)
    assert explain_target(tok, text, 8) == {"start": a, "end": b, "span": text[a:b]}
    # a click: the span widened to boundaries both encodings share (the indentation is one token
    # with the word's "▁" in both), then explained where it stands, as the panes encode it
    mistral = load_preset("mistral-7b")
    code = "if (x) {\n      const y = 1\n}"
    target = explain_target(mistral, code, code.index("const"))
    assert target == {"start": 9, "end": 20, "span": "      const"}
    view = explain_view(mistral, target["span"], text=code, at=target["start"])
    assert view["steps"] == explain_span(mistral, code, 9, 20).to_json()
    assert view["steps"]["in_text"] == {"start": 9, "end": 20}
    for mode in ("bpe", "lbpe"):
        panes = [s.id for s in mistral.segment(code, mode=mode) if 9 <= s.start < 20]
        assert [i for p in view["steps"]["pieces"] for i in p[mode]["ids"]] == panes
    # typed, or no longer where it was: on its own
    assert explain_view(mistral, "      const", text=code, at=8)["steps"]["in_text"] is None
    # a lone surrogate in the span is read as in the text (U+FFFD): still explained where it stands
    gpt2 = load_preset("gpt2")
    assert explain_view(gpt2, " a\ud800b", text="x a\ud800b y", at=1)["steps"]["in_text"] == {"start": 1, "end": 5}


@pytest.mark.parametrize(
    ("name", "text", "at"),
    [
        ("mistral-7b", "a" * 5000, 2500),  # one differing span of 5,000 characters
        ("cl100k_base", "start " + "x" * 3000 + " end", 1500),  # one word of 3,000 characters
        ("mistral-7b", "".join(random.Random(7).choice("abcdefghijklmnopqrstuvwxyz") for _ in range(50_000)), 25_000),
    ],
)
def test_a_click_names_a_span_explain_takes_or_says_why_not(name, text, at):
    """A click fills Explain with a span it explains (at most MAX_EXPLAIN_CHARS once widened to
    the boundaries both encodings share) holding the clicked character, or says why there is
    none; never a span Explain then refuses."""
    tok = load_preset(name)
    try:
        target = explain_target(tok, text, at)
    except LbpeError as exc:
        assert "Explain works on at most 400 characters" in str(exc) and "share no token boundary" in str(exc)
        with pytest.raises(LbpeError):  # and indeed: the shortest span around it is too long once widened
            explain_span(tok, text, at, at + 1)
        return
    assert target["start"] <= at < target["end"] and target["end"] - target["start"] <= MAX_EXPLAIN_CHARS
    view = explain_view(tok, target["span"], text=text, at=target["start"])
    assert view["steps"]["in_text"] == {"start": target["start"], "end": target["end"]}


def test_train_view_checks_first_then_trains_as_the_library(tmp_path):
    path = tmp_path / "t.txt"
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:20_000]
    path.write_text(text, "utf-8")
    got = train_view([path], vocab_size=400, unit="byte", scaffold=True)
    want = lbpe.train(text, vocab_size=400, unit="byte", scaffold=True)
    assert got["vocab"].tokens == want.tokens and got["vocab"].merges == want.merges
    assert got["vocab"].scaffold == want.scaffold and got["bytes"] == len(text.encode())
    assert got["tokens"] == len(want) - len(want.scaffold) and got["scaffold"] == len(want.scaffold)
    assert "fewer than" not in got["message"]
    # a .gz file counts by the text it holds, against the limit and in the message (it counted by
    # its compressed size, so a small upload could train on far more than the limit)
    import gzip

    packed = tmp_path / "t.txt.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    assert packed.stat().st_size < 10_000 < len(text.encode())
    with pytest.raises(LbpeError, match=r"the training corpus \(1 file\(s\)\) is more than 0.01 MB, over the limit"):
        train_view([packed], vocab_size=400, unit="byte", limits=Limits(train_bytes=10_000))
    assert train_view([packed], vocab_size=400, unit="byte")["bytes"] == len(text.encode())
    assert f"from {len(text.encode()):,} bytes of text" in train_view([path], vocab_size=400, unit="byte")["message"]
    # a JSON lines file's size holds its framing: the message says what the number counts
    import json

    lines = tmp_path / "t.jsonl"
    lines.write_text("".join(json.dumps({"text": p, "id": 1}) + "\n" for p in text.split("\n\n")), "utf-8")
    said = train_view([lines], vocab_size=400, unit="byte")["message"]
    assert f"from {lines.stat().st_size:,} bytes of files as stored (JSON lines and Parquet with their framing)" in said
    # ... and a packed one's is its size once unpacked, not as stored
    packed_lines = tmp_path / "t.jsonl.gz"
    packed_lines.write_bytes(gzip.compress(lines.read_bytes()))
    said = train_view([packed_lines], vocab_size=400, unit="byte")["message"]
    unpacked = lines.stat().st_size
    assert packed_lines.stat().st_size != unpacked
    assert f"from {unpacked:,} bytes of files (JSON lines and Parquet with their framing, .gz files unpacked)" in said
    # a size the corpus cannot reach is said (SentencePiece refuses it; lbpe stops when no pair is left)
    path.write_text("ab ab ab", "utf-8")
    tiny = train_view([path], vocab_size=100_000, unit="byte")
    assert tiny["tokens"] < 300 and "(fewer than the 100,000 asked: the corpus has no pair left that" in tiny["message"]
    path.write_text(text, "utf-8")
    for options, message in (
        ({"style": "llama", "unit": "byte"}, "llama style trains characters"),
        ({"style": "llama", "pattern": "gpt2"}, "no regex pre-tokenizer"),
        ({"pattern": "nonsense"}, "nonsense"),
        ({"unit": "word"}, "unit must be 'char' or 'byte'"),
        ({"style": "bert"}, "style must be 'gpt2' or 'llama'"),
        ({"max_vocab": 300}, "between 1 and 300"),
        ({"limits": Limits(train_bytes=1000)}, "over the limit"),
    ):
        with pytest.raises(LbpeError, match=message):
            train_view([path], vocab_size=400, **options)
        if "limits" not in options:  # checked before any file is read: a missing file is not reached
            with pytest.raises(LbpeError, match=message):
                train_view([tmp_path / "missing.txt"], vocab_size=400, **options)
    with pytest.raises(LbpeError, match="Choose one or more"):
        train_view([], vocab_size=400, unit="word")  # no files is said first
    bad = tmp_path / "latin.txt"
    bad.write_bytes(b"x" * 5000 + "\xe9t\xe9".encode("latin-1"))
    with pytest.raises(LbpeError, match=r"latin.txt: not UTF-8 text \(byte 0xe9 at offset 5000\)"):
        train_view([bad], vocab_size=400)


def test_train_view_stops_at_its_time_limit_and_says_what_to_do(tmp_path):
    corpus = tmp_path / "t.txt"
    corpus.write_text("hello world " * 200, encoding="utf-8")
    steps: list[tuple[int, int]] = []
    with pytest.raises(TrainTimeError) as err:
        train_view([corpus], vocab_size=400, unit="byte", seconds=0.0, progress=lambda d, w: steps.append((d, w)))
    message = str(err.value)
    assert message.startswith("Training stopped after 0 s, the most this server gives one training (")
    assert "Train on a smaller file or a smaller vocabulary size" in message
    assert message.endswith("pip install lbpe, then lbpe train --vocab-size 400 --unit byte -o tokenizer.json FILE")
    assert "LBPE_" not in message
    # no limit: the same call trains to the end, as lbpe.train does
    done = train_view([corpus], vocab_size=400, unit="byte", seconds=None)
    assert done["vocab"].tokens == lbpe.train([corpus], vocab_size=400, unit="byte", pattern="paper").tokens


def test_a_first_use_builds_its_tables_before_the_time_budget(monkeypatch):
    """A vocabulary's first Compare builds its compiled tables (seconds for o200k on a busy
    machine); the request's time budget starts after that, so it counts encoding only."""
    from lbpe import native
    from lbpe.playground.service import compare as views

    if not native.backend().compiled_available:
        pytest.fail("the compiled extension is not built: python -m pip install -e . (it compiles lbpe/_native.c)")
    tok = lbpe.load(data_file("openai/cl100k_base.tiktoken"))
    assert native.built_model(tok.vocab) is None  # a vocabulary never used
    entered: list[bool] = []
    real = views.time_budget

    def spy(chars, *, what):
        entered.append(native.built_model(tok.vocab) is not None)
        return real(chars, what=what)

    monkeypatch.setattr(views, "time_budget", spy)
    views.compare_view(tok, "Hello world")
    assert entered == [True]


@pytest.mark.parametrize("data", [b"", b" \n\t "], ids=["empty", "white-space"])
def test_views_of_a_file_with_no_words_say_there_is_nothing_to_measure(data):
    from lbpe.playground.service import methods_view

    tok = lbpe.load_preset("gpt2")
    message = "blank.txt holds no words to measure (it is empty or white space only); choose a file with text"
    with pytest.raises(LbpeError, match=re.escape(message)):
        corpus_view(tok, data, "blank.txt")
    with pytest.raises(LbpeError, match=re.escape(message)):
        across_view({"gpt2": tok}, data=data, source="blank.txt")
    with pytest.raises(LbpeError, match=re.escape(message)):
        methods_view(tok, data=data, source="blank.txt", methods="bpe,lbpe")


def test_across_views_say_when_the_text_spells_a_special_token():
    """Across counts text that spells a special token as ordinary text (as lbpe stats): the
    views name the tokens the text spells, and say nothing for a text that spells none."""
    tok = load_preset("cl100k_base")
    text = "one <|endoftext|> two <|fim_prefix|>"
    ordinary = len(tok.encode_ordinary(text, mode="bpe"))
    view = across_view({"cl100k_base": tok, "gpt2": load_preset("gpt2")}, text=text)
    assert view["special_text"] == ["<|endoftext|>", "<|fim_prefix|>"]
    assert "spells special tokens (`<|endoftext|>`, `<|fim_prefix|>`): counted here as ordinary" in view["status"]
    assert view["vocabularies"][0]["bpe"]["tokens"] == ordinary
    methods = methods_view(tok, text=text, methods="bpe,lbpe")
    assert methods["special_text"] == ["<|endoftext|>", "<|fim_prefix|>"] and "ordinary text" in methods["status"]
    plain = across_view({"cl100k_base": tok}, text="one two")
    assert plain["special_text"] == [] and "special" not in plain["status"]
