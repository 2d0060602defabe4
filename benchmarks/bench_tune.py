"""Tuning: Dynasty to 94.00% (RTP alone; with σ, hit-frequency and feature-frequency bands), its 92/94/96 variants
(each keeping the σ and hit-frequency bands of the file's ``[targets]``).

TargetSet (issue 18, 2 cores): RTP alone ≤ 5 s; with the σ, hit-frequency and
feature-frequency bands ≤ 20 s; the three variants together ≤ 30 s.  Each row
gives wall and CPU time (the machine is shared: judge by CPU), the exact result
and the edits, and the ratio to a naive tuner measured in the same run: a greedy
search that evaluates every one-stop replacement of the base strips exactly
before each move (one such step is timed on a sample and extrapolated; a tune
takes several steps, so the ratio understates the gain).
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable
from fractions import Fraction
from typing import TypeVar

from mathkit.gamefile.io import load_game
from mathkit.model.edits import with_reel_set
from mathkit.model.game import Game
from mathkit.report.sensitivity import pay_sensitivity, symbol_sensitivity
from mathkit.tuner import TOLERANCE, Target, TargetSet, TuneResult, measure, tune, tune_variants

T = TypeVar("T")
DYNASTY = "data/games/dynasty.toml"
BENCH = "data/games/benchmark_5x3.toml"


def timed(fn: Callable[[], T]) -> tuple[float, float, T]:
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


def naive_step(game: Game, level: str, sample: int = 12) -> tuple[float, int]:
    """CPU seconds of one naive step (every one-stop replacement of the default set, exact), and its size."""
    rs = game.reel_set()
    fixed = {s.name for s in game.symbols if s.kind != "regular"}
    regular = [s for s in game.symbol_names if s not in fixed]
    moves = [(r, i, t) for r, strip in enumerate(rs.strips) for i, s in enumerate(strip) if s not in fixed
             for t in regular if t != s]
    rng = random.Random(0)
    picked = rng.sample(moves, min(sample, len(moves)))
    c0 = time.process_time()
    for r, i, t in picked:
        strips = list(rs.strips)
        strip = list(strips[r])
        strip[i] = t
        strips[r] = tuple(strip)
        measure(with_reel_set(game, dataclasses.replace(rs, strips=tuple(strips))), level=level)  # type: ignore[arg-type]
    return (time.process_time() - c0) / len(picked) * len(moves), len(moves)


def report(label: str, wall: float, cpu: float, res: TuneResult, target_s: float, naive: float) -> None:
    ok = res.best.reached
    status = "ok" if cpu <= target_s else f"MISSED (target {target_s:g} s)"
    f = res.best.figures
    print(f"  {label:<44} wall {wall:6.2f} s  CPU {cpu:6.2f} s  {status:<8} RTP {100 * float(f.rtp):.5f}% "
          f"σ {f.sd:.3f}  {res.best.edits.count} edits  {'all targets met' if ok else 'NOT MET: ' + '; '.join(res.notes)}"
          f"  naive step ≈ {naive:,.0f} s CPU → {naive / cpu:,.0f}×", flush=True)


def main() -> None:
    dyn = load_game(DYNASTY)
    before = measure(dyn, level="moments")
    print(f"{dyn.name}: RTP {100 * float(before.rtp):.4f}%, σ {before.sd:.4f}, hit frequency "
          f"{100 * float(before.hit_frequency or 0):.4f}%, feature 1 in {before.feature_one_in:.1f}", flush=True)
    tune(dyn, "0.93")  # JIT and caches warm
    mean_step, n_moves = naive_step(dyn, "mean")
    moments_step, _ = naive_step(dyn, "moments", sample=4)
    print(f"  naive step: {n_moves:,} one-stop replacements, ≈ {mean_step:.1f} s CPU at the mean level, "
          f"≈ {moments_step:,.0f} s CPU with σ and hit frequency", flush=True)
    alone = TargetSet((Target.of("rtp", Fraction("0.94")),))  # not the file's σ and hit-frequency bands
    wall, cpu, res = timed(lambda: tune(dyn, alone))
    report("→ 94% (RTP alone)", wall, cpu, res, 5.0, mean_step)
    assert abs(res.rtp - Fraction("0.94")) <= TOLERANCE
    n0 = Fraction(1) / before.feature_p if before.feature_p else Fraction(0)
    bands = [Target.of("rtp", Fraction("0.94")), Target.of("sd", Fraction("6.5")),
             Target.of("hit_frequency", Fraction("0.30")), Target.of("feature_frequency", n0)]
    wall, cpu, res = timed(lambda: tune(dyn, bands))
    report("→ 94% with σ 6.5, hit freq 30%, feature ±5%", wall, cpu, res, 20.0, moments_step)
    wall, cpu, variants = timed(lambda: tune_variants(dyn, ["0.92", "0.94", "0.96"]))  # with the file's bands
    for v in variants:
        print(f"    variant {100 * float(v.targets.rtp.value):g}%: RTP {100 * float(v.rtp):.5f}%, "
              f"{v.best.edits.count} edits from {'the original' if v.start is dyn else 'its neighbour'}", flush=True)
    status = "ok" if cpu <= 30.0 else "MISSED (target 30 s)"
    print(f"  {'variants 92/94/96 together':<44} wall {wall:6.2f} s  CPU {cpu:6.2f} s  {status}"
          f"  naive ≈ {3 * mean_step:,.0f} s CPU (one step each) → {3 * mean_step / cpu:,.0f}×", flush=True)

    game = load_game(BENCH)
    mean_step, _ = naive_step(game, "mean")
    wall, cpu, res = timed(lambda: tune(game, TargetSet((Target.of("rtp", Fraction("0.92")),))))
    report(f"{game.name} → 92% (RTP alone)", wall, cpu, res, 5.0, mean_step)
    wall, cpu, sens = timed(lambda: symbol_sensitivity(game))
    print(f"  {'∂RTP/∂(symbol on reel), all':<44} wall {wall:6.2f} s  CPU {cpu:6.2f} s  ({len(sens.rows())} cells)")
    wall, cpu, pays = timed(lambda: pay_sensitivity(game))
    print(f"  {'∂RTP/∂(pay), all':<44} wall {wall:6.2f} s  CPU {cpu:6.2f} s  ({len(pays)} pays)", flush=True)


if __name__ == "__main__":
    main()
