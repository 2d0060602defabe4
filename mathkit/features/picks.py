"""The prize law of a pick game: the sum of ``n`` picks from a weighted prize table, exactly.

A pick game's table lists prizes with integer weights.  Picks are drawn either

* **with replacement** (``replace = true``): each pick is independent, prize ``v`` with
  probability ``w_v / W`` (``W`` the total weight) — a wheel or a random-prize draw;
* **without replacement** (``replace = false``): the table is a finite *board* of ``W``
  tiles, ``w_v`` of them showing ``v``; each pick turns over one of the tiles not yet
  turned, each alike — a pick-from-a-board bonus.  ``n`` picks are then a uniformly
  random set of ``n`` tiles (multivariate hypergeometric counts).

The law of the summed prize is exact, in integer counts:

* with replacement the counts are those of ``(Σ_v w_v z^v)^n`` over ``W^n`` equally likely
  ordered draws (the ``n``-fold convolution of the weights);
* without replacement the counts are the coefficient of ``x^n`` in ``Π_v (Σ_c C(w_v, c) x^c z^{c·v})``
  over the ``C(W, n)`` equally likely sets of tiles.

The mean is ``n · Σ_v w_v v / W`` either way (linearity); the variance differs by the
finite-population factor ``(W − n) / (W − 1)`` without replacement.  Both come from the
counts here (one rule), as Fractions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..errors import GameError

__all__ = ["PickLaw", "pick_law"]


@dataclass(frozen=True)
class PickLaw:
    """The exact law of a pick game's summed prize (in prize units): ``counts[i]`` ways of ``values[i]`` out of ``total``.

    Examples
    --------
    >>> law = pick_law(((1, 1), (2, 1)), 2, replace=True)
    >>> law.values, law.counts, law.total
    ((2, 3, 4), (1, 2, 1), 4)
    >>> law.mean, law.variance
    (Fraction(3, 1), Fraction(1, 2))
    """

    values: tuple[int, ...]
    counts: tuple[int, ...]
    total: int

    @property
    def mean(self) -> Fraction:
        """E[prize] (prize units)."""
        return Fraction(sum(v * c for v, c in zip(self.values, self.counts, strict=True)), self.total)

    @property
    def second(self) -> Fraction:
        """E[prize²] (prize units²)."""
        return Fraction(sum(v * v * c for v, c in zip(self.values, self.counts, strict=True)), self.total)

    @property
    def variance(self) -> Fraction:
        """Var[prize] (prize units²)."""
        return self.second - self.mean**2

    @property
    def top(self) -> int:
        """The largest summed prize with positive probability."""
        return max(v for v, c in zip(self.values, self.counts, strict=True) if c)


def pick_law(prizes: tuple[tuple[int, int], ...], n: int, *, replace: bool) -> PickLaw:
    """The exact law of the sum of ``n`` picks from ``prizes`` (``(prize, weight)`` pairs; see the module docstring).

    Examples
    --------
    A board of three tiles 0, 0, 6, two picks without replacement: the 6 is among the two
    turned in 2 of the C(3, 2) = 3 sets.

    >>> law = pick_law(((0, 2), (6, 1)), 2, replace=False)
    >>> law.values, law.counts, law.total, law.mean
    ((0, 6), (1, 2), 3, Fraction(4, 1))
    """
    kept = [(v, w) for v, w in prizes if w > 0]
    size = sum(w for _, w in kept)
    if n < 0 or not kept or (not replace and n > size):
        msg = f"{n} picks from a table of total weight {size}" + ("" if replace else " without replacement")
        raise GameError(msg)
    if replace:
        law: dict[int, int] = {0: 1}
        for _ in range(n):
            nxt: dict[int, int] = {}
            for s, c in law.items():
                for v, w in kept:
                    nxt[s + v] = nxt.get(s + v, 0) + c * w
            law = nxt
        total = size**n
    else:
        # state (tiles picked so far, their sum) → number of sets of tiles, over the prize types in turn
        sets: dict[tuple[int, int], int] = {(0, 0): 1}
        for v, w in kept:
            nxt2: dict[tuple[int, int], int] = {}
            for (k, s), c in sets.items():
                for j in range(min(w, n - k) + 1):
                    key = (k + j, s + j * v)
                    nxt2[key] = nxt2.get(key, 0) + c * math.comb(w, j)
            sets = nxt2
        law = {s: c for (k, s), c in sets.items() if k == n}
        total = math.comb(size, n)
    items = sorted(law.items())
    return PickLaw(tuple(v for v, _ in items), tuple(c for _, c in items), total)
