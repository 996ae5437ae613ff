"""A vocabulary with very long tokens must not hold the encoder: LBPE places spans without
listing every (start, length) pair of a piece, so its memory stays proportional to the piece.

The vocabulary is built here (:func:`tests.support.tiny_vocabs.long_run_spec`: the runs ``"a" * k`` up
to 2,000 bytes, a 4 MB tokenizer.json within every size limit; ``lbpe.load`` refuses its
longest token unless ``LBPE_MAX_TOKEN_BYTES`` allows it, as the child here does) and the text is
one run of 50,000 ``a``: listing every vocabulary span would take 100 million entries. The time
this case takes is a benchmark (``python bench/adversarial.py --long-tokens``), not a test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from tests.support.data import ROOT
from tests.support.tiny_vocabs import json_bytes, long_run_spec

LONGEST = 2_000
RUN = 50_000
#: What the encoding may add to the address space of a process that has loaded the vocabulary.
HEADROOM = 256 << 20

_CHILD = textwrap.dedent(
    """
    import json, os, resource, sys
    import lbpe
    from lbpe import native

    path, which, run, headroom = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    native.use(which)
    tok = lbpe.load(path)
    tok.encode("aaaa", mode="lbpe")  # the derived tables, built once per vocabulary
    with open("/proc/self/statm") as f:
        size = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    resource.setrlimit(resource.RLIMIT_AS, (size + headroom, size + headroom))
    try:
        ids = tok.encode("a" * run, mode="lbpe")
    except MemoryError:
        print(json.dumps({"error": "MemoryError"}))
    else:
        print(json.dumps({"ids": ids}))
    """
)


def test_long_token_vocabulary_encodes_in_bounded_memory(tmp_path, encode_path):
    path = tmp_path / "tokenizer.json"
    path.write_bytes(json_bytes(long_run_spec(LONGEST)))
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), encode_path, str(RUN), str(HEADROOM)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "LBPE_MAX_TOKEN_BYTES": "0"},  # over the limit on purpose
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert "error" not in result, f"encoding {RUN:,} units ran out of {HEADROOM >> 20} MiB of headroom"
    # longest first, leftmost first: 25 runs of 2,000 (id 254 + 2000), nothing left over
    assert result["ids"] == [254 + LONGEST] * (RUN // LONGEST)
