"""``import lbpe`` (and using it) must pull in nothing but the standard library."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import data_file

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
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    loaded = {name.split(".")[0] for name in json.loads(out)}
    outside = sorted(m for m in loaded if m != "lbpe" and m not in sys.stdlib_module_names)
    assert outside == [], f"lbpe imported non-stdlib modules: {outside}"
    assert not loaded & {"regex", "numpy", "gradio", "plotly", "tiktoken", "tokenizers"}
