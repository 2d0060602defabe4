"""``mathkit export GAME [--xlsx F [--sample-rounds N] [--seed S]] [--server-json F] [--diff OTHER] [--toml F]``: :func:`cli`.

``GAME`` may be a TOML game or a game-server JSON (checksum verified).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import MathkitError, located
from ..export.diff import diff_games, diff_to_dict, diff_to_text
from ..export.server import load_any_game, write_server_json
from ..export.xlsx import write_par_xlsx
from ..model.bounds import check_bet
from ..sim.sampling import route_sampler
from .args import coins_arg, lines_arg, sampling_arguments
from .exits import check_output, print_json

__all__ = ["cli"]


def cli(argv: list[str]) -> int:
    """``mathkit export``: XLSX PAR sheet, game-server JSON, diff, TOML; returns the exit status."""
    p = argparse.ArgumentParser(
        prog="mathkit export", description="Export a game: PAR sheet as XLSX, game-server JSON, diff, TOML.",
        epilog="GAME may be a TOML game or a game-server JSON (its checksum is verified). "
               "Exit status: 0 done, 2 bad game file, tampered JSON or refused output.")
    p.add_argument("game", type=Path, help="game file (.toml) or game-server JSON (.json)")
    p.add_argument("--xlsx", type=Path, help="write the PAR sheet as an Excel workbook")
    p.add_argument("--server-json", type=Path, help="write the game-server JSON with its SHA-256 checksum")
    p.add_argument("--toml", type=Path, help="write the game as TOML (e.g. from a game-server JSON)")
    p.add_argument("--diff", type=Path, metavar="OTHER", help="print what changed from GAME to OTHER")
    p.add_argument("--json", action="store_true", help="print the diff as JSON")
    p.add_argument("--reels", help="reel set for the PAR sheet and the diff figures")
    p.add_argument("--lines", type=lines_arg, help="lines played on the PAR sheet")
    p.add_argument("--coins", type=coins_arg, help="coins per line on the PAR sheet (one of the game's options)")
    sampling_arguments(p)
    p.add_argument("--profile", default="gli11", choices=("gli11", "anz", "ukgc"), help="checks sheet profile")
    p.add_argument("--force", action="store_true", help="replace existing output files")
    args = p.parse_args(argv)
    outputs = [o for o in (args.xlsx, args.server_json, args.toml) if o is not None]
    if not outputs and args.diff is None:
        p.print_usage(sys.stderr)
        print("mathkit export: give at least one of --xlsx, --server-json, --toml, --diff", file=sys.stderr)
        return 2
    for o in outputs:
        if o.resolve() == args.game.resolve():
            print(f"error: {o} is the input game; choose another output", file=sys.stderr)
            return 2
        if o.exists() and not args.force:
            print(f"error: {o} exists; pass --force to replace it", file=sys.stderr)
            return 2
    try:
        for o, option in ((args.xlsx, "--xlsx"), (args.server_json, "--server-json"), (args.toml, "--toml")):
            if o is not None:
                check_output(o, what=option)
        game = load_any_game(args.game)
        with located(path=args.game):
            game.reel_set(args.reels)
            check_bet(game, args.lines, args.coins, lines_field="--lines", coins_field="--coins")
        if args.xlsx is not None:
            from ..report.par import build_sheet

            with located(path=args.game):
                sampler = route_sampler(game, args.sample_rounds, args.seed, reels=args.reels, lines=args.lines,
                                        coins=args.coins)
                par = build_sheet(game, args.reels, lines=args.lines, coins=args.coins, parallel=True,
                                    sessions=True, sampler=sampler)
                write_par_xlsx(par, args.xlsx, profile=args.profile)
            print(f"wrote {args.xlsx}")
        if args.server_json is not None:
            write_server_json(game, args.server_json)
            print(f"wrote {args.server_json}")
        if args.toml is not None:
            from ..gamefile.io import save_game

            save_game(game, args.toml, overwrite=args.force)
            print(f"wrote {args.toml}")
        if args.diff is not None:
            d = diff_games(game, load_any_game(args.diff), reels=args.reels)
            if args.json:
                print_json(diff_to_dict(d), ensure_ascii=False)
            else:
                print(diff_to_text(d), end="")
    except MathkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
