"""Free spins triggered by scatters: awards, retriggers, a multiplier, an optional spin limit.

TOML (one feature as a table, several as an array of tables with ``name``)::

    [free_spins]
    trigger = "EMPEROR"        # a scatter symbol
    awards = { 3 = 10 }        # n+ triggers in the base game award spins
    retriggers = { 3 = 10 }    # n+ triggers during the feature add spins (optional)
    reels = "free"             # the reel set the free spins use
    multiplier = 2             # line wins ×2 (optional, 1)
    multiply_scatter = false   # scatter wins ×2 too (optional)
    max_spins = 50             # at most this many spins in one feature (optional)
    from_feature = "respins"   # entered only from that feature's exits, not by the base spin (optional)

The maths (a chain over spins left, see :mod:`mathkit.chains.freespins`): one free
spin's exact joint law of (win, spins added) comes from the engine; without a
spin limit the closed forms apply (Wald: ``E[N | n] = n / (1 − m)``), with one the
chain's exact linear solves; the feature's distribution from Kemperman's length
law and one FFT.  The fast mean path needs no enumeration: ``E[W | n] = E[N | n] ·
E[X]`` (Wald's identity: a spin's win is independent of the spins before it).
With retriggers and no spin limit the win has no bound; its tail is bounded for a
cap by the feature's exponential moment (:func:`mathkit.laws.tails.branching_log_mgf`).

Helpers shared with the other free-spin blocks (:mod:`mathkit.features.multiplier_spins`,
:mod:`mathkit.features.sticky_spins`): how a feature entered from another one is
validated (:class:`EnteredSpins`), and a feature's values over many held-cell windows
when its entry depends only on the number of triggers (:func:`held_counts`,
:func:`entry_facts`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Self

import numpy as np
import numpy.typing as npt

from ..chains.freespins import FreeSpinChain, SpinLaw, expected_spins_limited, feature_distribution, retrigger_rule
from ..chains.markov import geometric_check
from ..errors import GameError, ModelError
from ..laws.provenance import FeatureSection, Figure, Method, weakest
from ..laws.stage import (
    Branch,
    Entry,
    HeldCells,
    HeldValues,
    Level,
    Number,
    Ratios,
    SpinModel,
    StageLaw,
    Tail,
    lazy_tail,
    tail_of,
)
from ..laws.tails import THETAS, branching_log_mgf, chernoff
from ..model.bounds import MAX_FEATURE_SPINS, check_win, largest_bet, spin_tops
from ..model.fields import boolean, check_keys, count_table, integer, string
from ..model.game import Game, Role, at_most
from ..play.vocabulary import Add, Const, Count, Goto, Grant, Lookup, Reg, Sequence, Set, Spin, Stage, Stake, Test
from .base import Block, Context, FeatureStats, MaxWin, RoundContext, Termination

__all__ = ["EnteredSpins", "FreeSpins", "entry_facts", "held_counts"]

IntArray = npt.NDArray[np.int64]
SURVIVAL_AT = (10, 20, 30, 50, 100)
FEATURE_TAILS = (10, 50, 100, 500, 1000)
TOL = 1e-13
KEYS = ("name", "trigger", "awards", "retriggers", "reels", "multiplier", "multiply_scatter", "max_spins", "from_feature")


class EnteredSpins(Block):
    """What every free-spin block shares: a trigger scatter, a reel set of its own and, optionally,
    the feature it is entered from (``from_feature``: then the base spin never starts it itself).

    Examples
    --------
    >>> fs = FreeSpins(name="f", trigger="S", awards=((3, 10),), reels="free", from_feature="respins")
    >>> fs.reel_sets(), fs.with_source({"spins": 5})
    (('free',), {'spins': 5, 'from_feature': 'respins'})
    """

    trigger: str
    reels: str
    from_feature: str | None

    def with_source(self, out: dict[str, Any]) -> dict[str, Any]:
        """The block's table ``out`` with its ``from_feature`` (where it has one)."""
        return out if self.from_feature is None else {**out, "from_feature": self.from_feature}

    def reel_sets(self) -> tuple[str, ...]:
        return (self.reels,)

    def validate(self, game: Game, where: str) -> None:
        """The trigger is a scatter; the reel set and the source feature exist."""
        if self.trigger not in game.symbol_names or not game.symbol(self.trigger).is_scatter:
            scat = ", ".join(s.name for s in game.scatters) or "(declare a scatter symbol)"
            msg = f"trigger {self.trigger!r} is not a scatter symbol"
            raise GameError(msg, field=f"{where}.trigger", fix=f"use one of: {scat}")
        names = [rs.name for rs in game.reel_sets]
        if self.reels not in names:
            msg = f"no reel set {self.reels!r}"
            raise GameError(msg, field=f"{where}.reels", fix=f"use one of: {', '.join(names)}")
        source = self.from_feature
        if source is not None and (source == self.name or source not in [f.name for f in game.features]):
            msg = f"no other feature named {source!r}"
            raise GameError(msg, field=f"{where}.from_feature",
                            fix=f"name the feature it follows: {', '.join(f.name for f in game.features if f is not self)}")

    def trigger_digits(self, game: Game) -> tuple[str, ...]:
        return () if self.from_feature is not None else self.base_digits(game)

    def base_digits(self, game: Game) -> tuple[str, ...]:
        """The digits the base spin must observe to start the block (when no ``from_feature``)."""
        return (self.trigger,)

    def sim_trigger(self, tests: tuple[Test, ...]) -> tuple[Test, ...] | None:
        """The simulator's trigger: ``tests`` on the base spin, or none when entered from ``from_feature``
        (whose table starts it; the entry then reads the window that feature ends with)."""
        return tests if self.from_feature is None else None


def held_counts(held: HeldCells, least: int) -> IntArray:
    """The number of held cells of every window (0 where fewer than ``least``)."""
    counts = np.array([int(m).bit_count() for m in held.masks.tolist()], dtype=np.int64)
    return np.where(counts >= least, counts, 0)


def entry_facts(block: Block, ctx: RoundContext, held: HeldCells, level: Level, counts: IntArray) -> HeldValues:
    """A feature's values over held-cell windows when its entry depends only on the count (``counts``, 0: not entered).

    Every distinct count is solved once (:meth:`~mathkit.features.Block.law` from the entry the
    count gives) and spread over the windows.
    """
    laws: dict[int, StageLaw] = {}
    for k in sorted(set(counts.tolist()) - {0}):
        e = block.entry({held.symbol: k})
        if e is not None:
            laws[k] = block.law(ctx, e, level)
    idx = np.asarray(counts, dtype=np.int64)
    size = int(idx.max(initial=0)) + 1

    def pick(fn: Any) -> Ratios | npt.NDArray[np.float64]:
        """``fn(law)`` of every window's count (0 where the count starts nothing)."""
        table = {k: fn(law) for k, law in laws.items()}
        if ctx.precision != "exact":
            out = np.zeros(size)
            for k, v in table.items():
                out[k] = float(v)
            return out[idx]
        fr = {k: Fraction(v) for k, v in table.items()}
        den = math.lcm(1, *(f.denominator for f in fr.values()))
        num = np.zeros(size, dtype=object)
        for k, f in fr.items():
            num[k] = int(f * den)
        return Ratios(num[idx], den)

    zero = Fraction(0)
    mean = pick(lambda law: law.mean)
    m2 = pick(lambda law: law.branches[()].m2 or zero) if level != "mean" else None
    tops = [law.branches[()].top for law in laws.values()]
    top = None if any(t is None for t in tops) else max((int(t) for t in tops if t is not None), default=0)
    names = {n for law in laws.values() for n in law.facts}
    facts = {n: pick(lambda law, n=n: law.facts.get(n, zero)) for n in names}

    seen: dict[float, tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]] = {}

    def tail(t: float) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        if t not in seen:  # kept per count, read out per window on each call (a round asks many thresholds)
            b = np.zeros(size)
            q = np.zeros_like(b)
            for k, law in laws.items():
                br = law.branches[()]
                fn = tail_of(br.top, br.tail)
                b[k], q[k] = (np.inf, 1.0) if fn is None else fn(t)
            seen[t] = b, q
        b, q = seen[t]
        return b[idx], q[idx]

    method: Method = "exact"
    for law in laws.values():
        method = law.method if law.method != "exact" else method
    return HeldValues(mean, m2, top, facts, tail, method)


def _n(entry: Entry) -> int:
    """A free-spin entry: the number of spins awarded."""
    if not isinstance(entry, int):
        msg = f"a free-spin feature starts from a number of spins, not {entry!r}"
        raise ModelError(msg)
    return entry


@dataclass(frozen=True, kw_only=True)
class FreeSpins(EnteredSpins):
    """A free-spin feature triggered by scatters.

    Parameters
    ----------
    trigger
        The scatter symbol that triggers it.
    awards
        ``(count, spins)``: spins awarded by ``count`` or more triggers in the base game.
    reels
        The reel set the free spins use.
    retriggers
        ``(count, spins)`` added during the feature (empty: no retrigger).
    multiplier
        Factor applied to line wins during free spins.
    multiply_scatter
        Whether the multiplier applies to scatter wins too.
    max_spins
        Optional limit on the total number of free spins in one feature.

    Examples
    --------
    >>> fs = FreeSpins(name="free_spins", trigger="EMPEROR", awards=((3, 10),), reels="free")
    >>> fs.award(4), fs.entry({"EMPEROR": 2}), fs.entry({"EMPEROR": 3})
    (10, None, 10)
    """

    kind: ClassVar[str] = "free_spins"
    role: ClassVar[Role] = "sequence"
    title: ClassVar[str] = "Free spins"

    trigger: str
    awards: tuple[tuple[int, int], ...]
    reels: str
    retriggers: tuple[tuple[int, int], ...] = ()
    multiplier: int = 1
    multiply_scatter: bool = False
    max_spins: int | None = None
    from_feature: str | None = None

    # --- data ---------------------------------------------------------------------------
    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        check_keys(data, KEYS, where)
        for k in ("trigger", "awards", "reels"):
            if k not in data:
                msg = "missing field"
                raise GameError(msg, field=f"{where}.{k}", fix="free spins need trigger, awards and reels")
        max_spins = data.get("max_spins")
        src = data.get("from_feature")
        return cls(
            name=name,
            trigger=string(data["trigger"], f"{where}.trigger"),
            awards=count_table(data["awards"], f"{where}.awards", maximum=MAX_FEATURE_SPINS),
            reels=string(data["reels"], f"{where}.reels"),
            retriggers=count_table(data.get("retriggers", {}), f"{where}.retriggers", maximum=MAX_FEATURE_SPINS),
            multiplier=integer(data.get("multiplier", 1), f"{where}.multiplier", minimum=1),
            multiply_scatter=boolean(data.get("multiply_scatter", False), f"{where}.multiply_scatter"),
            max_spins=None if max_spins is None else integer(max_spins, f"{where}.max_spins", minimum=1,
                                                              maximum=MAX_FEATURE_SPINS),
            from_feature=None if src is None else string(src, f"{where}.from_feature"),
        )

    def table(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "trigger": self.trigger, "reels": self.reels,
            "awards": {str(k): v for k, v in self.awards},
            "retriggers": {str(k): v for k, v in self.retriggers},
            "multiplier": self.multiplier, "multiply_scatter": self.multiply_scatter,
        }
        if self.max_spins is not None:
            out["max_spins"] = self.max_spins
        return self.with_source(out)

    def symbols(self) -> tuple[str, ...]:
        return (self.trigger,)

    def validate(self, game: Game, where: str) -> None:
        super().validate(game, where)
        if not self.awards or all(v == 0 for _, v in self.awards):
            msg = "no spins awarded"
            raise GameError(msg, field=f"{where}.awards", fix="write e.g. { 3 = 10 }")
        self._check_bounds(game, where)

    def _check_bounds(self, game: Game, where: str) -> None:
        """The bounds contract: one free spin, and a feature with a most spins, pay at most MAX_WIN credits."""
        lines, coins = largest_bet(game)
        line_top, scatter_top = spin_tops(game, self.reels, lines=lines, coins=coins)
        top = line_top * self.multiplier + scatter_top * (self.multiplier if self.multiply_scatter else 1)
        check_win(top, f"{where}.multiplier", f"one spin of {self.name} at the largest bet can pay up to",
                  "lower the multiplier or the pays of the feature's reel set")
        adds = any(v > 0 for _, v in self.retriggers)
        spins = self.max_spins if self.max_spins is not None else None if adds else max(v for _, v in self.awards)
        if spins is not None:
            base = max(sum(spin_tops(game, rs.name, lines=lines, coins=coins)) for rs in game.reel_sets)
            check_win(base + spins * top, f"{where}.max_spins" if self.max_spins is not None else f"{where}.awards",
                      f"a round with {spins} spins of {self.name} at the largest bet can pay up to",
                      "lower the spins, the multiplier or the pays")

    def award(self, count: int) -> int:
        """Spins awarded by ``count`` triggers in the base game."""
        best = at_most(self.awards, count)
        return 0 if best is None else int(best[1])

    def retrigger(self, count: int) -> int:
        """Spins added by ``count`` triggers during the feature."""
        best = at_most(self.retriggers, count)
        return 0 if best is None else int(best[1])

    # --- the round ----------------------------------------------------------------------
    def entry(self, digits: Mapping[str, int]) -> Entry | None:
        n = self.award(digits.get(self.trigger, 0))
        if self.max_spins is not None:
            n = min(n, self.max_spins)
        return n if n > 0 else None

    def model(self, ctx: Context) -> SpinModel:
        """One free spin: the feature's reel set with its multipliers."""
        return SpinModel(self.reels, line_multiplier=self.multiplier,
                         scatter_multiplier=self.multiplier if self.multiply_scatter else 1)

    def added_law(self, ctx: Context) -> dict[int, Fraction]:
        """P(one free spin adds ``a`` spins), exactly, without enumeration."""
        weights, cycle = ctx.digit_law(self.model(ctx), (self.trigger,))
        p: dict[int, Fraction] = {}
        for (count,), w in weights.items():
            a = self.retrigger(count)
            p[a] = p.get(a, Fraction(0)) + Fraction(w, cycle)
        return p

    def rule(self, ctx: Context) -> str:
        return retrigger_rule(self.trigger, self.retriggers, 1 - self.added_law(ctx).get(0, Fraction(0)))

    def spin_law(self, ctx: Context) -> SpinLaw:
        """One free spin's exact joint law of (win with the multipliers, spins added)."""
        joint = ctx.joint(self.model(ctx))
        counts = joint.digits[self.trigger]
        table = np.array([self.retrigger(c) for c in range(int(counts.max(initial=0)) + 1)], dtype=np.int64)
        return SpinLaw.of(joint.wins, table[counts], joint.counts)

    def trigger_law(self, ctx: Context) -> SpinLaw:
        """The base spin's exact joint law of (win, spins this feature awards)."""
        joint = ctx.joint(ctx.base_model())
        counts = joint.digits[self.trigger]
        table = np.array([self.entry({self.trigger: c}) or 0 for c in range(int(counts.max(initial=0)) + 1)],
                         dtype=np.int64)
        return SpinLaw.of(joint.wins, table[counts], joint.counts)

    def chain(self, ctx: Context) -> FreeSpinChain:
        """The feature as a chain over spins left (one level)."""
        law = self.spin_law(ctx)
        return FreeSpinChain((law,), self.max_spins, retrigger_rule(self.trigger, self.retriggers, 1 - law.p_added(0)))

    def expected_spins(self, ctx: Context, n: int) -> Fraction:
        """``E[N | n spins awarded]``, exactly, without enumeration."""
        p = self.added_law(ctx)
        if self.max_spins is not None:
            return expected_spins_limited(p, n, self.max_spins)
        m = sum((a * q for a, q in p.items()), Fraction(0))
        return n * geometric_check(m, self.rule(ctx))

    def law(self, ctx: Context, entry: Entry, level: Level) -> StageLaw:
        n = _n(entry)
        top = self._top(ctx)
        tail = None if top is not None else lazy_tail(lambda: self.tail(ctx, n))
        spins = self.expected_spins(ctx, n)
        facts: dict[str, Number] = {"spins awarded": Fraction(n), "expected length": spins}
        if level == "mean":
            per_spin = sum(ctx.means(self.model(ctx)).values(), Fraction(0))
            mean = spins * per_spin
            return StageLaw({(): Branch(Fraction(1), mean, top=top, tail=tail)}, {self.component: mean}, "exact", level,
                            facts)
        chain = self.chain(ctx)
        mo = chain.moments(n)
        method: Method = "exact" if isinstance(mo.var_win, Fraction) else "markov"
        m2 = mo.var_win + mo.mean_win**2
        dist = feature_distribution(chain, n, tol=TOL) if level == "distribution" else None
        return StageLaw({(): Branch(Fraction(1), mo.mean_win, m2, dist, top, tail)}, {self.component: mo.mean_win},
                        method, level, facts)

    def tail(self, ctx: Context, n: int) -> Tail:
        """A Chernoff bound of the feature's win tail from ``n`` spins (for a cap; retriggers unbounded)."""
        def compute() -> tuple[float, ...]:
            law = self.spin_law(ctx)
            probs = law.weights / law.cycle
            bet = ctx.total_bet
            return tuple(branching_log_mgf(law.wins.astype(np.float64), law.added.astype(np.float64), probs, th / bet)
                         for th in THETAS)

        def bound() -> Tail:
            logs = ctx.shared(("branching mgf", self), (self.reels,), compute)
            bet = ctx.total_bet
            table = dict(zip([th / bet for th in THETAS], logs, strict=True))
            return chernoff(lambda th: n * table[th], list(table))

        return ctx.once(("free-spin tail", self.name, n), bound)

    def held_values(self, ctx: RoundContext, held: HeldCells, level: Level) -> HeldValues:
        return entry_facts(self, ctx, held, level, held_counts(held, 1))

    def _top(self, ctx: Context) -> int | None:
        mw = self.max_win(ctx)
        return mw.credits if mw.bounded else None

    # --- checks -------------------------------------------------------------------------
    def terminates(self, ctx: Context) -> Termination:
        p = self.added_law(ctx)
        m = sum((a * q for a, q in p.items()), Fraction(0))
        if self.max_spins is not None:
            return Termination(True, f"{self.name}: ends after at most {self.max_spins} spins "
                                     f"(m = {float(m):.5f} added spins per spin)")
        try:
            factor = geometric_check(m, self.rule(ctx))
        except ModelError as exc:
            return Termination(False, f"{self.name}: {exc}")
        first = min((v for _, v in self.awards if v > 0), default=0)
        return Termination(True, f"{self.name}: m = {float(m):.5f} added spins per free spin < 1: E[length] = "
                                 f"n / (1 − m) = {first} × {float(factor):.5f} = {first * float(factor):.4f} spins "
                                 f"from {first} awarded")

    def max_win(self, ctx: Context) -> MaxWin:
        most_award = max(v for _, v in self.awards)
        adds = any(v > 0 for _, v in self.retriggers)
        top = ctx.win_bound(self.model(ctx))
        q = 1 - self.added_law(ctx).get(0, Fraction(0)) if adds else Fraction(0)
        if q > 0 and self.max_spins is None:
            most_add = max(v for _, v in self.retriggers)
            likely = None
            if q < 1:
                k = math.ceil(64 / -math.log2(float(q)))
                likely = (most_award + k * most_add) * top
            return MaxWin(False, None, f"{self.name}: retriggers have no limit, so a feature's win has no upper bound "
                                       f"({likely:,} credits are passed with probability below 2⁻⁶⁴)"
                          if likely is not None else f"{self.name}: every free spin retriggers", likely)
        spins = self.max_spins if self.max_spins is not None else most_award
        return MaxWin(True, spins * top, f"{self.name}: at most {spins} spins of at most {top:,} credits")

    # --- the PAR sheet ------------------------------------------------------------------
    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        bet = ctx.total_bet
        p_trig = Fraction(stats.p_enter) if isinstance(stats.p_enter, Fraction) else stats.p_enter
        figures: list[tuple[str, Figure]] = [
            ("trigger probability", Figure.of(p_trig)),
            ("trigger frequency (1 in N)", Figure.odds(p_trig)),
        ]
        if not p_trig:
            return FeatureSection(self.heading, tuple(figures), notes=self._notes(None))
        given = {e: p / p_trig for e, p in stats.entries.items()}
        mean_award = sum((stats.laws[e].facts["spins awarded"] * q for e, q in given.items()), Fraction(0))
        p_add = self.added_law(ctx)
        figures += [("spins awarded (average)", Figure.of(mean_award)),
                    ("P(retrigger) per free spin", Figure.of(1 - p_add.get(0, Fraction(0)))),
                    ("spins added per free spin m", Figure.of(sum((a * q for a, q in p_add.items()), Fraction(0))))]
        if stats.level == "mean":
            spins = sum((q * stats.laws[e].facts["expected length"] for e, q in given.items()), Fraction(0))
            win = sum((q * stats.laws[e].mean for e, q in given.items()), Fraction(0))
            figures += [("expected length (spins)", Figure.of(spins)),
                        ("average feature win (× bet)", Figure.of(win / bet)),
                        ("RTP contribution", Figure.of(p_trig * win / bet))]
            return FeatureSection(self.heading, tuple(figures), notes=self._notes(None))
        if any(not isinstance(e, int) for e in given):  # entered from held cells: the laws averaged over them
            spins = sum((q * stats.laws[e].facts["expected length"] for e, q in given.items()), Fraction(0))
            win = sum((q * stats.laws[e].mean for e, q in given.items()), Fraction(0))
            win2 = sum((q * (stats.laws[e].branches[()].m2 or 0) for e, q in given.items()), Fraction(0))
            meth: Method = weakest(*(stats.laws[e].method for e in given))
            figures += [("expected length (spins)", Figure.of(spins, meth)),
                        ("average feature win (× bet)", Figure.of(win / bet, meth)),
                        ("σ of the feature win (× bet)", Figure(math.sqrt(max(float(win2 - win**2), 0.0)) / bet, meth)),
                        ("RTP contribution", Figure.of(p_trig * win / bet, meth))]
            return FeatureSection(self.heading, tuple(figures), notes=self._notes(None))
        chain = self.chain(ctx)
        mo = {e: chain.moments(_n(e)) for e in given}
        e_n = sum((q * mo[e].mean_spins for e, q in given.items()), Fraction(0))
        e_n2 = sum((q * (mo[e].var_spins + mo[e].mean_spins ** 2) for e, q in given.items()), Fraction(0))
        e_w = sum((q * mo[e].mean_win for e, q in given.items()), Fraction(0))
        e_w2 = sum((q * (mo[e].var_win + mo[e].mean_win ** 2) for e, q in given.items()), Fraction(0))
        method: Method = "exact" if isinstance(e_w2, Fraction) else "markov"
        figures += [
            ("expected length (spins)", Figure.of(e_n)),
            ("σ of the length (spins)", Figure(math.sqrt(max(float(e_n2 - e_n**2), 0.0)), method)),
            ("average feature win (× bet)", Figure.of(e_w / bet)),
            ("σ of the feature win (× bet)", Figure(math.sqrt(max(float(e_w2 - e_w**2), 0.0)) / bet, method)),
            ("free-spin win per spin (× bet)", Figure.of(chain.laws[0].mean_win / bet)),
            ("RTP contribution", Figure.of(p_trig * e_w / bet)),
        ]
        acc = [0.0] * len(SURVIVAL_AT)
        for e, q in given.items():
            curve = chain.survival(SURVIVAL_AT, _n(e))
            assert isinstance(curve, tuple)
            acc = [a + float(q) * x for a, x in zip(acc, curve, strict=True)]
        figures += [(f"P(length > {t} spins)", Figure(p, "markov")) for t, p in zip(SURVIVAL_AT, acc, strict=True)]
        table: tuple[tuple[str, ...], ...] = ()
        if stats.level == "distribution":
            dists = [(float(q), stats.laws[e].branches[()].dist) for e, q in given.items()]
            values = np.concatenate([d.values for _, d in dists if d is not None])
            probs = np.concatenate([q * d.probs for q, d in dists if d is not None])
            lost = math.fsum(q * d.lost_mass for q, d in dists if d is not None)
            mean = float(np.dot(values, probs)) / bet
            figures += [("feature win distribution: mean (× bet)", Figure(mean, "markov")),
                        ("feature win distribution: truncated mass", Figure(lost, "markov"))]
            rows: list[tuple[str, ...]] = [("feature win ≥ (× bet)", "probability given a trigger", "1 in")]
            for x in FEATURE_TAILS:
                p = float(probs[values >= x * bet].sum())
                rows.append((f"{x}", f"{p:.6g}", f"{1 / p:,.0f}" if p > 0 else "never"))
            table = tuple(rows)
        return FeatureSection(self.heading, tuple(figures), table, self._notes(chain))

    def _notes(self, chain: FreeSpinChain | None) -> tuple[str, ...]:
        mult = f"×{self.multiplier}" if self.multiply_scatter else "not multiplied"
        notes: tuple[str, ...] = (f"{self.name}: {', '.join(f'{k}+ {self.trigger} award {v}' for k, v in self.awards)}; retriggers: "
                 f"{', '.join(f'{k}+ add {v}' for k, v in self.retriggers) or 'none'}; reel set {self.reels!r}; "
                 f"line wins ×{self.multiplier}; scatter wins {mult} (multiply_scatter = {str(self.multiply_scatter).lower()})",)
        if chain is not None:
            notes += ("exact figures from the chain's closed forms: E[N] = n/(1-m) (Wald), E[W] = n·E[X]/(1-m), "
                      "Var from the branching recursion; the distribution from Kemperman's formula and one FFT"
                      if chain.closed_form else "figures from the chain's linear solves",)
        else:
            notes += ("mean figures from per-reel algebra: E[W] = E[N]·E[X] (Wald's identity)",)
        if self.max_spins is None and any(v > 0 for _, v in self.retriggers):
            notes += ("retriggers have no limit, so a feature's win has no upper bound" + (
                ": the largest win shown is where the computed distribution ends (its truncated mass is reported)"
                if chain is not None else ""),)
        return notes

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(
        ("trigger", "awards", "reels", "retriggers", "multiplier", "multiply_scatter", "max_spins", "from_feature"))

    def sim_table(self, game: Game, stake: Stake) -> Sequence:
        """Spins left and awarded as registers; each spin takes one and grants its retrigger, up to ``max_spins``."""
        count = Count(game.scatter_counted(self.trigger))  # the scatter and the wilds counting as it
        first = (self.entry({self.trigger: c}) for c in range(max(k for k, _ in self.awards) + 1))
        award = Lookup(tuple(e if isinstance(e, int) else 0 for e in first), count)
        spin = Spin(self.reels, line_multiplier=Const(self.multiplier),
                    scatter_multiplier=Const(self.multiplier if self.multiply_scatter else 1))
        actions: tuple[Add | Grant, ...] = (Add("left", Const(-1)),)
        if self.retriggers:
            more = Lookup(tuple(self.retrigger(c) for c in range(max(k for k, _ in self.retriggers) + 1)), count)
            actions += (Grant("left", more, total="awarded", limit=self.max_spins, tally="retriggers"),)
        return Sequence(
            registers=("left", "awarded"),
            trigger=self.sim_trigger((Test(award, ">", 0),)),
            entry=(Set("left", award), Set("awarded", Reg("left"))),
            stages=(Stage("spin", spins=(spin,), actions=actions, then=(Goto("spin", when=(Test(Reg("left"), ">", 0),)),)),),
        )
