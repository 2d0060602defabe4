"""P(a round enters any of several features): the union of their entry events (issue 28 item 2).

:meth:`mathkit.round.RoundAnalysis.enter_any` (:func:`mathkit.round.compose.p_any`) and the PAR sheet's
section ``Free spins: any type``.  By hand on a toy whose two free-spin games can start in the same
round (the union is then below the sum), and on Warlords, whose three games are exclusive (one per
re-spin battle): the union there equals the sum of the three types' own trigger probabilities.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from mathkit.errors import UsageError
from mathkit.gamefile.io import load_game, loads_game
from mathkit.report.par import build_sheet
from mathkit.report.text import par_to_dict, par_to_text
from mathkit.round import analyse

# 4 reels × 1 row, every strip "X Y A A": each reel shows X with probability 1/4, Y with 1/4.
# 2+ X start the free spins "x", 2+ Y the free spins "y" (on a free reel set without X or Y: no re-entry).
#   P(2+ X) = 1 − (3/4)⁴ − 4·(1/4)(3/4)³ = 1 − 81/256 − 108/256 = 67/256, and P(2+ Y) the same;
#   P(both) = P(two X and two Y) = 4!/(2!·2!)·(1/4)⁴ = 6/256;
#   P(any) = 67/256 + 67/256 − 6/256 = 128/256 = 1/2, below the sum 134/256.
TWO_TYPES = """
name = "two free-spin games"
paylines = [[0, 0, 0, 0]]
[bet]
lines = 1
[symbols.A]
[symbols.B]
[symbols.X]
kind = "scatter"
[symbols.Y]
kind = "scatter"
[reels.base]
rows = 1
strips = ["X Y A A", "X Y A A", "X Y A A", "X Y A A"]
[reels.free]
rows = 1
strips = ["A B", "A B", "A B", "A B"]
[paytable]
A = { 4 = 5 }
[[free_spins]]
name = "x"
trigger = "X"
awards = { 2 = 3 }
reels = "free"
[[free_spins]]
name = "y"
trigger = "Y"
awards = { 2 = 4 }
reels = "free"
"""


def test_two_types_that_can_start_together_by_hand() -> None:
    game = loads_game(TWO_TYPES)
    a = analyse(game, level="mean")
    assert a.stats["x"].p_enter == a.stats["y"].p_enter == Fraction(67, 256)
    assert a.enter_any(["x", "y"]) == Fraction(1, 2)
    assert a.enter_any(["x"]) == Fraction(67, 256)
    sheet = build_sheet(game)
    names = [s.name for s in sheet.features]
    assert names == ["Free spins: x", "Free spins: y", "Free spins: any type"]
    figures = dict(sheet.features[-1].figures)
    assert figures["trigger probability (any type)"].exact == Fraction(1, 2)
    assert figures["trigger frequency (1 in N)"].exact == 2
    assert figures["sum of the types' trigger probabilities"].exact == Fraction(134, 256)
    assert "below their sum" in sheet.features[-1].notes[0]


def test_only_sequence_features_are_asked_for() -> None:
    a = analyse(loads_game(TWO_TYPES), level="mean")
    with pytest.raises(UsageError, match="not a sequence feature"):
        a.enter_any(["x", "nope"])


def test_one_free_spin_game_has_no_combined_section() -> None:
    sheet = build_sheet(load_game("data/games/dynasty.toml"), deepest="mean")
    assert not any(s.name.endswith("any type") for s in sheet.features)


def test_warlords_any_free_spin_game_is_the_sum_of_the_three() -> None:
    sheet = build_sheet(load_game("data/games/warlords.toml"), deepest="mean")
    names = [s.name for s in sheet.features]
    types = ["Free spins: barbarian", "Free spins: priestess", "Free spins: samurai"]
    at = names.index("Free spins: any type")
    assert at == max(names.index(n) for n in types) + 1  # after the last free-spin game's section
    by = {s.name: dict(s.figures) for s in sheet.features}
    # each type's own section, from the composer's entries: one battle winner per round, so exclusive
    total = sum((by[n]["trigger probability"].exact for n in types), Fraction(0))
    anyone = by["Free spins: any type"]
    assert anyone["trigger probability (any type)"].exact == total
    assert anyone["trigger frequency (1 in N)"].value == pytest.approx(93.73, abs=0.005)  # the 1 in 93.73
    text = par_to_text(sheet)
    assert text.index("Free spins: any type") > text.index("Free spins: samurai")
    d = json.loads(json.dumps(par_to_dict(sheet)))
    section = next(s for s in d["features"] if s["name"] == "Free spins: any type")
    assert section["figures"]["trigger probability (any type)"]["exact"] == f"{total.numerator}/{total.denominator}"
