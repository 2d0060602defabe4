"""The ``mathkit`` command line: ``par``, ``simulate``, ``session``, ``tune``, ``check``, ``export``, ``render``,
``import-lut``, ``import-reels``.

Errors in a game file, a bad argument, an output that cannot be written or a
computation refused by a resource limit print one message naming the file and
the field, and exit with status 2; nothing prints a traceback unless
``--debug`` is given (anywhere on the line) or ``MATHKIT_DEBUG=1`` is set
(see :func:`mathkit.cli.exits.run`); a broken pipe ends it quietly
with status 0.  ``mathkit par`` of a game whose optional figures a limit refuses prints every
figure that fits and names each one left out, with status 0 (:func:`mathkit.report.par.build_sheet`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..errors import located
from ..model.bounds import check_bet
from ..sim.sampling import route_sampler
from .args import coins_arg, lines_arg, sampling_arguments
from .exits import check_output, print_json, run, strip_debug
from .progress import phase, ticking

__all__ = ["main"]


def _par(args: argparse.Namespace) -> int:
    # imported here: ``mathkit --help`` and the delegated commands need none of it
    from ..gamefile.io import load_game
    from ..report.cache import cached
    from ..report.par import build_sheet
    from ..report.strict import dumps
    from ..report.text import par_to_dict, par_to_text

    if args.out:
        from ..export.sheet import PAR_FORMATS  # the export package: only --out needs it

        check_output(args.out, what="--out", suffixes=PAR_FORMATS)
    game = load_game(args.game)
    with located(path=args.game):
        game.reel_set(args.reels)
        check_bet(game, args.lines, args.coins, lines_field="--lines", coins_field="--coins")
        if args.mode is not None:
            return _par_mode(args, game)

        sample = route_sampler(game, args.sample_rounds, args.seed, reels=args.reels, lines=args.lines,
                               coins=args.coins)

        def sheet() -> Any:
            phase("exact analysis" if sample is None else "exact analysis, then the parts it leaves out, sampled")
            return build_sheet(game, args.reels, lines=args.lines, coins=args.coins, parallel=True,
                               sessions=args.sessions, sampler=None if sample is None else _Phased(sample))

        def modes() -> tuple[Any, ...]:
            if not game.modes:
                return ()
            from ..report.modes import mode_table

            phase(f"the {len(game.modes)} bet mode{'s' if len(game.modes) != 1 else ''}")
            return mode_table(game, sampler_for=_sampler_for(args), parallel=True, base=False)

        if args.out:
            from ..export.sheet import write_par

            write_par(sheet(), args.out, modes())
            _wrote(args)
            return 0
        # the printed sheet is cached by the content of what it depends on (mathkit.report.cache)
        settings = {"reels": args.reels, "lines": args.lines, "coins": args.coins, "sessions": args.sessions,
                    "sample_rounds": args.sample_rounds, "seed": args.seed, "json": args.json}

        def render() -> str:
            par = sheet()
            table = modes()
            if not table:
                return dumps(par_to_dict(par), indent=2, ensure_ascii=True) if args.json else par_to_text(par)
            from ..report.modes import mode_to_dict, modes_to_text  # a game with bet modes: only it needs them

            if args.json:
                data = par_to_dict(par) | {"modes": [mode_to_dict(m, distribution=False) for m in table]}
                return dumps(data, indent=2, ensure_ascii=True)
            return par_to_text(par) + "\n" + modes_to_text(game, table)

        text = cached(game, "par", settings, render) if not args.no_cache else render()
    print(text, end="\n" if args.json else "")
    return 0


def _sampler_for(args: argparse.Namespace) -> Callable[[Any], Any]:
    """The sampler of the parts the exact analysis of a game (a mode's) leaves out, from ``--sample-rounds``/``--seed``."""

    def make(played: Any) -> Any:
        sample = route_sampler(played, args.sample_rounds, args.seed, reels=args.reels, lines=args.lines,
                               coins=args.coins)
        return None if sample is None else _Phased(sample)

    return make


def _par_mode(args: argparse.Namespace, game: Any) -> int:
    """``mathkit par GAME --mode NAME``: the bet mode's figures per cost × bet (text, ``--json`` or ``--out``)."""
    from ..report.cache import cached
    from ..report.modes import BASE_MODE, mode_figures, mode_to_dict, mode_to_text
    from ..report.strict import dumps

    if args.mode != BASE_MODE:
        game.mode(args.mode)  # an unknown mode: exit 2, naming the modes there are
    if args.out is not None and args.out.suffix.lower() not in (".json", ".txt", ".xlsx"):
        from ..errors import UsageError

        msg = f"{args.out}: a mode's sheet is written as .json, .txt or .xlsx, not {args.out.suffix!r}"
        raise UsageError(msg)

    def figures() -> Any:
        phase(f"exact analysis of mode {args.mode!r}")
        return mode_figures(game, args.mode, sampler_for=_sampler_for(args), parallel=True, reels=args.reels,
                            lines=args.lines, coins=args.coins)

    def text_of(m: Any, as_json: bool) -> str:
        if as_json:
            return dumps({"game": game.name, **mode_to_dict(m)}, indent=2, ensure_ascii=True)
        return mode_to_text(m)

    if args.out is not None:
        from ..export.sheet import write_mode

        write_mode(figures(), args.out)
        _wrote(args)
        return 0
    settings = {"mode": args.mode, "reels": args.reels, "lines": args.lines, "coins": args.coins,
                "sample_rounds": args.sample_rounds, "seed": args.seed, "json": args.json}
    out = cached(game, "par", settings, lambda: text_of(figures(), args.json)) if not args.no_cache else \
        text_of(figures(), args.json)
    print(out, end="\n" if args.json else "")
    return 0


def _wrote(args: argparse.Namespace) -> None:
    """What ``par --out FILE`` prints: ``wrote FILE``, or with ``--json`` a JSON object (stdout stays JSON)."""
    if args.json:
        print_json({"wrote": str(args.out)})
    else:
        print(f"wrote {args.out}")


class _Phased:
    """A PAR sheet's sampler that names its stage on the progress line; its settings (``rounds``, ``seed``: read
    by the sheet's own samplers) are the sampler's."""

    def __init__(self, sampler: Any) -> None:
        self._sampler = sampler

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sampler, name)

    def __call__(self, routes: Sequence[str]) -> Any:
        phase(f"sampling {len(routes)} part{'s' if len(routes) != 1 else ''} of the round the exact analysis leaves out")
        return self._sampler(routes)


def _cache(args: argparse.Namespace) -> int:
    from ..report.cache import cache_info, clear_cache

    removed = clear_cache() if args.clear else None
    info = cache_info()
    if args.json:
        print_json({"folder": str(info.folder), "entries": info.entries, "bytes": info.bytes,
                    "limit_bytes": info.limit_bytes, "enabled": info.enabled}
                   | ({"removed": removed} if removed is not None else {}))
    else:
        if removed is not None:
            print(f"removed {removed} entries")
        print(info.text(), end="")
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mathkit", description="Exact slot-game mathematics.",
                                epilog="Exit status: 0 done, 1 a check or target failed, 2 bad game, argument or output "
                                       "(or a computation refused by a limit), 3 an internal error; a PAR sheet "
                                       "with figures a limit left out exits 0 and names each. "
                                       "--debug (anywhere) shows tracebacks.")
    sub = p.add_subparsers(dest="command", required=True)

    par = sub.add_parser("par", help="print or write a game's PAR sheet")
    par.add_argument("game", type=Path, help="game file (TOML)")
    par.add_argument("--json", action="store_true", help="print JSON instead of text")
    par.add_argument("--out", type=Path, help="write the PAR sheet to FILE (.json, .csv, .txt, .xlsx)")
    par.add_argument("--reels", help="reel set (RTP variant) to analyse; default: the file's default_reels")
    par.add_argument("--lines", type=lines_arg, help="lines played (default: the bet's lines)")
    par.add_argument("--coins", type=coins_arg, help="coins per line, one of the game's options (default: the first)")
    par.add_argument("--mode", metavar="NAME",
                     help="a bet mode of the file ([modes.NAME]): its figures per cost × bet ('base': the base game)")
    par.add_argument("--sessions", action="store_true",
                     help="add the sessions section (100× bet bankroll, 1,000 spins; see `mathkit session`)")
    sampling_arguments(par)
    par.add_argument("--no-cache", action="store_true",
                     help="compute the sheet even when the exact-figures cache holds it (see `mathkit cache`)")
    par.set_defaults(func=_par)

    cache = sub.add_parser("cache", help="the exact-figures cache: where it is, its size; --clear empties it")
    cache.add_argument("--clear", action="store_true", help="remove every entry")
    cache.add_argument("--json", action="store_true", help="print JSON")
    cache.set_defaults(func=_cache)

    for name, (_, helptext) in DELEGATED.items():
        # listed for --help; their own parsers (module.cli) take every argument
        sub.add_parser(name, help=helptext, add_help=False)
    return p


#: subcommands whose own module (``mathkit.cli.<module>``) parses their arguments: name -> (module, help)
DELEGATED = {
    "simulate": ("simulate", "Monte Carlo simulation of the rules, checked against the exact figures"),
    "session": ("session", "a player's session, exactly: time on device, bankroll survival, outcomes"),
    "tune": ("tune", "solve strips or pays for a target RTP; sensitivities"),
    "check": ("check", "certification checks"),
    "export": ("export", "XLSX PAR sheet, game-server JSON, diff between two games"),
    "render": ("render", "execute notebooks and write offline HTML"),
    "import-lut": ("importlut", "read a Stake Engine lookup table as a win distribution: bands, exceedance, sessions"),
    "import-reels": ("importreels", "write a reel set's strips from a CSV (a column per reel) into a game file"),
}


def _delegate(command: str, rest: list[str]) -> int:
    import importlib

    mod = importlib.import_module(f"mathkit.cli.{DELEGATED[command][0]}")
    cli: Callable[[list[str]], int] = mod.cli
    return cli(rest)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args_list, debug = strip_debug(list(sys.argv[1:] if argv is None else argv))

    name = args_list[0] if args_list else ""
    # a progress line on a terminal for a long command; not with --json, nor beside simulate's own progress bar
    show = "--json" not in args_list and not (name == "simulate" and "--no-progress" not in args_list)

    def command() -> int:
        with ticking(name, enabled=show and name in (*DELEGATED, "par")):
            if name in DELEGATED:
                return _delegate(name, args_list[1:])
            args = _parser().parse_args(args_list)
            status: int = args.func(args)
            return status

    return run(command, debug=debug)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
