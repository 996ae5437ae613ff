#!/usr/bin/env python3
"""Write ``lbpe/_script_data.py``: the Unicode script (``sc``) of every code point.

The LLaMA-style trainer (``lbpe.train(style="llama")``) never merges characters of two
scripts, as SentencePiece's trainer with ``split_by_unicode_script``. The table is taken from
the ``regex`` module's Unicode database (``\\p{Script=...}``); its Unicode version is written
into the module. A development tool: the package only reads the generated module.

Usage:
    python scripts/gen_script_data.py           # rewrite lbpe/_script_data.py
    python scripts/gen_script_data.py --check   # exit 1 if the file is not what this writes
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

from generated import write_or_check

TARGET = Path(__file__).resolve().parent.parent / "lbpe" / "_script_data.py"


def script_runs() -> tuple[list[tuple[int, str]], str]:
    """``(first code point, script name)`` for every run of one script, and regex's version."""
    import regex
    from regex import _regex_core

    names = sorted(set(_regex_core.PROPERTIES["SCRIPT"][1].values()))
    # the long name of each script value (the first spelled out, e.g. LATIN, not LATN)
    long_name: dict[int, str] = {}
    for name, value in _regex_core.PROPERTIES["SCRIPT"][1].items():
        long_name.setdefault(value, name)
    script = [0] * 0x110000
    text = "".join(chr(cp) if not 0xD800 <= cp < 0xE000 else "\0" for cp in range(0x110000))
    for value in names:
        if value == 0:
            continue
        for m in regex.finditer(r"\p{Script=%s}+" % long_name[value], text):
            for cp in range(m.start(), m.end()):
                if not 0xD800 <= cp < 0xE000:
                    script[cp] = value
    runs: list[tuple[int, str]] = []
    for cp, value in enumerate(script):
        name = long_name[value]
        if not runs or runs[-1][1] != name:
            runs.append((cp, name))
    return runs, regex.__version__


def render(runs: list[tuple[int, str]], version: str) -> str:
    names = sorted({name for _, name in runs})
    index = {name: i for i, name in enumerate(names)}
    body = " ".join(f"{cp:x}:{index[name]}" for cp, name in runs)
    lines = textwrap.wrap(body, 96, break_on_hyphens=False)
    return (
        '"""Unicode script of every code point. Generated; do not edit.\n'
        "\n"
        "Written by ``scripts/gen_script_data.py`` from the ``regex`` module %s; read by\n"
        ":mod:`lbpe.unicode`. Each item of ``RUNS`` is ``first:script`` for a run of code points, the\n"
        "first in hexadecimal and the script an index into ``SCRIPTS``; a run lasts until the next\n"
        "item's first code point (the last until U+10FFFF).\n"
        '"""\n'
        "\n"
        "SCRIPTS = %r\n"
        "\n"
        'RUNS = """\n%s\n"""\n'
    ) % (version, tuple(names), "\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    return write_or_check(__doc__, TARGET, lambda: render(*script_runs()), argv)


if __name__ == "__main__":
    sys.exit(main())
