"""The Gradio Space, built as it is deployed (``python scripts/build_spaces.py gradio``) into a
temporary folder: pinned like pyproject, and its app answers over HTTP from its own copy of lbpe."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from tests.support.app import running_server
from tests.support.data import ROOT

pytestmark = pytest.mark.slow(reason="builds the Gradio Space and starts its app")


def _script():
    spec = importlib.util.spec_from_file_location("build_spaces", ROOT / "scripts" / "build_spaces.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def space(tmp_path_factory):
    folder = tmp_path_factory.mktemp("space") / "gradio"
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_spaces.py"), "gradio", "--from", "tree", "--out", str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return folder


def test_the_space_is_pinned_like_pyproject(space):
    # the app extra's packages at the versions the tests run on (constraints/test.txt)
    tested = dict(
        line.split("==") for line in (ROOT / "constraints" / "test.txt").read_text("utf-8").splitlines() if "==" in line
    )
    pins = {name: tested[name] for name in ("gradio", "plotly", "regex")}
    front = (space / "README.md").read_text("utf-8").split("---")[1]
    for line in ("sdk: gradio", f"sdk_version: {pins['gradio']}", "app_file: app.py"):
        assert f"\n{line}\n" in front, front
    assert "title: " in front
    requirements = [r for r in (space / "requirements.txt").read_text("utf-8").splitlines() if r and r[0] != "#"]
    assert requirements == sorted(f"{k}=={v}" for k, v in pins.items() if k != "gradio")
    assert (space / "app.py").read_bytes() == (ROOT / "app.py").read_bytes()
    assert not list(space.rglob("*.so")) and not list(space.rglob("__pycache__"))
    # what it redistributes carries its licences: lbpe's, and the Mistral model's beside it
    assert (space / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
    for name in ("LICENSE", "NOTICE"):
        assert (space / "lbpe/data/mistral" / name).read_bytes() == (ROOT / "lbpe/data/mistral" / name).read_bytes()


@pytest.mark.parametrize("kind", ["gradio", "static"])
def test_the_space_readme_names_every_bundled_vocabulary(kind):
    from lbpe.presets import DEFAULT_PRESET, VOCAB_PRESETS

    readme = " ".join((ROOT / "spaces" / kind / "README.md").read_text("utf-8").split())
    named = {
        "mistral-7b": "Mistral-7B v0.1's SentencePiece model, the default",
        "lbpe-llama-32k": "LLaMA-style",
        "lbpe-32k": "GPT-2 style",
        "gpt2": "GPT-2",
        "cl100k_base": "cl100k_base",
        "o200k_base": "o200k_base",
    }
    assert set(named) == set(VOCAB_PRESETS) and DEFAULT_PRESET == "mistral-7b"  # a new preset: name it here and there
    for name, words in named.items():
        assert words in readme, (kind, name)


def test_a_rebuild_in_a_space_checkout_keeps_its_git_and_own_files(tmp_path):
    script = _script()
    folder = tmp_path / "space"
    script.write(folder, {"README.md": b"made by scripts/build_spaces.py", "app.py": b"one", "old.py": b"gone next"})
    (folder / ".git").mkdir()
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / "NOTES.md").write_text("mine")
    script.write(folder, {"README.md": b"made by scripts/build_spaces.py", "app.py": b"two"})
    assert (folder / ".git" / "HEAD").is_file() and (folder / "NOTES.md").read_text() == "mine"
    assert (folder / "app.py").read_bytes() == b"two" and not (folder / "old.py").exists()


def test_a_first_build_goes_into_a_fresh_clone_of_a_space(tmp_path):
    """A Space's fresh git clone holds .git and .gitattributes (kept, as on a rebuild) and
    Hugging Face's template README.md, which the build would replace: it says to remove it."""
    script = _script()
    folder = tmp_path / "space"
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (folder / ".gitattributes").write_text("*.wasm filter=lfs\n")
    (folder / "README.md").write_text("---\ntitle: template\n---\n")
    files = {"README.md": b"made by scripts/build_spaces.py", "app.py": b"x = 1\n"}
    with pytest.raises(SystemExit, match="README.md .*remove it"):
        script.write(folder, files)
    (folder / "README.md").unlink()
    script.write(folder, files)
    assert (folder / "app.py").read_bytes() == b"x = 1\n" and (folder / ".gitattributes").is_file()
    assert (folder / ".git" / "HEAD").is_file()


def test_a_rebuild_takes_away_the_bytecode_python_left_beside_its_modules(tmp_path):
    """Running a Space's app in the folder it was built in (its README says how) leaves Python's
    __pycache__ beside its modules, holding this machine's paths: the next build removes them,
    so an upload of the folder never carries them."""
    script = _script()
    folder = tmp_path / "space"
    files = {"README.md": b"made by scripts/build_spaces.py", "app.py": b"x = 1\n", "lbpe/m.py": b"y = 2\n"}
    script.write(folder, files)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], check=True)
    assert len(list(folder.rglob("__pycache__"))) == 2
    (folder / "NOTES.md").write_text("mine")
    script.write(folder, files)
    assert not list(folder.rglob("__pycache__")) and (folder / "NOTES.md").read_text() == "mine"
    assert (folder / "lbpe" / "m.py").read_bytes() == b"y = 2\n"


def test_a_readme_pinning_another_gradio_stops_the_build(tmp_path, monkeypatch):
    script = _script()
    sources = script.read_sources("tree")
    pinned = sources[script.GRADIO_README].replace(b"sdk_version: ", b"sdk_version: 0.0.1-", 1)
    monkeypatch.setattr(script, "read_sources", lambda kind: {**sources, script.GRADIO_README: pinned})
    with pytest.raises(SystemExit, match=r"make the README's sdk_version \d"):
        script.gradio_space("tree")


def test_the_space_app_answers_from_its_own_folder(space):
    from gradio_client import Client

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = "import json, app, lbpe; print(json.dumps([app.__file__, lbpe.__file__]))"
    result = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=space,
        env={**env, "GRADIO_ANALYTICS_ENABLED": "False"},
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    app_file, lbpe_file = json.loads(result.stdout.strip().splitlines()[-1])
    assert app_file.startswith(str(space)) and lbpe_file.startswith(str(space))
    with running_server([sys.executable, "app.py", "--host", "127.0.0.1", "--port", "{port}"], cwd=space) as s:
        client = Client(s.url, verbose=False)
        details = client.predict("Hello world", "gpt2", True, False, api_name="/compare")[5]
    assert details["bpe"]["ids"] == [15496, 995]
