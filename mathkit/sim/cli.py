"""The ``mathkit simulate`` command line, and the one place the simulator reads the exact engine.

:func:`exact_figures` imports :mod:`mathkit.par` inside the function, after the simulation
has run: importing the simulator never imports the exact engine.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..bounds import check_bet
from ..cliargs import coins_arg, lines_arg, nonnegative, positive, spins
from ..errors import located
from ..figures import Figure
from ..game import Game
from ..io import load_game
from .run import GambleStrategy, simulate

__all__ = ["ExactFigures", "cli", "exact_figures", "exact_report", "simulate_cli"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mathkit simulate", description="Monte Carlo simulation of a game's rules.")
    p.add_argument("game", type=Path, help="game file (TOML)")
    p.add_argument("--spins", type=spins, default=10**6, help="plays (default 1e6; at most MATHKIT_MAX_SPINS, 1e11)")
    p.add_argument("--seed", type=nonnegative, default=None, help="seed (default: fresh entropy, reported)")
    p.add_argument("--workers", type=positive, help="run on a LocalCluster of K worker processes on 127.0.0.1")
    p.add_argument("--scheduler", help="run on an existing Dask cluster (tcp://HOST:PORT)")
    p.add_argument("--reels", help="base reel set (RTP variant)")
    p.add_argument("--lines", type=lines_arg, help="lines played")
    p.add_argument("--coins", type=coins_arg, help="coins per line (one of the game's options)")
    p.add_argument("--gamble", metavar="OPTION", help="gamble every win on OPTION (reported apart)")
    p.add_argument("--no-exact", action="store_true", help="do not compare with the exact figures")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print JSON")
    return p


def exact_figures(game: Game, reels: str | None = None, lines: int | None = None,
                  coins: int | None = None) -> tuple[dict[str, float], float | None]:
    """The exact figures to check a simulation against and the exact σ per bet (:func:`exact_report`)."""
    figures, sd, _ = exact_report(game, reels, lines, coins)
    return figures, sd


def exact_report(game: Game, reels: str | None = None, lines: int | None = None,
                 coins: int | None = None) -> tuple[dict[str, float], float | None, dict[str, str]]:
    """The exact figures to check a simulation against, and the exact σ per bet (``None`` where the sheet has none).

    RTP, its components, hit frequencies; with sequence features, the probability that a
    base spin starts one (``trigger_probability``) and each feature's entries per round
    (``p_enter:NAME``); with a cap, the probability a round reaches it (``p_cap``, unless the
    sheet only bounds it); σ per bet (``sd``) unless the PAR sheet only sampled it.  A sheet of
    the means (:func:`mathkit.par.build_sheet`: a block gives no distribution) gives the mean
    figures; a figure the sheet tags sampled is never checked (it may come from a simulation).
    The command line's glue, and the one place this module reads the exact engine:
    imported here, after the simulation has run, never by it.  The third item says how each figure
    was obtained (``exact`` or ``markov``).
    """
    from ..par import ParSheet, build_sheet

    par = build_sheet(game, reels, lines=lines, coins=coins)
    got: dict[str, Figure] = {"rtp": par.rtp, **par.components}
    sd = None
    if isinstance(par, ParSheet):
        got |= {"hit_frequency": par.hit_frequency, "hit_frequency_bet": par.hit_frequency_bet}
        sd = par.sd.value
        got["sd"] = par.sd  # σ itself is checked when it is exact or a Markov solve
    analysis = par.analysis
    sequences = [f.name for f in game.features if f.role == "sequence"]
    if analysis is not None and sequences:
        base = [b.p for key, b in analysis.base.branches.items() if not key]
        got["trigger_probability"] = Figure.of(1 - sum(base, Fraction(0)))
        for name in sequences:
            if name in analysis.stats:
                got[f"p_enter:{name}"] = Figure.of(analysis.stats[name].p_enter)
    if par.cap_probability is not None and not par.cap_probability_bound:
        got["p_cap"] = par.cap_probability
    kept = {k: f for k, f in got.items() if f.method != "sampled"}
    return {k: f.value for k, f in kept.items()}, sd, {k: f.method for k, f in kept.items()}


ExactFigures = Callable[[Game, str | None, int | None, int | None], tuple[dict[str, float], float | None]]


def simulate_cli(args: argparse.Namespace, exact: ExactFigures | None = None) -> dict[str, Any]:
    """Run the simulation ``args`` describe (see :func:`cli`) and return its JSON-ready report.

    ``exact(game, reels, lines, coins)`` gives the exact figures and σ to check against
    (default :func:`exact_figures`); ``args.no_exact`` skips the check.
    """
    game = load_game(args.game)
    with located(path=args.game):
        game.reel_set(args.reels)
        check_bet(game, args.lines, args.coins, lines_field="--lines", coins_field="--coins")
        strategy = GambleStrategy(args.gamble) if getattr(args, "gamble", None) else None
        res = simulate(game, args.spins, seed=args.seed, workers=args.workers, scheduler=args.scheduler,
                       reels=args.reels, lines=args.lines, coins=args.coins, gamble=strategy,
                       progress=False if args.no_progress else None)
        if args.no_exact:
            return res.to_dict()
        if exact is None:
            return res.to_dict(*exact_report(game, args.reels, args.lines, args.coins))
        return res.to_dict(*exact(game, args.reels, args.lines, args.coins))


def cli(argv: list[str], exact: ExactFigures | None = None) -> int:
    """``mathkit simulate GAME --spins N --seed S [--workers K] [--scheduler ADDR] [--json]``.

    Exit status 0, or 1 when an exact figure lies outside the simulated 99% interval.
    """
    args = _parser().parse_args(argv)
    out = simulate_cli(args, exact)
    if args.json:
        print(json.dumps(out, indent=2, default=float))
    else:
        lo, hi = out["ci99"]
        ready = out.get("kernels_ready_seconds")
        print(f"{out['game']}: {out['spins']:,} plays, {out['spins_per_second']:,.0f} plays/s"
              + (f" (kernels ready in {ready:.2f} s before, not counted)" if ready is not None else ""))
        print(f"RTP {out['rtp']:.6f}  99% [{lo:.6f}, {hi:.6f}]  sd {out['sd']:.4f}")
        for name, e in out["breakdown"].items():
            print(f"  {name:<12} {e['rtp']:.6f} ± {e['se']:.6f}")
        print(f"hit frequency {out['hit_frequency']['value']:.6f}")
        for name, c in out.get("checks", {}).items():
            mark = "ok " if c["agrees"] else "OUT"
            print(f"  {mark} {name:<20} sim {c['sim']:.6f}  exact {c['exact']:.6f}  ± {c['tolerance']:.6f}"
                  f"  z {c['z']:+.2f}  {c.get('method', '')}")
        if out["agrees_with_exact"] is not None:
            print(f"agrees with exact (jointly at 99%: each figure at {out['joint_level']:.4%}):",
                  "yes" if out["agrees_with_exact"] else "NO")
    return 1 if out["agrees_with_exact"] is False else 0
