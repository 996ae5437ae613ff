"""Encoding speed on one thread: long texts cold and warm, and one short text per call, beside tiktoken."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import lbpe
from bench.common import DATA, PATHS, WARM_UP, mbps, tiktoken_encoding, timed
from lbpe import native
from lbpe.presets import load_preset


def throughput(rows: list, texts: dict[str, str], rounds: int) -> None:
    hf = {}
    try:
        from tokenizers import Tokenizer as HF

        hf["o200k_base"] = HF.from_file(str(DATA / "hf" / "gpt4o" / "tokenizer.json"))
    except Exception as exc:  # noqa: BLE001 - a missing optional peer only drops a column
        print(f"(HF tokenizers column skipped: {exc})", file=sys.stderr)
    for vocab in ("cl100k_base", "o200k_base"):
        ref = tiktoken_encoding(vocab)
        tok = load_preset(vocab)
        for mode in lbpe.MODES:
            tok.encode(WARM_UP, mode=mode)
        for label, text in texts.items():
            # every round times each encoder once, right after tiktoken: the ratio to tiktoken is
            # the median over rounds of the ratio within a round (a slow spell of the shared
            # machine stretches a whole round), the MB/s the best round
            times: dict[tuple[str, str], list[float]] = {}
            for _ in range(rounds):
                timed(times, ("tiktoken", "-"), ref.encode_ordinary, text)
                if vocab in hf:
                    timed(times, ("HF tokenizers", "-"), hf[vocab].encode, text, add_special_tokens=False)
                for mode in lbpe.MODES:
                    for path in PATHS:
                        native.use(path)
                        tok.clear_cache()
                        name = f"lbpe {mode} ({path})"
                        timed(times, (name, "cold"), tok.encode, text, mode=mode, disallowed_special=())
                        timed(times, (name, "warm"), tok.encode, text, mode=mode, disallowed_special=())
                native.use(PATHS[0])
            base = times[("tiktoken", "-")]
            for (encoder, cache), seconds in times.items():
                ratio = statistics.median(b / s for b, s in zip(base, seconds))
                slower = "-"
                if cache == "cold":  # cold and warm of a round ran back to back
                    slower = statistics.median(c / w for c, w in zip(seconds, times[(encoder, "warm")]))
                rows.append((vocab, label, encoder, cache, mbps(text, min(seconds)), ratio, slower))


def _ids_of(fastokens_tokenizer: Any) -> Callable[[str], list[int]]:
    return lambda text: fastokens_tokenizer.encode(text).ids


def _encoding_with(tok: Any, mode: str) -> Callable[[str], list[int]]:
    """``tok.encode(text, mode=mode)`` as a person writes it, in a frame like fastokens' above
    (a ``functools.partial`` holding the keyword would build a dict for every call)."""
    return lambda text: tok.encode(text, mode=mode)


def short_calls(rows: list, english: str, rounds: int) -> None:
    """Microseconds per ``encode`` call on short texts (sentences, one call each, warm caches):
    the per-call cost a chat or an API server pays. tiktoken and lbpe with their default
    special-token checks (a special token's text refused), fastokens with its own default (such
    text matched as the special token); each looks for them in every text."""
    from bench.peers import peers  # (imports the peers that are installed)

    sentences = [s.strip() for s in english.replace("\n", " ").split(". ") if s.strip()][:20_000]
    for vocab in ("cl100k_base", "o200k_base"):
        tok = load_preset(vocab)
        encoders: dict[str, tuple[str, Callable[[str], object]]] = {}
        for peer in peers(vocab):
            if peer.name == "tiktoken":
                encoders[peer.name] = (PATHS[0], peer.load().encode)
            elif peer.name == "fastokens":
                encoders[peer.name] = (PATHS[0], _ids_of(peer.load()))
        for mode in lbpe.MODES:
            for path in PATHS:
                encoders[f"lbpe {mode} ({path})"] = (path, _encoding_with(tok, mode))
        for path, encode in encoders.values():
            native.use(path)
            for s in sentences:
                encode(s)  # warm
        times: dict[str, list[float]] = {}
        for _ in range(rounds):
            for label, (path, encode) in encoders.items():
                native.use(path)
                t = time.perf_counter()
                for s in sentences:
                    encode(s)
                times.setdefault(label, []).append(time.perf_counter() - t)
        native.use(PATHS[0])
        base = times["tiktoken"]
        for label, seconds in times.items():
            ratio = statistics.median(b / s for b, s in zip(base, seconds))
            rows.append(
                (vocab, f"{len(sentences):,} sentences", label, f"{min(seconds) / len(sentences) * 1e6:.2f} us", ratio)
            )
