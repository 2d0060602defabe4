"""Free spins as an absorbing Markov reward chain built from the game data.

The feature walks on states ``(spins left, level)``.  One step plays one free
spin, whose outcome — its win, the spins it adds and the level it leads to — is
drawn from the exact joint law of the free-spin reel set (:class:`SpinLaw`, from
the full-cycle counts of :func:`mathkit.exact.spin`).  A spin adding ``a`` spins
moves ``s → s − 1 + a``; the feature ends at ``s = 0``.  Levels (a multiplier
ladder, a reel height that grows) are for games that need them; a game with
``max_spins`` also carries the spins awarded so far.

Two routes to the answers, which agree where both run (see the tests)
-----------------------------------------------------------------------
* **The chain itself** (:meth:`FreeSpinChain.moments`, :meth:`FreeSpinChain.reward_chain`):
  states are built from the start, and means and second moments come from linear
  solves of ``(I − Q)`` — exact over Fractions, or float64 — with the per-step reward
  summarised, per (state, next state), by its exact first two moments.  Without a
  spin limit the states are cut at ``max_left`` spins left and the probability of
  ever getting there is reported.
* **Closed forms**, for one level and no spin limit.  The walk steps down at most
  one spin at a time, so a feature from ``n`` spins is ``n`` independent features
  from one spin, and ``W₁ = X + Σ_{j≤A} W₁⁽ʲ⁾`` (``X`` the spin's win, ``A`` the
  spins it adds, ``m = E[A]``) gives, exactly::

      E[N | n] = n / (1 − m)                      (Wald)
      E[W₁] = E[X] / (1 − m)
      (1 − m) E[W₁²] = E[X²] + 2 E[W₁] E[XA] + E[A(A − 1)] E[W₁]²

  Kemperman's hitting-time formula gives the law of the length:
  ``P(N = t, k_a spins adding a) = (n/t) · t!/(k₀! Π k_a!) · p₀^k₀ Π p_a^k_a`` with
  ``t = n + Σ a·k_a``; given those counts the spins' wins are independent, so the
  total win is a sum of convolution powers (one FFT, :func:`play_distribution`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np
import numpy.typing as npt
from scipy import fft as sfft
from scipy import sparse
from scipy.sparse.linalg import splu

from .errors import ModelError
from .exact import SpinMaths
from .game import FreeSpins, Game
from .markov import ABSORB, EXACT_MAX_STATES, RewardChain, exact_lu, geometric_check
from .rtp import component_rtp, scatter_count_weights
from .tables import reel_arrays

__all__ = [
    "FreeSpinChain",
    "Moments",
    "SpinLaw",
    "expected_spins_limited",
    "feature_chain",
    "free_spin_law",
    "play_distribution",
    "retrigger_rule",
    "rtp_with_features",
    "trigger_law",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
State = tuple[int, int, int]
"""``(spins left, spins awarded so far — 0 without a spin limit, level)``."""
Key = tuple[int, int]
"""``(spins added, next level)``: what a spin does to the state."""


# ----------------------------------------------------------------------------- laws
@dataclass(frozen=True, eq=False)
class SpinLaw:
    """Exact joint law of one spin's ``(win, spins added, next level)`` as integer weights.

    ``weights`` sum to ``cycle``.  For the base game ``added`` holds the spins
    awarded; ``level`` is ``None`` for a one-level feature.

    Examples
    --------
    >>> law = SpinLaw.of([0, 4, 4, 10], [0, 0, 0, 5], [6, 1, 1, 2])
    >>> law.p_added(5), law.m, law.mean_win
    (Fraction(1, 5), Fraction(1, 1), Fraction(14, 5))
    """

    wins: IntArray
    added: IntArray
    weights: IntArray
    cycle: int
    level: IntArray | None = None

    @classmethod
    def of(cls, wins: npt.ArrayLike, added: npt.ArrayLike, weights: npt.ArrayLike,
           level: npt.ArrayLike | None = None) -> SpinLaw:
        """Merge equal outcomes and drop zero weights."""
        w = np.asarray(wins, dtype=np.int64).reshape(-1)
        a = np.asarray(added, dtype=np.int64).reshape(-1)
        c = np.asarray(weights, dtype=np.int64).reshape(-1)
        lv = np.zeros_like(w) if level is None else np.asarray(level, dtype=np.int64).reshape(-1)
        if not (len(w) == len(a) == len(c) == len(lv)) or (c < 0).any() or (w < 0).any() or (a < 0).any():
            msg = "a spin law needs equally many non-negative wins, added spins and weights"
            raise ModelError(msg)
        keys, inv = np.unique(np.stack([a, lv, w]), axis=1, return_inverse=True)
        merged = np.zeros(keys.shape[1], dtype=np.int64)
        np.add.at(merged, inv.reshape(-1), c)
        keep = merged > 0
        cycle = sum(merged.tolist())
        if cycle == 0:
            msg = "a spin law needs a positive total weight"
            raise ModelError(msg)
        return cls(keys[2, keep], keys[0, keep], merged[keep], cycle, None if level is None else keys[1, keep])

    @cached_property
    def groups(self) -> dict[Key, tuple[int, int, int]]:
        """Per ``(added, next level)``: total weight, Σ weight·win, Σ weight·win² (Python ints)."""
        lv = np.zeros_like(self.added) if self.level is None else self.level
        out: dict[Key, tuple[int, int, int]] = {}
        for a, ell in sorted(set(zip(self.added.tolist(), lv.tolist(), strict=True))):
            sel = (self.added == a) & (lv == ell)
            w, c = self.wins[sel].tolist(), self.weights[sel].tolist()
            out[a, ell] = (sum(c), sum(x * y for x, y in zip(w, c, strict=True)),
                           sum(x * x * y for x, y in zip(w, c, strict=True)))
        return out

    def p_added(self, a: int) -> Fraction:
        """P(the spin adds exactly ``a`` spins)."""
        return Fraction(sum(g[0] for (k, _), g in self.groups.items() if k == a), self.cycle)

    @property
    def m(self) -> Fraction:
        """Expected spins added per spin."""
        return Fraction(sum(a * g[0] for (a, _), g in self.groups.items()), self.cycle)

    @property
    def mean_win(self) -> Fraction:
        return Fraction(sum(g[1] for g in self.groups.values()), self.cycle)

    def probs(self, a: int | None = None) -> tuple[IntArray, FloatArray]:
        """Wins and float probabilities, of all outcomes or of those adding ``a`` (not normalised)."""
        sel = np.ones(len(self.wins), dtype=bool) if a is None else self.added == a
        return self.wins[sel], self.weights[sel].astype(np.float64) / float(self.cycle)


def _trigger_counts(sm: SpinMaths, fs: FreeSpins) -> IntArray:
    return np.asarray(sm.scatter_count(fs.trigger), dtype=np.int64)


def _fs(game: Game) -> FreeSpins:
    if game.free_spins is None:
        msg = f"{game.name!r} declares no free spins"
        raise ModelError(msg)
    return game.free_spins


def trigger_law(game: Game, base: SpinMaths) -> SpinLaw:
    """The base spin's law of ``(total win, spins awarded)`` (awards limited by ``max_spins``)."""
    fs = _fs(game)
    counts = _trigger_counts(base, fs)
    table = np.array([fs.award(c) for c in range(int(counts.max(initial=0)) + 1)], dtype=np.int64)
    award = table[counts]
    if fs.max_spins is not None:
        award = np.minimum(award, fs.max_spins)
    return SpinLaw.of(base.joint.wins + base.scatter_win, award, base.joint.counts)


def free_spin_law(game: Game, free: SpinMaths) -> SpinLaw:
    """One free spin's law of ``(win with the feature multiplier, spins added)``."""
    fs = _fs(game)
    counts = _trigger_counts(free, fs)
    table = np.array([fs.retrigger(c) for c in range(int(counts.max(initial=0)) + 1)], dtype=np.int64)
    scatter_mult = fs.multiplier if fs.multiply_scatter else 1
    wins = free.joint.wins * fs.multiplier + free.scatter_win * scatter_mult
    return SpinLaw.of(wins, table[counts], free.joint.counts)


def retrigger_rule(fs: FreeSpins, q: Fraction) -> str:
    """The retrigger rule in words, with ``q`` = P(a spin adds spins) (for messages).

    Examples
    --------
    >>> from mathkit.game import FreeSpins
    >>> retrigger_rule(FreeSpins("EMPEROR", ((3, 10),), "free", ((3, 10),)), Fraction(13, 125))
    '3+ EMPEROR add 10 spins with probability 0.104 per spin'
    """
    adds = ", ".join(f"{k}+ {fs.trigger} add {v}" for k, v in fs.retriggers if v) or "nothing"
    return f"{adds} spins with probability {float(q):.4g} per spin"


# ----------------------------------------------------------------------------- moments
@dataclass(frozen=True)
class Moments:
    """Mean and variance of a feature's total win (credits) and of its length (spins).

    Fractions when exact, floats when a large chain was solved in float64.
    """

    mean_win: Fraction | float
    var_win: Fraction | float
    mean_spins: Fraction | float
    var_spins: Fraction | float


@dataclass(frozen=True, eq=False)
class _MomentChain:
    """The feature's chain with each step's reward summarised per transition by exact moments."""

    states: tuple[State, ...]
    rows: tuple[tuple[tuple[int, Fraction, Fraction, Fraction], ...], ...]  # (next, p, E[r;o], E[r²;o])
    overflow: tuple[Fraction, ...]  # per state, P(the next step goes past max_left)

    def solve_exact(self) -> dict[str, list[Fraction]]:
        """Per state, exactly: expected win, its second moment, expected steps, its second moment, P(overflow).

        ``(I − Q) v = r̄``; ``(I − Q) s = Σ_o (E[r²; o] + 2 E[r; o] v_next)``; the same with
        reward 1 for the length; ``(I − Q) h = P(overflow next step)``.
        """
        lu = exact_lu([[(0, j, p) for j, p, _, _ in row] for row in self.rows])

        def at(x: list[Fraction], j: int) -> Fraction:
            return Fraction(0) if j == ABSORB else x[j]

        v = lu.solve([sum((r1 for _, _, r1, _ in row), Fraction(0)) for row in self.rows])
        t = lu.solve([Fraction(1)] * len(self.rows))
        s = lu.solve([sum((r2 + 2 * r1 * at(v, j) for j, _, r1, r2 in row), Fraction(0)) for row in self.rows])
        t2 = lu.solve([sum((p * (1 + 2 * at(t, j)) for j, p, _, _ in row), Fraction(0)) for row in self.rows])
        return {"win": v, "win2": s, "spins": t, "spins2": t2, "overflow": lu.solve(list(self.overflow))}

    def solve_float(self) -> dict[str, FloatArray]:
        """:meth:`solve_exact` in float64 (sparse LU)."""
        n = len(self.states)
        src = np.array([i for i, row in enumerate(self.rows) for _ in row], dtype=np.int64)
        dst = np.array([j for row in self.rows for j, _, _, _ in row], dtype=np.int64)
        p, r1, r2 = (np.array([float(o[k]) for row in self.rows for o in row]) for k in (1, 2, 3))
        inner = dst != ABSORB
        q = sparse.csr_array((p[inner], (src[inner], dst[inner])), shape=(n, n))
        lu = splu(sparse.csc_array(sparse.eye_array(n, format="csc") - q))

        def solve(rhs: FloatArray) -> FloatArray:
            return np.asarray(lu.solve(rhs), dtype=np.float64)

        def b(w: FloatArray) -> FloatArray:
            return np.bincount(src, weights=w, minlength=n).astype(np.float64)

        v = solve(b(r1))
        t = solve(b(p))
        s = solve(b(r2 + 2 * r1 * np.where(inner, v[np.maximum(dst, 0)], 0.0)))
        t2 = solve(b(p * (1 + 2 * np.where(inner, t[np.maximum(dst, 0)], 0.0))))
        return {"win": v, "win2": s, "spins": t, "spins2": t2,
                "overflow": solve(np.array([float(x) for x in self.overflow]))}


# ----------------------------------------------------------------------------- the chain
@dataclass(frozen=True, eq=False)
class FreeSpinChain:
    """A free-spin feature: one :class:`SpinLaw` per level, an optional limit on spins.

    Construction refuses a feature that would never end on average: without a
    spin limit every level must add fewer than one spin per spin
    (:func:`~mathkit.markov.geometric_check`, whose message names ``rule``).

    Examples
    --------
    A spin wins 0 or 10 (1/2 each); with probability 1/10 it adds 5 spins: m = 1/2.

    >>> law = SpinLaw.of([0, 10, 0, 10], [0, 0, 5, 5], [9, 9, 1, 1])
    >>> chain = FreeSpinChain((law,), rule="a star adds 5 spins")
    >>> chain.expected_spins(10), chain.expected_win(10)
    (Fraction(20, 1), Fraction(100, 1))
    """

    laws: tuple[SpinLaw, ...]
    max_spins: int | None = None
    rule: str = "the retrigger rule"

    def __post_init__(self) -> None:
        if not self.laws:
            msg = "a free-spin chain needs at least one level"
            raise ModelError(msg)
        for ell, law in enumerate(self.laws):
            bad = [int(x) for x in np.unique(law.level)] if law.level is not None else []
            if any(not 0 <= x < len(self.laws) for x in bad):
                msg = f"level {ell}: next level outside 0..{len(self.laws) - 1}"
                raise ModelError(msg)
            if self.max_spins is None:
                where = f"{self.rule} (level {ell})" if len(self.laws) > 1 else self.rule
                geometric_check(law.m, where)

    @property
    def closed_form(self) -> bool:
        """One level and no spin limit: the closed forms apply."""
        return len(self.laws) == 1 and self.max_spins is None

    @property
    def m(self) -> Fraction:
        """Expected spins added per spin (level 0)."""
        return self.laws[0].m

    # --- closed forms ---------------------------------------------------------------
    @cached_property
    def _unit(self) -> Moments:
        """Moments of the feature from one spin (closed forms; one level, no limit)."""
        law = self.laws[0]
        c = law.cycle
        m = law.m
        ex = Fraction(sum(g[1] for g in law.groups.values()), c)
        ex2 = Fraction(sum(g[2] for g in law.groups.values()), c)
        exa = Fraction(sum(a * g[1] for (a, _), g in law.groups.items()), c)
        eaa = Fraction(sum(a * (a - 1) * g[0] for (a, _), g in law.groups.items()), c)
        mu = ex / (1 - m)
        w2 = (ex2 + 2 * mu * exa + eaa * mu * mu) / (1 - m)
        t = 1 / (1 - m)
        t2 = (1 + 2 * t * m + eaa * t * t) / (1 - m)
        return Moments(mu, w2 - mu * mu, t, t2 - t * t)

    def moments(self, n: int, level: int = 0, *, exact: bool | None = None, max_left: int = 400,
                by_chain: bool = False) -> Moments:
        """Moments of the feature from ``n`` spins at ``level``.

        Closed forms (exact) when they apply, unless ``by_chain``; otherwise the
        chain's linear solves, exact up to :data:`~mathkit.markov.EXACT_MAX_STATES`
        states (or as ``exact`` says), states cut at ``max_left`` spins left (see
        :meth:`overflow`).
        """
        if n <= 0:
            return Moments(Fraction(0), Fraction(0), Fraction(0), Fraction(0))
        if self.closed_form and not by_chain:
            u = self._unit
            return Moments(n * u.mean_win, n * u.var_win, n * u.mean_spins, n * u.var_spins)
        chain = self._moment_chain(n, level, max_left)
        if exact or (exact is None and len(chain.states) <= EXACT_MAX_STATES):
            sol = chain.solve_exact()
            v, s, t, t2 = (sol[k][0] for k in ("win", "win2", "spins", "spins2"))
            return Moments(v, s - v * v, t, t2 - t * t)
        fl = chain.solve_float()
        vf, sf, tf, t2f = (float(fl[k][0]) for k in ("win", "win2", "spins", "spins2"))
        return Moments(vf, sf - vf * vf, tf, t2f - tf * tf)

    def expected_spins(self, n: int, level: int = 0) -> Fraction | float:
        """``E[N]`` from ``n`` spins: ``n / (1 − m)`` for one level without a limit."""
        return self.moments(n, level).mean_spins

    def expected_win(self, n: int, level: int = 0) -> Fraction | float:
        """Expected total win (credits) from ``n`` spins."""
        return self.moments(n, level).mean_win

    # --- the chain ------------------------------------------------------------------
    def _step(self, state: State, key: Key, max_left: int) -> State | None:
        """Next state after a spin doing ``key``; ``None`` past ``max_left`` (no limit only)."""
        left, awarded, _ = state
        add, ell = key
        if self.max_spins is not None:
            add = min(add, self.max_spins - awarded)
            awarded += add
        left += add - 1
        if self.max_spins is None and left > max_left:
            return None
        return (left, awarded, ell)

    def start(self, n: int, level: int = 0) -> State:
        """The state of a feature awarded ``n`` spins at ``level`` (its label in :meth:`reward_chain`)."""
        if self.max_spins is None:
            return (n, 0, level)
        return (min(n, self.max_spins), min(n, self.max_spins), level)

    def _states(self, n: int, level: int, max_left: int) -> Iterator[tuple[State, dict[Key, State | None]]]:
        start = self.start(n, level)
        seen = {start}
        todo = [start]
        while todo:
            st = todo.pop()
            moves = {key: self._step(st, key, max_left) for key in self.laws[st[2]].groups}
            for nxt in moves.values():
                if nxt is not None and nxt[0] > 0 and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
            yield st, moves

    def _moment_chain(self, n: int, level: int, max_left: int) -> _MomentChain:
        """The chain from ``n`` spins at ``level`` (state 0), rewards summarised by moments."""
        found = list(self._states(n, level, max_left))
        index = {st: i for i, (st, _) in enumerate(found)}
        rows = []
        overflow = []
        for st, moves in found:
            law = self.laws[st[2]]
            acc: dict[int, list[Fraction]] = {}
            lost = Fraction(0)
            for key, nxt in moves.items():
                w, s1, s2 = law.groups[key]
                if nxt is None:
                    lost += Fraction(w, law.cycle)
                j = ABSORB if nxt is None or nxt[0] == 0 else index[nxt]
                cell = acc.setdefault(j, [Fraction(0)] * 3)
                cell[0] += Fraction(w, law.cycle)
                cell[1] += Fraction(s1, law.cycle)
                cell[2] += Fraction(s2, law.cycle)
            rows.append(tuple((j, p, r1, r2) for j, (p, r1, r2) in sorted(acc.items())))
            overflow.append(lost)
        return _MomentChain(tuple(st for st, _ in found), tuple(rows), tuple(overflow))

    def overflow(self, n: int, level: int = 0, *, max_left: int = 400) -> float:
        """P(the spins left ever exceed ``max_left``) from ``n`` spins: what cutting the chain leaves out."""
        if self.max_spins is not None:
            return 0.0
        return float(self._moment_chain(n, level, max_left).solve_float()["overflow"][0])

    def reward_chain(self, n: int, level: int = 0, *, max_left: int = 400) -> RewardChain:
        """The feature as a :class:`~mathkit.markov.RewardChain`, outcome by outcome (for small laws).

        States are labelled ``(spins left, spins awarded, level)``; a step that would
        go past ``max_left`` spins left ends the chain (see :meth:`overflow`).
        """
        found = list(self._states(n, level, max_left))
        index = {st: i for i, (st, _) in enumerate(found)}
        rows = []
        for st, moves in found:
            law = self.laws[st[2]]
            lv = np.zeros_like(law.added) if law.level is None else law.level
            row = []
            for w, a, ell, c in zip(law.wins.tolist(), law.added.tolist(), lv.tolist(), law.weights.tolist(),
                                    strict=True):
                nxt = moves[a, ell]
                row.append((w, ABSORB if nxt is None or nxt[0] == 0 else index[nxt], c))
            rows.append(row)
        return RewardChain.from_outcomes([st for st, _ in found], rows)

    # --- length ---------------------------------------------------------------------
    def survival(self, t: int | tuple[int, ...], n: int, level: int = 0) -> float | tuple[float, ...]:
        """``P(N > t)``: the feature from ``n`` spins lasts more than ``t`` spins (for each ``t`` of a tuple).

        The law of the state is pushed forward spin by spin in float64 (no cut is
        needed: in ``t`` spins the spins left cannot exceed ``n + t·max added``).
        """
        ts = (t,) if isinstance(t, int) else t
        mass: dict[State, float] = {self.start(n, level): 1.0}
        out = {}
        for step in range(max(ts, default=0) + 1):
            if step in ts:
                out[step] = math.fsum(mass.values())
            nxt: dict[State, float] = {}
            for st, p in mass.items():
                law = self.laws[st[2]]
                for key, g in law.groups.items():
                    to = self._step(st, key, 1 << 62)
                    if to is not None and to[0] > 0:
                        nxt[to] = nxt.get(to, 0.0) + p * g[0] / law.cycle
            mass = nxt
        return out[t] if isinstance(t, int) else tuple(out[x] for x in ts)

    def length_law(self, n: int, tol: Fraction) -> list[tuple[Fraction, dict[int, int], int]]:
        """Kemperman: ``(P, {added: spins adding it}, length)`` for every retrigger mix, fewest first.

        Lists every mix with at most ``K`` retriggering spins, ``K`` the least for
        which the probability of more is at most ``tol`` (one level, no limit).
        """
        if not self.closed_form:
            msg = "the length law by Kemperman's formula needs one level and no spin limit"
            raise ModelError(msg)
        law = self.laws[0]
        p = {a: law.p_added(a) for a in sorted({a for a, _ in law.groups})}
        p0 = p.pop(0, Fraction(0))
        out: list[tuple[Fraction, dict[int, int], int]] = []
        total = Fraction(0)
        k = 0
        while k <= 100_000:
            for mix in _mixes(sorted(p), k):
                t = n + sum(a * c for a, c in mix.items())
                k0 = t - k
                coef = Fraction(n * math.factorial(t - 1),
                                math.factorial(k0) * math.prod(math.factorial(c) for c in mix.values()))
                prob = coef * p0**k0 * math.prod((p[a] ** c for a, c in mix.items()), start=Fraction(1))
                total += prob
                out.append((prob, mix, t))
            if 1 - total <= tol or not p:
                return out
            k += 1
        msg = f"{self.rule}: more than 100000 retriggers needed to leave out at most {float(tol):g} of the length law"
        raise ModelError(msg)


def _mixes(adds: list[int], k: int) -> Iterator[dict[int, int]]:
    """Every way to spread ``k`` retriggering spins over the added-spin sizes ``adds``."""
    if not adds:
        if k == 0:
            yield {}
        return
    if len(adds) == 1:
        yield {adds[0]: k}
        return
    for c in range(k, -1, -1):
        for rest in _mixes(adds[1:], k - c):
            yield {adds[0]: c, **rest}


def feature_chain(game: Game, free: SpinMaths) -> FreeSpinChain:
    """The game's free-spin chain, from the exact maths of one spin on its free-spin reels."""
    fs = _fs(game)
    law = free_spin_law(game, free)
    return FreeSpinChain((law,), fs.max_spins, retrigger_rule(fs, 1 - law.p_added(0)))


# ----------------------------------------------------------------------------- distributions
@dataclass(frozen=True, eq=False)
class PlayLaw:
    """Float distributions from :func:`play_distribution`: values in credits, probabilities, lost mass."""

    values: IntArray
    probs: FloatArray
    lost_mass: float


def _dense(values: IntArray, probs: FloatArray, g: int, size: int) -> FloatArray:
    return np.bincount(values // g, weights=probs, minlength=size).astype(np.float64)


def _clean(out: FloatArray, g: int, expected: float) -> PlayLaw:
    """Zero the FFT round-off and count the mass that went with it."""
    noise = max(-float(out.min(initial=0.0)), 0.0)
    floor = max(8 * noise, float(np.finfo(np.float64).eps) * float(np.linalg.norm(out)))
    keep = np.flatnonzero(out > floor)
    probs = out[keep]
    lost = max(expected - math.fsum(probs.tolist()), 0.0)
    return PlayLaw(keep.astype(np.int64) * g, probs, lost)


def play_distribution(trigger: SpinLaw, chain: FreeSpinChain, *, tol: float = 1e-13,
                      max_size: int = 1 << 25) -> tuple[PlayLaw, PlayLaw]:
    """Distribution of a whole play's win (base spin + feature) and of the feature's win when triggered.

    One level, no spin limit: for each number of spins awarded ``n``, the feature's
    characteristic function is the Kemperman sum over retrigger mixes (at most
    ``tol`` of probability left out), multiplied by the base spin's win given ``n``;
    one inverse real FFT, exact to round-off (entries below the round-off are
    zeroed and their mass reported with the truncation).  Otherwise the chain's
    :meth:`~mathkit.markov.RewardChain.total_reward_distribution` (small laws only).
    """
    law = chain.laws[0]
    starts = {a: g for (a, _), g in trigger.groups.items()}
    p_trig = Fraction(sum(g[0] for a, g in starts.items() if a > 0), trigger.cycle)
    if not chain.closed_form:
        return _play_by_chain(trigger, chain, tol, p_trig)
    g = int(np.gcd.reduce(np.concatenate([trigger.wins, law.wins]))) or 1
    laws = {n: chain.length_law(n, Fraction(tol)) for n in starts if n > 0}
    xmax = {int(a): int(law.wins[law.added == a].max()) for a in np.unique(law.added)}
    top = 0
    for n, terms in laws.items():
        longest = max(sum(c * xmax[a] for a, c in mix.items()) + (t - sum(mix.values())) * xmax.get(0, 0)
                      for _, mix, t in terms)
        top = max(top, int(trigger.wins[trigger.added == n].max()) + longest)
    top = max(top, int(trigger.wins.max()))
    size = sfft.next_fast_len(top // g + 1, real=True)
    if size > max_size:
        msg = f"the play's win distribution needs {size:,} points (more than {max_size:,}): raise max_size or tol"
        raise ModelError(msg)
    chi = {a: sfft.rfft(_dense(*law.probs(a), g, size)) for a in xmax}
    p_add = {a: float(law.p_added(a)) for a in xmax}
    psi = {a: chi[a] / p_add[a] for a in xmax}  # E[e^{iωX} | A = a]
    phi_trig = np.zeros(size // 2 + 1, dtype=np.complex128)
    phi_feat = np.zeros(size // 2 + 1, dtype=np.complex128)
    kept = Fraction(0)
    # One more spin adding a > 0 turns a mix's term into term·ψ_a·ψ_0^(a-1): each term is one product.
    adds = sorted(a for a in psi if a > 0)
    step = {a: psi[a] * np.power(psi[0], a - 1) for a in adds}
    for n, terms in laws.items():
        f_n = np.zeros(size // 2 + 1, dtype=np.complex128)
        mass = Fraction(0)
        previous: dict[tuple[int, ...], npt.NDArray[np.complex128]] = {}
        level: dict[tuple[int, ...], npt.NDArray[np.complex128]] = {}
        retriggers = 0
        for prob, mix, _ in terms:  # listed by number of retriggers, fewest first
            key = tuple(mix.get(a, 0) for a in adds)
            if sum(key) != retriggers:
                previous, level, retriggers = level, {}, sum(key)
            if retriggers == 0:
                term = np.power(psi[0], n)
            else:
                i = next(i for i, c in enumerate(key) if c)
                term = previous[(*key[:i], key[i] - 1, *key[i + 1:])] * step[adds[i]]
            level[key] = term
            f_n += float(prob) * term
            mass += prob
        p_n = Fraction(starts[n][0], trigger.cycle)
        kept += p_n * mass
        phi_trig += sfft.rfft(_dense(*trigger.probs(n), g, size)) * f_n
        phi_feat += float(p_n / p_trig) * f_n
    # Plays without a trigger are added exactly in the value domain: only the triggered part (mass
    # P(trigger)) goes through the FFT, so its round-off is relative to that mass, not to 1.
    part = _clean(np.asarray(sfft.irfft(phi_trig, size), dtype=np.float64), g, float(kept))
    feat = _clean(np.asarray(sfft.irfft(phi_feat, size), dtype=np.float64), g, float(kept / p_trig))
    values, probs = trigger.probs(0) if 0 in starts else (np.zeros(0, np.int64), np.zeros(0))
    merged_v, inv = np.unique(np.concatenate([values, part.values]), return_inverse=True)
    merged_p = np.zeros(len(merged_v))
    np.add.at(merged_p, inv, np.concatenate([probs, part.probs]))
    trunc = float(p_trig - kept)
    return (PlayLaw(merged_v, merged_p, part.lost_mass + trunc),
            PlayLaw(feat.values, feat.probs, feat.lost_mass + float(1 - kept / p_trig)))


def _play_by_chain(trigger: SpinLaw, chain: FreeSpinChain, tol: float, p_trig: Fraction) -> tuple[PlayLaw, PlayLaw]:
    """Levels or a spin limit: each award's feature by the outcome-by-outcome chain, added to the base win."""
    play: dict[int, float] = {}
    feat: dict[int, float] = {}
    lost = lost_feat = 0.0
    for (n, _), (w, _, _) in trigger.groups.items():
        bv, bp = trigger.probs(n)
        if n == 0:
            for v, q in zip(bv.tolist(), bp.tolist(), strict=True):
                play[v] = play.get(v, 0.0) + q
            continue
        rd = chain.reward_chain(n).total_reward_distribution(chain.start(n), tol=tol)
        p_n = w / trigger.cycle
        lost += p_n * rd.lost_mass
        lost_feat += float(Fraction(w, trigger.cycle) / p_trig) * rd.lost_mass
        for v, q in zip(rd.values.tolist(), rd.probs.tolist(), strict=True):
            feat[v] = feat.get(v, 0.0) + q * float(Fraction(w, trigger.cycle) / p_trig)
        lo_b, lo_f = int(bv.min()), int(rd.values.min())
        a = np.zeros(int(bv.max()) - lo_b + 1)
        np.add.at(a, bv - lo_b, bp)
        b = np.zeros(int(rd.values.max()) - lo_f + 1)
        np.add.at(b, rd.values - lo_f, rd.probs)
        conv = np.convolve(a, b)
        for k in np.flatnonzero(conv > 0).tolist():
            play[k + lo_b + lo_f] = play.get(k + lo_b + lo_f, 0.0) + float(conv[k])

    def law_of(d: Mapping[int, float], lost_mass: float) -> PlayLaw:
        keys = sorted(d)
        return PlayLaw(np.array(keys, dtype=np.int64), np.array([d[k] for k in keys]), lost_mass)

    return law_of(play, lost), law_of(feat, lost_feat)


# ----------------------------------------------------------------------------- fast mean path
def expected_spins_limited(p: Mapping[int, Fraction], n: int, limit: int) -> Fraction:
    """``E[N]`` from ``n`` spins when at most ``limit`` spins are awarded in all (exact, by recursion).

    ``p`` maps spins added by one spin to its probability.

    Examples
    --------
    >>> expected_spins_limited({0: Fraction(1, 2), 5: Fraction(1, 2)}, 1, 6)  # 1 + 1/2·5
    Fraction(7, 2)
    """
    n = min(n, limit)
    memo: dict[tuple[int, int], Fraction] = {}
    # f(left, awarded) = 1 + Σ_a p_a f(left - 1 + a', awarded + a'), a' = min(a, limit - awarded).
    for awarded in range(limit, n - 1, -1):
        for left in range(1, awarded + 1):
            val = Fraction(1)
            for a, pa in p.items():
                a2 = min(a, limit - awarded)
                nxt = (left - 1 + a2, awarded + a2)
                if nxt[0] > 0:
                    val += pa * memo[nxt]
            memo[left, awarded] = val
    return memo[n, n]


def rtp_with_features(game: Game, reels: str | None = None, *, lines: int | None = None,
                      coins: int | None = None) -> dict[str, Fraction]:
    """Exact RTP by component, free spins included, from per-reel algebra only (no enumeration).

    The base components come from :func:`~mathkit.rtp.component_rtp`; the free
    spins add ``E[spins awarded] · E[N per spin awarded] · E[free-spin win] / bet``,
    with the trigger and retrigger laws from the scatter-count convolution over
    reels and the free-spin win from ``component_rtp`` on the free-spin reels (Wald:
    the total win of a feature is its expected length times one spin's mean win).

    Examples
    --------
    >>> from mathkit.io import load_game
    >>> parts = rtp_with_features(load_game("data/games/dynasty.toml"))
    >>> sorted(parts)
    ['free spins', 'lines', 'scatter']
    """
    base = component_rtp(game, reels, lines=lines, coins=coins)
    out = base.breakdown()
    fs = game.free_spins
    if fs is None:
        return out
    sid = game.symbol_names.index(fs.trigger)
    award = scatter_count_weights(reel_arrays(game, reels), sid)
    free = component_rtp(game, fs.reels, lines=lines, coins=coins)
    retrig = scatter_count_weights(reel_arrays(game, fs.reels), sid)
    scat = free.credits("scatter")
    per_spin = Fraction(fs.multiplier * (free.credits() - scat)
                        + (fs.multiplier if fs.multiply_scatter else 1) * scat, free.cycle)
    p: dict[int, Fraction] = {}
    for c, w in enumerate(retrig):
        if w:
            p[fs.retrigger(c)] = p.get(fs.retrigger(c), Fraction(0)) + Fraction(w, free.cycle)
    spins = Fraction(0)
    if fs.max_spins is None:
        m = sum((a * q for a, q in p.items()), Fraction(0))
        factor = geometric_check(m, retrigger_rule(fs, 1 - p.get(0, Fraction(0))))
        spins = sum((Fraction(w, base.cycle) * fs.award(c) for c, w in enumerate(award)), Fraction(0)) * factor
    else:
        for c, w in enumerate(award):
            n = min(fs.award(c), fs.max_spins)
            if w and n:
                spins += Fraction(w, base.cycle) * expected_spins_limited(p, n, fs.max_spins)
    out["free spins"] = spins * per_spin / base.total_bet
    return out

