"""What every command line shares: argument types that refuse bad values, output checks, the error exit.

Each ``type=`` here turns a bad value into argparse's own usage error (exit 2,
no traceback) with a sentence saying what would be right; :func:`check_output`
refuses an output that cannot be written *before* anything is computed; and
:func:`run` is the one place a command's errors become a message and an exit
status: 2 for a bad game, argument or refused computation, 130 when
interrupted, 3 for an error mathkit did not expect (a bug: ``--debug`` shows
its traceback, as it does for every other error).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from ..errors import GameError, MathkitError
from ..model.bounds import MAX_COINS, MAX_PAYLINES, limits

__all__ = [
    "check_output",
    "coins_arg",
    "fraction_arg",
    "lines_arg",
    "nonnegative",
    "number",
    "positive",
    "ranged",
    "run",
    "sample_rounds",
    "sampling_arguments",
    "spins",
    "strip_debug",
    "whole",
]

DEBUG_ENV = "MATHKIT_DEBUG"


_DIGITS = 30
"""Whole numbers on a command line have fewer digits than this (every limit is far below it)."""


def _exact(text: str, digits: int, too_large: str = "") -> Fraction | None:
    """``text`` as an exact fraction (``1e6``, ``0.005``, ``1/200``), or ``None`` when it is not a number.

    A number of ``digits`` digits or more (or a power of ten as small) is refused with ``too_large`` (or a
    sentence of its own) before it is expanded: ``Fraction("1e9999999")`` alone takes seconds.
    """
    t = text.strip().replace("_", "")
    if len(t) > 60:
        return None
    try:
        if "/" in t:
            return Fraction(t)
        d = Decimal(t)
    except (ValueError, ZeroDivisionError, ArithmeticError):
        return None
    if not d.is_finite():
        return None
    if d and abs(d.adjusted()) >= digits:
        msg = f"{t} {too_large}" if too_large and d > 0 else f"{t} is out of range: give a number of fewer than {digits} digits"
        raise argparse.ArgumentTypeError(msg)
    return Fraction(d)


def _whole(text: str, too_large: str = "") -> int:
    value = _exact(text, _DIGITS, too_large)
    if value is None or value.denominator != 1:
        msg = f"not a whole number: {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return int(value)


def whole(text: str) -> int:
    """A whole number (``10``, ``1e6``); the range is checked where the game is known."""
    return _whole(text)


def _ranged(text: str, low: int, high: int | None = None, too_many: str = "") -> int:
    """A whole number from ``low`` to ``high``; ``too_many`` says why a larger one is refused."""
    value = _whole(text, too_many)
    if value < low:
        msg = f"must be at least {low}, not {value}" if low else f"must be 0 or more, not {value}"
        raise argparse.ArgumentTypeError(msg)
    if high is not None and value > high:
        msg = f"{value:,} {too_many}"
        raise argparse.ArgumentTypeError(msg)
    return value


def ranged(low: int, high: int, too_many: str) -> Callable[[str], int]:
    """An argument type: a whole number from ``low`` to ``high``; ``too_many`` follows a larger one in the error.

    Examples
    --------
    >>> ranged(1, 10, "spins: at most 10")("1e1")
    10
    >>> ranged(1, 10, "spins: at most 10")("1e400")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 1e400 spins: at most 10
    """
    def parse(text: str) -> int:
        return _ranged(text, low, high, too_many)

    return parse


def positive(text: str) -> int:
    """A whole number ≥ 1."""
    return _ranged(text, 1)


def nonnegative(text: str) -> int:
    """A whole number ≥ 0 (a seed, a spacing)."""
    return _ranged(text, 0)


def lines_arg(text: str) -> int:
    """Lines played: 1 to :data:`~mathkit.model.bounds.MAX_PAYLINES` (the game's own paylines are checked on load)."""
    return _ranged(text, 1, MAX_PAYLINES, f"lines: a game has at most {MAX_PAYLINES:,} paylines")


def coins_arg(text: str) -> int:
    """Coins per line: 1 to :data:`~mathkit.model.bounds.MAX_COINS` (one of the game's options, checked on load)."""
    return _ranged(text, 1, MAX_COINS, f"coins: a coin option is at most {MAX_COINS:,}")


def spins(text: str) -> int:
    """Plays of one simulation: 1 to the limit of :func:`~mathkit.model.bounds.limits` (``MATHKIT_MAX_SPINS``)."""
    most = limits().spins
    return _ranged(text, 1, most, f"plays is more than the {most:,} one run holds (its per-block sums grow with the "
                                  "plays): run several seeds and pool them, or raise MATHKIT_MAX_SPINS")


def sample_rounds(text: str) -> int:
    """Rounds sampled per part of a PAR sheet's distribution: 0 (sample nothing) up to the simulator's limit."""
    most = limits().spins
    return _ranged(text, 0, most, f"rounds is more than the {most:,} one run holds: lower --sample-rounds, or raise "
                                  "MATHKIT_MAX_SPINS")


def sampling_arguments(p: argparse.ArgumentParser) -> None:
    """``--sample-rounds N`` and ``--seed S``: how a PAR sheet samples the parts its exact analysis leaves out."""
    p.add_argument("--sample-rounds", type=sample_rounds, metavar="N",
                   help="rounds the simulator plays per sampled part of the round's distribution, where the exact "
                        "one leaves parts out (default 2,097,152 per forced overlay type, 4× that of literal rounds "
                        "for the features' parts; 0: sample nothing and leave those figures out)")
    p.add_argument("--seed", type=nonnegative, metavar="S",
                   help="seed of those samples (default 2026: the same sheet every run)")


def number(text: str) -> float:
    """A finite number."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        msg = f"not a finite number: {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def fraction_arg(text: str) -> Fraction:
    """A finite number as an exact fraction (``0.005``, ``1/200``)."""
    value = _exact(text, 2 * _DIGITS)
    if value is None:
        msg = f"not a number: {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def check_output(path: Path, *, what: str, force: bool = True, suffixes: Sequence[str] = ()) -> None:
    """Refuse an output ``path`` that cannot be written, before anything is computed.

    ``what`` names the option (``--out``); ``suffixes`` lists the formats understood.

    Examples
    --------
    >>> check_output(Path("/proc/par.json"), what="--out")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mathkit.errors.GameError: --out: cannot write /proc/par.json: ...
    """
    if suffixes and path.suffix.lower() not in suffixes:
        msg = f"unknown output format {path.suffix or '(none)'!r} for {path}"
        raise GameError(msg, field=what, fix=f"use {', '.join(suffixes)}")
    if path.is_dir():
        msg = f"{path} is a folder"
        raise GameError(msg, field=what, fix="give a file name")
    if path.exists() and not force:
        msg = f"{path} exists"
        raise GameError(msg, field=what, fix="pass --force to replace it, or choose another name")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        msg = f"cannot write {path}: {folder} is not a folder"
        raise GameError(msg, field=what, fix="choose a path in a folder")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        msg = f"cannot write {path}: permission denied"
        raise GameError(msg, field=what, fix="choose a folder you can write to")
    if not _can_create(folder):
        msg = f"cannot write {path}: {folder} does not take new files"
        raise GameError(msg, field=what, fix="choose a folder you can write to")


def _can_create(folder: Path) -> bool:
    """Whether a file can be created in ``folder`` (what a save's temporary file needs)."""
    probe = folder / f".mathkit-write-test-{os.getpid()}"
    try:
        probe.touch(exist_ok=False)
    except OSError:
        return False
    probe.unlink(missing_ok=True)
    return True


def strip_debug(argv: Sequence[str]) -> tuple[list[str], bool]:
    """``argv`` without ``--debug``, and whether it was given (or ``MATHKIT_DEBUG`` is set)."""
    args = [a for a in argv if a != "--debug"]
    return args, len(args) != len(argv) or os.environ.get(DEBUG_ENV, "") not in ("", "0")


def run(command: Callable[[], int], *, debug: bool = False) -> int:
    """Run ``command`` and turn every error into a one-line message and an exit status.

    2: a bad game, argument or output, or a computation refused; 130: interrupted;
    3: an error mathkit did not expect (with ``debug``, every error shows its traceback).
    """
    try:
        return command()
    except MathkitError as exc:
        if debug:
            traceback.print_exc()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (FileExistsError, ValueError) as exc:
        if debug:
            traceback.print_exc()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if debug:
            traceback.print_exc()
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except MemoryError:
        if debug:
            traceback.print_exc()
        print("error: out of memory; lower MATHKIT_MAX_MEMORY so large computations are refused before they start, "
              "or estimate the figures by simulation (mathkit simulate)", file=sys.stderr)
        return 2
    except Exception as exc:
        if debug:
            traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc}\nThis is a bug in mathkit: run the command again with "
              "--debug for the traceback and report it.", file=sys.stderr)
        return 3
