"""The max-win cap: a round's total win (base spin and every feature) is paid at most the cap.

TOML — a multiple of the total bet, or coins × the bet level (coins per line)::

    cap = 5000                   # shorthand: 5000 × total bet
    [cap]
    multiple = "10000/3"         # 3,333⅓ × total bet (a fraction is fine if the cap is whole credits)
    [cap]
    coins = 100000               # 100,000 coins × coins per line (30 lines: 3,333⅓ × total bet)

The capped RTP is ``E[min(Y, c)] = E[Y] − E[(Y − c)⁺]``.  When the round's max win
provably stays at or below the cap its effect is exactly 0.  Otherwise, when the
round's tail bound (:data:`mathkit.laws.stage.Tail`: the bounded stages at their bounds,
Chernoff bounds where a feature has none) proves ``E[(Y − c)⁺]`` below
:data:`NEGLIGIBLE` × the total bet, the RTP is reported without the cap's effect and
with that bound as its error (``Outcome.error``, tagged ``markov``), and
``P(Y > c)`` with its bound; otherwise the effect comes from the round's win
distribution (tagged as that distribution is).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, ClassVar, Self

import numpy as np

from ..errors import GameError, ModelError
from ..laws.law import WinLaw
from ..laws.provenance import FeatureSection, Figure, weakest
from ..laws.stage import Level, Outcome
from ..model.bounds import check_win, largest_bet
from ..model.fields import check_keys, fraction, integer
from ..model.game import Game, Role
from ..play.vocabulary import RoundCap, Stake
from .base import Block, Context, FeatureStats, Finding, Limit

__all__ = ["NEGLIGIBLE", "Cap", "m2_gap"]

NEGLIGIBLE = 1e-9
"""A cap effect proven below this many × the total bet is reported as a bound, not computed."""


@dataclass(frozen=True, kw_only=True)
class Cap(Block):
    """A cap on the total win of a round, as a multiple of the total bet or in coins × bet level.

    Examples
    --------
    >>> Cap(name="cap", coins=100000).credits(total_bet=30, coins=1)
    Fraction(100000, 1)
    >>> Cap(name="cap", multiple=Fraction(10000, 3)).multiple_of_bet(total_bet=30, coins=1)
    Fraction(10000, 3)
    """

    kind: ClassVar[str] = "cap"
    role: ClassVar[Role] = "transform"
    title: ClassVar[str] = "Cap"
    scalar: ClassVar[bool] = True

    multiple: Fraction | None = None
    coins: int | None = None

    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any] | int, where: str) -> Self:
        if not isinstance(data, Mapping):
            return cls(name=name, multiple=Fraction(integer(data, where, minimum=1)))
        check_keys(data, ("name", "multiple", "coins"), where)
        if ("multiple" in data) == ("coins" in data):
            msg = "give the cap either as a multiple of the total bet or in coins"
            raise GameError(msg, field=where, fix='write multiple = 5000 (× total bet) or coins = 100000 (× coins per line)')
        if "coins" in data:
            return cls(name=name, coins=integer(data["coins"], f"{where}.coins", minimum=1))
        m = fraction(data["multiple"], f"{where}.multiple")
        if m <= 0:
            msg = f"cap {m} is not positive"
            raise GameError(msg, field=f"{where}.multiple")
        return cls(name=name, multiple=m)

    def table(self) -> dict[str, Any]:
        if self.coins is not None:
            return {"coins": self.coins}
        assert self.multiple is not None
        m = self.multiple
        return {"multiple": int(m) if m.denominator == 1 else f"{m.numerator}/{m.denominator}"}

    def validate(self, game: Game, where: str) -> None:
        if (self.multiple is None) == (self.coins is None):
            msg = "give the cap either as a multiple of the total bet or in coins"
            raise GameError(msg, field=where)
        if self.multiple is not None and self.multiple <= 0:
            msg = f"cap {self.multiple} is not positive"
            raise GameError(msg, field=f"{where}.multiple")
        lines, coins = largest_bet(game)
        credits = self.credits(game.bet.total_bet(lines, coins), coins)
        check_win(int(credits), f"{where}.coins" if self.coins is not None else where,
                  "at the largest bet the cap comes to", "a cap of at most a few hundred thousand times the bet is usual")

    def credits(self, total_bet: int, coins: int) -> Fraction:
        """The cap in credits at a total bet of ``total_bet`` credits and ``coins`` coins per line."""
        if self.coins is not None:
            return Fraction(self.coins * coins)
        assert self.multiple is not None
        return self.multiple * total_bet

    def multiple_of_bet(self, total_bet: int, coins: int) -> Fraction:
        """The cap as a multiple of the total bet."""
        return self.credits(total_bet, coins) / total_bet

    def describe(self, total_bet: int, coins: int) -> str:
        m = self.multiple_of_bet(total_bet, coins)
        shown = f"{float(m):,.6g}" if m.denominator != 1 else f"{int(m):,}"
        src = f"{self.coins:,} coins × bet level" if self.coins is not None else f"{shown}× total bet"
        return f"cap {src} = {shown}× bet = {float(self.credits(total_bet, coins)):,.6g} credits"

    def whole_credits(self, ctx: Context) -> int:
        c = self.credits(ctx.total_bet, ctx.coins)
        if c.denominator != 1:
            msg = (f"{self.name}: the cap is {c} credits at a total bet of {ctx.total_bet}, not a whole number; "
                   "give it in coins (coins = ...) or as a multiple that makes whole credits")
            raise ModelError(msg)
        return int(c)

    def round_limit(self, ctx: Context) -> Fraction | None:
        return self.credits(ctx.total_bet, ctx.coins)

    def level_needed(self, ctx: Context, outcome: Outcome) -> Level:
        """The distribution, unless a bound on the round's win (or on its tail) proves the cap never or negligibly reached."""
        bounded = outcome.max_win is not None and outcome.max_win <= self.credits(ctx.total_bet, ctx.coins)
        return "mean" if bounded or self.tail_bound(ctx, outcome) is not None else "distribution"

    def tail_bound(self, ctx: Context, outcome: Outcome) -> tuple[float, float] | None:
        """``(E[(Y − c)⁺] bound, P(Y > c) bound)`` from the round's tail bound, if it proves the effect negligible."""
        if outcome.tail is None:
            return None
        b, q = outcome.tail(float(self.credits(ctx.total_bet, ctx.coins)))
        return (b, q) if b <= NEGLIGIBLE * ctx.total_bet else None

    def transform(self, ctx: Context, outcome: Outcome) -> Outcome:
        cap = self.whole_credits(ctx)
        if outcome.max_win is not None and outcome.max_win <= cap:
            return replace(outcome, components={**outcome.components, self.component: Fraction(0)},
                           methods={**outcome.methods, self.component: "exact"})
        if outcome.dist is None or outcome.uncovered:
            # uncovered parts (their law sampled by the caller): the capped mean only from a tail bound
            bound = self.tail_bound(ctx, outcome)
            if bound is None:
                msg = f"{self.name}: the capped RTP needs the round's win distribution"
                if outcome.uncovered:
                    msg += (" and no tail bound proves the cap negligible; parts of it are left to the simulator: "
                            + ", ".join(u.route for u in outcome.uncovered))
                raise ModelError(msg)
            zero: Fraction | float = Fraction(0) if isinstance(outcome.mean, Fraction) else 0.0
            dist = outcome.dist
            if dist is not None:  # the covered part's law, capped (the sampled parts are capped by the caller)
                dist = dist.as_probs().capped(cap)
            return replace(outcome, dist=dist, components={**outcome.components, self.component: zero},
                           methods={**outcome.methods, self.component: "markov"},
                           method=weakest(outcome.method, "markov"), error=outcome.error + bound[0],
                           max_win=None if outcome.max_win is None else min(cap, outcome.max_win))
        d = outcome.dist
        capped = np.minimum(d.values, cap)
        law = d.capped(cap)
        loss: Fraction | float
        m2: Fraction | float
        if d.counts is not None:  # exact integer counts: the cap's effect is exact too
            cut = [(int(v), int(c)) for v, c in zip(d.values.tolist(), d.counts.tolist(), strict=True)]
            loss = Fraction(sum((min(v, cap) - v) * c for v, c in cut), d.total)
            m2 = Fraction(sum(min(v, cap) ** 2 * c for v, c in cut), d.total)
            method = outcome.method
            return replace(outcome, mean=outcome.mean + loss, m2=m2, dist=law,
                           components={**outcome.components, self.component: loss},
                           methods={**outcome.methods, self.component: method},
                           max_win=min(cap, outcome.max_win) if outcome.max_win is not None else cap)
        loss = float(np.dot(capped - d.values, d.probs))
        m2 = float(np.dot(capped.astype(np.float64) ** 2, d.probs))
        method = weakest(outcome.method, "markov")
        return replace(outcome, mean=float(outcome.mean) + loss, m2=m2, dist=law,
                       components={**outcome.components, self.component: loss}, method=method,
                       methods={**outcome.methods, self.component: method},
                       max_win=min(cap, outcome.max_win) if outcome.max_win is not None else cap)

    def findings(self, ctx: Context, stats: FeatureStats, limits: Mapping[str, int]) -> tuple[Finding, ...]:
        game = ctx.game
        cap = self.credits(ctx.total_bet, ctx.coins)
        after = stats.extra.get("after")
        before = stats.extra.get("before")
        top = after.max_win if isinstance(after, Outcome) else None
        bound = self.tail_bound(ctx, before) if isinstance(before, Outcome) and isinstance(after, Outcome) \
            and after.dist is None else None
        applied = (top is not None and top <= cap) or bound is not None
        words = [game.description, *(f"{r.rule} {r.reading} {r.reason}" for r in game.readings)]
        text = " ".join(words).lower()
        m = self.multiple_of_bet(ctx.total_bet, ctx.coins)
        marks = {"cap", "max win", "maximum win", f"{float(m):,.0f}", f"{int(m)}"}
        disclosed = any(x in text for x in marks)
        shown = (f"a round's win after the cap is at most {top:,} credits" if top is not None and top <= cap else
                 f"a round's win passes the cap with probability ≤ {bound[1]:.3g}, which removes ≤ "
                 f"{bound[0] / ctx.total_bet:.3g} × bet from the RTP (a proven bound)" if bound is not None
                 else "a round's win after the cap is at most ? credits")
        detail = (f"{self.describe(ctx.total_bet, ctx.coins)}; {shown} "
                  f"({'applied' if applied else 'NOT applied'}); "
                  + ("disclosed in the game's description/readings" if disclosed
                     else "not disclosed: state the cap in the description or a [[readings]] entry"))
        return (Finding("cap", bool(applied and disclosed), detail),)

    def _reached(self, ctx: Context, before: Outcome, law: WinLaw | None) -> tuple[Figure, bool] | None:
        """``(P(round reaches the cap), is a bound)``: 0 under a max win, from the whole round's law ``law``
        (exact where it is), the tail's bound, or from the round's float distribution before the cap."""
        cap = self.credits(ctx.total_bet, ctx.coins)
        if law is not None:
            return (Figure.of(law.sf(float(cap)), law.method) if law.max_win >= cap
                    else Figure.of(Fraction(0), "exact")), False
        if before.max_win is not None and before.max_win <= cap:
            return Figure.of(Fraction(0)), False
        if before.dist is None:
            bound = self.tail_bound(ctx, before)
            return None if bound is None else (Figure(bound[1], "markov"), True)
        p = float(before.dist.probs[before.dist.values >= float(cap)].sum())
        return Figure(p, weakest(before.method, "markov")), False

    def limit_effect(self, ctx: Context, before: Outcome, law: WinLaw | None) -> Limit:
        cap = self.credits(ctx.total_bet, ctx.coins)
        whole = int(cap)
        reached = self._reached(ctx, before, law)

        def tail_bound() -> tuple[float, float] | None:
            return None if before.tail is None else (before.tail(whole - 1)[1], before.tail(float(whole))[0])

        return Limit(cap, reached[0] if reached else None, bool(reached and reached[1]),
                     before.max_win is None or before.max_win >= whole, tail_bound,
                     lambda: m2_gap(before, float(cap)))

    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        bet = ctx.total_bet
        before = stats.extra.get("before")
        after = stats.extra.get("after")
        cap = self.credits(bet, ctx.coins)
        figures: list[tuple[str, Figure]] = [("cap (× bet)", Figure.of(cap / bet)), ("cap (credits)", Figure.of(cap))]
        reached = self._reached(ctx, before, None) if isinstance(before, Outcome) else None
        if isinstance(before, Outcome) and isinstance(after, Outcome) and reached is not None:
            p_cap, is_bound = reached
            loss = after.components.get(self.component, 0)
            if before.max_win is not None and before.max_win <= cap:
                figures += [("largest possible round win (credits)", Figure.of(before.max_win)),
                            ("P(round reaches the cap)", p_cap),
                            ("RTP removed by the cap", Figure.of(Fraction(0)))]
            elif is_bound:
                bound = self.tail_bound(ctx, before)
                assert bound is not None
                figures += [("P(round reaches the cap) ≤ (bound)", p_cap),
                            ("RTP removed by the cap ≤ (bound)", Figure(bound[0] / bet, "markov"))]
            else:
                figures += [("P(round reaches the cap)", p_cap),
                            ("RTP removed by the cap", Figure(float(loss) / bet, p_cap.method))]
        notes: tuple[str, ...] = ("the cap applies to the whole round: base spin and every feature it leads to",
                                  self.describe(bet, ctx.coins))
        if isinstance(before, Outcome) and before.dist is None and self.tail_bound(ctx, before) is not None:
            notes += ("no bound keeps every round below the cap (a feature is unbounded or its bound is above it); "
                      "the bounded stages at their bounds and Chernoff bounds on the features' exponential moments "
                      f"prove E[(round − cap)⁺] ≤ the bound shown, below {NEGLIGIBLE:g} × bet: the RTP is reported "
                      "with that bound as its error",)
        return FeatureSection(self.title, tuple(figures), notes=notes)

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(("multiple", "coins"))

    def sim_table(self, game: Game, stake: Stake) -> RoundCap:
        """The whole round's win paid at most the cap, in credits at the stake."""
        return RoundCap(self.credits(stake.total_bet, stake.coins))


def m2_gap(outcome: Outcome, cap: float) -> float:
    """A bound of ``E[Y²] − E[min(Y, c)²] = 2c·E[(Y − c)⁺] + ∫_c^∞ 2(t − c)·P(Y > t) dt`` from the round's tail bound.

    ``P(Y > t)`` is bounded on a geometric grid and taken at each step's left end; ``inf`` when the
    round has no tail bound or the bound has not vanished by ``10⁶ × c``.

    Examples
    --------
    A round that pays 1,000 with probability 1/100 (else 0), capped at 500: the gap is
    ``(1000² − 500²) / 100 = 7,500``; the bound from its tail ``P(Y > t) ≤ [t < 1000]/100`` is above it,
    by what the grid's left ends add (within 15% here).

    >>> o = Outcome(Fraction(10), {}, "exact", tail=lambda t: (0.0, 0.0) if t >= 1000 else ((1000 - t) / 100, 0.01))
    >>> 7500 <= m2_gap(o, 500.0) <= 1.15 * 7500
    True
    """
    if outcome.tail is None:
        return math.inf
    b0, _ = outcome.tail(cap)
    total = 2 * cap * b0
    t, step = cap, cap / 64
    while t < 1e6 * cap:
        _, q = outcome.tail(t)
        if q < 1e-300:
            return total
        total += 2 * (t + step - cap) * step * q
        t, step = t + step, step * 1.25
    return math.inf
