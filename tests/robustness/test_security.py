"""Nothing a vocabulary file contains is executed, unpickled or eval'd.

* statically: the package source has no pickle/marshal/shelve/yaml/ctypes use, no
  ``eval``/``exec``/``compile``/``__import__``, no shell; ``importlib`` and ``subprocess``
  appear only in the CLI's ``serve`` (checking for Gradio) and ``build-web``
  (running git), which no loader reaches;
* dynamically: a process with a ``sys.addaudithook`` hook loads files carrying Python code, a
  pickle payload and code-like strings in every format, encodes with the ones that load, and
  no exec/compile/unpickle/process/shell/native-library event fires.
"""

from __future__ import annotations

import ast
import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

from tests.support import tiny_vocabs as tv
from tests.support.data import ROOT

PACKAGE = ROOT / "lbpe"
RUNS_CODE = {
    "pickle",
    "cPickle",
    "_pickle",
    "marshal",
    "shelve",
    "dill",
    "cloudpickle",
    "yaml",
    "ctypes",
    "runpy",
    "code",
    "codeop",
}
BUILTINS = {"eval", "exec", "compile", "__import__", "execfile", "breakpoint"}
#: module -> what may appear there, and why
ALLOWED = {
    # lbpe serve: checks that Gradio is installed before importing lbpe.playground.app,
    # and binds a probe socket to say at once when the address cannot be listened on
    "lbpe/cli/playground.py": {"importlib", "socket"},
    "lbpe/playground/page/site.py": {
        "subprocess",
        "http",
    },  # lbpe build-web runs git; a local static server for the page
}


def _sources() -> list[Path]:
    files = sorted(PACKAGE.rglob("*.py"))
    assert len(files) > 15
    return files


def _problems(path: Path, root: Path = ROOT) -> list[str]:
    out = []
    rel = path.relative_to(root)  # once per file: Python 3.12's relative_to is slow
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        where = f"{rel}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            out += [f"{where}: imports {a.name}" for a in node.names if a.name.split(".")[0] in RUNS_CODE]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in RUNS_CODE:
            out.append(f"{where}: imports from {node.module}")
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in BUILTINS:
                out.append(f"{where}: calls {func.id}()")
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                owner, attr = func.value.id, func.attr
                if owner in RUNS_CODE or (
                    owner == "os" and re.fullmatch(r"system|popen|exec\w*|spawn\w*|posix_spawn\w*", attr)
                ):
                    out.append(f"{where}: calls {owner}.{attr}()")
            for kw in node.keywords:
                if kw.arg == "shell" and not (isinstance(kw.value, ast.Constant) and kw.value.value is False):
                    out.append(f"{where}: shell=")
        elif isinstance(node, ast.Name) and node.id in ("__builtins__",):
            out.append(f"{where}: touches __builtins__")
    return out


def test_no_code_execution_in_the_package_source():
    problems = [p for path in _sources() for p in _problems(path)]
    assert not problems, "\n".join(problems)


def test_the_scan_finds_what_it_looks_for(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import pickle\nfrom marshal import loads\neval('1')\nos.system('x')\n"
        "subprocess.run('x', shell=True)\nre.compile('a')\nx = 'eval(1)'  # exec(\n"
    )
    found = sorted(f.split(": ", 1)[1] for f in _problems(sample, tmp_path))
    assert found == sorted(["imports pickle", "imports from marshal", "calls eval()", "calls os.system()", "shell="])


def _imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_importlib_and_subprocess_only_where_allowed():
    for path in _sources():
        rel = str(path.relative_to(ROOT))
        risky = _imported(path) & {"importlib", "subprocess", "multiprocessing", "socket", "urllib", "http"}
        allowed = ALLOWED.get(rel, set())
        if rel == "lbpe/corpus/parallel.py":
            allowed = allowed | {"multiprocessing"}  # process pool over our own callables
        assert risky <= allowed, f"{rel} imports {sorted(risky - allowed)}"
    for loader in [
        "load.py",
        "vocab.py",
        *[f"tokenizer/{p.name}" for p in (PACKAGE / "tokenizer").glob("*.py")],
        "normalize.py",
        "limits.py",
        "errors.py",
        *[f"pretokenize/{p.name}" for p in (PACKAGE / "pretokenize").glob("*.py")],
        *[f"formats/{p.name}" for p in (PACKAGE / "formats").glob("*.py")],
    ]:
        assert not _imported(PACKAGE / loader) & {"importlib", "subprocess", "concurrent", "multiprocessing"}, loader


_AUDITED = r"""
import json, os, sys
events = []
armed = False
WATCH = ("exec", "compile", "pickle.find_class", "marshal.load", "marshal.loads", "os.system", "os.exec",
         "os.posix_spawn", "os.spawn", "os.fork", "subprocess.Popen", "ctypes.dlopen", "ctypes.cdata",
         "code.__new__", "socket.connect", "urllib.Request", "shutil.rmtree", "os.remove")

def hook(event, args):
    if armed and (event in WATCH or event.startswith(("pickle.", "marshal.", "ctypes.", "socket."))):
        events.append((event, repr(args)[:200]))

import lbpe
from lbpe.tokenizer import MODES
sys.addaudithook(hook)

def use(path):
    try:
        tok = lbpe.load(path, pattern=None)
    except ValueError as exc:
        return "refused: " + str(exc)[:100]
    for mode in MODES:
        tok.decode(tok.encode("hello __import__('os').system('touch pwned') <s>", mode=mode, disallowed_special=()))
        tok.segment("hello", mode=mode)
    return "loaded"

paths = json.loads(sys.argv[1])
for p in paths["warmup"]:  # imports everything the loaders import lazily
    use(p)
armed = True
out = {p: use(p) for p in paths["hostile"]}
armed = False
seen = list(events)
armed = True  # the probe: the hook does see an eval and an unpickling
import pickle
eval("1 + 1")
pickle.loads(pickle.dumps(os.getcwd))
armed = False
print(json.dumps({"results": out, "events": seen, "probe": sorted({e for e, _ in events[len(seen):]})}))
"""


def _write(d: Path, name: str, data: bytes) -> str:
    (d / name).parent.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)
    return str(d / name)


class _Payload:
    def __reduce__(self):
        return (os.system, ("touch pwned-by-pickle",))


def test_loading_hostile_files_runs_nothing(tmp_path):
    code = b"import os\nos.system('touch pwned')\n"
    pickled = pickle.dumps(_Payload())
    hf = tv.hf_char_spec()
    hf["normalizer"] = {"type": "Prepend", "prepend": "__import__('os').system('touch pwned')"}
    hf["decoder"] = {"type": "Replace", "pattern": {"String": "eval"}, "content": "exec(open('x').read())"}
    hf["added_tokens"].append({"id": 999, "content": "{{7*7}}${{os.system('id')}}", "special": False})
    evil_type = tv.hf_spec()
    evil_type["pre_tokenizer"] = {"type": "__import__('os').system('touch pwned')"}
    warm = tmp_path / "warm"
    hostile = tmp_path / "hostile"
    paths = {
        "warmup": [
            _write(warm, "cl100k_base.tiktoken", tv.tiktoken_bytes()),
            _write(warm, "gpt2/encoder.json", tv.json_bytes(tv.gpt2_encoder())),
            _write(warm, "gpt2/vocab.bpe", tv.gpt2_merges_text().encode()),
            _write(warm, "hf/tokenizer.json", tv.json_bytes(tv.hf_spec())),
            _write(warm, "char/tokenizer.json", tv.json_bytes(tv.hf_char_spec())),
            _write(warm, "t.model", tv.sp_model_bytes()),
            _write(warm, "x.tiktoken.gz", b"not gzip"),
            _write(warm, "bad/tokenizer.json", b"{"),
            _write(warm, "bad.model", b"\xff\xff"),
        ],
        "hostile": [
            _write(hostile, "code/tokenizer.json", code),
            _write(hostile, "code.tiktoken", code),
            _write(hostile, "code.model", code),
            _write(hostile, "code/encoder.json", code),
            _write(hostile, "code/vocab.bpe", code),
            _write(hostile, "pickle/tokenizer.json", pickled),
            _write(hostile, "pickle.model", pickled),
            _write(hostile, "cl100k_base.tiktoken", pickled),
            _write(hostile, "vocab.pkl", pickled),
            _write(hostile, "pickle.json.gz", __import__("gzip").compress(pickled)),
            _write(hostile, "strings/tokenizer.json", tv.json_bytes(hf)),
            _write(hostile, "type/tokenizer.json", tv.json_bytes(evil_type)),
        ],
    }
    paths["hostile"] = [p for p in paths["hostile"] if not p.endswith("vocab.bpe")]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    run = subprocess.run(
        [sys.executable, "-c", _AUDITED, json.dumps(paths)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout)
    assert {"exec", "pickle.find_class"} <= set(report["probe"]), report["probe"]
    assert report["events"] == [], report["events"]
    results = report["results"]
    assert results[paths["hostile"][-2]] == "loaded"  # code-like strings are only text
    assert sum(r.startswith("refused") for r in results.values()) == len(results) - 1, results
    assert not list(tmp_path.rglob("pwned*")) and not (ROOT / "pwned").exists()
