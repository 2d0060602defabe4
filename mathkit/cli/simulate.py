"""The ``mathkit simulate`` command line, and the one place the simulator reads the exact engine.

:func:`exact_figures` imports :mod:`mathkit.report.par` inside the function, after the simulation
has run: importing the simulator never imports the exact engine.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import located
from ..gamefile.io import load_game
from ..model.bounds import check_bet
from ..model.game import Game
from ..report.simfigures import checked_figures
from ..sim.line_hits import sample_line_hits
from ..sim.results import Z99
from ..sim.run import GambleStrategy, simulate
from .args import coins_arg, lines_arg, nonnegative, scheduler_arg, spins, workers_arg
from .exits import print_json

__all__ = ["ExactFigures", "cli", "exact_figures", "simulate_cli"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mathkit simulate", description="Monte Carlo simulation of a game's rules.")
    p.add_argument("game", type=Path, help="game file (TOML)")
    p.add_argument("--spins", type=spins, default=10**6, help="plays (default 1e6; at most MATHKIT_MAX_SPINS, 1e11)")
    p.add_argument("--seed", type=nonnegative, default=None, help="seed (default: fresh entropy, reported)")
    p.add_argument("--workers", type=workers_arg, help="run on a LocalCluster of K worker processes on 127.0.0.1 when "
                   "it would be faster than this process (the output says where it ran and why)")
    p.add_argument("--place", choices=("auto", "cluster"), default="auto",
                   help="with --workers: auto (start the local cluster only when it pays) or cluster (always)")
    p.add_argument("--scheduler", type=scheduler_arg, help="run on an existing Dask cluster (tcp://HOST:PORT)")
    p.add_argument("--reels", help="base reel set (RTP variant)")
    p.add_argument("--lines", type=lines_arg, help="lines played")
    p.add_argument("--coins", type=coins_arg, help="coins per line (one of the game's options)")
    p.add_argument("--gamble", metavar="OPTION", help="gamble every win on OPTION (reported apart)")
    p.add_argument("--no-exact", action="store_true", help="do not compare with the exact figures")
    p.add_argument("--no-cache", action="store_true",
                   help="recompute the exact figures even when the cache holds them (see `mathkit cache`)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--mode", metavar="NAME", help="play bet mode NAME ([modes.NAME]): its RTP is the win over its cost")
    p.add_argument("--json", action="store_true", help="print JSON")
    return p


def exact_figures(game: Game, reels: str | None = None, lines: int | None = None,
                  coins: int | None = None) -> tuple[dict[str, float], float | None]:
    """The exact figures a :class:`~mathkit.sim.results.SimResult` checks, and σ: see :func:`_exact_all`."""
    figures, sd, _, _ = _exact_all(game, reels, lines, coins)
    return figures, sd


def _exact_all(game: Game, reels: str | None = None, lines: int | None = None,
               coins: int | None = None) -> tuple[dict[str, float], float | None, float | None, dict[str, str]]:
    """The exact figures to check a simulation against, the exact σ per bet (``None`` where the sheet has none),
    the exact hit frequency per line, and how each figure was obtained (``exact`` / ``markov``).

    RTP, its components, hit frequencies; with sequence features, the probability that a
    base spin starts one (``trigger_probability``) and each feature's entries per round
    (``p_enter:NAME``); with a cap, the probability a round reaches it (``p_cap``, unless the
    sheet only bounds it); σ per bet (``sd``) unless the PAR sheet only sampled it.  A sheet of
    the means (:func:`mathkit.report.par.build_sheet`: a block gives no distribution) gives the mean
    figures; a figure the sheet tags sampled is never checked (it may come from a simulation).
    The command line's glue, and the one place this module reads the exact engine:
    imported here, after the simulation has run, never by it (and read from the exact-figures
    cache when it holds them: :func:`_exact_cached`).  The hit frequency per line
    (``None`` for a ways game or a modified base spin) is checked against
    :mod:`mathkit.sim.line_hits` apart (it is no figure of the round's sums).
    """
    from ..report.par import build_sheet

    par = build_sheet(game, reels, lines=lines, coins=coins)
    got = checked_figures(par, tuple(f.name for f in game.features if f.role == "sequence"))
    sd_fig = getattr(par, "sd", None) or par.sd_moments  # a sheet of the round's moments has σ too
    if sd_fig is not None:
        got["sd"] = sd_fig  # σ itself is checked when it is exact or a Markov solve
    kept = {k: f for k, f in got.items() if f.method != "sampled"}
    per_line_fig = getattr(par, "hit_frequency_per_line", None)
    per_line = None if per_line_fig is None else per_line_fig.value
    return ({k: f.value for k, f in kept.items()}, None if sd_fig is None else sd_fig.value, per_line,
            {k: f.method for k, f in kept.items()})


def _exact_cached(game: Game, reels: str | None, lines: int | None, coins: int | None, *, use_cache: bool = True,
                  ) -> tuple[dict[str, float], float | None, float | None, dict[str, str]]:
    """:func:`_exact_all` through the exact-figures cache (:mod:`mathkit.report.cache`): a second run of the same
    game, settings and mathkit reads them instead of recomputing them."""
    if not use_cache:
        return _exact_all(game, reels, lines, coins)
    from ..report.cache import cached

    def compute() -> list[Any]:
        return list(_exact_all(game, reels, lines, coins))

    figures, sd, per_line, methods = cached(game, "simulate-exact", {"reels": reels, "lines": lines, "coins": coins},
                                            compute)
    return dict(figures), sd, per_line, dict(methods)


PER_LINE = "hit_frequency_per_line"
LINE_HIT_SPINS = 200_000
"""Base spins played for the sampled hit frequency per line (at most; fewer when the run is shorter): ≈ 0.03–0.15 s
of CPU (each line through the symbol trie), a standard error near 2·10⁻⁴ on a 9-line game."""


def _line_hits(game: Game, args: argparse.Namespace, entropy: int) -> dict[str, Any]:
    """The sampled hit frequency per line (:mod:`mathkit.sim.line_hits`), from its own stream of the run's seed."""
    n = min(args.spins, LINE_HIT_SPINS)
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(1 << 30,)))
    h = sample_line_hits(game, n, rng=rng, reels=args.reels, lines=args.lines, coins=args.coins)
    return {"value": h.value, "se": h.se, "spins": h.spins, "lines": h.lines, "ci99": list(h.interval(Z99)),
            "definition": "paid (spin, line) pairs / (base spins × lines), base spins played apart"}


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
        mode = getattr(args, "mode", None)
        if mode is not None:
            from ..features.modes import mode_game

            cost = game.mode(mode).cost
            game = mode_game(game, mode)  # the game the mode plays: the bought spin, the swapped reels, its cap
        strategy = GambleStrategy(args.gamble) if getattr(args, "gamble", None) else None
        res = simulate(game, args.spins, seed=args.seed, workers=args.workers, scheduler=args.scheduler, place=args.place,
                       reels=args.reels, lines=args.lines, coins=args.coins, gamble=strategy,
                       progress=False if args.no_progress else None)
        # a base spin of the game's own reels and lines (a modifier's spin is another: not counted per line)
        plain = game.pay_mode == "lines" and not game.features_of("modifier")
        per_line = _line_hits(game, args, res.seed[0]) if plain else None
        more = {} if mode is None else {"mode": _mode_part(res, mode, cost)}
        if args.no_exact:
            return res.to_dict() | ({PER_LINE: per_line} if per_line else {}) | more
        methods: dict[str, str] = {}
        if exact is None:
            figures, sd, per_line_exact, methods = _exact_cached(game, args.reels, args.lines, args.coins,
                                                                 use_cache=not args.no_cache)
        else:
            (figures, sd), per_line_exact = exact(game, args.reels, args.lines, args.coins), None
        out = res.to_dict(figures, sd, methods)
        if per_line is not None:
            out[PER_LINE] = per_line
            if per_line_exact is not None:
                tol = Z99 * per_line["se"]
                out["checks"][PER_LINE] = {"sim": per_line["value"], "exact": per_line_exact, "tolerance": tol,
                                           "agrees": bool(abs(per_line["value"] - per_line_exact) <= tol)}
                out["agrees_with_exact"] = all(bool(c["agrees"]) for c in out["checks"].values())
        return out | more


def _mode_part(res: Any, mode: str, cost: Any) -> dict[str, Any]:
    """A mode's RTP as played: the mean win per round over its cost × the base bet, with its 99% interval."""
    rtp, se = res.rtp.value / float(cost), res.rtp.se / float(cost)
    return {"name": mode, "cost": float(cost), "rtp": rtp, "se": se, "ci99": [rtp - Z99 * se, rtp + Z99 * se],
            "note": "the other figures are per base bet (the game the mode plays); this RTP is per cost × bet"}


def cli(argv: list[str], exact: ExactFigures | None = None) -> int:
    """``mathkit simulate GAME --spins N --seed S [--workers K] [--scheduler ADDR] [--json]``.

    Exit status 0, or 1 when an exact figure lies outside the simulated 99% interval.
    """
    args = _parser().parse_args(argv)
    out = simulate_cli(args, exact)
    if args.json:
        print_json(out, default=float)
    else:
        lo, hi = out["ci99"]
        ready = out.get("kernels_ready_seconds")
        print(f"{out['game']}: {out['spins']:,} plays, {out['spins_per_second']:,.0f} plays/s"
              + (f" (kernels ready in {ready:.2f} s before, not counted)" if ready is not None else ""))
        if args.workers is not None or args.scheduler is not None:
            print(f"ran {out['ran']}")
        if "mode" in out:
            m = out["mode"]
            print(f"mode {m['name']!r}: a round costs {m['cost']:g} × bet; RTP (win / cost × bet) {m['rtp']:.6f}  "
                  f"99% [{m['ci99'][0]:.6f}, {m['ci99'][1]:.6f}]; below, the figures per base bet")
            print(f"win per round {out['rtp']:.6f} × bet  99% [{lo:.6f}, {hi:.6f}]  sd {out['sd']:.4f}")
        else:
            print(f"RTP {out['rtp']:.6f}  99% [{lo:.6f}, {hi:.6f}]  sd {out['sd']:.4f}")
        for name, e in out["breakdown"].items():
            print(f"  {name:<12} {e['rtp']:.6f} ± {e['se']:.6f}")
        print(f"hit frequency per spin {out['hit_frequency']['value']:.6f}"
              + (f"   per line {out[PER_LINE]['value']:.6f} ({out[PER_LINE]['spins']:,} base spins)"
                 if PER_LINE in out else ""))
        for name, c in out.get("checks", {}).items():
            mark = "ok " if c["agrees"] else "OUT"
            z = f"  z {c['z']:+.2f}" if "z" in c else ""
            print(f"  {mark} {name:<20} sim {c['sim']:.6f}  exact {c['exact']:.6f}  ± {c['tolerance']:.6f}"
                  f"{z}  {c.get('method', '')}")
        if out["agrees_with_exact"] is not None:
            joint = f" (jointly at 99%: each figure at {out['joint_level']:.4%})" if "joint_level" in out else ""
            print(f"agrees with exact{joint}:", "yes" if out["agrees_with_exact"] else "NO")
    return 1 if out["agrees_with_exact"] is False else 0
