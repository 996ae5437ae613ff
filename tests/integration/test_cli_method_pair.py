"""``lbpe compare --methods LEFT,RIGHT``, run as a real subprocess: each method's own tokens
(``Tokenizer.segment``), the default unchanged, a wrong pair a one-line error."""

from __future__ import annotations

import lbpe
from tests.support.cli import run_cli

TEXT = "The unbelievably overcomplicated anticonstitutional reorganisation continues."


def labels(tok, method: str, **options) -> str:
    return "|".join(s.label for s in tok.segment(TEXT, mode=method, disallowed_special=(), **options))


def test_compare_prints_the_two_methods_picked():
    tok = lbpe.load_preset("cl100k_base")
    result = run_cli("compare", "--vocab", "cl100k_base", "--methods", "longest-prefix,least-tokens", input=TEXT)
    assert result.returncode == 0, result.stderr
    left, right = (tok.encode(TEXT, mode=m, disallowed_special=()) for m in ("longest-prefix", "least-tokens"))
    assert result.stdout.splitlines() == [
        f"longest-prefix: {len(left)} tokens",
        labels(tok, "longest-prefix"),
        f"least-tokens: {len(right)} tokens",
        labels(tok, "least-tokens"),
        f"least-tokens - longest-prefix: {len(right) - len(left):+d} tokens",
    ]


def test_compare_without_methods_and_with_the_default_pair_is_bpe_and_lbpe():
    tok = lbpe.load_preset("cl100k_base")
    plain = run_cli("compare", "--vocab", "cl100k_base", input=TEXT)
    named = run_cli("compare", "--vocab", "cl100k_base", "--methods", "bpe,lbpe", input=TEXT)
    assert plain.returncode == named.returncode == 0, plain.stderr + named.stderr
    assert plain.stdout == named.stdout
    bpe, lbpe_ = (len(tok.encode(TEXT, mode=m, disallowed_special=())) for m in ("bpe", "lbpe"))
    assert plain.stdout.splitlines()[::2] == [
        f"bpe: {bpe} tokens",
        f"lbpe: {lbpe_} tokens",
        f"lbpe - bpe: {lbpe_ - bpe:+d} tokens",
    ]


def test_compare_with_dropout_takes_its_rate_and_seed():
    tok = lbpe.load_preset("cl100k_base")
    result = run_cli(
        "compare", "--vocab", "cl100k_base", "--methods", "bpe,dropout", "--dropout", "0.3", "--seed", "7", input=TEXT
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[3] == labels(tok, "dropout", dropout=0.3, seed=7)


def test_a_wrong_pair_is_a_one_line_error():
    for args, message in (
        (("--methods", "lbpe,lbpe"), "compare two different methods, not 'lbpe' with itself"),
        (("--methods", "bpe,fastest"), "unknown inference method 'fastest'"),
        (("--methods", "bpe,dropout"), "needs a rate from 0 to 1: --dropout 0.1"),
        (("--dropout", "0.1"), "only applies to the dropout method"),
        # what is wrong with the pair is said before a rate is asked for
        (("--methods", "bpe,lbpe,dropout"), "methods must be two inference methods"),
        (("--methods", "dropout,fastest"), "unknown inference method 'fastest'"),
        (("--methods", "dropout,dropout"), "compare two different methods, not 'dropout' with itself"),
    ):
        for command in ("compare", "explain"):
            result = run_cli(command, "--vocab", "cl100k_base", *args, input=TEXT)
            assert result.returncode != 0 and result.stdout == ""
            assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
