"""The distribution of a free-spin feature's win, and of a whole play (base spin + free spins).

One level without a spin limit: Kemperman's length law and one inverse real
FFT (:func:`feature_distribution`); otherwise the feature's
:meth:`~mathkit.chains.markov.RewardChain.total_reward_distribution`.  A play adds the
base spin's win given the spins it awarded (:func:`play_distribution`).
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import numpy.typing as npt
from scipy import fft as sfft

from ...errors import LimitError, ModelError
from ...laws.convolve import clean, convolve, mix
from ...laws.law import WinLaw
from ...model.bounds import MAX_WIN, check_cost
from .chain import FreeSpinChain
from .laws import SpinLaw

__all__ = ["WinLaw", "feature_distribution", "play_distribution"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
#: how much of the mean the FFT may wrap around, as a share of the length law's ``tol`` (see :func:`_reach`)
WRAP = 1e-3


def _dense(values: IntArray, probs: FloatArray, g: int, size: int) -> FloatArray:
    return np.bincount(values // g, weights=probs, minlength=size).astype(np.float64, copy=False)


def _reach(law: SpinLaw, terms: list[tuple[Fraction, dict[int, int], int]], top: int, g: int,
           share: float) -> tuple[int, float]:
    """How far the FFT's grid must reach: the least ``L`` (a multiple of ``g``, at most ``top``) with a light tail.

    The inverse FFT on a grid of ``N`` points wraps every win ``W ≥ N·g`` around onto
    ``W mod N·g``, which moves the law's mean by at most ``E[W; W ≥ N·g]``.  Chernoff's
    bound caps that: ``E[W; W ≥ L] ≤ E[W e^{θ(W−L)}] = Σ P(mix) · M'_mix(θ) e^{−θL}``
    (``M_mix`` the moment generating function of the mix's spins, minimised over a
    grid of ``θ``).  The grid reaches the least ``L`` whose bound is at most ``share``
    of the mean (or the largest win ``top``, which wraps nothing); returns ``L`` and
    the wrapped probability's bound ``E[W; W ≥ L] / L``, which the caller reports as
    lost mass.

    A jackpot pays far more than a typical spin, so the largest win (every spin a
    jackpot) lies far beyond where the probability is below the FFT's round-off:
    Dynasty's grid shrinks from 2.7·10⁶ points to about 10⁵.
    """
    if share <= 0:
        return top, 0.0
    thetas = np.geomspace(1e-4, 50.0, 160) / max(float(law.mean_win), float(g))
    log_m, log_r, mu = {}, {}, {}  # per spin kind a: log E[e^{θX}], log E[X e^{θX}] / E[e^{θX}], E[X]
    for a in np.unique(law.added).tolist():
        v, p = law.probs(int(a))
        p = p / float(law.p_added(int(a)))
        z = np.outer(thetas, v.astype(np.float64)) + np.log(p)
        zmax = z.max(axis=1, keepdims=True)
        e = np.exp(z - zmax)
        log_m[a] = zmax[:, 0] + np.log(e.sum(axis=1))
        mu[a] = float(np.dot(v.astype(np.float64), p))
        if mu[a] > 0:
            log_r[a] = zmax[:, 0] + np.log(e @ v.astype(np.float64)) - log_m[a]
    rows, mean = [], 0.0
    for prob, mixture, t in terms:
        spins = {**mixture, 0: t - sum(mixture.values())} if 0 in log_m else dict(mixture)
        k = sum(c * log_m[a] for a, c in spins.items())
        r = np.logaddexp.reduce([math.log(c) + log_r[a] for a, c in spins.items() if c and mu[a] > 0])
        rows.append(math.log(prob) + k + r)
        mean += float(prob) * sum(c * mu[a] for a, c in spins.items())
    if mean <= 0:
        return top, 0.0
    log_tail = np.array(rows)  # (mixes × θ): log P(mix) M'_mix(θ)
    most = math.log(share * mean)

    def bound(reach: int) -> float:  # log of the least bound on E[W; W ≥ reach]
        z = log_tail - thetas * reach
        zmax = z.max(axis=0)
        return float(np.min(zmax + np.log(np.exp(z - zmax).sum(axis=0))))

    lo, hi = 0, top // g + 1  # bound(0) ≥ the mean > share·mean; hi·g > top: nothing wraps
    while hi - lo > 1:  # bound(lo·g) > most ≥ bound(hi·g) (or hi·g beyond every win)
        mid = (lo + hi) // 2
        if bound(mid * g) <= most:
            hi = mid
        else:
            lo = mid
    return (hi * g, math.exp(bound(hi * g)) / (hi * g)) if hi * g <= top else (top, 0.0)


def feature_distribution(chain: FreeSpinChain, n: int, *, tol: float = 1e-13, max_size: int = 1 << 25) -> WinLaw:
    """Distribution of the feature's total win (credits) from ``n`` spins at level 0.

    One level, no spin limit: Kemperman's length law (at most ``tol`` of probability
    left out) and one inverse real FFT of ``Σ P(mix) · ψ₀^k₀ · Π ψ_a^k_a`` where ``ψ_a``
    is the characteristic function of a spin's win given it adds ``a`` spins; entries
    below the FFT's round-off are zeroed and their mass reported with the truncation.
    Otherwise the chain's :meth:`~mathkit.chains.markov.RewardChain.total_reward_distribution`.

    Examples
    --------
    A spin pays 0 or 10 (1/2 each) and never retriggers: 2 spins pay 0, 10, 20 w.p. 1/4, 1/2, 1/4.

    >>> law = SpinLaw.of([0, 10], [0, 0], [1, 1])
    >>> d = feature_distribution(FreeSpinChain((law,)), 2)
    >>> d.values.tolist(), [round(p, 12) for p in d.probs.tolist()]
    ([0, 10, 20], [0.25, 0.5, 0.25])
    """
    if n <= 0:
        return WinLaw.point(0)
    if not chain.closed_form:
        return chain.reward_chain(n).total_reward_distribution(chain.start(n), tol=tol)
    law = chain.laws[0]
    g = int(np.gcd.reduce(law.wins)) or 1
    terms = chain.length_law(n, Fraction(tol))
    xmax = {int(a): int(law.wins[law.added == a].max()) for a in np.unique(law.added)}
    top = max(sum(c * xmax[a] for a, c in mix.items()) + (t - sum(mix.values())) * xmax.get(0, 0)
              for _, mix, t in terms)
    if top > MAX_WIN:
        msg = (f"the feature's win distribution from {n} spins reaches {top:,} credits, more than the {MAX_WIN:,} (2⁵³) "
               "credits it holds exactly")
        raise ModelError(msg, fix="lower the awards, the retriggers or the pays of the feature's reel set")
    reach, wrapped = _reach(law, terms, top, g, tol * WRAP)
    size = sfft.next_fast_len(reach // g + 1, real=True)
    if size > max_size:
        msg = f"the feature's win distribution from {n} spins needs {size:,} points, more than the {max_size:,} it takes"
        raise LimitError(msg, fix="estimate the feature's distribution by simulation (mathkit simulate), or lower the "
                                  "awards or the spread of the pays")
    # the characteristic functions, the steps and three retrigger levels of terms (one reused) are held at once
    widest = max(Counter(sum(mix.values()) for _, mix, _ in terms).values())
    check_cost(f"the win distribution of {n} free spins ({len(terms):,} retrigger mixes on {size:,} points)",
               memory=16 * (size // 2 + 1) * (2 * len(xmax) + 2 + 3 * widest), work=len(terms) * size,
               fix="estimate the feature's distribution by simulation (mathkit simulate)")
    psi = {}  # E[e^{iωX} | A = a]
    for a in xmax:
        psi[a] = sfft.rfft(_dense(*law.probs(a), g, size))
        psi[a] /= float(law.p_added(a))
    # One more spin adding a > 0 turns a mix's term into term·ψ_a·ψ_0^(a-1): each term is one product.
    adds = sorted(a for a in psi if a > 0)
    step = {a: psi[a] * np.power(psi[0], a - 1) for a in adds}
    f_n = np.zeros(size // 2 + 1, dtype=np.complex128)
    scaled = np.empty_like(f_n)
    mass = Fraction(0)
    previous: dict[tuple[int, ...], npt.NDArray[np.complex128]] = {}
    level: dict[tuple[int, ...], npt.NDArray[np.complex128]] = {}
    spare: list[npt.NDArray[np.complex128]] = []  # the level before previous: its arrays are reused
    retriggers = 0
    for prob, mixture, _ in terms:  # listed by number of retriggers, fewest first
        key = tuple(mixture.get(a, 0) for a in adds)
        if sum(key) != retriggers:
            spare = list(previous.values())
            previous, level, retriggers = level, {}, sum(key)
        if retriggers == 0:
            term = np.power(psi[0], n)
        else:
            i = next(i for i, c in enumerate(key) if c)
            term = np.multiply(previous[(*key[:i], key[i] - 1, *key[i + 1:])], step[adds[i]],
                               out=spare.pop() if spare else None)
        level[key] = term
        f_n += np.multiply(term, float(prob), out=scaled)  # the same operations as f_n += prob · term
        mass += prob
    out = clean(np.asarray(sfft.irfft(f_n, size), dtype=np.float64), g, 0, float(mass))
    return WinLaw(out.values, out.probs, out.lost_mass + float(1 - mass) + wrapped)


def play_distribution(trigger: SpinLaw, chain: FreeSpinChain, *, tol: float = 1e-13,
                      max_size: int = 1 << 25) -> tuple[WinLaw, WinLaw]:
    """Distribution of a whole play's win (base spin + feature) and of the feature's win when triggered.

    For each number of spins awarded ``n``: the base spin's win given ``n`` (from
    ``trigger``) plus an independent feature from ``n`` spins
    (:func:`feature_distribution`); plays without a trigger are added exactly.
    """
    starts = {a: g for (a, _), g in trigger.groups.items()}
    p_trig = Fraction(sum(g[0] for a, g in starts.items() if a > 0), trigger.cycle)
    parts: list[tuple[float, WinLaw]] = []
    feats: list[tuple[float, WinLaw]] = []
    for n, (w, _, _) in sorted(starts.items()):
        bv, bp = trigger.probs(n)
        p_n = Fraction(w, trigger.cycle)
        base = WinLaw(bv, bp / float(p_n))
        if n == 0:
            parts.append((float(p_n), base))
            continue
        feat = feature_distribution(chain, n, tol=tol, max_size=max_size)
        parts.append((float(p_n), convolve(base, feat)))
        feats.append((float(p_n / p_trig), feat))
    return mix(parts), mix(feats)
