"""Checks of the game's validity, its RTP and its advertised awards.

``game_valid``, ``declared_rtp`` (within ±0.005 pp of the computed RTP),
``rtp_bounds`` (at every bet option), ``awards_reachable`` and ``award_odds``
(every award at least once in the profile's ``odds_limit`` games).
"""

from __future__ import annotations

from fractions import Fraction

from ..model.edits import at_bet
from ..model.game import Game
from ..model.validate import validate_game
from ..round import analyse
from .profiles import TOLERANCE, Check, _Ctx, _one_in, _pct

__all__ = ["check_award_odds", "check_awards_reachable", "check_declared_rtp", "check_game_valid", "check_rtp_bounds"]


def check_game_valid(ctx: _Ctx) -> Check:
    validate_game(ctx.game)
    parts = []
    for rs in ctx.game.reel_sets:
        lengths = [len(s) for s in rs.strips]
        parts.append(f"{rs.name}: {rs.n_reels} reels of {min(lengths)}–{max(lengths)} stops"
                     + (", weighted" if rs.weights is not None else ""))
    return Check("game_valid", True, "every reel set, line, pay and feature validates (" + "; ".join(parts) + ")")


def check_declared_rtp(ctx: _Ctx) -> Check:
    declared = ctx.game.declared_for(ctx.reels)
    computed, method = ctx.play_rtp()
    if declared is None:
        return Check("declared_rtp", False, f"no declared_rtp in the game; computed RTP {_pct(computed, 6)} "
                                            "(declare it: declared_rtp = ...)")
    diff = abs(Fraction(computed) - declared) if isinstance(computed, Fraction) else abs(computed - float(declared))
    ok = diff <= TOLERANCE
    capped = " with the cap applied" if ctx.capped else ""
    return Check("declared_rtp", bool(ok),
                 f"declared {_pct(declared)}, computed {_pct(computed, 6)} [{method}]{capped}; "
                 f"|Δ| = {100 * float(diff):.6f} pp {'≤' if ok else '>'} {100 * float(TOLERANCE):g} pp")


def check_rtp_bounds(ctx: _Ctx) -> Check:
    bet, p = ctx.game.bet, ctx.profile
    line_opts = bet.line_options or (bet.lines,)
    if ctx.game.pay_mode == "ways":
        line_opts = (bet.lines,)
    values: list[tuple[Fraction | float, int, int]] = []
    for n_lines in line_opts:
        for c in bet.coins:
            values.append((_play_rtp(at_bet(ctx.game, n_lines, c), ctx.reels), n_lines, c))
    bad = [(r, n, c) for r, n, c in values if not p.rtp_min <= r <= p.rtp_max]
    lo, hi = min(values), max(values)
    head = (f"{len(line_opts)} line option(s) × {len(bet.coins)} coin option(s): RTP {_pct(lo[0])} "
            f"({lo[1]} lines, {lo[2]} coins) to {_pct(hi[0])} ({hi[1]} lines, {hi[2]} coins); "
            f"{p.name} bounds [{_pct(p.rtp_min, 0)}, {_pct(p.rtp_max, 0)}]")
    if ctx.capped:
        head += " (before the cap)"
    if bad:
        shown = ", ".join(f"{_pct(r)} at {n} lines × {c} coins" for r, n, c in bad[:5])
        return Check("rtp_bounds", False, f"{head}; out of bounds: {shown}" + (" ..." if len(bad) > 5 else ""))
    return Check("rtp_bounds", True, head)


def _play_rtp(game: Game, reels: str) -> Fraction | float:
    """The RTP of a whole round at the game's default bet: exact where every part is, else as the round composer solves it."""
    value = analyse(game, reels, level="mean").rtp()
    return value if isinstance(value, Fraction) else float(value)


def _cells(game: Game) -> list[tuple[str, str, int, int]]:
    """Advertised awards: ``(component, entry, count, credits per line at the most coins)`` with a positive pay."""
    out: list[tuple[str, str, int, int]] = []
    most = max(game.bet.coins)
    for e in game.line_pays:
        for k in e.counts:
            top = e.pay(k, most, game.bet.coins.index(most))
            if top > 0:
                out.append(("lines" if game.pay_mode == "lines" else "ways", e.name, k, top))
    for sp in game.scatter_pays:
        for k, v in sp.pays:
            if v > 0:
                out.append(("scatter", sp.symbol, k, v))
    return out


def _entries(ctx: _Ctx) -> dict[str, Fraction]:
    """P(a round plays each sequence feature), exactly, keyed by feature name."""
    a = ctx.analysis()
    return {f.name: Fraction(a.stats[f.name].p_enter) for f in ctx.game.features_of("sequence")}


def _award_probabilities(ctx: _Ctx) -> dict[tuple[str, str, int], tuple[Fraction, str]]:
    """Per advertised award: its probability in one game at one line, and where it is reached."""

    def compute() -> dict[tuple[str, str, int], tuple[Fraction, str]]:
        game = ctx.game
        entries = _entries(ctx)
        sets = [(ctx.reels, "base", Fraction(1))]
        for f in game.features_of("sequence"):
            sets += [(rs, f.name, entries[f.name]) for rs in f.reel_sets() if rs != ctx.reels]
        out: dict[tuple[str, str, int], tuple[Fraction, str]] = {}
        for c in game.bet.coins:
            g = at_bet(game, coins=c)
            for name, where, reach in sets:
                comp = ctx.components(g, name)
                for e in comp.entries:
                    per = game.bet.lines if e.component == "lines" else 1
                    prob = Fraction(e.hits, comp.cycle * per) * reach
                    key = (e.component, e.entry, e.count)
                    if prob > out.get(key, (Fraction(-1), ""))[0]:
                        out[key] = (prob, where)
        return out

    value: dict[tuple[str, str, int], tuple[Fraction, str]] = ctx.once("awards", compute)
    return value


def check_awards_reachable(ctx: _Ctx) -> Check:
    probs = _award_probabilities(ctx)
    cells = _cells(ctx.game)
    missing = [f"{k} × {e}" + (" (scatter)" if comp == "scatter" else "") for comp, e, k, _ in cells
               if probs.get((comp, e, k), (Fraction(0), ""))[0] == 0]
    entries = _entries(ctx)
    missing += [f"{name} (never entered)" for name, p in entries.items() if p == 0]
    n = len(cells) + len(entries)
    if missing:
        return Check("awards_reachable", False, f"{len(missing)} of {n} advertised awards are never paid: "
                                                + ", ".join(missing))
    return Check("awards_reachable", True, f"all {n} advertised awards (paytable, scatter pays"
                                           + (", feature entries" if entries else "") + ") are paid on some outcome")


def check_award_odds(ctx: _Ctx) -> Check:
    probs = _award_probabilities(ctx)
    limit = ctx.profile.odds_limit
    rows: list[tuple[Fraction, str]] = []
    top: tuple[int, str, Fraction] | None = None
    for comp, e, k, pay in _cells(ctx.game):
        p, where = probs.get((comp, e, k), (Fraction(0), "base"))
        label = f"{k} × {e}" + (" (scatter)" if comp == "scatter" else "") + (f" [{where}]" if where != "base" else "")
        rows.append((p, label))
        value = pay * (max(ctx.game.bet.coins) * max(ctx.game.bet.line_options or (ctx.game.bet.lines,))
                       if comp == "scatter" else 1)
        if top is None or value > top[0]:
            top = (value, label, p)
    rows += [(p, f"{name} entry") for name, p in _entries(ctx).items()]
    if not rows:
        return Check("award_odds", False, "the game advertises no award")
    rows.sort()
    worst = [(p, label) for p, label in rows if p * limit < 1]
    longest = rows[0]
    text = f"longest odds: {longest[1]} at {_one_in(longest[0])} games"
    if top is not None:
        text += f"; top award {top[1]} at {_one_in(top[2])}"
    text += f"; limit 1 in {limit:,} ({ctx.profile.name}, per line at one line played)"
    if worst:
        shown = ", ".join(f"{label} ({_one_in(p)})" for p, label in worst[:5])
        return Check("award_odds", False, f"{len(worst)} award(s) rarer than the limit: {shown}; {text}")
    return Check("award_odds", True, text)
