"""The bundled sample corpus is what its recipe builds from the fetched registry files."""

from __future__ import annotations

import json
import subprocess
import sys

from lbpe.presets import SAMPLE_CORPUS, sample_corpus
from tests.support.data import ROOT


def test_the_sample_corpus_rebuilds_from_its_recipe():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_sample_corpus.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_sample_corpus_is_mixed_and_small():
    text = sample_corpus().decode("utf-8")
    record = json.loads((SAMPLE_CORPUS.parent / "corpus.json").read_text("utf-8"))
    assert record["bytes"] == len(text.encode()) < 3_000_000
    assert {p["part"].split("-")[0] for p in record["parts"]} == {"prose", "speeches", "code", "languages"}
    assert all(p["licence"] for p in record["parts"])
    assert "Call me Ishmael" in text and "def " in text and "function" in text
    assert any("\u4e00" <= c <= "\u9fff" for c in text) or any("\u0400" <= c <= "\u04ff" for c in text)
