"""``mathkit session GAME --bankroll 100x --spins 1000 [--stop-win 500x] [--json]``: a player's session, exactly.

Amounts are credits (``2500``) or multiples of the total bet (``100x``).  ``--simulate N``
also plays ``N`` sessions in the simulator and checks every figure, the intervals holding
at 99% jointly (exit status 1 when one disagrees).  Bad values print one line and exit with status 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..chains.markov.session import MAX_SPINS, SessionLaw, checkpoints
from ..errors import ModelError, located
from ..gamefile.io import load_game
from ..model.bounds import check_bet
from ..sessions.law import SessionPlay, credits, play_law, strategy
from ..sessions.table import bankroll_table, solve, table_rows
from ..sim.players import MAX_BIG_WINS, simulate_sessions
from ..sim.run import GambleStrategy
from .args import amount_arg, coins_arg, lines_arg, multiples_arg, nonnegative, ranged, spins
from .exits import print_json

__all__ = ["cli", "session_text"]

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9, 0.99)
MAX_TABLE = 32
"""Bankrolls one ``--table`` holds at most (each a session chain of its own)."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mathkit session",
                                description="A player's session, exactly: time on device, survival, outcomes.")
    p.add_argument("game", type=Path, help="game file (TOML)")
    p.add_argument("--bankroll", type=amount_arg, default="100x", help="starting bankroll: credits, or a multiple of the bet (100x)")
    p.add_argument("--spins", type=ranged(1, MAX_SPINS, f"spins: a session has at most {MAX_SPINS:,}"), default=1000,
                   help=f"most spins played (default 1000, at most {MAX_SPINS:,})")
    p.add_argument("--stop-win", type=amount_arg, help="stop once the bankroll reaches this (credits, or 500x)")
    p.add_argument("--big-win", type=multiples_arg(MAX_BIG_WINS), default=(100,), metavar="KX[,KX...]",
                   help=f"report P(a win ≥ k × bet during the session) (default 100x; at most {MAX_BIG_WINS})")
    p.add_argument("--ceiling", type=amount_arg, help="keep the final-bankroll distribution value by value below this (default: "
                                     "bankroll + spins × bet)")
    p.add_argument("--gamble", metavar="OPTION", help="gamble every win on OPTION (default: never)")
    p.add_argument("--gamble-target", type=amount_arg, help="with --gamble: only while the amount is below this (credits, or 20x)")
    p.add_argument("--table", type=multiples_arg(MAX_TABLE), metavar="MX[,MX...]",
                   help="also a table of sessions from these bankrolls (× bet), e.g. 50x,100x,200x")
    p.add_argument("--reels", help="reel set (RTP variant)")
    p.add_argument("--lines", type=lines_arg, help="lines played")
    p.add_argument("--coins", type=coins_arg, help="coins per line")
    p.add_argument("--simulate", type=spins, metavar="N", help="also simulate N sessions and check every figure")
    p.add_argument("--seed", type=nonnegative, help="seed of the simulation")
    p.add_argument("--json", action="store_true", help="print JSON")
    return p


def session_text(play: SessionPlay, law: SessionLaw) -> str:
    """The session's figures as readable text."""
    b = law.bet
    w = [f"{play.game} · reel set {play.reels!r} · total bet {b:,} credits · a play returns "
         f"{100 * play.rtp:.4f}% ({play.strategy}) [{play.method}]",
         f"session: bankroll {law.bankroll:,} credits ({law.bankroll / b:,.6g}× bet), up to {law.spins:,} spins"
         + (f", stop-win at {law.stop_win:,} credits ({law.stop_win / b:,.6g}× bet)" if law.stop_win else "")
         + "; the player stops when the bankroll is below the bet"]
    labels = law.labels()
    for key, fig in law.figures().items():
        w.append(f"  {labels[key]:<52} {fig.value:>16,.9g}   [{fig.method}]")
    med = law.median_spins
    w.append(f"  {'median spins played':<52} {'> ' + f'{law.spins:,}' if med is None else f'{med:,}':>16}")
    w.append("  final bankroll quantiles (× bet): " + "  ".join(
        f"{int(100 * q)}%: " + ("≥ ceiling" if (x := law.quantile(q)) is None else f"{x / b:,.6g}") for q in QUANTILES))
    w.append(f"  P(final ≥ {law.ceiling / b:,.6g}× bet) {law.above:.6g}"
             + (" (reached the target)" if law.stop_win else " (the distribution is kept value by value below)"))
    w.append(f"truncated probability mass {law.truncated_mass:.2e} · rounding error ≤ {law.error_bound:.1e} · "
             f"{law.solver} chain on a {law.unit}-credit lattice · {law.seconds:.2f} s")
    return "\n".join(w) + "\n"


def _amount(value: str | None, bet: int, flag: str) -> int | None:
    return None if value is None else credits(value, bet, flag)


def cli(argv: list[str]) -> int:
    """Run ``mathkit session``; the exit status (1 when a simulated figure disagrees)."""
    args = _parser().parse_args(argv)
    game = load_game(args.game)
    with located(path=args.game):
        game.reel_set(args.reels)
        check_bet(game, args.lines, args.coins, lines_field="--lines", coins_field="--coins")
    bet = game.total_bet(args.lines, args.coins)
    target = _amount(args.gamble_target, bet, "--gamble-target")
    if target is not None and args.gamble is None:
        msg = "--gamble-target needs --gamble OPTION"
        raise ModelError(msg)
    plan = strategy(game, args.gamble, target)
    bankroll = credits(args.bankroll, bet, "--bankroll")
    stop = _amount(args.stop_win, bet, "--stop-win")
    ceiling = _amount(args.ceiling, bet, "--ceiling")
    if bankroll < bet or (stop is not None and stop <= bankroll):  # before the play's law, which takes seconds
        msg = (f"--bankroll {bankroll:,} credits must be at least the bet ({bet:,})" if bankroll < bet else
               f"--stop-win {stop:,} credits must be above the bankroll ({bankroll:,})")
        raise ModelError(msg)
    play = play_law(game, args.reels, lines=args.lines, coins=args.coins, gamble=plan, parallel=True)
    law = solve(play, bankroll, args.spins, stop_win=stop, big_wins=args.big_win, ceiling=ceiling)
    out: dict[str, Any] = {"game": play.game, "reels": play.reels, "play_rtp": play.rtp, "strategy": play.strategy,
                           **law.to_dict()}
    text = session_text(play, law)
    if args.table:
        laws = bankroll_table(play, args.spins, args.table, stop_win=stop, big_wins=args.big_win)
        rows = table_rows(laws)
        out["table"] = [law_row.to_dict(curve=False) for law_row in laws]
        text += "\nbankrolls\n" + "\n".join("  " + " | ".join(r) for r in rows) + "\n"
    status = 0
    if args.simulate:
        sim = simulate_sessions(game, args.simulate, bankroll=bankroll, spins=args.spins, stop_win=stop,
                                big_wins=args.big_win, reels=args.reels, lines=args.lines, coins=args.coins,
                                seed=args.seed, gamble=GambleStrategy(args.gamble, target) if args.gamble else None)
        checks = sim.checks({k: f.value for k, f in law.figures().items()})
        agrees = all(bool(c["agrees"]) for c in checks.values())
        out["simulation"] = {**sim.to_dict(checkpoints(args.spins)), "checks": checks, "agrees": agrees}
        each = next(iter(checks.values()))["level"] if checks else 0.99
        text += (f"\nsimulated {sim.sessions:,} sessions ({sim.plays_drawn:,} plays, {sim.seconds:.1f} s); "
                 f"intervals at 99% jointly (each at {float(each):.4%})\n")
        for name, c in checks.items():
            mark = "ok " if c["agrees"] else "OUT"
            text += (f"  {mark} {name:<18} exact {c['exact']:>14,.6f}  sim {c['sim']:>14,.6f}  "
                     f"[{c['low']:,.6f}, {c['high']:,.6f}]\n")
        text += f"agrees with the exact figures: {'yes' if agrees else 'NO'}\n"
        status = 0 if agrees else 1
    if args.json:
        print_json(out, default=float)
    else:
        print(text, end="")
    return status
