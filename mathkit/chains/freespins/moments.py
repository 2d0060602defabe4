"""Moments of a free-spin feature by linear solves of ``(I − Q)``, exact or in float64.

:class:`_MomentChain` is the feature's chain with each step's reward summarised,
per (state, next state), by its exact first two moments; its solves give the
mean and second moment of the total win and of the length from every state,
and the probability of ever passing the cut at ``max_left`` spins left.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt
from scipy import sparse
from scipy.sparse.linalg import splu

from ..markov import ABSORB, exact_lu

__all__ = ["Moments", "State"]

FloatArray = npt.NDArray[np.float64]
State = tuple[int, int, int]
"""``(spins left, spins awarded so far — 0 without a spin limit, level)``."""


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
