"""The gamble ladder offered after a win: reported beside the RTP and σ, never inside them.

TOML::

    [gamble]
    max_gambles = 5            # most gambles in a row
    limit = 5000               # credits: a win above it is not offered the gamble
    options = [
      { name = "colour", multiplier = 2, p = "1/2" },
      { name = "suit", multiplier = 4, p = "1/4" },
    ]

Each strategy's table row says what it does to the return (exactly 1 for fair
options), σ, the chance of losing a win, and the most one game can pay.  The
ladder maths is :mod:`mathkit.chains.ladder`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Self

import numpy as np
import numpy.typing as npt

from ..chains.ladder import Always, GambleOption, LimitReading, Never, Strategy, UntilTarget, check_fair
from ..errors import GameError
from ..laws.law import WinLaw
from ..laws.provenance import FeatureSection, Figure
from ..laws.stage import Outcome
from ..model.bounds import MAX_GAMBLES, check_win
from ..model.fields import array, check_keys, fraction, integer, string
from ..model.game import Game, Role
from ..play.vocabulary import Ladder, Stake
from .base import Block, Context, FeatureStats, Finding, MaxWin

__all__ = ["Gamble", "GambleLine", "gamble_lines", "ladder_arrays"]

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, kw_only=True)
class Gamble(Block):
    """The gamble ladder offered after a win.

    Parameters
    ----------
    options
        The choices (colour ×2 at 1/2, suit ×4 at 1/4 ...).
    max_gambles
        Most gambles in a row in one game.
    limit
        Gamble amount limit in credits: a win above it is not offered the gamble.
    """

    kind: ClassVar[str] = "gamble"
    role: ClassVar[Role] = "transform"
    title: ClassVar[str] = "Gamble"
    phase: ClassVar[int] = 1

    options: tuple[GambleOption, ...]
    max_gambles: int
    limit: int

    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        check_keys(data, ("name", "options", "max_gambles", "limit"), where)
        options = []
        for i, opt in enumerate(array(data.get("options"), f"{where}.options")):
            at = f"{where}.options[{i}]"
            if not isinstance(opt, dict):
                msg = "expected a table"
                raise GameError(msg, field=at, fix='write { name = "colour", multiplier = 2, p = "1/2" }')
            check_keys(opt, ("name", "multiplier", "p"), at)
            p = fraction(opt.get("p"), f"{at}.p")
            if not 0 < p <= 1:
                msg = f"probability {p} outside (0, 1]"
                raise GameError(msg, field=f"{at}.p")
            options.append(GambleOption(string(opt.get("name"), f"{at}.name"),
                                        integer(opt.get("multiplier"), f"{at}.multiplier", minimum=1), p))
        return cls(name=name, options=tuple(options),
                   max_gambles=integer(data.get("max_gambles", 5), f"{where}.max_gambles", minimum=1,
                                       maximum=MAX_GAMBLES),
                   limit=integer(data.get("limit"), f"{where}.limit", minimum=1))

    def table(self) -> dict[str, Any]:
        return {"max_gambles": self.max_gambles, "limit": self.limit,
                "options": [{"name": o.name, "multiplier": o.multiplier, "p": f"{o.p.numerator}/{o.p.denominator}"}
                            for o in self.options]}

    def validate(self, game: Game, where: str) -> None:
        if not self.options:
            msg = "no gamble options"
            raise GameError(msg, field=f"{where}.options")
        dup = [n for n, c in Counter(o.name for o in self.options).items() if c > 1]
        if dup:
            msg = f"option {dup[0]!r} listed twice"
            raise GameError(msg, field=f"{where}.options")
        most = max(o.multiplier for o in self.options)
        check_win(self.limit * most, f"{where}.limit", f"a gamble of the limit at ×{most} pays",
                  "lower the gamble limit or the multipliers")

    def max_win(self, ctx: Context) -> MaxWin:
        return MaxWin(True, 0, "the gamble is reported beside the RTP: it adds nothing to a round's win")

    def findings(self, ctx: Context, stats: FeatureStats, limits: Mapping[str, int]) -> tuple[Finding, ...]:
        res = check_fair(self)
        text = ", ".join(f"{c.option}: p × multiplier = {c.ratio}" for c in res)
        fair = all(c.passed for c in res)
        most = limits.get("max_gambles", self.max_gambles)
        ok = self.max_gambles <= most and self.limit > 0
        return (Finding("gamble_fair", fair, ("every option returns exactly 100% — " if fair
                                              else "not every option returns exactly 100% — ") + text),
                Finding("gamble_limits", ok, f"at most {self.max_gambles} gambles in a row (limit {most}); amount "
                                             f"limit {self.limit:,} credits per attempt"))

    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection | None:
        before = stats.extra.get("before")
        bet = ctx.total_bet
        if not isinstance(before, Outcome) or before.dist is None:
            return _section(self, (), bet)
        joint = ctx.joint(ctx.base_model())
        base = WinLaw.from_counts(joint.wins, joint.counts, unit=bet)
        d = before.dist
        play = WinLaw.from_probs(d.values, d.probs, unit=bet, method=before.method, lost_mass=d.lost_mass)
        return _section(self, gamble_lines(self, base, play), bet)

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(("options", "max_gambles", "limit"))

    def sim_table(self, game: Game, stake: Stake) -> Ladder:
        """The ladder the simulator gambles each round's paid win on, beside the RTP."""
        return Ladder(tuple((o.name, o.p, o.multiplier) for o in self.options), self.max_gambles, self.limit)


def ladder_arrays(gamble: Gamble, strategy: Strategy, values: IntArray, *,
                  limit_on: LimitReading = "stake") -> tuple[IntArray, IntArray, Fraction]:
    """For every win: the amount collected if every gamble taken is won, the gambles taken, and p per gamble.

    A strategy plays one option, so the number of gambles ``k(v)`` a win ``v`` goes
    through is fixed: the ladder pays ``v·M^k`` with probability ``p^k`` and 0
    otherwise.  Offers follow :func:`mathkit.chains.ladder.choice` exactly.
    """
    if isinstance(strategy, Never):
        return values.copy(), np.zeros(len(values), dtype=np.int64), Fraction(1)
    option = next(o for o in gamble.options if o.name == strategy.option)
    amount = values.astype(np.int64).copy()
    k = np.zeros(len(values), dtype=np.int64)
    for _ in range(gamble.max_gambles):
        stake = amount * option.multiplier if limit_on == "win" else amount
        go = (amount > 0) & (stake <= gamble.limit)
        if isinstance(strategy, UntilTarget):
            go &= amount < strategy.target
        if not go.any():
            break
        amount[go] *= option.multiplier
        k[go] += 1
    return amount, k, Fraction(option.p)


@dataclass(frozen=True)
class GambleLine:
    """One strategy's effect on the win of a whole play."""

    strategy: str
    return_exact_base: Fraction  # E[after] / E[before] over the exact base-game distribution
    return_play: float  # the same over the whole play's distribution (features included)
    sd_before: float  # × bet
    sd_after: float
    p_bust: float  # P(a win is gambled away)
    max_gamble_pay: float  # × bet: the most a gamble can pay (0 when never gambled)
    p_win_ge_100: float  # P(paid ≥ 100 × bet) after the strategy


def _strategies(gamble: Gamble, bet: int) -> list[Strategy]:
    out: list[Strategy] = [Never(), *(Always(o.name) for o in gamble.options)]
    out += [UntilTarget(o.name, 20 * bet) for o in gamble.options]
    return out


def gamble_lines(gamble: Gamble, base: WinLaw, play: WinLaw,
                 strategies: list[Strategy] | None = None, *,
                 limit_on: LimitReading = "stake") -> tuple[GambleLine, ...]:
    """Each strategy's return, σ, P(bust), exposure on the whole play; exact return on the base game."""
    bet = play.unit
    out = []
    den = sum(int(c) * v for v, c in zip(base.values.tolist(), base.weights.tolist(), strict=True))
    vals = play.values
    probs = play.probs
    vf = vals.astype(np.float64)  # float dot products throughout (a mixed int·float dot is many times slower)
    mean_b = float(np.dot(vf, probs))
    var_b = float(np.dot(vf * vf, probs)) - mean_b**2
    for s in strategies if strategies is not None else _strategies(gamble, bet):
        # exact, on the base game's integer counts: E[after | v] = v·(p·M)^k(v)
        up, k, p = ladder_arrays(gamble, s, base.values, limit_on=limit_on)
        by_k: dict[int, int] = {}
        for u, kk, c in zip(up.tolist(), k.tolist(), base.weights.tolist(), strict=True):
            by_k[kk] = by_k.get(kk, 0) + int(c) * u
        num = sum((p**kk * x for kk, x in by_k.items()), Fraction(0))
        ret_base = num / den if den else Fraction(1)
        # floats, on the whole play
        up, k, p = ladder_arrays(gamble, s, vals, limit_on=limit_on)
        pk = float(p) ** k.astype(np.float64)
        uf = up.astype(np.float64)
        mean_a = float(np.dot(uf * pk, probs))
        var_a = float(np.dot(uf * uf * pk, probs)) - mean_a**2
        bust = float(np.dot((vals > 0) * (1 - pk), probs))
        ge = float(np.dot((up >= 100 * bet) * pk, probs))
        top = float(up[(k > 0) & (probs > 0)].max(initial=0)) / bet
        out.append(GambleLine(s.name, ret_base, mean_a / mean_b if mean_b else 1.0, math.sqrt(max(var_b, 0.0)) / bet,
                              math.sqrt(max(var_a, 0.0)) / bet, bust, top, ge))
    return tuple(out)


def _section(gamble: Gamble, lines: tuple[GambleLine, ...], bet: int) -> FeatureSection:
    figures: list[tuple[str, Figure]] = []
    for c in check_fair(gamble):
        figures.append((f"return per {c.option} gamble (p × multiplier)", Figure.of(c.ratio)))
    figures += [("most gambles in a row", Figure.of(gamble.max_gambles)),
                ("gamble amount limit (credits)", Figure.of(gamble.limit)),
                ("gamble amount limit (× bet)", Figure.of(Fraction(gamble.limit, bet)))]
    table: list[tuple[str, ...]] = [("strategy", "return (exact, base game)", "return (whole play)", "σ before",
                                     "σ after", "P(bust)", "largest gamble pay (× bet)", "P(paid ≥ 100× bet)")]
    for g in lines:
        table.append((g.strategy, str(g.return_exact_base), f"{g.return_play:.12f}", f"{g.sd_before:.4f}",
                      f"{g.sd_after:.4f}", f"{g.p_bust:.6g}", f"{g.max_gamble_pay:,.2f}", f"{g.p_win_ge_100:.6g}"))
    notes = ("the gamble is left out of the RTP, σ and distribution above: each row shows what a strategy "
             "does to them",
             "each fair option returns exactly 100% at every rung (p × multiplier = 1), so every strategy returns "
             "exactly 100% of the win it gambles (exact column)",
             f"offered while the amount at stake is at most {gamble.limit} credits, at most "
             f"{gamble.max_gambles} times in a row, so one game's exposure is its win or, gambled, at most "
             f"{gamble.limit} × the largest multiplier; 'until' strategies stop at 20× bet")
    return FeatureSection(gamble.title, tuple(figures), tuple(table), notes)
