"""Tiny valid vocabulary files of every format, built in code, for the malformed-file and fuzz
tests (which break them on purpose). Each ``*_bytes`` function returns the file's bytes."""

from __future__ import annotations

import base64
import json
import struct

from lbpe.decoders import byte_to_char

# a few merges over "a", "b", "c", " " that every format below shares
MERGES = [(b"a", b"b"), (b"ab", b"c"), (b" ", b"a"), (b"b", b"c"), (b" a", b"b")]


def tiktoken_bytes(extra: list[bytes] = ()) -> bytes:
    """A rank file: the 256 bytes, then the merged tokens of :data:`MERGES`, then ``extra`` lines."""
    lines = [base64.b64encode(bytes([b])) + b" %d" % b for b in range(256)]
    lines += [base64.b64encode(a + b) + b" %d" % (256 + k) for k, (a, b) in enumerate(MERGES)]
    return b"\n".join(lines + list(extra)) + b"\n"


def _sym(data: bytes) -> str:
    return "".join(byte_to_char[b] for b in data)


def gpt2_encoder() -> dict[str, int]:
    encoder = {_sym(bytes([b])): b for b in range(256)}
    for k, (a, b) in enumerate(MERGES):
        encoder[_sym(a + b)] = 256 + k
    encoder["<|endoftext|>"] = 256 + len(MERGES)
    return encoder


def gpt2_merges_text(merges=MERGES) -> str:
    return "#version: 0.2\n" + "".join(f"{_sym(a)} {_sym(b)}\n" for a, b in merges)


def hf_spec() -> dict:
    """A byte-level BPE tokenizer.json (GPT-2 style) with one special added token."""
    encoder = gpt2_encoder()
    special = encoder.pop("<|endoftext|>")
    return {
        "version": "1.0",
        "added_tokens": [
            {
                "id": special,
                "content": "<|endoftext|>",
                "single_word": False,
                "lstrip": False,
                "rstrip": False,
                "normalized": False,
                "special": True,
            }
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": encoder,
            "merges": [f"{_sym(a)} {_sym(b)}" for a, b in MERGES],
        },
    }


def hf_char_spec() -> dict:
    """A character-level (SentencePiece-style) tokenizer.json: byte fallback, Metaspace-like
    normaliser and decoder chain, as Llama 2/Mistral files have."""
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    for b in range(256):
        vocab[f"<0x{b:02X}>"] = 3 + b
    for piece in ["\u2581", "a", "b", "c", "ab", "abc", "\u2581a", "\u2581ab"]:
        vocab[piece] = len(vocab)
    added = [
        {
            "id": i,
            "content": t,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for t, i in list(vocab.items())[:3]
    ]
    return {
        "version": "1.0",
        "added_tokens": added,
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Prepend", "prepend": "\u2581"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"},
            ],
        },
        "pre_tokenizer": None,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}},
        },
        "decoder": {
            "type": "Sequence",
            "decoders": [
                {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
                {"type": "ByteFallback"},
                {"type": "Fuse"},
                {"type": "Strip", "content": " ", "start": 1, "stop": 0},
            ],
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": "<unk>",
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": True,
            "byte_fallback": True,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": ["a b", "ab c", "\u2581 a", "\u2581a b"],
        },
    }


def json_bytes(spec: object) -> bytes:
    return json.dumps(spec, ensure_ascii=False).encode("utf-8")


# ---- SentencePiece protobuf, written by hand ----

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6


def varint(n: int) -> bytes:
    n &= (1 << 64) - 1  # negative int32/int64 fields are 10-byte two's complement varints
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number: int, value: int | bytes | float) -> bytes:
    """One protobuf field: int -> varint, bytes -> length-delimited, float -> fixed32."""
    if isinstance(value, float):
        return varint(number << 3 | 5) + struct.pack("<f", value)
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    return varint(number << 3 | 2) + varint(len(value)) + value


def sp_piece(text: str, score: float, kind: int = NORMAL) -> bytes:
    return field(1, field(1, text.encode("utf-8")) + field(2, float(score)) + field(3, kind))


def sp_model_bytes(
    *,
    pieces: list[tuple[str, float, int]] | None = None,
    model_type: int = 2,
    byte_fallback: bool = True,
    trainer_extra: bytes = b"",
    normalizer: bytes | None = None,
) -> bytes:
    """A SentencePiece BPE model: <unk>, <s>, </s>, the 256 byte pieces, a few merges."""
    if pieces is None:
        pieces = [("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL)]
        pieces += [(f"<0x{b:02X}>", 0.0, BYTE) for b in range(256)]
        normal = ["\u2581a", "ab", "\u2581ab", "abc", "bc", "\u2581", "a", "b", "c"]
        pieces += [(t, -float(k), NORMAL) for k, t in enumerate(normal)]
    body = b"".join(sp_piece(*p) for p in pieces)
    trainer = field(3, model_type) + field(35, int(byte_fallback)) + field(40, 0) + field(41, 1) + field(42, 2)
    body += field(2, trainer + trainer_extra)
    if normalizer is None:
        normalizer = field(1, b"identity") + field(3, 1) + field(4, 0) + field(5, 1)
    body += field(3, normalizer)
    return body


def long_run_spec(longest: int) -> dict:
    """:func:`hf_spec`'s byte-level tokenizer.json with the runs ``"a" * k`` for ``k`` from 2 to
    ``longest`` as tokens (ids from 256 on: ``"a" * k`` is ``254 + k``), each merged from the one
    before and ``"a"``: a vocabulary whose tokens are far longer than any real one's."""
    spec = hf_spec()
    encoder = {_sym(bytes([b])): b for b in range(256)}
    for k in range(2, longest + 1):
        encoder["a" * k] = 254 + k
    spec["added_tokens"] = []
    spec["model"]["vocab"] = encoder
    spec["model"]["merges"] = [f"{'a' * (k - 1)} a" for k in range(2, longest + 1)]
    return spec
