"""Types of the compiled extension lbpe._native (lbpe/_native.c); lbpe/native.py wraps it."""

from collections.abc import Callable, Sequence

class Model:
    """A vocabulary's tables for the compiled methods (``method``: a code of
    :data:`lbpe.native.METHOD_CODES`)."""

    def __init__(
        self,
        tokens: dict[bytes, int],
        *,
        char_units: bool,
        whole_piece_first: bool,
        merges: dict[tuple[bytes, bytes], int] | None,
        scaffold: dict[int, tuple[int, int]] | None,
        byte_fallback: dict[int, int] | None,
        unk: int | None,
        fuse_unk: bool,
        fallback: Callable[[str], list[int]],
    ) -> None: ...
    # buffer=True: bytes of native-endian int32 ids instead of a list
    def encode_text(
        self, text: str, preset: int, /, *, method: int, limit: int, cached_chars: int, seconds: float, buffer: bool
    ) -> list[int] | bytes: ...
    def encode_pieces(
        self, pieces: list[str], /, *, method: int, limit: int, cached_chars: int, seconds: float, buffer: bool
    ) -> list[int] | bytes: ...
    def encode_batch(
        self, texts: list[str], preset: int, /, *, method: int, limit: int, cached_chars: int, threads: int
    ) -> list[list[int]]: ...
    def encode_piece(self, piece: str, method: int, /) -> tuple[int, ...]: ...
    def unpack(self, data: bytes, /) -> list[list[int]]: ...
    def clear_cache(self) -> None: ...
    def cached(self) -> tuple[int, ...]: ...  # pieces cached, per method code

def set_classes(
    letters: Sequence[tuple[int, int]],
    numbers: Sequence[tuple[int, int]],
    upper: Sequence[tuple[int, int]],
    lower: Sequence[tuple[int, int]],
    space: Sequence[tuple[int, int]],
    marks: Sequence[tuple[int, int]],
    punctuation_symbols: Sequence[tuple[int, int]],
    cjk: Sequence[tuple[int, int]],
    /,
) -> None: ...
def split(text: str, preset: int, /) -> list[str]: ...
def block_path(preset: int, /) -> bool: ...
def last_starts(text: str, preset: int, count: int, /) -> tuple[int, list[int]]: ...
def pack(lists: list[list[int]], /) -> bytes: ...
def parse_ranks(data: bytes, /) -> dict[bytes, int] | None: ...
def _block_simd(level: int = ..., /) -> tuple[int, int]: ...
def _set_bpe_thresholds(short: int, long: int, handover: int = ..., /) -> tuple[int, int, int]: ...
