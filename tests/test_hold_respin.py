"""The hold-and-re-spin block (the worked example of docs/extending.md): by hand, and against brute force.

The whole round is checked stage by stage with the brute-force visitor: the
base spin's joint law of (win, rows showing the scatter on each reel) and, for
every held pattern, the re-spin's law with those cells forced — then mixed as a
player meets them.  The composed round (mean, second moment, distribution)
must equal it exactly (the distribution to round-off: it is mixed in floats).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from brute import brute_spin
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_engine_property import games

from mathkit.features.hold_respin import HoldRespin
from mathkit.gamefile.io import dump_game, load_game, loads_game
from mathkit.laws.stage import SpinModel
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, ScatterPay, Symbol
from mathkit.model.validate import validate_game
from mathkit.report.par import build_par
from mathkit.round import analyse


def tiny() -> Game:
    """3 reels × 1 row, every strip ``S A B``; A {3: 10}, B {3: 5}; S pays {2: 1, 3: 4} × bet; 2 S hold."""
    strip = ("S", "A", "B")
    return Game(
        name="tiny hold",
        symbols=(Symbol("S", "scatter"), Symbol("A"), Symbol("B")),
        reel_sets=(ReelSet("base", (strip, strip, strip), (1, 1, 1)),),
        line_pays=(PayEntry("A", ("A",), ((3, (10,)),)), PayEntry("B", ("B",), ((3, (5,)),))),
        bet=Bet(1),
        paylines=((0, 0, 0),),
        scatter_pays=(ScatterPay("S", ((2, 1), (3, 4))),),
        features=(HoldRespin(name="hold_respin", symbol="S", count=2, reels="base"),),
    )


def test_hold_respin_by_hand() -> None:
    # 27 base outcomes.  Lines: A A A pays 10, B B B pays 5 -> 15/27.  Scatter: exactly 2 S in
    # 3·2 = 6 outcomes pay 1, 3 S in 1 outcome pays 4 -> 10/27.  Base mean 25/27.
    # Exactly 2 S (6/27) hold them; the third reel re-spins: S (1/3) makes 3 S paying 4, A or B
    # (2/3) leaves 2 S paying 1 (no line can pay: two cells show S) -> re-spin mean 2.
    # RTP = 25/27 + 6/27 · 2 = 37/27; the re-spin's share 12/27.
    game = tiny()
    validate_game(game)
    a = analyse(game, level="mean")
    assert a.rtp() == Fraction(37, 27)
    assert a.breakdown() == {"lines": Fraction(15, 27), "scatter": Fraction(10, 27), "hold and re-spin": Fraction(12, 27)}
    # Second moment: base wins 0 (27 - 2 - 7 = 18 outcomes... see below) with the re-spin added.
    # Outcomes: A A A (10), B B B (5), S S S (4), six 2-S outcomes (1 + re-spin 4 or 1), the other 18 pay 0.
    # E[W²] = (100 + 25 + 16 + 6·(1/3·(1+4)² + 2/3·(1+1)²)) / 27 = (141 + 6·11) / 27 = 207/27.
    m = analyse(game, level="moments")
    assert m.rtp() == Fraction(37, 27)
    assert m.outcome.m2 == Fraction(207, 27)
    d = analyse(game, level="distribution").outcome.dist
    assert d is not None
    got = dict(zip(d.values.tolist(), d.probs.tolist(), strict=True))
    # 0: 18, 10: 1, 5: 1, 4: 1, 5 (1 + 4): 6·1/3 = 2, 2 (1 + 1): 6·2/3 = 4  (over 27)
    want = {0: 18 / 27, 10: 1 / 27, 5: 3 / 27, 4: 1 / 27, 2: 4 / 27}
    assert got == pytest.approx(want, rel=1e-12)


def brute_round(game: Game, block: HoldRespin) -> dict[int, Fraction]:
    """The round's win law, stage by stage with the brute-force visitor."""
    rs = game.reel_set()
    masks = tuple(f"{block.symbol}@{r + 1}" for r in range(rs.n_reels))
    base = brute_spin(game, SpinModel(rs.name), digits=masks)
    out: dict[int, Fraction] = defaultdict(Fraction)
    respins: dict[tuple[int, ...], dict[int, Fraction]] = {}
    for (win, seen), n in base.joint.items():
        cells = tuple((r, row) for r, m in enumerate(seen) for row in range(rs.rows[r]) if m >> row & 1)
        p = Fraction(n, base.cycle)
        if len(cells) != block.count:
            out[win] += p
            continue
        if seen not in respins:
            again = brute_spin(game, block.model(cells))
            respins[seen] = {w: Fraction(c, again.cycle) for w, c in again.distribution.items()}
        for w, q in respins[seen].items():
            out[win + w] += p * q
    return dict(out)


@st.composite
def hold_games(draw: st.DrawFn) -> Game:
    game = draw(games("lines"))
    rs = game.reel_set()
    assume(rs.cycle <= 4_000)  # every held pattern's re-spin is visited in full too
    strips = []
    for strip in rs.strips:  # the held symbol on one stop of each reel
        s = list(strip)
        s[draw(st.integers(0, len(s) - 1))] = "HS"
        strips.append(tuple(s))
    pays = game.scatter_pays + ((ScatterPay("HS", ((draw(st.integers(1, 3)), draw(st.integers(0, 5))),)),)
                                if draw(st.booleans()) else ())
    block = HoldRespin(name="hold_respin", symbol="HS", count=draw(st.integers(1, 2)), reels="base")
    game = replace(game, symbols=(*game.symbols, Symbol("HS", "scatter")), scatter_pays=pays,
                   reel_sets=(replace(rs, strips=tuple(strips)),), features=(block,))
    validate_game(game)
    return game


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(hold_games())
def test_round_equals_brute_force(game: Game) -> None:
    block = game.features[0]
    assert isinstance(block, HoldRespin)
    law = brute_round(game, block)
    bet = game.total_bet()
    mean = sum((w * p for w, p in law.items()), Fraction(0))
    assert analyse(game, level="mean").rtp() == mean / bet
    m = analyse(game, level="moments")
    assert m.outcome.mean == mean
    assert m.outcome.m2 == sum((w * w * p for w, p in law.items()), Fraction(0))
    d = analyse(game, level="distribution").outcome.dist
    assert d is not None
    got = {int(v): p for v, p in zip(d.values.tolist(), d.probs.tolist(), strict=True)}
    want = {w: float(p) for w, p in law.items() if p}
    assert set(got) == set(want)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-15)


def test_the_example_game_loads_and_round_trips() -> None:
    game = load_game("data/games/hold_respin_5x3.toml")
    (block,) = game.features
    assert isinstance(block, HoldRespin) and (block.symbol, block.count, block.reels) == ("SCATTER", 2, "base")
    assert loads_game(dump_game(game)) == game
    par = build_par(game)
    assert par.rtp.method == "exact"
    assert sum(f.exact for f in par.components.values() if f.exact is not None) == par.rtp.exact
    assert "hold and re-spin" in par.components


def test_bad_tables_are_located() -> None:
    from mathkit.errors import GameError

    text = Path("data/games/hold_respin_5x3.toml").read_text(encoding="utf-8")
    with pytest.raises(GameError, match=r"hold_respin\.symbol") as info:
        loads_game(text.replace('symbol = "SCATTER"\ncount', 'symbol = "H1"\ncount'))
    assert "not a scatter" in str(info.value)
    with pytest.raises(GameError, match=r"hold_respin\.count"):
        loads_game(text.replace("count = 2", "count = 0"))
