"""Volatility at a glance: the standard win-band table and the exceedance curve of a win distribution.

A band ``(lo, hi]`` holds the plays whose win, in multiples of the total bet,
is above ``lo`` and at most ``hi``; the first band is the zero win and the last
is open (``> 1000``).  For each band: its probability, "1 in N", its
contribution to the RTP and its share of the RTP.  On an exact distribution
(integer counts over the cycle) every figure is an exact Fraction, compared in
integers (``lo · bet < win ≤ hi · bet``); on a Markov or sampled one, floats.

The exceedance curve is ``P(win ≥ x)`` at the distribution's win values: a
decreasing step function, readable on log axes down to the rarest award,
where a plot of the point probabilities is a cloud.

Examples
--------
>>> from mathkit.laws.law import WinLaw
>>> d = WinLaw.from_counts([0, 10, 30, 25_000], [5, 3, 1, 1], unit=10)
>>> [(b.label, b.probability) for b in win_bands(d) if b.probability]
[('0', Fraction(1, 2)), ('(0, 1]', Fraction(3, 10)), ('(2, 5]', Fraction(1, 10)), ('(1000, ∞)', Fraction(1, 10))]
>>> exceedance_points(d)
([1.0, 3.0, 2500.0], [0.5, 0.2, 0.1])
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .law import WinLaw

__all__ = ["BAND_EDGES", "Band", "exceedance_points", "win_bands"]

#: the band edges, in multiples of the total bet
BAND_EDGES = (0, 1, 2, 5, 10, 20, 50, 100, 1000)


@dataclass(frozen=True)
class Band:
    """One win band: ``(low, high]`` × bet (``high`` ``None``: open), its probability and its part of the RTP."""

    low: int | None
    high: int | None
    probability: Fraction | float
    rtp: Fraction | float
    share: Fraction | float

    @property
    def label(self) -> str:
        if self.low is None:
            return "0"
        return f"({self.low}, {'∞' if self.high is None else self.high}]".replace("∞]", "∞)")


def win_bands(dist: WinLaw, edges: tuple[int, ...] = BAND_EDGES) -> list[Band]:
    """The win-band table of ``dist``: the zero win, then ``(e[i], e[i+1]]``, then ``> e[-1]`` × bet."""
    values = np.asarray(dist.values)
    unit = int(dist.unit)
    exact = dist.exact
    total = int(dist.total) if exact else 1
    weights = dist.weights
    rtp_all = dist.rtp()
    masks = [values == 0]
    bounds: list[tuple[int | None, int | None]] = [(None, 0)]
    for i, lo in enumerate(edges):
        hi: int | None = edges[i + 1] if i + 1 < len(edges) else None
        mask = values > lo * unit
        if hi is not None:
            mask &= values <= hi * unit
        masks.append(mask)
        bounds.append((lo, hi))
    out = []
    for (low, high), mask in zip(bounds, masks, strict=True):
        p = dist.prob(mask)
        if exact:
            credits = sum(int(v) * int(w) for v, w in zip(values[mask], weights[mask], strict=True))
            rtp: Fraction | float = Fraction(credits, total * unit)
        else:
            rtp = float(np.dot(values[mask].astype(np.float64), weights[mask].astype(np.float64))) / unit
        share = rtp / rtp_all if rtp_all else 0 * rtp
        out.append(Band(low, high, p, rtp, share))
    return out


def exceedance_points(dist: WinLaw, max_points: int | None = None) -> tuple[list[float], list[float]]:
    """Win values ``x > 0`` (× bet) and ``P(win ≥ x)``, ascending in ``x``.

    With ``max_points``, at most that many points are kept, spread evenly in
    ``log x`` (the first and the largest win always kept); each kept point is
    still the exact ``P(win ≥ x)`` at its ``x``.
    """
    values = np.asarray(dist.values, dtype=np.float64) / float(dist.unit)
    probs = dist.probs
    keep = values > 0
    x, p = values[keep], probs[keep]
    if x.size == 0:
        return [], []
    sf = np.cumsum(p[::-1])[::-1]
    idx = np.arange(x.size)
    if max_points is not None and x.size > max_points:
        grid = np.geomspace(x[0], x[-1], max_points)
        idx = np.unique(np.concatenate([[0, x.size - 1], np.searchsorted(x, grid).clip(0, x.size - 1)]))
    return x[idx].tolist(), sf[idx].tolist()
