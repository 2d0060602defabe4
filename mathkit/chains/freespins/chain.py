"""The free-spin feature as a chain over ``(spins left, spins awarded, level)``: :class:`FreeSpinChain`.

Closed forms for one level without a spin limit (Wald, the second moment,
Kemperman's length law); otherwise the states are built from the start and the
moments come from :mod:`mathkit.chains.freespins.moments`.  :meth:`FreeSpinChain.reward_chain`
gives the same feature as a :class:`~mathkit.chains.markov.RewardChain`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from ...errors import ModelError
from ...model.bounds import check_cost, limits
from ..markov import ABSORB, EXACT_MAX_STATES, RewardChain, geometric_check
from .laws import Key, SpinLaw
from .moments import Moments, State, _MomentChain

__all__ = ["FreeSpinChain"]


@dataclass(frozen=True, eq=False)
class FreeSpinChain:
    """A free-spin feature: one :class:`SpinLaw` per level, an optional limit on spins.

    Construction refuses a feature that would never end on average: without a
    spin limit every level must add fewer than one spin per spin
    (:func:`~mathkit.chains.markov.geometric_check`, whose message names ``rule``).

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
        chain's linear solves, exact up to :data:`~mathkit.chains.markov.EXACT_MAX_STATES`
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
        most = limits().states
        while todo:
            st = todo.pop()
            moves = {key: self._step(st, key, max_left) for key in self.laws[st[2]].groups}
            for nxt in moves.values():
                if nxt is not None and nxt[0] > 0 and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
            if len(seen) > most:
                check_cost(f"the free-spin chain from {n} spins ({self.rule})", states=len(seen),
                           fix="lower max_spins, or estimate the feature by simulation (mathkit simulate)")
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
        """The feature as a :class:`~mathkit.chains.markov.RewardChain`, outcome by outcome (for small laws).

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
        budget = limits().work
        work = 0
        while k <= 100_000:
            for mix in _mixes(sorted(p), k):
                t = n + sum(a * c for a, c in mix.items())
                k0 = t - k
                coef = Fraction(n * math.factorial(t - 1),
                                math.factorial(k0) * math.prod(math.factorial(c) for c in mix.values()))
                prob = coef * p0**k0 * math.prod((p[a] ** c for a, c in mix.items()), start=Fraction(1))
                total += prob
                out.append((prob, mix, t))
                # exact arithmetic on numbers of b bits costs about (b / 64)² word operations, a few times a term
                size = max(prob.numerator.bit_length(), prob.denominator.bit_length(), total.denominator.bit_length())
                work += 4 * (size // 64 + 1) ** 2
                if work > budget:
                    check_cost(f"the length law of {n} free spins ({self.rule}), {len(out):,} terms in", work=work,
                               fix="award fewer spins, or estimate the feature's distribution by simulation")
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
