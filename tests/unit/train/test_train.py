"""BPE and Scaffold-BPE training, the tokenizer.json writer and ``lbpe train``.

Known answers are traced by hand in the comments. ``naive_train`` below is a slow, obvious
transcription of the training rules (pairs and stand-alone counts recounted from scratch at
every step) that the incremental trainer must agree with.
"""

from __future__ import annotations

import json
import pickle
import random
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lbpe
from lbpe.errors import LbpeError, VocabSizeError
from lbpe.formats.hf_write import PATTERN_KEY, SCAFFOLD_KEY, hf_regex, to_tokenizer_json, write_tokenizer_json
from lbpe.pretokenize import PRETOKENIZER_PRESETS, split_text
from lbpe.tokenizer import Tokenizer
from lbpe.train import TrainOptions, count_pieces, train, train_from_counts
from tests.support.cli import run_cli
from tests.support.data import data_file

tokenizers = pytest.importorskip("tokenizers")  # a test dependency (pyproject: test extra)


# ---- a naive reference trainer ----------------------------------------------------------------


def naive_train(counts: dict[str, int], n_new: int, *, scaffold: bool):
    """Merges (as text pairs), merged tokens in creation order, and the final scaffold set."""
    words = [(list(w), c) for w, c in counts.items()]
    merges: list[tuple[str, str]] = []
    made_tokens: list[str] = []
    scaf: set[str] = set()
    made = 0

    def tally():
        pairs: Counter = Counter()
        alone: Counter = Counter()
        for w, c in words:
            for x, y in zip(w, w[1:]):
                pairs[(x, y)] += c
            for u in w:
                alone[u] += c
        return pairs, alone

    def candidates(pairs, alone):
        # Highest count first; at equal counts scaffold tokens (kind 0) before pairs (kind 1);
        # then by text.
        out = [((-n, 1, a, b), ("pair", (a, b))) for (a, b), n in pairs.items() if n > 0]
        out += [((-alone[t], 0, t, ""), ("token", t)) for t in scaf if alone[t] > 0]
        return sorted(out)

    while made < n_new:
        pairs, alone = tally()
        cands = candidates(pairs, alone)
        if not cands:
            break
        kind, x = cands[0][1]
        if kind == "token":
            scaf.remove(x)
            made += 1
            continue
        a, b = x
        t = a + b
        if t not in made_tokens:
            made_tokens.append(t)
            made += 1
        elif t in scaf:
            scaf.remove(t)
            made += 1
        if (a, b) not in merges:
            merges.append((a, b))
        for k, (w, c) in enumerate(words):
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(t)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            words[k] = (out, c)
        if scaffold:
            pairs, alone = tally()
            cands = candidates(pairs, alone)
            head = -cands[0][0][0] if cands else 0
            for y in {a, b}:
                if y in made_tokens and y not in scaf and alone[y] < head:
                    scaf.add(y)
                    made -= 1
    return merges, made_tokens, scaf


def text_merges(v: lbpe.Vocab) -> list[tuple[str, str]]:
    return [(a.decode(), b.decode()) for (a, b), _ in sorted(v.merges.items(), key=lambda kv: kv[1])]


def token_text(v: lbpe.Vocab, i: int) -> str:
    return v.token_bytes(i).decode()


# ---- hand-checked answers ---------------------------------------------------------------------


def test_tie_break_is_left_then_right_token_text():
    # Pieces "low", " lower", " lowest": (l,o)=3 and (o,w)=3 tie, "l" < "o" -> "lo"; then
    # (lo,w)=3 -> "low"; then (" ",low)=2 and (low,e)=2 tie, " " < "low" -> " low".
    v = train(["low lower lowest"], vocab_size=259, unit="byte")
    assert [v.token_bytes(i) for i in range(256, 259)] == [b"lo", b"low", b" low"]
    # Every pair seen once: (a,b) < (b,a) < (b,c); the text order of the pieces plays no part.
    for counts in ({"ba": 1, "ab": 1, "bc": 1}, {"bc": 1, "ab": 1, "ba": 1}):
        v = train_from_counts(counts, vocab_size=256 + 3 + 3)
        assert text_merges(v) == [("a", "b"), ("b", "a"), ("b", "c")]
    # Right token decides when the left ones are equal: (a,c) before (a,d).
    v = train_from_counts({"ad": 2, "ac": 2}, vocab_size=256 + 3 + 1)
    assert text_merges(v) == [("a", "c")]


def test_higher_count_beats_text_order():
    v = train_from_counts({"zz": 3, "ab": 2}, vocab_size=256 + 3 + 1)
    assert text_merges(v) == [("z", "z")]


def test_overlapping_pairs_merge_left_to_right():
    # "aaa" x2: (a,a) occurs twice per word; merging left to right gives "aa a", so afterwards
    # the word has the pair (aa, a) once.
    v = train_from_counts({"aaa": 2}, vocab_size=256 + 1 + 2)
    assert text_merges(v) == [("a", "a"), ("aa", "a")]


def test_id_layout_char_unit():
    v = train("hug hugs", vocab_size=256 + 5 + 2 + 1, special_tokens=["<s>", "</s>"])
    assert v.special == {"<s>": 0, "</s>": 1}
    assert v.byte_fallback == {b: 2 + b for b in range(256)}
    # base characters in code-point order: " ", g, h, s, u
    assert [token_text(v, i) for i in range(258, 263)] == [" ", "g", "h", "s", "u"]
    # (h,u)=2 and (u,g)=2 tie -> "hu"
    assert token_text(v, 263) == "hu" and len(v) == 264
    assert v.unit == "char" and not v.whole_piece_first and v.merges == {(b"h", b"u"): 0}


def test_id_layout_byte_unit():
    v = train("hug hugs", vocab_size=1 + 256 + 1, unit="byte", special_tokens=["<|end|>"])
    assert v.special == {"<|end|>": 0}
    assert all(v.token_bytes(1 + b) == bytes([b]) for b in range(256))
    assert v.token_bytes(257) == b"hu" and v.byte_fallback is None


def test_too_small_vocab_size_is_a_clear_value_error():
    with pytest.raises(ValueError, match="smaller than the 256 base tokens of a byte-level"):
        train("abc", vocab_size=255, unit="byte")
    with pytest.raises(LbpeError, match=r"smaller than the 259 base tokens .*256 byte-fallback \+ 3 characters"):
        train("abc", vocab_size=258)
    # what a front end needs to say it in its own words, also after a pool's pickling
    with pytest.raises(VocabSizeError) as small:
        train("abc", vocab_size=258)
    told = (small.value.vocab_size, small.value.base, small.value.kind, small.value.parts)
    assert told == (258, 259, "a character-level vocabulary", "256 byte-fallback + 3 characters")
    again = pickle.loads(pickle.dumps(small.value))
    assert type(again) is VocabSizeError and str(again) == str(small.value)
    with pytest.raises(LbpeError, match="no text to train on"):
        train(["", ""], vocab_size=1000)
    # the base alone is fine; max_chars shrinks it
    assert len(train("abc", vocab_size=259)) == 259
    v = train("aab", vocab_size=257, max_chars=1)
    assert [token_text(v, 256)] == ["a"]


def test_max_chars_keeps_the_most_frequent_and_splits_pieces_at_the_others():
    # 'x' is dropped: "axb" trains as "a" and "b" (no pair); "ab" -> (a,b).
    v = train_from_counts({"axb": 1, "ab": 5, "xy": 1}, vocab_size=256 + 2 + 1, max_chars=2)
    assert {token_text(v, i) for i in (256, 257)} == {"a", "b"}
    assert text_merges(v) == [("a", "b")]
    ids = Tokenizer(v, "paper").encode("axb", mode="bpe")
    assert ids == [256, v.byte_fallback[ord("x")], 257]


def test_stops_early_when_nothing_is_left_to_merge():
    v = train_from_counts({"abc": 1}, vocab_size=10_000)
    assert text_merges(v) == [("a", "b"), ("ab", "c")] and len(v) == 256 + 3 + 2


def test_train_options_defaults_and_checks():
    o = TrainOptions(vocab_size=300, special_tokens=["<s>"])
    assert (o.unit, o.style, o.pattern, o.scaffold, o.max_chars, o.character_coverage) == (
        "char",
        "gpt2",
        None,
        False,
        None,
        None,
    )
    assert o.special_tokens == ("<s>",) and o == TrainOptions(vocab_size=300, special_tokens=("<s>",))
    with pytest.raises(LbpeError, match="^unit must be 'byte' or 'char', not 'word'$"):
        TrainOptions(vocab_size=300, unit="word")  # type: ignore[arg-type]
    with pytest.raises(LbpeError, match="^style='llama' has no regex pre-tokeniser: leave out pattern"):
        TrainOptions(vocab_size=300, style="llama", pattern="paper")
    with pytest.raises(TypeError, match="^vocab_size must be an int, not str$"):
        TrainOptions(vocab_size="300")  # type: ignore[arg-type]


def test_train_options_train_as_the_keywords():
    # 1 special, 256 byte fallback, 7 characters (h u g s e d, space), one merge: (h, u), 3 times like (u, g)
    keywords = {"vocab_size": 1 + 256 + 7 + 1, "unit": "char", "special_tokens": ["<|end|>"]}
    by_keywords = train("hug hugs hugged", **keywords)
    by_options = train("hug hugs hugged", options=TrainOptions(**keywords))
    assert by_options.tokens == by_keywords.tokens and by_options.merges == by_keywords.merges == {(b"h", b"u"): 0}
    assert by_options.trained == by_keywords.trained == {"style": "gpt2", "pattern": "paper"}
    counts = {"hug": 1, " hugs": 1, " hugged": 1}
    assert train_from_counts(counts, options=TrainOptions(**keywords)).tokens == by_keywords.tokens
    with pytest.raises(LbpeError, match=r"either as options=TrainOptions\(...\) or as keywords.*move unit="):
        train("hug", options=TrainOptions(vocab_size=300), unit="byte")
    with pytest.raises(TypeError, match="needs vocab_size=N"):
        train_from_counts(counts)


def test_progress_reports_merges_and_bytes(tmp_path):
    calls = []
    reads = []
    f = tmp_path / "t.txt"
    f.write_text("low lower lowest\n" * 50, encoding="utf-8")
    # 9 characters: l o w e r s t, space, newline
    train(
        [f],
        vocab_size=256 + 9 + 5,
        progress=lambda d, t: calls.append((d, t)),
        read_progress=lambda d, t: reads.append((d, t)),
    )
    assert calls[0] == (0, 5) and calls[-1] == (5, 5) and [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert reads[0] == (0, f.stat().st_size) and reads[-1] == (f.stat().st_size, f.stat().st_size)


# ---- Scaffold-BPE, by hand --------------------------------------------------------------------


def test_scaffold_er_survives_only_inside_ser():
    # chars a b e r s. (e,r)=5 and (s,e)=5 tie -> "er" (e < s). Then (s,er)=5 -> "ser": "er" is
    # left with stand-alone count 0 < 3 = (a,b) at the head, so it becomes a scaffold token.
    # Then (a,b)=3 -> "ab": two normal merged tokens, the target.
    counts = {"ser": 5, "ab": 3}
    v = train_from_counts(counts, vocab_size=256 + 5 + 2, scaffold=True)
    names = {token_text(v, i): i for i in range(256, 264)}
    assert names == {"a": 256, "b": 257, "e": 258, "r": 259, "s": 260, "ser": 261, "ab": 262, "er": 263}
    assert v.scaffold == {263: (258, 259)}
    assert text_merges(v) == [("e", "r"), ("s", "er"), ("a", "b")]
    tok = Tokenizer(v, "paper")
    # classic BPE still merges through "er" to reach "ser"; a lone "er" is split back
    assert tok.encode("ser", mode="bpe") == [261]
    assert tok.encode("er", mode="bpe") == [258, 259]
    assert tok.encode("er", mode="lbpe") == [258, 259]
    # without Scaffold-BPE the same size ends after "er", "ser"
    plain = train_from_counts(counts, vocab_size=256 + 5 + 2)
    assert text_merges(plain) == [("e", "r"), ("s", "er")] and not plain.scaffold


def test_scaffold_token_comes_back_when_it_reaches_the_head():
    # (e,r)=7 -> "er"; (s,er)=5 -> "ser": "er" keeps 2 < 3 = (a,b), scaffold. (a,b)=3 -> "ab".
    # Now the queue holds only the scaffold "er" (2): it comes back as a normal token.
    counts = {"ser": 5, "er": 2, "ab": 3}
    v = train_from_counts(counts, vocab_size=256 + 5 + 3, scaffold=True)
    assert not v.scaffold
    assert [token_text(v, i) for i in (261, 262, 263)] == ["er", "ser", "ab"]
    # one token fewer: training stops while "er" is still a scaffold token
    v = train_from_counts(counts, vocab_size=256 + 5 + 2, scaffold=True)
    assert [token_text(v, i) for i in (261, 262, 263)] == ["ser", "ab", "er"] and v.scaffold == {263: (258, 259)}


def test_scaffold_token_wins_a_tie_with_a_pair_and_equal_count_is_not_below():
    # (e,r)=7, (s,er)=5 -> "er" keeps 2 < 3: scaffold; (a,b)=3; then the scaffold "er" (2) and
    # the pair (c,d) (2) tie at the head: the scaffold token comes back first.
    v = train_from_counts({"ser": 5, "er": 2, "ab": 3, "cd": 2}, vocab_size=256 + 7 + 3, scaffold=True)
    assert text_merges(v) == [("e", "r"), ("s", "er"), ("a", "b")] and not v.scaffold
    # "er" keeps 3, equal to (a,b)=3 at the head: not below it, so never a scaffold token
    v = train_from_counts({"ser": 5, "er": 3, "ab": 3}, vocab_size=256 + 5 + 2, scaffold=True)
    assert text_merges(v) == [("e", "r"), ("s", "er")] and not v.scaffold


def test_base_units_are_never_scaffold_tokens():
    # After (s,e)... every base char drops to 0 stand-alone; none becomes a scaffold token.
    v = train_from_counts({"se": 9, "ab": 1}, vocab_size=256 + 4 + 2, scaffold=True)
    assert not v.scaffold and text_merges(v) == [("s", "e"), ("a", "b")]
    v = train(["sese " * 20, "ab"], vocab_size=256 + 256 + 1, unit="byte", scaffold=True)
    assert all(i >= 256 for i in v.scaffold)


# ---- the incremental trainer against the naive one ----------------------------------------------


corpora = st.dictionaries(
    st.text(alphabet="abcd", min_size=1, max_size=9), st.integers(min_value=1, max_value=6), min_size=1, max_size=12
)


@settings(max_examples=300, deadline=None)
@given(counts=corpora, n_new=st.integers(min_value=1, max_value=25), scaffold=st.booleans())
def test_incremental_training_matches_the_naive_one(counts, n_new, scaffold):
    chars = sorted(set("".join(counts)))
    v = train_from_counts(counts, vocab_size=256 + len(chars) + n_new, scaffold=scaffold)
    merges, made, scaf = naive_train(counts, n_new, scaffold=scaffold)
    assert text_merges(v) == merges
    assert {token_text(v, i) for i in v.scaffold} == scaf
    normal = [token_text(v, i) for i in range(256 + len(chars), len(v) - len(v.scaffold))]
    assert normal == [t for t in made if t not in scaf]
    assert all(i >= len(v) - len(v.scaffold) for i in v.scaffold)  # scaffold ids come last


@settings(max_examples=60, deadline=None)
@given(counts=corpora, seed=st.integers(0, 10**6))
def test_training_does_not_depend_on_input_order(counts, seed):
    items = list(counts.items())
    random.Random(seed).shuffle(items)
    a = train_from_counts(counts, vocab_size=256 + 4 + 8, scaffold=True)
    b = train_from_counts(dict(items), vocab_size=256 + 4 + 8, scaffold=True)
    assert (a.tokens, a.merges, a.scaffold) == (b.tokens, b.merges, b.scaffold)


# ---- streaming counts ---------------------------------------------------------------------------


texts = st.lists(
    st.sampled_from(list("ab Z\n\r\t'1/.é€\u3000\U0001d400") + ["'ll", "'s", "\n\n", "  "]), max_size=40
).map("".join)


@settings(max_examples=200, deadline=None)
@given(text=texts, chunk=st.integers(min_value=1, max_value=9))
def test_chunked_counting_gives_the_pieces_of_the_whole_text(text, chunk):
    for preset in PRETOKENIZER_PRESETS:
        expect = Counter(split_text(text, preset))
        assert count_pieces(text, preset, chunk_chars=chunk) == expect, preset
    # a compiled pattern of one's own (here one that skips characters) takes the general path
    custom = re.compile(r"[a-z]+|\s+")
    assert count_pieces(text, custom, chunk_chars=chunk) == Counter(custom.findall(text))


def test_file_counting_streams_and_matches_text(tmp_path):
    text = data_file("text/multilingual.txt").read_text("utf-8")[:20000]
    f = tmp_path / "m.txt"
    f.write_bytes(text.encode("utf-8"))
    whole = Counter(split_text(text, "paper"))
    assert count_pieces([f], chunk_chars=7) == whole  # blocks of 7 bytes cut characters apart
    assert count_pieces([f, text]) == whole + whole
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n" * 5 + b"\xff")
    with pytest.raises(LbpeError, match="bad.txt: not UTF-8 text .*offset 15"):
        count_pieces([bad])
    with pytest.raises(LbpeError, match="cannot be read"):
        count_pieces([tmp_path / "missing.txt"])
    with pytest.raises(TypeError):
        count_pieces([b"bytes"])


def test_documents_files_are_counted_by_their_texts_as_stats_and_export_read_them(tmp_path):
    """A .jsonl file is counted by each line's text field, a .gz file by what it holds, a .parquet
    file by its rows: the JSON around the texts (quotes, braces, escapes) is no part of the
    corpus (it was trained into the vocabulary without a word)."""
    import gzip

    import pyarrow as pa
    import pyarrow.parquet as pq

    docs = [p for p in data_file("text/moby_dick.txt").read_text("utf-8").split("\n\n") if p.strip()][:300]
    want = Counter()
    for d in docs:
        want.update(split_text(d, "paper"))
    lines = "".join(json.dumps({"id": k, "body": d}) + "\n" for k, d in enumerate(docs))
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text(lines, encoding="utf-8")
    assert count_pieces([jsonl], text_field="body") == want
    (tmp_path / "docs.jsonl.gz").write_bytes(gzip.compress(lines.encode()))
    assert count_pieces([tmp_path / "docs.jsonl.gz"], text_field="body") == want
    pq.write_table(pa.table({"body": docs}), tmp_path / "docs.parquet")
    assert count_pieces([tmp_path / "docs.parquet"], text_field="body") == want
    whole = "\n\n".join(docs)
    (tmp_path / "all.txt.gz").write_bytes(gzip.compress(whole.encode()))
    assert count_pieces([tmp_path / "all.txt.gz"]) == Counter(split_text(whole, "paper"))
    with pytest.raises(LbpeError, match=r'docs.jsonl:1: .*"text"'):
        count_pieces([jsonl])  # no such field: named, with the line
    vocab = train([jsonl], vocab_size=400, unit="byte", text_field="body")
    texts = train(docs, vocab_size=400, unit="byte")  # the same documents given as texts
    assert [vocab.token_bytes(i) for i in range(len(vocab))] == [texts.token_bytes(i) for i in range(len(texts))]
    out = run_cli(
        "train",
        "-q",
        "--vocab-size",
        "400",
        "--unit",
        "byte",
        "--text-field",
        "body",
        "-o",
        str(tmp_path / "t" / "tokenizer.json"),
        str(jsonl),
    )
    assert out.returncode == 0, out.stderr


# ---- real text, tokenizer.json and HF tokenizers --------------------------------------------------


@pytest.fixture(scope="module")
def moby_vocabs():
    moby = data_file("text/moby_dick.txt")
    return {
        ("char", False): train([moby], vocab_size=3000, special_tokens=["<|endoftext|>"]),
        ("byte", False): train([moby], vocab_size=3000, unit="byte", special_tokens=["<|endoftext|>"]),
        ("char", True): train([moby], vocab_size=3000, scaffold=True, special_tokens=["<|endoftext|>"]),
    }


def held_out() -> dict[str, str]:
    return {
        "sotu": data_file("text/sotu.txt").read_text("utf-8")[:1_500_000],
        "multilingual": data_file("text/multilingual.txt").read_text("utf-8"),
        "code": data_file("text/code.txt").read_text("utf-8")[:300_000],
    }


@pytest.mark.slow(reason="trains several vocabularies")
def test_sizes_and_scaffold_ids(moby_vocabs):
    for (_unit, scaffold), v in moby_vocabs.items():
        assert len(v) - len(v.scaffold) == 3000
        assert bool(v.scaffold) == scaffold
        assert max(v.id_to_bytes) == len(v) - 1  # ids are dense
        assert all(i >= 3000 for i in v.scaffold)


@pytest.mark.slow(reason="trains with HF tokenizers")
@pytest.mark.parametrize("unit,scaffold", [("char", False), ("byte", False), ("char", True)])
def test_hf_tokenizers_encodes_like_classic_bpe_on_held_out_text(moby_vocabs, unit, scaffold):
    vocab = moby_vocabs[(unit, scaffold)]
    hf = tokenizers.Tokenizer.from_str(to_tokenizer_json(vocab, pattern="paper"))
    ours = Tokenizer(vocab, "paper")
    for name, text in held_out().items():
        expect = ours.encode(text, mode="bpe", allowed_special="all")
        got = hf.encode(text, add_special_tokens=False).ids
        # HF knows nothing of scaffold tokens: it emits them where lbpe splits them back
        if scaffold:
            assert any(i in vocab.scaffold for i in got), name
            got = vocab.expand_scaffold(got)
        assert got == expect, name
        assert len(expect) > 1000
        if name != "code":  # code.txt holds "<|endoftext|>", which HF's decode skips
            assert hf.decode(got) == text


def test_scaffold_tokens_never_come_out_of_either_encoder(moby_vocabs):
    vocab = moby_vocabs[("char", True)]
    tok = Tokenizer(vocab, "paper")
    text = held_out()["sotu"][:300_000]
    for mode in ("bpe", "lbpe"):
        ids = tok.encode(text, mode=mode)
        assert not set(ids) & set(vocab.scaffold), mode
        assert tok.decode(ids) == text


def test_tokenizer_json_keys(moby_vocabs, tmp_path):
    plain = json.loads(to_tokenizer_json(moby_vocabs[("char", False)]))
    assert plain["model"]["byte_fallback"] is True and plain["model"]["ignore_merges"] is False
    assert plain["model"]["vocab"]["<0x41>"] == 1 + 0x41 and plain["model"][PATTERN_KEY] == "paper"
    assert plain["pre_tokenizer"]["type"] == "Split" and plain["pre_tokenizer"]["behavior"] == "Isolated"
    assert plain["added_tokens"][0]["content"] == "<|endoftext|>" and plain["added_tokens"][0]["special"]
    assert SCAFFOLD_KEY not in plain["model"]
    vocab = moby_vocabs[("char", True)]
    spec = json.loads(to_tokenizer_json(vocab))
    assert {int(k): tuple(p) for k, p in spec["model"][SCAFFOLD_KEY].items()} == vocab.scaffold
    byte = json.loads(to_tokenizer_json(moby_vocabs[("byte", False)]))
    assert byte["model"]["vocab"]["Ġthe"] == moby_vocabs[("byte", False)].tokens[b" the"]
    assert [p["type"] for p in byte["pre_tokenizer"]["pretokenizers"]] == ["Split", "ByteLevel"]
    path = tmp_path / "tokenizer.json.gz"
    write_tokenizer_json(vocab, path)
    import gzip

    assert json.loads(gzip.decompress(path.read_bytes())) == spec


@pytest.mark.parametrize("key", [("char", False), ("byte", False)])
def test_lbpe_load_reads_the_written_file(moby_vocabs, tmp_path, key):
    vocab = moby_vocabs[key]
    path = tmp_path / "tokenizer.json"
    write_tokenizer_json(vocab, path)
    loaded = lbpe.load(path)
    ours = Tokenizer(vocab, "paper")
    text = held_out()["multilingual"]
    for mode in ("bpe", "lbpe"):
        assert loaded.encode(text, mode=mode) == ours.encode(text, mode=mode)


def test_lbpe_load_keeps_the_scaffold_map(moby_vocabs, tmp_path):
    vocab = moby_vocabs[("char", True)]
    path = tmp_path / "tokenizer.json"
    write_tokenizer_json(vocab, path)
    assert lbpe.load(path).vocab.scaffold == vocab.scaffold


def test_tokenizers_ignores_lbpe_keys_only_inside_model():
    """The facts the key placement rests on (tokenizers 0.23.3)."""
    spec = json.loads(to_tokenizer_json(train_from_counts({"ab": 1}, vocab_size=256 + 2 + 1)))
    tokenizers.Tokenizer.from_str(json.dumps(spec))
    spec["lbpe_extra"] = {}
    with pytest.raises(Exception):  # noqa: B017 - tokenizers raises a plain Exception
        tokenizers.Tokenizer.from_str(json.dumps(spec))


@pytest.mark.parametrize("preset", sorted(p.name for p in PRETOKENIZER_PRESETS.values() if p.hf_regex))
def test_hf_regexes_split_like_the_presets(preset):
    split = tokenizers.pre_tokenizers.Split(tokenizers.Regex(hf_regex(preset)), behavior="isolated")
    samples = [t[:200_000] for t in held_out().values()]
    samples.append("a  \n\n b\r\n\tc   \u00a0x \u017f'S 'LL 'Ll \u212a's it's 12345 x/\n/y \n")
    for text in samples:
        assert [p for p, _ in split.pre_tokenize_str(text)] == split_text(text, preset)


# ---- the command line -----------------------------------------------------------------------


def test_cli_train_writes_what_train_makes(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text(data_file("text/moby_dick.txt").read_text("utf-8")[:200_000], encoding="utf-8")
    out = tmp_path / "tok.json"
    result = run_cli(
        "train",
        "--vocab-size",
        "600",
        "--unit",
        "char",
        "--scaffold",
        "--pattern",
        "paper",
        "-o",
        str(out),
        str(corpus),
    )
    assert result.returncode == 0, result.stderr
    assert f"wrote {out}" in result.stderr and "\r" not in result.stderr  # no progress frames when not a terminal
    expect = train([corpus], vocab_size=600, scaffold=True)
    assert json.loads(out.read_text("utf-8")) == json.loads(to_tokenizer_json(expect))
    # the note is true: HF's reader emits scaffold ids that lbpe's own reading of the file does not
    scaffold = sorted(expect.scaffold)
    assert scaffold and scaffold[0] == 600
    assert f"read its {len(scaffold):,} scaffold tokens (ids 600 to {scaffold[-1]})" in result.stderr
    assert "train without --scaffold" in result.stderr
    from tokenizers import Tokenizer as HfTokenizer

    text = corpus.read_text("utf-8")[:50_000]
    assert max(HfTokenizer.from_file(str(out)).encode(text).ids) >= 600
    assert max(lbpe.load(out).encode(text, mode="bpe")) < 600
    result = run_cli("train", "--vocab-size", "300", "--unit", "byte", "-q", "-o", str(out), str(corpus))
    assert result.returncode == 0 and result.stderr.count("\n") == 1, result.stderr
    assert json.loads(out.read_text("utf-8"))["model"]["byte_fallback"] is False


def test_cli_train_writes_a_folder_transformers_loads(tmp_path):
    from transformers import AutoTokenizer

    corpus = tmp_path / "c.txt"
    text = data_file("text/moby_dick.txt").read_text("utf-8")[:200_000]
    corpus.write_text(text, encoding="utf-8")
    out = tmp_path / "my-tokenizer" / "tokenizer.json"  # the folder is made
    result = run_cli(
        "train",
        "--vocab-size",
        "800",
        "--eos",
        "<|endoftext|>",
        "--pad",
        "<pad>",
        "--bos",
        "<s>",
        "-q",
        "-o",
        str(out),
        str(corpus),
    )
    assert result.returncode == 0, result.stderr
    assert "tokenizer_config.json, special_tokens_map.json" in result.stderr
    hf = AutoTokenizer.from_pretrained(str(out.parent))
    ours = lbpe.load(out)
    assert (hf.bos_token, hf.eos_token, hf.pad_token) == ("<s>", "<|endoftext|>", "<pad>")
    assert hf.eos_token_id == ours.vocab.special["<|endoftext|>"] and hf.pad_token_id == ours.vocab.special["<pad>"]
    sample = text[100_000:104_000]
    assert hf(sample)["input_ids"] == ours.encode(sample, mode="bpe")
    padded = hf(["Call me Ishmael.", sample[:500]], padding=True)["input_ids"]
    assert padded[0][-1] == hf.pad_token_id and len(padded[0]) == len(padded[1])
    roles = run_cli("train", "--vocab-size", "800", "--eos", "</s>", "-q", "-o", str(tmp_path / "t.json"), str(corpus))
    assert roles.returncode == 2 and "name it tokenizer.json" in roles.stderr


def test_cli_train_llama_puts_the_chosen_bos_before_each_text(tmp_path):
    """--style llama with --bos names the token put before each text: transformers' bos_token
    and the tokenizer.json's post-processor agree (it put <s> there while the config said the
    other, so a model trained on <s> would be prompted with the other)."""
    from transformers import AutoTokenizer

    corpus = tmp_path / "c.txt"
    corpus.write_text(data_file("text/moby_dick.txt").read_text("utf-8")[:100_000], encoding="utf-8")
    out = tmp_path / "lb" / "tokenizer.json"
    args = ("train", "-q", "--vocab-size", "800", "--style", "llama", "--bos", "<|begin|>", "-o", str(out))
    result = run_cli(*args, str(corpus))
    assert result.returncode == 0, result.stderr
    hf = AutoTokenizer.from_pretrained(str(out.parent))
    begin = lbpe.load(out).vocab.special["<|begin|>"]
    assert hf.bos_token == "<|begin|>" and hf.bos_token_id == begin
    ids = hf("Call me Ishmael.")["input_ids"]
    assert ids[0] == begin and ids[1:] == hf("Call me Ishmael.", add_special_tokens=False)["input_ids"]
    # its unknown token is <unk> (id 0, what the model names): another is refused, not written to
    # the config alone
    unk = run_cli(*args[:-2], "--unk", "<|unk|>", "-o", str(tmp_path / "u" / "tokenizer.json"), str(corpus))
    assert unk.returncode == 2 and "keeps <unk> as the unknown token" in unk.stderr, unk.stderr


@pytest.mark.parametrize(
    "args,message",
    [
        (["--vocab-size", "100"], "smaller than the"),
        (["--vocab-size", "1000", "--pattern", "nope"], "no HF regex for the pre-tokenizer 'nope'"),
        (["--vocab-size", "1000", "MISSING"], "cannot be read"),
        # an unset shell variable (--eos "$EOS") gave no end-of-text token, with no word
        (["--vocab-size", "1000", "--eos="], "--eos is empty"),
        (["--vocab-size", "1000", "--style", "llama", "--bos="], "--bos is empty"),
    ],
)
def test_cli_train_errors_are_one_line(tmp_path, args, message):
    corpus = tmp_path / "c.txt"
    corpus.write_text("some text\n", encoding="utf-8")
    files = [] if "MISSING" in args else [str(corpus)]
    args = [str(tmp_path / "missing.txt") if a == "MISSING" else a for a in args]
    result = run_cli("train", "-q", "-o", str(tmp_path / "t.json"), *args, *files)
    assert result.returncode == 2 and message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


# ---- special tokens whose text the corpus holds ----------------------------------------------

SPECIAL_CORPUS = ["hello, hello hello,hello.othello;<s>x</s>,<s>y</s> hello"] * 5


@pytest.mark.parametrize(
    "unit,style,special,text",
    [
        ("char", "gpt2", "hello", b"hello"),
        ("byte", "gpt2", "hello", b"hello"),
        ("byte", "gpt2", "Ġhello", b" hello"),  # tokenizer.json spells a byte-level token's space Ġ
        ("char", "llama", "▁hello", "▁hello".encode()),
    ],
)
def test_no_merge_makes_a_special_tokens_text(unit, style, special, text, tmp_path):
    # without the special, merges make its text (the corpus's most frequent words)
    plain = train(SPECIAL_CORPUS, vocab_size=1000, unit=unit, style=style)
    assert text in plain.tokens
    vocab = train(SPECIAL_CORPUS, vocab_size=1000, unit=unit, style=style, special_tokens=[special, "<s>"])
    assert text not in vocab.tokens
    assert any(len(t) > 2 and t in text for t in vocab.tokens)  # merges short of it stay
    # so the file says what lbpe encodes: HF tokenizers reads the same ids from it
    path = tmp_path / "tokenizer.json"
    write_tokenizer_json(vocab, path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    ours = lbpe.load(path)
    for text in ("hello there", "othello<s>hello</s>", "hellos and hello", "<s>x</s>", f"a{special}b"):
        assert hf.encode(text, add_special_tokens=False).ids == ours.encode(text, mode="bpe", allowed_special="all")


def test_a_byte_level_special_apart_from_the_byte_alphabet_bans_no_merge():
    # a space is spelled Ġ in a byte-level tokenizer.json: a special " hello" clashes with no token
    # there (the token of " hello" is spelled "Ġhello"), and "\n" (spelled Ċ) is no byte's spelling
    assert b" hello" in train(SPECIAL_CORPUS, vocab_size=1000, unit="byte").tokens  # the merges make it
    vocab = train(SPECIAL_CORPUS, vocab_size=1000, unit="byte", special_tokens=[" hello", "\n"])
    assert b" hello" in vocab.tokens
    hf = tokenizers.Tokenizer.from_str(to_tokenizer_json(vocab))
    ours = Tokenizer(vocab, "paper")
    for text in ("say hello, othello", "a\nb hello\n"):
        assert hf.encode(text, add_special_tokens=False).ids == ours.encode(text, mode="bpe", allowed_special="all")


@pytest.mark.parametrize(
    "unit,special,says",
    [
        ("byte", "a", "special token 'a' is how tokenizer.json spells byte 0x61"),
        ("byte", "§", "special token '§' is how tokenizer.json spells byte 0xA7"),
        ("byte", "Ċ", "special token 'Ċ' is how tokenizer.json spells byte 0x0A"),
        ("char", "é", "special token 'é' is one character"),
        ("char", "<0x0A>", "special token '<0x0A>' is spelled as byte 0x0A's byte-fallback token"),
    ],
)
def test_a_special_that_is_a_base_token_is_refused_before_training(unit, special, says):
    with pytest.raises(LbpeError, match=re.escape(says)):
        TrainOptions(vocab_size=1000, unit=unit, special_tokens=[special])


def test_cli_train_refuses_a_one_character_special_before_training(tmp_path):
    corpus = tmp_path / "c.txt"
    corpus.write_text("a cat and a hat\n", encoding="utf-8")
    result = run_cli(
        "train", "--vocab-size", "300", "--special", "a", "-q", "-o", str(tmp_path / "t.json"), str(corpus)
    )
    assert result.returncode == 2 and "special token 'a' is one character" in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and not (tmp_path / "t.json").exists()


# ---- the bundled default vocabulary ---------------------------------------------------------


@pytest.mark.slow(reason="retrains the bundled one")
def test_bundled_default_vocabulary_is_reproducible_and_loads_everywhere():
    import gzip
    import hashlib

    from lbpe.data import default_tokenizer_path, default_training_record_path

    path = default_tokenizer_path()
    record = json.loads(default_training_record_path().read_text("utf-8"))
    data = path.read_bytes()
    assert record["file"] == path.name and record["file_sha256"] == hashlib.sha256(data).hexdigest()
    assert len(data) < 1_500_000
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    inputs = [data_file(i["file"]) for i in record["inputs"]]
    assert [hashlib.sha256(p.read_bytes()).hexdigest() for p in inputs] == [i["sha256"] for i in record["inputs"]]
    assert "text/code.txt" not in [i["file"] for i in record["inputs"]]  # not public domain
    params = record["parameters"]
    assert (params["vocab_size"], params["unit"], params["pattern"]) == (32000, "char", "paper")
    # the script's training, rerun here, gives the shipped file byte for byte
    vocab = train(
        inputs,
        vocab_size=params["vocab_size"],
        unit=params["unit"],
        pattern=params["pattern"],
        scaffold=params["scaffold"],
        special_tokens=params["special_tokens"],
        max_chars=params["max_chars"],
    )
    assert to_tokenizer_json(vocab, pattern=params["pattern"]).encode("utf-8") == data
    assert len(vocab) == 32000
    text = held_out()["multilingual"] + held_out()["code"][:100_000].replace("<|endoftext|>", "")
    expect = Tokenizer(vocab, "paper").encode(text, mode="bpe")
    assert tokenizers.Tokenizer.from_str(data.decode("utf-8")).encode(text).ids == expect
    loaded = lbpe.load(path)
    assert loaded.encode(text, mode="bpe") == expect
    assert loaded.encode(text, mode="lbpe") == Tokenizer(vocab, "paper").encode(text, mode="lbpe")


def test_a_pattern_with_groups_counts_its_whole_matches():
    from lbpe.train.count import count_pieces

    text = "aab bbb ab!\nzz top\n" * 3
    grouped = count_pieces([text], re.compile(r"(\w)\w*|(\s+)|."), chunk_chars=8)
    assert grouped == count_pieces([text], re.compile(r"\w+|\s+|."), chunk_chars=8)
    assert grouped["aab"] == 3 and "a" not in grouped
