"""Certification checks (GLI-11, ANZ, UKGC profiles): ``mathkit check``.

:func:`run_checks` runs every check of ``shared/DOMAIN.md`` that the data can
decide and returns one :class:`Check` per rule — ``name``, ``passed``,
``detail`` (what was measured, against what).  A check that cannot even be
computed (an invalid game, a feature that never ends) fails with the reason; it
never raises.

The numbers
-----------
* **Declared RTP**: equal to the computed RTP (the whole play with the cap
  applied, gamble excluded) within ±0.005 pp — the tuner's tolerance, finer than
  the 4 decimals of a percent a PAR sheet prints.
* **RTP bounds**, at every bet option (each line option × each coin option):
  ``gli11`` at least 75% (GLI-11's usual minimum; jurisdictions override it),
  ``anz`` at least 85% (the lowest Australian state minimum, NSW/QLD), ``ukgc``
  no minimum (the UKGC RTS sets none; it requires the displayed RTP to be
  accurate, which the declared-RTP check covers).  All profiles also flag an RTP
  above 100%: not a regulatory limit, a game returning more than it takes is
  almost always a mistake.
* **Award odds**: every advertised award — each paid combination, each scatter
  pay, entry into the free-spin feature — must occur at least once in
  ``odds_limit`` games, at the least likely wager (one line): 1 in 100,000,000
  for ``gli11`` (GLI-11 v3.0 §4.8.2, as quoted in DOMAIN.md); DOMAIN.md says
  "some jurisdictions use 1 in 50M or 1 in 7M" without naming them, so ``anz``
  uses 1 in 50,000,000 and ``ukgc`` 1 in 7,000,000 — our assignment, to confirm
  with the test lab.  A line award's odds are per line (exactly one line's
  odds on unweighted strips, the average line's on weighted ones); an award only
  reachable in free spins counts ``P(trigger) × P(award on one free spin)``, a
  lower bound.
* **Gamble**: every option exactly 100% (``p × multiplier = 1``), at most 5 in a
  row (all profiles) and an amount limit per attempt.
* **64-bit**: the largest win of one play at the largest bet, in minor currency
  units (``coin_value × 100``), below 2⁶³; every cycle × lines below 2⁶³.  The
  largest win is bounded without enumeration (the top line pay × every wild
  multiplier × lines + the top scatter pay), and for free spins without a spin
  limit by the spins a feature reaches with probability at least 2⁻⁶⁴.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from .errors import MathkitError, ModelError
from .game import Game
from .sensitivity import at_bet, exact_rtp
from .validate import validate_game

__all__ = ["CHECK_NAMES", "PROFILES", "Check", "Profile", "cli", "run_checks"]

INT64 = 2**63 - 1
TOLERANCE = Fraction(5, 100_000)  # ±0.005 pp
MINOR_UNITS = 100


@dataclass(frozen=True)
class Profile:
    """A jurisdiction's numbers (see the module notes for their sources)."""

    name: str
    title: str
    rtp_min: Fraction
    rtp_max: Fraction
    odds_limit: int
    max_gambles: int = 5


PROFILES = {
    "gli11": Profile("gli11", "GLI-11 v3.0", Fraction(75, 100), Fraction(1), 100_000_000),
    "anz": Profile("anz", "ANZ Gaming Machine National Standard", Fraction(85, 100), Fraction(1), 50_000_000),
    "ukgc": Profile("ukgc", "UKGC Remote Technical Standards", Fraction(0), Fraction(1), 7_000_000),
}


@dataclass(frozen=True)
class Check:
    """One certification check and its outcome."""

    name: str
    passed: bool
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "detail": self.detail}


def _pct(x: Fraction | float, digits: int = 4) -> str:
    return f"{100 * float(x):.{digits}f}%"


def _one_in(p: Fraction | float) -> str:
    if p <= 0:
        return "never"
    n = 1 / float(p)
    return f"1 in {n:,.2f}" if n < 1000 else f"1 in {n:,.0f}"


@dataclass
class _Ctx:
    """A game under check, with the figures several checks share (computed once)."""

    game: Game
    profile: Profile
    reels: str
    memo: dict[str, Any] = field(default_factory=dict)

    def once(self, key: str, fn: Callable[[], Any]) -> Any:
        if key not in self.memo:
            self.memo[key] = fn()
        return self.memo[key]

    def rtp(self) -> Fraction:
        value: Fraction = self.once("rtp", lambda: exact_rtp(self.game, self.reels))
        return value

    def play_rtp(self) -> tuple[Fraction | float, str]:
        """The RTP a declared figure must equal: with the cap applied when there is one."""
        if self.game.cap is None:
            return self.rtp(), "exact"
        from .par import build_par

        par = self.once("par", lambda: build_par(self.game, self.reels))
        return (par.rtp.exact if par.rtp.exact is not None else par.rtp.value), par.rtp.method

    def components(self, game: Game, reels: str) -> Any:
        from .rtp import component_rtp

        return self.once(f"comp:{reels}:{game.bet.coins[0]}", lambda: component_rtp(game, reels))


# --------------------------------------------------------------------------- the checks
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
    capped = " with the cap applied" if ctx.game.cap is not None else ""
    return Check("declared_rtp", bool(ok),
                 f"declared {_pct(declared)}, computed {_pct(computed, 6)} [{method}]{capped}; "
                 f"|Δ| = {100 * float(diff):.6f} pp {'≤' if ok else '>'} {100 * float(TOLERANCE):g} pp")


def check_rtp_bounds(ctx: _Ctx) -> Check:
    bet, p = ctx.game.bet, ctx.profile
    line_opts = bet.line_options or (bet.lines,)
    if ctx.game.pay_mode == "ways":
        line_opts = (bet.lines,)
    values: list[tuple[Fraction, int, int]] = []
    for n_lines in line_opts:
        for c in bet.coins:
            values.append((exact_rtp(at_bet(ctx.game, n_lines, c), ctx.reels), n_lines, c))
    bad = [(r, n, c) for r, n, c in values if not p.rtp_min <= r <= p.rtp_max]
    lo, hi = min(values), max(values)
    head = (f"{len(line_opts)} line option(s) × {len(bet.coins)} coin option(s): RTP {_pct(lo[0])} "
            f"({lo[1]} lines, {lo[2]} coins) to {_pct(hi[0])} ({hi[1]} lines, {hi[2]} coins); "
            f"{p.name} bounds [{_pct(p.rtp_min, 0)}, {_pct(p.rtp_max, 0)}]")
    if ctx.game.cap is not None:
        head += " (before the cap)"
    if bad:
        shown = ", ".join(f"{_pct(r)} at {n} lines × {c} coins" for r, n, c in bad[:5])
        return Check("rtp_bounds", False, f"{head}; out of bounds: {shown}" + (" ..." if len(bad) > 5 else ""))
    return Check("rtp_bounds", True, head)


def _cells(game: Game) -> list[tuple[str, str, int, int]]:
    """Advertised awards: ``(component, entry, count, credits per line at the most coins)`` with a positive pay."""
    out: list[tuple[str, str, int, int]] = []
    most = max(game.bet.coins)
    for e in game.line_pays:
        for k, values in e.pays:
            top = values[0] * most if len(values) == 1 else max(values)
            if top > 0:
                out.append(("lines" if game.pay_mode == "lines" else "ways", e.name, k, top))
    for sp in game.scatter_pays:
        for k, v in sp.pays:
            if v > 0:
                out.append(("scatter", sp.symbol, k, v))
    return out


def _award_probabilities(ctx: _Ctx) -> dict[tuple[str, str, int], tuple[Fraction, str]]:
    """Per advertised award: its probability in one game at one line, and where it is reached."""

    def compute() -> dict[tuple[str, str, int], tuple[Fraction, str]]:
        game = ctx.game
        sets = [(ctx.reels, "base")]
        fs = game.free_spins
        if fs is not None and fs.reels != ctx.reels:
            sets.append((fs.reels, "free spins"))
        p_trig = _trigger_probability(ctx) if fs is not None else Fraction(0)
        out: dict[tuple[str, str, int], tuple[Fraction, str]] = {}
        for c in game.bet.coins:
            g = at_bet(game, coins=c)
            for name, where in sets:
                comp = ctx.components(g, name)
                for e in comp.entries:
                    per = game.bet.lines if e.component == "lines" else 1
                    prob = Fraction(e.hits, comp.cycle * per)
                    if where == "free spins":
                        prob *= p_trig
                    key = (e.component, e.entry, e.count)
                    if prob > out.get(key, (Fraction(-1), ""))[0]:
                        out[key] = (prob, where)
        return out

    value: dict[tuple[str, str, int], tuple[Fraction, str]] = ctx.once("awards", compute)
    return value


def _trigger_probability(ctx: _Ctx) -> Fraction:
    from .rtp import scatter_count_weights
    from .tables import reel_arrays

    fs = ctx.game.free_spins
    assert fs is not None
    w = scatter_count_weights(reel_arrays(ctx.game, ctx.reels), ctx.game.symbol_names.index(fs.trigger))
    return Fraction(sum(x for k, x in enumerate(w) if fs.award(k) > 0), sum(w))


def check_awards_reachable(ctx: _Ctx) -> Check:
    probs = _award_probabilities(ctx)
    cells = _cells(ctx.game)
    missing = [f"{k} × {e}" + (" (scatter)" if comp == "scatter" else "") for comp, e, k, _ in cells
               if probs.get((comp, e, k), (Fraction(0), ""))[0] == 0]
    fs = ctx.game.free_spins
    n = len(cells)
    if fs is not None:
        n += 1
        if _trigger_probability(ctx) == 0:
            missing.append(f"free spins ({fs.trigger} trigger)")
    if missing:
        return Check("awards_reachable", False, f"{len(missing)} of {n} advertised awards are never paid: "
                                                + ", ".join(missing))
    return Check("awards_reachable", True, f"all {n} advertised awards (paytable, scatter pays"
                                           + (", free-spin entry" if fs is not None else "") + ") are paid on some outcome")


def check_award_odds(ctx: _Ctx) -> Check:
    probs = _award_probabilities(ctx)
    limit = ctx.profile.odds_limit
    rows: list[tuple[Fraction, str]] = []
    top: tuple[int, str, Fraction] | None = None
    for comp, e, k, pay in _cells(ctx.game):
        p, where = probs.get((comp, e, k), (Fraction(0), "base"))
        label = f"{k} × {e}" + (" (scatter)" if comp == "scatter" else "") + (" [free spins]" if where == "free spins"
                                                                            else "")
        rows.append((p, label))
        value = pay * (max(ctx.game.bet.coins) * max(ctx.game.bet.line_options or (ctx.game.bet.lines,))
                       if comp == "scatter" else 1)
        if top is None or value > top[0]:
            top = (value, label, p)
    if ctx.game.free_spins is not None:
        rows.append((_trigger_probability(ctx), "free-spin entry"))
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


def check_gamble_fair(ctx: _Ctx) -> Check:
    g = ctx.game.gamble
    if g is None:
        return Check("gamble_fair", True, "no gamble offered")
    from .gamble import check_fair

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
    from .freespins import retrigger_rule
    from .markov import geometric_check
    from .rtp import scatter_count_weights
    from .tables import reel_arrays

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
    from .par import build_par

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
    from .rtp import scatter_count_weights
    from .tables import reel_arrays

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
        from .exact import spin

        hf = float(spin(game, ctx.reels).win_distribution.hit_frequency())
        return Check("hit_frequency", hf > 0, f"hit frequency of a base spin {_pct(hf)} ({_one_in(hf)})")
    comp = ctx.components(game, ctx.reels)
    any_hit = any(e.hits > 0 and e.credits > 0 for e in comp.entries)
    return Check("hit_frequency", any_hit, "some combination pays" if any_hit else "no outcome pays anything")


CHECKS: tuple[Callable[[_Ctx], Check], ...] = (
    check_game_valid, check_declared_rtp, check_rtp_bounds, check_awards_reachable, check_award_odds,
    check_gamble_fair, check_gamble_limits, check_features_terminate, check_cap, check_win_overflow,
    check_cycle_64bit, check_hit_frequency,
)

#: the names of the checks, in the order they run
CHECK_NAMES = tuple(fn.__name__.removeprefix("check_") for fn in CHECKS)


def run_checks(game: Game, profile: str | Profile = "gli11", *, reels: str | None = None,
               only: Sequence[str] | None = None) -> list[Check]:
    """Every certification check on ``game`` under ``profile`` (``gli11``, ``anz``, ``ukgc`` or a :class:`Profile`).

    ``only`` restricts the run to the named checks (see :data:`CHECK_NAMES`).

    Examples
    --------
    >>> from mathkit.io import load_game
    >>> checks = run_checks(load_game("data/games/classic_3reel.toml"))
    >>> len(checks) >= 8, [c.name for c in checks if not c.passed]
    (True, ['declared_rtp'])
    """
    prof = PROFILES[profile] if isinstance(profile, str) else profile
    name = reels or game.default_reels
    ctx = _Ctx(game, prof, name)
    out = []
    for fn in CHECKS:
        check_name = fn.__name__.removeprefix("check_")
        if only is not None and check_name not in only:
            continue
        try:
            out.append(fn(ctx))
        except MathkitError as exc:
            out.append(Check(check_name, False, f"cannot be computed: {exc}"))
        except (ArithmeticError, ValueError, KeyError, IndexError) as exc:
            out.append(Check(check_name, False, f"cannot be computed: {type(exc).__name__}: {exc}"))
    return out


# --------------------------------------------------------------------------- command line
def cli(argv: list[str]) -> int:
    """``mathkit check GAME [--profile gli11|anz|ukgc] [--json]``: 0 when every check passes, 1 otherwise."""
    p = argparse.ArgumentParser(prog="mathkit check", description="Certification checks of a game.",
                                epilog="Exit status: 0 every check passes, 1 some check fails, 2 bad game file.")
    p.add_argument("game", type=Path, help="game file (TOML)")
    p.add_argument("--profile", choices=sorted(PROFILES), default="gli11")
    p.add_argument("--reels", help="reel set to check (default: the game's default set)")
    p.add_argument("--json", action="store_true", help="print a JSON list of {name, passed, detail}")
    args = p.parse_args(argv)
    from .io import load_game

    try:
        game = load_game(args.game)
        if args.reels:
            game.reel_set(args.reels)
        checks = run_checks(game, args.profile, reels=args.reels)
    except MathkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([c.to_dict() for c in checks], indent=2, ensure_ascii=False))
    else:
        prof = PROFILES[args.profile]
        print(f"{game.name} — {prof.title} ({prof.name})")
        for c in checks:
            print(f"  {'PASS' if c.passed else 'FAIL'}  {c.name:<20} {c.detail}")
        failed = sum(not c.passed for c in checks)
        print(f"{len(checks) - failed} passed, {failed} failed")
    return 0 if all(c.passed for c in checks) else 1
