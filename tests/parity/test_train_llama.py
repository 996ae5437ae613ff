"""lbpe.train(style="llama"): SentencePiece-style BPE training as LLaMA's, its tokenizer.json
(LLaMA's form) against HF tokenizers and transformers, and the vocabulary beside the one
sentencepiece's own trainer makes from the same corpus with LLaMA's options."""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lbpe
from lbpe.errors import LbpeError
from lbpe.formats.hf_write import SCAFFOLD_KEY, to_tokenizer_json, write_tokenizer_json
from lbpe.train import (
    LLAMA_MAX_TOKEN_CHARS,
    count_llama_pieces,
    llama_pieces,
    train,
    train_from_counts,
    valid_llama_token,
)
from tests.support.cli import run_cli
from tests.support.data import data_file
from tests.support.sentencepiece_llama import LLAMA_OPTIONS

S = "\u2581"  # SentencePiece's space


def merges_of(v: lbpe.Vocab) -> list[tuple[str, str]]:
    return [(a.decode(), b.decode()) for (a, b), _ in sorted(v.merges.items(), key=lambda kv: kv[1])]


def merged_tokens(v: lbpe.Vocab) -> list[str]:
    first = len(v.special) + 256 + sum(1 for t in v.tokens if len(t.decode()) == 1)
    return [v.token_bytes(i).decode() for i in range(first, len(v))]


# ---- known answers on tiny inputs -----------------------------------------------------------


def test_lines_get_a_dummy_prefix_and_spaces_become_the_meta_symbol():
    counts = count_llama_pieces(["the cat\r\n\n  sat.", "the"])
    assert counts == Counter({f"{S}the": 2, f"{S}cat": 1, f"{S}{S}{S}sat.": 1})


def test_counting_a_file_in_small_blocks_gives_the_counts_of_the_text(tmp_path):
    text = data_file("text/multilingual.txt").read_text("utf-8")[:30000]
    path = tmp_path / "m.txt"
    path.write_bytes(text.encode("utf-8"))
    assert count_llama_pieces([path], chunk_chars=7) == count_llama_pieces(text)


def test_pieces_are_cut_at_digits_scripts_and_spaces():
    words = {
        f"{S}x2024y": 1,
        f"{S}abc.de": 2,
        f"{S}\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03baa": 1,
        f"{S}{S}{S}ok": 1,
        "\u65e5\u672c\u3054\u30fc\u30eb": 1,
        f"{S}e\u0301t\u00e9": 1,
        f"{S}\t'": 1,
    }
    assert llama_pieces(words) == Counter(
        {
            f"{S}x": 1,
            "2": 2,
            "0": 1,
            "4": 1,
            "y": 1,
            f"{S}abc": 2,
            ".": 2,
            "de": 2,
            f"{S}\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba": 1,
            "a": 1,  # Greek, then Latin
            f"{S}{S}{S}ok": 1,  # a run of spaces stays before its word
            "\u65e5\u672c\u3054\u30fc\u30eb": 1,  # Han, Hiragana, U+30FC, Katakana: one script for SentencePiece
            f"{S}e\u0301t\u00e9": 1,  # a combining mark goes with its letter
            f"{S}\t'": 1,  # tab and quote are both Common
        }
    )


@settings(max_examples=300, deadline=None)
@given(
    word=st.text(
        st.sampled_from(list("ab Z1.,\t\0-") + [S, "\u03b1", "\u0301", "\u4e2d", "\u3042", "\u30fc", "\u0416"]),
        min_size=1,
        max_size=12,
    )
)
def test_pieces_are_cut_exactly_where_no_token_can_span(word):
    """A cut between two characters wherever the two alone are no valid token, nowhere else
    (ASCII words take a faster path to the same cuts)."""
    expected: list[str] = [word[0]]
    for c, d in zip(word, word[1:]):
        if valid_llama_token(c + d):
            expected[-1] += d
        else:
            expected.append(d)
    assert llama_pieces({word: 1}) == Counter(expected)


@pytest.mark.parametrize(
    "token,ok",
    [
        (f"{S}the", True),
        (f"{S}{S}", True),
        (f"{S}{S}{S}a", False),
        (f"a{S}", False),
        ("a1", False),
        ("1", True),
        ("a.", False),
        (f"{S}.", True),
        ("e\u0301", True),
        ("\u0301a", True),
        ("a\u0301\u03b1", False),
        ("a" * LLAMA_MAX_TOKEN_CHARS, True),
        ("a" * (LLAMA_MAX_TOKEN_CHARS + 1), False),
        ("\u3053\u30ab\u4e2d", True),
    ],
)
def test_valid_tokens_follow_sentencepiece_rules(token, ok):
    assert valid_llama_token(token) is ok


def test_tie_break_is_count_then_shorter_token_then_text():
    # "▁ab" x2 and "cd" x2: pairs ▁a, ab, cd all count 2; "ab" < "cd" < "▁a" (U+2581 sorts last)
    v = train_from_counts({f"{S}ab": 2, "cd": 2}, vocab_size=3 + 256 + 5 + 3, style="llama")
    assert merges_of(v) == [("a", "b"), ("c", "d"), (S, "ab")]
    # a higher count wins over a shorter token
    v = train_from_counts({f"{S}ab": 2, "cd": 1}, vocab_size=3 + 256 + 5 + 1, style="llama")
    assert merges_of(v) == [("a", "b")]


def test_no_token_is_longer_than_sixteen_characters():
    v = train("a" * 40 + " " + "b" * 3, vocab_size=3 + 256 + 3 + 40, style="llama")
    lengths = [len(t) for t in merged_tokens(v)]
    assert max(lengths) == LLAMA_MAX_TOKEN_CHARS
    assert "a" * 16 in merged_tokens(v) and f"{S}bbb" in merged_tokens(v)


def test_digits_are_never_merged_and_whitespace_runs_are():
    v = train(["2024 2024   x   x"] * 3, vocab_size=3 + 256 + 6 + 20, style="llama")
    tokens = merged_tokens(v)
    assert not any(ch.isdigit() for t in tokens for ch in t)
    assert f"{S}{S}" in tokens and f"{S}x" in tokens and f"{S}{S}{S}x" not in tokens


def test_special_tokens_come_first_and_options_are_checked():
    v = train("hello world", vocab_size=400, style="llama", special_tokens=["<pad>", "<s>"])
    assert v.special == {"<unk>": 0, "<s>": 1, "</s>": 2, "<pad>": 3}
    assert v.byte_fallback[0] == 4 and v.unk == 0 and v.fuse_unk
    with pytest.raises(LbpeError, match="leave out pattern"):
        train("hello", vocab_size=400, style="llama", pattern="paper")
    with pytest.raises(LbpeError, match="unit='char'"):
        train("hello", vocab_size=400, style="llama", unit="byte")
    with pytest.raises(LbpeError, match="style must be one of 'gpt2', 'llama', not 'bert'"):
        train("hello", vocab_size=400, style="bert")
    with pytest.raises(LbpeError, match="3 special \\+ 256 byte-fallback"):
        train("hello", vocab_size=260, style="llama")


def test_character_coverage_keeps_the_most_frequent_characters_as_sentencepiece():
    # "\u2581aaaaaaab": a 7, then b and \u2581 1 each (b first by code point); 7/9 < 0.8 <= 8/9
    v = train("aaaaaaab", vocab_size=3 + 256 + 2, style="llama", character_coverage=0.8)
    assert {t.decode() for t in v.tokens} == {"a", "b"}
    v = train("aaaaaaab", vocab_size=3 + 256 + 1, style="llama", character_coverage=0.7)
    assert {t.decode() for t in v.tokens} == {"a"}
    for bad in (0, 1.5, "0.9", True):
        with pytest.raises(LbpeError, match="character_coverage must be a number above 0 and at most 1"):
            train("aab", vocab_size=400, style="llama", character_coverage=bad)


def naive_llama(words: Counter[str], n_new: int) -> list[tuple[str, str]]:
    """Classic BPE from scratch: recount every pair at every step; SentencePiece's tie-break;
    only pairs that make a valid token."""
    seqs = [(list(w), c) for w, c in llama_pieces(words).items()]
    order = {ch: i for i, ch in enumerate(sorted({ch for w, _ in seqs for ch in w}))}
    merges: list[tuple[str, str]] = []
    made = 0
    while made < n_new:
        pairs: Counter[tuple[str, str]] = Counter()
        for w, c in seqs:
            for p in zip(w, w[1:]):
                pairs[p] += c
        cands = [p for p in pairs if valid_llama_token(p[0] + p[1])]
        if not cands:
            break
        a, b = min(cands, key=lambda p: (-pairs[p], len(p[0] + p[1]), p[0] + p[1], order[p[0]], order[p[1]]))
        if a + b not in order:
            order[a + b] = len(order)
            made += 1
        if (a, b) not in merges:
            merges.append((a, b))
        for k, (w, c) in enumerate(seqs):
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            seqs[k] = (out, c)
    return merges


@settings(max_examples=150, deadline=None)
@given(
    text=st.lists(st.text(st.sampled_from(list("aab b  1.\u03b1\u0301") + [S]), max_size=12), min_size=1, max_size=8),
    n_new=st.integers(1, 25),
)
def test_incremental_training_matches_the_naive_one(text, n_new):
    words = count_llama_pieces(text)
    if not words:
        return
    n_chars = len({ch for w in llama_pieces(words) for ch in w})
    v = train_from_counts(words, vocab_size=3 + 256 + n_chars + n_new, style="llama")
    assert merges_of(v) == naive_llama(words, n_new)


# ---- real text: tokenizer.json, HF tokenizers, transformers, sentencepiece ---------------------


def mixed_corpus() -> tuple[str, list[str]]:
    """Training text (90% of the lines of prose, code and many languages, 3.8 MB) and the
    held-out rest, one string per file."""
    train_parts, held = [], []
    for name in ("moby_dick.txt", "code.txt", "multilingual_words.txt", "multilingual.txt"):
        lines = data_file(f"text/{name}").read_text("utf-8").split("\n")
        cut = len(lines) * 9 // 10
        train_parts.append("\n".join(lines[:cut]))
        held.append("\n".join(lines[cut:]))
    return "\n".join(train_parts), held


@pytest.fixture(scope="module")
def corpus():
    return mixed_corpus()


@pytest.fixture(scope="module")
def llama_8k(corpus):
    return train(corpus[0], vocab_size=8000, style="llama")


@pytest.fixture(scope="module")
def llama_files(llama_8k, tmp_path_factory):
    """The 8K vocabulary, and a scaffold one, written as tokenizer.json folders."""
    from lbpe.formats.hf_write import write_transformers_config

    folders = {}
    moby = data_file("text/moby_dick.txt")
    for key, vocab in (("plain", llama_8k), ("scaffold", train([moby], vocab_size=3000, style="llama", scaffold=True))):
        folder = tmp_path_factory.mktemp(key)
        write_tokenizer_json(vocab, folder / "tokenizer.json", style="llama")
        write_transformers_config(folder, {"bos": "<s>", "eos": "</s>", "unk": "<unk>"})
        folders[key] = (vocab, folder)
    return folders


def paragraphs() -> list[str]:
    """Every paragraph (blank-line separated) of the fetched texts but the 10 MB of speeches,
    with their inner line ends."""
    out = []
    for name in ("moby_dick.txt", "code.txt", "code_more.txt", "multilingual_words.txt", "multilingual.txt"):
        out += [p for p in data_file(f"text/{name}").read_text("utf-8").split("\n\n") if p.strip()]
    out += [p for p in data_file("text/sotu.txt").read_text("utf-8")[:1_000_000].split("\n\n") if p.strip()]
    return out


def test_the_file_has_llamas_form(llama_files):
    vocab, folder = llama_files["plain"]
    spec = json.loads((folder / "tokenizer.json").read_text("utf-8"))
    mistral = json.loads(data_file("hf/mistral_v0.1/tokenizer.json").read_text("utf-8"))
    for key in ("normalizer", "pre_tokenizer", "decoder", "post_processor"):
        assert spec[key] == mistral[key], key
    model = spec["model"]
    assert (model["byte_fallback"], model["fuse_unk"], model["unk_token"]) == (True, True, "<unk>")
    assert [a["content"] for a in spec["added_tokens"]] == ["<unk>", "<s>", "</s>"]
    assert model["vocab"]["<0x00>"] == 3 and len(model["vocab"]) == 8000
    assert SCAFFOLD_KEY not in model
    scaffold, _ = llama_files["scaffold"]
    assert {
        int(k): tuple(p)
        for k, p in json.loads(to_tokenizer_json(scaffold, style="llama"))["model"][SCAFFOLD_KEY].items()
    } == scaffold.scaffold


@pytest.mark.slow(reason="transformers")
def test_hf_tokenizers_lbpe_and_transformers_give_the_same_ids(llama_files):
    import tokenizers
    from transformers import AutoTokenizer

    vocab, folder = llama_files["plain"]
    ours = lbpe.load(folder / "tokenizer.json")
    hf = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    texts = paragraphs()
    assert len(texts) > 5000
    expected = hf.encode_batch(texts, add_special_tokens=False)
    mismatches = [t[:80] for t, e in zip(texts, expected) if ours.encode(t, mode="bpe") != e.ids]
    assert mismatches == []
    auto = AutoTokenizer.from_pretrained(str(folder))
    for text in texts[::10]:
        assert auto(text)["input_ids"] == [1] + ours.encode(text, mode="bpe")
    for text in texts[:300]:
        assert hf.decode(ours.encode(text, mode="bpe")) == text


def test_lbpe_mode_runs_and_round_trips(llama_files):
    vocab, folder = llama_files["plain"]
    ours = lbpe.load(folder / "tokenizer.json")
    texts = paragraphs()[::20]
    longer = 0
    for text in texts:
        ids = ours.encode(text, mode="lbpe")
        assert ours.decode(ids) == text
        longer += len(ids) - len(ours.encode(text, mode="bpe"))
    assert longer != 0  # the two modes differ somewhere


def test_scaffold_vocabulary_in_llama_form(llama_files):
    import tokenizers

    vocab, folder = llama_files["scaffold"]
    assert vocab.scaffold and all(i >= 3000 for i in vocab.scaffold)
    ours = lbpe.load(folder / "tokenizer.json")
    assert ours.vocab.scaffold == vocab.scaffold
    hf = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    for text in paragraphs()[:2000]:
        got = ours.encode(text, mode="bpe")
        assert vocab.expand_scaffold(hf.encode(text, add_special_tokens=False).ids) == got
        assert not set(got) & set(vocab.scaffold)
        assert not set(ours.encode(text, mode="lbpe")) & set(vocab.scaffold)


def sentencepiece_bpe(text: str, vocab_size: int, coverage: float):
    """sentencepiece's trainer with LLaMA's options (lines of any length)."""
    import sentencepiece as spm

    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(text.split("\n")),
        model_writer=model,
        vocab_size=vocab_size,
        character_coverage=coverage,
        num_threads=1,
        **LLAMA_OPTIONS,
    )
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


@pytest.mark.slow(reason="trains twice, and sentencepiece")
@pytest.mark.parametrize("coverage", [1.0, 0.99995])  # every character (lbpe's default), LLaMA's
def test_vocabulary_and_compression_match_sentencepiece(corpus, llama_files, coverage, tmp_path):
    sp = sentencepiece_bpe(corpus[0], 8000, coverage)
    theirs = {sp.id_to_piece(i) for i in range(sp.get_piece_size())}
    if coverage == 1.0:
        path = llama_files["plain"][1] / "tokenizer.json"
    else:
        path = tmp_path / "tokenizer.json"
        write_tokenizer_json(
            train(corpus[0], vocab_size=8000, style="llama", character_coverage=coverage), path, style="llama"
        )
    ours_pieces = set(json.loads(path.read_text("utf-8"))["model"]["vocab"])
    assert len(theirs) == len(ours_pieces) == 8000
    shared = len(theirs & ours_pieces) / len(theirs)
    tok = lbpe.load(path)
    lines = [line for part in corpus[1] for line in part.split("\n") if line]
    nbytes = sum(len(line.encode()) for line in lines)
    ours_bpt = nbytes / sum(len(tok.encode(line, mode="bpe")) for line in lines)
    theirs_bpt = nbytes / sum(len(sp.encode(line)) for line in lines)
    print(
        f"coverage {coverage}: shared tokens {shared:.2%}; bytes/token lbpe {ours_bpt:.4f}, "
        f"sentencepiece {theirs_bpt:.4f}"
    )
    assert shared >= 0.90
    assert abs(ours_bpt - theirs_bpt) <= 0.01 * theirs_bpt


# ---- the command line -----------------------------------------------------------------------


def test_cli_train_style_llama_writes_what_train_makes(tmp_path):
    from transformers import AutoTokenizer

    corpus = tmp_path / "c.txt"
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:200_000]
    corpus.write_text(text, encoding="utf-8")
    out = tmp_path / "tok" / "tokenizer.json"
    result = run_cli(
        "train",
        "--style",
        "llama",
        "--vocab-size",
        "700",
        "--scaffold",
        "--character-coverage",
        "0.9995",
        "-q",
        "-o",
        str(out),
        str(corpus),
    )
    assert result.returncode == 0, result.stderr
    expect = train([corpus], vocab_size=700, scaffold=True, style="llama", character_coverage=0.9995)
    assert json.loads(out.read_text("utf-8")) == json.loads(to_tokenizer_json(expect, style="llama"))
    auto = AutoTokenizer.from_pretrained(str(out.parent))
    assert (auto.bos_token_id, auto.eos_token_id, auto.unk_token_id) == (1, 2, 0)
    for args, message in (
        (["--pattern", "paper"], "leave out --pattern"),
        (["--unit", "byte"], "leave out --unit byte"),
    ):
        bad = run_cli("train", "--style", "llama", "--vocab-size", "700", *args, "-o", str(out), str(corpus))
        assert bad.returncode == 2 and message in bad.stderr and bad.stderr.count("\n") == 1


def test_a_trained_vocabulary_is_written_as_it_was_trained(tmp_path):
    text = "The 12 quick brown foxes jumped over 345 lazy dogs.\n" * 40
    llama = lbpe.train(text, vocab_size=330, style="llama")
    gpt2 = lbpe.train(text, vocab_size=330, pattern="cl100k_base")
    assert llama.trained == {"style": "llama"} and gpt2.trained == {"style": "gpt2", "pattern": "cl100k_base"}
    assert to_tokenizer_json(llama) == to_tokenizer_json(llama, style="llama")
    assert to_tokenizer_json(gpt2) == to_tokenizer_json(gpt2, pattern="cl100k_base")
    assert to_tokenizer_json(gpt2) != to_tokenizer_json(gpt2, pattern="paper")
    write_tokenizer_json(llama, tmp_path / "tokenizer.json")
    written = (tmp_path / "tokenizer.json").read_text("utf-8")
    assert json.loads(written) == json.loads(to_tokenizer_json(llama, style="llama"))
    tok = lbpe.load(tmp_path / "tokenizer.json")
    assert tok.decode(tok.encode(text, mode="lbpe")) == text
    gpt2_again = to_tokenizer_json(gpt2, style="gpt2")  # a style given keeps the preset recorded
    assert gpt2_again == to_tokenizer_json(gpt2, pattern="cl100k_base")
