"""Core engine: exact RTP, variance and full distribution against a naive loop; doubled strips; Sizzling Hot.

Targets (issue 2, one core, kernels compiled at install), judged on CPU time: RTP ≤ 1 ms;
variance ≤ 100 ms; distribution ≤ 0.05 s and ≥ 10,000× the naive loop; doubled game ≤ 1 s;
Sizzling Hot's 90.2M-stop set ≥ 100× faster than the anchor tool's 8.85 s.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.naive import seconds_per_stop
from benchmarks.timing import Timing, header, measure, measure_process, row
from mathkit.exact import spin
from mathkit.exact.components import component_rtp
from mathkit.exact.cycle import joint_counts
from mathkit.gamefile.io import load_game
from mathkit.laws.stage import SpinModel
from mathkit.model.game import Game, ReelSet
from mathkit.spin.stops import StopTables, stop_tables
from mathkit.spin.tables import pay_tables

ROOT = Path(__file__).resolve().parents[1]
ANCHOR = ROOT.parent / "shared" / "anchors" / "sizzling-hot.json"


def plain(game: Game, rs: ReelSet | str | None = None) -> StopTables:
    """The stop tables of a plain spin of reel set ``rs`` (a name, a set of its own, or the default)."""
    if isinstance(rs, ReelSet):
        game = dataclasses.replace(game, reel_sets=(rs,), default_reels=rs.name)
    return stop_tables(game, SpinModel(game.reel_set(rs if isinstance(rs, str) else None).name))


def bench_game(path: str) -> None:
    game = load_game(path)
    t = pay_tables(game)
    ra = plain(game)
    cycle = game.reel_set().cycle
    print(f"{game.name}: cycle {cycle:,}", flush=True)
    header()
    naive = seconds_per_stop(game) * cycle
    row("exact RTP (per-reel algebra)", measure(lambda: component_rtp(game), 9), 1e-3)

    def variance() -> object:
        # the whole path: enumerate the cycle, then the exact second moment
        return spin(game).win_distribution.variance()

    row("exact variance (distribution + moments)", measure(variance, 5), 0.1)
    dist = measure(lambda: joint_counts(t, ra), 9)
    row("exact full distribution", dist, 0.05, f"   naive loop ≈ {naive:,.0f} s → {naive / dist.cpu_min:,.0f}×"
        f"{'' if naive / dist.cpu_min >= 10_000 else ' MISSED (≥ 10,000×)'}")
    doubled_rs = dataclasses.replace(game.reel_set(), strips=tuple(s + s for s in game.reel_set().strips))
    ra2 = plain(game, doubled_rs)
    d2 = measure(lambda: joint_counts(t, ra2), 5)
    row(f"doubled strips ({doubled_rs.cycle:,} stops)", d2, 1.0, f"   naive ≈ {naive * 32:,.0f} s → "
        f"{naive * 32 / d2.cpu_min:,.0f}×")
    row("doubled strips, parallel kernel (all cores)", measure(lambda: joint_counts(t, ra2, parallel=True), 5))


def bench_sizzling() -> None:
    path = ROOT / "data/games/sizzling_hot.toml"
    if not path.exists() or not ANCHOR.exists():
        print("  Sizzling Hot: game or anchor missing, skipped")
        return
    anchor = json.loads(ANCHOR.read_text())
    ref = anchor["measured_here"]["99.088693"]["wall_s_1core_median"]
    game = load_game(path)
    for rs in game.reel_sets:
        if rs.cycle == anchor["published"]["99.088693"]["cycle"]:
            t = pay_tables(game)
            ra = plain(game, rs.name)
            sec = measure(lambda t=t, ra=ra: joint_counts(t, ra), 7)
            row(f"Sizzling Hot {rs.name} ({rs.cycle:,} stops)", sec, ref / 100,
                f"   anchor tool {ref} s → {ref / sec.cpu_min:,.0f}×")


def bench_cache_and_import() -> None:
    # a new process: the first call loads the kernels compiled at install (nothing compiles)
    code = ("import time,dataclasses;from mathkit.gamefile.io import load_game;from mathkit.spin.tables import pay_tables;"
            "from mathkit.exact.cycle import joint_counts;from mathkit.laws.stage import SpinModel;"
            "from mathkit.spin.stops import stop_tables;g=load_game('data/games/benchmark_5x3.toml');t=pay_tables(g);"
            "st=stop_tables(g,SpinModel('base'));c=time.process_time();w=time.perf_counter();joint_counts(t,st);"
            "print(time.process_time()-c,time.perf_counter()-w)")
    firsts = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                             env=os.environ | {"PYTHONPATH": str(ROOT)}).stdout.split()
        firsts.append((float(out[0]), float(out[1])))
    row("first call in a new process (kernels built at install)",
        Timing(tuple(c for c, _ in firsts), tuple(w for _, w in firsts)), 1.0)
    row("import mathkit (whole process)", measure_process([sys.executable, "-c", "import mathkit"], 5), 1.0)


def main() -> None:
    bench_game(str(ROOT / "data/games/benchmark_5x3.toml"))
    bench_sizzling()
    bench_cache_and_import()


if __name__ == "__main__":
    main()
