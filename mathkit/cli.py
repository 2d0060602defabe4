"""The ``mathkit`` command line: ``par``, ``simulate``, ``tune``, ``check``, ``export``, ``render``.

Errors in a game file print the validation message and exit with status 2,
without a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .errors import MathkitError

__all__ = ["main"]


def _par(args: argparse.Namespace) -> int:
    # imported here: ``mathkit --help`` and the delegated commands need none of it
    from .io import load_game
    from .par import build_par
    from .report import par_to_dict, par_to_text, write_par

    game = load_game(args.game)
    par = build_par(game, args.reels, lines=args.lines, coins=args.coins, parallel=True)
    if args.out:
        write_par(par, args.out)
    if args.json:
        print(json.dumps(par_to_dict(par), indent=2))
    elif not args.out:
        print(par_to_text(par), end="")
    else:
        print(f"wrote {args.out}")
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mathkit", description="Exact slot-game mathematics.")
    sub = p.add_subparsers(dest="command", required=True)

    par = sub.add_parser("par", help="print or write a game's PAR sheet")
    par.add_argument("game", type=Path, help="game file (TOML)")
    par.add_argument("--json", action="store_true", help="print JSON instead of text")
    par.add_argument("--out", type=Path, help="write the PAR sheet to FILE (.json, .csv, .txt, .xlsx)")
    par.add_argument("--reels", help="reel set (RTP variant) to analyse; default: the file's default_reels")
    par.add_argument("--lines", type=int, help="lines played (default: the bet's lines)")
    par.add_argument("--coins", type=int, help="coins per line (default: the first coin option)")
    par.set_defaults(func=_par)

    for name, (_, helptext) in DELEGATED.items():
        # listed for --help; their own parsers (module.cli) take every argument
        sub.add_parser(name, help=helptext, add_help=False)
    return p


#: subcommands whose own module parses their arguments: name -> (module, help)
DELEGATED = {
    "simulate": ("simulate", "Monte Carlo simulation of the rules, checked against the exact figures"),
    "tune": ("tune", "solve strips or pays for a target RTP; sensitivities"),
    "check": ("checks", "certification checks"),
    "export": ("export", "XLSX PAR sheet, game-server JSON, diff between two games"),
    "render": ("render", "execute notebooks and write offline HTML"),
}


def _delegate(command: str, rest: list[str]) -> int:
    import importlib

    mod = importlib.import_module(f"mathkit.{DELEGATED[command][0]}")
    cli: Callable[[list[str]], int] = mod.cli
    return cli(rest)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        if args_list and args_list[0] in DELEGATED:
            return _delegate(args_list[0], args_list[1:])
        args = _parser().parse_args(args_list)
        status: int = args.func(args)
    except MathkitError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
