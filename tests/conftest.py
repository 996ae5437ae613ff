"""What every tier shares: offline settings, Hypothesis's profiles, the slow marker's ordering,
both encoding paths, and a local Ray. Helpers a test imports live in ``tests/support/``."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from lbpe import native
from tests.support.data import ROOT

# transformers, datasets and the hub client never reach the network in tests: local files only
for _name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
    os.environ.setdefault(_name, "1")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


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


# ---- the fast tier: pytest tests lbpe -m "not slow" -n auto --------------------------------------

#: The largest vocabulary files (128K-256K tokens of tokenizer.json): loading each costs seconds
#: per encoding path, so a test run over them is slow wherever it is; the other vocabularies stay
#: in the fast tier. (A slow test says so itself: ``@pytest.mark.slow(reason=...)``, or
#: ``pytestmark`` for a whole module.)
SLOW_VOCABULARIES = {"gemma3", "llama3", "qwen3", "deepseek_v3"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        params = item.callspec.params.values() if hasattr(item, "callspec") else ()
        if any(isinstance(v, str) and v in SLOW_VOCABULARIES for v in params):
            item.add_marker(pytest.mark.slow(reason="one of the largest vocabularies"))
    # Longest first, each module in its own order: the modules slow as a whole (servers,
    # browsers), then those with some slow tests, then the rest. With `-n auto --dist loadfile
    # --no-loadscope-reorder` a worker takes one module at a time, and a long one taken last would
    # leave the other workers idle at the end.
    slow, fast = set(), set()
    for item in items:
        (slow if item.get_closest_marker("slow") else fast).add(item.path)
    items.sort(key=lambda item: 0 if item.path not in fast else 1 if item.path in slow else 2)


# ---- both encoding paths --------------------------------------------------------------------


def pytest_addoption(parser):
    parser.addoption(
        "--encode-path",
        choices=("both", "compiled", "pure"),
        default="both",
        help="run the tests of both encoding paths on this one only (scripts/sanitize.sh: compiled)",
    )


def pytest_generate_tests(metafunc):
    """Every test of a module marked ``both_paths``, and every test that asks for the
    ``encode_path`` fixture, runs twice: on the compiled path and on the pure-Python one
    (``--encode-path compiled`` or ``pure`` keeps one of them)."""
    if metafunc.definition.get_closest_marker("both_paths") or "encode_path" in metafunc.fixturenames:
        if "encode_path" not in metafunc.fixturenames:
            metafunc.fixturenames.append("encode_path")
        forced_pure = os.environ.get(native.ENV_VAR, "") not in ("", "0")
        chosen = metafunc.config.getoption("encode_path")
        if forced_pure and chosen == "compiled":
            raise pytest.UsageError(f"--encode-path=compiled with {native.ENV_VAR} set: unset one of them")
        paths = ["pure"] if forced_pure else {"both": ["compiled", "pure"]}.get(chosen, [chosen])
        metafunc.parametrize("encode_path", paths, indirect=True)


@pytest.fixture
def encode_path(request):
    """Run the test on one encoding path (lbpe.native.use). The compiled one must be built
    (unless LBPE_PURE_PYTHON is set), so a missing build fails here instead of passing quietly."""
    before = native.backend().name
    native.use(request.param)  # raises, saying why, when the extension was not built
    yield request.param
    native.use(before)


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray instance with 2 CPUs for the module (no dashboard, nothing off the machine).
    It stops with the module: idle, its daemons still take about 5% of a core, which a session
    fixture would take from every module the worker runs after."""
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
