"""The registry: which block reads which TOML table, and the one path from tables to blocks and back.

A game file declares a feature as a top-level table named by its kind
(``[free_spins]``), or several of one kind as an array of tables, each with a
``name`` (``[[free_spins]] name = "barbarian"``).  :data:`KINDS` maps each kind
to the module and class of its block; a block's module is imported only when a
game declares that kind, so loading a game that uses none of them stays light.

Adding a mechanic is one module in this package and one line in :data:`KINDS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from ..errors import GameError, ModelError
from ..model.fields import show
from ..model.game import Feature
from .base import Block

__all__ = ["KINDS", "block_class", "features_from_dict", "features_to_dict"]

KINDS: dict[str, str] = {
    "free_spins": "mathkit.features.free_spins:FreeSpins",
    "gamble": "mathkit.features.gamble:Gamble",
    "cap": "mathkit.features.cap:Cap",
    "variable_heights": "mathkit.features.heights:VariableHeights",
    "hold_respin": "mathkit.features.hold_respin:HoldRespin",
    "overlay_wilds": "mathkit.features.overlay_wilds:OverlayWilds",
    "scatter_respins": "mathkit.features.scatter_respins:ScatterRespins",
    "multiplier_free_spins": "mathkit.features.multiplier_spins:MultiplierFreeSpins",
    "sticky_free_spins": "mathkit.features.sticky_spins:StickyFreeSpins",
    "cash_stacks": "mathkit.features.cash_stacks:CashStacks",
    "jackpots": "mathkit.features.jackpots:Jackpots",
    "free_games": "mathkit.features.free_games:FreeGames",
    "pick_bonus": "mathkit.features.pick_bonus:PickBonus",
}
"""Feature kind (its TOML table name) → ``module:class`` of its block."""


def block_class(kind: str) -> type[Block]:
    """The block class of feature ``kind`` (importing its module)."""
    module, _, name = KINDS[kind].partition(":")
    cls = getattr(importlib.import_module(module), name)
    if not (isinstance(cls, type) and issubclass(cls, Block) and cls.kind == kind):
        msg = f"registry entry {kind!r} does not name a block of that kind"
        raise ModelError(msg)
    return cls


def features_from_dict(data: Mapping[str, Any]) -> tuple[Feature, ...]:
    """Every feature table of a game's data, as blocks, in the order the file declares them.

    Examples
    --------
    >>> fs = features_from_dict({"cap": 5000, "name": "g"})
    >>> [(f.kind, f.name) for f in fs]
    [('cap', 'cap')]
    """
    out: list[Feature] = []
    names: dict[str, str] = {}
    for key, value in data.items():
        if key not in KINDS:
            continue
        cls = block_class(key)
        items = value if isinstance(value, list) else [value]
        if isinstance(value, list) and not value:
            msg = "an empty array of feature tables"
            raise GameError(msg, field=key, fix=f"remove it, or add [[{key}]] tables")
        for i, item in enumerate(items):
            where = f"{key}[{i}]" if isinstance(value, list) else key
            if isinstance(value, list):
                if not isinstance(item, dict):
                    msg = "expected a table"
                    raise GameError(msg, field=where, fix=f"write [[{key}]] tables")
                name = item.get("name")
                if not isinstance(name, str) or not name:
                    msg = "a feature in an array of tables needs a name"
                    raise GameError(msg, field=f"{where}.name", fix='add name = "..." (unique in the game)')
            else:
                name = key
            if not isinstance(item, dict) and not cls.scalar:
                msg = f"expected a table, got {show(item)}"
                raise GameError(msg, field=where, fix=f"write a [{key}] table with its fields")
            if name in names:
                msg = f"feature name {name!r} is used twice"
                raise GameError(msg, field=f"{where}.name", fix="give every feature a unique name")
            names[name] = where
            out.append(cls.from_table(name, item, where))
    return tuple(out)


def features_to_dict(features: tuple[Feature, ...]) -> dict[str, Any]:
    """The TOML tables of ``features`` (inverse of :func:`features_from_dict`)."""
    out: dict[str, Any] = {}
    by_kind: dict[str, list[Feature]] = {}
    for f in features:
        by_kind.setdefault(f.kind, []).append(f)
    for kind, items in by_kind.items():
        if len(items) == 1 and items[0].name == kind:
            out[kind] = items[0].table()
        else:
            out[kind] = [{"name": f.name, **f.table()} for f in items]
    return out
