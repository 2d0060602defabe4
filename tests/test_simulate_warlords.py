"""The simulator plays Warlords literally: round for round against a plain-Python player of the rules
(``tests/literal_warlords.py``) on the documented streams, and the new vocabulary on toy games by hand.

The agreement with every exact and Markov figure is in ``tests/test_simulate.py``
(``test_every_game_agrees_with_its_exact_figures``); the Dask run in ``test_dask_local_cluster_is_bit_identical``.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from literal_warlords import LiteralWarlords

from mathkit.cli.simulate import cli
from mathkit.gamefile.io import load_game, loads_game
from mathkit.model.game import Game
from mathkit.sim import simulate
from mathkit.sim.cluster import block_streams
from mathkit.sim.kernels import play_block
from mathkit.sim.layout import A_LINE
from mathkit.sim.rng import generator_state
from mathkit.sim.spec import compile_game

ROOT = Path(__file__).resolve().parents[1]
WARLORDS = ROOT / "data" / "games" / "warlords.toml"


@pytest.fixture(scope="module")
def warlords() -> Game:
    return load_game(WARLORDS)


def _kernel(game: Game, n: int, root: np.random.SeedSequence) -> tuple[list[int], dict[str, int]]:
    base, free, _ = block_streams(root, 0)
    kind, st = generator_state(base)
    spec = compile_game(game)
    acc, facc = spec.new_sums()
    wins = np.zeros(n, dtype=np.int64)
    play_block(n, np.vstack([st, generator_state(free)[1]]), kind, spec, acc, facc, wins)
    return [int(w) for w in wins], {"component:lines": int(acc[A_LINE]),
                                    **{name: int(acc[slot]) for name, slot in spec.slots.items()}}


def test_every_round_as_the_literal_player_plays_it(warlords: Game) -> None:
    # the compiled driver and a plain-Python reading of the rules, on the same two streams: the same win every
    # round, and the same sum by component (overlay types, final chance coins, each free-spin game)
    n = 12_000
    root = np.random.SeedSequence(2026)
    wins, sums = _kernel(warlords, n, root)
    base, free, _ = block_streams(root, 0)
    player = LiteralWarlords(warlords)
    bg, fg = np.random.Generator(base), np.random.Generator(free)
    expected = [player.round(bg, fg) for _ in range(n)]
    assert wins == expected
    parts = player.parts
    for name, total in parts.items():
        assert sums[f"component:{name}"] == total, name
    # every part of the round was played in the sample
    assert len(parts) == 8 and min(parts.values()) > 0
    assert sums["scatter_respins:final chance scatter"] > 0 and sums["scatter_respins:final chance coins"] > 0


def test_final_chance_split_and_the_round_accounting(warlords: Game) -> None:
    # the final chance is a coin win with probability 1/2 (the coins weigh 100 of 200: within 3.3σ); every
    # re-spin round ends in one free-spin start or one coin win, and the free-spin games are entered only so
    res = simulate(warlords, 3_000_000, seed=11)
    s = res.sums
    entered = s["scatter_respins:entered"]
    fc = s["scatter_respins:final chance"]
    coins = s["scatter_respins:final chance coins"]
    # the final chance is a coin win with probability 1/2 (coins weigh 100 of 200)
    assert abs(coins / fc - 0.5) <= 3.3 * math.sqrt(0.25 / fc)
    # every free-spin game is entered only through the re-spins: the three starts add up with the coin endings
    starts = sum(s[f"scatter_respins:free spins {c}"] for c in ("BLUE", "GREEN", "RED"))
    assert starts + coins == entered
    assert starts == sum(s[f"{f}:entered"] for f in ("barbarian", "priestess", "samurai"))


OVERLAY_TOY = """
name = "overlay toy"
paylines = [[0, 0, 0]]
[bet]
lines = 1
coins = [1]
[symbols.W]
kind = "wild"
substitutes = "all"
pays = false
[symbols.A]
[symbols.B]
[reels.base]
rows = 1
strips = ["B", "B", "B"]
[reels.over]
rows = 1
strips = ["A B", "A B", "A B"]
[paytable]
A = { 3 = 10 }
B = { 3 = 1 }
[overlay_wilds]
probability = "1/2"
reels = "over"
symbol = "W"
[[overlay_wilds.types]]
name = "two"
weight = 1
shape = "cells"
counts = { 2 = 1 }
reels = [1, 2, 3]
"""
"""A 3-reel × 1-row game with one overlay type (2 wilds on 2 of the 3 cells); ``test_mixture`` adds a second."""


def test_overlay_cells_are_drawn_alike() -> None:
    # a 3-reel × 1-row game: plain spins show B B B (pays 1); an overlay spin (probability 1/2) plays strips
    # "A B" with 2 wilds on 2 of the 3 cells (every pair alike): the free cell shows A (line pays 10) or B (1)
    game = loads_game(OVERLAY_TOY)
    res = simulate(game, 400_000, seed=3)
    # plain spins: B B B pays 1; overlay spins: 2 wilds + one reel showing A (10) or B (1), alike
    rtp = 0.5 * 1 + 0.5 * (0.5 * 10 + 0.5 * 1)
    assert abs(res.rtp.value - rtp) <= 3.3 * res.rtp.se
    # which cell stays free is uniform: replay the streams by hand for a few rounds
    n = 2000
    root = np.random.SeedSequence(4)
    wins, _ = _kernel(game, n, root)
    base, free, _ = block_streams(root, 0)
    bg, fg = np.random.Generator(base), np.random.Generator(free)
    expected = []
    free_cells: Counter[int] = Counter()
    for _ in range(n):
        u = int(bg.integers(0, 2, dtype=np.uint32))
        if u == 0:
            expected.append(1)
            continue
        stops = [int(bg.integers(0, 2, dtype=np.uint32)) for _ in range(3)]
        left = [0, 1, 2]
        for _ in range(2):
            left.pop(int(fg.integers(0, len(left), dtype=np.uint32)))
        free_cells[left[0]] += 1
        expected.append(10 if stops[left[0]] == 0 else 1)
    assert wins == expected
    assert min(free_cells.values()) > 0.25 * sum(free_cells.values())


def test_cli_lists_every_component_beside_the_exact_figure(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli([str(WARLORDS), "--spins", "300000", "--seed", "1", "--json", "--no-progress"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and out["agrees_with_exact"] is True
    checks = out["checks"]
    assert set(out["breakdown"]) >= {"lines", "final chance coins", "free spins: samurai", "cap"}
    for name in ("rtp", "lines", "overlay wilds: Barbarian Hammer: lines", "final chance coins",
                 "free spins: barbarian", "free spins: priestess", "free spins: samurai",
                 "p_enter:scatter_respins", "trigger_probability"):
        c = checks[name]
        assert c["method"] in ("exact", "markov") and c["ci99"][0] <= c["sim"] <= c["ci99"][1]
        assert abs(c["z"]) * c["tolerance"] == pytest.approx(abs(c["sim"] - c["exact"]) * _z(out["joint_level"]))
    assert out["joint_level"] == pytest.approx(1 - 0.01 / len(checks))


def _z(level: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(0.5 + level / 2))
