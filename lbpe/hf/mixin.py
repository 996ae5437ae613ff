"""The class an LBPE tokenizer is: the model's own transformers class with :class:`_LBPEMixin`
before it, made at run time (:func:`_subclass`), which adds the mode and sends encoding down the
fast or the full path, pickles (by its base, :func:`_rebuild`) and saves a folder that loads back."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any, TypeVar

from lbpe.errors import LbpeError
from lbpe.hf.fast import encode_fast
from lbpe.hf.full import encode_full
from lbpe.hf.saving import record_folder
from lbpe.hf.state import HOME, _State, backend_tokenizer
from lbpe.tokenizer import METHODS, Method, Tokenizer

_T = TypeVar("_T")


def _rebuild(base: type[_T]) -> _T:
    """An empty instance of the LBPE class of ``base`` (pickle fills it in)."""
    cls = _subclass(base)
    return cls.__new__(cls)


_rebuild.__module__ = HOME


def _subclass(base: type[_T]) -> type[_T]:
    """``base`` (the model's own tokenizer class) with the LBPE mode added; an attribute of
    :data:`~lbpe.hf.state.HOME` of its own name, so that pickle (and ``datasets``' fingerprint) name it."""
    if isinstance(base, type) and issubclass(base, _LBPEMixin):
        return base
    name = f"LBPE{base.__name__}"
    home = sys.modules[HOME]
    found = getattr(home, name, None)
    if found is None or found.__mro__[2] is not base:
        found = type(name, (_LBPEMixin, base), {"__module__": HOME, "__qualname__": name, "_lbpe_base": base})
        setattr(home, name, found)
    return found


#: The modes an LBPE tokenizer encodes with: every inference method but BPE-dropout, whose
#: draws would change from call to call (``datasets`` caches and fingerprints would be wrong).
HF_MODES = tuple(m for m in METHODS if m != "dropout")


def _mode_list() -> str:
    return ", ".join(repr(m) for m in HF_MODES)


def _check_mode(mode: object) -> None:
    if mode == "dropout":
        raise LbpeError(
            "LBPETokenizer encodes the same text the same way every time, and BPE-dropout draws afresh "
            "on each call: use lbpe.Tokenizer.encode(text, mode='dropout', dropout=..., seed=...) for "
            f"training-time dropout, or one of {_mode_list()} here"
        )
    if mode not in HF_MODES:
        raise LbpeError(f"mode must be one of {_mode_list()}, not {mode!r}")


class _LBPEMixin:
    """What a wrapped tokenizer adds: the mode, LBPE's encoding, saving a folder that loads back."""

    _lbpe: _State
    _lbpe_base: Any  # the model's own transformers class
    _tokenizer: Any  # the tokenizers.Tokenizer inside (an attribute of the transformers class)

    def __init__(self, *args: Any, lbpe_mode: Method | None = None, **kwargs: Any) -> None:
        """What transformers runs when it makes a tokenizer of this class itself
        (``train_new_from_iterator``, ``type(tok)(...)``, ``type(tok).from_pretrained``):
        the model's class builds its tokenizer, and lbpe's is the pipeline that one runs,
        encoding in ``lbpe_mode`` (a saved folder's config passes its own; else "lbpe").
        :func:`lbpe.hf.LBPETokenizer.from_pretrained` makes its tokenizers without this."""
        super().__init__(*args, **kwargs)
        name = Path(str(getattr(self, "name_or_path", "") or "")).name or "transformers"
        tok = backend_tokenizer(self._tokenizer, source=f"the tokenizer transformers built ({name})", name=name)
        self._lbpe_setup(tok, lbpe_mode or "lbpe", None)

    def _lbpe_setup(self, tok: Tokenizer, mode: Method, source: Path | None) -> None:
        self._lbpe = _State(tok, source)
        self.lbpe_mode = mode

    @property
    def lbpe_mode(self) -> Method:
        """The inference method the tokenizer encodes with; set it to any of :data:`HF_MODES`
        (another value is refused when set)."""
        return self.__dict__.get("lbpe_mode", "bpe")

    @lbpe_mode.setter
    def lbpe_mode(self, mode: Method) -> None:
        _check_mode(mode)
        self.__dict__["lbpe_mode"] = mode  # where pickles and datasets' fingerprints find it

    # ---- encoding ----

    def _models_own(self) -> bool:
        """Whether transformers' own tokenizer encodes: mode "bpe", but for a vocabulary with
        Scaffold-BPE's scaffold tokens, which transformers emits where lbpe splits them back."""
        return self.lbpe_mode == "bpe" and not self._lbpe.tok.vocab.scaffold

    def _encode_plus(self, text, text_pair=None, **options):
        if self._models_own():
            return super()._encode_plus(text, text_pair=text_pair, **options)
        self._check_stride(text_pair, options)
        if options.get("sanitize_control_tokens"):  # a chat template's own path: it calls encode() per part
            return super()._encode_plus(text, text_pair=text_pair, **options)
        fast = encode_fast(self, text, text_pair, options)
        return fast if fast is not None else encode_full(self, text, text_pair, options)

    def _batch_encode_plus(self, batch_text_or_text_pairs, **options):
        # transformers 4.x sends batches here (5.x has _encode_plus alone)
        if self._models_own():
            return super()._batch_encode_plus(batch_text_or_text_pairs, **options)
        batch = list(batch_text_or_text_pairs)
        first = batch[0] if batch else None  # a pair: two texts (two lists of words, split into words)
        paired = isinstance(first, (list, tuple)) and len(first) == 2
        if paired and options.get("is_split_into_words"):
            paired = isinstance(first[0], (list, tuple))
        self._check_stride(True if paired else None, options)
        fast = encode_fast(self, batch, None, options)
        return fast if fast is not None else encode_full(self, batch, None, options, method="_batch_encode_plus")

    def _check_stride(self, text_pair, options: dict) -> None:
        """Refuse a stride of at least the room truncation leaves (``max_length`` less the special
        tokens added), which ``tokenizers`` meets with a Rust panic or transformers refuses."""
        stride, max_length = options.get("stride") or 0, options.get("max_length")
        truncation = getattr(options.get("truncation_strategy"), "value", options.get("truncation_strategy"))
        if not stride or max_length is None or truncation in (None, "do_not_truncate"):
            return
        added = 0
        if options.get("add_special_tokens", True):
            added = self.num_special_tokens_to_add(pair=text_pair is not None)  # type: ignore[attr-defined]
        if stride >= max_length - added:
            raise ValueError(
                f"stride={stride} leaves nothing new in each overflowing part: truncating to max_length={max_length}"
                f" less the {added} special token(s) added leaves {max_length - added}; give a smaller stride"
            )

    def _encode_without_added_tokens(self, text: str) -> list[int]:
        if self._models_own():
            return super()._encode_without_added_tokens(text)  # type: ignore[misc]
        return self._lbpe.tok.encode_ordinary(text, mode=self.lbpe_mode)

    def _add_tokens(self, new_tokens, special_tokens: bool = False) -> int:
        state = self.__dict__.get("_lbpe")  # (none yet while transformers' __init__ adds its tokens)
        if state is not None:
            state.version += 1
        return super()._add_tokens(new_tokens, special_tokens=special_tokens)  # type: ignore[misc]

    def train_new_from_iterator(self, *args: Any, **kwargs: Any) -> Any:
        """transformers' training of a new vocabulary on this tokenizer's pipeline; the new
        tokenizer encodes in this one's mode."""
        new = super().train_new_from_iterator(*args, **kwargs)  # type: ignore[misc]
        new.lbpe_mode = self.lbpe_mode
        return new

    # ---- pickling, saving ----

    def __getstate__(self) -> dict:
        """Picklable (datasets.map, worker processes): lbpe's tokenizer travels whole, the
        paths' caches stay behind."""
        state = dict(self.__dict__)
        lbpe_state = state.pop("_lbpe")
        state["_lbpe_tok"], state["_lbpe_source"] = lbpe_state.tok, lbpe_state.source
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        tok, source = state.pop("_lbpe_tok"), state.pop("_lbpe_source")
        self.__dict__.update(state)
        self._lbpe = _State(tok, source)

    def __reduce_ex__(self, protocol):
        # the class is made at run time (one per model class): rebuild it by its base
        return (_rebuild, (self._lbpe_base,), self.__getstate__())

    def save_pretrained(self, save_directory, *args, **kwargs):
        """The model's own files plus what loads them back as this tokenizer: ``lbpe_tokenizer.py``
        and in ``tokenizer_config.json`` the class, ``auto_map``, the mode and the model's own
        class; a tokenizer built from a SentencePiece model or a rank file also keeps that file
        beside tokenizer.json (lbpe reads it; transformers reads tokenizer.json)."""
        if kwargs.get("push_to_hub"):
            raise LbpeError(
                "save_pretrained(push_to_hub=True) would upload before lbpe writes its files: save to a folder, "
                "then upload the folder (huggingface_hub.upload_folder)"
            )
        if kwargs.get("filename_prefix"):
            raise LbpeError("a filename_prefix hides tokenizer_config.json from AutoTokenizer; save without one")
        if os.path.isfile(save_directory):  # as transformers does: said in its log, nothing written
            logging.getLogger("transformers.tokenization_utils_base").error(
                f"Provided path ({save_directory}) should be a directory, not a file"
            )
            return None
        files = super().save_pretrained(save_directory, *args, **kwargs)
        module = record_folder(
            Path(save_directory),
            mode=self.lbpe_mode,
            base=self._lbpe_base.__name__,
            tok=self._lbpe.tok,
            source=self._lbpe.source,
        )
        return (*files, str(module))
