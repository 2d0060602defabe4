"""Random overlay wilds: a main-game spin may play on its own reel set with wilds laid over some cells.

TOML::

    [overlay_wilds]
    probability = "1/10"     # P(a main-game spin is an overlay spin)
    reels = "overlay"        # the reel set overlay spins draw from
    symbol = "WILD"          # the wild laid over the cells

    [[overlay_wilds.types]]
    name = "hammer"
    weight = 40              # P(type | overlay spin) ∝ weight
    shape = "square"         # a size × size square of adjacent cells, every position alike
    size = 2
    reels = [1, 2, 3, 4]     # the reels it may cover

    [[overlay_wilds.types]]
    name = "arrow"
    weight = 35
    shape = "cells"          # a number of distinct cells drawn at random, every set alike
    counts = { 2 = 40, 3 = 30, 4 = 20, 5 = 10 }
    reels = [1, 2, 3, 4, 5]

The maths.  An overlay spin is a spin of ``reels`` whose forced cells are drawn
independently of the stops (:class:`mathkit.laws.stage.Overlay`).  A cell's symbol on a
reel does not depend on what is forced in the reel's other rows, so a line's mean
depends only on the reels where it crosses a wild: the engine's forced-cell line
table (``2⁵`` walks per line class) prices every placement exactly, without
enumerating any of them; the base spin's observations (scatters) are taken reel by
reel under each placement.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Literal, Self

from ..errors import GameError
from ..laws.provenance import FeatureSection, Figure
from ..laws.stage import Level, Overlay, Spin, SpinModel
from ..model.bounds import check_cost
from ..model.fields import array, check_keys, count_key, fraction, integer, string
from ..model.game import Game, Role
from ..play.vocabulary import Const, Force, Law, Pick, Random, Stake, Value, Variant, Variants
from .base import Block, Context, FeatureStats, check_reels

__all__ = ["OverlayType", "OverlayWilds"]

Shape = Literal["square", "cells"]
Cells = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class OverlayType:
    """One type of overlay: its weight and how its wilds are placed.

    ``shape = "square"``: a ``size × size`` square over adjacent reels of ``reels`` and adjacent
    rows, every position alike; ``"cells"``: ``k`` distinct cells of ``reels`` (``k`` drawn by
    ``counts``), every set of ``k`` alike.

    Examples
    --------
    >>> hammer = OverlayType("hammer", 1, "square", (1, 2, 3, 4), size=2)
    >>> len(hammer.placements((3,) * 5)[0])
    6
    >>> arrow = OverlayType("arrow", 1, "cells", (1, 2, 3, 4, 5), counts=((2, 1), (3, 1)))
    >>> placements, weights = arrow.placements((3,) * 5)
    >>> len(placements), sum(w for p, w in zip(placements, weights) if len(p) == 2) == sum(weights) // 2
    (560, True)
    """

    name: str
    weight: int
    shape: Shape
    reels: tuple[int, ...]
    size: int = 2
    counts: tuple[tuple[int, int], ...] = ()

    @classmethod
    def from_table(cls, data: Any, where: str) -> Self:
        if not isinstance(data, Mapping):
            msg = "expected a table"
            raise GameError(msg, field=where, fix="write [[overlay_wilds.types]] tables")
        check_keys(data, ("name", "weight", "shape", "size", "counts", "reels"), where)
        shape = data.get("shape")
        if shape not in ("square", "cells"):
            msg = f"unknown shape {shape!r}"
            raise GameError(msg, field=f"{where}.shape", fix='use "square" (size × size) or "cells" (counts)')
        counts: tuple[tuple[int, int], ...] = ()
        if shape == "cells":
            raw = data.get("counts")
            if not isinstance(raw, Mapping) or not raw:
                msg = "expected a table of wilds = weight"
                raise GameError(msg, field=f"{where}.counts", fix="write e.g. { 2 = 40, 3 = 30 }")
            counts = tuple(sorted((count_key(k, f"{where}.counts.{k}"), integer(v, f"{where}.counts.{k}", minimum=0))
                                  for k, v in raw.items()))
        reels = tuple(integer(x, f"{where}.reels[{i}]", minimum=1)
                      for i, x in enumerate(array(data.get("reels", []), f"{where}.reels")))
        return cls(string(data.get("name"), f"{where}.name"), integer(data.get("weight", 1), f"{where}.weight", minimum=0),
                   shape, reels, integer(data.get("size", 2), f"{where}.size", minimum=1), counts)

    def table(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "weight": self.weight, "shape": self.shape, "reels": list(self.reels)}
        if self.shape == "square":
            out["size"] = self.size
        else:
            out["counts"] = {str(k): w for k, w in self.counts}
        return out

    def validate(self, game: Game, rows: tuple[int, ...], where: str) -> None:
        if not self.reels:
            msg = "no reels"
            raise GameError(msg, field=f"{where}.reels", fix=f"list reels from 1 to {game.n_reels}")
        check_reels(self.reels, game, where)
        cells = sum(rows[r - 1] for r in set(self.reels))
        if self.shape == "cells":
            if all(w == 0 for _, w in self.counts):
                msg = "every count has weight 0"
                raise GameError(msg, field=f"{where}.counts")
            for k, _ in self.counts:
                if k > cells:
                    msg = f"{k} wilds on {cells} cells"
                    raise GameError(msg, field=f"{where}.counts.{k}", fix=f"at most {cells}")
        elif not self.placements(rows)[0]:
            msg = f"no {self.size}×{self.size} square fits on reels {list(self.reels)}"
            raise GameError(msg, field=f"{where}.size")

    def placements(self, rows: tuple[int, ...]) -> tuple[tuple[Cells, ...], tuple[int, ...]]:
        """Every placement (its ``(reel, row)`` cells, from 0) and its integer weight."""
        reels = sorted(r - 1 for r in set(self.reels))
        if self.shape == "square":
            out = []
            for i in range(len(reels) - self.size + 1):
                cols = reels[i:i + self.size]
                if cols[-1] - cols[0] != self.size - 1:
                    continue  # the square needs adjacent reels
                height = min(rows[r] for r in cols)
                for top in range(height - self.size + 1):
                    out.append(tuple((r, top + k) for r in cols for k in range(self.size)))
            return tuple(out), (1,) * len(out)
        cells = [(r, k) for r in reels for k in range(rows[r])]
        kept = [(k, w) for k, w in self.counts if w]
        # every placement is listed (a tuple of k cells each): refused in time when they are too many to hold
        n = sum(math.comb(len(cells), k) for k, _ in kept)
        check_cost(f"the {self.name} overlay's {n:,} placements of its wilds on {len(cells)} cells",
                   memory=n * (120 + 80 * max((k for k, _ in kept), default=0)), field="overlay_wilds.types",
                   fix="fewer wilds per overlay, or fewer rows or reels under it")
        scale = math.lcm(*(math.comb(len(cells), k) for k, _ in kept))
        placements: list[Cells] = []
        weights: list[int] = []
        for k, w in kept:
            each = w * scale // math.comb(len(cells), k)
            for combo in itertools.combinations(cells, k):
                placements.append(combo)
                weights.append(each)
        return tuple(placements), tuple(weights)

    def sim_cells(self, rows: tuple[int, ...], stake: Stake) -> Value:
        """The simulator's draw of the cells: a square's position alike, or ``k`` (by ``counts``) distinct cells alike."""
        if self.shape == "square":
            squares = self.placements(rows)[0]
            return Random((Law(tuple(stake.mask(p) for p in squares), (1,) * len(squares)),))
        cells = stake.mask((r - 1, k) for r in set(self.reels) for k in range(rows[r - 1]))
        return Pick(Const(cells), Random((Law.of(dict(self.counts)),)))

    def describe(self) -> str:
        where = f"reels {', '.join(str(r) for r in self.reels)}"
        if self.shape == "square":
            return f"{self.name}: a {self.size}×{self.size} square of wilds on {where}, every position alike"
        counts = ", ".join(f"{k} (weight {w})" for k, w in self.counts)
        return f"{self.name}: {counts} wilds on distinct cells of {where}, every set alike"


@dataclass(frozen=True, kw_only=True)
class OverlayWilds(Block):
    """Random overlay wilds on main-game spins: with ``probability`` a spin plays ``reels`` under one overlay type.

    Examples
    --------
    >>> ow = OverlayWilds(name="overlay_wilds", probability=Fraction(1, 10), reels="overlay", symbol="W",
    ...                   types=(OverlayType("hammer", 3, "square", (1, 2)), OverlayType("arrow", 1, "cells", (1,),
    ...                          counts=((1, 1),))))
    >>> ow.p_type(0), ow.p_type(1)
    (Fraction(3, 40), Fraction(1, 40))
    """

    kind: ClassVar[str] = "overlay_wilds"
    role: ClassVar[Role] = "modifier"
    title: ClassVar[str] = "Overlay wilds"

    probability: Fraction
    reels: str
    symbol: str
    types: tuple[OverlayType, ...]

    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        check_keys(data, ("name", "probability", "reels", "symbol", "types"), where)
        for k in ("probability", "reels", "symbol", "types"):
            if k not in data:
                msg = "missing field"
                raise GameError(msg, field=f"{where}.{k}", fix="overlay wilds need probability, reels, symbol and types")
        raw = array(data["types"], f"{where}.types")
        return cls(name=name, probability=fraction(data["probability"], f"{where}.probability"),
                   reels=string(data["reels"], f"{where}.reels"), symbol=string(data["symbol"], f"{where}.symbol"),
                   types=tuple(OverlayType.from_table(t, f"{where}.types[{i}]") for i, t in enumerate(raw)))

    def table(self) -> dict[str, Any]:
        p = self.probability
        return {"probability": str(p) if p.denominator != 1 else int(p), "reels": self.reels, "symbol": self.symbol,
                "types": [t.table() for t in self.types]}

    def reel_sets(self) -> tuple[str, ...]:
        return (self.reels,)

    def symbols(self) -> tuple[str, ...]:
        return (self.symbol,)

    def validate(self, game: Game, where: str) -> None:
        if not 0 <= self.probability <= 1:
            msg = f"{self.probability} is not a probability"
            raise GameError(msg, field=f"{where}.probability", fix='write e.g. "1/10"')
        if self.symbol not in game.symbol_names or not game.symbol(self.symbol).is_wild:
            msg = f"{self.symbol!r} is not a wild symbol"
            raise GameError(msg, field=f"{where}.symbol", fix=f"use one of: {', '.join(s.name for s in game.wilds) or '(none)'}")
        if game.pay_mode != "lines":
            msg = "overlay wilds need a lines game"
            raise GameError(msg, field=where, fix='set pay_mode = "lines"')
        sets = {rs.name: rs for rs in game.reel_sets}
        if self.reels not in sets:
            msg = f"no reel set {self.reels!r}"
            raise GameError(msg, field=f"{where}.reels", fix=f"use one of: {', '.join(sets)}")
        if not self.types or all(t.weight == 0 for t in self.types):
            msg = "no overlay type with a positive weight"
            raise GameError(msg, field=f"{where}.types", fix="add [[overlay_wilds.types]] tables")
        names = [t.name for t in self.types]
        if len(set(names)) != len(names):
            msg = "two overlay types share a name"
            raise GameError(msg, field=f"{where}.types", fix="name every type once")
        for i, t in enumerate(self.types):
            t.validate(game, sets[self.reels].rows, f"{where}.types[{i}]")

    def p_type(self, i: int) -> Fraction:
        """P(a main-game spin is an overlay spin of type ``i``)."""
        return self.probability * Fraction(self.types[i].weight, sum(t.weight for t in self.types))

    def label(self, i: int) -> str:
        """The PAR component prefix of type ``i``'s spins."""
        return f"{self.component}: {self.types[i].name}"

    def overlay(self, ctx: Context, i: int, model: SpinModel) -> Overlay:
        """Type ``i``'s spin: the overlay reel set (``model``'s height and lines) under its placements."""
        rows = ctx.game.reel_set(self.reels).rows if model.rows is None else (model.rows,) * ctx.game.n_reels
        placements, weights = ctx.shared(("overlay placements", self.types[i], rows), (),
                                         lambda: self.types[i].placements(rows))
        return Overlay(SpinModel(self.reels, rows=model.rows, lines=model.lines), self.symbol, placements, weights)

    def spin_models(self, ctx: Context, model: SpinModel) -> tuple[tuple[Fraction, Spin, str], ...]:
        out: list[tuple[Fraction, Spin, str]] = []
        if self.probability < 1:
            out.append((1 - self.probability, model, ""))
        out += [(self.p_type(i), self.overlay(ctx, i, model), self.label(i))
                for i, t in enumerate(self.types) if t.weight and self.probability]
        return tuple(out)

    def supported_level(self, game: Game) -> Level:
        return "distribution"

    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        bet = ctx.total_bet
        base = ctx.base_model()
        figures: list[tuple[str, Figure]] = [("overlay probability per main-game spin", Figure.of(self.probability))]
        rows: list[tuple[str, ...]] = [("type", "P(per spin)", "1 in", "placements", "average spin win (× bet)",
                                        "RTP contribution")]
        for i, t in enumerate(self.types):
            p = self.p_type(i)
            o = self.overlay(ctx, i, base)
            win = sum(ctx.means(o).values(), Fraction(0))
            figures += [(f"{t.name}: probability per spin", Figure.of(p)),
                        (f"{t.name}: average spin win (× bet)", Figure.of(win / bet)),
                        (f"{t.name}: RTP contribution", Figure.of(p * win / bet))]
            rows.append((t.name, f"{float(p):.6g}", f"{float(1 / p):,.1f}" if p else "never", f"{len(o.placements):,}",
                         f"{float(win / bet):.4f}", f"{float(p * win / bet):.4%}"))
        notes = (f"with probability {self.probability} a main-game spin plays reel set {self.reels!r} with {self.symbol} laid "
                 "over the cells of one placement (its scatters, if any, count as shown)",
                 *(t.describe() for t in self.types),
                 "exact: every placement priced from the per-line forced-cell table (a line's mean depends only on "
                 "the reels where it crosses a wild)")
        return FeatureSection(self.title, tuple(figures), tuple(rows), notes)

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(("probability", "reels", "symbol", "types"))

    def sim_table(self, game: Game, stake: Stake) -> Variants:
        """A main-game spin: with ``probability`` an overlay spin of a type drawn by weight, its cells drawn by its shape."""
        p = self.probability
        total = sum(t.weight for t in self.types)
        rows = game.reel_set(self.reels).rows
        plain = Variant((p.denominator - p.numerator) * total)
        return Variants((plain, *(Variant(p.numerator * t.weight, reels=self.reels,
                                          forced=(Force(t.sim_cells(rows, stake), self.symbol),), label=self.label(i))
                                  for i, t in enumerate(self.types) if t.weight and p)))
