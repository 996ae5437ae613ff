"""What the generators of checked-in data modules share (``gen_unicode_data.py``,
``gen_script_data.py``): the ``--check``/``--out`` command line, and writing the module or
checking that the file in the tree is what the generator writes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def write_or_check(doc: str, target: Path, render, argv: list[str] | None = None, *, about: str = "") -> int:
    """Parse ``--check`` and ``--out`` (default ``target``), then write ``render()``'s text to the
    file, or with ``--check`` exit 1 when the file differs from it. ``about`` (e.g. the Unicode
    version) goes into each message."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the file instead of writing it")
    parser.add_argument("--out", type=Path, default=target, help="where to write (default: %(default)s)")
    args = parser.parse_args(argv)
    text = render()
    generator = Path(sys.argv[0]).name
    if args.check:
        if args.out.read_text(encoding="utf-8") != text:
            print(f"{args.out} differs from what {generator} writes; run it to regenerate", file=sys.stderr)
            return 1
        print(f"{args.out} is current" + (f" ({about})" if about else ""))
        return 0
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out} ({len(text)} bytes" + (f", {about})" if about else ")"))
    return 0
