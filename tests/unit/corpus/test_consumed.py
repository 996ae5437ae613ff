"""The digest of the inputs an export has read: known answers from hashlib over the files'
bytes, the same whatever was asked before, and a change anywhere before a record seen."""

from __future__ import annotations

import gzip
import hashlib
import json

from lbpe.corpus.shards.consumed import Consumed


def marker(place: int) -> bytes:
    return b"\0lbpe-input\0" + place.to_bytes(4, "little")


def expected(*parts: bytes) -> str:
    return hashlib.sha256(b"".join(parts)).hexdigest()


def test_json_lines_through_the_line_of_each_record(tmp_path):
    a = tmp_path / "a.jsonl"
    # a byte order mark, a blank line and a line of spaces (no records), a last line without a line end
    a.write_bytes(b'\xef\xbb\xbf{"text": "one"}\n\n   \r\n{"text": "two"}\n{"text": "three"}')
    b = tmp_path / "b.jsonl.gz"
    b.write_bytes(gzip.compress(b'\n{"text": "four"}\n\n'))
    data = a.read_bytes()
    want = {
        1: expected(marker(0), data[: data.index(b"\n") + 1]),
        2: expected(marker(0), data[: data.index(b'"two"}\n') + 7]),
        3: expected(marker(0), data),
        4: expected(marker(0), data, marker(1), b'\n{"text": "four"}\n'),
    }
    for order in ([1, 2, 3, 4], [4, 3, 2, 1], [2, 4, 1, 3], [3, 3, 1]):
        c = Consumed([a, b], lines=False, text_field="text")
        assert [c.digest_at(r) for r in order] == [want[r] for r in order], order
    c = Consumed([a, b], lines=False, text_field="text")
    assert c.digest_at(5) == "only 4 records"  # the inputs hold fewer: equals no digest
    assert c.sources(3, 4) == f"{a}, {b}" and c.sources(4, 4) == str(b) and c.sources(1, 2) == str(a)


def test_lines_whole_files_and_a_change_before_a_record(tmp_path):
    t = tmp_path / "t.txt"
    t.write_bytes(b"first line\n\t\nsecond \xff line\n")  # invalid UTF-8 is a bad record, still one
    w = tmp_path / "w.txt"
    w.write_bytes(b"a whole file\nof two lines\n")
    c = Consumed([t], lines=True, text_field="text")
    assert c.digest_at(2) == expected(marker(0), t.read_bytes())
    c = Consumed([w, t], lines=False, text_field="text")  # each text file one document
    assert c.digest_at(1) == expected(marker(0), w.read_bytes())
    assert c.digest_at(2) == expected(marker(0), w.read_bytes(), marker(1), t.read_bytes())
    before = Consumed([t], lines=True, text_field="text").digest_at(1)
    t.write_bytes(b"first line\n\t\nsecond line, edited\n")
    assert Consumed([t], lines=True, text_field="text").digest_at(1) == before  # after record 1
    t.write_bytes(b"first line!\n\t\nsecond line, edited\n")
    assert Consumed([t], lines=True, text_field="text").digest_at(1) != before


def test_parquet_rows_one_by_one(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = tmp_path / "d.parquet"
    pq.write_table(pa.table({"text": ["one", None, "three"]}), p)
    c = Consumed([p], lines=False, text_field="text")
    first, all_three = c.digest_at(1), c.digest_at(3)

    def framed(*parts: bytes) -> bytes:
        return b"".join(len(x).to_bytes(8, "little") + x for x in parts) + b"\xff" * 8

    assert first == expected(marker(0), framed(b"text", b"one"))
    assert all_three != first and c.digest_at(3) == all_three
    pq.write_table(pa.table({"text": ["one", "two", "three"]}), p)  # the bad row fixed
    c = Consumed([p], lines=False, text_field="text")
    assert c.digest_at(1) == first and c.digest_at(3) != all_three


def test_records_are_those_of_the_export(tmp_path):
    """The digest counts records as the export does: one per JSON line that is not blank, bad or not."""
    from lbpe.corpus.documents import iter_records

    a = tmp_path / "a.jsonl"
    lines = [json.dumps({"text": f"doc {i}"}) for i in range(5)]
    a.write_text("\n".join([lines[0], "", "not json", lines[1], " ", '{"id": 1}', *lines[2:]]) + "\n")
    n = sum(1 for _ in iter_records([a], parse=False))
    c = Consumed([a], lines=False, text_field="text")
    assert n == 7 and c.digest_at(n) == expected(marker(0), a.read_bytes())
    assert c.digest_at(n + 1) == "only 7 records"


def test_long_lines_and_asking_past_the_end(tmp_path):
    """A line longer than the blocks the inputs are read in; a blank line after the last record
    and an empty input after it, which a question for more records than there are reads too:
    the digest through the last record is the same asked before or after."""
    a = tmp_path / "a.txt"
    long = b"x" * (3 << 20) + b" end"
    # a byte order mark alone on the first line is no text (as the readers of --lines take it):
    # a blank line, hashed with the record after it
    a.write_bytes(b"\xef\xbb\xbf\n" + long + b"\n \n")
    e = tmp_path / "e.txt"
    e.write_bytes(b"")
    want = expected(marker(0), b"\xef\xbb\xbf\n" + long + b"\n")
    c = Consumed([a, e], lines=True, text_field="text")
    assert c.digest_at(1) == want
    assert c.digest_at(2) == "only 1 records" and c.count() == 1
    assert c.digest_at(1) == want
    assert c.sources(1, 2) == str(a)  # the empty input is named for no record


def test_sources_names_at_most_three_inputs(tmp_path):
    paths = []
    for k in range(5):
        paths.append(tmp_path / f"{k}.txt")
        paths[-1].write_text(f"document {k}")
    c = Consumed(paths, lines=False, text_field="text")
    assert c.sources(2, 5) == f"{paths[1]}, {paths[2]}, {paths[3]} and 1 more"
