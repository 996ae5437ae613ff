"""Vocabularies shipped inside the package, by name (:data:`VOCAB_PRESETS`).

These are vocabulary presets; the pre-tokeniser presets (``paper``, ``cl100k_base`` ...) are
:data:`lbpe.pretokenize.PRETOKENIZER_PRESETS`.

>>> sorted(VOCAB_PRESETS)
['cl100k_base', 'gpt2', 'lbpe-32k', 'o200k_base']
>>> load_preset("gpt2").encode("Hello world", mode="bpe")
[15496, 995]
"""

from __future__ import annotations

import functools
from pathlib import Path

from lbpe.errors import LbpeError
from lbpe.load import load
from lbpe.tokenizer import Tokenizer

__all__ = ["VOCAB_PRESETS", "DEFAULT_PRESET", "MODELS", "preset_label", "preset_path", "load_preset", "SAMPLE_CORPUS",
           "sample_corpus"]

_DATA = Path(__file__).resolve().parent / "data"

#: name -> (file inside lbpe/data, one-line description)
VOCAB_PRESETS: dict[str, tuple[str, str]] = {
    "lbpe-32k": (
        "default/tokenizer.json",
        "32K character-level BPE trained by lbpe with the paper's setup on public-domain English (default)",
    ),
    "gpt2": ("openai/r50k_base.tiktoken.gz", "GPT-2 / r50k_base: 50K byte-level tokens"),
    "cl100k_base": ("openai/cl100k_base.tiktoken.gz", "cl100k_base (GPT-3.5/GPT-4): 100K byte-level tokens"),
    "o200k_base": ("openai/o200k_base.tiktoken.gz", "o200k_base (GPT-4o): 200K byte-level tokens"),
}
DEFAULT_PRESET = "lbpe-32k"

#: name -> the models that use the vocabulary (what a person looks for in a picker)
MODELS: dict[str, str] = {
    "lbpe-32k": "the paper's setup, trained here",
    "gpt2": "GPT-2",
    "cl100k_base": "GPT-3.5 / GPT-4",
    "o200k_base": "GPT-4o",
}


def preset_label(name: str) -> str:
    """How pickers show a preset: its models, then its name.

    >>> preset_label("o200k_base"), preset_label("lbpe-32k")
    ('GPT-4o: o200k_base', "lbpe-32k (the paper's setup, trained here)")
    """
    if name == DEFAULT_PRESET:
        return f"{name} ({MODELS[name]})"
    return f"{MODELS[name]}: {name}" if name in MODELS else name


def preset_path(name: str) -> Path:
    """The bundled file of a preset."""
    if name not in VOCAB_PRESETS:
        raise LbpeError(f"unknown vocabulary preset {name!r}; choose one of: {', '.join(VOCAB_PRESETS)}")
    return _DATA / VOCAB_PRESETS[name][0]


@functools.lru_cache(maxsize=None)
def load_preset(name: str = DEFAULT_PRESET) -> Tokenizer:
    """Load a bundled vocabulary (cached: the same Tokenizer object for the same name)."""
    path = preset_path(name)
    if not path.is_file():
        raise LbpeError(
            f"the bundled vocabulary {name!r} is not in this installation ({path} is missing): the browser "
            f"page's wheel leaves vocabularies out. Install lbpe itself (pip install lbpe), or load a file with "
            f"--vocab FILE / lbpe.load(FILE)"
        )
    tok = load(path)
    tok.name = name
    return tok


#: The bundled sample corpus (scripts/build_sample_corpus.py): 1.5 MB of prose, speeches, code
#: and many languages, for the playground's Corpus view; ``corpus.json`` beside it holds the
#: recipe, the inputs' hashes and licences.
SAMPLE_CORPUS = _DATA / "sample" / "corpus.txt.gz"


def sample_corpus() -> bytes:
    """The sample corpus's UTF-8 bytes."""
    import gzip

    if not SAMPLE_CORPUS.is_file():
        raise LbpeError(f"the sample corpus is not in this installation ({SAMPLE_CORPUS} is missing)")
    return gzip.decompress(SAMPLE_CORPUS.read_bytes())
