"""Write a vocabulary as an HF ``tokenizer.json`` (the file the ``tokenizers`` library loads).

This module owns the way back to files: :func:`tokenizer_json` (a ``Vocab`` with a pre-tokeniser
preset, or LLaMA style), :func:`tokenizer_json_of` (a loaded ``Tokenizer``, SentencePiece models
included), :func:`write_tokenizer_json` and :func:`write_transformers_config`.

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

import base64
import gzip
import json
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from lbpe.decoders import byte_to_char
from lbpe.errors import LbpeError
from lbpe.model.bpe import bpe_by_rank
from lbpe.pretokenize.presets import PRETOKENIZER_PRESETS, find_pretokenizer_preset
from lbpe.vocab import Vocab

if TYPE_CHECKING:
    from lbpe.normalize import SentencePieceNormalizer
    from lbpe.tokenizer import Tokenizer

__all__ = [
    "hf_regex",
    "SCAFFOLD_KEY",
    "PATTERN_KEY",
    "rank_merges",
    "scaffold_entry",
    "tokenizer_json",
    "tokenizer_json_of",
    "llama_tokenizer_json",
    "to_tokenizer_json",
    "write_tokenizer_json",
]

#: Key in ``"model"`` holding the scaffold map (see the module documentation).
SCAFFOLD_KEY = "lbpe_scaffold"
#: Key in ``"model"`` holding the pre-tokeniser preset name.
PATTERN_KEY = "lbpe_pattern"


def scaffold_entry(vocab: Vocab) -> dict[str, list[int]]:
    """``model["lbpe_scaffold"]`` of ``vocab``: each scaffold token's id, as a decimal string,
    to the ids of its two parts (empty when it has no scaffold tokens)."""
    return {str(i): [a, b] for i, (a, b) in sorted((vocab.scaffold or {}).items())}


def _preset(name: str) -> tuple[str, str]:
    """``(canonical name, Oniguruma regex)`` of a preset lbpe writes (``LbpeError`` for anything else)."""
    preset = find_pretokenizer_preset(name)
    if preset is None or preset.hf_regex is None:
        known = ", ".join(sorted(n for p in PRETOKENIZER_PRESETS.values() if p.hf_regex for n in p.names))
        raise LbpeError(f"no HF regex for the pre-tokenizer {name!r}; choose a preset: {known}")
    return preset.name, preset.hf_regex


def hf_regex(name: str) -> str:
    """The Oniguruma regex of a pre-tokeniser preset name (``LbpeError`` for anything else): its
    :attr:`~lbpe.pretokenize.PretokenizerPreset.hf_regex`."""
    return _preset(name)[1]


class _Below(dict):
    """A rank table seen with only the ranks below ``limit`` (what :func:`bpe_by_rank` asks of it)."""

    __slots__ = ("ranks", "limit")

    def __init__(self, ranks: Mapping[bytes, int], limit: int) -> None:
        self.ranks, self.limit = ranks, limit

    def get(self, key, default=None):
        rank = self.ranks.get(key)
        return rank if rank is not None and rank < self.limit else default


def rank_merges(ranks: Mapping[bytes, int]) -> dict[tuple[bytes, bytes], int]:
    """The merge list that encodes exactly as a rank file does (tiktoken's rule).

    A token of rank ``r`` comes from the two parts that classic BPE leaves when it runs on the
    token's own bytes with only the ranks below ``r``: in any text, the merges inside the span
    the token will cover are the same ones, in the same order. So the pair ``(left, right)``
    with priority ``r``, one per token, replays tiktoken's merges. A token BPE can never build
    (its bytes stop at more than two parts) gets no merge: only a whole piece is that token,
    which ``ignore_merges`` covers, as tiktoken does.

    >>> rank_merges({b"a": 0, b"b": 1, b"ab": 2, b"aab": 3, b"ba": 4})
    {(b'a', b'b'): 2, (b'a', b'ab'): 3, (b'b', b'a'): 4}
    """
    out: dict[tuple[bytes, bytes], int] = {}
    for token, rank in ranks.items():
        if len(token) < 2:
            continue
        parts = bpe_by_rank(token, _Below(ranks, rank))
        if len(parts) == 2:
            out[(parts[0], parts[1])] = rank
    return dict(sorted(out.items(), key=lambda kv: kv[1]))


def tokenizer_json(
    vocab: Vocab, *, pattern: str | None = None, style: str | None = None, bos: str | None = None
) -> dict[str, Any]:
    """The ``tokenizer.json`` content for ``vocab`` and the pre-tokeniser preset ``pattern``,
    or with ``style="llama"`` for a vocabulary trained in that style (:func:`llama_tokenizer_json`;
    no ``pattern``; ``bos``: the special token put before each text, ``<s>`` when left out).
    Left out, each is what :func:`lbpe.train` recorded in ``vocab.trained``
    (else ``"gpt2"`` and ``"paper"``; :func:`lbpe.train.train_from_counts` records no preset),
    so a trained vocabulary is written as it was trained.

    A rank file's vocabulary (no merge list) is written with :func:`rank_merges`."""
    if style is None:
        style = vocab.trained.get("style", "gpt2")
    if style == "gpt2" and pattern is None:
        pattern = vocab.trained.get("pattern")
    if style == "llama":
        if pattern is not None:
            raise LbpeError("style='llama' has no regex pre-tokeniser: leave out pattern (CLI: --pattern)")
        return llama_tokenizer_json(vocab, bos=bos)
    if style != "gpt2":
        raise LbpeError(f"style must be 'gpt2' or 'llama', not {style!r}")
    name, regex = _preset("paper" if pattern is None else pattern)
    merge_list = vocab.merges
    if merge_list is None:
        if vocab.unit != "byte":
            raise LbpeError("a character-level vocabulary needs a merge list to be written as tokenizer.json")
        merge_list = rank_merges(vocab.tokens)
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
    merges = [[spell(a), spell(b)] for (a, b), _ in sorted(merge_list.items(), key=lambda kv: kv[1])]
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
        model[SCAFFOLD_KEY] = scaffold_entry(vocab)
    split = {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False}
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


def _sentencepiece_json(tok: Tokenizer) -> dict[str, Any]:
    """A SentencePiece BPE model (as :func:`lbpe.formats.sentencepiece.parse_sentencepiece_tokenizer`
    reads it) in the form HF uses for LLaMA and Mistral (see :func:`_sentencepiece_form`)."""
    from lbpe.normalize import SentencePieceNormalizer

    vocab, norm = tok.vocab, tok.normalizer
    if not isinstance(norm, SentencePieceNormalizer) or vocab.merges is None:
        raise LbpeError(f"{tok.name or 'this tokenizer'} is not a SentencePiece BPE model")
    return _sentencepiece_form(vocab, norm, bos=tok.bos, added_tokens=tok.added_tokens)


def _sentencepiece_form(
    vocab: Vocab, norm: SentencePieceNormalizer, *, bos: Sequence[int], added_tokens: Mapping[str, int]
) -> dict[str, Any]:
    """``tokenizer.json`` in the form HF uses for LLaMA and Mistral: normalizer ``Prepend("▁")``
    + ``Replace(" ", "▁")`` (after the model's ``Precompiled`` character map and its white-space
    squeeze, when it has them), no pre-tokenizer, a BPE model with ``byte_fallback`` and
    ``fuse_unk``, the merges in rank order, the first special token of ``bos`` added by the
    post-processor, decoder ``Replace("▁", " ")``, ``ByteFallback``, ``Fuse``, ``Strip``."""
    space = norm.space
    steps: list[dict[str, Any]] = []
    if norm.charsmap:
        steps.append({"type": "Precompiled", "precompiled_charsmap": base64.b64encode(norm.charsmap).decode("ascii")})
    if norm.remove_extra_whitespaces:  # SentencePiece's squeeze: spaces at the ends go, runs become one
        steps.append({"type": "Replace", "pattern": {"Regex": "^ +| +$"}, "content": ""})
        steps.append({"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "})
    if norm.add_dummy_prefix:
        steps.append({"type": "Prepend", "prepend": space})
    if space != " ":
        steps.append({"type": "Replace", "pattern": {"String": " "}, "content": space})
    if vocab.merges is None:
        raise LbpeError("a character-level vocabulary needs a merge list to be written as tokenizer.json")
    names = {i: t for t, i in vocab.special.items()}
    entries: dict[str, int] = {t: i for t, i in vocab.special.items()}
    entries.update((f"<0x{b:02X}>", i) for b, i in (vocab.byte_fallback or {}).items())
    entries.update((token.decode("utf-8"), i) for token, i in vocab.tokens.items())
    merges = [
        [a.decode("utf-8"), b.decode("utf-8")] for (a, b), _ in sorted(vocab.merges.items(), key=lambda kv: kv[1])
    ]
    decoders: list[dict[str, Any]] = []
    if space != " ":
        decoders.append({"type": "Replace", "pattern": {"String": space}, "content": " "})
    if vocab.byte_fallback is not None:
        decoders.append({"type": "ByteFallback"})
    decoders.append({"type": "Fuse"})
    if norm.add_dummy_prefix:
        decoders.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    bos_names = [names[i] for i in bos if i in names]
    post = None
    if bos_names:
        first = bos_names[0]
        seq = lambda name, type_id: {"Sequence": {"id": name, "type_id": type_id}}  # noqa: E731
        sp = lambda type_id: {"SpecialToken": {"id": first, "type_id": type_id}}  # noqa: E731
        post = {
            "type": "TemplateProcessing",
            "single": [sp(0), seq("A", 0)],
            "pair": [sp(0), seq("A", 0), sp(1), seq("B", 1)],
            "special_tokens": {first: {"id": first, "ids": [vocab.special[first]], "tokens": [first]}},
        }
    added = [_added(text, i, special=True) for text, i in vocab.special.items()]
    added += [_added(text, i, special=False) for text, i in added_tokens.items()]
    model: dict[str, Any] = {
        "type": "BPE",
        "dropout": None,
        "unk_token": names.get(vocab.unk) if vocab.unk is not None else None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": bool(vocab.fuse_unk),
        "byte_fallback": vocab.byte_fallback is not None,
        "ignore_merges": False,
        "vocab": dict(sorted(entries.items(), key=lambda kv: kv[1])),
        "merges": merges,
    }
    if vocab.scaffold:
        model[SCAFFOLD_KEY] = scaffold_entry(vocab)
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": sorted(added, key=lambda a: a["id"]),
        "normalizer": {"type": "Sequence", "normalizers": steps},
        "pre_tokenizer": None,
        "post_processor": post,
        "decoder": {"type": "Sequence", "decoders": decoders},
        "model": model,
    }


def llama_tokenizer_json(vocab: Vocab, *, bos: str | None = None) -> dict[str, Any]:
    """``tokenizer.json`` for a vocabulary trained with ``lbpe.train(style="llama")``, in the
    form HF uses for LLaMA (:func:`_sentencepiece_form`): a ``▁`` before the text, spaces as
    ``▁``, the whole text one piece (training never makes a token across a point where the
    llama style cuts, so no merge spans one), ``bos`` (a special token; ``<s>`` when left out)
    added before each text."""
    from lbpe.normalize import SentencePieceNormalizer

    if vocab.unit != "char" or vocab.byte_fallback is None:
        raise LbpeError(
            "style='llama' writes character-level vocabularies with byte fallback (lbpe.train(style='llama'))"
        )
    norm = SentencePieceNormalizer(b"", add_dummy_prefix=True, remove_extra_whitespaces=False)
    if bos is not None and bos not in vocab.special:
        raise LbpeError(f"the bos token {bos!r} is not a special token of this vocabulary; give it as one")
    first = bos or "<s>"
    ids = [vocab.special[first]] if first in vocab.special else []
    return _sentencepiece_form(vocab, norm, bos=ids, added_tokens={})


def _added(text: str, i: int, *, special: bool) -> dict[str, Any]:
    return {
        "id": i,
        "content": text,
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": False,
        "special": special,
    }


def tokenizer_json_of(tok: Tokenizer) -> dict[str, Any]:
    """``tokenizer.json`` content that HF ``tokenizers`` encodes with the same ids as ``tok``
    in BPE mode, for what a rank file, GPT-2's files or a SentencePiece BPE model gives
    :func:`lbpe.load`: a byte-level vocabulary with a pre-tokeniser preset (written by
    :func:`tokenizer_json`), or a SentencePiece model (the LLaMA / Mistral form). Anything
    else (a ``tokenizer.json`` already) raises ``LbpeError``."""
    if tok.pretokenizer_name == "sentencepiece":
        return _sentencepiece_json(tok)
    preset = find_pretokenizer_preset(tok.pretokenizer_name)
    if tok.vocab.unit != "byte" or preset is None or preset.hf_regex is None or tok.normalizer is not None:
        raise LbpeError(
            f"{tok.name or 'this tokenizer'} (pre-tokenizer {tok.pretokenizer_name!r}) "
            "cannot be written as tokenizer.json; this works for rank files and GPT-2 files with a preset "
            "pre-tokenizer and for SentencePiece BPE models"
        )
    return tokenizer_json(tok.vocab, pattern=preset.name)


def to_tokenizer_json(
    vocab: Vocab,
    *,
    pattern: str | None = None,
    style: str | None = None,
    indent: int | None = None,
    bos: str | None = None,
) -> str:
    """:func:`tokenizer_json` as JSON text (compact unless ``indent`` is given)."""
    separators = (",", ":") if indent is None else None
    return json.dumps(
        tokenizer_json(vocab, pattern=pattern, style=style, bos=bos),
        ensure_ascii=False,
        indent=indent,
        separators=separators,
    )


def write_tokenizer_json(
    vocab: Vocab,
    path: str | os.PathLike[str],
    *,
    pattern: str | None = None,
    style: str | None = None,
    indent: int | None = None,
    bos: str | None = None,
) -> None:
    """Write ``vocab`` to ``path`` as ``tokenizer.json``; gzip-compressed when the name ends in ``.gz``
    (``pattern``, ``style``, ``bos``: as :func:`tokenizer_json`).

    The file is written to a temporary name first and renamed, so a reader never sees half a file.
    """
    data = to_tokenizer_json(vocab, pattern=pattern, style=style, indent=indent, bos=bos).encode("utf-8")
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
