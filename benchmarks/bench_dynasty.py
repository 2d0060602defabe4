"""Dynasty: the full PAR sheet (free spins and gamble included) and the RTP after a reel edit.

Targets (issue 3): the full PAR sheet ≤ 10 s on 2 cores; after a reel edit, the exact
RTP with features (mean only, :func:`mathkit.round.rtp_breakdown`) ≤ 50 ms.
Run with ``python -m benchmarks dynasty``.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from pathlib import Path

from benchmarks.timing import Timing, header, measure, row
from mathkit.exact import spin
from mathkit.gamefile.io import load_game
from mathkit.model.game import Game
from mathkit.report.par import build_par
from mathkit.round import analyse
from mathkit.round import rtp_breakdown as rtp_with_features

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "data" / "games" / "dynasty.toml"


def edited(game: Game, k: int) -> Game:
    """The game with stop ``k`` of base reel 1 replaced by the next regular symbol (a reel edit)."""
    rs = game.reel_set("base")
    regular = [s.name for s in game.symbols if s.kind == "regular"]
    strip = list(rs.strips[0])
    i = k % len(strip)
    if strip[i] in regular:
        strip[i] = regular[(regular.index(strip[i]) + 1) % len(regular)]
    new = dataclasses.replace(rs, strips=(tuple(strip), *rs.strips[1:]))
    return dataclasses.replace(game, reel_sets=tuple(new if r.name == "base" else r for r in game.reel_sets))


def main() -> None:
    game = load_game(GAME)
    print(f"{game.name}: base cycle {game.reel_set('base').cycle:,}, free cycle {game.reel_set('free').cycle:,}")
    header()
    par_t = measure(lambda: build_par(game, parallel=True), 3)
    row("full PAR sheet, first call (kernels compiled at install)", Timing(par_t.cpu[:1], par_t.wall[:1]), 10.0)
    row("full PAR sheet, repeated", par_t, 10.0)
    row("  base spin: exact joint distribution", measure(lambda: spin(game, parallel=True), 3))
    row("  the round composed (features, distribution)", measure(lambda: analyse(game, parallel=True), 3))
    row("exact RTP with features (unchanged game)", measure(lambda: rtp_with_features(game), 20), 0.05)
    cpu, wall = [], []
    for k in range(20):
        g = edited(game, 7 * k + 3)
        t = measure(lambda g=g: rtp_with_features(g), 1, warm=False)
        cpu.append(t.cpu[0])
        wall.append(t.wall[0])
    worst = Timing((max(cpu),), (max(wall),))
    row("exact RTP with features after a reel edit (worst of 20)", worst, 0.05)

    par = build_par(game, parallel=True)
    print("\n  figures (25 lines × 1 coin, total bet 25 credits)")
    for name, f in par.components.items():
        print(f"    RTP {name:<22} {f.value:.6%}")
    assert par.rtp.exact is not None and game.declared_rtp is not None
    print(f"    RTP total                  {par.rtp.value:.6%}  (declared {float(game.declared_rtp):.2%}, "
          f"Δ {float(par.rtp.exact - game.declared_rtp) * 100:+.6f} pp)")
    print(f"    hit frequency              {par.hit_frequency.value:.4%}  (win ≥ bet {par.hit_frequency_bet.value:.4%})")
    one = analyse(game, lines=1, level="moments").outcome
    assert one.m2 is not None
    print(f"    σ per bet, 25 lines        {par.sd.value:.4f}")
    print(f"    σ per bet, 1 line          {math.sqrt(one.m2 - one.mean**2) / 1:.4f}  "
          f"(RTP {float(sum(rtp_with_features(game, lines=1).values(), Fraction(0))):.6%})")
    fs = next(s for s in par.features if s.name == "Free spins")
    for key, fig in fs.figures:
        if key in ("trigger frequency (1 in N)", "expected length (spins)", "average feature win (× bet)",
                   "σ of the feature win (× bet)", "P(retrigger) per free spin"):
            print(f"    {key:<34} {fig.value:.6g}")
    print(f"    truncated mass (whole play)  {par.distribution.lost_mass:.3g}")
