"""Sums and mixtures of independent wins given as float laws (:class:`~mathkit.laws.stage.WinLaw`).

The laws of a round's parts — a base spin given how it ended, the free spins it
started — are independent given the stage they connect through, so the law of
their sum is a convolution.  Small ones are convolved directly; large ones on a
dense grid in steps of the wins' common divisor, by one real FFT, with the
round-off floor zeroed and the mass it held reported as lost (as
:mod:`mathkit.chains.freespins.distribution` does).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from .law import WinLaw, merge

__all__ = ["MAX_GRID", "Mixing", "clean", "convolve", "mix"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
MAX_GRID = 1 << 26
DIRECT = 1 << 22


def clean(out: FloatArray, g: int, offset: int, expected: float) -> WinLaw:
    """A dense FFT result on the grid ``offset + g·k`` as a law: round-off zeroed, its mass reported lost."""
    noise = max(-float(out.min(initial=0.0)), 0.0)
    floor = max(8 * noise, float(np.finfo(np.float64).eps) * float(np.linalg.norm(out)))
    keep = np.flatnonzero(out > floor)
    probs = out[keep]
    lost = max(expected - math.fsum(probs.tolist()), 0.0)
    return WinLaw(keep.astype(np.int64) * g + offset, probs, lost)


def _grid(values: IntArray, probs: FloatArray, g: int, lo: int, size: int) -> FloatArray:
    return np.bincount((values - lo) // g, weights=probs, minlength=size).astype(np.float64)


def convolve(a: WinLaw, b: WinLaw) -> WinLaw:
    """The law of the sum of two independent wins.

    Examples
    --------
    >>> x = WinLaw(np.array([0, 10]), np.array([0.5, 0.5]))
    >>> s = convolve(x, x)
    >>> s.values.tolist(), s.probs.tolist()
    ([0, 10, 20], [0.25, 0.5, 0.25])
    """
    if len(a.values) == 0 or len(b.values) == 0:
        return WinLaw(np.zeros(0, np.int64), np.zeros(0), a.lost_mass + b.lost_mass)
    lost = a.lost_mass + b.lost_mass - a.lost_mass * b.lost_mass
    for one, other in ((b, a), (a, b)):
        if len(one.values) == 1 and one.probs[0] == 1.0 and one.lost_mass == 0.0:
            # a sure amount: the other law, shifted (its exact counts kept)
            return WinLaw(other.values + one.values[0], other.probs, other.lost_mass, other.counts, other.total)
    if len(a.values) == 1 or len(b.values) == 1:
        one, other = (a, b) if len(a.values) == 1 else (b, a)
        return WinLaw(other.values + one.values[0], other.probs * one.probs[0], lost)
    g = int(np.gcd.reduce(np.concatenate([a.values - a.values[0], b.values - b.values[0]]))) or 1
    lo_a, lo_b = int(a.values[0]), int(b.values[0])
    na = (int(a.values[-1]) - lo_a) // g + 1
    nb = (int(b.values[-1]) - lo_b) // g + 1
    if na + nb - 1 > MAX_GRID:
        msg = (f"the sum of two wins needs a grid of {na + nb - 1:,} points (more than {MAX_GRID:,}); "
               "the win distribution is too wide to convolve")
        raise ModelError(msg)
    da, db = _grid(a.values, a.probs, g, lo_a, na), _grid(b.values, b.probs, g, lo_b, nb)
    expected = math.fsum(a.probs.tolist()) * math.fsum(b.probs.tolist())
    if len(a.values) * len(b.values) <= DIRECT:
        if na + nb - 1 <= 4 * len(a.values) * len(b.values):
            # a dense grid no wider than the pairs: add them up on it, a's values outermost, so every cell
            # sums its pairs in the order the sort below does (the same floats), without the pairs in memory
            dense = np.zeros(na + nb - 1)
            ib = (b.values - lo_b) // g
            if len(a.values) <= 1024:
                for i, pa in zip(((a.values - lo_a) // g).tolist(), a.probs.tolist(), strict=True):
                    dense[i + ib] += pa * b.probs  # the cells of one row are distinct
            else:
                idx = np.repeat((a.values - lo_a) // g, len(b.values)) + np.tile(ib, len(a.values))
                dense = np.asarray(np.bincount(idx, weights=np.outer(a.probs, b.probs).ravel(),
                                               minlength=na + nb - 1), dtype=np.float64)
            cells = np.flatnonzero(dense > 0)
            return WinLaw(cells.astype(np.int64) * g + (lo_a + lo_b), dense[cells], lost)
        pv = np.outer(a.probs, b.probs).ravel()
        va = np.repeat(a.values, len(b.values)) + np.tile(b.values, len(a.values))
        uniq, out, _ = merge(va, pv)
        keep = out > 0
        return WinLaw(uniq[keep], out[keep], lost)
    from scipy import fft as sfft  # heavy: imported only for wide laws

    size = sfft.next_fast_len(na + nb - 1, real=True)
    res = np.asarray(sfft.irfft(sfft.rfft(da, size) * sfft.rfft(db, size), size), dtype=np.float64)[: na + nb - 1]
    law = clean(res, g, lo_a + lo_b, expected)
    return WinLaw(law.values, law.probs, law.lost_mass + lost)


def mix(parts: Sequence[tuple[float, WinLaw]]) -> WinLaw:
    """With probability ``p`` a win from each law (the ``p`` sum to at most 1).

    Examples
    --------
    >>> m = mix([(0.25, WinLaw.point(0)), (0.75, WinLaw.point(5))])
    >>> m.values.tolist(), m.probs.tolist()
    ([0, 5], [0.25, 0.75])
    """
    kept = [(p, law) for p, law in parts if p > 0]
    if not kept:
        return WinLaw(np.zeros(0, np.int64), np.zeros(0), 0.0)
    if len(kept) == 1 and kept[0][0] == 1.0:
        return kept[0][1]
    values = np.concatenate([law.values for _, law in kept])
    probs = np.concatenate([p * law.probs for p, law in kept])
    lost = math.fsum(p * law.lost_mass for p, law in kept)
    if len(values) == 0:
        return WinLaw(values.astype(np.int64), probs, lost)
    lo, hi = int(values.min()), int(values.max())
    if hi - lo <= 4 * len(values) + (1 << 16):
        # a dense grid no wider than a few times the points: one bincount (it adds in the same order as
        # the sort below, point by point, so the same floats) instead of a sort of every point
        dense = np.asarray(np.bincount(values - lo, weights=probs, minlength=hi - lo + 1), dtype=np.float64)
        cells = np.flatnonzero(dense > 0)
        return WinLaw(cells.astype(np.int64) + lo, dense[cells], lost)
    uniq, out, _ = merge(values, probs)
    keep = out > 0
    return WinLaw(uniq[keep], out[keep], lost)


class Mixing:
    """:func:`mix` built part by part, so the parts need not all be held at once (the same floats as ``mix``).

    Every cell adds its parts' ``p·probs`` in the order they come, as ``mix`` does (a law's values are
    distinct, so a part adds at most once to a cell); the dense grid grows to take each part, and past
    ``mix``'s own density limit the rest is collected for one ``mix`` after what is summed so far.

    Examples
    --------
    >>> m = Mixing()
    >>> m.add(0.25, WinLaw.point(0)); m.add(0.75, WinLaw.point(5))
    >>> law = m.law(); law.values.tolist(), law.probs.tolist()
    ([0, 5], [0.25, 0.75])
    """

    def __init__(self) -> None:
        self._first: WinLaw | None = None
        self._first_p = 0.0
        self._count = 0
        self._dense: FloatArray | None = None
        self._lo = 0
        self._points = 0
        self._lost: list[float] = []
        self._rest: list[tuple[float, WinLaw]] = []

    def add(self, p: float, law: WinLaw) -> None:
        if not p > 0:
            return
        self._count += 1
        self._lost.append(p * law.lost_mass)
        if self._count == 1:
            self._first = law  # kept as is until a second part comes (``mix`` returns a lone sure part unchanged)
            self._first_p = p
            return
        if self._first is not None:
            first, self._first = self._first, None
            self._grid(self._first_p, first)
        self._grid(p, law)

    def _grid(self, p: float, law: WinLaw) -> None:
        if self._rest or len(law.values) == 0:
            if len(law.values):
                self._rest.append((p, law))
            return
        lo, hi = int(law.values.min()), int(law.values.max())
        if self._dense is None:
            if hi - lo > 4 * len(law.values) + (1 << 16):  # a sparse law over a wide span (a big bet): no dense grid
                self._rest.append((p, law))
                return
            self._dense, self._lo = np.zeros(hi - lo + 1), lo
        else:
            new_lo = min(lo, self._lo)
            new_hi = max(hi, self._lo + len(self._dense) - 1)
            if new_hi - new_lo > 4 * (self._points + len(law.values)) + (1 << 16):
                self._rest.append((p, law))
                return
            if new_lo < self._lo or new_hi >= self._lo + len(self._dense):
                grown = np.zeros(new_hi - new_lo + 1)
                grown[self._lo - new_lo: self._lo - new_lo + len(self._dense)] = self._dense
                self._dense, self._lo = grown, new_lo
        np.add.at(self._dense, law.values - self._lo, p * law.probs)
        self._points += len(law.values)

    def law(self) -> WinLaw:
        if self._count == 0:
            return WinLaw(np.zeros(0, np.int64), np.zeros(0), 0.0)
        if self._first is not None:
            return mix([(self._first_p, self._first)])
        lost = math.fsum(self._lost)
        if self._dense is None:
            summed = WinLaw(np.zeros(0, np.int64), np.zeros(0))
        else:
            cells = np.flatnonzero(self._dense > 0)
            summed = WinLaw(cells.astype(np.int64) + self._lo, self._dense[cells])
        if not self._rest:
            return WinLaw(summed.values, summed.probs, lost)
        m = mix([(1.0, summed), *self._rest])
        return WinLaw(m.values, m.probs, lost)
