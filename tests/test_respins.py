"""Scatter re-spins: the battle odds, the held-cell chain, the final chance and the free spins they lead to, by hand.

The toy round (derived in the comments of :func:`test_toy_round_by_hand`): one reel, four rows,
two scatter types X and Y, a base strip showing both in 3 windows of 8, a re-spin strip with
one X and one Y (each shows in a given row with probability 1/8), a final chance of a coin win
of 3 × bet or one more scatter, and a free-spin game per type paying 2 per spin.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from mathkit.errors import GameError, ModelError
from mathkit.features.battle import battle, case
from mathkit.features.final_chance import FinalChance
from mathkit.features.free_spins import FreeSpins
from mathkit.features.scatter_respins import ScatterRespins
from mathkit.gamefile.io import dump_game, loads_game
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, Symbol
from mathkit.model.validate import validate_game
from mathkit.round import analyse


def test_battle_odds_as_stated() -> None:
    # two different: 50/50; two of one type and one of another: 75% the pair; three different: 1/3 each
    assert battle([0, 1]) == {0: Fraction(1, 2), 1: Fraction(1, 2)}
    assert battle([2, 0, 2]) == {2: Fraction(3, 4), 0: Fraction(1, 4)}
    assert battle([1, 1, 0], Fraction(2, 3)) == {1: Fraction(2, 3), 0: Fraction(1, 3)}
    assert battle([2, 0, 1]) == {0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)}
    assert battle([1, 1, 1]) == {1: Fraction(1)}
    assert [case(t) for t in ([1, 1], [0, 2], [0, 0, 2], [0, 1, 2])] == [
        "no battle", "two different", "two against one", "three different"]
    with pytest.raises(ModelError, match="two or three scatters"):
        case([0, 0, 1, 1])


def toy(final: FinalChance | None = None) -> Game:
    """One reel × 4 rows; scatters X, Y; A pays 2 (one of a kind) on the one line (row 0); total bet 1."""
    def fs(name: str, trigger: str) -> FreeSpins:
        return FreeSpins(name=name, trigger=trigger, awards=((3, 1), (4, 2)), reels="free", from_feature="respins")

    return Game(
        name="toy re-spins",
        symbols=(Symbol("X", "scatter"), Symbol("Y", "scatter"), Symbol("A")),
        reel_sets=(
            ReelSet("base", (("X", "Y", "A", "A", "A", "A", "A", "A"),), (4,)),
            ReelSet("respin", (("X", "A", "A", "A", "Y", "A", "A", "A"),), (4,)),
            ReelSet("free", (("A", "A", "A", "A"),), (4,)),
        ),
        line_pays=(PayEntry("A", ("A",), ((1, (2,)),)),),
        bet=Bet(1),
        paylines=((0,),),
        features=(
            ScatterRespins(name="respins", scatters=("X", "Y"), free_spins=(("X", "fx"), ("Y", "fy")), reels="respin",
                           final_chance=final or FinalChance(((3, 1),), 1, (1,))),
            fs("fx", "X"), fs("fy", "Y"),
        ),
    )


def test_toy_round_by_hand() -> None:
    # Base: 8 stops of a 4-row window.  Row 0 shows A at stops 2..7: lines 6/8 · 2 = 3/2.
    # X (stop 0) and Y (stop 1) show together at stops 6, 7, 0 (3/8): re-spins with two different scatters,
    # a 50/50 battle.  The re-spin strip shows the active type in a given row with 1/8 (at most one at a time):
    # from 2 held cells it grows w.p. 2/8 = 1/4 to 3, then to 4 w.p. 1/8.
    #   grown (1/4): 3 held w.p. 7/8 → 1 free spin paying 2; 4 held w.p. 1/8 → 2 free spins paying 4: 9/4
    #   not grown (3/4): the final chance — coins 3 × bet (1/2), or a scatter → 3 held, 1 free spin paying 2 (1/2)
    # After a trigger: 1/4 · 9/4 + 3/4 · (1/2 · 3 + 1/2 · 2) = 9/16 + 30/16 = 39/16.
    # RTP = 3/2 + 3/8 · 39/16 = 309/128: final chance coins 3/8 · 3/4 · 1/2 · 3 = 27/64,
    # each free-spin game 1/2 · 3/8 · (9/16 + 3/4 · 1/2 · 2) = 63/256.
    game = toy()
    validate_game(game)
    a = analyse(game, level="mean")
    assert a.rtp() == Fraction(309, 128)
    assert a.breakdown() == {"lines": Fraction(3, 2), "final chance coins: respins": Fraction(27, 64),
                             "free spins: fx": Fraction(63, 256), "free spins: fy": Fraction(63, 256)}
    assert a.outcome.method == "exact"
    figures = {name: f for s in a.sections if s.name == "Re-spins" for name, f in s.figures}
    assert figures["trigger probability"].exact == Fraction(3, 8)
    assert figures["average re-spins per trigger"].exact == 1 + Fraction(1, 4) * (1 + Fraction(1, 8))
    assert figures["final chance (given re-spins)"].exact == Fraction(3, 4)
    assert figures["battle: two different (given re-spins)"].exact == 1
    assert figures["free spins fx (given re-spins)"].exact == Fraction(1, 2) * (Fraction(1, 4) + Fraction(3, 8))
    fx = a.stats["fx"]
    assert fx.p_enter == Fraction(3, 8) * Fraction(1, 2) * Fraction(5, 8)
    # the float path agrees
    f = analyse(game, level="mean", precision="float")
    assert float(f.rtp()) == pytest.approx(309 / 128, rel=1e-14)


def test_final_chance_by_hand() -> None:
    # coins 5 × bet (weight 1) or 10 × bet (weight 3), or a scatter (weight 4): a coin win half the time,
    # averaging (5 + 30)/4 = 35/4; the reveal lands on one of the 2 free rows of the one reel.
    fc = FinalChance(((5, 1), (10, 3)), 4, (1,))
    assert (fc.p_coins, fc.p_scatter, fc.mean_coins(1), fc.top(1)) == (Fraction(1, 2), Fraction(1, 2), Fraction(35, 4), 10)
    assert fc.cells({(0, 0), (0, 1)}, (4,)) == ((0, 2), (0, 3))
    a = analyse(toy(fc), level="mean")
    # final chance in 3/8 · 3/4 of the rounds, a coin win half the time
    assert a.breakdown()["final chance coins: respins"] == Fraction(3, 8) * Fraction(3, 4) * Fraction(1, 2) * Fraction(35, 4)


def test_round_trip_and_located_errors() -> None:
    game = toy()
    text = dump_game(game)
    back = loads_game(text)
    assert back == game
    with pytest.raises(GameError, match=r"scatter_respins\[0\]\.free_spins\.Y: no sequence feature named 'nope'"):
        loads_game(text.replace('Y = "fy"', 'Y = "nope"'))
    with pytest.raises(GameError, match=r"scatter_respins\[0\]\.battle\.pair_wins: 5/4 is not a probability"):
        loads_game(text.replace('pair_wins = "3/4"', 'pair_wins = "5/4"'))
    with pytest.raises(GameError, match=r"free_spins\[0\]\.from_feature: no other feature named 'nothing'"):
        loads_game(text.replace('from_feature = "respins"', 'from_feature = "nothing"', 1))


def test_the_base_window_may_show_at_most_three_scatters() -> None:
    text = dump_game(toy())
    with pytest.raises(GameError, match="at most three"):
        loads_game(text.replace('"X Y A A A A A A"', '"X Y X Y A A A A"'))


def test_warlords_readings_are_written(tmp_path: Path) -> None:
    from mathkit.gamefile.io import load_game

    game = load_game("data/games/warlords.toml")
    rules = {r.rule for r in game.readings}
    for must in ("Battle", "Final Chance", "Samurai Free Spins", "Cap", "Random Overlay Wild: placements"):
        assert must in rules
