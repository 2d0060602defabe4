"""The workbench's sessions panel: how long a bankroll lasts, and how sessions end, exactly.

From the PAR sheet the workbench already has (its whole-play distribution), the panel
solves a player's session (:mod:`mathkit.sessions`): the survival curve P(still playing
after n spins), the final-bankroll distribution, the headline figures, and a table for
bankrolls of 50×, 100× and 200× the bet.  A session takes 0.05 s to a few seconds, so
the tab computes when asked (its button), or after every edit when "update on every
edit" is ticked; until then it shows its last results greyed out.  Its plotly figure is
made on the first computation, so a page that never asks loads no second copy of
plotly.js.
"""

from __future__ import annotations

import html
from copy import deepcopy
from typing import Any

import ipywidgets as widgets
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .. import plots
from ..errors import MathkitError
from ..model.game import Game
from ..report.par import ParSheet, RoundSheet
from ..sessions import SessionLaw, bankroll_table, from_par, gamble_options, solve, strategy, table_rows
from . import readings
from .livefigure import LiveFigure
from .panel import Host, Panel
from .views import sync_figure

__all__ = ["SessionPanel", "session_figure", "summary_html", "table_html"]

NEVER = "never"


def summary_html(law: SessionLaw, strategy_name: str) -> str:
    """The headline figures of a session, with their provenance."""
    b = law.bet
    med = law.median_spins
    rows = [("expected spins played (time on device)", f"{law.expected_spins:,.2f}"),
            ("median spins", f"> {law.spins:,}" if med is None else f"{med:,}"),
            (f"P(still playing after {law.spins:,} spins)", f"{law.p_playing:.6f}"),
            ("P(bust)", f"{law.p_bust:.6f}"), ("P(ahead at the end)", f"{law.p_ahead:.6f}"),
            ("expected loss", f"{law.expected_loss / b:,.4f} × bet")]
    if law.stop_win is not None:
        rows.append((f"P(reached {law.stop_win / b:,.6g}× bet)", f"{law.p_target:.6f}"))
    rows += [(f"P(a win ≥ {k:,}× bet)", f"{p:.6f}") for k, p in law.big_wins.items()]
    body = "".join(f"<tr><td>{html.escape(k)}</td><td style='text-align:right'>{v}</td></tr>" for k, v in rows)
    return (f"<b>{law.bankroll / b:,.6g}× bet bankroll, up to {law.spins:,} spins</b> · {html.escape(strategy_name)} · "
            f"<small>[{law.method}] exact to {law.error_bound:.0e}, truncated mass {law.truncated_mass:.0e}</small>"
            f"<table class='mk-session-figures'>{body}</table>")


def table_html(laws: list[SessionLaw]) -> str:
    """The bankroll table as HTML."""
    rows = table_rows(laws)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in rows[0])
    body = "".join("<tr>" + "".join(f"<td style='text-align:right'>{html.escape(c)}</td>" for c in r) + "</tr>"
                   for r in rows[1:])
    return f"<table class='mk-session-table'><tr>{head}</tr>{body}</table>"


def session_figure(laws: list[SessionLaw], main: SessionLaw) -> go.Figure:
    """Survival curves of the bankrolls (left) and the final bankroll of the main session (right)."""
    left, right = plots.survival_curve([*laws, main]), plots.final_bankroll(main)
    fig = make_subplots(rows=1, cols=2, subplot_titles=(left.layout.title.text, right.layout.title.text),
                        horizontal_spacing=0.08)
    for trace in left.data:
        fig.add_trace(trace, row=1, col=1)
    fig.data[-1].update(line={"width": 3, "color": "#111"}, name=f"{fig.data[-1].name} (chosen)")
    fig.add_trace(right.data[0], row=1, col=2)
    fig.update_xaxes(title_text="spins", row=1, col=1)
    fig.update_yaxes(title_text="P(still playing)", range=[0, 1.02], row=1, col=1)
    fig.update_xaxes(title_text="final bankroll × bet", row=1, col=2)
    fig.update_yaxes(title_text="probability", row=1, col=2)
    fig.update_layout(template=plots.TEMPLATE, height=380, margin={"l": 60, "r": 20, "t": 50, "b": 50},
                      bargap=0, legend={"x": 0.3, "y": 0.98})
    fig.update_annotations(font_size=13)
    return fig


class SessionPanel(Panel):
    """The sessions tab's widgets and results (see the module docstring).

    Each new PAR sheet of the current edit arrives by :meth:`show_slow` (``show(game, par)``);
    :meth:`compute` solves the sessions.  ``law`` and ``table`` hold the last results.
    """

    title = "sessions"

    def __init__(self, host: Host) -> None:
        super().__init__(host)
        style = {"description_width": "initial"}
        self.bankroll = widgets.BoundedFloatText(value=100, min=1, max=10**6, description="bankroll × bet",
                                                 style=style, layout=widgets.Layout(width="190px"))
        self.spins = widgets.BoundedIntText(value=1000, min=1, max=10**5, description="spins", style=style,
                                            layout=widgets.Layout(width="150px"))
        self.stop_win = widgets.BoundedFloatText(value=0, min=0, max=10**7, description="stop-win × bet (0: none)",
                                                 style=style, layout=widgets.Layout(width="250px"))
        self.big_win = widgets.BoundedIntText(value=100, min=1, max=10**6, description="big win × bet", style=style,
                                              layout=widgets.Layout(width="170px"))
        self.gamble = widgets.Dropdown(options=[NEVER], value=NEVER, description="gamble", style=style,
                                       layout=widgets.Layout(width="200px"))
        self.live = widgets.Checkbox(value=False, description="update on every edit", indent=False)
        self.button = widgets.Button(description="compute sessions", icon="play", layout=widgets.Layout(width="auto"))
        self.summary = widgets.HTML()
        self.table_view = widgets.HTML()
        self.status = widgets.HTML("<small>Press <i>compute sessions</i> (exact, from the PAR sheet's "
                                   "whole-play distribution).</small>")
        for w, cls in ((self.bankroll, "mk-session-bankroll"), (self.spins, "mk-session-spins"),
                       (self.stop_win, "mk-session-stop"), (self.big_win, "mk-session-big"),
                       (self.gamble, "mk-session-gamble"), (self.button, "mk-session-compute"),
                       (self.summary, "mk-session-summary"), (self.table_view, "mk-session-table-view"),
                       (self.status, "mk-session-status")):
            w.add_class(cls)
        self.figure: go.FigureWidget | None = None
        self.law: SessionLaw | None = None
        self.table: list[SessionLaw] = []
        self._game: Game | None = None
        self._par: ParSheet | None = None
        self._why: str | None = None
        self.button.on_click(lambda _b: self.compute())
        for w in (self.bankroll, self.spins, self.stop_win, self.big_win, self.gamble):
            w.observe(lambda _ch: self._changed(), "value")
        controls = widgets.HBox([self.bankroll, self.spins, self.stop_win, self.big_win, self.gamble])
        self.results = widgets.HBox([self.summary, self.table_view])
        self.box = widgets.VBox([widgets.HTML("<h4>Player sessions</h4>"), controls,
                                 widgets.HBox([self.button, self.live]), self.status, self.results])
        self.box.add_class("mk-sessions")
        self.widget = self.box

    def show_slow(self, step: str, value: Any) -> None:
        """The PAR sheet of the current edit (``step == "par"``) is what sessions are solved from.

        A sheet without the whole play's exact distribution (part of it sampled, or none) says why instead.
        """
        if step != "par":
            return
        if isinstance(value, ParSheet):
            self._why = None
            self.show(self.host.game, value)
            return
        self._game, self._par = self.host.game, None
        if isinstance(value, RoundSheet) and readings.route_names(value):
            why = (f"part of this game's round is sampled ({', '.join(readings.route_names(value))}), so the whole "
                   "play's distribution is not exact")
        elif isinstance(value, RoundSheet):
            why = readings.missing(value).get("distribution", "the whole play's distribution is not available")
        else:
            why = "the PAR sheet of this edit could not be computed"
        self._why = (f"<small class='mk-unavailable'>Sessions are solved exactly from the whole play's "
                     f"distribution: not available here — {html.escape(why)}.</small>")
        self.status.value = self._why
        if self.law is not None:
            self.results.add_class("mk-stale")

    def show(self, game: Game, par: ParSheet) -> None:
        """A new PAR sheet (after an edit, or another game): compute when live, else mark the results stale."""
        self._game, self._par = game, par
        options = [NEVER, *gamble_options(game)]
        if list(self.gamble.options) != options:
            self.gamble.options = options
            self.gamble.value = NEVER
        if self.live.value:
            self.compute()
        elif self.law is not None:
            self.results.add_class("mk-stale")

    def _changed(self) -> None:
        if self.live.value and self._par is not None:
            self.compute()
        elif self.law is not None:
            self.results.add_class("mk-stale")

    def compute(self) -> SessionLaw | None:
        """Solve the sessions for the current PAR sheet and parameters; show them (``None``: nothing to solve)."""
        if self._par is None or self._game is None:
            self.status.value = self._why or "<small>waiting for the PAR sheet …</small>"
            return None
        par, game = self._par, self._game
        try:
            option = None if self.gamble.value == NEVER else str(self.gamble.value)
            plan = strategy(game, option)
            play = from_par(par, plan)
            stop = f"{self.stop_win.value}x" if self.stop_win.value else None
            law = solve(play, f"{self.bankroll.value}x", int(self.spins.value), stop_win=stop,
                        big_wins=(int(self.big_win.value),))
            table = bankroll_table(play, int(self.spins.value), big_wins=(int(self.big_win.value),))
        except MathkitError as exc:
            self.status.value = f"<span style='color:#a00'>⚠ {html.escape(str(exc))}</span>"
            return None
        self.law, self.table = law, table
        self.summary.value = summary_html(law, play.strategy)
        self.table_view.value = table_html(table)
        fig = session_figure(table, law)
        if self.figure is None:
            self.figure = LiveFigure(fig)
            self.figure.add_class("mk-session-figure")
            self.box.children = (*self.box.children, self.figure)
        else:
            sync_figure(self.figure, fig)
        # what browser views made from now on start from (FigureWidget does it only in its own repr)
        self.figure._widget_layout = deepcopy(self.figure._layout_obj._props)
        self.figure._widget_data = deepcopy(self.figure._data)
        self.results.remove_class("mk-stale")
        self.status.value = f"<small>solved in {law.seconds:.2f} s ({law.solver} chain)</small>"
        return law
