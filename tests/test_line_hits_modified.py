"""The hit frequency per line of a base spin under its modifiers (issue 28): E[lines paid] / E[lines played], exact.

A base spin that a modifier changes — a window height drawn per spin with its own lines, random overlay
wilds — is a mixture of spins.  :func:`mathkit.report.lines.modified_line_hit_frequency` runs that mixture
on :func:`mathkit.model.edits.line_hits_game` (1 credit for every paying line).  Here the figure is
derived by hand on toy games (an overlay, heights, heights with free spins and a paying scatter), and
for random small games against a visit of every outcome of every variant by :func:`brute.brute_spin`,
the variants and their probabilities enumerated by the test itself from the modifiers' tables.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import openpyxl
from brute import brute_spin
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_property import _fit_lengths, games

from mathkit.export.sheet import write_par
from mathkit.features.heights import VariableHeights
from mathkit.features.overlay_wilds import OverlayType, OverlayWilds
from mathkit.gamefile.io import load_game, loads_game
from mathkit.laws.stage import SpinModel
from mathkit.model.edits import line_hits_game
from mathkit.model.game import Game, ReelSet, Symbol
from mathkit.model.validate import validate_game
from mathkit.report.lines import line_hit_frequency, modified_line_hit_frequency
from mathkit.report.par import build_sheet
from mathkit.report.text import par_to_dict, par_to_text
from mathkit.round import Engine

# ----------------------------------------------------------------------------- hand-derived
# 3 reels × 1 row, one line, every strip "A B"; A pays 3 of a kind; W is wild for A (× 2, which must not count twice).
# With probability 1/2 a spin is an overlay spin: one W on one cell of reels 1–3, each alike.
#   plain spin:   P(the line pays) = P(A A A) = (1/2)³ = 1/8
#   overlay spin: the W's reel is A-like, the other two must show A: (1/2)² = 1/4
#   per line: 1/2 · 1/8 + 1/2 · 1/4 = 3/16 (one line is played in every spin).
# The scatter S (paying and on no strip) and B's zero pay change nothing.
OVERLAY_TOY = """
name = "overlay toy"
paylines = [[0, 0, 0]]
[bet]
lines = 1
[symbols.A]
[symbols.B]
[symbols.S]
kind = "scatter"
[symbols.W]
kind = "wild"
substitutes = ["A"]
multiplier = 2
[reels.base]
rows = 1
strips = ["A B", "A B", "A B"]
[reels.over]
rows = 1
strips = ["A B", "A B", "A B"]
[paytable]
A = { 3 = 8 }
B = { 3 = 0 }
[scatter_pays]
S = { 1 = 5 }
[overlay_wilds]
probability = "1/2"
reels = "over"
symbol = "W"
[[overlay_wilds.types]]
name = "one"
shape = "cells"
counts = { 1 = 1 }
reels = [1, 2, 3]
"""

# 3 reels, every strip "A B" with weights 3, 1; a window 1 or 2 rows high (weights 1, 1), one line per row:
# line 1 on row 0, line 2 on row 1.  Row 0 shows the stop drawn: A with probability 3/4; row 1 the next stop:
# A with probability 1/4.
#   height 1: E[lines paid] = (3/4)³ = 27/64, 1 line
#   height 2: E[lines paid] = 27/64 + (1/4)³ = 28/64, 2 lines
#   per line: (27/64 + 28/64)/2 / ((1 + 2)/2) = 55/192  (the mean of the two heights' ratios, 41/128, is not it)
HEIGHTS_TOY = """
name = "heights toy"
paylines = [[0, 0, 0], [1, 1, 1]]
[bet]
lines = 1
total = 1
[symbols.A]
[symbols.B]
[reels.base]
rows = 2
strips = ["A B", "A B", "A B"]
weights = [[3, 1], [3, 1], [3, 1]]
[paytable]
A = { 3 = 5 }
[variable_heights]
heights = { 1 = 1, 2 = 1 }
lines_per_row = 1
"""

# The heights toy with a scatter S that pays and starts free spins.  Every strip "A B S", weights 2, 1, 1:
# row 0 shows A with probability 2/4; row 1 shows the next stop (B after A, S after B, A after S): A with 1/4.
#   height 1: E[lines paid] = (1/2)³ = 8/64;  height 2: 8/64 + (1/4)³ = 9/64
#   per line: (8/64 + 9/64)/2 / (3/2) = 17/192.  The free spins (a round's later spins) and the scatter's pays
#   are no line of the base spin: the figure is the same without them.
FREE_SPINS_TOY = """
name = "heights and free spins toy"
paylines = [[0, 0, 0], [1, 1, 1]]
[bet]
lines = 1
total = 1
[symbols.A]
[symbols.B]
[symbols.S]
kind = "scatter"
[reels.base]
rows = 2
strips = ["A B S", "A B S", "A B S"]
weights = [[2, 1, 1], [2, 1, 1], [2, 1, 1]]
[reels.free]
rows = 2
strips = ["A S", "A S", "A S"]
[paytable]
A = { 3 = 5 }
[scatter_pays]
S = { 3 = 10 }
[variable_heights]
heights = { 1 = 1, 2 = 1 }
lines_per_row = 1
[free_spins]
trigger = "S"
awards = { 3 = 5 }
reels = "free"
"""


def per_line(game: Game, coins: int | None = None) -> Fraction:
    f = modified_line_hit_frequency(Engine(game, coins=coins))
    assert f is not None and f.method == "exact" and f.exact is not None
    return f.exact


def test_overlay_toy_by_hand() -> None:
    game = loads_game(OVERLAY_TOY)
    assert per_line(game) == Fraction(3, 16)
    sheet = build_sheet(game)
    assert sheet.hit_frequency_per_line is not None and sheet.hit_frequency_per_line.exact == Fraction(3, 16)


def test_heights_toy_by_hand() -> None:
    game = loads_game(HEIGHTS_TOY)
    assert per_line(game) == Fraction(55, 192)
    assert build_sheet(game).lines_by_height == ((1, 1), (2, 2))


def test_heights_and_free_spins_toy_by_hand() -> None:
    game = loads_game(FREE_SPINS_TOY)
    assert per_line(game) == Fraction(17, 192)
    sheet = build_sheet(game)
    assert sheet.hit_frequency_per_line is not None and sheet.hit_frequency_per_line.exact == Fraction(17, 192)
    assert sheet.p_enter["free_spins"].value > 0  # the free spins are played by the round ...
    plain = replace(game, scatter_pays=(), features=game.features_of("modifier"))
    assert per_line(plain) == Fraction(17, 192)  # ... and are no line of the base spin


def test_line_hits_game_pays_one_per_paying_line() -> None:
    game = line_hits_game(load_game("data/games/classic_3reel.toml"))
    # 3 coins: the per-coin pays (× 3) and the per-option top award both pay 1; the ×2 wild multiplies nothing
    assert {v for e in game.line_pays for _, vs in e.pays for v in vs} <= {0, 1}
    assert all(s.multiplier == 1 for s in game.symbols) and not game.scatter_pays
    assert not game.features_of("sequence") and not game.features_of("transform")


def test_without_modifiers_it_is_the_base_spins_figure() -> None:
    for name in ("classic_3reel", "benchmark_5x3", "dynasty"):
        e = Engine(load_game(f"data/games/{name}.toml"))
        assert modified_line_hit_frequency(e) == line_hit_frequency(e.spin_maths(e.base_model())), name


def test_the_shipped_modified_games_have_it_exact() -> None:
    # the sheet of the means (what --sample-rounds 0 shows beside σ): the figure needs no distribution
    for name in ("warlords", "prince_of_riches"):
        sheet = build_sheet(load_game(f"data/games/{name}.toml"), deepest="mean")
        f = sheet.hit_frequency_per_line
        assert f is not None and f.method == "exact" and 0 < f.value < 1, name


# ----------------------------------------------------------------------------- the lines played by height
def test_the_sheet_states_the_lines_by_height(tmp_path: Path) -> None:
    # the file draws the window 3–7 rows high with 10 lines per row: 30, 40 … 70 lines (its total bet is fixed)
    sheet = build_sheet(load_game("data/games/heights_3to7.toml"), deepest="mean")
    by = tuple((h, 10 * h) for h in range(3, 8))
    assert sheet.lines_by_height == by
    header = par_to_text(sheet).splitlines()[3]
    assert "30–70 lines by height (3 rows: 30, 4 rows: 40, 5 rows: 50, 6 rows: 60, 7 rows: 70)" in header
    assert par_to_dict(sheet)["lines_by_height"] == [{"height": h, "lines": n} for h, n in by]
    wb = openpyxl.load_workbook(write_par(sheet, tmp_path / "heights.xlsx"))
    rows = {r[0]: r for r in wb["summary"].iter_rows(values_only=True) if r and r[0]}
    assert rows["lines by height"][1] == "3 rows: 30, 4 rows: 40, 5 rows: 50, 6 rows: 60, 7 rows: 70"
    assert rows["lines played"][1] == "30–70 by height"  # not the base height's 30 alone
    # a height of weight 0 is never drawn, so it plays no lines
    toy = loads_game(HEIGHTS_TOY.replace("heights = { 1 = 1, 2 = 1 }", "heights = { 1 = 0, 2 = 1 }"))
    assert build_sheet(toy).lines_by_height == ((2, 2),)


def test_a_fixed_window_has_no_lines_by_height() -> None:
    sheet = build_sheet(load_game("data/games/classic_3reel.toml"))
    assert sheet.lines_by_height == () and par_to_dict(sheet)["lines_by_height"] is None
    assert f"· {sheet.lines} lines ×" in par_to_text(sheet).splitlines()[3]


# ----------------------------------------------------------------------------- against the brute force
MAX_CYCLE = 600  # stop combinations of one variant the brute force visits


def small(game: Game, shortest: int) -> Game:
    """``game`` with its strips cut (never below ``shortest`` stops) to at most :data:`MAX_CYCLE` combinations."""
    rs = game.reel_set()
    lengths = _fit_lengths([len(s) for s in rs.strips], MAX_CYCLE, shortest)
    strips = tuple(s[:n] for s, n in zip(rs.strips, lengths, strict=True))
    weights = None if rs.weights is None else tuple(w[:n] for w, n in zip(rs.weights, lengths, strict=True))
    return replace(game, reel_sets=(replace(rs, strips=strips, weights=weights),))


@st.composite
def heights_of(draw: st.DrawFn, game: Game) -> Game:
    """``game`` drawn 1–3 rows high per spin, one line per row (line ``j`` keeps to rows 0..j), a fixed total bet."""
    n = game.n_reels
    top = draw(st.integers(1, 3))
    game = small(game, top)
    weights = [draw(st.integers(0, 3)) for _ in range(top)]
    weights[-1] = max(weights[-1], 1)
    lines = tuple((j, *(draw(st.integers(0, j)) for _ in range(n - 1))) for j in range(top))
    rs = replace(game.reel_set(), rows=(top,) * n)
    bet = replace(game.bet, lines=top, total=draw(st.integers(1, 5)))
    heights = VariableHeights(name="variable_heights", heights=tuple((h + 1, w) for h, w in enumerate(weights)),
                              lines_per_row=1)
    return replace(game, reel_sets=(rs,), paylines=lines, bet=bet, features=(heights,))


@st.composite
def overlay_on(draw: st.DrawFn, game: Game) -> Game:
    """``game`` with random overlay wilds: a wild ``OW`` on an overlay reel set (the base strips, each reversed)."""
    n = game.n_reels
    regular = [s.name for s in game.symbols if s.kind == "regular"]
    wild = Symbol("OW", "wild", tuple(draw(st.lists(st.sampled_from(regular), min_size=1, unique=True))),
                  multiplier=draw(st.sampled_from([1, 2])))
    base = game.reel_set()
    over = ReelSet("overlay", tuple(s[::-1] for s in base.strips), base.rows,
                   None if base.weights is None else tuple(w[::-1] for w in base.weights))
    types = []
    sizes = [1, 2] if min(base.rows) >= 2 and not game.features else [1]  # a square that fits at every height
    for i in range(draw(st.integers(1, 2))):
        first = draw(st.integers(1, n - 1))
        if draw(st.booleans()):  # 1 or 2 wilds on the cells of two reels
            types.append(OverlayType(f"cells{i}", draw(st.integers(1, 3)), "cells", (first, first + 1),
                                     counts=((1, draw(st.integers(0, 2))), (2, 1))))
        else:
            types.append(OverlayType(f"square{i}", draw(st.integers(1, 3)), "square", (first, first + 1),
                                     size=draw(st.sampled_from(sizes))))
    overlay = OverlayWilds(name="overlay_wilds", probability=draw(st.sampled_from([Fraction(1, 3), Fraction(1, 2),
                                                                                     Fraction(1)])),
                           reels="overlay", symbol="OW", types=tuple(types))
    return replace(game, symbols=(*game.symbols, wild), reel_sets=(*game.reel_sets, over),
                   features=(*game.features, overlay))


@st.composite
def modified_games(draw: st.DrawFn) -> tuple[Game, int]:
    """A random small lines game with heights, overlay wilds or both (heights first), and a coin option."""
    game = draw(games("lines"))
    game = small(game, max(game.reel_set().rows))
    rs = game.reel_set()
    if rs.weights is None and draw(st.booleans()):  # weighted stops: a window's rows then differ in law
        weights = tuple(tuple(draw(st.integers(1, 4)) for _ in s) for s in rs.strips)
        game = replace(game, reel_sets=(replace(rs, weights=weights),))
    kind = draw(st.sampled_from(["heights", "overlay", "both"]))
    if kind != "overlay":
        game = draw(heights_of(game))
    if kind != "heights":
        game = draw(overlay_on(game))
    validate_game(game)
    return game, draw(st.sampled_from(game.bet.coins))


def placements(t: OverlayType, rows: tuple[int, ...]) -> list[tuple[Fraction, tuple[tuple[int, int], ...]]]:
    """Every placement of ``t``'s wilds with its probability given the type, written out from its table."""
    reels = sorted(r - 1 for r in t.reels)
    if t.shape == "square":
        squares = [tuple((r, top + k) for r in cols for k in range(t.size))
                   for cols in (reels[i:i + t.size] for i in range(len(reels) - t.size + 1))
                   if cols[-1] - cols[0] == t.size - 1
                   for top in range(min(rows[r] for r in cols) - t.size + 1)]
        return [(Fraction(1, len(squares)), s) for s in squares]
    cells = [(r, k) for r in reels for k in range(rows[r])]
    total = sum(w for _, w in t.counts)
    return [(Fraction(w, total * math.comb(len(cells), k)), combo)
            for k, w in t.counts if w for combo in itertools.combinations(cells, k)]


def brute_per_line(game: Game, coins: int) -> Fraction:
    """Σ P(v)·(paid lines of v / its cycle) / Σ P(v)·lines(v) over every variant, each visited outcome by outcome."""
    variants: list[tuple[Fraction, str, int | None, int, tuple[tuple[int, int, str], ...]]] = []
    heights = [f for f in game.features if isinstance(f, VariableHeights)]
    drawn = [(Fraction(w, sum(x for _, x in heights[0].heights)), h) for h, w in heights[0].heights if w] \
        if heights else [(Fraction(1), None)]
    for q, h in drawn:
        lines = game.bet.lines if h is None else h  # one line per row
        variants.append((q, "base", h, lines, ()))
    overlays = [f for f in game.features if isinstance(f, OverlayWilds)]
    if overlays:
        ow = overlays[0]
        plain = [(q * (1 - ow.probability), *rest) for q, *rest in variants]
        total = sum(t.weight for t in ow.types)
        for q, _, h, lines, _ in variants:
            rows = game.reel_set(ow.reels).rows if h is None else (h,) * game.n_reels
            for t in ow.types:
                for p, cells in placements(t, rows) if t.weight else ():
                    forced = tuple((r, k, ow.symbol) for r, k in cells)
                    plain.append((q * ow.probability * Fraction(t.weight, total) * p, ow.reels, h, lines, forced))
        variants = plain  # type: ignore[assignment]
    paid = played = Fraction(0)
    for p, reels, h, lines, forced in variants:
        if p == 0:
            continue
        b = brute_spin(game, SpinModel(reels, rows=h, lines=lines, forced=forced), coins=coins)
        assert b.lines == lines
        paid += p * Fraction(b.paid_lines, b.cycle)
        played += p * lines
    return paid / played


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(modified_games())
def test_equals_the_brute_force(case: tuple[Game, int]) -> None:
    game, coins = case
    assert per_line(game, coins) == brute_per_line(game, coins)
