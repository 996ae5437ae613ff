"""lbpe.tokenizer.buffers: the compiled path's id bytes appended to arrays of either width."""

from __future__ import annotations

import struct
from array import array

import numpy

from lbpe.tokenizer import buffers


def test_ids_append_to_arrays_of_four_and_eight_bytes():
    raw = struct.pack("=3i", 1, 70_000, 2**31 - 1)
    for typecode in ("I", "L", "Q"):  # "L" and "Q" are 8 bytes on 64-bit Linux
        out = array(typecode, [7])
        buffers.extend(out, raw)
        assert out.tolist() == [7, 1, 70_000, 2**31 - 1], typecode


def test_as_numpy_is_uint32_whatever_the_arrays_width():
    for typecode in ("I", "Q"):
        got = buffers.as_numpy(array(typecode, [3, 2**31 - 1]))
        assert got.dtype == numpy.uint32 and got.tolist() == [3, 2**31 - 1], typecode
