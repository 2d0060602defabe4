"""Checks of features and limits: gamble fairness and limits, termination, the cap, 64-bit sizes, hit frequency.

The largest win of one play is bounded without enumeration (the top line pay ×
every wild multiplier × lines + the top scatter pay), and for free spins
without a spin limit by the spins a feature reaches with probability at least 2⁻⁶⁴.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..errors import ModelError
from ..game import Game
from ..sensitivity import at_bet
from .profiles import INT64, MINOR_UNITS, Check, _Ctx, _one_in, _pct

__all__ = [
    "check_cap",
    "check_cycle_64bit",
    "check_features_terminate",
    "check_gamble_fair",
    "check_gamble_limits",
    "check_hit_frequency",
    "check_win_overflow",
]


def check_gamble_fair(ctx: _Ctx) -> Check:
    g = ctx.game.gamble
    if g is None:
        return Check("gamble_fair", True, "no gamble offered")
    from ..gamble import check_fair

    res = check_fair(g)
    text = ", ".join(f"{c.option}: p × multiplier = {c.ratio}" for c in res)
    ok = all(c.passed for c in res)
    return Check("gamble_fair", ok, ("every option returns exactly 100% — " if ok else "not every option returns "
                                     "exactly 100% — ") + text)


def check_gamble_limits(ctx: _Ctx) -> Check:
    g = ctx.game.gamble
    if g is None:
        return Check("gamble_limits", True, "no gamble offered")
    most = ctx.profile.max_gambles
    ok = g.max_gambles <= most and g.limit > 0
    return Check("gamble_limits", ok, f"at most {g.max_gambles} gambles in a row (limit {most}); amount limit "
                                      f"{g.limit:,} credits per attempt")


def check_features_terminate(ctx: _Ctx) -> Check:
    fs = ctx.game.free_spins
    if fs is None:
        return Check("features_terminate", True, "no looping feature (no free spins)")
    from ..freespins import retrigger_rule
    from ..markov import geometric_check
    from ..rtp import scatter_count_weights
    from ..tables import reel_arrays

    w = scatter_count_weights(reel_arrays(ctx.game, fs.reels), ctx.game.symbol_names.index(fs.trigger))
    total = sum(w)
    m = Fraction(sum(x * fs.retrigger(k) for k, x in enumerate(w)), total)
    q = Fraction(sum(x for k, x in enumerate(w) if fs.retrigger(k) > 0), total)
    if fs.max_spins is not None:
        return Check("features_terminate", True, f"free spins end after at most {fs.max_spins} spins "
                                                 f"(m = {float(m):.5f} added spins per spin)")
    factor = geometric_check(m, retrigger_rule(fs, q))
    first = min((v for _, v in fs.awards if v > 0), default=0)
    return Check("features_terminate", True,
                 f"m = {float(m):.5f} added spins per free spin < 1: E[length] = n / (1 − m) = "
                 f"{first} × {float(factor):.5f} = {first * float(factor):.4f} spins from {first} awarded")


def check_cap(ctx: _Ctx) -> Check:
    game = ctx.game
    if game.cap is None:
        return Check("cap", True, "no max-win cap declared (none to apply or disclose)")
    from ..par import build_par

    par = ctx.once("par", lambda: build_par(game, ctx.reels))
    limit = game.cap * par.total_bet
    applied = par.distribution.max_win <= limit
    words = [game.description, *(f"{r.rule} {r.reading} {r.reason}" for r in game.readings)]
    text = " ".join(words).lower()
    disclosed = "cap" in text or "max win" in text or "maximum win" in text or f"{game.cap:,}" in text \
        or str(game.cap) in text
    p = par.cap_probability.value if par.cap_probability is not None else 0.0
    detail = (f"cap {game.cap:,}× bet = {limit:,} credits; whole-play max win after the cap "
              f"{par.distribution.max_win:,} credits ({'applied' if applied else 'NOT applied'}); P(cap) {p:.3g}; "
              + ("disclosed in the game's description/readings" if disclosed
                 else "not disclosed: state the cap in the description or a [[readings]] entry"))
    return Check("cap", bool(applied and disclosed), detail)


def _max_spin_credits(game: Game, lines: int, coins: int) -> int:
    """An upper bound of one spin's win in credits at ``lines`` × ``coins`` (no enumeration)."""
    g = at_bet(game, lines, coins)
    top_line = max((e.pay(k, coins, 0) for e in g.line_pays for k, _ in e.pays), default=0)
    mult = 1
    for w in game.wilds:
        mult = max(mult, w.multiplier)
    top_line *= mult ** game.n_reels
    if game.pay_mode == "ways":
        ways = 1
        for rs in game.reel_sets:
            ways = max(ways, math.prod(rs.rows))
        top_line *= ways
    else:
        top_line *= lines
    bet = g.total_bet()
    top_scatter = sum(max((v for _, v in sp.pays), default=0) for sp in game.scatter_pays) * bet
    return int(top_line + top_scatter)


def _feature_spins(game: Game) -> tuple[int, str]:
    """Free spins one feature can reach (with probability at least 2⁻⁶⁴ when unlimited), and how."""
    fs = game.free_spins
    assert fs is not None
    from ..rtp import scatter_count_weights
    from ..tables import reel_arrays

    w = scatter_count_weights(reel_arrays(game, fs.reels), game.symbol_names.index(fs.trigger))
    q = Fraction(sum(x for k, x in enumerate(w) if fs.retrigger(k) > 0), sum(w))
    most_award = max(v for _, v in fs.awards)
    most_add = max((v for _, v in fs.retriggers), default=0)
    if fs.max_spins is not None:
        return fs.max_spins, f"at most {fs.max_spins} free spins"
    if q == 0 or most_add == 0:
        return most_award, f"{most_award} free spins, no retrigger"
    if q == 1:
        msg = "free spins retrigger on every spin: the win of a play is unbounded"
        raise ModelError(msg)
    k = math.ceil(64 / -math.log2(float(q)))
    spins = most_award + k * most_add
    return spins, f"{spins} free spins: more happen with probability below 2⁻⁶⁴"


def check_win_overflow(ctx: _Ctx) -> Check:
    game = ctx.game
    bet = game.bet
    max_lines = max(bet.line_options or (bet.lines,))
    max_coins = max(bet.coins)
    spin_max = _max_spin_credits(game, max_lines, max_coins)
    credits, notes = spin_max, []
    fs = game.free_spins
    if fs is not None:
        spins, how = _feature_spins(game)
        credits += spins * spin_max * fs.multiplier
        notes.append(how)
    if game.cap is not None and game.cap * max_lines * max_coins + spin_max < credits:
        credits = game.cap * max_lines * max_coins + spin_max
        notes.append(f"the cap {game.cap:,}× bet, plus one spin before it applies")
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
        from ..exact import spin

        hf = float(spin(game, ctx.reels).win_distribution.hit_frequency())
        return Check("hit_frequency", hf > 0, f"hit frequency of a base spin {_pct(hf)} ({_one_in(hf)})")
    comp = ctx.components(game, ctx.reels)
    any_hit = any(e.hits > 0 and e.credits > 0 for e in comp.entries)
    return Check("hit_frequency", any_hit, "some combination pays" if any_hit else "no outcome pays anything")
