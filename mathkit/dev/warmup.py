"""Compile every kernel once, at install, so that no user waits for a compiler: ``python -m mathkit.dev.warmup``.

``make venv`` (and so ``make lab`` and ``make test``) runs it after installing
the package, and again whenever a kernel source changes.  It

1. runs the enumeration kernels (lines and ways, dense and sparse, serial and
   threaded, one reel to five) and the simulator on small games, so numba compiles
   each of them for the argument types real runs use and caches the machine code
   on disk (``.numba_cache`` in the checkout: :mod:`mathkit` points numba there);
2. compiles the serial enumeration kernels ahead of time into one extension
   module (:mod:`mathkit.exact.cycle.aot`), which a one-shot ``mathkit par`` loads in
   milliseconds without importing numba.  Without a C compiler this step is
   skipped with a warning; the kernels then load from numba's cache instead;
3. byte-compiles the package's modules (``__pycache__``), as a regular ``pip install``
   does, so that a process started where ``PYTHONDONTWRITEBYTECODE`` is set (or the
   checkout is read-only) does not compile mathkit's sources on every start (about
   0.15 s of a one-shot ``mathkit par``).  This runs every time: it only rewrites
   what is stale.

On a machine of two cores or more, the simulator's kernels (and the free-game chain's) compile in a second
process while this one compiles the enumeration kernels and builds the extension (``--serial``: one after
the other); the kernels of the two lanes share nothing, and numba's cache takes each by an atomic rename.

When everything is compiled already, :func:`warm` only loads the cached code
(about a second) and leaves the extension alone.  The workbench calls it
before its first computation, with a ``progress`` callback to show a progress
indicator while a step runs (see :func:`warm`).

Examples
--------
>>> steps = [label for label, _ in STEPS]
>>> steps[0]
'enumeration kernels: lines, ways, sparse, one reel'
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError
from ..exact.cycle import kernels
from ..gamefile.io import load_game, loads_game
from ..model.game import Game

__all__ = ["STEPS", "StepTime", "bytecode", "ready", "warm"]

PACKAGE = Path(__file__).resolve().parents[1]
GAMES = PACKAGE.parent / "data" / "games"
#: the sources of every compiled kernel (a change to one means compiling again)
KERNEL_SOURCES = ("exact/cycle/*.py", "sim/*.py", "sim/words/*.py", "spin/evaluate.py", "chains/freespins/growing.py",
                  "round/rare.py",
                  "dev/warmup.py")

# small games of every kind the enumeration handles (a design of our own, for compiling only)
_LINES_5 = """
name = "warm-up 5x3"
paylines = [[1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0]]
[bet]
lines = 4
[symbols.W]
kind = "wild"
substitutes = "all"
multiplier = 2
[symbols.S]
kind = "scatter"
[symbols.A]
[symbols.B]
[symbols.C]
[reels.base]
rows = 3
strips = ["W A B C S A B C", "A W B C A S B C", "A B W C A B S C", "A B C W A B C S", "S A B C A B C W"]
[paytable]
A = { 3 = 5, 4 = 10, 5 = 50 }
B = { 3 = 4, 4 = 8, 5 = 40 }
C = { 2 = 1, 3 = 3, 4 = 6, 5 = 30 }
[scatter_pays]
S = { 3 = 2, 4 = 10 }
"""
_WAYS_4 = """
name = "warm-up ways"
pay_mode = "ways"
[bet]
lines = 10
[symbols.W]
kind = "wild"
substitutes = "all"
[symbols.A]
[symbols.B]
[reels.base]
rows = 3
strips = ["A B W A B", "B A W B A", "A B A W B", "B W A B A"]
[paytable]
A = { 3 = 2, 4 = 6 }
B = { 3 = 1, 4 = 4 }
"""
_ONE_REEL = """
name = "warm-up one reel"
paylines = [[0], [1]]
[bet]
lines = 2
[symbols.A]
[symbols.B]
[reels.base]
rows = 2
strips = ["A B A B B"]
[paytable]
A = { 1 = 2 }
"""


@contextlib.contextmanager
def _patched(module: object, **values: object) -> Iterator[None]:
    old = {k: getattr(module, k) for k in values}
    for k, v in values.items():
        setattr(module, k, v)
    try:
        yield
    finally:
        for k, v in old.items():
            setattr(module, k, v)


def _small_games() -> list[Game]:
    games = [loads_game(text) for text in (_LINES_5, _WAYS_4, _ONE_REEL)]
    games += [load_game(GAMES / name) for name in ("classic_3reel.toml",) if (GAMES / name).exists()]
    return games


def _enumeration() -> None:
    """Every enumeration path through numba: dense and sparse tables, serial and threaded, every game shape."""
    from ..exact.base import spin
    from ..exact.cycle import lines

    with kernels.use("jit"):
        for game in _small_games():
            spin(game)
            with _patched(lines, DENSE_LIMIT=0):
                spin(game)
            with _patched(lines, PARALLEL_MIN=0):
                spin(game, parallel=True)


def _simulator() -> None:
    from ..sim import simulate

    def heights(text: str, lines: int) -> Game:  # the same game drawn 2 or 3 rows high, at a fixed bet
        bet = f"[bet]\nlines = {lines}\n"
        return loads_game(text.replace(bet, bet + f"total = {lines}\n")
                          + "[variable_heights]\nheights = { 2 = 1, 3 = 1 }\nlines_per_row = 1\n")

    # the driver's builds that games reach: lines with one base variant or several (a modifier's), ways
    games = [loads_game(_LINES_5), heights(_LINES_5, 4), loads_game(_WAYS_4)]
    games += [load_game(GAMES / n) for n in ("dynasty_small.toml",) if (GAMES / n).exists()]
    for game in games:
        simulate(game, 20_000, seed=1, progress=False)
    import numpy as np

    from ..sim.line_hits import sample_line_hits  # the sampled hit frequency per line of `mathkit simulate`

    sample_line_hits(games[0], 1_000, rng=np.random.default_rng(1))


def _growing() -> None:
    """The free-game chain on a growing window (its distribution kernel): two heights that retrigger and grow."""
    from fractions import Fraction

    import numpy as np

    from ..chains.freespins.growing import GrowingChain, HeightGame
    from ..laws.law import WinLaw
    from ..laws.stage import Branch

    def height(win: int, p_add: Fraction) -> HeightGame:
        law = WinLaw(np.array([0, win], dtype=np.int64), np.array([0.5, 0.5]))
        mean = Fraction(win, 2)
        return HeightGame(mean, {0: Branch(1 - p_add, mean, mean * win, law), 2: Branch(p_add, mean, mean * win, law)})

    grow = {1: {1: Fraction(3, 4), 2: Fraction(1, 4)}, 2: {2: Fraction(1)}}
    GrowingChain((1, 2), {1: height(2, Fraction(1, 10)), 2: height(5, Fraction(1, 5))}, grow).distributions([(2, 1)])


def _rare() -> None:
    """The sticky free-spin kernel of the PAR sheet's importance sampling (:mod:`mathkit.round.rare`)."""
    import numpy as np

    from ..features.sticky_spins import StickyFreeSpins
    from ..round.rare import sticky_wins

    game = load_game(GAMES / "warlords.toml")
    feature = next(f for f in game.features if isinstance(f, StickyFreeSpins))
    sticky_wins(game, feature, np.array([0b111, 1 << 14], dtype=np.int64), seed=1)


def _extension() -> None:
    if kernels.aot_status() == "in use":
        return
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        print("warning: no C compiler; the kernels load from numba's cache (no ahead-of-time extension)",
              file=sys.stderr)
        return
    from ..exact.cycle import aot

    with kernels.use("jit"):
        _enumeration()  # make sure every kernel was compiled in this process (cache hits are quick)
        aot.build()
    kernels.K.set_mode(kernels.K.mode)  # forget the kernels resolved before the extension existed
    status = kernels.aot_status()
    if status != "in use":
        msg = f"the ahead-of-time extension was built but is {status}"
        raise ModelError(msg)


#: what :func:`warm` runs, in order: (label, step)
STEPS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("enumeration kernels: lines, ways, sparse, one reel", _enumeration),
    ("simulator kernels", _simulator),
    ("free-game chain kernel (growing window)", _growing),
    ("sticky free-spin kernel (importance sampling)", _rare),
    ("ahead-of-time extension of the enumeration kernels", _extension),
)
#: the steps a second process compiles meanwhile (their kernels share nothing with the others'; the
#: extension needs the enumeration kernels, so those two stay in this process, in order)
SIDE_LANE = frozenset({_simulator, _growing, _rare})


def _stamp() -> Path:
    """Where a finished warm-up records what it compiled: beside numba's cache."""
    cache = os.environ.get("NUMBA_CACHE_DIR")
    return (Path(cache) if cache else PACKAGE / "__pycache__") / "mathkit-warmup.json"


def _key() -> str:
    h = hashlib.sha256()
    for pattern in KERNEL_SOURCES:
        for path in sorted(PACKAGE.glob(pattern)):
            h.update(path.name.encode())
            h.update(path.read_bytes())
    for part in (sys.version, importlib.metadata.version("numba"), importlib.metadata.version("numpy"),
                 os.environ.get("NUMBA_CACHE_DIR", "")):
        h.update(part.encode())
    return h.hexdigest()


def ready() -> bool:
    """Whether every kernel is compiled for these sources and versions (a cheap check: no kernel is loaded)."""
    try:
        stamp = json.loads(_stamp().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(stamp.get("key") == _key() and (not stamp.get("aot") or kernels.aot_status() == "in use"))


@dataclass(frozen=True)
class StepTime:
    """How long one warm-up step took (wall seconds)."""

    label: str
    seconds: float


def bytecode() -> bool:
    """Byte-compile every module of the package whose ``__pycache__`` entry is missing or stale.

    Returns whether every module compiled (a syntax error is reported by Python's
    compiler on stderr, and the module then compiles again when imported).
    """
    return bool(compileall.compile_dir(PACKAGE, quiet=2, workers=1))


def _start_side_lane() -> subprocess.Popen[str]:
    """The :data:`SIDE_LANE` steps in a second process (``--side-lane``), on the machine's second core."""
    return subprocess.Popen([sys.executable, "-m", "mathkit.dev.warmup", "--side-lane"], stdout=subprocess.PIPE,
                            text=True)


def _finish_side_lane(proc: subprocess.Popen[str]) -> list[StepTime]:
    out, _ = proc.communicate()
    if proc.returncode != 0:
        msg = (f"compiling the simulator kernels in a second process failed (exit {proc.returncode}); "
               "run `python -m mathkit.dev.warmup --serial` to see why")
        raise ModelError(msg)
    return [StepTime(str(label), float(sec)) for label, sec in json.loads(out.strip().splitlines()[-1])]


def _side_lane() -> int:
    """Run the :data:`SIDE_LANE` steps here and print their times as one JSON line (for :func:`_finish_side_lane`)."""
    times = []
    for label, step in STEPS:
        if step in SIDE_LANE:
            t0 = time.perf_counter()
            step()
            times.append((label, time.perf_counter() - t0))
    print(json.dumps(times), flush=True)
    return 0


def warm(progress: Callable[[int, int, str], None] | None = None, *, aot: bool = True,
         force: bool = False, parallel: bool | None = None) -> list[StepTime]:
    """Compile every kernel that is not compiled yet; returns each step's time (none when :func:`ready`).

    ``progress(i, n, label)`` is called before step ``i`` of ``n`` (and with ``i == n`` at the
    end): the hook a user interface shows a progress indicator with.  ``aot=False`` skips the
    ahead-of-time extension; ``force`` runs every step even when :func:`ready`.  ``parallel``
    (default: on a machine of two cores or more) compiles the simulator's kernels in a second
    process while this one compiles the enumeration's and builds the extension.
    """
    steps = [s for s in STEPS if aot or s[1] is not _extension]
    bytecode()
    if ready() and not force:
        if progress is not None:
            progress(len(steps), len(steps), "done")
        return []
    if parallel is None:
        parallel = (os.cpu_count() or 1) >= 2
    side = _start_side_lane() if parallel else None
    out = []
    for i, (label, step) in enumerate(steps):
        if side is not None and step in SIDE_LANE:
            if progress is not None:
                progress(i, len(steps), f"{label} (in a second process, meanwhile)")
            continue
        if progress is not None:
            progress(i, len(steps), label)
        t0 = time.perf_counter()
        step()
        out.append(StepTime(label, time.perf_counter() - t0))
    if side is not None:
        out += _finish_side_lane(side)
    stamp = _stamp()
    stamp.parent.mkdir(parents=True, exist_ok=True)
    tmp = stamp.with_name(f".{stamp.name}.tmp")
    tmp.write_text(json.dumps({"key": _key(), "aot": kernels.aot_status() == "in use"}) + "\n", encoding="utf-8")
    os.replace(tmp, stamp)
    if progress is not None:
        progress(len(steps), len(steps), "done")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mathkit.dev.warmup", description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", action="store_true", help="print nothing unless something fails")
    parser.add_argument("--no-aot", action="store_true", help="do not build the ahead-of-time extension")
    parser.add_argument("--force", action="store_true", help="run every step even if everything is compiled")
    parser.add_argument("--status", action="store_true", help="only say whether the kernels are compiled")
    parser.add_argument("--serial", action="store_true", help="one step after the other in this process")
    parser.add_argument("--side-lane", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.side_lane:
        return _side_lane()
    if args.status:
        print(f"kernels compiled for these sources: {'yes' if ready() else 'no'}")
        print(f"ahead-of-time kernels: {kernels.aot_status()}")
        return 0

    def say(i: int, n: int, label: str) -> None:
        if not args.quiet and i < n:
            print(f"[{i + 1}/{n}] {label} ...", flush=True)

    t0 = time.perf_counter()
    times = warm(say, aot=not args.no_aot, force=args.force, parallel=False if args.serial else None)
    if not args.quiet:
        for step in times:
            print(f"      {step.label}: {step.seconds:.1f} s")
        if times:
            print(f"      in all: {time.perf_counter() - t0:.1f} s wall")
        print("kernels: " + ("compiled now" if times else "already compiled"))
        print(f"ahead-of-time kernels: {kernels.aot_status()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
