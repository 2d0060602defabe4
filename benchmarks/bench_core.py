"""Core engine: exact RTP, variance and full distribution against a naive loop; doubled strips; Sizzling Hot.

Targets (issue 2, one core after JIT warm-up): RTP ≤ 1 ms; variance ≤ 100 ms;
distribution ≤ 0.05 s and ≥ 10,000× the naive loop; doubled game ≤ 1 s;
Sizzling Hot's 90.2M-stop set ≥ 100× faster than the anchor tool's 8.85 s.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.naive import seconds_per_stop
from mathkit.cycle import joint_counts
from mathkit.exact import spin
from mathkit.game import Game, ReelSet
from mathkit.io import load_game
from mathkit.rtp import component_rtp
from mathkit.stage import SpinModel
from mathkit.stops import StopTables, stop_tables
from mathkit.tables import pay_tables

ROOT = Path(__file__).resolve().parents[1]
ANCHOR = ROOT.parent / "shared" / "anchors" / "sizzling-hot.json"


def plain(game: Game, rs: ReelSet | str | None = None) -> StopTables:
    """The stop tables of a plain spin of reel set ``rs`` (a name, a set of its own, or the default)."""
    if isinstance(rs, ReelSet):
        game = dataclasses.replace(game, reel_sets=(rs,), default_reels=rs.name)
    return stop_tables(game, SpinModel(game.reel_set(rs if isinstance(rs, str) else None).name))


def best_of(fn: Callable[[], object], repeat: int = 7) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def row(label: str, seconds: float, target: float | None = None, extra: str = "") -> None:
    status = "" if target is None else ("  ok" if seconds <= target else f"  MISSED (target {target * 1e3:g} ms)")
    print(f"  {label:<44} {seconds * 1e3:10.2f} ms{status}{extra}", flush=True)


def bench_game(path: str) -> None:
    game = load_game(path)
    t = pay_tables(game)
    ra = plain(game)
    cycle = game.reel_set().cycle
    print(f"{game.name}: cycle {cycle:,}", flush=True)
    naive = seconds_per_stop(game) * cycle
    row("exact RTP (per-reel algebra)", best_of(lambda: component_rtp(game)), 1e-3)
    def variance() -> object:
        # the whole path: enumerate the cycle, then the exact second moment
        return spin(game).win_distribution.variance()

    row("exact variance (distribution + moments)", best_of(variance, 5), 0.1)
    dist = best_of(lambda: joint_counts(t, ra))
    row("exact full distribution", dist, 0.05, f"   naive loop ≈ {naive:,.0f} s → {naive / dist:,.0f}×")
    doubled_rs = dataclasses.replace(game.reel_set(), strips=tuple(s + s for s in game.reel_set().strips))
    ra2 = plain(game, doubled_rs)
    d2 = best_of(lambda: joint_counts(t, ra2), 3)
    row(f"doubled strips ({doubled_rs.cycle:,} stops)", d2, 1.0, f"   naive ≈ {naive * 32:,.0f} s → "
        f"{naive * 32 / d2:,.0f}×")
    d2p = best_of(lambda: joint_counts(t, ra2, parallel=True), 3)
    row("doubled strips, parallel kernel (all cores)", d2p)


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
            sec = best_of(lambda t=t, ra=ra: joint_counts(t, ra), 5)
            row(f"Sizzling Hot {rs.name} ({rs.cycle:,} stops)", sec, ref / 100,
                f"   anchor tool {ref} s → {ref / sec:,.0f}×")


def bench_cache_and_import() -> None:
    code = ("import time,resource;import numpy as np;from mathkit.io import load_game;"
            "from mathkit.tables import pay_tables;from mathkit.cycle import joint_counts;"
            "from mathkit.stage import SpinModel;from mathkit.stops import stop_tables;"
            "import dataclasses;g=load_game('data/games/benchmark_5x3.toml');rs=g.reel_set();"
            "rs2=dataclasses.replace(rs,strips=tuple(s+s for s in rs.strips));t=pay_tables(g);"
            "ra=stop_tables(dataclasses.replace(g,reel_sets=(rs2,)),SpinModel('base'));"
            "t0=time.perf_counter();joint_counts(t,stop_tables(g,SpinModel('base')),parallel=True);"
            "first=time.perf_counter()-t0;"
            "r0=resource.getrusage(resource.RUSAGE_SELF);w0=time.perf_counter();joint_counts(t,ra,parallel=True);"
            "w=time.perf_counter()-w0;r1=resource.getrusage(resource.RUSAGE_SELF);"
            "cpu=(r1.ru_utime-r0.ru_utime)+(r1.ru_stime-r0.ru_stime);"
            "print(first,cpu/w,joint_counts(t,ra,parallel=True).threads)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env=os.environ | {"PYTHONPATH": str(ROOT)}).stdout.split()
    first, ratio, threads = float(out[0]), float(out[1]), int(out[2])
    row("first call in a new process (JIT cache on disk)", first, 1.0)
    print(f"  cached parallel kernel in a new process: ran on {threads} threads of {os.cpu_count()} cores "
          f"({'parallel' if threads > 1 else 'NOT parallel'}); CPU time / wall time = {ratio:.2f}", flush=True)
    imp = subprocess.run([sys.executable, "-c", "import time;t=time.perf_counter();import mathkit;"
                          "print(time.perf_counter()-t)"], capture_output=True, text=True, check=True, cwd=ROOT,
                         env=os.environ | {"PYTHONPATH": str(ROOT)}).stdout
    row("import mathkit (no kernel run)", float(imp), 1.0)


def main() -> None:
    bench_game(str(ROOT / "data/games/benchmark_5x3.toml"))
    bench_sizzling()
    bench_cache_and_import()


if __name__ == "__main__":
    main()
