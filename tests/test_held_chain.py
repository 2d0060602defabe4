"""Held-cell chains (:mod:`mathkit.chains.markov.held`): by hand, and against a direct recursion over the held cells.

The direct recursion — ``U(M) = ρ + s(M)·W(M) + Σ_{M' ⊋ M} P(M → M')·U(M')`` over every
mask, from the fullest down, with each move's probability the product over reels —
shares nothing with the solver's tensor sweeps or its lumping to per-reel counts.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathkit.chains.markov.held import HeldChain
from mathkit.errors import ModelError
from mathkit.laws.stage import Ratios


def four_rows() -> HeldChain:
    """One reel, four rows, a strip of 8 stops with one scatter: it shows in each row with probability 1/8.

    From held rows ``h`` a re-spin shows the scatter in one given free row with 1/8, so it adds a
    cell with ``(4 − |h|)/8`` (at most one: the strip has one scatter).
    """
    m = np.zeros((16, 16), dtype=np.int64)
    for a in range(16):
        free = [k for k in range(4) if not a >> k & 1]
        for k in free:
            m[a, a | 1 << k] = 1
        m[a, a] = 8 - len(free)
    return HeldChain((m,), (4,))


def test_one_reel_four_rows_by_hand() -> None:
    chain = four_rows()
    # From rows {0, 1}: it grows w.p. 2/8 = 1/4 to 3 cells, then w.p. 1/8 to 4 (and stops at the next re-spin).
    # Re-spins played: 1 + 1/4 · (1 + 1/8) = 41/32.  The end holds 2 w.p. 3/4, 3 w.p. 1/4 · 7/8, 4 w.p. 1/4 · 1/8.
    start = 0b0011
    assert chain.stay(start) == Fraction(3, 4)
    assert chain.solve([0] * 16, reward=1, min_held=2).at(start) == Fraction(41, 32)
    counts = [Fraction(bin(m).count("1")) for m in range(16)]
    assert chain.solve(counts, min_held=2).at(start) == 2 * Fraction(3, 4) + 3 * Fraction(7, 32) + 4 * Fraction(1, 32)
    four = [Fraction(int(m == 15)) for m in range(16)]
    assert chain.solve(four, min_held=2).at(start) == Fraction(1, 32)
    assert chain.step(start) == {0b0011: Fraction(3, 4), 0b0111: Fraction(1, 8), 0b1011: Fraction(1, 8)}
    # floats agree
    assert chain.solve(counts, min_held=2, exact=False).at(start) == pytest.approx(2.28125, rel=1e-15)


def test_bad_moves_are_refused() -> None:
    with pytest.raises(ModelError, match="never leave"):
        HeldChain((np.array([[1, 0], [1, 0]]),), (1,))
    with pytest.raises(ModelError, match="add up"):
        HeldChain((np.array([[2, 1], [0, 4]]),), (1,))


# ----------------------------------------------------------------------------- against a direct recursion
def direct(chain: HeldChain, terminal: list[Fraction], reward: Fraction) -> list[Fraction]:
    """``U`` at every mask by the recursion over masks, fullest first (exact Fractions)."""
    n = 1 << chain.cells
    u: list[Fraction] = [Fraction(0)] * n
    for mask in sorted(range(n), key=lambda m: -bin(m).count("1")):
        law = chain.step(mask)
        u[mask] = reward + law.get(mask, Fraction(0)) * terminal[mask] + sum(
            (p * u[m] for m, p in law.items() if m != mask), Fraction(0))
    return u


@st.composite
def chains(draw: st.DrawFn, lumpable: bool = False) -> HeldChain:
    n_reels = draw(st.integers(1, 3))
    rows = tuple(draw(st.integers(1, 2)) for _ in range(n_reels))
    moves = []
    for h in rows:
        size = 1 << h
        m = np.zeros((size, size), dtype=np.int64)
        total = draw(st.integers(3, 9))
        if lumpable:  # a scatter in each free row alike, at most one at a time
            q = draw(st.integers(0, total // h))
            for a in range(size):
                free = [k for k in range(h) if not a >> k & 1]
                for k in free:
                    m[a, a | 1 << k] = q
                m[a, a] = total - q * len(free)
        else:
            for a in range(size):
                supersets = [b for b in range(size) if a & b == a]
                cuts = sorted(draw(st.lists(st.integers(0, total), min_size=len(supersets) - 1,
                                            max_size=len(supersets) - 1)))
                parts = [y - x for x, y in zip([0, *cuts], [*cuts, total], strict=True)]
                for b, w in zip(supersets, parts, strict=True):
                    m[a, b] = w
        moves.append(m)
    return HeldChain(tuple(moves), rows)


PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(chains(), st.data())
def test_solve_equals_the_direct_recursion(chain: HeldChain, data: st.DataObject) -> None:
    n = 1 << chain.cells
    terminal = [Fraction(data.draw(st.integers(0, 20)), data.draw(st.integers(1, 5))) for _ in range(n)]
    reward = Fraction(data.draw(st.integers(0, 3)), data.draw(st.integers(1, 3)))
    want = direct(chain, terminal, reward)
    got = chain.solve(terminal, reward)
    assert [got.at(m) for m in range(n)] == want
    den = math.lcm(*(t.denominator for t in terminal))
    ratios = chain.solve(Ratios(np.array([int(t * den) for t in terminal], dtype=object), den), reward)
    assert [ratios.at(m) for m in range(n)] == want
    floats = chain.solve(terminal, reward, exact=False).floats()
    assert floats.tolist() == pytest.approx([float(x) for x in want], rel=1e-12, abs=1e-12)


@PROPERTY
@given(chains(lumpable=True), st.data())
def test_lumped_solve_equals_the_direct_recursion(chain: HeldChain, data: st.DataObject) -> None:
    # a terminal value that depends only on how many cells each reel holds: solved over per-reel counts
    n = 1 << chain.cells
    per_count = {k: Fraction(data.draw(st.integers(0, 30)), data.draw(st.integers(1, 4))) for k in range(chain.cells + 1)}
    terminal = [per_count[bin(m).count("1")] for m in range(n)]
    assert chain._lumped_moves is not None
    want = direct(chain, terminal, Fraction(1))
    got = chain.solve(terminal, 1)
    assert [got.at(m) for m in range(n)] == want
    assert chain.solve(terminal, 1, exact=False).floats().tolist() == pytest.approx([float(x) for x in want], rel=1e-12)
