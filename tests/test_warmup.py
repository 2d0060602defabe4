"""No compiler on the user's clock: after the install-time warm-up nothing compiles, and a one-shot PAR needs no numba.

``make test`` runs ``python -m mathkit.dev.warmup`` first (as ``make venv`` and
``make lab`` do), so here every kernel is compiled already.  Fresh processes
check what a user meets: the numba dispatchers they call report no cache miss
(nothing was compiled), and ``mathkit par`` on a lines game never imports numba
(the ahead-of-time kernels) and prints the same PAR sheet as numba's kernels.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mathkit.dev import warmup
from mathkit.exact.cycle import kernels
from mathkit.gamefile.io import load_game
from mathkit.report.par import build_par
from mathkit.report.text import par_to_dict

ROOT = Path(__file__).resolve().parents[1]
needs_warm = pytest.mark.skipif(not warmup.ready(), reason="kernels not compiled yet: python -m mathkit.dev.warmup")


def run_python(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``code`` run in a fresh Python (``env``: its whole environment, default this one's)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, cwd=ROOT,
                          env=(os.environ if env is None else env) | {"PYTHONPATH": str(ROOT)}, check=True,
                          timeout=600)


def test_the_warm_up_key_covers_the_simulator_words() -> None:
    # a new or changed simulator word is a new driver text (mathkit.sim.driver): unless the warm-up's key reads
    # the words, it reports "already compiled" and each build of the new driver compiles on first use
    covered = {p for pattern in warmup.KERNEL_SOURCES for p in warmup.PACKAGE.glob(pattern)}
    words = set((warmup.PACKAGE / "sim" / "words").glob("*.py"))
    assert words and words <= covered


@needs_warm
def test_warm_is_quick_once_done_and_reports_progress() -> None:
    seen: list[tuple[int, int, str]] = []
    assert warmup.warm(lambda i, n, label: seen.append((i, n, label))) == []  # nothing left to compile
    assert seen == [(len(warmup.STEPS), len(warmup.STEPS), "done")]


@needs_warm
def test_the_simulator_kernels_compile_in_a_second_process() -> None:
    # forced, with every kernel cached: each step only loads; the side lane's steps come back from the second process
    seen: list[str] = []
    times = warmup.warm(lambda i, n, label: seen.append(label), aot=False, force=True, parallel=True)
    side = [label for label, step in warmup.STEPS if step in warmup.SIDE_LANE]
    assert side and sorted(t.label for t in times) == sorted(label for label, step in warmup.STEPS
                                                             if step is not warmup._extension)
    assert all(f"{label} (in a second process, meanwhile)" in seen for label in side)
    assert warmup.ready()


@needs_warm
def test_nothing_compiles_after_the_warm_up() -> None:
    # a new process runs what users run; every numba dispatcher it touched must have loaded from the cache
    out = run_python("""
        import sys
        import mathkit.exact.cycle.lines as lines
        from mathkit.exact.cycle import kernels
        from mathkit.gamefile.io import load_game
        from mathkit.exact import spin
        from mathkit.sim import simulate
        from mathkit.round import analyse
        game = load_game("data/games/dynasty_small.toml")
        analyse(game, level="distribution")
        simulate(game, 10_000, seed=3, progress=False)
        lines.PARALLEL_MIN = 0
        spin(load_game("data/games/benchmark_5x3.toml"), parallel=True)
        with kernels.use("jit"):
            spin(game)
        from mathkit.chains.freespins.growing import GrowingChain, HeightGame
        from mathkit.laws.stage import Branch
        from mathkit.laws.law import WinLaw
        from fractions import Fraction as F
        import numpy as np
        law = WinLaw(np.array([0, 7], dtype=np.int64), np.array([0.75, 0.25]))  # a window that grows and retriggers
        games = {h: HeightGame(F(7, 4), {0: Branch(F(9, 10), F(7, 4), F(49, 4), law),
                                         3: Branch(F(1, 10), F(7, 4), F(49, 4), law)}) for h in (3, 4)}
        GrowingChain((3, 4), games, {3: {3: F(1, 2), 4: F(1, 2)}}).distributions([(5, 3)])
        from mathkit.features.sticky_spins import StickyFreeSpins
        from mathkit.round.rare import sticky_wins  # the PAR sheet's importance sampling of Warlords' Samurai route
        warlords = load_game("data/games/warlords.toml")
        samurai = next(f for f in warlords.features if isinstance(f, StickyFreeSpins))
        sticky_wins(warlords, samurai, np.array([7, 1 << 14], dtype=np.int64), seed=2)
        from numba.core.dispatcher import Dispatcher
        missed = sorted(f"{m}.{k}" for m, mod in list(sys.modules.items()) if m.startswith("mathkit")
                        for k, v in vars(mod).items() if isinstance(v, Dispatcher) and sum(v.stats.cache_misses.values()))
        used = sum(1 for m, mod in list(sys.modules.items()) if m.startswith("mathkit")
                   for v in vars(mod).values() if isinstance(v, Dispatcher) and sum(v.stats.cache_hits.values()))
        print(used, missed)
    """)
    used, missed = out.stdout.split(" ", 1)
    assert int(used) > 10  # the check saw the kernels
    assert missed.strip() == "[]", f"compiled on first use: {missed}"


@needs_warm
@pytest.mark.skipif(kernels.aot_status() != "in use", reason="no ahead-of-time extension (no C compiler?)")
def test_one_shot_par_needs_no_numba_and_prints_the_same_sheet() -> None:
    out = run_python("""
        import sys
        from mathkit.cli import main
        status = main(["par", "data/games/sizzling_hot.toml", "--reels", "rtp99", "--json"])
        print("numba imported:", "numba" in sys.modules, "scipy imported:", "scipy" in sys.modules, file=sys.stderr)
        # what a lines game without features never needs: saves (tomlkit), XLSX and exports, the simulator's
        # vocabulary, numpy's masked arrays (np.unique without return_inverse imports them)
        lazy = ("tomlkit", "openpyxl", "mathkit.export", "mathkit.report.sensitivity", "mathkit.play.vocabulary",
                "mathkit.sim.routes", "mathkit.sim.run",
                "numpy.ma", "sympy", "plotly")
        print("also imported:", [m for m in lazy if m in sys.modules], file=sys.stderr)
        sys.exit(status)
    """)
    assert "numba imported: False scipy imported: False" in out.stderr
    assert "also imported: []" in out.stderr
    with kernels.use("jit"):
        expected = par_to_dict(build_par(load_game(ROOT / "data/games/sizzling_hot.toml"), "rtp99"))
    assert json.loads(out.stdout) == json.loads(json.dumps(expected))


def test_help_imports_no_numpy() -> None:
    out = run_python("""
        import sys
        from mathkit.cli import main
        try:
            main(["--help"])
        except SystemExit:
            pass
        print("numpy imported:", "numpy" in sys.modules)
    """)
    assert "numpy imported: False" in out.stdout


def test_the_warm_up_leaves_every_module_byte_compiled() -> None:
    # a process started with PYTHONDONTWRITEBYTECODE (or from a read-only checkout) would otherwise compile
    # mathkit's sources on every start: about 0.15 s of a one-shot `mathkit par`
    assert warmup.bytecode()
    stale = []
    for source in sorted(Path(warmup.__file__).parent.rglob("*.py")):
        cached = Path(importlib.util.cache_from_source(str(source)))
        header = cached.read_bytes()[:16] if cached.exists() else b""
        if header[:4] != importlib.util.MAGIC_NUMBER or int.from_bytes(header[8:12], "little") != \
                int(source.stat().st_mtime) & 0xFFFFFFFF:
            stale.append(str(source.relative_to(ROOT)))
    assert stale == []


@pytest.mark.parametrize(("given", "expected"), [
    ({}, "PASSIVE 100000"),  # mathkit's choice: a short spin, then sleep
    ({"OMP_WAIT_POLICY": "ACTIVE"}, "ACTIVE None"),  # the user's policy is kept and not capped
    ({"GOMP_SPINCOUNT": "7"}, "PASSIVE 7"),
])
def test_openmp_threads_spin_briefly_unless_the_user_says(given: dict[str, str], expected: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    out = run_python("import os, mathkit; print(os.environ.get('OMP_WAIT_POLICY'), os.environ.get('GOMP_SPINCOUNT'))",
                     env | given)
    assert out.stdout.split() == expected.split()
