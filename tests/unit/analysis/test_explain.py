"""lbpe.analysis.explain: the step-by-step traces must end in exactly the tokens the encoder gives (on
both encoding paths, real vocabularies and real text), and the steps must be the algorithms'."""

from __future__ import annotations

import functools
import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lbpe
import lbpe.analysis.explain
from lbpe.analysis.explain import MAX_EXPLAIN_CHARS, explain, explain_span, pick_span
from lbpe.errors import LbpeError
from lbpe.normalize import Strip
from lbpe.playground.display import explain_html, explain_text
from lbpe.presets import VOCAB_PRESETS, load_preset
from lbpe.tokenizer import Tokenizer
from lbpe.train import train
from lbpe.vocab import Vocab
from tests.support.data import data_file, mixed_text
from tests.support.naive import naive_bpe_by_merges, naive_bpe_by_rank, naive_lbpe

HF_FILES = {
    "llama3": "hf/llama3/tokenizer.json",
    "mistral": "hf/mistral_v0.1/tokenizer.json",
    "gemma3": "hf/gemma3/tokenizer.json",
}


@functools.cache
def tokenizer(name: str) -> Tokenizer:
    if name in VOCAB_PRESETS:
        return load_preset(name)
    if name == "scaffold":
        text = data_file("text/moby_dick.txt").read_text("utf-8")[:400_000]
        return Tokenizer(train([text], vocab_size=3000, unit="byte", scaffold=True), "paper", name="scaffold")
    return lbpe.load(data_file(HF_FILES[name]))


def windows(count: int, seed: int) -> list[str]:
    """Spans of real text (prose, many scripts, code) up to the explain limit."""
    rng = random.Random(seed)
    texts = [t for _, t in mixed_text(400_000)]
    out = []
    for k in range(count):
        text = texts[k % len(texts)]
        size = rng.randint(1, MAX_EXPLAIN_CHARS)
        start = rng.randrange(0, max(1, len(text) - size))
        out.append(text[start : start + size])
    return out


@pytest.mark.slow(reason="every vocabulary's trace, seconds each")
@pytest.mark.parametrize("name", [*VOCAB_PRESETS, *HF_FILES, "scaffold"])
def test_trace_ends_in_the_encoders_ids(name, encode_path):
    tok = tokenizer(name)
    spans = windows(120, seed=len(name))
    checked = 0
    for text in spans:
        ex = explain(tok, text)
        for mode, ids in (("bpe", ex.bpe_ids), ("lbpe", ex.lbpe_ids)):
            assert ids == tok.encode(text, mode=mode, allowed_special="all"), (name, mode, text)
        checked += len(ex.bpe_ids)
    assert checked > 5000


@pytest.mark.parametrize("name", [n for n in VOCAB_PRESETS if n != "lbpe-llama-32k"])
def test_capitals_is_the_papers_case_on_every_preset(name):
    """The paper's Figure 1: BPE merges "al" + "s" before the long token can form (at the start
    of a text in the OpenAI vocabularies, after a space in lbpe-32k, after SentencePiece's "\u2581"
    in mistral-7b and lbpe-llama-32k)."""
    tok = tokenizer(name)
    pieces = [explain(tok, word).pieces[0] for word in ("Capitals", " Capitals")]
    piece = next(p for p in pieces if p.differs)
    assert {"Capital", " Capital", "\u2581Capital"} & set(piece.lbpe_tokens)
    assert len(piece.lbpe_ids) < len(piece.bpe_ids) or piece.lbpe_tokens != piece.bpe_tokens
    crossing = [line for line in piece.why if re.match('BPE never makes "[ \u2581]?Capital"', line)]
    assert crossing and '"al" + "s"' in crossing[0]


def test_capitals_with_the_llama_vocabulary_trained_here():
    """lbpe-llama-32k forms "\u2581Capital" at the start of a text; after a space its BPE joins the two
    "\u2581" first (the paper's "al" + "s" is not the blocker there), and LBPE still places
    "\u2581Capital"."""
    tok = tokenizer("lbpe-llama-32k")
    start, after_space = (explain(tok, word).pieces[0] for word in ("Capitals", " Capitals"))
    assert not start.differs and start.bpe_tokens[0] == "\u2581Capital"
    assert after_space.differs and "\u2581Capital" in after_space.lbpe_tokens
    assert "\u2581Capital" not in after_space.bpe_tokens
    assert any(line.startswith('BPE never makes "\u2581Capital"') for line in after_space.why)


def _replay_bpe(units, steps) -> list:
    """Apply the recorded merges to the raw units: each joins the part starting at its unit
    with the next, and the parts after it are the recorded ones."""
    show = lbpe.analysis.explain.show_key
    parts = [units[i : i + 1] for i in range(len(units))]
    for s in steps:
        starts = [sum(map(len, parts[:k])) for k in range(len(parts))]
        k = starts.index(s.start)
        assert (show(parts[k]), show(parts[k + 1])) == (s.left, s.right)
        parts[k : k + 2] = [parts[k] + parts[k + 1]]
        assert tuple(map(show, parts)) == s.parts
    return parts


@pytest.mark.parametrize("name", ["gpt2", "cl100k_base", "lbpe-32k", "mistral"])
def test_steps_are_the_algorithms(name):
    """Each BPE step merges the best pair present (leftmost among equals) and each LBPE pass
    places exactly the free token spans of its window, left to right (the naive transcription)."""
    tok = tokenizer(name)
    vocab = tok.vocab
    words = re.findall(r" ?\w+", windows(6, seed=3)[0] + " internationalization misunderstandings Plattsburg")
    for word in words:
        for piece in explain(tok, word).pieces:
            units = tok._to_units(piece.piece)
            keys = [units[i : i + 1] for i in range(len(units))]
            # BPE: the naive reference gives the same tokens, and the recorded steps replay
            if vocab.merges is None:
                want = naive_bpe_by_rank(units, vocab.model_tokens)
            else:
                want = naive_bpe_by_merges(units, vocab.model_merges)
            if not piece.whole:
                assert [lbpe.analysis.explain.show_key(k) for k in want] == piece.bpe_tokens
                assert _replay_bpe(units, piece.bpe) == want
            # LBPE: the naive transcription of the paper
            token_set = {k for k, i in vocab.model_tokens.items() if i not in vocab.scaffold}
            got = naive_lbpe(list(keys), token_set, vocab.max_len)
            assert [lbpe.analysis.explain.show_key(k) for k in got] == piece.lbpe_tokens
            windows_seen = [s.length for s in piece.lbpe]
            assert windows_seen == sorted(windows_seen, reverse=True)
            placed = [s for s in piece.lbpe if s.placed]
            assert sum(s.length for s in placed) == len(piece.units)


def test_tiny_known_answer():
    """Hand-worked: tokens a, b, c, ab, bc, abc (rank order); BPE of "abcbc" merges "ab" (rank 3)
    then "abc" (5) then "bc" (4): abc|bc; LBPE places "abc" at 0 then "bc" at 3."""
    tokens = {b"a": 0, b"b": 1, b"c": 2, b"ab": 3, b"bc": 4, b"abc": 5}
    tok = Tokenizer(Vocab({**{bytes([x]): 10 + x for x in range(256) if bytes([x]) not in tokens}, **tokens}), "paper")
    (piece,) = explain(tok, "abcbc").pieces
    assert [(s.left, s.right, s.priority) for s in piece.bpe] == [("a", "b", 3), ("b", "c", 4), ("ab", "c", 5)]
    assert piece.bpe_tokens == ["abc", "bc"]
    assert [(s.length, s.start, s.placed) for s in piece.lbpe] == [
        (3, 0, True),
        (2, 0, False),
        (2, 1, False),
        (2, 3, True),
    ]
    assert piece.lbpe_tokens == ["abc", "bc"] and not piece.differs and piece.why == []


@given(st.text(alphabet="abcd", min_size=1, max_size=40))
@settings(max_examples=300, deadline=None)
def test_generated_pieces_match_split_piece(text):
    tokens = {bytes([x]): x for x in range(256)}
    for k, t in enumerate([b"ab", b"bc", b"abc", b"cd", b"bcd", b"da", b"dab", b"aa", b"aaa", b"cda"]):
        tokens[t] = 256 + k
    tok = Tokenizer(Vocab(tokens), "paper")
    (piece,) = explain(tok, text).pieces
    assert piece.bpe_tokens == [k.decode() for k in tok.split_piece(text, mode="bpe")]
    assert piece.lbpe_tokens == [k.decode() for k in tok.split_piece(text, mode="lbpe")]


def test_bad_input_says_what_to_do():
    tok = load_preset("gpt2")
    with pytest.raises(LbpeError, match="nothing to explain"):
        explain(tok, "")
    with pytest.raises(LbpeError, match=f"at most {MAX_EXPLAIN_CHARS} characters.*shorter span"):
        explain(tok, "x" * (MAX_EXPLAIN_CHARS + 1))
    with pytest.raises(LbpeError, match="must be a str"):
        explain(tok, b"bytes")  # type: ignore[arg-type]


def test_special_tokens_are_matched_whole():
    tok = load_preset("cl100k_base")
    ex = explain(tok, "hi<|endoftext|>")
    assert [p.special for p in ex.pieces] == [False, True]
    assert ex.bpe_ids == tok.encode("hi<|endoftext|>", mode="bpe", allowed_special="all")


def test_pick_span():
    text = "We met the Capitals\tof  old.\n"
    assert text[slice(*pick_span(text, text.index("pit")))] == " Capitals"
    assert text[slice(*pick_span(text, 0))] == "We"
    assert text[slice(*pick_span(text, text.index("old")))] == " old."
    assert text[slice(*pick_span(text, text.index("\tof")))] == "of"  # white space: the next word
    assert pick_span(text, 5, [(3, 9)]) == (3, 9)
    assert pick_span("", 3) == (0, 0)
    assert pick_span("abc", 99) == (0, 3)
    long = "y" * (3 * MAX_EXPLAIN_CHARS)
    a, b = pick_span(long, 500)
    assert a <= 500 < b and b - a <= MAX_EXPLAIN_CHARS


def test_frames_step_through_both_sides():
    ex = explain(load_preset("lbpe-32k"), " Capitals")
    (piece,) = ex.pieces
    assert ex.frames == 1 + max(len(piece.bpe), len(piece.lbpe))
    first = explain_html(ex, 0)
    assert "Step 0 of" in first and "Units, before any merge." in first
    # frame 0: every unit a free box on the LBPE side, every unit a part on the BPE side
    assert first.count('class="lbpe-x-free"') == len(piece.units)
    step1 = explain_html(ex, 1)
    s = piece.bpe[0]
    assert f"Step 1: &quot;{s.left}&quot; + &quot;{s.right}&quot;" in step1
    assert "lbpe-x-new" in step1
    last = explain_html(ex)
    assert f"Step {ex.frames - 1} of {ex.frames - 1}" in last
    assert " ".join(map(str, piece.bpe_ids)) in last and " ".join(map(str, piece.lbpe_ids)) in last
    assert "BPE never makes" in last
    assert explain_html(ex, 10_000) == last and explain_html(ex, -5) == first
    # nothing from the text reaches the HTML unescaped
    hostile = explain_html(explain(load_preset("gpt2"), "<b>x</b>&"))
    assert "<b>x" not in hostile and "&lt;b&gt;" in hostile


def test_json_and_text_agree():
    tok = load_preset("gpt2")
    ex = explain(tok, "Capitals and misunderstandings")
    data = json.loads(json.dumps(ex.to_json()))
    assert data["bpe_tokens"] == len(tok.encode("Capitals and misunderstandings", mode="bpe"))
    assert data["lbpe_tokens"] == len(tok.encode("Capitals and misunderstandings", mode="lbpe"))
    assert [p["piece"] for p in data["pieces"]] == tok.pieces("Capitals and misunderstandings")
    text = explain_text(ex)
    for p in data["pieces"]:
        for step in p["bpe"]["steps"]:
            assert f'"{step["left"]}" + "{step["right"]}"  (rank {step["priority"]:,})' in text
        for line in p["why"]:
            assert f"why: {line}" in text


def paragraphs(count: int) -> list[str]:
    """Real paragraphs: English prose and speeches, many languages and scripts, code."""
    out = []
    for name in ("moby_dick.txt", "sotu.txt", "multilingual.txt", "multilingual_words.txt", "code.txt"):
        text = data_file(f"text/{name}").read_text("utf-8")
        blocks = [b for b in re.split(r"\n\s*\n", text[20_000:400_000]) if 300 <= len(b) <= 2_000]
        out += blocks[:: max(1, len(blocks) // count)][:count]
    return out


def _ids_over(segments, a: int, b: int) -> list[int]:
    """The ids of the tokens a pane shows over ``text[a:b]`` (each token with the span it starts in)."""
    return [s.id for s in segments if a <= s.start < b]


@pytest.mark.parametrize("name", list(VOCAB_PRESETS))
def test_a_span_of_the_text_is_explained_as_the_panes_encode_it(name):
    """Every differing span of real paragraphs, explained where it stands in the text, has
    exactly the ids the panes show over it: the whole text's segmentation, not the span's own."""
    from lbpe.playground.display import differing_spans

    tok = tokenizer(name)
    spans = 0
    for text in paragraphs(3):
        segs = {mode: tok.segment(text, mode=mode, disallowed_special=()) for mode in ("bpe", "lbpe")}
        for mode, side in segs.items():
            assert [s.id for s in side] == tok.encode(text, mode=mode, disallowed_special=())
        for a, b in differing_spans(segs["bpe"], segs["lbpe"]):
            if b - a > MAX_EXPLAIN_CHARS:
                continue
            ex = explain_span(tok, text, a, b)
            assert (ex.start, ex.end, ex.text) == (a, b, text[a:b])
            assert ex.bpe_ids == _ids_over(segs["bpe"], a, b), (name, text[a:b])
            assert ex.lbpe_ids == _ids_over(segs["lbpe"], a, b), (name, text[a:b])
            spans += 1
    assert spans > 20


@pytest.mark.parametrize("name", list(VOCAB_PRESETS))
def test_a_clicked_word_is_explained_over_the_tokens_that_cover_it(name):
    """A word picked by a click is widened to token boundaries both panes share; Explain's ids
    are the panes' over that range."""
    tok = tokenizer(name)
    text = paragraphs(1)[0]
    segs = {mode: tok.segment(text, mode=mode, disallowed_special=()) for mode in ("bpe", "lbpe")}
    for offset in range(0, len(text), 7):
        a, b = pick_span(text, offset)
        if not text[a:b].strip():
            continue
        ex = explain_span(tok, text, a, b)
        assert ex.start <= a and b <= ex.end and ex.text == text[ex.start : ex.end]
        assert ex.bpe_ids == _ids_over(segs["bpe"], ex.start, ex.end)
        assert ex.lbpe_ids == _ids_over(segs["lbpe"], ex.start, ex.end)


def test_the_opening_span_is_explained_in_its_text():
    """The opening example: " Capitals" inside the text is "▁Capitals" to mistral-7b (no dummy
    prefix mid-text): BPE ▁Cap|itals, LBPE ▁Capital|s; typed on its own it keeps the prefix."""
    from lbpe.playground.examples import DEFAULT_EXAMPLE as ex

    tok = tokenizer("mistral-7b")
    at = ex.text.index(ex.explain)
    inside = explain_span(tok, ex.text, at, at + len(ex.explain))
    assert [p.bpe_tokens for p in inside.pieces] == [["▁Cap", "itals"]]
    assert [p.lbpe_tokens for p in inside.pieces] == [["▁Capital", "s"]]
    alone = explain(tok, ex.explain)
    assert alone.bpe_ids == tok.encode(ex.explain, mode="bpe") and len(alone.bpe_ids) == 3
    word = ex.text.index("geographers") + 2
    mid = explain_span(tok, ex.text, word, word + len("ographers"))
    assert [p.bpe_tokens for p in mid.pieces] == [["ograph", "ers"]]
    assert [p.lbpe_tokens for p in mid.pieces] == [["ographer", "s"]]
    assert not any("▁" in line for p in mid.pieces for line in p.why)
    shown = explain_html(mid)
    assert "at characters 34-43 of the text" in shown and '<span class="lbpe-x-ctx"' in shown
    assert "the▁ge</span>ographers<span" in shown.replace("·", "▁")
    assert "on its own" in explain_html(alone) and "lbpe-x-ctx" not in explain_html(alone)


def test_a_span_outside_the_text_or_removed_by_the_normaliser_says_so():
    tok = tokenizer("mistral-7b")
    with pytest.raises(LbpeError, match="not a span of the text"):
        explain_span(tok, "abc", 2, 9)
    stripped = Tokenizer(Vocab({bytes([b]): b for b in range(256)}), "paper", normalizer=Strip())
    with pytest.raises(LbpeError, match="normaliser removes it"):
        explain_span(stripped, "  ab", 0, 2)
    assert explain_span(stripped, "  ab", 0, 3).bpe_ids == [ord("a")]
    with pytest.raises(LbpeError, match="at most 400 characters"):
        explain_span(tok, "word " * 200, 0, 500)


def test_a_double_quote_in_a_quoted_token_is_escaped():
    '''The "why" lines quote tokens and spans in double quotes: a token holding one read as
    three quotes in a row (a token `"` as `"""`), where the playground's tooltips escape it.'''
    from lbpe.analysis.explain import explain
    from lbpe.analysis.trace import quoted
    from lbpe.playground.display import explain_text

    assert quoted('say "hi"') == '"say \\"hi\\""'
    text = explain_text(explain(load_preset("gpt2"), 'He said "no" to "unbelievable" ideas'))
    assert '\\"' in text and '"""' not in text, text


@pytest.mark.parametrize("name", ["cl100k_base", "mistral-7b"])
def test_a_lone_surrogate_is_explained_as_the_encoders_read_it(name):
    """A lone surrogate (a half of a pair a browser or a file can hand over) is read as U+FFFD by
    every encoder, as tiktoken does; Explain reads it the same, not with a codec error."""
    from lbpe.analysis.pair_steps import explain_pair

    tok = load_preset(name)
    text = "ab\ud800cd \udfff"
    want = tok.encode(text, mode="lbpe")
    assert want == tok.encode("ab\ufffdcd \ufffd", mode="lbpe")
    assert explain(tok, text).lbpe_ids == want
    assert explain_pair(tok, text, ("bpe", "lbpe")).text == "ab\ufffdcd \ufffd"


def _spans_bpe_makes(piece: bytes, ranks: dict) -> list[tuple[int, int]]:
    """The byte span each merge of BPE (least rank first, leftmost among equals) makes, in order."""
    parts = [(i, i + 1) for i in range(len(piece))]
    made = []
    while True:
        found = [
            (ranks[piece[a:e]], k) for k, ((a, _), (_, e)) in enumerate(zip(parts, parts[1:])) if piece[a:e] in ranks
        ]
        if not found:
            return made
        k = min(found)[1]
        parts[k : k + 2] = [(parts[k][0], parts[k + 1][1])]
        made.append(parts[k])


@pytest.mark.parametrize(
    "text", [" antidisestablishmentarianism", " Capitals", " unquestionably electroencephalographers"]
)
def test_why_says_bpe_never_makes_only_tokens_it_never_makes(text):
    """A token LBPE places and BPE's result lacks may have been made by BPE and then merged into a
    longer one: that is said with both steps, and "never makes" only of a span no merge made.
    BPE's steps are counted here from the ranks, apart from explain."""
    tok = tokenizer("cl100k_base")
    ranks = tok.vocab.tokens  # cl100k_base: a token's rank is its id
    for piece in explain(tok, text).pieces:
        raw = piece.piece.encode()
        made = _spans_bpe_makes(raw, ranks)
        ends = [0]
        for i in piece.lbpe_ids:
            ends.append(ends[-1] + len(tok.vocab.id_to_bytes[i]))
        lbpe_spans = dict(zip(piece.lbpe_tokens, zip(ends, ends[1:])))
        bpe_ends = [0]
        for i in piece.bpe_ids:
            bpe_ends.append(bpe_ends[-1] + len(tok.vocab.id_to_bytes[i]))
        kept = set(zip(bpe_ends, bpe_ends[1:]))  # BPE's result: nothing to say of these
        bpe_lines = [line for line in piece.why if line.startswith("BPE ")]
        for name, span in lbpe_spans.items():
            if span in kept:
                continue
            said = [line for line in bpe_lines if re.match(f'BPE (never )?makes "{re.escape(name)}"', line)]
            if span in made:
                step = made.index(span) + 1
                assert said and f'makes "{name}" at its step {step},' in said[0], (name, said)
                assert "never" not in said[0], said
            elif said:
                assert said[0].startswith(f'BPE never makes "{name}"'), said


@pytest.mark.parametrize("mode", ["bpe", "lbpe"])
def test_a_character_without_a_token_shows_its_fallback_tokens(mode):
    """Mistral's SentencePiece model has no token for "🤖": it takes four byte-fallback ids, and
    explain shows four tokens beside them, one a byte, as SentencePiece names them."""
    import sentencepiece

    path = data_file("sentencepiece/mistral_tokenizer.model.v1")
    sp = sentencepiece.SentencePieceProcessor(model_file=str(path))
    ex = explain(lbpe.load(path), "🤖x")
    [piece] = ex.pieces
    tokens, ids = getattr(piece, f"{mode}_tokens"), getattr(piece, f"{mode}_ids")
    assert ids == sp.encode("🤖x")
    assert tokens == ["▁", "<F0>", "<9F>", "<A4>", "<96>", "x"]
    assert [sp.id_to_piece(i) for i in ids] == ["▁", "<0xF0>", "<0x9F>", "<0xA4>", "<0x96>", "x"]
    shown = explain_text(ex)
    assert f"tokens: {'|'.join(tokens)}   ids {ids}" in shown
    [data] = ex.to_json()["pieces"]
    assert len(data[mode]["tokens"]) == len(data[mode]["ids"]) == 6
