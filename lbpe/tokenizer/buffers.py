"""Ids in one buffer instead of a list of ints (:meth:`lbpe.Tokenizer.encode_to_array` and
``encode_to_numpy``). The compiled path hands each ordinary chunk's ids over as bytes of 32-bit
ids, so no Python int is made per token; the pure path (and the methods the compiled path leaves
to it) fills the array from its lists."""

from __future__ import annotations

from array import array
from typing import Any

from lbpe.errors import LbpeError

__all__ = ["ID_TYPECODE", "as_numpy", "extend"]

#: array's typecode of an unsigned int of at least 32 bits (``"I"``, 32 bits, wherever a C int is).
ID_TYPECODE = "I" if array("I").itemsize == 4 else "L"


def extend(out: array, ids: bytes) -> None:
    """Append the compiled path's ids (native-endian int32, never negative) to ``out``."""
    if out.itemsize == 4:
        out.frombytes(ids)  # the same bits
    else:
        out.extend(memoryview(ids).cast("i"))


def as_numpy(ids: array) -> Any:
    """``ids`` as a ``numpy.uint32`` array over the same memory (numpy is optional)."""
    try:
        import numpy
    except ImportError:
        raise LbpeError(
            "encode_to_numpy needs numpy: pip install numpy (or use encode_to_array, which needs nothing)"
        ) from None
    return numpy.frombuffer(ids, dtype=numpy.uint32) if ids.itemsize == 4 else numpy.asarray(ids, dtype=numpy.uint32)
