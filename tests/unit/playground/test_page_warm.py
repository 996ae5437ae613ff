"""The browser page's Python builds a vocabulary's one-off tables when the vocabulary is loaded,
not in the first compare that needs them.

The page stops a compare that runs past its deadline (seconds, from the text's length) and
restarts Python, because a vocabulary file's own pattern can backtrack for hours. A one-off
build inside a compare (the full pattern with its astral classes, the cut finder's witnesses:
over a second for o200k_base in CPython, more in Pyodide on a slow machine) counts against that
deadline, so the first text with a non-ASCII letter could be stopped and blamed on the pattern.
``page.warm`` builds them while the vocabulary loads, under the load's own deadline.

Each check runs in a fresh interpreter: the compiled patterns are kept per process, so another
test that had built them would hide a build this one should see.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.data import ROOT

#: Loads a preset, warms it, then records every one-off build the page's compare, explain and
#: encode make on texts of every kind: calls into the regular-expression compiler and into the
#: builders of the vocabulary's cached tables.
PROBE = r"""
import functools, json, sys
from lbpe.errors import LbpeError
from lbpe.playground import page
from lbpe.vocab import Vocab

try:
    page.warm()  # before any vocabulary: said, not passed over
except LbpeError as exc:
    assert "no vocabulary loaded" in str(exc), exc
else:
    raise SystemExit("warm() passed without a vocabulary")
page.use_preset(sys.argv[1])
page.warm()
builders = {v.func.__code__ for v in vars(Vocab).values() if isinstance(v, functools.cached_property)}
built = []

def watch(frame, event, arg):
    code = frame.f_code
    if event == "call" and (code in builders or code.co_filename.endswith(("_compiler.py", "sre_compile.py"))):
        built.append(f"{code.co_filename.rsplit('/', 1)[-1]}:{code.co_name}")

texts = [
    "Shared link: unrescinded redelivery, 東京.",
    "emoji 👍🏽 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢, Привет, café naïve",
    "Ελληνικά και русский текст, " * 40,  # long and BMP-only: the patterns' other engine
    "plain ASCII text, 12345 and code()",
]
sys.setprofile(watch)
for text in texts:
    page.compare(text)
    target = json.loads(page.explain_at(text, 3))
    page.explain(target["span"], -1, text, target["start"])
    for mode in ("bpe", "lbpe"):
        page.encode(text, mode)
sys.setprofile(None)
print(json.dumps(sorted(set(built))))
"""


@pytest.mark.slow(reason="warms the largest bundled vocabularies")
@pytest.mark.parametrize("preset", ["o200k_base", "cl100k_base", "mistral-7b"])
@pytest.mark.parametrize("pure", [True, False], ids=["pure", "compiled"])
def test_a_warmed_vocabulary_builds_nothing_while_texts_are_compared(preset, pure):
    env = {**os.environ, "LBPE_PURE_PYTHON": "1" if pure else "0"}
    run = subprocess.run(
        [sys.executable, "-c", PROBE, preset], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.strip().splitlines()[-1]) == []


def test_a_vocabulary_that_cannot_encode_the_warm_up_text_still_loads_and_compares(tmp_path):
    """Warming encodes a few characters of every UTF-8 width; a character-level vocabulary with
    neither byte fallback nor an unknown token has no token for most of them. That is the
    text's problem, said when a text holds one: the vocabulary still loads, warms and compares."""
    import lbpe
    from lbpe.errors import LbpeError
    from lbpe.playground import page
    from lbpe.playground.service import compare_view

    model = {"type": "BPE", "unk_token": None, "byte_fallback": False, "fuse_unk": False, "dropout": None}
    model |= {"continuing_subword_prefix": None, "end_of_word_suffix": None}
    model |= {"vocab": {"a": 0, "b": 1, "ab": 2, " ": 3}, "merges": ["a b"]}
    data = {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": None, "model": model}
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(data), encoding="utf-8")

    assert "error" not in json.loads(page.use_file(str(path)))
    assert json.loads(page.warm())["seconds"] >= 0
    assert json.loads(page.compare("ab ab"))["stats"]["bpe"]["tokens"] == 3
    assert json.loads(page.encode("ab ab", "lbpe")) == [2, 3, 2]
    assert compare_view(lbpe.load(path), "ab ab")["stats"]["lbpe"]["tokens"] == 3  # the app's view too
    with pytest.raises(LbpeError, match="'é' has no token"):
        page.compare("ab é")


def test_a_file_over_a_limit_is_refused_with_what_a_visitor_can_do(tmp_path, monkeypatch):
    """The browser page has no environment a visitor can set: a vocabulary file over a limit is
    refused with what can be done there (the library on one's own computer), never with
    "set LBPE_MAX_... to raise it"."""
    import shutil

    from lbpe.playground import page
    from tests.support.data import data_file

    monkeypatch.setenv("LBPE_MAX_VOCAB_BYTES", "1M")
    path = tmp_path / "o200k_base.tiktoken"
    shutil.copy(data_file("openai/o200k_base.tiktoken"), path)
    said = json.loads(page.use_file(str(path)))["error"]
    assert said.startswith("o200k_base.tiktoken: ") and "over the limit of" in said
    assert "LBPE_" not in said and "this page allows no more (lbpe on your own machine does" in said


def test_every_error_the_page_shows_says_what_a_visitor_can_do():
    """The worker passes every error through page.told: the time budget's "allow more time with
    LBPE_ENCODE_SECONDS" reads as what a visitor can do, as the playground's server says it."""
    from lbpe.budget import TimeBudgetError
    from lbpe.playground import page

    said = page.told(str(TimeBudgetError("the Compare view", 0.5, 2.0)))
    assert "LBPE_" not in said and "encode it with lbpe on your own machine (pip install lbpe)" in said, said
    assert page.told("a plain reason") == "a plain reason"
