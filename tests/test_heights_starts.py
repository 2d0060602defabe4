"""The PAR sheet's table by starting height (issue 28 item 4): `Variable reels` in text, JSON and XLSX.

Per height drawn: the RTP of a round starting there, its parts, what each other modifier (cash stacks)
returns over the whole round, and each feature's entries per round from that height
(:meth:`mathkit.features.heights.VariableHeights.starts`).  By hand on a toy; on Prince of Riches the
height law's mix of the entries is each feature's trigger probability exactly, as Fractions, and its mix
of the RTPs the game's RTP.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import openpyxl
import pytest
from test_line_hits_modified import FREE_SPINS_TOY

from mathkit.export.sheet import write_par
from mathkit.gamefile.io import load_game, loads_game
from mathkit.report.par import build_sheet
from mathkit.report.text import par_to_dict, par_to_text
from mathkit.round import analyse

SECTION = "Variable reels"


def section(sheet):  # type: ignore[no-untyped-def]
    return next(s for s in sheet.features if s.name == SECTION)


def test_entries_by_starting_height_by_hand() -> None:
    # FREE_SPINS_TOY: 3 reels, strips "A B S" weighted 2, 1, 1, drawn 1 or 2 rows high (1/2 each); 3+ S start the
    # free spins.  At 1 row each reel shows S with probability 1/4: P(3 S) = (1/4)³ = 1/64.  At 2 rows a reel shows
    # (A, B), (B, S) or (S, A) — one S with probability 1/2, never two — so P(3 S) = (1/2)³ = 1/8.  Per round:
    # 1/2 · 1/64 + 1/2 · 1/8 = 9/128.
    game = loads_game(FREE_SPINS_TOY)
    a = analyse(game, level="mean")
    v = game.feature("variable_heights")
    stats = a.stats["variable_heights"]
    assert v.starts(stats, 1) == (Fraction(1, 2), {"free_spins": Fraction(1, 64)})
    assert v.starts(stats, 2) == (Fraction(1, 2), {"free_spins": Fraction(1, 8)})
    assert a.stats["free_spins"].p_enter == Fraction(9, 128)
    by = dict(section(build_sheet(game)).figures)
    assert by["Free spins: trigger probability at height 1"].exact == Fraction(1, 64)
    assert by["Free spins: trigger probability at height 2"].exact == Fraction(1, 8)
    # the rounds from each height, mixed by the height law, are the game's round
    rtp = sum((Fraction(1, 2) * by[f"RTP of a round starting at height {h}"].exact for h in (1, 2)), Fraction(0))
    assert rtp == a.rtp()


@pytest.fixture(scope="module")
def prince():  # type: ignore[no-untyped-def]
    return build_sheet(load_game("data/games/prince_of_riches.toml"), deepest="mean")


def test_prince_by_height_adds_up_to_the_game(prince) -> None:  # type: ignore[no-untyped-def]
    game = prince.game
    law = game.feature("variable_heights")
    by = dict(section(prince).figures)
    heights = [h for h, w in law.heights if w]
    assert heights == [3, 4, 5, 6, 7]
    for name, title in (("free_games", "Free games"), ("jackpots", "Jackpots")):
        mixed = sum((law.probability(h) * by[f"{title}: trigger probability at height {h}"].exact for h in heights),
                    Fraction(0))
        assert mixed == prince.p_enter[name].exact, name  # exactly, as Fractions
    rtps = [by[f"RTP of a round starting at height {h}"].value for h in heights]
    assert sum(float(law.probability(h)) * r for h, r in zip(heights, rtps, strict=True)) == pytest.approx(
        prince.rtp.value, abs=1e-12)
    assert rtps == sorted(rtps) and rtps[0] < 0.5 < 3 < rtps[-1]  # more rows, more lines: from 41% to 327%
    cash = [by[f"cash stacks at height {h} (whole round, × bet)"].value for h in heights]
    base_cash = prince.components["cash stacks"].value + prince.components["free games: cash stacks"].value
    assert sum(float(law.probability(h)) * c for h, c in zip(heights, cash, strict=True)) == pytest.approx(
        base_cash, abs=1e-12)


def test_prince_table_in_text_json_and_xlsx(prince, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    table = section(prince).table
    assert table[0][:4] == ("height", "lines", "probability", "RTP of a round from this height")
    assert {"cash stacks (whole round)", "Free games: 1 in", "Jackpots: 1 in"} <= set(table[0])
    assert [r[:2] for r in table[1:]] == [(str(h), str(10 * h)) for h in range(3, 8)]
    assert " | ".join(table[0]) in par_to_text(prince)
    d = json.loads(json.dumps(par_to_dict(prince)))
    assert next(s for s in d["features"] if s["name"] == SECTION)["table"] == [list(r) for r in table]
    wb = openpyxl.load_workbook(write_par(prince, tmp_path / "prince.xlsx"))
    cells = [list(r) for r in wb["features"].iter_rows(values_only=True) if r and r[0] == SECTION]
    assert any("RTP of a round from this height" in row for row in cells)
