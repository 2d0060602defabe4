"""Checks of features and limits: termination, the blocks' own findings, 64-bit sizes, hit frequency.

The largest win of one play is bounded without enumeration: every line (or way)
at its best plus every scatter paid (:meth:`mathkit.round.Engine.win_bound`),
plus each feature's max win — for a feature without a bound, the win it passes
with probability below 2⁻⁶⁴ — and no more than a cap allows.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..exact.base import spin
from ..features import Block
from ..model.edits import at_bet
from ..round import Engine
from ..round.compose import as_block
from .profiles import INT64, MINOR_UNITS, Check, _Ctx, _one_in, _pct

__all__ = [
    "check_cycle_64bit",
    "check_features_terminate",
    "check_hit_frequency",
    "check_win_overflow",
    "feature_checks",
]


def check_features_terminate(ctx: _Ctx) -> Check:
    blocks = [as_block(f) for f in ctx.game.features if f.role == "sequence"]
    if not blocks:
        return Check("features_terminate", True, "no looping feature")
    engine = Engine(ctx.game, ctx.reels)
    results = [b.terminates(engine) for b in blocks]
    return Check("features_terminate", all(r.ok for r in results), "; ".join(r.reason for r in results))


def feature_checks(ctx: _Ctx) -> list[Check]:
    """Every block's own certification findings (the gamble's fairness and limits, the cap ...)."""
    analysis = ctx.analysis()
    limits = {"max_gambles": ctx.profile.max_gambles}
    out = []
    for f in ctx.game.features:
        for finding in as_block(f).findings(analysis.engine, analysis.stats[f.name], limits):
            out.append(Check(finding.name, finding.ok, finding.detail))
    return out


def _round_bound(game_at_bet: Engine, blocks: list[Block]) -> tuple[int, list[str]]:
    """A bound of one round's win in credits at the engine's bet, and how it was reached."""
    credits = game_at_bet.win_bound(game_at_bet.base_model())
    notes: list[str] = []
    for b in blocks:
        mw = b.max_win(game_at_bet)
        if b.role == "sequence":
            add = mw.credits if mw.bounded else mw.likely
            if add is None:
                notes.append(f"{mw.reason}: no bound")
                continue
            credits += add
            notes.append(mw.reason)
    for b in blocks:
        limit = b.round_limit(game_at_bet)
        if limit is not None:
            spin_max = game_at_bet.win_bound(game_at_bet.base_model())
            if math.ceil(limit) + spin_max < credits:
                credits = math.ceil(limit) + spin_max
                notes.append(f"the {b.name} at {float(limit):,.6g} credits, plus one spin before it applies")
    return credits, notes


def check_win_overflow(ctx: _Ctx) -> Check:
    game = ctx.game
    bet = game.bet
    max_lines = max(bet.line_options or (bet.lines,))
    max_coins = max(bet.coins)
    engine = Engine(at_bet(game, max_lines, max_coins))
    credits, notes = _round_bound(engine, [as_block(f) for f in game.features])
    minor = Fraction(credits) * bet.coin_value * MINOR_UNITS
    ok = minor <= INT64
    return Check("win_overflow", bool(ok),
                 f"largest win of one play at the largest bet ({max_lines} lines × {max_coins} coins) ≤ "
                 f"{credits:,} credits" + (f" ({'; '.join(notes)})" if notes else "")
                 + f" = {math.ceil(minor):,} minor units at coin value {float(bet.coin_value):g} "
                 f"{'<' if ok else '>'} 2⁶³")


def check_cycle_64bit(ctx: _Ctx) -> Check:
    game = ctx.game
    lines = max(game.bet.line_options or (game.bet.lines,)) if game.pay_mode == "lines" else 1
    parts, ok = [], True
    for rs in game.reel_sets:
        c = rs.cycle
        fits = c * lines <= INT64
        ok &= fits
        parts.append(f"{rs.name} {c:,}" + ("" if fits else " (too large)"))
    return Check("cycle_64bit", ok, f"cycle × {lines} lines < 2⁶³ for every reel set: " + ", ".join(parts)
                 if ok else "hit counts overflow 64-bit integers: " + ", ".join(parts))


def check_hit_frequency(ctx: _Ctx) -> Check:
    game = ctx.game
    rs = game.reel_set(ctx.reels)
    lines = game.bet.lines if game.pay_mode == "lines" else 1
    if rs.cycle * lines <= INT64:
        hf = float(spin(game, ctx.reels).win_distribution.hit_frequency())
        return Check("hit_frequency", hf > 0, f"hit frequency of a base spin {_pct(hf)} ({_one_in(hf)})")
    comp = ctx.components(game, ctx.reels)
    any_hit = any(e.hits > 0 and e.credits > 0 for e in comp.entries)
    return Check("hit_frequency", any_hit, "some combination pays" if any_hit else "no outcome pays anything")
