"""Data shipped inside the package: the bundled vocabularies (see :mod:`lbpe.presets`; the
default preset is ``mistral-7b``, in ``mistral/``) and the sample corpus.

``default/tokenizer.json`` (the preset ``lbpe-32k``, lbpe's first default, hence the folder's
name) is a 32K character-level BPE vocabulary trained by
``scripts/train_default_vocab.py`` with the LBPE paper's setup (characters as units with
byte fallback, the ``"paper"`` pre-tokeniser) on public-domain English text; the
``default/training.json`` beside it records the inputs (files, sizes, sha256, source package),
the parameters and the date. It is an HF ``tokenizer.json`` (see
:mod:`lbpe.formats.hf_write`).

>>> default_tokenizer_path().name
'tokenizer.json'
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["default_tokenizer_path", "default_training_record_path"]

_DEFAULT = Path(__file__).resolve().parent / "default"


def default_tokenizer_path() -> Path:
    """Path of the bundled default vocabulary (``tokenizer.json``, or ``tokenizer.json.gz``
    when the training script had to compress it)."""
    for name in ("tokenizer.json", "tokenizer.json.gz"):
        path = _DEFAULT / name
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"the bundled vocabulary is missing from {_DEFAULT}; rebuild it with scripts/train_default_vocab.py"
    )


def default_training_record_path() -> Path:
    """Path of ``training.json``, the record of how the default vocabulary was trained."""
    return _DEFAULT / "training.json"
