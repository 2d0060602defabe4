"""Amounts as a user writes them: whole credits (``2500``, ``12.5`` when it is whole at the bet, ``5/2``) or a
multiple of the bet (``100x``).

One grammar for the command line (read when it is parsed, :mod:`mathkit.cli.args`) and the sessions that use
the amounts (:mod:`mathkit.sessions`); light enough for ``mathkit --help`` (no numpy).
"""

from __future__ import annotations

import re
from fractions import Fraction

from ..errors import ModelError

__all__ = ["AMOUNT", "credits"]

AMOUNT = re.compile(r"^\s*(\d+(?:\.\d+)?|\d+/\d+)\s*([x×X])?\s*$")
"""An amount as written: credits (``2500``, ``12.5``, ``5/2``) or a multiple of the bet (``100x``)."""


def credits(value: int | str, bet: int, what: str) -> int:
    """``value`` in credits: a whole number of credits, or a multiple of ``bet`` written ``"100x"``.

    Examples
    --------
    >>> credits("100x", 25, "--bankroll"), credits("2500", 25, "--bankroll"), credits("12.5x", 2, "--stop-win")
    (2500, 2500, 25)
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    m = AMOUNT.match(str(value))
    if m is None:
        msg = f"{what}: {value!r} is neither credits (2500) nor a multiple of the bet (100x)"
        raise ModelError(msg)
    amount = Fraction(m.group(1))
    if m.group(2):
        amount *= bet
    if amount.denominator != 1:
        msg = f"{what}: {value!r} is {float(amount):,.6g} credits at a bet of {bet}: give whole credits"
        raise ModelError(msg)
    return int(amount)
