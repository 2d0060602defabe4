"""The paytable and feature tabs: one number box per pay and per feature field.

``pay_editor`` / ``feature_editor`` build the widgets for one game, ``set_*``
write a game's values back into them (undo); :class:`PayPanel` and
:class:`FeaturePanel` wire them to edits.  Stable CSS classes for tests:
``mk-pay-H1-5`` (``-c1`` … for a per-coin pay), ``mk-scatter-EMPEROR-3``,
``mk-feature-free_spins-multiplier``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import ipywidgets as widgets

from ..model.edits import with_line_pay, with_scatter_pay
from ..model.game import Game
from .model import with_feature
from .panel import Panel

__all__ = ["FeatureEditor", "FeaturePanel", "PayEditor", "PayPanel", "box_width", "css_name", "feature_editor",
           "pay_editor", "pay_header", "set_features", "set_pays"]


def css_name(text: str) -> str:
    """A name usable in a CSS class.

    Examples
    --------
    >>> css_name("ANY BAR/7")
    'ANY_BAR_7'
    """
    return re.sub(r"[^A-Za-z0-9_-]", "_", text)


def box_width(values: list[int], description: str = "") -> str:
    """A number box wide enough for the largest value with room to type two more digits (CSS width).

    Examples
    --------
    >>> box_width([5, 100]), box_width([5000], "3 ×")
    ('68px', '100px')
    """
    digits = max(len(str(v)) for v in values) + 2
    return f"{28 + 8 * digits + 8 * len(description)}px"


def _int_text(value: int, cls: str, width: str = "72px", description: str = "") -> widgets.IntText:
    w = widgets.IntText(value=value, description=description, layout=widgets.Layout(width=width),
                        style={"description_width": "initial"})
    w.add_class(cls)
    w.add_class("mk-number")
    return w


# --------------------------------------------------------------------------- paytable
@dataclass
class PayEditor:
    """One integer box per paytable value: ``line[(entry, count, coin_index)]``, ``scatter[(symbol, count)]``."""

    box: widgets.VBox
    line: dict[tuple[str, int, int], widgets.IntText] = field(default_factory=dict)
    scatter: dict[tuple[str, int], widgets.IntText] = field(default_factory=dict)


def pay_header(game: Game) -> str:
    """What the pay boxes hold: credits per line (or way) at one coin, and how other coin options pay.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> pay_header(load_game("data/games/dynasty.toml"))
    'credits per line at 1 coin; at 2, 5, 10 coins every pay × coins'
    >>> pay_header(load_game("data/games/classic_3reel.toml"))
    'credits per line at 1 coin; at 2, 3 coins × coins, except the per-coin pays (one box per coin option: 1, 2, 3)'
    """
    unit = "credits per line" if game.pay_mode == "lines" else "credits per way"
    coins = game.bet.coins
    head = f"{unit} at {coins[0]} coin{'s' if coins[0] != 1 else ''}"
    if len(coins) == 1:
        return head
    others = ", ".join(map(str, coins[1:]))
    if any(len(v) > 1 for e in game.line_pays for _, v in e.pays):
        return (f"{head}; at {others} coins × coins, except the per-coin pays (one box per coin option: "
                f"{', '.join(map(str, coins))})")
    return f"{head}; at {others} coins every pay × coins"


def pay_editor(game: Game) -> PayEditor:
    ed = PayEditor(widgets.VBox())
    counts = sorted({k for e in game.line_pays for k, _ in e.pays})
    head = [widgets.HTML(f"<b>{game.pay_mode}</b>", layout=widgets.Layout(width="150px")),
            *[widgets.HTML(f"<b>{k} ×</b>", layout=widgets.Layout(width="90px")) for k in counts]]
    rows: list[widgets.Widget] = [widgets.HTML(f"<small>{pay_header(game)}</small>"), widgets.HBox(head)]
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
                box = _int_text(v, f"mk-pay-{css_name(e.name)}-{k}{suffix}", width=box_width(list(pays[k])))
                ed.line[(e.name, k, i)] = box
                boxes.append(box)
            cells.append(widgets.HBox(boxes, layout=widgets.Layout(width="auto", min_width="90px")))
        if e.ordered:  # a reel-ordered combination: what each reel needs, in order
            label = f"{e.name} ({' – '.join(e.reel_names)})"
        else:
            label = e.name if e.symbols == (e.name,) else f"{e.name} ({' '.join(e.symbols)})"
        rows.append(widgets.HBox([widgets.HTML(label, layout=widgets.Layout(width="150px")), *cells]))
    for sp in game.scatter_pays:
        unit = game.scatter_unit_name
        rows.append(widgets.HTML(f"<b>scatter {sp.symbol}</b> (× {unit}, anywhere)"))
        cells = []
        width = box_width([v for _, v in sp.pays], "3 ×")
        for k, v in sp.pays:
            box = _int_text(v, f"mk-scatter-{css_name(sp.symbol)}-{k}", description=f"{k} ×", width=width)
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


# --------------------------------------------------------------------------- panels
class PayPanel(Panel):
    """The paytable tab: a box per line/ways pay (per coin option where the file has per-coin pays) and scatter pay."""

    title = "paytable"

    def load(self) -> None:
        self.ed = pay_editor(self.host.game)
        for (entry, k, i), box in self.ed.line.items():
            box.observe(lambda ch, e=entry, k=k, i=i: self.host.edit(
                lambda g: with_line_pay(g, e, k, ch["new"], i), ch["owner"], f"pay {k} × {e} → {ch['new']}"), "value")
        for (sym, k), box in self.ed.scatter.items():
            box.observe(lambda ch, s=sym, k=k: self.host.edit(
                lambda g: with_scatter_pay(g, s, k, ch["new"]), ch["owner"], f"scatter {k} × {s} → {ch['new']}"), "value")
        self.widget = self.ed.box

    def refresh(self) -> None:
        self.host.suppressed(lambda: set_pays(self.ed, self.host.game))


class FeaturePanel(Panel):
    """The features tab: one form per feature block, built from its TOML table."""

    title = "features"

    def load(self) -> None:
        self.ed = feature_editor(self.host.game)
        for (name, path), box in self.ed.fields.items():
            box.observe(lambda ch, name=name, path=path: self.host.edit(
                lambda g: with_feature(g, name, path, ch["new"]), ch["owner"],
                f"{name}.{'.'.join(map(str, path))} → {ch['new']}"), "value")
        self.widget = self.ed.box

    def refresh(self) -> None:
        self.host.suppressed(lambda: set_features(self.ed, self.host.game))
