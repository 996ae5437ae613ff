"""Format detection, pattern selection and clear errors for malformed vocabulary files."""

from __future__ import annotations

import base64
import shutil

import pytest

import lbpe
from lbpe.errors import LbpeError, VocabFormatError
from lbpe.formats.tiktoken import parse_tiktoken_vocab
from tests.support.data import data_file, tiktoken_encoding


def _rank_lines(extra: list[bytes] = ()) -> bytes:
    lines = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]
    return b"\n".join(lines + list(extra)) + b"\n"


def test_load_infers_pattern_from_file_name():
    tok = lbpe.load(data_file("openai/cl100k_base.tiktoken"))
    assert tok.pretokenizer_name == "cl100k_base"
    assert tok.special_tokens["<|endoftext|>"] == 100257


def test_load_folder_and_either_gpt2_file(tmp_path):
    for name in ("encoder.json", "vocab.bpe"):
        shutil.copy(data_file(f"gpt2/{name}"), tmp_path / name)
    ids = {
        lbpe.load(p).encode("Hello world", mode="bpe")[0]
        for p in (tmp_path, tmp_path / "encoder.json", tmp_path / "vocab.bpe")
    }
    assert ids == {15496}  # "Hello" in GPT-2


def test_a_folder_holding_a_gzipped_vocabulary_loads_as_the_file_does(tmp_path):
    # lbpe train -o folder/tokenizer.json.gz writes one; each format's usual name, gzipped
    import gzip

    sources = {
        "tokenizer.json.gz": data_file("hf/llama3/tokenizer.json"),
        "tokenizer.model.gz": data_file("sentencepiece/mistral_tokenizer.model.v1"),
        "cl100k_base.tiktoken.gz": data_file("openai/cl100k_base.tiktoken"),
    }
    for name, source in sources.items():
        folder = tmp_path / name.replace(".", "_")
        folder.mkdir()
        (folder / name).write_bytes(gzip.compress(source.read_bytes()))
        text = "Gzipped vocabularies, in folders."
        assert lbpe.load(folder).encode(text, mode="bpe") == lbpe.load(source).encode(text, mode="bpe"), name
    # beside its plain twin, the plain file is read, as before gzipped ones were found at all
    both = tmp_path / "cl100k_base_tiktoken_gz"
    shutil.copy(sources["cl100k_base.tiktoken.gz"], both / "cl100k_base.tiktoken")
    assert lbpe.load(both).encode("twins", mode="bpe") == lbpe.load(sources["cl100k_base.tiktoken.gz"]).encode(
        "twins", mode="bpe"
    )


def test_unknown_rank_file_name_needs_a_pattern(tmp_path):
    path = tmp_path / "mine.tiktoken"
    path.write_bytes(_rank_lines([b"YWI= 256"]))
    with pytest.raises(VocabFormatError, match=r"mine\.tiktoken.*pass pattern="):
        lbpe.load(path)
    tok = lbpe.load(path, pattern="paper")
    assert tok.encode("ab", mode="lbpe") == [256]


def test_a_renamed_rank_file_takes_its_special_tokens_as_tiktoken_does(tmp_path):
    import tiktoken

    path = tmp_path / "mine.tiktoken"
    shutil.copy(data_file("openai/cl100k_base.tiktoken"), path)
    with pytest.raises(VocabFormatError, match="special_tokens="):  # the refusal names both choices
        lbpe.load(path)
    cl100k = lbpe.load(data_file("openai/cl100k_base.tiktoken"))
    special = {"<|endoftext|>": 100257, "<|im_start|>": 100264, "<|im_end|>": 100265}
    tok = lbpe.load(path, pattern="cl100k_base", special_tokens=special)
    assert tok.special_tokens == special
    theirs = tiktoken.Encoding(
        "mine",
        pat_str=tiktoken_encoding("cl100k_base")._pat_str,
        mergeable_ranks=tiktoken.load.load_tiktoken_bpe(str(path)),
        special_tokens=special,
    )
    text = "<|im_start|>user\nHello there<|im_end|><|endoftext|>"
    ids = theirs.encode(text, allowed_special="all")
    assert tok.encode(text, mode="bpe", allowed_special="all") == ids
    assert tok.decode(ids) == text
    assert lbpe.load(path, pattern="cl100k_base").special_tokens == {}  # none unless given
    # given for a file named after its encoding, they are the tokenizer's special tokens (as
    # tiktoken.Encoding's special_tokens are: the encoding's own are spread in when wanted)
    mine = lbpe.load(data_file("openai/cl100k_base.tiktoken"), special_tokens={"<|im_start|>": 100264})
    assert mine.special_tokens == {"<|im_start|>": 100264}
    assert mine.encode("<|endoftext|>", mode="bpe", allowed_special="all") == cl100k.encode(
        "<|endoftext|>", mode="bpe", disallowed_special=()
    )  # not special here: ordinary text


def test_special_tokens_are_refused_where_the_file_has_its_own_or_they_are_wrong(tmp_path):
    path = tmp_path / "mine.tiktoken"
    path.write_bytes(_rank_lines([b"YWI= 256"]))
    with pytest.raises(VocabFormatError, match="collide with ranks"):
        lbpe.load(path, pattern="paper", special_tokens={"<|end|>": 256})
    with pytest.raises(TypeError, match=r"special_tokens must map each special token's text to its id.*\{"):
        lbpe.load(path, pattern="paper", special_tokens=["<|end|>"])
    with pytest.raises(ValueError, match="must be a non-empty string"):
        lbpe.load(path, pattern="paper", special_tokens={"": 300})
    with pytest.raises(ValueError, match="ids must be non-negative integers"):
        lbpe.load(path, pattern="paper", special_tokens={"<|end|>": True})
    for own in ("hf/llama3/tokenizer.json", "sentencepiece/mistral_tokenizer.model.v1", "gpt2/encoder.json"):
        with pytest.raises(VocabFormatError, match="its own special tokens; do not pass special_tokens="):
            lbpe.load(data_file(own), special_tokens={"<|end|>": 10**6})


def test_unknown_pattern_name_names_the_file_and_the_choices(tmp_path):
    path = tmp_path / "mine.tiktoken"
    path.write_bytes(_rank_lines())
    with pytest.raises(ValueError, match=r"mine\.tiktoken.*unknown pre-tokenizer pattern 'gpt5'.*cl100k_base"):
        lbpe.load(path, pattern="gpt5")


@pytest.mark.parametrize(
    "extra, problem, line",
    [
        ([b"YWI="], "expected '<base64 token> <rank>', found 1 field", 257),
        ([b"YWI= 256 7"], "found 3 field", 257),
        ([b"!!!! 256"], "not valid base64", 257),
        ([b"YWI= -3"], "not a non-negative integer", 257),
        ([b"YWI= x1"], "not a non-negative integer", 257),
        ([b"YQ== 300"], "appears twice", 257),
        ([b"YWI= 256", b"YWJj 256"], "rank 256 appears twice", 258),
    ],
)
def test_malformed_rank_files_name_file_and_line(tmp_path, extra, problem, line):
    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(_rank_lines(extra))
    with pytest.raises(VocabFormatError) as info:
        lbpe.load(path)
    assert info.value.line == line
    assert str(path) in str(info.value) and problem in str(info.value)


@pytest.mark.parametrize("special_id", [0, 255, 256])
def test_a_special_id_among_every_rank_from_0_is_refused(encode_path, special_id):
    # ranks 0-256, no gaps (which the compiled reader holds as a range)
    with pytest.raises(VocabFormatError, match=f"special token ids {{'<end>': {special_id}}} collide"):
        parse_tiktoken_vocab(_rank_lines([b"YWI= 256"]), source="f", special={"<end>": special_id})


def test_a_special_id_past_every_rank_from_0_is_kept(encode_path):
    vocab = parse_tiktoken_vocab(_rank_lines([b"YWI= 256"]), source="f", special={"<end>": 257})
    assert vocab.special == {"<end>": 257} and len(vocab.tokens) == 257 and vocab.tokens[b"ab"] == 256


def test_rank_file_without_all_bytes_is_refused(tmp_path):
    path = tmp_path / "r50k_base.tiktoken"
    path.write_bytes(b"YQ== 0\nYg== 1\n")
    with pytest.raises(VocabFormatError, match="lacks single-byte tokens"):
        lbpe.load(path)


def test_empty_and_unrecognised_files(tmp_path):
    empty = tmp_path / "o200k_base.tiktoken"
    empty.write_bytes(b"")
    with pytest.raises(VocabFormatError, match="empty"):
        lbpe.load(empty)
    junk = tmp_path / "notes.txt"
    junk.write_text("hello there\n")
    with pytest.raises(VocabFormatError, match="unrecognised vocabulary format"):
        lbpe.load(junk)
    with pytest.raises(VocabFormatError, match="no such file"):
        lbpe.load(tmp_path / "missing.tiktoken")


def test_a_path_that_is_no_path_or_names_a_preset_says_what_to_pass(tmp_path, monkeypatch):
    """load(None) and load(b"...") ended in pathlib's TypeError (which, for None, offered bytes);
    a bundled vocabulary's name as a path said only "no such file or folder"."""
    for bad in (None, 5):
        with pytest.raises(TypeError, match=rf"path must be .*not {type(bad).__name__}.*load_preset"):
            lbpe.load(bad)
    shutil.copy(data_file("openai/r50k_base.tiktoken"), tmp_path / "r50k_base.tiktoken")
    assert lbpe.load(str(tmp_path / "r50k_base.tiktoken").encode()).encode("hi there", mode="bpe") == [5303, 612]
    monkeypatch.chdir(tmp_path)
    for name in ("cl100k_base", "cl100k_base.tiktoken", "gpt2"):
        want = r"no such file or folder.*lbpe.load_preset\((.)(cl100k_base|gpt2)\1\)"
        with pytest.raises(VocabFormatError, match=want):
            lbpe.load(name)


def test_gpt2_merge_naming_unknown_token(tmp_path):
    shutil.copy(data_file("gpt2/encoder.json"), tmp_path / "encoder.json")
    (tmp_path / "vocab.bpe").write_text("#version: 0.2\nĠ t\nqq zz\n", encoding="utf-8")
    with pytest.raises(VocabFormatError, match=r"vocab\.bpe, line 3: merge 'qq zz' needs the token"):
        lbpe.load(tmp_path)


def test_gpt2_bad_json(tmp_path):
    (tmp_path / "encoder.json").write_bytes(b'{"a": 1,')
    (tmp_path / "vocab.bpe").write_text("#version: 0.2\n")
    with pytest.raises(VocabFormatError, match=r"encoder\.json.*not valid JSON"):
        lbpe.load(tmp_path)


# ---- .tiktoken: the bulk reader and the line-by-line reader agree ----

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from lbpe.formats.tiktoken import _parse_lines, _well_formed  # noqa: E402


@pytest.mark.parametrize("name", ["r50k_base", "p50k_base", "cl100k_base", "o200k_base"])
def test_real_rank_files_take_the_bulk_reader_with_the_same_tokens(name):
    data = data_file(f"openai/{name}.tiktoken").read_bytes()
    bulk = _well_formed(data)
    assert bulk is not None, "a real rank file should be read in bulk"
    assert bulk == _parse_lines(data, f"{name}.tiktoken")


_B64 = st.binary(min_size=0, max_size=4).map(base64.b64encode)
_LINE = st.one_of(
    st.tuples(_B64, st.integers(0, 40).map(lambda r: b"%d" % r)).map(b" ".join),  # the usual line
    st.sampled_from(
        [
            b"",
            b" ",
            b"YQ==  1",
            b"YQ== 1 2",
            b"YQ",
            b"YQ= 3",
            b"=YQ= 4",
            b"YQ== -1",
            b"YQ==\t5",
            b"YR== 6",
            b"YQ== 1234567890123456789",
            b"YQ== \xd9\xa3",
            b"YQ==\r",
        ]
    ),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=8), st.booleans())
def test_the_bulk_reader_never_accepts_what_the_line_reader_refuses(lines, final_newline):
    data = b"\n".join(lines) + (b"\n" if final_newline else b"")
    bulk = _well_formed(data)
    try:
        exact = _parse_lines(data, "x.tiktoken")
    except VocabFormatError:
        assert bulk is None
    else:
        assert bulk is None or bulk == exact


@pytest.mark.parametrize(
    "extra, problem",
    [
        ({b"": 300}, "must be non-empty bytes"),
        ({"text": 300}, "must be non-empty bytes"),
        ({b"xy": -1}, "non-negative integers"),
        ({b"xy": 2.0}, "non-negative integers"),
        ({b"xy": 65}, "id 65 is used by both"),
    ],
)
def test_vocab_names_a_bad_token_after_the_bulk_check_says_no(extra, problem):
    tokens = {bytes([b]): b for b in range(256)}
    assert lbpe.Vocab(tokens).id_to_bytes[65] == b"A"  # the plain case passes the bulk check
    with pytest.raises(lbpe.LbpeError, match=problem):
        lbpe.Vocab({**tokens, **extra})


def test_a_special_id_past_32_bits_is_refused(tmp_path):
    # tiktoken and HF tokenizers hold ids as 32-bit unsigned integers; so do lbpe's shards
    path = tmp_path / "mine.tiktoken"
    shutil.copy(data_file("openai/r50k_base.tiktoken"), path)
    with pytest.raises(LbpeError, match=r"special token '<\|x\|>' has id 4294967296; ids are 32-bit .*4,294,967,295"):
        lbpe.load(path, pattern="gpt2", special_tokens={"<|x|>": 2**32})
    assert lbpe.load(path, pattern="gpt2", special_tokens={"<|x|>": 2**32 - 1}).special_tokens == {"<|x|>": 2**32 - 1}


def test_a_merge_of_a_special_token_is_refused_saying_so(tmp_path):
    """A tokenizer.json whose special token is also a part of a merge (HF loads it) was refused
    as if the token were missing from the vocabulary; lbpe keeps special tokens out of the
    model, and now says that is why."""
    import json

    vocab = {"<unk>": 0, "a": 1, "b": 2, "ab": 3}
    spec = {
        "model": {"type": "BPE", "vocab": vocab, "merges": ["a b"], "unk_token": "<unk>"},
        "added_tokens": [
            {
                "id": 1,
                "content": "a",
                "special": True,
                "normalized": False,
                "lstrip": False,
                "rstrip": False,
                "single_word": False,
            }
        ],
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), "utf-8")
    with pytest.raises(
        VocabFormatError, match=r"merge #1 'a' \+ 'b' uses 'a', which the file also makes a special token"
    ):
        lbpe.load(path)
