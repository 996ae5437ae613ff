"""The regular expressions lbpe writes into tokenizer.json files (``hf_regex``) split like the
pre-tokeniser presets they stand for, in HF tokenizers' own engine."""

from __future__ import annotations

import pytest
import tokenizers

from lbpe.formats.hf_write import hf_regex
from lbpe.pretokenize import split_text


@pytest.mark.slow(reason="every code point through HF")
def test_paper_regex_splits_like_hf_on_every_code_point():
    """Every code point in three contexts: HF's engine and lbpe both use Unicode 16.0."""
    split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(hf_regex("paper")), behavior="isolated")
    differ = []
    for lo in range(0, 0x110000, 0x1000):
        cps = [c for c in range(lo, lo + 0x1000) if not 0xD800 <= c <= 0xDFFF]
        text = "".join(f"a{chr(c)}b {chr(c)}{chr(c)}1\n" for c in cps)
        if [p for p, _ in split.pre_tokenize_str(text)] == split_text(text, "paper"):
            continue
        for c in cps:
            one = f"a{chr(c)}b {chr(c)}{chr(c)}1\n"
            if [p for p, _ in split.pre_tokenize_str(one)] != split_text(one, "paper"):
                differ.append(f"U+{c:04X}")
    assert differ == []
