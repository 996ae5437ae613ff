"""What a person hands a front end, and what it hands back: uploaded files read under one set
of limits with one kind of error, and downloads in a private folder.

:func:`open_upload` takes the files a person chose (one vocabulary file, or GPT-2's
``encoder.json`` and ``vocab.bpe`` together), checks each against the ``vocab_bytes`` limit,
copies them into a private folder under their own names and opens them with
:func:`open_vocabulary`. That one reads them with :func:`lbpe.load` as data only (nothing in an
upload is executed), under a :class:`lbpe.limits.Limits` snapshot when given, and turns every
failure into an :class:`~lbpe.errors.LbpeError` whose message names the file as the person
chose it, never the folder it was written to. A rank file whose name does not tell its
pre-tokenizer raises :class:`~lbpe.errors.PatternNeededError`, so a front end can ask for one.

:func:`read_upload` reads a text upload within a limit, :func:`text_head` reads as much of a
text file as a view shows (text that is not UTF-8 gets :func:`lbpe.corpus.textio.decode`'s one error),
:class:`Downloads` keeps the files a view offers for download, and :class:`Uploads` deletes a
server's uploads only when no session can still need them.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> (folder / "notes.txt").write_text("not a vocabulary")
16
>>> open_vocabulary(folder / "notes.txt", scratch=folder)
Traceback (most recent call last):
  ...
lbpe.errors.LbpeError: notes.txt: unrecognised vocabulary format; ...
"""

from __future__ import annotations

import contextlib
import copy
import gc
import hashlib
import os
import secrets
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from pathlib import Path

from lbpe import limits as _limits
from lbpe.corpus.textio import decode_file
from lbpe.errors import LbpeError, PatternNeededError
from lbpe.limits import Limits
from lbpe.load import detect_format, load
from lbpe.tokenizer import Tokenizer

__all__ = [
    "open_vocabulary",
    "open_upload",
    "read_upload",
    "text_head",
    "upload_size",
    "Downloads",
    "Uploads",
    "AUTO_PATTERN",
    "GPT2_PAIR",
]

#: The pattern choice that means "from the file" (what the app's and the page's menus offer first).
AUTO_PATTERN = "auto"
#: The two files GPT-2's vocabulary comes in, chosen together.
GPT2_PAIR = ("encoder.json", "vocab.bpe")


def without_folder(message: str, scratch: Path | None) -> str:
    """``message`` without the private folder a front end wrote the upload to."""
    if scratch is None:
        return message
    folder = str(scratch)
    return message.replace(folder + os.sep, "").replace(folder + "/", "").replace(folder, "the upload")


def open_vocabulary(
    target: str | os.PathLike[str],
    *,
    pattern: str | None = None,
    limits: Limits | None = None,
    scratch: str | os.PathLike[str] | None = None,
    shown: str = "",
) -> Tokenizer:
    """Read a vocabulary file (or GPT-2's folder) that came from a person.

    ``pattern``: a pre-tokenizer preset for a rank file, or ``None`` / ``""`` / ``"auto"`` for
    what the file says (ignored for ``tokenizer.json`` and SentencePiece models, which carry
    their own). ``limits``: the server's snapshot (see :func:`lbpe.load`). ``scratch``: the
    private folder the upload was written to, left out of messages; a tokenizer named after it
    takes ``shown`` (or the file's name) instead.
    """
    target = Path(target)
    folder = Path(scratch) if scratch is not None else None
    try:
        fmt, _ = detect_format(target)
        chosen = None if pattern in (None, "", AUTO_PATTERN) or fmt in ("hf", "sentencepiece") else pattern
        tok = load(target, pattern=chosen, limits=limits)
    except PatternNeededError as exc:
        raise PatternNeededError(without_folder(exc.source, folder), exc.problem) from None
    except LbpeError as exc:
        message = without_folder(str(exc), folder)
        if folder is not None:  # a vocabulary read from the folder is named after it (below)
            message = message.replace(f"vocabulary {folder.name} ", f"vocabulary {shown or target.name} ")
        raise LbpeError(message) from None
    except RecursionError:
        raise LbpeError(f"{shown or target.name}: nested too deeply to be a vocabulary") from None
    except (ValueError, KeyError, IndexError, TypeError, MemoryError, OverflowError) as exc:
        message = f"{shown or target.name}: not a vocabulary lbpe can read ({type(exc).__name__}: {exc})"
        raise LbpeError(without_folder(message, folder)) from None
    if folder is not None and tok.name == folder.name:  # named after the scratch folder
        tok.name = shown or target.name
        if tok.vocab.name == folder.name:  # what its own errors name it by
            tok.vocab.name = tok.name
    return tok


def open_upload(
    paths: Sequence[str | os.PathLike[str]], *, pattern: str | None = None, limits: Limits | None = None
) -> Tokenizer:
    """Open the vocabulary in uploaded files: one file, or GPT-2's ``encoder.json`` and
    ``vocab.bpe`` together. Each is checked against ``vocab_bytes`` (of ``limits``, else the
    environment's) before it is read, copied into a private folder that is removed afterwards,
    and read by :func:`open_vocabulary`. The caller keeps (or deletes) the uploads themselves."""
    files = [Path(p) for p in paths]
    if not files:
        raise LbpeError("Choose a vocabulary file to upload.")
    names = sorted(p.name for p in files)
    if len(files) > 2:
        raise LbpeError("Upload one vocabulary file (or GPT-2's encoder.json and vocab.bpe together).")
    if len(files) == 2 and tuple(names) != GPT2_PAIR:
        raise LbpeError(f"Two files can only be GPT-2's encoder.json and vocab.bpe, not {' and '.join(names)}.")
    check_upload_sizes(files, limits=limits)
    with _limits.using(limits), tempfile.TemporaryDirectory(prefix="lbpe-vocab-") as tmp:
        folder = Path(tmp)
        for p in files:
            shutil.copyfile(p, folder / p.name)
        target = folder if len(files) == 2 else folder / files[0].name
        shown = " + ".join(GPT2_PAIR) if len(files) == 2 else files[0].name
        return open_vocabulary(target, pattern=pattern, limits=limits, scratch=folder, shown=shown)


def check_upload_sizes(paths: Sequence[str | os.PathLike[str]], *, limits: Limits | None = None) -> None:
    """Each uploaded vocabulary file within ``vocab_bytes`` (of ``limits``, else the
    environment's), before anything reads it; ``LbpeError`` saying which is over, or gone."""
    with _limits.using(limits):
        for p in paths:
            _limits.check("vocab_bytes", upload_size(p), Path(p).name)


def upload_fingerprint(paths: Sequence[str | os.PathLike[str]], pattern: str | None) -> str:
    """What an upload of vocabulary files was read from: their names and bytes and the
    pre-tokenizer chosen for them (the same files read with another pattern are another
    vocabulary), as a SHA-256."""
    digest = hashlib.sha256(repr(pattern).encode())
    for p in sorted(Path(p) for p in paths):
        digest.update(p.name.encode("utf-8", "surrogatepass") + b"\0")
        with open(p, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0")
    return digest.hexdigest()


class SharedUploads:
    """The vocabularies a server read from uploads, one for each distinct upload (its
    :func:`upload_fingerprint` and limits) whatever the number of sessions that sent it: each session
    gets a tokenizer of its own (its own name) over the one vocabulary, its tables and its
    piece caches, which live while any session's tokenizer does.

    >>> from lbpe.vocab import Vocab
    >>> shared = SharedUploads()
    >>> a = shared.get("fingerprint", lambda: Tokenizer(Vocab({bytes([b]): b for b in range(256)}), "paper"))
    >>> b = shared.get("fingerprint", lambda: 1 / 0)  # read once
    >>> a is not b and a.vocab is b.vocab
    True
    """

    def __init__(self) -> None:
        self._read: weakref.WeakValueDictionary[Hashable, Tokenizer] = weakref.WeakValueDictionary()
        # own -> (the tokenizer read, the address it is held for)
        self._held: weakref.WeakKeyDictionary[Tokenizer, tuple[Tokenizer, str | None]] = weakref.WeakKeyDictionary()
        # read now, not yet held (counted as held): for whom, and set when the read ends
        self._reading: dict[Hashable, tuple[str | None, threading.Event]] = {}
        self._lock = threading.Lock()

    def get(
        self,
        made_from: Hashable,
        read: Callable[[], Tokenizer],
        *,
        most: int | None = None,
        address: str | None = None,
        per_address: int | None = None,
        releasing: Iterable[Tokenizer] = (),
    ) -> Tokenizer:
        """A tokenizer of the caller's own over the vocabulary ``made_from`` names (an upload's
        fingerprint, with the limits it is read under), ``read()`` when no session holds it (a
        session asking while another reads it waits for that read). ``most``: how many distinct
        vocabularies may be held; ``per_address``: how many for the network ``address`` the
        upload came from, those it shares with others included; ``releasing``: the caller's
        own tokenizers it lets go when it keeps this one (not counted). One more raises
        :class:`~lbpe.errors.LbpeError` until one is let go."""
        let_go = {id(tok) for tok in releasing}
        collected = False
        while True:
            with self._lock:
                first = self._read.get(made_from)
                pending = self._reading.get(made_from)
                problem = None if pending else self._full(first, address, most, per_address, let_go)
                if pending is None and problem is None:
                    if first is not None:  # held already: shared
                        own = copy.copy(first)  # its name is the session's; the vocabulary and caches are shared
                        self._held[own] = (first, address)
                        return own
                    done = threading.Event()
                    self._reading[made_from] = (address, done)
                    break
            if pending is not None:
                pending[1].wait()  # then held, or the read failed: asked again
            elif collected:
                raise LbpeError(problem)
            else:
                # tokenizers no session holds any more (a session's copy goes first, then the one it held)
                for _ in range(2):
                    gc.collect()
                collected = True
        try:
            read_now = read()
            own = copy.copy(read_now)
            with self._lock:
                self._read[made_from] = read_now
                self._held[own] = (read_now, address)
            return own
        finally:
            with self._lock:
                self._reading.pop(made_from, None)
            done.set()

    def _full(
        self, first: Tokenizer | None, address: str | None, most: int | None, per_address: int | None, let_go: set[int]
    ) -> str | None:
        """Why ``address`` may not hold one more vocabulary (``first``: the one asked for, when
        held already), or ``None``; under the lock."""
        holders: dict[int, set[str | None]] = {}  # each vocabulary held -> the addresses holding it
        for own, (read_one, at) in list(self._held.items()):
            if id(own) not in let_go:
                holders.setdefault(id(read_one), set()).add(at)
        if first is None and most is not None and len(holders) + len(self._reading) >= most:
            held = f"{most} uploaded vocabular{'y' if most == 1 else 'ies'}"
            return (
                f"The server holds {held} for its visitors, as many as it keeps at once; upload this one again "
                "later (a session's uploads are let go after a while without requests), or use a bundled vocabulary."
            )
        if address is None or per_address is None:
            return None
        mine = {key for key, at in holders.items() if address in at}
        mine |= {id(key) for key, (at, _) in self._reading.items() if at == address}
        if (first is None or id(first) not in mine) and len(mine) >= per_address:
            held = f"{per_address} uploaded vocabular{'y' if per_address == 1 else 'ies'}"
            return (
                f"Your network address holds {held} here (over all its tabs), as many as one address may; "
                "let one go (a tab's uploads go when it is closed, after a while) or use a bundled vocabulary."
            )
        return None


def upload_size(path: str | os.PathLike[str]) -> int:
    """The size of an uploaded file; ``LbpeError`` when it is gone (a server deletes old uploads)."""
    path = Path(path)
    try:
        return path.stat().st_size
    except OSError:
        raise LbpeError(f"{path.name}: the upload is gone; please upload it again") from None


def read_upload(path: str | os.PathLike[str], key: str, *, limits: Limits | None = None) -> bytes:
    """The bytes of an uploaded file, if within the limit ``key`` (``"corpus_bytes"``,
    ``"train_bytes"``, ...) of ``limits`` (else the environment's); the error names the file,
    the limit and its variable."""
    path = Path(path)
    size = upload_size(path)
    with _limits.using(limits):
        _limits.check(key, size, path.name)
    with open(path, "rb") as f:
        return f.read(size + 1)


def text_head(path: str | os.PathLike[str], chars: int) -> tuple[str, int | None]:
    """The first ``chars`` characters of a UTF-8 file (at most ``4 * chars`` bytes are read), and
    the whole text's length in characters, or ``None`` when the file is longer than was read.
    A character cut by the read is left out; a file that is not UTF-8 gets
    :func:`lbpe.corpus.textio.decode`'s error."""
    path = Path(path)
    keep = 4 * chars  # bytes enough for ``chars`` characters
    size = upload_size(path)
    with open(path, "rb") as f:
        data = f.read(keep)
    whole = size <= keep
    if not whole:  # the read may have split the last character: drop what it split
        for back in range(4):
            try:
                data[: len(data) - back].decode("utf-8")
            except UnicodeDecodeError:
                continue
            data = data[: len(data) - back]
            break
    text = decode_file(data, path.name)
    return text[:chars], (len(text) if whole else None)


class Downloads:
    """Files a view offers for download, each in its own unguessable folder under one private
    folder; files older than ``ttl`` seconds are swept away when a new one is written or
    :meth:`sweep` is called.

    >>> d = Downloads(ttl=60)
    >>> Path(d.write("stats.json", "{}")).read_text()
    '{}'
    """

    def __init__(self, *, ttl: float, root: str | os.PathLike[str] | None = None) -> None:
        self.ttl = ttl
        self.root = Path(root) if root is not None else Path(tempfile.mkdtemp(prefix="lbpe-downloads-"))

    def sweep(self) -> None:
        """Delete the downloads older than ``ttl`` (a server calls this on a timer too)."""
        now = time.time()
        try:
            folders = list(self.root.iterdir())
        except OSError:
            return
        for old in folders:
            try:
                if now - old.stat().st_mtime > self.ttl:
                    shutil.rmtree(old, ignore_errors=True)
            except OSError:
                pass

    def write(self, name: str, data: str | bytes) -> str:
        """Write ``data`` (text as UTF-8) as a file called ``name``; returns its path."""
        self.sweep()
        self.root.mkdir(parents=True, exist_ok=True)
        folder = self.root / secrets.token_hex(8)
        folder.mkdir()
        path = folder / name
        if isinstance(data, str):
            path.write_text(data, encoding="utf-8")
        else:
            path.write_bytes(data)
        return str(path)

    def remove(self) -> None:
        """Delete every download (the server is stopping)."""
        shutil.rmtree(self.root, ignore_errors=True)


class Uploads:
    """Uploaded files a server hands its handlers, which sessions may share: a server that
    stores uploads by their content (as Gradio does) gives two visitors who send the same bytes
    under one name the same path. So no handler deletes an upload: it holds it while reading it
    (:meth:`hold`), and :meth:`sweep` deletes a file once nobody holds it, its ``keep`` after
    its last use has passed, and ``grace`` seconds have passed since it last arrived (another
    session's identical upload may be on its way to a handler).

    >>> import tempfile, pathlib
    >>> upload = pathlib.Path(tempfile.mkdtemp()) / "notes.txt"
    >>> _ = upload.write_text("hello")
    >>> uploads = Uploads(grace=0)
    >>> with uploads.hold([upload], keep=0) as (path,):
    ...     path.read_text()
    'hello'
    >>> uploads.sweep(); upload.exists()
    False
    """

    def __init__(self, *, grace: float) -> None:
        self.grace = grace
        self._until: dict[Path, float] = {}
        self._holders: dict[Path, int] = {}
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def hold(self, paths: Sequence[str | os.PathLike[str]], *, keep: float) -> Iterator[list[Path]]:
        """Hold uploaded files while a handler reads them, and keep them ``keep`` seconds after
        (at least). ``LbpeError`` when one is gone already."""
        files = [Path(p) for p in paths]
        with self._lock:
            for p in files:
                self._holders[p] = self._holders.get(p, 0) + 1
        try:
            for p in files:
                upload_size(p)  # says, for a person, that it is gone
            yield files
        finally:
            now = time.time()
            with self._lock:
                for p in files:
                    self._until[p] = max(self._until.get(p, 0.0), now + keep)
                    self._holders[p] -= 1
                    if not self._holders[p]:
                        del self._holders[p]

    def sweep(self, *, everything: bool = False) -> None:
        """Delete the uploads nobody holds whose time has passed (``everything``: every one
        nobody holds, as a server stops), and their folders when left empty."""
        now = time.time()
        with self._lock:
            for p, until in list(self._until.items()):
                if p in self._holders:
                    continue
                try:
                    arrived = p.stat().st_mtime
                except OSError:
                    del self._until[p]
                    continue
                if everything or (now > until and now - arrived > self.grace):
                    _remove(p)
                    del self._until[p]


def _remove(path: Path) -> None:
    """Delete a file and its folder when that is left empty."""
    for remove in (path.unlink, path.parent.rmdir):
        try:
            remove()
        except OSError:
            pass
