"""What the generators of checked-in files share: the ``--check``/``--out`` command line of the
data modules (``gen_unicode_data.py``, ``gen_script_data.py``, ...), writing the module or
checking that the file in the tree is what the generator writes, reading the npm packages of
the Unicode Character Database with Node, and gzip bytes that are the same on
every Python (the bundled vocabularies and the sample corpus)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
import zlib
from collections.abc import Iterable
from pathlib import Path

#: The npm packages of the Unicode Character Database (pinned in package.json, installed by
#: ``npm ci`` in scripts/install_test_deps.sh).
UNICODE_PACKAGES = Path(__file__).resolve().parent.parent / "node_modules" / "@unicode"


def gzip_bytes(data: bytes) -> bytes:
    """``data`` gzipped at level 9 with no name and no timestamp, by zlib itself: the same bytes
    on every Python (``gzip.compress`` writes another header byte on 3.10 than on 3.11+)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip header and trailer
    return packer.compress(data) + packer.flush()


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


def unicode_property(version: str, member: str, export: str = "code-points") -> object:
    """What a module of the npm package ``@unicode/unicode-<version>`` exports, as JSON: for
    ``code-points`` a ``Map`` (as ``[code point, value]`` pairs) or an array of code points,
    for ``ranges`` ``{begin, end}`` objects (``end`` excluded). The modules hold their data
    compressed for ``node:zlib``, so Node reads them."""
    module = UNICODE_PACKAGES / f"unicode-{version}" / member / f"{export}.mjs"
    if not module.is_file():
        raise SystemExit(f"{module} is missing; run `npm ci` (scripts/install_test_deps.sh)")
    value = "m instanceof Map ? [...m.entries()] : m"
    script = f"import m from {json.dumps(module.as_uri())}; console.log(JSON.stringify({value}));"
    out = subprocess.run(["node", "--input-type=module", "-e", script], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def merged_ranges(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Inclusive ``(lo, hi)`` code point ranges sorted, with touching ones joined."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return merged


def hex_ranges_text(ranges: Iterable[tuple[int, int]]) -> str:
    """Ranges as the generated tables spell them: ``7fd 897-89f``, lines of at most 96
    characters (read back by ``lbpe.unicode``)."""
    body = " ".join(f"{lo:x}" if lo == hi else f"{lo:x}-{hi:x}" for lo, hi in ranges)
    return "\n".join(textwrap.wrap(body, 96, break_on_hyphens=False))
