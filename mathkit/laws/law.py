"""The law of an integer win: one type for every distribution of a win in mathkit.

A :class:`WinLaw` holds distinct wins (credits, ascending) and their
probabilities; when it comes straight from integer counts over a cycle (a
spin's exact law), ``counts`` holds them (summing to ``total``) and its
moments are Fractions.  ``lost_mass`` is the probability a truncation left out
(a Markov chain stopped at a tolerance), ``unit`` the credits of one total bet
(figures "× bet" divide by it) and ``method`` how the law was obtained.  The
object is read-only; operations return new laws.  Sums and mixtures of independent laws are
:func:`mathkit.laws.convolve.convolve` and :func:`mathkit.laws.convolve.mix` (dense grids, one FFT).

:func:`merge` is the one place equal keys are merged (``np.unique`` and
``np.add.at``): every module that adds weights of equal wins (or of equal rows
of keys) calls it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .provenance import Method

__all__ = ["CapEffect", "Merged", "WinLaw", "merge"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


class Merged(NamedTuple):
    """Distinct keys (ascending; rows when merged along an axis), the summed weight of each, and each element's key index."""

    keys: npt.NDArray[Any]
    weights: npt.NDArray[Any]
    inverse: IntArray


def merge(keys: npt.ArrayLike, weights: npt.ArrayLike, *, axis: int | None = None) -> Merged:
    """The weights of equal keys added up (in the order the elements come, so the same floats every time).

    ``axis`` merges equal rows (``0``: rows of a 2-d array) or columns (``1``) instead of equal
    values.  The summed weights keep the weights' dtype; zero sums are kept.

    Examples
    --------
    >>> m = merge([30, 0, 30, 10], [1, 5, 2, 3])
    >>> m.keys.tolist(), m.weights.tolist(), m.inverse.tolist()
    ([0, 10, 30], [5, 3, 3], [2, 0, 2, 1])
    >>> merge([[1, 2], [0, 1], [1, 2]], [0.5, 0.25, 0.25], axis=0).weights.tolist()
    [0.25, 0.75]
    """
    k = np.asarray(keys)
    w = np.asarray(weights)
    if axis is None:
        uniq, inv = np.unique(k, return_inverse=True)
    else:
        uniq, inv = np.unique(k, axis=axis, return_inverse=True)
    n = len(uniq) if axis is None else uniq.shape[axis]
    out = np.zeros(n, dtype=w.dtype)
    inv = inv.reshape(-1)
    np.add.at(out, inv, w)
    return Merged(uniq, out, inv)


@dataclass(frozen=True)
class CapEffect:
    """What a cap does to a law: the capped law, P(the cap is reached), and the RTP it takes.

    ``p_cap`` is P(win ≥ cap) before the cap; ``rtp_lost`` is E[(win − cap)⁺] per unit of total bet
    (exact Fractions when the law's counts are exact).
    """

    capped: WinLaw
    p_cap: Fraction | float
    rtp_lost: Fraction | float


@dataclass(frozen=True, eq=False)
class WinLaw:
    """The law of the win of one play (a spin, a feature, a round), in credits.

    Parameters
    ----------
    values
        Distinct wins in credits, ascending.
    probs
        Their probabilities (summing to ``1 - lost_mass``).
    lost_mass
        Probability left out by a truncation (0 for exact counts).
    counts
        Integer counts over a cycle, one per value, when the law is exact (``None`` otherwise).
    total
        The counts' sum (the cycle); 0 without counts.
    unit
        Credits of one total bet: figures "× bet" divide by it.
    method
        How the law was obtained (``"exact"``, ``"markov"``, ``"sampled"``); by default
        ``"exact"`` with counts and ``"markov"`` without.

    Examples
    --------
    >>> d = WinLaw.from_counts([0, 10, 0, 30], [5, 2, 1, 2], unit=10)
    >>> d.total, d.rtp(), d.hit_frequency(), d.method
    (10, Fraction(4, 5), Fraction(2, 5), 'exact')
    >>> float(d.variance())
    136.0
    >>> WinLaw.point(5).probs.tolist(), WinLaw.point(5).method
    ([1.0], 'markov')
    """

    values: IntArray
    probs: FloatArray
    lost_mass: float = 0.0
    counts: IntArray | None = None
    total: int = 0
    unit: int = 1
    method: Method = None  # type: ignore[assignment]  # filled in __post_init__

    def __post_init__(self) -> None:
        if self.method is None:
            object.__setattr__(self, "method", "exact" if self.counts is not None else "markov")

    # ------------------------------------------------------------------ building
    @classmethod
    def from_counts(cls, values: npt.ArrayLike, counts: npt.ArrayLike, *, unit: int = 1) -> WinLaw:
        """The exact law of integer counts over a cycle (equal values merged, zero counts dropped)."""
        v, c, _ = merge(np.asarray(values, dtype=np.int64), np.asarray(counts, dtype=np.int64))
        keep = c != 0
        v, c = v[keep].astype(np.int64), c[keep].astype(np.int64)
        total = sum(int(x) for x in c.tolist())
        return cls(v, c.astype(np.float64) / float(total) if total else np.zeros(len(c)), 0.0, c, total, unit, "exact")

    @classmethod
    def from_probs(cls, values: npt.ArrayLike, probs: npt.ArrayLike, *, unit: int = 1,
                   method: Method = "markov", lost_mass: float = 0.0) -> WinLaw:
        """A law of float probabilities summing to ``1 - lost_mass`` (equal values merged, zero ones dropped)."""
        v, p, _ = merge(np.asarray(values, dtype=np.int64), np.asarray(probs, dtype=np.float64))
        keep = p != 0
        return cls(v[keep].astype(np.int64), p[keep].astype(np.float64), float(lost_mass), None, 0, unit, method)

    @classmethod
    def point(cls, value: int = 0) -> WinLaw:
        """The law of a win that is always ``value``."""
        return cls(np.array([value], dtype=np.int64), np.ones(1))

    @classmethod
    def empty(cls, lost_mass: float = 0.0) -> WinLaw:
        """A law with no mass (all of it lost: ``lost_mass``)."""
        return cls(np.zeros(0, np.int64), np.zeros(0), lost_mass)

    @classmethod
    def mixture(cls, parts: Sequence[tuple[Fraction | float, WinLaw]], *, unit: int = 1) -> WinLaw:
        """With probability ``p`` a win from each part: sub-distributions (an exact part covering only some
        rounds, the laws of the others given their event) mixed into the whole play's law.

        The ``p`` add up to 1 (less the parts' lost mass); the method is the weakest part's
        (``"sampled"`` if any is sampled, else ``"markov"``).

        Examples
        --------
        >>> part = WinLaw.from_probs([0, 30], [0.5, 0.2], method="exact")      # mass 0.7: the covered rounds
        >>> rest = WinLaw.from_probs([60, 300], [1 / 3, 2 / 3], method="sampled")  # given the other rounds
        >>> m = WinLaw.mixture([(1, part), (0.3, rest)], unit=10)
        >>> m.values.tolist(), [round(p, 12) for p in m.probs.tolist()], m.method
        ([0, 30, 60, 300], [0.5, 0.2, 0.1, 0.2], 'sampled')
        """
        kept = [(float(p), d) for p, d in parts if p]
        values = np.concatenate([d.values for _, d in kept]) if kept else np.zeros(0, np.int64)
        probs = np.concatenate([p * d.probs for p, d in kept]) if kept else np.zeros(0)
        method: Method = "sampled" if any(d.method == "sampled" for _, d in kept) else "markov"
        return cls.from_probs(values, probs, unit=unit, method=method,
                              lost_mass=math.fsum(p * d.lost_mass for p, d in kept))

    def with_(self, *, unit: int | None = None, method: Method | None = None, lost_mass: float | None = None) -> WinLaw:
        """The same law with another unit, method or lost mass (counts kept)."""
        return WinLaw(self.values, self.probs, self.lost_mass if lost_mass is None else lost_mass, self.counts,
                      self.total, self.unit if unit is None else unit, self.method if method is None else method)

    # ------------------------------------------------------------------ reading
    @property
    def exact(self) -> bool:
        """Whether the law holds integer counts (its moments are then Fractions)."""
        return self.counts is not None

    @property
    def weights(self) -> npt.NDArray[Any]:
        """The counts of an exact law, else the probabilities."""
        return self.counts if self.counts is not None else self.probs

    def _sum(self, power: int) -> int | float:
        if self.counts is not None:
            total: int = sum(int(v) ** power * int(w) for v, w in zip(self.values.tolist(), self.counts.tolist(),
                                                                      strict=True))
            return total
        return float((self.values.astype(np.float64) ** power * self.probs).sum())

    def mean(self) -> Fraction | float:
        """Expected win in credits (a Fraction when exact; the lost mass left out)."""
        if self.counts is not None:
            return Fraction(int(self._sum(1)), self.total)
        return float(self._sum(1))

    def rtp(self) -> Fraction | float:
        """Expected win per unit of total bet."""
        return self.mean() / self.unit

    def second_moment(self) -> Fraction | float:
        """E[win²] in credits² (a Fraction when exact)."""
        if self.counts is not None:
            return Fraction(int(self._sum(2)), self.total)
        return float(self._sum(2))

    def variance(self) -> Fraction | float:
        """Variance of the win in credits² (a Fraction when exact)."""
        m = self.mean()
        return self.second_moment() - m * m

    def sd(self) -> float:
        """Standard deviation in credits."""
        return math.sqrt(float(self.variance()))

    def sd_per_bet(self) -> float:
        """Standard deviation per unit of total bet."""
        return self.sd() / self.unit

    def prob(self, mask: npt.NDArray[np.bool_]) -> Fraction | float:
        """Probability of the values selected by ``mask``."""
        if self.counts is not None:
            return Fraction(int(self.counts[mask].sum()), self.total)
        return float(self.probs[mask].sum())

    def sf(self, x: float) -> Fraction | float:
        """P(win ≥ x credits)."""
        return self.prob(self.values >= x)

    def sf_bet(self, multiple: float) -> Fraction | float:
        """P(win ≥ ``multiple`` × total bet)."""
        return self.prob(self.values >= multiple * self.unit)

    def hit_frequency(self) -> Fraction | float:
        """P(win > 0)."""
        return self.prob(self.values > 0)

    def quantile(self, q: float) -> int:
        """Smallest win ``x`` with P(win ≤ x) ≥ q."""
        cdf = np.cumsum(self.probs)
        idx = int(np.searchsorted(cdf, q - 1e-15))
        return int(self.values[min(idx, len(self.values) - 1)])

    @property
    def max_win(self) -> int:
        """The largest win with positive probability (0 for an empty law)."""
        return int(self.values[-1]) if len(self.values) else 0

    def p_max(self) -> Fraction | float:
        """Probability of the largest win."""
        return self.prob(self.values == self.max_win)

    # ------------------------------------------------------------------ transforms
    def merged(self, values: npt.ArrayLike) -> WinLaw:
        """The law with each win replaced by ``values[i]`` (equal ones merged; counts stay exact)."""
        v, p, inv = merge(np.asarray(values, dtype=np.int64), self.probs)
        counts = None
        if self.counts is not None:  # exact: the probabilities from the merged counts
            counts = np.zeros(len(v), dtype=np.int64)
            np.add.at(counts, inv, self.counts)
            p = counts.astype(np.float64) / float(self.total)
        return WinLaw(v.astype(np.int64), p, self.lost_mass, counts, self.total, self.unit, self.method)

    def scaled(self, factor: int) -> WinLaw:
        """Every win multiplied by ``factor``."""
        return self.merged(self.values * factor)

    def capped(self, cap_credits: int) -> WinLaw:
        """Wins above ``cap_credits`` paid as ``cap_credits``."""
        return self.merged(np.minimum(self.values, cap_credits))

    def cap_effect(self, cap_credits: int) -> CapEffect:
        """The cap applied: the capped law, P(win ≥ cap) and the RTP lost to it (E[(win − cap)⁺] / unit).

        Examples
        --------
        >>> d = WinLaw.from_counts([0, 30, 60, 300], [5, 2, 1, 2], unit=10)
        >>> e = d.cap_effect(100)
        >>> e.capped.values.tolist(), e.p_cap, e.rtp_lost, e.capped.rtp(), d.rtp() - e.rtp_lost
        ([0, 30, 60, 100], Fraction(1, 5), Fraction(4, 1), Fraction(16, 5), Fraction(16, 5))
        """
        over = self.values > cap_credits
        if self.counts is not None:
            lost: Fraction | float = Fraction(sum((int(v) - cap_credits) * int(w) for v, w in
                                                  zip(self.values[over].tolist(), self.counts[over].tolist(),
                                                      strict=True)), self.total * self.unit)
        else:
            lost = float(np.dot(self.values[over] - cap_credits, self.probs[over])) / self.unit
        return CapEffect(self.capped(cap_credits), self.sf(cap_credits), lost)

    def as_probs(self, method: Method | None = None) -> WinLaw:
        """The same law without its counts (float figures), tagged ``method`` (``"markov"`` for an exact one)."""
        return WinLaw(self.values, self.probs, self.lost_mass, None, 0, self.unit,
                      method or ("markov" if self.exact else self.method))
