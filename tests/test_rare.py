"""Importance sampling of a rare route (mathkit/round/rare.py) and the weighted estimator of the mixture.

The weighted estimator's interval is checked on a toy whose tail is known exactly (a binomial, tilted by a
defensive mixture with exact likelihood ratios): the interval must cover the exact value, seed after seed.
Warlords' Samurai route is checked piece by piece against independent figures: the starts' probabilities add
up to the route's exact probability, the free-spin kernel played one spin from a fixed sticky mask against the
exact enumeration of that spin (the engine's joint law), and the importance-sampled mean of the route's win
against its exact mean (the composer's, from per-line tables).
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from mathkit.laws.mixture import MIN_WEIGHTED_HITS, RoundPart, RouteSample, mix

ROOT = Path(__file__).resolve().parents[1]
Z999 = 3.2905267314919255  # the two-sided 99.9% normal quantile


def binom_tail(n: int, p: float, k: int) -> float:
    return math.fsum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))


def binom_pmf(n: int, p: float) -> np.ndarray:
    return np.array([math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(n + 1)])


def tilted_sample(seed: int, draws: int, *, weighted: bool = True) -> RouteSample:
    # the route: X ~ Binomial(40, 0.1), the win 10·X credits; drawn from q = ½·Bin(40, 0.1) + ½·Bin(40, 0.3), w = p/q ≤ 2
    rng = np.random.default_rng(seed)
    p, q1 = binom_pmf(40, 0.1), binom_pmf(40, 0.3)
    q = 0.5 * p + 0.5 * q1
    x = np.where(rng.random(draws) < 0.5, rng.binomial(40, 0.1, draws), rng.binomial(40, 0.3, draws))
    w = p[x] / q[x] if weighted else np.ones(draws)
    values, inv = np.unique(10 * x, return_inverse=True)
    counts = np.bincount(inv, minlength=len(values))
    return RouteSample("feature:toy", tuple(int(v) for v in values), tuple(int(c) for c in counts), draws, draws, seed,
                       "importance sampling (toy)", weights=tuple(np.bincount(inv, weights=w).tolist()),
                       weights2=tuple(np.bincount(inv, weights=w * w).tolist()), weight_bound=2.0)


def test_the_weighted_interval_covers_a_tail_known_exactly() -> None:
    # bet 10: P(W ≥ 10× bet) = P(X ≥ 10) ≈ 5.3·10⁻³ (resolved), P(W ≥ 100× bet) = P(X ≥ 100): 0 (never hit, a bound)
    exact = RoundPart((0,), (0.5,), (Fraction(1, 2),))
    truth = 0.5 * binom_tail(40, 0.1, 10)
    missed = 0
    for seed in range(30):
        m = mix(exact, (("feature:toy", Fraction(1, 2)),), {"feature:toy": tilted_sample(seed, 20_000)}, bet=10)
        e = m.figures["p_win_ge_10x"]
        missed += not (e.low <= truth <= e.high)
        assert not e.interval and (e.high - e.low) / 2 <= 0.10 * e.value  # resolved: the tilt puts ~1/3 of draws there
        assert sum(b.probability.value for b in m.bands) == pytest.approx(1, abs=1e-12)  # self-normalised: sums to 1
    assert missed <= 2  # 99% intervals: P(3 or more misses in 30) < 4·10⁻³
    # the planted bug: the tilted draws counted as if untilted (weights 1) — the interval misses the exact value
    m = mix(exact, (("feature:toy", Fraction(1, 2)),), {"feature:toy": tilted_sample(0, 20_000, weighted=False)},
            bet=10)
    assert m.figures["p_win_ge_10x"].low > truth


def test_few_weighted_hits_give_the_ratio_bound_never_a_point() -> None:
    # the win 100·X, bet 24: P(W ≥ 100× bet) = P(X ≥ 24) ≈ 2·10⁻¹⁰ — a handful of the tilted draws at most, fewer than
    # MIN_WEIGHTED_HITS: the figure is the interval [0, 2 × Wilson upper end of the hits], never a point
    exact = RoundPart((0,), (0.5,), (Fraction(1, 2),))
    truth = 0.5 * binom_tail(40, 0.1, 24)
    for seed in range(10):
        s = tilted_sample(seed, 20_000)
        s = replace(s, values=tuple(v * 10 for v in s.values))
        hits = sum(c for v, c in zip(s.values, s.counts, strict=True) if v >= 2400)
        assert hits < MIN_WEIGHTED_HITS
        m = mix(exact, (("feature:toy", Fraction(1, 2)),), {"feature:toy": s}, bet=24)
        e = m.figures["p_win_ge_100x"]
        assert e.interval and e.point is None and e.low == 0 and truth <= e.high
        assert not m.figures["p_win_ge_10x"].interval  # X ≥ 3: resolved


def test_a_route_adds_nothing_above_its_proven_top() -> None:
    exact = RoundPart((0, 5000), (0.5, 0.25), (Fraction(1, 2), Fraction(1, 4)))
    s = RouteSample("variant:x", (0, 40), (60, 40), 100, 100, 1, "hand-built")
    m = mix(exact, (("variant:x", Fraction(1, 4)),), {"variant:x": replace(s, top=400)}, bet=10)
    e = m.figures["p_win_ge_1000x"]  # 10,000 credits: the exact part has none, the route cannot reach it
    assert e.value == e.low == e.high == 0 and e.exact == 0 and e.method == "exact"
    e = m.figures["p_win_ge_100x"]  # 1,000 credits: the exact 1/4 alone, exactly
    assert e.exact == Fraction(1, 4) and not e.interval
    m = mix(exact, (("variant:x", Fraction(1, 4)),), {"variant:x": s}, bet=10)  # no top: never seen, an interval
    assert m.figures["p_win_ge_1000x"].interval


@pytest.fixture(scope="module")
def warlords():  # type: ignore[no-untyped-def]
    from mathkit.gamefile.io import load_game
    from mathkit.round import analyse
    from mathkit.round.rare import rare_route

    game = load_game(ROOT / "data" / "games" / "warlords.toml")
    a = analyse(game, level="distribution")
    return game, a, rare_route(a, "feature:samurai")


def test_the_sticky_kernel_plays_one_spin_as_the_enumeration_counts(warlords) -> None:  # type: ignore[no-untyped-def]
    from mathkit.round.rare import sticky_wins

    game, a, rr = warlords
    one = replace(rr.feature, spins=1)
    for cells in (((1, 0), (2, 1), (3, 2)), tuple((r, k) for r in (0, 1, 2, 3) for k in range(3))):
        mask = sum(1 << (3 * r + k) for r, k in cells)
        j = a.engine.joint(one.model(cells), ())
        wins, counts = np.asarray(j.wins), np.asarray(j.counts, dtype=np.float64)
        mean = float((wins * counts).sum() / j.cycle)
        sd = math.sqrt(float((wins * wins * counts).sum() / j.cycle) - mean * mean)
        got = sticky_wins(game, one, np.full(200_000, mask, dtype=np.int64), seed=11)
        assert abs(got.mean() - mean) <= Z999 * sd / math.sqrt(len(got))
        for t in (int(wins[len(wins) // 2]), int(wins.max())):  # a middle win value and the largest
            p = float(counts[wins >= t].sum() / j.cycle)
            k = int((got >= t).sum())
            assert abs(k / len(got) - p) <= Z999 * math.sqrt(p * (1 - p) / len(got)) + 1e-12, (cells, t)


def test_the_samurai_route_by_importance_sampling_holds_its_exact_mean(warlords) -> None:  # type: ignore[no-untyped-def]
    from mathkit.round.rare import sample_rare

    game, a, rr = warlords
    u = next(u for u in a.uncapped.uncovered if u.route == "feature:samurai")
    assert rr is not None and rr.probability == u.probability == Fraction(40873459, 12101040000)
    assert math.fsum(p for p, _ in rr.starts) == pytest.approx(float(u.probability), rel=1e-12)
    assert all(law.sum() == pytest.approx(1) for _, law in rr.starts)
    s = sample_rare(game, rr, 100_000, seed=4)
    v, w1, w2 = np.array(s.values, dtype=np.float64), np.array(s.weights), np.array(s.weights2)
    wt = w1.sum()
    mean = (v * w1).sum() / wt
    se = math.sqrt(((v * v * w2).sum() - 2 * mean * (v * w2).sum() + mean * mean * w2.sum()) / wt**2)
    exact = float(u.mean / u.probability)  # credits, the round's win given the route
    assert abs(mean - exact) <= Z999 * se
    assert abs(wt / s.draws - 1) <= Z999 * math.sqrt(w2.sum() / s.draws - (wt / s.draws) ** 2) / math.sqrt(s.draws)
    assert max(w for w in (w2 / np.maximum(s.counts, 1)).tolist()) <= 4.0 + 1e-9  # every ratio ≤ 2
    assert sample_rare(game, rr, 1000, seed=4) == sample_rare(game, rr, 1000, seed=4)


def test_the_routes_proven_tops(warlords) -> None:  # type: ignore[no-untyped-def]
    # by hand: an overlay spin pays at most every one of its 30 lines at BARBARIAN ×5 = 500 coins (15,000 credits,
    # 500× bet): no overlay round reaches 1000× bet; Samurai's 5 spins at most 5 × 15,000 after a base spin that
    # pays less than 25,000 (the cap, 100,000 credits, out of reach)
    _, a, _ = warlords
    tops = {u.route: u.top for u in a.uncapped.uncovered}
    assert tops["variant:overlay wilds: Priestess Arrow"] == tops["variant:overlay wilds: Samurai Sword"] == 15_000
    assert 75_000 < tops["feature:samurai"] < 100_000
