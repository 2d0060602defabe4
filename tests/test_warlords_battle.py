"""Why Warlords' RTP does not depend on the battle odds ``pair_wins``, and how a strip edit makes it depend on them.

The rules (``Battle``): two scatters of one type and one of another battle, the pair's type
winning with probability ``pair_wins`` (75%), and the winner's free-spin game is played.  Only
windows of three scatters in two types have such a battle, so the RTP is affine in ``p =
pair_wins``: ``RTP(p) = RTP(0) + p·D`` with

    D = Σ_w P(w) · (V(pair type of w, cells of w) − V(single type of w, cells of w)),

``V(t, c)`` the mean win of the re-spins and free spins of type ``t`` from the held cells ``c``
(it depends on the re-spin and free-spin reel sets only, not on the base strips).

The symmetry.  The base strips carry the scatters on reels 2–4 only, each reel two types
(reel 2 BLUE and GREEN, reel 3 GREEN and RED, reel 4 BLUE and RED), each type on one stop of
weight 1, three stops apart, so a window shows at most one scatter a reel.  For held cells ``c``
(one row on each of reels 2, 3, 4) the 2³ type assignments are equally likely, and among the
six with a two-against-one battle every ordered pair (pair type, single type) of two different
types appears exactly once:

    BLUE GREEN BLUE → (B, G)    BLUE RED BLUE → (B, R)    BLUE RED RED → (R, B)
    GREEN GREEN BLUE → (G, B)   GREEN GREEN RED → (G, R)  GREEN RED RED → (R, G)

so ``D(c) ∝ Σ_{X≠Y} (V(X, c) − V(Y, c)) = 0`` for every ``c``, and ``D = 0``: the RTP and every
feature's RTP are the same at every ``pair_wins``.  σ and P(cap) still move: the square of a
round's win holds the base window's line win times the feature's win, and the windows paired
above show different symbols around their scatters (different line wins).

Breaking it.  Replace one card on base reel 3 by a second GREEN (game ``E``) or a second RED
(``E'``), spaced from the others.  The windows with the new stop on reel 3 add to ``D``:
in ``E`` (B G B) → V_B − V_G, (G G B) → V_G − V_B, (G G R) → V_G − V_R, so ``D_E = Σ_c w(c)·(V(G, c)
− V(R, c))``, and in ``E'`` the mirror ``D_E' = −D_E``.  Per feature: the Priestess games gain
``Σ w V(G, c) > 0`` per unit of ``p`` in ``E`` (the GREEN pairs win them more often), the Samurai games
lose ``Σ w V(R, c)``, the Barbarian games do not move; in ``E'`` the opposite.  Nothing here is
read from the code under test but the RTPs; the relations are derived above.
"""

from __future__ import annotations

import itertools
import tomllib
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
import tomli_w

from mathkit.features.battle import CASES, battle, case
from mathkit.gamefile.io import loads_game
from mathkit.round import analyse

GAME = Path(__file__).resolve().parents[1] / "data" / "games" / "warlords.toml"
SCATTERS = ("BLUE", "GREEN", "RED")
ODDS = (Fraction(0), Fraction(3, 4), Fraction(1))
CARD = 53
"""A card (J) on base reel 3, at least 3 stops from its GREEN (stop 9) and RED (stop 18): the stop the edit changes."""


def _data() -> dict:  # type: ignore[type-arg]
    return tomllib.loads(GAME.read_text(encoding="utf-8"))


def _rtps(pair_wins: Fraction, extra: str | None = None) -> tuple[Fraction, dict[str, Fraction]]:
    d = _data()
    d["scatter_respins"]["battle"]["pair_wins"] = str(pair_wins)
    if extra is not None:
        strip = d["reels"]["base"]["strips"][2].split()
        assert strip[CARD] == "J"
        strip[CARD] = extra
        d["reels"]["base"]["strips"][2] = " ".join(strip)
    a = analyse(loads_game(tomli_w.dumps(d)), level="mean")
    parts = {k.removeprefix("free spins: "): v for k, v in a.breakdown().items() if k.startswith("free spins: ")}
    return a.rtp(), parts


def test_the_base_strips_give_each_scatter_type_of_a_reel_the_same_odds() -> None:
    d = _data()
    assert "weights" not in d["reels"]["base"]  # every stop weighs 1
    types = []
    for text in d["reels"]["base"]["strips"]:
        strip = text.split()
        where = {s: [i for i, x in enumerate(strip) if x == s] for s in SCATTERS}
        on = sorted(s for s, at in where.items() if at)
        assert all(len(at) <= 1 for at in where.values())  # one stop of each type it carries
        stops = sorted(i for at in where.values() for i in at)
        gaps = [b - a for a, b in itertools.pairwise([*stops, stops[0] + len(strip)])] if stops else []
        assert all(g >= 3 for g in gaps)  # a window of 3 rows shows at most one scatter a reel
        types.append(on)
    assert types == [[], ["BLUE", "GREEN"], ["GREEN", "RED"], ["BLUE", "RED"], []]


def test_every_ordered_pair_of_types_battles_once_per_cell_pattern() -> None:
    reels = [(0, 1), (1, 2), (0, 2)]  # type indices (BLUE 0, GREEN 1, RED 2) on reels 2, 3, 4
    orders = Counter()
    for window in itertools.product(*reels):
        if case(window) == CASES[2]:
            odds = battle(window, Fraction(3, 4))
            pair = next(t for t, p in odds.items() if p == Fraction(3, 4))
            single = next(t for t, p in odds.items() if p == Fraction(1, 4))
            orders[pair, single] += 1
    assert orders == {(x, y): 1 for x in range(3) for y in range(3) if x != y}


@pytest.fixture(scope="module")
def shipped() -> dict[Fraction, tuple[Fraction, dict[str, Fraction]]]:
    return {p: _rtps(p) for p in ODDS}


def test_the_rtp_does_not_depend_on_the_battle_odds_on_the_shipped_strips(shipped) -> None:  # type: ignore[no-untyped-def]
    rtp, parts = shipped[Fraction(3, 4)]
    for p in ODDS:
        assert shipped[p] == (rtp, parts), p  # exactly, the total and every free-spin game's part


@pytest.fixture(scope="module")
def edited() -> dict[str, dict[Fraction, tuple[Fraction, dict[str, Fraction]]]]:
    return {extra: {p: _rtps(p, extra) for p in ODDS} for extra in ("GREEN", "RED")}


def test_a_second_scatter_on_reel_3_makes_the_rtp_follow_the_battle_odds(edited) -> None:  # type: ignore[no-untyped-def]
    slopes = {}
    for extra, by_p in edited.items():
        (r0, f0), (r34, f34), (r1, f1) = (by_p[p] for p in ODDS)
        slope = r1 - r0
        assert slope != 0, extra
        # affine in pair_wins: the rules' 75% is a mixture of the two outcomes of each battle, 3 to 1
        assert r34 == r0 + Fraction(3, 4) * slope
        for name in f0:
            assert f34[name] == f0[name] + Fraction(3, 4) * (f1[name] - f0[name]), (extra, name)
        assert f1["barbarian"] == f0["barbarian"]  # the new stop's BLUE battles cancel: B G B against G G B
        slopes[extra] = {name: f1[name] - f0[name] for name in f0} | {"rtp": slope}
    green, red = slopes["GREEN"], slopes["RED"]
    assert green["priestess"] > 0 > green["samurai"]  # more GREEN pairs: their Priestess games won more often
    assert red["samurai"] > 0 > red["priestess"]
    assert green == {k: -v for k, v in red.items()}  # D_E = −D_E', feature by feature
