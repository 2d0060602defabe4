"""The editor widgets of the workbench: strips, paytable, feature parameters.

Each ``*_editor`` function builds the widgets for one game; ``set_*`` writes a
game's values back into them (undo, reload).  The widgets carry stable CSS
classes for browser tests (``mk-strip-0``, ``mk-pay-H1-5``, ``mk-feature-free_spins-multiplier`` …).
Wiring the widgets to edits is the :class:`~mathkit.workbench.app.Workbench`'s job.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets

from ..game import Game
from .model import strip_text

__all__ = ["FeatureEditor", "PayEditor", "StripEditor", "css_name", "feature_editor", "pay_editor", "set_features",
           "set_pays", "set_strips", "strip_editor"]


def css_name(text: str) -> str:
    """A name usable in a CSS class.

    Examples
    --------
    >>> css_name("ANY BAR/7")
    'ANY_BAR_7'
    """
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)


def _int_text(value: int, cls: str, width: str = "72px", description: str = "") -> widgets.IntText:
    w = widgets.IntText(value=value, description=description, layout=widgets.Layout(width=width),
                        style={"description_width": "initial"})
    w.add_class(cls)
    w.add_class("mk-number")
    return w


# --------------------------------------------------------------------------- strips
@dataclass
class StripEditor:
    """One text area per reel (the strip, space-separated) and the symbol-count grid."""

    box: widgets.VBox
    areas: list[widgets.Textarea]
    grid: widgets.HTML


def strip_editor(game: Game, reels: str) -> StripEditor:
    rs = game.reel_set(reels)
    areas = []
    rows = []
    for r in range(rs.n_reels):
        area = widgets.Textarea(value=strip_text(rs, r), continuous_update=False, rows=3,
                                layout=widgets.Layout(width="100%"))
        area.add_class(f"mk-strip-{r}")
        area.add_class("mk-strip")
        areas.append(area)
        label = widgets.HTML(f"<b>reel {r + 1}</b>", layout=widgets.Layout(width="60px"))
        rows.append(widgets.HBox([label, area], layout=widgets.Layout(width="100%")))
    grid = widgets.HTML()
    grid.add_class("mk-count-grid")
    hint = widgets.HTML("<small>One strip per reel, symbols separated by spaces (a weighted stop: "
                        "<code>NAME*weight</code>). The change applies when the box loses focus.</small>")
    box = widgets.VBox([hint, *rows, widgets.HTML("<b>Symbol counts per reel</b> (with the stops each symbol "
                                                  "sits on)"), grid])
    return StripEditor(box, areas, grid)


def set_strips(editor: StripEditor, game: Game, reels: str) -> None:
    rs = game.reel_set(reels)
    for r, area in enumerate(editor.areas):
        area.value = strip_text(rs, r)
        area.remove_class("mk-invalid")


# --------------------------------------------------------------------------- paytable
@dataclass
class PayEditor:
    """One integer box per paytable value: ``line[(entry, count, coin_index)]``, ``scatter[(symbol, count)]``."""

    box: widgets.VBox
    line: dict[tuple[str, int, int], widgets.IntText] = field(default_factory=dict)
    scatter: dict[tuple[str, int], widgets.IntText] = field(default_factory=dict)


def pay_editor(game: Game) -> PayEditor:
    ed = PayEditor(widgets.VBox())
    counts = sorted({k for e in game.line_pays for k, _ in e.pays})
    unit = "credits per line" if game.pay_mode == "lines" else "credits per way"
    coins = "" if len(game.bet.coins) == 1 else f" at {', '.join(map(str, game.bet.coins))} coins"
    head = [widgets.HTML(f"<b>{game.pay_mode}</b> ({unit}{coins})", layout=widgets.Layout(width="150px")),
            *[widgets.HTML(f"<b>{k} ×</b>", layout=widgets.Layout(width="90px")) for k in counts]]
    rows: list[widgets.Widget] = [widgets.HBox(head)]
    for e in game.line_pays:
        pays = dict(e.pays)
        cells: list[widgets.Widget] = []
        for k in counts:
            if k not in pays:
                cells.append(widgets.HTML("", layout=widgets.Layout(width="90px")))
                continue
            boxes = []
            for i, v in enumerate(pays[k]):
                suffix = "" if len(pays[k]) == 1 else f"-c{i}"
                box = _int_text(v, f"mk-pay-{css_name(e.name)}-{k}{suffix}", width="80px" if len(pays[k]) == 1 else "62px")
                ed.line[(e.name, k, i)] = box
                boxes.append(box)
            cells.append(widgets.HBox(boxes, layout=widgets.Layout(width="auto" if len(boxes) > 1 else "90px")))
        label = e.name if e.symbols == (e.name,) else f"{e.name} ({' '.join(e.symbols)})"
        rows.append(widgets.HBox([widgets.HTML(label, layout=widgets.Layout(width="150px")), *cells]))
    for sp in game.scatter_pays:
        rows.append(widgets.HTML(f"<b>scatter {sp.symbol}</b> (× total bet, anywhere)"))
        cells = []
        for k, v in sp.pays:
            box = _int_text(v, f"mk-scatter-{css_name(sp.symbol)}-{k}", description=f"{k} ×")
            ed.scatter[(sp.symbol, k)] = box
            cells.append(box)
        rows.append(widgets.HBox(cells))
    ed.box.children = tuple(rows)
    return ed


def set_pays(editor: PayEditor, game: Game) -> None:
    for e in game.line_pays:
        for k, values in e.pays:
            for i, v in enumerate(values):
                editor.line[(e.name, k, i)].value = v
                editor.line[(e.name, k, i)].remove_class("mk-invalid")
    for sp in game.scatter_pays:
        for k, v in sp.pays:
            editor.scatter[(sp.symbol, k)].value = v
            editor.scatter[(sp.symbol, k)].remove_class("mk-invalid")


# --------------------------------------------------------------------------- free spins
@dataclass
class FeatureEditor:
    """One form per feature block, built from its TOML table: a number box per whole number, a tick box per switch.

    ``fields[(feature name, path)]`` is the widget of the table field at ``path``
    (``("awards", "3")``, ``("multiplier",)``); its CSS class is
    ``mk-feature-{name}-{path joined by -}``.
    """

    box: widgets.VBox
    fields: dict[tuple[str, tuple[str | int, ...]], widgets.Widget] = field(default_factory=dict)


def _leaves(table: Any, path: tuple[str | int, ...] = ()) -> list[tuple[tuple[str | int, ...], int | bool]]:
    """The editable leaves of a feature table: whole numbers and switches (names and references stay as they are)."""
    out: list[tuple[tuple[str | int, ...], int | bool]] = []
    if isinstance(table, dict):
        for k, v in table.items():
            out += _leaves(v, (*path, k))
    elif isinstance(table, list):
        for i, v in enumerate(table):
            out += _leaves(v, (*path, i))
    elif isinstance(table, bool | int):
        out.append((path, table))
    return out


def feature_editor(game: Game) -> FeatureEditor:
    ed = FeatureEditor(widgets.VBox())
    if not game.features:
        ed.box.children = (widgets.HTML("<i>This game has no features.</i>"),)
        return ed
    rows: list[widgets.Widget] = []
    for f in game.features:
        rows.append(widgets.HTML(f"<b>{f.title}</b> <code>{f.name}</code>"
                                 + (f" on reel set(s) <code>{', '.join(f.reel_sets())}</code>" if f.reel_sets() else "")))
        boxes: list[widgets.Widget] = []
        for path, value in _leaves(f.table()):
            cls = f"mk-feature-{css_name(f.name)}-" + "-".join(css_name(str(p)) for p in path)
            label = " ".join(str(p) for p in path) + ":"
            w: widgets.Widget
            if isinstance(value, bool):
                w = widgets.Checkbox(value=value, description=label, indent=False)
                w.add_class(cls)
            else:
                w = _int_text(value, cls, description=label, width="200px")
            ed.fields[(f.name, path)] = w
            boxes.append(w)
        rows.append(widgets.HBox(boxes, layout=widgets.Layout(flex_flow="row wrap")))
    ed.box.children = tuple(rows)
    return ed


def set_features(editor: FeatureEditor, game: Game) -> None:
    for f in game.features:
        for path, value in _leaves(f.table()):
            w = editor.fields.get((f.name, path))
            if w is not None:
                w.value = value
                w.remove_class("mk-invalid")
