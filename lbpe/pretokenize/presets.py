"""The pre-tokeniser presets: one record per preset, in one table that every module reads.

A :class:`PretokenizerPreset` holds everything lbpe knows about one preset: its names, its
pattern for the standard library ``re`` (a template, see below), the Oniguruma regex written
into ``tokenizer.json`` files, the Oniguruma regexes of real files recognised as the preset,
and, for the OpenAI encodings, the special tokens their rank files leave out.
:data:`PRETOKENIZER_PRESETS` is the table; :func:`pretokenizer_preset` looks a name or an alias
up. (The bundled *vocabularies* are another table: :data:`lbpe.presets.VOCAB_PRESETS`.)

Templates are patterns in the ``re`` dialect where ``{L}``, ``{N}``, ``{M}``, ``{Lu_Lt_Lm_Lo_M}``
and ``{Ll_Lm_Lo_M}`` stand for general-category class bodies and ``{WS}`` for Unicode
White_Space (:data:`lbpe.pretokenize.classes.FIELDS`); the pattern text puts each inside
``[...]``, and ``{{m,n}}`` is the interval ``{m,n}``.

>>> pretokenizer_preset("gpt2").name, pretokenizer_preset("gpt2").aliases
('r50k_base', ('gpt2', 'p50k_base'))
>>> openai_encoding("cl100k_base").special_tokens["<|endoftext|>"]
100257
>>> preset_of_hf_regex(pretokenizer_preset("paper").hf_regex).name
'paper'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = [
    "PretokenizerPreset",
    "PRETOKENIZER_PRESETS",
    "pretokenizer_preset",
    "find_pretokenizer_preset",
    "pretokenizer_preset_names",
    "preset_of_hf_regex",
    "openai_encoding",
    "openai_encoding_names",
    "HF_SEQUENCES",
    "DEEPSEEK_V3_CJK",
    "sequence_of_hf_splits",
]


@dataclass(frozen=True)
class PretokenizerPreset:
    """One pre-tokeniser preset.

    * ``name``: the canonical name (what :attr:`lbpe.pretokenize.PresetPattern.name` says);
    * ``template``: the pattern for ``re``, in the template language of this module;
    * ``aliases``: other names accepted for it;
    * ``hf_regex``: the Oniguruma regex lbpe writes into ``tokenizer.json`` for it (``None``:
      lbpe does not write files with this preset);
    * ``hf_spellings``: ``Split`` regexes found in real ``tokenizer.json`` files (Oniguruma
      spelling) that equal the preset exactly, covering every character, so HF's Isolated split
      and the preset's ``findall`` give the same pieces; such files get the preset's fast
      pattern (``tests/parity/test_pretokenize.py`` checks each against the ``regex`` module);
    * ``special_tokens``: for an OpenAI encoding (each of its names names a ``.tiktoken`` rank
      file), the special tokens and ids the rank files leave out; ``None`` otherwise.
    """

    name: str
    template: str
    aliases: tuple[str, ...] = ()
    hf_regex: str | None = None
    hf_spellings: tuple[str, ...] = ()
    special_tokens: Mapping[str, int] | None = field(default=None, hash=False)

    @property
    def names(self) -> tuple[str, ...]:
        """The canonical name, then the aliases."""
        return (self.name, *self.aliases)


def _ci(word: str) -> str:
    """Spell out a case-insensitive literal with explicit classes (simple case folding)."""
    out = []
    for ch in word:
        if ch.isalpha():
            variants = {ch.lower(), ch.upper()}
            if ch.lower() == "s":
                variants.add("\u017f")  # LATIN SMALL LETTER LONG S folds to s
            if ch.lower() == "k":
                variants.add("\u212a")  # KELVIN SIGN folds to k
            out.append("[" + "".join(sorted(variants)) + "]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def _special(tokens: dict[str, int]) -> Mapping[str, int]:
    return MappingProxyType(dict(tokens))


_CONTRACTIONS = "'(?:[sdmt]|ll|ve|re)"
_CONTRACTIONS_CI = "'(?:" + "|".join(_ci(w) for w in ("s", "d", "m", "t", "ll", "ve", "re")) + ")"
_O200K_SUFFIX = "(?:" + "|".join("'" + _ci(w) for w in ("s", "t", "re", "ve", "m", "ll", "d")) + ")?"

# Oniguruma regexes used both as what lbpe writes and as what it recognises in files.
_PAPER_ONIG = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+|\s+\z|\s+(?!\S)|\s"""
_O200K_ONIG = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

_ENDOFTEXT = "<|endoftext|>"
_FIM = {"<|fim_prefix|>": 100258, "<|fim_middle|>": 100259, "<|fim_suffix|>": 100260}

# The Oniguruma regexes lbpe writes are tiktoken's strings with ``$`` -> ``\z`` (Oniguruma's
# ``$`` is end of *line*); ``{1,3}+`` would not be possessive there but a repeated group, so it
# is written ``{1,3}``, which matches the same.
_TABLE = (
    # GPT-2 / r50k_base / p50k_base (tiktoken's r50k_pat_str).
    PretokenizerPreset(
        "r50k_base",
        _CONTRACTIONS + r"| ?[{L}]+| ?[{N}]+| ?[^{WS}{L}{N}]+|[{WS}]+\Z|[{WS}]+(?![^{WS}])|[{WS}]",
        aliases=("gpt2", "p50k_base"),
        hf_regex=r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++\z|\s+(?!\S)|\s""",
        hf_spellings=(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",),
        special_tokens=_special({_ENDOFTEXT: 50256}),
    ),
    PretokenizerPreset(
        "cl100k_base",
        _CONTRACTIONS_CI
        + r"|[^\r\n{L}{N}]?[{L}]+|[{N}]{{1,3}}| ?[^{WS}{L}{N}]+[\r\n]*|[{WS}]+\Z"
        + r"|[{WS}]*[\r\n]|[{WS}]+(?![^{WS}])|[{WS}]",
        hf_regex=(
            r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
            r"""|\s++\z|\s*[\r\n]|\s+(?!\S)|\s"""
        ),
        special_tokens=_special({_ENDOFTEXT: 100257, **_FIM, "<|endofprompt|>": 100276}),
    ),
    PretokenizerPreset(
        "o200k_base",
        r"[^\r\n{L}{N}]?[{Lu_Lt_Lm_Lo_M}]*[{Ll_Lm_Lo_M}]+"
        + _O200K_SUFFIX
        + r"|[^\r\n{L}{N}]?[{Lu_Lt_Lm_Lo_M}]+[{Ll_Lm_Lo_M}]*"
        + _O200K_SUFFIX
        + r"|[{N}]{{1,3}}| ?[^{WS}{L}{N}]+[\r\n/]*|[{WS}]*[\r\n]+|[{WS}]+(?![^{WS}])|[{WS}]+",
        hf_regex=_O200K_ONIG,
        hf_spellings=(_O200K_ONIG,),
        special_tokens=_special({_ENDOFTEXT: 199999, "<|endofprompt|>": 200018}),
    ),
    # Llama 3's tokenizer.json Split pattern (cl100k-like, newline runs kept together).
    PretokenizerPreset(
        "llama3",
        _CONTRACTIONS_CI
        + r"|[^\r\n{L}{N}]?[{L}]+|[{N}]{{1,3}}| ?[^{WS}{L}{N}]+[\r\n]*|[{WS}]*[\r\n]+|[{WS}]+(?![^{WS}])|[{WS}]+",
        hf_spellings=(
            r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"""
            r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
        ),
    ),
    # Qwen 2/2.5/3's: Llama 3's with every digit on its own.
    PretokenizerPreset(
        "qwen2",
        _CONTRACTIONS_CI
        + r"|[^\r\n{L}{N}]?[{L}]+|[{N}]| ?[^{WS}{L}{N}]+[\r\n]*|[{WS}]*[\r\n]+|[{WS}]+(?![^{WS}])|[{WS}]+",
        hf_spellings=(
            r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"""
            r"""| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
        ),
    ),
    # The LBPE paper's setup: GPT-2 style categories kept apart, every digit on its own.
    PretokenizerPreset(
        "paper",
        _CONTRACTIONS + r"| ?[{L}]+|[{N}]| ?[^{WS}{L}{N}]+|[{WS}]+\Z|[{WS}]+(?![^{WS}])|[{WS}]",
        hf_regex=_PAPER_ONIG,
        hf_spellings=(_PAPER_ONIG,),
    ),
)

#: canonical name -> preset, for every pre-tokeniser preset.
PRETOKENIZER_PRESETS: Mapping[str, PretokenizerPreset] = MappingProxyType({p.name: p for p in _TABLE})

_BY_NAME = {n: p for p in _TABLE for n in p.names}
_BY_HF_SPELLING = {s: p for p in _TABLE for s in p.hf_spellings}
if len(_BY_NAME) != sum(len(p.names) for p in _TABLE) or len(_BY_HF_SPELLING) != sum(
    len(p.hf_spellings) for p in _TABLE
):  # pragma: no cover - a mistake in the table above
    raise RuntimeError("two pre-tokeniser presets share a name or an Oniguruma spelling")


def find_pretokenizer_preset(name: object) -> PretokenizerPreset | None:
    """The preset a name or an alias names; ``None`` for anything else."""
    return _BY_NAME.get(name) if isinstance(name, str) else None


def pretokenizer_preset_names() -> list[str]:
    """Every name and alias, sorted (for error messages)."""
    return sorted(_BY_NAME)


def pretokenizer_preset(name: str) -> PretokenizerPreset:
    """The preset a name or an alias names (``ValueError`` for anything else)."""
    preset = _BY_NAME.get(name)
    if preset is None:
        raise ValueError(
            f"unknown pre-tokenizer pattern {name!r}; choose one of: {', '.join(pretokenizer_preset_names())}"
        )
    return preset


def preset_of_hf_regex(regex: str) -> PretokenizerPreset | None:
    """The preset an Oniguruma ``Split`` regex of a ``tokenizer.json`` file equals, if lbpe
    knows that spelling (see :attr:`PretokenizerPreset.hf_spellings`)."""
    return _BY_HF_SPELLING.get(regex)


def openai_encoding(name: str) -> PretokenizerPreset | None:
    """The preset of an OpenAI encoding by its name (``"cl100k_base"``, ``"gpt2"``, ...), with its
    special tokens; ``None`` if ``name`` is no OpenAI encoding."""
    preset = find_pretokenizer_preset(name)
    return preset if preset is not None and preset.special_tokens is not None else None


def openai_encoding_names() -> list[str]:
    """The OpenAI encodings' names, sorted."""
    return sorted(n for p in _TABLE if p.special_tokens is not None for n in p.names)


# ---- Sequences of Split pre-tokenisers -----------------------------------------------------

#: DeepSeek-V3's CJK ranges (its second Split regex) as inclusive code point ranges.
DEEPSEEK_V3_CJK = ((0x3040, 0x309F), (0x30A0, 0x30FF), (0x4E00, 0x9FA5))

#: ``tokenizer.json`` pre-tokenisers that are a Sequence of Isolated Split regexes (Oniguruma
#: spelling, as real files write them), by name. A file's Sequence with exactly these Splits (and
#: at most ByteLevel steps that split nothing) keeps its pure splitter as the reference, and the
#: compiled path splits it itself (``csrc/pretokenize.c``; ``tests/parity/test_deepseek_splitter.py``
#: checks the two against the ``regex`` module on every code point).
HF_SEQUENCES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "deepseek_v3": (
            r"\p{N}{1,3}",
            "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+",
            # \r and \n are the characters themselves in the file, not escapes
            r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^"""
            + "\r\n"
            + r"""\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+["""
            + "\r\n"
            + r"""]*|\s*["""
            + "\r\n"
            + r"""]+|\s+(?!\S)|\s+""",
        ),
    }
)


def _is_split_noop(node: object) -> bool:
    """A ByteLevel pre-tokeniser that splits nothing (no prefix space, no regex)."""
    return (
        isinstance(node, dict)
        and node.get("type") == "ByteLevel"
        and node.get("add_prefix_space") is False
        and node.get("use_regex") is False
    )


def sequence_of_hf_splits(steps: object) -> str | None:
    """The name in :data:`HF_SEQUENCES` of a ``Sequence`` pre-tokeniser's steps (its
    ``pretokenizers`` list as the file has it), or ``None``."""
    if not isinstance(steps, list):
        return None
    regexes = []
    for node in steps:
        if _is_split_noop(node):
            continue
        if not isinstance(node, dict) or node.get("type") != "Split":
            return None
        pattern = node.get("pattern")
        if not isinstance(pattern, dict) or set(pattern) != {"Regex"} or not isinstance(pattern["Regex"], str):
            return None
        if node.get("behavior") != "Isolated" or node.get("invert") not in (False, None):
            return None
        regexes.append(pattern["Regex"])
    found = tuple(regexes)
    return next((name for name, splits in HF_SEQUENCES.items() if splits == found), None)
