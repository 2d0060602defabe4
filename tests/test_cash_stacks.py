"""Cash Activate Stacks and jackpot reveals: windows derived by hand, a tiny game solved by hand, bad tables.

Every window below is written reel by reel, each column top to bottom, and its
cash is derived in the comment beside it from the rules (see
``mathkit/features/cash_stacks.py``): ``A`` is the sum of the activators showing;
in each stack (a run of PRIZE cells on one reel, as the window shows it) the
lowest eligible PRIZE is worth ``A`` and each eligible one above it the one below
plus ``A``; a jackpot PRIZE (``J``) gets nothing and reveals a jackpot.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from mathkit.errors import GameError
from mathkit.features.cash_stacks import CashStacks, chain_positions
from mathkit.features.heights import VariableHeights
from mathkit.features.jackpots import Jackpots
from mathkit.gamefile.io import dump_game, load_game, loads_game
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, Symbol
from mathkit.model.validate import validate_game
from mathkit.round import analyse

PRIZES = ("P", "J")


def game(chain: str = "pass", strips: tuple[tuple[str, ...], ...] | None = None, rows: int = 3,
         values: tuple[Fraction, Fraction] = (Fraction(2), Fraction(3))) -> Game:
    """Three reels; activators X (2× bet) and Y (3× bet) on reels 1 and 3; PRIZE P and jackpot PRIZE J; total bet 10."""
    strips = strips or (("X", "P", "A"), ("P", "J", "A"), ("Y", "P", "A"))
    return Game(
        name="cash",
        symbols=(Symbol("A"), Symbol("X", "bonus"), Symbol("Y", "bonus"), Symbol("P", "bonus"),
                 Symbol("J", "bonus", mark="jackpot")),
        reel_sets=(ReelSet("base", strips, (rows,) * 3),),
        line_pays=(PayEntry("A", ("A",), ((3, (50,)),)),),
        bet=Bet(1, total=10),
        paylines=((0, 0, 0),),
        features=(CashStacks(name="cash_stacks", activators=(("X", values[0]), ("Y", values[1])), reels=(1, 3),
                             prizes=PRIZES,
                             chain="pass" if chain == "pass" else "restart"),
                  Jackpots(name="jackpots", requires=("X", "Y"), prizes=(("Mini", 10), ("Grand", 500)),
                           reveal=(("Mini", 3), ("Grand", 1)))),
    )


def cash(window: list[list[str]], chain: str = "pass") -> tuple[Fraction, list[list[Fraction]]]:
    g = game(chain)
    block = g.feature("cash_stacks")
    assert isinstance(block, CashStacks)
    return block.window_values(g, window)


def total(cells: list[list[Fraction]]) -> Fraction:
    return sum((x for column in cells for x in column), Fraction(0))


def test_one_activator_one_stack() -> None:
    # X (2×) on reel 1; reel 2 shows P P P: from the bottom 2, 4, 6 -> 12× bet
    a, cells = cash([["X", "A", "A"], ["P", "P", "P"], ["A", "A", "A"]])
    assert a == 2
    assert cells[1] == [6, 4, 2]
    assert total(cells) == 12


def test_several_activators_add_up() -> None:
    # X (2×) on reel 1 and Y (3×) on reel 3: A = 5; reel 2 shows A P P: bottom 5, above 10 -> 15
    a, cells = cash([["X", "A", "A"], ["A", "P", "P"], ["A", "Y", "A"]])
    assert (a, cells[1], total(cells)) == (5, [0, 10, 5], 15)


def test_jackpot_prize_is_skipped_and_passes_the_value_on() -> None:
    # reel 2 top to bottom P J P, A = 2: the bottom P gets 2, J nothing, the top P the value J would have had
    # passed on: the eligible PRIZE below (2) plus A -> 4; total 6 (and one jackpot revealed)
    _, cells = cash([["X", "A", "A"], ["P", "J", "P"], ["A", "A", "A"]])
    assert cells[1] == [4, 0, 2]
    # a jackpot PRIZE at the bottom of the stack: the next one up is the lowest eligible: J P P -> A, 2A from below
    _, cells = cash([["X", "A", "A"], ["P", "P", "J"], ["A", "A", "A"]])
    assert cells[1] == [4, 2, 0]


def test_restart_reading_starts_the_chain_again_above_a_jackpot_prize() -> None:
    # the switch: P J P with A = 2 -> the top P starts again at A: 2, 0, 2 (total 4 instead of 6)
    _, cells = cash([["X", "A", "A"], ["P", "J", "P"], ["A", "A", "A"]], chain="restart")
    assert cells[1] == [2, 0, 2]
    # and the chain rule itself, on a taller column: P J P A P P (top to bottom)
    assert chain_positions(["P", "J", "P", "A", "P", "P"], frozenset(PRIZES), frozenset({"J"}), "restart") == [1, 0, 1,
                                                                                                              0, 2, 1]


def test_stacks_cut_by_the_window_edge() -> None:
    # reel 2 shows P P A: the stack may go on above the window, but only what shows counts; its lowest visible
    # PRIZE (row 1) gets A = 2, the one above 4
    _, cells = cash([["X", "A", "A"], ["P", "P", "A"], ["A", "A", "A"]])
    assert cells[1] == [4, 2, 0]
    # reel 2 shows A P P, cut by the bottom edge: the bottom visible PRIZE is the lowest of its stack -> 2, above 4
    _, cells = cash([["X", "A", "A"], ["A", "P", "P"], ["A", "A", "A"]])
    assert cells[1] == [0, 4, 2]


def test_two_stacks_on_one_reel_and_prizes_on_the_activator_reel() -> None:
    # A = 2 + 3 = 5; reel 1 shows X above P P: its own stack 5, 10; reel 2 P A P: two stacks of one, 5 each
    a, cells = cash([["X", "P", "P"], ["P", "A", "P"], ["Y", "A", "A"]])
    assert a == 5
    assert cells[0] == [0, 10, 5]
    assert cells[1] == [5, 0, 5]
    assert total(cells) == 25


def test_activators_without_prizes_and_prizes_without_activators_pay_nothing() -> None:
    a, cells = cash([["X", "A", "A"], ["A", "A", "A"], ["Y", "A", "A"]])
    assert (a, total(cells)) == (5, 0)
    a, cells = cash([["A", "A", "A"], ["P", "P", "P"], ["A", "P", "A"]])
    assert (a, total(cells)) == (0, 0)


def test_only_jackpot_prizes_show() -> None:
    # an activator and only jackpot PRIZEs: the feature plays (jackpots are revealed) but no cash is assigned
    a, cells = cash([["X", "A", "A"], ["J", "A", "A"], ["A", "A", "A"]])
    assert (a, total(cells)) == (2, 0)


def test_fractional_activator_values() -> None:
    # values of 1/2 and 5/2 × bet: A = 3; one PRIZE pays 3× bet = 30 credits at a total bet of 10
    g = game(values=(Fraction(1, 2), Fraction(5, 2)))
    block = g.feature("cash_stacks")
    assert isinstance(block, CashStacks)
    a, cells = block.window_values(g, [["X", "A", "A"], ["A", "P", "A"], ["Y", "A", "A"]])
    assert (a, total(cells)) == (3, 3)
    assert block.scale() == 2


def test_a_tiny_game_by_hand() -> None:
    # One row, strips: reel 1 "X P A", reel 2 "P J A", reel 3 "Y P A"; 27 equally likely outcomes; bet 10.
    # Line A A A (1 outcome) pays 50: 50/27 credits.
    # Cash: A = 2·[X] + 3·[Y], S = [P on 1] + [P on 2] + [P on 3] (stacks of one), cash = 10 · A · S.
    #   reel 1: X or P or A, reel 3: Y or P or A (each 1/3); reel 2: P, J or A.
    #   Sum over the 27 outcomes of A·S: reel 1 X (A gets 2) with reel 3 Y (A = 5, S = [P on 2]): 5 · 1 = 5;
    #   X with reel 3 P (A = 2, S = 1 + [P on 2]): 2·(1·3 + 1) = 2·4 = 8 summed over reel 2 -> 2·(2 + 1 + 1) = 8;
    #   X with reel 3 A (A = 2, S = [P on 2]): 2; reel 1 P with Y (A = 3, S = 1 + [P on 2]): 3·(2+1+1) = 12;
    #   reel 1 A with Y: 3·1 = 3; no activator: 0.  Total Σ A·S = 5 + 8 + 2 + 12 + 3 = 30 -> 300/27 credits.
    # Jackpots: J on reel 2 (1/3) with an activator (1 − (2/3)(2/3) = 5/9): 5/27 of the outcomes reveal one,
    #   worth 10 (3/4) or 500 (1/4): 132.5× bet = 1325 credits -> 5 · 1325 / 27.
    g = game(rows=1)
    validate_game(g)
    a = analyse(g, level="mean")
    bet = 10
    assert a.breakdown() == {"lines": Fraction(50, 27 * bet), "cash stacks": Fraction(300, 27 * bet),
                             "jackpots: Mini": Fraction(5, 27) * Fraction(3, 4) * 10,
                             "jackpots: Grand": Fraction(5, 27) * Fraction(1, 4) * 500}
    # the exact distribution: P(Grand revealed) = 5/27 · 1/4, always with at least 5000 credits
    d = analyse(g, level="distribution").outcome.dist
    assert d is not None
    assert float(d.probs[d.values >= 5000].sum()) == pytest.approx(5 / 108, rel=1e-12)


def test_the_game_file_round_trips() -> None:
    g = load_game("data/games/prince_of_riches.toml")
    assert loads_game(dump_game(g)) == g
    c = g.feature("cash_stacks")
    assert isinstance(c, CashStacks) and c.chain == "pass" and c.reels == (1, 5)
    assert isinstance(g.feature("variable_heights"), VariableHeights)


@pytest.mark.parametrize(("table", "field"), [
    ('activators = { A = 2 }\nreels = [1, 3]\nprizes = ["P"]', "cash_stacks.activators.A"),
    ('activators = { X = 0 }\nreels = [1, 3]\nprizes = ["P"]', "cash_stacks.activators.X"),
    ('activators = { X = "1/3" }\nreels = [1, 3]\nprizes = ["P"]', "cash_stacks.activators.X"),
    ('activators = ["X"]\nreels = [1, 3]\nprizes = ["P"]', "cash_stacks.activators"),
    ('activators = { X = 2 }\nreels = [1, 3]\nprizes = ["P"]\nchain = "skip"', "cash_stacks.chain"),
    ('activators = { X = 2 }\nreels = [2]\nprizes = ["P"]', "reels.base.strips[0][0]"),
    ('activators = { X = 2 }\nreels = [1, 9]\nprizes = ["P"]', "cash_stacks.reels"),
    ('activators = { X = 2 }\nreels = [1]\nprizes = ["P"]\nextra = 1', "cash_stacks.extra"),
])
def test_bad_tables_name_the_field(table: str, field: str) -> None:
    text = f"""
name = "bad"
paylines = [[0, 0, 0]]
[bet]
lines = 1
total = 10
[symbols.A]
[symbols.X]
kind = "bonus"
[symbols.P]
kind = "bonus"
[reels.base]
rows = 1
strips = ["X P A", "P A A", "A P A"]
[paytable]
A = {{ 3 = 5 }}
[cash_stacks]
{table}
"""
    with pytest.raises(GameError) as err:
        loads_game(text)
    assert field in str(err.value)
