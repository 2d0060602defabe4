"""The scatter battle: the type every scatter of a window turns into before the re-spins start.

The rules give the odds for two and three scatters of several types:

* two different scatters: each wins with probability 1/2;
* two of one type and one of another: the pair's type wins with probability
  ``pair_wins`` (3/4 in the rules), the single one's with ``1 − pair_wins``;
* three different scatters: each wins with probability 1/3;
* scatters all of one type need no battle.

The losers transform into the winner's type where they stand, so the held
cells are the same whichever type wins.  Other windows (four or more scatters
of several types) have no odds in the rules: :func:`battle` refuses them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from ..errors import ModelError

__all__ = ["CASES", "battle", "case"]

CASES = ("no battle", "two different", "two against one", "three different")
"""The battles the rules describe, by the window's scatter types."""


def case(types: Sequence[int]) -> str:
    """Which battle a window's scatter types (one entry per scatter) start.

    Examples
    --------
    >>> case([0, 0]), case([0, 2]), case([1, 1, 2]), case([0, 1, 2])
    ('no battle', 'two different', 'two against one', 'three different')
    """
    shape = sorted(Counter(types).values())
    if len(shape) == 1:
        return CASES[0]
    if shape == [1, 1]:
        return CASES[1]
    if shape == [1, 2]:
        return CASES[2]
    if shape == [1, 1, 1]:
        return CASES[3]
    msg = (f"the rules give battle odds for two or three scatters, not for {len(types)} of types "
           f"{sorted(set(types))}")
    raise ModelError(msg)


def battle(types: Sequence[int], pair_wins: Fraction = Fraction(3, 4)) -> dict[int, Fraction]:
    """P(each type becomes the active one) for a window whose scatters have ``types``.

    Examples
    --------
    >>> battle([2, 2])
    {2: Fraction(1, 1)}
    >>> battle([0, 1]), battle([1, 0, 1])
    ({0: Fraction(1, 2), 1: Fraction(1, 2)}, {1: Fraction(3, 4), 0: Fraction(1, 4)})
    >>> sum(battle([0, 1, 2]).values())
    Fraction(1, 1)
    """
    kind = case(types)
    counts = Counter(types)
    if kind == CASES[0]:
        return {types[0]: Fraction(1)}
    if kind == CASES[2]:
        pair = next(t for t, c in counts.items() if c == 2)
        single = next(t for t, c in counts.items() if c == 1)
        return {pair: pair_wins, single: 1 - pair_wins}
    return {t: Fraction(1, len(counts)) for t in sorted(counts)}
