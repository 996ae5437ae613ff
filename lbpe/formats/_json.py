"""Strict JSON for vocabulary files: UTF-8 only, no NaN/Infinity, no repeated keys, bounded
nesting, every failure a :class:`~lbpe.errors.VocabFormatError` naming the file.

>>> load_json(b'{"a": 1}', source="x.json")
{'a': 1}
>>> load_json(b'{"a": 1, "a": 2}', source="x.json")
Traceback (most recent call last):
...
lbpe.errors.VocabFormatError: x.json: the key 'a' appears twice in one JSON object; each key may appear once (remove the repeated entry)
"""  # noqa: E501

from __future__ import annotations

import json
import re
from typing import Any

from lbpe.errors import VocabFormatError

__all__ = ["load_json", "json_type"]


class _Repeated(ValueError):
    pass


class _NotANumber(ValueError):
    pass


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Repeated(key)
            seen.add(key)
    return out


def _constant(name: str) -> Any:
    raise _NotANumber(name)


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type, for messages ("a string", "an array" ...)."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a fractional number"
    names: dict[type, str] = {str: "a string", list: "an array", dict: "an object"}
    return names.get(type(value), "null")


def load_json(data: bytes, *, source: str) -> Any:
    """Parse ``data`` (UTF-8 JSON, an optional byte-order mark is accepted) or raise."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VocabFormatError(
            source, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); save the file as UTF-8 JSON"
        ) from None
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise VocabFormatError(source, "the file is empty; expected a JSON object")
    try:
        return json.loads(text, object_pairs_hook=_unique, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise VocabFormatError(
            source,
            f"not valid JSON: {exc.msg} (column {exc.colno}); is the file complete and really JSON?",
            line=exc.lineno,
        ) from None
    except _Repeated as exc:
        raise VocabFormatError(
            source,
            f"the key {exc.args[0][:60]!r} appears twice in one JSON object; each key may appear once "
            "(remove the repeated entry)",
        ) from None
    except _NotANumber as exc:
        raise VocabFormatError(
            source,
            f"the JSON contains {exc.args[0]}, which is not a JSON number; ids and values must be finite numbers",
        ) from None
    except RecursionError:
        raise VocabFormatError(source, "JSON nested too deeply to be a vocabulary (hundreds of levels)") from None
    except ValueError as exc:
        digits = re.search(r"integer string conversion.* has (\d+) digits", str(exc))  # Python's digit limit
        if digits:
            raise VocabFormatError(
                source,
                f"the JSON holds an integer of {digits[1]} digits, too large to be a token id or any setting; "
                "is the file damaged?",
            ) from None
        raise VocabFormatError(source, f"not a usable JSON file: {exc}") from None
