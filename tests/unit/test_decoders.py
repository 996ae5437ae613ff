"""The decoding stage (lbpe/decoders.py): each decoder and step on tiny known answers, written
out by hand from HF tokenizers' and SentencePiece's documented behaviour, and each one pickles
(a Tokenizer holds its decoder)."""

from __future__ import annotations

import pickle
import re

import pytest

from lbpe import decoders as dec
from lbpe.errors import LbpeError


def test_byte_level_reads_gpt2_stand_ins_and_decodes_the_bytes_together():
    # "Ġ" is a space; "ðŁĺĢ" are the four bytes of U+1F600 split over two tokens
    assert dec.ByteLevel()(["Hello", "\u0120w\u00f0\u0141", "\u013a\u0122"]) == ["Hello w\U0001f600"]
    assert dec.ByteLevel()(["\u00f0"]) == ["\ufffd"]  # a lone lead byte
    # a token with a character outside the alphabet is its own UTF-8, the whole token ("Ġ" too)
    assert dec.ByteLevel()(["\u0120a", "\u0120\u65e5", "\u00c3\u00a9"]) == [" a\u0120\u65e5\u00e9"]
    assert dec.ByteLevel()(iter(["\u0120a", "\u65e5"])) == [" a\u65e5"]  # any iterable, read once
    assert len(dec.byte_to_char) == 256 and dec.char_to_byte["\u0120"] == 0x20


def test_stand_in_bytes_reads_each_stand_in_and_names_the_first_that_is_not():
    # every byte, each spelled by its stand-in, in one text and one at a time
    every = "".join(dec.byte_to_char[b] for b in range(256))
    assert dec.stand_in_bytes(every) == bytes(range(256))
    assert all(dec.stand_in_bytes(dec.byte_to_char[b]) == bytes([b]) for b in range(256))
    assert dec.stand_in_bytes("") == b""
    # known answers: "Ġ" a space, "Ċ" a newline, "ĉ" a tab, "ÿ" 0xff, "Ń" 0xad
    assert dec.stand_in_bytes("\u0120a\u010a\u0109\u00ff\u0143") == b" a\n\t\xff\xad"
    # a character that is no stand-in, though latin-1 could spell it (the space, NUL, 0xad),
    # or is special in a regular expression's class: the first one is named
    for bad in (" ", "\x00", "\xad", "\u4e00", "\U0001f600"):
        with pytest.raises(KeyError) as caught:
            dec.stand_in_bytes("ab" + bad + "\u0120 ")
        assert caught.value.args == (bad,)
    for special in "^-]\\[":
        assert dec.stand_in_bytes(special) == special.encode()  # printable ASCII stands for itself


def test_byte_fallback_joins_runs_and_replaces_each_bad_byte():
    assert dec.ByteFallback()(["a", "<0x41>", "<0x42>", "b"]) == ["a", "AB", "b"]
    assert dec.ByteFallback()(["<0xC3>", "<0xA9>"]) == ["\u00e9"]
    assert dec.ByteFallback()(["<0xC3>", "x"]) == ["\ufffd", "x"]


def test_the_byte_steps_decode_bytes_as_errors_asks():
    bad = ["<0xE2>", "<0x82>", "a"]  # two bytes of a three-byte character, then a letter
    assert dec.ByteFallback()(bad, errors="replace") == ["\ufffd", "\ufffd", "a"]  # HF's: one per byte
    assert dec.ByteFallback()(bad, errors="ignore") == ["", "a"]
    assert dec.ByteFallback()(bad, errors="backslashreplace") == ["\\xe2\\x82", "a"]
    with pytest.raises(UnicodeDecodeError):
        dec.ByteFallback()(bad, errors="strict")
    half = ["\u00e2\u0124", "a"]  # GPT-2 stand-ins of the same two bytes
    assert dec.ByteLevel()(half) == ["\ufffda"]
    assert dec.ByteLevel()(half, errors="ignore") == ["a"]
    with pytest.raises(UnicodeDecodeError):
        dec.ByteLevel()(half, errors="strict")
    with pytest.raises(UnicodeDecodeError):
        dec.Sequence([dec.Metaspace(), dec.ByteFallback(), dec.Fuse()])(bad, errors="strict")


def test_the_decoders_decode_bytes_as_errors_asks():
    tokens = dec.Tokens({0: "\u00e2", 1: "\u0124", 2: "a"}, dec.ByteLevel())
    assert tokens([0, 1, 2]) == "\ufffda"
    assert tokens([0, 1, 2], errors="ignore") == "a"
    with pytest.raises(UnicodeDecodeError):
        tokens([0, 1, 2], errors="strict")
    pieces = dec.SentencePiece({0: None, 1: None, 2: "\u2581a"}, {0: 0xE2, 1: 0x82})
    assert pieces([0, 1, 2]) == "\ufffd\ufffd a"  # one for each byte, as sentencepiece decodes it
    assert pieces([0, 1, 2], errors="backslashreplace") == "\\xe2\\x82 a"
    with pytest.raises(UnicodeDecodeError):
        pieces([0, 1, 2], errors="strict")


def test_strip_takes_at_most_start_and_stop_copies():
    assert dec.Strip(" ", 1, 0)(["  a  "]) == [" a  "]
    assert dec.Strip(" ", 0, 2)(["  a   "]) == ["  a "]
    assert dec.Strip("x", 5, 5)(["xxx"]) == [""]


def test_replace_takes_its_content_literally():
    assert dec.Replace(re.compile("\u2581"), " ")(["\u2581a\u2581b"]) == [" a b"]
    assert dec.Replace(re.compile("(a)"), r"\1")(["aa"]) == [r"\1\1"]


def test_metaspace_and_a_sequence_of_steps():
    steps = dec.Sequence([dec.Replace(re.compile("\u2581"), " "), dec.ByteFallback(), dec.Fuse(), dec.Strip(" ", 1)])
    assert steps(["\u2581Hi", "<0x21>"]) == ["Hi!"]
    assert dec.Metaspace("\u2581", strip_first=False)(["\u2581a"]) == [" a"]


def test_tokens_maps_ids_and_names_an_unknown_one():
    decode = dec.Tokens({0: "a", 1: "b"})
    assert decode([1, 0, 1]) == "bab"
    with pytest.raises(LbpeError, match="token id 7 is not in the vocabulary"):
        decode([0, 7])


def test_sentencepiece_drops_the_dummy_prefix_or_every_leading_space():
    surfaces = {0: "", 1: "\u2581\u2581a", 2: "\u2581b", 3: None, 4: None}
    byte_of = {3: 0xC3, 4: 0xA9}
    assert dec.SentencePiece(surfaces, byte_of, dummy=True)([0, 1, 2]) == " a b"
    assert dec.SentencePiece(surfaces, byte_of, dummy=False)([1, 2]) == "  a b"
    assert dec.SentencePiece(surfaces, byte_of, squeeze=True)([0, 1, 2]) == "a b"
    assert dec.SentencePiece(surfaces, byte_of)([3, 4, 2]) == "\u00e9 b"
    with pytest.raises(LbpeError, match=r"token id 9 is not in the vocabulary \(ids run from 0 to 4\)"):
        dec.SentencePiece(surfaces, byte_of)([9])


def test_every_decoder_pickles():
    decode = dec.Tokens({0: "\u2581x"}, dec.Sequence([dec.Metaspace(), dec.Strip(" ", 1, 1), dec.ByteLevel()]))
    again = pickle.loads(pickle.dumps(decode))
    assert again([0, 0]) == decode([0, 0])
    sp = dec.SentencePiece({0: "\u2581y"}, {})
    assert pickle.loads(pickle.dumps(sp))([0]) == "y"
