"""Jackpots revealed by marked PRIZE symbols: fixed prizes drawn from a reveal law.

TOML::

    [jackpots]
    mark = "jackpot"                              # symbols carrying this mark reveal a jackpot
    requires = ["ACT1", "ACT2", "ACT3", "ACT4", "ACT5"]   # ... only when one of these shows
    prizes = { Mini = 10, Minor = 20, Major = 200, Grand = 500 }    # × total bet
    reveal = { Mini = 700, Minor = 240, Major = 50, Grand = 10 }    # weights of the jackpot each mark reveals

The reveal is a stage of its own after the spin: when a spin shows ``k`` marked
symbols and at least one of ``requires``, each of the ``k`` reveals one jackpot,
independently, drawn from the ``reveal`` weights, and the spin pays their sum.
Its law from ``k`` is exact: the mean ``k · E[Y]``, the second moment
``k · E[Y²] + k(k − 1) · E[Y]²``, the distribution the ``k``-fold convolution of the
reveal law.  Each jackpot is its own PAR component (``jackpots: Grand`` …), so its
RTP share is reported wherever it is won (inside free games too), and the
expected number won per round is that share divided by its prize.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Self

import numpy as np

from ..errors import GameError, ModelError
from ..laws.convolve import convolve
from ..laws.law import WinLaw
from ..laws.provenance import FeatureSection, Figure
from ..laws.stage import Branch, CountOf, Digit, Entry, Level, Number, SpinModel, StageLaw
from ..model.fields import check_keys, integer, string
from ..model.game import Game, Role
from ..play.vocabulary import Const, Count, Law, Pay, Random, Reg, Repeat, Sequence, Set, Stake, Test
from .base import Block, Context, FeatureStats, Finding, MaxWin, RoundContext, modified

__all__ = ["Jackpots"]


def _k(entry: Entry) -> int:
    if not isinstance(entry, int) or entry < 1:
        msg = f"a jackpot reveal starts from the number of marked symbols, not {entry!r}"
        raise ModelError(msg)
    return entry


@dataclass(frozen=True, kw_only=True)
class Jackpots(Block):
    """Marked symbols reveal fixed jackpots (see the module docstring).

    Examples
    --------
    >>> j = Jackpots(name="jackpots", requires=("ACT",), prizes=(("Mini", 10), ("Grand", 500)),
    ...              reveal=(("Mini", 9), ("Grand", 1)))
    >>> j.entry({"jackpots:marks": 2, "jackpots:with": 1}), j.entry({"jackpots:marks": 2, "jackpots:with": 0})
    (2, None)
    >>> str(j.p("Grand")), str(j.mean_prize())
    ('1/10', '59')
    """

    kind: ClassVar[str] = "jackpots"
    role: ClassVar[Role] = "sequence"
    title: ClassVar[str] = "Jackpots"

    requires: tuple[str, ...]
    prizes: tuple[tuple[str, int], ...]
    reveal: tuple[tuple[str, int], ...]
    mark: str = "jackpot"

    # --- data ---------------------------------------------------------------------------
    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        check_keys(data, ("name", "mark", "requires", "prizes", "reveal"), where)
        req = data.get("requires", [])
        if not isinstance(req, list) or not all(isinstance(s, str) for s in req):
            msg = "expected a list of symbol names"
            raise GameError(msg, field=f"{where}.requires", fix='write e.g. ["ACT1", "ACT2"] (or [] for always)')
        prizes = _table(data.get("prizes"), f"{where}.prizes", 1)
        reveal = _table(data.get("reveal"), f"{where}.reveal", 0)
        if [n for n, _ in prizes] != [n for n, _ in reveal]:
            msg = "the reveal weights must name the same jackpots as the prizes, in the same order"
            raise GameError(msg, field=f"{where}.reveal", fix=f"give weights for {', '.join(n for n, _ in prizes)}")
        if sum(w for _, w in reveal) <= 0:
            msg = "every reveal weight is 0"
            raise GameError(msg, field=f"{where}.reveal", fix="give at least one jackpot a positive weight")
        return cls(name=name, requires=tuple(req), prizes=prizes, reveal=reveal,
                   mark=string(data.get("mark", "jackpot"), f"{where}.mark"))

    def table(self) -> dict[str, Any]:
        return {"mark": self.mark, "requires": list(self.requires), "prizes": dict(self.prizes),
                "reveal": dict(self.reveal)}

    def marked(self, game: Game) -> tuple[str, ...]:
        """The symbols carrying the mark."""
        return tuple(s.name for s in game.symbols if s.mark == self.mark)

    def symbols(self) -> tuple[str, ...]:
        return self.requires

    def validate(self, game: Game, where: str) -> None:
        if not self.marked(game):
            msg = f"no symbol carries the mark {self.mark!r}"
            raise GameError(msg, field=f"{where}.mark", fix=f'give a bonus symbol mark = "{self.mark}"')
        for i, s in enumerate(self.requires):
            if s not in game.symbol_names:
                msg = f"unknown symbol {s!r}"
                raise GameError(msg, field=f"{where}.requires[{i}]", fix="name declared symbols")

    # --- the reveal law -----------------------------------------------------------------
    def p(self, jackpot: str) -> Fraction:
        """P(a marked symbol reveals ``jackpot``)."""
        total = sum(w for _, w in self.reveal)
        return Fraction(dict(self.reveal)[jackpot], total)

    def mean_prize(self) -> Fraction:
        """E[Y]: the mean jackpot one mark reveals (× total bet)."""
        return sum((self.p(n) * v for n, v in self.prizes), Fraction(0))

    def one(self, bet: int) -> WinLaw:
        """The law of the jackpot one mark reveals, in credits."""
        values = np.array([v * bet for n, v in self.prizes if dict(self.reveal)[n]], dtype=np.int64)
        probs = np.array([float(self.p(n)) for n, _ in self.prizes if dict(self.reveal)[n]])
        order = np.argsort(values)
        return WinLaw(values[order], probs[order])

    # --- the round ----------------------------------------------------------------------
    @property
    def digit_names(self) -> tuple[str, str]:
        return f"{self.name}:marks", f"{self.name}:with"

    def digits(self, game: Game) -> tuple[Digit, ...]:
        marks, with_ = self.digit_names
        return Digit(marks, CountOf(self.marked(game))), Digit(with_, CountOf(self.requires))

    def trigger_digits(self, game: Game) -> tuple[str, ...]:
        return self.digit_names if self.requires else self.digit_names[:1]

    def entry(self, digits: Mapping[str, int]) -> Entry | None:
        marks, with_ = self.digit_names
        k = digits[marks]
        return k if k > 0 and (not self.requires or digits[with_] > 0) else None

    def component_of(self, jackpot: str) -> str:
        """The PAR component a jackpot is reported under."""
        return f"{self.component}: {jackpot}"

    def law(self, ctx: RoundContext, entry: Entry, level: Level) -> StageLaw:
        k = _k(entry)
        bet = ctx.total_bet
        comps: dict[str, Number] = {self.component_of(n): k * self.p(n) * v * bet for n, v in self.prizes}
        mean = k * self.mean_prize() * bet
        top = k * max(v for n, v in self.prizes if dict(self.reveal)[n]) * bet
        if level == "mean":
            return StageLaw({(): Branch(Fraction(1), mean, top=top)}, comps, "exact", level)
        second = sum((self.p(n) * v * v for n, v in self.prizes), Fraction(0)) * bet * bet
        m2 = k * second + k * (k - 1) * (self.mean_prize() * bet) ** 2
        dist = None
        if level == "distribution":
            one = self.one(bet)
            dist = one
            for _ in range(k - 1):
                dist = convolve(dist, one)
        return StageLaw({(): Branch(Fraction(1), mean, m2, dist, top)}, comps, "exact", level)

    def most_marks(self, ctx: Context) -> int:
        """The most marked symbols one window can show (every spin of the game, the reel sets' full windows too)."""
        marks, _ = self.digit_names
        models = [m for _, m, _ in modified(ctx, ctx.base_model())]
        models += [SpinModel(rs.name) for rs in ctx.game.reel_sets]
        return max(max(k[0] for k in ctx.digit_law(m, (marks,))[0]) for m in models)

    def max_win(self, ctx: Context) -> MaxWin:
        k = self.most_marks(ctx)
        top = max(v for n, v in self.prizes if dict(self.reveal)[n])
        return MaxWin(True, k * top * ctx.total_bet,
                      f"{self.name}: at most {k} marks in a window, each at most {top}× bet")

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(("requires", "prizes", "reveal", "mark"))

    def sim_table(self, game: Game, stake: Stake) -> Sequence:
        """Played by its entry: each marked symbol showing draws one jackpot by the reveal weights and pays it."""
        marks = Count(self.marked(game))
        trigger = (Test(marks, ">", 0), *((Test(Count(self.requires), ">", 0),) if self.requires else ()))
        law = Law(tuple(range(len(self.reveal))), tuple(w for _, w in self.reveal))
        pays = tuple(Pay(Const(v), label=n, when=(Test(Reg("drawn"), "==", i),)) for i, (n, v) in enumerate(self.prizes))
        return Sequence(registers=("drawn",), trigger=trigger, stages=(),
                        entry=(Repeat(marks, (Set("drawn", Random((law,))), *pays)),))

    # --- the PAR sheet and the checks ----------------------------------------------------
    def hits(self, stats: FeatureStats, jackpot: str) -> Number:
        """P(a base spin wins ``jackpot`` at least once): ``Σ_k P(k marks) · (1 − (1 − p)^k)``."""
        q = 1 - self.p(jackpot)
        return sum((p * (1 - q ** _k(e)) for e, p in stats.entries.items()), Fraction(0))

    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        bet = ctx.total_bet
        p = stats.p_enter
        figures: list[tuple[str, Figure]] = [("P(a base spin reveals jackpots)", Figure.of(p))]
        rows: list[tuple[str, ...]] = [("jackpot", "prize (× bet)", "reveal probability", "P(won) per base spin",
                                        "1 in", "RTP share (base spins)", "RTP share (every stage)",
                                        "expected wins per round")]
        everywhere = stats.extra.get("round")
        for n, v in self.prizes:
            hit = self.hits(stats, n)
            share = sum((q * stats.laws[e].components[self.component_of(n)] for e, q in stats.entries.items()),
                        Fraction(0)) / bet
            total: Number = share
            if everywhere is not None:
                total = sum((x for c, x in everywhere.components.items()
                             if c == self.component_of(n) or c.endswith(f": {self.component_of(n)}")), Fraction(0)) / bet
            figures += [(f"{n}: P(won) per base spin", Figure.of(hit)),
                        (f"{n}: RTP share", Figure.of(total) if isinstance(total, Fraction) else Figure(total, "markov"))]
            rows.append((n, str(v), str(self.p(n)), f"{float(hit):.6g}", f"{float(1 / hit):,.0f}" if hit else "never",
                         f"{float(share):.6%}", f"{float(total):.6%}", f"{float(total) / v:.6g}"))
        notes = (f"a symbol marked {self.mark!r} ({', '.join(self.marked(ctx.game))}) reveals one jackpot, drawn "
                 f"independently with weights {', '.join(f'{n} {w}' for n, w in self.reveal)}"
                 + (f", when one of {', '.join(self.requires)} shows" if self.requires else ""),
                 "the expected number of a jackpot won per round is its RTP share divided by its prize")
        return FeatureSection(self.title, tuple(figures), tuple(rows), notes)

    def findings(self, ctx: Context, stats: FeatureStats, limits: Mapping[str, int]) -> tuple[Finding, ...]:
        limit = limits.get("odds_limit")
        out = []
        for n, v in self.prizes:
            hit = self.hits(stats, n)
            ok = hit > 0 and (limit is None or hit * limit >= 1)
            odds = f"1 in {float(1 / hit):,.0f} base spins" if hit else "never won"
            out.append(Finding(f"jackpot_{n.lower()}", bool(ok),
                               f"{n} ({v}× bet): {odds}" + (f"; limit 1 in {limit:,}" if limit else "")))
        return tuple(out)


def _table(value: Any, where: str, minimum: int) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, dict) or not value:
        msg = "expected a table of jackpot = number"
        raise GameError(msg, field=where, fix="write e.g. { Mini = 10, Minor = 20, Major = 200, Grand = 500 }")
    return tuple((str(k), integer(v, f"{where}.{k}", minimum=minimum)) for k, v in value.items())

