"""Dask scale-out of the simulator: 10⁹ benchmark spins in this process against a 2-worker LocalCluster.

Timed, whole calls of :func:`mathkit.sim.simulate` (a cluster's start included — what a user waits for):

* in this process (the baseline, measured in the same run),
* on a new ``LocalCluster`` of 2 workers (``place="cluster"``),
* ``workers=2`` with ``place="auto"``: the cluster only when the first chunk's rate says it pays,
* the start of a cluster alone (spawn, import, the simulator's kernels loaded on each worker): what
  :data:`mathkit.sim.cluster.CLUSTER_START` stands for.

Every run gives the same sums (checked).  Target (issue 34): ≥ 1.6× one process for 10⁹ spins on
2 local workers, judged on wall time (the point of a cluster) on a quiet 2-core machine; CPU time is
printed beside it (the workers' CPU is not this process's: the cluster's CPU column is the
coordinator's only).  ``MATHKIT_BENCH_DASK_SPINS`` sets the spins (default 10⁹).

Run alone: ``python -m benchmarks dask``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from benchmarks.timing import Timing, header, row
from mathkit.gamefile.io import load_game
from mathkit.sim import simulate
from mathkit.sim.cluster import CLUSTER_START

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "data" / "games" / "benchmark_5x3.toml"
TARGET = 1.6


def _once(fn: object) -> tuple[Timing, object]:
    c, w = time.process_time(), time.perf_counter()
    out = fn()  # type: ignore[operator]
    return Timing((time.process_time() - c,), (time.perf_counter() - w,)), out


def cluster_start() -> float:
    """Seconds from nothing to two workers that have played a block (spawn, import, kernels loaded)."""
    from distributed import Client, LocalCluster

    from mathkit.sim.kernels import play_block  # noqa: F401  (loaded here too: only the workers' load is timed)

    t0 = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", processes=True,
                      dashboard_address=None) as cl, Client(cl) as client:
        game = load_game(GAME)
        simulate(game, 2 * 65536, seed=1, chunk=65536, client=client, progress=False)
        return time.perf_counter() - t0


def main() -> None:
    spins = int(float(os.environ.get("MATHKIT_BENCH_DASK_SPINS", "1e9")))
    game = load_game(GAME)
    simulate(game, 65536, seed=1)  # the kernels loaded in this process before any clock
    print(f"  {spins:,} spins of {GAME.name}; {os.cpu_count()} cores")
    header()
    here_t, here = _once(lambda: simulate(game, spins, seed=1, progress=False))
    row("in this process (baseline)", here_t)
    there_t, there = _once(lambda: simulate(game, spins, seed=1, workers=2, place="cluster", progress=False))
    ratio = here_t.wall_min / there_t.wall_min
    row("LocalCluster of 2 workers, start included", there_t,
        extra=f"   {ratio:.2f}× one process (wall)  {'ok' if ratio >= TARGET else f'MISSED (target ≥ {TARGET}×)'}")
    auto_t, auto = _once(lambda: simulate(game, spins, seed=1, workers=2, progress=False))
    row("workers=2, place=auto", auto_t, extra=f"   {here_t.wall_min / auto_t.wall_min:.2f}× one process (wall)")
    print(f"  auto ran {auto.ran}")  # type: ignore[attr-defined]
    assert here == there == auto, "the same sums wherever the plays ran"
    start = cluster_start()
    print(f"  a LocalCluster's start (2 workers, kernels loaded): {start:.2f} s wall; CLUSTER_START assumes "
          f"{CLUSTER_START:.1f} s")
