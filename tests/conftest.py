"""Shared fixtures: the registry data cache, reference tokenizers and real text.

Real files come from ``scripts/fetch_data.py``. A missing file is a test *failure* with the
command that fixes it, never a skip.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

import pytest

from lbpe import native

ROOT = Path(__file__).resolve().parents[1]

# transformers, datasets and the hub client never reach the network in tests: local files only
for _name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ.setdefault(_name, "1")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

sys.path.insert(0, str(ROOT / "scripts"))  # fetch_data: where the registry data is cached
import fetch_data  # noqa: E402

DATA = fetch_data.data_dir()


def data_file(relative: str) -> Path:
    """Path of a fetched file; fails the test with the fix when it is missing."""
    path = DATA / relative
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `python {ROOT / 'scripts' / 'fetch_data.py'}` first", pytrace=False)
    return path


RANK_FILES = ("r50k_base", "p50k_base", "cl100k_base", "o200k_base")

# Where tiktoken would download each file from; seeding its cache with our copies (same sha256,
# which tiktoken checks) gives the official encodings offline.
_TIKTOKEN_URLS = {
    **{f"openai/{n}.tiktoken": f"https://openaipublic.blob.core.windows.net/encodings/{n}.tiktoken" for n in RANK_FILES},
    "gpt2/vocab.bpe": "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/vocab.bpe",
    "gpt2/encoder.json": "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/encoder.json",
}


def tiktoken_encoding(name: str):
    """The official tiktoken encoding ``name``, built offline from the fetched files."""
    import tiktoken

    cache = DATA / "_tiktoken_cache"
    cache.mkdir(parents=True, exist_ok=True)
    for relative, url in _TIKTOKEN_URLS.items():
        target = cache / hashlib.sha1(url.encode()).hexdigest()
        if not target.exists():
            shutil.copyfile(data_file(relative), target)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
    return tiktoken.get_encoding(name)


def english_text(min_bytes: int) -> str:
    """Public-domain English (Moby-Dick, then State of the Union addresses) of at least ``min_bytes``."""
    text = data_file("text/moby_dick.txt").read_text("utf-8")
    if len(text.encode()) < min_bytes:
        text += "\n\n" + data_file("text/sotu.txt").read_text("utf-8")
    if len(text.encode()) < min_bytes:
        raise AssertionError(f"only {len(text.encode())} bytes of English text available, wanted {min_bytes}")
    return text


def mixed_text(english_bytes: int) -> list[tuple[str, str]]:
    """(name, text) samples: English prose, many languages and scripts, and source code."""
    return [
        ("english", english_text(english_bytes)[:english_bytes]),
        ("multilingual", data_file("text/multilingual_words.txt").read_text("utf-8")),
        ("multilingual-stdlib", data_file("text/multilingual.txt").read_text("utf-8")),
        ("code", data_file("text/code.txt").read_text("utf-8") + data_file("text/code_more.txt").read_text("utf-8")),
    ]


def chunks(text: str, size: int = 65536) -> list[str]:
    """Split text at line ends into blocks of about ``size`` characters."""
    out, block, length = [], [], 0
    for line in text.splitlines(keepends=True):
        block.append(line)
        length += len(line)
        if length >= size:
            out.append("".join(block))
            block, length = [], 0
    if block:
        out.append("".join(block))
    return out


# ---- both encoding paths --------------------------------------------------------------------

#: Test modules whose every test runs twice: on the compiled path and on the pure-Python one
#: (elsewhere, a test that asks for the ``encode_path`` fixture runs twice).
BOTH_PATHS = {
    "test_parity_tiktoken",
    "test_parity_hf",
    "test_parity_sentencepiece",
    "test_lbpe_reference",
    "test_tokenizer",
    "test_hostile_text",
}


def pytest_generate_tests(metafunc):
    if metafunc.module.__name__.rsplit(".", 1)[-1] in BOTH_PATHS or "encode_path" in metafunc.fixturenames:
        if "encode_path" not in metafunc.fixturenames:
            metafunc.fixturenames.append("encode_path")
        forced_pure = os.environ.get(native.ENV_VAR, "") not in ("", "0")
        metafunc.parametrize("encode_path", ["pure"] if forced_pure else ["compiled", "pure"], indirect=True)


@pytest.fixture
def encode_path(request):
    """Run the test on one encoding path (lbpe.native.use). The compiled one must be built
    (unless LBPE_PURE_PYTHON is set), so a missing build fails here instead of passing quietly."""
    before = native.backend().name
    native.use(request.param)  # raises, saying why, when the extension was not built
    yield request.param
    native.use(before)


@pytest.fixture(scope="session")
def ray_local():
    """A local Ray instance with 2 CPUs for the session (no dashboard, nothing off the machine)."""
    import os

    import ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}})
    yield ray
    ray.shutdown()
