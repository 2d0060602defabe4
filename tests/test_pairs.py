"""Second moments with fixed wild cells (issue 12) against brute force, and the cap on a toy distribution by hand.

* :meth:`Engine.pair_table` — Σ over the cycle of ``X²`` of a lines spin with any cells forced,
  from line pairs — must equal the brute-force visit of the spin with those cells forced.
* A random overlay's E[W²] from the pair tables equals the placement-by-placement brute-force mixture.
* Sticky free spins: E[W²] from the mask recursion (:meth:`StickyFreeSpins.moments`) equals a
  recursion over (spins left, sticky cells) on brute-force forced spins; E[W] equals the
  block's separate mean formula.
* Multiplier free spins: E[W²] equals a recursion over (spins left, multiplier) on the brute-force spin.
* The cap on a toy round whose law is written by hand.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np
from brute import brute_spin
from hypothesis import HealthCheck, assume, given, settings
from test_forced_cells import forced_case, overlay_case, window_cells
from test_free_spin_games import priestess, samurai, sticky_brute, sticky_games

from mathkit.features.cap import Cap
from mathkit.features.sticky_spins import StickyFreeSpins
from mathkit.laws.law import WinLaw
from mathkit.laws.stage import Outcome, Overlay, SpinModel, cell_bits
from mathkit.model.game import Game
from mathkit.round import Engine

FAST = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def second_moment(game: Game, model: SpinModel) -> Fraction:
    spin = brute_spin(game, model)
    return Fraction(sum(w * w * n for w, n in spin.distribution.items()), spin.cycle)


@FAST
@given(forced_case())
def test_pair_tables_equal_brute_force(case: tuple[Game, SpinModel, str, list[tuple[int, int]]]) -> None:
    game, model, symbol, cells = case
    assume(not game.scatter_pays and all(s.multiplier == 1 for s in game.wilds) and game.reel_set().cycle <= 1500
           and len(game.paylines) <= 6)
    model = SpinModel(model.reels, forced=model.forced, remap=model.remap)
    table = Engine(game).pair_table(model, symbol)
    bits = cell_bits(table.rows)
    mask = sum(1 << (bits[r] + k) for r, k in cells)
    forced = SpinModel(model.reels, forced=model.forced + tuple((r, k, symbol) for r, k in cells), remap=model.remap)
    assert Fraction(int(table.masks_m2(np.array([mask]))[0]), table.cycle) == second_moment(game, forced)


@FAST
@given(overlay_case())
def test_overlay_second_moment_equals_brute_force(case: tuple[Game, Overlay, tuple[str, ...]]) -> None:
    game, o, _ = case
    assume(not game.scatter_pays and all(s.multiplier == 1 for s in game.wilds) and game.reel_set().cycle <= 1500
           and len(game.paylines) <= 6)
    eng = Engine(game)
    m2 = eng.overlay_m2(o)
    assume(m2 is not None)
    brute = sum((w * second_moment(game, o.forced(i)) for i, w in enumerate(o.weights)), Fraction(0)) / o.total
    assert m2 == brute


def sticky_brute_m2(game: Game, block: StickyFreeSpins, cells: frozenset[tuple[int, int]], left: int) -> Fraction:
    """E[W²] of the feature by recursion over (spins left, sticky cells), each spin visited by brute force."""
    rs = game.reel_set(block.reels)
    masks = tuple(f"{block.trigger}@{r + 1}" for r in range(rs.n_reels))

    @cache
    def value(sticky: frozenset[tuple[int, int]], n: int) -> Fraction:
        if n == 0:
            return Fraction(0)
        spin = brute_spin(game, block.model(tuple(sorted(sticky))), digits=masks)
        out = Fraction(0)
        for (win, seen), w in spin.joint.items():
            after = sticky | frozenset((r, k) for r, m in enumerate(seen) for k in range(rs.rows[r]) if m >> k & 1)
            out += Fraction(w, spin.cycle) * (win * win + 2 * win * sticky_brute(game, block, after, n - 1)
                                              + value(after, n - 1))
        return out

    return value(cells, left)


def test_sticky_second_moment_by_hand() -> None:
    # The toy of test_samurai_sticky_masks_by_hand, one spin from reel 1 sticky: reel 2 shows A (W A pays 4),
    # B (W B pays 2) or R (read as W: W W pays the best, 4), each 1/3: E[W²] = (16 + 4 + 16)/3 = 12.
    game, block = samurai(spins=1)
    law = block.law(Engine(game), ((0, 0),), "moments")
    assert law.branches[()].m2 == 12


@FAST
@given(sticky_games())
def test_sticky_moments_equal_brute_force(case: tuple[Game, StickyFreeSpins, tuple[tuple[int, int], ...]]) -> None:
    game, block, start = case
    eng = Engine(game)
    law = block.law(eng, start, "moments")
    assert law.mean == sticky_brute(game, block, frozenset(start), block.spins)
    assert law.branches[()].m2 == sticky_brute_m2(game, block, frozenset(start), block.spins)
    # every mask's E[W] from the recursion equals the block's own per-line mean formula
    rows = game.reel_set(block.reels).rows
    every = np.arange(1 << sum(rows), dtype=np.int64)
    a, _ = block.moments(eng)
    ref = block.mean_ratios(eng, every)
    assert all(a[i] == ref[i] for i in range(len(every)))
    assert len(window_cells(game)) == sum(rows)


def test_multiplier_second_moment_equals_a_recursion_on_the_brute_force_spin() -> None:
    game, block = priestess()
    spin = brute_spin(game, SpinModel("p"), digits=("G",))
    outcomes = [(w, c, Fraction(n, spin.cycle)) for (w, (c,)), n in spin.joint.items()]

    @cache
    def value(left: int, m: int) -> tuple[Fraction, Fraction]:
        if left == 0:
            return Fraction(0), Fraction(0)
        a = b = Fraction(0)
        for w, c, p in outcomes:
            na, nb = value(left - 1, m + c)
            x = w * (m + c)
            a += p * (x + na)
            b += p * (x * x + 2 * x * na + nb)
        return a, b

    eng = Engine(game)
    for spins, start in ((1, 1), (3, 2), (7, 3)):
        law = block.law(eng, (spins, start), "moments")
        assert (law.mean, law.branches[()].m2) == value(spins, start)


def test_cap_on_a_toy_distribution_by_hand() -> None:
    # A round pays 0 (weight 2), 10 (1) or 100 (1) credits: E = 110/4 = 27.5, E[W²] = (100 + 10000)/4 = 2525.
    # A cap of 50 credits: 0, 10, 50: E = 60/4 = 15 (the cap costs 12.5), E[W²] = (100 + 2500)/4 = 650, P(cap) = 1/4.
    values = np.array([0, 10, 100], dtype=np.int64)
    counts = np.array([2, 1, 1], dtype=np.int64)
    law = WinLaw(values, counts / 4, 0.0, counts, 4)
    before = Outcome(Fraction(110, 4), {"lines": Fraction(110, 4)}, "exact", Fraction(2525), law, 100)
    cap = Cap(name="cap", multiple=Fraction(5))

    class Ctx:  # the little of a context the cap reads
        total_bet = 10
        coins = 1

    after = cap.transform(Ctx(), before)  # type: ignore[arg-type]
    assert after.mean == 15 and after.m2 == 650
    assert after.components["cap"] == Fraction(-25, 2)
    assert after.max_win == 50
    assert after.dist is not None and after.dist.counts is not None
    assert dict(zip(after.dist.values.tolist(), after.dist.counts.tolist(), strict=True)) == {0: 2, 10: 1, 50: 1}
