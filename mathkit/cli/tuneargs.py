"""The arguments only ``mathkit tune`` reads: targets (a value or a band, in range), RTP lists, symbol lists.

Like :mod:`mathkit.cli.args` (whose numbers and ranges these are built on), each
type refuses a bad value when the command line is parsed (argparse's exit 2,
naming the option, the value and the range); the symbols are checked against
the game as soon as it is loaded (:func:`mathkit.cli.tune.cli`).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from ..model.bounds import MAX_STOPS
from .args import Interval, in_range, whole_in

__all__ = ["RTP", "Band", "band_arg", "component_arg", "hierarchy_arg", "names_arg", "rtp_arg", "rtps_arg", "runs_arg"]


@dataclass(frozen=True)
class Band:
    """A target as the command line gives it: a ``value`` (its tolerance given apart), or a band ``low..high``."""

    value: Fraction | None = None
    band: tuple[Fraction, Fraction] | None = None


def band_arg(allowed: Interval, *, percent: bool = False) -> Callable[[str], Band]:
    """An argument type: a value or a band ``LOW..HIGH``, each end inside ``allowed``, ``LOW ≤ HIGH``.

    Examples
    --------
    >>> rtp_arg("94%..94.01%").band == (Fraction(47, 50), Fraction(9401, 10000))
    True
    >>> rtp_arg("95%..90%")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: the band 95%..90% is empty: write LOW..HIGH with LOW at most HIGH
    """
    def parse(text: str) -> Band:
        if ".." not in text:
            return Band(value=in_range(text, allowed, percent=percent))
        lo, _, hi = text.partition("..")
        low, high = in_range(lo, allowed, percent=percent), in_range(hi, allowed, percent=percent)
        if low > high:
            msg = f"the band {text.strip()} is empty: write LOW..HIGH with LOW at most HIGH"
            raise argparse.ArgumentTypeError(msg)
        return Band(band=(low, high))

    return parse


RTP = Interval(Fraction(0), Fraction(1), low_open=True, words="above 0% and at most 100% (0.92, 92% or 23/25)")
"""A target RTP: a tuned game never pays more than it takes."""
rtp_arg = band_arg(RTP, percent=True)
"""An RTP target: ``0.94``, ``94%``, ``47/50`` or a band ``94%..94.01%``, above 0% and at most 100%."""


def rtps_arg(text: str) -> tuple[Fraction, ...]:
    """Comma-separated RTPs (``0.92,94%``), each above 0% and at most 100%, at least one, none twice."""
    items = [x for x in text.split(",") if x.strip()]
    if not items:
        msg = f"no RTP in {text!r}: write comma-separated RTPs, e.g. 0.92,0.94"
        raise argparse.ArgumentTypeError(msg)
    out = tuple(in_range(x, RTP, percent=True) for x in items)
    if len(set(out)) != len(out):
        msg = f"an RTP is given twice in {text!r}"
        raise argparse.ArgumentTypeError(msg)
    return out


def component_arg(text: str) -> tuple[str, Band]:
    """``NAME=RTP`` of one component (``free spins=0.24``): the RTP (or a band) from 0% to 100%."""
    name, sep, value = text.partition("=")
    if not (sep and name.strip()):
        msg = f'{text!r}: write NAME=RTP, e.g. "free spins=0.24"'
        raise argparse.ArgumentTypeError(msg)
    return name.strip(), band_arg(Interval(Fraction(0), Fraction(1), words="from 0% to 100%"), percent=True)(value)


_NAME = re.compile(r"^[^\s,/=]+$")


def _symbols(text: str, what: str) -> tuple[str, ...]:
    out = tuple(x.strip() for x in text.split(",") if x.strip())
    bad = [x for x in out if not _NAME.match(x)]
    if not out or bad:
        msg = f"{text!r}: write {what}"
        raise argparse.ArgumentTypeError(msg)
    return out


def names_arg(text: str) -> tuple[str, ...]:
    """Comma-separated symbol names (checked against the game when it is loaded)."""
    return _symbols(text, "comma-separated symbol names, e.g. DRAGON,PHOENIX")


def hierarchy_arg(text: str) -> tuple[tuple[str, ...], ...]:
    """Symbol tiers, high to low: tiers by ``/``, ties by ``,`` (``DRAGON/PHOENIX/ACE,KING``); no symbol twice.

    Examples
    --------
    >>> hierarchy_arg("DRAGON/PHOENIX/ACE,KING")
    (('DRAGON',), ('PHOENIX',), ('ACE', 'KING'))
    """
    tiers = tuple(_symbols(t, "tiers by '/' and ties by ',', e.g. DRAGON/PHOENIX/ACE,KING")
                  for t in text.split("/") if t.strip())
    flat = [s for t in tiers for s in t]
    if not tiers or len(set(flat)) != len(flat):
        msg = f"{text!r}: write each symbol once, tiers by '/' and ties by ',', e.g. DRAGON/PHOENIX/ACE,KING"
        raise argparse.ArgumentTypeError(msg)
    return tiers


def runs_arg(text: str) -> tuple[tuple[str, int], ...]:
    """Longest runs ``SYMBOL=N,...`` (``NINE=2,TEN=2``): N a whole number from 1 to a strip's most stops."""
    out = []
    for item in (x.strip() for x in text.split(",") if x.strip()):
        name, sep, value = item.partition("=")
        if not (sep and _NAME.match(name.strip())):
            msg = f"{item!r}: write SYMBOL=N with N the longest run, e.g. NINE=2"
            raise argparse.ArgumentTypeError(msg)
        try:
            n = whole_in(value, 1, MAX_STOPS, f"stops: a strip has at most {MAX_STOPS:,}")
        except argparse.ArgumentTypeError as exc:
            msg = f"{item!r}: {exc} (write SYMBOL=N with N the longest run, a whole number ≥ 1, e.g. NINE=2)"
            raise argparse.ArgumentTypeError(msg) from None
        out.append((name.strip(), n))
    if not out:
        msg = f"{text!r}: write SYMBOL=N, e.g. NINE=2"
        raise argparse.ArgumentTypeError(msg)
    return tuple(out)


