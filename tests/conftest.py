"""Shared fixtures: the registry data cache, reference tokenizers and real text.

Real files come from ``scripts/fetch_data.py``. A missing file is a test *failure* with the
command that fixes it, never a skip.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from lbpe import native

ROOT = Path(__file__).resolve().parents[1]

# transformers, datasets and the hub client never reach the network in tests: local files only
for _name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ.setdefault(_name, "1")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

sys.path.insert(0, str(ROOT / "scripts"))  # fetch_data: where the registry data is cached
import fetch_data  # noqa: E402

DATA = fetch_data.data_dir()


#: The command line, as a subprocess runs it: ``[*CLI, "encode", ...]``.
CLI = [sys.executable, "-m", "lbpe"]


def run_cli(
    *args: str,
    input: str = "",
    env: dict[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``python -m lbpe *args`` in a subprocess: text in and out, both streams captured;
    standard input is ``input`` (empty unless given: a test never waits on a terminal)."""
    return subprocess.run([*CLI, *args], input=input, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


class Stop:
    """A progress callback (of ``export_shards``) that presses Ctrl-C after ``calls`` calls."""

    def __init__(self, calls: int) -> None:
        self.calls = calls

    def __call__(self, *args) -> None:
        self.calls -= 1
        if self.calls == 0:
            raise KeyboardInterrupt


def pyproject() -> dict:
    """pyproject.toml, parsed (tomllib; its backport tomli on Python 3.10)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))


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
    **{
        f"openai/{n}.tiktoken": f"https://openaipublic.blob.core.windows.net/encodings/{n}.tiktoken" for n in RANK_FILES
    },
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


# ---- Hypothesis: a profile for the inner loop and one for CI ------------------------------------

#: ``dev`` (the default): random examples, as many as each test asks for. ``ci``
#: (``HYPOTHESIS_PROFILE=ci``, as .ci/run sets it): the same examples on every run
#: (a failure in CI is one a rerun shows again) and the failing example's blob printed. Neither has
#: a deadline: the machines are shared, and a slow example is not a wrong one.
settings.register_profile("dev", deadline=None)
settings.register_profile(
    "ci", deadline=None, derandomize=True, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or "dev")


# ---- the fast tier: pytest -m "not slow" -n auto ----------------------------------------------

#: What the fast tier (``python -m pytest -m "not slow" -n auto``, the inner loop) leaves out, and why;
#: CI runs everything. A module alone stands for all its tests; (module, test) for one test
#: function with all its parameters. Every module keeps its fast tests in the tier.
SLOW = {
    "test_app_browser": "Chromium drives the playground",
    "test_web_browser": "Chromium drives the page (Pyodide in the browser)",
    "test_web_pyodide_node": "Pyodide under Node",
    "test_web_space": "builds the static Space (wheel, page, Pyodide files)",
    "test_space_gradio": "builds the Gradio Space and starts its app",
    "test_app_server": "starts real playground servers",
    "test_app_load": "fifty concurrent sessions against a server",
    "test_server_reliability": "real playground servers, trainings run to their time limit",
    "test_sanitize": "builds the extension under ASan and UBSan and runs the parity tests on it (~5 min)",
    ("test_app_memory", "test_session_state_stays_small_whatever_was_compared"): "a playground server, long compares",
    ("test_app_memory", "test_an_uploaded_vocabulary_is_the_only_large_thing_a_session_keeps"): "a playground server",
    ("test_app_memory", "test_idle_sessions_are_forgotten_and_their_vocabularies_freed"): "a playground server",
    (
        "test_app_memory",
        "test_lbpe_serve_forgets_idle_sessions_by_itself",
    ): "lbpe serve, and its sessions' time to live",
    ("test_parity_hf", "test_bpe_ids_and_decode_equal_hf_on_real_text"): "parity over megabytes, every HF file",
    ("test_parity_sentencepiece", "test_ids_and_decode_equal_sentencepiece_on_real_text"): "parity over megabytes",
    ("test_parity_tiktoken", "test_bpe_ids_equal_tiktoken_on_5mb_english"): "parity over 5 MB",
    ("test_lbpe_reference", "test_lbpe_equals_naive_on_real_text"): "the naive loop over real text",
    ("test_hostile_text", "test_a_long_run_of_spaces_segments_like_it_encodes"): "SentencePiece runs of spaces",
    ("test_native", "test_compiled_equals_pure_on_megabyte_pieces"): "megabyte pieces on both paths",
    ("test_native", "test_compiled_equals_pure_on_real_text"): "megabytes on both paths",
    ("test_native", "test_compiled_split_on_every_code_point"): "every code point, every pattern",
    ("test_native", "test_installing_without_a_c_compiler_gives_the_pure_path"): "a pip install",
    ("test_pretokenize", "test_real_text_equals_reference_and_plain"): "megabytes against regex",
    ("test_pretokenize", "test_5mb_english_equals_reference"): "5 MB against regex",
    ("test_pretokenize", "test_hypothesis_long_text_equals_reference"): "long generated texts",
    ("test_pretokenize", "test_hypothesis_targeted_equals_reference"): "many generated texts per pattern",
    ("test_pretokenize", "test_hypothesis_unicode_equals_reference"): "many generated texts per pattern",
    ("test_unicode", "test_pinned_unicode_equals_hf_on_every_changed_code_point"): "HF tokenizers, many files",
    ("test_unicode", "test_pinned_unicode_equals_tiktoken_on_every_changed_code_point"): "every changed code point",
    ("test_train", "test_paper_regex_splits_like_hf_on_every_code_point"): "every code point through HF",
    ("test_user_regex", "test_polynomial_split_patterns_stop_with_a_clear_error"): "each waits out a time limit",
    ("test_hf", "test_ids_equal_the_models_own_tokenizer_and_lbpe"): "transformers over real text, per model",
    ("test_hf", "test_model_and_rank_files_encode_as_their_own_library"): "transformers over real text, per file",
    ("test_hf", "test_built_tokenizer_saves_and_loads_back"): "transformers, per file",
    ("test_hf", "test_chat_template_save_load_and_pickle"): "transformers",
    ("test_hf", "test_datasets_map_with_the_wrapper"): "datasets.map with transformers",
    ("test_hf", "test_a_saved_folder_loads_back_as_lbpe_with_trust_remote_code"): "saves and loads, both modes",
    ("test_hf", "test_without_trust_remote_code_transformers_refuses_and_names_the_fix"): "saves and loads",
    ("test_hf", "test_without_lbpe_installed_transformers_says_pip_install_lbpe"): "transformers in a subprocess",
    ("test_hf", "test_every_bundled_preset_by_name"): "loads each bundled vocabulary into transformers",
    ("test_hf", "test_datasets_hashes_the_tokenizer_by_its_state"): "loads and hashes four tokenizers",
    ("test_hf", "test_the_hash_is_the_same_in_another_process"): "transformers in a subprocess",
    ("test_hf", "test_dataset_map_twice_loads_the_second_from_the_cache"): "datasets.map with transformers",
    ("test_hf", "test_the_fast_path_equals_the_full_path"): "both paths, every option, per vocabulary",
    ("test_hf", "test_tokens_added_through_transformers_are_matched_on_both_paths"): "transformers over real text",
    ("test_pickle", "test_datasets_map_with_two_processes"): "datasets.map with worker processes",
    ("test_pickle", "test_spawn_pool_and_process_pool_executor"): "spawned processes load the tokenizer",
    ("test_pickle", "test_ray_tasks_receive_a_tokenizer"): "Ray",
    ("test_shards", "test_ray_engine_writes_the_same_shards"): "Ray",
    ("test_export_formats", "test_ray_engine_writes_the_same_bytes_in_every_format"): "Ray",
    ("test_export_formats", "test_megatron_indexed_dataset_reads_it"): "imports torch and megatron-core (~14 s)",
    ("test_export_formats", "test_datatrove_reader_reads_it"): "imports torch and datatrove (~7 s)",
    ("test_export_formats", "test_datatrove_writes_the_same_files_in_bpe_mode"): "imports datatrove (~7 s)",
    ("test_export_formats", "test_litdata_streaming_dataset_reads_it"): "imports torch and LitData (~7 s)",
    ("test_export_safety", "test_a_second_writer_fails_at_once_and_the_export_stays_right"): "exports 24,000 documents",
    ("test_export_safety", "test_workers_end_when_the_export_is_killed"): "an export killed, then resumed",
    ("test_export_safety", "test_a_full_disk_is_one_line_and_leaves_nothing_half_written"): "exports in subprocesses",
    ("test_pickle", "test_a_pickle_is_about_the_size_of_the_file"): "pickles the large vocabularies",
    ("test_pretokenize", "test_hypothesis_bmp_text_equals_reference"): "many generated texts per pattern",
    ("test_pretokenize", "test_hypothesis_every_code_point_equals_plain"): "every code point, every pattern",
    ("test_pretokenize", "test_tokenizer_json_spellings_equal_their_presets"): "megabytes per spelling",
    ("test_user_regex", "test_a_polynomial_replace_normalizer_stops_too"): "waits out a time limit",
    ("test_train", "test_bundled_default_vocabulary_is_reproducible_and_loads_everywhere"): "retrains the bundled one",
    ("test_train_llama", "test_vocabulary_and_compression_match_sentencepiece"): "trains twice, and sentencepiece",
    ("test_train_llama", "test_hf_tokenizers_lbpe_and_transformers_give_the_same_ids"): "transformers",
    ("test_native", "test_memory_stays_bounded_over_many_distinct_pieces"): "a process encoding megabytes",
    ("test_native", "test_differential_under_the_debug_allocator"): "a process under the debug allocator",
    ("test_fuzz_loaders", "test_fuzz_sentencepiece_charsmap"): "many generated models",
    ("test_user_regex", "test_pieces_of_one_text_share_one_allowance"): "waits out a time limit",
    ("test_user_regex", "test_regex_and_re_split_real_files_alike"): "megabytes on two regex engines",
    ("test_unicode", "test_regex_agrees_except_where_unicode_17_changed"): "every code point through regex",
    ("test_pretokenize", "test_unicode_version_skew_is_small"): "every code point, every pattern",
    ("test_service", "test_gpt2_pair_and_single_files_open_as_the_loader_reads_them"): "every GPT-2 file layout",
    ("test_service", "test_a_rank_file_without_a_known_name_asks_for_its_pretokenizer"): "every rank file",
    ("test_packaging", "test_wheel_metadata_states_the_licence_types_and_ranges"): "builds the sdist and the wheel",
    ("test_packaging", "test_sdist_carries_its_tests_and_they_run"): "builds the sdist and runs its tests",
}

#: The largest vocabulary files (128K-256K tokens of tokenizer.json): loading each costs seconds
#: per encoding path, so a test run over them is slow; the other vocabularies stay in the tier.
SLOW_VOCABULARIES = {"gemma3", "llama3", "qwen3", "deepseek_v3"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.path.stem
        test = getattr(item, "originalname", item.name)
        params = item.callspec.params.values() if hasattr(item, "callspec") else ()
        big = any(isinstance(v, str) and v in SLOW_VOCABULARIES for v in params)
        if module in SLOW or (module, test) in SLOW or big:
            item.add_marker(pytest.mark.slow)
    # Longest first, each module in its own order: the modules slow as a whole (servers,
    # browsers), then those with some slow tests, then the rest. With `-n auto --dist loadfile
    # --no-loadscope-reorder` a worker takes one module at a time, and a long one taken last would
    # leave the other workers idle at the end.
    some_slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: 0 if item.path.stem in SLOW else 1 if item.path in some_slow else 2)


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
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        runtime_env={
            "env_vars": {"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        },
    )
    yield ray
    ray.shutdown()
