"""tokenizer.json files with their own patterns beside HF tokenizers, and the transformers bridge
(``LBPETokenizer``) beside lbpe's own ``encode_batch``."""

from __future__ import annotations

import statistics
import time

import lbpe
from bench.common import DATA, PATHS, mbps, read_text, timed
from lbpe import native
from lbpe.presets import load_preset

#: tokenizer.json files with their own pre-tokeniser patterns (fetched by scripts/fetch_data.py).
HF_FILES = {
    "Llama 3": "hf/llama3/tokenizer.json",
    "Qwen 3": "hf/qwen3/tokenizer.json",
    "DeepSeek-V3": "hf/deepseek_v3/tokenizer.json",
    "Gemma 3": "hf/gemma3/tokenizer.json",
}

HF_FILES_TITLE = (
    "tokenizer.json files with their own patterns: 2 MB of English, code and other languages, one "
    "thread, CPU time (x HF tokenizers: median of within-round ratios)"
)
HF_FILES_HEADER = ["file", "pre-tokeniser", "encoder", "MB/s", "x HF tokenizers"]


def hf_files(rows: list, texts: dict[str, str], rounds: int) -> None:
    """Cold encodes of files whose pre-tokeniser is their own (not a bundled preset), next to HF
    tokenizers' Rust encoder on the same file and text. Both find the file's added tokens in the
    text (HF always does); lbpe's BPE ids are checked equal to HF's first, and a file where they
    differ is reported as such, not timed."""
    from tokenizers import Tokenizer as HF

    text = texts["English prose"][: 1 << 20] + texts["code"][: 1 << 19] + texts["multilingual"][: 1 << 19]
    for label, relative in HF_FILES.items():
        ref = HF.from_file(str(DATA / relative))
        tok = lbpe.load(DATA / relative)
        want = ref.encode(text, add_special_tokens=False).ids
        unequal = [path for path in PATHS if _encode(tok, text, "bpe", path) != want]
        native.use(PATHS[0])
        if unequal:
            rows.append((label, tok.pretokenizer_name, f"lbpe bpe ({', '.join(unequal)}): NOT HF's ids", "-", "-"))
            continue
        times: dict[str, list[float]] = {}
        for _ in range(rounds):
            t = time.process_time()
            ref.encode(text, add_special_tokens=False)
            times.setdefault("HF tokenizers", []).append(time.process_time() - t)
            for mode in lbpe.MODES:
                for path in PATHS:
                    native.use(path)
                    tok.clear_cache()
                    t = time.process_time()
                    tok.encode(text, mode=mode, allowed_special="all")
                    times.setdefault(f"lbpe {mode} ({path}), cold", []).append(time.process_time() - t)
        native.use(PATHS[0])
        base = times["HF tokenizers"]
        for name, seconds in times.items():
            ratio = statistics.median(b / s for b, s in zip(base, seconds))
            rows.append((label, tok.pretokenizer_name, name, mbps(text, min(seconds)), ratio))


def _encode(tok: lbpe.Tokenizer, text: str, mode: str, path: str) -> list[int]:
    native.use(path)
    tok.clear_cache()
    return tok.encode(text, mode=mode, allowed_special="all")


def paragraphs() -> list[str]:
    """The real paragraphs the transformers tests encode (tests/integration/test_transformers.py):
    prose, code, many languages."""
    out = []
    for name, sep in (
        ("moby_dick.txt", "\n\n"),
        ("code.txt", "\n\n"),
        ("multilingual.txt", "\n"),
        ("multilingual_words.txt", "\n\n"),
    ):
        out += [p for p in read_text(f"text/{name}").split(sep) if p.strip()]
    return out


#: The transformers bridge's cases: (label, what LBPETokenizer.from_pretrained takes, what lbpe.load reads).
HF_BRIDGE = (
    ("mistral-7b", "mistral-7b", None),
    ("cl100k_base", "cl100k_base", None),
    ("Llama 3 tokenizer.json", "hf/llama3", "hf/llama3/tokenizer.json"),
)


HF_BRIDGE_TITLE = (
    "transformers: LBPETokenizer(texts)['input_ids'] against lbpe's encode_batch, mode lbpe, one thread "
    "(ratio: median of within-round ratios; target <= 1.5)"
)
HF_BRIDGE_HEADER = ["vocabulary", "input", "lbpe encode_batch", "LBPETokenizer", "time / lbpe's", "model's own (BPE)"]


def hf_bridge(rows: list, rounds: int) -> None:
    """``LBPETokenizer(texts)["input_ids"]`` against lbpe's ``encode_batch`` of the same texts
    (mode lbpe, special tokens found in the text and added around it), one thread each; cold:
    both tokenizers' caches emptied first. The model's own tokenizer (BPE) is timed beside."""
    from lbpe.hf import LBPETokenizer

    texts = paragraphs()
    mb = sum(len(t.encode()) for t in texts) / 1e6
    for label, given, read in HF_BRIDGE:
        where = given if read is None else str(DATA / given)
        ours = load_preset(given) if read is None else lbpe.load(DATA / read)
        bridge = LBPETokenizer.from_pretrained(where, mode="lbpe")
        own = LBPETokenizer.from_pretrained(where, mode="bpe")
        inner = bridge._lbpe.tok  # the bridge's own lbpe tokenizer (its caches are its own)
        times: dict[str, list[float]] = {}
        for _ in range(rounds):
            for cache in ("cold", "warm"):
                if cache == "cold":
                    ours.clear_cache()
                    inner.clear_cache()
                timed(
                    times,
                    ("lbpe", cache),
                    ours.encode_batch,
                    texts,
                    mode="lbpe",
                    allowed_special="all",
                    add_special_tokens=True,
                )
                timed(times, ("bridge", cache), bridge, texts)
            timed(times, ("own", "-"), own, texts)
        for cache in ("cold", "warm"):
            base, mine = times[("lbpe", cache)], times[("bridge", cache)]
            rows.append(
                (
                    label,
                    f"{len(texts):,} paragraphs, {mb:.1f} MB, {cache}",
                    f"{min(base):.2f}s",
                    f"{min(mine):.2f}s",
                    statistics.median(b / a for a, b in zip(base, mine)),
                    f"{min(times[('own', '-')]):.2f}s",
                )
            )
