"""The distribution of a chain's total reward, by pushing the joint (state, reward) mass forward.

Per state the mass is a dense array over rewards from an offset; one step
convolves it with the state's reward law towards each next state (by FFT when
both supports have :data:`FFT_MIN_SUPPORT` points or more, its round-off below
the noise floor set to 0).  Mass reaching :data:`~mathkit.chains.markov.ABSORB` is
collected; the propagation stops once at most ``tol`` is still inside.
:meth:`mathkit.chains.markov.RewardChain.total_reward_distribution` is the entry point.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from ...errors import ModelError
from ...laws.law import WinLaw
from ...model.bounds import check_cost, limits
from .solve import ABSORB, Outcome

__all__ = ["FFT_MIN_SUPPORT", "Kernels", "propagate_rewards", "reward_kernels"]

FFT_MIN_SUPPORT: Final = 512
"""Convolutions use an FFT only when both supports are at least this long."""

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Kernels = tuple[tuple[tuple[int, int, FloatArray], ...], ...]
"""Per state, per next state: ``(next, min reward, dense reward probabilities)``."""


def _convolve(a: FloatArray, b: FloatArray) -> FloatArray:
    """``a * b``; by FFT when both are long, with its round-off below the noise floor set to 0."""
    if min(len(a), len(b)) < FFT_MIN_SUPPORT:
        return np.convolve(a, b)
    from scipy.signal import fftconvolve  # heavy (scipy.signal imports scipy.stats): only for long laws

    out = np.asarray(fftconvolve(a, b), dtype=np.float64)
    floor = 8 * np.finfo(np.float64).eps * math.sqrt(len(out)) * np.linalg.norm(a) * np.linalg.norm(b)
    out[out <= floor] = 0.0
    return out


def _add(acc: tuple[int, FloatArray] | None, off: int, arr: FloatArray) -> tuple[int, FloatArray]:
    """Sum of two masses indexed by reward from an offset: ``(offset, dense array)``."""
    if acc is None:
        return off, arr.copy()
    a_off, a = acc
    lo, hi = min(a_off, off), max(a_off + len(a), off + len(arr))
    if lo == a_off and hi == a_off + len(a):
        a[off - lo : off - lo + len(arr)] += arr
        return acc
    out = np.zeros(hi - lo)
    out[a_off - lo : a_off - lo + len(a)] += a
    out[off - lo : off - lo + len(arr)] += arr
    return lo, out


def reward_kernels(outcomes: Sequence[Sequence[Outcome]]) -> Kernels:
    """Per state, per next state: ``(next, min reward, dense reward probabilities)``."""
    grouped = []
    held = 0
    for row in outcomes:
        by_next: dict[int, list[tuple[int, float]]] = {}
        for r, j, prob in row:
            by_next.setdefault(j, []).append((r, float(prob)))
        grouped.append(by_next)
        held += sum(8 * (max(r for r, _ in pairs) - min(r for r, _ in pairs) + 1) for pairs in by_next.values())
    check_cost(f"a chain of {len(outcomes):,} states with dense reward laws", memory=held,
               fix="estimate the distribution by simulation (mathkit simulate), or lower the spread of the pays")
    out = []
    for by_next in grouped:
        ks = []
        for j, pairs in sorted(by_next.items()):
            lo = min(r for r, _ in pairs)
            arr = np.zeros(max(r for r, _ in pairs) - lo + 1)
            for r, q in pairs:
                arr[r - lo] += q
            ks.append((j, lo, arr))
        out.append(tuple(ks))
    return tuple(out)


def propagate_rewards(
    kernels: Kernels, start: int, label: Hashable, *, tol: float, max_steps: int
) -> tuple[WinLaw, int]:
    """The distribution of the total reward from state index ``start`` (labelled ``label``), in float64, and the steps propagated.

    The law's ``lost_mass`` is the probability still inside the chain when the propagation stopped (at most ``tol``).

    See :meth:`mathkit.chains.markov.RewardChain.total_reward_distribution`, which checks
    ``tol`` and calls this with its :func:`reward_kernels`.

    Raises
    ------
    ModelError
        If more than ``tol`` of the mass is still inside after ``max_steps`` steps.
    """
    mass: dict[int, tuple[int, FloatArray]] = {start: (0, np.ones(1))}
    done: tuple[int, FloatArray] | None = None
    remaining = 1.0
    lim = limits()
    work = 0
    for step in range(1, max_steps + 1):
        new: dict[int, tuple[int, FloatArray]] = {}
        for i, (off, arr) in mass.items():
            for j, k_off, kernel in kernels[i]:
                n = len(arr) + len(kernel)
                work += n * max(int(math.log2(n)), 1) if min(len(arr), len(kernel)) >= FFT_MIN_SUPPORT else len(arr) * len(kernel)
                if work > lim.work:
                    check_cost(f"the total-reward distribution from {label!r} (after {step} steps)", work=work,
                               fix="ask for the mean and moments only, or estimate the distribution by simulation")
                conv = _convolve(arr, kernel)
                if j == ABSORB:
                    done = _add(done, off + k_off, conv)
                else:
                    new[j] = _add(new.get(j), off + k_off, conv)
        mass = {}
        for j, (off, arr) in new.items():
            nz = np.flatnonzero(arr)
            if len(nz):
                mass[j] = (off + int(nz[0]), arr[nz[0] : nz[-1] + 1])
        held = 8 * sum(len(arr) for _, arr in mass.values())
        if held > lim.memory:
            check_cost(f"the total-reward distribution from {label!r} (after {step} steps)", memory=held,
                       fix="estimate the distribution by simulation")
        remaining = float(sum(arr.sum() for _, arr in mass.values()))
        if remaining <= tol:
            break
    else:
        msg = (
            f"after {max_steps} steps from {label!r}, {remaining:.3g} of the probability is "
            f"still inside the chain (tol {tol:g}): raise max_steps or tol"
        )
        raise ModelError(msg)
    off, arr = done if done is not None else (0, np.zeros(0))
    nz = np.flatnonzero(arr > 0)
    return WinLaw((off + nz).astype(np.int64), arr[nz], remaining), step
