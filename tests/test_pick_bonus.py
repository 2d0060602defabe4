"""The pick-bonus block: by hand, against brute force, and the example game (exact and simulated).

The brute force here shares nothing with :mod:`mathkit.features.picks`: it lists every
ordered sequence of picks — with replacement every sequence of prizes, weighted by the
product of their weights; without replacement every ordered sequence of distinct tiles
of the board, each alike — and sums them.  The round is rebuilt with the brute-force
spin visitor of ``tests/brute.py`` (the base spin's joint law of (win, bonus symbols
shown)) and the pick game added to the spin that started it.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from brute import brute_spin
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_engine_property import games
from test_simulate_features import _kernel_wins, count, pays

from mathkit.errors import GameError, ModelError
from mathkit.features.pick_bonus import PickBonus
from mathkit.features.picks import pick_law
from mathkit.gamefile.io import dump_game, load_game, loads_game
from mathkit.laws.stage import SpinModel
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, Symbol
from mathkit.model.validate import validate_game
from mathkit.report.par import build_par
from mathkit.round import analyse
from mathkit.sim import simulate
from mathkit.sim.cluster import block_streams

EXAMPLE = Path("data/games/classic/pick_bonus_3reel.toml")


def brute_picks(prizes: tuple[tuple[int, int], ...], n: int, replace: bool) -> dict[int, Fraction]:
    """The law of the summed prize of ``n`` picks, every ordered pick sequence listed."""
    out: dict[int, Fraction] = defaultdict(Fraction)
    if replace:
        total = sum(w for _, w in prizes) ** n
        for seq in itertools.product(prizes, repeat=n):
            out[sum(v for v, _ in seq)] += Fraction(math.prod(w for _, w in seq), total)
    else:
        tiles = [v for v, w in prizes for _ in range(w)]
        seqs = list(itertools.permutations(range(len(tiles)), n))
        for seq in seqs:
            out[sum(tiles[i] for i in seq)] += Fraction(1, len(seqs))
    return dict(out)


def moments(law: dict[int, Fraction]) -> tuple[Fraction, Fraction]:
    mean = sum((v * p for v, p in law.items()), Fraction(0))
    return mean, sum((v * v * p for v, p in law.items()), Fraction(0)) - mean * mean


# ----------------------------------------------------------------------------- by hand
def tiny(replace_: bool = False) -> Game:
    """3 reels × 1 row, every strip ``B A X``; A A A pays 10 per coin at 2 coins; B B B: 2 picks from tiles 1, 1, 4."""
    strip = ("B", "A", "X")
    block = PickBonus(name="pick_bonus", symbol="B", count=3, trigger="line", picks=((3, 2),),
                      prizes=((1, 2), (4, 1)), replace=replace_, unit="line_bet")
    return Game(name="tiny picks", symbols=(Symbol("B"), Symbol("A"), Symbol("X")),
                reel_sets=(ReelSet("base", (strip, strip, strip), (1, 1, 1)),),
                line_pays=(PayEntry("A", ("A",), ((3, (10,)),)),), bet=Bet(1, coins=(2,)),
                paylines=((0, 0, 0),), features=(block,))


def test_pick_bonus_by_hand() -> None:
    # 27 equally likely windows; the bet is 1 line × 2 coins = 2 credits (the line bet is 2 credits too).
    # A A A (1 window) pays 10 × 2 = 20 credits.  B B B (1 window) starts the pick game.
    # The board: tiles 1, 1, 4 (× line bet).  Two picks without replacement turn over one of the
    # C(3, 2) = 3 pairs alike: {1, 1} sums 2 (1 pair), {1, 4} sums 5 (2 pairs).
    #   E[prize] = (2 + 2·5)/3 = 4;  E[prize²] = (4 + 2·25)/3 = 18;  Var = 18 − 16 = 2  (× line bet)
    #   (check: one tile has mean 2, variance (1 + 1 + 16)/3 − 4 = 2; two tiles: 2·2·(3 − 2)/(3 − 1) = 2)
    # In credits the prize is 4 (1/3) or 10 (2/3), mean 8.
    # RTP = (20 + 8)/27 / 2 = 14/27; the pick bonus's share 8/27/2 = 4/27.
    # The round: 25 windows pay 0, one pays 20, one pays 4 or 10:
    #   P(0) = 25/27, P(20) = 1/27, P(4) = 1/81, P(10) = 2/81
    #   E[W²] = (400 + (16 + 2·100)/3)/27 = (400 + 72)/27 = 472/27
    #   Var[W] = 472/27 − (28/27)² = (12744 − 784)/729 = 11960/729  (credits²)
    game = tiny()
    validate_game(game)
    assert analyse(game, level="mean").rtp() == Fraction(14, 27)
    a = analyse(game, level="distribution")
    assert a.breakdown() == {"lines": Fraction(10, 27), "pick bonus": Fraction(4, 27)}
    assert a.outcome.mean == Fraction(28, 27)
    assert a.outcome.m2 - a.outcome.mean**2 == Fraction(11960, 729)
    d = a.outcome.dist
    assert d is not None
    got = dict(zip(d.values.tolist(), d.probs.tolist(), strict=True))
    assert got == pytest.approx({0: 25 / 27, 20: 1 / 27, 4: 1 / 81, 10: 2 / 81}, rel=1e-12)
    law = pick_law(((1, 2), (4, 1)), 2, replace=False)
    assert (law.values, law.counts, law.total) == ((2, 5), (1, 2), 3)
    sheet = build_par(game)
    (section,) = [s for s in sheet.features if s.name == "Pick bonus"]
    figs = dict(section.figures)
    assert figs["trigger probability"].exact == Fraction(1, 27)
    assert figs["trigger frequency (1 in N)"].exact == 27
    assert figs["average prize (× line bet)"].exact == 4
    assert figs["average prize (× total bet)"].exact == 4  # one line: the line bet is the total bet
    assert figs["variance of the prize (× line bet²)"].exact == 2
    assert figs["σ of the prize (× line bet)"].value == pytest.approx(math.sqrt(2), rel=1e-15)
    assert figs["RTP contribution"].exact == Fraction(4, 27)
    assert sheet.sd.value == pytest.approx(math.sqrt(11960 / 729) / 2, rel=1e-12)


def test_pick_bonus_by_hand_with_replacement() -> None:
    # Each pick: 1 with probability 2/3, 4 with 1/3 (mean 2, E[Y²] = (2 + 16)/3 = 6, Var 2).
    # Two picks: 2 (4/9), 5 (2·2/9 = 4/9), 8 (1/9); mean 4, Var 2·2 = 4 (no finite-board factor).
    law = pick_law(((1, 2), (4, 1)), 2, replace=True)
    assert (law.values, law.counts, law.total) == ((2, 5, 8), (4, 4, 1), 9)
    assert (law.mean, law.variance) == (4, 4)
    # the round: prize 4, 10 or 16 credits after B B B; E[W²] = (400 + (4·16 + 4·100 + 256)/9)/27 = (400 + 80)/27
    a = analyse(tiny(replace_=True), level="moments")
    assert a.rtp() == Fraction(14, 27)
    assert a.outcome.m2 == Fraction(480, 27)


# ----------------------------------------------------------------------------- against brute force
prize_tables = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 3)), min_size=1, max_size=4,
                        unique_by=lambda t: t[0]).filter(lambda t: 0 < sum(w for _, w in t) <= 7)


@settings(max_examples=300, deadline=None)
@given(prize_tables, st.integers(1, 4), st.booleans())
def test_prize_law_equals_brute_force(prizes: list[tuple[int, int]], n: int, replace_: bool) -> None:
    table = tuple(prizes)
    assume(replace_ or n <= sum(w for _, w in table))
    want = brute_picks(table, n, replace_)
    law = pick_law(table, n, replace=replace_)
    got = {v: Fraction(c, law.total) for v, c in zip(law.values, law.counts, strict=True) if c}
    assert got == {v: p for v, p in want.items() if p}
    assert (law.mean, law.variance) == moments(want)


def brute_round(game: Game, block: PickBonus) -> dict[int, Fraction]:
    """The round's win law: the base spin visited in full, the pick game after a spin showing enough bonus symbols."""
    base = brute_spin(game, SpinModel(game.reel_set().name), digits=(block.symbol,))
    unit = game.total_bet() if block.unit == "total_bet" else game.bet.coins[0]
    out: dict[int, Fraction] = defaultdict(Fraction)
    for (win, (shown,)), c in base.joint.items():
        p = Fraction(c, base.cycle)
        keys = [n for k, n in block.picks if k <= shown] if shown >= block.count else []
        if not keys:
            out[win] += p
            continue
        for prize, q in brute_picks(block.prizes, keys[-1], block.replace).items():
            out[win + prize * unit] += p * q
    return dict(out)


@st.composite
def pick_games(draw: st.DrawFn) -> Game:
    game = draw(games("lines"))
    rs = game.reel_set()
    assume(rs.cycle <= 3_000)
    strips = []
    for strip in rs.strips:  # the bonus symbol on some stops of each reel
        s = list(strip)
        for i in draw(st.sets(st.integers(0, len(s) - 1), min_size=0, max_size=2)):
            s[i] = "BONUS"
        strips.append(tuple(s))
    count = draw(st.integers(1, 3))
    prizes = tuple(draw(prize_tables))
    replace_ = draw(st.booleans())
    top = 4 if replace_ else min(4, sum(w for _, w in prizes))
    keys = sorted(draw(st.sets(st.integers(count, count + 2), min_size=1, max_size=2)) | {count})
    picks = tuple((k, draw(st.integers(1, top))) for k in keys)
    block = PickBonus(name="pick_bonus", symbol="BONUS", count=count, picks=picks, prizes=prizes,
                      replace=replace_, unit=draw(st.sampled_from(("total_bet", "line_bet"))))
    game = replace(game, symbols=(*game.symbols, Symbol("BONUS")), reel_sets=(replace(rs, strips=tuple(strips)),),
                   features=(block,))
    validate_game(game)
    return game


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(pick_games())
def test_round_equals_brute_force(game: Game) -> None:
    block = game.features[0]
    assert isinstance(block, PickBonus)
    law = brute_round(game, block)
    mean, var = moments(law)
    bet = game.total_bet()
    assert analyse(game, level="mean").rtp() == mean / bet
    a = analyse(game, level="distribution")
    assert a.outcome.mean == mean
    assert a.outcome.m2 - a.outcome.mean**2 == var  # the bonus's own variance is in the round's
    d = a.outcome.dist
    assert d is not None
    got = {int(v): p for v, p in zip(d.values.tolist(), d.probs.tolist(), strict=True) if p}
    want = {w: float(p) for w, p in law.items() if p}
    assert set(got) == set(want)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-15)  # the composer mixes distributions in floats


# ----------------------------------------------------------------------------- the example game
def test_the_example_loads_round_trips_and_agrees_with_the_simulator() -> None:
    game = load_game(EXAMPLE)
    (block,) = game.features
    assert isinstance(block, PickBonus)
    assert (block.trigger, block.count, block.picks, block.replace, block.board) == ("line", 3, ((3, 3),), False, 12)
    assert loads_game(dump_game(game)) == game
    law = block.law_of(3)
    # 12 tiles summing to 4·5 + 3·10 + 3·25 + 2·100 = 325: three picks average 3·325/12 = 325/4
    assert law.mean == Fraction(325, 4) and law.mean.denominator != 1
    par = build_par(game)
    assert par.rtp.method == "exact" and par.sd.method == "exact"
    assert sum(f.exact for f in par.components.values() if f.exact is not None) == par.rtp.exact
    res = simulate(game, 1_000_000, seed=14)
    exact = {"rtp": par.rtp.value, "pick bonus": par.components["pick bonus"].value,
             "lines": par.components["lines"].value, "sd": par.sd.value,
             "p_enter:pick_bonus": float(Fraction(125, 50653))}  # (5/37)³ of the 37-weight reels
    checks = res.checks(exact, level=1 - 0.01 / len(exact))
    assert all(c["agrees"] for c in checks.values()), checks


def test_the_simulator_plays_picks_literally() -> None:
    # every spin starts the pick game (B on every stop): the simulated prize law is the board's
    text = EXAMPLE.read_text(encoding="utf-8")
    for replace_, seed in ((False, 3), (True, 4)):
        game = loads_game(text.replace('"SEVEN BLANK BAR', '"BONUS BONUS BONUS').replace(
            "replace = false", f"replace = {str(replace_).lower()}"))
        game = replace(game, reel_sets=(replace(game.reel_set(), strips=(("BONUS",),) * 3, weights=None),))
        validate_game(game)
        law = game.features[0].law_of(3)  # type: ignore[attr-defined]
        res = simulate(game, 200_000, seed=seed)
        checks = res.checks({"pick bonus": float(law.mean), "sd": math.sqrt(float(law.variance))},
                            level=1 - 0.01 / 2)
        assert all(c["agrees"] for c in checks.values()), checks
        assert res.sums["max"] == (225 if not replace_ else 300)  # 100 + 100 + 25 on the board; 3 × 100 on a wheel


def test_bad_tables_are_located() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    with pytest.raises(GameError, match=r"pick_bonus\.trigger") as info:
        loads_game(text.replace("count = 3\ntrigger", "count = 2\ntrigger"))
    assert "every reel" in str(info.value)
    with pytest.raises(GameError, match=r"pick_bonus\.picks"):
        loads_game(text.replace("picks = 3", "picks = 13"))
    with pytest.raises(GameError, match=r"pick_bonus\.prizes\.x"):
        loads_game(text.replace("prizes = { 5 = 4", "prizes = { x = 1, 5 = 4"))
    with pytest.raises(GameError, match=r"pick_bonus\.unit"):
        loads_game(text.replace('unit = "line_bet"', 'unit = "coins"'))
    with pytest.raises(GameError, match=r"pick_bonus\.symbol"):
        loads_game(text.replace('symbol = "BONUS"', 'symbol = "BONUZ"'))
    assert loads_game(text.replace("picks = 3", "picks = 13").replace("replace = false", "replace = true"))


def test_the_simulator_refuses_boards_it_cannot_hold() -> None:
    text = EXAMPLE.read_text(encoding="utf-8").replace("100 = 2 }", "100 = 60 }")
    with pytest.raises(ModelError, match="at most 63 tiles"):
        simulate(loads_game(text), 1000, seed=1)


def _weighted(gen: np.random.Generator, weights: list[int]) -> int:
    """A stop or prize by weight as documented: ``u = integers(0, Σ w, uint32)``, the first cumulative weight above ``u``."""
    u = int(gen.integers(0, sum(weights), dtype=np.uint32))
    return next(i for i, c in enumerate(itertools.accumulate(weights)) if c > u)


@pytest.mark.parametrize("replace_", [False, True])
def test_picks_replayed_from_the_streams(replace_: bool) -> None:
    # base spins from the base stream (virtual stops by weight); each pick from the feature stream:
    # with replacement a prize by weight; without, a tile of the 12 (each alike), drawn again while turned
    text = EXAMPLE.read_text(encoding="utf-8").replace("replace = false", f"replace = {str(replace_).lower()}")
    game = loads_game(text)
    block = game.features[0]
    assert isinstance(block, PickBonus)
    rs = game.reel_set()
    assert rs.weights is not None
    tiles = [v for v, w in block.prizes for _ in range(w)]
    root = np.random.SeedSequence(140)
    base_bg, free_bg, _ = block_streams(root, 0)
    base, free = np.random.Generator(base_bg), np.random.Generator(free_bg)
    expected, started = [], 0
    for _ in range(20_000):
        x = [[strip[_weighted(base, list(w))]] for strip, w in zip(rs.strips, rs.weights, strict=True)]
        win = sum(pays(game, x))
        if count(x, "BONUS") >= 3:
            started += 1
            turned: set[int] = set()
            for _ in range(3):
                if replace_:
                    win += block.prizes[_weighted(free, [w for _, w in block.prizes])][0]
                    continue
                t = int(free.integers(0, len(tiles), dtype=np.uint32))
                while t in turned:
                    t = int(free.integers(0, len(tiles), dtype=np.uint32))
                turned.add(t)
                win += tiles[t]
        expected.append(win)
    assert started > 20  # (5/37)³ ≈ 1 in 405 base spins
    assert _kernel_wins(game, 20_000, root) == expected


def test_a_law_too_large_is_refused_before_it_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    from mathkit.errors import LimitError

    game = load_game(EXAMPLE)
    monkeypatch.setenv("MATHKIT_MAX_WORK", "1000")
    with pytest.raises(LimitError, match="the law of 3 picks of pick_bonus"):
        build_par(game)
    with pytest.raises(GameError, match=r"pick_bonus\.picks"):
        loads_game(EXAMPLE.read_text(encoding="utf-8").replace("picks = 3", "picks = 100001"))


def test_a_board_too_large_for_the_simulator_is_refused_before_it_is_laid_out() -> None:
    """Fuzz (issue 30's run, seed 31): a prize weight of 2**53 on a board without replacement built a list of 2**53
    tiles (5.4 GB, then out of memory) before the simulator's 63-tile limit was checked; the limit comes first."""
    from mathkit.sim import simulate

    path = Path("data/games/classic/pick_bonus_3reel.toml")
    game = loads_game(path.read_text().replace("prizes = { 5 = 4,", f"prizes = {{ 5 = {2**53},"), path)
    with pytest.raises(ModelError, match="at most 63 tiles without replacement, not 9,007,199,254,741,000"):
        simulate(game, 1000, seed=1)
