"""Anchor: Sizzling Hot (Novomatic, as modelled by slotopol/server) reproduces its published figures.

``data/games/sizzling_hot.toml`` holds the three reel sets of the public
reference in ``shared/anchors/sizzling-hot.json`` (beside the repository, at
``../shared``).  For every reel set the exact engine must give each published
figure to the digits it is printed with: RTP, its line and scatter parts, the
cycle, and the standard deviation of the total win per unit of total bet
(from the full distribution of ``joint_counts``).
"""

from __future__ import annotations

import json
from decimal import ROUND_HALF_EVEN, Decimal, localcontext
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from mathkit.exact.components import component_rtp
from mathkit.exact.cycle import joint_counts
from mathkit.gamefile.io import load_game
from mathkit.laws.stage import SpinModel
from mathkit.model.game import Game
from mathkit.spin.stops import stop_tables
from mathkit.spin.tables import pay_tables

REPO = Path(__file__).resolve().parents[1]
ANCHOR = REPO.parent / "shared" / "anchors" / "sizzling-hot.json"
GAME_FILE = REPO / "data" / "games" / "sizzling_hot.toml"
REEL_SETS = ("rtp93", "rtp95", "rtp99")
FIGURES = {"rtp_percent", "lines_percent", "scatter_percent", "sd_per_total_bet", "cycle", "note"}


@pytest.fixture(scope="module")
def anchor() -> dict[str, Any]:
    if not ANCHOR.is_file():
        pytest.skip(f"anchor file {ANCHOR} is absent (the CI clone has shared/ beside the repository)")
    with ANCHOR.open(encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh, parse_float=Decimal)  # keep the printed digits
    return data


@pytest.fixture(scope="module")
def game() -> Game:
    return load_game(GAME_FILE)


def source_key(anchor: dict[str, Any], reel_set: str) -> str:
    """The anchor's key ("95.655629") of our reel set ``rtp95``."""
    keys = [k for k in anchor["reel_sets"] if f"rtp{int(Decimal(k))}" == reel_set]
    assert len(keys) == 1, f"{reel_set}: no single matching reel set in {list(anchor['reel_sets'])}"
    return keys[0]


def rounded(x: Fraction | Decimal, like: Decimal) -> Decimal:
    """``x`` rounded half-even to the number of decimals ``like`` is printed with."""
    with localcontext() as ctx:
        ctx.prec = 60
        d = x if isinstance(x, Decimal) else Decimal(x.numerator) / Decimal(x.denominator)
        return d.quantize(Decimal(1).scaleb(like.as_tuple().exponent), rounding=ROUND_HALF_EVEN)


def sd_per_total_bet(game: Game, reel_set: str) -> tuple[Decimal, Fraction]:
    """σ of the total win per unit of total bet, and the mean (RTP), from the exact joint counts."""
    t = pay_tables(game)
    jc = joint_counts(t, stop_tables(game, SpinModel(reel_set)))
    (scatter,) = game.scatter_pays
    s1 = s2 = 0
    for win, count, n in zip(jc.wins.tolist(), jc.digit(scatter.symbol).tolist(), jc.counts.tolist(), strict=True):
        x = win + scatter.pay(count) * t.total_bet
        s1 += x * n
        s2 += x * x * n
    mean = Fraction(s1, jc.cycle * t.total_bet)
    var = Fraction(s2, jc.cycle * t.total_bet**2) - mean * mean
    with localcontext() as ctx:
        ctx.prec = 60
        sd = (Decimal(var.numerator) / Decimal(var.denominator)).sqrt()
    return sd, mean


def test_game_file_matches_the_anchor(anchor: dict[str, Any], game: Game) -> None:
    assert game.symbol_names == tuple(anchor["symbols"])
    assert game.paylines == tuple(tuple(line) for line in anchor["lines"])
    assert game.total_bet() == 5
    assert game.default_reels == "rtp95"
    assert not game.wilds
    pays = {e.name: [e.pay(n) for n in range(1, 6)] for e in game.line_pays}
    assert pays == anchor["line_pays"]
    (scatter,) = game.scatter_pays
    assert scatter.symbol == anchor["scatter"]["symbol"]
    assert {str(k): v for k, v in scatter.pays} == anchor["scatter"]["pays_x_total_bet"]
    assert {rs.name for rs in game.reel_sets} == set(REEL_SETS)
    for name in REEL_SETS:
        rs = game.reel_set(name)
        assert rs.strips == tuple(tuple(s) for s in anchor["reel_sets"][source_key(anchor, name)])
        assert rs.rows == (3, 3, 3, 3, 3)
        assert rs.weights is None


@pytest.mark.parametrize("reel_set", REEL_SETS)
def test_published_figures(anchor: dict[str, Any], game: Game, reel_set: str) -> None:
    published = anchor["published"][source_key(anchor, reel_set)]
    assert set(published) <= FIGURES, f"figures this test does not check: {set(published) - FIGURES}"
    cr = component_rtp(game, reel_set)
    assert cr.cycle == published["cycle"]
    assert rounded(cr.rtp() * 100, published["rtp_percent"]) == published["rtp_percent"]
    assert rounded(cr.rtp("lines") * 100, published["lines_percent"]) == published["lines_percent"]
    assert rounded(cr.rtp("scatter") * 100, published["scatter_percent"]) == published["scatter_percent"]
    sd, mean = sd_per_total_bet(game, reel_set)
    assert mean == cr.rtp()
    if "sd_per_total_bet" in published:
        assert rounded(sd, published["sd_per_total_bet"]) == published["sd_per_total_bet"]
