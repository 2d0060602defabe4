"""The literal player: a Monte Carlo simulation of a game's rules, independent of the exact engine.

The simulator lives in :mod:`mathkit.sim`; this module keeps its public names where they
have always been imported from (and ``mathkit simulate`` calls :func:`cli` here).

Examples
--------
>>> from mathkit.io import load_game
>>> res = simulate(load_game("data/games/classic_3reel.toml"), 100_000, seed=1)
>>> res.spins, 0.7 < res.rtp.value < 1.0
(100000, True)
"""

from __future__ import annotations

from .sim.cli import ExactFigures, cli, exact_figures, simulate_cli
from .sim.results import TAILS, Z95, Z99, Estimate, GambleResult, Proportion, SimResult
from .sim.run import BLOCK, CHUNK, GambleStrategy, run, simulate

__all__ = [
    "BLOCK",
    "CHUNK",
    "TAILS",
    "Z95",
    "Z99",
    "Estimate",
    "ExactFigures",
    "GambleResult",
    "GambleStrategy",
    "Proportion",
    "SimResult",
    "cli",
    "exact_figures",
    "run",
    "simulate",
    "simulate_cli",
]
