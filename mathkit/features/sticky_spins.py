"""Free spins with sticky wilds: every trigger's cell becomes a wild that stays for the rest of the feature.

TOML (several of a kind as an array of tables with ``name``)::

    [[sticky_free_spins]]
    name = "samurai"
    trigger = "RED"            # a scatter: its cells become sticky wilds
    wild = "WILD"              # the wild they become
    spins = 5                  # spins played (no retrigger)
    reels = "samurai"          # the reel set the free spins use
    min_count = 3              # triggers that start the feature
    from_feature = "scatter_respins"   # optional: entered only from that feature, not by the base spin

Reading: the cells of the triggers that start the feature are sticky wilds from
its first spin; a trigger landing during the feature becomes a sticky wild at once
and counts as a wild in that spin's line wins (the rules' "features ... activated
immediately, and before calculating winnings"); a trigger under a sticky wild is
not seen.

The maths (exact, no enumeration).  A spin with sticky cells ``M`` is the reel set
with ``M`` forced to the wild and the trigger read as a wild.  A cell's symbol does
not depend on what is forced elsewhere on its reel, and reels stop independently,
so a line's mean depends only on the reels ``F`` where it crosses a sticky cell —
the engine's forced-cell line table ``h_l(F)`` — and a cell not sticky at the start
is sticky before spin ``t`` with probability ``1 − (1 − q)^{t−1}`` (``q``: the strip
shows the trigger there), independently across reels.  So

    E[W | M₀] = Σ_l v_l(F_l(M₀)),   v_l(F₀) = Σ_{t=1..S} Σ_F h_l(F) Π_r P(bit_r(F) | bit_r(F₀), t),

``2ⁿ`` numbers per line class, evaluated for any set of starting cells by a table look-up.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Self

import numpy as np
import numpy.typing as npt

from ..errors import GameError, ModelError
from ..laws.provenance import FeatureSection, Figure, Method
from ..laws.stage import Branch, Entry, HeldCells, HeldValues, Level, Number, Ratios, SpinModel, StageLaw, cell_bits
from ..model.fields import check_keys, integer, string
from ..model.game import Game, Role
from ..play.vocabulary import Add, Const, Count, Force, Goto, Or, Reg, Sequence, Set, Spin, Stage, Stake, Test
from ..play.vocabulary import Cells as Shown
from .base import Context, FeatureStats, MaxWin, RoundContext, Termination
from .free_spins import EnteredSpins

__all__ = ["StickyFreeSpins"]

Cells = tuple[tuple[int, int], ...]


def _cells(entry: Entry) -> Cells:
    if not (isinstance(entry, tuple) and all(isinstance(c, tuple) and len(c) == 2 for c in entry)):
        msg = f"a sticky free-spin feature starts from its sticky cells, not {entry!r}"
        raise ModelError(msg)
    return entry


@dataclass(frozen=True, eq=False)
class _Values:
    """Per line, ``v_l(F₀)`` over a common denominator; the landing probability of every cell."""

    num: tuple[tuple[int, ...], ...]
    den: int
    land: tuple[Fraction, ...]  # per window cell (mask bit): P(sticky by the end | not at the start)
    lines: tuple[tuple[int, ...], ...]
    rows: tuple[int, ...]


@dataclass(frozen=True, kw_only=True)
class StickyFreeSpins(EnteredSpins):
    """``spins`` free spins on which every trigger's cell becomes a sticky ``wild``.

    Examples
    --------
    >>> fs = StickyFreeSpins(name="samurai", trigger="R", wild="W", spins=5, reels="s")
    >>> fs.entry({"R@1": 0, "R@2": 0b101, "R@3": 0b010}), fs.entry({"R@1": 0, "R@2": 1, "R@3": 0}) is None
    (((1, 0), (1, 2), (2, 1)), True)
    """

    kind: ClassVar[str] = "sticky_free_spins"
    role: ClassVar[Role] = "sequence"
    title: ClassVar[str] = "Free spins"

    trigger: str
    wild: str
    spins: int
    reels: str
    min_count: int = 3
    from_feature: str | None = None

    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        check_keys(data, ("name", "trigger", "wild", "spins", "reels", "min_count", "from_feature"), where)
        for k in ("trigger", "wild", "spins", "reels"):
            if k not in data:
                msg = "missing field"
                raise GameError(msg, field=f"{where}.{k}", fix="sticky free spins need trigger, wild, spins and reels")
        src = data.get("from_feature")
        return cls(name=name, trigger=string(data["trigger"], f"{where}.trigger"),
                   wild=string(data["wild"], f"{where}.wild"),
                   spins=integer(data["spins"], f"{where}.spins", minimum=1),
                   reels=string(data["reels"], f"{where}.reels"),
                   min_count=integer(data.get("min_count", 3), f"{where}.min_count", minimum=1),
                   from_feature=None if src is None else string(src, f"{where}.from_feature"))

    def table(self) -> dict[str, Any]:
        out: dict[str, Any] = {"trigger": self.trigger, "wild": self.wild, "spins": self.spins, "reels": self.reels,
                               "min_count": self.min_count}
        return self.with_source(out)

    def symbols(self) -> tuple[str, ...]:
        return (self.trigger, self.wild)

    def validate(self, game: Game, where: str) -> None:
        super().validate(game, where)
        if self.wild not in game.symbol_names or not game.symbol(self.wild).is_wild:
            msg = f"{self.wild!r} is not a wild symbol"
            raise GameError(msg, field=f"{where}.wild", fix=f"use one of: {', '.join(s.name for s in game.wilds) or '(none)'}")
        if game.pay_mode != "lines":
            msg = "sticky free spins need a lines game"
            raise GameError(msg, field=where, fix='set pay_mode = "lines"')
        if game.scatter_pays:
            msg = "sticky free spins price line wins only; the game has scatter pays"
            raise GameError(msg, field="scatter_pays", fix="remove the scatter pays, or model the feature otherwise")

    # --- the round ----------------------------------------------------------------------
    def base_digits(self, game: Game) -> tuple[str, ...]:
        return tuple(f"{self.trigger}@{r + 1}" for r in range(game.n_reels))

    def entry(self, digits: Mapping[str, int]) -> Entry | None:
        cells = []
        r = 0
        while (mask := digits.get(f"{self.trigger}@{r + 1}")) is not None:
            cells += [(r, k) for k in range(mask.bit_length()) if mask >> k & 1]
            r += 1
        return tuple(cells) if len(cells) >= self.min_count else None

    def model(self, cells: Cells = ()) -> SpinModel:
        """One free spin with ``cells`` sticky: forced to the wild, the trigger read as a wild."""
        return SpinModel(self.reels, forced=tuple((r, k, self.wild) for r, k in cells), remap=((self.trigger, self.wild),))

    def values(self, ctx: Context) -> _Values:
        """``v_l(F₀)`` for every line (see the module notes) and every cell's landing probability."""
        def compute() -> _Values:
            table = ctx.line_table(self.model(), self.wild)
            rows = table.rows
            n = len(rows)
            laws = ctx.reel_laws(SpinModel(self.reels), tuple(f"{self.trigger}@{r + 1}" for r in range(n)))
            q = []
            for r, law in enumerate(laws):
                total = sum(law.values())
                q.append([Fraction(sum(w for v, w in law.items() if v[r] >> k & 1), total) for k in range(rows[r])])
            land = tuple(1 - (1 - q[r][k]) ** self.spins for r in range(n) for k in range(rows[r]))
            cache: dict[tuple[Any, ...], tuple[Fraction, ...]] = {}
            per_line: list[tuple[Fraction, ...]] = []
            for line, credits in zip(table.lines, table.credits, strict=True):
                ql = tuple(q[r][k] for r, k in enumerate(line))
                key = (credits, ql)
                if key not in cache:
                    h = np.array([Fraction(c) for c in credits], dtype=object).reshape((2,) * n)  # axis n-1-r: reel r
                    v = np.zeros((2,) * n, dtype=object)
                    for t in range(1, self.spins + 1):
                        g = h
                        for r in range(n):
                            pi = 1 - (1 - ql[r]) ** (t - 1)
                            k = np.array([[1 - pi, pi], [Fraction(0), Fraction(1)]], dtype=object)  # [f0][f]
                            axis = n - 1 - r
                            g = np.moveaxis(np.tensordot(k, g, axes=([1], [axis])), 0, axis)
                        v = v + g
                    cache[key] = tuple(Fraction(x) for x in v.reshape(-1).tolist())
                per_line.append(cache[key])
            den = math.lcm(*(x.denominator for row in per_line for x in row)) * table.cycle
            num = tuple(tuple(int(x * den / table.cycle) for x in row) for row in per_line)
            return _Values(num, den, land, table.lines, rows)

        return ctx.shared(("sticky values", self), (self.reels,), compute)

    def _reel_masks(self, vals: _Values, masks: npt.NDArray[np.int64]) -> list[npt.NDArray[np.int64]]:
        bits = cell_bits(vals.rows)
        out = []
        for line in vals.lines:
            f = np.zeros(len(masks), dtype=np.int64)
            for r, k in enumerate(line):
                f |= ((masks >> (bits[r] + k)) & 1) << r
            out.append(f)
        return out

    def mean_ratios(self, ctx: Context, masks: npt.NDArray[np.int64]) -> Ratios:
        """E[W] of the feature from every window mask of sticky cells, exactly, over one denominator."""
        vals = self.values(ctx)
        total = np.zeros(len(masks), dtype=object)
        for row, f in zip(vals.num, self._reel_masks(vals, masks), strict=True):
            total = total + np.array(row, dtype=object)[f]
        return Ratios(total, vals.den)

    def moments(self, ctx: Context) -> tuple[Ratios, Ratios]:
        """``E[W]`` and ``E[W²]`` of the feature from every window mask of sticky cells, exactly.

        Spin by spin backwards over ``M`` (the sticky mask before a spin, ``M' = M | x`` after it,
        ``x`` the cells showing the trigger, independent across reels), scaled by the cycle ``c``:

            a_k(M) = c^{k−1}·S₁(M) + Σ_x n(x)·a_{k−1}(M | x)
            b_k(M) = c^{k−1}·S₂(M) + 2·Σ_x Z_x(M)·a_{k−1}(M | x) + Σ_x n(x)·b_{k−1}(M | x)

        with ``S₁``, ``S₂`` the spin's Σ of ``X`` and ``X²`` over the cycle with ``M`` forced (the
        line table and the line-pair tables), ``Z_x`` the Σ of ``X`` over the stops showing ``x``
        (the lines split by the trigger's rows) and ``n(x)`` their weight; ``E[W] = a_S/c^S``,
        ``E[W²] = b_S/c^S``.
        """
        def compute() -> tuple[Ratios, Ratios]:
            model = self.model()
            table = ctx.line_table(model, self.wild)
            rows = table.rows
            n = len(rows)
            bits = cell_bits(rows)
            masks = np.arange(1 << sum(rows), dtype=np.int64)
            c = table.cycle
            s1 = table.masks_credits(masks)
            s2 = ctx.pair_table(model, self.wild).masks_m2(masks)
            digits = tuple(f"{self.trigger}@{r + 1}" for r in range(n))
            split = ctx.split_table(model, self.wild, digits)
            laws = ctx.reel_laws(SpinModel(self.reels), digits)
            per_reel = [[(int(v[r]), w) for v, w in sorted(law.items())] for r, law in enumerate(laws)]
            # every joint pattern x: its window mask, its weight, its index in the split tables
            patterns: list[tuple[int, int, int]] = [(0, 1, 0)]
            radix = 1
            for r in range(n):
                values = split.per_reel[r]
                patterns = [(m | v << bits[r], w * wv, i + values.index(v) * radix)
                            for m, w, i in patterns for v, wv in per_reel[r]]
                radix *= len(values)
            codes = [split.codes(line, masks) for line in range(len(split.lines))]
            zs = []
            for _, _, i in patterns:
                z = np.zeros(len(masks), dtype=np.int64)
                for line, code in enumerate(codes):
                    z += split.values[line][:, i].astype(np.int64)[code]
                zs.append(z.astype(object))
            a = np.zeros(len(masks), dtype=object)
            b = np.zeros(len(masks), dtype=object)
            for k in range(1, self.spins + 1):
                scale = c ** (k - 1)
                na = s1 * scale
                nb = s2 * scale
                for (x, w, _), z in zip(patterns, zs, strict=True):
                    after = masks | x
                    ta, tb = a[after], b[after]
                    na = na + ta * w
                    nb = nb + 2 * z * ta + tb * w
                a, b = na, nb
            den = c ** self.spins
            return Ratios(a, den), Ratios(b, den)

        return ctx.shared(("sticky moments", self), (self.reels,), compute)

    def _mask(self, ctx: Context, cells: Cells) -> int:
        bits = cell_bits(ctx.game.reel_set(self.reels).rows)
        return sum(1 << (bits[r] + k) for r, k in set(cells))

    def law(self, ctx: Context, entry: Entry, level: Level) -> StageLaw:
        cells = _cells(entry)
        if level == "distribution":
            msg = f"{self.name}: the win distribution of sticky free spins is not available yet (its mean and σ are)"
            raise ModelError(msg)
        mask = self._mask(ctx, cells)
        every = ctx.shared(("sticky means", self), (self.reels,), lambda: self.mean_ratios(ctx, np.arange(1 << sum(
            ctx.game.reel_set(self.reels).rows), dtype=np.int64)))
        mean: Number = every[mask]
        if ctx.precision != "exact":
            mean = float(mean)
        vals = self.values(ctx)
        end = len(set(cells)) + sum((p for i, p in enumerate(vals.land) if not mask >> i & 1), Fraction(0))
        facts: dict[str, Number] = {"sticky wilds at the start": Fraction(len(set(cells))), "sticky wilds at the end": end}
        method: Method = "exact" if ctx.precision == "exact" else "markov"
        m2: Number | None = None
        if level == "moments":
            m2 = self.moments(ctx)[1][mask]
            if ctx.precision != "exact":
                m2 = float(m2)
        return StageLaw({(): Branch(Fraction(1), mean, m2, top=self.top(ctx))}, {self.component: mean}, method, level,
                        facts)

    def held_values(self, ctx: RoundContext, held: HeldCells, level: Level) -> HeldValues:
        if level == "distribution":
            msg = f"{self.name}: the win distribution of sticky free spins is not available yet (its mean and σ are)"
            raise ModelError(msg)
        vals = self.values(ctx)
        if held.rows != vals.rows:
            msg = f"{self.name}: held cells on a window of rows {held.rows}, the feature's is {vals.rows}"
            raise ModelError(msg)
        counts = np.array([int(m).bit_count() for m in held.masks.tolist()], dtype=np.int64)
        entered = counts >= self.min_count
        every = np.arange(1 << sum(vals.rows), dtype=np.int64)
        means = ctx.shared(("sticky means", self), (self.reels,), lambda: self.mean_ratios(ctx, every)) \
            if np.array_equal(held.masks, every) else self.mean_ratios(ctx, held.masks)
        method: Method = "exact" if ctx.precision == "exact" else "markov"
        if ctx.precision != "exact":
            lf = np.array([float(p) for p in vals.land])
            bits = (held.masks[:, None] >> np.arange(len(lf))[None, :]) & 1
            cf = np.where(entered, counts, 0).astype(np.float64)
            sq2 = np.where(entered, self.moments(ctx)[1].floats()[held.masks], 0.0) if level == "moments" else None
            return HeldValues(np.where(entered, means.floats(), 0.0), sq2, self.top(ctx),
                              {"sticky wilds at the start": cf,
                               "sticky wilds at the end": np.where(entered, counts + lf.sum() - bits @ lf, 0.0)},
                              None, method)
        den = math.lcm(*(p.denominator for p in vals.land))
        land = [int(p * den) for p in vals.land]
        ends = np.full(len(held.masks), sum(land), dtype=object)
        for i, x in enumerate(land):
            ends = ends - ((held.masks >> i) & 1).astype(object) * x
        mean = Ratios(np.where(entered, means.num, 0).astype(object), means.den)
        start = Ratios(np.where(entered, counts, 0).astype(object), 1)
        end = Ratios(np.where(entered, counts.astype(object) * den + ends, 0).astype(object), den)
        m2 = None
        if level == "moments":
            sq = self.moments(ctx)[1]
            m2 = Ratios(np.where(entered, sq.num[held.masks], 0).astype(object), sq.den)
        return HeldValues(mean, m2, self.top(ctx), {"sticky wilds at the start": start, "sticky wilds at the end": end},
                          None, method)

    def supported_level(self, game: Game) -> Level:
        return "moments"

    # --- checks and the PAR sheet -------------------------------------------------------
    def terminates(self, ctx: Context) -> Termination:
        return Termination(True, f"{self.name}: {self.spins} spins, no retrigger")

    def top(self, ctx: Context) -> int:
        return self.spins * ctx.win_bound(self.model())

    def max_win(self, ctx: Context) -> MaxWin:
        top = self.top(ctx)
        return MaxWin(True, top, f"{self.name}: {self.spins} spins of at most {top // self.spins:,} credits")

    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        bet = ctx.total_bet
        p = stats.p_enter
        method: Method = "exact" if ctx.precision == "exact" else "markov"
        figures: list[tuple[str, Figure]] = [("trigger probability", Figure.of(p)),
                                             ("trigger frequency (1 in N)", Figure.odds(p)),
                                             ("spins", Figure.of(self.spins))]
        if p:
            def avg(name: str) -> Number:
                return sum((q * stats.laws[e].facts[name] for e, q in stats.entries.items()), Fraction(0)) / p

            win = sum((q * stats.laws[e].mean for e, q in stats.entries.items()), Fraction(0)) / p
            figures += [("sticky wilds at the start (average)", Figure.of(avg("sticky wilds at the start"), method)),
                        ("sticky wilds at the end (average)", Figure.of(avg("sticky wilds at the end"), method)),
                        ("average feature win (× bet)", Figure.of(win / bet, method)),
                        ("RTP contribution", Figure.of(p * win / bet, method))]
        notes = (f"{self.name}: {self.spins} spins on reel set {self.reels!r}; the cells of the {self.trigger} that start "
                 f"it and of every {self.trigger} landing later are sticky {self.wild} for the rest of the feature (a "
                 f"landing {self.trigger} is wild in its own spin)",
                 "exact mean from the per-line forced-cell table and the cells' landing probabilities (no enumeration)")
        return FeatureSection(self.heading, tuple(figures), notes=notes)

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(
        ("trigger", "wild", "spins", "reels", "min_count", "from_feature"))

    def sim_table(self, game: Game, stake: Stake) -> Sequence:
        """Spins left and the sticky cells as registers: each spin shows the wild on the sticky cells, reads a landing
        trigger as a wild, and makes its cells sticky."""
        shown = (self.trigger,)
        spin = Spin(self.reels, forced=(Force(Reg("sticky"), self.wild),), remap=((self.trigger, self.wild),))
        return Sequence(
            registers=("left", "sticky"),
            trigger=self.sim_trigger((Test(Count(shown), ">=", self.min_count),)),
            entry=(Set("left", Const(self.spins)), Set("sticky", Shown(shown))),
            stages=(Stage("spin", spins=(spin,), actions=(Or("sticky", Shown(shown)), Add("left", Const(-1))),
                          then=(Goto("spin", when=(Test(Reg("left"), ">", 0),)),)),),
        )
