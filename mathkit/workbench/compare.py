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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ipywidgets as widgets

from ..errors import GameError
from ..export.diff import Change, diff_games
from ..gamefile.io import load_game
from ..model.edits import play_reels
from ..model.game import Game
from ..report.par import ParSheet, build_par
from .model import game_files
from .panel import Panel, button
from .panel import html as html_widget
from .views import error_html, pct, table_html

__all__ = ["ComparePanel", "Comparison", "compare_games", "comparison_html"]


@dataclass(frozen=True)
class Comparison:
    """Two versions of a game: their labels, PAR sheets and the changes from ``a`` to ``b``."""

    label_a: str
    label_b: str
    par_a: ParSheet
    par_b: ParSheet
    changes: tuple[Change, ...]

    def figures(self) -> list[tuple[str, str, str, str]]:
        """``(figure, a, b, Δ)`` rows."""
        a, b = self.par_a, self.par_b
        rows = []
        if a.rtp.exact is not None and b.rtp.exact is not None:
            d = b.rtp.exact - a.rtp.exact
            rows.append(("RTP", pct(a.rtp.exact, 6), pct(b.rtp.exact, 6), f"{100 * float(d):+.6f} pp (exact {d})"))
        else:
            rows.append(("RTP", pct(a.rtp.value, 6), pct(b.rtp.value, 6), f"{100 * (b.rtp.value - a.rtp.value):+.6f} pp"))
        rows.append(("σ per bet", f"{a.sd.value:.4f}", f"{b.sd.value:.4f}", f"{b.sd.value - a.sd.value:+.4f}"))
        rows.append(("hit frequency", pct(a.hit_frequency.value), pct(b.hit_frequency.value),
                     f"{100 * (b.hit_frequency.value - a.hit_frequency.value):+.4f} pp"))
        for k, f in a.volatility_index.items():
            g = b.volatility_index[k]
            rows.append((f"volatility index {k}", f"{f.value:.4f}", f"{g.value:.4f}", f"{g.value - f.value:+.4f}"))
        rows.append(("max win × bet", f"{a.max_win.value:,.2f}", f"{b.max_win.value:,.2f}",
                     f"{b.max_win.value - a.max_win.value:+,.2f}"))
        return rows


def compare_games(a: Game, b: Game, reels: str | None = None, labels: tuple[str, str] = ("A", "B")) -> Comparison:
    """Compare ``a`` and ``b`` on reel set ``reels`` (the play from it; default: ``a``'s default set).

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
    return Comparison(labels[0], labels[1], build_par(a, name), build_par(b, play_reels(b, name)),
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
            except Exception as exc:  # a PAR sheet that cannot be built: say so
                self.out.value = error_html(exc)
        self._thread = threading.Thread(target=go, daemon=True, name="mathkit-workbench-compare")
        self._thread.start()
        if wait:
            self._thread.join()
