"""``import lbpe`` (and using it) must pull in nothing but the standard library."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.data import data_file

_PROBE = r"""
import json, sys
before = set(sys.modules)
import lbpe
tok = lbpe.load(sys.argv[1])
tok.encode("Hello wörld 123", mode="lbpe"); tok.segment("héllo", mode="bpe")
new = sorted(m for m in set(sys.modules) - before)
print(json.dumps(new))
"""


def test_import_and_use_pull_in_only_the_standard_library():
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(data_file("openai/cl100k_base.tiktoken"))],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    loaded = {name.split(".")[0] for name in json.loads(out)}
    outside = sorted(m for m in loaded if m != "lbpe" and m not in sys.stdlib_module_names)
    assert outside == [], f"lbpe imported non-stdlib modules: {outside}"
    assert not loaded & {"regex", "numpy", "gradio", "plotly", "tiktoken", "tokenizers"}


_NO_REGEX = r"""
import sys
sys.modules["regex"] = None  # as if not installed: importing it raises ImportError
import lbpe
from lbpe import user_regex
lbpe.native.use("pure")  # the compiled path splits this file in C, with neither engine
tok = lbpe.load(sys.argv[1])
print(user_regex.engine(), tok.encode("a  b 123", mode="bpe"))
"""


def test_patterns_from_files_run_on_re_without_the_regex_package():
    # deepseek_v3's Split patterns are not presets: they run through lbpe.user_regex
    path = data_file("hf/deepseek_v3/tokenizer.json")
    without = subprocess.run(
        [sys.executable, "-c", _NO_REGEX, str(path)], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split(" ", 1)
    import lbpe
    from lbpe import user_regex

    assert without[0] == "re" and user_regex.engine() == "regex"
    assert json.loads(without[1]) == lbpe.load(path).encode("a  b 123", mode="bpe")
