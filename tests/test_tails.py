"""Tail bounds for the cap: the bounds hold (against exact tails), compose, and the cap uses them.

Where no max win keeps a round below the cap (free spins retriggering without limit), the
cap's effect ``E[(Y − c)⁺]`` is bounded (Chernoff bounds on the features, every other stage at
its bound).  Each bound here is checked to be at least the exact value it bounds, on games
small enough to know that value.
"""

from __future__ import annotations

import math
from collections import defaultdict
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from brute import brute_spin
from test_free_spin_games import priestess

from mathkit.features.cap import NEGLIGIBLE, Cap
from mathkit.features.free_spins import FreeSpins
from mathkit.laws.stage import SpinModel, tail_of, tail_plus
from mathkit.laws.tails import THETAS, branching_log_mgf, chernoff, multiplier_tails
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, Symbol
from mathkit.round import Engine, analyse


def excess(law: dict[int, Fraction], t: float) -> tuple[float, float]:
    """Exact ``E[(W − t)⁺]`` and ``P(W > t)`` of a finite law."""
    return (float(sum((p * (w - Fraction(t)) for w, p in law.items() if w > t), Fraction(0))),
            float(sum((p for w, p in law.items() if w > t), Fraction(0))))


def test_tail_composition_by_hand() -> None:
    # W1 ≤ 3 and W2 with E[(W2 − s)⁺] ≤ 1/s: E[(W1 + W2 − 5)⁺] ≤ E[(W2 − 2)⁺] ≤ 1/2
    assert tail_plus([(3, None), (None, lambda s: (1 / s, 0.5))])(5) == (0.5, 0.5)
    # both bounded: the bounds add up; below the sum of the tops the rest goes to the largest
    assert tail_plus([(3, None), (10, None)])(20) == (0.0, 0.0)
    assert tail_plus([(3, None), (10, None)])(12) == (1.0, 1.0)
    assert tail_of(None, None) is None and tail_plus([(None, None)]) is None


def test_chernoff_bounds_a_sum_of_coins() -> None:
    # W = 10 × (number of heads in 20 fair coins): exact tail against the Chernoff bound from its MGF
    n = 20
    law = {10 * k: Fraction(math.comb(n, k), 2**n) for k in range(n + 1)}
    tail = chernoff(lambda th: n * math.log(0.5 + 0.5 * math.exp(10 * th)), [2.0**k for k in range(-10, 3)])
    for t in (100.0, 150.0, 180.0, 199.0):
        b, q = tail(t)
        eb, eq = excess(law, t)
        assert b >= eb and q >= eq
    assert tail(180.0)[0] < 1e-2


def toy_free_spins() -> tuple[Game, FreeSpins]:
    """One reel, one row: B A A C — B adds 2 spins, A pays 1, C pays 5 (one of a kind); 3 spins awarded."""
    fs = FreeSpins(name="fs", trigger="B", awards=((1, 3),), reels="free", retriggers=((1, 2),))
    game = Game("retrigger toy", (Symbol("B", "scatter"), Symbol("A"), Symbol("C")),
                (ReelSet("free", (("B", "A", "A", "C"),), (1,)),),
                (PayEntry("A", ("A",), ((1, (1,)),)), PayEntry("C", ("C",), ((1, (5,)),))), Bet(1),
                paylines=((0,),), default_reels="free", features=(fs,))
    return game, fs


def test_branching_bound_holds_against_the_exact_law() -> None:
    # The feature's total win by exact recursion over spins left, to 60 spins (the rest, ~1e-5, is left out:
    # the excess of the part kept is a lower bound of the true one, which the bound must pass).
    game, fs = toy_free_spins()
    spin = [(0, 2, Fraction(1, 4)), (1, 0, Fraction(1, 2)), (5, 0, Fraction(1, 4))]  # (win, added, p)

    @cache
    def law(left: int, depth: int) -> dict[int, Fraction]:
        if left == 0 or depth == 0:
            return {0: Fraction(1)} if left == 0 else {}
        out: dict[int, Fraction] = defaultdict(Fraction)
        for w, a, p in spin:
            for v, q in law(left - 1 + a, depth - 1).items():
                out[v + w] += p * q
        return dict(out)

    exact = law(3, 60)
    assert 1 - sum(exact.values()) < 1e-4
    eng = Engine(game)
    tail = fs.tail(eng, 3)
    for t in (20.0, 60.0, 120.0):
        b, q = tail(t)
        eb, eq = excess(exact, t)
        assert b >= eb and q >= eq
    # no θ gives a finite moment once the retriggers are critical: E[added] = 1/2 here, fine; 5/4 is not
    logs = [branching_log_mgf(np.array([0.0, 1.0]), np.array([5.0, 0.0]), np.array([0.25, 0.75]), th) for th in THETAS]
    assert all(math.isinf(x) for x in logs)


def test_multiplier_bound_holds_against_the_exact_law() -> None:
    # Priestess toy: the feature's exact win law by recursion over (spins left, multiplier)
    game, block = priestess()
    spin = brute_spin(game, SpinModel("p"), digits=("G",))
    outcomes = [(w, c, Fraction(n, spin.cycle)) for (w, (c,)), n in spin.joint.items()]

    @cache
    def law(left: int, m: int) -> dict[int, Fraction]:
        if left == 0:
            return {0: Fraction(1)}
        out: dict[int, Fraction] = defaultdict(Fraction)
        for w, c, p in outcomes:
            for v, q in law(left - 1, m + c).items():
                out[v + w * (m + c)] += p * q
        return dict(out)

    eng = Engine(game)
    joint = eng.joint(SpinModel("p"))
    tails = multiplier_tails(joint.wins.astype(float), joint.digits["G"].astype(float), joint.counts / joint.cycle,
                             4, [1, 3], 1, [2.0 ** (k / 2) for k in range(-20, 6)])
    for start in (1, 3):
        exact = law(4, start)
        for t in (30.0, 80.0, 150.0):
            b, q = tails[start](t)
            eb, eq = excess(exact, t)
            assert b >= eb and q >= eq
    assert block.tail(eng, 4, 3)(1000.0)[0] == 0.0  # beyond what 4 spins can pay at the most multiplier


def capped(cap: int) -> Game:
    game, fs = toy_free_spins()
    base = ReelSet("base", (("B", "A", "A", "A"),), (1,))
    fs = FreeSpins(name="fs", trigger="B", awards=((1, 3),), reels="free", retriggers=((1, 2),))
    return Game("capped toy", game.symbols, (base, *game.reel_sets), game.line_pays, Bet(1), paylines=((0,),),
                features=(fs, Cap(name="cap", multiple=Fraction(cap))), description=f"max win capped at {cap}× bet")


def test_a_cap_far_above_every_round_is_bounded_not_computed() -> None:
    # Retriggers without limit: no max win; a cap of 10,000 × bet is far in the tail, so the mean-level
    # analysis keeps the mean level and reports the cap's effect as a bound
    a = analyse(capped(10_000), level="mean")
    assert a.level == "mean"
    assert a.outcome.components["cap"] == 0 and a.outcome.method_of("cap") == "markov"
    assert 0 < a.outcome.error < NEGLIGIBLE
    uncapped = analyse(capped(10_000).without_feature("cap"), level="mean")
    assert a.rtp() == uncapped.rtp()
    section = dict(next(s for s in a.sections if s.name == "Cap").figures)
    assert section["RTP removed by the cap ≤ (bound)"].value == pytest.approx(a.outcome.error, rel=1e-12)
    from mathkit.checks import run_checks

    (cap_check,) = [c for c in run_checks(capped(10_000)) if c.name == "cap"]
    assert cap_check.passed, cap_check.detail


def test_a_cap_within_reach_is_computed_from_the_distribution() -> None:
    # a cap of 20 × bet is reached often: the bound is not negligible, the distribution is used
    a = analyse(capped(20), level="mean")
    assert a.level == "distribution"
    assert a.outcome.components["cap"] < 0
