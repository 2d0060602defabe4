"""The win distribution of free spins with a growing multiplier, over (spins left, multiplier).

A spin pays ``X·m' + Y`` (line win ``X`` times the multiplier ``m' = m + s·c`` after its
``c`` triggers, scatter win ``Y`` unmultiplied), independently of the spins before, so

    D(k, m) = Σ_c  law(X·m' + Y, c)  ⊛  D(k − 1, m'),      D(0, m) = δ₀,

where ``law(·, c)`` is the spin's sub-law on the event of ``c`` triggers (its mass is
P(c)).  Every law lives on one lattice of step ``g`` (the wins' common divisor) from 0 to
``hi``; a cell past ``hi`` holds all the mass above it (when ``hi`` is a round limit such as
a cap, every capped figure stays exact).  The convolutions are real FFTs; the spectra of
every ``D(k, m)`` and every ``law(·, c)`` at ``m'`` are computed once and shared by every
start.  The round-off floor is zeroed at the end and its mass reported lost
(:func:`mathkit.laws.convolve.clean`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ...errors import ModelError
from ...laws.convolve import MAX_GRID, clean
from ...laws.law import WinLaw

__all__ = ["MultiplierLattice", "multiplier_distribution"]

FloatArray = npt.NDArray[np.float64]
ComplexArray = npt.NDArray[np.complex128]
Joint = Sequence[tuple[int, int, int, int]]
"""One spin's law: ``(triggers c, line win X, scatter win Y, count)`` rows, the counts over one cycle."""


class MultiplierLattice:
    """``D(k, m)`` on one lattice, remembered across starts (see the module docstring).

    Examples
    --------
    >>> lat = MultiplierLattice(((0, 0, 0, 1), (1, 1, 0, 1)), step=1, hi=None, top=20)
    >>> law = lat.law(2, 1)   # 2 spins from ×1; a trigger (1/2) raises it by 1 and pays 1 × the new multiplier
    >>> law.values.tolist(), [round(p, 12) for p in law.probs.tolist()]   # 0 + 0, 0 + 2, 2 + 0, 2 + 3
    ([0, 2, 5], [0.25, 0.5, 0.25])
    """

    def __init__(self, joint: Joint, step: int, hi: int | None, top: int) -> None:
        self.step = step
        self.cycle = sum(n for *_, n in joint)
        g = 0
        for _, x, y, _ in joint:
            g = math.gcd(g, x, y)
        self.g = g or 1
        self.joint = tuple(joint)
        limit = top if hi is None or top <= hi else hi
        self.n = limit // self.g + (1 if hi is not None and top > hi else 0) + 1  # cells 0 … n − 1, the last lumped
        if self.n > MAX_GRID:
            msg = f"the multiplier free spins' wins need a lattice of {self.n:,} points (more than {MAX_GRID:,})"
            raise ModelError(msg)
        from scipy import fft as sfft  # heavy: imported only when a distribution is asked for

        self._fft = sfft
        self.size = sfft.next_fast_len(2 * self.n - 1, real=True)
        self.counts = sorted({c for c, *_ in joint})
        self._spectra: dict[tuple[int, int], ComplexArray] = {}
        self._spin: dict[tuple[int, int], ComplexArray] = {}

    def _lump(self, values: npt.NDArray[np.int64], probs: FloatArray) -> FloatArray:
        idx = np.minimum(values // self.g, self.n - 1)
        return np.bincount(idx, weights=probs, minlength=self.n).astype(np.float64)

    def spin(self, m: int, c: int) -> FloatArray:
        """The spin's sub-law of ``X·m + Y`` on the event of ``c`` triggers, dense on the lattice."""
        rows = [(x, y, n) for cc, x, y, n in self.joint if cc == c]
        values = np.array([x * m + y for x, y, _ in rows], dtype=np.int64)
        probs = np.array([n / self.cycle for _, _, n in rows], dtype=np.float64)
        return self._lump(values, probs)

    def _spin_spectrum(self, m: int, c: int) -> ComplexArray:
        if (m, c) not in self._spin:
            self._spin[(m, c)] = np.asarray(self._fft.rfft(self.spin(m, c), self.size))
        return self._spin[(m, c)]

    def dense(self, k: int, m: int) -> FloatArray:
        """``D(k, m)`` on the lattice (cells of step ``g``, the last holding all mass above it).

        Only the spectra are kept (each state's law is asked for once, by :meth:`law` or a spectrum)."""
        if k == 0:
            out = np.zeros(self.n)
            out[0] = 1.0
        elif k == 1:
            out = np.zeros(self.n)
            for c in self.counts:
                out += self.spin(m + self.step * c, c)
        else:
            acc = np.zeros(self.size // 2 + 1, dtype=np.complex128)
            for c in self.counts:
                m2 = m + self.step * c
                acc += self._spin_spectrum(m2, c) * self._spectrum(k - 1, m2)
            full = np.asarray(self._fft.irfft(acc, self.size), dtype=np.float64)[: 2 * self.n - 1]
            out = full[: self.n].copy()
            out[-1] += math.fsum(full[self.n:].tolist())
        return out

    def _spectrum(self, k: int, m: int) -> ComplexArray:
        if (k, m) not in self._spectra:
            self._spectra[(k, m)] = np.asarray(self._fft.rfft(self.dense(k, m), self.size))
        return self._spectra[(k, m)]

    def law(self, spins: int, start: int) -> WinLaw:
        """The law of ``spins`` spins from multiplier ``start`` (the round-off floor zeroed, its mass lost)."""
        return clean(self.dense(spins, start), self.g, 0, 1.0)


def multiplier_distribution(joint: Joint, spins: int, start: int, step: int, top: int, hi: int | None) -> WinLaw:
    """The law of ``spins`` multiplier free spins from ``start``: exact for wins up to ``hi`` (``None``: all).

    Examples
    --------
    >>> multiplier_distribution(((0, 2, 1, 3), (1, 2, 0, 1)), 1, 1, 1, 10, None).values.tolist()
    [3, 4]
    """
    return MultiplierLattice(joint, step, hi, top).law(spins, start)
