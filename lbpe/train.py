"""Training BPE vocabularies: classic BPE and Scaffold-BPE, character or byte units, split
GPT-2's way (a regex pre-tokeniser) or LLaMA's (SentencePiece).

>>> v = train(["low lower lowest"] * 3, vocab_size=4, unit="byte", special_tokens=())
Traceback (most recent call last):
  ...
lbpe.errors.LbpeError: vocab_size 4 is smaller than the 256 base tokens of a byte-level vocabulary (256 bytes)
>>> v = train(["low lower lowest"], vocab_size=259, unit="byte")
>>> [v.token_bytes(i) for i in range(256, 259)]
[b'lo', b'low', b' low']

How training works (counting, merging), the tie-break, the units and base alphabet, the id
layout, Scaffold-BPE and the llama style, with where lbpe differs from SentencePiece's
trainer: docs/training.md.
"""

from __future__ import annotations

import heapq
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Union

from lbpe.corpus.textio import iter_chunks
from lbpe.errors import LbpeError
from lbpe.pretokenize import PresetPattern, resolve_pattern
from lbpe.unicode import category, script
from lbpe.vocab import Unit, Vocab

__all__ = [
    "train",
    "count_pieces",
    "count_llama_pieces",
    "train_from_counts",
    "llama_pieces",
    "valid_llama_token",
    "STYLES",
    "LLAMA_SPECIALS",
    "LLAMA_MAX_TOKEN_CHARS",
    "TextSource",
    "Progress",
]

#: A text (``str``) or a file (any ``os.PathLike``, e.g. :class:`pathlib.Path`).
TextSource = Union[str, "os.PathLike[str]"]
#: A progress callback, called as ``progress(done, total)``.
Progress = Callable[[int, int], None]

#: Characters per block when splitting large texts and files.
CHUNK_CHARS = 1 << 20

_PAIR, _SCAFFOLD = 1, 0  # heap entry kinds; scaffold tokens win ties with pairs

#: Training styles: ``"gpt2"`` (a regex pre-tokeniser preset) and ``"llama"`` (SentencePiece's way).
STYLES = ("gpt2", "llama")
#: The special tokens of the llama style, at ids 0, 1, 2 (LLaMA's unk, bos, eos).
LLAMA_SPECIALS = ("<unk>", "<s>", "</s>")
#: Longest token of the llama style, in characters (SentencePiece's ``max_sentencepiece_length``).
LLAMA_MAX_TOKEN_CHARS = 16
#: SentencePiece's meta symbol for white space.
SPACE = "\u2581"


def train(
    texts_or_files: TextSource | Iterable[TextSource],
    *,
    vocab_size: int,
    unit: Unit = "char",
    pattern: str | re.Pattern[str] | None = None,
    scaffold: bool = False,
    special_tokens: Iterable[str] = (),
    max_chars: int | None = None,
    character_coverage: float | None = None,
    style: str = "gpt2",
    progress: Progress | None = None,
    read_progress: Progress | None = None,
) -> Vocab:
    """Train a BPE vocabulary of ``vocab_size`` tokens.

    ``texts_or_files``: a text (``str``), a file (``os.PathLike``, UTF-8), or an iterable of
    them. A plain ``str`` is always text, never a file name: pass ``pathlib.Path`` for files.

    ``vocab_size`` counts every normal token: special tokens, the 256 byte tokens, base
    characters and merged tokens (scaffold tokens are extra: docs/training.md, "Scaffold-BPE").
    It raises :class:`~lbpe.errors.LbpeError` (a ``ValueError``) when it is smaller than the
    base tokens. Training stops early, with a smaller vocabulary, when no pair is left.

    ``progress(done, total)`` is called after every merge with the merged (normal) tokens made
    so far and the number wanted; ``read_progress(done, total)`` while counting, with the bytes
    of files read so far and their total size (texts given as ``str`` count as 0).

    ``style``: ``"gpt2"`` (default) splits texts with the pre-tokeniser preset ``pattern``
    (default ``"paper"``); ``"llama"`` trains SentencePiece's way, as LLaMA (see "The llama
    style" in docs/training.md): no ``pattern``, ``unit="char"``, and ``<unk>``,
    ``<s>``, ``</s>`` at ids 0, 1, 2 before the ``special_tokens`` given.

    The result has ``merges`` (pair -> rank, in merge order), ``whole_piece_first=False``
    (merges always run, HF ``tokenizers``' default), ``byte_fallback`` (``unit="char"``),
    ``special``, ``scaffold`` and ``trained`` (the style, and the preset of a gpt2-style
    vocabulary trained with one). Encode with ``Tokenizer(vocab, pattern).encode(text,
    mode="bpe")``, or write it with :func:`lbpe.formats.hf_write.write_tokenizer_json`, which
    writes it in the style and with the preset it was trained with (the file then encodes with
    ``lbpe.load``).

    >>> v = train("hug hugs hugged", vocab_size=256 + 7 + 1)  # 256 fallback, 7 characters, 1 merge
    >>> len(v), v.token_bytes(263)
    (264, b'hu')
    >>> v = train("hug hugs hugged", vocab_size=3 + 256 + 7 + 2, style="llama")  # + the character "\u2581"
    >>> [v.token_bytes(i).decode() for i in (266, 267)], v.special
    (['hu', 'hug'], {'<unk>': 0, '<s>': 1, '</s>': 2})
    """
    _check_style(style)
    specials = _check_specials(special_tokens)
    if style == "llama":
        if pattern is not None:
            raise LbpeError("style='llama' has no regex pre-tokeniser: leave out pattern (CLI: --pattern)")
        if unit != "char":
            raise LbpeError("style='llama' trains characters with byte fallback: use unit='char' (CLI: --unit char)")
        counts = count_llama_pieces(texts_or_files, progress=read_progress)
    else:
        try:
            regex = resolve_pattern("paper" if pattern is None else pattern)
        except ValueError as exc:
            raise LbpeError(str(exc)) from None
        counts = count_pieces(texts_or_files, regex, progress=read_progress)
    vocab = train_from_counts(
        counts,
        vocab_size=vocab_size,
        unit=unit,
        scaffold=scaffold,
        special_tokens=specials,
        max_chars=max_chars,
        character_coverage=character_coverage,
        style=style,
        progress=progress,
    )
    if style == "gpt2" and (pattern is None or isinstance(pattern, str)):
        vocab.trained["pattern"] = "paper" if pattern is None else pattern  # a compiled regex has no name to keep
    return vocab


def _check_style(style: str) -> None:
    if style not in STYLES:
        raise LbpeError(f"style must be one of {', '.join(map(repr, STYLES))}, not {style!r}")


# ---- counting --------------------------------------------------------------------------------


def _sources(texts_or_files: TextSource | Iterable[TextSource]) -> Iterator[TextSource]:
    if isinstance(texts_or_files, (str, os.PathLike)):
        yield texts_or_files
        return
    if isinstance(texts_or_files, (bytes, bytearray)):
        raise TypeError("texts must be str (decode bytes first) or os.PathLike file paths")
    for item in texts_or_files:
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"expected a text (str) or a file path (os.PathLike), not {type(item).__name__}")
        yield item


def count_pieces(
    texts_or_files: TextSource | Iterable[TextSource],
    pattern: str | re.Pattern[str] | PresetPattern = "paper",
    *,
    progress: Progress | None = None,
    chunk_chars: int = CHUNK_CHARS,
) -> Counter[str]:
    """Count the pre-tokens of texts and files (streaming; docs/training.md, "How training works").

    >>> sorted(count_pieces(["ab ab", "ab"]).items())
    [(' ab', 1), ('ab', 2)]
    """
    regex = resolve_pattern(pattern)
    return _count_sources(
        texts_or_files, lambda blocks, counts: _count_blocks(blocks, regex, counts, chunk_chars), progress, chunk_chars
    )


def _count_sources(
    texts_or_files: TextSource | Iterable[TextSource],
    count_document: Callable[[Iterable[str], Counter[str]], None],
    progress: Progress | None,
    chunk_chars: int,
) -> Counter[str]:
    """Count each text and file as one document with ``count_document(blocks, counts)``."""
    sources = list(_sources(texts_or_files))
    total = 0
    for src in sources:
        if not isinstance(src, str):
            try:
                total += os.path.getsize(src)
            except OSError as exc:
                raise LbpeError(f"{os.fsdecode(src)}: cannot be read ({exc.strerror})") from None
    counts: Counter[str] = Counter()
    state = {"done": 0}

    def report(nbytes: int) -> None:
        state["done"] += nbytes
        if progress is not None:
            progress(state["done"], total)

    report(0)
    for src in sources:
        if isinstance(src, str):
            count_document((src,), counts)
        else:
            count_document(iter_chunks(src, size=chunk_chars, progress=report), counts)
    return counts


def count_llama_pieces(
    texts_or_files: TextSource | Iterable[TextSource],
    *,
    progress: Progress | None = None,
    chunk_chars: int = CHUNK_CHARS,
) -> Counter[str]:
    """Count SentencePiece's words of texts and files: each line (``\\n``; a ``\\r`` before it
    is dropped) that is not empty becomes ``"\u2581" + line`` with every space as ``"\u2581"``,
    and is cut before every ``"\u2581"`` that follows another character (a run of them stays
    together). See "The llama style" in docs/training.md.

    >>> sorted(count_llama_pieces(["a b\\n\\n  a", "b"]).items())
    [('\u2581a', 1), ('\u2581b', 2), ('\u2581\u2581\u2581a', 1)]
    """
    raw = _count_sources(texts_or_files, _count_llama_document, progress, chunk_chars)
    words: Counter[str] = Counter()
    for token, c in raw.items():  # "\n" + the start of a line, or spaces + a word
        if token[0] == "\n":
            if len(token) == 1:
                continue  # an empty line
            token = " " + token[1:]  # the dummy prefix
        words[token.replace(" ", SPACE)] += c
    return words


#: What SentencePiece's words are made of, before spaces become ``▁``: a line start ("\n") and
#: its first word, or a run of spaces and the word after it.
_RAW_WORD = re.compile(r"\n *[^ \n]*| +[^ \n]*")


def _count_llama_document(blocks: Iterable[str], counts: Counter[str]) -> None:
    pending: list[str] = []  # the start of a line not yet ended
    for block in blocks:
        end = block.rfind("\n") + 1  # whole lines only; the rest waits for the next block
        if not end:
            pending.append(block)
            continue
        _count_llama_lines("".join(pending) + block[:end], counts)
        pending = [block[end:]]
    if pending:
        _count_llama_lines("".join(pending), counts)


def _count_llama_lines(text: str, counts: Counter[str]) -> None:
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    counts.update(_RAW_WORD.findall("\n" + text))


def _count_blocks(blocks: Iterable[str], regex, counts: Counter[str], chunk_chars: int) -> None:
    """Count the pieces of one document given as consecutive blocks of text."""
    preset = isinstance(regex, PresetPattern)
    pending: list[str] = []  # text not yet split: no cut found in it
    for block in blocks:
        # A long text given whole is cut into chunk-sized blocks as well.
        for start in range(0, len(block), chunk_chars):
            part = block[start : start + chunk_chars]
            probe = pending[-1][-1] + part if pending else part
            cut = _find_cut(probe, 0)
            if cut < 0:
                pending.append(part)
                continue
            buf = "".join(pending) + part
            cut += len(buf) - len(probe)
            if preset:
                pieces = regex.findall(buf, 0, cut + 1)
                pieces.pop()  # the lone letter at ``cut``: its piece goes on in the next block
                counts.update(pieces)
                pending = [buf[cut:]]
            else:  # any other pattern: keep only the pieces that end before the cut
                end = 0
                for m in regex.finditer(buf, 0, cut + 1):
                    if m.end() > cut:
                        break
                    counts[m.group()] += 1
                    end = m.end()
                pending = [buf[end:]] if end < len(buf) else []
    if pending:
        counts.update(regex.findall("".join(pending)))


def _find_cut(buf: str, lo: int) -> int:
    """The last position ``p > lo`` with ``buf[p - 1] == "\\n"`` and ``buf[p]`` a letter (``\\p{L}``
    at the pinned Unicode version, as the pre-tokenisers see it), or -1."""
    i = buf.rfind("\n", lo, len(buf) - 1)
    while i >= 0:
        if category(buf[i + 1])[0] == "L":
            return i + 1
        i = buf.rfind("\n", lo, i)
    return -1


# ---- merging ---------------------------------------------------------------------------------


def _check_specials(special_tokens: Iterable[str]) -> tuple[str, ...]:
    if isinstance(special_tokens, str):
        raise TypeError("special_tokens must be an iterable of strings, e.g. ['<|endoftext|>'], not one string")
    specials = tuple(special_tokens)
    for s in specials:
        if not isinstance(s, str) or not s:
            raise LbpeError(f"special token {s!r} must be a non-empty string")
    if len(set(specials)) != len(specials):
        raise LbpeError(f"special tokens repeat: {sorted(s for s in set(specials) if specials.count(s) > 1)}")
    return specials


def train_from_counts(
    counts: Counter[str] | dict[str, int],
    *,
    vocab_size: int,
    unit: Unit = "char",
    scaffold: bool = False,
    special_tokens: Iterable[str] = (),
    max_chars: int | None = None,
    character_coverage: float | None = None,
    style: str = "gpt2",
    progress: Progress | None = None,
) -> Vocab:
    """Train from already counted pieces (piece -> count); the options are those of :func:`train`.
    With ``style="llama"`` the pieces are SentencePiece's words (:func:`count_llama_pieces`).

    >>> v = train_from_counts({"aaab": 2}, vocab_size=256 + 2 + 1)
    >>> v.token_bytes(256 + 2), v.merges
    (b'aa', {(b'a', b'a'): 0})
    """
    if unit not in ("byte", "char"):
        raise LbpeError(f"unit must be 'byte' or 'char', not {unit!r}")
    if not isinstance(vocab_size, int) or isinstance(vocab_size, bool):
        raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")
    if max_chars is not None and (not isinstance(max_chars, int) or max_chars < 1):
        raise LbpeError(f"max_chars must be a positive int or None, not {max_chars!r}")
    if character_coverage is not None and (
        isinstance(character_coverage, bool)
        or not isinstance(character_coverage, (int, float))
        or not 0 < character_coverage <= 1
    ):
        raise LbpeError(
            f"character_coverage must be a number above 0 and at most 1 (e.g. 0.99995) or None, "
            f"not {character_coverage!r}"
        )
    _check_style(style)
    specials = _check_specials(special_tokens)
    llama = style == "llama"
    if llama:
        if unit != "char":
            raise LbpeError("style='llama' trains characters with byte fallback: use unit='char' (CLI: --unit char)")
        specials = LLAMA_SPECIALS + tuple(s for s in specials if s not in LLAMA_SPECIALS)
        counts = llama_pieces(counts)
    n_special = len(specials)
    if not counts:
        raise LbpeError("there is no text to train on")

    # Base units, and the words (distinct pieces) as lists of unit ids.
    names: list = []  # internal id -> token text (str for char units, bytes for byte units)
    if unit == "byte":
        names = [bytes([b]) for b in range(256)]
        words = [list(p.encode("utf-8")) for p in counts]
        wcount = list(counts.values())
        n_base = n_special + 256
        base_what = f"{n_special} special + 256 bytes" if n_special else "256 bytes"
        kind = "a byte-level vocabulary"
    else:
        char_counts: Counter[str] = Counter()
        for piece, c in counts.items():
            for ch in piece:
                char_counts[ch] += c
        chars = sorted(char_counts, key=lambda ch: (-char_counts[ch], ch))
        if character_coverage is not None:  # SentencePiece's rule: add characters until the share is reached
            total = sum(char_counts.values())
            covered = 0
            for n, ch in enumerate(chars):
                if covered / total >= character_coverage:
                    chars = chars[:n]
                    break
                covered += char_counts[ch]
        if max_chars is not None:
            chars = chars[:max_chars]
        dropped = len(chars) < len(char_counts)
        names = sorted(chars)
        index = {ch: i for i, ch in enumerate(names)}
        words = []
        wcount = []
        for piece, c in counts.items():
            if not dropped or all(ch in index for ch in piece):
                words.append([index[ch] for ch in piece])
                wcount.append(c)
                continue
            run: list[int] = []
            for ch in piece:
                i = index.get(ch)
                if i is None:
                    if len(run) > 1:
                        words.append(run)
                        wcount.append(c)
                    run = []
                else:
                    run.append(i)
            if len(run) > 1:
                words.append(run)
                wcount.append(c)
        n_base = n_special + 256 + len(names)
        base_what = (f"{n_special} special + " if n_special else "") + f"256 byte-fallback + {len(names)} characters"
        kind = "a character-level vocabulary"
        if not dropped and len(names) > 1:
            base_what += "; max_chars (CLI: --max-chars) keeps only the most frequent characters"
    if vocab_size < n_base:
        raise LbpeError(f"vocab_size {vocab_size} is smaller than the {n_base} base tokens of {kind} ({base_what})")
    n_units = len(names)
    merges, scaffold_ids = _merge(
        names,
        words,
        wcount,
        vocab_size - n_base,
        scaffold=scaffold,
        progress=progress,
        valid=valid_llama_token if llama else None,
    )
    vocab = _build_vocab(names, n_units, merges, scaffold_ids, specials, unit)
    vocab.trained["style"] = style
    if llama:  # LLaMA's unk; a run of unknown characters is one <unk> (with byte fallback: never)
        vocab.unk, vocab.fuse_unk = 0, True
    return vocab


# ---- the llama style: SentencePiece's pieces and tokens ---------------------------------------

#: Characters a llama-style token holds only alone: ASCII digits (``split_digits``), and NUL
#: and U+2585, which SentencePiece never puts in a piece.
_ALONE = frozenset("0123456789\0\u2585")
_SCRIPT_KEY: dict[str, str] = {}


def _script_key(ch: str) -> str:
    """The script as SentencePiece compares it: Hiragana, Katakana and U+30FC count as Han."""
    key = _SCRIPT_KEY.get(ch)
    if key is None:
        key = script(ch)
        if key in ("HIRAGANA", "KATAKANA") or ch == "\u30fc":
            key = "HAN"
        _SCRIPT_KEY[ch] = key
    return key


def _llama_cut(c: str, d: str) -> bool:
    """True when no llama-style token can hold ``c`` directly followed by ``d``."""
    if d == SPACE:
        return c != SPACE
    if c in _ALONE or d in _ALONE:
        return True
    if c == SPACE:
        return False
    a, b = _script_key(c), _script_key(d)
    return a != b and a != "INHERITED" and b != "INHERITED"


_ASCII_PIECE = re.compile(f"{SPACE}*(?:[A-Za-z]+|[^A-Za-z0-9{SPACE}]+)|{SPACE}+|[0-9]")


def llama_pieces(words: Counter[str] | dict[str, int]) -> Counter[str]:
    """SentencePiece's words cut where no token can span: before a ``"\u2581"`` that follows
    another character, around every ASCII digit, and between two characters of
    different scripts (a combining mark, script Inherited, goes with either side).

    >>> sorted(llama_pieces({"\u2581abc.12\u4e2d\u3042": 1}))
    ['.', '1', '2', '\u2581abc', '\u4e2d\u3042']
    """
    out: Counter[str] = Counter()
    ascii_pieces = _ASCII_PIECE.findall
    for word, c in words.items():
        if not word:
            continue
        rest = word.lstrip(SPACE)
        if rest.isascii() and "\0" not in rest:  # the same cuts, faster: letters are Latin, the rest Common
            for piece in ascii_pieces(word):
                out[piece] += c
            continue
        start = 0
        prev = word[0]
        for i in range(1, len(word)):
            ch = word[i]
            if _llama_cut(prev, ch):
                out[word[start:i]] += c
                start = i
            prev = ch
        out[word[start:]] += c
    return out


def valid_llama_token(token: str, max_chars: int = LLAMA_MAX_TOKEN_CHARS) -> bool:
    """Whether the llama style may make ``token`` (SentencePiece's rule for a piece, with LLaMA's
    options): at most ``max_chars`` characters; ``"\u2581"`` only at the start, unless the
    token is nothing else; an ASCII digit only alone; one script (combining marks take the
    script before them; Hiragana and Katakana count as Han).

    >>> [valid_llama_token(t) for t in ("\u2581the", "\u2581\u2581", "\u2581\u2581a", "a1", "a.", "e\u0301")]
    [True, True, False, False, False, True]
    """
    if not token or len(token) > max_chars:
        return False
    if token.find(SPACE, 1) > 0 and token.strip(SPACE):
        return False
    prev = None
    for ch in token:
        if ch == SPACE:
            continue
        if ch in _ALONE and (len(token) > 1 or ch in "\0\u2585"):
            return False
        key: str | None = _script_key(ch)
        if key == "INHERITED":
            key = prev
        if prev is not None and key != prev:
            return False
        prev = key
    return True


def _merge(
    names: list,
    words: list[list[int]],
    wcount: list[int],
    wanted: int,
    *,
    scaffold: bool,
    progress: Progress | None,
    valid: Callable[[str], bool] | None = None,
) -> tuple[list[tuple[int, int, int]], set[int]]:
    """The merge loop over internal ids (``names`` grows with every new token). Returns the
    merges ``(left, right, result)`` in order and the ids that end as scaffold tokens.

    ``valid(token)``: whether a pair may be merged (the llama style); also switches the
    tie-break to SentencePiece's (shorter token first, then token text)."""
    n_base = len(names)
    pair_count: dict[tuple[int, int], int] = {}
    where: dict[tuple[int, int], set[int]] = {}
    for wi, w in enumerate(words):
        c = wcount[wi]
        for p in zip(w, w[1:]):
            pair_count[p] = pair_count.get(p, 0) + c
            s = where.get(p)
            if s is None:
                where[p] = {wi}
            else:
                s.add(wi)
    sp_order = valid is not None
    # (-count, kind, tie-break, tie-break, key): a pair's key is (left id, right id), a scaffold token's its id
    heap: list[tuple[Any, ...]]
    if sp_order:
        heap = [(-c, _PAIR, len(t), t, p) for p, c in pair_count.items() for t in (names[p[0]] + names[p[1]],)]
    else:
        heap = [(-c, _PAIR, names[p[0]], names[p[1]], p) for p, c in pair_count.items()]
    heapq.heapify(heap)
    banned: set[tuple[int, int]] = set()  # pairs ``valid`` refuses
    checked: set[tuple[int, int]] = set()  # pairs ``valid`` accepts

    by_name = {name: i for i, name in enumerate(names)}
    freq: list[int] = []  # stand-alone counts (only kept for Scaffold-BPE)
    if scaffold:
        freq = [0] * n_base
        for wi, w in enumerate(words):
            c = wcount[wi]
            for u in w:
                freq[u] += c
    is_scaffold: list[bool] = [False] * n_base
    merges: list[tuple[int, int, int]] = []
    seen_pairs: set[tuple[int, int]] = set()
    made = 0  # normal merged tokens
    empty = names[0][:0] if names else ""
    if progress is not None:
        progress(0, wanted)

    def head_count() -> int:
        """Count at the head of the queue, after dropping or refreshing stale entries."""
        while heap:
            negc, kind, _, _, key = heap[0]
            if kind == _PAIR:
                cur = pair_count.get(key, 0)
            else:
                cur = freq[key] if is_scaffold[key] else 0
            if cur == -negc and cur > 0:
                if valid is not None and kind == _PAIR and key not in checked:
                    if not valid(names[key[0]] + names[key[1]]):
                        banned.add(key)
                        heapq.heappop(heap)
                        continue
                    checked.add(key)
                return cur
            if cur > 0:
                e = heap[0]
                heapq.heapreplace(heap, (-cur, e[1], e[2], e[3], e[4]))
            else:
                heapq.heappop(heap)
        return 0

    while made < wanted:
        if head_count() == 0:
            break
        _, kind, _, _, key = heapq.heappop(heap)
        if kind == _SCAFFOLD:
            is_scaffold[key] = False  # back as a normal token
            made += 1
            if progress is not None:
                progress(made, wanted)
            continue
        a, b = key
        name = names[a] + names[b]
        t = by_name.get(name)
        if t is None:
            t = len(names)
            names.append(name)
            by_name[name] = t
            is_scaffold.append(False)
            if scaffold:
                freq.append(0)
            made += 1
        elif is_scaffold[t]:
            is_scaffold[t] = False
            made += 1
        if key not in seen_pairs:
            seen_pairs.add(key)
            merges.append((a, b, t))
        applied = _apply_merge(a, b, t, words, wcount, where, pair_count, heap, names, banned, sp_order)
        if scaffold:
            freq[t] += applied
            freq[a] -= applied  # each merge uses up one a and one b (two a's when a == b)
            freq[b] -= applied
            limit = head_count()
            for x in (a, b) if a != b else (a,):
                if x >= n_base and not is_scaffold[x] and freq[x] < limit:
                    is_scaffold[x] = True
                    made -= 1
                    if freq[x] > 0:
                        heapq.heappush(heap, (-freq[x], _SCAFFOLD, names[x], empty, x))
        if progress is not None:
            progress(made, wanted)
    scaffold_ids = {i for i in range(n_base, len(names)) if is_scaffold[i]}
    return merges, scaffold_ids


def _apply_merge(
    a: int,
    b: int,
    t: int,
    words: list[list[int]],
    wcount: list[int],
    where: dict[tuple[int, int], set[int]],
    pair_count: dict[tuple[int, int], int],
    heap: list,
    names: list,
    banned: set[tuple[int, int]],
    sp_order: bool,
) -> int:
    """Merge every (a, b) into t in the words that hold it; update the pair counts and push the
    pairs that gained occurrences (not the ``banned`` ones; heap entries ordered as
    SentencePiece's when ``sp_order``). Returns the number of merges applied (weighted by count)."""
    changes: dict[tuple[int, int], int] = {}
    gained: dict[tuple[int, int], set[int]] = {}
    applied = 0
    for wi in where.pop((a, b), ()):
        w = words[wi]
        n = len(w)
        c = wcount[wi]
        out: list[int] = []
        i = 0
        merged_at = -2  # old index where the last merge occurrence ended
        while i < n:
            if w[i] == a and i + 1 < n and w[i + 1] == b:
                applied += c
                if out:
                    if merged_at == i - 1:  # the left neighbour is the previous t
                        old, new = (b, a), (t, t)
                    else:
                        x = w[i - 1]
                        old, new = (x, a), (x, t)
                    changes[old] = changes.get(old, 0) - c
                    changes[new] = changes.get(new, 0) + c
                    s = gained.get(new)
                    if s is None:
                        gained[new] = {wi}
                    else:
                        s.add(wi)
                if i + 2 < n and not (w[i + 2] == a and i + 3 < n and w[i + 3] == b):
                    y = w[i + 2]
                    old, new = (b, y), (t, y)
                    changes[old] = changes.get(old, 0) - c
                    changes[new] = changes.get(new, 0) + c
                    s = gained.get(new)
                    if s is None:
                        gained[new] = {wi}
                    else:
                        s.add(wi)
                out.append(t)
                merged_at = i + 1
                i += 2
            else:
                out.append(w[i])
                i += 1
        if len(out) != n:
            words[wi] = out
    pair_count.pop((a, b), None)
    for p, d in changes.items():
        if d == 0 or p == (a, b):
            continue
        cur = pair_count.get(p, 0) + d
        if cur > 0:
            pair_count[p] = cur
        else:
            pair_count.pop(p, None)
        if d > 0 and p not in banned:
            if sp_order:
                name = names[p[0]] + names[p[1]]
                heapq.heappush(heap, (-cur, _PAIR, len(name), name, p))
            else:
                heapq.heappush(heap, (-cur, _PAIR, names[p[0]], names[p[1]], p))
    for p, s in gained.items():
        had = where.get(p)
        if had is None:
            where[p] = s
        else:
            had |= s
    return applied


def _build_vocab(
    names: list,
    n_units: int,
    merges: list[tuple[int, int, int]],
    scaffold_ids: set[int],
    specials: tuple[str, ...],
    unit: Unit,
) -> Vocab:
    """Lay out the ids (docs/training.md, "Token ids") and build the :class:`Vocab`."""
    n_special = len(specials)
    special = {s: i for i, s in enumerate(specials)}
    first = n_special + 256
    final: dict[int, int] = {}  # internal id -> final id
    # internal ids: the base units (bytes 0..255, or characters in code-point order), then
    # the merged tokens in the order they were made
    base = n_special if unit == "byte" else first
    for k in range(n_units):
        final[k] = base + k
    nxt = base + n_units
    made = list(dict.fromkeys(t for _, _, t in merges))  # distinct results, in order
    for t in made:
        if t not in scaffold_ids:
            final[t] = nxt
            nxt += 1
    for t in made:
        if t in scaffold_ids:
            final[t] = nxt
            nxt += 1
    key = (lambda s: s) if unit == "byte" else (lambda s: s.encode("utf-8"))
    tokens = {key(names[i]): j for i, j in final.items()}
    merge_ranks: dict[tuple[bytes, bytes], int] = {}
    parts: dict[int, tuple[int, int]] = {}
    for rank, (a, b, t) in enumerate(merges):
        merge_ranks[(key(names[a]), key(names[b]))] = rank
        if t in scaffold_ids and final[t] not in parts:
            parts[final[t]] = (final[a], final[b])
    return Vocab(
        tokens,
        special=special,
        merges=merge_ranks,
        unit=unit,
        name="",
        byte_fallback={b: n_special + b for b in range(256)} if unit == "char" else None,
        whole_piece_first=False,
        scaffold=parts,
    )
