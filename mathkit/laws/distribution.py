"""An exact discrete win distribution: integer wins with integer counts.

A :class:`WinDistribution` holds the wins of one play (credits) and how often
each occurs: integer counts over a cycle (``method="exact"``), or float
probabilities when it comes from a Markov chain or a simulation (then
``lost_mass`` is the probability a truncation left out).  Moments are
Fractions when the counts are exact.  The object is read-only; operations
return new distributions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

__all__ = ["CapEffect", "Method", "WinDistribution"]

Method = Literal["exact", "markov", "sampled"]
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def _merge(values: npt.ArrayLike, weights: npt.ArrayLike) -> tuple[IntArray, npt.NDArray[Any]]:
    v = np.asarray(values, dtype=np.int64)
    w = np.asarray(weights)
    uniq, inv = np.unique(v, return_inverse=True)
    out = np.zeros(len(uniq), dtype=w.dtype)
    np.add.at(out, inv.reshape(-1), w)
    keep = out != 0
    return uniq[keep], out[keep]


@dataclass(frozen=True)
class CapEffect:
    """What a cap does to a distribution: the capped law, P(the cap is reached), and the RTP it takes.

    ``p_cap`` is P(win ≥ cap) before the cap; ``rtp_lost`` is E[(win − cap)⁺] per unit of total bet;
    ``capped.rtp()`` is the RTP paid (exact Fractions when the distribution's counts are exact).
    """

    capped: WinDistribution
    p_cap: Fraction | float
    rtp_lost: Fraction | float


@dataclass(frozen=True, eq=False)
class WinDistribution:
    """Distribution of the win of one play, in credits.

    Parameters
    ----------
    values
        Distinct wins in credits, ascending.
    weights
        Integer counts (exact) or float probabilities, one per value.
    unit
        Credits of one total bet: figures "× bet" divide by it.
    method
        How the figures were obtained: ``"exact"``, ``"markov"`` or ``"sampled"``.
    lost_mass
        Probability left out by a truncation (0 for exact counts).

    Examples
    --------
    >>> d = WinDistribution.from_counts([0, 10, 0, 30], [5, 2, 1, 2], unit=10)
    >>> d.total, d.rtp(), d.hit_frequency()
    (10, Fraction(4, 5), Fraction(2, 5))
    >>> float(d.variance())
    136.0
    """

    values: IntArray
    weights: npt.NDArray[Any]
    unit: int = 1
    method: Method = "exact"
    lost_mass: float = 0.0
    _total: int | float = field(default=0, repr=False)

    # ------------------------------------------------------------------ building
    @classmethod
    def from_counts(cls, values: npt.ArrayLike, counts: npt.ArrayLike, *, unit: int = 1) -> WinDistribution:
        """Exact distribution from integer counts (duplicates are merged)."""
        v, c = _merge(values, np.asarray(counts, dtype=np.int64))
        return cls(v, c.astype(np.int64), unit, "exact", 0.0, int(c.sum()))

    @classmethod
    def from_probs(cls, values: npt.ArrayLike, probs: npt.ArrayLike, *, unit: int = 1,
                   method: Method = "markov", lost_mass: float = 0.0) -> WinDistribution:
        """Distribution from float probabilities summing to ``1 - lost_mass``."""
        v, p = _merge(values, np.asarray(probs, dtype=np.float64))
        return cls(v, p.astype(np.float64), unit, method, float(lost_mass), 1.0)

    @classmethod
    def mixture(cls, parts: Sequence[tuple[Fraction | float, WinDistribution]], *, unit: int = 1) -> WinDistribution:
        """With probability ``p`` a win from each part: sub-distributions (an exact part covering only some
        rounds, the laws of the others given their event) mixed into the whole play's law.

        The ``p`` add up to 1 (less the parts' lost mass); the method is the weakest part's
        (``"sampled"`` if any is sampled, else ``"markov"``).

        Examples
        --------
        >>> part = WinDistribution.from_probs([0, 30], [0.5, 0.2], method="exact")      # mass 0.7: the covered rounds
        >>> rest = WinDistribution.from_probs([60, 300], [1 / 3, 2 / 3], method="sampled")  # given the other rounds
        >>> m = WinDistribution.mixture([(1, part), (0.3, rest)], unit=10)
        >>> m.values.tolist(), [round(p, 12) for p in m.probs().tolist()], m.method
        ([0, 30, 60, 300], [0.5, 0.2, 0.1, 0.2], 'sampled')
        """
        kept = [(float(p), d) for p, d in parts if p]
        values = np.concatenate([d.values for _, d in kept]) if kept else np.zeros(0, np.int64)
        probs = np.concatenate([p * d.probs() for p, d in kept]) if kept else np.zeros(0)
        method: Method = "sampled" if any(d.method == "sampled" for _, d in kept) else "markov"
        return cls.from_probs(values, probs, unit=unit, method=method,
                              lost_mass=math.fsum(p * d.lost_mass for p, d in kept))

    @property
    def exact(self) -> bool:
        return self.method == "exact"

    @property
    def total(self) -> int | float:
        """Sum of the weights: the cycle for exact counts, 1 for probabilities (less lost mass)."""
        return self._total

    def probs(self) -> FloatArray:
        """Probabilities as floats."""
        if self.exact:
            return self.weights.astype(np.float64) / float(self._total)
        return self.weights.astype(np.float64)

    # ------------------------------------------------------------------ moments
    def _sum(self, power: int) -> int | float:
        if self.exact:
            total: int = sum(int(v) ** power * int(w) for v, w in zip(self.values.tolist(), self.weights.tolist(),
                                                                      strict=True))
            return total
        return float((self.values.astype(np.float64) ** power * self.weights.astype(np.float64)).sum())

    def mean(self) -> Fraction | float:
        """Expected win in credits (a Fraction when exact)."""
        if self.exact:
            return Fraction(int(self._sum(1)), int(self._total))
        return float(self._sum(1))

    def rtp(self) -> Fraction | float:
        """Expected win per unit of total bet."""
        return self.mean() / self.unit

    def second_moment(self) -> Fraction | float:
        if self.exact:
            return Fraction(int(self._sum(2)), int(self._total))
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

    # ------------------------------------------------------------------ probabilities
    def prob(self, mask: npt.NDArray[np.bool_]) -> Fraction | float:
        """Probability of the values selected by ``mask``."""
        if self.exact:
            return Fraction(int(self.weights[mask].sum()), int(self._total))
        return float(self.weights[mask].sum())

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
        cdf = np.cumsum(self.probs())
        idx = int(np.searchsorted(cdf, q - 1e-15))
        return int(self.values[min(idx, len(self.values) - 1)])

    @property
    def max_win(self) -> int:
        return int(self.values[-1]) if len(self.values) else 0

    def p_max(self) -> Fraction | float:
        """Probability of the largest win."""
        return self.prob(self.values == self.max_win)

    # ------------------------------------------------------------------ transforms
    def scaled(self, factor: int) -> WinDistribution:
        """Every win multiplied by ``factor``."""
        return self._replace_values(self.values * factor)

    def capped(self, cap_credits: int) -> WinDistribution:
        """Wins above ``cap_credits`` paid as ``cap_credits``."""
        return self._replace_values(np.minimum(self.values, cap_credits))

    def cap_effect(self, cap_credits: int) -> CapEffect:
        """The cap applied: the capped law, P(win ≥ cap) and the RTP lost to it (E[(win − cap)⁺] / unit).

        Examples
        --------
        >>> d = WinDistribution.from_counts([0, 30, 60, 300], [5, 2, 1, 2], unit=10)
        >>> e = d.cap_effect(100)
        >>> e.capped.values.tolist(), e.p_cap, e.rtp_lost, e.capped.rtp(), d.rtp() - e.rtp_lost
        ([0, 30, 60, 100], Fraction(1, 5), Fraction(4, 1), Fraction(16, 5), Fraction(16, 5))
        """
        over = self.values > cap_credits
        if self.exact:
            lost: Fraction | float = Fraction(sum((int(v) - cap_credits) * int(w) for v, w in
                                                  zip(self.values[over].tolist(), self.weights[over].tolist(),
                                                      strict=True)), int(self._total) * self.unit)
        else:
            lost = float(np.dot(self.values[over] - cap_credits, self.weights[over].astype(np.float64))) / self.unit
        return CapEffect(self.capped(cap_credits), self.sf(cap_credits), lost)

    def _replace_values(self, values: IntArray) -> WinDistribution:
        v, w = _merge(values, self.weights)
        return WinDistribution(v, w, self.unit, self.method, self.lost_mass, self._total)

    def as_probs(self, method: Method | None = None) -> WinDistribution:
        """The same distribution with float probabilities."""
        return WinDistribution(self.values, self.probs(), self.unit, method or ("markov" if self.exact else self.method),
                               self.lost_mass, 1.0)

    def convolve(self, other: WinDistribution) -> WinDistribution:
        """Distribution of the sum of two independent wins (float probabilities)."""
        a, b = self.as_probs(), other.as_probs()
        values = (a.values[:, None] + b.values[None, :]).ravel()
        probs = (a.probs()[:, None] * b.probs()[None, :]).ravel()
        method: Method = "sampled" if "sampled" in (self.method, other.method) else "markov"
        return WinDistribution.from_probs(values, probs, unit=self.unit, method=method,
                                          lost_mass=self.lost_mass + other.lost_mass)

    def mix(self, other: WinDistribution, p_other: float) -> WinDistribution:
        """With probability ``p_other`` a win from ``other``, else from ``self``."""
        a, b = self.as_probs(), other.as_probs()
        values = np.concatenate([a.values, b.values])
        probs = np.concatenate([a.probs() * (1 - p_other), b.probs() * p_other])
        return WinDistribution.from_probs(values, probs, unit=self.unit, method="markov",
                                          lost_mass=a.lost_mass * (1 - p_other) + b.lost_mass * p_other)
