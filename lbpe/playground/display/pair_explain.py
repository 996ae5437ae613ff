"""Any two methods' own steps drawn (:class:`lbpe.analysis.pair_steps.PairExplanation`):
:func:`pair_text`, the plain text of ``lbpe explain --methods``, and :func:`pair_html`, one HTML
frame per step for the app and the page: each pre-token shows the left and the right method
side by side, each under a heading naming it, with its first ``k`` steps, then its tokens."""

from __future__ import annotations

import html

from lbpe.analysis.pair_steps import MethodTrace, PairExplanation
from lbpe.analysis.trace import barred, quoted
from lbpe.playground.display.format import METHOD_NAMES, marked_html

__all__ = ["pair_names", "pair_text", "pair_html"]


def pair_names(ex: PairExplanation) -> tuple[str, str]:
    """The headings of the two sides: each method's name, BPE-dropout's with its rate and seed."""

    def name(method: str) -> str:
        if method != "dropout":
            return METHOD_NAMES.get(method, method)
        seed = "fresh draws" if ex.seed is None else f"seed {ex.seed}"
        return f"{METHOD_NAMES['dropout']} {ex.dropout:g}, {seed}"

    return name(ex.methods[0]), name(ex.methods[1])


def _count(n: int, unit: str) -> str:
    return f"{n:,} {unit}{'' if n == 1 else 's'}"


def _where(ex: PairExplanation) -> str:
    if ex.start is None:
        return "on its own"
    return f"at characters {ex.start:,}-{ex.end:,} of the text, encoded as there"


def pair_text(ex: PairExplanation) -> str:
    """The explanation as plain text: per piece, each method's heading, steps, tokens and ids."""
    names = pair_names(ex)
    lines = [
        f"{ex.vocabulary}: {ex.unit}-level units; {names[0]} (left) and {names[1]} (right), each with its own steps.",
        f"{quoted(ex.text)} {_where(ex)}: "
        + "; ".join(f"{n} {_count(len(ex.ids(k)), 'token')}" for k, n in enumerate(names))
        + ".",
    ]
    for n, p in enumerate(ex.pieces, 1):
        lines.append("")
        if p.special:
            lines.append(
                f"piece {n}: {quoted(p.piece)} is a special or added token, matched whole: id {p.sides[0].ids[0]}"
            )
            continue
        same = "differs" if p.differs else "same in both"
        lines.append(f"piece {n}: {quoted(p.piece)} ({_count(len(p.units), ex.unit)}, {same})")
        if p.before or p.after:
            lines.append(f"  part of the pre-token {quoted(p.before + '[' + p.piece + ']' + p.after)}")
        lines.append(f"  units: {barred(p.units)}")
        for name, side in zip(names, p.sides):
            lines.append(f"  {name}:")
            lines += [f"    {k:>3}. {step}" for k, step in enumerate(side.steps, 1)]
            lines.append(f"    tokens: {barred(side.tokens)}   ids {side.ids}")
    return "\n".join(lines)


def _side(name: str, role: str, side: MethodTrace, k: int) -> str:
    shown = min(k, len(side.steps))
    items = "".join(
        f"<li{' class=lbpe-x-new' if n == k - 1 else ''}>{html.escape(step)}</li>"
        for n, step in enumerate(side.steps[:shown])
    )
    steps = f'<ol class="lbpe-x-steps">{items}</ol>' if items else ""
    if k >= len(side.steps):
        boxes = "".join(f'<span class="lbpe-x-part">{marked_html(t)}</span>' for t in side.tokens)
        ids = " ".join(map(str, side.ids))
        result = (
            f'<div class="lbpe-x-boxes lbpe-x-tokens" data-ids="{ids}">{boxes}</div>'
            f'<div class="lbpe-x-caption">{_count(len(side.ids), "token")}: {html.escape(ids)}</div>'
        )
    else:
        result = f'<div class="lbpe-x-caption">Step {shown} of {len(side.steps)}.</div>'
    return (
        f'<div class="lbpe-x-side" data-side="{role}" data-method="{html.escape(side.method)}">'
        f'<div class="lbpe-x-label lbpe-x-method">{html.escape(name)}</div>{steps}{result}</div>'
    )


def pair_html(ex: PairExplanation, frame: int | None = None) -> str:
    """HTML of one frame (``0`` .. ``ex.frames - 1``; default: the last, every step done). In
    frame ``k`` each side of each piece lists its first ``k`` steps (the last one just taken
    highlighted); a side whose steps are all shown ends with its tokens and ids."""
    last = ex.frames - 1
    k = last if frame is None else min(max(int(frame), 0), last)
    names = pair_names(ex)
    rows = []
    for n, p in enumerate(ex.pieces, 1):
        if p.special:
            rows.append(
                f'<div class="lbpe-x-piece"><div class="lbpe-x-title">{marked_html(p.piece)}: '
                f"a special or added token, "
                f"id {p.sides[0].ids[0]}</div></div>"
            )
            continue
        title = marked_html(p.piece)
        if p.before or p.after:
            title = (
                f'<span class="lbpe-x-ctx" title="the rest of the pre-token">{marked_html(p.before)}</span>{title}'
                f'<span class="lbpe-x-ctx" title="the rest of the pre-token">{marked_html(p.after)}</span>'
            )
        state = "differs" if p.differs else "same in both"
        cls = "lbpe-x-piece lbpe-x-differs" if p.differs else "lbpe-x-piece"
        sides = "".join(_side(name, role, side, k) for name, role, side in zip(names, ("left", "right"), p.sides))
        rows.append(
            f'<div class="{cls}" data-piece="{n}"><div class="lbpe-x-title">{title} '
            f'<span class="lbpe-x-note">{_count(len(p.units), ex.unit)} · {state}</span></div>'
            f'<div class="lbpe-x-sides">{sides}</div></div>'
        )
    counts = ", ".join(f"{html.escape(name)} {_count(len(ex.ids(s)), 'token')}" for s, name in enumerate(names))
    head = (
        f'<div class="lbpe-x-head">Step {k} of {last} · {marked_html(ex.text)} {_where(ex)}, with '
        f"{html.escape(ex.vocabulary)}: {counts}</div>"
    )
    return (
        f'<div class="lbpe-explain lbpe-explain-pair" data-frame="{k}" data-frames="{ex.frames}" '
        f'data-methods="{",".join(ex.methods)}">{head}{"".join(rows)}</div>'
    )
