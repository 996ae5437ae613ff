"""Hostile text against every bundled vocabulary, one HF tokenizer.json and one SentencePiece
model, in both modes: exact round trips, lone surrogates, special-token strings, invalid UTF-8
given to the CLI, and adversarial inputs (completion and round trip at a small size; the
timing at 1 MB and 2 MB is ``bench/adversarial.py``).

``LBPE_HYPOTHESIS_EXAMPLES`` sets the examples per (vocabulary, mode) (default 60).
"""

from __future__ import annotations

import functools
import os
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lbpe
from bench.adversarial import adversarial_inputs
from lbpe.cli import main
from lbpe.errors import DisallowedSpecialError
from lbpe.presets import VOCAB_PRESETS, load_preset
from lbpe.tokenizer import MODES, replace_surrogates
from tests.support.data import data_file

pytestmark = pytest.mark.both_paths

EXAMPLES = int(os.environ.get("LBPE_HYPOTHESIS_EXAMPLES", "60"))
EXTRA = {
    "hf:mistral_v0.1": "hf/mistral_v0.1/tokenizer.json",
    "sp:mistral_v1": "sentencepiece/mistral_tokenizer.model.v1",
}
VOCABS = [*VOCAB_PRESETS, *EXTRA]
#: vocabularies that spell a space as U+2581 (SentencePiece's way)
SENTENCEPIECE_STYLE = {*EXTRA, "mistral-7b", "lbpe-llama-32k"}


@functools.cache
def tokenizer(name: str) -> lbpe.Tokenizer:
    return lbpe.load(data_file(EXTRA[name])) if name in EXTRA else load_preset(name)


def expected(name: str, text: str) -> str:
    """What decoding gives back. SentencePiece-style vocabularies spell a space as U+2581 (▁),
    so a ▁ in the text comes back as a space: sentencepiece and HF tokenizers do the same."""
    return text.replace("\u2581", " ") if name in SENTENCEPIECE_STYLE else text


def special_ids(tok: lbpe.Tokenizer) -> set[int]:
    """Ids only a special-token match can produce (the unknown token can also come from text)."""
    return set(tok.vocab.special.values()) - {tok.vocab.unk}


SPECIAL_STRINGS = sorted(
    {s for name in ("gpt2", "cl100k_base", "o200k_base") for s in load_preset(name).vocab.special}
    | {"<unk>", "<s>", "</s>", "<0x41>", "<|endoftext", "endoftext|>"}
)
FRAGMENTS = SPECIAL_STRINGS + [
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\x0b",
    "\x0c",
    "\x85",
    "\u2028",
    "\u3000",
    "\u00a0",
    "\u200b",
    "\ufeff",
    "\x00",
    "\x7f",
    "'s",
    "'LL",
    "’re",
    "e\u0301",
    "\u0301",
    "👩\u200d💻",
    "🦜",
    "\U0001d518",
    "\U0010ffff",
    "\uffff",
    "\ue000",
    "مرحبا",
    "שלום",
    "日本語",
    "한국어",
    "१२३",
    "１２３",
    "12345",
    "\u2581",
    "▁▁",
    "Ġ",
    "ĠĠ",
    "<0xFF>",
    "Hello",
    "HELLO",
    "wörld",
    "ǅ",
    "ß",
    "İ",
    "ﬁ",
    "...",
    "!!!",
    "```",
    "\\",
    '"',
    "a" * 40,
    "\u0300" * 5,
]
texts = st.text(st.characters(exclude_categories=["Cs"]), max_size=120) | st.lists(
    st.sampled_from(FRAGMENTS) | st.text(max_size=4), max_size=25
).map("".join)
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)


# ---- round trips ----


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", VOCABS)
def test_round_trip(name, mode):
    tok = tokenizer(name)
    specials = special_ids(tok)
    runs = []

    @SETTINGS
    @given(text=texts)
    def check(text):
        runs.append(len(text))
        ids = tok.encode(text, mode=mode, disallowed_special=())
        assert tok.decode(ids) == expected(name, text)
        assert not specials & set(ids), "a special-token string in the text became a special token"
        segments = tok.segment(text, mode=mode, disallowed_special=())
        assert [s.id for s in segments] == ids
        assert all(0 <= s.start <= s.end <= len(text) and not s.special for s in segments)

    check()
    print(f"{name} {mode}: {len(runs)} round trips, {sum(runs)} characters")
    assert len(runs) >= EXAMPLES


# ---- lone surrogates: replaced by U+FFFD before encoding, as tiktoken does ----

with_surrogates = st.lists(
    st.sampled_from(["\ud800", "\udfff", "\udc00", "\ud83d\ude00", "\ud83d", "a", " ", "\u2581", "日"])
    | st.text(st.characters(), max_size=3),
    min_size=1,
    max_size=20,
).map("".join)


@pytest.mark.parametrize("name", VOCABS)
def test_lone_surrogates_are_replaced(name):
    tok = tokenizer(name)
    runs = []

    @SETTINGS
    @given(text=with_surrogates)
    def check(text):
        runs.append(text)
        clean = replace_surrogates(text)
        assert not any("\ud800" <= c <= "\udfff" for c in clean)
        for mode in MODES:
            ids = tok.encode(text, mode=mode, disallowed_special=())
            assert ids == tok.encode(clean, mode=mode, disallowed_special=())
            assert tok.decode(ids) == expected(name, clean)
            segments = tok.segment(text, mode=mode, disallowed_special=())
            # located in the text given, where a joined surrogate pair is two characters
            assert [s.id for s in segments] == ids and all(0 <= s.start <= s.end <= len(text) for s in segments)
            assert not segments or segments[-1].end == len(text)

    check()
    print(f"{name}: {len(runs)} texts with surrogates, both modes")
    assert len(runs) >= EXAMPLES


def test_surrogates_as_tiktoken():
    from tests.support.data import tiktoken_encoding

    enc, tok = tiktoken_encoding("cl100k_base"), tokenizer("cl100k_base")
    for text in ["a\ud800b", "\udfff", "x\ud83d\ude00y", "\ud83d", "🦜\udc00 end", "\ud800" * 5]:
        assert tok.encode(text, mode="bpe") == enc.encode(text)
        assert tok.decode(tok.encode(text, mode="lbpe")) == replace_surrogates(text)


# ---- special-token strings never silently become special tokens ----


@pytest.mark.parametrize("name", VOCABS)
def test_special_token_strings_in_text(name):
    tok = tokenizer(name)
    if not tok.vocab.special:  # lbpe-32k: such strings are plain text
        for mode in MODES:
            ids = tok.encode("a <|endoftext|> <s>", mode=mode)
            assert tok.decode(ids) == "a <|endoftext|> <s>"
    for special, sid in tok.vocab.special.items():
        text = f"before {special} after{special}"
        for mode in MODES:
            with pytest.raises(DisallowedSpecialError, match="disallowed"):
                tok.encode(text, mode=mode)  # the default refuses
            with pytest.raises(ValueError):
                tok.segment(text, mode=mode)
            ids = tok.encode(text, mode=mode, disallowed_special=())
            assert sid not in ids and tok.decode(ids) == expected(name, text)
            assert tok.encode_ordinary(text, mode=mode) == ids
            assert tok.encode(text, mode=mode, allowed_special={special}).count(sid) == 2  # only when asked


def test_cli_never_emits_special_tokens(tmp_path, capsys):
    path = tmp_path / "in.txt"
    path.write_text("a <|endoftext|> b <|endoftext|>", encoding="utf-8")
    for mode in MODES:
        assert main(["encode", "--vocab", "gpt2", "--mode", mode, str(path)]) == 0
        ids = [int(i) for i in capsys.readouterr().out.split()]
        assert 50256 not in ids and load_preset("gpt2").decode(ids) == path.read_text("utf-8")


# ---- invalid UTF-8 in files the CLI reads ----


@pytest.mark.parametrize("command", [["encode", "--mode", "bpe"], ["compare"], ["stats", "-q", "--workers", "1"]])
def test_cli_invalid_utf8_names_file_and_offset(tmp_path, capsys, command):
    path = tmp_path / "latin1.txt"
    path.write_bytes("caf\u00e9 ok\n".encode("utf-8") * 3 + "na\u00efve".encode("latin-1"))  # 0xef at offset 29
    assert main([*command, "--vocab", "gpt2", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "not UTF-8" in err and "offset 29" in err and "0xef" in err
    assert "Traceback" not in err


# ---- adversarial inputs: complete, exact round trip (timings: bench/adversarial.py) ----


@pytest.mark.parametrize("name", VOCABS)
def test_adversarial_inputs_round_trip(name):
    tok = tokenizer(name)
    for kind, text in adversarial_inputs(8 << 10).items():
        for mode in MODES:
            ids = tok.encode(text, mode=mode, disallowed_special=())
            assert tok.decode(ids) == expected(name, text), f"{name} {mode} {kind}"


@pytest.mark.slow(reason="SentencePiece runs of spaces")
@pytest.mark.parametrize("name", list(EXTRA))
def test_a_long_run_of_spaces_segments_like_it_encodes(name):
    # 50,000 spaces are one piece of ▁ whose merge list gives several pairs one priority: the
    # display path (pure BPE's bucketed sweep) took 11 s here before it kept equal-priority
    # pairs inside the sweep; the ids must still be the encoder's
    tok = tokenizer(name)
    text = " " * 50_000 + "ab  c"
    for mode in MODES:
        assert [s.id for s in tok.segment(text, mode=mode)] == tok.encode(text, mode=mode)


class _CountedCells(tuple):
    """A charsmap trie's cells that count how often they are read."""

    reads = 0

    def __getitem__(self, index):
        self.reads += 1
        return super().__getitem__(index)


def test_cyclic_charsmap_does_not_make_encoding_quadratic():
    """A SentencePiece charsmap whose trie loops on "a" (hostile or corrupt) made every lookup
    run to the end of the text: 8,000 characters took 5 s. Lookups now stop at
    ``MAX_KEY_BYTES`` (real maps have keys of at most a few characters). The work is counted
    in reads of the trie's cells, not timed: the bound holds on any machine and under the
    sanitizers."""
    from lbpe.formats.sentencepiece import parse_sentencepiece_tokenizer
    from tests.support import tiny_vocabs as tv

    cells = [0] * 0x80
    cells[0x61] = (0x61 << 10) | 0x61  # label "a", offset "a": node ^ "a" ^ "a" = node, forever
    trie = b"".join(struct.pack("<I", u) for u in cells)
    normalizer = tv.field(1, b"loop") + tv.field(2, struct.pack("<I", len(trie)) + trie) + tv.field(4, 0)
    tok = parse_sentencepiece_tokenizer(tv.sp_model_bytes(normalizer=normalizer), source="loop.model")
    counted = tok.normalizer._trie = _CountedCells(tok.normalizer._trie)
    text = "a" * 4_000
    for mode in MODES:
        counted.reads = 0
        assert tok.decode(tok.encode(text, mode=mode)) == text
        # a lookup reads about one cell per byte it walks: at most 64 bytes, not the rest of
        # the text (unbounded, 4,000 lookups read 8 million cells)
        assert 0 < counted.reads <= 200 * len(text), f"{counted.reads:,} reads of the trie: quadratic"
