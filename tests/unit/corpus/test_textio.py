"""The one UTF-8 chunk reader (lbpe.corpus.textio): known answers for its cut policy, chunk sizes,
progress, errors and edge cases, a property test over random block splits, and one wording of
the invalid-UTF-8 error wherever a file is read."""

from __future__ import annotations

import gzip
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lbpe.corpus.documents import BadRecord, iter_records, records_of_bytes
from lbpe.corpus.parallel import read_chunks
from lbpe.corpus.textio import decode, iter_chunks
from lbpe.errors import LbpeError, NotUtf8Error
from lbpe.train import count_llama_pieces, count_pieces

FIX = "convert it to UTF-8 first (e.g. iconv -t UTF-8)"


def chunks_of(data: bytes, size: int, block: int | None = None) -> list[str]:
    blocks = [data] if block is None else [data[i : i + block] for i in range(0, len(data), block)]
    return list(iter_chunks(blocks, size=size))


# ---- the cut policy -------------------------------------------------------------------------


def test_cut_after_the_last_newline_between_visible_ascii():
    assert chunks_of(b"ab\ncd\nef", 4) == ["ab\n", "cd\n", "ef"]
    # the "\n" after "a" is between visible characters, the later one is not (spaces): the
    # first cut is after "a\n"; the rest has no such newline, so it is cut after any newline,
    # then (a line longer than size) at size
    assert chunks_of(b"a\nb \n xxxxxxxxxx", 10) == ["a\n", "b \n", " xxxxxxxxx", "x"]
    # the last such newline within size + 1 bytes wins over earlier ones
    assert chunks_of(b"a\nb\nc\nddddddddd", 6) == ["a\nb\nc\n", "dddddd", "ddd"]


def test_cut_after_any_newline_when_no_newline_sits_between_visible_ascii():
    assert chunks_of(b"  \n  \n      ", 8) == ["  \n  \n", "      "]
    assert chunks_of(b"x\n\ny\n\nzzzzz", 8) == ["x\n\ny\n\n", "zzzzz"]


def test_a_line_longer_than_size_is_cut_between_characters():
    text = "é" * 10  # 2 bytes each
    assert chunks_of(text.encode(), 5) == ["éé", "éé", "éé", "éé", "éé"]
    assert chunks_of(text.encode(), 5, block=3) == ["éé", "éé", "éé", "éé", "éé"]
    emoji = "🙂" * 3  # 4 bytes each: size 6 cuts after one character, never inside one
    assert chunks_of(emoji.encode(), 6) == ["🙂", "🙂", "🙂"]
    assert chunks_of(emoji.encode(), 2) == ["🙂", "🙂", "🙂"]  # a character larger than size
    assert chunks_of(emoji.encode(), 1, block=1) == ["🙂", "🙂", "🙂"]


def test_a_file_with_no_line_ends(tmp_path):
    text = ("mañana 日本語 🙂 " * 400).strip()
    path = tmp_path / "one-line.txt"
    path.write_bytes(text.encode())
    chunks = list(iter_chunks(path, size=1000))
    assert "".join(chunks) == text
    sizes = [len(c.encode()) for c in chunks]
    assert all(997 <= n <= 1000 for n in sizes[:-1]) and 0 < sizes[-1] <= 1000  # cut nearest size


def test_chunk_sizes_on_lines(tmp_path):
    path = tmp_path / "lines.txt"
    text = "".join(f"line {i}: ascii and ünïcödé\n" for i in range(2000))
    path.write_text(text, encoding="utf-8")
    chunks = list(iter_chunks(path, size=4096))
    assert "".join(chunks) == text
    assert all(c.endswith("\n") for c in chunks)  # every cut after a line end
    assert all(4096 - 40 < len(c.encode()) <= 4096 for c in chunks[:-1])  # whole lines up to size
    assert list(read_chunks([path, path], size=4096)) == chunks + chunks  # one file at a time


# ---- inputs, progress, empty input ----------------------------------------------------------


def test_path_bytes_and_blocks_give_the_same_chunks(tmp_path):
    data = "Call me Ishmael.\nSome years ago—never mind how long\n".encode() * 50
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    expect = list(iter_chunks(path, size=300))
    assert list(iter_chunks(str(path), size=300)) == expect
    assert list(iter_chunks(data, size=300)) == expect
    assert list(iter_chunks(iter([data[:300], data[300:]]), size=300)) == expect
    assert list(iter_chunks(data)) == [data.decode()]  # default size: one chunk


def test_progress_counts_utf8_bytes_after_each_chunk(tmp_path):
    data = ("naïve line\n" * 100).encode()
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    calls: list[int] = []
    chunks = []
    for chunk in iter_chunks(path, size=128, progress=calls.append):
        assert len(calls) == len(chunks)  # reported once the chunk has been consumed
        chunks.append(chunk)
    assert calls == [len(c.encode()) for c in chunks] and sum(calls) == len(data)


def test_empty_input(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    calls: list[int] = []
    assert list(iter_chunks(path, progress=calls.append)) == [] and calls == []
    assert list(iter_chunks([])) == [] and list(iter_chunks(b"")) == [] and list(iter_chunks([b"", b""])) == []
    assert decode(b"", "x") == ""


# ---- errors ---------------------------------------------------------------------------------


def test_invalid_utf8_names_source_byte_and_offset(tmp_path):
    good = "é ok\n".encode() * 100  # 600 bytes
    path = tmp_path / "latin1.txt"
    path.write_bytes(good + "naïve".encode("latin-1"))  # 0xef at offset 602
    seen = []
    with pytest.raises(NotUtf8Error) as info:
        for chunk in iter_chunks(path, size=64):
            seen.append(chunk)
    err = info.value
    assert (err.source, err.byte, err.offset) == (str(path), 0xEF, 602)
    assert str(err) == f"{path}: not UTF-8 text (byte 0xef at offset 602); {FIX}"
    assert "".join(seen) == good.decode()  # the chunks before the bad one came out
    assert isinstance(err, LbpeError) and isinstance(err, ValueError)
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is NotUtf8Error and str(again) == str(err)


@pytest.mark.parametrize(
    ("data", "byte", "offset"),
    [
        (b"\xff", 0xFF, 0),
        (b"abc\x80", 0x80, 3),  # a lone continuation byte
        (b"ab\xe2\x82", 0xE2, 2),  # a sequence cut short by the end of the input
        (b"ab\xe2\x82z", 0xE2, 2),  # ... or by another character
        (b"\xed\xa0\x80", 0xED, 0),  # a surrogate
    ],
)
def test_invalid_utf8_known_answers(data, byte, offset):
    for block in (None, 1, 2):
        with pytest.raises(NotUtf8Error) as info:
            chunks_of(data, 2, block)
        assert (info.value.source, info.value.byte, info.value.offset) == ("input", byte, offset)
    with pytest.raises(NotUtf8Error, match=f"line 7: not UTF-8 text \\(byte 0x{byte:02x} at offset {offset + 5}\\)"):
        decode(data, "line 7", 5)


def test_unreadable_file(tmp_path):
    with pytest.raises(LbpeError, match=r"missing\.txt: cannot be read \(No such file or directory\)"):
        list(iter_chunks(tmp_path / "missing.txt"))


def test_one_wording_wherever_a_text_file_is_read(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"ok\n" * 5 + b"\xff")
    expect = f"{path}: not UTF-8 text (byte 0xff at offset 15); {FIX}"
    for read in (
        lambda: list(read_chunks([path])),
        lambda: count_pieces([path]),
        lambda: count_llama_pieces([path]),
        lambda: [list(r.pieces()) for r in iter_records([path])],
    ):
        with pytest.raises(LbpeError) as info:
            read()
        assert str(info.value) == expect
    with pytest.raises(BadRecord):
        [list(r.pieces()) for r in iter_records([path])]
    assert records_of_bytes(str(path), path.read_bytes())[0].error == expect
    line = records_of_bytes("a.txt", b"fine\nnon\xe9\n", lines=True)[1]
    assert line.error == f"a.txt:2: not UTF-8 text (byte 0xe9 at offset 3); {FIX}"


# ---- property -------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    st.text(st.characters(blacklist_categories=["Cs"]), max_size=400),
    st.integers(min_value=1, max_value=64),
    st.lists(st.integers(min_value=0, max_value=2000), max_size=20),
)
def test_joined_chunks_equal_the_decoded_input_for_any_block_split(text, size, splits):
    data = text.encode()
    points = sorted({min(p, len(data)) for p in splits} | {0, len(data)})
    blocks = [data[a:b] for a, b in zip(points, points[1:])]
    progress: list[int] = []
    chunks = list(iter_chunks(blocks, size=size, progress=progress.append))
    assert "".join(chunks) == text
    assert all(chunks)  # no empty chunk
    assert all(len(c.encode()) <= size + 3 for c in chunks)  # about size (a character may not fit)
    assert progress == [len(c.encode()) for c in chunks]


def test_a_long_run_without_a_character_start_fails_at_once():
    """Continuation bytes only (never UTF-8): the reader says so within a few bytes past ``size``,
    instead of buffering the whole input while it waits for a character to start."""
    seen = []

    def blocks():
        for _ in range(1000):
            seen.append(1)
            yield b"\x80" * 64

    with pytest.raises(NotUtf8Error) as bad:
        list(iter_chunks(blocks(), size=256, source="junk"))
    assert bad.value.offset == 0 and bad.value.byte == 0x80 and len(seen) <= 6


def test_a_jsonl_file_may_begin_with_a_byte_order_mark(tmp_path):
    """Windows tools write one; it is no part of the first record (json.loads refuses it and
    tells a Python programmer to decode with utf-8-sig). Only the file's first line loses it."""
    data = '\ufeff{"text": "one"}\n{"text": "\ufefftwo"}\n'.encode()
    path = tmp_path / "bom.jsonl"
    path.write_bytes(data)
    from_disk = [(r.text, r.error) for r in iter_records([path])]
    assert from_disk == [("one", None), ("\ufefftwo", None)]
    assert [(r.text, r.error) for r in records_of_bytes(str(path), data)] == from_disk
    later = [(r.text, r.error) for r in records_of_bytes(str(path), '\ufeff{"text": "x"}\n'.encode(), first_line=2)]
    assert later[0][0] is None and "bom.jsonl:2: not JSON" in later[0][1]
    unparsed = [r.parsed() for r in iter_records([path], parse=False)]  # parsed in a worker
    assert [(r.text, r.error) for r in unparsed] == from_disk


def test_a_byte_order_mark_before_a_blank_first_line_or_in_a_gzip_file(tmp_path):
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes('\ufeff\n{"text": "one"}\n'.encode())
    assert [(r.text, r.error) for r in iter_records([blank])] == [("one", None)]
    assert [(r.text, r.error) for r in records_of_bytes(str(blank), blank.read_bytes())] == [("one", None)]
    packed = tmp_path / "bom.jsonl.gz"
    packed.write_bytes(gzip.compress('\ufeff{"text": "one"}\n'.encode()))
    assert [(r.text, r.error) for r in iter_records([packed])] == [("one", None)]
    assert [(r.text, r.error) for r in records_of_bytes(str(packed), packed.read_bytes())] == [("one", None)]


def test_a_utf16_mark_is_named_only_at_the_start_of_a_file(tmp_path):
    """FF FE opening a file is UTF-16's mark, and the advice is to convert the file from UTF-16.
    The same bytes opening a later line are a bad byte of that line: converting the whole file
    from UTF-16 would ruin it. Both the disk and the workers' readers of lines, and of JSONL."""
    later = tmp_path / "later.txt"
    later.write_bytes(b"good\n\xff\xfe bad\n")
    first = tmp_path / "first.txt"
    first.write_bytes("a UTF-16 file\n".encode("utf-16"))
    for path in (later, first):
        for read in (
            lambda p: list(iter_records([p], lines=True)),
            lambda p: records_of_bytes(str(p), p.read_bytes(), lines=True),
        ):
            errors = [r.error for r in read(path) if r.error]
            if path is later:
                assert errors == [f"{path}:2: not UTF-8 text (byte 0xff at offset 0); {FIX}"], errors
            else:
                assert errors and errors[0].startswith(f"{path}:1: UTF-16 text, not UTF-8"), errors
    jsonl = tmp_path / "later.jsonl"
    jsonl.write_bytes(b'{"text": "good"}\n\xff\xfe{"text": "bad"}\n')
    for records in (list(iter_records([jsonl])), records_of_bytes(str(jsonl), jsonl.read_bytes())):
        assert [r.error for r in records if r.error] == [f"{jsonl}:2: not UTF-8 text (byte 0xff at offset 0); {FIX}"]


def test_a_byte_order_mark_is_dropped_by_every_reader_of_a_whole_file(tmp_path):
    """A file's UTF-8 byte order mark is no text: the chunk reader, the workers' reader of a
    whole file, the commands that read one text (encode, compare, explain) and the playground's
    text upload give the text after it, and a bad byte's offset still counts it, as the file's."""
    from lbpe.cli.inputs import read_text
    from lbpe.playground.service.files import text_head

    good = tmp_path / "good.txt"
    good.write_bytes(b"\xef\xbb\xbfhello world")
    assert "".join(iter_chunks(good)) == "hello world"
    assert [r.text for r in records_of_bytes(str(good), good.read_bytes())] == ["hello world"]
    assert read_text(str(good)) == "hello world"
    assert text_head(good, 100) == ("hello world", 11)
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xef\xbb\xbfab\xffcd")
    said = f"{bad}: not UTF-8 text (byte 0xff at offset 5); {FIX}"
    with pytest.raises(NotUtf8Error) as info:
        list(iter_chunks(bad))
    assert str(info.value) == said
    assert _first_error(iter_records([bad])) == said  # a whole file's record fails as it is read
    assert [r.error for r in records_of_bytes(str(bad), bad.read_bytes())] == [said]
    with pytest.raises(NotUtf8Error, match="offset 5"):
        read_text(str(bad))


def _first_error(records) -> str:
    try:
        for r in records:
            if r.error is not None:
                return r.error
            list(r.pieces())
    except BadRecord as exc:
        return str(exc)
    return ""
