"""HF ``tokenizer.json`` files whose model is BPE (byte-level or SentencePiece-style), parsed
into a :class:`~lbpe.tokenizer.Tokenizer` by :func:`parse_hf_tokenizer`.

Supported, each translated to this package's own pipeline stages:

* model ``BPE``: ``vocab``; ``merges`` as ``"a b"`` strings or ``["a", "b"]`` pairs;
  ``byte_fallback``; ``unk_token``; ``fuse_unk``; ``ignore_merges``; empty
  ``continuing_subword_prefix``/``end_of_word_suffix``;
* added tokens: special ones become special tokens (tiktoken rules apply), the others are
  matched in the text before anything else, as HF does (``lstrip``/``rstrip`` honoured);
* normalizers ``NFC``, ``NFD``, ``NFKC``, ``NFKD``, ``Lowercase``, ``Strip``, ``Prepend``,
  ``Replace``, ``Sequence``;
* pre-tokenizers ``ByteLevel``, ``Split`` (String or Regex, every behavior, ``invert``),
  ``Digits``, ``Metaspace``, ``Punctuation``, ``WhitespaceSplit``, ``Sequence``;
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
from typing import Any

from lbpe import decoders as dec
from lbpe import limits
from lbpe import normalize as norm
from lbpe.errors import LbpeError, VocabFormatError
from lbpe.formats._json import json_type, load_json
from lbpe.limits import vocab_problem
from lbpe.pretokenize import splitters as sp
from lbpe.pretokenize.onig import UnsupportedRegex, translate_regex
from lbpe.pretokenize.presets import preset_of_hf_regex
from lbpe.tokenizer import Tokenizer
from lbpe.user_regex import UserRegex
from lbpe.vocab import Vocab

__all__ = ["parse_hf_tokenizer"]


#: Key inside ``"model"`` under which lbpe stores Scaffold-BPE data in the tokenizer.json it
#: writes (``tokenizers`` ignores unknown keys there, but refuses them at the top level):
#: ``{"<scaffold id>": [left id, right id], ...}``, see :mod:`lbpe.formats.hf_write`.
SCAFFOLD_KEY = "lbpe_scaffold"


class _Refused(Exception):
    """Internal: a component outside what is supported (turned into VocabFormatError)."""


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


def parse_hf_tokenizer(data: bytes, *, source: str, name: str = "") -> Tokenizer:
    """Parse the bytes of a ``tokenizer.json`` into a :class:`~lbpe.tokenizer.Tokenizer`."""
    spec = load_json(data, source=source)
    if isinstance(spec, dict) and _component_depth(spec) > MAX_COMPONENT_DEPTH:
        raise VocabFormatError(source, "components nested too deeply (Sequence inside Sequence ...)")
    try:
        return _build(spec, source=source, name=name)
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


def _obj(value: Any, what: str) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a JSON object, found {json_type(value)}")
    return value


def _flag(node: dict, key: str, default: bool, what: str) -> bool:
    """A boolean field (missing or null: ``default``)."""
    value = node.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ValueError(f'{what} field "{key}" is {json_type(value)} ({value!r:.40}); expected true or false')
    return value


def _str(node: dict, key: str, default: str | None, what: str, *, one_char: bool = False) -> str:
    """A string field (missing or null: ``default``; ``None`` means required)."""
    value = node.get(key)
    if value is None and default is not None:
        return default
    if not isinstance(value, str) or (one_char and len(value) != 1):
        expected = "a single character" if one_char else "a string"
        raise ValueError(f'{what} field "{key}" is {json_type(value)} ({value!r:.40}); expected {expected}')
    return value


def _count(node: dict, key: str, what: str) -> int:
    """A non-negative integer field (missing or null: 0)."""
    value = node.get(key)
    if value is None:
        return 0
    if type(value) is not int or value < 0:
        raise ValueError(f'{what} field "{key}" is {json_type(value)} ({value!r:.40}); expected a count')
    return value


def _list(node: dict, key: str, what: str) -> list:
    value = node.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError(f'{what} field "{key}" is {json_type(value)}; expected an array')
    return value


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


def _build(spec: Any, *, source: str, name: str) -> Tokenizer:
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

    splitter = _simplify(_pretokenizer(spec.get("pre_tokenizer")))
    byte_level = _has_byte_level(spec.get("pre_tokenizer"))
    normalizer = _normalizer(spec.get("normalizer"))
    vocab_json = _obj(model.get("vocab"), '"model.vocab"')
    added = _added_tokens(spec.get("added_tokens"))
    ids = [i for i in vocab_json.values() if type(i) is int] + [a["id"] for a in added]
    problem = vocab_problem(len(vocab_json), max(ids, default=None))
    if problem:
        raise VocabFormatError(source, problem)
    special_texts = {a["content"]: a["id"] for a in added if a.get("special")}
    plain_added = {a["content"]: a["id"] for a in added if not a.get("special")}
    for entry in added:
        if entry.get("single_word"):
            raise _Refused(f"added token {entry['content']!r} uses single_word, which is not supported")
        if entry.get("lstrip") or entry.get("rstrip"):
            raise _Refused(f"added token {entry['content']!r} uses lstrip/rstrip, which is not supported")

    def key_of(text: str) -> bytes:
        if not byte_level:
            return text.encode("utf-8")
        try:
            return bytes(dec.char_to_byte[c] for c in text)
        except KeyError:
            raise ValueError(f"vocabulary entry {text!r} is not in byte-level (GPT-2 stand-in) spelling") from None

    byte_fallback_on = _flag(model, "byte_fallback", False, "model")
    tokens: dict[bytes, int] = {}
    fallback: dict[int, int] = {}
    id_to_text: dict[int, str] = {}
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
    for text, i in list(special_texts.items()) + list(plain_added.items()):
        if i in id_to_text and id_to_text[i] != text:
            raise ValueError(f"added token {text!r} has id {i}, which the vocabulary gives to {id_to_text[i]!r}")
        id_to_text.setdefault(i, text)

    merges: dict[tuple[bytes, bytes], int] = {}
    raw_merges = model.get("merges") or []
    if not isinstance(raw_merges, list):
        raise ValueError('"model.merges" must be a list')
    for rank, merge in enumerate(raw_merges):
        if isinstance(merge, str):
            parts = merge.split(" ")
        elif isinstance(merge, list):
            parts = merge
        else:
            raise ValueError(f"merge #{rank + 1} is {merge!r:.60} ({json_type(merge)}); expected 'a b' or ['a', 'b']")
        if len(parts) != 2 or not all(isinstance(p, str) and p for p in parts):
            raise ValueError(f"merge #{rank + 1} is {merge!r:.60}; expected exactly two non-empty parts")
        a, b = key_of(parts[0]), key_of(parts[1])
        for needed in (a, b, a + b):
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


# ---- normalizers ----


def _normalizer(node: Any) -> norm.Normalizer | None:
    if node is None:
        return None
    node = _obj(node, "normalizer")
    kind = node.get("type")
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return norm.Unicode(kind)
    if kind == "Lowercase":
        return norm.Lowercase()
    if kind == "Strip":
        return norm.Strip(
            left=_flag(node, "strip_left", True, "Strip normalizer"),
            right=_flag(node, "strip_right", True, "Strip normalizer"),
        )
    if kind == "Prepend":
        return norm.Prepend(_str(node, "prepend", None, "Prepend normalizer"))
    if kind == "Replace":
        pattern, is_regex, raw = _pattern(node.get("pattern"))
        return norm.Replace(pattern, _str(node, "content", None, "Replace normalizer"), regex=is_regex, shown=raw)
    if kind == "Sequence":
        found = [_normalizer(n) for n in _list(node, "normalizers", "Sequence normalizer")]
        steps = [s for s in found if s is not None]
        return norm.Sequence(steps) if steps else None
    raise _Refused(f"normalizer {kind!r} is not supported")


def _pattern(node: Any) -> tuple[str, bool, str]:
    """``(pattern, is_regex, as the file spells it)``: a regex is translated for ``re``."""
    node = _obj(node, "pattern")
    if "String" in node:
        text = _str(node, "String", None, "pattern")
        return text, False, text
    if "Regex" in node:
        raw = _str(node, "Regex", None, "pattern")
        limits.check("regex_chars", len(raw), f"the pattern {raw[:40]!r}...")
        return translate_regex(raw), True, raw
    raise ValueError(f"pattern {node!r} has neither String nor Regex")


# ---- pre-tokenizers ----


def _simplify(splitter: sp.Splitter | None) -> sp.Splitter | None:
    """Drop steps that cannot change anything and unwrap one-step sequences, so that the
    common "one regex, then byte mapping" files take the fast ``findall`` path."""
    if isinstance(splitter, sp.Sequence):
        simple = [_simplify(s) for s in splitter.steps]
        steps = [s for s in simple if s is not None and not _is_noop(s)]
        if not steps:
            return None
        return steps[0] if len(steps) == 1 else sp.Sequence(steps)
    return splitter


def _is_noop(splitter: sp.Splitter) -> bool:
    return isinstance(splitter, sp.ByteLevel) and not splitter.add_prefix_space and splitter.regex is None


def _has_byte_level(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    if node.get("type") == "ByteLevel":
        return True
    steps = node.get("pretokenizers")
    return node.get("type") == "Sequence" and isinstance(steps, list) and any(_has_byte_level(n) for n in steps)


def _pretokenizer(node: Any) -> sp.Splitter | None:
    if node is None:
        return None
    node = _obj(node, "pre_tokenizer")
    kind = node.get("type")
    if kind == "ByteLevel":
        return sp.ByteLevel(
            add_prefix_space=_flag(node, "add_prefix_space", True, "ByteLevel pre-tokenizer"),
            use_regex=_flag(node, "use_regex", True, "ByteLevel pre-tokenizer"),
        )
    if kind == "Split":
        raw = _obj(node.get("pattern"), "Split pattern").get("Regex")
        behavior = _str(node, "behavior", "Isolated", "Split pre-tokenizer")
        invert = _flag(node, "invert", False, "Split pre-tokenizer")
        # A Split regex that equals a preset (PretokenizerPreset.hf_spellings) gets its fast pattern.
        preset = preset_of_hf_regex(raw) if isinstance(raw, str) else None
        if preset is not None and (behavior, invert) in (("Isolated", False), ("Removed", True)):
            return sp.Regex(preset.name)
        pattern, is_regex, raw = _pattern(node["pattern"])
        return sp.Split(pattern, behavior, invert=invert, literal=not is_regex, shown=raw)
    if kind == "Digits":
        return sp.Digits(individual_digits=_flag(node, "individual_digits", False, "Digits pre-tokenizer"))
    if kind == "Metaspace":
        what = "Metaspace pre-tokenizer"
        scheme = node.get("prepend_scheme")
        if scheme is None:  # files from before prepend_scheme existed
            scheme = "always" if _flag(node, "add_prefix_space", True, what) else "never"
        return sp.Metaspace(
            replacement=_str(node, "replacement", "\u2581", what, one_char=True),
            prepend_scheme=_str(node, "prepend_scheme", scheme, what),
            split=_flag(node, "split", True, what),
        )
    if kind == "Punctuation":
        return sp.Punctuation(behavior=_str(node, "behavior", "Isolated", "Punctuation pre-tokenizer"))
    if kind == "WhitespaceSplit":
        return sp.WhitespaceSplit()
    if kind == "Sequence":
        steps = [_pretokenizer(n) for n in _list(node, "pretokenizers", "Sequence pre-tokenizer")]
        return sp.Sequence([s for s in steps if s is not None])
    raise _Refused(f"pre-tokenizer {kind!r} is not supported")


# ---- post-processor ----


def _post_processor(node: Any, ids: dict[str, int]) -> tuple[list[int], list[int]]:
    if node is None:
        return [], []
    node = _obj(node, "post_processor")
    kind = node.get("type")
    if kind == "ByteLevel":
        return [], []
    if kind in ("RobertaProcessing", "BertProcessing"):
        return [_special_pair(node, "cls", kind)], [_special_pair(node, "sep", kind)]
    if kind == "Sequence":
        bos: list[int] = []
        eos: list[int] = []
        for sub in _list(node, "processors", "Sequence post-processor"):
            b, e = _post_processor(sub, ids)
            bos += b
            eos += e
        return bos, eos
    if kind == "TemplateProcessing":
        bos, eos, seen_a = [], [], False
        table = _obj(node.get("special_tokens") or {}, "TemplateProcessing special_tokens")
        for item in _list(node, "single", "TemplateProcessing post-processor"):
            item = _obj(item, "a TemplateProcessing item")
            if "Sequence" in item:
                seen_a = True
                continue
            token = _str(_obj(item.get("SpecialToken"), "SpecialToken"), "id", None, "SpecialToken")
            token_ids = _obj(table.get(token) or {}, f"special_tokens[{token!r:.40}]").get("ids")
            if token_ids is not None and not isinstance(token_ids, list):
                raise ValueError(f"the post-processor gives {token!r:.60} the ids {token_ids!r:.60}; expected an array")
            if not token_ids:
                if token not in ids:
                    raise ValueError(f"the post-processor template names {token!r:.60}, which is not in the vocabulary")
                token_ids = [ids[token]]
            if not all(type(i) is int and i >= 0 for i in token_ids):
                raise ValueError(f"the post-processor gives {token!r:.60} the ids {token_ids!r:.60}; expected integers")
            (eos if seen_a else bos).extend(token_ids)
        return bos, eos
    raise _Refused(f"post-processor {kind!r} is not supported")


def _special_pair(node: dict, key: str, kind: str) -> int:
    """The id of ``cls``/``sep`` (``["<s>", 0]``) in Roberta/Bert post-processors."""
    pair = node.get(key)
    if not (isinstance(pair, list) and len(pair) == 2 and type(pair[1]) is int and pair[1] >= 0):
        raise ValueError(f'{kind} field "{key}" is {pair!r:.60}; expected ["token", id]')
    return pair[1]


# ---- decoders ----


def _decoder(node: Any) -> dec.Step | None:
    if node is None:
        return None
    node = _obj(node, "decoder")
    kind = node.get("type")
    if kind == "ByteLevel":
        return dec.ByteLevel()
    if kind == "ByteFallback":
        return dec.ByteFallback()
    if kind == "Fuse":
        return dec.Fuse()
    if kind == "Strip":
        what = "Strip decoder"
        return dec.Strip(_str(node, "content", " ", what), _count(node, "start", what), _count(node, "stop", what))
    if kind == "Replace":
        pattern, is_regex, raw = _pattern(node.get("pattern"))
        regex = (
            UserRegex(pattern, what="the Replace decoder's pattern", shown=raw)
            if is_regex
            else re.compile(re.escape(pattern))
        )
        return dec.Replace(regex, _str(node, "content", None, "Replace decoder"))
    if kind == "Metaspace":
        what = "Metaspace decoder"
        replacement = _str(node, "replacement", "\u2581", what, one_char=True)
        scheme = _str(
            node, "prepend_scheme", "always" if _flag(node, "add_prefix_space", True, what) else "never", what
        )
        return dec.Metaspace(replacement, strip_first=scheme != "never")
    if kind == "Sequence":
        steps = [_decoder(n) for n in _list(node, "decoders", "Sequence decoder")]
        return dec.Sequence([s for s in steps if s is not None])
    raise _Refused(f"decoder {kind!r} is not supported")
