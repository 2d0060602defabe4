"""Tests of mathkit.chains.freespins against answers derived by hand (derivations in the comments)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pytest

from mathkit.chains.freespins import (
    FreeSpinChain,
    SpinLaw,
    expected_spins_limited,
    feature_distribution,
    play_distribution,
    retrigger_rule,
)
from mathkit.errors import ModelError
from mathkit.features.cap import Cap
from mathkit.features.free_spins import FreeSpins
from mathkit.gamefile.io import load_game, loads_game
from mathkit.model.game import Game
from mathkit.round import Engine, analyse, rtp_breakdown

EMPEROR = FreeSpins(name="free_spins", trigger="EMPEROR", awards=((3, 10),), reels="free", retriggers=((3, 10),),
                    multiplier=2)


def trigger_law(game: Game) -> SpinLaw:
    """The base spin's law of (win, spins awarded), from the free-spin block and the engine."""
    fs = game.feature("free_spins")
    assert isinstance(fs, FreeSpins)
    return fs.trigger_law(Engine(game))


def independent_law(q: F, add: int) -> SpinLaw:
    """A spin wins 0 or 10 (1/2 each); independently it adds ``add`` spins with probability ``q``."""
    d = q.denominator
    return SpinLaw.of([0, 10, 0, 10], [0, 0, add, add], [d - q.numerator, d - q.numerator, q.numerator, q.numerator])


def test_one_added_spin_replaces_the_spin_played() -> None:
    # Adding 1 spin with probability q = 1/5 puts back the spin just played: from n spins the
    # length is a sum of n geometric counts of trials, E = n/(1-q) = 10·5/4 = 25/2 and
    # Var = n·q/(1-q)² = 10·(1/5)·(25/16) = 25/8.  X (mean 5, variance 25) is independent of the
    # length, so E[W] = 25/2·5 = 125/2 and Var W = E[N]·Var X + Var N·E[X]² = 625/2 + 625/8 = 3125/8.
    chain = FreeSpinChain((independent_law(F(1, 5), 1),), rule="1 spin added")
    assert chain.m == F(1, 5)
    for by_chain in (False, True):  # closed forms, then the chain's exact solve (spins left never exceed 10)
        mo = chain.moments(10, by_chain=by_chain, exact=True)
        assert (mo.mean_spins, mo.var_spins, mo.mean_win, mo.var_win) == (F(25, 2), F(25, 8), F(125, 2), F(3125, 8))
    rc = chain.reward_chain(10)
    start = chain.start(10)
    assert rc.expected_steps(start, exact=True) == F(25, 2)
    assert rc.expected_reward(start, exact=True) == F(125, 2)
    assert rc.reward_variance(start, exact=True) == F(3125, 8)


def test_geometric_length_is_n_over_one_minus_m() -> None:
    # 5 spins added with probability 1/10: m = 1/2, E[N | 10] = 10/(1 - 1/2) = 20 and E[W] = 20·5 = 100.
    # One spin's subtree N₁ = 1 + Σ_{j≤A} N₁⁽ʲ⁾: Var N₁ = Var A·E[N₁]²/(1 - m) with Var A = 5/2 - 1/4 = 9/4,
    # E[N₁] = 2, so Var N₁ = 18 and Var N₁₀ = 180; Var W = E[N]·25 + Var N·25 = 500 + 4500 = 5000.
    chain = FreeSpinChain((independent_law(F(1, 10), 5),), rule="5 spins added")
    mo = chain.moments(10)
    assert (mo.mean_spins, mo.var_spins, mo.mean_win, mo.var_win) == (20, 180, 100, 5000)
    # the chain itself, cut at 300 spins left, in float64: the cut leaves out far less than 1e-12
    assert chain.overflow(10, max_left=300) < 1e-12
    fl = chain.moments(10, by_chain=True, exact=False, max_left=300)
    assert fl.mean_spins == pytest.approx(20, rel=1e-12)
    assert fl.mean_win == pytest.approx(100, rel=1e-12)
    assert fl.var_spins == pytest.approx(180, rel=1e-10)
    assert fl.var_win == pytest.approx(5000, rel=1e-10)


def two_level_chain(max_spins: int | None) -> FreeSpinChain:
    # Level 0 (×1): wins 0 or 2; a retrigger adds 3 spins and moves to level 1.
    # Level 1 (×2): wins 0 or 4; a retrigger adds 3 spins and stays.
    lv0 = SpinLaw.of([0, 2, 2], [0, 0, 3], [3, 2, 1], level=[0, 0, 1])
    lv1 = SpinLaw.of([0, 4, 4], [0, 0, 3], [3, 2, 1], level=[1, 1, 1])
    return FreeSpinChain((lv0, lv1), max_spins=max_spins, rule="3 spins added")


def test_fraction_and_float_agree() -> None:
    # Limited chains are finite: the exact solve is exact; the float solve must agree.
    for chain in (two_level_chain(30), two_level_chain(None)):
        ex = chain.moments(4, exact=True, max_left=40)
        fl = chain.moments(4, exact=False, max_left=40)
        for a, b in ((ex.mean_win, fl.mean_win), (ex.var_win, fl.var_win), (ex.mean_spins, fl.mean_spins),
                     (ex.var_spins, fl.var_spins)):
            assert isinstance(a, F)
            assert isinstance(b, float)
            assert b == pytest.approx(float(a), rel=1e-12)
    # ... and the outcome-by-outcome RewardChain (markov.py's own solves) gives the same exact answers
    chain = two_level_chain(30)
    rc = chain.reward_chain(4)
    ex = chain.moments(4, exact=True)
    assert rc.expected_reward(chain.start(4), exact=True) == ex.mean_win
    assert rc.expected_steps(chain.start(4), exact=True) == ex.mean_spins
    assert rc.reward_variance(chain.start(4), exact=True) == ex.var_win


def test_a_feature_that_never_ends_is_refused() -> None:
    # P(3+ Emperors) = 13/125 = 0.104 per spin, adding 10: m = 1.04 ≥ 1.
    law = SpinLaw.of([0, 50], [0, 10], [112, 13])
    rule = retrigger_rule(EMPEROR.trigger, EMPEROR.retriggers, 1 - law.p_added(0))
    with pytest.raises(ModelError) as err:
        FreeSpinChain((law,), rule=rule)
    assert str(err.value) == ("3+ EMPEROR add 10 spins with probability 0.104 per spin: 1.04 added spins per spin "
                              "≥ 1, the feature never ends on average")
    # with a limit on the spins of one feature it ends: at most 100 spins
    limited = FreeSpinChain((law,), max_spins=100, rule=rule)
    assert 10 < limited.moments(10).mean_spins <= 100


def test_the_game_file_route_refuses_too() -> None:
    # The small Dynasty with Emperors on every stop of reels 1, 3 and 5 of the free reels: every
    # free spin retriggers (m = 10).
    text = Path("data/games/dynasty_small.toml").read_text(encoding="utf-8")
    free = text[text.index("[reels.free]"):text.index("[paytable]")]
    strips = ['  "EMPEROR EMPEROR EMPEROR",', '  "SEAL SEAL SEAL NINE VASE DRAGON NINE VASE",', '  "EMPEROR EMPEROR EMPEROR",',
              '  "VASE NINE SEAL SEAL SEAL DRAGON NINE VASE",', '  "EMPEROR EMPEROR EMPEROR",']
    new = "[reels.free]\nrows = 3\nstrips = [\n" + "\n".join(strips) + "\n]\n\n"
    g = loads_game(text.replace(free, new))
    # the error names the feature it is about
    with pytest.raises(ModelError, match=r"^free_spins: 3\+ EMPEROR add 10 spins with probability 1 per spin: 10 added "
                                         r"spins per spin ≥ 1, the feature never ends on average$"):
        rtp_breakdown(g)


def test_kemperman_length_law_by_hand() -> None:
    # From 1 spin, a spin adds 2 with probability q.  N = 1: the spin does not retrigger, 1 - q.
    # N = 3: R N N, q(1-q)².  N = 5 with 2 retriggers: R R N N N and R N R N N only (R N N R ... ends at 3),
    # 2 q²(1-q)³ — Kemperman's (1/5)·C(5, 2) q²(1-q)³.
    q = F(1, 7)
    law = SpinLaw.of([0, 0], [0, 2], [6, 1])
    chain = FreeSpinChain((law,), rule="2 added")
    terms = chain.length_law(1, F(1, 10**6))
    got = {t: p for p, _, t in terms}
    assert got[1] == 1 - q
    assert got[3] == q * (1 - q) ** 2
    assert got[5] == 2 * q**2 * (1 - q) ** 3
    assert chain.survival(1, 1) == pytest.approx(float(q), rel=1e-15)
    assert chain.survival((3, 5), 1) == pytest.approx(
        (float(1 - got[1] - got[3]), float(1 - got[1] - got[3] - got[5])), rel=1e-13)


def test_limited_spins_by_hand() -> None:
    # A spin adds 5 with probability 1/2; at most 12 spins in all; 10 awarded.  The first retrigger
    # brings the award to 12 and no more can be added, so N = 12 unless none of the 10 spins
    # retriggers (2^-10): E[N] = 12 - 2/1024 = 6143/512.
    p = {0: F(1, 2), 5: F(1, 2)}
    assert expected_spins_limited(p, 10, 12) == F(6143, 512)
    law = SpinLaw.of([0, 0], [0, 5], [1, 1])
    assert FreeSpinChain((law,), max_spins=12).moments(10).mean_spins == F(6143, 512)


def test_play_distribution_against_the_chain() -> None:
    # Base: wins 0, 3 or 8; 8 comes with 4 spins awarded (weights 5, 3, 2).  Free spins: wins 0/10,
    # +3 spins with probability 1/10 (m = 3/10).  The FFT route (Kemperman's mixes) must agree with
    # markov.RewardChain.total_reward_distribution convolved with the base win, value by value.
    trigger = SpinLaw.of([0, 3, 8], [0, 0, 4], [5, 3, 2])
    chain = FreeSpinChain((independent_law(F(1, 10), 3),), rule="3 added")
    play, feature = play_distribution(trigger, chain, tol=1e-14)
    assert play.lost_mass <= 1e-12
    ref = chain.reward_chain(4).total_reward_distribution(chain.start(4), tol=1e-15)
    expect: dict[int, float] = {0: 0.5, 3: 0.3}
    for v, p in zip(ref.values.tolist(), ref.probs.tolist(), strict=True):
        expect[v + 8] = expect.get(v + 8, 0.0) + 0.2 * p
    got = dict(zip(play.values.tolist(), play.probs.tolist(), strict=True))
    assert max(abs(got.get(v, 0.0) - expect.get(v, 0.0)) for v in set(got) | set(expect)) < 1e-13
    # the exact mean: 0.3·3 + 0.2·(8 + 4·5/(1 - 3/10)) = 0.9 + 0.2·(8 + 200/7)
    mean = float(np.dot(play.values, play.probs))
    assert mean == pytest.approx(0.9 + 0.2 * (8 + 200 / 7), rel=1e-12)
    assert float(np.dot(feature.values, feature.probs)) == pytest.approx(200 / 7, rel=1e-12)


def test_fast_rtp_equals_the_enumerated_one() -> None:
    # the mean level uses per-reel algebra only; the moments level the full-cycle joint law and the chain.
    g = load_game("data/games/dynasty_small.toml")
    fast = rtp_breakdown(g)
    slow = analyse(g, level="moments").breakdown()
    assert fast == slow
    assert all(isinstance(v, F) for v in slow.values())
    for lines in (1, 3):
        assert rtp_breakdown(g, lines=lines) == fast  # every line has the same RTP


def test_limited_feature_distribution_by_the_chain() -> None:
    # With a spin limit the closed forms do not apply: the distribution comes from the chain
    # outcome by outcome, and its mean is the chain's exact mean.
    trigger = SpinLaw.of([0, 3, 8], [0, 0, 4], [5, 3, 2])
    chain = FreeSpinChain((independent_law(F(1, 10), 3),), max_spins=9, rule="3 added")
    assert not chain.closed_form
    play, feature = play_distribution(trigger, chain, tol=1e-14)
    mo = chain.moments(4)
    assert isinstance(mo.mean_win, F)
    assert float(np.dot(feature.values, feature.probs)) == pytest.approx(float(mo.mean_win), rel=1e-12)
    assert float(np.dot(play.values, play.probs)) == pytest.approx(0.9 + 0.2 * (8 + float(mo.mean_win)), rel=1e-12)
    assert int(feature.values.max()) <= 9 * 10  # at most 9 spins of at most 10


def test_cap_applies_to_the_whole_play() -> None:
    # The small Dynasty capped at 20× bet (100 credits): the RTP loses E[(play - 100)+] / bet,
    # read off the play's distribution before the cap.
    g = load_game("data/games/dynasty_small.toml")
    free_play = analyse(g).outcome.dist
    assert free_play is not None
    capped = analyse(g.with_features(Cap(name="cap", multiple=F(20))))
    v, p = free_play.values, free_play.probs
    loss = float(np.dot(np.maximum(v - 100, 0), p)) / 5
    assert float(capped.breakdown()["cap"]) == pytest.approx(-loss, rel=1e-12)
    assert capped.outcome.dist is not None and int(capped.outcome.dist.values.max()) == 100
    assert [s.name for s in capped.sections] == ["Free spins", "Gamble", "Cap"]


def test_trigger_without_scatter_pays_is_still_counted() -> None:
    # Taking the Emperor's pays away changes no trigger: P(3+ Emperors) on the base reels is a
    # property of the strips alone, so the base-game trigger law keeps the same P(award).
    game = load_game("data/games/dynasty_small.toml")
    silent = dataclasses.replace(game, scatter_pays=())
    law = trigger_law(game)
    law_silent = trigger_law(silent)
    award = EMPEROR.award(game.n_reels)
    assert law.p_added(award) == law_silent.p_added(award) > 0


def test_the_fft_grid_stops_where_the_tail_is_below_round_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rare jackpot: the grid reaches far less than every spin a jackpot, and the law is the full grid's."""
    from mathkit.chains.freespins import distribution

    law = SpinLaw.of([0, 5, 20, 50_000, 0], [0, 0, 0, 0, 10], [600, 300, 80, 1, 19])
    chain = FreeSpinChain((law,))
    terms = chain.length_law(10, F(1e-13))
    top = max(t for _, _, t in terms) * 50_000
    reach, wrapped = distribution._reach(law, terms, top, 5, 1e-16)
    assert reach < top / 20 and 0 < wrapped < 1e-16
    short = feature_distribution(chain, 10)
    monkeypatch.setattr(distribution, "WRAP", 0.0)  # the grid reaches the largest win: nothing wraps
    full = feature_distribution(chain, 10)
    grid = max(int(short.values.max()), int(full.values.max())) + 1
    a, b = np.zeros(grid), np.zeros(grid)
    a[short.values], b[full.values] = short.probs, full.probs
    assert np.abs(a - b).max() <= 1e-15  # both FFTs round off at ~eps · ‖law‖
    mean = float(np.dot(full.values, full.probs))
    assert float(np.dot(short.values, short.probs)) == pytest.approx(mean, rel=1e-11)
    # the mean by Wald: 10 spins, each adding 10 with p = 19/1000 (m = 0.19), so 10 / (1 - m) spins in all
    spins = F(10) / (1 - F(19, 100))
    assert mean == pytest.approx(float(spins * F(5 * 300 + 20 * 80 + 50_000, 1000)), rel=1e-11)
