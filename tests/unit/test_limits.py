"""lbpe.limits: documented defaults, environment overrides, clear messages; enforced by the
loaders and the CLI, never by Tokenizer.encode."""

from __future__ import annotations

import io
import sys

import pytest

import lbpe
from lbpe import limits
from lbpe.cli import main
from lbpe.errors import LbpeError
from lbpe.limits import LIMITS, LimitExceededError
from lbpe.presets import load_preset
from tests.support import tiny_vocabs as tv
from tests.support.data import ROOT


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for lim in LIMITS.values():
        monkeypatch.delenv(lim.env, raising=False)


def test_defaults_and_documentation():
    assert {k: (lim.env, lim.default) for k, lim in LIMITS.items()} == {
        "text_bytes": ("LBPE_MAX_TEXT_BYTES", 8 << 20),
        "upload_bytes": ("LBPE_MAX_UPLOAD_BYTES", 128 << 20),
        "vocab_bytes": ("LBPE_MAX_VOCAB_BYTES", 128 << 20),
        "vocab_tokens": ("LBPE_MAX_VOCAB_TOKENS", 1 << 20),
        "token_bytes": ("LBPE_MAX_TOKEN_BYTES", 1 << 10),
        "regex_chars": ("LBPE_MAX_REGEX_CHARS", 8 << 10),
        "train_bytes": ("LBPE_MAX_TRAIN_BYTES", 1 << 30),
        "regex_seconds": ("LBPE_REGEX_SECONDS", 20),
        "encode_seconds": ("LBPE_ENCODE_SECONDS", 10),
    }
    rows = limits.describe()
    assert [r["value"] for r in rows] == [lim.default for lim in LIMITS.values()]
    readme = (ROOT / "README.md").read_text("utf-8")
    assert "## Limits" in readme
    for lim in LIMITS.values():
        assert lim.env in readme, f"README's Limits section does not mention {lim.env}"


@pytest.mark.parametrize(
    "raw, value",
    [
        ("1048576", 1 << 20),
        ("512K", 512 << 10),
        ("64M", 64 << 20),
        ("2G", 2 << 30),
        ("64MiB", 64 << 20),
        ("8mb", 8 << 20),
        (" 10 ", 10),
        ("0", 0),
    ],
)
def test_environment_overrides(monkeypatch, raw, value):
    monkeypatch.setenv("LBPE_MAX_TEXT_BYTES", raw)
    assert limits.get("text_bytes") == value
    assert limits.exceeded("text_bytes", 10**15, "x") is None or value


@pytest.mark.parametrize("raw", ["lots", "-5", "1.5M", "M", "12T"])
def test_bad_environment_values_are_named(monkeypatch, raw):
    monkeypatch.setenv("LBPE_MAX_VOCAB_TOKENS", raw)
    with pytest.raises(LbpeError, match="LBPE_MAX_VOCAB_TOKENS"):
        limits.get("vocab_tokens")


def test_check_message_says_what_and_how(monkeypatch):
    monkeypatch.setenv("LBPE_MAX_TRAIN_BYTES", "1M")
    with pytest.raises(LimitExceededError) as info:
        limits.check("train_bytes", 3 << 20, "the training corpus")
    message = str(info.value)
    assert message.startswith("the training corpus is 3,145,728 bytes (3.0 MiB), over the limit of 1,048,576")
    assert "LBPE_MAX_TRAIN_BYTES=3M" in message and isinstance(info.value, ValueError)
    assert info.value.amount == 3 << 20 and info.value.limit == 1 << 20
    monkeypatch.setenv("LBPE_MAX_TRAIN_BYTES", "0")
    limits.check("train_bytes", 10**12, "anything")  # 0: no limit


def test_encode_itself_has_no_cap(monkeypatch):
    monkeypatch.setenv("LBPE_MAX_TEXT_BYTES", "16")
    tok = lbpe.load_preset("gpt2")
    text = "no cap in the library " * 50
    assert tok.decode(tok.encode(text, mode="lbpe")) == text


def test_cli_refuses_a_text_over_the_limit(monkeypatch, tmp_path, capsys):
    path = tmp_path / "big.txt"
    path.write_text("word " * 1000)
    monkeypatch.setenv("LBPE_MAX_TEXT_BYTES", "1K")
    for command in (["encode", "--mode", "bpe"], ["compare"]):
        assert main([*command, "--vocab", "gpt2", str(path)]) == 2
        err = capsys.readouterr().err
        assert str(path) in err and "5,000 bytes" in err and "LBPE_MAX_TEXT_BYTES" in err and "lbpe stats" in err
    monkeypatch.setenv("LBPE_MAX_TEXT_BYTES", "8K")
    assert main(["encode", "--mode", "bpe", "--vocab", "gpt2", str(path)]) == 0
    capsys.readouterr()


def test_cli_refuses_standard_input_over_the_limit(monkeypatch, capsys):
    monkeypatch.setenv("LBPE_MAX_TEXT_BYTES", "100")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"x" * 5000)))
    assert main(["encode", "--mode", "lbpe", "--vocab", "gpt2", "-"]) == 2
    err = capsys.readouterr().err
    # its size is not known (a pipe): no value is suggested from what was read (101 would fail again)
    assert "standard input is more than 100 bytes, over the limit of 100 bytes" in err, err
    assert "set LBPE_MAX_TEXT_BYTES to raise it (0 for no limit)" in err and "=101" not in err, err


def test_cli_train_refuses_a_corpus_over_the_limit(monkeypatch, tmp_path, capsys):
    files = []
    for k in range(3):
        files.append(tmp_path / f"c{k}.txt")
        files[-1].write_text("abc def " * 100)
    monkeypatch.setenv("LBPE_MAX_TRAIN_BYTES", "2K")
    out = tmp_path / "tok.json"
    assert main(["train", "--vocab-size", "300", "-q", "-o", str(out), *map(str, files)]) == 2
    err = capsys.readouterr().err
    assert "the training corpus (3 file(s)) is 2,400 bytes" in err and "LBPE_MAX_TRAIN_BYTES" in err
    assert not out.exists()


def test_vocabulary_limits_in_load(monkeypatch, tmp_path):
    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(tv.tiktoken_bytes())
    monkeypatch.setenv("LBPE_MAX_VOCAB_TOKENS", "200")
    with pytest.raises(lbpe.VocabFormatError, match=r"cl100k_base\.tiktoken: the vocabulary is 261 tokens"):
        lbpe.load(path)
    monkeypatch.setenv("LBPE_MAX_VOCAB_TOKENS", "300")
    monkeypatch.setenv("LBPE_MAX_VOCAB_BYTES", "2K")
    with pytest.raises(lbpe.VocabFormatError, match="LBPE_MAX_VOCAB_BYTES"):
        lbpe.load(path)
    monkeypatch.delenv("LBPE_MAX_VOCAB_BYTES")
    assert lbpe.load(path).n_vocab == 100277  # the file is small; cl100k_base's special ids sit above


def test_a_vocabulary_with_a_token_far_longer_than_any_real_one_is_refused(monkeypatch, tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(tv.json_bytes(tv.long_run_spec(2000)))
    with pytest.raises(lbpe.VocabFormatError) as info:
        lbpe.load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: its longest token is 2,000 bytes, over the limit of 1,024 bytes")
    assert "set LBPE_MAX_TOKEN_BYTES to raise it (e.g. LBPE_MAX_TOKEN_BYTES=2000, or 0 for no limit)" in message
    monkeypatch.setenv("LBPE_MAX_TOKEN_BYTES", "2000")
    assert lbpe.load(path).vocab.max_len == 2000
    monkeypatch.setenv("LBPE_MAX_TOKEN_BYTES", "1999")
    with pytest.raises(lbpe.VocabFormatError, match="LBPE_MAX_TOKEN_BYTES=2000"):
        lbpe.load(path)


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base", "gpt2", "mistral-7b", "lbpe-32k"])
def test_real_vocabularies_are_far_within_the_token_length_limit(name):
    # their longest token is 128 bytes (byte-level ones) or 48 bytes (16 characters of U+2581)
    longest = max(map(len, load_preset(name).vocab.tokens))
    assert longest <= 128 and 8 * longest <= LIMITS["token_bytes"].default


@pytest.mark.parametrize("raw, value", [("2", 2.0), ("0.5", 0.5), ("10s", 10.0), (" 3 ", 3.0), ("0", 0.0)])
def test_seconds_limit_overrides(monkeypatch, raw, value):
    monkeypatch.setenv("LBPE_REGEX_SECONDS", raw)
    assert limits.get("regex_seconds") == value


@pytest.mark.parametrize("raw", ["two", "-1", "nan", "inf", "1e99", ""])
def test_bad_seconds_say_how_to_fix_them(monkeypatch, raw):
    monkeypatch.setenv("LBPE_REGEX_SECONDS", raw or "x")
    with pytest.raises(LbpeError, match=r"LBPE_REGEX_SECONDS=.* is not a number of seconds; use e.g. 2 or 0.5"):
        limits.get("regex_seconds")


def test_playground_limits_are_one_snapshot_documented_once():
    readme = (ROOT / "README.md").read_text("utf-8")
    limits_section = readme[readme.index("## Limits") :]
    for lim in limits.PLAYGROUND.values():
        assert f"`{lim.env}` | {lim.default // (lim.scale or 1)} |" in limits_section, lim.env
        assert readme.count(f"`{lim.env}` |") == 1, f"{lim.env} is documented twice"
    snap = limits.Limits.from_env({"LBPE_APP_MAX_VOCAB_MB": "2.5", "LBPE_APP_MAX_TEXT_CHARS": "1000"})
    assert (snap.vocab_bytes, snap.text_chars, snap.corpus_bytes) == (2_500_000, 1000, 20_000_000)
    for bad in ("0", "-1", "lots"):
        with pytest.raises(LbpeError, match="LBPE_APP_FILE_TTL"):
            limits.Limits.from_env({"LBPE_APP_FILE_TTL": bad})
    # a count under 1 would be 0, which switched the cap off
    with pytest.raises(LbpeError, match=r"LBPE_APP_JOBS_PER_ADDRESS='0.5' must be at least 1 jobs"):
        limits.Limits.from_env({"LBPE_APP_JOBS_PER_ADDRESS": "0.5"})


def test_a_snapshot_bounds_the_loader_for_one_call(tmp_path, monkeypatch):
    import gzip

    from tests.support.data import data_file

    with pytest.raises(
        lbpe.VocabFormatError, match=r"100,2\d\d tokens, over the limit of 1,000 tokens.*LBPE_APP_MAX_VOCAB_TOKENS"
    ):
        lbpe.load(data_file("openai/cl100k_base.tiktoken"), limits=limits.Limits(vocab_tokens=1000))
    snap = limits.Limits(vocab_bytes=1_000_000)
    bomb = tmp_path / "cl100k_base.tiktoken.gz"
    bomb.write_bytes(gzip.compress(b"A" * 3_000_000))
    with pytest.raises(lbpe.VocabFormatError, match=r"decompresses to more than 1 MB.*set LBPE_APP_MAX_VOCAB_MB"):
        lbpe.load(bomb, limits=snap)
    # outside the call, the environment's limits again (the library's variables in messages)
    assert limits.get("vocab_tokens") == LIMITS["vocab_tokens"].default
    monkeypatch.setenv("LBPE_MAX_VOCAB_BYTES", "4M")
    bomb.write_bytes(gzip.compress(b"A" * 5_000_000))
    with pytest.raises(lbpe.VocabFormatError, match=r"decompresses to more than 4,194,304 bytes.*LBPE_MAX_VOCAB_BYTES"):
        lbpe.load(bomb)
    monkeypatch.delenv("LBPE_MAX_VOCAB_BYTES")
    assert lbpe.load(data_file("openai/cl100k_base.tiktoken"), limits=limits.Limits()).n_vocab > 100_000


@pytest.mark.reliability
def test_a_huge_pattern_in_a_tokenizer_json_is_refused_at_once(tmp_path, monkeypatch):
    """A 2,000-way alternation as the Split pattern (a 200,000-way one took over a minute and
    hundreds of MB to translate and compile): refused before any of that, naming the limit."""
    monkeypatch.delenv("LBPE_MAX_REGEX_CHARS", raising=False)
    words = [f"w{n:05d}" for n in range(2_000)]
    spec = tv.hf_spec()
    spec["pre_tokenizer"] = {
        "type": "Sequence",
        "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": "|".join(words)}, "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
        ],
    }
    path = tmp_path / "tokenizer.json"
    path.write_bytes(tv.json_bytes(spec))
    with pytest.raises(LbpeError, match=r"13,999 characters, over the limit of 8,192 characters.*LBPE_MAX_REGEX_CHARS"):
        lbpe.load(path)
    monkeypatch.setenv("LBPE_MAX_REGEX_CHARS", "16K")  # raised: the same file loads and splits as written
    tok = lbpe.load(path)
    assert tok.decode(tok.encode("w00042w01999", mode="bpe")) == "w00042w01999"
