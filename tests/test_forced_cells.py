"""The engine's forced-cell answers against brute force: line tables, random overlays, per-reel laws.

* :meth:`Engine.line_table` — every line's credits with its cells on a set of reels forced
  to one symbol — priced for any window mask must equal the brute-force visit of the
  spin with those cells forced (weighted strips, remaps and forced cells of the model too).
* A random overlay (:class:`mathkit.laws.stage.Overlay`): its means, digit law and joint law must
  equal the mixture, placement by placement, of brute-force forced spins.
* :meth:`Engine.reel_laws` multiplied over reels is :meth:`Engine.digit_law`.

Hand-derived fixtures first.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import numpy as np
from brute import brute_spin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_property import games

from mathkit.laws.stage import Overlay, SpinModel, cell_bits
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, Symbol
from mathkit.round import Engine

PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def two_reels() -> Game:
    """2 reels × 2 rows, strips ``A B C`` and ``A A B``; lines: row 0 and row 1; A {2: 10}, B {2: 4}; W wild."""
    return Game(
        name="two reels",
        symbols=(Symbol("A"), Symbol("B"), Symbol("C"), Symbol("W", "wild", ("A", "B", "C"))),
        reel_sets=(ReelSet("base", (("A", "B", "C"), ("A", "A", "B")), (2, 2)),),
        line_pays=(PayEntry("A", ("A",), ((2, (10,)),)), PayEntry("B", ("B",), ((2, (4,)),))),
        bet=Bet(2),
        paylines=((0, 0), (1, 1)),
    )


def test_line_table_by_hand() -> None:
    # Reel 1 shows A, B or C in each row (1/3 each); reel 2 shows A in a row with 2/3, B with 1/3.
    # A line pays A A: 1/3 · 2/3 · 10 = 20/9, B B: 1/3 · 1/3 · 4 = 4/9: 24/9 per line over a cycle of 9.
    # Reel 1's cell wild: A 2/3·10 + B 1/3·4 = 24/3; reel 2's wild: A 1/3·10 + B 1/3·4 (+ C pays nothing) = 14/3;
    # both wild: the best pair, A A = 10.
    table = Engine(two_reels()).line_table(SpinModel("base"), "W")
    assert table.cycle == 9
    assert table.credits == ((24, 72, 42, 90), (24, 72, 42, 90))
    # the top row of reel 1 and the bottom row of reel 2 forced: line 1 sees F = {reel 1}, line 2 F = {reel 2}
    assert table.mean_of([(0, 0), (1, 1)]) == Fraction(72 + 42, 9)


def test_overlay_means_by_hand() -> None:
    # Two placements alike: reel 1 row 0 (line 1 gets 72/9, line 2 24/9), or both cells of reel 2 (42/9 each).
    game = two_reels()
    o = Overlay(SpinModel("base"), "W", (((0, 0),), ((1, 0), (1, 1))), (1, 1))
    means = Engine(game).means(o)
    assert means["lines"] == (Fraction(72 + 24, 9) + Fraction(42 + 42, 9)) / 2


# ----------------------------------------------------------------------------- random small games
def window_cells(game: Game) -> list[tuple[int, int]]:
    rs = game.reel_set()
    return [(r, k) for r in range(rs.n_reels) for k in range(rs.rows[r])]


@st.composite
def forced_case(draw: st.DrawFn) -> tuple[Game, SpinModel, str, list[tuple[int, int]]]:
    """A random lines game, a symbol to force (a wild where there is one), a spin model and the cells forced."""
    game = draw(games("lines"))
    names = [s.name for s in game.symbols]
    symbol = draw(st.sampled_from([s.name for s in game.wilds] or names) if draw(st.booleans()) else st.sampled_from(names))
    cells = window_cells(game)
    base_forced: tuple[tuple[int, int, str], ...] = ()
    if draw(st.booleans()):
        r, k = draw(st.sampled_from(cells))
        base_forced = ((r, k, draw(st.sampled_from(names))),)
    remap: tuple[tuple[str, str], ...] = ()
    if draw(st.booleans()):
        a = draw(st.sampled_from(names))
        remap = ((a, draw(st.sampled_from([n for n in names if n != a]))),)
    model = SpinModel("base", forced=base_forced, remap=remap, line_multiplier=draw(st.sampled_from([1, 2])))
    mask = draw(st.lists(st.sampled_from(cells), max_size=5, unique=True))
    return game, model, symbol, mask


@PROPERTY
@given(forced_case())
def test_line_table_equals_brute_force(case: tuple[Game, SpinModel, str, list[tuple[int, int]]]) -> None:
    game, model, symbol, cells = case
    table = Engine(game).line_table(model, symbol)
    forced = SpinModel(model.reels, forced=model.forced + tuple((r, k, symbol) for r, k in cells), remap=model.remap,
                       line_multiplier=model.line_multiplier)
    brute = brute_spin(game, forced)
    assert table.cycle == brute.cycle
    assert table.mean_of(cells) == Fraction(brute.credits.get("lines", 0), brute.cycle)
    bits = cell_bits(table.rows)
    mask = sum(1 << (bits[r] + k) for r, k in cells)
    assert table.masks_mean(np.array([mask]))[0] == float(Fraction(brute.credits.get("lines", 0), brute.cycle))


@st.composite
def overlay_case(draw: st.DrawFn) -> tuple[Game, Overlay, tuple[str, ...]]:
    game = draw(games("lines"))
    names = [s.name for s in game.symbols]
    symbol = draw(st.sampled_from([s.name for s in game.wilds] or names))
    cells = window_cells(game)
    placements = tuple(tuple(draw(st.lists(st.sampled_from(cells), min_size=1, max_size=3, unique=True)))
                       for _ in range(draw(st.integers(1, 3))))
    weights = tuple(draw(st.integers(1, 4)) for _ in placements)
    rs = game.reel_set()
    digits = tuple(s.name for s in game.scatters)
    if digits and draw(st.booleans()):
        digits += (f"{digits[0]}@{draw(st.integers(1, rs.n_reels))}",)
    return game, Overlay(SpinModel("base"), symbol, placements, weights), digits


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(overlay_case())
def test_overlay_equals_brute_force_mixture(case: tuple[Game, Overlay, tuple[str, ...]]) -> None:
    game, o, digits = case
    eng = Engine(game)
    total = o.total
    credits: dict[str, Fraction] = defaultdict(Fraction)
    law: dict[tuple[int, ...], Fraction] = defaultdict(Fraction)
    joint: dict[tuple[int, tuple[int, ...]], Fraction] = defaultdict(Fraction)
    for i, w in enumerate(o.weights):
        brute = brute_spin(game, o.forced(i), digits=digits)
        for c, v in brute.credits.items():
            credits[c] += Fraction(w * v, brute.cycle * total)
        for (win, seen), n in brute.joint.items():
            law[seen] += Fraction(w * n, brute.cycle * total)
            joint[(win, seen)] += Fraction(w * n, brute.cycle * total)
    assert {c: v for c, v in eng.means(o).items() if v} == {c: v for c, v in credits.items() if v}
    weights, cycle = eng.digit_law(o, digits)
    assert {k: Fraction(v, cycle) for k, v in weights.items() if v} == {k: v for k, v in law.items() if v}
    j = eng.joint(o, digits)
    got: dict[tuple[int, tuple[int, ...]], Fraction] = defaultdict(Fraction)
    for i, (win, n) in enumerate(zip(j.wins.tolist(), j.counts.tolist(), strict=True)):
        got[(int(win), tuple(int(j.digits[d][i]) for d in digits))] += Fraction(int(n), j.cycle)
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in joint.items() if v}


@PROPERTY
@given(forced_case())
def test_reel_laws_multiply_to_the_digit_law(case: tuple[Game, SpinModel, str, list[tuple[int, int]]]) -> None:
    game, model, _, _ = case
    rs = game.reel_set()
    names = tuple(s.name for s in game.scatters) + tuple(f"{s.name}@{r + 1}" for s in game.scatters
                                                         for r in range(rs.n_reels))
    eng = Engine(game)
    laws = eng.reel_laws(model, names)
    joint, cycle = eng.digit_law(model, names)
    product: dict[tuple[int, ...], int] = {(0,) * len(names): 1}
    for reel in laws:
        nxt: dict[tuple[int, ...], int] = defaultdict(int)
        for a, wa in product.items():
            for b, wb in reel.items():
                nxt[tuple(x + y for x, y in zip(a, b, strict=True))] += wa * wb
        product = dict(nxt)
    assert product == joint
    assert cycle == rs.cycle


COVERED_SCATTER = """
name = "a wild over a scatter"
paylines = [[0, 0, 0]]
[bet]
lines = 1
coins = [1]
[symbols.W]
kind = "wild"
substitutes = "all"
pays = false
[symbols.A]
[symbols.SC]
kind = "scatter"
[reels.base]
rows = 3
strips = ["A A SC", "A A SC", "A SC SC"]
[paytable]
A = { 3 = 5 }
[scatter_pays]
SC = { 3 = 1, 4 = 0 }
"""


def test_an_overlay_wild_over_a_scatter_lowers_its_count() -> None:
    # every window shows all 3 stops of each reel: 4 scatters (4 pay nothing) unless the wild laid on
    # reel 1, row 1 covers reel 1's scatter, 1 window in 3: then 3 scatters pay 1, so the scatter mean is 1/3
    # (the plain spin's scatter mean is 0, the case a shortcut for line-only overlays must not take)
    from mathkit.gamefile.io import loads_game
    game = loads_game(COVERED_SCATTER)
    eng = Engine(game)
    assert eng.means(SpinModel("base")).get("scatter", 0) == 0
    o = Overlay(SpinModel("base"), "W", (((0, 0),),), (1,))
    assert eng.means(o)["scatter"] == Fraction(1, 3)
