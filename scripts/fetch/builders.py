"""What a builder is: the members it wants from each archive, and how it turns them into a file.

A builder names, per source archive, which members it wants (a predicate on the member name)
and turns those members into the output bytes.  Selection depends only on the pinned archive's
contents, so the result is deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .archives import Files, Inputs
from .cache import FetchError
from .manifest import Item, Source


@dataclass(frozen=True)
class Builder:
    wants: dict[Source, Callable[[str], bool]]
    make: Callable[[Inputs], bytes]


def utf8(data: bytes) -> str:
    return data.decode("utf-8")


def need(files: Files, name: str) -> bytes:
    try:
        return files[name]
    except KeyError:
        raise FetchError(f"member {name!r} not found in archive") from None


def copy_builder(item: Item) -> Builder:
    assert item.member is not None
    member, source = item.member, item.source
    return Builder({source: member.__eq__}, lambda inp: need(inp[source], member))
