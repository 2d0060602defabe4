"""Feature blocks and the wider kernel contract (issue 9): the new figures, and the core figures against the code before.

Targets (one core): the three-scatter 5×3 game's full distribution ≤ 0.15 s; the
heights 3–7 game (80-stop strips, 10 lines per row) exact distribution at every
height ≤ 4 s in total; Dynasty's exact RTP the same Fraction; RTP, variance,
benchmark distribution, doubled strips and Sizzling Hot within 10% of the code
before the blocks (commit ``REFERENCE``), measured in the same run: that commit
is checked out in a temporary folder and timed by the same script.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

from benchmarks.timing import Timing, header, measure, row

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = "4bfd55f"
DYNASTY = Fraction(16727886585643, 17608262765184)

# Timed in a fresh process, in this tree and in the reference checkout alike (either API).
SCRIPT = r"""
import dataclasses, json, os, sys, time
from mathkit.gamefile.io import load_game
from mathkit.exact.cycle import joint_counts
from mathkit.exact import spin
from mathkit.exact.components import component_rtp
from mathkit.spin.tables import pay_tables
if os.environ["STOP_TABLES"] == "1":
    from mathkit.laws.stage import SpinModel
    from mathkit.spin.stops import stop_tables
    def tables(g, rs):
        g = dataclasses.replace(g, reel_sets=(rs,), default_reels=rs.name)
        return stop_tables(g, SpinModel(rs.name))
else:
    from mathkit.spin.tables import reel_arrays
    def tables(g, rs):
        return reel_arrays(g, rs)

def cpu(fn, repeat):
    fn()
    best = 1e9
    for _ in range(repeat):
        t = time.process_time(); fn(); best = min(best, time.process_time() - t)
    return best

out = {}
g = load_game("data/games/benchmark_5x3.toml")
t = pay_tables(g)
rs = g.reel_set()
ra = tables(g, rs)
out["RTP (per-reel algebra)"] = cpu(lambda: component_rtp(g), 7)
out["variance (enumeration + moments)"] = cpu(lambda: spin(g).win_distribution.variance(), 5)
out["benchmark distribution"] = cpu(lambda: joint_counts(t, ra), 7)
rs2 = dataclasses.replace(rs, strips=tuple(s + s for s in rs.strips))
ra2 = tables(g, rs2)
out["doubled strips"] = cpu(lambda: joint_counts(t, ra2), 3)
s = load_game("data/games/sizzling_hot.toml")
ts = pay_tables(s)
rss = [r for r in s.reel_sets if r.cycle == 90224199][0]
ras = tables(s, rss)
out["Sizzling Hot rtp99"] = cpu(lambda: joint_counts(ts, ras), 5)
print(json.dumps(out))
"""


def run_script(tree: Path, cache: Path) -> dict[str, float]:
    # the API is told by the tree, not by an import attempt: an editable install resolves modules
    # missing from an old tree in the installed one
    env = os.environ | {"PYTHONPATH": str(tree), "NUMBA_CACHE_DIR": str(cache),
                        "STOP_TABLES": "1" if (tree / "mathkit" / "stops.py").exists() else "0"}
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True, cwd=tree, env=env)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def new_figures() -> None:
    from mathkit.exact.cycle import joint_counts
    from mathkit.gamefile.io import load_game
    from mathkit.laws.stage import SpinModel
    from mathkit.round import rtp_breakdown
    from mathkit.spin.stops import stop_tables
    from mathkit.spin.tables import pay_tables

    dyn = sum(rtp_breakdown(load_game(ROOT / "data/games/dynasty.toml")).values(), Fraction(0))
    print(f"  Dynasty exact RTP {dyn} ({'unchanged' if dyn == DYNASTY else 'CHANGED from ' + str(DYNASTY)})")
    g = load_game(ROOT / "data/games/three_scatter_5x3.toml")
    st = stop_tables(g, SpinModel("base"))
    t = pay_tables(g)
    header()
    row(f"three scatter types: full distribution ({st.n_codes} codes)", measure(lambda: joint_counts(t, st), 7), 0.15)
    h = load_game(ROOT / "data/games/heights_3to7.toml")
    per_height = []
    for rows in range(3, 8):
        th = pay_tables(h, lines=10 * rows)
        sh = stop_tables(h, SpinModel("base", rows=rows))
        per_height.append(measure(lambda th=th, sh=sh: joint_counts(th, sh), 3))
        row(f"heights: {rows} rows, {10 * rows} lines", per_height[-1])
    # the total of each run's times (run i of every height), so its minimum and median are the totals'
    total = Timing(tuple(map(sum, zip(*(t.cpu for t in per_height), strict=True))),
                   tuple(map(sum, zip(*(t.wall for t in per_height), strict=True))))
    row("heights: every height in total", total, 4.0)


def against_reference() -> None:
    if shutil.which("git") is None or subprocess.run(["git", "cat-file", "-e", f"{REFERENCE}^{{commit}}"], check=False, cwd=ROOT,
                                                      capture_output=True).returncode != 0:
        print(f"  reference commit {REFERENCE} not available: the comparison is skipped")
        return
    with tempfile.TemporaryDirectory(prefix="mathkit-ref-") as tmp:
        ref = Path(tmp) / "ref"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(ref), REFERENCE], cwd=ROOT, check=True)
        try:
            before = run_script(ref, Path(tmp) / "cache-ref")
            now = run_script(ROOT, Path(tmp) / "cache-now")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(ref)], cwd=ROOT, check=False)
    print(f"  core figures, CPU seconds (best of several), this tree against {REFERENCE} (before the blocks):")
    for key, old in before.items():
        new = now[key]
        ok = new <= 1.10 * old
        print(f"    {key:<40} before {old * 1e3:9.2f} ms  now {new * 1e3:9.2f} ms  ratio {new / old:5.2f}"
              f"{'  ok' if ok else '  MISSED (target ≤ 1.10)'}", flush=True)


def main() -> None:
    new_figures()
    against_reference()


if __name__ == "__main__":
    main()
