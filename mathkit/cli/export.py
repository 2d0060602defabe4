"""``mathkit export GAME [--xlsx F [--sample-rounds N] [--seed S]] [--server-json F] [--diff OTHER] [--toml F]
[--stake DIR [--witnesses K]] [--reels-csv DIR]``: :func:`cli`.

``GAME`` may be a TOML game or a game-server JSON (checksum verified).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MathkitError, ModelError, UsageError, located
from ..export.diff import diff_games, diff_to_dict, diff_to_text
from ..export.server import load_any_game, write_server_json
from ..export.xlsx import write_par_xlsx
from ..model.bounds import check_bet
from ..model.game import Game

if TYPE_CHECKING:
    from ..export.stake import StakeExport
from ..sim.sampling import route_sampler
from .args import coins_arg, lines_arg, ranged, sampling_arguments
from .exits import check_output, print_json

__all__ = ["cli"]


def cli(argv: list[str]) -> int:
    """``mathkit export``: XLSX PAR sheet, game-server JSON, diff, TOML; returns the exit status."""
    p = argparse.ArgumentParser(
        prog="mathkit export", description="Export a game: PAR sheet as XLSX, game-server JSON, diff, TOML, Stake Engine files, "
                    "reel strips as CSV.",
        epilog="GAME may be a TOML game or a game-server JSON (its checksum is verified). "
               "Exit status: 0 done, 1 Stake books written with rows no concrete round witnesses (a feature round's), "
               "2 bad game file, tampered JSON or refused output.")
    p.add_argument("game", type=Path, help="game file (.toml) or game-server JSON (.json)")
    p.add_argument("--xlsx", type=Path, help="write the PAR sheet as an Excel workbook")
    p.add_argument("--server-json", type=Path, help="write the game-server JSON with its SHA-256 checksum")
    p.add_argument("--toml", type=Path, help="write the game as TOML (e.g. from a game-server JSON)")
    p.add_argument("--diff", type=Path, metavar="OTHER", help="print what changed from GAME to OTHER")
    p.add_argument("--stake", type=Path, metavar="DIR",
                   help="write the Stake Engine files (lookUpTable_base_0.csv, books_base.jsonl.zst, index.json) "
                        "from the exact distribution into DIR, checked as the RGS checks them")
    p.add_argument("--mode", action="append", metavar="NAME", dest="modes",
                   help="with --stake: export only this bet mode ('base' is the base game); repeat for several "
                        "(default: the base game and every [modes.NAME])")
    p.add_argument("--witnesses", type=ranged(1, 16, "witnesses: at most 16 per payout"), default=2,
                   help="concrete rounds (table rows) per payout in the Stake books, 1-16 (default 2)")
    p.add_argument("--witness-draws", type=ranged(1, 10**9, "spins: at most 1e9"), default=2_000_000,
                   help="spins drawn for the books' witnesses when the stop combinations are too many to enumerate "
                        "(default 2e6)")
    p.add_argument("--reels-csv", type=Path, metavar="DIR",
                   help="write one CSV per reel set into DIR: a column per reel, SYMBOL*w for a weighted stop")
    p.add_argument("--json", action="store_true", help="print the diff as JSON")
    p.add_argument("--reels", help="reel set for the PAR sheet and the diff figures")
    p.add_argument("--lines", type=lines_arg, help="lines played on the PAR sheet")
    p.add_argument("--coins", type=coins_arg, help="coins per line on the PAR sheet (one of the game's options)")
    sampling_arguments(p)
    p.add_argument("--profile", default="gli11", choices=("gli11", "anz", "ukgc"), help="checks sheet profile")
    p.add_argument("--force", action="store_true", help="replace existing output files")
    args = p.parse_args(argv)
    outputs = [o for o in (args.xlsx, args.server_json, args.toml) if o is not None]
    folders = [o for o in (args.stake, args.reels_csv) if o is not None]
    if not outputs and not folders and args.diff is None:
        p.print_usage(sys.stderr)
        print("mathkit export: give at least one of --xlsx, --server-json, --toml, --diff, --stake, --reels-csv",
              file=sys.stderr)
        return 2
    for o in folders:
        if o.exists() and not o.is_dir():
            print(f"error: {o} is not a folder; give a folder to write the files into", file=sys.stderr)
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
        status = 0
        if args.stake is not None:
            status = _stake(game, args)
        if args.reels_csv is not None:
            from ..export.reelcsv import write_reel_csvs

            for path in write_reel_csvs(game, args.reels_csv, overwrite=args.force):
                print(f"wrote {path}")
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
    return status


def _stake_text(done: StakeExport) -> None:
    for path in done.files:
        print(f"wrote {path}")
    for m in done.modes:
        s = m.summary()
        print(f"mode {m.name}: {s['rows']:,} rows, {s['distinct_payouts']:,} payouts, weights {s['precision']}; "
              f"table RTP {s['table_rtp']:.9f}, exact {s['exact_rtp']:.9f} (gap {s['rtp_gap']:.2e}); "
              f"rounding shift compensated {s['rounding_shift_compensated']:.2e} ({s['wins_split']} wins split); "
              f"dropped mass {s['dropped_mass']:.2e}; witnesses: {s['witnesses']}")


def _stake_modes(game: Game, names: list[str], args: argparse.Namespace, seed: int) -> list[Any]:
    """The Stake tables of the bet modes ``names``: each the whole-round law of the game the mode plays
    (:func:`mathkit.features.modes.mode_game`), its payouts per base bet, its RTP per cost × bet."""
    if not names:
        return []
    from ..export.stake import stake_mode
    from ..features.modes import mode_game
    from ..report.modes import mode_table

    out = []
    for m in mode_table(game, parallel=True, base=False):
        if m.name not in names:
            continue
        if m.law is None:
            msg = f"mode {m.name!r}: the round's distribution is not whole (a part is left to the simulator)"
            raise ModelError(msg, field=f"modes.{m.name}", fix="the Stake table needs the round's whole law")
        rtp = m.rtp.exact if m.rtp.exact is not None else m.rtp.value
        out.append(stake_mode(mode_game(game, m.name), m.law, rtp, name=m.name, cost=m.cost,
                              witnesses=args.witnesses, draws=args.witness_draws, seed=seed))
    return out


def _stake(game: Game, args: argparse.Namespace) -> int:
    """The Stake files of the base game ("base", cost 1) and its bet modes; 1 when a row's book holds no concrete
    round."""
    from ..export.stake import stake_mode, write_stake
    from ..round.compose import analyse

    with located(path=args.game):
        a = analyse(game, args.reels, lines=args.lines, coins=args.coins, parallel=True, sections=False)
        if not a.whole or a.law is None:
            parts = ", ".join(u.route for u in a.uncapped.uncovered) or "its distribution"
            msg = f"the round's distribution is not whole: {parts} left to the simulator"
            raise ModelError(msg, field="--stake",
                             fix="the Stake table needs the round's whole law; this game's is sampled in part")
        seed = args.seed if args.seed is not None else 2026
        wanted = args.modes or ["base", *(m.name for m in game.modes)]
        known = ["base", *(m.name for m in game.modes)]
        if unknown := [n for n in wanted if n not in known]:
            msg = f"no bet mode {unknown[0]!r}: the game has {', '.join(known)}"
            raise UsageError(msg, field="--mode", fix=f"choose one of {', '.join(known)}")
        modes = []
        if "base" in wanted:
            modes.append(stake_mode(game, a.law, a.rtp(), name="base", cost=1, reels=args.reels, lines=args.lines,
                                    coins=args.coins, witnesses=args.witnesses, draws=args.witness_draws, seed=seed))
        modes += _stake_modes(game, [n for n in wanted if n != "base"], args, seed)
        done = write_stake(game, args.stake, modes, overwrite=args.force)
    if args.json and args.diff is None:
        print_json(done.summary())
    else:
        _stake_text(done)
    if done.unwitnessed:
        why = ("feature rounds are not drawn yet" if game.features
               else "no drawn spin reached their wins: raise --witness-draws")
        print(f"error: {done.unwitnessed:,} rows' books hold no concrete round ({why}): "
              f"the files pass the RGS's checks but a front end cannot replay those rows", file=sys.stderr)
        return 1
    return 0
