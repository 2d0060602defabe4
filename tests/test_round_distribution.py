"""The whole-round win distribution with parts left to the simulator (``Outcome.uncovered``), by hand.

Each law below is derived in the comments from the toy games' data (their strips read by eye), not
from the engine: the re-spins toy of :mod:`test_respins` (its free spins entered after re-spins,
the final chance's coins), the overlay toy of :mod:`test_free_spin_games` with its overlay left
uncovered, and a sticky free-spin game (a block that answers its moments only).  Every outcome is
checked for the identity the mixing relies on: ``Σ w·P(w) + Σ u.mean = E[W]`` and mass
``1 − Σ u.probability``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_free_spin_games import samurai
from test_respins import toy

from mathkit.features.overlay_wilds import OverlayType, OverlayWilds
from mathkit.laws.law import WinLaw
from mathkit.laws.stage import Outcome
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, Symbol
from mathkit.round import analyse, compose


def law_of(outcome: Outcome) -> dict[int, float]:
    assert outcome.dist is not None
    return dict(zip(outcome.dist.values.tolist(), outcome.dist.probs.tolist(), strict=True))


def check_identity(outcome: Outcome) -> None:
    """The covered part's mass and mean, with the uncovered parts', make up the round."""
    assert outcome.dist is not None
    mass = math.fsum(outcome.dist.probs.tolist())
    covered = math.fsum((outcome.dist.values * outcome.dist.probs).tolist())
    assert mass == pytest.approx(1 - float(sum(u.probability for u in outcome.uncovered)), abs=1e-13)
    assert covered + sum(float(u.mean) for u in outcome.uncovered) == pytest.approx(float(outcome.mean), rel=1e-12)


def test_respins_then_free_spins_distribution_by_hand() -> None:
    # The toy (see test_respins.test_toy_round_by_hand): base stops 0..7 of one 4-row reel, row 0 paid 2 for A.
    # Stop 0 (X Y A A): trigger, line 0; stops 6, 7 (A A X Y, A X Y A): trigger, line 2; stop 1: 0; stops 2–5: 2.
    # After a trigger F (either type alike): grown (1/4) → 3 held (7/8): one free spin, 2; 4 held (1/8): two, 4;
    # not grown (3/4) → coins 3 (1/2), or a scatter: 3 held, one spin, 2 (1/2).
    # P(F = 2) = 7/32 + 12/32 = 19/32, P(F = 3) = 12/32, P(F = 4) = 1/32.
    f = {2: Fraction(19, 32), 3: Fraction(12, 32), 4: Fraction(1, 32)}
    want: dict[int, Fraction] = {0: Fraction(1, 8), 2: Fraction(4, 8)}
    for base, p in ((0, Fraction(1, 8)), (2, Fraction(2, 8))):
        for w, q in f.items():
            want[base + w] = want.get(base + w, Fraction(0)) + p * q
    a = analyse(toy(), level="distribution")
    assert a.outcome.uncovered == ()
    assert law_of(a.outcome) == pytest.approx({k: float(v) for k, v in want.items()}, rel=1e-12)
    assert sum(k * v for k, v in want.items()) == a.outcome.mean == Fraction(309, 128)
    check_identity(a.outcome)


def overlay_toy(probability: Fraction = Fraction(1, 5)) -> Game:
    """2 reels × 1 row (see test_free_spin_games.test_overlay_round_by_hand)."""
    ow = OverlayWilds(name="overlay_wilds", probability=probability, reels="overlay", symbol="W",
                      types=(OverlayType("one", 1, "cells", (1, 2), counts=((1, 1),)),))
    return Game("overlay toy", (Symbol("A"), Symbol("B"), Symbol("W", "wild", ("A", "B"))),
                (ReelSet("base", (("A", "B"), ("A", "B")), (1, 1)), ReelSet("overlay", (("A", "B"), ("B", "B")), (1, 1))),
                (PayEntry("A", ("A",), ((2, (10,)),)), PayEntry("B", ("B",), ((2, (2,)),))), Bet(1),
                paylines=((0, 0),), features=(ow,))


def test_an_overlay_with_many_placements_is_left_uncovered(monkeypatch: pytest.MonkeyPatch) -> None:
    # base spins (4/5) pay 0 (1/2), 2 (1/4), 10 (1/4); the overlay spins (1/5, 2 placements) pay 2 (3/4), 10 (1/4):
    # mean 4, so they add 4/5 to the round's mean.
    exact = analyse(overlay_toy(), level="distribution").outcome
    assert exact.uncovered == ()
    assert law_of(exact) == pytest.approx({0: 2 / 5, 2: 7 / 20, 10: 1 / 4}, rel=1e-12)
    monkeypatch.setattr(compose, "OVERLAY_ENUMERATIONS", 1)
    out = analyse(overlay_toy(), level="distribution").outcome
    assert [(u.route, u.probability, u.mean) for u in out.uncovered] == [
        ("variant:overlay wilds: one", Fraction(1, 5), Fraction(4, 5))]
    assert law_of(out) == pytest.approx({0: 2 / 5, 2: 1 / 5, 10: 1 / 5}, rel=1e-12)
    assert out.mean == Fraction(16, 5) and out.m2 == exact.m2
    check_identity(out)


def test_a_block_answering_its_moments_only_is_left_uncovered() -> None:
    # The samurai toy: 2 reels × 1 row, reels A R / A B R (each stop alike); R the trigger (min 1) starts 2 sticky
    # free spins.  Base windows: A A pays 4 (1/6), A B pays 0 (1/6); an R shows in the other 4/6 (its line pays 0),
    # and the round enters the sticky spins: those rounds are uncovered, their mean the round's less 4·1/6.
    game, _ = samurai()
    out = analyse(game, level="distribution").outcome
    (u,) = out.uncovered
    assert u.route == "feature:samurai" and u.probability == Fraction(4, 6)
    assert law_of(out) == pytest.approx({0: 1 / 6, 4: 1 / 6}, rel=1e-12)
    moments = analyse(game, level="moments").outcome
    assert out.mean == moments.mean and out.m2 == moments.m2
    assert u.mean == moments.mean - Fraction(4, 6)
    check_identity(out)
    # nothing reports the sub-distribution as the whole round's law
    from mathkit.errors import ModelError
    from mathkit.report.par import build_par, sheet_level
    from mathkit.sessions.law import play_law

    assert sheet_level(game) == "moments"
    with pytest.raises(ModelError, match="distribution"):
        build_par(game)
    with pytest.raises(ModelError, match="feature:samurai"):
        play_law(game)


def test_the_cap_on_a_mixed_distribution_by_hand() -> None:
    # covered rounds (mass 0.7): 0 (0.5), 30 (0.2); the rest (0.3) sampled: 60 (1/3), 300 (2/3); bet 10, cap 100.
    # Whole law: 0 .5, 30 .2, 60 .1, 300 .2; mean 6 + 6 + 60 = 72 (7.2× bet).  Capped: 300 → 100:
    # mean 32 (3.2× bet), P(cap) = 0.2, RTP lost (300 − 100)·0.2 / 10 = 4.
    part = WinLaw.from_probs([0, 30], [0.5, 0.2], method="exact")
    rest = WinLaw.from_probs([60, 300], [1 / 3, 2 / 3], method="sampled")
    whole = WinLaw.mixture([(1, part), (0.3, rest)], unit=10)
    assert float(whole.rtp()) == pytest.approx(7.2, rel=1e-14)
    e = whole.cap_effect(100)
    assert e.capped.values.tolist() == [0, 30, 60, 100]
    assert float(e.p_cap) == pytest.approx(0.2, rel=1e-14)
    assert float(e.rtp_lost) == pytest.approx(4.0, rel=1e-14)
    assert float(e.capped.rtp()) == pytest.approx(3.2, rel=1e-14)
    assert e.capped.method == "sampled"


# ----------------------------------------------------------------------------- re-spins: brute force
SYMBOLS = ("X", "Y", "A", "B")
PAYS = {"A": 2, "B": 5}  # two of a kind on the one line (row 0 of both reels)


def respin_game(base: tuple[str, str], respin: tuple[str, str], free: tuple[str, str], awards: tuple[int, int]) -> Game:
    """2 reels × 2 rows; scatters X, Y; re-spins from 2, free spins (fx, fy) from 3; final chance coins 3 or 5."""
    from mathkit.features.final_chance import FinalChance
    from mathkit.features.free_spins import FreeSpins
    from mathkit.features.scatter_respins import ScatterRespins

    def fs(name: str, trigger: str) -> FreeSpins:
        return FreeSpins(name=name, trigger=trigger, awards=((3, awards[0]), (4, awards[1])), reels="free",
                         from_feature="respins")

    return Game(
        name="re-spin brute toy",
        symbols=(Symbol("X", "scatter"), Symbol("Y", "scatter"), Symbol("A"), Symbol("B")),
        reel_sets=(ReelSet("base", tuple(tuple(s) for s in base), (2, 2)),
                   ReelSet("respin", tuple(tuple(s) for s in respin), (2, 2)),
                   ReelSet("free", tuple(tuple(s) for s in free), (2, 2))),
        line_pays=tuple(PayEntry(s, (s,), ((2, (v,)),)) for s, v in PAYS.items()),
        bet=Bet(1), paylines=((0, 0),),
        features=(ScatterRespins(name="respins", scatters=("X", "Y"), free_spins=(("X", "fx"), ("Y", "fy")),
                                 reels="respin", final_chance=FinalChance(((3, 1), (5, 1)), 2, (1, 2))),
                  fs("fx", "X"), fs("fy", "Y")),
    )


def brute_round(base: tuple[str, str], respin: tuple[str, str], free: tuple[str, str],
                awards: tuple[int, int]) -> dict[int, Fraction]:
    """The round's law played from the rules (see the readings of warlords.toml), every stop alike."""
    from functools import cache

    def window(strips: tuple[str, str], stops: tuple[int, int]) -> dict[tuple[int, int], str]:
        return {(r, k): strips[r][(stops[r] + k) % len(strips[r])] for r in range(2) for k in range(2)}

    def stops(strips: tuple[str, str]) -> list[tuple[tuple[int, int], Fraction]]:
        n = len(strips[0]) * len(strips[1])
        return [((a, b), Fraction(1, n)) for a in range(len(strips[0])) for b in range(len(strips[1]))]

    def line(w: dict[tuple[int, int], str]) -> int:
        return PAYS.get(w[(0, 0)], 0) if w[(0, 0)] == w[(1, 0)] else 0

    def add(out: dict[int, Fraction], law: dict[int, Fraction], p: Fraction, shift: int = 0) -> None:
        for v, q in law.items():
            out[v + shift] = out.get(v + shift, Fraction(0)) + p * q

    def spins(n: int) -> dict[int, Fraction]:
        law = {0: Fraction(1)}
        for _ in range(n):
            nxt: dict[int, Fraction] = {}
            for at, p in stops(free):
                add(nxt, law, p, line(window(free, at)))
            law = nxt
        return law

    def free_law(n: int) -> dict[int, Fraction]:
        return spins(awards[0] if n == 3 else awards[1])

    @cache
    def respins(t: str, held: frozenset[tuple[int, int]], started: int) -> tuple[tuple[int, Fraction], ...]:
        out: dict[int, Fraction] = {}
        ends: dict[frozenset[tuple[int, int]], Fraction] = {}
        for at, p in stops(respin):
            w = window(respin, at)
            new = frozenset(c for c, s in w.items() if c not in held and s == t)
            if new:
                for v, q in respins(t, held | new, started):
                    out[v] = out.get(v, Fraction(0)) + p * q
            else:
                ends[held] = ends.get(held, Fraction(0)) + p
        for h, p in ends.items():
            if len(h) >= 3:
                add(out, free_law(len(h)), p)
            else:  # the final chance: coins 3 or 5 (weight 1 each), or a scatter on one of the 2 free cells (weight 2)
                add(out, {3: Fraction(1, 2), 5: Fraction(1, 2)}, p / 2)
                add(out, free_law(3), p / 2)
        return tuple(out.items())

    def battle(types: list[str]) -> dict[str, Fraction]:
        kinds = sorted(set(types))
        if len(kinds) == 1:
            return {kinds[0]: Fraction(1)}
        if len(types) == 2 or len(kinds) == 3:
            return {k: Fraction(1, len(kinds)) for k in kinds}
        pair = max(kinds, key=types.count)
        return {k: Fraction(3, 4) if k == pair else Fraction(1, 4) for k in kinds}

    out: dict[int, Fraction] = {}
    for at, p in stops(base):
        w = window(base, at)
        win = line(w)
        cells = [(c, s) for c, s in w.items() if s in ("X", "Y")]
        if len(cells) < 2:
            add(out, {0: Fraction(1)}, p, win)
            continue
        for t, q in battle([s for _, s in cells]).items():
            add(out, dict(respins(t, frozenset(c for c, _ in cells), len(cells))), p * q, win)
    return {v: q for v, q in out.items() if q}


strip = st.lists(st.sampled_from(SYMBOLS), min_size=2, max_size=5).map("".join)
plain = st.lists(st.sampled_from(("A", "B", "A")), min_size=2, max_size=4).map("".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.tuples(strip, strip), respin=st.tuples(strip, strip), free=st.tuples(plain, plain),
       awards=st.tuples(st.integers(1, 2), st.integers(1, 3)))
def test_respin_round_distribution_equals_brute_force(base: tuple[str, str], respin: tuple[str, str],
                                                      free: tuple[str, str], awards: tuple[int, int]) -> None:
    from mathkit.errors import GameError
    from mathkit.model.validate import validate_game

    game = respin_game(base, respin, free, awards)
    try:
        validate_game(game)
    except GameError:
        assume(False)
    want = brute_round(base, respin, free, awards)
    out = analyse(game, level="distribution").outcome
    assert out.uncovered == ()
    assert out.mean == sum(v * q for v, q in want.items())
    got = law_of(out)
    assert sorted(got) == sorted(want)
    assert got == pytest.approx({v: float(q) for v, q in want.items()}, rel=1e-9, abs=1e-15)
    check_identity(out)
