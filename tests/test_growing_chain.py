"""Free games on a growing window: a chain solved by hand, exact cases, and independent methods.

* **By hand** (two heights, the lower grows): at the top height the games left are
  independent trees, ``V(n, 2) = α n`` with ``α = E[X₂] / (1 − m₂)`` (Wald).  At height 1
  the games left walk ``−1`` (no retrigger) or ``+1`` (a retrigger adds 2) and the window
  grows after each game with probability ``g``; the games played there, ``T``, stop at the
  growth or when none is left, so ``E[T] = (1 − ρⁿ) / g`` with ``ρ = E[s^{games of one tree}]``
  at ``s = 1 − g``, the root in (0, 1) of ``ρ = s (q + p ρ²)``, and by Wald's identity the games
  left at the growth are ``E[L] = n + (2p − 1) E[T]``.  So
  ``V(n, 1) = E[X₁] E[T] + α E[L] = α n + (E[X₁] + α (2p − 1)) (1 − ρⁿ) / g`` — irrational.
* **Exact cases**: no retrigger where the window grows (a finite recursion), no growth (Wald).
* **Independent methods** on small random chains: the second moment by a dense linear solve
  of the truncated chain written out state by state, and the win's law by pushing the joint
  (state, win) mass forward game by game.
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathkit.chains.freespins.growing import GrowingChain, HeightGame
from mathkit.errors import ModelError
from mathkit.laws.law import WinLaw
from mathkit.laws.stage import Branch


def game(p_add: Fraction, mean: int, wins: dict[int, Fraction] | None = None, add: int = 2) -> HeightGame:
    """A game that adds ``add`` games with probability ``p_add``; its win ``mean``, or the law ``wins`` either way."""
    wins = wins or {mean: Fraction(1)}
    mu = sum((x * q for x, q in wins.items()), Fraction(0))
    m2 = sum((x * x * q for x, q in wins.items()), Fraction(0))
    law = WinLaw(np.array(sorted(wins), dtype=np.int64), np.array([float(wins[x]) for x in sorted(wins)]))
    groups = {0: Branch(1 - p_add, mu, m2, law)}
    if p_add:
        groups[add] = Branch(p_add, mu, m2, law)
    return HeightGame(mu, groups)


def two_heights(p: Fraction = Fraction(1, 10), g: Fraction = Fraction(1, 4), p2: Fraction = Fraction(1, 5),
                one: HeightGame | None = None, two: HeightGame | None = None) -> GrowingChain:
    return GrowingChain((1, 2), {1: one or game(p, 1), 2: two or game(p2, 3)},
                        {1: {1: 1 - g, 2: g}, 2: {2: Fraction(1)}})


def test_the_chain_solved_by_hand() -> None:
    p, g, p2, n = 0.1, 0.25, 0.2, 10
    s, q = 1 - g, 1 - p
    alpha = 3 / (1 - 2 * p2)
    rho = (1 - math.sqrt(1 - 4 * s * s * p * q)) / (2 * s * p)
    assert abs(rho - s * (q + p * rho * rho)) < 1e-15
    games_low = (1 - rho**n) / g
    left = n + (2 * p - 1) * games_low
    mean = alpha * n + (1 + alpha * (2 * p - 1)) * (1 - rho**n) / g
    f = two_heights().figures(n, 1)
    assert f.method == "markov"
    assert float(f.mean) == pytest.approx(mean, rel=1e-13)
    assert float(f.visits[1]) == pytest.approx(games_low, rel=1e-13)
    assert float(f.visits[2]) == pytest.approx(left / (1 - 2 * p2), rel=1e-13)
    # the last game is at height 1 when no growth comes before the tree ends: E[s^(T - 1)] = ρⁿ / s
    assert float(f.end[1]) == pytest.approx(rho**n / s, rel=1e-12)
    assert float(f.end[1] + f.end[2]) == pytest.approx(1, abs=1e-14)
    assert f.lost < 1e-20


def test_exact_where_a_height_grows_but_never_retriggers_or_never_grows() -> None:
    # height 1 never retriggers (grows w.p. 1/4, pays 1); height 2 retriggers (pays 3, m = 2/5): from 2 games at 1,
    # the first pays 1; then 1/4 of the time the last game is at height 2 (a tree: 3 / (3/5) = 5), else at 1 (1):
    # E[W] = 1 + 1/4 · 5 + 3/4 · 1 = 3
    c = two_heights(p=Fraction(0))
    f = c.figures(2, 1)
    assert (f.method, f.mean) == ("exact", Fraction(3))
    # from the top height: Wald, n · 5
    assert c.figures(7, 2).mean == 35
    assert c.figures(7, 2).method == "exact"


def test_a_feature_that_never_ends_is_refused() -> None:
    with pytest.raises(ModelError, match="never ends"):
        two_heights(p2=Fraction(1, 2))


# ----------------------------------------------------------------------------- independent methods
@st.composite
def chains(draw: st.DrawFn) -> tuple[GrowingChain, int, int]:
    heights = (1, 2, 3)
    games = {}
    for h in heights:
        wins = {x: Fraction(draw(st.integers(1, 4))) for x in draw(st.lists(st.integers(0, 6), min_size=1, max_size=3,
                                                                              unique=True))}
        total = sum(wins.values())
        games[h] = game(Fraction(draw(st.integers(0, 3)), 20), 0, {x: w / total for x, w in wins.items()},
                        add=draw(st.sampled_from([2, 3])))
    grow = {1: {1: Fraction(2, 3), 2: Fraction(1, 6), 3: Fraction(1, 6)}, 2: {2: Fraction(3, 4), 3: Fraction(1, 4)},
            3: {3: Fraction(1)}}
    return GrowingChain(heights, games, grow), draw(st.integers(1, 4)), draw(st.sampled_from(heights))


def dense(chain: GrowingChain, n0: int, h0: int, size: int = 300) -> tuple[float, float]:
    """Mean and second moment by one dense solve of the chain cut at ``size`` games left, state by state."""
    states = [(n, h) for h in chain.heights for n in range(1, size + 1)]
    index = {s: i for i, s in enumerate(states)}
    k = len(states)
    q = np.zeros((k, k))
    r1 = np.zeros(k)
    r2 = np.zeros(k)
    moves: dict[int, list[tuple[float, int | None, float, float]]] = defaultdict(list)
    for (n, h), i in index.items():
        for a, b in chain.games[h].by_added.items():
            for to in chain.heights:
                pr = float(b.p * chain.g(h, to))
                if pr == 0:
                    continue
                nxt = n - 1 + a
                j = index.get((nxt, to)) if 0 < nxt <= size else None
                assert b.mean is not None and b.m2 is not None
                moves[i].append((pr, j, float(b.mean), float(b.m2)))
                if j is not None:
                    q[i, j] += pr
                r1[i] += pr * float(b.mean)
    lhs = np.eye(k) - q
    v1 = np.linalg.solve(lhs, r1)
    for i, out in moves.items():
        for pr, j, x1, x2 in out:
            r2[i] += pr * (x2 + 2 * x1 * (v1[j] if j is not None else 0.0))
    v2 = np.linalg.solve(lhs, r2)
    i0 = index[(n0, h0)]
    return float(v1[i0]), float(v2[i0])


def pushed(chain: GrowingChain, n0: int, h0: int) -> dict[int, float]:
    """The win's law by pushing the mass of (games left, height) forward game by game, the win as a dense array."""
    mass: dict[tuple[int, int], np.ndarray] = {(n0, h0): np.ones(1)}
    out = np.zeros(1)
    while sum(float(m.sum()) for m in mass.values()) > 1e-15:
        nxt: dict[tuple[int, int], np.ndarray] = {}
        for (n, h), m in mass.items():
            for a, b in chain.games[h].by_added.items():
                assert b.dist is not None
                step = np.zeros(int(b.dist.values.max()) + 1)
                step[b.dist.values] = b.dist.probs
                won = np.convolve(m, step) * float(b.p)
                targets = [(0, 1.0)] if n - 1 + a == 0 else [(to, float(chain.g(h, to))) for to in chain.heights]
                for to, pr in targets:
                    if pr == 0:
                        continue
                    if to == 0:
                        out = _add(out, won)
                    else:
                        key = (n - 1 + a, to)
                        nxt[key] = _add(nxt.get(key, np.zeros(1)), won * pr)
        mass = nxt
    return {i: float(x) for i, x in enumerate(out) if x > 0}


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros(max(len(a), len(b)))
    out[: len(a)] += a
    out[: len(b)] += b
    return out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains())
def test_moments_and_distribution_equal_independent_methods(case: tuple[GrowingChain, int, int]) -> None:
    chain, n, h = case
    f = chain.figures(n, h, moments=True)
    mean, second = dense(chain, n, h)
    assert float(f.mean) == pytest.approx(mean, rel=1e-10, abs=1e-12)
    assert f.m2 is not None
    assert float(f.m2) == pytest.approx(second, rel=1e-10, abs=1e-12)
    law = chain.distributions([(n, h)])[(n, h)]
    want = pushed(chain, n, h)
    got = dict(zip(law.values.tolist(), law.probs.tolist(), strict=True))
    assert max(abs(got.get(x, 0.0) - want.get(x, 0.0)) for x in set(got) | set(want)) < 1e-12
    assert float(np.dot(law.values, law.probs)) == pytest.approx(float(f.mean), rel=1e-9, abs=1e-12)


def test_a_long_tail_is_not_wrapped_onto_the_small_wins() -> None:
    """A chain whose tail outruns the first grid (found by hypothesis): 3.7e-8 of P(15) landed on P(0)."""
    h1 = HeightGame(mean=Fraction(0), by_added={0: Branch(Fraction(1), Fraction(0), Fraction(0),
                                                           WinLaw(np.array([0]), np.array([1.0])), None, None, ())})
    h2 = HeightGame(mean=Fraction(2), by_added={0: Branch(Fraction(1), Fraction(2), Fraction(8),
                                                           WinLaw(np.array([0, 4]), np.array([0.5, 0.5])),
                                                           None, None, ())})
    one = WinLaw(np.array([1]), np.array([1.0]))
    h3 = HeightGame(mean=Fraction(1), by_added={0: Branch(Fraction(19, 20), Fraction(1), Fraction(1), one, None, None, ()),
                                                2: Branch(Fraction(1, 20), Fraction(1), Fraction(1), one, None, None, ())})
    chain = GrowingChain(heights=(1, 2, 3), games={1: h1, 2: h2, 3: h3},
                         grow={1: {1: Fraction(2, 3), 2: Fraction(1, 6), 3: Fraction(1, 6)},
                               2: {2: Fraction(3, 4), 3: Fraction(1, 4)}, 3: {3: Fraction(1)}},
                         rule="the retrigger rule")
    law = chain.distributions([(2, 1)])[(2, 1)]
    want = pushed(chain, 2, 1)
    got = dict(zip(law.values.tolist(), law.probs.tolist(), strict=True))
    assert want[15] > 1e-8  # the mass the short grid wrapped onto 0
    assert max(abs(got.get(x, 0.0) - want.get(x, 0.0)) for x in set(got) | set(want)) < 1e-12
