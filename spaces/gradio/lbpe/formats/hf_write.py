"""Write a vocabulary as an HF ``tokenizer.json`` (the file the ``tokenizers`` library loads).

lbpe's own keys, inside ``"model"`` (``tokenizers`` 0.23 refuses unknown top-level keys but
ignores unknown keys of a BPE model; it drops them when it saves the file again):

* ``model["lbpe_scaffold"]``: Scaffold-BPE's scaffold tokens, an object mapping each scaffold
  token's id, as a decimal string, to the ids of the two tokens it was merged from::

      "lbpe_scaffold": {"31985": [310, 7125], "31986": [285, 2210]}

  (the shape of :attr:`lbpe.vocab.Vocab.scaffold`). Written only when there are scaffold
  tokens. ``tokenizers`` itself knows nothing of them: it emits scaffold ids where lbpe's
  classic BPE splits them back (:meth:`lbpe.vocab.Vocab.expand_scaffold` of its ids gives
  lbpe's ids).
* ``model["lbpe_pattern"]``: the name of the pre-tokeniser preset the file was written for
  (``"paper"``, ``"r50k_base"``, ...), for information; the ``Split`` pre-tokenizer carries
  the pattern itself.

What is written:

* ``unit="char"`` (SentencePiece/LLaMA style, with byte fallback): model ``BPE`` with the
  vocabulary (token text -> id, the ``<0xNN>`` byte-fallback tokens included), the merges as
  ``["a", "b"]`` pairs in rank order, ``byte_fallback: true``, ``fuse_unk: false``,
  ``ignore_merges`` (``Vocab.whole_piece_first``); pre-tokenizer ``Split`` (the preset's
  regex, behavior ``Isolated``); decoder ``Sequence[ByteFallback, Fuse]``; no normalizer.
* ``unit="byte"`` (GPT-2 style): the same model, tokens and merges spelled with GPT-2's byte
  stand-ins (:mod:`lbpe.formats.gpt2`); pre-tokenizer ``Sequence[Split, ByteLevel]`` with
  ``ByteLevel(add_prefix_space=false, use_regex=false)``; decoder ``ByteLevel``.
* special tokens as ``added_tokens`` with ``special: true`` (and in the model vocabulary, as
  HF's trainers do).

The regexes are the presets in the dialect of HF's regex engine (Oniguruma): ``\\p{L}``,
``\\p{N}``, ``\\s`` and ``\\z`` (end of text; Oniguruma's ``$`` is end of *line*). ``tokenizers``
0.23.3 splits text exactly as :mod:`lbpe.pretokenize` does on every code point: both use Unicode
16.0's categories (lbpe's pinned in :mod:`lbpe.unicode`), and neither counts U+001C..U+001F as
white space.

>>> from lbpe.train import train
>>> text = to_tokenizer_json(train("hug hugs", vocab_size=256 + 5 + 1), pattern="paper")
>>> import json; json.loads(text)["model"]["merges"]
[['h', 'u']]
"""

from __future__ import annotations

import gzip
import json
import os
from typing import Any

from lbpe.errors import LbpeError
from lbpe.formats.gpt2 import byte_to_char
from lbpe.pretokenize import PATTERN_ALIASES
from lbpe.vocab import Vocab

__all__ = ["HF_REGEX", "hf_regex", "SCAFFOLD_KEY", "PATTERN_KEY", "tokenizer_json", "to_tokenizer_json", "write_tokenizer_json"]

#: Key in ``"model"`` holding the scaffold map (see the module documentation).
SCAFFOLD_KEY = "lbpe_scaffold"
#: Key in ``"model"`` holding the pre-tokeniser preset name.
PATTERN_KEY = "lbpe_pattern"

#: Each preset of :mod:`lbpe.pretokenize` in Oniguruma's dialect, as HF ``tokenizers`` runs it
#: (tiktoken's strings with ``$`` -> ``\z``; ``{1,3}+`` would not be possessive there but a
#: repeated group, so it is written ``{1,3}``, which matches the same).
HF_REGEX: dict[str, str] = {
    "paper": r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+|\s+\z|\s+(?!\S)|\s""",
    "r50k_base": r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++\z|\s+(?!\S)|\s""",
    "cl100k_base": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
        r"""|\s++\z|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
    "o200k_base": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
}


def _preset(pattern: str) -> str:
    name = PATTERN_ALIASES.get(pattern, pattern) if isinstance(pattern, str) else None
    if name not in HF_REGEX:
        known = ", ".join(sorted(set(HF_REGEX) | set(PATTERN_ALIASES)))
        raise LbpeError(f"no HF regex for the pre-tokenizer {pattern!r}; choose a preset: {known}")
    return name


def hf_regex(pattern: str) -> str:
    """The Oniguruma regex of a preset name (``LbpeError`` for anything else)."""
    return HF_REGEX[_preset(pattern)]


def tokenizer_json(vocab: Vocab, *, pattern: str = "paper") -> dict[str, Any]:
    """The ``tokenizer.json`` content for ``vocab`` and the pre-tokeniser preset ``pattern``."""
    name = _preset(pattern)
    if vocab.merges is None:
        raise LbpeError("only merge-list vocabularies (such as lbpe.train's) can be written as tokenizer.json")
    if vocab.unit == "char":
        spell = lambda token: token.decode("utf-8")  # noqa: E731
    else:
        spell = lambda token: "".join(byte_to_char[b] for b in token)  # noqa: E731
    entries: dict[str, int] = {}

    def add(text: str, i: int, what: str) -> None:
        if text in entries:
            raise LbpeError(f"{what} {text!r} (id {i}) has the same text as id {entries[text]} in tokenizer.json")
        entries[text] = i

    for text, i in vocab.special.items():
        add(text, i, "special token")
    for b, i in (vocab.byte_fallback or {}).items():
        add(f"<0x{b:02X}>", i, "byte-fallback token")
    for token, i in vocab.tokens.items():
        add(spell(token), i, "token")
    merges = [[spell(a), spell(b)] for (a, b), _ in sorted(vocab.merges.items(), key=lambda kv: kv[1])]
    model: dict[str, Any] = {
        "type": "BPE",
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": bool(getattr(vocab, "fuse_unk", False)),
        "byte_fallback": vocab.byte_fallback is not None,
        "ignore_merges": bool(vocab.whole_piece_first),
        "vocab": dict(sorted(entries.items(), key=lambda kv: kv[1])),
        "merges": merges,
        PATTERN_KEY: name,
    }
    if vocab.scaffold:
        model[SCAFFOLD_KEY] = {str(i): [a, b] for i, (a, b) in sorted(vocab.scaffold.items())}
    split = {"type": "Split", "pattern": {"Regex": HF_REGEX[name]}, "behavior": "Isolated", "invert": False}
    if vocab.unit == "char":
        pre_tokenizer: dict[str, Any] = split
        decoder: dict[str, Any] = {"type": "Sequence", "decoders": [{"type": "ByteFallback"}, {"type": "Fuse"}]}
    else:
        byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
        pre_tokenizer = {"type": "Sequence", "pretokenizers": [split, byte_level]}
        decoder = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
    added = [
        {
            "id": i,
            "content": text,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }
        for text, i in sorted(vocab.special.items(), key=lambda kv: kv[1])
    ]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": decoder,
        "model": model,
    }


def to_tokenizer_json(vocab: Vocab, *, pattern: str = "paper", indent: int | None = None) -> str:
    """:func:`tokenizer_json` as JSON text (compact unless ``indent`` is given)."""
    separators = (",", ":") if indent is None else None
    return json.dumps(tokenizer_json(vocab, pattern=pattern), ensure_ascii=False, indent=indent, separators=separators)


def write_tokenizer_json(
    vocab: Vocab, path: str | os.PathLike[str], *, pattern: str = "paper", indent: int | None = None
) -> None:
    """Write ``vocab`` to ``path`` as ``tokenizer.json``; gzip-compressed when the name ends in ``.gz``.

    The file is written to a temporary name first and renamed, so a reader never sees half a file.
    """
    data = to_tokenizer_json(vocab, pattern=pattern, indent=indent).encode("utf-8")
    path = os.fspath(path)
    if path.endswith(".gz"):
        data = gzip.compress(data, compresslevel=9, mtime=0)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise LbpeError(f"{path}: cannot be written ({exc.strerror})") from None


#: Roles of special tokens that transformers' tokenizers know by name.
SPECIAL_ROLES = ("bos", "eos", "pad", "unk")


def write_transformers_config(folder: str | os.PathLike[str], roles: dict[str, str]) -> list[str]:
    """Write ``tokenizer_config.json`` and ``special_tokens_map.json`` into ``folder`` (beside
    its ``tokenizer.json``) so that ``transformers.AutoTokenizer.from_pretrained(folder)``
    loads it with these special tokens (``roles``: ``{"eos": "<|endoftext|>", ...}``).
    Returns the names written."""
    unknown = sorted(set(roles) - set(SPECIAL_ROLES))
    if unknown:
        raise LbpeError(f"unknown special-token role(s) {unknown}; known: {', '.join(SPECIAL_ROLES)}")
    tokens = {f"{role}_token": token for role, token in roles.items()}
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "clean_up_tokenization_spaces": False,
        **tokens,
    }
    written = []
    for name, data in (("tokenizer_config.json", config), ("special_tokens_map.json", tokens)):
        path = os.path.join(os.fspath(folder), name)
        tmp = f"{path}.tmp{os.getpid()}"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=2, ensure_ascii=False)
                f.write("\n")
            os.replace(tmp, path)
        except OSError as exc:
            raise LbpeError(f"{path}: cannot be written ({exc.strerror})") from None
        written.append(name)
    return written
