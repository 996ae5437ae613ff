"""The ``lbpe`` argument parser: each command's options and help, and the function that runs it."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from lbpe import __version__
from lbpe.analysis.metrics import RENYI_POWER
from lbpe.cli.corpus import cmd_export, cmd_stats
from lbpe.cli.playground import cmd_build_web, cmd_serve
from lbpe.cli.text import cmd_compare, cmd_encode, cmd_explain
from lbpe.cli.train import cmd_train
from lbpe.corpus.containers import FORMATS
from lbpe.native import backend
from lbpe.tokenizer import METHODS, MODES

__all__ = ["build_parser"]


def _input_file(command: str) -> Callable[[str], str]:
    """The argument type of a file ``command`` reads by its size and in parallel (stats, export,
    train; export also resumes): not standard input."""
    why = f"{command} reads its files by their size and in parallel"
    if command == "export":
        why += ", and resumes where it stopped"

    def input_file(name: str) -> str:
        if name == "-" and not os.path.exists(name):
            raise argparse.ArgumentTypeError(
                f"standard input (-) is not read here: {why}; save it to a file first and name that "
                "(a file called - is ./-)"
            )
        return name

    return input_file


def _special_token(value: str) -> tuple[str, int]:
    """``TEXT=ID`` (the last ``=`` parts them: a special's text may hold one) as ``(text, id)``."""
    text, sep, number = value.rpartition("=")
    if not sep or not text:
        raise argparse.ArgumentTypeError(
            f"{value!r}: give it as TEXT=ID, a special token's text and its id, e.g. '<|endoftext|>=100257'"
        )
    if not (number.isascii() and number.isdigit()):
        raise argparse.ArgumentTypeError(f"{value!r}: its id must be a whole number from 0, not {number!r}")
    return text, int(number)


def _add_special_token(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--special-token",
        action="append",
        type=_special_token,
        default=None,
        metavar="TEXT=ID",
        dest="special_tokens",
        help="a rank file's special token and its id, e.g. '<|endoftext|>=100257' (repeatable; a file "
        "named after an OpenAI encoding has that encoding's unless given); other formats carry their own",
    )


def _add_text_field(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--text-field", default="text", metavar="NAME", help="JSONL/Parquet: the text's field (default: text)"
    )


def _add_inputs(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--lines",
        action="store_true",
        help="text files: one document per line, lines of only white space skipped (default: one per file)",
    )
    _add_text_field(p)
    p.add_argument(
        "--skip-bad",
        action="store_true",
        help="count and skip bad documents (invalid UTF-8, not JSON, no text field) instead of stopping",
    )


def _renyi_power(value: str) -> float:
    import math

    try:
        power = float(value)
    except ValueError:
        power = math.nan
    if not math.isfinite(power) or power < 0:
        raise argparse.ArgumentTypeError(f"{value!r} is not a finite number >= 0 (e.g. 2.5; 1 gives Shannon entropy)")
    return power


def _processes(value: str) -> int:
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"{value!r}: give a whole number, at least 1 (default: one per core)")
    return count


def _add_train(sub) -> None:
    p = sub.add_parser("train", help="train a BPE vocabulary and write it as an HF tokenizer.json")
    p.add_argument(
        "--vocab-size", required=True, type=int, help="number of tokens (specials, 256 bytes, base units, merges)"
    )
    p.add_argument(
        "--style",
        choices=("gpt2", "llama"),
        default="gpt2",
        help="gpt2: split with a pre-tokenizer preset (default); llama: SentencePiece's way, as LLaMA "
        "(lines, \u2581 for spaces, digits alone, no token across scripts, at most 16 characters; "
        "<unk> <s> </s> at ids 0-2; LLaMA's tokenizer.json form)",
    )
    p.add_argument("--unit", choices=("char", "byte"), default="char", help="char (byte fallback; default) or byte")
    p.add_argument("--scaffold", action="store_true", help="Scaffold-BPE training (Lian et al. 2024)")
    p.add_argument("--pattern", default=None, help="pre-tokenizer preset (default: paper; not with --style llama)")
    p.add_argument("--special", action="append", default=[], metavar="TOKEN", help="a special token (repeatable)")
    for role, example in (("bos", "<s>"), ("eos", "<|endoftext|>"), ("pad", "<pad>"), ("unk", "<unk>")):
        p.add_argument(
            f"--{role}",
            default=None,
            metavar="TOKEN",
            help=f"the {role} special token (e.g. {example}), written to tokenizer_config.json for transformers",
        )
    p.add_argument("--max-chars", type=int, default=None, help="char unit: keep only the N most frequent characters")
    p.add_argument(
        "--character-coverage",
        type=float,
        default=None,
        metavar="SHARE",
        help="char unit: keep the most frequent characters that make up this share of the text's "
        "characters (SentencePiece's option; LLaMA: 0.99995; default: all)",
    )
    p.add_argument("-o", "--output", required=True, help="the tokenizer.json to write (.gz: gzip-compressed)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _add_text_field(p)
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        type=_input_file("train"),
        help="UTF-8 text files (.txt: one document each), .jsonl/.ndjson (optionally .gz) or .parquet",
    )
    p.set_defaults(run=cmd_train)


def _add_build_web(sub) -> None:
    p = sub.add_parser("build-web", help="assemble the offline browser page (Pyodide + lbpe) into a static folder")
    p.add_argument(
        "--out",
        required=True,
        help="the folder to write: an earlier build's files there are replaced, any other file kept",
    )
    p.add_argument(
        "--space",
        nargs="?",
        const="",
        default=None,
        metavar="DIR",
        help="also write a Hugging Face static Space folder (default DIR: build/spaces/static in the checkout)",
    )
    p.add_argument("--root", default=None, help="the lbpe checkout with static/ and node_modules/ (default: found)")
    p.set_defaults(run=cmd_build_web)


def _add_serve(sub) -> None:
    p = sub.add_parser("serve", help="run the Gradio playground (needs the [app] extra)")
    p.add_argument("--host", default=None, help="address to listen on (default: $GRADIO_SERVER_NAME or 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default: $GRADIO_SERVER_PORT or 7860)")
    p.set_defaults(run=cmd_serve)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lbpe", description="Classic BPE and long-token-first BPE (LBPE).")
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, *, many: str = "") -> None:
        # many: the command, which reads files of any size (else one text, or - for standard input)
        p.add_argument(
            "--vocab",
            default=None,
            help="vocabulary file or folder (.tiktoken, encoder.json + vocab.bpe, tokenizer.json, SentencePiece "
            ".model, optionally .gz) or a bundled preset: mistral-7b (default), lbpe-llama-32k, lbpe-32k, gpt2, "
            "cl100k_base, o200k_base",
        )
        p.add_argument("--pattern", default=None, help="pre-tokenizer preset (default: inferred from the vocabulary)")
        _add_special_token(p)
        if many:
            p.add_argument(
                "files",
                nargs="+",
                metavar="INPUT",
                type=_input_file(many),
                help="UTF-8 text files (.txt; one document each, or per line with --lines), "
                ".jsonl/.ndjson (optionally .gz) or .parquet",
            )
        else:
            p.add_argument("file", nargs="?", default="-", help="UTF-8 text file, or - for standard input (default)")

    def specials_flag(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--specials",
            action="store_true",
            help="read special tokens' text in the input (e.g. <|endoftext|>) as those tokens, as the playground's "
            "toggle does; by default it is ordinary text",
        )

    p = sub.add_parser("encode", help="print token ids separated by spaces")
    common(p)
    p.add_argument(
        "--mode",
        required=True,
        choices=METHODS,
        help="bpe (classic), lbpe (long-token-first), longest-prefix (greedy from the left), longest-suffix "
        "(greedy from the right), least-tokens (fewest tokens; ties: longest tokens first from the left) or "
        "dropout (BPE-dropout; needs --dropout)",
    )
    p.add_argument(
        "--dropout",
        type=float,
        default=None,
        metavar="RATE",
        help="with --mode dropout: the chance to skip each merge, from 0 (bpe) to 1 (single units), e.g. 0.1",
    )
    p.add_argument(
        "--seed", type=int, default=None, help="with --mode dropout: the same seed gives the same ids (default: random)"
    )
    specials_flag(p)
    p.set_defaults(run=cmd_encode)

    p = sub.add_parser(
        "compare",
        help="print the BPE and LBPE segmentations and their token counts",
        description="Each method's token count, then its tokens between bars; in a token, \\| is a bar, "
        "\\\\ a backslash, \\n \\r \\t a line end or tab, \\xNN a byte of a character split across tokens "
        "(80-ff) or a control character (00-1f, 7f), \\uNNNN a control character 0080-009f or a character "
        "that shows nothing or moves the text (a zero-width space, a direction override, a variation selector), "
        "\\UNNNNNNNN one beyond ffff (a tag character); a combining mark or skin tone that starts a token "
        "escaped too.",
    )
    common(p)
    p.add_argument(
        "--methods",
        default="bpe,lbpe",
        metavar="LEFT,RIGHT",
        help="the two inference methods to compare, the baseline first (default: bpe,lbpe); any two of "
        + ", ".join(METHODS),
    )
    p.add_argument(
        "--dropout", type=float, default=None, metavar="RATE", help="when one of --methods is dropout: its rate"
    )
    p.add_argument("--seed", type=int, default=None, help="when one of --methods is dropout: its seed")
    specials_flag(p)
    p.set_defaults(run=cmd_compare)

    p = sub.add_parser(
        "explain", help="both encodings of a word or short span worked step by step, and why they differ"
    )
    p.add_argument(
        "words",
        nargs="*",
        metavar="TEXT",
        help="the word or span (several arguments are joined by one space; none: read standard input); "
        "quote a leading space: ' Capitals'",
    )
    p.add_argument("--vocab", default=None, help="vocabulary file or folder, or a bundled preset (default mistral-7b)")
    p.add_argument("--pattern", default=None, help="pre-tokenizer preset (default: inferred from the vocabulary)")
    _add_special_token(p)
    p.add_argument(
        "--methods",
        default="bpe,lbpe",
        metavar="LEFT,RIGHT",
        help="the two inference methods whose steps to show (default: bpe,lbpe, with why they differ); any two of "
        + ", ".join(METHODS)
        + ", each with its own steps",
    )
    p.add_argument(
        "--dropout", type=float, default=None, metavar="RATE", help="when one of --methods is dropout: its rate"
    )
    p.add_argument("--seed", type=int, default=None, help="when one of --methods is dropout: its seed")
    p.add_argument(
        "--json",
        action="store_true",
        help="print the steps as JSON (schema: lbpe.analysis.explain.Explanation; for another pair "
        "lbpe.analysis.pair_steps.PairExplanation)",
    )
    specials_flag(p)
    p.set_defaults(run=cmd_explain)

    _add_train(sub)
    _add_build_web(sub)
    _add_serve(sub)

    p = sub.add_parser("stats", help="corpus statistics for BPE and LBPE (token lengths, compression)")
    common(p, many="stats")
    _add_inputs(p)
    p.add_argument(
        "--json",
        action="store_true",
        help="print the JSON document (schema: lbpe.analysis.comparison; with --methods: lbpe.analysis.methods)",
    )
    p.add_argument(
        "--renyi-power",
        type=_renyi_power,
        default=RENYI_POWER,
        metavar="P",
        help=f"power of the Rényi entropy and efficiency (default {RENYI_POWER}, as Zouhar et al. 2023)",
    )
    p.add_argument(
        "--methods",
        default=None,
        metavar="LIST",
        help="one row per inference method instead of BPE against LBPE: comma-separated, from "
        f"{','.join(METHODS)}, or all (tokens, bytes/token, long-token share, Rényi efficiency, "
        "fertility, words cut as BPE cuts them)",
    )
    p.add_argument(
        "--dropout",
        type=float,
        default=None,
        metavar="RATE",
        help="with --methods ...,dropout: the chance to skip each merge, from 0 to 1, e.g. 0.1",
    )
    p.add_argument(
        "--seed", type=int, default=None, help="with --methods ...,dropout: the same seed gives the same figures"
    )
    p.add_argument(
        "--workers", type=_processes, default=None, help="processes, at most one per core (default: all cores)"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_stats)

    p = sub.add_parser("export", help="token ids of a corpus as shards a trainer reads (npy, nanoGPT, llm.c, ...)")
    common(p, many="export")
    _add_inputs(p)
    p.add_argument("--mode", required=True, choices=MODES, help="bpe (classic) or lbpe (long-token-first)")
    p.add_argument("--out", required=True, help="the folder for the shards and lbpe-index.json")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="npy",
        help="npy (default: tokens-*.npy + offsets-*.npy), nanogpt (train.bin/val.bin), llmc (llm.c .bin), "
        "megatron (.bin + .idx), datatrove (.ds + .ds.index), litdata (StreamingDataset chunks, an item a "
        "document), litdata-tokens (the same for TokensLoader, as LitGPT pretrains)",
    )
    p.add_argument(
        "--eos",
        default=None,
        metavar="TOKEN",
        help="the end-of-text token, by spelling (e.g. '<|endoftext|>', '</s>') or id, once per document "
        "(before each for llmc, as llm.c does; after each for the others)",
    )
    p.add_argument(
        "--bos",
        default=None,
        metavar="TOKEN",
        help="the start-of-text token, by spelling (e.g. '<s>', '<bos>', '<|begin_of_text|>') or id, before "
        "each document, as LLaMA's, Mistral's and Gemma's tokenizers put it (after --eos for llmc)",
    )
    p.add_argument("--shuffle", action="store_true", help="documents of each shard in a random order (see --seed)")
    p.add_argument("--seed", type=int, default=0, help="seed of --shuffle and --val-fraction (default 0)")
    p.add_argument(
        "--val-fraction",
        type=float,
        default=0.0,
        metavar="F",
        help="hold out about this share of the documents as a validation split (e.g. 0.005; chosen by --seed)",
    )
    p.add_argument(
        "--shard-tokens",
        type=int,
        default=100_000_000,
        metavar="N",
        help="start a new shard after N ids (at a document end; default 100,000,000)",
    )
    p.add_argument(
        "--num-proc",
        type=_processes,
        default=None,
        metavar="N",
        help="processes, at most one per core (default: all cores)",
    )
    p.add_argument("--resume", action="store_true", help="continue an export in --out after its complete shards")
    p.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local processes (default) or Ray Data (the lbpe[ray] extra), on this machine or a cluster",
    )
    p.add_argument(
        "--address",
        default=None,
        help="with --engine ray: the cluster (e.g. ray://head:10001; default: $RAY_ADDRESS, or a local instance)",
    )
    p.add_argument("--separator-id", type=int, default=None, help="deprecated: use --eos ID")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=cmd_export)
    return parser


def _version() -> str:
    """What ``lbpe --version`` prints: the version, the encoding path in use, the Python."""
    return f"lbpe {__version__} ({backend().name} path, Python {sys.version.split()[0]})"
