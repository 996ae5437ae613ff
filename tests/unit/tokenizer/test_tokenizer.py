"""The Tokenizer pipeline: round trips, special tokens, segments, decoding, modes, caches."""

from __future__ import annotations

import functools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lbpe
from lbpe import native
from lbpe.errors import LbpeError
from lbpe.tokenizer import Tokenizer
from lbpe.vocab import Vocab
from tests.support.data import data_file

pytestmark = pytest.mark.both_paths


@functools.cache
def cl100k() -> lbpe.Tokenizer:
    return lbpe.load(data_file("openai/cl100k_base.tiktoken"))


def tiny(pattern: str = "paper", cache_size: int = 1000) -> Tokenizer:
    tokens = {bytes([b]): b for b in range(256)}
    tokens.update({b"aa": 256, b"bb": 257, b"bbb": 258, b"ab": 259, b"aab": 260})
    return Tokenizer(Vocab(tokens, special={"<|end|>": 261}), pattern, cache_size=cache_size)


@pytest.mark.parametrize("mode", lbpe.MODES)
@settings(max_examples=200, deadline=None)
@given(text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_round_trip(mode, text):
    tok = cl100k()
    ids = tok.encode(text, mode=mode, disallowed_special=())
    assert tok.decode(ids) == text
    assert tok.decode_bytes(ids) == text.encode()


def test_mode_is_checked():
    with pytest.raises(ValueError, match="mode must be 'bpe' or 'lbpe'"):
        tiny().encode("abc", mode="unigram")


def test_special_tokens_follow_tiktoken_rules():
    tok = tiny()
    with pytest.raises(lbpe.DisallowedSpecialError, match="allowed_special"):
        tok.encode("aa<|end|>", mode="lbpe")
    assert tok.encode("aa<|end|>bb", mode="lbpe", allowed_special={"<|end|>"}) == [256, 261, 257]
    as_text = tok.encode("aa<|end|>", mode="lbpe", disallowed_special=())
    assert 261 not in as_text and tok.decode(as_text) == "aa<|end|>"
    with pytest.raises(ValueError, match="does not have"):
        tok.encode("x", mode="bpe", allowed_special={"<|nope|>"})


def _every_entry(tok, text, **special):
    """``text`` through each public call that takes ``allowed_special`` / ``disallowed_special``."""
    return [
        tok.encode(text, mode="bpe", **special),
        tok.encode_batch([text, text], mode="bpe", **special)[0],
        list(tok.encode_to_array(text, mode="bpe", **special)),
        [s.id for s in tok.segment(text, mode="bpe", **special)],
    ]


@pytest.mark.parametrize("parameter", ["allowed_special", "disallowed_special"])
@pytest.mark.parametrize("text", ["aa", "aa<|end|>"])
def test_a_lone_string_of_special_tokens_is_refused_with_the_fix(parameter, text):
    """A string other than "all" would be read as the set of its characters (tiktoken does
    so): a refused special token would then go through as ordinary text, in silence."""
    tok = tiny()
    for call in (tok.encode, tok.encode_to_array, tok.segment):
        with pytest.raises(lbpe.LbpeError, match=re.escape(parameter + "={'<|end|>'}")):
            call(text, mode="bpe", **{parameter: "<|end|>"})
    # words meant as "every one" or "none" get those, not a set of a token the vocabulary lacks
    for word in ("ALL", "All", " all"):
        with pytest.raises(lbpe.LbpeError, match=re.escape(f"{parameter}={word!r}") + '.*pass "all"') as refused:
            tok.encode_batch([text, text], mode="bpe", **{parameter: word})
        assert "={" not in str(refused.value)
    for word in ("none", "None", ""):
        none = re.escape(f"{parameter}={word!r}") + r".*pass \(\) for none"
        with pytest.raises(lbpe.LbpeError, match=none) as refused:
            tok.encode(text, mode="bpe", **{parameter: word})
        assert "={" not in str(refused.value)


@pytest.mark.parametrize("parameter", ["allowed_special", "disallowed_special"])
@pytest.mark.parametrize("value", [5, 2.5, [b"<|end|>"], [None]])
def test_special_names_that_are_not_texts_are_refused_clearly(parameter, value):
    tok = tiny()
    with pytest.raises(lbpe.LbpeError, match=f'{parameter} must be "all" or a collection of token texts'):
        tok.encode("aa<|end|>", mode="bpe", **{parameter: value})


@pytest.mark.parametrize("value", [None, b"aa<|end|>", 5])
def test_special_spans_refuses_what_is_not_a_text(value):
    """As every other call taking a text, with or without special tokens to look for."""
    for tok in (tiny(), Tokenizer(Vocab({bytes([b]): b for b in range(256)}), "paper")):
        with pytest.raises(TypeError, match="text must be str, not "):
            tok.special_spans(value)


def test_special_names_may_come_in_any_collection():
    """A list, a tuple, a dict's keys or a numpy array of texts names the same tokens as a set;
    an empty one (numpy's too) or ``None`` names none."""
    numpy = pytest.importorskip("numpy")
    tok = tiny()
    text = "aa<|end|>bb"
    allowed = [256, 261, 257]
    as_text = tok.encode_ordinary(text, mode="bpe")
    for names in (["<|end|>"], ("<|end|>",), {"<|end|>": 0}, numpy.array(["<|end|>"])):
        assert _every_entry(tok, text, allowed_special=names) == [allowed] * 4
        with pytest.raises(lbpe.DisallowedSpecialError):
            tok.encode(text, mode="bpe", disallowed_special=names)
    for empty in ([], (), None, numpy.array([], dtype=str)):
        assert _every_entry(tok, text, disallowed_special=empty) == [as_text] * 4
        with pytest.raises(lbpe.DisallowedSpecialError):
            tok.encode(text, mode="bpe", allowed_special=empty)


def test_special_names_may_come_as_an_iterator_read_once():
    """An iterator (a generator, ``iter(...)``) names what its items name, in every call and
    for every text of a batch, though it can be read only once."""
    tok = tiny()
    text = "aa<|end|>bb"
    allowed = [256, 261, 257]
    calls = [
        lambda **s: tok.encode(text, mode="bpe", **s),
        lambda **s: tok.encode_batch([text] * 3, mode="bpe", **s)[2],
        lambda **s: list(tok.encode_to_array(text, mode="bpe", **s)),
        lambda **s: [seg.id for seg in tok.segment(text, mode="bpe", **s)],
    ]
    for call in calls:
        assert call(allowed_special=iter(["<|end|>"])) == allowed
        with pytest.raises(lbpe.DisallowedSpecialError):
            call(disallowed_special=(n for n in ["<|end|>"]))
    with pytest.raises(lbpe.DisallowedSpecialError):  # the second text of the batch is checked too
        tok.encode_batch(["bb", text], mode="bpe", disallowed_special=iter(["<|end|>"]))


def test_a_refused_name_the_vocabulary_lacks_is_an_error_as_an_allowed_one_is():
    """Else a misspelt name would refuse nothing, and the text it should stop would pass."""
    tok = tiny()
    lacks = re.escape("disallowed_special names tokens this vocabulary does not have: ['<|ned|>']")
    for text in ("aa", "aa<|end|>", "aa<|ned|>"):
        with pytest.raises(lbpe.LbpeError, match=lacks):
            tok.encode(text, mode="bpe", disallowed_special={"<|ned|>"})
    added = Tokenizer(tok.vocab, "paper", added_tokens={"<x>": 262})
    with pytest.raises(lbpe.DisallowedSpecialError):  # an added token's text may be refused
        added.encode("aa<x>", mode="bpe", disallowed_special={"<x>"})


@pytest.mark.parametrize(
    ("mode", "text", "want"),
    [
        ("lbpe", "aabbb", [260, 257]),  # "aab" is the first window of three, then "bb"
        ("bpe", "aabbb", [256, 258]),  # aa, bb, then bb + b; aa + bbb is no token
        ("bpe", "aa\ud800", [256, 0xEF, 0xBF, 0xBD]),  # a lone surrogate becomes U+FFFD
    ],
)
def test_every_way_into_encode_gives_the_same_ids(mode, text, want):
    """A plain text takes a short way past the special-token checks; every call that needs them
    (or not) gives the same ids."""
    tok = tiny()
    assert tok.encode(text, mode=mode) == want
    assert tok.encode(text, mode=mode, allowed_special="all") == want
    assert tok.encode(text, mode=mode, allowed_special={"<|end|>"}) == want
    assert tok.encode(text, mode=mode, disallowed_special=()) == want
    assert tok.encode_ordinary(text, mode=mode) == want
    assert tok.encode(text + "<|end|>", mode=mode, allowed_special="all") == want + [261]
    assert tok.encode(text, mode=mode, add_special_tokens=True) == want  # this vocabulary has no BOS


class _Counted:
    """A tokenizer's matcher of special and added tokens' strings, its searches counted."""

    def __init__(self, matcher) -> None:
        self.matcher, self.searches = matcher, 0
        self.first_char = matcher.first_char

    def search(self, text, pos=0):
        self.searches += 1
        return self.matcher.search(text, pos)

    def finditer(self, text, pos=0):
        return self.matcher.finditer(text, pos)


@pytest.mark.parametrize("mode", ["bpe", "lbpe"])
def test_a_text_is_searched_for_special_tokens_only_when_one_may_match(mode):
    """With nothing allowed, nothing refused and no added token, a special token's text is
    ordinary text (tiktoken's encode_ordinary): encode never looks for one. Every other call
    does, and an added token is matched whatever disallowed_special says."""
    tok = tiny()
    tok._specials = counted = _Counted(tok._specials)
    text = "aab<|end|>bb"
    ordinary = tok.encode_ordinary(text, mode=mode)
    assert tok.encode(text, mode=mode, disallowed_special=()) == ordinary
    assert tok.encode(text, mode=mode, disallowed_special=set()) == ordinary
    assert counted.searches == 0
    with pytest.raises(lbpe.DisallowedSpecialError):
        tok.encode(text, mode=mode)
    with pytest.raises(lbpe.DisallowedSpecialError):
        tok.encode(text, mode=mode, disallowed_special={"<|end|>"})
    assert tok.encode(text, mode=mode, allowed_special="all", disallowed_special=()) == [
        *tok.encode("aab", mode=mode),
        261,
        257,
    ]
    assert counted.searches >= 3

    added = Tokenizer(tok.vocab, "paper", added_tokens={"<x>": 262})
    assert added.encode("aa<x>bb", mode=mode, disallowed_special=()) == [256, 262, 257]


def test_special_tokens_never_come_from_lbpe_even_if_longest():
    tok = tiny()
    ids = tok.encode("<|end|>" * 3, mode="lbpe", disallowed_special=())
    assert 261 not in ids


def test_segments_cover_text_and_match_encode():
    tok = cl100k()
    text = "Hello, wörld! 日本語のテキスト 🙂🙂 tabs\there\n\nend  "
    for mode in lbpe.MODES:
        segs = tok.segment(text, mode=mode)
        assert [s.id for s in segs] == tok.encode(text, mode=mode)
        assert b"".join(s.token for s in segs) == text.encode()
        # complete tokens tile the text; partial ones overlap only inside multi-byte characters
        pos = 0
        for s in segs:
            if not s.partial:
                assert text[s.start : s.end] == s.label
            assert s.start <= pos <= s.end or s.partial
            pos = s.end


def test_segments_after_a_surrogate_pair_lie_in_the_text_given():
    """A text holding a surrogate pair (as JSON's "\\ud83d\\ude00" decodes) is encoded as the
    character the pair spells, and its segments' offsets are into the text given, not into the
    shorter text with the pair joined (" ab" lay at 1-4, over half the pair)."""
    tok = cl100k()
    text = "\ud83d\ude00 ab cd \ud800 ef"
    joined = "\U0001f600 ab cd \ufffd ef"
    for mode in lbpe.MODES:
        segs = tok.segment(text, mode=mode)
        assert [s.id for s in segs] == tok.encode(joined, mode=mode)
        words = [(s.label, text[s.start : s.end]) for s in segs if not s.partial]
        assert words and all(label == at for label, at in words if "\ufffd" not in label), words
        assert segs[-1].end == len(text)
    assert [(p, text[a:b]) for p, a, b, _ in tok.located_pieces(text)][1:3] == [(" ab", " ab"), (" cd", " cd")]


def test_partial_utf8_tokens_are_marked_not_replaced():
    tok = cl100k()
    text = "語"  # three bytes; cl100k has no token for it, so it splits inside the character
    segs = tok.segment(text, mode="bpe")
    assert len(segs) > 1 and all(s.partial for s in segs)
    assert all((s.start, s.end) == (0, 1) for s in segs)
    assert all("\ufffd" not in s.label for s in segs)
    assert "".join(s.label for s in segs) == "".join(f"\\x{b:02x}" for b in text.encode())


def test_decode_joins_bytes_before_decoding():
    tok = cl100k()
    ids = tok.encode("語", mode="bpe")
    assert len(ids) > 1
    assert tok.decode(ids) == "語"  # no U+FFFD from decoding tokens one at a time


def test_decode_calls_a_plain_function_decoder_with_the_ids_alone():
    base = cl100k()
    tok = lbpe.Tokenizer(base.vocab, "cl100k_base", decoder=lambda ids: "|".join(map(str, ids)))
    assert tok.decode([9906, 1917]) == "9906|1917"


def test_decode_unknown_id_is_a_clear_error():
    with pytest.raises(ValueError, match="not in the vocabulary"):
        tiny().decode([10**9])


@pytest.mark.parametrize("decode", ["decode", "decode_bytes"])
def test_decode_takes_whole_numbers_only(decode):
    tok = cl100k()
    with pytest.raises(TypeError, match=r"token ids are whole numbers; 9906.0 \(float\) is not"):
        getattr(tok, decode)([9906.0])  # not taken for 9906 ("Hello"), as tiktoken and HF refuse it
    with pytest.raises(TypeError, match=r"token ids are whole numbers; 'a' \(str\) is not"):
        getattr(tok, decode)([9906, "a"])
    assert getattr(tok, decode)(iter([9906, 1917])) in ("Hello world", b"Hello world")


@pytest.mark.parametrize("ids", [9906, None])
def test_decode_of_one_id_says_to_give_a_sequence(ids):
    with pytest.raises(TypeError, match=rf"ids must be a sequence of token ids, not {type(ids).__name__}"):
        cl100k().decode(ids)  # type: ignore[arg-type]


def test_decode_of_numpy_ids():
    np = pytest.importorskip("numpy")
    tok = cl100k()
    assert tok.decode(np.array([9906, 1917], dtype=np.uint32)) == "Hello world"
    with pytest.raises(TypeError, match=r"token ids are whole numbers; 9906.0 \(float\) is not"):
        tok.decode(np.array([9906.0, 1917.0]))
    with pytest.raises(TypeError, match=r"token ids are whole numbers; \[9906, 1917\] \(list\) is not"):
        tok.decode(np.array([[9906, 1917]]))  # a batch: decode each row


def test_decode_of_arrays_and_byte_strings():
    import array

    tok = cl100k()
    assert tok.decode(array.array("I", [9906, 1917])) == "Hello world"
    with pytest.raises(TypeError, match=r"token ids are whole numbers; 9906.0 \(float\) is not"):
        tok.decode(array.array("d", [9906.0]))
    for data in (b"H", bytearray(b"H")):
        with pytest.raises(TypeError, match=f"ids must be a sequence of token ids, not {type(data).__name__}"):
            tok.decode(data)  # type: ignore[arg-type]


def test_pieces_text_must_be_str():
    with pytest.raises(TypeError, match="^text must be str, not NoneType$"):
        cl100k().pieces(None)  # type: ignore[arg-type]


def test_text_must_be_str():
    with pytest.raises(TypeError, match="decode bytes first"):
        tiny().encode(b"abc", mode="bpe")  # type: ignore[arg-type]


def test_cache_is_bounded_and_does_not_change_results():
    tok = tiny(cache_size=3)
    text = " ".join(["aab", "bbb", "ab", "ba", "aaa", "bab"] * 5)
    first = tok.encode(text, mode="lbpe")
    assert len(tok._caches["lbpe"]) <= 3
    uncached = [i for p in tok.pieces(text) for i in (tok.vocab.tokens[k] for k in tok.split_piece(p, mode="lbpe"))]
    assert first == uncached == tok.encode(text, mode="lbpe")


def test_vocab_rejects_bad_tables():
    with pytest.raises(ValueError, match="used by both"):
        Vocab({bytes([b]): b for b in range(256)} | {b"ab": 5})
    with pytest.raises(ValueError, match="lacks single-byte tokens"):
        Vocab({b"a": 0})
    with pytest.raises(ValueError, match="unit must be"):
        Vocab({b"a": 0}, unit="word")  # type: ignore[arg-type]


# ---- character-level vocabularies and Scaffold-BPE (hand-made vocabularies) ----


def char_vocab(**kw) -> Vocab:
    texts = ["a", "b", "c", " ", "ab", "abc", "ca", " a"]
    tokens = {t.encode(): 300 + i for i, t in enumerate(texts)}
    merges = {(b"a", b"b"): 0, (b"ab", b"c"): 1, (b"c", b"a"): 2, (b" ", b"a"): 3}
    return Vocab(tokens, merges=merges, unit="char", byte_fallback={b: b for b in range(256)}, **kw)


def test_char_level_bpe_lbpe_and_byte_fallback():
    tok = Tokenizer(char_vocab(), "paper")
    # "cabc": BPE merges (a,b) first -> c|ab|c -> c|abc ; LBPE takes "abc" (longest) then "c"
    assert tok.encode("cabc", mode="bpe") == [302, 305]
    assert tok.encode("cabc", mode="lbpe") == [302, 305]
    # "caab": BPE: (a,b) -> c a ab -> (c,a) -> ca ab ; LBPE: "ca" at 0, "ab" at 2 -> same
    assert tok.encode("caab", mode="lbpe") == [306, 304]
    # an unseen character becomes its UTF-8 bytes' fallback tokens, in both modes
    for mode in lbpe.MODES:
        ids = tok.encode("aé", mode=mode)
        assert ids == [300, 0xC3, 0xA9]
        assert tok.decode(ids) == "aé"
        segs = tok.segment("aé", mode=mode)
        assert [(s.start, s.end, s.partial) for s in segs] == [(0, 1, False), (1, 2, True), (1, 2, True)]


def test_char_level_without_fallback_uses_unk_or_errors():
    texts = ["a", "<unk>"]
    vocab = Vocab({t.encode(): i for i, t in enumerate(texts)}, unit="char", unk=1)
    assert Tokenizer(vocab, "paper").encode("aza", mode="lbpe") == [0, 1, 0]
    bare = Vocab({b"a": 0}, unit="char")
    with pytest.raises(ValueError, match="has no token"):
        Tokenizer(bare, "paper").encode("z", mode="bpe")


def test_scaffold_tokens_are_split_by_bpe_and_never_used_by_lbpe():
    tokens = {bytes([b]): b for b in range(256)}
    tokens.update({b"er": 256, b"ser": 257})  # "er" is a scaffold: it lives on only inside "ser"
    scaffold = {256: (ord("e"), ord("r"))}
    tok = Tokenizer(Vocab(tokens, merges={(b"e", b"r"): 0, (b"s", b"er"): 1}, scaffold=scaffold), "paper")
    assert tok.encode("ser", mode="bpe") == [257]
    assert tok.encode("her", mode="bpe") == [ord("h"), ord("e"), ord("r")]  # "er" split back
    assert tok.encode("her", mode="lbpe") == [ord("h"), ord("e"), ord("r")]
    assert tok.encode("sers", mode="lbpe") == [257, ord("s")]
    with pytest.raises(ValueError, match="not the concatenation"):
        Vocab(tokens, scaffold={257: (ord("e"), ord("r"))})


# ---- encode_batch over forked processes ----


def _mixed_docs() -> list[str]:
    english = data_file("text/sotu.txt").read_text("utf-8")[:300_000]
    other = data_file("text/multilingual.txt").read_text("utf-8")[:100_000]
    docs = [english[i : i + 5_000] for i in range(0, len(english), 5_000)]
    docs += [other[i : i + 3_000] for i in range(0, len(other), 3_000)]
    docs.insert(7, "")
    return docs


@pytest.mark.parametrize("mode", lbpe.MODES)
def test_encode_batch_over_processes_equals_one_by_one(mode):
    tok = lbpe.presets.load_preset("cl100k_base")
    docs = _mixed_docs()
    one_by_one = [tok.encode(d, mode=mode) for d in docs]
    tok.clear_cache()
    assert tok.encode_batch(docs, mode=mode, workers=3) == one_by_one
    assert tok.encode_batch(docs, mode=mode, workers=None) == one_by_one
    assert tok.encode_batch(docs[:1], mode=mode, workers=4) == one_by_one[:1]
    assert tok.encode_batch([], mode=mode, workers=2) == []


def test_encode_batch_refuses_one_text_or_no_texts_with_the_fix():
    """A lone string is iterable (its characters would be the batch's texts, in silence)."""
    tok = tiny()
    for lone in ("abc", b"abc"):
        with pytest.raises(TypeError, match=r"texts must be a list of str \(an iterable of texts\), not one "):
            tok.encode_batch(lone, mode="bpe")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="texts must be a list of str .*, not NoneType"):
        tok.encode_batch(None, mode="bpe")  # type: ignore[arg-type]
    assert tok.encode_batch(iter(["aa", "bb"]), mode="bpe") == [[256], [257]]


def test_encode_batch_names_its_keywords():
    """A misspelt keyword is refused at the call, also for an empty batch (it was passed on to
    encode, which only a non-empty batch reached)."""
    tok = lbpe.presets.load_preset("gpt2")
    with pytest.raises(TypeError, match="allowed"):
        tok.encode_batch([], mode="bpe", allowed="all")  # type: ignore[call-arg]
    assert tok.encode_batch(["a <|endoftext|>"], mode="lbpe", allowed_special="all", add_special_tokens=True) == [
        tok.encode("a <|endoftext|>", mode="lbpe", allowed_special="all", add_special_tokens=True)
    ]


def test_encode_batch_errors_from_a_worker_reach_the_caller():
    tok = lbpe.presets.load_preset("cl100k_base")
    docs = ["plain text"] * 50 + ["the end <|endoftext|>"]  # the special token sits in the fork's share
    with pytest.raises(lbpe.DisallowedSpecialError, match="endoftext"):
        tok.encode_batch(docs, mode="bpe", workers=2)
    ids = tok.encode_batch(docs, mode="bpe", workers=2, allowed_special="all")
    assert ids[-1][-1] == tok.special_tokens["<|endoftext|>"]
    with pytest.raises(lbpe.LbpeError, match="workers must be"):
        tok.encode_batch(docs, mode="bpe", workers=0)
    with pytest.raises(lbpe.LbpeError, match="workers must be"):
        tok.encode_batch(docs, mode="bpe", workers=1.5)


def test_a_worker_that_sends_nothing_is_reported():
    from lbpe.batch import _read_share

    with pytest.raises(lbpe.LbpeError, match="ended without sending"):
        _read_share(b"")


def test_clear_cache_empties_the_caches_and_keeps_the_tables(encode_path):
    shared = lbpe.presets.load_preset("cl100k_base").vocab  # a fresh Tokenizer and Vocab over its tokens
    tok = lbpe.Tokenizer(lbpe.Vocab(shared.tokens, special=shared.special), "cl100k_base")
    tok.clear_cache()
    assert "cut_finder" not in tok.vocab.__dict__ and native.built_model(tok.vocab) is None  # builds nothing
    text = "Tokenizers 東京都の天気 are fun, naïvely."
    first = {mode: tok.encode(text, mode=mode) for mode in native.METHOD_CODES}
    if encode_path == "compiled":  # the compiled path keeps its caches with its tables
        model = native.model_for(tok.vocab)
        assert all(model.cached()) and not any(tok._caches.values())
        tok.clear_cache()
        assert not any(model.cached()) and native.model_for(tok.vocab) is model  # the tables stay built
    else:
        finder = tok.vocab.cut_finder
        assert all(tok._caches.values()) and len(finder._follow) > 0
        tok.clear_cache()
        assert not any(tok._caches.values()) and not any(tok._part_caches.values()) and len(finder._follow) == 0
        assert tok.vocab.cut_finder is finder  # the tables stay built
    assert {mode: tok.encode(text, mode=mode) for mode in native.METHOD_CODES} == first


def test_disallowed_special_error_survives_pickling():
    import pickle

    err = pickle.loads(pickle.dumps(lbpe.DisallowedSpecialError("<|endoftext|>")))
    assert type(err) is lbpe.DisallowedSpecialError and err.token == "<|endoftext|>" and "allowed_special" in str(err)


# ---- ids in one buffer: encode_to_array, encode_to_numpy ----


BUFFER_TEXT = "Hello, world! 東京タワー 👍🏽\n\tcafé <|endoftext|> x = [1, 22, 333]"


def test_encode_to_array_gives_tiktokens_ids_in_32_bit_cells():
    from tests.support.data import tiktoken_encoding

    ref = tiktoken_encoding("cl100k_base")
    tok = cl100k()
    got = tok.encode_to_array(BUFFER_TEXT, mode="bpe", allowed_special="all")
    assert got.itemsize == 4 and got.typecode in "IL"
    assert got.tolist() == ref.encode(BUFFER_TEXT, allowed_special="all")
    ordinary = tok.encode_to_array(BUFFER_TEXT, mode="bpe", disallowed_special=())
    assert ordinary.tolist() == ref.encode_ordinary(BUFFER_TEXT)
    assert tok.encode_to_array("", mode="lbpe").tolist() == []


@pytest.mark.parametrize("mode", lbpe.METHODS)
def test_encode_to_array_equals_encode_for_every_method_and_option(mode):
    extra = {"dropout": 0.3, "seed": 7} if mode == "dropout" else {}
    for tok in (cl100k(), lbpe.load_preset("mistral-7b")):
        for text in (BUFFER_TEXT, "a" * 5000 + " b", "\ud800 lone"):
            for add in (False, True):
                expect = tok.encode(text, mode=mode, allowed_special="all", add_special_tokens=add, **extra)
                got = tok.encode_to_array(text, mode=mode, allowed_special="all", add_special_tokens=add, **extra)
                assert got.tolist() == expect, (tok.name, mode, text[:20], add)


def test_encode_to_array_on_a_file_with_its_own_pattern():
    """A tokenizer.json whose pattern is no preset: the compiled path encodes the splitter's pieces."""
    tok = lbpe.load(data_file("hf/deepseek_v3/tokenizer.json"))
    text = BUFFER_TEXT * 3
    assert tok.encode_to_array(text, mode="lbpe").tolist() == tok.encode(text, mode="lbpe")


def test_encode_to_numpy_shares_the_arrays_memory():
    import numpy  # a test dependency; the method needs it, the package does not

    tok = cl100k()
    got = tok.encode_to_numpy(BUFFER_TEXT, mode="lbpe", disallowed_special=())
    assert got.dtype == numpy.uint32
    assert got.tolist() == tok.encode(BUFFER_TEXT, mode="lbpe", disallowed_special=())


@pytest.mark.parametrize("mode", ["bpe", "lbpe"])
def test_a_pattern_with_groups_splits_into_its_whole_matches(mode):
    # re's findall gives a group's text, not the match: "hi there!" once encoded as "ht"
    grouped, plain = tiny(re.compile(r"(\w)\w*|(\s+)|.")), tiny(re.compile(r"\w+|\s+|."))
    text = "aab bbb ab!"
    ids = grouped.encode(text, mode=mode)
    assert ids == plain.encode(text, mode=mode) == [{"bpe": 260, "lbpe": 260}[mode], 32, 258, 32, 259, 33]
    assert grouped.decode(ids) == text
    assert [s.id for s in grouped.segment(text, mode=mode)] == ids
    assert grouped.encode_batch([text, "bb"], mode=mode) == [ids, [257]]


def test_a_bytes_pattern_is_refused_when_given():
    with pytest.raises(TypeError, match=r"pattern must match str .*re\.compile\(r'\\w\+'\)"):
        tiny(re.compile(rb"\w+"))


def test_a_tokenizer_survives_copy_and_deepcopy():
    import copy

    tok = cl100k()
    want = tok.encode("hello world's 2024!", mode="lbpe")
    for copied in (copy.copy(tok), copy.deepcopy(tok)):
        assert copied.encode("hello world's 2024!", mode="lbpe") == want


def tiny_with(**options) -> Tokenizer:
    base = tiny()
    return Tokenizer(base.vocab, "paper", **options)


def test_added_tokens_round_trip_and_keep_a_token_of_their_own_text():
    tok = tiny_with(added_tokens={"<x>": 300, "aab": 260})  # 260 is the token "aab" itself
    ids = tok.encode("ab<x>aab", mode="bpe")
    assert ids == [259, 300, 260] and tok.decode(ids) == "ab<x>aab"


@pytest.mark.parametrize(
    ("added", "error", "message"),
    [
        ({"<x>": 256}, LbpeError, "added token '<x>' has id 256, which is the token 'aa'; give it an id of its own "
         "(262 and up are free) or the text of token 256"),
        ({"<|end|>": 300}, LbpeError, "added token '<|end|>' is the special token of id 261, not 300"),
        ({"<x>": 300, "<y>": 300}, LbpeError, "added tokens '<x>' and '<y>' both have id 300"),
        ({"": 300}, LbpeError, "an added token cannot be empty (id 300)"),
        ({"<x>": -1}, LbpeError, "added token '<x>' has id -1; ids are 0 or more"),
        ({"<x>": 300.0}, TypeError, "added token '<x>' has id 300.0 (float); ids are whole numbers"),
        ({"<x>": True}, TypeError, "added token '<x>' has id True (bool); ids are whole numbers"),
        ({b"<x>": 300}, TypeError, "added tokens are str, not bytes: b'<x>'"),
        ({"\ud800": 300}, LbpeError, "added token '\\ud800' holds a lone surrogate, which is no text"),
        ({"<y>": 262, "<x>": 97}, LbpeError, "which is the token 'a'; give it an id of its own (263 and up are free)"),
    ],
)  # fmt: skip
def test_added_tokens_that_would_not_round_trip_are_refused(added, error, message):
    with pytest.raises(error, match=re.escape(message)):
        tiny_with(added_tokens=added)


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"bos": 1}, TypeError, "bos must be a sequence of token ids (e.g. bos=[1]), not int"),
        ({"eos": [999]}, LbpeError, "eos id 999 is neither a token of the vocabulary nor an added token"),
        ({"bos": ["a"]}, TypeError, "bos ids are whole numbers; 'a' (str) is not"),
    ],
)
def test_bos_and_eos_are_ids_of_the_vocabulary(options, error, message):
    with pytest.raises(error, match=re.escape(message)):
        tiny_with(**options)
    assert tiny_with(bos=[261], eos=(261,), added_tokens={"<x>": 300}).bos == [261]
    assert tiny_with(bos=[300], added_tokens={"<x>": 300}).encode("a", mode="bpe", add_special_tokens=True)[0] == 300


def test_a_file_decoder_leaves_its_ids_and_spelling_to_the_files_reader():
    """tokenizer.json may list a vocabulary token in its own spelling as an added token, and a
    post-processor may name an id the vocabulary lacks: HF tokenizers takes both."""
    from lbpe.decoders import Tokens

    base = tiny()
    texts = {i: t.decode("latin-1") for t, i in base.vocab.tokens.items()}
    tok = Tokenizer(base.vocab, "paper", added_tokens={"Ġa": 97}, bos=[999], decoder=Tokens(texts))
    assert tok.encode("Ġa", mode="bpe", add_special_tokens=True) == [999, 97]


def test_split_piece_checks_its_piece_as_encode_checks_a_text():
    """split_piece took bytes, None or a number to an AttributeError deep inside, and a lone
    surrogate (which pieces() gives back from a text encode takes) to a UnicodeEncodeError."""
    tok = cl100k()
    for bad, hint in ((b"x", "decode bytes first"), (None, "not NoneType"), (5, "not int")):
        with pytest.raises(TypeError, match=hint):
            tok.split_piece(bad, mode="bpe")
    pieces = tok.pieces("x\ud800 y")
    for mode in ("bpe", "lbpe"):
        split = [tok.split_piece(p, mode=mode) for p in pieces]
        assert [tok.vocab.tokens[k] for keys in split for k in keys] == tok.encode("x\ud800 y", mode=mode)


def test_yes_no_options_and_unordered_ids_are_refused():
    """add_special_tokens="no" is truthy: it added BOS/EOS; a set or dict of ids decoded in
    no particular order (tiktoken takes a sequence only)."""
    tok = lbpe.load(data_file("sentencepiece/mistral_tokenizer.model.v1"))
    for bad in ("no", None, 0):
        for method, text in ((tok.encode, "hi"), (tok.encode_batch, ["hi"]), (tok.encode_to_array, "hi")):
            with pytest.raises(TypeError, match="add_special_tokens must be True or False"):
                method(text, mode="bpe", add_special_tokens=bad)
    assert tok.encode("hi", mode="bpe", add_special_tokens=True)[0] == tok.bos[0]
    for bad in ({1, 2}, {1: "a"}, frozenset({1})):
        with pytest.raises(TypeError, match="sequence of token ids in order"):
            tok.decode(bad)


# ---- encode with its defaults: the short way to the compiled path equals the long one ----

SHORT_WAY_TEXTS = [
    "",
    "a < b and c > d, <html> but no special token",
    "<|endoftext",  # a special token's start, not the whole of it
    "plain words only",
    "lone \ud800 surrogate",
    "[X] an added token whose first character is another",
]


def _spelled_out(tok, text, mode):
    """``tok.encode`` by the long way: the pure path, every option given."""
    before = native.backend().name
    native.use("pure")
    try:
        return tok.encode(text, mode=mode, allowed_special=set(), disallowed_special="all", add_special_tokens=False)
    finally:
        native.use(before)


def test_encode_with_its_defaults_equals_the_options_spelled_out(encode_path):
    """encode(text, mode=...) takes a short way with its default options (told apart by
    identity): the ids are those of the long way, and the same texts are refused, with added
    tokens of another first character, after a pickle and under a time budget."""
    import pickle

    from lbpe.budget import time_budget
    from lbpe.errors import DisallowedSpecialError

    base = lbpe.load_preset("cl100k_base")
    added = Tokenizer(base.vocab, "cl100k_base", added_tokens={"[X]": 100_300})
    for tok in (base, added, pickle.loads(pickle.dumps(added))):
        for text in [*SHORT_WAY_TEXTS, "a text with <|endoftext|> in it"]:
            for mode in ("bpe", "lbpe", "least-tokens"):
                try:
                    want = _spelled_out(tok, text, mode)
                except DisallowedSpecialError:
                    with pytest.raises(DisallowedSpecialError):
                        tok.encode(text, mode=mode)
                    continue
                assert tok.encode(text, mode=mode) == want, (text, mode)
                with time_budget(len(text) + 1000, what="a test"):
                    assert tok.encode(text, mode=mode) == want, (text, mode)
    # "[X]" is matched as the added token (its "[" is no special token's first character)
    assert 100_300 in added.encode("a [X] b", mode="bpe")
