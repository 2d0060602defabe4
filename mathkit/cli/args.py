"""What every command line shares: argument types that refuse a bad value when the line is parsed.

Each ``type=`` here turns a bad value into argparse's own usage error (exit 2,
no traceback) naming the option, the value and the range: ``argument --coins:
must be at least 1, not 0``.  A value whose range depends on the game (a reel
set, a symbol, the game's own paylines) is checked as soon as the game is
loaded, before anything is computed.  The targets and symbol lists only
``mathkit tune`` reads are :mod:`mathkit.cli.tuneargs`; how a command ends
(outputs checked before computing, errors, exit statuses, broken pipes, strict
JSON) is :mod:`mathkit.cli.exits`.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from ..model.amounts import AMOUNT
from ..model.bounds import MAX_COINS, MAX_PAYLINES, MAX_WIN, limits

__all__ = [
    "Interval",
    "amount_arg",
    "coins_arg",
    "fraction_arg",
    "fraction_in",
    "in_range",
    "lines_arg",
    "multiples_arg",
    "nonnegative",
    "number",
    "positive",
    "ranged",
    "sample_rounds",
    "sampling_arguments",
    "scheduler_arg",
    "seconds_arg",
    "spins",
    "whole",
    "whole_in",
    "workers_arg",
]

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


def whole_in(text: str, low: int, high: int | None = None, too_many: str = "") -> int:
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
        return whole_in(text, low, high, too_many)

    return parse


def positive(text: str) -> int:
    """A whole number ≥ 1."""
    return whole_in(text, 1)


def nonnegative(text: str) -> int:
    """A whole number ≥ 0 (a seed, a spacing)."""
    return whole_in(text, 0)


def lines_arg(text: str) -> int:
    """Lines played: 1 to :data:`~mathkit.model.bounds.MAX_PAYLINES` (the game's own paylines are checked on load)."""
    return whole_in(text, 1, MAX_PAYLINES, f"lines: a game has at most {MAX_PAYLINES:,} paylines")


def coins_arg(text: str) -> int:
    """Coins per line: 1 to :data:`~mathkit.model.bounds.MAX_COINS` (one of the game's options, checked on load)."""
    return whole_in(text, 1, MAX_COINS, f"coins: a coin option is at most {MAX_COINS:,}")


def spins(text: str) -> int:
    """Plays of one simulation: 1 to the limit of :func:`~mathkit.model.bounds.limits` (``MATHKIT_MAX_SPINS``)."""
    most = limits().spins
    return whole_in(text, 1, most, f"plays is more than the {most:,} one run holds (its per-block sums grow with the "
                                  "plays): run several seeds and pool them, or raise MATHKIT_MAX_SPINS")


def sample_rounds(text: str) -> int:
    """Rounds sampled per part of a PAR sheet's distribution: 0 (sample nothing) up to the simulator's limit."""
    most = limits().spins
    return whole_in(text, 0, most, f"rounds is more than the {most:,} one run holds: lower --sample-rounds, or raise "
                                  "MATHKIT_MAX_SPINS")


def workers_arg(text: str) -> int:
    """Worker processes of a local cluster: 1 to four per core of this machine (more only wait for a core)."""
    most = 4 * (os.cpu_count() or 1)
    return whole_in(text, 1, most, f"workers: this machine has {os.cpu_count() or 1} core(s), at most {most} workers")


_SCHEDULER = re.compile(r"^(tcp|tls|ucx|ws|wss)://([A-Za-z0-9._\-]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})/?$")


def scheduler_arg(text: str) -> str:
    """A Dask scheduler's address: ``tcp://HOST:PORT`` (or ``tls``, ``ucx``, ``ws``, ``wss``), a port 1 to 65535.

    Examples
    --------
    >>> scheduler_arg("tcp://127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> scheduler_arg("localhost")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: not a scheduler address: 'localhost' (write tcp://HOST:PORT)
    """
    m = _SCHEDULER.match(text.strip())
    if m is None:
        msg = f"not a scheduler address: {text!r} (write tcp://HOST:PORT)"
        raise argparse.ArgumentTypeError(msg)
    if not 1 <= int(m.group(3)) <= 65535:
        msg = f"port must be from 1 to 65535, not {m.group(3)}"
        raise argparse.ArgumentTypeError(msg)
    return text.strip()


def sampling_arguments(p: argparse.ArgumentParser) -> None:
    """``--sample-rounds N`` and ``--seed S``: how a PAR sheet samples the parts its exact analysis leaves out."""
    p.add_argument("--sample-rounds", type=sample_rounds, metavar="N",
                   help="rounds the simulator plays per sampled part of the round's distribution, where the exact "
                        "one leaves parts out (default 2,097,152 per forced overlay type, 4× that of literal rounds "
                        "for the features' parts; 0: sample nothing and leave those figures out)")
    p.add_argument("--seed", type=nonnegative, metavar="S",
                   help="seed of those samples (default 2026: the same sheet every run)")


# --------------------------------------------------------------------------- numbers in a range
@dataclass(frozen=True)
class Interval:
    """The values a number may take, and how an error says so (``words`` overrides the phrase).

    Examples
    --------
    >>> str(Interval(Fraction(0), Fraction(1), low_open=True)), str(Interval(Fraction(0)))
    ('more than 0 and at most 1', '0 or more')
    """

    low: Fraction | None = None
    high: Fraction | None = None
    low_open: bool = False
    words: str = ""

    def __contains__(self, x: Fraction) -> bool:
        above = self.low is None or (x > self.low if self.low_open else x >= self.low)
        return above and (self.high is None or x <= self.high)

    def __str__(self) -> str:
        if self.words:
            return self.words
        if self.low is not None and self.high is not None and not self.low_open:
            return f"from {_show(self.low)} to {_show(self.high)}"
        parts = []
        if self.low is not None:
            parts.append(f"more than {_show(self.low)}" if self.low_open else
                         "0 or more" if self.low == 0 and self.high is None else f"at least {_show(self.low)}")
        if self.high is not None:
            parts.append(f"at most {_show(self.high)}")
        return " and ".join(parts) or "a finite number"


def _show(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"


def in_range(text: str, allowed: Interval, *, percent: bool = False) -> Fraction:
    """``text`` (``0.92``, ``23/25``, with ``percent`` also ``92%``) as an exact fraction inside ``allowed``."""
    t = text.strip()
    scale = Fraction(1)
    if percent and t.endswith("%"):
        t, scale = t[:-1], Fraction(1, 100)
    value = _exact(t, 2 * _DIGITS, f"is out of range: must be {allowed}" if allowed.high is not None else "")
    if value is None:
        msg = f"not a number: {text!r}"
        raise argparse.ArgumentTypeError(msg)
    value *= scale
    if value not in allowed:
        msg = f"must be {allowed}, not {text.strip()}"
        raise argparse.ArgumentTypeError(msg)
    return value


def fraction_arg(text: str) -> Fraction:
    """A finite number as an exact fraction (``0.005``, ``1/200``)."""
    return in_range(text, Interval())


def fraction_in(allowed: Interval, *, percent: bool = False) -> Callable[[str], Fraction]:
    """An argument type: an exact fraction inside ``allowed`` (``percent``: ``92%`` is read as 0.92).

    Examples
    --------
    >>> fraction_in(Interval(Fraction(0)))("0.005")
    Fraction(1, 200)
    >>> fraction_in(Interval(Fraction(0)))("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be 0 or more, not -1
    """
    def parse(text: str) -> Fraction:
        return in_range(text, allowed, percent=percent)

    return parse


def number(text: str) -> float:
    """A finite number (a float)."""
    return float(in_range(text, Interval()))


def seconds_arg(text: str) -> float:
    """Seconds: a finite number more than 0."""
    return float(in_range(text, Interval(Fraction(0), low_open=True)))


def amount_arg(text: str) -> str:
    """An amount of credits (``2500``) or a multiple of the total bet (``100x``, ``12.5x``), as
    :data:`~mathkit.model.amounts.AMOUNT` writes it: more than 0, at most :data:`~mathkit.model.bounds.MAX_WIN`;
    turned into credits when the bet is known (:func:`mathkit.sessions.law.credits`).

    Examples
    --------
    >>> amount_arg("100x"), amount_arg("2500")
    ('100x', '2500')
    >>> amount_arg("0x")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be more than 0 credits (or × bet) and at most 9007199254740992, not 0x
    """
    t = text.strip()
    m = AMOUNT.match(t)
    allowed = Interval(Fraction(0), Fraction(MAX_WIN), low_open=True,
                       words=f"more than 0 credits (or × bet) and at most {MAX_WIN}")
    if m is None and not (t.startswith("-") and AMOUNT.match(t[1:])):
        msg = f"not an amount: {text!r} (write credits, 2500, or a multiple of the bet, 100x)"
        raise argparse.ArgumentTypeError(msg)
    if m is None or len(m.group(1)) > _DIGITS or Fraction(m.group(1)) not in allowed:
        msg = f"must be {allowed}, not {t}"
        raise argparse.ArgumentTypeError(msg)
    return t


def multiples_arg(most: int) -> Callable[[str], tuple[int, ...]]:
    """An argument type: up to ``most`` comma-separated whole multiples of the bet (``100x,1000x``), each ≥ 1.

    Examples
    --------
    >>> multiples_arg(8)("10x,100")
    (10, 100)
    """
    def parse(text: str) -> tuple[int, ...]:
        items = [x.strip() for x in text.split(",") if x.strip()]
        if not items or len(items) > most:
            msg = f"{text!r}: give 1 to {most} multiples of the bet like 100x,1000x"
            raise argparse.ArgumentTypeError(msg)
        try:
            return tuple(whole_in(x[:-1] if x[-1] in "x×X" and len(x) > 1 else x, 1, MAX_WIN, f"× bet: at most {MAX_WIN}")
                         for x in items)
        except argparse.ArgumentTypeError as exc:
            msg = f"{text!r}: {exc} (give whole multiples of the bet of at least 1x, like 100x,1000x)"
            raise argparse.ArgumentTypeError(msg) from None

    return parse
