"""Text and HTML the workbench shows: figures formatted, the symbol-count grid, errors.

Pure functions of mathkit objects returning strings, so they are tested
without widgets; :func:`sync_figure` copies a plotly figure into a
``go.FigureWidget`` in place.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..errors import GameError, MathkitError
from ..model.game import Game
from ..report.par import RoundSheet
from ..report.text import one_in
from . import readings

__all__ = [
    "breakdown_html",
    "count_grid_html",
    "delta_text",
    "error_html",
    "exact_text",
    "feature_text",
    "fraction_html",
    "hit_text",
    "pct",
    "positions_text",
    "rtp_text",
    "sd_text",
    "sync_figure",
    "table_html",
    "unavailable_html",
    "unavailable_text",
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


#: a fraction longer than this (numerator and denominator digits) reads as a decimal, the fraction one click away
LONG_FRACTION = 40
#: a breakdown's fraction longer than this is one click away (the percentage beside it is the value)
SHORT_FRACTION = 12
#: decimals shown of a long exact value
DECIMALS = 20


def _decimal(x: Fraction, digits: int = DECIMALS) -> str:
    """``x`` truncated to ``digits`` decimals, with an ellipsis (the value is exact, the decimals are not all)."""
    scaled = abs(x.numerator) * 10**digits // x.denominator
    whole, frac = divmod(scaled, 10**digits)
    return f"{'-' if x < 0 else ''}{whole}.{frac:0{digits}d}…"


def fraction_html(x: Fraction, *, prefix: str = "") -> str:
    """An exact value: the fraction when short, else its decimals with the fraction one click away (``<details>``).

    Examples
    --------
    >>> fraction_html(Fraction(3, 4))
    '3/4'
    >>> fraction_html(Fraction(1, 3**90)).startswith("<details class='mk-fraction'><summary>0.00000000000000000000…")
    True
    """
    text = f"{x.numerator}/{x.denominator}"
    if len(text) <= LONG_FRACTION:
        return f"{prefix}{text}"
    digits = len(str(abs(x.numerator))) + len(str(x.denominator))
    return (f"<details class='mk-fraction'><summary>{prefix}{_decimal(x)} <small style='color:#888'>({digits} digits: "
            f"click for the fraction)</small></summary><code style='word-break:break-all;white-space:normal;"
            f"font-size:11px'>{text}</code></details>")


def exact_text(rtp: Fraction | float, method: str | None = None, error: float = 0.0) -> str:
    """The RTP's exact value and provenance: a reduced fraction (a long one as decimals, the fraction a click away).

    A markov RTP says so: a float (a chain solved in floating point), or a fraction whose part settled by a
    bound (a cap's effect) is known within ``error``, shown with the decimals that are certain.

    Examples
    --------
    >>> exact_text(Fraction(30, 40)), exact_text(0.75)
    ('exact 3/4', 'markov: a feature is solved in floating point, so the RTP is not an exact fraction')
    >>> exact_text(Fraction(1, 3), "markov", 1e-12)
    'markov 0.333333333333… (certain to 12 decimals: a bounded part, within 1e-12, is not computed exactly)'
    """
    if not isinstance(rtp, Fraction):
        return "markov: a feature is solved in floating point, so the RTP is not an exact fraction"
    if method in (None, "exact") and not error:
        return fraction_html(rtp, prefix="exact ")
    keep = max(0, min(DECIMALS, int(-math.log10(error)))) if error > 0 else DECIMALS
    shown = _decimal(rtp, keep)
    why = f"certain to {keep} decimals: a bounded part, within {error:.2g}, is not computed exactly"
    text = f"{rtp.numerator}/{rtp.denominator}"
    if len(text) <= LONG_FRACTION:
        return f"markov {shown} ({why})"
    return (f"<details class='mk-fraction'><summary>markov {shown} <small style='color:#888'>({why}; click for the "
            f"exact fraction without it)</small></summary><code style='word-break:break-all;white-space:normal;"
            f"font-size:11px'>{text}</code></details>")


def breakdown_html(breakdown: Mapping[str, Fraction | float], methods: Mapping[str, str] | None = None) -> str:
    """The RTP breakdown as an HTML table: component, percent, provenance (the exact fraction when short).

    A component's name never wraps; a fraction longer than :data:`SHORT_FRACTION` is a click away;
    a component whose provenance (``methods``) is not exact says so, whatever its value's type.
    """
    def how(k: str, v: Fraction | float) -> str:
        if not isinstance(v, Fraction) or (methods or {}).get(k, "exact") != "exact":
            return "markov"
        text = f"{v.numerator}/{v.denominator}"
        if len(text) <= SHORT_FRACTION:
            return f"exact {text}"
        return (f"<details class='mk-fraction'><summary>exact</summary><code style='word-break:break-all;"
                f"white-space:normal;font-size:11px'>{text}</code></details>")
    rows = "".join(f"<tr><td style='white-space:nowrap'>{html.escape(k)}</td>"
                   f"<td style='text-align:right;white-space:nowrap'>{pct(v)}</td>"
                   f"<td style='color:#666;font-size:85%;max-width:16em;overflow-wrap:anywhere'>{how(k, v)}</td></tr>"
                   for k, v in breakdown.items())
    return f"<table class='mk-breakdown-table'>{rows}</table>"


def feature_text(freq: Fraction | None) -> str:
    """Free-spin trigger frequency per base spin."""
    if freq is None:
        return "feature frequency: no free spins"
    return f"feature frequency {pct(freq)} ({one_in(freq)})"


def sd_text(sd: float, method: str | None = None) -> str:
    """The σ label (per total bet of a whole play), with its provenance.

    Examples
    --------
    >>> sd_text(2.5, "exact"), sd_text(2.5)
    ('σ 2.5000 × bet [exact]', 'σ 2.5000 × bet')
    """
    return f"σ {sd:.4f} × bet" + (f" [{method}]" if method else "")


def _pct_fmt(x: float) -> str:
    return f"{x * 100:.4f}%"


def hit_text(par: RoundSheet) -> str:
    """The hit frequency per whole play, 1 in N, its provenance and (sampled) 99% interval; or why it is missing."""
    r = readings.hit_frequency(par)
    if r is None:
        return f"hit frequency: not available — {readings.missing(par).get('distribution', '')}".rstrip(" —")
    shown = "interval" if r.interval else f"{pct(r.value)} ({one_in(r.value)})"
    return f"hit frequency {shown} {r.tag(_pct_fmt)}"


def vi_text(par: RoundSheet) -> str:
    """The volatility index at 90/95/99%, with its provenance; or why it is missing."""
    vi = readings.volatility_index(par)
    if not vi:
        return f"volatility index: not available — {readings.missing(par).get('sd', '')}".rstrip(" —")
    parts = " · ".join(f"{k} {f.value:.3f}" for k, f in vi.items())
    return f"volatility index {parts} [{next(iter(vi.values())).method}]"


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


def unavailable_text(step: str, exc: BaseException) -> str:
    """Why a slow figure could not be computed, in a designer's words (never an exception's type or a function name).

    Examples
    --------
    >>> from mathkit.errors import LimitError
    >>> unavailable_text("par", LimitError("needs 9 GB; raise MATHKIT_MAX_MEMORY or simulate"))
    'the hit frequency, distribution and win bands could not be computed: needs 9 GB; raise MATHKIT_MAX_MEMORY or simulate'
    >>> unavailable_text("sensitivity", KeyError("x"))
    '∂RTP could not be computed: an internal error in mathkit (please report it with the game file); the other figures are not affected'
    """
    what = {"sd": "σ", "par": "the hit frequency, distribution and win bands", "sensitivity": "∂RTP",
            "compare": "the comparison"}.get(step, step)
    if isinstance(exc, MathkitError):
        why = exc.message + (f" ({exc.fix})" if exc.fix else "")
    else:
        why = "an internal error in mathkit (please report it with the game file); the other figures are not affected"
    return f"{what} could not be computed: {why}"


def unavailable_html(step: str, exc: BaseException) -> str:
    """:func:`unavailable_text` in the workbench's muted warning style."""
    return f"<span class='mk-unavailable' style='color:#8a1c00'>⚠ {html.escape(unavailable_text(step, exc))}</span>"


def error_html(exc: GameError | Exception) -> str:
    """A validation error as HTML: the field, what is wrong, the fix."""
    if isinstance(exc, GameError):
        field = f"<b>{html.escape(exc.field)}</b>: " if exc.field else ""
        fix = f"<br><i>fix:</i> {html.escape(exc.fix)}" if exc.fix else ""
        text = f"{field}{html.escape(exc.message)}{fix}"
    elif isinstance(exc, MathkitError):
        text = html.escape(exc.message + (f" (fix: {exc.fix})" if exc.fix else ""))
    elif isinstance(exc, OSError):
        text = html.escape(str(exc))
    else:
        text = "an internal error in mathkit (please report it with the game file)"
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
