"""``LBPETokenizer.from_pretrained``: the model's own transformers tokenizer, from a folder, a file
or a bundled vocabulary's name, made an LBPE tokenizer (:mod:`lbpe.hf.mixin`); and what it reads a
folder saved by lbpe with."""

from __future__ import annotations

import contextlib
import gzip
import json
import logging
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lbpe.errors import LbpeError, VocabFormatError
from lbpe.formats.hf_write import tokenizer_json_of
from lbpe.hf.mixin import HF_MODES, _check_mode, _mode_list, _subclass
from lbpe.hf.saving import BASE_KEY, CLASS_NAME, MODE_KEY, PATTERN_KEY, SOURCE_KEY, SPECIALS_KEY
from lbpe.hf.state import HOME, backend_tokenizer
from lbpe.load import detect_format, load
from lbpe.tokenizer import Tokenizer


def _source(path: str | os.PathLike[str]) -> tuple[str, Path]:
    """(format, file) of what ``from_pretrained`` was given, with a readable error."""
    try:
        fmt, file = detect_format(path)
    except VocabFormatError as exc:
        hub = ""
        if isinstance(path, str) and _HUB_ID.fullmatch(path) and not os.path.exists(path):
            hub = (
                f"; lbpe reads local files only, never the Hub: download the tokenizer's files first "
                f"(huggingface-cli download {path} --include 'tokenizer*' --local-dir DIR) and give DIR"
            )
        raise LbpeError(
            f"{exc}{hub}; LBPETokenizer takes a model folder (tokenizer.json, tokenizer.model or a .tiktoken file), "
            "a tokenizer.json, a SentencePiece .model, a .tiktoken file or a bundled vocabulary's name "
            "(lbpe.presets.VOCAB_PRESETS)"
        ) from None
    return fmt, file


#: What a model's name on the Hugging Face Hub looks like (``owner/name``).
_HUB_ID = re.compile(r"[\w.-]+/[\w.-]+")


def _roles(tok: Tokenizer) -> dict[str, str]:
    """transformers' special-token roles for a vocabulary that is not a plain tokenizer.json:
    the model's BOS, EOS and unknown pieces (SentencePiece, LLaMA style), or tiktoken's
    ``<|endoftext|>``."""
    names = {i: t for t, i in tok.vocab.special.items()}
    roles = {}
    for role, ids in (("bos_token", tok.bos), ("eos_token", tok.eos)):
        if ids and ids[0] in names:
            roles[role] = names[ids[0]]
    if tok.vocab.unk is not None and tok.vocab.unk in names:
        roles["unk_token"] = names[tok.vocab.unk]
    for eos in ("</s>", "<|endoftext|>"):
        if "eos_token" not in roles and eos in tok.vocab.special:
            roles["eos_token"] = eos
    return roles


@contextlib.contextmanager
def _quiet(logger: str):
    """``logger``'s warnings held back for the block (transformers 4.x warns that a folder naming
    LBPETokenizer is loaded with the model's own class, which is what lbpe means to do)."""
    log = logging.getLogger(logger)
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def _base_class(name: str):
    """The transformers tokenizer class a saved folder names as the model's own."""
    import transformers

    found = None
    for candidate in (name, f"{name}Fast", name.removesuffix("Fast")):  # 4.x's and 5.x's spellings
        found = found or getattr(transformers, candidate, None)
    if found is None:
        from transformers.models.auto.tokenization_auto import tokenizer_class_from_name

        found = tokenizer_class_from_name(name)
    if found is None:
        raise LbpeError(
            f"tokenizer_config.json names the model's tokenizer class {name!r} ({BASE_KEY}), which this "
            f"transformers {transformers.__version__} does not have; install the transformers the folder was saved with"
        )
    return found


class LBPETokenizer:
    """Builds transformers tokenizers that encode with LBPE (see :mod:`lbpe.hf`). A saved
    folder names this class, so ``AutoTokenizer`` (with ``trust_remote_code=True``) calls its
    :meth:`from_pretrained`."""

    __module__ = HOME  # where a saved folder's module, pickles and datasets' fingerprints find it

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise LbpeError(
            "LBPETokenizer is not built directly: LBPETokenizer.from_pretrained(path, mode='lbpe') makes the "
            "model's own transformers tokenizer encode with LBPE (path: a model folder, a tokenizer.json, "
            "a .model or .tiktoken file, or a bundled vocabulary's name)"
        )

    @classmethod
    def register_for_auto_class(cls, auto_class: str = "AutoTokenizer") -> None:
        """What ``AutoTokenizer`` calls on a class it loads from a folder's module: nothing to
        record here (lbpe's ``save_pretrained`` writes that module itself)."""

    @classmethod
    def from_pretrained(
        cls,
        path: str | os.PathLike[str],
        *inputs: Any,
        mode: str | None = None,
        pattern: str | None = None,
        special_tokens: Mapping[str, int] | None = None,
        **kwargs: Any,
    ):
        """The model's own tokenizer from ``path`` (a folder, a file or a bundled vocabulary's
        name; ``local_files_only`` is forced), encoding in ``mode``: "lbpe", "bpe" (the model's
        own; a Scaffold-BPE vocabulary's, lbpe's) or another deterministic inference method of
        :data:`lbpe.METHODS` (default: the folder's recorded mode, else "lbpe"). ``pattern`` and ``special_tokens``: the
        pre-tokenizer preset and the special tokens of a rank file whose name does not tell them
        (as :func:`lbpe.load`; a saved folder keeps them). Other keyword arguments go to
        transformers (``pad_token=...``, ...)."""
        try:
            import transformers
            from tokenizers import Tokenizer as Backend
        except ImportError:
            raise LbpeError('LBPETokenizer needs transformers: python -m pip install "lbpe[hf]"') from None
        if inputs:
            raise LbpeError(f"LBPETokenizer.from_pretrained takes the path and keyword arguments; got {inputs!r}")
        if mode is not None:
            _check_mode(mode)
        for key in ("trust_remote_code", "_from_auto", "_commit_hash", "revision", "code_revision"):
            kwargs.pop(key, None)  # what AutoTokenizer passes along; a local folder needs none of them
        subfolder = kwargs.pop("subfolder", None) or ""
        if subfolder:  # a tokenizer in a folder of a model's folder, as transformers reads it
            if not (Path(path) / subfolder).is_dir():
                raise LbpeError(f"{path}: no folder named {subfolder!r} in it (subfolder=); is it the model's folder?")
            path = Path(path) / subfolder
        path = _preset_or_path(path)
        fmt, file = _saved(path) or _source(path)
        if special_tokens is not None and fmt != "tiktoken":
            raise LbpeError(
                f"{path}: special_tokens= is for a rank file (.tiktoken), which holds none; this vocabulary "
                "carries its own"
            )
        if pattern is not None and fmt not in ("tiktoken", "gpt2"):
            raise LbpeError(
                f"{path}: pattern= is for a rank file or GPT-2's encoder.json + vocab.bpe; this vocabulary "
                "(a tokenizer.json, a saved folder, a SentencePiece model) carries its own pre-tokenizer"
            )
        kwargs["local_files_only"] = True
        recorded: dict[str, Any] = {}
        source: Path | None = None
        if fmt == "hf":
            folder = file.parent
            config = folder / "tokenizer_config.json"
            if Path(path).is_dir() and config.is_file():
                try:
                    recorded = json.loads(config.read_text("utf-8"))
                except (OSError, ValueError):
                    recorded = {}
            if file.name == "tokenizer.json":
                if recorded.get("tokenizer_class") == CLASS_NAME and recorded.get(BASE_KEY):
                    with _quiet("transformers.tokenization_utils_base"):  # 4.x: "not the same type as the class"
                        hf = _base_class(recorded[BASE_KEY]).from_pretrained(str(folder), **kwargs)
                else:
                    hf = transformers.AutoTokenizer.from_pretrained(str(folder), **kwargs)
            elif file.name.endswith(".gz"):  # a bundled tokenizer.json.gz
                tok = load(file)
                backend = Backend.from_str(gzip.decompress(file.read_bytes()).decode("utf-8"))
                hf = transformers.PreTrainedTokenizerFast(tokenizer_object=backend, **{**_roles(tok), **kwargs})
            else:
                hf = transformers.PreTrainedTokenizerFast(tokenizer_file=str(file), **kwargs)
            named = recorded.get(SOURCE_KEY)  # the file this tokenizer was built from, saved beside it
            if named and (folder / named).is_file():
                source = folder / named
                tok = load(source, pattern=recorded.get(PATTERN_KEY), special_tokens=recorded.get(SPECIALS_KEY))
            elif not file.name.endswith(".gz"):
                tok = _own_tokenizer(file, hf.backend_tokenizer)
        else:  # a rank file, GPT-2's files or a SentencePiece model: the same pipeline as tokenizer.json
            tok = load(file, pattern=pattern, special_tokens=special_tokens)
            backend = Backend.from_str(json.dumps(tokenizer_json_of(tok)))
            hf = transformers.PreTrainedTokenizerFast(tokenizer_object=backend, **{**_roles(tok), **kwargs})
            source = Path(file)
        if not getattr(hf, "is_fast", False):
            raise LbpeError(f"{path}: transformers loaded a slow tokenizer; LBPETokenizer needs the fast one")
        mode = mode or recorded.get(MODE_KEY) or "lbpe"
        if mode not in HF_MODES:
            raise LbpeError(
                f"{path}: tokenizer_config.json records {MODE_KEY}={mode!r}; expected one of {_mode_list()}"
            )
        hf.__class__ = _subclass(type(hf))
        hf._lbpe_setup(tok, mode, source)
        return hf


def _own_tokenizer(file: Path, backend: Any) -> Tokenizer:
    """lbpe's tokenizer of the model's tokenizer.json, with the pipeline transformers runs
    (``backend``'s, where its class builds one of its own). Added tokens with ``lstrip``,
    ``rstrip`` or ``single_word``, or matched in the normalised text (which :func:`lbpe.load`
    refuses), are left to transformers, which matches them before lbpe sees the text, as for
    such a token added in memory."""
    from lbpe.formats._json import load_json
    from lbpe.formats.hf import parse_hf_spec
    from lbpe.load import FORMATS, read_limited

    spec = load_json(read_limited(file, expected=FORMATS["hf"]), source=str(file))
    if _rebuilt(backend, spec):
        return backend_tokenizer(backend, source=str(file), name=file.parent.name or file.stem)
    return parse_hf_spec(spec, source=str(file), name=file.parent.name or file.stem, leave_to_transformers=True)


#: The model's settings that change how a text is encoded, besides its tokens and merges.
_MODEL_SETTINGS = ("unk_token", "byte_fallback", "fuse_unk", "continuing_subword_prefix", "end_of_word_suffix")


def _rebuilt(backend: Any, written: Any) -> bool:
    """Whether transformers runs another pipeline than the file's (``written``, as read): some
    classes build their own (transformers 5's LlamaTokenizer, given Mistral-7B's file, a
    Metaspace pre-tokenizer in place of its Prepend normaliser)."""
    if not isinstance(written, dict):
        return False  # the parser says what is wrong with the file
    for part in ("normalizer", "pre_tokenizer"):
        component = getattr(backend, part)
        if (None if component is None else json.loads(component.__getstate__())) != written.get(part):
            return True
    model = written.get("model")
    model = model if isinstance(model, dict) else {}
    return any(getattr(backend.model, key, None) != model.get(key) for key in _MODEL_SETTINGS)


def _saved(path: str | os.PathLike[str]) -> tuple[str, Path] | None:
    """``("hf", its tokenizer.json)`` for a folder an LBPE tokenizer was saved to, whatever other
    vocabulary files lie beside it (GPT-2's pair is copied there, and would be found first)."""
    folder = Path(path)
    config, file = folder / "tokenizer_config.json", folder / "tokenizer.json"
    if not (folder.is_dir() and config.is_file() and file.is_file()):
        return None
    try:
        recorded = json.loads(config.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return ("hf", file) if isinstance(recorded, dict) and recorded.get("tokenizer_class") == CLASS_NAME else None


def _preset_or_path(path: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """A bundled vocabulary's file for its preset name (a file or folder of that name wins)."""
    from lbpe.presets import VOCAB_PRESETS, preset_path

    if isinstance(path, str) and path in VOCAB_PRESETS and not os.path.exists(path):
        return preset_path(path)
    return path
