"""HF ``tokenizer.json`` files whose model is BPE (byte-level or SentencePiece-style), parsed
into a :class:`~lbpe.tokenizer.Tokenizer` by :func:`parse_hf_tokenizer`.

Supported, each translated to this package's own pipeline stages:

* model ``BPE``: ``vocab``; ``merges`` as ``"a b"`` strings or ``["a", "b"]`` pairs;
  ``byte_fallback``; ``unk_token``; ``fuse_unk``; ``ignore_merges``; empty
  ``continuing_subword_prefix``/``end_of_word_suffix``;
* added tokens: special ones become special tokens (tiktoken rules apply), the others are
  matched in the text before anything else, as HF does (one with ``lstrip``, ``rstrip`` or
  ``single_word`` is refused: lbpe does not match those; so is one with ``normalized`` in a
  file with a normaliser, which HF matches in the normalised text);
* normalizers ``NFC``, ``NFD``, ``NFKC``, ``NFKD``, ``Lowercase``, ``Strip``, ``Prepend``,
  ``Replace``, ``Sequence``;
* pre-tokenizers ``ByteLevel``, ``Split`` (String or Regex, every behavior, ``invert``),
  ``Digits``, ``Metaspace``, ``Punctuation``, ``WhitespaceSplit``, ``Sequence``; after a
  ``ByteLevel``, whose byte-mapped text HF runs the later steps on, only a ``Split`` of printable
  ASCII (which the mapping keeps);
* decoders ``ByteLevel``, ``Metaspace``, ``ByteFallback``, ``Fuse``, ``Strip``, ``Replace``,
  ``Sequence``;
* post-processor ``TemplateProcessing`` (its BOS/EOS, used only on request), ``ByteLevel``
  and ``Sequence``.

Everything else (WordPiece, Unigram, WordLevel models; dropout; non-empty subword affixes;
``Whitespace``, ``BertPreTokenizer``, ``Precompiled`` ...) is refused with an error naming the
component and the file: never a silently different encoding.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from lbpe import decoders as dec
from lbpe.errors import LbpeError, VocabFormatError
from lbpe.formats._json import json_type, load_json
from lbpe.formats.hf_components import (
    _check_after_byte_level,
    _decoder,
    _flag,
    _has_byte_level,
    _normalizer,
    _obj,
    _post_processor,
    _pretokenizer,
    _Refused,
    _simplify,
    _str,
)
from lbpe.limits import vocab_problem
from lbpe.pretokenize import splitters as sp
from lbpe.pretokenize.onig import UnsupportedRegex
from lbpe.tokenizer import Tokenizer
from lbpe.vocab import Vocab

__all__ = ["parse_hf_tokenizer"]


#: Key inside ``"model"`` under which lbpe stores Scaffold-BPE data in the tokenizer.json it
#: writes (``tokenizers`` ignores unknown keys there, but refuses them at the top level):
#: ``{"<scaffold id>": [left id, right id], ...}``, see :mod:`lbpe.formats.hf_write`.
SCAFFOLD_KEY = "lbpe_scaffold"


#: How deep the pipeline's components may nest (real files: a Sequence or two). Checked before
#: they are built, so the limit is the same on every Python (3.12 no longer counts the JSON
#: parser's C frames toward the recursion limit that used to stop a deep file).
MAX_COMPONENT_DEPTH = 64


def _component_depth(spec: dict) -> int:
    """The deepest nesting of lists and objects under the pipeline's components (iteratively)."""
    deepest = 0
    stack = [(spec.get(key), 1) for key in ("normalizer", "pre_tokenizer", "post_processor", "decoder")]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = list(node.values())
        if isinstance(node, list):
            deepest = max(deepest, depth)
            if depth <= MAX_COMPONENT_DEPTH:
                stack.extend((child, depth + 1) for child in node)
    return deepest


def parse_hf_tokenizer(data: bytes, *, source: str, name: str = "", leave_to_transformers: bool = False) -> Tokenizer:
    """Parse the bytes of a ``tokenizer.json`` into a :class:`~lbpe.tokenizer.Tokenizer`.

    ``leave_to_transformers``: leave out the added tokens lbpe does not match (``lstrip``,
    ``rstrip``, ``single_word``, or ``normalized`` in a file with a normaliser) instead of
    refusing the file, for a caller that matches those itself before lbpe sees the text
    (transformers, in :class:`lbpe.hf.LBPETokenizer`)."""
    return parse_hf_spec(
        load_json(data, source=source), source=source, name=name, leave_to_transformers=leave_to_transformers
    )


def parse_hf_spec(spec: Any, *, source: str, name: str = "", leave_to_transformers: bool = False) -> Tokenizer:
    """:func:`parse_hf_tokenizer` of a ``tokenizer.json`` already read as JSON."""
    if isinstance(spec, dict) and _component_depth(spec) > MAX_COMPONENT_DEPTH:
        raise VocabFormatError(source, "components nested too deeply (Sequence inside Sequence ...)")
    try:
        return _build(spec, source=source, name=name, leave_to_transformers=leave_to_transformers)
    except _Refused as exc:
        raise VocabFormatError(source, f"{exc} (lbpe reads BPE tokenizer.json files; see lbpe.formats.hf)") from None
    except UnsupportedRegex as exc:
        raise VocabFormatError(source, f"unsupported regular expression: {exc}") from None
    except re.error as exc:
        raise VocabFormatError(source, f"a regular expression in the file does not compile: {exc}") from None
    except RecursionError:
        raise VocabFormatError(source, "components nested too deeply (Sequence inside Sequence ...)") from None
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as exc:
        if isinstance(exc, VocabFormatError):
            raise
        what = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
        raise VocabFormatError(source, f"malformed tokenizer.json ({what[:400]})") from None


def _added_tokens(value: Any) -> list[dict]:
    """``added_tokens``, checked: objects with a non-empty string ``content`` and an id, each
    content and each id once."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f'"added_tokens" must be a JSON array of objects, found {json_type(value)}')
    contents: dict[str, int] = {}
    ids: dict[int, str] = {}
    for n, a in enumerate(value, 1):
        if not isinstance(a, dict):
            raise ValueError(f'added token #{n} is {json_type(a)}; expected an object with "content" and "id"')
        content, i = a.get("content"), a.get("id")
        if not isinstance(content, str) or not content:
            raise ValueError(f"added token #{n} has content {content!r:.40}; expected a non-empty string")
        if type(i) is not int or i < 0:
            raise ValueError(
                f"added token {content[:40]!r} has id {i!r:.40} ({json_type(i)}); ids must be non-negative integers"
            )
        for flag in ("special", "single_word", "lstrip", "rstrip", "normalized"):
            _flag(a, flag, False, f"added token {content[:40]!r}")
        if content in contents:
            raise ValueError(f"added token {content[:40]!r} appears twice (#{contents[content]} and #{n})")
        if i in ids:
            raise ValueError(f"added tokens {ids[i][:40]!r} and {content[:40]!r} have the same id {i}")
        contents[content], ids[i] = n, content
    return value


def _well_formed_merges(
    raw: list[Any], key_by_text: dict[str, bytes], tokens: dict[bytes, int]
) -> dict[tuple[bytes, bytes], int] | None:
    """The merges as (left, right) -> rank when each is two vocabulary entries (``"a b"`` or
    ``["a", "b"]``) whose join is one too and none repeats; else None, and the caller's check of
    one merge at a time names the first bad one. A real file's few hundred thousand merges load
    several times faster this way."""
    get = key_by_text.__getitem__
    parts: Iterator[Any] = (m.split(" ") if type(m) is str else m if type(m) is list else () for m in raw)
    try:
        keys = [(get(a), get(b)) for a, b in parts]
    except (KeyError, TypeError, ValueError):  # an unknown or odd part, or not two parts
        return None
    merges = dict(zip(keys, range(len(keys))))
    if len(merges) != len(keys) or not all(a + b in tokens for a, b in keys):
        return None
    return merges


def _build(spec: Any, *, source: str, name: str, leave_to_transformers: bool) -> Tokenizer:
    spec = _obj(spec, "the top level")
    model = _obj(spec.get("model"), '"model"')
    kind = model.get("type", "BPE" if "merges" in model else None)
    if kind != "BPE":
        raise _Refused(f"model type {kind!r} is not supported (BPE only)")
    if model.get("dropout") not in (None, 0, 0.0):
        raise _Refused("BPE dropout is random; a model with dropout is not supported")
    for affix in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(affix):
            raise _Refused(f"model {affix} {model[affix]!r} is not supported")

    _check_after_byte_level(spec.get("pre_tokenizer"))
    splitter = _simplify(_pretokenizer(spec.get("pre_tokenizer")))
    byte_level = _has_byte_level(spec.get("pre_tokenizer"))
    normalizer = _normalizer(spec.get("normalizer"))
    vocab_json = _obj(model.get("vocab"), '"model.vocab"')
    added = _added_tokens(spec.get("added_tokens"))
    ids = [i for i in vocab_json.values() if type(i) is int] + [a["id"] for a in added]
    problem = vocab_problem(len(vocab_json), max(ids, default=None))
    if problem:
        raise VocabFormatError(source, problem)
    if leave_to_transformers:
        added = [
            a
            for a in added
            if not (a.get("lstrip") or a.get("rstrip") or a.get("single_word"))
            and not (a.get("normalized") and normalizer is not None)
        ]
    special_texts = {a["content"]: a["id"] for a in added if a.get("special")}
    plain_added = {a["content"]: a["id"] for a in added if not a.get("special")}
    for entry in added:
        if entry.get("single_word"):
            raise _Refused(f"added token {entry['content']!r} uses single_word, which is not supported")
        if entry.get("lstrip") or entry.get("rstrip"):
            raise _Refused(f"added token {entry['content']!r} uses lstrip/rstrip, which is not supported")
        if entry.get("normalized") and normalizer is not None:
            raise _Refused(
                f'added token {entry["content"]!r} is matched in the normalized text ("normalized": true), '
                'which is not supported: lbpe matches added tokens in the text as given; set "normalized": false '
                "in the file if that is what is meant"
            )

    def key_of(text: str) -> bytes:
        if not byte_level:
            return text.encode("utf-8")
        try:
            return dec.stand_in_bytes(text)
        except KeyError:
            raise ValueError(f"vocabulary entry {text!r} is not in byte-level (GPT-2 stand-in) spelling") from None

    byte_fallback_on = _flag(model, "byte_fallback", False, "model")
    tokens: dict[bytes, int] = {}
    fallback: dict[int, int] = {}
    id_to_text: dict[int, str] = {}
    key_by_text: dict[str, bytes] = {}  # the merges name these tokens again: spelled out once
    for text, i in vocab_json.items():
        if not isinstance(i, int) or isinstance(i, bool) or i < 0:
            raise ValueError(
                f"vocabulary entry {text[:40]!r} has id {i!r:.40} ({json_type(i)}); ids must be non-negative integers"
            )
        if i in id_to_text:
            raise ValueError(f"id {i} is given to both {id_to_text[i][:40]!r} and {text[:40]!r}")
        id_to_text[i] = text
        if text in special_texts:
            continue  # special tokens are never produced by the model
        m = dec.BYTE_TOKEN.fullmatch(text)
        if byte_fallback_on and not byte_level and m:
            fallback[int(m.group(1), 16)] = i
            continue
        key = key_of(text)
        if key in tokens:
            raise ValueError(f"two vocabulary entries mean the same token {key!r}")
        tokens[key] = i
        key_by_text[text] = key
    for text, i in list(special_texts.items()) + list(plain_added.items()):
        if i in id_to_text and id_to_text[i] != text:
            raise ValueError(f"added token {text!r} has id {i}, which the vocabulary gives to {id_to_text[i]!r}")
        id_to_text.setdefault(i, text)

    raw_merges = model.get("merges") or []
    if not isinstance(raw_merges, list):
        raise ValueError('"model.merges" must be a list')
    key_by_text.pop("", None)  # a merge's parts are never empty
    merges = _well_formed_merges(raw_merges, key_by_text, tokens)
    if merges is None:  # a bad merge somewhere: one at a time, to name the first and what is wrong
        merges = {}
        for rank, merge in enumerate(raw_merges):
            if isinstance(merge, str):
                parts = merge.split(" ")
            elif isinstance(merge, list):
                parts = merge
            else:
                raise ValueError(
                    f"merge #{rank + 1} is {merge!r:.60} ({json_type(merge)}); expected 'a b' or ['a', 'b']"
                )
            if len(parts) != 2 or not all(isinstance(p, str) and p for p in parts):
                raise ValueError(f"merge #{rank + 1} is {merge!r:.60}; expected exactly two non-empty parts")
            a, b = key_of(parts[0]), key_of(parts[1])
            for needed, spelled in ((a, parts[0]), (b, parts[1]), (a + b, parts[0] + parts[1])):
                if needed not in tokens and spelled in special_texts:
                    raise _Refused(
                        f"merge #{rank + 1} {parts[0][:40]!r} + {parts[1][:40]!r} uses {spelled[:40]!r}, which the "
                        "file also makes a special token; lbpe keeps special tokens out of the model's merges "
                        "(they are matched in the text whole), so it cannot read this file"
                    )
                if needed not in tokens:
                    raise ValueError(
                        f"merge #{rank + 1} {parts[0][:40]!r} + {parts[1][:40]!r} needs the token "
                        f"{needed[:60]!r}, which is not in the vocabulary"
                    )
            first = merges.setdefault((a, b), rank)
            if first != rank:
                raise ValueError(
                    f"merge #{rank + 1} {parts[0][:40]!r} + {parts[1][:40]!r} repeats merge #{first + 1}; "
                    "each pair may appear once in model.merges"
                )

    unk_text = model.get("unk_token")
    unk = None
    if unk_text is not None:
        unk_text = _str(model, "unk_token", None, "model")
        if unk_text not in vocab_json:
            raise ValueError(f"unk_token {unk_text!r} is not in the vocabulary")
        unk = vocab_json[unk_text]
    special = {t: i for t, i in special_texts.items()}
    scaffold = {int(k): tuple(v) for k, v in _obj(model.get(SCAFFOLD_KEY) or {}, SCAFFOLD_KEY).items()}
    if byte_level and byte_fallback_on:
        raise _Refused("byte_fallback together with a ByteLevel pre-tokenizer is not supported")
    try:
        vocab = Vocab(
            tokens,
            special=special,
            merges=merges,
            unit="byte" if byte_level else "char",
            name=name,
            byte_fallback=fallback if byte_fallback_on and not byte_level else None,
            unk=unk if (unk is not None and not byte_level) else None,
            whole_piece_first=_flag(model, "ignore_merges", False, "model"),
            scaffold=scaffold or None,
            fuse_unk=_flag(model, "fuse_unk", False, "model"),
        )
    except LbpeError as exc:
        raise ValueError(str(exc)) from None
    if byte_fallback_on and not byte_level and len(fallback) != 256:
        raise ValueError(f"byte_fallback is on but the vocabulary has {len(fallback)} of the 256 <0xNN> tokens")

    bos, eos = _post_processor(spec.get("post_processor"), {**vocab_json, **special_texts, **plain_added})
    decoder = _decoder(spec.get("decoder"))
    # added tokens that are not special: matched in text; those missing from the model vocab
    # still need to decode
    return Tokenizer(
        vocab,
        splitter if splitter is not None else sp.Sequence([]),
        name=name,
        normalizer=normalizer,
        added_tokens=plain_added,
        decoder=dec.Tokens(id_to_text, decoder),
        bos=bos,
        eos=eos,
        pretokenizer_name="tokenizer.json",
    )
