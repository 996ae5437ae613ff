"""Merging counted pieces into a vocabulary: the merge loop of classic BPE and Scaffold-BPE over
character or byte units, with SentencePiece's rule and tie-break for the llama style, and the
id layout of the :class:`~lbpe.vocab.Vocab` it makes (:func:`train_from_counts`;
docs/training.md, "How training works", "Token ids", "Scaffold-BPE")."""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from typing import Any

from lbpe.decoders import char_to_byte
from lbpe.errors import LbpeError, VocabSizeError
from lbpe.train.count import Progress
from lbpe.train.llama import LLAMA_SPECIALS, llama_pieces, valid_llama_token
from lbpe.train.options import TrainOptions, train_options
from lbpe.vocab import Unit, Vocab

__all__ = ["train_from_counts"]

_PAIR, _SCAFFOLD = 1, 0  # heap entry kinds; scaffold tokens win ties with pairs


def train_from_counts(
    counts: Counter[str] | dict[str, int],
    *,
    options: TrainOptions | None = None,
    vocab_size: int | None = None,
    unit: Unit | None = None,
    scaffold: bool | None = None,
    special_tokens: Iterable[str] | None = None,
    max_chars: int | None = None,
    character_coverage: float | None = None,
    style: str | None = None,
    progress: Progress | None = None,
) -> Vocab:
    """Train from already counted pieces (piece -> count); the options are those of :func:`train`,
    given as ``options`` or as keywords (not both; a keyword left out or ``None`` takes the
    default of :class:`TrainOptions`, whose ``pattern`` is left aside here: the pieces are
    already split). With ``style="llama"`` the pieces are SentencePiece's words
    (:func:`count_llama_pieces`).

    >>> v = train_from_counts({"aaab": 2}, vocab_size=256 + 2 + 1)
    >>> v.token_bytes(256 + 2), v.merges
    (b'aa', {(b'a', b'a'): 0})
    """
    keywords = {
        "vocab_size": vocab_size,
        "unit": unit,
        "scaffold": scaffold,
        "special_tokens": special_tokens,
        "max_chars": max_chars,
        "character_coverage": character_coverage,
        "style": style,
    }
    opts = train_options(options, keywords, where="train_from_counts")
    vocab_size, unit, scaffold, style, specials = (
        opts.vocab_size,
        opts.unit,
        opts.scaffold,
        opts.style,
        opts.special_tokens,
    )
    max_chars, character_coverage = opts.max_chars, opts.character_coverage
    llama = style == "llama"
    if llama:
        specials = LLAMA_SPECIALS + tuple(s for s in specials if s not in LLAMA_SPECIALS)
        counts = llama_pieces(counts)
    n_special = len(specials)
    hint = ""
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
            hint = "max_chars (CLI: --max-chars) keeps only the most frequent characters"
    if vocab_size < n_base:
        raise VocabSizeError(vocab_size, n_base, kind, base_what, hint)
    n_units = len(names)
    merges, scaffold_ids = _merge(
        names,
        words,
        wcount,
        vocab_size - n_base,
        scaffold=scaffold,
        progress=progress,
        valid=valid_llama_token if llama else None,
        reserved=_reserved(specials, unit),
    )
    vocab = _build_vocab(names, n_units, merges, scaffold_ids, specials, unit)
    vocab.trained["style"] = style
    if llama:  # LLaMA's unk; a run of unknown characters is one <unk> (with byte fallback: never)
        vocab.unk, vocab.fuse_unk = 0, True
    return vocab


def _reserved(specials: tuple[str, ...], unit: str) -> set:
    """The token texts no merge may make: each special's, as tokenizer.json spells tokens. A
    character-level token is its text; a byte-level token is spelled in GPT-2's byte alphabet
    (a space as ``Ġ``), so a special clashes with the bytes it spells there, and a special with
    a character outside that alphabet clashes with none."""
    if unit != "byte":
        return set(specials)
    return {bytes(char_to_byte[c] for c in s) for s in specials if all(c in char_to_byte for c in s)}


def _merge(
    names: list,
    words: list[list[int]],
    wcount: list[int],
    wanted: int,
    *,
    scaffold: bool,
    progress: Progress | None,
    valid: Callable[[str], bool] | None = None,
    reserved: Collection[str | bytes] = (),
) -> tuple[list[tuple[int, int, int]], set[int]]:
    """The merge loop over internal ids (``names`` grows with every new token). Returns the
    merges ``(left, right, result)`` in order and the ids that end as scaffold tokens.

    ``valid(token)``: whether a pair may be merged (the llama style); also switches the
    tie-break to SentencePiece's (shorter token first, then token text). ``reserved``: texts no
    merge may make (the special tokens': a special is never also a normal token, whose text a
    tokenizer.json could not tell from it); such a pair is passed over as ``valid`` refusing it."""
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
                if (valid is not None or reserved) and kind == _PAIR and key not in checked:
                    name = names[key[0]] + names[key[1]]
                    if name in reserved or (valid is not None and not valid(name)):
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
