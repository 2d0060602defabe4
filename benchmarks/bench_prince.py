"""Prince of Riches: the full PAR sheet and the RTP after an edit (issue 10), against a naive baseline.

Targets: the full PAR sheet (every height, cash stacks, jackpots, growing free games; exact
enumeration, the chain and its distribution) ≤ 20 s on 2 cores; after an edit (a strip stop,
an activator value, the height law) the RTP with every feature, mean only
(:func:`mathkit.round.rtp_breakdown`), ≤ 0.2 s.  CPU time is printed beside wall time
(the machine is shared: judge on CPU).  The naive baseline visits stop combinations of the
tallest window one by one in plain Python (:mod:`benchmarks.naive`): its full-cycle time for
one height is extrapolated from a sample, lines only, no feature.
Run with ``python -m benchmarks prince``.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from benchmarks.naive import seconds_per_stop
from mathkit.features.cash_stacks import CashStacks
from mathkit.features.heights import VariableHeights
from mathkit.gamefile.io import load_game
from mathkit.model.game import Game
from mathkit.report.par import build_par
from mathkit.round import rtp_breakdown

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "data" / "games" / "prince_of_riches.toml"


def measure(fn: Callable[[], object]) -> tuple[float, float]:
    """(CPU seconds of this process and its threads, wall seconds) of one call."""
    c, w = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - c, time.perf_counter() - w


def row(label: str, cpu: float, wall: float, target: float | None = None, on: str = "wall") -> None:
    value = wall if on == "wall" else cpu
    status = "" if target is None else ("  ok" if value <= target else f"  MISSED (target {target:g} s {on})")
    print(f"  {label:<56} cpu {cpu:8.3f} s  wall {wall:8.3f} s{status}", flush=True)


def edits(game: Game) -> list[tuple[str, Game]]:
    """Three edits a designer makes: a strip stop, an activator's value, the height law."""
    rs = game.reel_set("base")
    strip = list(rs.strips[1])
    i = strip.index("K")
    strip[i] = "Q"
    reel = dataclasses.replace(rs, strips=(rs.strips[0], tuple(strip), *rs.strips[2:]))
    out = [("a stop of reel 2 (K → Q)", dataclasses.replace(game, reel_sets=(reel,)))]
    cash, heights = game.feature("cash_stacks"), game.feature("variable_heights")
    assert isinstance(cash, CashStacks) and isinstance(heights, VariableHeights)
    values = tuple((name, Fraction(4) if name == "ACT5" else v) for name, v in cash.activators)
    out.append(("ACT5's value (5× → 4× bet)", game.with_features(dataclasses.replace(cash, activators=values))))
    law = tuple((h, w + (5 if h == 7 else -5 if h == 3 else 0)) for h, w in heights.heights)
    out.append(("the height law (5 of weight from 3 rows to 7)",
                game.with_features(dataclasses.replace(heights, heights=law))))
    return out


def main() -> None:
    game = load_game(GAME)
    rs = game.reel_set()
    print(f"{game.name}: 5 reels × {len(rs.strips[0])} stops (reel 3 weighted), cycle {rs.cycle:,} per height, "
          "heights 3–7, 30–70 lines")
    rtp_breakdown(game)  # compile and load every kernel once
    base = sum(rtp_breakdown(game).values(), Fraction(0))
    for label, g in edits(game):
        if sum(rtp_breakdown(g).values(), Fraction(0)) == base:
            msg = f"the edit {label!r} does not change the RTP: the benchmark would time nothing"
            raise AssertionError(msg)
        best_cpu = best_wall = 1e9
        for _ in range(3):
            cpu, wall = measure(lambda g=g: rtp_breakdown(g))
            best_cpu, best_wall = min(best_cpu, cpu), min(best_wall, wall)
        row(f"RTP after an edit: {label}", best_cpu, best_wall, 0.2, on="cpu")
    parts = rtp_breakdown(game)
    total = sum(parts.values(), Fraction(0))
    print(f"  RTP {float(total):.8%} (declared 96.00%)")
    cpu, wall = measure(lambda: build_par(game, parallel=True))
    row("full PAR sheet (2 cores: the enumeration kernel in parallel)", cpu, wall, 20.0)
    tall = dataclasses.replace(game, bet=dataclasses.replace(game.bet, lines=70), features=())
    per = seconds_per_stop(tall, sample=2000)
    naive = per * math.prod(len(s) for s in rs.strips)
    print(f"  naive baseline: {per * 1e6:.1f} µs per stop combination of the 7-row window, lines only: "
          f"{naive / 3600:,.0f} h for one height's cycle; the full PAR sheet is {naive / wall:,.0f}× faster "
          "for every height and feature")


if __name__ == "__main__":
    main()
