"""Prince of Riches simulated: whole rounds per second of the generic driver, against plain numpy, in the same run.

Target (issue 10): the independent simulator plays the game literally (heights, cash stacks,
jackpots, growing free games) at ≥ 5·10⁶ rounds per CPU second, one thread, compilation
excluded.  ``simulate()`` is timed end to end (best of a few runs, CPU beside wall: the machine
is shared, judge on CPU).  The baseline is the test suite's literal player
(``tests/literal_prince.py``): the same rules read plainly in numpy, vectorised over rounds,
fed by ``Generator`` draws.  The base game alone (the blocks that pay within free games left
out) is timed beside it, to show what the features cost.
Run with ``python -m benchmarks prince_sim``.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from mathkit.gamefile.io import load_game
from mathkit.model.game import Game
from mathkit.sim import simulate

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "data" / "games" / "prince_of_riches.toml"
TARGET = 5e6


def best_of(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The best CPU and the best wall seconds of ``repeat`` calls."""
    cpu = wall = 1e9
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu, wall = min(cpu, time.process_time() - c), min(wall, time.perf_counter() - w)
    return cpu, wall


def driver(game: Game, rounds: int, repeat: int) -> tuple[float, float, float]:
    simulate(game, 20_000, seed=1, progress=False)  # compile, or load the cache
    rtp = simulate(game, rounds, seed=2, progress=False).rtp.value
    cpu, wall = best_of(lambda: simulate(game, rounds, seed=2, progress=False), repeat)
    return rounds / cpu, rounds / wall, rtp


def literal(game: Game, rounds: int) -> tuple[float, float, float]:
    sys.path.insert(0, str(ROOT / "tests"))
    from literal_prince import LiteralPrince, Tally  # the test suite's plain reading of the rules

    player = LiteralPrince(game)
    tally = Tally()
    rng = np.random.default_rng(3)
    cpu, wall = best_of(lambda: player.play(rounds, rng, tally), 1)
    assert game.bet.total is not None
    return rounds / cpu, rounds / wall, tally.sums["round"] / tally.rounds / game.bet.total


def main(rounds: int = 1 << 24, numpy_rounds: int = 200_000, repeat: int = 3) -> None:
    game = load_game(GAME)
    base = dataclasses.replace(game, features=tuple(f for f in game.features if f.kind == "variable_heights"),
                               name=f"{game.name} (base game only)")
    d_cpu, d_wall, d_rtp = driver(game, rounds, repeat)
    b_cpu, b_wall, b_rtp = driver(base, rounds, repeat)
    n_cpu, n_wall, n_rtp = literal(game, numpy_rounds)
    print(f"{game.name}: whole rounds per second (a base spin and everything it starts), one thread, "
          "compilation excluded")
    print(f"  {'':30}{'CPU':>14}{'wall':>14}")
    print(f"  {'generic driver':30}{d_cpu:14,.0f}{d_wall:14,.0f}   ({rounds:,} rounds, RTP {d_rtp:.4f})")
    print(f"  {'  the base game alone':30}{b_cpu:14,.0f}{b_wall:14,.0f}   (RTP {b_rtp:.4f})")
    print(f"  {'plain numpy (literal player)':30}{n_cpu:14,.0f}{n_wall:14,.0f}   ({numpy_rounds:,} rounds, "
          f"RTP {n_rtp:.4f})")
    print(f"  ratio driver / numpy: {d_cpu / n_cpu:,.0f}× (CPU), {d_wall / n_wall:,.0f}× (wall); "
          f"the features cost {b_cpu / d_cpu - 1:.0%} over the base game")
    print(f"  target ≥ {TARGET:,.0f} rounds per CPU second: {'met' if d_cpu >= TARGET else 'NOT met'}")


if __name__ == "__main__":
    main()
