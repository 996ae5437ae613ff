"""The pipeline components of an HF ``tokenizer.json`` (normalizer, pre-tokenizer,
post-processor, decoder), each translated into this package's own stage, and the typed field
readers the whole file is read with. A component outside what is supported raises
:class:`_Refused`, which :func:`lbpe.formats.hf.parse_hf_tokenizer` turns into an error naming
the file."""

from __future__ import annotations

import re
from typing import Any

from lbpe import decoders as dec
from lbpe import limits
from lbpe import normalize as norm
from lbpe.formats._json import json_type
from lbpe.pretokenize import splitters as sp
from lbpe.pretokenize.onig import translate_regex
from lbpe.pretokenize.presets import preset_of_hf_regex, sequence_of_hf_splits
from lbpe.user_regex import UserRegex


class _Refused(Exception):
    """Internal: a component outside what is supported (turned into VocabFormatError)."""


# ---- fields ----


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
    if isinstance(splitter, sp.KnownSequence):  # the compiled path knows it as it is
        return splitter
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


#: A Split pattern made of these alone matches printable ASCII alone (U+0021-U+007E), which
#: ByteLevel's byte mapping keeps as it is and gives no other byte: it cuts the mapped text where
#: it cuts the text. Literals, escaped punctuation, classes of those (not negated),
#: quantifiers, alternation and plain groups; never ``.``, ``\s``, ``\w``, ``\p{..}``, POSIX
#: brackets, flags, look-arounds or anchors.
_ESCAPED = r"\\[!-/:-@\[-`{-~]"  # escaped ASCII punctuation (not \d: Oniguruma's is every Nd)
_ASCII_ONLY = re.compile(
    rf"""(?:[A-Za-z0-9!"#%&',/:;<=>@_`~-] | {_ESCAPED}
    | \[ (?:[!-Z_-~]|{_ESCAPED}) (?:[!-Z^-~]|{_ESCAPED})* \]
    | \{{\d+(?:,\d*)?\}}[?+]? | [?*+][?+]? | \| | \((?!\?) | \(\?: | \) )*""",
    re.VERBOSE,
)


def _kept_by_byte_mapping(node: Any) -> bool:
    """Whether a pre-tokenizer step cuts HF's byte-mapped text (after a ByteLevel) where it
    cuts the text itself: a Split of printable ASCII alone."""
    if not isinstance(node, dict) or node.get("type") != "Split" or not isinstance(node.get("pattern"), dict):
        return False
    pattern = node["pattern"]
    if isinstance(pattern.get("String"), str):
        return all("!" <= c <= "~" for c in pattern["String"]) and pattern["String"] != ""
    raw = pattern.get("Regex")
    if not isinstance(raw, str) or _ASCII_ONLY.fullmatch(raw) is None:
        return False
    # HF cuts at every empty match (between the bytes of one character, on the mapped text)
    return re.fullmatch(translate_regex(raw), "") is None


def _steps(node: Any) -> list[Any]:
    """A pre-tokenizer's steps in the order they run, nested sequences flattened."""
    if isinstance(node, dict) and node.get("type") == "Sequence" and isinstance(node.get("pretokenizers"), list):
        return [step for sub in node["pretokenizers"] for step in _steps(sub)]
    return [node]


def _check_after_byte_level(node: Any) -> None:
    """HF runs the steps after a ByteLevel on the byte-mapped text, one character per byte of
    UTF-8, where they may cut inside a character (Falcon's Digits cuts "м", D0 BC, into "Ð" and
    "¼"). lbpe's pieces are text: such a step is refused rather than run on the text."""
    steps = _steps(node)
    kinds = [step.get("type") if isinstance(step, dict) else None for step in steps]
    if "ByteLevel" not in kinds:
        return
    for step, kind in zip(steps[kinds.index("ByteLevel") + 1 :], kinds[kinds.index("ByteLevel") + 1 :]):
        if not _kept_by_byte_mapping(step):
            raise _Refused(
                f"pre-tokenizer {kind!r} after ByteLevel is not supported: HF runs it on the byte-mapped "
                "text (each byte of UTF-8 one character), where it can cut inside a character, and lbpe's "
                "pieces are text, so it cannot give this file's ids. Only a Split of printable ASCII alone "
                "that matches no empty text (such as [0-9]{3}) may follow ByteLevel"
            )


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
        known = sequence_of_hf_splits(node.get("pretokenizers"))
        if known is not None:  # the steps are the pure path; the compiled one splits it itself
            return sp.KnownSequence([s for s in steps if s is not None and not _is_noop(s)], known)
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
            UserRegex(pattern, re.MULTILINE, what="the Replace decoder's pattern", shown=raw)
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
