"""Version comparison: two games (files, the saved version, the edited one) side by side.

:func:`compare_games` gives what changed (strips, counts, pays, features:
:func:`mathkit.export.diff.diff_games`) and the figures of both PAR sheets with
their Δ (RTP exact, σ, hit frequency, volatility index, max win);
:func:`comparison_html` shows it, in the workbench's *compare* tab and in a
reviewer notebook's section alike.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from ..errors import GameError
from ..export.diff import Change, diff_games
from ..gamefile.io import load_game
from ..model.edits import play_reels
from ..model.game import Game
from ..report.par import RoundSheet
from . import readings
from .model import game_files
from .panel import Panel, button
from .panel import html as html_widget
from .readings import Reading
from .views import error_html, pct, table_html, unavailable_html

__all__ = ["ComparePanel", "Comparison", "compare_games", "comparison_html"]


@dataclass(frozen=True)
class Comparison:
    """Two versions of a game: their labels, PAR sheets and the changes from ``a`` to ``b``."""

    label_a: str
    label_b: str
    par_a: RoundSheet
    par_b: RoundSheet
    changes: tuple[Change, ...]

    def figures(self) -> list[tuple[str, str, str, str]]:
        """``(figure, a, b, Δ)`` rows; a sampled figure carries its provenance and 99% interval."""
        a, b = self.par_a, self.par_b
        rows = []
        if a.rtp.exact is not None and b.rtp.exact is not None:
            d = b.rtp.exact - a.rtp.exact
            rows.append(("RTP", pct(a.rtp.exact, 6), pct(b.rtp.exact, 6), f"{100 * float(d):+.6f} pp (exact {d})"))
        else:
            rows.append(("RTP", pct(a.rtp.value, 6), pct(b.rtp.value, 6), f"{100 * (b.rtp.value - a.rtp.value):+.6f} pp"))
        rows.append(_row("σ per bet", readings.sd(a), readings.sd(b), False))
        rows.append(_row("hit frequency", readings.hit_frequency(a), readings.hit_frequency(b), True))
        vi_a, vi_b = readings.volatility_index(a), readings.volatility_index(b)
        for k in dict.fromkeys([*vi_a, *vi_b]):
            rows.append(_row(f"volatility index {k}", vi_a.get(k), vi_b.get(k), False))
        rows.append(_row("max win × bet", readings.max_win(a), readings.max_win(b), False))
        return rows


def _percent(x: float) -> str:
    return f"{x * 100:.4f}%"


def _shown(r: Reading | None, percent: bool) -> str:
    if r is None:
        return "not available"
    fmt: Callable[[float], str] = _percent if percent else "{:,.4f}".format
    value = "interval" if r.interval else fmt(r.value)
    return value if r.method == "exact" and r.low is None else f"{value} {r.tag(fmt)}"


def _row(label: str, a: Reading | None, b: Reading | None, percent: bool) -> tuple[str, str, str, str]:
    if a is None or b is None or a.interval or b.interval:
        delta = "—"
    else:
        d = b.value - a.value
        delta = f"{100 * d:+.4f} pp" if percent else f"{d:+,.4f}"
        if a.sampled or b.sampled:
            delta += " (sampled: compare the intervals)"
    return (label, _shown(a, percent), _shown(b, percent), delta)


def compare_games(a: Game, b: Game, reels: str | None = None, labels: tuple[str, str] = ("A", "B")) -> Comparison:
    """Compare ``a`` and ``b`` on reel set ``reels`` (the play from it; default: ``a``'s default set).

    Each PAR sheet is built as ``mathkit par`` builds it (:func:`mathkit.workbench.readings.sheet`).

    Examples
    --------
    >>> import dataclasses
    >>> from fractions import Fraction
    >>> from mathkit.gamefile.io import load_game
    >>> a = load_game("data/games/classic_3reel.toml")
    >>> c = compare_games(a, dataclasses.replace(a, declared_rtp=Fraction("0.9")))
    >>> [(ch.section, ch.where, ch.after) for ch in c.changes], c.figures()[0][3]
    ([('game', 'declared_rtp', '9/10')], '+0.000000 pp (exact 0)')
    """
    name = play_reels(a, reels)
    return Comparison(labels[0], labels[1], readings.sheet(a, name), readings.sheet(b, play_reels(b, name)),
                      diff_games(a, b, figures=False, reels=name).changes)


def comparison_html(c: Comparison) -> str:
    """The comparison as HTML: the figures side by side with Δ, then the changes by section."""
    body = "".join("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in row) + "</tr>" for row in c.figures())
    out = table_html(("figure", c.label_a, c.label_b, "Δ (B − A)"), body, "mk-compare-figures")
    if not c.changes:
        return out + "<p><i>no change in the game data</i></p>"
    rows = "".join(f"<tr><td>{html.escape(x.section)}</td><td>{html.escape(x.where)}</td><td>{html.escape(x.before)}</td>"
                   f"<td>{html.escape(x.after)}</td></tr>" for x in c.changes)
    return out + table_html(("section", "where", c.label_a, c.label_b), rows, "mk-compare-changes",
                            f"{len(c.changes)} change(s)")


SAVED, EDITED = "the saved file", "the edited game"


class ComparePanel(Panel):
    """The compare tab: pick A and B, press compare (the PAR sheets are computed in a thread)."""

    title = "compare"

    def __init__(self, host: Any) -> None:
        super().__init__(host)
        self.a = widgets.Dropdown(description="A", layout=widgets.Layout(width="300px"))
        self.b = widgets.Dropdown(description="B", layout=widgets.Layout(width="300px"))
        self.a.add_class("mk-compare-a")
        self.b.add_class("mk-compare-b")
        self.run_button = button("compare", "mk-compare-run", "columns")
        self.out = html_widget("mk-compare-out")
        self.run_button.on_click(lambda _b: self.run())
        self._thread: threading.Thread | None = None
        self.widget = widgets.VBox([widgets.HBox([self.a, self.b, self.run_button]), self.out])

    def load(self) -> None:
        options = [SAVED, EDITED, *[f"file {f}" for f in game_files(self.host.data_dir)]]

        def write() -> None:
            self.a.options, self.b.options = options, options
            self.a.value, self.b.value = SAVED, EDITED
        self.host.suppressed(write)

    def _game(self, choice: str) -> Game:
        if choice == EDITED:
            return self.host.game
        if choice == SAVED:
            if self.host.saved_game is None:
                msg = "this game has not been saved yet"
                raise GameError(msg, field="compare", fix="save it, or pick a file")
            return self.host.saved_game
        return load_game(Path(self.host.data_dir) / choice.removeprefix("file "))

    def run(self, wait: bool = False) -> None:
        """Compare A and B (in a thread; ``wait`` for it)."""
        try:
            a, b = self._game(str(self.a.value)), self._game(str(self.b.value))
        except GameError as exc:
            self.out.value = error_html(exc)
            return
        self.out.value = "<span class='mk-spinner'></span> computing both PAR sheets …"
        reels = self.host.reels if str(self.a.value) in (SAVED, EDITED) else None

        def go() -> None:
            try:
                self.out.value = comparison_html(compare_games(a, b, reels, (str(self.a.value), str(self.b.value))))
            except Exception as exc:  # a PAR sheet that cannot be built: say why, in words
                self.out.value = unavailable_html("compare", exc)
        self._thread = threading.Thread(target=go, daemon=True, name="mathkit-workbench-compare")
        self._thread.start()
        if wait:
            self._thread.join()
