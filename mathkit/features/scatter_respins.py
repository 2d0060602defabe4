"""Scatter re-spins: scatters of several types battle, the winners' cells are held and re-spun until no new one lands.

TOML::

    [scatter_respins]
    scatters = ["BLUE", "GREEN", "RED"]      # the scatter types, each with its free-spin game
    free_spins = { BLUE = "barbarian", GREEN = "priestess", RED = "samurai" }
    count = 2                                # scatters in a base window that start the re-spins
    free_at = 3                              # held scatters that start the free spins
    reels = "respin"                         # the reel set the re-spins draw from
    battle = { pair_wins = "3/4" }           # P(the pair's type wins a 2-against-1 battle)

    [scatter_respins.final_chance]           # optional: see mathkit.features.final_chance
    coins = { 3 = 30, 100 = 1 }
    scatter = 40
    reels = [1, 2, 3, 4, 5]

The round (the rules' "Battle", "Re-Spins" and "Final Chance"):

1. A base window showing ``count`` or more scatters starts the re-spins.  Scatters of
   different types battle (:mod:`mathkit.features.battle`): the losers turn into the
   winner's type where they stand.
2. The active scatters hold their cells; every other cell re-spins on ``reels``.  A new
   scatter of the active type is held too and grants another re-spin; scatters of the
   other types are inactive.  No line wins are paid during re-spins.
3. When a re-spin adds no scatter: ``free_at`` or more held scatters start the active
   type's free spins (their entry read from the held cells: their count and rows);
   otherwise (the re-spins started with ``count`` and none was added) the final chance
   pays coins or reveals one more scatter, which starts the free spins at once.

The maths.  The base spin is observed through one digit per reel, ``NAME@r``: the
reel's column as a base-``(types + 1)`` number, one digit per row (0: no scatter,
``i + 1``: type ``i``) — so every base window's scatters, with their types and rows,
are an exit (at most 10³ on reels 2–4 of a 3-row game with one scatter per reel).
Given the active type the re-spins are a held-cell chain (:mod:`mathkit.chains.markov.held`):
per reel, the move weights of its held rows in one re-spin, from the re-spin reel
set's stop tables with the held cells forced.  A chain can end with any of the
``2^cells`` held patterns — too many to list as exits — so the free spins are entered
with a :class:`~mathkit.laws.stage.Drawn` entry: this block averages the free-spin
feature's win over its endings by one backward solve of the chain per feature
(exact, in integers), ``U(M) = s(M)·W(M) + Σ P(M → M')·U(M')``.  The final chance
has few endings and lists them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, ClassVar, Self

import numpy as np
import numpy.typing as npt

from ..chains.markov.held import HeldChain, HeldSolution
from ..errors import GameError, ModelError
from ..laws.convolve import mix
from ..laws.law import WinLaw
from ..laws.provenance import FeatureSection, Figure, Method
from ..laws.stage import (
    Branch,
    Digit,
    Drawn,
    Entry,
    Exit,
    HeldCells,
    HeldValues,
    Level,
    Number,
    Ratios,
    SpinModel,
    StageLaw,
    cell_bits,
)
from ..model.fields import array, check_keys, fraction, integer, string, table
from ..model.game import Game, Role
from ..play.vocabulary import Sequence as PlaySequence
from ..play.vocabulary import Stake
from .base import Block, Context, FeatureStats, MaxWin, RoundContext, Termination
from .battle import CASES, battle, case
from .final_chance import FinalChance
from .respin_play import respin_table

__all__ = ["ScatterPattern", "ScatterRespins"]

Cells = tuple[tuple[int, int, int], ...]
"""A base window's scatters: ``(reel, row, type index)``, reels and rows from 0, in reading order."""


@dataclass(frozen=True)
class ScatterPattern:
    """The digit of reel ``reel``: its column's scatters as a base-``(types + 1)`` number, one digit per row.

    Examples
    --------
    >>> ScatterPattern(("B", "G", "R"), 1)(1, ("G", "A", "R")), ScatterPattern(("B", "G", "R"), 1)(0, ("G", "A", "R"))
    (50, 0)
    """

    scatters: tuple[str, ...]
    reel: int

    def __call__(self, reel: int, column: tuple[str, ...]) -> int:
        if reel != self.reel:
            return 0
        base = len(self.scatters) + 1
        return sum((self.scatters.index(s) + 1) * base**k for k, s in enumerate(column) if s in self.scatters)


def _cells(entry: Entry) -> Cells:
    if not isinstance(entry, tuple) or not all(isinstance(c, tuple) and len(c) == 3 for c in entry):
        msg = f"the re-spins start from a window's scatters (reel, row, type), not {entry!r}"
        raise ModelError(msg)
    return entry


@dataclass(frozen=True, kw_only=True)
class ScatterRespins(Block):
    """Scatters battle, are held and re-spun; the final chance; the free spins of the active type.

    Examples
    --------
    >>> b = ScatterRespins(name="scatter_respins", scatters=("B", "G", "R"), reels="respin",
    ...                    free_spins=(("B", "fb"), ("G", "fg"), ("R", "fr")))
    >>> b.entry({"scatter_respins@1": 0, "scatter_respins@2": 3, "scatter_respins@3": 4 * 1})
    ((1, 0, 2), (2, 1, 0))
    >>> b.entry({"scatter_respins@1": 0, "scatter_respins@2": 3}) is None
    True
    """

    kind: ClassVar[str] = "scatter_respins"
    role: ClassVar[Role] = "sequence"
    title: ClassVar[str] = "Re-spins"

    scatters: tuple[str, ...]
    free_spins: tuple[tuple[str, str], ...]
    reels: str
    count: int = 2
    free_at: int = 3
    pair_wins: Fraction = Fraction(3, 4)
    final_chance: FinalChance | None = None

    # --- data ---------------------------------------------------------------------------
    @classmethod
    def from_table(cls, name: str, data: Mapping[str, Any], where: str) -> Self:
        check_keys(data, ("name", "scatters", "free_spins", "count", "free_at", "reels", "battle", "final_chance"), where)
        for k in ("scatters", "free_spins", "reels"):
            if k not in data:
                msg = "missing field"
                raise GameError(msg, field=f"{where}.{k}", fix="re-spins need scatters, free_spins and reels")
        scatters = tuple(string(s, f"{where}.scatters[{i}]") for i, s in enumerate(array(data["scatters"], f"{where}.scatters")))
        fs = table(data, "free_spins", where)
        b = table(data, "battle", where)
        check_keys(b, ("pair_wins",), f"{where}.battle")
        fc = data.get("final_chance")
        return cls(name=name, scatters=scatters,
                   free_spins=tuple((k, string(v, f"{where}.free_spins.{k}")) for k, v in fs.items()),
                   reels=string(data["reels"], f"{where}.reels"),
                   count=integer(data.get("count", 2), f"{where}.count", minimum=1),
                   free_at=integer(data.get("free_at", 3), f"{where}.free_at", minimum=1),
                   pair_wins=fraction(b.get("pair_wins", "3/4"), f"{where}.battle.pair_wins"),
                   final_chance=None if fc is None else FinalChance.from_table(fc, f"{where}.final_chance"))

    def table(self) -> dict[str, Any]:
        p = self.pair_wins
        out: dict[str, Any] = {
            "scatters": list(self.scatters), "free_spins": dict(self.free_spins), "count": self.count,
            "free_at": self.free_at, "reels": self.reels,
            "battle": {"pair_wins": str(p) if p.denominator != 1 else int(p)},
        }
        if self.final_chance is not None:
            out["final_chance"] = self.final_chance.table()
        return out

    def reel_sets(self) -> tuple[str, ...]:
        return (self.reels,)

    def symbols(self) -> tuple[str, ...]:
        return self.scatters

    def validate(self, game: Game, where: str) -> None:
        for i, s in enumerate(self.scatters):
            if s not in game.symbol_names or not game.symbol(s).is_scatter:
                msg = f"{s!r} is not a scatter symbol"
                raise GameError(msg, field=f"{where}.scatters[{i}]", fix="list scatter symbols")
        mapping = dict(self.free_spins)
        for s in self.scatters:
            if s not in mapping:
                msg = f"no free-spin feature for {s!r}"
                raise GameError(msg, field=f"{where}.free_spins", fix=f'add {s} = "NAME" (a free-spin feature)')
        names = {f.name: f for f in game.features}
        for s, f in self.free_spins:
            if s not in self.scatters:
                msg = f"{s!r} is not one of the re-spins' scatters"
                raise GameError(msg, field=f"{where}.free_spins.{s}", fix=f"use one of: {', '.join(self.scatters)}")
            if f not in names or names[f].role != "sequence":
                msg = f"no sequence feature named {f!r}"
                raise GameError(msg, field=f"{where}.free_spins.{s}", fix=f"name one of: {', '.join(names) or '(none)'}")
        sets = {rs.name: rs for rs in game.reel_sets}
        if self.reels not in sets:
            msg = f"no reel set {self.reels!r}"
            raise GameError(msg, field=f"{where}.reels", fix=f"use one of: {', '.join(sets)}")
        base = game.reel_set()
        if sets[self.reels].rows != base.rows:
            msg = f"reel set {self.reels!r} has rows {sets[self.reels].rows}, the base window {base.rows}"
            raise GameError(msg, field=f"{where}.reels", fix="re-spin on a reel set of the base window's shape")
        if self.free_at < self.count:
            msg = f"free spins start at {self.free_at} held scatters, fewer than the {self.count} that start re-spins"
            raise GameError(msg, field=f"{where}.free_at", fix=f"use at least {self.count}")
        if self.final_chance is not None:
            self.final_chance.validate(game, f"{where}.final_chance")
            if self.free_at > self.count + 1:
                msg = f"one revealed scatter brings {self.count} to {self.count + 1}, short of free_at = {self.free_at}"
                raise GameError(msg, field=f"{where}.free_at", fix=f"use free_at ≤ {self.count + 1}")
        if not 0 <= self.pair_wins <= 1:
            msg = f"{self.pair_wins} is not a probability"
            raise GameError(msg, field=f"{where}.battle.pair_wins", fix='write e.g. "3/4"')
        most = sum(max(sum(1 for k in range(base.rows[r]) if strip[(i + k) % len(strip)] in self.scatters)
                       for i in range(len(strip))) for r, strip in enumerate(base.strips))
        if most > 3:
            msg = f"a base window of reel set {base.name!r} can show {most} scatters; the battle odds are given for 2 or 3"
            raise GameError(msg, field=f"reels.{base.name}.strips",
                            fix="space the scatters so that a window shows at most three")

    # --- the base spin ------------------------------------------------------------------
    def _digit(self, r: int) -> str:
        return f"{self.name}@{r + 1}"

    def digits(self, game: Game) -> tuple[Digit, ...]:
        return tuple(Digit(self._digit(r), ScatterPattern(self.scatters, r)) for r in range(game.n_reels))

    def trigger_digits(self, game: Game) -> tuple[str, ...]:
        return tuple(self._digit(r) for r in range(game.n_reels))

    def entry(self, digits: Mapping[str, int]) -> Entry | None:
        base = len(self.scatters) + 1
        cells = []
        r = 0
        while (value := digits.get(self._digit(r))) is not None:
            k = 0
            while value:
                value, d = divmod(value, base)
                if d:
                    cells.append((r, k, d - 1))
                k += 1
            r += 1
        return tuple(cells) if len(cells) >= self.count else None

    # --- the chain ----------------------------------------------------------------------
    def target(self, t: int) -> str:
        """The free-spin feature of scatter type ``t``."""
        return dict(self.free_spins)[self.scatters[t]]

    def rows(self, ctx: Context) -> tuple[int, ...]:
        return ctx.game.reel_set(self.reels).rows

    def mask(self, ctx: Context, cells: Cells | set[tuple[int, int]]) -> int:
        """The window mask of held cells."""
        bits = cell_bits(self.rows(ctx))
        return sum(1 << (bits[c[0]] + c[1]) for c in cells)

    def chain(self, ctx: Context, t: int) -> HeldChain:
        """The re-spins of type ``t`` as a held-cell chain (per reel, the moves of its held rows)."""
        def compute() -> HeldChain:
            rows = self.rows(ctx)
            sym = self.scatters[t]
            names = tuple(f"{sym}@{r + 1}" for r in range(len(rows)))
            moves = [np.zeros((1 << h, 1 << h), dtype=np.int64) for h in rows]
            for held in range(1 << max(rows)):
                forced = tuple((r, k, sym) for r, h in enumerate(rows) for k in range(h) if held >> k & 1)
                laws = ctx.reel_laws(SpinModel(self.reels, forced=forced), names)
                for r, h in enumerate(rows):
                    if held < 1 << h:
                        for values, w in laws[r].items():
                            moves[r][held, values[r]] += w
            return HeldChain(tuple(moves), rows)

        return ctx.shared(("held chain", self, t), (self.reels,), compute)

    def _ended_short(self, ctx: Context, t: int, mask: int) -> Fraction:
        """P(the re-spins from ``mask`` end short of free spins): they started short and added nothing."""
        return self.chain(ctx, t).stay(mask) if mask.bit_count() < self.free_at else Fraction(0)

    def law(self, ctx: Context, entry: Entry, level: Level) -> StageLaw:
        targets = tuple(ctx.game.feature(f) for _, f in self.free_spins)
        return ctx.shared(("re-spin law", self, targets, entry, level), (self.reels,),
                          lambda: self._law(ctx, entry, level))

    def _law(self, ctx: Context, entry: Entry, level: Level) -> StageLaw:
        cells = _cells(entry)
        types = [c[2] for c in cells]
        mask = self.mask(ctx, cells)
        bet = ctx.total_bet
        fc = self.final_chance
        exact = ctx.precision == "exact"
        one: Number = Fraction(1) if exact else 1.0
        acc: dict[Exit, list[Any]] = {}

        def add(key: Exit, p: Number, own: tuple[Number, Number, WinLaw | None, int]) -> None:
            if p == 0:
                return
            cell = acc.setdefault(key, [0 * one, 0 * one, 0 * one, [], 0])
            cell[0] += p
            cell[1] += p * own[0]
            cell[2] += p * own[1]
            if own[2] is not None:
                cell[3].append((float(p), own[2]))
            cell[4] = max(cell[4], own[3])

        dist = level == "distribution"
        nothing = (0 * one, 0 * one, WinLaw.point(0) if dist else None, 0)
        coins_mean = 0 * one
        for t, won in battle(types, self.pair_wins).items():
            target = self.target(t)
            b = won * one
            short = self._ended_short(ctx, t, mask) * one
            add(((target, Drawn(self.name, (t, mask))),), b * (1 - short), nothing)
            if not short:
                continue
            if fc is None:
                add((), b * short, nothing)
                continue
            coins = (fc.mean_coins(bet) * one, fc.m2_coins(bet) * one, fc.coins_law(bet) if dist else None, fc.top(bet))
            add((), b * short * fc.p_coins, coins)
            coins_mean += b * short * fc.p_coins * coins[0]
            reveals = self.reveals(ctx, t, mask)
            for key in reveals:
                add(key, b * short * fc.p_scatter / len(reveals), nothing)
        branches = {}
        for key, (p, s1, s2, dists, top) in acc.items():
            d = None
            if dist:
                m = mix(dists)
                d = WinLaw(m.values, m.probs / float(p), m.lost_mass / float(p))
            branches[key] = Branch(p, s1 / p, s2 / p if level != "mean" else None, d, top)
        return StageLaw(branches, {self.coins_component: coins_mean}, "exact" if exact else "markov", level)

    def reveals(self, ctx: Context, t: int, mask: int) -> tuple[Exit, ...]:
        """The exits of the final chance's revealed scatter, one per free cell it may land on (alike)."""
        def compute() -> tuple[Exit, ...]:
            assert self.final_chance is not None
            rows = self.rows(ctx)
            bits = cell_bits(rows)
            held = {(r, k) for r, h in enumerate(rows) for k in range(h) if mask >> (bits[r] + k) & 1}
            target = self.target(t)
            block = ctx.game.feature(target)
            assert isinstance(block, Block)
            out = []
            for r, k in self.final_chance.cells(held, rows):
                window = HeldCells(self.scatters[t], rows, np.array([mask | 1 << (bits[r] + k)]))
                e = block.entry(window.digits(0))
                out.append(((target, e),) if e is not None else ())
            return tuple(out)

        block = ctx.game.feature(self.target(t))
        return ctx.shared(("final chance reveals", self, t, mask, block), (self.reels,), compute)

    @property
    def coins_component(self) -> str:
        """The PAR component of the final chance's coin wins."""
        return "final chance coins" if self.name == self.kind else f"final chance coins: {self.name}"

    # --- what the free spins are worth at the end ---------------------------------------
    def _held(self, ctx: Context, t: int) -> HeldCells:
        rows = self.rows(ctx)
        return HeldCells(self.scatters[t], rows, np.arange(1 << sum(rows), dtype=np.int64))

    def _short(self, ctx: Context, t: int) -> npt.NDArray[np.bool_]:
        """The masks holding fewer cells than start the free spins."""
        cells = self.chain(ctx, t).cells
        return ctx.shared(("held short", self.free_at, cells), (),
                          lambda: np.array([m.bit_count() < self.free_at for m in range(1 << cells)]))

    def _solve(self, ctx: Context, t: int, target: Block, what: Hashable,
               given: Sequence[Number] | Ratios | npt.NDArray[np.float64] | Callable[[], npt.NDArray[np.float64]],
               exact: bool) -> HeldSolution:
        """``E[values(end) | held cells]`` for every mask (endings short of free spins count 0); ``given`` may be
        a function computing the values, called only when the solve is not already kept."""
        def compute() -> HeldSolution:
            values = given() if callable(given) else given
            chain = self.chain(ctx, t)
            short = self._short(ctx, t)
            terminal: list[Number] | Ratios | npt.NDArray[np.float64]
            if isinstance(values, Ratios):
                terminal = Ratios(np.where(short, 0, values.num).astype(object), values.den) if exact else \
                    np.where(short, 0.0, values.floats())
            elif isinstance(values, np.ndarray) and values.dtype == np.float64:
                terminal = np.where(short, 0.0, values)
            elif exact:
                terminal = [Fraction(0) if s else v for v, s in zip(values, short.tolist(), strict=True)]
            else:
                terminal = np.where(short, 0.0, np.asarray([float(v) for v in values], dtype=np.float64))
            return chain.solve(terminal, exact=exact, min_held=self.count)

        return ctx.shared(("held solve", self, t, target, what, exact), (self.reels, *target.reel_sets()), compute)

    def drawn_law(self, ctx: RoundContext, key: Hashable, target: Block, level: Level) -> StageLaw:
        if not (isinstance(key, tuple) and len(key) == 2):
            msg = f"{self.name}: a drawn entry is (type, held cells), not {key!r}"
            raise ModelError(msg)
        t, mask = int(key[0]), int(key[1])
        if level == "distribution":
            law = self.drawn_law(ctx, key, target, "moments")
            br = law.branches[()]
            dist = self.drawn_dist(ctx, t, mask, target)
            return StageLaw({(): Branch(br.p, br.mean, br.m2, dist, br.top, br.tail)}, law.components, law.method,
                            level, law.facts)
        exact = ctx.precision == "exact"
        vals: HeldValues = ctx.shared(("held values", self, t, target, level), (self.reels, *target.reel_sets()),
                                      lambda: target.held_values(ctx, self._held(ctx, t), level))
        keep = 1 - self._ended_short(ctx, t, mask)

        def at(what: str, values: Any) -> Number:
            u = self._solve(ctx, t, target, (level, what), values, exact).at(mask)
            return u / keep if exact else float(u) / float(keep)

        mean = at("mean", vals.mean)
        m2 = at("m2", vals.m2) if level != "mean" and vals.m2 is not None else None
        facts = {k: at(f"fact {k}", v) for k, v in vals.facts.items()}
        tail_fn = vals.tail
        bounds: dict[float, tuple[float, float]] = {}

        def tail(x: float) -> tuple[float, float]:
            if x not in bounds:
                assert tail_fn is not None
                values = cache(lambda: tail_fn(x))  # at most once per threshold here, and not kept past it
                if not ctx.shared(("held tail finite", self, t, target, x), (self.reels, *target.reel_sets()),
                                  lambda: all(bool(np.isfinite(v).all()) for v in values())):
                    bounds[x] = (np.inf, 1.0)
                    return bounds[x]
                bb = self._solve(ctx, t, target, ("tail", x, "b"), lambda: values()[0], False).at(mask)
                qq = self._solve(ctx, t, target, ("tail", x, "q"), lambda: values()[1], False).at(mask)
                bounds[x] = (float(bb) / float(keep), min(float(qq) / float(keep), 1.0))
            return bounds[x]

        method: Method = vals.method if exact else "markov"
        branch = Branch(Fraction(1) if exact else 1.0, mean, m2, None, vals.top, tail if tail_fn is not None else None)
        return StageLaw({(): branch}, {target.component: mean}, method, level, facts)

    def entry_law(self, ctx: Context, t: int, mask: int, target: Block) -> dict[Entry, Number]:
        """P(the free spins ``target`` start from each entry | they start after re-spins from ``mask``), in floats.

        The entry is read from the held cells at the end (:meth:`~mathkit.features.Block.entry`); one backward
        solve of the chain per distinct entry, its indicator over the endings as the terminal values.
        """
        def groups() -> dict[Entry, npt.NDArray[np.bool_]]:
            held = self._held(ctx, t)
            short = self._short(ctx, t)
            out: dict[Entry, list[int]] = {}
            for i in range(len(held.masks)):
                if not short[i] and (e := target.entry(held.digits(i))) is not None:
                    out.setdefault(e, []).append(i)
            marks = {}
            for e, idx in out.items():
                mark = np.zeros(len(held.masks), dtype=bool)
                mark[idx] = True
                marks[e] = mark
            return marks

        marks = ctx.shared(("held entries", self, t, target), (self.reels,), groups)
        keep = float(1 - self._ended_short(ctx, t, mask))
        out: dict[Entry, Number] = {}
        for e, mark in marks.items():  # in floats: the laws they mix are float laws (and exact solves cost memory)
            u = float(self._solve(ctx, t, target, ("entry", e), mark.astype(np.float64), False).at(mask))
            if u:
                out[e] = u / keep
        return out

    def drawn_dist(self, ctx: RoundContext, t: int, mask: int, target: Block) -> WinLaw:
        """The law of ``target``'s win entered after re-spins from ``mask``: its laws by entry, mixed."""
        parts = []

        def law_at(e: Entry) -> StageLaw:
            return ctx.shared(("drawn target law", target, e), target.reel_sets(),
                              lambda: target.law(ctx, e, "distribution"))

        for e, p in self.entry_law(ctx, t, mask, target).items():
            law = law_at(e)
            if set(law.branches) != {()} or law.branches[()].dist is None:
                msg = (f"{self.name}: {target.name!r} entered after re-spins must end the round with its own law "
                       "(its exits would need a chain of their own)")
                raise ModelError(msg)
            parts.append((float(p), law.branches[()].dist))
        m = mix(parts)
        return WinLaw(m.values, m.probs, m.lost_mass + max(1.0 - float(sum(p for p, _ in parts)), 0.0))

    # --- checks and the PAR sheet -------------------------------------------------------
    def terminates(self, ctx: Context) -> Termination:
        most = sum(self.rows(ctx)) - self.count + 1
        return Termination(True, f"{self.name}: held cells only grow and a re-spin that adds none ends them, so at most "
                                 f"{most} re-spins follow {self.count} scatters (a full window adds none)")

    def max_win(self, ctx: Context) -> MaxWin:
        top = self.final_chance.top(ctx.total_bet) if self.final_chance is not None else 0
        return MaxWin(True, top, f"{self.name}: re-spins pay no line wins; the final chance at most {top:,} credits")

    def lengths(self, ctx: Context, t: int) -> HeldSolution:
        """E[re-spins played | held cells] for every mask (the last one adds no scatter)."""
        def compute() -> HeldSolution:
            chain = self.chain(ctx, t)
            return chain.solve([0] * (1 << chain.cells), reward=1, exact=ctx.precision == "exact", min_held=self.count)

        return ctx.shared(("held lengths", self, t), (self.reels,), compute)

    def section(self, ctx: Context, stats: FeatureStats) -> FeatureSection:
        bet = ctx.total_bet
        p = stats.p_enter
        figures: list[tuple[str, Figure]] = [("trigger probability", Figure.of(p)),
                                             ("trigger frequency (1 in N)", Figure.odds(p))]
        notes: tuple[str, ...] = (f"{self.count}+ of {', '.join(self.scatters)} start re-spins on reel set {self.reels!r}; a 2-against-1 "
                 f"battle goes to the pair with probability {self.pair_wins}; {self.free_at}+ held scatters start the "
                 f"free spins of their type ({', '.join(f'{s}: {f}' for s, f in self.free_spins)})",)
        if self.final_chance is not None:
            notes += (self.final_chance.describe(bet),)
        if not p:
            return FeatureSection(self.title, tuple(figures), notes=notes)
        by_case: dict[str, Number] = dict.fromkeys(CASES, Fraction(0))
        active: list[Number] = [Fraction(0)] * len(self.scatters)
        spins: Number = Fraction(0)
        short: Number = Fraction(0)
        by_start: dict[int, Number] = {}
        for e, q in stats.entries.items():
            cells = _cells(e)
            types = [c[2] for c in cells]
            by_case[case(types)] += q
            by_start[len(cells)] = by_start.get(len(cells), Fraction(0)) + q
            mask = self.mask(ctx, cells)
            for t, b in battle(types, self.pair_wins).items():
                active[t] += q * b
                spins = spins + q * b * self.lengths(ctx, t).at(mask)
                short += q * b * self._ended_short(ctx, t, mask)
        figures += [(f"{n} scatters start (given re-spins)", Figure.of(w / p)) for n, w in sorted(by_start.items())]
        figures += [(f"battle: {c} (given re-spins)", Figure.of(w / p)) for c, w in by_case.items()]
        figures += [(f"active type {s} (given re-spins)", Figure.of(a / p)) for s, a in zip(self.scatters, active, strict=True)]
        figures.append(("average re-spins per trigger", Figure.of(spins / p, None if ctx.precision == "exact" else "markov")))
        free: dict[str, Number] = {f: Fraction(0) for _, f in self.free_spins}
        for e, q in stats.entries.items():
            for key, br in stats.laws[e].branches.items():
                for name, _ in key:
                    if name in free:
                        free[name] += q * br.p
        figures += [(f"free spins {f} (given re-spins)", Figure.of(w / p)) for f, w in free.items()]
        if self.final_chance is not None:
            fc = self.final_chance
            coins = sum((q * Fraction(stats.laws[e].components.get(self.coins_component, 0)) for e, q in stats.entries.items()),
                        Fraction(0))
            figures += [("final chance (given re-spins)", Figure.of(short / p)),
                        ("final chance frequency (1 in N)", Figure.odds(short)),
                        ("final chance: P(coin win)", Figure.of(fc.p_coins)),
                        ("final chance: average coin win (× bet)", Figure.of(fc.mean_coins(bet) / bet)),
                        ("final chance: P(scatter revealed)", Figure.of(fc.p_scatter)),
                        ("final chance coins: RTP contribution", Figure.of(coins / bet))]
        return FeatureSection(self.title, tuple(figures), notes=notes)

    # --- the simulator ------------------------------------------------------------------
    sim_reads: ClassVar[frozenset[str] | None] = frozenset(
        ("scatters", "free_spins", "reels", "count", "free_at", "pair_wins", "final_chance"))

    def sim_table(self, game: Game, stake: Stake) -> PlaySequence:
        """Battle, re-spins, final chance and the free spins' start, played literally (:mod:`.respin_play`)."""
        return respin_table(self, game, stake)
