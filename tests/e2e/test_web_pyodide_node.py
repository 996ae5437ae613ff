"""The browser page's Python, run under Node: the built site's Pyodide core loads the built lbpe
wheel (as ``static/worker.js`` does) and its ids equal CPython's on the same inputs, for every
bundled preset, a HF tokenizer.json and a SentencePiece model, in both modes.

Needs Node and the npm packages (``npm ci``, or ``bash scripts/install_test_deps.sh``); without
them the build fails with that instruction.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import lbpe
from lbpe.analysis.explain import explain
from lbpe.playground.display import explain_html
from lbpe.playground.page.site import build_site
from lbpe.presets import VOCAB_PRESETS, load_preset
from lbpe.tokenizer import MODES
from tests.support.data import ROOT, data_file

pytestmark = pytest.mark.slow(reason="Pyodide under Node")

RUNNER = ROOT / "tests" / "support" / "pyodide_runner.mjs"

# Edge cases of the pre-tokenisers and models, then real text of each kind.
EDGE_TEXTS = [
    "",
    " ",
    "Hello world",
    "  leading and trailing spaces   ",
    "\n\n\ttabs\tand\r\nCRLF line ends\r\n\n   \n",
    "I'm sure you'll see they've said DON'T and WE'RE",
    "1234567890 3.14159 1,000,000 2024-05-09 x2 v1.2.3",
    "naïve café façade coöperate e\u0301 \u00e9",
    "日本語のテキストと東京タワー。中文分词测试。",
    "Привет, мир! Ελληνικά γράμματα. مرحبا بالعالم. עברית. हिन्दी भाषा. ภาษาไทย",
    "😀👍🏽 family: 👨\u200d👩\u200d👧 flags: 🇫🇷🇯🇵 \U0001d400\U0001d401",
    "def f(x):\n    return x**2  # square\n\nclass A:\n\tpass\n",
    "<|endoftext|> and <|fim_prefix|> as plain text",
    "a" * 300,
    "ab" * 200 + " " + "xyz" * 120,
    "!!!??? ... --- *** ### $$$ %%%",
]


def changed_code_points_text() -> str:
    """Code points whose category this CPython's ``unicodedata`` and the pinned tables disagree
    on (Unicode 14.0 in 3.11, 16.0 pinned and in Pyodide's 3.14), in contexts where a letter,
    digit or mark changes the pieces."""
    import unicodedata

    from lbpe.unicode import category

    changed = [
        c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and unicodedata.category(chr(c)) != category(chr(c))
    ]
    sample = changed[:: max(1, len(changed) // 400)] + [0x105C0, 0x1C89, 0xA7CB]
    return "".join(f"a{chr(c)}b {chr(c)}'s 1{chr(c)}2 " for c in sample)


def real_texts() -> list[str]:
    english = data_file("text/moby_dick.txt").read_text("utf-8")
    multilingual = data_file("text/multilingual.txt").read_text("utf-8")
    code = data_file("text/code.txt").read_text("utf-8")
    return [english[100_000:112_000], multilingual[:8_000], code[:8_000]]


FILE_VOCABS = {
    "llama3 tokenizer.json": "hf/llama3/tokenizer.json",
    "mistral .model": "sentencepiece/mistral_tokenizer.model.v1",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site(out)
    return out


def run_in_pyodide(site: Path, job: dict) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: it comes with the npm packages (bash scripts/install_test_deps.sh)")
    proc = subprocess.run(
        [node, str(RUNNER), str(site)],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=240,
    )
    assert proc.returncode == 0, f"the Pyodide runner failed:\n{proc.stderr[-4000:]}"
    return json.loads(proc.stdout)


#: Spans the Explain view is checked on (the paper's case, other scripts, special-token text).
EXPLAIN_SPANS = [" Capitals", "Capitals", " geographers", "トレーナー", " картинка", "🙂 naïve\t<|endoftext|>"]


def test_pyodide_ids_equal_cpython(site):
    texts = EDGE_TEXTS + real_texts() + [changed_code_points_text()]
    files = {label: data_file(rel) for label, rel in FILE_VOCABS.items()}
    job = {
        "texts": texts,
        "modes": list(MODES),
        "vocabs": [{"preset": name} for name in VOCAB_PRESETS] + [{"file": str(p)} for p in files.values()],
        "explain": EXPLAIN_SPANS,
    }
    result = run_in_pyodide(site, job)
    assert result["python"].startswith("3."), result["python"]
    # Pyodide's own Unicode version need not be this CPython's: ids agree through lbpe.unicode
    assert result["unicode"], result
    assert "/site-packages/lbpe/" in result["lbpe"], result["lbpe"]  # the wheel's copy, installed
    references = [load_preset(name) for name in VOCAB_PRESETS] + [lbpe.load(p) for p in files.values()]
    labels = list(VOCAB_PRESETS) + list(files)
    assert len(result["vocabs"]) == len(references)
    for label, tok, got in zip(labels, references, result["vocabs"]):
        assert "error" not in got, f"{label}: {got.get('error')}"
        for mode in MODES:
            for i, text in enumerate(texts):
                want = tok.encode(text, mode=mode, disallowed_special=())
                assert got["ids"][mode][i] == want, f"{label} {mode}: ids differ on text {i} ({text[:40]!r})"
    # the Explain view's steps and frames are CPython's, to the character
    for label, tok, got in zip(labels, references, result["vocabs"]):
        assert not got["name"].startswith("upload-"), got["name"]  # never the page's scratch folder
        for span, shown in zip(EXPLAIN_SPANS, got["explain"]):
            ex = explain(tok, span)
            ex.vocabulary = got["name"]  # a file is named as the person chose it: tokenizer.json
            assert shown["steps"] == json.loads(json.dumps(ex.to_json())), f"{label}: steps differ for {span!r}"
            assert shown["html"] == explain_html(ex), f"{label}: frame differs for {span!r}"
    # both modes really differ somewhere, so the comparison is not vacuous
    for got in result["vocabs"]:
        assert got["ids"]["bpe"] != got["ids"]["lbpe"]


def test_pyodide_reports_a_bad_vocabulary_file(site, tmp_path):
    bad = tmp_path / "cl100k_base.tiktoken"
    bad.write_bytes(b"this is not base64 !!\x00\xff\n")
    result = run_in_pyodide(site, {"texts": ["x"], "modes": ["bpe"], "vocabs": [{"file": str(bad)}]})
    error = result["vocabs"][0]["error"]
    assert error.startswith("cl100k_base.tiktoken, line 1"), error  # the file's own name, not the scratch folder
