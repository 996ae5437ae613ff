"""What every front end does the same way with what a person hands it (the Gradio app, the
browser page, the CLI): opening an uploaded vocabulary under one set of limits, with one kind
of error, and the Compare view's result in one JSON schema.

:func:`compare_view` is everything the Compare view shows for a text (both panes, metrics,
differences, both charts, ids, every statistic); the app hands its parts to Gradio's
components and the page hands the whole to its worker's caller. :func:`corpus_view` is the Corpus
view's: exact statistics of a whole file, in the schema of :func:`lbpe.stats.compare_json`.

:func:`open_upload` takes the files a person chose (one vocabulary file, or GPT-2's
``encoder.json`` and ``vocab.bpe`` together), checks each against the ``vocab_bytes`` limit,
copies them into a private folder under their own names and opens them with
:func:`open_vocabulary`. That one reads them with :func:`lbpe.load` as data only (nothing in an
upload is executed), under a :class:`lbpe.limits.Limits` snapshot when given, and turns every
failure into an :class:`~lbpe.errors.LbpeError` whose message names the file as the person
chose it, never the folder it was written to. A rank file whose name does not tell its
pre-tokenizer raises :class:`~lbpe.errors.PatternNeededError`, so a front end can ask for one.

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

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from lbpe import display
from lbpe import limits as _limits
from lbpe.corpus import align_chunks, iter_chunks
from lbpe.errors import LbpeError, PatternNeededError
from lbpe.limits import Limits
from lbpe.load import detect_format, load
from lbpe.stats import compare_json, corpus_stats
from lbpe.tokenizer import MODES, Tokenizer

__all__ = ["open_vocabulary", "open_upload", "compare_view", "corpus_view", "AUTO_PATTERN", "GPT2_PAIR"]

#: Bytes per chunk in the Corpus view (progress is reported after each).
CORPUS_CHUNK_BYTES = 1 << 16

#: The pattern choice that means "from the file" (what the app's and the page's menus offer first).
AUTO_PATTERN = "auto"
#: The two files GPT-2's vocabulary comes in, chosen together.
GPT2_PAIR = ("encoder.json", "vocab.bpe")


def _scrub(message: str, scratch: Path | None) -> str:
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
        raise PatternNeededError(_scrub(exc.source, folder), exc.problem) from None
    except LbpeError as exc:
        raise LbpeError(_scrub(str(exc), folder)) from None
    except RecursionError:
        raise LbpeError(f"{shown or target.name}: nested too deeply to be a vocabulary") from None
    except (ValueError, KeyError, IndexError, TypeError, MemoryError, OverflowError) as exc:
        message = f"{shown or target.name}: not a vocabulary lbpe can read ({type(exc).__name__}: {exc})"
        raise LbpeError(_scrub(message, folder)) from None
    if folder is not None and tok.name == folder.name:  # named after the scratch folder
        tok.name = shown or target.name
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
    with _limits.using(limits), tempfile.TemporaryDirectory(prefix="lbpe-vocab-") as tmp:
        folder = Path(tmp)
        for p in files:
            try:
                size = p.stat().st_size
            except OSError:
                raise LbpeError(f"{p.name}: the upload is gone; please upload it again") from None
            _limits.check("vocab_bytes", size, p.name)
            shutil.copyfile(p, folder / p.name)
        target = folder if len(files) == 2 else folder / files[0].name
        shown = " + ".join(GPT2_PAIR) if len(files) == 2 else files[0].name
        return open_vocabulary(target, pattern=pattern, limits=limits, scratch=folder, shown=shown)


def compare_view(
    tok: Tokenizer,
    text: str,
    *,
    show_whitespace: bool = True,
    show_ids: bool = False,
    specials: bool = False,
    lengths_chart: dict | None = None,
    frequency_chart: dict | None = None,
) -> dict:
    """The Compare view of ``text`` with ``tok``: one JSON-able dict, the schema both UIs use.

    * ``"panes"``: ``{"bpe": HTML, "lbpe": HTML}`` (:func:`lbpe.display.render_pane`);
    * ``"metrics"``, ``"differences"``: HTML (:func:`~lbpe.display.metrics_html`,
      :func:`~lbpe.display.differences_html`);
    * ``"figure"``, ``"frequency_figure"``: Plotly figures (token lengths, how often a token of
      each length occurs), made with the options in ``lengths_chart`` / ``frequency_chart``
      (``title``, ``height``);
    * ``"summary"``: :meth:`lbpe.display.Comparison.to_json` (counts, ids, differing spans);
    * ``"length_shift"``: the token-length shift; ``"stats"``: every metric
      (:func:`lbpe.stats.compare_json` of the text);
    * ``"differ"``: the differing character ranges (for a click on a token, not JSON'd by the
      callers that return JSON).
    """
    comparison = display.compare(tok, text, specials=bool(specials))
    stats = display.comparison_stats(tok, comparison)
    summary = display.comparison_summary(tok, comparison, stats=stats)
    shift = display.shift_from_stats(stats["bpe"], stats["lbpe"], unit=comparison.unit)
    return {
        "panes": {
            mode: display.render_pane(comparison, mode, show_whitespace=show_whitespace, show_ids=show_ids)
            for mode in MODES
        },
        "metrics": display.metrics_html(comparison, summary),
        "differences": display.differences_html(comparison),
        "figure": display.plotly_spec(shift, **(lengths_chart or {})),
        "frequency_figure": display.frequency_spec(summary, **(frequency_chart or {})),
        "summary": comparison.to_json(),
        "length_shift": shift.to_json(),
        "stats": summary,
        "differ": comparison.differ,
    }


def corpus_view(
    tok: Tokenizer,
    data: bytes,
    name: str,
    *,
    progress: Callable[[float], None] | None = None,
    lengths_chart: dict | None = None,
    frequency_chart: dict | None = None,
) -> dict:
    """Statistics of a whole text file (``data``, the bytes of the file called ``name``) for
    BPE and LBPE, counted in chunks cut where the totals stay exact.

    ``progress(fraction)`` is called after each chunk (it may raise to stop the work). Returns
    ``{"summary": compare_json(...) + {"file": name}, "rows": lbpe.display.stats_rows,
    "csv": lbpe.display.stats_csv, "tokens": {mode: count}, "figure", "frequency_figure"}``.
    A file that is not UTF-8 text raises ``LbpeError`` (naming the byte and its offset) before
    any work.
    """
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LbpeError(
            f"{name} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "convert it to UTF-8 first (e.g. iconv -t UTF-8)."
        ) from None
    step = CORPUS_CHUNK_BYTES
    blocks = (data[i : i + step] for i in range(0, len(data), step))
    chunks = align_chunks(tok, iter_chunks(blocks, size=step, source=name))
    if progress is not None:
        progress(0.0)
    total = max(len(data), 1)  # progress counts UTF-8 bytes, as the statistics do
    stats = corpus_stats(tok, chunks, progress=(lambda done: progress(done / total)) if progress else None)
    summary = compare_json(stats, vocab=tok.name, unit=tok.vocab.unit, tok=tok)
    summary["file"] = name
    shift = display.shift_from_stats(stats["bpe"], stats["lbpe"], unit=tok.vocab.unit)
    return {
        "summary": summary,
        "rows": display.stats_rows(summary),
        "csv": display.stats_csv(summary),
        "tokens": {mode: stats[mode].tokens for mode in MODES},
        "figure": display.plotly_spec(shift, **(lengths_chart or {})),
        "frequency_figure": display.frequency_spec(summary, **(frequency_chart or {})),
    }
