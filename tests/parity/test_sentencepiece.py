"""SentencePiece .model files parsed in pure Python: ids and decoding identical to the
``sentencepiece`` library, LBPE equal to the naive transcription, clear refusals."""

from __future__ import annotations

import functools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lbpe
from tests.support.data import data_file, mixed_text
from tests.support.decoding import check_strict_decode
from tests.support.naive import naive_lbpe

pytestmark = pytest.mark.both_paths

MODELS = {
    "mistral_v1": "sentencepiece/mistral_tokenizer.model.v1",  # byte fallback, no charsmap
    "botchan_bpe": "sentencepiece/test/botchan_en_bpe_1000.model",  # nmt_nfkc charsmap, unk
}
MB = 1 << 20


@functools.cache
def ours(name: str) -> lbpe.Tokenizer:
    return lbpe.load(data_file(MODELS[name]))


@functools.cache
def theirs(name: str):
    import sentencepiece

    return sentencepiece.SentencePieceProcessor(model_file=str(data_file(MODELS[name])))


@pytest.mark.slow(reason="parity over megabytes")
@pytest.mark.parametrize("name", list(MODELS))
def test_ids_and_decode_equal_sentencepiece_on_real_text(name):
    tok, sp = ours(name), theirs(name)
    compared = 0
    for sample, text in mixed_text(1 * MB):
        lines = text.splitlines()
        expected = sp.encode(lines)
        for line, ids in zip(lines, expected):
            assert tok.encode(line, mode="bpe", disallowed_special=()) == ids, f"{name}, {sample}: {line[:100]!r}"
            assert tok.decode(ids) == sp.decode(ids)
            compared += len(line.encode())
    assert compared >= 2 * MB


@pytest.mark.parametrize("name", list(MODELS))
@settings(max_examples=200, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=80))
def test_ids_equal_sentencepiece_on_generated_text(name, text):
    assert ours(name).encode(text, mode="bpe", disallowed_special=()) == theirs(name).encode(text)


@pytest.mark.parametrize("name", list(MODELS))
def test_decode_equals_sentencepiece_on_random_ids(name):
    tok, sp = ours(name), theirs(name)
    rng = random.Random(7)
    for _ in range(3000):
        ids = [rng.randrange(sp.get_piece_size()) for _ in range(rng.randrange(1, 9))]
        assert tok.decode(ids) == sp.decode(ids), ids


def test_decode_of_cut_byte_runs_equals_sentencepiece():
    """Runs of byte pieces that are not whole UTF-8 (a stream cut mid-character): one U+FFFD
    for each byte that starts no character, as SentencePiece gives, between the text pieces."""
    tok, sp = ours("mistral_v1"), theirs("mistral_v1")
    byte_ids = [i for i in range(sp.get_piece_size()) if sp.is_byte(i)]
    assert len(byte_ids) == 256
    lead = [i for i in byte_ids if sp.id_to_piece(i) >= "<0xC2>"]  # the first bytes of characters
    text_ids = sp.encode("a é 字")
    rng = random.Random(11)
    for _ in range(3000):
        ids = [rng.choice(lead if rng.random() < 0.5 else byte_ids) for _ in range(rng.randrange(1, 7))]
        if rng.random() < 0.3:
            ids[rng.randrange(len(ids)) :] = [*text_ids, *ids[rng.randrange(len(ids)) :]]
        assert tok.decode(ids) == sp.decode(ids), ids
    assert tok.decode([243, 163]) == "\ufffd\ufffd" == sp.decode([243, 163])  # <0xF0><0xA0>


@pytest.mark.parametrize("name", list(MODELS))
def test_decode_is_strict_when_asked(name):
    """errors="strict" raises exactly when the ids' bytes are not UTF-8; otherwise it decodes as
    SentencePiece."""
    tok, sp = ours(name), theirs(name)
    known = range(sp.get_piece_size())
    single = [i for i in known if sp.is_byte(i)] or known
    raised = check_strict_decode(tok, sp.decode, known, single, tries=3000)
    if name == "mistral_v1":
        assert raised >= 20
    else:  # no byte pieces: every piece is text
        assert raised == 0


def test_bos_eos_only_on_request():
    tok, sp = ours("mistral_v1"), theirs("mistral_v1")
    text = "Hello world"
    assert tok.encode(text, mode="bpe") == sp.encode(text)
    assert tok.encode(text, mode="bpe", add_special_tokens=True) == sp.encode(text, add_bos=True, add_eos=True)


@pytest.mark.parametrize("name", list(MODELS))
def test_lbpe_equals_naive_on_character_units(name):
    tok = ours(name)
    vocab = tok.vocab
    usable = frozenset(vocab.model_tokens)
    text = "".join(t[:30000] for _, t in mixed_text(30000))
    for line in text.splitlines()[:400]:
        for piece in tok.pieces(line):
            expected = [k.encode() for k in naive_lbpe(list(piece), usable, vocab.max_len)]
            assert tok.split_piece(piece, mode="lbpe") == expected, piece
    ids = tok.encode(text, mode="lbpe", disallowed_special=())
    assert theirs(name).decode(ids) == tok.decode(ids)


@pytest.mark.parametrize(
    "path", ["sentencepiece/test/botchan_en_unigram_1000.model", "sentencepiece/test/kyoto_ja_unigram_8000.model"]
)
def test_unigram_models_are_refused(path):
    with pytest.raises(lbpe.VocabFormatError, match="model type UNIGRAM is not supported"):
        lbpe.load(data_file(path))


def test_corrupt_models_are_refused(tmp_path):
    good = data_file(MODELS["botchan_bpe"]).read_bytes()
    cases = {
        "empty.model": b"",
        "truncated.model": good[: len(good) // 2],
        "noise.model": bytes(random.Random(3).randrange(256) for _ in range(4096)),
    }
    for file_name, data in cases.items():
        path = tmp_path / file_name
        path.write_bytes(data)
        with pytest.raises(lbpe.VocabFormatError) as info:
            lbpe.load(path)
        assert str(path) in str(info.value)


def test_single_token_lookups_of_byte_pieces():
    """A byte piece's bytes are its byte; that byte gives the byte piece back unless an ordinary
    piece is the same byte ("A" is a piece and <0x41> too: the piece, as a merge would make it)."""
    tok, sp = ours("mistral_v1"), theirs("mistral_v1")
    plain = tok.vocab.tokens
    checked = 0
    for i in range(sp.get_piece_size()):
        if sp.is_control(i) or sp.is_unknown(i):
            continue
        data = tok.decode_single_token_bytes(i)
        if sp.is_byte(i):
            assert data == bytes([int(sp.id_to_piece(i)[3:5], 16)])
            assert tok.encode_single_token(data) == plain.get(data, i)
        else:
            assert data == sp.id_to_piece(i).encode() and tok.encode_single_token(data) == i
        checked += 1
    assert checked > 31_000
    assert tok.encode_single_token(b"\x00") == sp.piece_to_id("<0x00>")  # no piece is NUL
    with pytest.raises(KeyError, match="spells a space \u2581"):
        tok.encode_single_token(" the")
