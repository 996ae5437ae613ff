"""HF tokenizer.json files: classic BPE ids and decoding identical to HF ``tokenizers`` on real
text (English, many scripts, code), LBPE equal to the naive transcription, clear refusals."""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lbpe
from tests.support.data import chunks, data_file, mixed_text
from tests.support.decoding import check_strict_decode
from tests.support.naive import byte_units, naive_lbpe

pytestmark = pytest.mark.both_paths

NAMES = ["llama3", "qwen3", "gpt4o", "deepseek_v3", "mistral_v0.1", "gemma3"]
MB = 1 << 20


@functools.cache
def ours(name: str) -> lbpe.Tokenizer:
    return lbpe.load(data_file(f"hf/{name}/tokenizer.json"))


@functools.cache
def theirs(name: str):
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(data_file(f"hf/{name}/tokenizer.json")))


@pytest.mark.parametrize("name", NAMES)
def test_n_vocab_counts_every_id_the_file_gives(name):
    """One more than the largest id an encoding can hold (tiktoken's ``n_vocab``), added tokens
    included (Qwen 3's ``</think>`` is one): what an export sizes its ids by and a trainer its
    embedding. HF's own size is a count, smaller where ids have gaps (GPT-4o's)."""
    assert ours(name).n_vocab == max(theirs(name).get_vocab(with_added_tokens=True).values()) + 1


@pytest.mark.slow(reason="parity over megabytes, every HF file")
@pytest.mark.parametrize("name", NAMES)
def test_bpe_ids_and_decode_equal_hf_on_real_text(name):
    tok, ref = ours(name), theirs(name)
    compared = 0
    for sample, text in mixed_text(1 * MB):
        blocks = chunks(text)
        expected = ref.encode_batch(blocks, add_special_tokens=False)
        for block, enc in zip(blocks, expected):
            got = tok.encode(block, mode="bpe", allowed_special="all")
            assert got == enc.ids, f"{name} differs from HF on {sample} text near {block[:120]!r}"
            assert tok.decode(got) == ref.decode(enc.ids, skip_special_tokens=False)
            compared += len(block.encode())
    assert compared >= 2 * MB


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=120, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=120))
def test_bpe_ids_equal_hf_on_generated_text(name, text):
    expected = theirs(name).encode(text, add_special_tokens=False).ids
    assert ours(name).encode(text, mode="bpe", allowed_special="all") == expected


@pytest.mark.parametrize("name", NAMES)
def test_special_and_added_tokens_and_bos_eos(name):
    tok, ref = ours(name), theirs(name)
    vocab = json.loads(data_file(f"hf/{name}/tokenizer.json").read_text("utf-8"))
    specials = [a["content"] for a in vocab["added_tokens"] if a["special"]][:3]
    plain = [a["content"] for a in vocab["added_tokens"] if not a["special"]][:3]
    text = "Hello " + " and ".join(specials + plain) + " world"
    assert tok.encode(text, mode="bpe", allowed_special="all") == ref.encode(text, add_special_tokens=False).ids
    with pytest.raises(ValueError):
        tok.encode(text, mode="bpe")  # special-token text is refused unless allowed (tiktoken rules)
    plain_text = "Hi there"
    assert tok.encode(plain_text, mode="bpe", add_special_tokens=True) == ref.encode(plain_text).ids
    assert tok.encode(plain_text, mode="bpe") == ref.encode(plain_text, add_special_tokens=False).ids


@pytest.mark.parametrize("name", ["mistral_v0.1", "gemma3", "llama3", "qwen3"])
def test_lbpe_equals_naive_transcription(name):
    tok = ours(name)
    vocab = tok.vocab
    usable = frozenset(k for k, i in vocab.model_tokens.items() if i not in vocab.scaffold)
    sample = "".join(t[:20000] for _, t in mixed_text(20000))
    for line in sample.splitlines():
        for piece in tok.pieces(line):
            units = byte_units(piece.encode()) if vocab.unit == "byte" else list(piece)
            expected = naive_lbpe(units, usable, vocab.max_len)
            got = tok.split_piece(piece, mode="lbpe")
            assert got == [k if vocab.unit == "byte" else k.encode() for k in expected], piece
    text = sample[:50000]
    ids = tok.encode(text, mode="lbpe", allowed_special="all")
    assert tok.decode(ids) == theirs(name).decode(ids, skip_special_tokens=False)


@pytest.mark.parametrize("name", NAMES)
def test_decode_is_strict_when_asked(name):
    """errors="strict" raises exactly when the ids' bytes are not UTF-8; otherwise it decodes as HF."""
    tok, ref = ours(name), theirs(name)
    known = sorted(tok.vocab.id_to_bytes)
    single = [i for i in known if len(tok.vocab.id_to_bytes[i]) == 1]  # a byte alone may be half a character
    raised = check_strict_decode(tok, lambda ids: ref.decode(ids, skip_special_tokens=False), known, single, tries=2000)
    assert raised >= 20


def test_character_level_lbpe_uses_byte_fallback():
    tok = ours("mistral_v0.1")
    text = "Zürich 🦜 𝔘"  # the parrot and the fraktur letter have no token in Mistral v0.1
    ids = tok.encode(text, mode="lbpe")
    fallback = set(tok.vocab.byte_fallback.values())
    assert sum(i in fallback for i in ids) >= 8
    assert tok.decode(ids) == text


# ---- refusals, with small hand-made files ----


def _json(tmp_path, spec: dict):
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def _bpe_spec(**over):
    spec = {
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": None,
        "decoder": {"type": "ByteLevel"},
        "model": {
            "type": "BPE",
            "vocab": {chr(c): i for i, c in enumerate(range(ord("!"), ord("~") + 1))},
            "merges": [],
        },
    }
    from lbpe.decoders import byte_to_char

    spec["model"]["vocab"] = {byte_to_char[b]: b for b in range(256)}
    for key, value in over.items():
        if key.startswith("model_"):
            spec["model"][key[6:]] = value
        else:
            spec[key] = value
    return spec


def test_minimal_byte_level_file_loads(tmp_path):
    tok = lbpe.load(_json(tmp_path, _bpe_spec()))
    assert tok.decode(tok.encode("héllo", mode="lbpe")) == "héllo"


@pytest.mark.parametrize(
    "over, component",
    [
        ({"model_type": "WordPiece"}, "'WordPiece'"),
        ({"model_type": "Unigram"}, "'Unigram'"),
        ({"model_type": "WordLevel"}, "'WordLevel'"),
        ({"model_dropout": 0.1}, "dropout"),
        ({"model_continuing_subword_prefix": "##"}, "continuing_subword_prefix"),
        ({"model_end_of_word_suffix": "</w>"}, "end_of_word_suffix"),
        ({"normalizer": {"type": "BertNormalizer"}}, "normalizer 'BertNormalizer'"),
        ({"normalizer": {"type": "Precompiled", "precompiled_charsmap": ""}}, "normalizer 'Precompiled'"),
        ({"pre_tokenizer": {"type": "Whitespace"}}, "pre-tokenizer 'Whitespace'"),
        ({"pre_tokenizer": {"type": "BertPreTokenizer"}}, "pre-tokenizer 'BertPreTokenizer'"),
        ({"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "\\w+"}, "behavior": "Isolated"}}, "\\w"),
        ({"decoder": {"type": "WordPiece"}}, "decoder 'WordPiece'"),
        ({"post_processor": {"type": "Mystery"}}, "post-processor 'Mystery'"),
        (
            {
                "added_tokens": [
                    {
                        "id": 300,
                        "content": "<x>",
                        "special": False,
                        "single_word": True,
                        "lstrip": False,
                        "rstrip": False,
                        "normalized": False,
                    }
                ]
            },
            "single_word",
        ),
    ],
)
def test_unsupported_components_are_refused_by_name(tmp_path, over, component):
    path = _json(tmp_path, _bpe_spec(**over))
    with pytest.raises(lbpe.VocabFormatError) as info:
        lbpe.load(path)
    assert component in str(info.value) and str(path) in str(info.value)


def test_malformed_files_are_refused(tmp_path):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(b'{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}')
    with pytest.raises(lbpe.VocabFormatError, match="not valid JSON"):
        lbpe.load(path)
    spec = _bpe_spec(model_merges=["q z"])
    spec["model"]["vocab"] = {"q": 0}
    with pytest.raises(lbpe.VocabFormatError, match="needs the token"):
        lbpe.load(_json(tmp_path, spec))


@pytest.mark.parametrize("content", ["ĠĠ", "é"], ids=["spaces", "byte-e9"])
def test_an_added_token_in_the_vocabularys_own_spelling_as_hf(tmp_path, content):
    """A plain added token that is a vocabulary token as the file spells it (byte-level: "ĠĠ" is
    two spaces, "é" the byte 0xE9): HF tokenizers matches that spelling in the text and gives
    the token's id, though the id decodes to other text."""
    from tokenizers import Tokenizer

    data = json.loads(data_file("hf/llama3/tokenizer.json").read_text(encoding="utf-8"))
    token_id = data["model"]["vocab"][content]
    data["added_tokens"].append(
        {"id": token_id, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": False}
    )  # fmt: skip
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    text = f"a{content}b  c é ĠĠ Ã©"
    expected = Tokenizer.from_file(str(path)).encode(text, add_special_tokens=False).ids
    assert expected.count(token_id) >= 2
    assert lbpe.load(path).encode(text, mode="bpe") == expected
