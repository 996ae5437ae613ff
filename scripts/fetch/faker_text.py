"""The text corpora built from the Faker wheel (PyPI): its lorem word lists and its Python sources.

Faker is never imported or run: its word lists are read with ``ast``.
"""

from __future__ import annotations

import ast
import random

from .archives import Inputs
from .builders import Builder, utf8
from .cache import FetchError
from .manifest import FAKER
from .npm_text import CODE_FILE_LIMIT

LOREM = "faker/providers/lorem/"
WORDS_LIMIT = 2 * 1024 * 1024  # whole file, split evenly between locales


def _is_lorem_locale(name: str) -> bool:
    """faker/providers/lorem/<locale>/__init__.py"""
    rest = name[len(LOREM) :] if name.startswith(LOREM) else ""
    parts = rest.split("/")
    return len(parts) == 2 and parts[1] == "__init__.py"


def _static_tuple(node: ast.expr, env: dict[str, tuple[str, ...]], where: str) -> tuple[str, ...]:
    """Evaluate a class attribute's value without running any code.

    A tuple literal goes through ``ast.literal_eval``; the only other forms
    accepted are a name bound earlier in the same class body, ``+`` of two
    such values and ``*`` by an integer literal (el_GR writes
    ``common_words * 2 + (...)``).
    """
    if isinstance(node, (ast.Tuple, ast.List)):
        value = tuple(ast.literal_eval(node))
    elif isinstance(node, ast.Name) and node.id in env:
        value = env[node.id]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        value = _static_tuple(node.left, env, where) + _static_tuple(node.right, env, where)
    elif (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mult)
        and isinstance(node.right, ast.Constant)
        and type(node.right.value) is int
    ):
        value = _static_tuple(node.left, env, where) * node.right.value
    else:
        raise FetchError(f"{where}: unsupported word_list expression {ast.dump(node)[:80]}")
    if not all(isinstance(w, str) and w for w in value):
        raise FetchError(f"{where}: word_list holds something other than words")
    return value


def lorem_word_list(source: bytes, where: str) -> tuple[str, ...] | None:
    """The ``word_list`` a lorem provider file defines itself, else None.

    Files that only inherit (de_AT, es_AR, ...) or alias another locale's
    list (nl_NL: ``word_list = LoremProviderNL_BE.word_list``) give None, so
    each distinct list is used once.
    """
    tree = ast.parse(source, filename=where)
    found = None
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        env: dict[str, tuple[str, ...]] = {}
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                target, value = stmt.target, stmt.value
            else:
                continue
            if not isinstance(target, ast.Name):
                continue
            if target.id == "word_list":
                if isinstance(value, ast.Attribute):
                    continue  # another locale's list
                found = _static_tuple(value, env, where)
            elif isinstance(value, (ast.Tuple, ast.List, ast.Name, ast.BinOp)):
                try:
                    env[target.id] = _static_tuple(value, env, where)
                except (FetchError, ValueError, TypeError):
                    pass  # not a word tuple; only matters if word_list uses it
    return found


# Languages written without spaces between words: (word separator, full
# stop, comma, quotes, parentheses).  Thai ends a sentence with a space.
_NO_SPACE = {
    "zh_CN": ("", "。", "，", "“”", "（）"),
    "zh_TW": ("", "。", "，", "「」", "（）"),
    "ja_JP": ("", "。", "、", "「」", "（）"),
    "th_TH": ("", " ", "", '""', "()"),
}
_ARABIC_SCRIPT = ("ar_", "fa_")  # comma "،", question mark "؟"


def _number(rng: random.Random) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        return str(rng.randint(1850, 2030))  # a year
    if kind == 1:
        return f"{rng.randint(1000, 999_999):,}"  # an amount
    if kind == 2:
        return f"{rng.randint(1, 9999)}.{rng.randint(0, 99):02d}"  # a price
    if kind == 3:
        return f"{rng.randint(1, 99)}%"
    return str(rng.randint(2, 120))


def lorem_block(locale: str, words: tuple[str, ...], budget: int) -> str:
    """Paragraphs of seeded pseudo-sentences, at least *budget* UTF-8 bytes."""
    rng = random.Random(f"lbpe-{locale}")
    if locale in _NO_SPACE:
        sep, stop, comma, quotes, parens = _NO_SPACE[locale]
        ends = [stop]
    else:
        sep, comma, quotes, parens = " ", ",", '""', "()"
        question = "? "
        if locale.startswith(_ARABIC_SCRIPT):
            comma, question = "،", "؟ "
        elif locale == "el_GR":
            question = "; "  # the Greek question mark
        ends = [". "] * 8 + [question, "! "]
    paragraphs = [f"# {locale}"]
    size = len(paragraphs[0].encode("utf-8"))
    while size < budget:
        sentences = []
        for _ in range(rng.randint(3, 8)):
            toks = [rng.choice(words) for _ in range(rng.randint(5, 18))]
            if rng.random() < 0.3:
                toks.insert(rng.randrange(1, len(toks)), _number(rng))
            toks[0] = toks[0][:1].upper() + toks[0][1:]  # no-op without case
            if comma:
                for i in range(1, len(toks) - 2):
                    if rng.random() < 0.08:
                        toks[i] += comma
            if rng.random() < 0.15:  # a quoted or parenthesised span
                i = rng.randrange(1, len(toks))
                j = min(len(toks) - 1, i + rng.randrange(3))
                opening, closing = rng.choice((quotes, parens))
                toks[i] = opening + toks[i]
                if comma and toks[j].endswith(comma):
                    toks[j] = toks[j][: -len(comma)] + closing + comma
                else:
                    toks[j] += closing
            sentences.append(sep.join(toks) + rng.choice(ends))
        para = "".join(sentences).rstrip(" ")
        paragraphs.append(para)
        size += len(para.encode("utf-8")) + 2
    return "\n\n".join(paragraphs)


def make_multilingual_words(inp: Inputs) -> bytes:
    # One block per Faker locale with its own lorem word list, in sorted
    # locale order, each about WORDS_LIMIT / n bytes.  The text is random
    # words (not real prose), but in each language's script, word spacing
    # and punctuation.  The generator is seeded per locale and only uses
    # random(), randrange(), randint() and choice(), whose results are
    # stable across CPython 3 versions.
    lists: dict[str, tuple[str, ...]] = {}
    for name, data in sorted(inp[FAKER].items()):
        words = lorem_word_list(data, name)
        if words:
            lists[name[len(LOREM) :].split("/")[0]] = words
    if len(lists) < 10:
        raise FetchError(f"expected Faker lorem word lists, found {sorted(lists)}")
    budget = WORDS_LIMIT // len(lists)
    blocks = [lorem_block(locale, lists[locale], budget) for locale in sorted(lists)]
    return ("\n\n".join(blocks) + "\n").encode("utf-8")


def make_code_more(inp: Inputs) -> bytes:
    # Faker's *.py files sorted by path (files over CODE_FILE_LIMIT, i.e. the
    # big data tables, skipped), each after a "# =====" line naming it, up
    # to 2 MiB in all.  Faker is MIT licensed.
    files = inp[FAKER]
    if not files:
        raise FetchError(f"no Python files found in {FAKER.label}")
    chunks: list[str] = []
    total = 0
    for name in sorted(files):
        data = files[name]
        if len(data) > CODE_FILE_LIMIT:
            continue
        chunk = f"# ===== {FAKER.label} {name}\n{utf8(data).rstrip(chr(10))}\n"
        size = len(chunk.encode("utf-8")) + 1
        if total + size > WORDS_LIMIT:
            break
        chunks.append(chunk)
        total += size
    return "\n".join(chunks).encode("utf-8")


BUILDERS: dict[str, Builder] = {
    "multilingual_words": Builder({FAKER: _is_lorem_locale}, make_multilingual_words),
    "code_more": Builder({FAKER: lambda n: n.endswith(".py")}, make_code_more),
}
