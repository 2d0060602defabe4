"""``mathkit import-reels CSV --into GAME.toml --reel-set NAME [--out FILE]``: reel strips from a spreadsheet.

The CSV has one column per reel under a header of reel names, one stop a line, ``SYMBOL*w`` for a
stop of weight ``w`` (:mod:`mathkit.export.reelcsv`).  The game file is rewritten through the
style-preserving save (:func:`mathkit.gamefile.io.save_game`): only the strips (and weights) of
the reel set change; its comments and layout stay.  ``--out`` writes a new file instead.
"""

from __future__ import annotations

import argparse
from fractions import Fraction
from pathlib import Path

from ..errors import located
from ..exact.base import rtp as base_rtp
from ..export.reelcsv import read_reel_csv
from ..gamefile.io import load_game, save_game
from .exits import check_output

__all__ = ["cli"]


def cli(argv: list[str]) -> int:
    """Run ``mathkit import-reels``; the exit status."""
    p = argparse.ArgumentParser(prog="mathkit import-reels",
                                description="Write a reel set's strips from a CSV (one column per reel) into a game.")
    p.add_argument("csv", type=Path, help="the strips: a header of reel names, a column per reel, SYMBOL*w weights")
    p.add_argument("--into", type=Path, required=True, help="the game file (TOML) to write them into")
    p.add_argument("--reel-set", required=True, metavar="NAME", help="the reel set whose strips the CSV replaces")
    p.add_argument("--out", type=Path, help="write the edited game here instead of over --into")
    args = p.parse_args(argv)
    target = args.out if args.out is not None else args.into
    if args.out is not None:
        check_output(args.out, what="--out", suffixes=(".toml",))
    game = load_game(args.into)
    with located(path=args.into):
        game.reel_set(args.reel_set)
        new = read_reel_csv(game, args.csv, args.reel_set)
        before: Fraction = base_rtp(game, args.reel_set)
        after: Fraction = base_rtp(new, args.reel_set)
    save_game(new, target, overwrite=True, template=args.into)
    print(f"wrote {target}: reel set {args.reel_set!r} from {args.csv}; "
          f"base-spin RTP {float(before):.6%} → {float(after):.6%} (exact)")
    return 0
