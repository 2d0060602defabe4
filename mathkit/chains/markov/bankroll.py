"""The bankroll chain of a session, pushed forward spin by spin or a block of spins at a time.

Everything is in lattice units (credits / g).  A session starts at ``x0``; a spin
costs ``b`` and pays a draw from a :class:`~mathkit.chains.markov.lattice.LatticeLaw`; the player
stops below ``b`` (bust), at a stop-win target, or after ``spins``.

The grid and the mass that leaves it
------------------------------------
Without a stop-win the bankroll is unbounded above.  With ``r`` spins left, a bankroll of
at least ``f + r·b`` (``f`` the ceiling of the final-bankroll distribution) can neither
bust nor end below ``f``: it drops at most ``b`` a spin.  Such mass leaves the grid for
one *above* bucket kept by its mass and first moment (each later spin moves it by
``E[W] − b`` on average), and still counts as playing.  So nothing is cut, and the grid
is ``[0, f + r·b)``, shrinking by ``b`` a spin.  With a stop-win ``t`` the grid is
``[0, t)`` and the above bucket holds the sessions that reached the target.

Two ways to push the mass
-------------------------
:func:`run_plain`: one spin at a time, one convolution each.
:func:`run_blocked` (no stop-win): ``s`` spins at once.  With ``T`` the free one-spin
operator (no barrier) and ``βⱼ`` the mass busted at spin ``j`` of the block,
``a_{n+s} = Tˢ a_n − Σⱼ T^{s−j} βⱼ`` (the identity holds on the whole lattice), and
``βⱼ = (Tʲ a_n − Σ_{i<j} T^{j−i} βᵢ)`` on ``[0, b)``: only bankrolls below
``(j + 1)·b`` can reach it in ``j`` spins, so each ``βⱼ`` needs a few products, and a
block costs one FFT (``Tˢ a_n``) instead of ``s``.  The powers ``Tʲ`` (``j ≤ s``) are
computed once.  Both return a :class:`ChainRun`; the tests hold them equal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt

from .lattice import Convolver, LatticeLaw, gamma, gamma_sum

__all__ = ["BLOCK", "POWERS_MAX", "ChainRun", "Powers", "block_length", "busted_mass", "powers", "run_blocked", "run_plain"]

FloatArray = npt.NDArray[np.float64]
BLOCK = 64
"""Spins per block of :func:`run_blocked` (fewer when memory for the powers would exceed :data:`POWERS_MAX`)."""
POWERS_MAX = 1 << 23
"""Most floats the powers of one chain may hold."""
TINY = 1e-300
"""With a stop-win, the chain stops once less than this is still playing (added to the error bound)."""


@dataclass(frozen=True, eq=False)
class ChainRun:
    """What one chain did, in units.

    ``alive[n]``: P(still playing after ``n`` spins), ``n = 0 .. spins`` (mass above the grid
    included); ``final[y]``: P(the session ends with bankroll ``y``) for ``y < len(final)``;
    ``above``/``above_m1``: P(final ≥ ``len(final)``) and E[final; final ≥ ``len(final)``];
    ``error``: a bound on the ℓ1 rounding error of every probability here; ``defect``: the
    largest mass-balance residual seen (an a posteriori check of ``error``).
    """

    alive: FloatArray
    final: FloatArray
    above: float
    above_m1: float
    error: float
    defect: float


@nb.njit(cache=True, nogil=True)
def _escape(a: FloatArray, lo: int, hi: int, reach: int, drop: int, sf: FloatArray,
            tm: FloatArray) -> tuple[float, float]:  # pragma: no cover - compiled
    """Mass and first moment that leave the grid: ``Σₓ a[x]·P(W ≥ reach − x)`` over ``x ∈ [lo, hi)``.

    The moment is of the bankroll after the spins, ``x − drop + W``, over ``W ≥ reach − x``
    (``sf``/``tm``: the law's tail sums, read at ``reach − x``).
    """
    mass = 0.0
    m1 = 0.0
    for x in range(lo, hi):
        w = a[x]
        if w != 0.0:
            t = reach - x
            mass += w * sf[t]
            m1 += w * ((x - drop) * sf[t] + tm[t])
    return mass, m1


def run_plain(law: LatticeLaw, b: int, x0: int, spins: int, top: int, *, stop: bool) -> ChainRun:
    """Push the chain one spin at a time on ``[0, top)``.

    ``stop``: ``top`` is the stop-win target (the bucket holds the sessions that reached it);
    otherwise ``top`` is ``f + spins·b`` and the bucket holds the mass that left the grid.
    """
    conv = Convolver(law.dense)
    kappa, m1k = law.mass, law.m1
    a = np.zeros(top)
    a[x0] = 1.0
    end = top if stop else top - spins * b
    alive = np.empty(spins + 1)
    alive[0] = 1.0
    final = np.zeros(end)
    esc = esc1 = err = defect = 0.0
    now = top
    for n in range(spins):
        nxt = now if stop else now - b
        m = float(a[b:now].sum())
        y, e, _ = conv.apply(a, b, nxt, b)
        up, up1 = _escape(a, b, now, nxt + b, b, law.sf, law.tail_m1)  # beyond the next grid
        if not stop:  # the mass above keeps playing
            esc1 = kappa * esc1 + (m1k - b * kappa) * esc
            esc *= kappa
        esc, esc1 = esc + up, esc1 + up1
        np.maximum(y, 0.0, out=y)
        busted = float(y[:b].sum())
        final[:b] += y[:b]
        y[:b] = 0.0
        a[:nxt] = y
        a[nxt:] = 0.0
        inside = float(y.sum())
        alive[n + 1] = inside + (0.0 if stop else esc)
        err += e + (conv.relative + gamma_sum(now)) * (kappa * m + m) + gamma(now + 2) * up
        defect = max(defect, abs(kappa * m - busted - inside - up))
        now = nxt
        if stop and inside < TINY:  # every session is over (to below 1e-300): the rest of the curve is 0
            alive[n + 2 :] = 0.0
            err += inside
            break
    final[b:end] += a[b:end]
    return ChainRun(alive, final, esc, esc1, err, defect)


@dataclass(frozen=True, eq=False)
class Powers:
    """The laws of ``W₁ + … + Wⱼ`` on ``[0, size)`` for ``j = 0 .. s``, with their tail sums and error bounds.

    ``rel[j]``: componentwise relative bound on ``dense[j]``; ``abs[j]``, ``abs2[j]``: ℓ1 and ℓ2
    bounds on the rest (the FFT's, carried through later convolutions: ``‖δ * k‖ ≤ ‖δ‖·‖k‖₁``).
    """

    dense: FloatArray
    sf: FloatArray
    tail_m1: FloatArray
    mass: FloatArray
    rel: FloatArray
    abs: FloatArray
    abs2: FloatArray

    @property
    def s(self) -> int:
        return len(self.dense) - 1


def powers(law: LatticeLaw, s: int) -> Powers:
    """``Tʲ``'s win law for ``j ≤ s`` (``j = 0``: no spin), by repeated convolution with ``law``."""
    size = law.size
    dense = np.zeros((s + 1, size))
    sf = np.zeros((s + 1, size + 1))
    tm = np.zeros((s + 1, size + 1))
    dense[0, 0] = sf[0, 0] = 1.0
    dense[1], sf[1], tm[1] = law.dense, law.sf, law.tail_m1
    rel, err, err2 = np.zeros(s + 1), np.zeros(s + 1), np.zeros(s + 1)
    conv = Convolver(law.dense)
    beyond, beyond_m1 = law.beyond, law.beyond_m1
    kappa, m1k = law.mass, law.m1
    for j in range(2, s + 1):
        prev = dense[j - 1]
        out, e, e2 = conv.apply(prev, 0, size, 0)
        np.maximum(out, 0.0, out=out)
        # W₁ + … + Wⱼ ≥ size: already beyond after j − 1 wins, or pushed over by the j-th
        new_b, new_m1 = _escape(prev, 0, size, size, 0, law.sf, law.tail_m1)
        beyond, beyond_m1 = kappa * beyond + new_b, kappa * beyond_m1 + m1k * beyond + new_m1
        step = LatticeLaw.from_dense(out, beyond, beyond_m1)
        dense[j], sf[j], tm[j] = out, step.sf, step.tail_m1
        rel[j] = rel[j - 1] + conv.relative
        err[j] = kappa * err[j - 1] + e
        err2[j] = kappa * err2[j - 1] + e2
    return Powers(dense, sf, tm, sf[:, 0].copy(), rel, err, err2)


@nb.njit(cache=True, nogil=True)
def _strips(a: FloatArray, top: int, dense: FloatArray, b: int, s: int,
            beta: FloatArray) -> float:  # pragma: no cover - compiled
    """``beta[j] = (Tʲ a − Σ_{i<j} T^{j−i} beta[i])`` on ``[0, b)``, ``j = 1 .. s``; returns the terms' total."""
    total = 0.0
    for j in range(1, s + 1):
        for y in range(b):
            free = 0.0
            for x in range(b, min(top, y + j * b + 1)):
                free += a[x] * dense[j, y - x + j * b]
            corr = 0.0
            for i in range(1, j):
                for xp in range(b):
                    corr += beta[i, xp] * dense[j - i, y - xp + (j - i) * b]
            v = free - corr
            beta[j, y] = v if v > 0.0 else 0.0
            total += free + corr
    return total


@nb.njit(cache=True, nogil=True)
def _corrections(out: FloatArray, beta: FloatArray, dense: FloatArray, sf: FloatArray, tm: FloatArray,
                 b: int, s: int, top: int) -> tuple[float, float]:  # pragma: no cover - compiled
    """``out[y] −= Σ_{i<s} (T^{s−i} beta[i])[y]`` on ``[b, top)``; returns that sum's mass and moment beyond ``top``."""
    mass = 0.0
    m1 = 0.0
    dst = out[b:top]
    for i in range(1, s):
        d = (s - i) * b
        for xp in range(b):
            w = beta[i, xp]
            if w == 0.0:
                continue
            tau = top + d - xp
            mass += w * sf[s - i, tau]
            m1 += w * ((xp - d) * sf[s - i, tau] + tm[s - i, tau])
            src = dense[s - i, b + d - xp : top + d - xp]  # fresh slices: the loop vectorises
            for y in range(top - b):
                dst[y] -= w * src[y]
    return mass, m1


def block_length(size: int, spins: int) -> int:
    """Spins per block: :data:`BLOCK`, or fewer so the powers fit in :data:`POWERS_MAX` floats."""
    return max(1, min(BLOCK, spins, POWERS_MAX // (3 * (size + 1)) - 1))


def run_blocked(law: LatticeLaw, b: int, x0: int, spins: int, ceiling: int, s: int | None = None) -> ChainRun:
    """Push the chain (no stop-win) ``s`` spins at a time; the grid is ``[0, ceiling + r·b)``."""
    top = ceiling + spins * b
    s = block_length(top, spins) if s is None else s
    pw = powers(law, s)
    kappa, m1k = law.mass, law.m1
    convs: dict[int, Convolver] = {}
    a = np.zeros(top)
    a[x0] = 1.0
    alive = np.empty(spins + 1)
    alive[0] = 1.0
    final = np.zeros(ceiling)
    esc = esc1 = err = defect = 0.0
    n = 0
    while n < spins:
        k = min(s, spins - n)
        beta = np.zeros((k + 1, b))
        terms = _strips(a, top, pw.dense, b, k, beta)
        m0 = m = float(a[b:top].sum())
        for j in range(1, k + 1):
            esc1 = kappa * esc1 + (m1k - b * kappa) * esc
            esc *= kappa
            m = max(kappa * m - float(beta[j].sum()), 0.0)
            alive[n + j] = m + esc
            final[:b] += beta[j]
        nxt = top - k * b
        if k not in convs:
            convs[k] = Convolver(pw.dense[k])
        y, e, _ = convs[k].apply(a, b, nxt, k * b)
        back, back1 = _corrections(y, beta, pw.dense, pw.sf, pw.tail_m1, b, k, nxt)
        y[:b] = 0.0
        np.maximum(y, 0.0, out=y)
        up, up1 = _escape(a, b, top, top, k * b, pw.sf[k], pw.tail_m1[k])  # beyond the next grid
        up, up1 = max(up - back, 0.0), up1 - back1
        esc, esc1 = esc + up, esc1 + up1
        busted = float(beta[1:].sum())
        inside = float(y.sum())
        defect = max(defect, abs(pw.mass[k] * m0 - busted_mass(beta, kappa) - inside - up))
        rel = pw.rel[k] + convs[k].relative + gamma_sum(top)
        # the powers' own FFT errors: the strips read b entries of Tʲ's law per bankroll (ℓ2 ≥ ℓ∞
        # bounds them), Tᵏ a, the corrections and the tail sums read whole laws (ℓ1)
        err += (e + rel * (2 * m0 + terms + busted) + gamma(top + 2) * (up + back)
                + b * float(pw.abs2[1 : k + 1].sum()) * (m0 + busted) + 3 * pw.abs[k] * (m0 + busted))
        a[:nxt] = y
        a[nxt:] = 0.0
        top = nxt
        n += k
    final[b:ceiling] += a[b:ceiling]
    return ChainRun(alive, final, esc, esc1, err, defect)


def busted_mass(beta: FloatArray, kappa: float) -> float:
    """The busted mass of a block as it would have weighed at the block's end had it played on.

    The mass balance of a block: the free evolution keeps ``κˢ`` of the starting mass; the
    busted ``βⱼ`` would have kept ``κ^{s−j}`` of theirs.
    """
    k = beta.shape[0] - 1
    return math.fsum(float(beta[j].sum()) * kappa ** (k - j) for j in range(1, k + 1))
