"""The workbench on Warlords (issue 12): it loads, every reel set and the feature laws are editable, the RTP follows.

The slow figures (σ, the PAR sheet) are not this test's subject: the scheduler's worker is
replaced by one that computes nothing, so only the immediate RTP path runs; the figures shown
are compared with :func:`mathkit.round.rtp_breakdown` on games edited without the workbench.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from mathkit.features.overlay_wilds import OverlayWilds
from mathkit.gamefile.io import load_game
from mathkit.model.game import Game
from mathkit.round import rtp_breakdown
from mathkit.workbench import build_workbench


def pct6(x: Fraction | float) -> str:
    return f"{float(x) * 100:.6f}%"


def rtp(game: Game) -> Fraction | float:
    return sum(rtp_breakdown(game).values(), Fraction(0))


def test_warlords_reel_sets_and_feature_laws_are_edited(games_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("mathkit.workbench.scheduler.compute", lambda *args: None)

    def no_wait(self: Any, timeout: float = 0.0) -> None:
        return None

    monkeypatch.setattr("mathkit.workbench.scheduler.Scheduler.wait", no_wait)
    wb = build_workbench("warlords.toml", games_dir, mode="thread")
    game = load_game(games_dir / "warlords.toml")
    assert wb.rtp_label.value == f"RTP {pct6(rtp(game))}" == "RTP 96.892205%"
    # a feature law: the Barbarian Hammer's weight among the overlay types
    wb.feature_inputs[("overlay_wilds", ("types", 0, "weight"))].value = 60
    ow = game.feature("overlay_wilds")
    assert isinstance(ow, OverlayWilds)
    edited = game.with_features(dataclasses.replace(
        ow, types=(dataclasses.replace(ow.types[0], weight=60), *ow.types[1:])))
    assert wb.game == edited
    assert wb.rtp_label.value == f"RTP {pct6(rtp(edited))}"
    # a final-chance coin weight
    wb.feature_inputs[("scatter_respins", ("final_chance", "coins", "100"))].value = 3
    coins = wb.game
    fc = coins.feature("scatter_respins").table()["final_chance"]["coins"]  # type: ignore[attr-defined]
    assert fc["100"] == 3 and {k: v for k, v in fc.items() if k != "100"} == {"3": 50, "5": 30, "10": 12, "20": 5, "50": 2}
    assert wb.rtp_label.value == f"RTP {pct6(rtp(coins))}" != f"RTP {pct6(rtp(edited))}"
    # a free-spin reel set: the Samurai strips, the round still analysed from the base game
    wb.reels_picker.value = "samurai"
    strip = wb.strips[1].value.split()
    assert strip == list(game.reel_set("samurai").strips[1])
    i = strip.index("TEN")
    strip[i] = "SAMURAI"
    wb.strips[1].value = " ".join(strip)
    sets = tuple(dataclasses.replace(rs, strips=(rs.strips[0], tuple(strip), *rs.strips[2:])) if rs.name == "samurai"
                 else rs for rs in coins.reel_sets)
    expected = dataclasses.replace(coins, reel_sets=sets)
    assert wb.game == expected
    assert wb.rtp_label.value == f"RTP {pct6(rtp(expected))}" != f"RTP {pct6(rtp(coins))}"
    assert wb.error.value == ""
