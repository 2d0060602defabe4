"""The near-miss check on a one-reel toy, every figure derived by hand (see mathkit.checks.nearmiss)."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

from mathkit.checks import PROFILES, run_checks
from mathkit.checks.nearmiss import near_miss
from mathkit.gamefile.io import game_from_dict, load_game

# one reel of 8 stops, JACK (the top award) on stop 0:
#   1 row:  stop 0 shows it; stops 7 (JACK just below) and 1 (just above) are the near misses
#   3 rows: stops 6, 7, 0 show it; stops 5 (JACK just below the window 5-7) and 1 (just above 1-3) miss it
STRIP = ("JACK", "A", "B", "C", "D", "E", "F", "G")


def toy(weights: list[int], rows: int = 1) -> dict[str, object]:
    return {"name": "toy", "pay_mode": "lines", "paylines": [[0]], "bet": {"lines": 1},
            "symbols": {s: {} for s in STRIP},
            "reels": {"base": {"rows": rows, "strips": [" ".join(STRIP)], "weights": [weights]}},
            "paytable": {"JACK": {"1": 100}, "A": {"1": 1}}}


def test_one_row_by_hand() -> None:
    # weights 1 on stop 0, 3 on stops 1 and 7: W_in = 1, W_near = 6, N_in = 1, N_near = 2, F = 6 / 2 = 3
    f = near_miss(STRIP, (1, 3, 1, 1, 1, 1, 1, 3), 1, "JACK")
    assert (f.inside, f.near, f.inside_stops, f.near_stops) == (1, 6, 1, 2)
    assert f.factor == 3
    # unweighted, F is 1 whatever the strip
    assert near_miss(STRIP, (1,) * 8, 1, "JACK").factor == 1


def test_three_rows_by_hand() -> None:
    # stops 6, 7, 0 show JACK (weights 2, 1, 1: W_in = 4); stops 5 and 1 miss it (weights 1, 4: W_near = 5)
    # F = (5 / 4) / (2 / 3) = 15/8
    f = near_miss(STRIP, (1, 4, 1, 1, 1, 1, 2, 1), 3, "JACK")
    assert (f.inside, f.near, f.inside_stops, f.near_stops) == (4, 5, 3, 2)
    assert f.factor == Fraction(15, 8)


def test_heavy_window_is_no_near_miss() -> None:
    # weighting the stop that shows JACK (weight 4) lowers F: (2 / 4) / (2 / 1) = 1/4
    assert near_miss(STRIP, (4, 1, 1, 1, 1, 1, 1, 1), 1, "JACK").factor == Fraction(1, 4)


def test_unseen_but_near_is_infinite() -> None:
    f = near_miss(STRIP, (0, 1, 1, 1, 1, 1, 1, 1), 1, "JACK")
    assert f.infinite and f.factor is None


def test_check_fails_above_the_profile_limit_and_explains() -> None:
    bad = game_from_dict(toy([1, 3, 1, 1, 1, 1, 1, 3]))
    check = next(c for c in run_checks(bad, only=["near_miss"]))
    assert not check.passed
    assert "base reel 1, JACK at 1 rows: F = (6/1) / (2/1) = 3.000" in check.detail
    assert "limit 1.25" in check.detail
    # F = 5/4 exactly (weights 1 on stop 0, 5/4 would need fractions: 4 on stop 0, 5 on stops 1 and 7) is allowed
    edge = game_from_dict(toy([4, 5, 4, 4, 4, 4, 4, 5]))
    assert near_miss(STRIP, (4, 5, 4, 4, 4, 4, 4, 5), 1, "JACK").factor == Fraction(5, 4)
    assert next(c for c in run_checks(edge, only=["near_miss"])).passed
    # a profile with a tighter limit fails it
    strict = dataclasses.replace(PROFILES["gli11"], near_miss_limit=Fraction(1))
    assert not next(c for c in run_checks(edge, strict, only=["near_miss"])).passed


def test_shipped_games() -> None:
    for name in ("dynasty", "warlords", "prince_of_riches"):
        check = next(c for c in run_checks(load_game(f"data/games/{name}.toml"), only=["near_miss"]))
        assert check.passed, (name, check.detail)
    # the classic machine's virtual reels: each reel's WILD (the top award) weighs 1 and its two blank neighbours 3,
    # so F = (3 + 3) / 1 ÷ (2 / 1) = 3 on every reel
    check = next(c for c in run_checks(load_game("data/games/classic_3reel.toml"), only=["near_miss"]))
    assert not check.passed
    assert all(f"base reel {r}, WILD at 1 rows: F = (6/1) / (2/1) = 3.000" in check.detail for r in (1, 2, 3))
