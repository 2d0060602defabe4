"""The workbench's figures: four panels of one ``go.FigureWidget`` (a :class:`LiveFigure`), updated in place.

One widget rather than four: plotly 7's ``FigureWidget`` ships plotly.js (≈5 MB)
with every instance and the browser evaluates it once per instance (≈3 s each in
headless chromium), so four figures would cost a designer seconds per page load.
The panels: RTP by component, RTP by symbol, the exceedance curve P(win ≥ x)
and the RTP range (the symbol counts are in the strip editor's table).

Updates are small messages: only changed traces, the exceedance curve thinned
to :data:`CURVE_POINTS` exact points.  The whole figure is sent once, when it is
displayed (:meth:`FigureSet.sync_state`); sending it again after every edit
(0.3–1 MB) kept the browser and the kernel busy for up to a second, during which
the next edit waited.  A page reloaded later starts from the figure as first
displayed and catches up with the next edit.

Each panel is drawn from the :mod:`mathkit.plots` figure of the same name (same
look as the reports) and placed on a subplot.  Later edits change only the trace
data and the panel title inside ``batch_update``, from the same data functions
(``plots.component_bars`` …): building a plotly figure costs 15–35 ms, an
in-place update about 1 ms.  When a panel's traces change shape (another game)
the whole figure is rebuilt.
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from types import SimpleNamespace
from typing import Any, cast

import ipywidgets as widgets
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .. import plots
from ..errors import UsageError
from ..model.game import Game
from ..report.par import RoundSheet, Z
from . import readings
from .livefigure import LiveFigure
from .model import Quick
from .readings import Reading

__all__ = ["FIGURES", "FigureSet", "Panel", "dashboard"]

#: panel -> (row, column) of the subplot grid
FIGURES: dict[str, tuple[int, int]] = {"components": (1, 1), "symbols": (1, 2), "distribution": (2, 1),
                                       "range": (2, 2)}
RANGE_TITLE = "RTP range after N spins (RTP ± VI/√N)"
#: points of the exceedance curve drawn (exact values, spread evenly on the log axis)
CURVE_POINTS = 200
_AXIS_KEYS = ("type", "tickformat", "title", "autorange", "range", "exponentformat")
#: panels with a legend, and the legend each uses (drawn right of the panel)
_LEGENDS = {"symbols": "legend"}
#: where the legends start (fraction of the width); the plots end just before
LEGEND_X = 0.9


def dashboard(panels: Mapping[str, go.Figure]) -> tuple[go.Figure, dict[str, list[int]]]:
    """The panels' figures as subplots of one figure; also each panel's trace indices.

    Examples
    --------
    >>> fig, index = dashboard({"components": plots.rtp_by_component({"lines": 0.9, "scatter": 0.05})})
    >>> index["components"], fig.layout.annotations[0].text
    ([0], 'RTP by component (total 95.0000%)')
    """
    names = list(FIGURES)
    titles = [str(panels[n].layout.title.text) if n in panels and panels[n].layout.title.text else n
              for n in names]
    fig = make_subplots(rows=2, cols=2, subplot_titles=titles, vertical_spacing=0.14, horizontal_spacing=0.1)
    for axis in fig.select_xaxes():  # room on the right for the legends, outside the plots
        if axis.domain[1] == 1:
            axis.domain = (axis.domain[0], LEGEND_X - 0.01)
    index: dict[str, list[int]] = {}
    for name in names:
        if name not in panels:
            index[name] = []
            continue
        row, col = FIGURES[name]
        src = panels[name]
        first = len(fig.data)
        for trace in src.data:
            copy = go.Figure(trace).data[0]  # the source figure keeps its own trace
            if name in _LEGENDS:
                copy.legend = _LEGENDS[name]
            elif isinstance(copy, go.Heatmap):
                copy.showscale = False
            else:
                copy.showlegend = False
            fig.add_trace(copy, row=row, col=col)
        index[name] = list(range(first, len(fig.data)))
        for axis, update in (("xaxis", fig.update_xaxes), ("yaxis", fig.update_yaxes)):
            props = src.layout[axis].to_plotly_json()
            update({k: v for k, v in props.items() if k in _AXIS_KEYS}, row=row, col=col)
        if name == "symbols":
            fig.update_layout(barmode="stack")
        if name in _LEGENDS and index[name]:
            y_axis = "yaxis" + str(fig.data[first].yaxis)[1:]
            fig.update_layout({_LEGENDS[name]: {"x": LEGEND_X, "y": fig.layout[y_axis].domain[1], "xanchor": "left",
                                                "yanchor": "top", "font": {"size": 11}}})
    fig.update_layout(template=plots.TEMPLATE, height=760, margin={"l": 60, "r": 20, "t": 40, "b": 40})
    for i, name in enumerate(names):  # titles on the left
        row, col = FIGURES[name]
        fig.layout.annotations[i].update(x=fig.get_subplot(row, col).xaxis.domain[0], xanchor="left")
    fig.update_annotations(font_size=14)
    return fig, index


def _range_source(par: RoundSheet) -> Any:
    """What :func:`mathkit.plots.rtp_range` reads (the RTP and the volatility index) from either kind of sheet."""
    vi = readings.volatility_index(par) or {k: Reading(0.0, "exact") for k in Z}
    return SimpleNamespace(rtp=par.rtp, volatility_index=vi)


def _curve_figure(par: RoundSheet) -> go.Figure:
    """The exceedance panel of a sheet: the curve, and its 99% band where part of it is sampled."""
    c = readings.exceedance(par, CURVE_POINTS)
    if c is None:
        return plots.exceedance_band([], [], method="not available")
    return plots.exceedance_band(c.x, c.p, c.low, c.high, p_no_win=_p_no_win(c), method=c.method)


def _p_no_win(c: readings.Curve) -> str:
    r = c.p_no_win
    return "interval" if r.interval else f"{r.value:.4f}"


def _waiting(rtp: float) -> dict[str, go.Figure]:
    """The distribution and range panels before the PAR sheet: their traces, empty (a rebuild of a figure a
    browser already shows breaks plotly's view, so every trace exists from the start)."""
    curve = plots.exceedance_band([], [])
    spread = plots.rtp_range(cast(Any, SimpleNamespace(rtp=rtp, volatility_index={k: 0.0 for k in Z})))
    for fig in (curve, spread):
        fig.layout.title.text = "… computing"
    return {"distribution": curve, "range": spread}


class Panel:
    """One panel's traces and title (a read-only view for tests and scripts)."""

    def __init__(self, widget: go.FigureWidget, indices: list[int], title: Any) -> None:
        self.data = tuple(widget.data[i] for i in indices)
        self.title = title


class FigureSet:
    """The workbench figure: RTP by component and by symbol, exceedance curve, RTP range."""

    def __init__(self, live: bool = True) -> None:
        self.live = live
        self.widget: Any = self._new_widget()
        # a report has no FigureWidget (it needs a kernel or a CDN): the notebook shows ``self.widget`` itself
        self.placeholder = None if live else widgets.HTML(
            "<i>The figures are drawn below the workbench (a static copy: no kernel here).</i>")
        self.sources: dict[str, go.Figure] = {}
        self.index: dict[str, list[int]] = {}
        self._symbol_series: tuple[str, ...] = ()

    def __getitem__(self, name: str) -> Panel:
        pos = list(FIGURES).index(name)
        title = self.widget.layout.annotations[pos].text if self.widget.layout.annotations else None
        return Panel(self.widget, self.index.get(name, []), title)

    def reset(self) -> None:
        """Another game: a new figure (a live one is a new widget; plotly's view of a figure it already shows
        breaks when all its traces are replaced, so the workbench puts the new widget in the old one's place)."""
        self.sources.clear()
        self._symbol_series = ()
        if self.live:
            self.widget.close()
        self.widget = self._new_widget()

    def _new_widget(self) -> Any:
        return LiveFigure(classes=("mk-figures",)) if self.live else go.Figure()

    def _rebuild(self, **changed: go.Figure) -> None:
        self.sources.update(changed)
        fig, self.index = dashboard(self.sources)
        with self.widget.batch_update():
            self.widget.data = ()
        self.widget.add_traces(list(fig.data))
        self.widget.layout = fig.layout

    def sync_state(self) -> None:
        """Copy the figure into the widget's initial state, read by the views made from it: call before display.

        ``FigureWidget`` does this only in its own ``_repr_mimebundle_``, which is not called
        when the figure is displayed inside a box.  It must not be done later: the widget's
        model in the browser keeps its own copy, updated by the in-place updates, and plotly
        compares the two (a later copy made the browser's model fail and stop following).
        The widget is a :class:`~mathkit.workbench.livefigure.LiveFigure`: with plotly's own
        ``FigureWidget`` most page loads of a loaded machine dropped every in-place update (its
        5 MB module missed anywidget's 2 s initialize deadline; see that module).
        """
        if self.live:
            self.widget._widget_layout = deepcopy(self.widget._layout_obj._props)
            self.widget._widget_data = deepcopy(self.widget._data)

    def _title(self, name: str, text: str) -> None:
        self.widget.layout.annotations[list(FIGURES).index(name)].text = text

    def _traces(self, name: str) -> list[Any]:
        return [self.widget.data[i] for i in self.index[name]]

    # ------------------------------------------------------------------ updates
    def show(self, *, quick: Quick | None = None, game: Game | None = None, reels: str | None = None,
             par: RoundSheet | None = None) -> None:
        """Update the panels from the results given, as one message to the browser (one redraw).

        ``quick`` (with ``game`` and ``reels``) feeds RTP by component and by symbol;
        ``par`` the exceedance curve, the RTP range and RTP by component.
        """
        rebuild: dict[str, go.Figure] = {}
        quick_data = None
        if quick is not None:
            if game is None or reels is None:
                msg = "quick figures need the game and the reel set"
                raise UsageError(msg)
            quick_data = self._quick_data(quick, game, reels)
            if quick_data is None:
                sym = plots.rtp_by_symbol(quick.base)
                for i, (comp, value) in enumerate(quick.breakdown.items()):
                    if comp not in quick.base.components:
                        sym.add_bar(name=comp, x=[comp], y=[float(value)], marker_color=plots.component_colour(comp, i))
                rebuild.update(components=plots.rtp_by_component(quick.breakdown), symbols=sym)
                if par is None:  # empty panels of the right shape: the PAR sheet then only fills them in place
                    rebuild.update(_waiting(float(quick.rtp)))
        if par is not None and ("distribution" not in self.sources or "range" not in self.sources):
            rebuild.update(distribution=_curve_figure(par), range=plots.rtp_range(_range_source(par)))
        if rebuild:
            self._rebuild(**rebuild)
        with self.widget.batch_update():
            if quick_data is not None:
                if par is None:
                    self._components(quick.breakdown if quick is not None else {})
                for trace, (x, y) in zip(self._traces("symbols"), quick_data.values(), strict=True):
                    trace.x, trace.y = x, y
            if par is not None:
                self._components(par)
                if "distribution" not in rebuild:
                    self._full_data(par)

    def _quick_data(self, quick: Quick, game: Game, reels: str) -> dict[str, tuple[list[str], list[float]]] | None:
        """The symbol series, or ``None`` when the panels must be redrawn."""
        series = plots.symbol_bars(quick.base)
        for comp, value in quick.breakdown.items():
            if comp not in series:
                series[comp] = ([comp], [float(value)])
        drawn = all(k in self.sources for k in ("components", "symbols"))
        if not drawn or tuple(series) != self._symbol_series:
            self._symbol_series = tuple(series)
            return None
        return series

    def _components(self, source: Any) -> None:
        names, values = plots.component_bars(source)
        (bar,) = self._traces("components")
        bar.x, bar.y = names, values
        bar.text = [f"{v:.3%}" for v in values]
        self._title("components", f"RTP by component (total {sum(values):.4%})")

    def _full_data(self, par: RoundSheet) -> None:
        c = readings.exceedance(par, CURVE_POINTS)
        upper, lower, curve = self._traces("distribution")
        if c is None:
            why = readings.missing(par).get("distribution", "not available")
            upper.x = upper.y = lower.x = lower.y = curve.x = curve.y = ()
            self._title("distribution", f"P(win ≥ x × bet): not available — {why}")
        else:
            curve.x, curve.y = c.x, c.p
            if c.low is not None and c.high is not None:
                fig = plots.exceedance_band(c.x, c.p, c.low, c.high)
                upper.x, upper.y = fig.data[0].x, fig.data[0].y
                lower.x, lower.y = fig.data[1].x, fig.data[1].y
            else:
                upper.x = upper.y = lower.x = lower.y = ()
            shade = ", 99% band shaded" if c.low is not None else ""
            self._title("distribution", f"P(win ≥ x × bet) [{c.method}{shade}] (P(no win) = {_p_no_win(c)})")
        self._title("range", RANGE_TITLE)
        r = float(par.rtp.value)
        vi = readings.volatility_index(par)
        bands = plots.rtp_range_bands(r, vi or {k: 0.0 for k in Z})
        ys: list[list[float]] = []
        for level in sorted(bands, key=lambda k: -float(k.rstrip("%"))):
            lo, hi = bands[level]
            ys += [hi, lo]
        ys.append([r] * len(plots.RANGE_N))
        for trace, y in zip(self._traces("range"), ys, strict=True):
            trace.y = y
        if not vi:
            self._title("range", f"{RANGE_TITLE}: not available — σ is not available")
        axis = str(self._traces("range")[0].yaxis)  # "y5" -> layout.yaxis5
        self.widget.layout["yaxis" + axis[1:]].range = [max(0.0, r - 0.5), r + 0.5]

    def unavailable(self, why: str) -> None:
        """The PAR sheet of the current edit could not be computed: the distribution and range panels say why."""
        if "distribution" not in self.index:
            return
        with self.widget.batch_update():
            for t in self._traces("distribution"):
                t.x = t.y = ()
            self._title("distribution", f"P(win ≥ x × bet): not available — {why}")
            self._title("range", f"{RANGE_TITLE}: not available")
