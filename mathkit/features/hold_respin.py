"""Hold and re-spin: when exactly ``count`` of a scatter show, they are held and every other cell re-spins once.

The worked example of ``docs/extending.md``: a whole mechanic in one module.

TOML::

    [hold_respin]
    symbol = "SCATTER"     # a scatter symbol
    count = 2              # exactly this many in the base window start the re-spin
    reels = "base"         # the reel set the re-spin draws from (default: the game's default set)

Reading: the held cells keep showing the scatter; every other cell shows what a
fresh spin of ``reels`` shows there; the re-spin pays its line and scatter wins
(the held scatters count towards the scatter pay), once, and starts nothing.

The maths: a base spin's observation ``SYMBOL@r`` (the rows of reel ``r`` showing
the symbol, as a bitmask) gives the held cells; the re-spin is a spin of
``reels`` with those cells forced to the symbol.  Given the held cells the
re-spin is independent of the base spin, so its law per entry is exact: the mean
from per-reel algebra (a line's mean depends only on the reels where its cell is
held), moments and distribution from the enumeration of the forced spin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Self

from ..errors import GameError, ModelError
from ..laws.provenance import FeatureSection, Figure
from ..laws.stage import Branch, Entry, Level, SpinModel, StageLaw
from ..model.fields import check_keys, integer, string
from ..model.game import Game, Role
from ..play.vocabulary import Cells as Showing
from ..play.vocabulary import Count, Force, Reg, Sequence, Set, Spin, Stage, Stake, Test
from .base import Block, Context, FeatureStats, MaxWin

__all__ = ["HoldRespin"]

Cells = tuple[tuple[int, int], ...]


def _cells(entry: Entry) -> Cells:
    if not isinstance(entry, tuple):
        msg = f"a hold-and-re-spin starts from the held cells, not {entry!r}"
        raise ModelError(msg)
    return entry


@dataclass(frozen=True, kw_only=True)
class HoldRespin(Block):
    """Exactly ``count`` scatters ``symbol`` are held; every other cell re-spins once on ``reels``.

    Examples
    --------
    >>> h = HoldRespin(name="hold_respin", symbol="S", count=2, reels="base")
    >>> h.entry({"S@1": 0b001, "S@2": 0, "S@3": 0b100, "T": 4})
    ((0, 0), (2, 2))
    >>> h.entry({"S@1": 0b001, "S@2": 0, "S@3": 0}) is None
    True
    """

    kind: ClassVar[str] = "hold_respin"
    role: ClassVar[Role] = "sequence"
    title: ClassVar[str] = "Hold and re-spin"

    symbol: str
    count: int
    reels: str

    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        check_keys(data, ("name", "symbol", "count", "reels"), where)
        return cls(name=name, symbol=string(data.get("symbol"), f"{where}.symbol"),
                   count=integer(data.get("count", 2), f"{where}.count", minimum=1),
                   reels=string(data.get("reels", "base"), f"{where}.reels"))

    def table(self) -> dict[str, Any]:
        return {"symbol": self.symbol, "count": self.count, "reels": self.reels}

    def reel_sets(self) -> tuple[str, ...]:
        return (self.reels,)

    def symbols(self) -> tuple[str, ...]:
        return (self.symbol,)

    def validate(self, game: Game, where: str) -> None:
        if self.symbol not in game.symbol_names or not game.symbol(self.symbol).is_scatter:
            msg = f"{self.symbol!r} is not a scatter symbol"
            raise GameError(msg, field=f"{where}.symbol", fix="hold a scatter symbol")
        if self.reels not in [rs.name for rs in game.reel_sets]:
            msg = f"no reel set {self.reels!r}"
            raise GameError(msg, field=f"{where}.reels", fix=f"use one of: {', '.join(rs.name for rs in game.reel_sets)}")

    # --- the round ----------------------------------------------------------------------
    def trigger_digits(self, game: Game) -> tuple[str, ...]:
        return tuple(f"{self.symbol}@{r + 1}" for r in range(game.n_reels))

    def entry(self, digits: Mapping[str, int]) -> Entry | None:
        cells = []
        r = 0
        while (mask := digits.get(f"{self.symbol}@{r + 1}")) is not None:
            cells += [(r, row) for row in range(mask.bit_length()) if mask >> row & 1]
            r += 1
        return tuple(cells) if len(cells) == self.count else None

    def model(self, cells: Cells) -> SpinModel:
        """The re-spin: a spin of ``reels`` with the held cells forced to the symbol."""
        return SpinModel(self.reels, forced=tuple((r, row, self.symbol) for r, row in cells))

    def law(self, ctx: Context, entry: Entry, level: Level) -> StageLaw:
        model = self.model(_cells(entry))
        top = ctx.win_bound(model)
        if level == "mean":
            mean = sum(ctx.means(model).values(), Fraction(0))
            return StageLaw({(): Branch(Fraction(1), mean, top=top)}, {self.component: mean}, "exact", level)
        joint = ctx.joint(model)
        w = joint.cycle
        s1 = sum(int(x) * int(c) for x, c in zip(joint.wins.tolist(), joint.counts.tolist(), strict=True))
        s2 = sum(int(x) ** 2 * int(c) for x, c in zip(joint.wins.tolist(), joint.counts.tolist(), strict=True))
        dist = joint.play_law() if level == "distribution" else None
        return StageLaw({(): Branch(Fraction(1), Fraction(s1, w), Fraction(s2, w), dist, top)},
                        {self.component: Fraction(s1, w)}, "exact", level)

    def max_win(self, ctx: Context) -> MaxWin:
        top = ctx.win_bound(SpinModel(self.reels))
        return MaxWin(True, top, f"{self.name}: one re-spin of at most {top:,} credits")

    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        bet = ctx.total_bet
        p = stats.p_enter
        figures = [("trigger probability", Figure.of(p)),
                   ("trigger frequency (1 in N)", Figure.odds(p)),
                   ("held patterns reached", Figure.of(len(stats.entries)))]
        if p:
            win = sum((q * stats.laws[e].mean for e, q in stats.entries.items()), Fraction(0)) / p
            figures += [("average re-spin win (× bet)", Figure.of(win / bet)),
                        ("RTP contribution", Figure.of(p * win / bet))]
        notes = (f"exactly {self.count} {self.symbol} hold their cells; every other cell re-spins once on reel set "
                 f"{self.reels!r}; the re-spin pays lines and scatters (the held ones count)",)
        return FeatureSection(self.title, tuple(figures), notes=notes)

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(("symbol", "count", "reels"))

    def sim_table(self, game: Game, stake: Stake) -> Sequence:
        """The held cells as a mask register, set from the base window; one re-spin with them forced."""
        shown = (self.symbol,)
        respin = Spin(self.reels, forced=(Force(Reg("held"), self.symbol),))
        return Sequence(registers=("held",), trigger=(Test(Count(shown), "==", self.count),),
                        entry=(Set("held", Showing(shown)),), stages=(Stage("respin", spins=(respin,)),))
