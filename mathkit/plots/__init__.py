"""Plotly figures of a game's maths: data in, ``go.Figure`` out, no widgets.

Every figure comes in two layers:

* a *data* function (``component_bars``, ``symbol_bars``, ``distribution_points``,
  ``symbol_count_matrix``, ``rtp_range_bands``, ``survival_points``, ``final_points``) that turns mathkit objects into plain
  lists; the workbench uses these to update its ``go.FigureWidget`` traces in place;
* a *figure* function (``rtp_by_component``, ``rtp_by_symbol``, ``win_distribution``, ``exceedance_band``,
  ``symbol_heatmap``, ``rtp_range``, ``sensitivity_heatmap``, ``state_diagram``,
  ``survival_curve``, ``final_bankroll``)
  that builds a styled ``go.Figure`` from the same data, for notebooks and reports.

The figure functions' names and signatures are stable: reviewer notebooks and
``make render`` use them.  Inputs are duck-typed (a :class:`~mathkit.report.par.ParSheet`,
a :class:`~mathkit.exact.components.ComponentRTP` or a plain mapping), so this module imports
neither the numeric engine nor ipywidgets.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

# plotly's widget and renderers import nbformat, hence jsonschema, which builds ~40 lark grammars at import
# when the optional rfc3987-syntax (a jupyter-events dependency) is installed: 2–13 s of a kernel's start
# (measured: go.FigureWidget 7.5 s → 1.8 s on a loaded 2-core machine) for an IRI format mathkit never
# validates.  Marking it absent before plotly is imported lets jsonschema skip that format.
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

import numpy as np  # noqa: E402
import plotly.graph_objects as go  # noqa: E402
import plotly.io as pio  # noqa: E402

from ..errors import UsageError  # noqa: E402
from ..laws.volatility import exceedance_points  # noqa: E402

if TYPE_CHECKING:
    from ..chains.markov.session import SessionLaw
    from ..exact.components import ComponentRTP
    from ..laws.law import WinLaw
    from ..model.game import Game
    from ..report.par import ParSheet

__all__ = [
    "COMPONENT_COLOURS",
    "PALETTE",
    "TEMPLATE",
    "component_bars",
    "component_colour",
    "distribution_points",
    "exceedance_band",
    "final_bankroll",
    "final_points",
    "rtp_by_component",
    "rtp_by_symbol",
    "rtp_range",
    "rtp_range_bands",
    "sensitivity_heatmap",
    "state_diagram",
    "survival_curve",
    "survival_points",
    "symbol_bars",
    "symbol_count_matrix",
    "symbol_heatmap",
    "win_distribution",
]

#: the one colour scheme of the workbench and the reports (plotly's D3 order, so older pictures still match)
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
#: a component keeps its colour in every figure (lines/ways blue, scatter orange, free spins green …)
COMPONENT_COLOURS = {"lines": PALETTE[0], "ways": PALETTE[0], "scatter": PALETTE[1], "free spins": PALETTE[2],
                     "gamble": PALETTE[4], "cap": PALETTE[7]}
TEMPLATE = "mathkit"
pio.templates[TEMPLATE] = go.layout.Template(pio.templates["plotly_white"], layout={"colorway": PALETTE})
#: components the base-game pay rules produce; anything else in a PAR sheet is a feature
BASE_COMPONENTS = ("lines", "ways", "scatter")
#: numbers of spins for the RTP range figure (10² … 10⁸)
RANGE_N = tuple(round(10 ** (k / 8)) for k in range(16, 65))
_BAND_COLOURS = {"90%": "rgba(31,119,180,0.35)", "95%": "rgba(31,119,180,0.22)", "99%": "rgba(31,119,180,0.12)"}


def _layout(fig: go.Figure, title: str, **kw: Any) -> go.Figure:
    fig.update_layout(template=TEMPLATE, title={"text": title, "x": 0.02}, margin={"l": 60, "r": 20, "t": 50, "b": 50},
                      height=kw.pop("height", 360), **kw)
    return fig


def component_colour(name: str, i: int = 0) -> str:
    """The colour of an RTP component: fixed for the known ones, else the palette from its position ``i``.

    Examples
    --------
    >>> component_colour("scatter"), component_colour("respins", 5)
    ('#ff7f0e', '#8c564b')
    """
    return COMPONENT_COLOURS.get(name, PALETTE[(i + 3) % len(PALETTE)] if i < 3 else PALETTE[i % len(PALETTE)])


def _value(x: Any) -> float:
    """A float from a Fraction, a number or a PAR :class:`~mathkit.report.par.Figure`."""
    return float(x.value) if hasattr(x, "value") else float(x)


# --------------------------------------------------------------------------- RTP by component
def component_bars(source: ParSheet | ComponentRTP | Mapping[str, Any]) -> tuple[list[str], list[float]]:
    """Component names and their RTP (fractions of the bet) from a PAR sheet, a ``ComponentRTP`` or a mapping.

    Examples
    --------
    >>> component_bars({"lines": Fraction(9, 10), "scatter": Fraction(1, 20)})
    (['lines', 'scatter'], [0.9, 0.05])
    """
    if isinstance(source, Mapping):
        items = dict(source)
    elif hasattr(source, "breakdown"):
        items = dict(source.breakdown())
    else:
        items = dict(source.components)
    return list(items), [_value(v) for v in items.values()]


def rtp_by_component(par: ParSheet | ComponentRTP | Mapping[str, Any]) -> go.Figure:
    """Bar chart of the RTP contributed by each component (lines or ways, scatter, features).

    Parameters
    ----------
    par
        A :class:`~mathkit.report.par.ParSheet`, a :class:`~mathkit.exact.components.ComponentRTP`, or a
        mapping ``component -> RTP`` (Fractions, floats or PAR figures).

    Examples
    --------
    >>> fig = rtp_by_component({"lines": Fraction(9, 10), "scatter": Fraction(1, 20)})
    >>> fig.data[0].x, fig.data[0].y
    (('lines', 'scatter'), (0.9, 0.05))
    """
    names, values = component_bars(par)
    total = math.fsum(values)
    fig = go.Figure(go.Bar(x=names, y=values, text=[f"{v:.3%}" for v in values], textposition="auto",
                           marker_color=[component_colour(n, i) for i, n in enumerate(names)],
                           hovertemplate="%{x}: %{y:.4%}<extra></extra>"))
    return _layout(fig, f"RTP by component (total {total:.4%})", yaxis={"tickformat": ".1%", "title": "RTP"},
                   xaxis={"title": "component"})


# --------------------------------------------------------------------------- RTP by symbol
def symbol_bars(source: ParSheet | ComponentRTP) -> dict[str, tuple[list[str], list[float]]]:
    """RTP per pay entry (symbol or mixed group), one series per component.

    Entries of a PAR sheet or a ``ComponentRTP`` are summed over counts (3, 4, 5 of a
    kind).  Components of a PAR sheet that no entry explains (free spins, gamble …)
    are returned as a series of their own with one bar.

    Examples
    --------
    >>> from mathkit.exact.components import EntryHits, ComponentRTP
    >>> c = ComponentRTP(10, 1, (EntryHits("lines", "A", 3, 2, 5), EntryHits("lines", "A", 4, 1, 3),
    ...                          EntryHits("scatter", "S", 2, 1, 1)))
    >>> symbol_bars(c)
    {'lines': (['A'], [0.8]), 'scatter': (['S'], [0.1])}
    """
    out: dict[str, dict[str, float]] = {}
    src: Any = source
    if hasattr(src, "cycle") and hasattr(src, "breakdown"):  # ComponentRTP
        denom = src.cycle * src.total_bet
        for e in src.entries:
            series = out.setdefault(e.component, {})
            series[e.entry] = series.get(e.entry, 0.0) + e.credits / denom
        return {k: (list(v), list(v.values())) for k, v in out.items()}
    for row in src.entries:
        series = out.setdefault(row.component, {})
        series[row.entry] = series.get(row.entry, 0.0) + _value(row.rtp)
    result = {k: (list(v), list(v.values())) for k, v in out.items()}
    for name, fig in src.components.items():
        if name not in out:
            result[name] = ([name], [_value(fig)])
    return result


def rtp_by_symbol(par: ParSheet | ComponentRTP) -> go.Figure:
    """Stacked bars of the RTP each symbol (pay entry) returns, split by component.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.exact.components import component_rtp
    >>> fig = rtp_by_symbol(component_rtp(load_game("data/games/benchmark_5x3.toml")))
    >>> [t.name for t in fig.data]
    ['lines', 'scatter']
    """
    fig = go.Figure()
    for i, (name, (entries, values)) in enumerate(symbol_bars(par).items()):
        fig.add_trace(go.Bar(name=name, x=entries, y=values, marker_color=component_colour(name, i),
                             hovertemplate="%{x}: %{y:.4%}<extra>" + name + "</extra>"))
    return _layout(fig, "RTP by symbol", barmode="stack", yaxis={"tickformat": ".1%", "title": "RTP"},
                   xaxis={"title": "pay entry"}, legend={"orientation": "h", "y": 1.12, "x": 1, "xanchor": "right"})


# --------------------------------------------------------------------------- win distribution
def distribution_points(dist: WinLaw) -> tuple[list[float], list[float]]:
    """Wins in multiples of the total bet and their probabilities.

    Examples
    --------
    >>> from mathkit.laws.law import WinLaw
    >>> distribution_points(WinLaw.from_counts([0, 10, 30], [5, 3, 2], unit=10))
    ([0.0, 1.0, 3.0], [0.5, 0.3, 0.2])
    """
    x = (np.asarray(dist.values, dtype=np.float64) / float(dist.unit)).tolist()
    y = np.asarray(dist.probs, dtype=np.float64).tolist()
    return x, y


def win_distribution(dist: WinLaw, log: bool = True, max_points: int = 400) -> go.Figure:
    """The exceedance curve ``P(win ≥ x)`` against the win ``x`` × total bet, on log axes by default.

    A step function read from left to right: how often a play wins at least
    ``x`` times the bet, down to the rarest award (where a plot of point
    probabilities is a cloud of dots).  The zero win is given in the title.  At
    most ``max_points`` exact points are drawn (see
    :func:`mathkit.laws.volatility.exceedance_points`).

    Examples
    --------
    >>> from mathkit.laws.law import WinLaw
    >>> fig = win_distribution(WinLaw.from_counts([0, 10, 30], [5, 3, 2], unit=10))
    >>> fig.data[0].x, fig.data[0].y, fig.layout.yaxis.type
    ((1.0, 3.0), (0.5, 0.2), 'log')
    """
    x, y = exceedance_points(dist, max_points)
    p0 = float(1 - dist.hit_frequency()) if dist.exact else float(np.asarray(dist.probs)[dist.values == 0].sum())
    fig = go.Figure(go.Scatter(x=x, y=y, mode="lines+markers", line={"shape": "hv", "color": PALETTE[3], "width": 2},
                               marker={"size": 4, "color": PALETTE[3]},
                               hovertemplate="P(win ≥ %{x:.4g} × bet) = %{y:.4g}<extra></extra>"))
    return _layout(fig, f"P(win ≥ x × bet) (P(no win) = {p0:.4f})",
                   xaxis={"title": "win x × total bet", "type": "log" if log else "linear"},
                   yaxis={"title": "P(win ≥ x)", "type": "log" if log else "linear", "exponentformat": "power"})


def exceedance_band(x: Sequence[float], p: Sequence[float], low: Sequence[float] | None = None,
                    high: Sequence[float] | None = None, *, p_no_win: str = "", method: str = "exact",
                    log: bool = True) -> go.Figure:
    """The exceedance curve ``P(win ≥ x)`` with its 99% band where it is sampled: three traces, always.

    The traces are the band's upper edge (no line), its lower edge filled up to the upper one, and the
    curve (a step function, as :func:`win_distribution`); an exact curve has an empty band, so a figure
    updated in place keeps its traces whichever kind of sheet comes.  On a log axis a lower edge of 0
    (a sample that never reached ``x``) is drawn at a tenth of the smallest positive value shown: the
    band then reaches the bottom of the plot.

    Examples
    --------
    >>> fig = exceedance_band([1.0, 3.0], [0.5, 0.2], [0.49, 0.0], [0.51, 0.21], method="exact+sampled")
    >>> [len(t.x) for t in fig.data], fig.data[1].y[1] == 0.02
    ([2, 2, 2], True)
    """
    lo = list(low or [])
    hi = list(high or [])
    if log and lo:
        floor = min((v for v in (*p, *lo) if v > 0), default=1.0) / 10
        lo = [v if v > 0 else floor for v in lo]
    band_x = list(x) if lo else []
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=band_x, y=hi, mode="lines", line={"width": 0, "shape": "hv"}, showlegend=False,
                             hoverinfo="skip", name="99% upper"))
    fig.add_trace(go.Scatter(x=band_x, y=lo, mode="lines", line={"width": 0, "shape": "hv"}, fill="tonexty",
                             fillcolor="rgba(214,39,40,0.18)", showlegend=False, hoverinfo="skip", name="99% band"))
    fig.add_trace(go.Scatter(x=list(x), y=list(p), mode="lines+markers",
                             line={"shape": "hv", "color": PALETTE[3], "width": 2}, marker={"size": 4, "color": PALETTE[3]},
                             name=method, hovertemplate="P(win ≥ %{x:.4g} × bet) = %{y:.4g}<extra>" + method + "</extra>"))
    band = ", 99% band shaded" if lo else ""
    title = f"P(win ≥ x × bet) [{method}{band}]" + (f" (P(no win) = {p_no_win})" if p_no_win else "")
    return _layout(fig, title, xaxis={"title": "win x × total bet", "type": "log" if log else "linear"},
                   yaxis={"title": "P(win ≥ x)", "type": "log" if log else "linear", "exponentformat": "power"})


# --------------------------------------------------------------------------- symbol heatmap
def symbol_count_matrix(game: Game, reels: str | None = None) -> tuple[list[str], list[str], list[list[int]]]:
    """Symbols, reel labels and the (weighted) count of each symbol on each reel.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> syms, cols, z = symbol_count_matrix(load_game("data/games/benchmark_5x3.toml"))
    >>> cols, syms[0], z[0]
    (['reel 1', 'reel 2', 'reel 3', 'reel 4', 'reel 5'], 'WILD', [0, 3, 3, 3, 0])
    """
    rs = game.reel_set(reels)
    names = list(game.symbol_names)
    z = [[0] * rs.n_reels for _ in names]
    index = {n: i for i, n in enumerate(names)}
    for r, strip in enumerate(rs.strips):
        for sym, w in zip(strip, rs.stop_weights(r), strict=True):
            if sym in index:
                z[index[sym]][r] += w
    return names, [f"reel {r + 1}" for r in range(rs.n_reels)], z


def symbol_heatmap(game: Game, reels: str | None = None) -> go.Figure:
    """Heatmap of symbol counts per reel (weighted stops count their weight).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> fig = symbol_heatmap(load_game("data/games/benchmark_5x3.toml"))
    >>> list(fig.data[0].z[1])
    [1, 1, 1, 1, 1]
    """
    names, cols, z = symbol_count_matrix(game, reels)
    fig = go.Figure(go.Heatmap(z=z, x=cols, y=names, text=z, texttemplate="%{text}", colorscale="Blues",
                               hovertemplate="%{y} on %{x}: %{z}<extra></extra>", colorbar={"title": "stops"}))
    name = game.reel_set(reels).name
    return _layout(fig, f"Symbol counts per reel ({name})", yaxis={"autorange": "reversed"},
                   height=max(300, 60 + 24 * len(names)))


# --------------------------------------------------------------------------- RTP range
def rtp_range_bands(rtp: float, volatility_index: Mapping[str, Any],
                    n: Sequence[int] = RANGE_N) -> dict[str, tuple[list[float], list[float]]]:
    """Lower and upper RTP bound ``rtp ∓ VI / √N`` per confidence level, for each ``N`` in ``n``.

    Examples
    --------
    >>> rtp_range_bands(0.95, {"95%": 19.6}, n=[100, 10000])
    {'95%': ([-1.01, 0.754], [2.91, 1.146])}
    """
    out = {}
    for level, vi in volatility_index.items():
        v = _value(vi)
        out[level] = ([round(rtp - v / math.sqrt(k), 12) for k in n], [round(rtp + v / math.sqrt(k), 12) for k in n])
    return out


def rtp_range(par: ParSheet, n: Sequence[int] = RANGE_N) -> go.Figure:
    """The RTP a player sees after ``N`` spins: the exact RTP and its ± VI/√N bands, log ``N``.

    Parameters
    ----------
    par
        A PAR sheet (uses ``rtp`` and ``volatility_index``).
    n
        Numbers of spins on the x axis.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.report.par import build_par
    >>> fig = rtp_range(build_par(load_game("data/games/classic_3reel.toml")))
    >>> [t.name for t in fig.data]
    ['99% upper', '99%', '95% upper', '95%', '90% upper', '90%', 'RTP']
    """
    r = _value(par.rtp)
    bands = rtp_range_bands(r, par.volatility_index, n)
    xs = list(n)
    fig = go.Figure()
    for level in sorted(bands, key=lambda k: -float(k.rstrip("%"))):
        lo, hi = bands[level]
        colour = _BAND_COLOURS.get(level, "rgba(31,119,180,0.2)")
        fig.add_trace(go.Scatter(x=xs, y=hi, mode="lines", line={"width": 0}, name=f"{level} upper", showlegend=False,
                                 hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=xs, y=lo, mode="lines", line={"width": 0}, fill="tonexty", fillcolor=colour,
                                 name=level, hovertemplate=f"{level}: " + "%{y:.3%}<extra>N=%{x:,}</extra>"))
    fig.add_trace(go.Scatter(x=xs, y=[r] * len(xs), mode="lines", name="RTP", line={"color": "#1f77b4", "width": 2},
                             hovertemplate="RTP %{y:.4%}<extra></extra>"))
    return _layout(fig, "RTP range after N spins (RTP ± VI/√N)", xaxis={"type": "log", "title": "spins N"},
                   yaxis={"tickformat": ".0%", "title": "RTP observed", "range": [max(0.0, r - 0.5), r + 0.5]})


# --------------------------------------------------------------------------- sensitivity
def sensitivity_heatmap(rows: Sequence[str], cols: Sequence[str], values: Any,
                        title: str = "∂RTP / ∂(one more stop of the symbol on the reel)") -> go.Figure:
    """A diverging heatmap centred on zero, e.g. ∂RTP/∂(symbol on reel).

    Parameters
    ----------
    rows, cols
        Labels (symbols, reels).
    values
        ``values[i][j]`` for row ``i``, column ``j`` (nested lists, an array, Fractions allowed).

    Examples
    --------
    >>> fig = sensitivity_heatmap(["A", "B"], ["reel 1", "reel 2"], [[Fraction(1, 100), 0], [-0.02, 0.005]])
    >>> fig.data[0].z, fig.data[0].zmid
    (([0.01, 0.0], [-0.02, 0.005]), 0)
    """
    z = [[float(v) for v in row] for row in values]
    if len(z) != len(rows) or any(len(row) != len(cols) for row in z):
        msg = f"values has shape {len(z)}×{len(z[0]) if z else 0}; expected {len(rows)}×{len(cols)}"
        raise UsageError(msg)
    fig = go.Figure(go.Heatmap(z=z, x=list(cols), y=list(rows), colorscale="RdBu", zmid=0,
                               text=[[f"{v:+.3%}" for v in row] for row in z], texttemplate="%{text}",
                               hovertemplate="%{y}, %{x}: %{z:+.5%}<extra></extra>"))
    return _layout(fig, title, yaxis={"autorange": "reversed"}, height=max(300, 60 + 26 * len(rows)))


# --------------------------------------------------------------------------- state diagram
def _node_positions(n: int, layout: str) -> list[tuple[float, float]]:
    if layout == "line":
        return [(float(i), 0.0) for i in range(n)]
    if layout == "circle":
        return [(math.cos(math.pi / 2 - 2 * math.pi * i / n), math.sin(math.pi / 2 - 2 * math.pi * i / n))
                for i in range(n)]
    msg = f"unknown layout {layout!r}; use 'line' or 'circle'"
    raise UsageError(msg)


def _edge_label(p: Any) -> str:
    if isinstance(p, str):
        return p
    if isinstance(p, Fraction):
        return f"{p.numerator}/{p.denominator}" if p.denominator <= 999 else f"{float(p):.3g}"
    return f"{float(p):.3g}"


def state_diagram(labels: Sequence[str], edges: Sequence[tuple[int | str, int | str, Any]],
                  layout: str = "line", title: str = "Markov chain", absorbing: Sequence[int | str] = ()) -> go.Figure:
    """A Markov chain drawn as states and labelled transition arrows.

    Parameters
    ----------
    labels
        State names.
    edges
        ``(from, to, probability)`` with states given by index or label; the probability
        may be a number, a Fraction or any text (``"p"``).
    layout
        ``"line"`` (states left to right, natural for counts of remaining spins) or ``"circle"``.
    absorbing
        States drawn as absorbing (double ring, grey).

    Edges between different states are drawn as arcs bent to one side, so ``i → j``
    and ``j → i`` do not overlap; a self-loop is a small loop above its state.

    Examples
    --------
    >>> fig = state_diagram(["3 left", "2 left", "1 left", "end"],
    ...                     [(0, 1, Fraction(9, 10)), (0, 0, Fraction(1, 10)), (1, 2, 1), (2, 3, 1)], absorbing=["end"])
    >>> fig.data[-1].text
    ('3 left', '2 left', '1 left', 'end')
    >>> len(fig.layout.annotations)
    7
    """
    index = {name: i for i, name in enumerate(labels)}

    def idx(s: int | str) -> int:
        if isinstance(s, int):
            if not 0 <= s < len(labels):
                msg = f"state {s} out of range (0..{len(labels) - 1})"
                raise UsageError(msg)
            return s
        if s not in index:
            msg = f"unknown state {s!r}; states are {list(labels)}"
            raise UsageError(msg)
        return index[s]

    pos = _node_positions(len(labels), layout)
    absorbing_set = {idx(s) for s in absorbing}
    radius = 0.18 if layout == "line" else 0.14
    fig = go.Figure()
    annotations: list[dict[str, Any]] = []
    for a, b, p in edges:
        i, j = idx(a), idx(b)
        (x0, y0), (x1, y1) = pos[i], pos[j]
        text = _edge_label(p)
        if i == j:
            t = np.linspace(0, 2 * math.pi, 40)
            cx, cy, r = x0, y0 + radius * 1.9, radius * 0.9
            fig.add_trace(go.Scatter(x=(cx + r * np.sin(t)).tolist(), y=(cy - r * np.cos(t)).tolist(), mode="lines",
                                     line={"color": "#555", "width": 1.5}, hoverinfo="skip", showlegend=False))
            annotations.append({"x": cx, "y": cy + r, "text": text, "showarrow": False, "yshift": 10,
                                "font": {"size": 12}})
            continue
        dx, dy = x1 - x0, y1 - y0
        dist = math.hypot(dx, dy)
        nx, ny = -dy / dist, dx / dist  # left normal: i→j bends left, j→i bends the other way
        bend = 0.25 * dist if layout == "line" else 0.18 * dist
        cx, cy = (x0 + x1) / 2 + nx * bend, (y0 + y1) / 2 + ny * bend
        t = np.linspace(0.0, 1.0, 30)
        bx = (1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t**2 * x1
        by = (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t**2 * y1
        # keep the arc outside the two state circles
        keep = (np.hypot(bx - x0, by - y0) >= radius) & (np.hypot(bx - x1, by - y1) >= radius)
        bx, by = bx[keep], by[keep]
        fig.add_trace(go.Scatter(x=bx.tolist(), y=by.tolist(), mode="lines", line={"color": "#555", "width": 1.5},
                                 hoverinfo="skip", showlegend=False))
        annotations.append({"x": float(bx[-1]), "y": float(by[-1]), "ax": float(bx[-3]), "ay": float(by[-3]),
                            "xref": "x", "yref": "y", "axref": "x", "ayref": "y", "showarrow": True,
                            "arrowhead": 2, "arrowsize": 1.3, "arrowwidth": 1.5, "arrowcolor": "#555", "text": ""})
        mid = len(bx) // 2
        annotations.append({"x": float(bx[mid]), "y": float(by[mid]), "text": text, "showarrow": False,
                            "bgcolor": "rgba(255,255,255,0.85)", "font": {"size": 12}})
    xs, ys = [x for x, _ in pos], [y for _, y in pos]
    colours = ["#bbbbbb" if i in absorbing_set else "#aec7e8" for i in range(len(labels))]
    widths = [4 if i in absorbing_set else 1.5 for i in range(len(labels))]
    fig.add_trace(go.Scatter(x=xs, y=ys, mode="markers+text", text=list(labels), textposition="middle center",
                             marker={"size": [max(64 if layout == "line" else 56, 8 * len(t) + 12) for t in labels],
                                     "color": colours,
                                     "line": {"color": "#1f3b5c", "width": widths}},
                             hovertemplate="%{text}<extra></extra>", showlegend=False))
    pad = 0.6
    fig.update_layout(annotations=annotations)
    return _layout(fig, title, height=320 if layout == "line" else 480,
                   xaxis={"visible": False, "range": [min(xs) - pad, max(xs) + pad]},
                   yaxis={"visible": False, "range": [min(ys) - pad - 0.3, max(ys) + pad + 0.3],
                          "scaleanchor": "x" if layout == "circle" else None})


# --------------------------------------------------------------------------- player sessions
def survival_points(law: SessionLaw) -> tuple[list[int], list[float]]:
    """Spins ``n`` and P(still playing after ``n`` spins) of a session (:class:`~mathkit.chains.markov.session.SessionLaw`).

    Examples
    --------
    >>> from mathkit.chains.markov.session import solve_session
    >>> survival_points(solve_session([0, 2], [0.5, 0.5], bet=1, bankroll=1, spins=2))
    ([0, 1, 2], [1.0, 0.5, 0.5])
    """
    return list(range(len(law.survival))), np.asarray(law.survival, dtype=np.float64).tolist()


def survival_curve(laws: Sequence[SessionLaw]) -> go.Figure:
    """P(still playing after ``n`` spins) for each session (one line per bankroll)."""
    fig = go.Figure()
    for law in laws:
        x, y = survival_points(law)
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines", name=f"{law.bankroll / law.bet:,.6g}× bet",
                                 hovertemplate="after %{x} spins: %{y:.4f}<extra></extra>"))
    return _layout(fig, "Still playing after n spins (exact, Markov chain on the bankroll)",
                   xaxis={"title": "spins"}, yaxis={"title": "P(still playing)", "range": [0, 1.02]})


def final_points(law: SessionLaw, bins: int = 60) -> tuple[list[float], list[float], list[float]]:
    """The final bankroll's distribution in bins (× bet): left edges, widths and probabilities.

    The first bin is "bust" (below the bet); the last holds P(final ≥ ceiling).

    Examples
    --------
    >>> from mathkit.chains.markov.session import solve_session
    >>> law = solve_session([0, 2], [0.5, 0.5], bet=1, bankroll=1, spins=2)
    >>> x, w, p = final_points(law, bins=2)  # bust 0, ended with 1, ended with 3 = the ceiling
    >>> x, p
    ([0.0, 1.0, 2.0, 3.0], [0.5, 0.25, 0.0, 0.25])
    """
    b = float(law.bet)
    top = law.ceiling / b
    edges = np.linspace(1.0, top, bins + 1) if top > 1 else np.array([1.0, top])
    v = np.asarray(law.final_values, dtype=np.float64) / b
    p = np.asarray(law.final_probs, dtype=np.float64)
    inner = np.histogram(v[v >= 1.0], bins=edges, weights=p[v >= 1.0])[0]
    lefts = [0.0, *edges[:-1].tolist(), top]
    widths = [1.0, *np.diff(edges).tolist(), max(top * 0.05, 1.0)]
    probs = [float(p[v < 1.0].sum()), *inner.tolist(), float(law.above)]
    return lefts, widths, probs


def final_bankroll(law: SessionLaw, bins: int = 60) -> go.Figure:
    """The final bankroll's distribution (× bet, in bins): bust, value by value below the ceiling, and above it."""
    x, w, p = final_points(law, bins)
    colours = ["#d62728", *["#1f77b4"] * (len(p) - 2), "#2ca02c"]
    fig = go.Figure(go.Bar(x=[a + c / 2 for a, c in zip(x, w, strict=True)], y=p, width=w, marker={"color": colours},
                           hovertemplate="final %{x:.4g} × bet: p = %{y:.4g}<extra></extra>"))
    fig.add_vline(x=law.bankroll / law.bet, line={"dash": "dash", "color": "#555"})
    return _layout(fig, f"Final bankroll from {law.bankroll / law.bet:,.6g}× bet after up to {law.spins:,} spins "
                        f"(P(ahead) = {law.p_ahead:.4f})",
                   xaxis={"title": "final bankroll × bet (red: bust, green: at or above the ceiling)"},
                   yaxis={"title": "probability"})
