"""Warlords' three free-spin games and the overlay wilds, by hand and against brute force.

* Barbarian (:class:`FreeSpins` entered from held cells): 3 spins per scatter, at least 9, +3 per new scatter.
* Priestess (:class:`MultiplierFreeSpins`): the multiplier starts at the number of scatters and grows
  by one per new scatter before the spin pays — the closed form against a recursion over
  (spins left, multiplier) on the brute-force spin law.
* Samurai (:class:`StickyFreeSpins`): sticky wilds — the line-table/landing formula against a recursion
  over (spins left, sticky cells) on brute-force forced spins, by hand and on random small games.
* Overlay wilds: the placements, and a round with overlays against the brute-force mixture.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from brute import brute_spin
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_engine_property import games

from mathkit.features.free_spins import FreeSpins
from mathkit.features.multiplier_spins import MultiplierFreeSpins
from mathkit.features.overlay_wilds import OverlayType, OverlayWilds
from mathkit.features.sticky_spins import StickyFreeSpins
from mathkit.laws.stage import HeldCells, SpinModel
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, ScatterPay, Symbol
from mathkit.model.validate import validate_game
from mathkit.round import Engine, analyse


# ----------------------------------------------------------------------------- Barbarian
def test_barbarian_spin_count_by_hand() -> None:
    # One reel, one row, strip B A A A: a free spin shows B with 1/4 and adds 3 spins: m = 3/4 added spins
    # per spin, so n spins awarded last n / (1 − 3/4) = 4n spins (Wald).  3 spins per scatter, at least 9.
    # A pays 1 (one of a kind): a spin pays 3/4 on average.
    fs = FreeSpins(name="barbarian", trigger="B", reels="free", from_feature="x",
                   awards=tuple((n, max(9, 3 * n)) for n in range(1, 6)), retriggers=((1, 3),))
    game = Game("barbarian toy", (Symbol("B", "scatter"), Symbol("A")),
                (ReelSet("free", (("B", "A", "A", "A"),), (1,)),), (PayEntry("A", ("A",), ((1, (1,)),)),),
                Bet(1), paylines=((0,),), default_reels="free", features=(fs,))
    eng = Engine(game)
    assert [fs.award(n) for n in (1, 2, 3, 4, 5)] == [9, 9, 9, 12, 15]
    assert fs.expected_spins(eng, 12) == 48
    law = fs.law(eng, 12, "mean")
    assert law.mean == 48 * Fraction(3, 4)
    assert law.facts == {"spins awarded": 12, "expected length": 48}
    # entered from held cells: the count of held scatters gives the award
    held = HeldCells("B", (1,), np.array([0, 1]))
    values = fs.held_values(eng, held, "mean")
    assert [values.mean[i] for i in range(2)] == [0, 36 * Fraction(3, 4)]


# ----------------------------------------------------------------------------- Priestess
def priestess() -> tuple[Game, MultiplierFreeSpins]:
    """3 reels × 1 row, reels ``A B`` / ``A A B`` / ``G A``; A {2: 1, 3: 5}, B {2: 2}; G the trigger."""
    block = MultiplierFreeSpins(name="priestess", trigger="G", spins=7, reels="p", min_count=1)
    game = Game("priestess toy", (Symbol("G", "scatter"), Symbol("A"), Symbol("B")),
                (ReelSet("p", (("A", "B"), ("A", "A", "B"), ("G", "A")), (1, 1, 1)),),
                (PayEntry("A", ("A",), ((2, (1,)), (3, (5,)))), PayEntry("B", ("B",), ((2, (2,)),))),
                Bet(1), paylines=((0, 0, 0),), default_reels="p", features=(block,))
    return game, block


def test_priestess_multiplier_by_hand() -> None:
    # A A G pays 1 with a trigger (1/2 · 2/3 · 1/2), A A A pays 5 (same odds, no trigger), B B · pays 2 (1/2 · 1/3):
    # E[X] = 1/6 + 5/6 + 1/3 = 4/3, E[c] = 1/2, E[X·c] = 1/6 · 1 + 1/12 · 2 = 1/3.
    # From multiplier m₀, S spins pay S·m₀·E[X] + E[X]·E[c]·S(S − 1)/2 + S·E[X·c]:
    # S = 7, m₀ = 3: 28 + 14 + 7/3 = 133/3.
    game, block = priestess()
    validate_game(game)
    eng = Engine(game)
    assert block.spin_figures(eng) == (Fraction(4, 3), Fraction(1, 2), Fraction(1, 3), Fraction(0))
    law = block.law(eng, (7, 3), "mean")
    assert law.mean == Fraction(133, 3)
    assert law.facts["multiplier at the end"] == 3 + Fraction(7, 2)


def test_priestess_equals_a_recursion_on_the_brute_force_spin() -> None:
    game, block = priestess()
    spin = brute_spin(game, SpinModel("p"), digits=("G",))
    outcomes = [(w, c, Fraction(n, spin.cycle)) for (w, (c,)), n in spin.joint.items()]

    @cache
    def value(left: int, m: int) -> Fraction:
        if left == 0:
            return Fraction(0)
        return sum((p * (w * (m + c) + value(left - 1, m + c)) for w, c, p in outcomes), Fraction(0))

    eng = Engine(game)
    for spins, start in ((1, 1), (3, 2), (7, 3), (7, 5)):
        assert block.mean(eng, spins, start) == value(spins, start)


def priestess_scatter_pay() -> tuple[Game, MultiplierFreeSpins]:
    """The Priestess toy with a scatter pay: one G pays 2 (× the total bet 1), never multiplied."""
    game, block = priestess()
    return replace(game, scatter_pays=(ScatterPay("G", ((1, 2),)),)), block


def spin_outcomes(game: Game) -> list[tuple[int, int, int, Fraction]]:
    """``(line win, scatter win, triggers, probability)`` of one free spin, from the brute force: lines paid × 1000."""
    spin = brute_spin(game, SpinModel("p", line_multiplier=1000), digits=("G",))
    return [(*divmod(w, 1000), c, Fraction(n, spin.cycle)) for (w, (c,)), n in spin.joint.items()]


def test_priestess_multiplier_applies_to_line_wins_only() -> None:
    # one free spin from ×1 (7 spins, min_count 1): A A G pays 1 line × (1 + 1) and the G 2 unmultiplied.
    # E[X] = 4/3, E[c] = 1/2, E[X·c] = 1/3, E[Y] = 2·P(G) = 1: from m₀ = 3, 7 spins pay 133/3 + 7·1.
    game, block = priestess_scatter_pay()
    validate_game(game)
    eng = Engine(game)
    assert block.spin_figures(eng) == (Fraction(4, 3), Fraction(1, 2), Fraction(1, 3), Fraction(1))
    assert block.law(eng, (7, 3), "mean").mean == Fraction(133, 3) + 7
    outcomes = spin_outcomes(game)

    @cache
    def moments(left: int, m: int) -> tuple[Fraction, Fraction]:
        if left == 0:
            return Fraction(0), Fraction(0)
        a = b = Fraction(0)
        for x, y, c, p in outcomes:
            z = x * (m + c) + y
            na, nb = moments(left - 1, m + c)
            a += p * (z + na)
            b += p * (z * z + 2 * z * na + nb)
        return a, b

    for spins, start in ((1, 1), (3, 2), (7, 3)):
        law = block.law(eng, (spins, start), "moments")
        assert (law.mean, law.branches[()].m2) == moments(spins, start)


@pytest.mark.parametrize("scatter", [False, True])
def test_priestess_distribution_equals_the_brute_force_recursion(scatter: bool) -> None:
    game, block = priestess_scatter_pay() if scatter else priestess()
    outcomes = spin_outcomes(game)

    @cache
    def law(left: int, m: int) -> dict[int, Fraction]:
        if left == 0:
            return {0: Fraction(1)}
        out: dict[int, Fraction] = {}
        for x, y, c, p in outcomes:
            for w, q in law(left - 1, m + c).items():
                z = w + x * (m + c) + y
                out[z] = out.get(z, Fraction(0)) + p * q
        return out

    eng = Engine(game)
    for spins, start in ((1, 1), (4, 2), (7, 3)):
        dist = block.law(eng, (spins, start), "distribution").branches[()].dist
        assert dist is not None
        want = law(spins, start)
        assert dist.values.tolist() == sorted(want)
        assert np.allclose(dist.probs, [float(want[v]) for v in sorted(want)], rtol=1e-9, atol=1e-15)


def test_priestess_distribution_lumps_what_lies_above_the_round_limit() -> None:
    from mathkit.features.cap import Cap

    game, block = priestess()
    capped = replace(game, features=(block, Cap(name="cap", multiple=Fraction(20))))
    eng = Engine(capped)
    whole = block.law(Engine(game), (7, 3), "distribution").branches[()].dist
    lumped = block.law(eng, (7, 3), "distribution").branches[()].dist
    assert whole is not None and lumped is not None
    below = whole.values <= 20
    assert lumped.values.tolist() == [*whole.values[below].tolist(), 21]  # one cell past the limit holds the rest
    assert np.allclose(lumped.probs[:-1], whole.probs[below], atol=1e-15)
    assert abs(lumped.probs[-1] - whole.probs[~below].sum()) < 1e-12


# ----------------------------------------------------------------------------- Samurai
def samurai(spins: int = 2) -> tuple[Game, StickyFreeSpins]:
    """2 reels × 1 row, reels ``A R`` / ``A B R``; A {2: 4}, B {2: 2}; R the trigger, W the wild."""
    block = StickyFreeSpins(name="samurai", trigger="R", wild="W", spins=spins, reels="s", min_count=1)
    game = Game("samurai toy", (Symbol("R", "scatter"), Symbol("A"), Symbol("B"), Symbol("W", "wild", ("A", "B"))),
                (ReelSet("s", (("A", "R"), ("A", "B", "R")), (1, 1)),),
                (PayEntry("A", ("A",), ((2, (4,)),)), PayEntry("B", ("B",), ((2, (2,)),))),
                Bet(1), paylines=((0, 0),), default_reels="s", features=(block,))
    return game, block


def test_samurai_sticky_masks_by_hand() -> None:
    # Reel 1 sticky from the start.  Spin 1: W with reel 2 showing A (4), B (2) or R read as W (W W pays 4): 10/3,
    # and reel 2 becomes sticky with 1/3.  Spin 2: W W (4) w.p. 1/3, else 10/3 again.
    # Total 10/3 + 1/3 · 4 + 2/3 · 10/3 = 62/9.
    game, block = samurai()
    validate_game(game)
    eng = Engine(game)
    law = block.law(eng, ((0, 0),), "mean")
    assert law.mean == Fraction(62, 9)
    assert law.facts == {"sticky wilds at the start": 1, "sticky wilds at the end": 1 + Fraction(1) - Fraction(2, 3) ** 2}
    assert block.entry({"R@1": 1, "R@2": 0}) == ((0, 0),)


def sticky_brute(game: Game, block: StickyFreeSpins, cells: frozenset[tuple[int, int]], left: int) -> Fraction:
    """E[feature win] by recursion over (spins left, sticky cells), each spin visited by brute force."""
    rs = game.reel_set(block.reels)
    masks = tuple(f"{block.trigger}@{r + 1}" for r in range(rs.n_reels))

    @cache
    def value(sticky: frozenset[tuple[int, int]], n: int) -> Fraction:
        if n == 0:
            return Fraction(0)
        spin = brute_spin(game, block.model(tuple(sorted(sticky))), digits=masks)
        out = Fraction(0)
        for (win, seen), w in spin.joint.items():
            new = {(r, k) for r, m in enumerate(seen) for k in range(rs.rows[r]) if m >> k & 1}
            out += Fraction(w, spin.cycle) * (win + value(sticky | frozenset(new), n - 1))
        return out

    return value(cells, left)


@st.composite
def sticky_games(draw: st.DrawFn) -> tuple[Game, StickyFreeSpins, tuple[tuple[int, int], ...]]:
    game = draw(games("lines"))
    rs = game.reel_set()
    assume(rs.cycle <= 600)
    regular = [s.name for s in game.symbols if s.kind == "regular"]
    wild = Symbol("SW", "wild", tuple(regular))
    strips = []
    for strip in rs.strips:  # the trigger on a stop or two of some reels
        s = list(strip)
        for _ in range(draw(st.integers(0, 2))):
            s[draw(st.integers(0, len(s) - 1))] = "ST"
        strips.append(tuple(s))
    block = StickyFreeSpins(name="sticky", trigger="ST", wild="SW", spins=draw(st.integers(1, 2)), reels="base",
                            min_count=1)
    entries = tuple(p for p in game.line_pays if not game.symbol(p.symbols[0]).is_wild)
    game = replace(game, symbols=(*(s for s in game.symbols if not s.is_wild), wild, Symbol("ST", "scatter")),
                   reel_sets=(replace(rs, strips=tuple(tuple(x if not x.startswith("W") else regular[0] for x in s)
                                                         for s in strips)),),
                   line_pays=entries, scatter_pays=(), features=(block,))
    validate_game(game)
    cells = [(r, k) for r in range(rs.n_reels) for k in range(rs.rows[r])]
    start = tuple(sorted(draw(st.lists(st.sampled_from(cells), min_size=1, max_size=3, unique=True))))
    return game, block, start


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(sticky_games())
def test_sticky_equals_brute_force(case: tuple[Game, StickyFreeSpins, tuple[tuple[int, int], ...]]) -> None:
    game, block, start = case
    eng = Engine(game)
    assert block.law(eng, start, "mean").mean == sticky_brute(game, block, frozenset(start), block.spins)


# ----------------------------------------------------------------------------- overlay wilds
def test_overlay_placements_by_hand() -> None:
    rows = (3,) * 5
    hammer = OverlayType("hammer", 1, "square", (1, 2, 3, 4), size=2)
    placements, weights = hammer.placements(rows)
    # reel pairs (1,2) (2,3) (3,4) × row pairs (0,1) (1,2)
    assert len(placements) == 6 and set(weights) == {1}
    assert ((0, 0), (0, 1), (1, 0), (1, 1)) in placements and ((2, 1), (2, 2), (3, 1), (3, 2)) in placements
    sword = OverlayType("sword", 1, "cells", (1, 2, 3, 4), counts=((2, 40), (3, 30), (4, 20), (5, 10)))
    placements, weights = sword.placements(rows)
    # every set of k of the 12 cells of reels 1-4 alike, k drawn 40/30/20/10: C(12,2..5) = 66 + 220 + 495 + 792
    assert len(placements) == 66 + 220 + 495 + 792
    total = sum(weights)
    by_k: dict[int, int] = {}
    for p, w in zip(placements, weights, strict=True):
        by_k[len(p)] = by_k.get(len(p), 0) + w
    assert {k: Fraction(v, total) for k, v in by_k.items()} == {2: Fraction(4, 10), 3: Fraction(3, 10),
                                                                4: Fraction(2, 10), 5: Fraction(1, 10)}
    assert all(r <= 3 for p in placements for r, _ in p)


def test_overlay_round_by_hand() -> None:
    # 2 reels × 1 row, base strips A B / A B: A A pays 10, B B pays 2 (1/4 each): 3; the overlay set A B / B B.
    # With probability 1/5 a spin is an overlay spin with one wild on reel 1 or reel 2 (alike):
    # wild on reel 1 → reel 2 shows B: W B pays 2; wild on reel 2 → A W pays 10 (1/2), B W pays 2 (1/2): mean 4.
    # RTP = 4/5 · 3 + 1/5 · 4 = 16/5.
    ow = OverlayWilds(name="overlay_wilds", probability=Fraction(1, 5), reels="overlay", symbol="W",
                      types=(OverlayType("one", 1, "cells", (1, 2), counts=((1, 1),)),))
    game = Game("overlay toy", (Symbol("A"), Symbol("B"), Symbol("W", "wild", ("A", "B"))),
                (ReelSet("base", (("A", "B"), ("A", "B")), (1, 1)), ReelSet("overlay", (("A", "B"), ("B", "B")), (1, 1))),
                (PayEntry("A", ("A",), ((2, (10,)),)), PayEntry("B", ("B",), ((2, (2,)),))), Bet(1),
                paylines=((0, 0),), features=(ow,))
    validate_game(game)
    a = analyse(game, level="mean")
    assert a.rtp() == Fraction(16, 5)
    assert a.breakdown() == {"lines": Fraction(12, 5), "overlay wilds: one: lines": Fraction(4, 5)}
    # the whole distribution too: the base spins pay 0 (1/2), 2 (1/4), 10 (1/4); the overlay ones 2 (3/4), 10 (1/4)
    d = analyse(game, level="distribution").outcome.dist
    assert d is not None
    got = dict(zip(d.values.tolist(), d.probs.tolist(), strict=True))
    assert got == pytest.approx({0: 2 / 5, 2: 7 / 20, 10: 1 / 4}, rel=1e-12)
