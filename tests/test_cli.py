"""The command line, run as a real subprocess."""

from __future__ import annotations

import subprocess
import sys

import lbpe
from tests.conftest import data_file


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lbpe", *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def test_encode_prints_the_library_ids():
    vocab = data_file("openai/cl100k_base.tiktoken")
    text = "Long-token-first encoding, 2024 edition.\n"
    tok = lbpe.load(vocab)
    for mode in lbpe.MODES:
        result = run("encode", "--vocab", str(vocab), "--mode", mode, stdin=text)
        assert result.returncode == 0, result.stderr
        assert [int(x) for x in result.stdout.split()] == tok.encode(text, mode=mode)


def test_compare_prints_both_segmentations_and_counts(tmp_path):
    vocab = data_file("openai/o200k_base.tiktoken")
    text = "internationalization and tokenization\n"
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8")
    result = run("compare", "--vocab", str(vocab), str(path))
    assert result.returncode == 0, result.stderr
    tok = lbpe.load(vocab)
    for mode in lbpe.MODES:
        assert f"{mode}: {len(tok.encode(text, mode=mode))} tokens" in result.stdout


def test_bad_input_is_one_clear_line_and_exit_2(tmp_path):
    result = run("encode", "--vocab", str(tmp_path / "nope.tiktoken"), "--mode", "bpe", stdin="x")
    assert result.returncode == 2
    assert "no such file" in result.stderr and "Traceback" not in result.stderr
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"ok \xff\xfe")
    vocab = data_file("openai/cl100k_base.tiktoken")
    result = run("encode", "--vocab", str(vocab), "--mode", "lbpe", str(binary))
    assert result.returncode == 2 and "not UTF-8" in result.stderr and "Traceback" not in result.stderr
