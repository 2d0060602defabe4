"""Free spins with a growing multiplier: it starts at the number of triggers and every new trigger adds to it.

TOML (several of a kind as an array of tables with ``name``)::

    [[multiplier_free_spins]]
    name = "priestess"
    trigger = "GREEN"          # a scatter: each one on the window adds `step` to the multiplier
    spins = 7                  # spins played (no retrigger)
    reels = "priestess"        # the reel set the free spins use
    min_count = 3              # triggers that start the feature
    step = 1                   # multiplier added per trigger (the start is `step` × the triggers)
    from_feature = "scatter_respins"   # optional: entered only from that feature, not by the base spin

Reading: a spin's new triggers raise the multiplier before the spin's line wins
are paid ("features ... activated immediately, and before calculating winnings
for that spin"); the multiplier applies to line wins, not to scatter pays (as the
simulator plays it).

The maths.  Spin ``t`` pays ``X_t·(m₀ + s·Σ_{u ≤ t} c_u) + Y_t`` (line win ``X``, scatter win
``Y``) with ``(X_t, Y_t, c_t)`` independent of the spins before, so the mean of ``S`` spins is

    E[W] = S·m₀·E[X] + s·E[X]·E[c]·S(S − 1)/2 + s·S·E[X·c] + S·E[Y],

where ``E[X·c] = Σ_r Σ_v v·P(c_r = v)·E[X | c_r = v]`` comes from the per-reel law of the
triggers and the mean of the spin restricted to the stops of reel ``r`` showing ``v``
of them — per-reel algebra, no enumeration.  The tail bound for the cap is the
chain's exponential moment over (spins left, multiplier) from the spin's exact
joint law of (win, triggers) (:func:`mathkit.laws.tails.multiplier_log_mgf`;
``X·m + Y ≤ (X + Y)·m`` keeps it a bound).  The distribution: backwards over (spins
left, multiplier), ``D(k, m) = Σ_c P(c)·law(X·m' + Y | c) ⊛ D(k − 1, m')``, one
spin's exact joint law of ``(X, Y, c)`` read from one enumeration (lines paid ×
``L`` above every scatter win, so ``X = win // L`` and ``Y = win mod L``), the
convolutions by real FFT on the credit lattice (:func:`multiplier_distribution`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Self

import numpy as np

from ..chains.markov.multiplier import MultiplierLattice
from ..errors import GameError, ModelError
from ..laws.law import WinLaw
from ..laws.provenance import FeatureSection, Figure, Method
from ..laws.stage import Branch, Entry, HeldCells, HeldValues, Level, Number, SpinModel, StageLaw, Tail, lazy_tail
from ..laws.tails import FINE_THETAS, multiplier_tails
from ..model.fields import check_keys, integer, string
from ..model.game import Game, Role
from ..play.vocabulary import Add, Const, Count, Goto, Lookup, Reg, Sequence, Set, Spin, Stage, Stake, Test
from .base import Block, Context, FeatureStats, MaxWin, RoundContext, Termination
from .free_spins import EnteredSpins, entry_facts, held_counts

__all__ = ["MultiplierFreeSpins"]


def _entry(entry: Entry) -> tuple[int, int]:
    if not (isinstance(entry, tuple) and len(entry) == 2 and all(isinstance(x, int) for x in entry)):
        msg = f"a multiplier free-spin feature starts from (spins, multiplier), not {entry!r}"
        raise ModelError(msg)
    return entry[0], entry[1]


@dataclass(frozen=True, kw_only=True)
class MultiplierFreeSpins(EnteredSpins):
    """``spins`` free spins whose multiplier starts at ``step`` × the triggers and grows by ``step`` per new trigger.

    Examples
    --------
    >>> fs = MultiplierFreeSpins(name="priestess", trigger="G", spins=7, reels="p")
    >>> fs.entry({"G": 4}), fs.entry({"G": 2})
    ((7, 4), None)
    """

    kind: ClassVar[str] = "multiplier_free_spins"
    role: ClassVar[Role] = "sequence"
    title: ClassVar[str] = "Free spins"

    trigger: str
    spins: int
    reels: str
    min_count: int = 3
    step: int = 1
    from_feature: str | None = None

    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        check_keys(data, ("name", "trigger", "spins", "reels", "min_count", "step", "from_feature"), where)
        for k in ("trigger", "spins", "reels"):
            if k not in data:
                msg = "missing field"
                raise GameError(msg, field=f"{where}.{k}", fix="multiplier free spins need trigger, spins and reels")
        src = data.get("from_feature")
        return cls(name=name, trigger=string(data["trigger"], f"{where}.trigger"),
                   spins=integer(data["spins"], f"{where}.spins", minimum=1),
                   reels=string(data["reels"], f"{where}.reels"),
                   min_count=integer(data.get("min_count", 3), f"{where}.min_count", minimum=1),
                   step=integer(data.get("step", 1), f"{where}.step", minimum=1),
                   from_feature=None if src is None else string(src, f"{where}.from_feature"))

    def table(self) -> dict[str, Any]:
        out: dict[str, Any] = {"trigger": self.trigger, "spins": self.spins, "reels": self.reels,
                               "min_count": self.min_count, "step": self.step}
        return self.with_source(out)

    def symbols(self) -> tuple[str, ...]:
        return (self.trigger,)

    # --- the round ----------------------------------------------------------------------
    def entry(self, digits: Mapping[str, int]) -> Entry | None:
        n = digits.get(self.trigger, 0)
        return (self.spins, self.step * n) if n >= self.min_count else None

    def model(self) -> SpinModel:
        return SpinModel(self.reels)

    def spin_figures(self, ctx: Context) -> tuple[Fraction, Fraction, Fraction, Fraction]:
        """``(E[X], E[c], E[X·c], E[Y])`` of one free spin (line win ``X``, scatter win ``Y``), exactly (per-reel algebra)."""
        def compute() -> tuple[Fraction, Fraction, Fraction, Fraction]:
            lines = SpinModel(self.reels, scatter_multiplier=0)
            x = sum(ctx.means(lines).values(), Fraction(0))
            y = sum(ctx.means(SpinModel(self.reels, line_multiplier=0)).values(), Fraction(0))
            laws = ctx.reel_laws(self.model(), (self.trigger,))
            c = Fraction(0)
            xc = Fraction(0)
            for r, law in enumerate(laws):
                total = sum(law.values())
                for (v,), w in law.items():
                    if v:
                        p = Fraction(w, total)
                        c += v * p
                        given = SpinModel(self.reels, restrict=((r, self.trigger, (v,)),), scatter_multiplier=0)
                        xc += v * p * sum(ctx.means(given).values(), Fraction(0))
            return x, c, xc, y

        return ctx.shared(("multiplier spin", self), (self.reels,), compute)

    def mean(self, ctx: Context, spins: int, start: int) -> Fraction:
        """E[W] of ``spins`` spins from multiplier ``start``."""
        x, c, xc, y = self.spin_figures(ctx)
        s = self.step
        return spins * start * x + s * x * c * Fraction(spins * (spins - 1), 2) + s * spins * xc + spins * y

    def spin_joint(self, ctx: Context) -> tuple[tuple[int, int, int, int], ...]:
        """One free spin's exact joint law: ``(triggers c, line win X, scatter win Y, count)`` over the cycle.

        One enumeration, lines paid × ``L`` (above every scatter win): ``X = win // L``, ``Y = win mod L``.
        """
        def compute() -> tuple[tuple[int, int, int, int], ...]:
            big = ctx.win_bound(self.model()) + 1
            joint = ctx.joint(SpinModel(self.reels, line_multiplier=big), (self.trigger,))
            acc: dict[tuple[int, int, int], int] = {}
            for c, w, n in zip(joint.digits[self.trigger].tolist(), joint.wins.tolist(), joint.counts.tolist(),
                               strict=True):
                key = (int(c), *divmod(int(w), big))
                acc[key] = acc.get(key, 0) + int(n)
            return tuple((c, x, y, n) for (c, x, y), n in sorted(acc.items()))

        return ctx.shared(("multiplier joint", self), (self.reels,), compute)

    def moments(self, ctx: Context, spins: int, start: int) -> tuple[Fraction, Fraction]:
        """``(E[W], E[W²])`` of ``spins`` spins from multiplier ``start``, exactly.

        From the spin's exact joint law of (line win ``X``, scatter win ``Y``, triggers ``c``), backwards over
        (spins left ``k``, multiplier ``m``): with ``m' = m + s·c`` and the spin's pay ``Z = X·m' + Y``,
        ``A(k, m) = E[Z + A(k−1, m')]`` and ``B(k, m) = E[Z² + 2·Z·A(k−1, m') + B(k−1, m')]``.
        """
        def by_count() -> tuple[tuple[int, Fraction, tuple[Fraction, ...]], ...]:
            cycle = sum(n for *_, n in self.spin_joint(ctx))
            out: dict[int, list[int]] = {}
            for c, x, y, n in self.spin_joint(ctx):  # Σ n, n·X, n·Y, n·X², n·X·Y, n·Y²
                acc = out.setdefault(c, [0] * 6)
                for i, v in enumerate((1, x, y, x * x, x * y, y * y)):
                    acc[i] += n * v
            return tuple((c, Fraction(a[0], cycle), tuple(Fraction(v, cycle) for v in a[1:]))
                         for c, a in sorted(out.items()))

        law = ctx.shared(("multiplier sums", self), (self.reels,), by_count)
        memo: dict[tuple[int, int], tuple[Fraction, Fraction]] = {}

        def ab(k: int, m: int) -> tuple[Fraction, Fraction]:
            if k == 0:
                return Fraction(0), Fraction(0)
            if (k, m) not in memo:
                a = b = Fraction(0)
                for c, p, (x1, y1, x2, xy, y2) in law:  # p·E[· | c]
                    m2 = m + self.step * c
                    na, nb = ab(k - 1, m2)
                    z1 = x1 * m2 + y1
                    z2 = x2 * m2 * m2 + 2 * xy * m2 + y2
                    a += z1 + p * na
                    b += z2 + 2 * z1 * na + p * nb
                memo[(k, m)] = (a, b)
            return memo[(k, m)]

        return ab(spins, start)

    def distribution(self, ctx: Context, spins: int, start: int) -> WinLaw:
        """The law of the feature's win from ``(spins, start)`` (float; wins above the game's round limit lumped there)."""
        limit = None
        for f in ctx.game.features_of("transform"):
            lim = f.round_limit(ctx) if isinstance(f, Block) else None
            if lim is not None:
                limit = int(lim) if limit is None else min(limit, int(lim))
        top = self.top(ctx, spins, start)
        hi = limit if limit is not None and limit < top else None
        lattice = ctx.shared(("multiplier lattice", self, hi, None if hi is not None else top), (self.reels,),
                             lambda: MultiplierLattice(self.spin_joint(ctx), self.step, hi, top if hi is None else
                                                       self.top(ctx, self.spins, self.most_start(ctx))))
        return lattice.law(spins, start)

    def most_start(self, ctx: Context) -> int:
        """The largest starting multiplier: every cell of the window a trigger."""
        return self.step * sum(ctx.game.reel_set(self.reels).rows)

    def most_triggers(self, ctx: Context) -> int:
        """The most triggers one free spin can show."""
        return sum(max((v for (v,) in law), default=0) for law in ctx.reel_laws(self.model(), (self.trigger,)))

    def top(self, ctx: Context, spins: int, start: int) -> int:
        """A bound of the feature's win from ``(spins, start)``: every spin at its bound, the multiplier at its most."""
        bound = ctx.win_bound(self.model())
        c = self.most_triggers(ctx)
        return sum(bound * (start + self.step * c * t) for t in range(1, spins + 1))

    def tail(self, ctx: Context, spins: int, start: int) -> Tail:
        """A Chernoff bound of the feature's win tail from ``(spins, start)``, split by the final multiplier."""
        most = max(start, self.step * sum(ctx.game.reel_set(self.reels).rows))  # every cell a trigger at the start

        def compute() -> dict[int, Tail]:
            joint = ctx.joint(self.model())
            probs = joint.counts / joint.cycle
            bet = ctx.total_bet
            return multiplier_tails(joint.wins.astype(np.float64), joint.digits[self.trigger].astype(np.float64), probs,
                                    spins, range(1, most + 1), self.step, [t / bet for t in FINE_THETAS])

        return ctx.shared(("multiplier tails", self, spins, most), (self.reels,), compute)[start]

    def law(self, ctx: Context, entry: Entry, level: Level) -> StageLaw:
        spins, start = _entry(entry)
        mean = self.mean(ctx, spins, start)
        m2 = None
        dist = self.distribution(ctx, spins, start) if level == "distribution" else None
        if level != "mean":
            mean2, m2 = self.moments(ctx, spins, start)
            if mean2 != mean:
                msg = f"{self.name}: the chain's mean {mean2} differs from the closed form {mean}"
                raise ModelError(msg)
        _, c, _, _ = self.spin_figures(ctx)
        facts: dict[str, Number] = {"spins": Fraction(spins), "multiplier at the start": Fraction(start),
                                    "multiplier at the end": start + self.step * spins * c}
        return StageLaw({(): Branch(Fraction(1), mean, m2, dist, top=self.top(ctx, spins, start),
                                    tail=lazy_tail(lambda: self.tail(ctx, spins, start)))},
                        {self.component: mean}, "exact", level, facts)

    def held_values(self, ctx: RoundContext, held: HeldCells, level: Level) -> HeldValues:
        return entry_facts(self, ctx, held, level, held_counts(held, self.min_count))


    # --- checks and the PAR sheet -------------------------------------------------------
    def terminates(self, ctx: Context) -> Termination:
        return Termination(True, f"{self.name}: {self.spins} spins, no retrigger")

    def max_win(self, ctx: Context) -> MaxWin:
        most = self.step * ctx.game.reel_set(self.reels).n_reels * max(ctx.game.reel_set(self.reels).rows)
        top = self.top(ctx, self.spins, most)
        return MaxWin(True, top, f"{self.name}: {self.spins} spins of at most {ctx.win_bound(self.model()):,} credits "
                                 f"× a multiplier of at most {most} + {self.step * self.most_triggers(ctx)} per spin")

    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        bet = ctx.total_bet
        p = stats.p_enter
        x, c, _xc, _y = self.spin_figures(ctx)
        figures: list[tuple[str, Figure]] = [("trigger probability", Figure.of(p)),
                                             ("trigger frequency (1 in N)", Figure.odds(p)),
                                             ("spins", Figure.of(self.spins)),
                                             ("line win per spin at ×1 (× bet)", Figure.of(x / bet)),
                                             ("triggers per spin", Figure.of(c))]
        if p:
            def avg(name: str) -> Number:
                return sum((q * stats.laws[e].facts[name] for e, q in stats.entries.items()), Fraction(0)) / p

            win = sum((q * stats.laws[e].mean for e, q in stats.entries.items()), Fraction(0)) / p
            method: Method = "exact" if ctx.precision == "exact" else "markov"
            figures += [("multiplier at the start (average)", Figure.of(avg("multiplier at the start"), method)),
                        ("multiplier at the end (average)", Figure.of(avg("multiplier at the end"), method)),
                        ("average feature win (× bet)", Figure.of(win / bet, method)),
                        ("RTP contribution", Figure.of(p * win / bet, method))]
        notes = (f"{self.name}: {self.spins} spins on reel set {self.reels!r}; the multiplier starts at {self.step} × the "
                 f"{self.trigger} that start it and grows by {self.step} for each {self.trigger} on a spin, before that "
                 "spin's line wins are paid",
                 "exact mean: S·m₀·E[X] + E[X]·E[c]·S(S−1)/2 + S·E[X·c], E[X·c] from the spin restricted reel by reel")
        return FeatureSection(self.heading, tuple(figures), notes=notes)

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(
        ("trigger", "spins", "reels", "min_count", "step", "from_feature"))

    def sim_table(self, game: Game, stake: Stake) -> Sequence:
        """Spins left and the multiplier as registers; each spin's triggers raise it before its line wins are paid."""
        count = Count(game.scatter_counted(self.trigger))  # the scatter and the wilds counting as it
        most = sum(game.reel_set(self.reels).rows)
        raise_by = Lookup(tuple(self.step * c for c in range(most + 1)), count)
        spin = Spin(self.reels, line_multiplier=Reg("multiplier"))
        return Sequence(
            registers=("left", "multiplier"),
            trigger=self.sim_trigger((Test(count, ">=", self.min_count),)),
            entry=(Set("left", Const(self.spins)), Set("multiplier", raise_by)),
            stages=(Stage("spin", spins=(spin,), actions=(Add("multiplier", raise_by), Add("left", Const(-1))),
                          then=(Goto("spin", when=(Test(Reg("left"), ">", 0),)),)),),
        )
