"""``mathkit check GAME [--profile gli11|anz|ukgc] [--json]``: :func:`cli`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..checks.profiles import PROFILES
from ..checks.run import run_checks
from ..errors import MathkitError, located
from .exits import print_json

__all__ = ["cli"]


def cli(argv: list[str]) -> int:
    """``mathkit check GAME [--profile gli11|anz|ukgc] [--json]``: 0 when every check passes, 1 otherwise."""
    p = argparse.ArgumentParser(prog="mathkit check", description="Certification checks of a game.",
                                epilog="Exit status: 0 every check passes, 1 some check fails, 2 bad game file.")
    p.add_argument("game", type=Path, help="game file (TOML)")
    p.add_argument("--profile", choices=sorted(PROFILES), default="gli11")
    p.add_argument("--reels", help="reel set to check (default: the game's default set)")
    p.add_argument("--json", action="store_true", help="print a JSON list of {name, passed, detail}")
    args = p.parse_args(argv)
    from ..gamefile.io import load_game

    try:
        game = load_game(args.game)
        with located(path=args.game):
            if args.reels:
                game.reel_set(args.reels)
            checks = run_checks(game, args.profile, reels=args.reels)
    except MathkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print_json([c.to_dict() for c in checks], ensure_ascii=False)
    else:
        prof = PROFILES[args.profile]
        print(f"{game.name} — {prof.title} ({prof.name})")
        for c in checks:
            print(f"  {'PASS' if c.passed else 'FAIL'}  {c.name:<20} {c.detail}")
        failed = sum(not c.passed for c in checks)
        print(f"{len(checks) - failed} passed, {failed} failed")
    return 0 if all(c.passed for c in checks) else 1
