"""The example texts both playgrounds offer (the Gradio app's examples, the page's picker).

Each example names the bundled vocabulary it is shown with: it was chosen so that BPE and LBPE
split it differently there (``tests/unit/playground/test_examples.py`` holds every example to that). The first
is the opening text of both UIs, shown with the default vocabulary (Mistral-7B's); it starts
with the paper's own case, " Capitals", where BPE merges "al" + "s" before the long token
" Capital" can form, and the Explain view opens on it.

>>> EXAMPLES[0].key, EXAMPLES[0].explain, EXAMPLES[0].vocabulary
('paper', ' Capitals', 'mistral-7b')
>>> example("code").vocabulary
'lbpe-32k'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from lbpe.errors import LbpeError

__all__ = ["Example", "EXAMPLES", "DEFAULT_EXAMPLE", "example", "examples_json"]


@dataclass(frozen=True)
class Example:
    key: str  # stable name, used in links (?example=...)
    label: str  # what the picker shows
    text: str
    vocabulary: str  # the bundled preset it is shown with
    explain: str  # the span the Explain view opens on


EXAMPLES: tuple[Example, ...] = (
    Example(
        "paper",
        "The paper's case: Capitals",
        "The Capitals of Europe hold the geographers' maps. Long-token-first BPE (LBPE) keeps a BPE vocabulary "
        'and changes only the encoding: the longest tokens are placed first. Classic BPE merges "al" + "s" '
        'in Capitals before the long token can form; LBPE keeps "Capital" whole. Other words it splits '
        "differently: redelivery, scepter, flavored, unrescinded, Plattsburg.",
        "mistral-7b",
        " Capitals",
    ),
    Example(
        "english",
        "English, long words",
        "Misunderstandings about internationalization are counterrevolutionary only in the minds of "
        "geographers; the scepter's redelivery to Plattsburg went unrescinded, and the harbour sold flavored "
        "tea to incomprehensibly cheerful auctioneers.",
        "lbpe-llama-32k",
        " geographers",
    ),
    Example(
        "code",
        "Python code",
        "def longest_first(piece: bytes, vocabulary: set[bytes], longest: int) -> list[bytes]:\n"
        '    """Place the longest tokens first, scanning left to right."""\n'
        "    placed = [False] * len(piece)\n"
        "    for window in range(min(longest, len(piece)), 0, -1):\n"
        "        for start in range(len(piece) - window + 1):\n"
        "            span = piece[start : start + window]\n"
        "            if span in vocabulary and not any(placed[start : start + window]):\n"
        "                placed[start : start + window] = [True] * window\n",
        "lbpe-32k",
        " vocabulary",
    ),
    Example(
        "chinese",
        "Chinese (o200k_base)",
        "我们在线学习自然语言处理，大家都觉得长词优先的分词方法很有意思。这个方法在保留原有词表的同时，只改变了编码的顺序。",
        "o200k_base",
        "，大家",
    ),
    Example(
        "japanese",
        "Japanese (o200k_base)",
        "トレーナーはメニューのコピーをプリンターで印刷し、ブラウザのスクリーンショットをテントの中で見せました。",
        "o200k_base",
        "トレーナー",
    ),
    Example(
        "russian",
        "Russian (o200k_base)",
        "Пространство и время: мы приходить сюда каждый день, картинка на стене, деловой разговор о "
        "токенизации и интернационализации.",
        "o200k_base",
        " картинка",
    ),
    Example(
        "whitespace",
        "Emoji and white space (gpt2)",
        "Tabs\tand  double  spaces,\n\n\ttrailing space   \nemoji 🙂🚀👩‍💻 and flags 🇫🇷🇯🇵 count too!!!",
        "gpt2",
        "Tabs",
    ),
)

#: The opening example of both UIs.
DEFAULT_EXAMPLE = EXAMPLES[0]


def example(key: str) -> Example:
    """The example named ``key`` (see :data:`EXAMPLES`)."""
    for item in EXAMPLES:
        if item.key == key:
            return item
    raise LbpeError(f"no example named {key!r}; the examples are: {', '.join(e.key for e in EXAMPLES)}")


def examples_json() -> list[dict]:
    """Every example as a plain dict (the page's picker)."""
    return [asdict(e) for e in EXAMPLES]
