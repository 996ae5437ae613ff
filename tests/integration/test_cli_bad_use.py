"""The command line misused as people misuse it: each mistake ends in one line that says what is
wrong, never a traceback, a hang or a flood of processes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.cli import CLI, run_cli


def one_line_error(result: subprocess.CompletedProcess[str], command: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith(f"lbpe {command}: error: ") or "error:" in lines[-1], result.stderr
    return result.stderr


@pytest.fixture
def small_text(tmp_path):
    path = tmp_path / "small.txt"
    path.write_text("Tokenization matters.\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("value", ["0", "-1"])
def test_process_counts_below_one_are_refused(small_text, tmp_path, value):
    stats = run_cli("stats", "-q", "--vocab", "gpt2", "--workers", value, str(small_text), timeout=120)
    assert "--workers" in one_line_error(stats, "stats") and "at least 1" in stats.stderr
    export = run_cli(
        "export", "-q", "--vocab", "gpt2", "--mode", "bpe", "--num-proc", value, "--out", str(tmp_path / "o"),
        str(small_text), timeout=120,
    )  # fmt: skip
    assert "--num-proc" in one_line_error(export, "export") and "at least 1" in export.stderr
    assert not (tmp_path / "o").exists()


def test_more_processes_than_cores_start_one_per_core(small_text):
    import json

    cores = len(os.sched_getaffinity(0))
    asked = run_cli("stats", "-q", "--json", "--vocab", "gpt2", "--workers", "400", str(small_text), timeout=120)
    assert asked.returncode == 0, asked.stderr
    assert f"--workers 400: this machine has {cores} usable core" in asked.stderr
    alone = run_cli("stats", "-q", "--json", "--vocab", "gpt2", "--workers", "1", str(small_text), timeout=120)
    assert json.loads(asked.stdout) == json.loads(alone.stdout)


def test_library_pools_no_more_processes_than_cores():
    from lbpe.corpus.parallel import pool_size

    cores = len(os.sched_getaffinity(0))
    assert pool_size(10**6) == cores
    assert pool_size(1) == 1
    assert pool_size(None) == cores
    for bad in (0, -3, 2.5, "4", True):
        with pytest.raises(Exception, match="at least 1"):
            pool_size(bad)


def test_outputs_that_cannot_be_made_say_so(small_text, tmp_path):
    a_file = tmp_path / "a_file"
    a_file.write_text("in the way\n")
    export = run_cli(
        "export", "-q", "--vocab", "gpt2", "--mode", "bpe", "--out", str(a_file), str(small_text), timeout=120
    )
    assert str(a_file) in one_line_error(export, "export")
    under = run_cli(
        "export", "-q", "--vocab", "gpt2", "--mode", "bpe", "--out", str(a_file / "sub"), str(small_text), timeout=120
    )
    assert str(a_file) in one_line_error(under, "export")
    train = run_cli(
        "train", "-q", "--vocab-size", "300", "-o", str(a_file / "tokenizer.json"), str(small_text), timeout=120
    )
    assert str(a_file) in one_line_error(train, "train")
    web = run_cli("build-web", "--out", str(a_file / "site"), timeout=120)
    assert str(a_file) in one_line_error(web, "build-web")
    assert a_file.read_text() == "in the way\n"


@pytest.mark.parametrize("command", ["compare", "stats", "explain"])
def test_a_reader_that_stops_early_gets_no_traceback(tmp_path, command):
    path = tmp_path / "many.txt"
    path.write_text("a|b || c\n" * 20_000, encoding="utf-8")
    args = {
        "compare": ["compare", "--vocab", "gpt2", str(path)],
        "stats": ["stats", "-q", "--vocab", "gpt2", str(path)],
        "explain": ["explain", "--vocab", "gpt2", *["Capitals"] * 40],
    }[command]
    reader = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.readline()
    reader.stdout.close()  # as `| head -1` does
    stderr = reader.stderr.read().decode()
    reader.wait(timeout=300)
    assert stderr == "", stderr  # as quiet as `cat` is: the reader chose to stop


def test_output_cut_off_by_the_reader_is_not_called_a_success(tmp_path):
    """One long line (``encode``'s ids) that the reader stops taking part-way: the write of it
    was cut short without an error, and the command said 0 as if the reader had it all."""
    path = tmp_path / "long.txt"
    path.write_text("Capitals of Europe hold the maps. " * 30_000, encoding="utf-8")
    reader = subprocess.Popen(
        [*CLI, "encode", "--vocab", "gpt2", "--mode", "bpe", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert reader.stdout is not None and reader.stderr is not None
    assert reader.stdout.read(10)
    reader.stdout.close()  # as `| head -c 10` does, long before the line's end
    stderr = reader.stderr.read().decode()
    assert reader.wait(timeout=300) == 1  # as `cat` ends when its reader is gone
    assert stderr == "", stderr


def test_a_command_run_with_its_output_closed_says_so(small_text, tmp_path):
    """``lbpe encode ... >&-`` starts Python with no standard output (sys.stdout is None)."""
    result = subprocess.run(
        [*CLI, "encode", "--vocab", "gpt2", "--mode", "lbpe", str(small_text)],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.close(1),  # noqa: PLW1509 (the child's own standard output, closed)
    )
    assert "standard output is closed" in one_line_error(result, "encode")
    # a command that writes only files still runs
    done = subprocess.run(
        [*CLI, "train", "-q", "--vocab-size", "300", "-o", str(tmp_path / "t.json"), str(small_text)],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=300,
        preexec_fn=lambda: os.close(1),  # noqa: PLW1509
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="/dev/full is Linux's always-full device")
@pytest.mark.parametrize("command", ["encode", "stats"])
def test_a_full_disk_under_standard_output_is_named(small_text, command):
    """``lbpe encode ... > /dev/full``: the system's refusal names where the command wrote."""
    args = {"encode": ["encode", "--mode", "lbpe"], "stats": ["stats", "-q"]}[command]
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [*CLI, *args, "--vocab", "gpt2", str(small_text)],
            stdin=subprocess.DEVNULL,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    error = one_line_error(result, command)
    assert "standard output: No space left on device" in error and "free some space" in error, error
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_train_given_a_folder_for_its_output_names_the_file_to_give(small_text, tmp_path):
    (tmp_path / "made").mkdir()
    for output in (f"{tmp_path / 'made'}/", str(tmp_path / "made"), f"{tmp_path / 'new'}/"):
        result = run_cli("train", "-q", "--vocab-size", "300", "-o", output, str(small_text), timeout=120)
        error = one_line_error(result, "train")
        assert "-o takes the file to write, not a folder" in error and "tokenizer.json" in error, error
    assert not (tmp_path / "new").exists()


def test_explain_refuses_arguments_that_are_not_utf8():
    result = subprocess.run(
        [*CLI, "explain", "--vocab", "gpt2", os.fsdecode(b"caf\xff")], capture_output=True, text=True, timeout=120
    )
    assert "not UTF-8" in one_line_error(result, "explain")


def test_a_large_renyi_power_gives_the_min_entropy_limit(small_text):
    import json

    from lbpe.analysis.metrics import renyi_entropy

    # uniform use of 12 tokens: every order's entropy is log2(12)
    assert renyi_entropy(dict.fromkeys(range(12), 5), 1000.0) == pytest.approx(3.584962500721156)
    # shares 3/4 and 1/4: (a / (1 - a)) log2(3/4), the other share's (1/3)^1000 nothing beside it
    assert renyi_entropy({1: 3, 2: 1}, 1000.0) == pytest.approx(1000 / 999 * 0.41503749927884376)
    result = run_cli("stats", "-q", "--json", "--vocab", "gpt2", "--renyi-power", "1000", str(small_text), timeout=120)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["bpe"]["renyi_entropy"] > 0


def test_build_web_refuses_a_root_that_is_no_checkout(tmp_path):
    result = run_cli("build-web", "--out", str(tmp_path / "site"), "--root", str(tmp_path / "nowhere"), timeout=120)
    assert str(tmp_path / "nowhere") in one_line_error(result, "build-web")
    assert not (tmp_path / "site").exists()


def test_a_rank_file_of_unknown_name_asks_for_any_pattern_preset(tmp_path, small_text):
    import shutil

    from tests.support.data import data_file

    vocab = tmp_path / "myvocab.tiktoken"
    shutil.copy(data_file("openai/cl100k_base.tiktoken"), vocab)
    result = run_cli("encode", "--vocab", str(vocab), "--mode", "bpe", str(small_text), timeout=120)
    message = one_line_error(result, "encode")
    assert "--pattern" in message  # the flag, beside the library's keyword
    for name in ("cl100k_base", "o200k_base", "gpt2", "llama3", "qwen2", "paper"):
        assert name in message


def test_options_that_do_not_apply_are_refused(small_text, tmp_path):
    from lbpe.corpus.shards import ExportOptions
    from lbpe.errors import LbpeError
    from lbpe.train import TrainOptions

    export = run_cli(
        "export", "-q", "--vocab", "gpt2", "--mode", "bpe", "--address", "ray://nowhere:1",
        "--out", str(tmp_path / "o"), str(small_text), timeout=120,
    )  # fmt: skip
    assert "--engine ray" in one_line_error(export, "export")
    assert not (tmp_path / "o").exists()
    for flag, value in (("--max-chars", "5"), ("--character-coverage", "0.9")):
        train = run_cli(
            "train", "-q", "--unit", "byte", flag, value, "--vocab-size", "300",
            "-o", str(tmp_path / "t" / "tokenizer.json"), str(small_text), timeout=120,
        )  # fmt: skip
        assert flag in one_line_error(train, "train")
    assert not (tmp_path / "t").exists()
    with pytest.raises(LbpeError, match="engine='ray'"):
        ExportOptions(mode="bpe", address="ray://nowhere:1")
    with pytest.raises(LbpeError, match="unit='char'"):
        TrainOptions(vocab_size=300, unit="byte", max_chars=5)


def test_reading_options_no_input_takes_are_refused(small_text, tmp_path):
    """--lines splits text files, --text-field names a field of JSONL lines and Parquet rows:
    given where no input is of that kind, each was accepted and did nothing. Refused with the
    reason, by every command that reads corpora, and by export_shards; an input of the kind
    among others takes it."""
    from lbpe.corpus.shards import export_shards
    from lbpe.errors import LbpeError
    from lbpe.presets import load_preset

    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text('{"text": "one"}\n{"text": "two"}\n', encoding="utf-8")
    out = ("--out", str(tmp_path / "o"))
    for command in (("stats", "-q"), ("stats", "-q", "--methods", "bpe,lbpe"), ("export", "-q", "--mode", "bpe", *out)):
        lines = run_cli(*command, "--vocab", "gpt2", "--lines", str(jsonl), timeout=120)
        said = one_line_error(lines, command[0])
        assert "--lines" in said and "a.jsonl" in said and "none of the inputs is a text file" in said, said
        field = run_cli(*command, "--vocab", "gpt2", "--text-field", "body", str(small_text), timeout=120)
        said = one_line_error(field, command[0])
        assert "--text-field body" in said and "none of the inputs is a .jsonl or .parquet file" in said, said
    train = run_cli(
        "train", "-q", "--vocab-size", "300", "--text-field", "body",
        "-o", str(tmp_path / "t" / "tokenizer.json"), str(small_text), timeout=120,
    )  # fmt: skip
    assert "--text-field body" in one_line_error(train, "train")
    assert not (tmp_path / "o").exists() and not (tmp_path / "t").exists()
    tok = load_preset("gpt2")
    with pytest.raises(LbpeError, match="--lines"):
        export_shards(tok, [jsonl], tmp_path / "api", mode="bpe", lines=True)
    both = run_cli("stats", "-q", "--json", "--vocab", "gpt2", "--lines", str(jsonl), str(small_text), timeout=120)
    assert both.returncode == 0, both.stderr


def test_out_of_range_values_name_their_flags(small_text, tmp_path):
    export = ["export", "-q", "--vocab", "gpt2", "--mode", "bpe", "--out", str(tmp_path / "o"), str(small_text)]
    train = ["train", "-q", "-o", str(tmp_path / "t" / "tokenizer.json"), str(small_text)]
    for args, flag in (
        ([*export, "--shard-tokens", "0"], "--shard-tokens"),
        ([*export, "--val-fraction", "2"], "--val-fraction"),
        ([*train, "--vocab-size", "5"], "--vocab-size"),
        ([*train, "--vocab-size", "300", "--max-chars", "0"], "--max-chars"),
        ([*train, "--vocab-size", "300", "--character-coverage", "1.5"], "--character-coverage"),
    ):
        assert flag in one_line_error(run_cli(*args, timeout=120), args[0])
    assert not (tmp_path / "o").exists()
    assert not (tmp_path / "t").exists()  # a training refused leaves no output folder behind


def test_a_failed_training_leaves_no_folder_and_a_blocked_one_fails_first(tmp_path):
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café au lait\n".encode("latin-1"))
    out = tmp_path / "new" / "deeper" / "tokenizer.json"
    refused = run_cli("train", "-q", "--vocab-size", "300", "-o", str(out), str(latin), timeout=120)
    assert "not UTF-8" in one_line_error(refused, "train")
    assert not (tmp_path / "new").exists()
    # a file where the output's folder would go: said before any training, naming that file
    (tmp_path / "taken").write_text("a file, not a folder", encoding="utf-8")
    good = tmp_path / "good.txt"
    good.write_text("Tokenization matters.\n" * 20, encoding="utf-8")
    blocked = run_cli(
        "train",
        "-q",
        "--vocab-size",
        "300",
        "-o",
        str(tmp_path / "taken" / "tokenizer.json"),
        str(good),
        timeout=120,
    )
    assert (
        f"{tmp_path / 'taken'}: Not a directory (part of that path is a file, not a folder: choose another path)"
        in one_line_error(blocked, "train")
    )
    assert (tmp_path / "taken").read_text(encoding="utf-8") == "a file, not a folder"


def test_train_refuses_to_write_over_one_of_its_inputs(tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("Tokenization matters.\n" * 20, encoding="utf-8")
    os.symlink(corpus, tmp_path / "alias.txt")
    for output in (corpus, tmp_path / "alias.txt", tmp_path / "." / "corpus.txt"):
        refused = run_cli("train", "-q", "--vocab-size", "300", "-o", str(output), str(corpus), timeout=120)
        assert f"-o {output} is one of the training files" in one_line_error(refused, "train")
        assert corpus.read_text(encoding="utf-8") == "Tokenization matters.\n" * 20


@pytest.mark.parametrize("content", ["", " \n\t\n"], ids=["empty", "white-space"])
@pytest.mark.parametrize("methods", [[], ["--methods", "bpe,lbpe,longest-prefix"]], ids=["pair", "methods"])
def test_stats_of_a_corpus_with_no_words_is_refused(tmp_path, content, methods):
    """Per-token and per-word ratios of no text are not 0: the command says there is nothing to
    measure rather than print a table of zeros."""
    path = tmp_path / "blank.txt"
    path.write_text(content, encoding="utf-8")
    result = run_cli("stats", "-q", "--vocab", "gpt2", *methods, str(path), timeout=120)
    message = one_line_error(result, "stats")
    assert "blank.txt holds no words to measure (it is empty or white space only)" in message, message
    assert result.stdout == ""


@pytest.mark.parametrize("methods", [[], ["--methods", "bpe,lbpe"]], ids=["pair", "methods"])
def test_stats_of_a_corpus_of_bad_documents_only_says_so(tmp_path, methods):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": 1}\n{"id": 2}\n', encoding="utf-8")
    result = run_cli("stats", "-q", "--skip-bad", "--vocab", "gpt2", *methods, str(path), timeout=120)
    message = one_line_error(result, "stats")
    assert "bad.jsonl holds no words to measure (every document was bad or blank; 2 bad, the first: " in message
    assert 'bad.jsonl:1: no "text" field' in message, message


@pytest.mark.parametrize("methods", [[], ["--methods", "bpe,lbpe"]], ids=["pair", "methods"])
def test_stats_json_counts_the_documents_it_skipped(tmp_path, methods):
    # as export's index.json does: the JSON alone tells its reader the figures leave documents out
    import json

    path = tmp_path / "some.jsonl"
    path.write_text('{"text": "one two"}\n{"id": 2}\n{"text": "three"}\n', encoding="utf-8")
    result = run_cli("stats", "-q", "--json", "--skip-bad", "--vocab", "gpt2", *methods, str(path), timeout=120)
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["skipped_documents"] == 1 and len(doc["skipped_messages"]) == 1
    assert doc["skipped_messages"][0] == f'{path}:2: no "text" field (fields: id); choose one with --text-field'
    good = tmp_path / "good.txt"
    good.write_text("one two", encoding="utf-8")
    clean = run_cli("stats", "-q", "--json", "--skip-bad", "--vocab", "gpt2", *methods, str(good), timeout=120)
    assert json.loads(clean.stdout)["skipped_documents"] == 0


if sys.platform != "linux":  # sched_getaffinity
    pytestmark = pytest.mark.skip(reason="counts this machine's cores with os.sched_getaffinity (Linux)")


@pytest.mark.parametrize("command", ["stats", "export", "train"])
def test_standard_input_is_refused_by_the_commands_that_take_files(tmp_path, command):
    # encode, compare and explain read "-" as standard input; these read files of any size
    # (by size, in parallel, and resumably): "-" is named as such, not as a missing file
    extra = {
        "stats": ["--vocab", "gpt2"],
        "export": ["--vocab", "gpt2", "--mode", "bpe", "--out", str(tmp_path / "o")],
        "train": ["--vocab-size", "300", "-o", str(tmp_path / "t.json")],
    }[command]
    result = run_cli(command, "-q", *extra, "-", input="hello world\n", timeout=120)
    error = one_line_error(result, command)
    assert "standard input (-)" in error and "save it to a file" in error, error
    assert "No such file" not in error and not (tmp_path / "o").exists()
    # the reason is this command's own
    assert f"{command} reads its files" in error, error
    assert ("resume" in error) == (command == "export"), error


@pytest.mark.parametrize("command", ["train", "stats", "encode"])
def test_ctrl_c_ends_a_command_with_one_line(tmp_path, command):
    """Ctrl-C in a terminal (SIGINT to the process group) during a long run ends it with one line
    and the shell's code for it, never a traceback (export said so already; the others did not)."""
    import signal
    import time

    from tests.support.cli import CLI_WITH_CTRL_C
    from tests.support.data import data_file

    corpus = [str(data_file("text/sotu.txt"))] * 8  # 86 MB: longer than the wait below
    args = {
        "train": ["train", "-q", "--vocab-size", "60000", "-o", str(tmp_path / "t" / "tokenizer.json"), *corpus],
        "stats": ["stats", "-q", "--vocab", "gpt2", "--methods", "all", "--dropout", "0.1", *corpus],
        "encode": ["encode", "--vocab", "gpt2", "--mode", "bpe"],  # waiting on standard input
    }[command]
    proc = subprocess.Popen(
        [*CLI_WITH_CTRL_C, *args],
        stdin=subprocess.PIPE,  # open, never written: encode waits on it
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        time.sleep(3)  # into the work: the imports take about a second
        assert proc.poll() is None, f"{command} ended before Ctrl-C"
        os.killpg(proc.pid, signal.SIGINT)
        err = proc.communicate(timeout=60)[1]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130 and err == f"lbpe {command}: interrupted\n", (proc.returncode, err[-500:])


@pytest.mark.parametrize("command", ["encode", "compare"])
def test_a_text_where_a_file_goes_and_a_utf16_file_say_what_to_do(tmp_path, command):
    """`lbpe encode --mode bpe "hello world"` said only "hello world: cannot be read"; a UTF-16
    file (as Windows' Notepad and PowerShell write) only "not UTF-8 text (byte 0xff at offset 0)"."""
    mode = ["--mode", "bpe"] if command == "encode" else []
    told = one_line_error(run_cli(command, "--vocab", "gpt2", *mode, "hello world", cwd=tmp_path), command)
    assert "hello world: no such file" in told and "pipe it in" in told and f"| lbpe {command}" in told, told
    utf16 = tmp_path / "notes.txt"
    utf16.write_bytes("hello".encode("utf-16"))  # a byte-order mark first
    told = one_line_error(run_cli(command, "--vocab", "gpt2", *mode, str(utf16)), command)
    assert "notes.txt: UTF-16 text, not UTF-8" in told and "iconv -f UTF-16 -t UTF-8" in told, told


@pytest.mark.parametrize("vocab", ["hf/llama3/tokenizer.json", "sentencepiece/mistral_tokenizer.model.v1"])
def test_a_pattern_for_a_file_with_its_own_pipeline_names_the_flag(small_text, vocab):
    """The refusal names the command line's --pattern, not the library's pattern=."""
    from tests.support.data import data_file

    result = run_cli(
        "encode", "--mode", "bpe", "--vocab", str(data_file(vocab)), "--pattern", "gpt2", str(small_text), timeout=120
    )
    said = one_line_error(result, "encode")
    assert "leave out --pattern" in said, said


def test_a_special_token_spelled_as_a_word_is_noted(small_text, tmp_path):
    """HF matches a special token wherever a text spells it: one spelled as a word ("the") cuts
    "there" and "other" apart in transformers, so train says so; a bracketed one is not noted."""
    for special, noted in (("the", True), ("<|sep|>", False)):
        out = tmp_path / special.strip("<|>") / "tokenizer.json"
        result = run_cli("train", "-q", "--vocab-size", "300", "--special", special, "-o", str(out), str(small_text))
        assert result.returncode == 0, result.stderr
        said = f"note: special token {special!r} is spelled as ordinary text"
        assert (said in result.stderr) == noted, result.stderr
    from tokenizers import Tokenizer as HF

    hf = HF.from_file(str(tmp_path / "the" / "tokenizer.json"))
    assert "the" in hf.encode("there").tokens  # what the note warns of, in HF's own reading
