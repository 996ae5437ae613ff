"""``lbpe train``: train a BPE vocabulary and write it as an HF tokenizer.json."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TextIO

from lbpe.corpus.documents import check_reading
from lbpe.errors import LbpeError
from lbpe.progress import Bar

__all__ = ["cmd_train"]


def cmd_train(args: argparse.Namespace, out: TextIO) -> None:
    from lbpe.formats.hf_write import write_tokenizer_json, write_transformers_config
    from lbpe.playground.service import check_train_options, scaffold_note, train_view
    from lbpe.train import TrainOptions

    llama = args.style == "llama"
    check_train_options(style=args.style, unit=args.unit, pattern=args.pattern)  # before any file is read
    check_reading(args.files, text_field=args.text_field)
    given = {role: getattr(args, role) for role in ("bos", "eos", "pad", "unk") if getattr(args, role) is not None}
    for role, token in given.items():
        if not token:  # an unset shell variable: no such token would be written, with no word
            raise LbpeError(f"--{role} is empty (an unset shell variable?): give the token's text, or leave it out")
    if llama and given.get("unk", "<unk>") != "<unk>":  # the model's unknown token is id 0's
        raise LbpeError(
            "--style llama keeps <unk> as the unknown token (id 0, what the tokenizer.json model names): "
            f"leave out --unk {given['unk']!r}, or train with --style gpt2"
        )
    # llama: LLaMA's special tokens (at ids 0-2 whatever is given), unless other roles are named
    roles = {"bos": "<s>", "eos": "</s>", "unk": "<unk>", **given} if llama else given
    specials = list(dict.fromkeys([*args.special, *roles.values()]))  # a role's token is a special token too
    if Path(args.output).name != "tokenizer.json" and given:
        raise LbpeError(
            "--bos/--eos/--pad/--unk write tokenizer_config.json beside the output: name it "
            "tokenizer.json (e.g. -o my-tokenizer/tokenizer.json)"
        )
    options = TrainOptions(
        vocab_size=args.vocab_size,
        unit=args.unit,
        style=args.style,
        pattern=args.pattern,
        scaffold=args.scaffold,
        special_tokens=tuple(specials),
        max_chars=args.max_chars,
        character_coverage=args.character_coverage,
    )
    if args.output.endswith(("/", os.sep)) or Path(args.output).is_dir():
        folder = args.output.rstrip("/" + os.sep) or args.output
        raise LbpeError(
            f"-o takes the file to write, not a folder: give -o {Path(folder) / 'tokenizer.json'} "
            "(transformers' files are written beside a tokenizer.json)"
        )
    _check_folder(Path(args.output).parent)  # before a long training, not after it
    _check_not_an_input(Path(args.output), args.files)
    bar = Bar(enabled=not args.quiet)
    try:
        trained = train_view(
            args.files,
            options=options,
            progress=bar.phase("merging "),
            read_progress=bar.phase("counting", in_bytes=True),
            text_field=args.text_field,
        )
    finally:
        bar.close()
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)  # only once there is a vocabulary to write
    # as trained: its style and preset; llama's post-processor puts the bos asked for before each text
    write_tokenizer_json(trained["vocab"], args.output, bos=roles.get("bos") if llama else None)
    print(f"wrote {args.output}: {trained['message']}", file=sys.stderr)
    scaffold = scaffold_note(trained["vocab"], option="--scaffold")
    if scaffold:  # what a reader that knows nothing of them does with the file
        print(f"note: {scaffold}", file=sys.stderr)
    for special in specials:
        if special.isalnum():  # a word: HF matches a special token wherever a text spells it
            print(
                f"note: special token {special!r} is spelled as ordinary text: Hugging Face tokenizers and "
                "transformers take it as the special token wherever a text spells it, inside words too, and "
                f"decoding with skip_special_tokens drops it; give it a spelling no text has, e.g. '<|{special}|>'",
                file=sys.stderr,
            )
    if Path(args.output).name == "tokenizer.json":
        folder = Path(args.output).parent
        names = write_transformers_config(folder, roles)
        print(
            f"wrote {', '.join(names)} beside it: transformers.AutoTokenizer.from_pretrained({str(folder)!r})",
            file=sys.stderr,
        )


def _check_not_an_input(output: Path, files: list[str]) -> None:
    """Refuse an output that is one of the training files (by another spelling or a link too):
    writing the vocabulary would replace the corpus it was trained on."""
    import os

    target = output.resolve()
    for name in files:
        path = Path(name)
        same = path.resolve() == target
        if not same and output.exists() and path.exists():
            try:
                same = os.path.samefile(output, path)
            except OSError:
                same = False
        if same:
            raise LbpeError(
                f"-o {output} is one of the training files ({name}): writing the vocabulary there would "
                "replace the corpus; choose another output, such as -o tokenizer.json"
            )


def _check_folder(folder: Path) -> None:
    """Refuse an output folder that could not be made or written, without making it, as the
    system would refuse it (an OSError, which the CLI words with its fix): a refused or failed
    training leaves nothing behind."""
    import errno
    import os

    there = folder
    while not there.exists() and there != there.parent:
        there = there.parent
    code = errno.ENOTDIR if not there.is_dir() else errno.EACCES if not os.access(there, os.W_OK | os.X_OK) else 0
    if code:
        raise OSError(code, os.strerror(code), str(there))
