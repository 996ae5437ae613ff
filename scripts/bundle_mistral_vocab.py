#!/usr/bin/env python3
"""Bundle Mistral-7B v0.1's SentencePiece model as the preset ``mistral-7b`` (lbpe/data/mistral/).

The model is ``mistral_common/data/tokenizer.model.v1`` of the PyPI wheel mistral-common==1.13.1
(Apache-2.0, (c) Mistral AI), which ``scripts/fetch_data.py`` downloads with pip and pins by
sha256 (``sentencepiece/mistral_tokenizer.model.v1``): 32,000 pieces, BPE with byte fallback,
the LLaMA family's tokenizer. This script writes, byte for byte reproducibly:

* ``tokenizer.model.v1.gz``: the model, gzip-compressed with no timestamp (lbpe loads ``.gz``);
* ``LICENSE``: the wheel's own licence file (Apache License 2.0), unchanged;
* ``NOTICE``: where the model comes from and that it is unchanged apart from the compression.

    python scripts/fetch_data.py --only sentencepiece
    python scripts/bundle_mistral_vocab.py [--check]

``--check`` fails when the bundled files differ from what this script writes (the tests run it).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import zipfile
from pathlib import Path

from generated import gzip_bytes  # a sibling script (scripts/ is on the path when run)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import fetch_data  # noqa: E402

OUT = ROOT / "lbpe" / "data" / "mistral"
MODEL = "sentencepiece/mistral_tokenizer.model.v1"
LICENSE_MEMBER = f"mistral_common-{fetch_data.MISTRAL_COMMON.version}.dist-info/licenses/LICENSE"


def build(data: Path | None = None) -> dict[str, bytes]:
    """File name -> bytes of the bundle."""
    data = data or fetch_data.data_dir()
    (item,) = [i for i in fetch_data.MANIFEST if i.out == MODEL]
    model_path = data / MODEL
    if not model_path.is_file():
        raise SystemExit(f"{model_path} is missing: run python scripts/fetch_data.py --only sentencepiece first")
    model = model_path.read_bytes()
    if hashlib.sha256(model).hexdigest() != item.sha256:
        raise SystemExit(f"{model_path} does not have the sha256 that scripts/fetch_data.py pins")
    wheels = sorted((data / "_downloads").glob(item.source.archive_glob()))
    if not wheels:
        raise SystemExit(
            f"the {item.source.label} wheel is not in {data / '_downloads'}: "
            "run python scripts/fetch_data.py --only sentencepiece first"
        )
    with zipfile.ZipFile(wheels[0]) as wheel:
        licence = wheel.read(LICENSE_MEMBER)
        if wheel.read(item.member) != model:
            raise SystemExit(f"{wheels[0].name}: {item.member} is not the cached model")
    notice = (
        "Mistral-7B v0.1 tokenizer (SentencePiece BPE model, 32,000 pieces, byte fallback)\n"
        "Copyright Mistral AI. Licensed under the Apache License, Version 2.0 (see LICENSE, the licence\n"
        f"file of the wheel it comes from).\n\n"
        f"Source: PyPI {item.source.label}, member {item.member}\n"
        f"sha256 of the model: {item.sha256}\n"
        "Modification: none; the file is stored gzip-compressed (tokenizer.model.v1.gz), which lbpe reads\n"
        "as is. Bundled by scripts/bundle_mistral_vocab.py.\n"
    ).encode()
    return {
        "tokenizer.model.v1.gz": gzip_bytes(model),
        "LICENSE": licence,
        "NOTICE": notice,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail when the bundled files differ from a rebuild")
    args = parser.parse_args(argv)
    files = build()
    if args.check:
        differ = [n for n, b in files.items() if not (OUT / n).is_file() or (OUT / n).read_bytes() != b]
        print(
            "the bundled Mistral-7B model matches its source"
            if not differ
            else f"the bundled Mistral-7B files differ from a rebuild: {', '.join(differ)}"
        )
        return 1 if differ else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (OUT / name).write_bytes(content)
        print(f"{(OUT / name).relative_to(ROOT)}: {len(content):,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
