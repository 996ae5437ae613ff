"""Vocabularies shipped inside the package, by name (:data:`VOCAB_PRESETS`).

These are vocabulary presets; the pre-tokeniser presets (``paper``, ``cl100k_base`` ...) are
:data:`lbpe.pretokenize.PRETOKENIZER_PRESETS`.

>>> sorted(VOCAB_PRESETS)
['cl100k_base', 'gpt2', 'lbpe-32k', 'lbpe-llama-32k', 'mistral-7b', 'o200k_base']
>>> load_preset("gpt2").encode("Hello world", mode="bpe")
[15496, 995]
"""

from __future__ import annotations

import functools
from pathlib import Path

from lbpe.errors import LbpeError
from lbpe.load import load
from lbpe.tokenizer import Tokenizer

__all__ = [
    "VOCAB_PRESETS",
    "DEFAULT_PRESET",
    "MODELS",
    "preset_label",
    "preset_path",
    "load_preset",
    "SAMPLE_CORPUS",
    "sample_corpus",
]

_DATA = Path(__file__).resolve().parent / "data"

#: name -> (file inside lbpe/data, one-line description)
VOCAB_PRESETS: dict[str, tuple[str, str]] = {
    "mistral-7b": (
        "mistral/tokenizer.model.v1.gz",
        "Mistral-7B v0.1's SentencePiece model (default): 32K BPE over characters with byte fallback, the LLaMA "
        "family, the paper's kind of vocabulary (PyPI mistral-common 1.13.1; Apache-2.0, (c) Mistral AI: "
        "LICENSE and NOTICE beside the file)",
    ),
    "lbpe-llama-32k": (
        "llama/tokenizer.json.gz",
        "32K LLaMA-style BPE (SentencePiece's recipe) trained by lbpe on mixed public-domain and MIT/Apache text: "
        "prose, speeches, code, many languages",
    ),
    "lbpe-32k": (
        "default/tokenizer.json",
        "32K character-level BPE trained by lbpe with a GPT-2 style pre-tokeniser (digits split) on "
        "public-domain English",
    ),
    "gpt2": ("openai/r50k_base.tiktoken.gz", "GPT-2 / r50k_base: 50K byte-level tokens"),
    "cl100k_base": ("openai/cl100k_base.tiktoken.gz", "cl100k_base (GPT-3.5/GPT-4): 100K byte-level tokens"),
    "o200k_base": ("openai/o200k_base.tiktoken.gz", "o200k_base (GPT-4o): 200K byte-level tokens"),
}
#: The vocabulary both playgrounds and the CLI open with: a real model's, of the paper's kind
#: (README, "Bundled vocabularies", gives the numbers behind the choice).
DEFAULT_PRESET = "mistral-7b"

#: name -> the models that use the vocabulary (what a person looks for in a picker)
MODELS: dict[str, str] = {
    "mistral-7b": "Mistral-7B v0.1",
    "lbpe-llama-32k": "LLaMA-style, trained here",
    "lbpe-32k": "GPT-2 style, trained here",
    "gpt2": "GPT-2",
    "cl100k_base": "GPT-3.5 / GPT-4",
    "o200k_base": "GPT-4o",
}


def preset_label(name: str) -> str:
    """How pickers show a preset: its models, then its name.

    >>> preset_label("o200k_base"), preset_label("lbpe-32k"), preset_label("mistral-7b")
    ('GPT-4o: o200k_base', 'GPT-2 style, trained here: lbpe-32k', 'Mistral-7B v0.1: mistral-7b')
    """
    return f"{MODELS[name]}: {name}" if name in MODELS else name


def preset_path(name: str) -> Path:
    """The bundled file of a preset."""
    if name not in VOCAB_PRESETS:
        raise LbpeError(f"unknown vocabulary preset {name!r}; choose one of: {', '.join(VOCAB_PRESETS)}")
    return _DATA / VOCAB_PRESETS[name][0]


@functools.cache
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
