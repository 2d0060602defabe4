"""``mathkit render [SOURCES] [OUT] [--fast] [--timeout S] [--only NAME ...] [--update-assets]``: :func:`cli`.

Executes the notebooks and writes offline HTML (:mod:`mathkit.dev.render`).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..dev.render import FAST_ENV, render_all, update_assets
from .args import ranged

__all__ = ["MAX_TIMEOUT", "cli"]

MAX_TIMEOUT = 86_400
"""The longest a notebook cell may run (``--timeout``), in seconds: a day."""


def cli(argv: Sequence[str] | None = None) -> int:
    """``mathkit render``: returns the exit status."""
    p = argparse.ArgumentParser(prog="mathkit render", description="Execute the notebooks and write offline HTML.")
    p.add_argument("sources", nargs="?", default="notebooks", type=Path, help="folder of jupytext sources")
    p.add_argument("out", nargs="?", default="docs/rendered", type=Path, help="output folder")
    p.add_argument("--fast", action="store_true", help=f"small parameters ({FAST_ENV}=1)")
    p.add_argument("--timeout", type=ranged(1, MAX_TIMEOUT, f"seconds: a cell runs at most a day ({MAX_TIMEOUT:,} s)"),
                   default=600, help="seconds per cell (default 600, at most a day)")
    p.add_argument("--only", nargs="+", default=(), metavar="NAME", help="render only these notebooks (file stems)")
    p.add_argument("--update-assets", action="store_true", help="fetch the vendored JavaScript again with npm pack")
    args = p.parse_args(argv)
    if args.update_assets:
        for name, entry in update_assets().items():
            print(f"{name}: {entry['package']}@{entry['version']} {entry['path']} ({entry['bytes']:,} bytes)")
        return 0
    if not args.sources.is_dir():
        print(f"error: {args.sources}: not a folder (fix: give the folder of the notebooks' jupytext sources, "
              "e.g. notebooks)", file=sys.stderr)
        return 2
    from nbclient.exceptions import CellExecutionError

    t0 = time.perf_counter()
    try:
        done = render_all(args.sources, args.out, fast=args.fast, timeout=args.timeout, only=args.only, log=sys.stdout)
    except CellExecutionError as exc:  # a notebook failed
        print(f"mathkit render: {exc}", file=sys.stderr)
        return 1
    except (ValueError, FileNotFoundError) as exc:  # a bad argument (an unknown --only name)
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{len(done)} notebook(s) rendered to {args.out} in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(cli())
