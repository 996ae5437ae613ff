"""An explanation drawn: :func:`explain_text`, the plain text of ``lbpe explain``, and
:func:`explain_html`, one HTML frame per step for the app and the page (classes ``lbpe-x-*`` of
``display.css``). The traces themselves are :mod:`lbpe.analysis.explain`'s."""

from __future__ import annotations

import html

from lbpe.analysis.trace import Explanation, PieceTrace, barred, quoted
from lbpe.playground.display.format import marked_html

__all__ = ["explain_text", "explain_html"]


def _count(n: int, unit: str) -> str:
    return f"{n:,} {unit}{'' if n == 1 else 's'}"


def explain_text(ex: Explanation) -> str:
    """The explanation as plain text (``lbpe explain``)."""
    rule = "the rank of the merged token" if ex.priority == "rank" else "the pair's position in the merge list"
    lines = [
        f"{ex.vocabulary}: {ex.unit}-level units; BPE merges by {rule} (lower first); "
        f"LBPE windows from m = {ex.max_len} units down to 1.",
        f"{quoted(ex.text)} {_where(ex)}: "
        f"BPE {_count(len(ex.bpe_ids), 'token')}; LBPE {_count(len(ex.lbpe_ids), 'token')}.",
    ]
    for n, p in enumerate(ex.pieces, 1):
        lines.append("")
        if p.special:
            lines.append(f"piece {n}: {quoted(p.piece)} is a special or added token, matched whole: id {p.bpe_ids[0]}")
            continue
        same = "same in both" if not p.differs else "differs"
        lines.append(f"piece {n}: {quoted(p.piece)} ({_count(len(p.units), ex.unit)}, {same})")
        if p.before or p.after:
            lines.append(f"  part of the pre-token {quoted(p.before + '[' + p.piece + ']' + p.after)}")
        lines.append(f"  units: {barred(p.units)}")
        lines.append("  BPE:")
        if p.whole:
            lines.append("    the whole piece is a token: taken without merging")
        for s in p.bpe:
            lines.append(
                f"    {s.step:>3}. {quoted(s.left)} + {quoted(s.right)}  ({ex.priority} {s.priority:,})  "
                f"-> {barred(s.parts)}"
            )
        for token, parts in p.scaffold:
            lines.append(f"    scaffold token {quoted(token)} split back into {' + '.join(map(quoted, parts))}")
        lines.append(f"    tokens: {barred(p.bpe_tokens)}   ids {p.bpe_ids}")
        lines.append("  LBPE:")
        window = None
        for c in p.lbpe:
            if c.length != window:
                window = c.length
                lines.append(f"    window {window}:")
            what = "placed" if c.placed else f"blocked by {quoted(c.taken_by)}"
            lines.append(f"      {c.step:>3}. {quoted(c.token)} at unit {c.start}: {what}")
        lines.append(f"    tokens: {barred(p.lbpe_tokens)}   ids {p.lbpe_ids}")
        for line in p.why:
            lines.append(f"  why: {line}")
    return "\n".join(lines)


def _where(ex: Explanation) -> str:
    """Which text an explanation is of: a span where it stands in a text, or a text on its own."""
    if ex.start is None:
        return "on its own"
    return f"at characters {ex.start:,}-{ex.end:,} of the text, encoded as there"


def _bpe_frame(p: PieceTrace, k: int) -> tuple[str, str]:
    """(boxes, caption) of the BPE side of piece ``p`` after ``k`` steps."""
    shown = min(k, len(p.bpe))
    parts = list(p.bpe_tokens) if p.whole else list(p.bpe[shown - 1].parts) if shown else list(p.units)
    new_start = p.bpe[shown - 1].start if shown and shown == k else -1
    boxes, pos = [], 0
    for part in parts:
        cls = "lbpe-x-part lbpe-x-new" if pos == new_start else "lbpe-x-part"
        boxes.append(f'<span class="{cls}">{marked_html(part)}</span>')
        pos += _unit_len(p, pos, part)
    if p.whole:
        caption = "The whole piece is a token: taken without merging."
    elif shown and shown == k:
        s = p.bpe[shown - 1]
        caption = f"Step {s.step}: {quoted(s.left)} + {quoted(s.right)} ({s.priority:,}) → {quoted(s.token)}"
    elif k == 0:
        caption = "Units, before any merge."
    else:
        caption = "Done: no adjacent pair can merge."
    return "".join(boxes), caption


def _unit_len(p: PieceTrace, pos: int, part: str) -> int:
    """How many units ``part`` spans from unit ``pos`` (units may show as ``<E6>``)."""
    n, acc = 0, ""
    while pos + n < len(p.units) and acc != part:
        acc += p.units[pos + n]
        n += 1
    return max(n, 1)


def _lbpe_frame(p: PieceTrace, k: int) -> tuple[str, str]:
    shown = min(k, len(p.lbpe))
    owner: dict[int, tuple[int, int]] = {}
    for s in p.lbpe[:shown]:
        if s.placed:
            owner[s.start] = (s.length, s.step)
    current = p.lbpe[shown - 1] if shown and shown == k else None
    boxes, i = [], 0
    n = len(p.units)
    while i < n:
        if i in owner:
            length, step = owner[i]
            cls = (
                "lbpe-x-part lbpe-x-new"
                if current is not None and current.placed and current.start == i
                else "lbpe-x-part"
            )
            boxes.append(f'<span class="{cls}">{marked_html("".join(p.units[i : i + length]))}</span>')
            i += length
        else:
            cls = "lbpe-x-free"
            if current is not None and not current.placed and current.start <= i < current.start + current.length:
                cls += " lbpe-x-blocked"
            boxes.append(f'<span class="{cls}">{marked_html(p.units[i])}</span>')
            i += 1
    if current is not None:
        if current.placed:
            caption = f"Window {current.length}: {quoted(current.token)} at unit {current.start} placed."
        else:
            caption = (
                f"Window {current.length}: {quoted(current.token)} at unit {current.start} is a token, "
                f"but {quoted(current.taken_by)} holds part of it."
            )
    elif k == 0:
        caption = "Units, nothing placed yet."
    else:
        caption = "Done: every unit is placed."
    return "".join(boxes), caption


def explain_html(ex: Explanation, frame: int | None = None) -> str:
    """HTML of one frame (``0`` .. ``ex.frames - 1``; default: the last, every step done).

    In frame ``k`` each piece shows BPE after its first ``k`` merges next to LBPE after its
    first ``k`` checks (a piece that finished earlier shows its result), the step just taken
    highlighted, then the tokens, ids and the reasons they differ."""
    last = ex.frames - 1
    k = last if frame is None else min(max(int(frame), 0), last)
    rows = []
    for n, p in enumerate(ex.pieces, 1):
        if p.special:
            rows.append(
                f'<div class="lbpe-x-piece"><div class="lbpe-x-title">{marked_html(p.piece)}: '
                f"a special or added token, "
                f"id {p.bpe_ids[0]}</div></div>"
            )
            continue
        bpe_boxes, bpe_caption = _bpe_frame(p, k)
        lbpe_boxes, lbpe_caption = _lbpe_frame(p, k)
        state = "differs" if p.differs else "same in both"
        cls = "lbpe-x-piece lbpe-x-differs" if p.differs else "lbpe-x-piece"
        done = k >= max(len(p.bpe), len(p.lbpe))
        result = ""
        if done:
            result = (
                f'<div class="lbpe-x-result"><b>BPE</b> {len(p.bpe_ids)} token{"s" if len(p.bpe_ids) != 1 else ""}: '
                f"{html.escape(' '.join(map(str, p.bpe_ids)))} · <b>LBPE</b> {len(p.lbpe_ids)} "
                f"token{'s' if len(p.lbpe_ids) != 1 else ''}: {html.escape(' '.join(map(str, p.lbpe_ids)))}</div>"
            )
            if p.why:
                result += '<ul class="lbpe-x-why">' + "".join(f"<li>{html.escape(w)}</li>" for w in p.why) + "</ul>"
        title = marked_html(p.piece)
        if p.before or p.after:
            title = (
                f'<span class="lbpe-x-ctx" title="the rest of the pre-token">{marked_html(p.before)}</span>{title}'
                f'<span class="lbpe-x-ctx" title="the rest of the pre-token">{marked_html(p.after)}</span>'
            )
        rows.append(
            f'<div class="{cls}" data-piece="{n}"><div class="lbpe-x-title">{title} '
            f'<span class="lbpe-x-note">{_count(len(p.units), ex.unit)} · {state}</span></div>'
            '<div class="lbpe-x-sides">'
            f'<div class="lbpe-x-side"><div class="lbpe-x-label">BPE · merges by {ex.priority}</div>'
            f'<div class="lbpe-x-boxes">{bpe_boxes}</div>'
            f'<div class="lbpe-x-caption">{html.escape(bpe_caption)}</div></div>'
            f'<div class="lbpe-x-side"><div class="lbpe-x-label">LBPE · longest first</div>'
            f'<div class="lbpe-x-boxes">{lbpe_boxes}</div>'
            f'<div class="lbpe-x-caption">{html.escape(lbpe_caption)}</div></div>'
            f"</div>{result}</div>"
        )
    head = (
        f'<div class="lbpe-x-head">Step {k} of {last} · {marked_html(ex.text)} {_where(ex)}, '
        f"with {html.escape(ex.vocabulary)}: "
        f"BPE {_count(len(ex.bpe_ids), 'token')}, LBPE {_count(len(ex.lbpe_ids), 'token')}</div>"
    )
    return f'<div class="lbpe-explain" data-frame="{k}" data-frames="{ex.frames}">{head}{"".join(rows)}</div>'
