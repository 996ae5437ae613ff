#!/usr/bin/env python3
"""Training speed, LLaMA style: a 32K vocabulary on 10 MB of text, lbpe beside HF tokenizers
and sentencepiece.

All three see the same file (``text/sotu.txt`` from ``scripts/fetch_data.py``, 10.7 MB of State
of the Union addresses, one paragraph per line) and train SentencePiece-style BPE as LLaMA:

* lbpe: ``count_llama_pieces`` + ``train_from_counts(style="llama")`` (one core, pure Python);
* sentencepiece: ``SentencePieceTrainer`` with LLaMA's options (BPE, byte fallback,
  split_digits, max_sentencepiece_length 16, identity normalisation, dummy prefix, white space
  kept, whitespace-only pieces; character_coverage 1.0 as lbpe keeps every character; lines of
  any length), with all the cores it finds;
* HF: ``BpeTrainer(max_token_length=16)`` after the normalizer of LLaMA's tokenizer.json
  (``Prepend("▁")``, ``Replace(" ", "▁")``; HF trains line by line) and a ``Split``
  pre-tokenizer (:data:`HF_PIECES`) that cuts much as lbpe's llama pieces (HF's own
  ``Metaspace`` + ``UnicodeScripts`` would cut ``▁`` off every word: ``▁`` is script Common);
  the 256 ``<0xNN>`` tokens and ``<unk>``, ``<s>``, ``</s>`` as special tokens; Rayon uses all
  the cores it finds.

Times are wall-clock seconds, best of ``--rounds`` (the trainers alternate), in one run. The
target of issue 14 is lbpe within 3x of both. This is a benchmark, not a test.

Usage: python bench/train_llama.py [--rounds 3] [--vocab-size 32000] [--file text/sotu.txt]
"""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.training import arguments, best_of  # noqa: E402
from lbpe.train import count_llama_pieces, train_from_counts  # noqa: E402
from tests.support.sentencepiece_llama import LLAMA_OPTIONS  # noqa: E402


def ours(path: Path, vocab_size: int) -> tuple[tuple[float, float], set[str]]:
    """(seconds counting, seconds merging, the tokens)."""
    t0 = time.perf_counter()
    counts = count_llama_pieces([path])
    t1 = time.perf_counter()
    vocab = train_from_counts(counts, vocab_size=vocab_size, style="llama")
    t2 = time.perf_counter()
    tokens = {t.decode() for t in vocab.tokens} | set(vocab.special) | {f"<0x{b:02X}>" for b in range(256)}
    return (t1 - t0, t2 - t1), tokens


def sentencepiece(path: Path, vocab_size: int) -> tuple[tuple[float], set[str]]:
    import sentencepiece as spm

    model = io.BytesIO()
    t0 = time.perf_counter()
    spm.SentencePieceTrainer.train(
        input=str(path),
        model_writer=model,
        vocab_size=vocab_size,
        character_coverage=1.0,
        num_threads=os.cpu_count() or 1,
        **LLAMA_OPTIONS,
    )
    seconds = time.perf_counter() - t0
    sp = spm.SentencePieceProcessor(model_proto=model.getvalue())
    return (seconds,), {sp.id_to_piece(i) for i in range(sp.get_piece_size())}


def hf(path: Path, vocab_size: int) -> tuple[tuple[float], set[str]]:
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE(byte_fallback=True, unk_token="<unk>", fuse_unk=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("\u2581"), normalizers.Replace(" ", "\u2581")])
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(HF_PIECES), behavior="isolated")
    specials = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, show_progress=False, special_tokens=specials, max_token_length=16
    )
    t0 = time.perf_counter()
    tok.train([str(path)], trainer)
    return (time.perf_counter() - t0,), set(tok.get_vocab())


#: lbpe's llama pieces as one Oniguruma regex, near enough for a benchmark: a digit alone; a run
#: of ``▁`` and the letters (and marks) of one of the main scripts after it; a run of ``▁`` and
#: other characters (punctuation, symbols: script Common); a run of ``▁`` alone.
_SCRIPTS = [
    "\\p{Latin}",
    "\\p{Greek}",
    "\\p{Cyrillic}",
    "\\p{Han}\\p{Hiragana}\\p{Katakana}\u30fc",
    "\\p{Arabic}",
    "\\p{Hebrew}",
    "\\p{Hangul}",
    "\\p{Thai}",
    "\\p{Devanagari}",
    "\\p{Armenian}",
    "\\p{Georgian}",
]
HF_PIECES = "|".join(
    ["[0-9]"] + [f"\u2581*[{s}][{s}\\p{{M}}]*" for s in _SCRIPTS] + ["\u2581*[^\u25810-9\\p{L}\\p{M}]+", "\u2581+"]
)


def main() -> int:
    args, path = arguments(__doc__)
    if path is None:
        return 1
    import sentencepiece as spm
    import tokenizers

    best = best_of(
        args.rounds,
        {
            "lbpe": lambda: ours(path, args.vocab_size),
            "sentencepiece": lambda: sentencepiece(path, args.vocab_size),
            "hf": lambda: hf(path, args.vocab_size),
        },
    )
    best_ours, tok_ours = best["lbpe"]
    (best_sp,), tok_sp = best["sentencepiece"]
    (best_hf,), tok_hf = best["hf"]
    total = sum(best_ours)
    mb = path.stat().st_size / 1e6
    print(
        f"text: {path.name}, {mb:.1f} MB; vocab_size {args.vocab_size}; best of {args.rounds}; {os.cpu_count()} CPUs; "
        f"Python {sys.version.split()[0]}; sentencepiece {spm.__version__}; tokenizers {tokenizers.__version__}"
    )
    print(f"{'trainer':<34}{'seconds':>9}{'tokens':>9}{'shared with lbpe':>18}")
    print(
        f"{'lbpe (1 core, pure Python)':<34}{total:>9.2f}{len(tok_ours):>9}{'':>18}"
        f"   (counting {best_ours[0]:.2f} s, merging {best_ours[1]:.2f} s)"
    )
    for name, seconds, tokens in (
        ("sentencepiece (all cores)", best_sp, tok_sp),
        ("HF BpeTrainer (all cores)", best_hf, tok_hf),
    ):
        print(f"{name:<34}{seconds:>9.2f}{len(tokens):>9}{len(tokens & tok_ours) / len(tokens):>18.2%}")
    print(f"lbpe / sentencepiece: {total / best_sp:.2f}x; lbpe / HF: {total / best_hf:.2f}x (target <= 3x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
