"""What an LBPE tokenizer's ``save_pretrained`` adds to the model's files: the keys it records in
``tokenizer_config.json`` (read back by ``LBPETokenizer.from_pretrained``) and the module
``lbpe_tokenizer.py`` that ``AutoTokenizer(trust_remote_code=True)`` loads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from lbpe.errors import LbpeError
from lbpe.formats.hf_write import SCAFFOLD_KEY, scaffold_entry
from lbpe.tokenizer import Tokenizer

#: The key in ``tokenizer_config.json`` that records the encoding mode.
MODE_KEY = "lbpe_mode"
#: The key in ``tokenizer_config.json`` naming the vocabulary file lbpe reads beside
#: ``tokenizer.json`` (a SentencePiece model or rank file the tokenizer was built from).
SOURCE_KEY = "lbpe_vocab_file"
#: The key naming that file's pre-tokenizer preset (a rank file's or GPT-2's pair, given with
#: ``pattern=`` or told by the name).
PATTERN_KEY = "lbpe_pattern"
#: The key holding a rank file's special tokens (given with ``special_tokens=`` or told by its name).
SPECIALS_KEY = "lbpe_special_tokens"
#: The key naming the model's own transformers class, which lbpe loads the folder with.
BASE_KEY = "lbpe_base_class"
#: The class name a saved folder gives transformers, and the module that defines it there.
CLASS_NAME = "LBPETokenizer"
MODULE_NAME = "lbpe_tokenizer"
MODULE_SOURCE = '''"""The tokenizer of this folder: the model's own transformers tokenizer encoding with LBPE
(long tokens first). Written by lbpe's save_pretrained; it needs the lbpe package
(python -m pip install "lbpe[hf]"). Load it with
AutoTokenizer.from_pretrained(folder, trust_remote_code=True) or lbpe.hf.LBPETokenizer.from_pretrained(folder)."""

from lbpe.hf import LBPETokenizer

__all__ = ["LBPETokenizer"]
'''


def _files_of(source: Path) -> list[Path]:
    """The files lbpe reads a vocabulary from, given the one it was named by: GPT-2's
    ``encoder.json`` goes with the ``vocab.bpe`` beside it."""
    if source.name in ("encoder.json", "vocab.bpe"):
        return [source.parent / "encoder.json", source.parent / "vocab.bpe"]
    return [source]


def record_folder(folder: Path, *, mode: str, base: str, tok: Tokenizer, source: Path | None) -> Path:
    """Writes into ``folder`` (the model's files saved there) what loads it back as an LBPE
    tokenizer: in ``tokenizer_config.json`` the class, ``auto_map``, the mode and the model's own
    class ``base``; ``source``, the file a tokenizer was built from (a SentencePiece model or a
    rank file), copied beside tokenizer.json; and ``lbpe_tokenizer.py``, whose path it returns.
    A Scaffold-BPE vocabulary's scaffold tokens go back into the tokenizer.json transformers
    wrote (first: a folder without one is refused before anything of lbpe's is written)."""
    if tok.vocab.scaffold:
        _keep_scaffold(folder / "tokenizer.json", tok)
    config = folder / "tokenizer_config.json"
    data = json.loads(config.read_text("utf-8")) if config.is_file() else {}
    data[MODE_KEY] = mode
    data["tokenizer_class"] = CLASS_NAME
    # transformers 5 calls PreTrainedTokenizerFast TokenizersBackend: the name both releases know
    data[BASE_KEY] = "PreTrainedTokenizerFast" if base == "TokenizersBackend" else base
    data["auto_map"] = {"AutoTokenizer": [None, f"{MODULE_NAME}.{CLASS_NAME}"]}
    data.pop(SOURCE_KEY, None)
    data.pop(PATTERN_KEY, None)
    data.pop(SPECIALS_KEY, None)
    data.pop("local_files_only", None)  # what from_pretrained forces, not a setting of the tokenizer
    if source is not None:
        for own in _files_of(source):
            if own.resolve() != (folder / own.name).resolve():
                shutil.copyfile(own, folder / own.name)
        data[SOURCE_KEY] = source.name
        rank_file = source.name.lower().removesuffix(".gz").endswith(".tiktoken")
        if tok.pretokenizer_name and (rank_file or source.name in ("encoder.json", "vocab.bpe")):
            data[PATTERN_KEY] = tok.pretokenizer_name  # given with pattern= or told by the name
        if rank_file:
            data[SPECIALS_KEY] = tok.special_tokens
    config.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    module = folder / f"{MODULE_NAME}.py"
    module.write_text(MODULE_SOURCE, encoding="utf-8")
    return module


def _keep_scaffold(file: Path, tok: Tokenizer) -> None:
    """Put Scaffold-BPE's scaffold tokens back into the ``tokenizer.json`` transformers wrote:
    it writes the file from its own backend, which drops lbpe's keys of the model, and without
    them lbpe would emit the scaffold ids the training data never holds."""
    data = json.loads(file.read_text("utf-8")) if file.is_file() else {}
    model = data.get("model")
    if not isinstance(model, dict) or model.get("type") != "BPE":
        raise LbpeError(
            f"save_pretrained wrote no BPE tokenizer.json in {file.parent}, so this vocabulary's scaffold tokens "
            "could not be kept: save a tokenizer loaded from the tokenizer.json lbpe train wrote"
        )
    model[SCAFFOLD_KEY] = scaffold_entry(tok.vocab)
    file.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
