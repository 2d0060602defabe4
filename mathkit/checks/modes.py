"""The bet modes' check: every mode within the profile's band of the others, each within tolerance of its declared RTP.

A mode's RTP is the expected win of the game it plays (:func:`mathkit.features.modes.mode_game`) over
``cost`` × the base bet, exact where every part of the round is (the round composer's mean level).
The base game is one of the modes (cost 1, its declared RTP the file's).
"""

from __future__ import annotations

from fractions import Fraction

from ..features.modes import mode_game
from ..round import analyse
from .profiles import TOLERANCE, Check, _Ctx, _pct

__all__ = ["check_modes", "mode_rtps"]


def mode_rtps(ctx: _Ctx) -> list[tuple[str, Fraction | float, Fraction | None]]:
    """``(mode, RTP per cost × bet, declared RTP)`` of the base game (``"base"``) and every mode."""
    game = ctx.game
    out: list[tuple[str, Fraction | float, Fraction | None]] = [("base", ctx.play_rtp()[0], game.declared_for(ctx.reels))]
    for m in game.modes:
        value = analyse(mode_game(game, m.name), ctx.reels, level="mean", sections=False).rtp()
        rtp = value / m.cost if isinstance(value, Fraction) else float(value) / float(m.cost)
        out.append((m.name, rtp, m.declared_rtp))
    return out


def check_modes(ctx: _Ctx) -> Check:
    """All modes (the base game one of them) within ``profile.mode_band`` of one another; each within
    :data:`~mathkit.checks.profiles.TOLERANCE` of its declared RTP (a mode without one fails, naming the fix)."""
    band = ctx.profile.mode_band
    rows = mode_rtps(ctx)
    values = [r for _, r, _ in rows]
    spread = max(values) - min(values)
    ok = spread <= band
    lo = min(rows, key=lambda r: r[1])
    hi = max(rows, key=lambda r: r[1])
    parts = [f"{len(rows)} modes: RTP {_pct(lo[1])} ({lo[0]}) to {_pct(hi[1])} ({hi[0]}), spread "
             f"{100 * float(spread):.4f} pp {'≤' if ok else '>'} the band {100 * float(band):g} pp"]
    for name, rtp, declared in rows:
        if declared is None:
            ok = False
            parts.append(f"{name}: no declared RTP (declare it: declared_rtp = ... in [modes.{name}])"
                         if name != "base" else "base: no declared_rtp in the game")
            continue
        diff = abs(rtp - declared) if isinstance(rtp, Fraction) else abs(rtp - float(declared))
        within = diff <= TOLERANCE
        ok = ok and bool(within)
        parts.append(f"{name}: declared {_pct(declared)}, computed {_pct(rtp, 6)}, |Δ| = {100 * float(diff):.6f} pp "
                     f"{'≤' if within else '>'} {100 * float(TOLERANCE):g} pp")
    return Check("modes", bool(ok), "; ".join(parts))
