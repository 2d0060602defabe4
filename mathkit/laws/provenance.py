"""A figure and how it was obtained; a feature's section of the PAR sheet.

These two small types sit below both the PAR sheet (:mod:`mathkit.report.par`) and the
feature blocks (:mod:`mathkit.features`), so a block can describe its own
section without importing the sheet that shows it.

Provenance is data: every :class:`Figure` says whether it is ``exact``
(integer counts over the cycle, or a rational closed form), ``markov`` (an
absorbing chain solved numerically, or a distribution truncated with its lost
mass reported) or ``sampled`` (Monte Carlo, with its interval).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

__all__ = ["FeatureSection", "Figure", "Method", "weakest"]

Method = Literal["exact", "markov", "sampled"]
_RANK: dict[str, int] = {"exact": 0, "markov": 1, "sampled": 2}


def weakest(*methods: Method) -> Method:
    """The weakest of several provenances: a figure is only as exact as its least exact input.

    Examples
    --------
    >>> weakest("exact", "markov"), weakest("exact"), weakest("sampled", "markov")
    ('markov', 'exact', 'sampled')
    """
    out: Method = "exact"
    for m in methods:
        if _RANK[m] > _RANK[out]:
            out = m
    return out


@dataclass(frozen=True)
class Figure:
    """A figure and how it was obtained.

    ``method`` is set explicitly; :meth:`of` only fills in a default when the
    caller gives none (``exact`` for a Fraction or an int, ``markov`` for a float).

    Examples
    --------
    >>> Figure.of(Fraction(1, 3)).value
    0.3333333333333333
    >>> Figure.of(Fraction(1, 3)).method, Figure.of(0.25, "sampled").method
    ('exact', 'sampled')
    """

    value: float
    method: Method
    exact: Fraction | None = None
    digits: str | None = None
    """A decimal expansion of a markov figure known that precisely (within a bound of one unit of its last decimal)."""

    @classmethod
    def of(cls, x: Fraction | float | int, method: Method | None = None) -> Figure:
        if isinstance(x, Fraction | int) and method in (None, "exact"):
            return cls(float(x), "exact", Fraction(x))
        return cls(float(x), method or "markov", None)

    @classmethod
    def odds(cls, p: Fraction | float | int) -> Figure:
        """Odds "1 in N" of an event of probability ``p``: ``N = 1/p`` (exact when ``p`` is); ``inf`` when ``p`` is 0.

        An event that never happens has no N: the sheet's text says "never", its JSON ``null`` with that reason.

        Examples
        --------
        >>> Figure.odds(Fraction(1, 4)), Figure.odds(0).value
        (Figure(value=4.0, method='exact', exact=Fraction(4, 1), digits=None), inf)
        """
        if p == 0:
            return cls(math.inf, "exact")
        return cls.of(1 / Fraction(p)) if isinstance(p, Fraction | int) else cls.of(1 / p)

    def exact_str(self) -> str | None:
        return None if self.exact is None else f"{self.exact.numerator}/{self.exact.denominator}"


@dataclass(frozen=True)
class FeatureSection:
    """A feature's figures (free spins, gamble, cap ...), in display order, with a table and notes."""

    name: str
    figures: tuple[tuple[str, Figure], ...]
    table: tuple[tuple[str, ...], ...] = ()
    notes: tuple[str, ...] = ()
