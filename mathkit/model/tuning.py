"""The ``[tuning]`` table of a game file: what the tuner must keep, declared with the game.

The tuner (``mathkit tune``) and the workbench's "tune to target" read the same
declaration, so a designer writes once what the game must keep (what it aims at
is the ``[targets]`` table, :class:`~mathkit.model.game.Targets`).  This module reads
the table into a :class:`~mathkit.model.game.Tuning` (types and shapes, with located
errors, through :mod:`mathkit.model.fields`), checks the names it uses against the
game, and writes it back exactly as declared.  What each field means, and its
default when absent, is :mod:`mathkit.tuner`'s business.

The format (every field optional)::

    [tuning]
    reels = ["base"]              # reel sets the tuner may change
    vary = "strips"               # strips, pays or both
    fixed = ["SEAL", "EMPEROR"]   # symbols whose stops never change
    count_tolerance = 0.25        # per-reel counts within ±25% (at least ±1)
    hierarchy = ["DRAGON", "PHOENIX", ["ACE", "KING"]]   # never more frequent than the next tier
    no_adjacent = ["DRAGON"]      # never two of these next to each other
    max_run = { NINE = 2 }        # longest run of one symbol
    stacks = { SEAL = 3 }         # stack shapes kept (default: the runs found on the strips)
    keep_stacks = true
    keep_length = true
    keep_order = true             # a symbol that pays more never gets more stops than one it had no more than
    scatter_spacing = 3           # stops between two scatters at least
    feature_frequency_tolerance = 0.05

    [tuning.counts.base]          # explicit [min, max]: for every reel, or one pair per reel
    DRAGON = [1, 3]

Examples
--------
>>> t = tuning_from_dict({"tuning": {"fixed": ["W"], "count_tolerance": 0.2, "counts": {"base": {"H": [1, 3]}}}})
>>> t.fixed, t.count_tolerance, t.counts
(('W',), Fraction(1, 5), (('base', 'H', ((1, 3),)),))
>>> tuning_to_dict(t)
{'fixed': ['W'], 'count_tolerance': 0.2, 'counts': {'base': {'H': [1, 3]}}}
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..errors import GameError
from .fields import array, boolean, check_keys, fraction, integer, string, suggest, table
from .game import Game, Tuning

__all__ = ["VARY", "check_tuning", "tuning_from_dict", "tuning_to_dict"]

VARY = ("strips", "pays", "both")
KEYS = ("reels", "vary", "fixed", "count_tolerance", "counts", "hierarchy", "no_adjacent", "max_run", "stacks",
        "keep_stacks", "keep_length", "keep_order", "scatter_spacing", "feature_frequency_tolerance")


def _names(value: Any, field: str) -> tuple[str, ...]:
    return tuple(string(x, f"{field}[{i}]") for i, x in enumerate(array(value, field)))


def _pair(value: Any, field: str) -> tuple[int, int]:
    items = array(value, field)
    if len(items) != 2:
        msg = f"expected [min, max], got {value!r}"
        raise GameError(msg, field=field, fix="write [min, max] with whole numbers")
    lo, hi = integer(items[0], f"{field}[0]", minimum=0), integer(items[1], f"{field}[1]", minimum=0)
    if lo > hi:
        msg = f"[{lo}, {hi}] is empty"
        raise GameError(msg, field=field, fix="write [min, max] with min ≤ max")
    return lo, hi


def _counts(data: Mapping[str, Any], where: str) -> tuple[tuple[str, str, tuple[tuple[int, int], ...]], ...]:
    out = []
    for reels, spec in data.items():
        at = f"{where}.{reels}"
        if not isinstance(spec, dict):
            msg = "expected a table of SYMBOL = [min, max]"
            raise GameError(msg, field=at, fix=f"write [{at}] with DRAGON = [1, 3]")
        for sym, value in spec.items():
            field = f"{at}.{sym}"
            items = array(value, field)
            if items and isinstance(items[0], list):
                pairs = tuple(_pair(v, f"{field}[{i}]") for i, v in enumerate(items))
            else:
                pairs = (_pair(items, field),)
            out.append((reels, sym, pairs))
    return tuple(out)


def _int_table(data: Mapping[str, Any], where: str, minimum: int) -> tuple[tuple[str, int], ...]:
    return tuple((k, integer(v, f"{where}.{k}", minimum=minimum)) for k, v in data.items())


def tuning_from_dict(data: Mapping[str, Any]) -> Tuning | None:
    """The game data's ``[tuning]`` table as a :class:`~mathkit.model.game.Tuning` (``None`` when there is none)."""
    spec = table(data, "tuning", "")
    if "tuning" not in data:
        return None
    w = "tuning"
    check_keys(spec, KEYS, w)
    vary = spec.get("vary")
    if vary is not None and vary not in VARY:
        msg = f"unknown vary {vary!r}"
        raise GameError(msg, field=f"{w}.vary", fix=suggest(str(vary), VARY))
    hierarchy = []
    for i, tier in enumerate(array(spec.get("hierarchy", []), f"{w}.hierarchy")):
        at = f"{w}.hierarchy[{i}]"
        hierarchy.append(_names(tier, at) if isinstance(tier, list) else (string(tier, at),))

    def opt_fraction(key: str) -> Fraction | None:
        if key not in spec:
            return None
        value = fraction(spec[key], f"{w}.{key}")
        if not 0 <= value <= 1:
            msg = f"expected a fraction between 0 and 1, got {spec[key]}"
            raise GameError(msg, field=f"{w}.{key}", fix="write e.g. 0.25 for ±25%")
        return value

    def opt_bool(key: str) -> bool | None:
        return None if key not in spec else boolean(spec[key], f"{w}.{key}")

    return Tuning(
        reels=_names(spec.get("reels", []), f"{w}.reels"),
        vary=vary,
        fixed=None if "fixed" not in spec else _names(spec["fixed"], f"{w}.fixed"),
        count_tolerance=opt_fraction("count_tolerance"),
        counts=_counts(table(spec, "counts", w), f"{w}.counts"),
        hierarchy=tuple(hierarchy),
        no_adjacent=_names(spec.get("no_adjacent", []), f"{w}.no_adjacent"),
        max_run=_int_table(table(spec, "max_run", w), f"{w}.max_run", 1),
        stacks=_int_table(table(spec, "stacks", w), f"{w}.stacks", 2),
        keep_stacks=opt_bool("keep_stacks"),
        keep_length=opt_bool("keep_length"),
        keep_order=opt_bool("keep_order"),
        scatter_spacing=None if "scatter_spacing" not in spec else integer(spec["scatter_spacing"],
                                                                          f"{w}.scatter_spacing", minimum=1),
        feature_frequency_tolerance=opt_fraction("feature_frequency_tolerance"),
    )


def check_tuning(game: Game) -> None:
    """Refuse a ``[tuning]`` table naming a symbol or reel set the game does not have."""
    t = game.tuning
    if t is None:
        return
    symbols = game.symbol_names
    sets = tuple(rs.name for rs in game.reel_sets)

    def sym(name: str, field: str) -> None:
        if name not in symbols:
            msg_0 = f"unknown symbol {name!r}"
            raise GameError(msg_0, field=field, fix=suggest(name, symbols))

    for i, name in enumerate(t.reels):
        if name not in sets:
            msg = f"unknown reel set {name!r}"
            raise GameError(msg, field=f"tuning.reels[{i}]", fix=suggest(name, sets))
    for key, names in (("fixed", t.fixed or ()), ("no_adjacent", t.no_adjacent)):
        for i, name in enumerate(names):
            sym(name, f"tuning.{key}[{i}]")
    for i, tier in enumerate(t.hierarchy):
        for j, name in enumerate(tier):
            sym(name, f"tuning.hierarchy[{i}]" + (f"[{j}]" if len(tier) > 1 else ""))
    for key, pairs in (("max_run", t.max_run), ("stacks", t.stacks)):
        for name, _ in pairs:
            sym(name, f"tuning.{key}.{name}")
    for reels, name, bounds in t.counts:
        if reels not in sets:
            msg = f"unknown reel set {reels!r}"
            raise GameError(msg, field=f"tuning.counts.{reels}", fix=suggest(reels, sets))
        sym(name, f"tuning.counts.{reels}.{name}")
        n = game.reel_set(reels).n_reels
        if len(bounds) not in (1, n):
            msg = f"{len(bounds)} [min, max] pairs for {n} reels"
            raise GameError(msg, field=f"tuning.counts.{reels}.{name}", fix="give one pair for every reel, or one")


def _number(x: Fraction) -> int | float | str:
    if x.denominator == 1:
        return int(x)
    if Fraction(str(float(x))) == x:
        return float(x)
    return f"{x.numerator}/{x.denominator}"


def tuning_to_dict(t: Tuning) -> dict[str, Any]:
    """The ``[tuning]`` table as declared (inverse of :func:`tuning_from_dict`)."""
    out: dict[str, Any] = {}
    if t.reels:
        out["reels"] = list(t.reels)
    if t.vary is not None:
        out["vary"] = t.vary
    if t.fixed is not None:
        out["fixed"] = list(t.fixed)
    if t.count_tolerance is not None:
        out["count_tolerance"] = _number(t.count_tolerance)
    if t.hierarchy:
        out["hierarchy"] = [tier[0] if len(tier) == 1 else list(tier) for tier in t.hierarchy]
    if t.no_adjacent:
        out["no_adjacent"] = list(t.no_adjacent)
    if t.max_run:
        out["max_run"] = dict(t.max_run)
    if t.stacks:
        out["stacks"] = dict(t.stacks)
    for key in ("keep_stacks", "keep_length", "keep_order", "scatter_spacing"):
        if getattr(t, key) is not None:
            out[key] = getattr(t, key)
    if t.feature_frequency_tolerance is not None:
        out["feature_frequency_tolerance"] = _number(t.feature_frequency_tolerance)
    if t.counts:
        counts: dict[str, dict[str, Any]] = {}
        for reels, name, bounds in t.counts:
            counts.setdefault(reels, {})[name] = list(bounds[0]) if len(bounds) == 1 else [list(b) for b in bounds]
        out["counts"] = counts
    return out
