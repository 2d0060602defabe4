"""Player sessions: the exact session law against a naive per-state chain, the plain chain and the simulator.

Targets (issue 17), one core, CPU time:

* Dynasty, bankroll 100 × bet, 1,000 spins: all figures ≤ 5 s, exact to 10⁻⁹;
* Sizzling Hot rtp95, bankroll 100 × bet, 10,000 spins: ≤ 10 s.

"All figures" is the survival curve, the final-bankroll distribution, P(ahead),
expected spins and loss, and P(a win ≥ 100× bet): two chains.  The play's law
(:func:`mathkit.round.analyse`) is timed apart and with them.

Baselines, measured here in the same run:

* *naive*: the chain pushed state by state — for every win, the whole vector of
  bankrolls shifted and added (numpy, no FFT): what a first implementation does.
  Timed on the first spins and extrapolated with the grid's size, spin by spin;
* *plain*: :func:`mathkit.chains.markov.bankroll.run_plain`, one FFT convolution a spin
  (timed in full for Dynasty, on the first 1,000 spins for Sizzling Hot, extrapolated);
* *simulated*: the simulator's session mode, and the precision it reaches on P(ahead)
  in the CPU time the exact solution takes.

Run alone: ``python -m benchmarks sessions``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mathkit.chains.markov.bankroll import run_plain
from mathkit.chains.markov.lattice import lattice_law
from mathkit.gamefile.io import load_game
from mathkit.sessions import SessionPlay, play_law, solve
from mathkit.sim.players import simulate_sessions
from mathkit.sim.results import Z99

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT / "data" / "games"
CASES = (("Dynasty", GAMES / "dynasty.toml", None, 1000, 5.0), ("Sizzling Hot", GAMES / "sizzling_hot.toml", "rtp95",
                                                                  10_000, 10.0))
FloatArray = npt.NDArray[np.float64]


def timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """``fn()``, its wall and CPU seconds."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - t0, time.process_time() - c0


def naive_spins(units: npt.NDArray[np.int64], probs: FloatArray, b: int, x0: int, top: int, spins: int) -> FloatArray:
    """The chain, spin by spin, every win shifted and added over the whole grid; the survival curve.

    What leaves the top of the grid keeps playing (the grid is as in :mod:`mathkit.chains.markov.bankroll`);
    its mass is what the spin's total lost apart from the busted.
    """
    on = units < top
    vals, ps = units[on], probs[on]
    kappa = float(probs.sum())
    a = np.zeros(top)
    a[x0] = 1.0
    out = [1.0]
    size = top
    above = 0.0
    for _ in range(spins):
        before = float(a.sum())
        nxt = np.zeros(size - b)
        for w, p in zip(vals.tolist(), ps.tolist(), strict=True):  # new[y] += p · a[y + b − w]
            lo = max(0, w - b)
            hi = size - b
            if lo < hi:
                nxt[lo:hi] += p * a[lo + b - w : hi + b - w]
        busted = float(nxt[:b].sum())
        nxt[:b] = 0.0
        a, size = nxt, size - b
        inside = float(a.sum())
        above = kappa * above + kappa * before - busted - inside
        out.append(inside + above)
    return np.array(out)


def shrinking(top: int, b: int, spins: int, first: int) -> float:
    """How much more work all ``spins`` spins are than the first ``first`` on a grid shrinking by ``b``."""
    sizes = top - b * np.arange(spins, dtype=np.float64)
    return float(sizes.sum() / sizes[:first].sum())


def row(label: str, wall: float, cpu: float, note: str = "") -> None:
    print(f"  {label:<52}{wall:>10.3f}{cpu:>10.3f}  {note}", flush=True)


def bench(name: str, path: Path, reels: str | None, spins: int, target: float) -> None:
    game = load_game(path)
    print(f"\n{name} ({reels or game.default_reels}): bankroll 100 × bet, {spins:,} spins, P(win ≥ 100× bet)")
    print(f"  {'':<52}{'wall s':>10}{'CPU s':>10}")
    play_law(game, reels)  # JIT caches warm
    play: SessionPlay
    play, w_law, c_law = timed(lambda: play_law(game, reels))
    row("the play's law (round composer, one core)", w_law, c_law)
    solve(play, "100x", 50)
    law, w_exact, c_exact = timed(lambda: solve(play, "100x", spins))
    row("exact session law, all figures (blocked chain)", w_exact, c_exact,
        f"target ≤ {target:g} s: {'met' if c_exact <= target else 'NOT met'} (CPU); with the play's law "
        f"{c_law + c_exact:.2f} s")
    print(f"  {'':<52}error bound {law.error_bound:.1e}, truncated mass {law.truncated_mass:.1e}, "
          f"mass-balance defect {law.defect:.1e}")
    g = law.unit
    units, b, x0 = play.values // g, law.bet // g, law.bankroll // g
    top = law.ceiling // g + spins * b
    first = 3 if name == "Dynasty" else 200
    naive, w_n, c_n = timed(lambda: naive_spins(units, play.probs, b, x0, top, first))
    scale = shrinking(top, b, spins, first)
    w_naive, c_naive = w_n * scale * 2, c_n * scale * 2  # two chains
    row(f"naive per-state chain ({first} spins timed, extrapolated)", w_naive, c_naive,
        f"× {c_naive / c_exact:,.0f} the exact (CPU); agrees to {np.abs(naive - law.survival[: first + 1]).max():.1e}")
    law_grid = lattice_law(units, play.probs, top)
    plain_spins = min(spins, 1000)
    run, w_p, c_p = timed(lambda: run_plain(law_grid, b, x0, plain_spins, top, stop=False))
    scale = shrinking(top, b, spins, plain_spins)
    row(f"plain chain, one FFT a spin ({plain_spins:,} spins timed)", w_p * scale * 2, c_p * scale * 2,
        f"× {c_p * scale * 2 / c_exact:,.1f} the exact (CPU); |Δ survival| ≤ "
        f"{np.abs(run.alive - law.survival[: plain_spins + 1]).max():.1e}")
    n_sim = 10_000 if name == "Dynasty" else 4_000
    sim, w_s, c_s = timed(lambda: simulate_sessions(game, n_sim, bankroll=law.bankroll, spins=spins, reels=reels,
                                                    seed=1))
    p = law.p_ahead
    same_time = n_sim * c_exact / c_s
    half = Z99 * math.sqrt(p * (1 - p) / same_time)
    row(f"simulated sessions ({n_sim:,}, {sim.plays_drawn:,} plays)", w_s, c_s,
        f"{n_sim / c_s:,.0f} sessions per CPU s: in the exact solution's time, P(ahead) ± {half:.1e} (99%)")
    print(f"  figures: E[spins] {law.expected_spins:,.3f}, P(ahead) {law.p_ahead:.9f}, P(bust) {law.p_bust:.9f}, "
          f"E[loss] {law.expected_loss / law.bet:,.4f} × bet, P(win ≥ 100×) {law.big_wins[100]:.9f}")


def main() -> None:
    for case in CASES:
        bench(*case)


if __name__ == "__main__":
    main()
