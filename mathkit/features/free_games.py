"""Free games on a window that may grow: awarded by scatters, played at the trigger height, retriggered.

TOML::

    [free_games]
    trigger = "SCATTER"          # a scatter symbol
    awards = { 3 = 10 }          # n+ in the base game award free games
    retriggers = { 3 = 10 }      # n+ in a free game add free games
    reels = "base"               # the reel set the free games use
    grow = { 3 = "1/6", 4 = "1/7", 5 = "1/8", 6 = "1/10" }   # P(one more row after a free game at this height)

The first free game is played at the height the base spin that triggered them had;
after every free game the window grows by one row with the probability ``grow``
gives its height (a height without an entry never grows); it never shrinks, and the
base game's draw of the height does not apply.  Every free game is a spin of the
game as the base game plays one — its other modifiers (cash stacks …) act on it and
the features it starts (jackpot reveals …) are played — with the height held, the
lines of that height active, at the bet of the triggering spin.

The maths is a chain on ``(games left, height)`` (:mod:`mathkit.chains.freespins.growing`):
each height's game law by games added comes from the round composer
(:meth:`~mathkit.features.RoundContext.play_spin`), exact; the chain is exact where
a height never grows (Wald) or never retriggers, and solved in float64 to ~15 digits
(tagged ``markov``) where it does both, since the mean is then irrational.  The fast
mean path needs no enumeration: ``E[W] = Σ_h E[games at h] · E[X_h]``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Self

from ..chains.freespins.growing import ChainFigures, GrowingChain, HeightGame
from ..errors import GameError, ModelError
from ..laws.law import WinLaw
from ..laws.provenance import FeatureSection, Figure, Method, weakest
from ..laws.stage import Branch, Digit, Entry, Level, Number, SpinModel, SpinPlay, StageLaw
from ..model.fields import check_keys, count_key, count_table, fraction, string
from ..model.game import Game, Role, at_most
from ..play.vocabulary import Add, Const, Count, Goto, Grant, Law, Lookup, Random, Reg, Rows, Sequence, Set, Spin, Stage, Stake, Tally, Test
from .base import Block, Context, FeatureStats, MaxWin, RoundContext, Termination, modified

__all__ = ["FreeGames", "Height"]

KEYS = ("name", "trigger", "awards", "retriggers", "reels", "grow")


@dataclass(frozen=True)
class Height:
    """Digit: the window height, read on reel 1 (the same at every stop of a spin)."""

    def __call__(self, reel: int, column: tuple[str, ...]) -> int:
        return len(column) if reel == 0 else 0


def _entry(entry: Entry) -> tuple[int, int]:
    if not (isinstance(entry, tuple) and len(entry) == 2 and all(isinstance(x, int) for x in entry)):
        msg = f"free games start from (games, height), not {entry!r}"
        raise ModelError(msg)
    return entry[0], entry[1]


@dataclass(frozen=True, kw_only=True)
class FreeGames(Block):
    """Free games played at the trigger height, growing by one row with probability ``grow[h]`` after each game.

    Examples
    --------
    >>> f = FreeGames(name="free_games", trigger="S", awards=((3, 10),), retriggers=((3, 10),), reels="base",
    ...               grow=((3, Fraction(1, 5)),))
    >>> f.entry({"S": 3, "free_games:height": 3}), f.entry({"S": 2, "free_games:height": 3}), f.added({"S": 4})
    ((10, 3), None, 10)
    """

    kind: ClassVar[str] = "free_games"
    role: ClassVar[Role] = "sequence"
    title: ClassVar[str] = "Free games"

    trigger: str
    awards: tuple[tuple[int, int], ...]
    reels: str
    retriggers: tuple[tuple[int, int], ...] = ()
    grow: tuple[tuple[int, Fraction], ...] = ()

    # --- data ---------------------------------------------------------------------------
    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        check_keys(data, KEYS, where)
        for k in ("trigger", "awards", "reels"):
            if k not in data:
                msg = "missing field"
                raise GameError(msg, field=f"{where}.{k}", fix="free games need trigger, awards and reels")
        raw = data.get("grow", {})
        if not isinstance(raw, dict):
            msg = "expected a table of height = probability"
            raise GameError(msg, field=f"{where}.grow", fix='write e.g. { 3 = "1/6", 4 = "1/7" }')
        grow = []
        for k, v in raw.items():
            p = fraction(v, f"{where}.grow.{k}")
            if not 0 <= p <= 1:
                msg = f"{p} is not a probability"
                raise GameError(msg, field=f"{where}.grow.{k}", fix="give a probability from 0 to 1")
            grow.append((count_key(k, f"{where}.grow.{k}"), p))
        return cls(name=name, trigger=string(data["trigger"], f"{where}.trigger"),
                   awards=count_table(data["awards"], f"{where}.awards"), reels=string(data["reels"], f"{where}.reels"),
                   retriggers=count_table(data.get("retriggers", {}), f"{where}.retriggers"), grow=tuple(sorted(grow)))

    def table(self) -> dict[str, Any]:
        return {"trigger": self.trigger, "awards": {str(k): v for k, v in self.awards},
                "retriggers": {str(k): v for k, v in self.retriggers}, "reels": self.reels,
                "grow": {str(h): str(p) for h, p in self.grow}}

    def reel_sets(self) -> tuple[str, ...]:
        return (self.reels,)

    def symbols(self) -> tuple[str, ...]:
        return (self.trigger,)

    def validate(self, game: Game, where: str) -> None:
        if self.trigger not in game.symbol_names or not game.symbol(self.trigger).is_scatter:
            msg = f"trigger {self.trigger!r} is not a scatter symbol"
            raise GameError(msg, field=f"{where}.trigger", fix="trigger with a scatter symbol")
        if self.reels not in [rs.name for rs in game.reel_sets]:
            msg = f"no reel set {self.reels!r}"
            raise GameError(msg, field=f"{where}.reels", fix=f"use one of: {', '.join(rs.name for rs in game.reel_sets)}")
        if not self.awards or all(v == 0 for _, v in self.awards):
            msg = "no free games awarded"
            raise GameError(msg, field=f"{where}.awards", fix="write e.g. { 3 = 10 }")
        rs = game.reel_set(self.reels)
        for h, p in self.grow:
            if p and min(len(s) for s in rs.strips) < h + 1:
                msg = f"the window grows to {h + 1} rows, more than reel set {rs.name!r} has stops"
                raise GameError(msg, field=f"{where}.grow.{h}", fix="lengthen the strips or stop the growth lower")

    def award(self, count: int) -> int:
        best = at_most(self.awards, count)
        return 0 if best is None else int(best[1])

    def added(self, digits: Mapping[str, int]) -> int:
        """Free games a free game showing ``digits`` adds."""
        best = at_most(self.retriggers, digits[self.trigger])
        return 0 if best is None else int(best[1])

    def p_grow(self, height: int) -> Fraction:
        """P(one more row after a free game at ``height``)."""
        return dict(self.grow).get(height, Fraction(0))

    # --- the round ----------------------------------------------------------------------
    @property
    def height_digit(self) -> str:
        return f"{self.name}:height"

    def digits(self, game: Game) -> tuple[Digit, ...]:
        return (Digit(self.height_digit, Height()),)

    def trigger_digits(self, game: Game) -> tuple[str, ...]:
        return (self.trigger, self.height_digit)

    def entry(self, digits: Mapping[str, int]) -> Entry | None:
        n = self.award(digits[self.trigger])
        return (n, digits[self.height_digit]) if n > 0 else None

    def model(self, height: int) -> SpinModel:
        """A free game at ``height`` (its lines set by the game's height rule)."""
        return SpinModel(self.reels, rows=height)

    def start_heights(self, ctx: Context) -> list[int]:
        """The heights a base spin can trigger free games at."""
        out = set()
        for _, m, _ in modified(ctx, ctx.base_model()):
            rows = m.rows if m.rows is not None else max(ctx.game.reel_set(m.reels).rows)
            out.add(rows)
        return sorted(out)

    def heights(self, ctx: Context) -> tuple[int, ...]:
        """Every height free games are played at, from the lowest start up through the growth."""
        out = set(self.start_heights(ctx))
        h = max(out)
        for x in sorted(out):
            h = x
            while self.p_grow(h) > 0:
                h += 1
                out.add(h)
        return tuple(sorted(out))

    def plays(self, ctx: RoundContext) -> dict[int, SpinPlay]:
        """One free game at every height, as the round plays it, grouped by the games it adds."""
        return {h: ctx.play_spin(self.model(h), (self.trigger,), self.added, (self.name,)) for h in self.heights(ctx)}

    def chain(self, ctx: RoundContext) -> GrowingChain:
        plays = self.plays(ctx)
        games = {h: HeightGame(p.mean, {int(a): b for a, b in p.groups.items()}) for h, p in plays.items()}  # type: ignore[call-overload]
        grow = {h: ({h: 1 - self.p_grow(h), h + 1: self.p_grow(h)} if self.p_grow(h) else {h: Fraction(1)})
                for h in games}
        return GrowingChain(tuple(games), games, grow, f"{self.name}: {self.rule()}")

    def rule(self) -> str:
        return ", ".join(f"{k}+ {self.trigger} add {v}" for k, v in self.retriggers) or "no retrigger"

    def entries(self, ctx: Context) -> list[tuple[int, int]]:
        return [(n, h) for n in sorted({v for _, v in self.awards if v > 0}) for h in self.start_heights(ctx)]

    def solved(self, ctx: RoundContext, level: Level) -> dict[tuple[int, int], ChainFigures]:
        def compute() -> dict[tuple[int, int], ChainFigures]:
            return self.chain(ctx).all_figures(self.entries(ctx), moments=level != "mean")

        out: dict[tuple[int, int], ChainFigures] = ctx.once((self.name, "figures", level), compute)
        return out

    def distributions(self, ctx: RoundContext) -> dict[tuple[int, int], WinLaw]:
        def compute() -> dict[tuple[int, int], WinLaw]:
            return self.chain(ctx).distributions(self.entries(ctx))

        out: dict[tuple[int, int], WinLaw] = ctx.once((self.name, "distributions"), compute)
        return out

    def law(self, ctx: RoundContext, entry: Entry, level: Level) -> StageLaw:
        n, h = _entry(entry)
        fig = self.solved(ctx, level)[(n, h)]
        plays = self.plays(ctx)
        comps: dict[str, Number] = {}
        method: Method = fig.method
        for g, visits in fig.visits.items():
            method = weakest(method, plays[g].method)
            for c, v in plays[g].components.items():
                key = f"{self.component}: {c}"
                comps[key] = comps.get(key, Fraction(0)) + visits * v
        dist = self.distributions(ctx)[(n, h)] if level == "distribution" else None
        return StageLaw({(): Branch(Fraction(1), fig.mean, fig.m2, dist, None)}, comps, method, level)

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(KEYS)

    def _top(self, game: Game) -> int:
        """The tallest window the free games can reach: the strips' rows, or where the growth takes it."""
        return max([*game.reel_set(self.reels).rows, *(h + 1 for h, p in self.grow if p)])

    def sim_table(self, game: Game, stake: Stake) -> Sequence:
        """Games left and the height as registers; each game a spin played as the base game plays one, then growth.

        The spins are one per height the window can have (its strips' rows, or where the growth
        takes it); a height the rules give no lines for stops the run if it is ever played.  The
        growth is drawn only when a game is left (after the last game it could change nothing);
        a last stage, without a spin, counts the height of the last game (``last at H``).
        """
        count = Count(game.scatter_counted(self.trigger))  # the scatter and the wilds counting as it
        award = Lookup(tuple(self.award(c) for c in range(max(k for k, _ in self.awards) + 1)), count)
        top = self._top(game)
        spins = tuple(Spin(self.reels, rows=h, as_base=True) for h in range(1, top + 1))
        laws = tuple(Law((0,), (1,)) if not self.p_grow(h) else
                     Law((0, 1), (self.p_grow(h).denominator - self.p_grow(h).numerator, self.p_grow(h).numerator))
                     for h in range(top + 1))
        actions: tuple[Add | Grant, ...] = (Add("left", Const(-1)),)
        if self.retriggers:
            more = Lookup(tuple(self.added({self.trigger: c}) for c in range(max(k for k, _ in self.retriggers) + 1)),
                          count)
            actions += (Grant("left", more, total="awarded", tally="retriggers"),)
        actions += (Add("height", Random(laws, key=Reg("height")), when=(Test(Reg("left"), ">", 0),)),)
        game_ = Stage("game", spins=spins, pick=Lookup(tuple(max(h - 1, 0) for h in range(top + 1)), Reg("height")),
                      actions=actions, then=(Goto("game", when=(Test(Reg("left"), ">", 0),)), Goto("last")))
        last = Stage("last", actions=tuple(Tally(tally=f"last at {h}", when=(Test(Reg("height"), "==", h),))
                                           for h in range(1, top + 1)))
        return Sequence(registers=("left", "awarded", "height"), trigger=(Test(award, ">", 0),),
                        entry=(Set("left", award), Set("awarded", award), Set("height", Rows())),
                        stages=(game_, last))

    def sim_checks(self, game: Game) -> dict[str, str]:
        """The mean length and the height of the last game (per entry), as the simulator counts them."""
        return {"expected length (games)": f"mean_length:{self.name}",
                **{f"P(last game at height {h})": f"per_entry:{self.name}:last at {h}"
                   for h in range(1, self._top(game) + 1)}}

    # --- checks -------------------------------------------------------------------------
    def added_law(self, ctx: Context, height: int) -> dict[int, Fraction]:
        """P(a free game at ``height`` adds ``a`` games), exactly, without enumeration."""
        weights, cycle = ctx.digit_law(self.model(height), (self.trigger,))
        out: dict[int, Fraction] = {}
        for (count,), w in weights.items():
            a = self.added({self.trigger: count})
            out[a] = out.get(a, Fraction(0)) + Fraction(w, cycle)
        return out

    def terminates(self, ctx: Context) -> Termination:
        parts = []
        ok = True
        for h in self.heights(ctx):
            m = sum((a * p for a, p in self.added_law(ctx, h).items()), Fraction(0))
            top = self.p_grow(h) == 0
            if top and m >= 1:
                ok = False
            parts.append(f"height {h}: m = {float(m):.5f}" + ("" if not top else " (never grows)"))
        reason = (f"{self.name}: added games per free game " + "; ".join(parts)
                  + ("; every height that never grows has m < 1, so the games end with probability 1 and in finite "
                     "expected time (the others are left with probability ≥ their growth per game)" if ok else
                     "; a height that never grows adds on average one game or more per game: the feature never ends"))
        return Termination(ok, reason)

    def game_bound(self, ctx: Context) -> int:
        """The most one free game pays: its spin at the tallest height, plus what every other feature it may start adds."""
        spin = max(ctx.win_bound(m) for h in self.heights(ctx) for _, m, _ in modified(ctx, self.model(h)))
        for f in ctx.game.features_of("sequence"):
            if f.name != self.name and isinstance(f, Block):
                mw = f.max_win(ctx)
                if not mw.bounded or mw.credits is None:
                    msg = f"{self.name}: {f.name} has no bound ({mw.reason})"
                    raise ModelError(msg)
                spin += mw.credits
        return spin

    def max_win(self, ctx: Context) -> MaxWin:
        top_h = max(self.heights(ctx))
        spin = self.game_bound(ctx)
        q = 1 - self.added_law(ctx, top_h).get(0, Fraction(0))
        if q == 0:
            most = max(v for _, v in self.awards)
            return MaxWin(True, most * spin, f"{self.name}: at most {most} games of at most {spin:,} credits")
        most_add = max(v for _, v in self.retriggers)
        k = math.ceil(64 / -math.log2(float(q))) if q < 1 else 0
        likely = (max(v for _, v in self.awards) + k * most_add) * spin
        return MaxWin(False, None, f"{self.name}: retriggers have no limit, so a feature's win has no upper bound "
                                   f"({likely:,} credits are passed with probability below 2⁻⁶⁴)", likely)

    # --- the PAR sheet ------------------------------------------------------------------
    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        if not isinstance(ctx, RoundContext):
            msg = "the free-games section needs the round composer's context"
            raise ModelError(msg)
        bet = ctx.total_bet
        p_trig = stats.p_enter
        figures: list[tuple[str, Figure]] = [
            ("trigger probability", _fig(p_trig)),
            ("trigger frequency (1 in N)", Figure.odds(p_trig))]
        rows: list[tuple[str, ...]] = []
        if p_trig:
            solved = self.solved(ctx, stats.level)
            given = {_entry(e): q / p_trig for e, q in stats.entries.items()}
            length = sum((q * solved[e].length for e, q in given.items()), Fraction(0))
            win = sum((q * solved[e].mean for e, q in given.items()), Fraction(0))
            methods = [solved[e].method for e in given]
            method: Method = weakest(*methods)
            figures += [("expected length (games)", _fig(length, method)),
                        ("average feature win (× bet)", _fig(win / bet, method)),
                        ("RTP contribution", _fig(p_trig * win / bet, method))]
            if stats.level != "mean":
                m2: Number = Fraction(0)
                for e, q in given.items():
                    second = solved[e].m2
                    assert second is not None
                    m2 = m2 + q * second
                figures.append(("σ of the feature win (× bet)",
                                Figure(math.sqrt(max(float(m2 - win * win), 0.0)) / bet, method)))
            plays = self.plays(ctx)
            visits = {h: sum((q * solved[e].visits.get(h, 0) for e, q in given.items()), Fraction(0)) for h in plays}
            end = {h: sum((q * solved[e].end.get(h, 0) for e, q in given.items()), Fraction(0)) for h in plays}
            start = {h: sum((q for e, q in given.items() if e[1] == h), Fraction(0)) for h in plays}
            rows.append(("height", "P(trigger height)", "P(grow after a game)", "P(retrigger) per game",
                         "win per game (× bet)", "expected games", "P(last game at this height)"))
            for h, p in plays.items():
                retrig = sum((b.p for a, b in p.groups.items() if a), Fraction(0))  # type: ignore[operator]
                rows.append((str(h), f"{float(start[h]):.6g}", str(self.p_grow(h)), f"{float(retrig):.6g}",
                             f"{float(p.mean / bet):.6f}", f"{float(visits[h]):.6f}", f"{float(end[h]):.6f}"))
                figures.append((f"P(last game at height {h})", _fig(end[h], method)))
        notes = (f"{', '.join(f'{k}+ {self.trigger} award {v}' for k, v in self.awards)} free games, played from the "
                 f"trigger height; retriggers: {self.rule()}; reel set {self.reels!r}; after each free game the window "
                 "grows one row with probability " + (", ".join(f"{p} at height {h}" for h, p in self.grow) or "0")
                 + "; it never shrinks",
                 "each free game is a spin as the base game plays one (cash stacks, jackpots), the height held",
                 "chain on (games left, height): exact where a height never grows (Wald: E[W] = n·E[X]/(1 − m)) or "
                 "never retriggers (a finite recursion); where it does both the mean αn + β(1 − ρⁿ) + … is irrational "
                 "and is solved by banded linear solves in float64 over games left ≤ N (N where passing it has "
                 "probability < 1e-20), accurate to about 15 significant digits and tagged markov; the win's "
                 "distribution from its characteristic function (one banded solve per frequency, one inverse FFT)")
        return FeatureSection(self.title, tuple(figures), tuple(rows), notes)


def _fig(x: Number, method: Method = "exact") -> Figure:
    return Figure.of(x, method) if isinstance(x, Fraction) else Figure(float(x), "markov")
