"""The command line, run as a real subprocess."""

from __future__ import annotations

import pytest

import lbpe
from tests.support.cli import run_cli
from tests.support.data import data_file, tiktoken_encoding


def test_encode_prints_the_library_ids():
    vocab = data_file("openai/cl100k_base.tiktoken")
    text = "Long-token-first encoding, 2024 edition.\n"
    tok = lbpe.load(vocab)
    for mode in lbpe.MODES:
        result = run_cli("encode", "--vocab", str(vocab), "--mode", mode, input=text, timeout=120)
        assert result.returncode == 0, result.stderr
        assert [int(x) for x in result.stdout.split()] == tok.encode(text, mode=mode)


def test_compare_prints_both_segmentations_and_counts(tmp_path):
    vocab = data_file("openai/o200k_base.tiktoken")
    text = "internationalization and tokenization\n"
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8")
    result = run_cli("compare", "--vocab", str(vocab), str(path), timeout=120)
    assert result.returncode == 0, result.stderr
    tok = lbpe.load(vocab)
    for mode in lbpe.MODES:
        assert f"{mode}: {len(tok.encode(text, mode=mode))} tokens" in result.stdout


def test_special_tokens_text_is_read_alike_by_encode_compare_and_explain(tmp_path):
    """Without --specials, "<|endoftext|>" in the input is ordinary text for all three commands
    (explain once matched it whole, so its counts disagreed with compare's); with it, the token."""
    import json

    from tests.support.data import tiktoken_encoding

    enc = tiktoken_encoding("cl100k_base")
    text = "hi<|endoftext|>there"
    as_text, as_token = enc.encode(text, disallowed_special=()), enc.encode(text, allowed_special="all")
    assert len(as_text) == 9 and as_token == [6151, 100257, 19041]
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8")
    for flags, ids in (((), as_text), (("--specials",), as_token)):
        encoded = run_cli("encode", "--vocab", "cl100k_base", "--mode", "bpe", *flags, str(path), timeout=120)
        assert encoded.returncode == 0, encoded.stderr
        assert [int(x) for x in encoded.stdout.split()] == ids
        compared = run_cli("compare", "--vocab", "cl100k_base", *flags, str(path), timeout=120)
        assert f"bpe: {len(ids)} tokens" in compared.stdout, compared.stdout
        explained = run_cli("explain", "--vocab", "cl100k_base", "--json", *flags, text, timeout=120)
        assert explained.returncode == 0, explained.stderr
        pieces = json.loads(explained.stdout)["pieces"]
        assert [i for p in pieces for i in p["bpe"]["ids"]] == ids
        assert any(p.get("special") for p in pieces) == bool(flags)
        pair = run_cli(
            "explain", "--vocab", "cl100k_base", "--methods", "bpe,longest-prefix", *flags, text, timeout=120
        )
        assert f"BPE {len(ids)} tokens" in pair.stdout, pair.stdout


@pytest.mark.slow(reason="a CLI process on a large vocabulary")
def test_explain_prints_the_steps_and_the_encoders_ids():
    import json

    tok = lbpe.load_preset("gpt2")
    result = run_cli("explain", "--vocab", "gpt2", "Capitals", timeout=120)
    assert result.returncode == 0, result.stderr
    for mode in lbpe.MODES:
        assert f"ids {tok.encode('Capitals', mode=mode)}" in result.stdout
    assert "window 7:" in result.stdout and 'why: BPE never makes "Capital"' in result.stdout
    # several words are one span; standard input without arguments; --json
    words = run_cli("explain", "--vocab", "gpt2", "--json", "Capitals", "are", timeout=120)
    piped = run_cli("explain", "--vocab", "gpt2", "--json", input="Capitals are\n", timeout=120)
    assert json.loads(words.stdout) == json.loads(piped.stdout)
    data = json.loads(words.stdout)
    assert data["text"] == "Capitals are"
    assert [p["bpe"]["ids"] for p in data["pieces"]] == [tok.encode(p, mode="bpe") for p in tok.pieces("Capitals are")]
    empty = run_cli("explain", "", timeout=120)
    assert empty.returncode == 2 and "nothing to explain" in empty.stderr and "Traceback" not in empty.stderr


def test_explain_with_methods_prints_each_methods_own_steps():
    import json

    tok = lbpe.load_preset("gpt2")
    result = run_cli(
        "explain", "--vocab", "gpt2", "--methods", "longest-prefix,least-tokens", " Capitals are", timeout=120
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Longest prefix (left) and Least tokens (right)" in out
    assert "  Longest prefix:\n" in out and "  Least tokens:\n" in out
    assert '" Capitals" is a token' in out and "fewest[0] =" in out
    assert "BPE:" not in out and "LBPE:" not in out
    data = json.loads(
        run_cli(
            "explain",
            "--vocab",
            "gpt2",
            "--json",
            "--methods",
            "dropout,longest-suffix",
            "--dropout",
            "0.4",
            "--seed",
            "3",
            " Capitals are",
            timeout=120,
        ).stdout
    )
    assert data["methods"] == ["dropout", "longest-suffix"]
    left = [i for p in data["pieces"] for i in p["sides"][0]["ids"]]
    right = [i for p in data["pieces"] for i in p["sides"][1]["ids"]]
    assert left == tok.encode(" Capitals are", mode="dropout", dropout=0.4, seed=3)
    assert right == tok.encode(" Capitals are", mode="longest-suffix")
    bad = run_cli("explain", "--vocab", "gpt2", "--methods", "bpe,dropout", "x", timeout=120)
    assert bad.returncode == 2 and "dropout" in bad.stderr and "Traceback" not in bad.stderr


def test_bad_input_is_one_clear_line_and_exit_2(tmp_path):
    result = run_cli("encode", "--vocab", str(tmp_path / "nope.tiktoken"), "--mode", "bpe", input="x", timeout=120)
    assert result.returncode == 2
    assert "no such file" in result.stderr and "Traceback" not in result.stderr
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"ok \xff\xfe")
    vocab = data_file("openai/cl100k_base.tiktoken")
    result = run_cli("encode", "--vocab", str(vocab), "--mode", "lbpe", str(binary), timeout=120)
    assert result.returncode == 2 and "not UTF-8" in result.stderr and "Traceback" not in result.stderr


def test_compare_escapes_what_would_make_its_lines_ambiguous(tmp_path):
    path = tmp_path / "in.txt"
    path.write_text("a|b || c\n\nd\\e\t", encoding="utf-8")
    result = run_cli("compare", "--vocab", str(data_file("openai/cl100k_base.tiktoken")), str(path), timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 5, lines  # a count line and a token line for each method, then the difference
    # tiktoken's cl100k_base tokens: a | b " ||" " c" "\n\n" d "\\e" "\t"
    assert lines[:2] == ["bpe: 9 tokens", r"a|\||b| \|\|| c|\n\n|d|\\e|\t"]
    # a token holding part of a character: the split character's bytes as \xNN (80-ff), the rest
    # of it as any text (tiktoken's r50k_base: b" \xf0\x9f\x98", b"\x80", b"|"); one token, one "token"
    path.write_text(" 😀|", encoding="utf-8")
    split = run_cli("compare", "--vocab", str(data_file("openai/r50k_base.tiktoken")), str(path), timeout=120)
    assert split.stdout.splitlines()[:2] == ["bpe: 3 tokens", r" \xf0\x9f\x98|\x80|\|"], split.stdout
    # a token that starts with a combining mark would stack on the bar before it: escaped
    # (tiktoken's cl100k_base: "ca" "fe" "\u0301" " x"; a mark inside a token stays as it is)
    path.write_text("cafe\u0301 x e\u0301", encoding="utf-8")
    mark = run_cli("compare", "--vocab", "cl100k_base", str(path), timeout=120)
    assert mark.stdout.splitlines()[1].startswith(r"ca|fe|\u0301| x|"), mark.stdout
    # so does a spacing mark (Devanagari's vowel sign AA) or a skin tone, whatever the token is
    from lbpe.cli.text import _shown
    from lbpe.tokenizer import Segment

    for char, written in (("\u093e", r"\u093e"), ("\U0001f3fd", r"\U0001f3fd"), ("a\u093e", "a\u093e")):
        assert _shown(Segment(1, 0, len(char), char.encode())) == written
    path.write_text("a", encoding="utf-8")
    one = run_cli("compare", "--vocab", "gpt2", str(path), timeout=120)
    assert one.stdout.splitlines() == ["bpe: 1 token", "a", "lbpe: 1 token", "a", "lbpe - bpe: +0 tokens"], one.stdout
    path.write_text("uncharacteristically", encoding="utf-8")  # gpt2: BPE 4 tokens, LBPE 3
    fewer = run_cli("compare", "--vocab", "gpt2", str(path), timeout=120)
    assert fewer.stdout.splitlines()[-1] == "lbpe - bpe: -1 token", fewer.stdout


def test_a_renamed_rank_file_gets_its_special_tokens_from_the_flag(tmp_path):
    # tiktoken.Encoding(special_tokens=...) is the reference; every command that loads a vocabulary
    # takes them, as lbpe.load(path, special_tokens=...) does
    import shutil

    import tiktoken
    import tiktoken.load

    vocab = tmp_path / "mine.tiktoken"
    shutil.copy(data_file("openai/cl100k_base.tiktoken"), vocab)
    special = {"<|endoftext|>": 100257, "<|a=b|>": 100300}
    theirs = tiktoken.Encoding(
        "mine",
        pat_str=tiktoken_encoding("cl100k_base")._pat_str,
        mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(vocab)),
        special_tokens=special,
    )
    text = "Hello<|endoftext|>there<|a=b|>"
    flags = ["--vocab", str(vocab), "--pattern", "cl100k_base"]
    flags += [f for text_, i in special.items() for f in ("--special-token", f"{text_}={i}")]
    encoded = run_cli("encode", *flags, "--specials", "--mode", "bpe", input=text, timeout=120)
    assert encoded.returncode == 0, encoded.stderr
    assert [int(x) for x in encoded.stdout.split()] == theirs.encode(text, allowed_special="all")
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8")
    stats = run_cli("stats", "-q", "--json", *flags, str(path), timeout=120)
    assert stats.returncode == 0, stats.stderr
    # without them the file has none, and the message says how to give them on the command line
    bare = run_cli("encode", "--vocab", str(vocab), "--mode", "bpe", input=text, timeout=120)
    assert bare.returncode == 2 and "--special-token" in bare.stderr, bare.stderr
    twice = run_cli("encode", *flags, "--special-token", "<|a=b|>=7", "--mode", "bpe", input=text, timeout=120)
    assert twice.returncode == 2 and "'<|a=b|>' more than once" in twice.stderr, twice.stderr


@pytest.mark.parametrize(
    "flag,vocab,says",
    [
        ("<|x|>", "cl100k_base", "give it as TEXT=ID"),
        ("=5", "cl100k_base", "give it as TEXT=ID"),
        ("<|x|>=-1", "cl100k_base", "its id must be a whole number from 0"),
        ("<|x|>=1.5", "cl100k_base", "its id must be a whole number from 0"),
        ("<|x|>=100300", "cl100k_base", "a bundled preset has its own special tokens"),
        ("<|x|>=100300", "tokenizer.json", "carries its own special tokens"),
    ],
)
def test_a_wrong_special_token_flag_is_one_clear_line(flag, vocab, says):
    if vocab == "tokenizer.json":
        vocab = str(data_file("hf/llama3/tokenizer.json"))
    result = run_cli("encode", "--vocab", vocab, "--special-token", flag, "--mode", "bpe", input="hi", timeout=120)
    assert result.returncode == 2 and says in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


#: How compare and explain write a character a terminal would act on or not show.
ESCAPED = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Characters that show nothing or reorder the text after them (direction marks, overrides and
#: isolates, separators, zero-width characters, the soft hyphen, the byte order mark).
INVISIBLE = (
    "\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff"
    "\u034f\u115f\u3164\ufe0f\U000e0068\U000e0100"
)


def escaped(text: str) -> str:
    def one(ch: str) -> str:
        code = ord(ch)
        if ch in ESCAPED:
            return ESCAPED[ch]
        if code < 0x20 or code == 0x7F:
            return f"\\x{code:02x}"
        if 0x80 <= code <= 0x9F or ch in INVISIBLE:
            return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
        return ch

    return "".join(map(one, text))


def test_control_characters_are_shown_escaped_by_compare_and_explain(tmp_path):
    # a terminal acts on them (a carriage return rewrites the line, ESC starts a colour) or shows
    # nothing (NUL): compare and explain write them as escapes, as they write line ends and tabs
    from tests.support.data import tiktoken_encoding

    enc = tiktoken_encoding("cl100k_base")
    text = "a\x00b\x1b[31m c\rd\x7f e\x85 é\\|\u0085 f\u202eg h\u2028i\u200bj\ufeff k\u2067l\u2069"
    text += " m\u034fn \u3164 \u2764\ufe0f o\U000e0068\U000e0100"
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8")
    result = run_cli("compare", "--vocab", "cl100k_base", str(path), timeout=120)
    assert result.returncode == 0, result.stderr

    def shown(token: bytes) -> str:
        try:
            return escaped(token.decode("utf-8")).replace("|", "\\|")
        except UnicodeDecodeError:  # a part of a character: its bytes
            return "".join(f"\\x{b:02x}" for b in token)

    want = "|".join(shown(enc.decode_single_token_bytes(i)) for i in enc.encode(text))
    assert result.stdout.splitlines()[1] == want
    assert not [
        ch for ch in result.stdout if ch != "\n" and (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F or ch in INVISIBLE)
    ]
    # explain: a pipe's line end (\r\n too) is not part of the span; a backslash is not a line end
    piped = run_cli("explain", "--vocab", "gpt2", input="Capitals\r\n", timeout=120)
    assert piped.returncode == 0 and "\r" not in piped.stdout and '"Capitals"' in piped.stdout, piped.stdout
    for span in ("x\\ny", "x\ny", "a\x1bb", "a\x85b", "a\u202eb"):
        out = run_cli("explain", "--vocab", "gpt2", span, timeout=120)
        assert out.returncode == 0, out.stderr
        assert f'"{escaped(span)}"' in out.stdout and "\x1b" not in out.stdout and "\u202e" not in out.stdout
