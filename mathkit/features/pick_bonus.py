"""Pick bonus: enough bonus symbols start a pick game whose prize is the sum of picks from a weighted table.

TOML::

    [pick_bonus]
    symbol = "BONUS"                 # the bonus symbol (any symbol but a wild)
    count = 3                        # this many or more start the pick game
    trigger = "scatter"              # "scatter": anywhere in the window; "line": on the payline (see below)
    picks = 3                        # picks played; or by the count shown: { 3 = 3, 4 = 4, 5 = 5 }
    prizes = { 5 = 4, 10 = 3, 25 = 3, 100 = 2 }   # prize = weight (tiles on the board)
    replace = false                  # false: tiles are turned over once (a finite board); true: every pick
                                     # draws from the whole table again (a wheel)
    unit = "total_bet"               # prizes are × the total bet, or "line_bet": × the bet on one line

Readings (what published games do, and why):

* **Where the symbols count.**  Multi-line video slots start their pick bonuses with
  bonus symbols *scattered* ("3 or more BONUS anywhere on the reels"); classic 3-reel
  steppers with one payline and one row start it with the symbols *on the payline*,
  which there is the whole window.  ``trigger = "line"`` is that classic reading: it
  is accepted where the line trigger and the window count are the same thing — every
  reel set shows one row, no modifier changes the window, and ``count`` is the number
  of reels (the symbol on every reel of the line) — and refused elsewhere with the
  reason, rather than computed under another rule.
* **Wilds** do not stand in for the bonus symbol (the usual "wild does not substitute for
  BONUS"); the bonus symbol's own line or scatter pays, if the paytable gives it any, are
  paid as well.
* **Which spins.**  The base spin starts it (and spins a feature plays as the base game
  plays one, like free games); free spins and re-spins do not.
* **Once per spin.**  A spin starts one pick game however many symbols show;
  ``picks`` keyed by counts reads like every count table (the largest key not above the
  count shown).
* **Weights without replacement are tiles**: ``{ 10 = 3 }`` puts three tiles of 10 on the
  board; each pick turns over one of the tiles not yet turned, each alike.  With
  replacement a weight is the prize's share of the draw.
* **The unit.**  ``line_bet`` prizes are paid × the coins bet on one line (a line game
  without a fixed total bet); ``total_bet`` prizes × the total bet.  Pays stay whole
  credits either way.

The maths (:mod:`mathkit.features.picks`): the summed prize's law is exact (integer
counts over ``W^n`` ordered draws, or over the ``C(W, n)`` sets of tiles); the round
composer adds it to the spin that started it (independent of it given the number of
picks), so the round's σ and win distribution include the bonus's own variance.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Literal, Self, cast

import numpy as np

from ..errors import GameError, ModelError
from ..laws.law import WinLaw
from ..laws.provenance import FeatureSection, Figure
from ..laws.stage import Branch, Entry, Level, Number, StageLaw
from ..model.bounds import MAX_FEATURE_SPINS, check_cost, check_win, largest_bet
from ..model.fields import boolean, check_keys, count_table, integer, show, string
from ..model.game import Game, Role, at_most
from ..play.vocabulary import Add, Const, Count, Goto, Law, Lookup, Or, Pay, Random, Reg, Sequence, Set, Stage, Stake, Test, Without
from .base import Block, Context, FeatureStats, MaxWin
from .picks import PickLaw, pick_law

__all__ = ["PickBonus"]

Trigger = Literal["scatter", "line"]
Unit = Literal["total_bet", "line_bet"]
TRIGGERS: tuple[Trigger, ...] = ("scatter", "line")
UNITS: tuple[Unit, ...] = ("total_bet", "line_bet")
SIM_TILES = 63
"""Most tiles the simulator's board holds without replacement (one bit of a register per tile)."""


def _picks(entry: Entry) -> int:
    if not isinstance(entry, int) or entry < 1:
        msg = f"a pick game starts from its number of picks, not {entry!r}"
        raise ModelError(msg)
    return entry


@dataclass(frozen=True, kw_only=True)
class PickBonus(Block):
    """``count`` or more ``symbol`` start a pick game: ``picks`` prizes drawn from ``prizes`` and summed.

    Examples
    --------
    >>> b = PickBonus(name="pick_bonus", symbol="B", picks=((3, 2),), prizes=((5, 2), (20, 1)))
    >>> b.entry({"B": 2}), b.entry({"B": 4})
    (None, 2)
    >>> b.law_of(2).values, str(b.law_of(2).mean)   # tiles 5, 5, 20: the pair {5, 5} once, {5, 20} twice
    ((10, 25), '20')
    """

    kind: ClassVar[str] = "pick_bonus"
    role: ClassVar[Role] = "sequence"
    title: ClassVar[str] = "Pick bonus"

    symbol: str
    picks: tuple[tuple[int, int], ...]
    prizes: tuple[tuple[int, int], ...]
    count: int = 3
    trigger: Trigger = "scatter"
    replace: bool = False
    unit: Unit = "total_bet"

    # --- data ---------------------------------------------------------------------------
    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        check_keys(data, ("name", "symbol", "count", "trigger", "picks", "prizes", "replace", "unit"), where)
        count = integer(data.get("count", 3), f"{where}.count", minimum=1)
        raw = data.get("picks")
        if isinstance(raw, dict):
            picks = count_table(raw, f"{where}.picks", what="picks", maximum=MAX_FEATURE_SPINS)
        else:
            picks = ((count, integer(raw, f"{where}.picks", minimum=1, maximum=MAX_FEATURE_SPINS)),)
        for k, n in picks:
            if n < 1:
                msg = "a pick game needs at least one pick"
                raise GameError(msg, field=f"{where}.picks.{k}", fix="give 1 or more picks")
        trigger = _choice(data.get("trigger", "scatter"), TRIGGERS, f"{where}.trigger")
        unit = _choice(data.get("unit", "total_bet"), UNITS, f"{where}.unit")
        return cls(name=name, symbol=string(data.get("symbol"), f"{where}.symbol"), count=count,
                   trigger=cast(Trigger, trigger), picks=picks, prizes=_prizes(data.get("prizes"), f"{where}.prizes"),
                   replace=boolean(data.get("replace", False), f"{where}.replace"), unit=cast(Unit, unit))

    def table(self) -> dict[str, Any]:
        picks: int | dict[str, int] = (self.picks[0][1] if len(self.picks) == 1 and self.picks[0][0] == self.count
                                       else {str(k): n for k, n in self.picks})
        return {"symbol": self.symbol, "count": self.count, "trigger": self.trigger, "picks": picks,
                "prizes": {str(v): w for v, w in self.prizes}, "replace": self.replace, "unit": self.unit}

    def symbols(self) -> tuple[str, ...]:
        return (self.symbol,)

    @property
    def board(self) -> int:
        """The table's total weight (the number of tiles on the board, without replacement)."""
        return sum(w for _, w in self.prizes)

    def picks_for(self, count: int) -> int:
        """The picks a window showing ``count`` bonus symbols plays (0: it starts no pick game)."""
        if count < self.count:
            return 0
        hit = at_most(self.picks, count)
        return 0 if hit is None else hit[1]

    def validate(self, game: Game, where: str) -> None:
        if self.symbol not in game.symbol_names:
            msg = f"unknown symbol {self.symbol!r}"
            raise GameError(msg, field=f"{where}.symbol", fix=f"use one of: {', '.join(game.symbol_names)}")
        if game.symbol(self.symbol).is_wild:
            msg = f"{self.symbol!r} is a wild; a bonus symbol is counted as itself"
            raise GameError(msg, field=f"{where}.symbol", fix="start the pick game with a bonus or scatter symbol")
        if self.picks[0][0] > self.count:
            msg = f"the smallest count of picks ({self.picks[0][0]}) is above count = {self.count}"
            raise GameError(msg, field=f"{where}.picks", fix=f"key the picks from {self.count}, or raise count")
        if self.board <= 0:
            msg = "every prize has weight 0"
            raise GameError(msg, field=f"{where}.prizes", fix="give at least one prize a positive weight")
        most = max(n for _, n in self.picks)
        if not self.replace and most > self.board:
            msg = f"{most} picks without replacement from a board of {self.board} tiles"
            raise GameError(msg, field=f"{where}.picks", fix=f"play at most {self.board} picks, or set replace = true")
        if self.unit == "line_bet" and (game.bet.total is not None or game.pay_mode != "lines"):
            msg = "prizes × the line bet need a line game whose total bet is lines × coins"
            raise GameError(msg, field=f"{where}.unit", fix='use unit = "total_bet"')
        if self.trigger == "line":
            self._check_line(game, where)
        lines, coins = largest_bet(game)
        top = most * max(v for v, w in self.prizes if w) * self.unit_credits(game.total_bet(lines, coins), coins)
        check_win(top, f"{where}.prizes", f"{most} picks at the largest bet can pay up to", "lower the prizes or the picks")

    def _check_line(self, game: Game, where: str) -> None:
        """``trigger = "line"`` is accepted where it is the window count (see the module docstring)."""
        tall = [rs.name for rs in game.reel_sets if any(h != 1 for h in rs.rows)]
        why = ""
        if game.pay_mode != "lines" or not game.paylines:
            why = "a line trigger needs a line game"
        elif tall:
            why = f"reel set {tall[0]!r} shows more than one row"
        elif game.features_of("modifier"):
            why = f"modifier {game.features_of('modifier')[0].name!r} may change the window"
        elif self.count != game.n_reels or any(k != game.n_reels for k, _ in self.picks):
            why = f"count (and every picks key) must be {game.n_reels}: the symbol on every reel of the line"
        if why:
            msg = (f"trigger = \"line\" is read as the symbol on every reel of a one-row payline; here {why}")
            raise GameError(msg, field=f"{where}.trigger", fix='use trigger = "scatter" (anywhere in the window)')

    # --- the prize law ------------------------------------------------------------------
    def law_of(self, n: int) -> PickLaw:
        """The exact law of the summed prize of ``n`` picks (prize units), refused first if it would take too long."""
        kept = [v for v, w in self.prizes if w]
        sums = min(n * (max(kept) - min(kept)) + 1, math.comb(n + len(kept) - 1, len(kept) - 1))
        # a step here is a Python dict update, some 200 times a compiled kernel's step (what the limit counts)
        check_cost(f"the law of {n} picks of {self.name}", work=200 * n * len(kept) * sums,
                   memory=64 * sums * (1 if self.replace else n), field=f"{self.name}.picks",
                   fix="play fewer picks or use fewer distinct prizes")
        return pick_law(self.prizes, n, replace=self.replace)

    def cached_law(self, ctx: Context, n: int) -> PickLaw:
        """:meth:`law_of`, solved once per analysis."""
        return ctx.once((self.name, "pick law", n), lambda: self.law_of(n))

    def unit_credits(self, total_bet: int, coins: int) -> int:
        """Credits per prize unit: the total bet, or the coins bet on one line."""
        return total_bet if self.unit == "total_bet" else coins

    # --- the round ----------------------------------------------------------------------
    def trigger_digits(self, game: Game) -> tuple[str, ...]:
        return (self.symbol,)

    def entry(self, digits: Mapping[str, int]) -> Entry | None:
        n = self.picks_for(digits[self.symbol])
        return n if n > 0 else None

    def law(self, ctx: Context, entry: Entry, level: Level) -> StageLaw:
        n = _picks(entry)
        u = self.unit_credits(ctx.total_bet, ctx.coins)
        law = self.cached_law(ctx, n)
        mean = law.mean * u
        facts: dict[str, Number] = {"picks": Fraction(n)}
        if level == "mean":
            return StageLaw({(): Branch(Fraction(1), mean, top=law.top * u)}, {self.component: mean}, "exact", level,
                            facts)
        dist = None
        if level == "distribution":
            counts = np.array(law.counts, dtype=object)
            fits = law.total < 1 << 62
            dist = WinLaw(np.array(law.values, dtype=np.int64) * u,
                           np.array([c / law.total for c in law.counts], dtype=np.float64), 0.0,
                           counts.astype(np.int64) if fits else None, law.total if fits else 0)
        return StageLaw({(): Branch(Fraction(1), mean, law.second * u * u, dist, law.top * u)},
                        {self.component: mean}, "exact", level, facts)

    def max_win(self, ctx: Context) -> MaxWin:
        u = self.unit_credits(ctx.total_bet, ctx.coins)
        n = max(k for _, k in self.picks)
        top = self.law_of(n).top
        return MaxWin(True, top * u, f"{self.name}: {n} picks of at most {top} in all × {self.unit.replace('_', ' ')}")

    # --- the PAR sheet ------------------------------------------------------------------
    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        bet = ctx.total_bet
        u = self.unit_credits(bet, ctx.coins)
        unit = self.unit.replace("_", " ")
        p = Fraction(stats.p_enter)
        figures: list[tuple[str, Figure]] = [("trigger probability", Figure.of(p)),
                                             ("trigger frequency (1 in N)", Figure.odds(p))]
        rows: list[tuple[str, ...]] = [("picks", "P(per round)", f"average prize (× {unit})",
                                        f"σ of the prize (× {unit})", "largest prize")]
        if p:
            parts = [(Fraction(q), self.cached_law(ctx, _picks(e))) for e, q in stats.entries.items()]
            mean = sum((q * law.mean for q, law in parts), Fraction(0)) / p
            second = sum((q * law.second for q, law in parts), Fraction(0)) / p
            var = second - mean * mean
            picks = sum((q * Fraction(_picks(e)) for e, q in stats.entries.items()), Fraction(0)) / p
            round_ = stats.extra.get("round")
            share: Number = p * mean * u / bet
            if round_ is not None and self.component in round_.components:
                share = round_.components[self.component] / bet
            figures += [("average picks", Figure.of(picks)),
                        (f"average prize (× {unit})", Figure.of(mean)),
                        ("average prize (× total bet)", Figure.of(mean * u / bet)),
                        (f"variance of the prize (× {unit}²)", Figure.of(var)),
                        (f"σ of the prize (× {unit})", Figure(math.sqrt(max(float(var), 0.0)), "exact")),
                        ("RTP contribution", Figure.of(share) if isinstance(share, Fraction) else Figure(share, "markov"))]
            for e, q in sorted(stats.entries.items(), key=lambda kv: _picks(kv[0])):
                law = self.cached_law(ctx, _picks(e))
                rows.append((str(e), f"{float(q):.6g}", f"{float(law.mean):.6g}",
                             f"{math.sqrt(max(float(law.variance), 0.0)):.6g}", str(law.top)))
        where = ("on the payline (every reel)" if self.trigger == "line"
                 else f"{self.count} or more anywhere in the window")
        draw = (f"a board of {self.board} tiles, each turned over once" if not self.replace
                else "the whole table on every pick (with replacement)")
        notes = (f"{self.symbol} {where} starts one pick game per spin; picks by count: "
                 + ", ".join(f"{k}+ → {n}" for k, n in self.picks),
                 f"prizes (× {unit}) = weight: " + ", ".join(f"{v} = {w}" for v, w in self.prizes) + f"; drawn from {draw}",
                 "σ of the prize is over the pick games played (the variance its draws add to a round's)")
        return FeatureSection(self.heading, tuple(figures), tuple(rows), notes)

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(
        ("symbol", "count", "trigger", "picks", "prizes", "replace", "unit"))

    def sim_table(self, game: Game, stake: Stake) -> Sequence:
        """Picks played one by one: a draw from the table (with replacement), or a tile of the board not yet turned.

        Without replacement each pick draws a tile, each of the board's alike, and draws again
        while it is one already turned (a register holds the turned tiles as bits): a draw
        uniform over the tiles left, as the player's pick is.
        """
        u = self.unit_credits(stake.total_bet, stake.coins)
        shown = (self.symbol,)
        top = max(k for k, _ in self.picks)
        entry = (Set("left", Lookup(tuple(self.picks_for(c) for c in range(top + 1)), Count(shown))),)
        more = (Goto("pick", when=(Test(Reg("left"), ">", 0),)),)
        trigger = (Test(Count(shown), ">=", self.count),)
        if self.replace:
            kept = [(v, w) for v, w in self.prizes if w]
            draw = Random((Law(tuple(v * u for v, _ in kept), tuple(w for _, w in kept)),))
            pick = Stage("pick", actions=(Pay(draw, unit="credits"), Add("left", Const(-1))), then=more)
            return Sequence(registers=("left",), trigger=trigger, entry=entry, stages=(pick,))
        n_tiles = sum(w for _, w in self.prizes)  # counted before the board is laid out (a weight may be 2**53)
        if n_tiles > SIM_TILES:
            msg = (f"{self.name}: the simulator plays boards of at most {SIM_TILES} tiles without replacement, "
                   f"not {n_tiles:,}")
            raise ModelError(msg)
        tiles = [v * u for v, w in self.prizes for _ in range(w)]
        n = len(tiles)
        draw_tile = Stage("pick", actions=(Set("tile", Random((Law(tuple(range(n)), (1,) * n),))),
                                           Set("bit", Lookup(tuple(1 << i for i in range(n)), Reg("tile")))),
                          then=(Goto("pick", when=(Test(Without(Reg("bit"), Reg("turned")), "==", 0),)),
                                Goto("turn")))
        turn = Stage("turn", actions=(Or("turned", Reg("bit")), Pay(Lookup(tuple(tiles), Reg("tile")), unit="credits"),
                                      Add("left", Const(-1))), then=more)
        return Sequence(registers=("left", "tile", "bit", "turned"), trigger=trigger, entry=entry,
                        stages=(draw_tile, turn))


def _choice(value: Any, options: tuple[str, ...], where: str) -> str:
    if value not in options:
        msg = f"expected one of {', '.join(repr(o) for o in options)}, got {show(value)}"
        raise GameError(msg, field=where, fix=f"write {where.rpartition('.')[2]} = {options[0]!r}")
    return str(value)


def _prizes(value: Any, where: str) -> tuple[tuple[int, int], ...]:
    """The prize table ``{ prize = weight }``: whole prizes from 0, whole weights from 0, in the file's order."""
    if not isinstance(value, dict) or not value:
        msg = "expected a table of prize = weight"
        raise GameError(msg, field=where, fix="write e.g. prizes = { 5 = 4, 10 = 3, 25 = 3, 100 = 2 }")
    out = []
    for k, w in value.items():
        text = str(k).strip()
        if not (text.isascii() and text.isdigit() and len(text) <= 12):
            msg = f"prize {show(k)} is not a whole number"
            raise GameError(msg, field=f"{where}.{k}", fix="key the table by whole prizes, e.g. { 10 = 3 }")
        out.append((int(text), integer(w, f"{where}.{k}", minimum=0)))
    return tuple(out)
