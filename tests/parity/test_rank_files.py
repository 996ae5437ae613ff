"""The compiled reader of ``.tiktoken`` rank files against the Python one.

``lbpe._native.parse_ranks`` reads a plainly well-formed rank file in C; anything else it hands
back (``None``) to :mod:`lbpe.formats.tiktoken`, which reads it in Python and names the
problem. So on every input it must give the Python reader's tokens or ``None``, never other
tokens, and on the real files it must give them.
"""

from __future__ import annotations

import base64
import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lbpe.data
from lbpe.formats.tiktoken import _well_formed, parse_tiktoken_vocab
from tests.support.data import RANK_FILES, data_file

native = pytest.importorskip("lbpe._native", reason="the compiled extension is not built")


def both(data: bytes) -> tuple[dict | None, dict | None]:
    return native.parse_ranks(data), _well_formed(data)


@pytest.mark.parametrize("name", RANK_FILES)
def test_real_rank_files_read_alike(name):
    data = data_file(f"openai/{name}.tiktoken").read_bytes()
    compiled, pure = both(data)
    assert compiled is not None
    assert compiled == pure
    assert list(compiled.items()) == list(pure.items())  # in the file's order, as Python reads it


def test_the_bundled_files_read_alike():
    folder = lbpe.data.__path__[0] + "/openai"
    for name in ("cl100k_base", "o200k_base"):
        with gzip.open(f"{folder}/{name}.tiktoken.gz") as file:
            data = file.read()
        compiled, pure = both(data)
        assert compiled is not None and compiled == pure


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"QQ== 1", {b"A": 1}),  # no newline at the end
        (b"QQ== 1\n", {b"A": 1}),
        (b"QR== 1\n", {b"A": 1}),  # the bits padding leaves over are dropped, as a2b_base64 drops them
        (b"QUI= 0\nQQ== 1\n", {b"AB": 0, b"A": 1}),
        (b"QUJD 007\n", {b"ABC": 7}),  # leading zeros
        (b"QUJDRA== 5\n", {b"ABCD": 5}),
        (b"//8= 2\n", {b"\xff\xff": 2}),
        (b"+/+/ 3\n", {b"\xfb\xff\xbf": 3}),
    ],
)
def test_well_formed_lines(data, expected):
    assert native.parse_ranks(data) == expected


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n",
        b"QQ== 1\n\n",  # a blank line
        b"\nQQ== 1\n",
        b" QQ== 1\n",
        b"QQ==  1\n",  # two spaces
        b"QQ==\t1\n",
        b"QQ== 1\r\n",
        b"QQ== 1 \n",
        b"QQ= 1\n",  # not whole groups of four
        b"Q=== 1\n",
        b"QQ=A 1\n",  # padding inside a group
        b"QQ==QQ== 1\n",  # padding before the end
        b"Q-== 1\n",  # not base64's alphabet
        b"QUJ- 1\n",  # ... where padding could stand
        b"QU\x00= 1\n",
        b"QQ== \n",  # no rank
        b"QQ== -1\n",
        b"QQ== 1x\n",
        b"QQ== 1234567890123456789\n",  # 19 digits
        b"QQ== 1\nQQ== 2\n",  # a token twice
        b"QQ== 1\nQg== 1\n",  # a rank twice
        b"QQ== 1\nQR== 2\n",  # two spellings of one token
        b"QQ== 999999\n",  # a rank far beyond the line count: Python reads it
    ],
)
def test_anything_unusual_is_handed_back(data):
    assert native.parse_ranks(data) is None


def test_a_far_rank_still_loads_through_python():
    data = b"".join(base64.b64encode(bytes([b])) + b" %d\n" % (b * 1000) for b in range(256))
    assert native.parse_ranks(data) is None
    vocab = parse_tiktoken_vocab(data, source="far.tiktoken")
    assert vocab.tokens[b"\x01"] == 1000 and len(vocab.tokens) == 256


_LETTER = st.sampled_from(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= \t\r\n-")


@st.composite
def rank_lines(draw) -> bytes:
    """Mostly good lines, some bent: a letter changed, dropped or added, a rank too long, a
    line repeated, ranks and tokens drawn from a small range so that repeats happen."""
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        token = base64.b64encode(draw(st.binary(min_size=1, max_size=5)))
        rank = b"%d" % draw(st.integers(0, 40))
        line = bytearray(token + b" " + rank)
        for _ in range(draw(st.integers(0, 2))):
            at = draw(st.integers(0, len(line)))
            op = draw(st.sampled_from(["set", "drop", "add"]))
            if op == "set" and at < len(line):
                line[at] = draw(_LETTER)
            elif op == "drop" and at < len(line):
                del line[at]
            elif op == "add":
                line.insert(at, draw(_LETTER))
        lines.append(bytes(line))
    if draw(st.booleans()):
        lines.append(lines[draw(st.integers(0, len(lines) - 1))])
    return b"\n".join(lines) + draw(st.sampled_from([b"", b"\n", b"\n\n", b" "]))


@settings(max_examples=600, deadline=None)
@given(data=rank_lines())
def test_never_other_tokens_than_python(data):
    compiled, pure = both(data)
    if compiled is not None:
        assert compiled == pure
    elif pure is not None:  # handed back only for a rank beyond the line bound
        assert max(pure.values()) >= 4 * (data.count(b"\n") + 1) + 1024


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=64))
def test_any_bytes(data):
    compiled, pure = both(data)
    assert compiled is None or compiled == pure
