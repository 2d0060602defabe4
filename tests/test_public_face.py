"""The public face (``mathkit.rtp``, ``base_rtp``, ``par`` …) and the old module paths kept for one release."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import pytest

import mathkit

ROOT = Path(__file__).resolve().parents[1]


def test_rtp_is_the_whole_play_and_base_rtp_the_base_spin() -> None:
    dynasty = mathkit.load_game(ROOT / "data/games/dynasty.toml")
    sheet = mathkit.par(dynasty, sample_rounds=0)
    whole = mathkit.rtp(dynasty)
    assert whole == sheet.rtp
    # the PAR sheet's components: the base spin's lines and scatter, then the free spins
    base = sheet.components["lines"].exact + sheet.components["scatter"].exact
    assert mathkit.base_rtp(dynasty) == base
    assert whole.exact == base + sheet.components["free spins"].exact
    assert isinstance(whole.exact, Fraction)


def test_rtp_of_a_game_without_features_is_its_base_rtp() -> None:
    game = mathkit.load_game(ROOT / "data/games/benchmark_5x3.toml")
    assert mathkit.rtp(game).exact == mathkit.base_rtp(game)


@pytest.mark.parametrize(("old", "new"), [("mathkit.game", "mathkit.model.game"), ("mathkit.io", "mathkit.gamefile.io"),
                                          ("mathkit.cycle.lines", "mathkit.exact.cycle.lines"),
                                          ("mathkit.markov.tails", "mathkit.laws.tails"),
                                          ("mathkit.widgets", "mathkit.workbench")])
def test_an_old_path_is_the_new_module_with_a_warning_naming_it(old: str, new: str) -> None:
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert any(w.category is DeprecationWarning and f"{old} is now {new}" in str(w.message) for w in seen)
    sys.modules.pop(old, None)


def test_an_old_path_warns_where_it_is_imported() -> None:
    out = subprocess.run([sys.executable, "-W", "always::DeprecationWarning", "-c", "from mathkit.game import Game"],
                         cwd=ROOT, capture_output=True, text=True, check=True)
    assert "<string>:1: DeprecationWarning: mathkit.game is now mathkit.model.game" in out.stderr


def test_names_that_now_mean_something_else_are_not_aliased() -> None:
    for name in ("mathkit.rtp", "mathkit.par", "mathkit.simulate", "mathkit.tune", "mathkit.report", "mathkit.play",
                 "mathkit.gamefile.io"):
        assert mathkit.moved_to(name) is None
    with pytest.warns(DeprecationWarning, match="base_rtp"):
        assert mathkit.exact_rtp is mathkit.base_rtp


def test_a_module_imported_by_its_old_path_keeps_its_own_spec() -> None:
    sys.modules.pop("mathkit.io", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = importlib.import_module("mathkit.io")
    sys.modules.pop("mathkit.io", None)
    assert old.__spec__ is not None
    assert old.__spec__.name == "mathkit.gamefile.io" == old.__name__
    assert old.__package__ == old.__spec__.parent == "mathkit.gamefile"
