"""Text and HTML the workbench shows: figures formatted, the symbol-count grid, errors.

Pure functions of mathkit objects returning strings, so they are tested
without widgets; :func:`sync_figure` copies a plotly figure into a
``go.FigureWidget`` in place.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..errors import GameError
from ..model.game import Game
from ..report.par import ParSheet
from ..report.text import one_in

__all__ = [
    "breakdown_html",
    "count_grid_html",
    "delta_text",
    "error_html",
    "exact_text",
    "failure_html",
    "feature_text",
    "hit_text",
    "pct",
    "positions_text",
    "rtp_text",
    "sd_text",
    "sync_figure",
    "table_html",
    "vi_text",
]


def pct(x: Fraction | float, digits: int = 4) -> str:
    """A fraction as a percentage.

    Examples
    --------
    >>> pct(Fraction(1, 3), 6)
    '33.333333%'
    """
    return f"{float(x) * 100:.{digits}f}%"


def rtp_text(rtp: Fraction | float) -> str:
    """The RTP label: six decimals of a percent (the exact value is in :func:`exact_text`)."""
    return f"RTP {pct(rtp, 6)}"


def exact_text(rtp: Fraction | float) -> str:
    """The exact RTP as a reduced fraction (a figure that is not exact says so).

    Examples
    --------
    >>> exact_text(Fraction(30, 40)), exact_text(0.75)
    ('exact 3/4', 'not exact (needs the win distribution)')
    """
    if not isinstance(rtp, Fraction):
        return "not exact (needs the win distribution)"
    return f"exact {rtp.numerator}/{rtp.denominator}"


def breakdown_html(breakdown: Mapping[str, Fraction | float]) -> str:
    """The RTP breakdown as an HTML table: component, percent, exact fraction (when exact)."""
    rows = "".join(f"<tr><td>{html.escape(k)}</td><td style='text-align:right'>{pct(v)}</td>"
                   f"<td style='color:#666;font-size:85%'>"
                   f"{f'{v.numerator}/{v.denominator}' if isinstance(v, Fraction) else 'markov'}</td></tr>"
                   for k, v in breakdown.items())
    return f"<table class='mk-breakdown-table'>{rows}</table>"


def feature_text(freq: Fraction | None) -> str:
    """Free-spin trigger frequency per base spin."""
    if freq is None:
        return "feature frequency: no free spins"
    return f"feature frequency {pct(freq)} ({one_in(freq)})"


def sd_text(sd: float) -> str:
    """The σ label (per total bet of a whole play)."""
    return f"σ {sd:.4f} × bet"


def hit_text(par: ParSheet) -> str:
    return f"hit frequency {pct(par.hit_frequency.value)} ({one_in(par.hit_frequency.value)})"


def vi_text(par: ParSheet) -> str:
    parts = " · ".join(f"{k} {f.value:.3f}" for k, f in par.volatility_index.items())
    return f"volatility index {parts}"


def delta_text(what: str, now: float, before: float | None, *, percent: bool, against: str = "saved") -> str:
    """Change against the saved file (the version on disk), e.g. ``Δ RTP vs saved +0.1250 pp``.

    Examples
    --------
    >>> delta_text("RTP", 0.96, 0.95, percent=True)
    'Δ RTP vs saved +1.0000 pp'
    >>> delta_text("σ", 3.5, None, percent=False, against="not saved yet")
    'Δ σ: — (not saved yet)'
    """
    if before is None:
        return f"Δ {what}: — ({against})"
    d = now - before
    return f"Δ {what} vs {against} {d * 100:+.4f} pp" if percent else f"Δ {what} vs {against} {d:+.4f}"


def positions_text(positions: list[int]) -> str:
    """Stop indices with runs collapsed: ``[0, 1, 2, 7]`` → ``'0–2, 7'``.

    Examples
    --------
    >>> positions_text([0, 1, 2, 7, 9, 10])
    '0–2, 7, 9–10'
    """
    parts: list[str] = []
    start = prev = None
    for p in [*positions, None]:
        if p is not None and prev is not None and p == prev + 1:
            prev = p
            continue
        if start is not None and prev is not None:
            parts.append(str(start) if start == prev else f"{start}–{prev}")
        start = prev = p
    return ", ".join(parts)


def count_grid_html(game: Game, reels: str) -> str:
    """Symbol counts per reel as an HTML table; each cell also lists the stops the symbol sits on.

    Weighted stops count their weight; the positions are stop indices from 0.
    """
    rs = game.reel_set(reels)
    head = "".join(f"<th>reel {r + 1}<br><small>{len(s)} stops</small></th>" for r, s in enumerate(rs.strips))
    body = []
    for name in game.symbol_names:
        cells = []
        for r, strip in enumerate(rs.strips):
            weights = rs.stop_weights(r)
            where = [i for i, s in enumerate(strip) if s == name]
            count = sum(weights[i] for i in where)
            style = "color:#bbb" if count == 0 else ""
            cells.append(f"<td style='{style}'><b>{count}</b> <small style='color:#666'>{positions_text(where)}</small></td>")
        body.append(f"<tr><th style='text-align:left'>{html.escape(name)}</th>{''.join(cells)}</tr>")
    return f"<table class='mk-table mk-count-table'><tr><th></th>{head}</tr>{''.join(body)}</table>"


def table_html(head: tuple[str, ...], body: str, cls: str, caption: str = "") -> str:
    """An HTML table in the workbench's style: ``head`` cells, ``body`` rows (already HTML), a CSS class.

    Examples
    --------
    >>> table_html(("a", "b"), "<tr><td>1</td><td>2</td></tr>", "t")
    "<table class='mk-table t'><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"
    """
    cap = f"<caption style='caption-side:bottom;text-align:left;color:#666;font-size:85%'>{html.escape(caption)}</caption>" \
        if caption else ""
    heads = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    return f"<table class='mk-table {cls}'>{cap}<tr>{heads}</tr>{body}</table>"


def failure_html(exc: Exception) -> str:
    """A slow figure that could not be computed (the edit itself is valid and kept)."""
    notes = " ".join(getattr(exc, "__notes__", ()))
    return (f"<div style='color:#a00;background:#fff0f0;border:1px solid #e99;padding:4px 8px'>⚠ {html.escape(notes)}: "
            f"{html.escape(f'{type(exc).__name__}: {exc}')} — the RTP above is exact; σ and the distribution are not "
            f"shown for this game</div>")


def error_html(exc: GameError | Exception) -> str:
    """A validation error as HTML: the field, what is wrong, the fix."""
    if isinstance(exc, GameError):
        field = f"<b>{html.escape(exc.field)}</b>: " if exc.field else ""
        fix = f"<br><i>fix:</i> {html.escape(exc.fix)}" if exc.fix else ""
        text = f"{field}{html.escape(exc.message)}{fix}"
    else:
        text = html.escape(f"{type(exc).__name__}: {exc}")
    return (f"<div style='color:#a00;background:#fff0f0;border:1px solid #e99;padding:4px 8px'>"
            f"⚠ invalid edit, last valid game kept — {text}</div>")


def sync_figure(widget: Any, fig: Any) -> None:
    """Make ``widget`` (a ``go.FigureWidget``) show ``fig`` (a ``go.Figure``), in place where possible.

    Traces of the same number and types are updated inside ``batch_update`` (one
    message to the browser); otherwise the traces are replaced.
    """
    same = len(widget.data) == len(fig.data) and all(
        a.type == b.type for a, b in zip(widget.data, fig.data, strict=True))
    if not same:
        widget.data = ()
        widget.add_traces(list(fig.data))
    with widget.batch_update():
        if same:
            for old, new in zip(widget.data, fig.data, strict=True):
                old.update(new.to_plotly_json(), overwrite=True)
        layout = fig.layout.to_plotly_json()
        layout.pop("template", None)  # set once when the widget was made; resending it costs a large message
        widget.layout.update(layout)
