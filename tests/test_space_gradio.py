"""``spaces/gradio/`` (the Hugging Face Gradio Space, committed as built) equals a fresh
``python scripts/build_spaces.py gradio``, and runs on its own copy of lbpe."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

from tests.conftest import ROOT

SPACE = ROOT / "spaces" / "gradio"
REBUILD = (
    "spaces/gradio is out of date: run `python scripts/build_spaces.py gradio` (it reads app.py, lbpe/ and "
    "pyproject.toml as staged in git's index, so `git add` your changes first), then `git add spaces/gradio`"
)


def _script():
    spec = importlib.util.spec_from_file_location("build_spaces", ROOT / "scripts" / "build_spaces.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_space_matches_a_fresh_build():
    script = _script()
    diff = script.differences(SPACE, script.gradio_space("index"))
    assert not diff, REBUILD + "\n" + "\n".join(diff)


def test_space_readme_and_requirements_are_pinned():
    script = _script()
    pins = script._pins((ROOT / "pyproject.toml").read_text("utf-8"))
    front = (SPACE / "README.md").read_text("utf-8").split("---")[1]
    for line in ("sdk: gradio", f"sdk_version: {pins['gradio']}", "app_file: app.py"):
        assert f"\n{line}\n" in front, front
    assert "title: " in front
    requirements = [r for r in (SPACE / "requirements.txt").read_text("utf-8").splitlines() if r and r[0] != "#"]
    assert requirements and all("==" in r for r in requirements)
    assert not any(r.startswith("gradio==") for r in requirements)  # the sdk_version provides it


def test_space_app_runs_on_its_own_copy_of_lbpe():
    probe = (
        "import json, app, lbpe; "
        "out = app.compare('Hello world', 'gpt2', True, False, None)[5]; "
        "print(json.dumps([app.__file__, lbpe.__file__, out['bpe']['ids']]))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1")
    result = subprocess.run([sys.executable, "-c", probe], cwd=SPACE, env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    app_file, lbpe_file, ids = json.loads(result.stdout.strip().splitlines()[-1])
    assert app_file.startswith(str(SPACE)) and lbpe_file.startswith(str(SPACE))
    assert ids == [15496, 995]
