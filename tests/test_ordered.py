"""Reel-ordered combinations ("red 7, white 7, blue 7 in that order"): by hand, against brute force, in the file.

The hand-derived game counts every paying outcome in the comments; the property test
draws small random line games with reel-ordered entries (beside plain and mixed ones,
wilds with multipliers and own pays, scatters) and requires the exact engine to equal
:mod:`brute` (which reads ``PayEntry.reels`` itself) in RTP, hits and credits per
combination, the whole distribution and the variance, exactly.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import ClassVar

import pytest
from brute import _Rules, brute_force, brute_spin
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_property import (
    PROPERTY,
    _fit_lengths,
    assert_distribution_matches,
    assert_rtp_matches,
    engine_entries,
    engine_joint,
    pays_table,
    total_distribution,
)

from mathkit.cli.simulate import exact_figures
from mathkit.errors import GameError
from mathkit.exact.components import component_rtp
from mathkit.exact.cycle import joint_counts
from mathkit.features.base import Block
from mathkit.gamefile.io import game_from_dict, game_to_dict, load_game, loads_game
from mathkit.laws.stage import SpinModel
from mathkit.model.game import Bet, Game, PayEntry, ReelSet, Role, ScatterPay, Symbol
from mathkit.model.validate import validate_game
from mathkit.play.vocabulary import Const, Force, Stake, Variant, Variants
from mathkit.report.par import build_par
from mathkit.report.text import par_to_csv, par_to_text
from mathkit.round import Engine
from mathkit.sim import simulate
from mathkit.spin.evaluate import evaluate
from mathkit.spin.stops import stop_tables
from mathkit.spin.tables import pay_tables

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "games" / "classic" / "red_white_blue.toml"
ANY7 = ("R7", "W7", "B7")


# ----------------------------------------------------------------------------- by hand
def game_ordered_by_hand() -> Game:
    """3 reels × 1 row × 4 stops, one line; a ×2 wild (no pay of its own) on reels 1 and 2.

    Reel 1: R7 BAR WILD X   reel 2: W7 R7 WILD X   reel 3: B7 BAR R7 X   (64 outcomes)
    Entries, in order: R7 {3: 40}; ordered RWB = R7, W7, B7 {3: 30}; mixed ANY7 = {R7, W7, B7} {3: 5};
    ordered BAR_7_BAR = BAR, ANY7, BAR {2: 1, 3: 8} ("a bar, any 7, a bar", paying a run of 2 too).
    """
    wild = Symbol("WILD", "wild", ("R7", "W7", "B7", "BAR", "X"), (), False, 2)
    return Game(
        name="ordered by hand",
        symbols=(Symbol("R7"), Symbol("W7"), Symbol("B7"), Symbol("BAR"), Symbol("X"), wild),
        reel_sets=(ReelSet("base", (("R7", "BAR", "WILD", "X"), ("W7", "R7", "WILD", "X"), ("B7", "BAR", "R7", "X")),
                           (1, 1, 1)),),
        line_pays=(PayEntry("R7", ("R7",), ((3, (40,)),)),
                   PayEntry("RWB", ANY7, ((3, (30,)),), reels=(("R7",), ("W7",), ("B7",))),
                   PayEntry("ANY7", ANY7, ((3, (5,)),)),
                   PayEntry("BAR_7_BAR", ("BAR", *ANY7), ((2, (1,)), (3, (8,))),
                            reels=(("BAR",), ANY7, ("BAR",)), reel_labels=("BAR", "ANY7", "BAR"))),
        bet=Bet(1),
        paylines=((0, 0, 0),),
    )


def test_ordered_hand_derived() -> None:
    # On reel r an entry counts its reel-r symbols and the wild (it substitutes for every symbol):
    #   R7: R7|WILD everywhere; RWB: R7|WILD, W7|WILD, B7|WILD; ANY7: R7|W7|B7|WILD; BAR_7_BAR: BAR|WILD, 7|WILD, BAR|WILD.
    # Reel 1 = X (16 outcomes): nothing counts on reel 1, 0.
    # Reel 1 = R7: (R7 W7 B7) RWB 30 (> ANY7 5); (R7 W7 R7) ANY7 5; (R7 R7 B7) ANY7 5; (R7 R7 R7) R7 40;
    #   (R7 WILD B7) RWB 30×2 = 60; (R7 WILD R7) R7 40×2 = 80; the rest (a BAR or X on reel 3, X on reel 2) 0.
    # Reel 1 = BAR: only BAR_7_BAR runs. (BAR 7 BAR) 8 for W7, R7: 2 outcomes; (BAR WILD BAR) 16;
    #   (BAR W7|R7 not-BAR) run 2 pays 1: 6 outcomes; (BAR WILD not-BAR) 1×2 = 2: 3 outcomes; (BAR X ·) 0.
    # Reel 1 = WILD (×2), every entry runs on reel 1:
    #   reel 2 W7: (B7) RWB 60 (> ANY7 10, BAR_7_BAR run 2: 2); (BAR) BAR_7_BAR 16; (R7) ANY7 10; (X) run 2: 2.
    #   reel 2 R7: (B7) ANY7 10; (BAR) 16; (R7) R7 80; (X) 2.
    #   reel 2 WILD (×4): (B7) RWB 120; (BAR) BAR_7_BAR 32; (R7) R7 160; (X) BAR_7_BAR run 2: 4.
    #   reel 2 X: 0.
    # Per combination: R7 3: 40 + 80 + 80 + 160 = 360 in 4 hits; RWB 3: 30 + 60 + 60 + 120 = 270 in 4;
    #   ANY7 3: 5 + 5 + 10 + 10 = 30 in 4; BAR_7_BAR 3: 8 + 8 + 16 + 16 + 16 + 32 = 96 in 6;
    #   BAR_7_BAR 2: 3 + 3 + 6 + 2 + 2 + 4 = 20 in 12.  776 credits over 64 outcomes: RTP 97/8.
    game = game_ordered_by_hand()
    validate_game(game)
    expected = {
        ("lines", "R7", 3): (4, 360),
        ("lines", "RWB", 3): (4, 270),
        ("lines", "ANY7", 3): (4, 30),
        ("lines", "BAR_7_BAR", 3): (6, 96),
        ("lines", "BAR_7_BAR", 2): (12, 20),
    }
    cr = component_rtp(game)
    assert cr.cycle == 64
    assert engine_entries(cr, game) == expected
    assert cr.rtp() == Fraction(97, 8)
    brute = brute_force(game)
    assert brute.entries == expected
    # wins 1: 6; 2: 5; 4: 1; 5: 2; 8: 2; 10: 2; 16: 3; 30, 32, 40: 1 each; 60, 80: 2 each; 120, 160: 1 each
    # (30 paying outcomes, 34 paying nothing); 6 + 10 + 4 + 10 + 16 + 20 + 48 + 102 + 280 + 280 = 776.
    dist = {0: 34, 1: 6, 2: 5, 4: 1, 5: 2, 8: 2, 10: 2, 16: 3, 30: 1, 32: 1, 40: 1, 60: 2, 80: 2, 120: 1, 160: 1}
    assert brute.distribution == dist
    joint, _ = engine_joint(game)
    assert total_distribution(game, joint, 1) == dist
    assert_distribution_matches(game, brute, lines=None, coins=None)
    # the order matters: W7 R7 B7 is no RWB (reel 1 needs R7), and pays nothing at all here
    assert evaluate(game, (("W7",), ("R7",), ("B7",))).total == 5  # ANY7 only
    assert evaluate(game, (("R7",), ("W7",), ("B7",))).lines[0].entry == "RWB"


# ----------------------------------------------------------------------------- random small games
MAX_OUTCOMES = 2_500


@st.composite
def ordered_games(draw: st.DrawFn) -> Game:
    """A random small line game with one to three reel-ordered entries (some flat), multiplier symbols, wilds."""
    n_reels = draw(st.integers(2, 4))
    rows = tuple(draw(st.integers(1, 3)) for _ in range(n_reels))
    regular = [f"S{i}" for i in range(draw(st.integers(2, 5)))]
    symbols = [Symbol(name, multiplier=draw(st.sampled_from([1, 1, 1, 2, 3]))) for name in regular]  # some multiply
    wilds = []
    for i in range(draw(st.integers(0, 2))):
        subs = tuple(draw(st.lists(st.sampled_from(regular), min_size=1, unique=True)))
        wilds.append(Symbol(f"W{i}", "wild", subs, (), draw(st.booleans()), draw(st.sampled_from([1, 2, 3]))))
    symbols += wilds
    scatters = ["SC"] if draw(st.booleans()) else []
    symbols += [Symbol(s, "scatter") for s in scatters]
    window = sum(rows)
    scatter_pays = tuple(ScatterPay(s, ((draw(st.integers(1, min(window, 3))), draw(st.integers(0, 5))),))
                         for s in scatters)
    coins = draw(st.sampled_from([(1,), (1, 2)]))
    entries = [PayEntry(n, (n,), *draw(pays_table(n_reels, len(coins))))
               for n in draw(st.lists(st.sampled_from(regular), max_size=3, unique=True))]
    entries += [PayEntry(w.name, (w.name,), *draw(pays_table(n_reels, len(coins)))) for w in wilds if w.pays]
    if len(regular) >= 2 and draw(st.booleans()):
        members = tuple(draw(st.lists(st.sampled_from(regular), min_size=2, max_size=3, unique=True)))
        entries.append(PayEntry("MIX", members, *draw(pays_table(n_reels, len(coins)))))
    for i in range(draw(st.integers(1, 3))):
        per_reel = tuple(tuple(draw(st.lists(st.sampled_from(regular), min_size=1, max_size=2, unique=True)))
                         for _ in range(n_reels))
        symbols_of = tuple(dict.fromkeys(s for m in per_reel for s in m))
        entries.append(PayEntry(f"ORD{i}", symbols_of, *draw(pays_table(n_reels, len(coins))), draw(st.booleans()),
                                reels=per_reel))
    entries = list(draw(st.permutations(entries)))  # ties go to the first entry listed
    lengths = _fit_lengths([draw(st.integers(2, 8)) for _ in range(n_reels)], MAX_OUTCOMES, max(rows))
    here = regular + scatters + [w.name for w in wilds]
    strips = tuple(tuple(draw(st.lists(st.sampled_from(here), min_size=n, max_size=n))) for n in lengths)
    weights = None
    if draw(st.booleans()):
        weights = tuple(tuple(draw(st.integers(1, 3)) for _ in range(n)) for n in lengths)
    line_rows = st.tuples(*(st.integers(0, rows[r] - 1) for r in range(n_reels)))
    paylines = tuple(draw(st.lists(line_rows, min_size=1, max_size=5, unique=True)))
    game = Game(name="random ordered", symbols=tuple(symbols), reel_sets=(ReelSet("base", strips, rows, weights),),
                line_pays=tuple(entries), bet=Bet(len(paylines), coins=coins), paylines=paylines,
                scatter_pays=scatter_pays)
    validate_game(game)
    return game


@st.composite
def ordered_cases(draw: st.DrawFn) -> tuple[Game, int | None, int]:
    game = draw(ordered_games())
    lines = draw(st.integers(1, len(game.paylines))) if draw(st.booleans()) else None
    return game, lines, draw(st.sampled_from(game.bet.coins))


@PROPERTY
@given(ordered_cases())
def test_ordered_engine_equals_brute_force(case: tuple[Game, int | None, int]) -> None:
    game, lines, coins = case
    brute = brute_force(game, lines=lines, coins=coins)
    assert_rtp_matches(game, brute, lines=lines, coins=coins)
    assert_distribution_matches(game, brute, lines=lines, coins=coins)


@settings(max_examples=60, deadline=None)
@given(ordered_games(), st.data())
def test_evaluate_pays_each_line_as_brute_force(game: Game, data: st.DataObject) -> None:
    # one random window: evaluate()'s line wins equal the brute-force rule line by line
    rs = game.reel_set()
    window = rs.window([data.draw(st.integers(0, len(s) - 1)) for s in rs.strips])
    rules = _Rules(game, game.bet.coins[0])
    wins = {w.line: w.win for w in evaluate(game, window).lines}
    for li, rows in enumerate(game.paylines):
        assert wins.get(li, 0) == rules.line(tuple(window[r][row] for r, row in enumerate(rows)))[0]


# ----------------------------------------------------------------------------- the game file
def test_example_loads_and_saves_back() -> None:
    game = load_game(EXAMPLE)
    rwb = next(e for e in game.line_pays if e.name == "ANY_RED_WHITE_BLUE")
    assert rwb.reels == (("SEVEN_RED", "BAR1"), ("SEVEN_WHITE", "BAR2"), ("SEVEN_BLUE", "BAR3"))
    assert rwb.combination(3) == "ANY_RED_WHITE_BLUE: ANY_RED – ANY_WHITE – ANY_BLUE"
    data = game_to_dict(game)
    assert data["ordered"]["ANY_RED_WHITE_BLUE"]["reels"] == ["ANY_RED", "ANY_WHITE", "ANY_BLUE"]
    assert data["ordered"]["RED_WHITE_BLUE_7"]["reels"] == ["SEVEN_RED", "SEVEN_WHITE", "SEVEN_BLUE"]
    assert game_from_dict(data) == game


def test_inline_group_round_trips() -> None:
    text = EXAMPLE.read_text(encoding="utf-8").replace('reels = ["BAR1", "BAR2", "BAR3"]',
                                                        'reels = [["BAR1", "BAR2"], "BAR2", "BAR3"]')
    game = loads_game(text)
    e = next(e for e in game.line_pays if e.name == "BAR_1_2_3")
    assert e.reels[0] == ("BAR1", "BAR2")
    assert e.combination(3) == "BAR_1_2_3: BAR1|BAR2 – BAR2 – BAR3"
    assert game_to_dict(game)["ordered"]["BAR_1_2_3"]["reels"] == [["BAR1", "BAR2"], "BAR2", "BAR3"]


@pytest.mark.parametrize(("old", "new", "field", "words"), [
    ('reels = ["BAR1", "BAR2", "BAR3"]', 'reels = ["BAR1", "BAR2"]', "ordered.BAR_1_2_3.reels",
     "2 reel requirements for 3 reels"),
    ('reels = ["BAR1", "BAR2", "BAR3"]', 'reels = ["BAR1", "BAR9", "BAR3"]', "ordered.BAR_1_2_3.reels[1]",
     "unknown symbol 'BAR9'"),
    ('reels = ["BAR1", "BAR2", "BAR3"]', 'reels = ["BAR1", "WILD", "BAR3"]', "ordered.BAR_1_2_3.reels[1]",
     "'WILD' is a wild symbol"),
    ('reels = ["BAR1", "BAR2", "BAR3"]', 'reels = ["BAR1", [], "BAR3"]', "ordered.BAR_1_2_3.reels[1]",
     "no symbol required"),
    ('reels = ["BAR1", "BAR2", "BAR3"]', 'reels = ["BAR1", 2, "BAR3"]', "ordered.BAR_1_2_3.reels[1]", ""),
    ('reels = ["BAR1", "BAR2", "BAR3"]\npays = { 3 = 10 }', 'reels = ["BAR1", "BAR2", "BAR3"]\npays = { 4 = 10 }',
     "ordered.BAR_1_2_3.pays.4", "4 of a kind on 3 reels"),
    ('reels = ["BAR1", "BAR2", "BAR3"]', 'symbols = ["BAR1", "BAR2", "BAR3"]', "ordered.BAR_1_2_3", ""),
])
def test_bad_ordered_entries_name_file_field_and_fix(tmp_path: Path, old: str, new: str, field: str,
                                                     words: str) -> None:
    path = tmp_path / "rwb.toml"
    text = EXAMPLE.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    with pytest.raises(GameError) as err:
        load_game(path)
    msg = str(err.value)
    assert "rwb.toml" in msg and field in msg and words in msg, msg
    assert err.value.fix, msg


def test_ways_games_refuse_ordered_entries() -> None:
    game = game_ordered_by_hand()
    ways = dataclasses.replace(game, pay_mode="ways", paylines=(), line_pays=game.line_pays[1:2])
    with pytest.raises(GameError, match=r"ordered\.RWB.*not supported in ways games"):
        validate_game(ways)


def test_forced_wild_on_an_ordered_game() -> None:
    # reel 2 forced to WILD (the overlay path reads the forced symbol per reel): from the hand count above,
    # reel 1 R7: (B7) 60 + (R7) 80; BAR: (BAR) 16 + 3 × 2; WILD: 120 + 32 + 160 + 4; X: 0 -> 478 over the
    # 16 (reel 1, reel 3) pairs
    game = game_ordered_by_hand()
    model = SpinModel("base", forced=((1, 0, "WILD"),))
    brute = brute_spin(game, model)
    assert brute.cycle == 64 and sum(brute.credits.values()) == 4 * 478  # each of reel 2's 4 stops shows the wild
    jc = joint_counts(pay_tables(game), stop_tables(game, model))
    dist: dict[int, int] = {}
    for w, n in zip(jc.wins.tolist(), jc.counts.tolist(), strict=True):
        dist[w] = dist.get(w, 0) + n
    assert dist == brute.distribution
    # the line table (every line's credits with its cells on a set of reels forced): reel 2 alone is F = 0b010
    table = Engine(game).line_table(SpinModel("base"), "WILD")
    assert Fraction(table.credits[0][0b010], table.cycle) == Fraction(478, 16)
    assert table.credits[0][0] == 776


@dataclasses.dataclass(frozen=True, kw_only=True)
class _ForceReel2(Block):
    """A modifier for the simulator only: half the base spins show R7 on reel 2, whatever the stop."""

    kind: ClassVar[str] = "force_reel_2"
    role: ClassVar[Role] = "modifier"
    title: ClassVar[str] = "Force reel 2"

    def sim_table(self, game: Game, stake: Stake) -> Variants:
        return Variants((Variant(1), Variant(1, forced=(Force(Const(0b10), "R7"),))))  # bit reel·H + row, H = 1


def test_simulator_reads_a_forced_cell_on_its_own_reel() -> None:
    # A forced cell is read as the symbol on *its* reel.  Reel 2 forced to R7, from the hand count above
    # (the "reel 2 R7" cases): reel 1 R7: (B7) ANY7 5, (R7) R7 40; BAR: (BAR) 8 + 3 × 1; WILD: (B7) 10, (BAR) 16,
    # (R7) 80, (X) 2; X: 0 -> 164 per 16 (reel 1, reel 3) pairs, 656 over the 64 stops.  Read as reel 1's R7,
    # R7 R7 B7 would pay RWB 30 and WILD R7 B7 RWB 60: 300 more.  Half the spins plain (776 / 64), half forced:
    # mean (776 + 656) / 128 = 179/16 a spin.
    game = game_ordered_by_hand()
    forced = brute_spin(game, SpinModel("base", forced=((1, 0, "R7"),)))
    assert forced.cycle == 64 and sum(forced.credits.values()) == 656
    res = simulate(game.with_features(_ForceReel2(name="force")), 400_000, seed=5)
    low, high = res.rtp.ci99
    assert low <= 179 / 16 <= high, (low, high)
    assert not low <= (179 + 300 / 8) / 16 <= high


# ----------------------------------------------------------------------------- exact and simulated agree
def test_example_par_and_simulation_agree() -> None:
    game = load_game(EXAMPLE)
    exact, sd = exact_figures(game)
    res = simulate(game, 1_500_000, seed=14)
    level = 1 - 0.01 / len(exact)
    assert res.agrees(exact, sd, level) == dict.fromkeys(exact, True), res.checks(exact, sd, level)


def test_cli_par_and_simulate_agree() -> None:
    par = subprocess.run([sys.executable, "-m", "mathkit", "par", str(EXAMPLE), "--json"], capture_output=True,
                         text=True, check=True, cwd=ROOT)
    sheet = json.loads(par.stdout)
    assert Fraction(sheet["rtp_exact"]) == component_rtp(load_game(EXAMPLE)).rtp()
    rows = {r["entry"]: r for r in sheet["paytable"]}
    assert rows["RED_WHITE_BLUE_7"]["combination"] == "RED_WHITE_BLUE_7: SEVEN_RED – SEVEN_WHITE – SEVEN_BLUE"
    assert rows["SEVEN_RED"]["combination"] == "3 × SEVEN_RED"
    sim = subprocess.run([sys.executable, "-m", "mathkit", "simulate", str(EXAMPLE), "--spins", "1000000",
                          "--seed", "3", "--json", "--no-progress"], capture_output=True, text=True, check=True, cwd=ROOT)
    out = json.loads(sim.stdout)
    assert out["agrees_with_exact"] is True
    assert out["ci99"][0] <= sheet["rtp"] <= out["ci99"][1]
    sheet_obj = build_par(load_game(EXAMPLE))
    assert "BAR_1_2_3: BAR1 – BAR2 – BAR3" in par_to_text(sheet_obj)
    assert "BAR_1_2_3: BAR1 – BAR2 – BAR3" in par_to_csv(sheet_obj)


def test_game_without_ordered_entries_keeps_plain_ids() -> None:
    # a game with no reel-ordered entry keeps plain symbol ids: its tables are what they were
    game = load_game(ROOT / "data" / "games" / "classic_3reel.toml")
    t = pay_tables(game)
    assert t.reel_ids is None and t.n_ids == t.n_symbols


def test_editing_an_ordered_pay_changes_one_line_of_the_file() -> None:
    from mathkit.gamefile.io import dumps_like
    from mathkit.model.edits import with_line_pay

    text = EXAMPLE.read_text(encoding="utf-8")
    game = loads_game(text)
    edited = with_line_pay(game, "BAR_1_2_3", 3, 12)
    out = dumps_like(edited, text)
    assert loads_game(out) == edited
    changed = [(a, b) for a, b in zip(text.splitlines(), out.splitlines(), strict=True) if a != b]
    assert changed == [("pays = { 3 = 10 }", "pays = { 3 = 12 }")]


def test_xlsx_paytable_names_the_ordered_combination(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    from mathkit.export.xlsx import write_par_xlsx

    path = write_par_xlsx(build_par(load_game(EXAMPLE)), tmp_path / "rwb.xlsx")
    cells = [row[1] for row in load_workbook(path)["paytable"].iter_rows(values_only=True)]
    assert "RED_WHITE_BLUE_7: SEVEN_RED – SEVEN_WHITE – SEVEN_BLUE" in cells
    assert "SEVEN_RED" in cells  # the other rows as before: the entry's name


def test_paytable_csv_lists_an_ordered_entry_by_reel() -> None:
    from mathkit.workbench.model import paytable_csv

    rows = [line.split(",") for line in paytable_csv(load_game(EXAMPLE)).splitlines()]
    row = next(r for r in rows if r[1] == "BAR_1_2_3")
    assert row[2:5] == ["BAR1 – BAR2 – BAR3", "3", "10"]
