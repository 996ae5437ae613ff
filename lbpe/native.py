"""Which path encodes: the compiled fast path (``lbpe._native``) or the pure-Python reference.

``lbpe/_native.c`` is built by ``pip install`` when a C compiler is there; when it cannot be
built (no compiler, Pyodide, another interpreter) installation still succeeds and every
encode runs the pure-Python modules, which are the reference the compiled path is tested
against. The two give the same ids for every input (``tests/parity/test_compiled_vs_pure.py``).

* :func:`backend` says which path is active and why;
* ``LBPE_PURE_PYTHON=1`` in the environment (read at import) forces the pure path;
* :func:`use` switches between them at run time (for comparisons and tests).

>>> backend().name in ("compiled", "pure")
True
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

__all__ = [
    "Backend",
    "Tables",
    "backend",
    "use",
    "ENV_VAR",
    "METHOD_CODES",
    "model_for",
    "built_model",
    "preset_code",
    "splitter_code",
    "split",
]

#: Set to 1 to force the pure-Python path.
ENV_VAR = "LBPE_PURE_PYTHON"


@dataclass(frozen=True)
class Backend:
    """``name``: ``"compiled"`` or ``"pure"``; ``reason``: why that path is the active one;
    ``compiled_available``: whether the extension is importable at all."""

    name: Literal["compiled", "pure"]
    reason: str
    compiled_available: bool


def _import_extension() -> tuple[object | None, str]:
    if os.environ.get(ENV_VAR, "") not in ("", "0"):
        return None, f"{ENV_VAR}={os.environ[ENV_VAR]} is set"
    if sys.platform == "emscripten":
        return None, "Pyodide runs the pure-Python modules (the browser wheel holds no compiled code)"
    try:
        from lbpe import _native
    except ImportError as exc:
        here = os.path.dirname(os.path.abspath(__file__))
        if not any(n.startswith("_native.") and not n.endswith((".c", ".pyi")) for n in os.listdir(here)):
            # only its C source beside the modules
            return None, (
                "the compiled extension lbpe._native is not built here (lbpe runs from its source files); "
                "`python -m pip install lbpe`, or `python -m pip install -e .` in a checkout, builds it with "
                "a C compiler for the fast path"
            )
        return None, (
            f"the compiled extension lbpe._native does not load ({exc}); reinstall with a C compiler "
            "(`python -m pip install -e .`) for the fast path"
        )
    return _native, "lbpe._native is built and loaded"


_extension, _reason = _import_extension()
#: Whether the compiled path is active: read it, never set it (:func:`use` does).
enabled = _extension is not None


def backend() -> Backend:
    """The active encoding path and why (``lbpe.backend()``)."""
    if enabled:
        return Backend("compiled", _reason, True)
    if _extension is not None:
        return Backend("pure", "switched off by lbpe.native.use('pure')", True)
    return Backend("pure", _reason, False)


def use(name: Literal["compiled", "pure"]) -> Backend:
    """Switch the path every tokenizer encodes with; returns the new :func:`backend`.

    ``use("compiled")`` raises :class:`RuntimeError` (saying why) when the extension is not
    available.
    """
    global enabled
    if name == "pure":
        enabled = False
    elif name == "compiled":
        if _extension is None:
            raise RuntimeError(f"the compiled path is not available: {_reason}")
        enabled = True
    else:
        raise ValueError(f"backend must be 'compiled' or 'pure', not {name!r}")
    return backend()


#: The inference methods the compiled model runs, by the codes it takes (``method=``; the order
#: of csrc/core.h's ``M_BPE ...``). BPE-dropout is not among them: it runs in Python.
METHOD_CODES: dict[str, int] = {"bpe": 0, "lbpe": 1, "longest-prefix": 2, "longest-suffix": 3, "least-tokens": 4}


#: Where a vocabulary keeps its compiled tables (in its ``__dict__``, beside its cached properties).
_KEY = "_native_model"


if TYPE_CHECKING:
    #: What the extension's ``Model`` over one vocabulary offers (``lbpe/_native.pyi``).
    from lbpe._native import Model as CompiledModel


class Tables(Protocol):
    """What the compiled model is built from: a vocabulary's tables, read only
    (:class:`lbpe.vocab.Vocab` has them; this module never imports it, which sits above it).
    The built model is kept in the vocabulary's ``__dict__``."""

    __dict__: dict[str, Any]

    @property
    def tokens(self) -> Mapping[bytes, int]: ...
    @property
    def unit(self) -> str: ...
    @property
    def whole_piece_first(self) -> bool: ...
    @property
    def merges(self) -> Mapping[tuple[bytes, bytes], int] | None: ...
    @property
    def scaffold(self) -> Mapping[int, tuple[int, int]]: ...
    @property
    def byte_fallback(self) -> Mapping[int, int] | None: ...
    @property
    def unk(self) -> int | None: ...
    @property
    def fuse_unk(self) -> bool: ...
    @property
    def name(self) -> str: ...


def model_for(vocab: Tables) -> CompiledModel | None:
    """The compiled tables of ``vocab`` (built on first use, kept on the vocabulary), or
    ``None`` when the pure path is active."""
    if not enabled:
        return None
    model = vocab.__dict__.get(_KEY, False)
    if model is False:
        model = _build(vocab)
        vocab.__dict__[_KEY] = model
    return model


def built_model(vocab: Tables) -> CompiledModel | None:
    """The compiled tables of ``vocab`` if they were built already (never builds them)."""
    return vocab.__dict__.get(_KEY) or None


#: The presets the extension splits itself, by the code it knows them by (csrc/pretokenize.c PRESETS).
PRESET_CODES = {"r50k_base": 0, "cl100k_base": 1, "o200k_base": 2, "llama3": 3, "qwen2": 4, "paper": 5}
#: The ``tokenizer.json`` Sequences of pre-tokenisers the extension splits itself
#: (:data:`lbpe.pretokenize.presets.HF_SEQUENCES`), by their codes in the same table.
SEQUENCE_CODES = {"deepseek_v3": 6}
_classes_set = False


def _set_classes() -> None:
    """Give the extension the same code point classes the pure path's patterns are built from."""
    global _classes_set
    from lbpe.pretokenize.classes import field_ranges
    from lbpe.pretokenize.presets import DEEPSEEK_V3_CJK
    from lbpe.unicode import category_ranges

    if not _classes_set:
        _extension.set_classes(  # type: ignore[union-attr]
            *(field_ranges(f) for f in ("L", "N", "Lu_Lt_Lm_Lo_M", "Ll_Lm_Lo_M", "WS")),
            category_ranges("M"),
            category_ranges("P S"),
            DEEPSEEK_V3_CJK,
        )
        _classes_set = True


def preset_code(pattern: object) -> int | None:
    """The extension's code for a compiled preset (:class:`lbpe.pretokenize.PresetPattern`), or
    ``None`` for any other pattern (which the Python side splits)."""
    from lbpe.pretokenize.compiled import PresetPattern

    if _extension is None or not isinstance(pattern, PresetPattern):
        return None
    code = PRESET_CODES.get(pattern.name)
    if code is not None:
        _set_classes()
    return code


def splitter_code(splitter: object) -> int | None:
    """The extension's code for a pre-tokeniser it splits itself: a compiled preset's
    :class:`~lbpe.pretokenize.splitters.Regex`, or a :class:`~lbpe.pretokenize.splitters.KnownSequence`;
    ``None`` for any other (which the Python side splits)."""
    from lbpe.pretokenize.splitters import KnownSequence, Regex

    if isinstance(splitter, Regex):
        return preset_code(splitter.pattern)
    if _extension is None or not isinstance(splitter, KnownSequence):
        return None
    code = SEQUENCE_CODES.get(splitter.name)
    if code is not None:
        _set_classes()
    return code


def split(text: str, name: str) -> list[str]:
    """The compiled pre-tokeniser's pieces of ``text`` for preset ``name`` (equal to
    ``lbpe.pretokenize.split_text(text, name)``), or for a known Sequence of
    :data:`SEQUENCE_CODES` (equal to its pure splitter's); for tests and comparisons."""
    from lbpe.pretokenize.compiled import compile_pattern

    if name in SEQUENCE_CODES:
        code = SEQUENCE_CODES[name] if _extension is not None else None
        if code is not None:
            _set_classes()
    else:
        code = preset_code(compile_pattern(name))
    if code is None:
        raise RuntimeError(f"the compiled path cannot split {name!r}: {backend().reason}")
    return _extension.split(text, code)  # type: ignore[union-attr]


def pieces(text: str, code: int | None) -> list[str] | None:
    """The compiled pre-tokeniser's pieces of ``text`` for the preset with ``code`` (see
    :func:`preset_code`) while the compiled path is on; ``None`` otherwise (the caller splits)."""
    if not enabled or code is None:
        return None
    return _extension.split(text, code)  # type: ignore[union-attr]


def last_starts(text: str, code: int, count: int) -> tuple[int, list[int]]:
    """How many pieces preset ``code`` splits ``text`` into, and where the last ``count`` start."""
    return _extension.last_starts(text, code, count)  # type: ignore[union-attr]


def pack(ids: list[list[int]]) -> bytes:
    """Lists of ids as bytes (int32), for encode_batch's workers; the model's ``unpack`` reads them."""
    return _extension.pack(ids)  # type: ignore[union-attr]


def parse_ranks(data: bytes) -> dict[bytes, int] | None:
    """The tokens of a ``.tiktoken`` rank file read by the compiled path, while it is on;
    ``None`` when it is off or the file is not plainly well formed (a rank beyond four times
    the line count included): :mod:`lbpe.formats.tiktoken` then reads it in Python."""
    if not enabled:
        return None
    return _extension.parse_ranks(data)  # type: ignore[union-attr]


def _build(vocab: Tables) -> CompiledModel | None:
    """The extension's Model over ``vocab``; ``None`` for a vocabulary it cannot represent
    (ids beyond 2**31, a merge whose parts are not tokens), which then stays on the pure path."""
    try:
        return _extension.Model(  # type: ignore[union-attr]
            vocab.tokens,
            char_units=vocab.unit == "char",
            whole_piece_first=vocab.whole_piece_first,
            merges=vocab.merges,
            scaffold=vocab.scaffold,
            byte_fallback=vocab.byte_fallback,
            unk=vocab.unk,
            fuse_unk=vocab.fuse_unk,
            # raises the pure path's error; holds the name only, not the vocabulary (no cycle)
            fallback=functools.partial(_raise_no_token, name=vocab.name),
        )
    except (ValueError, TypeError, OverflowError):
        return None


def _raise_no_token(char: str, *, name: str) -> list[int]:
    from lbpe.errors import no_token_error

    raise no_token_error(char, name)
