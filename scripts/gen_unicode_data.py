#!/usr/bin/env python3
"""Write ``lbpe/_unicode_data.py``: the general category of every code point, pinned.

Pre-tokenisers sort characters into letters, marks, numbers and so on. Taking those classes
from the running interpreter's :mod:`unicodedata` made ids depend on the Python version
(3.11 has Unicode 14.0, 3.13 has 15.1, Pyodide's 3.14 has 16.0). tiktoken and HF tokenizers
split with Unicode 16.0 (measured: strings built from every code point whose category differs
between Unicode 14.0 and 18.0 give tiktoken's and HF's ids with 16.0's tables and with no
other version's), so that is the version lbpe pins.

The data comes from ``unicodedata2==16.0.0`` (a PyPI backport of the Unicode database) or from
a Python whose own ``unicodedata`` is at 16.0 (3.14). It is a development tool: the package
only reads the generated module.

Usage:
    pip install unicodedata2==16.0.0
    python scripts/gen_unicode_data.py           # rewrite lbpe/_unicode_data.py
    python scripts/gen_unicode_data.py --check   # exit 1 if the file is not what this writes
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from generated import write_or_check

UNICODE_VERSION = "16.0.0"
TARGET = Path(__file__).resolve().parent.parent / "lbpe" / "_unicode_data.py"


def database():
    """A Unicode database module at :data:`UNICODE_VERSION`, or exit with the fix."""
    import unicodedata

    if unicodedata.unidata_version == UNICODE_VERSION:
        return unicodedata
    try:
        import unicodedata2
    except ImportError:
        unicodedata2 = None
    if unicodedata2 is not None and unicodedata2.unidata_version == UNICODE_VERSION:
        return unicodedata2
    found = unicodedata2.unidata_version if unicodedata2 is not None else "not installed"
    sys.exit(
        f"need the Unicode {UNICODE_VERSION} database: this Python has {unicodedata.unidata_version} "
        f"and unicodedata2 is {found}; run `pip install unicodedata2=={UNICODE_VERSION}`"
    )


def category_runs(db) -> list[tuple[int, str]]:
    """``(first code point, category)`` for every run of one category over the code space."""
    runs: list[tuple[int, str]] = []
    for cp in range(0x110000):
        cat = db.category(chr(cp))
        if not runs or runs[-1][1] != cat:
            runs.append((cp, cat))
    return runs


def render(runs: list[tuple[int, str]]) -> str:
    body = " ".join(f"{cp:x}:{cat}" for cp, cat in runs)
    lines = textwrap.wrap(body, 96, break_on_hyphens=False)
    return (
        '"""General category of every code point at Unicode %s. Generated; do not edit.\n'
        "\n"
        "Written by ``scripts/gen_unicode_data.py``; read by :mod:`lbpe.unicode`. Each item is\n"
        "``first:category`` for a run of code points, the first in hexadecimal; a run lasts until\n"
        "the next item's first code point (the last until U+10FFFF).\n"
        '"""\n'
        "\n"
        'UNICODE_VERSION = "%s"\n'
        "\n"
        'RUNS = """\n%s\n"""\n'
    ) % (UNICODE_VERSION, UNICODE_VERSION, "\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    return write_or_check(
        __doc__, TARGET, lambda: render(category_runs(database())), argv, about=f"Unicode {UNICODE_VERSION}"
    )


if __name__ == "__main__":
    sys.exit(main())
