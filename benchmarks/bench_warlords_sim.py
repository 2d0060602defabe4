"""Simulator on Warlords: whole rounds per CPU second (and wall), compile excluded, against a plain-Python player.

A Warlords round is a main-game spin (1 in 45 an overlay spin: its own reel set with 2–5
wilds laid over it), and about 1 in 64 a battle, re-spins, a final chance and one of three
free-spin games.  Timed:

* the compiled driver alone (``play_block``, one block, best of a few runs),
* ``simulate()`` end to end (the one-process path ``mathkit simulate`` takes),
* the naive baseline: the plain-Python literal player of the rules (``tests/literal_warlords.py``,
  the test oracle the driver is compared with round for round), on a sample of rounds.

Target (issue 12): ≥ 5·10⁶ Warlords rounds per CPU second, compilation excluded.

Run alone: ``python -m benchmarks warlords_sim``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_simulate import best_of, kernel_rate
from mathkit.gamefile.io import load_game
from mathkit.sim import simulate
from mathkit.sim.cluster import block_streams

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "data" / "games" / "warlords.toml"
TARGET = 5e6


def literal_rate(rounds: int) -> tuple[float, float, float]:
    """Rounds per wall and CPU second of the plain-Python literal player, and its RTP over the sample."""
    sys.path.insert(0, str(ROOT / "tests"))
    from literal_warlords import LiteralWarlords

    game = load_game(GAME)
    base, free, _ = block_streams(np.random.SeedSequence(1), 0)
    bg, fg = np.random.Generator(base), np.random.Generator(free)
    player = LiteralWarlords(game)
    t0, c0 = time.perf_counter(), time.process_time()
    total = sum(player.round(bg, fg) for _ in range(rounds))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return rounds / wall, rounds / cpu, total / (rounds * player.bet)


def main(spins: int = 1 << 24, literal: int = 20_000, repeat: int = 3) -> None:
    game = load_game(GAME)
    k_wall, k_cpu, k_rtp = kernel_rate(game, spins, repeat)
    simulate(game, 20_000, seed=1, progress=False)  # the kernels loaded
    res: list[float] = []

    def once() -> None:
        res.append(simulate(game, spins, seed=1, progress=False).rtp.value)

    s_wall, s_cpu = best_of(once, repeat)
    n_wall, n_cpu, n_rtp = literal_rate(literal)
    print(f"game: {game.name}, one thread; whole rounds per second, compilation excluded")
    print(f"{'':22}{'wall':>14}{'CPU':>14}")
    print(f"{'numba driver':22}{k_wall:14,.0f}{k_cpu:14,.0f}   ({spins:,} rounds, RTP {k_rtp:.4f})")
    print(f"{'simulate() end to end':22}{spins / s_wall:14,.0f}{spins / s_cpu:14,.0f}   ({spins:,} rounds, RTP {res[-1]:.4f})")
    print(f"{'plain Python (literal)':22}{n_wall:14,.0f}{n_cpu:14,.0f}   ({literal:,} rounds, RTP {n_rtp:.4f})")
    print(f"ratio driver / plain Python: {k_wall / n_wall:,.0f}× (wall), {k_cpu / n_cpu:,.0f}× (CPU)")
    print(f"target ≥ {TARGET:,.0f} rounds per CPU second: {'met' if min(k_cpu, spins / s_cpu) >= TARGET else 'NOT met'}")


if __name__ == "__main__":
    main()
