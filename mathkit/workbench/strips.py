"""The strip editor: a grid with one column per reel, stop numbers and stacks, a symbol picker, stop edits, paste.

Each reel is a list of its stops (``17 ┌ SEAL``: stop 17, first of a stack of
SEALs; weighted stops show ``×w``).  Select one stop or a block (shift-click)
in a column, then

* pick a symbol: the selected stops show it (the picker is the cell's picker);
* set a weight (weighted reels);
* insert a stop above or below, delete, or move the block up or down (round the circular strip);

or paste one column per reel copied from a spreadsheet into "paste", choose
the first reel and press *paste*.  The text form (one line per reel, ``NAME*w``
for a weighted stop) stays below for power users.  Every change is one edit
of the workbench: validated, undoable, and the RTP follows at once.
CSS classes for tests: ``mk-grid-{reel}`` (the column's select), ``mk-grid-symbol``,
``mk-grid-weight``, ``mk-grid-{insert-above|insert-below|delete|up|down}``, ``mk-paste``,
``mk-paste-reel``, ``mk-paste-apply``, ``mk-strip-{reel}`` (text form).
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets

from ..errors import GameError
from ..model.edits import stops_of, with_stops
from ..model.game import Game
from . import stripops, views
from .model import strip_text, with_strip
from .panel import Panel, button, html

__all__ = ["StripPanel", "column_options"]

_ROWS = 22


def column_options(game: Game, reels: str, reel: int) -> list[tuple[str, int]]:
    """The grid column of one reel: ``(label, stop)`` per stop, stacks drawn with ┌ │ └.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> opts = column_options(load_game("data/games/dynasty.toml"), "base", 1)
    >>> [label for label, _ in opts[16:21]]
    ['16   TEN', '17 ┌ SEAL', '18 │ SEAL', '19 └ SEAL', '20   KING']
    """
    stops = stops_of(game, reels, reel)
    marks = [" "] * len(stops)
    for start, length in stripops.runs([s for s, _ in stops]):
        for k in range(length):
            marks[(start + k) % len(stops)] = "┌" if k == 0 else "└" if k == length - 1 else "│"
    width = len(str(len(stops) - 1))
    return [(f"{i:>{width}} {marks[i]} {s}" + (f" ×{w}" if w != 1 else ""), i) for i, (s, w) in enumerate(stops)]


class StripPanel(Panel):
    """The reel-strip tab (see the module docstring)."""

    title = "reel strips"

    def __init__(self, host: Any) -> None:
        super().__init__(host)
        self.columns: list[widgets.SelectMultiple] = []
        self.areas: list[widgets.Textarea] = []
        self.reel = 0
        self.symbol = widgets.Dropdown(description="symbol", layout=widgets.Layout(width="220px"))
        self.symbol.add_class("mk-grid-symbol")
        self.weight = widgets.BoundedIntText(value=1, min=1, max=10**9, description="weight",
                                             layout=widgets.Layout(width="160px"))
        self.weight.add_class("mk-grid-weight")
        self.buttons = {name: button(text, f"mk-grid-{name}", icon) for name, text, icon in (
            ("insert-above", "insert above", "plus"), ("insert-below", "insert below", "plus"),
            ("delete", "delete", "trash"), ("up", "up", "arrow-up"), ("down", "down", "arrow-down"))}
        self.paste = widgets.Textarea(placeholder="paste one column per reel from a spreadsheet (one symbol per row)",
                                      layout=widgets.Layout(width="100%", height="90px"))
        self.paste.add_class("mk-paste")
        self.paste_reel = widgets.Dropdown(description="into reel", layout=widgets.Layout(width="160px"))
        self.paste_reel.add_class("mk-paste-reel")
        self.paste_button = button("paste", "mk-paste-apply", "paste")
        self.grid_box = widgets.HBox(layout=widgets.Layout(flex_flow="row wrap"))
        self.text_box = widgets.VBox()
        self.counts = html("mk-count-grid")
        self.symbol.observe(lambda ch: self._picked(ch["new"]), "value")
        self.weight.observe(lambda ch: self._weighed(ch["new"]), "value")
        self.buttons["insert-above"].on_click(lambda _b: self._insert(0))
        self.buttons["insert-below"].on_click(lambda _b: self._insert(1))
        self.buttons["delete"].on_click(lambda _b: self._change(stripops.delete_stops(self._stops(), self._selected()),
                                                                "delete stops", select=[]))
        self.buttons["up"].on_click(lambda _b: self._move(-1))
        self.buttons["down"].on_click(lambda _b: self._move(1))
        self.paste_button.on_click(lambda _b: self.apply_paste())
        tools = widgets.HBox([self.symbol, self.weight, *self.buttons.values()],
                             layout=widgets.Layout(flex_flow="row wrap"))
        text = widgets.Accordion([self.text_box])
        text.set_title(0, "text form (one line per reel; NAME*w is a stop of weight w; applies when the box loses focus)")
        text.selected_index = None
        paste = widgets.VBox([self.paste, widgets.HBox([self.paste_reel, self.paste_button])])
        self.widget = widgets.VBox([
            widgets.HTML("<small>Select a stop (shift-click: a block) in a reel, then pick its symbol, "
                         "or insert, delete and move stops. Stops are numbered from 0; ┌ │ └ mark a stack.</small>"),
            tools, self.grid_box, paste, text,
            widgets.HTML("<b>Symbol counts per reel</b> (with the stops each symbol sits on)"), self.counts])
        self.widget.add_class("mk-strips")

    # ------------------------------------------------------------------ building
    def load(self) -> None:
        game, reels = self.host.game, self.host.reels
        rs = game.reel_set(reels)
        self.columns, self.areas = [], []
        cols: list[widgets.Widget] = []
        for r in range(rs.n_reels):
            col = widgets.SelectMultiple(rows=min(_ROWS, len(rs.strips[r])), layout=widgets.Layout(width="124px"))
            col.add_class(f"mk-grid-{r}")
            col.add_class("mk-grid")
            col.observe(lambda ch, r=r: self._selected_in(r, ch["new"]), "value")
            self.columns.append(col)
            head = html(f"mk-grid-head-{r}")
            cols.append(widgets.VBox([head, col]))
            area = widgets.Textarea(continuous_update=False, rows=3, layout=widgets.Layout(width="100%"))
            area.add_class(f"mk-strip-{r}")
            area.add_class("mk-strip")
            area.observe(lambda ch, r=r: self._typed(r, ch["new"]), "value")
            self.areas.append(area)
        self.grid_box.children = tuple(cols)
        self.text_box.children = tuple(widgets.HBox([widgets.HTML(f"<b>reel {r + 1}</b>", layout=widgets.Layout(width="60px")), a])
                                       for r, a in enumerate(self.areas))
        self.weight.layout.display = "" if rs.weights is not None else "none"

        def options() -> None:
            self.symbol.options = list(game.symbol_names)
            self.paste_reel.options = [(f"reel {r + 1}", r) for r in range(rs.n_reels)]
            self.paste_reel.value = 0
            self.reel = 0
        self.host.suppressed(options)
        self.refresh()

    def refresh(self, select: list[int] | None = None) -> None:
        game, reels = self.host.game, self.host.reels
        rs = game.reel_set(reels)

        def write() -> None:
            for r, (col, area) in enumerate(zip(self.columns, self.areas, strict=True)):
                opts = column_options(game, reels, r)
                keep = col.value
                if list(col.options) != opts:
                    col.options = opts
                chosen = select if select is not None and r == self.reel else keep
                col.value = tuple(i for i in chosen if i < len(opts))
                area.value = strip_text(rs, r)
                area.remove_class("mk-invalid")
                head = self.grid_box.children[r].children[0]
                head.value = f"<b>reel {r + 1}</b> <small>{len(rs.strips[r])} stops</small>"
        self.host.suppressed(write)
        self.counts.value = views.count_grid_html(game, reels)

    # ------------------------------------------------------------------ edits
    def _stops(self) -> list[tuple[str, int]]:
        return stops_of(self.host.game, self.host.reels, self.reel)

    def _selected(self) -> list[int]:
        return sorted(self.columns[self.reel].value) if self.columns else []

    def _selected_in(self, reel: int, value: tuple[int, ...]) -> None:
        if not value:
            return
        self.reel = reel

        def show() -> None:
            for r, col in enumerate(self.columns):
                if r != reel:
                    col.value = ()
            sym, w = self._stops()[min(value)]
            self.symbol.value = sym
            self.weight.value = w
        self.host.suppressed(show)

    def _change(self, stops: list[tuple[str, int]], what: str, select: list[int] | None = None,
                source: widgets.DOMWidget | None = None) -> bool:
        reel, reels = self.reel, self.host.reels
        ok = self.host.edit(lambda g: with_stops(g, reels, reel, stops), source or self.columns[reel],
                            f"{what} on reel {reel + 1}")
        if ok and select is not None:
            self.refresh(select)
        return ok

    def _picked(self, symbol: str | None) -> None:
        chosen = self._selected()
        if symbol is None or not chosen:
            return
        self._change(stripops.set_stops(self._stops(), chosen, symbol), f"stop {chosen[0]} → {symbol}", chosen)

    def _weighed(self, weight: int) -> None:
        chosen = self._selected()
        if not chosen:
            return
        stops = [(s, weight if i in chosen else w) for i, (s, w) in enumerate(self._stops())]
        self._change(stops, f"weight {weight}", chosen)

    def _insert(self, below: int) -> None:
        chosen = self._selected()
        at = (max(chosen) + 1 if below else min(chosen)) if chosen else len(self._stops())
        symbol = self.symbol.value or self.host.game.symbol_names[0]
        self._change(stripops.insert_stop(self._stops(), at, symbol), f"insert {symbol}", [at])

    def _move(self, by: int) -> None:
        chosen = self._selected()
        if not chosen:
            return
        n = len(self._stops())
        moved = stripops.move_stops(self._stops(), chosen, by)
        lo = (min(chosen) + by) % (n - len(range(min(chosen), max(chosen) + 1)) + 1)
        self._change(moved, "move stops", list(range(lo, lo + max(chosen) - min(chosen) + 1)))

    def apply_paste(self) -> bool:
        """Replace the strips of reels ``paste_reel``, ``paste_reel + 1`` … by the pasted columns (one edit)."""
        first, reels = int(self.paste_reel.value or 0), self.host.reels
        try:
            cols = stripops.paste_columns(self.paste.value)
        except GameError as exc:
            self.host.fail(exc, self.paste)
            return False

        def change(g: Game) -> Game:
            n = g.reel_set(reels).n_reels
            if first + len(cols) > n:
                msg = f"{len(cols)} columns pasted from reel {first + 1}, but the set has {n} reels"
                raise GameError(msg,
                                field="paste", fix="paste fewer columns or choose an earlier reel")
            for k, stops in enumerate(cols):
                g = with_stops(g, reels, first + k, stops)
            return g
        ok = self.host.edit(change, self.paste, f"paste into reel {first + 1}"
                            + (f"–{first + len(cols)}" if len(cols) > 1 else ""))
        if ok:
            self.paste.value = ""
        return ok

    def _typed(self, reel: int, text: str) -> None:
        reels = self.host.reels
        self.host.edit(lambda g: with_strip(g, reels, reel, text), self.areas[reel], f"reel {reel + 1} text")
