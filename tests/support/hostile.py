"""Vocabulary files built to hold a server: a real tokenizer.json carrying a polynomial pattern.
The time-limit tests and the server tests use the same ones."""

from __future__ import annotations

import json

from tests.support.data import data_file

#: Polynomial shapes that load (no repeated group holds a quantifier) and that take the standard
#: library's re from hours to years on 50,000 characters (measured at 200 and 400: the time grows
#: 7-16x per doubling), with the character the text repeats. Oniguruma spelling, as in a file.
POLYNOMIAL = {
    "quartic adjacent stars": (r"\s*\s*\s*\s*[^\s]|\s+", "\t"),
    "cubic adjacent stars": (r"\s*\s*\s*x|\s+|\S+", "\t"),
    "adjacent pluses": (r"\p{L}+\p{L}+\p{L}+\d|\p{L}+|\P{L}+", "a"),
    "nested optional groups": (r"(?:\s(?:\s)?)?\s*\s*\s*z|\s+|\S+", "\t"),
    "lookahead inside a repeat": (r"(?:(?=\s)\s)*\s*\s*x|\s+|\S+", "\t"),
    "lazy quantifiers": (r"\s+?\s+?\s+?x|\s+|\S+", "\t"),
}
CHARS = 50_000


def hostile_tokenizer_json(pattern: str, *, where: str = "pre_tokenizer") -> bytes:
    """Mistral 7B v0.1's real tokenizer.json (1.8 MB) with ``pattern`` as its Split pre-tokenizer
    or as a Replace normalizer put first (its normaliser turns spaces into ▁, not tabs)."""
    data = json.loads(data_file("hf/mistral_v0.1/tokenizer.json").read_bytes())
    if where == "pre_tokenizer":
        data["pre_tokenizer"] = {
            "type": "Split",
            "pattern": {"Regex": pattern},
            "behavior": "Isolated",
            "invert": False,
        }
    else:
        data["normalizer"]["normalizers"].insert(0, {"type": "Replace", "pattern": {"Regex": pattern}, "content": "."})
    return json.dumps(data).encode()
