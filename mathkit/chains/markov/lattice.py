"""A win law on a bounded lattice, and convolutions on it with their rounding error bounded.

Wins are counted in *units* (the lattice step, credits / g).  A :class:`LatticeLaw`
holds ``P(W = v)`` densely for ``v < size``, the mass and first moment of ``W ≥ size``
(``beyond``, ``beyond_m1``), and the tail sums ``sf[τ] = P(W ≥ τ)`` and
``tail_m1[τ] = E[W; W ≥ τ]`` for ``τ ≤ size``: what lands past the end of a grid is
accounted for by them, never dropped.  The law may be sub-stochastic (its total
``mass`` below 1): a truncation upstream, or wins removed on purpose.

:class:`Convolver` computes ``out[j] = Σₓ u[x]·k[j + shift − x]`` for a vector ``u``:
directly (a compiled loop) for the few heaviest wins, by one real FFT for the rest,
with a priori bounds on the rounding error of the result:

* direct: each output is a sum of at most ``h + 1`` non-negative products, so its
  error is at most ``γ_{h+1}`` times its value (``γₙ = n·u / (1 − n·u)``, ``u`` the unit
  roundoff);
* FFT: the error analysis of the Cooley–Tukey FFT (Higham, *Accuracy and Stability of
  Numerical Algorithms*, 2nd ed., §24.1: relative ℓ2 error ``log₂n·η`` per transform,
  ``η = μ + γ₄(√2 + μ) ≈ 6.7u`` with accurately computed twiddle factors) gives, for two
  forward transforms, the product and the inverse, an ℓ2 error of at most about
  ``log₂n·η·(‖u‖₂‖k‖₁ + 2‖u‖₁‖k‖₂)``; we take ``20·u·log₂n·(‖u‖₂‖k‖₁ + ‖u‖₁‖k‖₂)``
  (ℓ1 over the ``m`` outputs kept: ``√m`` times that).

Keeping the heaviest wins out of the FFT keeps ``‖k‖₂`` of its part small, so the
bound stays far below the figures' 10⁻⁹ over thousands of spins.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt
from scipy import fft as sfft

__all__ = ["DIRECT_MAX", "HEAD", "Convolver", "LatticeLaw", "gamma", "gamma_sum", "lattice_law"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

UNIT_ROUNDOFF = float(np.finfo(np.float64).eps) / 2
DIRECT_MAX = 96
"""A law with at most this many wins on the grid is convolved directly, with no FFT."""
HEAD = 64
"""Otherwise the ``HEAD`` most probable wins are convolved directly, the rest by FFT."""
FFT_C = 20.0
"""The constant of the FFT convolution bound (see the module docstring)."""
_REPLAN = 0.6
"""An FFT plan is remade when the transform it needs falls below this share of its size."""


def gamma(n: int) -> float:
    """``γₙ = n·u / (1 − n·u)``: the relative error bound of a sum of ``n`` non-negative terms.

    Examples
    --------
    >>> 0 < gamma(10) < 1.2e-15
    True
    """
    nu = n * UNIT_ROUNDOFF
    return nu / (1 - nu)


def gamma_sum(n: int) -> float:
    """The relative error bound of ``numpy.sum`` of ``n`` non-negative floats (pairwise summation).

    numpy adds blocks of up to 128 numbers with 8 running sums, then the blocks pairwise:
    at most ``16 + 8 + ⌈log₂ n⌉`` additions stand between any term and the total.
    """
    return gamma(24 + max(1, n).bit_length())


@dataclass(frozen=True, eq=False)
class LatticeLaw:
    """``P(W = v)`` for ``v < size`` (units), with the mass and first moment of ``W ≥ size`` kept apart."""

    dense: FloatArray
    beyond: float
    beyond_m1: float
    sf: FloatArray
    tail_m1: FloatArray

    @property
    def size(self) -> int:
        return len(self.dense)

    @property
    def mass(self) -> float:
        """Total probability (below 1 for a sub-stochastic law)."""
        return float(self.sf[0])

    @property
    def m1(self) -> float:
        """``E[W]`` over the law's mass, in units."""
        return float(self.tail_m1[0])

    @classmethod
    def from_dense(cls, dense: FloatArray, beyond: float = 0.0, beyond_m1: float = 0.0) -> LatticeLaw:
        """The law with ``dense`` below its length and the given mass and first moment beyond it."""
        d = np.asarray(dense, dtype=np.float64)
        v = np.arange(len(d), dtype=np.float64)
        sf = np.empty(len(d) + 1)
        m1 = np.empty(len(d) + 1)
        sf[-1], m1[-1] = beyond, beyond_m1
        # from the top down: small terms are added first
        sf[:-1] = np.cumsum(d[::-1])[::-1] + beyond
        m1[:-1] = np.cumsum((d * v)[::-1])[::-1] + beyond_m1
        return cls(d, float(beyond), float(beyond_m1), sf, m1)


def lattice_law(values: IntArray, probs: FloatArray, size: int, *, below: int | None = None) -> LatticeLaw:
    """The law of wins ``values`` (units) with ``probs`` on the grid ``[0, size)``.

    ``below``: keep only the wins below it (the law of "no win of ``below`` or more").

    Examples
    --------
    >>> law = lattice_law(np.array([0, 2, 9]), np.array([0.5, 0.25, 0.25]), 4)
    >>> law.dense.tolist(), law.beyond, law.sf.tolist()
    ([0.5, 0.0, 0.25, 0.0], 0.25, [1.0, 0.5, 0.5, 0.25, 0.25])
    """
    keep = values < below if below is not None else np.ones(len(values), dtype=bool)
    v, p = values[keep], probs[keep]
    on = v < size
    dense = np.bincount(v[on], weights=p[on], minlength=size).astype(np.float64)[:size]
    far = ~on
    return LatticeLaw.from_dense(dense, math.fsum(p[far].tolist()), math.fsum((p[far] * v[far]).tolist()))


@nb.njit(cache=True, nogil=True)
def _direct(u: FloatArray, lo: int, values: IntArray, probs: FloatArray, out: FloatArray,
            shift: int) -> None:  # pragma: no cover - compiled
    """``out[j] += Σᵢ probs[i]·u[j + shift − values[i]]`` over ``u``'s indices ``[lo, len(u))``."""
    n_u = u.shape[0]
    n_out = out.shape[0]
    for i in range(values.shape[0]):
        d = shift - values[i]
        p = probs[i]
        j0 = max(0, lo - d)
        j1 = min(n_out, n_u - d)
        if j1 <= j0:
            continue
        src = u[j0 + d : j1 + d]  # fresh slices: the loop below vectorises (3x faster than indexing)
        dst = out[j0:j1]
        for j in range(j1 - j0):
            dst[j] += p * src[j]


@nb.njit(cache=True, nogil=True)
def _norms(u: FloatArray) -> tuple[float, float]:  # pragma: no cover - compiled
    """``(‖u‖₁, ‖u‖₂)``, compiled (a BLAS call on a busy machine costs more than the loop)."""
    l1 = 0.0
    l2 = 0.0
    for x in u:
        l1 += abs(x)
        l2 += x * x
    return l1, np.sqrt(l2)


class Convolver:
    """Convolutions of vectors with one law on the grid (see the module docstring).

    Holds the direct part (the heaviest wins) and the FFT of the rest at the current
    plan's size; a plan is reused while the vectors shrink, and remade when they fall
    below :data:`_REPLAN` of it.

    Examples
    --------
    >>> c = Convolver(np.array([0.5, 0.0, 0.5]))
    >>> out, err, _ = c.apply(np.array([0.0, 1.0, 0.0, 0.0]), lo=1, length=3, shift=1)
    >>> out.tolist(), err
    ([0.5, 0.0, 0.5], 0.0)
    """

    def __init__(self, dense: FloatArray) -> None:
        nz = np.flatnonzero(dense)
        if len(nz) > DIRECT_MAX:
            heavy = np.sort(nz[np.argsort(dense[nz], kind="stable")[-HEAD:]])
        else:
            heavy = nz
        self.values = heavy.astype(np.int64)
        self.probs = np.ascontiguousarray(dense[heavy])
        rest = dense.copy()
        rest[heavy] = 0.0
        self.rest = rest if len(nz) > DIRECT_MAX else None
        self.head_mass = math.fsum(self.probs.tolist())
        self.rest_l1 = math.fsum(rest.tolist()) if self.rest is not None else 0.0
        self.rest_l2 = _norms(rest)[1] if self.rest is not None else 0.0
        self._plan: tuple[int, int, npt.NDArray[np.complex128]] | None = None

    def _spectrum(self, n_u: int, klen: int) -> tuple[int, npt.NDArray[np.complex128]]:
        assert self.rest is not None
        klen = min(klen, len(self.rest))
        if self._plan is not None:
            n, k, spec = self._plan
            if k >= klen and n >= n_u + k - 1 and n_u + klen - 1 >= _REPLAN * n:
                return n, spec
        n = sfft.next_fast_len(n_u + klen - 1, real=True)
        spec = sfft.rfft(self.rest[:klen], n)
        self._plan = (n, klen, spec)
        return n, spec

    @property
    def relative(self) -> float:
        """The componentwise relative error bound of the direct part (and of adding the FFT part to it)."""
        return gamma(len(self.values) + 2)

    def apply(self, u: FloatArray, lo: int, length: int, shift: int) -> tuple[FloatArray, float, float]:
        """``out[j] = Σ_{x ≥ lo} u[x]·k[j + shift − x]`` for ``j < length``, and the FFT's ℓ1 and ℓ2 error bounds.

        ``shift ≥ lo`` (the output never reads the kernel at a negative index).  The whole
        error is at most :attr:`relative` times the output's mass plus the FFT's bound.
        """
        out = np.zeros(length)
        part = u[lo:]
        if length == 0 or not part.any():
            return out, 0.0, 0.0
        l2_err = 0.0
        if self.rest is not None and self.rest_l1 > 0.0:
            off = shift - lo
            klen = length + off
            n, spec = self._spectrum(len(part), klen)
            z = sfft.irfft(sfft.rfft(part, n) * spec, n)
            out += z[off : off + length]
            l1, l2 = _norms(part)
            l2_err = FFT_C * UNIT_ROUNDOFF * math.log2(n) * (l2 * self.rest_l1 + l1 * self.rest_l2)
        _direct(u, lo, self.values, self.probs, out, shift)
        return out, l2_err * math.sqrt(length), l2_err
