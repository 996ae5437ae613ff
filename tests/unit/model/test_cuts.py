"""Cuts (lbpe.model.cuts): every cut found is real, and encoding by parts equals encoding whole.

Vocabularies here are made of slices of the test text's own UTF-8 bytes, so they are full of
tokens that start or end inside a character and of tokens that span several characters: the
cases where a cheap per-character test could go wrong.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from lbpe.model.cuts import CutFinder
from lbpe.tokenizer import Tokenizer
from lbpe.vocab import Vocab
from tests.support.naive import byte_units, naive_bpe_by_merges, naive_bpe_by_rank, naive_lbpe

ALPHABET = "aé中国人日本語🙂\u0301"
WHOLE = re.compile(r"[\s\S]+")  # one piece: the whole text
texts = st.text(alphabet=ALPHABET, min_size=1, max_size=30)


@st.composite
def slices(draw, unit: str, max_tokens: int = 25) -> list:
    """Slices of a text over the alphabet: of its UTF-8 bytes (partial characters included) for
    ``unit="byte"``, of its characters for ``unit="char"``."""
    source = draw(texts)
    if unit == "byte":
        source = source.encode()
    longest = 8 if unit == "byte" else 4
    out = []
    for _ in range(draw(st.integers(0, max_tokens))):
        i = draw(st.integers(0, len(source) - 1))
        j = draw(st.integers(i + 1, min(len(source), i + longest)))
        out.append(source[i:j])
    return out


def _covered(units, tokens, boundary: int) -> bool:
    """Does some token occur in ``units`` over the boundary at ``boundary``?"""
    return any(units[i : i + len(t)] == t for t in tokens for i in range(max(0, boundary - len(t) + 1), boundary))


def _cut_positions(parts: list[str]) -> list[int]:
    out, pos = [], 0
    for part in parts[:-1]:
        pos += len(part)
        out.append(pos)
    return out


def test_known_cuts():
    finder = CutFinder(["中国".encode(), "人".encode(), "\x84".encode("latin-1")], unit="byte")
    assert finder.split("中国人中") == ["中国", "人", "中"]
    # a token made of the last byte of 国 (e5 9b bd) and the first of 人 (e4 ba ba) joins them
    finder = CutFinder([b"\xbd\xe4"], unit="byte")
    assert finder.split("中国人") == ["中", "国人"]
    assert CutFinder(["国人"], unit="char").split("中国人") == ["中", "国人"]
    assert CutFinder([], unit="char").split("ab中") == ["ab", "中"]  # two ASCII characters never cut


@settings(max_examples=300, deadline=None)
@given(slices("byte"), texts)
def test_every_cut_is_real_bytes(tokens, text):
    parts = CutFinder(tokens, unit="byte").split(text)
    assert "".join(parts) == text and all(parts)
    data = text.encode()
    for cut in _cut_positions(parts):
        boundary = len(text[:cut].encode())
        assert not _covered(data, tokens, boundary), (text, cut)


@settings(max_examples=300, deadline=None)
@given(slices("char"), texts)
def test_every_cut_is_real_chars(tokens, text):
    parts = CutFinder(tokens, unit="char").split(text)
    assert "".join(parts) == text and all(parts)
    for cut in _cut_positions(parts):
        assert not _covered(text, tokens, cut), (text, cut)


def test_cut_mark_character_in_the_piece():
    finder = CutFinder(["中国".encode()], unit="byte")
    assert finder.split("中\x00国中国\x00") == ["中", "\x00", "国", "中国", "\x00"]


def _ranked(tokens: list[bytes]) -> dict[bytes, int]:
    ranks = {bytes([b]): b for b in range(256)}
    for t in tokens:
        ranks.setdefault(t, len(ranks))
    return ranks


@settings(max_examples=300, deadline=None)
@given(slices("byte"), texts, st.booleans())
def test_byte_vocab_by_parts_equals_whole(tokens, text, whole_piece_first):
    ranks = _ranked(tokens)
    tok = Tokenizer(Vocab(ranks, whole_piece_first=whole_piece_first), WHOLE)
    data = text.encode()
    if whole_piece_first and data in ranks:
        want_bpe = [data]
    else:
        want_bpe = naive_bpe_by_rank(data, ranks)
    want_lbpe = naive_lbpe(byte_units(data), set(ranks), max(map(len, ranks)))
    assert tok.encode(text, mode="bpe") == [ranks[t] for t in want_bpe]
    assert tok.encode(text, mode="lbpe") == [ranks[t] for t in want_lbpe]
    assert tok.encode(text, mode="bpe") == tok.encode(text, mode="bpe")  # now from the caches


@settings(max_examples=200, deadline=None)
@given(slices("byte"), texts)
def test_merge_list_by_parts_equals_whole(tokens, text):
    ranks = _ranked(tokens)
    merges = {}
    for t in tokens:  # one way to build each token from two parts, if both exist
        for k in range(1, len(t)):
            if t[:k] in ranks and t[k:] in ranks:
                merges.setdefault((t[:k], t[k:]), len(merges))
                break
    tok = Tokenizer(Vocab(ranks, merges=merges, whole_piece_first=False), WHOLE)
    want = naive_bpe_by_merges(text.encode(), merges)
    assert tok.encode(text, mode="bpe") == [ranks[t] for t in want]


@settings(max_examples=200, deadline=None)
@given(slices("char"), texts, st.booleans())
def test_char_vocab_by_parts_equals_whole(tokens, text, fallback):
    # a character-level vocabulary without some characters: byte fallback, or fused unknowns
    ranks = {t: k for k, t in enumerate(dict.fromkeys(["a", *(c for t in tokens for c in t)]))}
    for t in tokens:
        ranks.setdefault(t, len(ranks))
    table = {t.encode(): i for t, i in ranks.items()}
    n = len(table)
    if fallback:
        vocab = Vocab(table, unit="char", byte_fallback={b: n + b for b in range(256)}, whole_piece_first=False)
    else:
        vocab = Vocab({**table, b"<unk>": n}, unit="char", unk=n, fuse_unk=True, whole_piece_first=False)
    tok = Tokenizer(vocab, WHOLE)

    def ids(keys: list[str]) -> list[int]:
        out, prev_unk = [], False
        for key in keys:
            if key in ranks:
                out.append(ranks[key])
                prev_unk = False
            elif fallback:
                out += [n + b for b in key.encode()]
            elif not prev_unk:
                out.append(n)
                prev_unk = True
        return out

    want_bpe = ids(naive_bpe_by_rank(text, ranks))  # ids are the ranks
    want_lbpe = ids(naive_lbpe(list(text), set(ranks), max(map(len, ranks), default=1)))
    assert tok.encode(text, mode="bpe") == want_bpe
    assert tok.encode(text, mode="lbpe") == want_lbpe
    assert [s.id for s in tok.segment(text, mode="lbpe")] == want_lbpe
