"""The distribution of a whole play's win (base spin + free spins) and of the feature's win.

One level without a spin limit: Kemperman's length law and one inverse real
FFT (:func:`play_distribution`); otherwise the feature's
:meth:`~mathkit.markov.RewardChain.total_reward_distribution`, convolved with the
base spin's win.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt
from scipy import fft as sfft

from ..errors import ModelError
from .chain import FreeSpinChain
from .laws import SpinLaw

__all__ = ["PlayLaw", "play_distribution"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class PlayLaw:
    """Float distributions from :func:`play_distribution`: values in credits, probabilities, lost mass."""

    values: IntArray
    probs: FloatArray
    lost_mass: float


def _dense(values: IntArray, probs: FloatArray, g: int, size: int) -> FloatArray:
    return np.bincount(values // g, weights=probs, minlength=size).astype(np.float64)


def _clean(out: FloatArray, g: int, expected: float) -> PlayLaw:
    """Zero the FFT round-off and count the mass that went with it."""
    noise = max(-float(out.min(initial=0.0)), 0.0)
    floor = max(8 * noise, float(np.finfo(np.float64).eps) * float(np.linalg.norm(out)))
    keep = np.flatnonzero(out > floor)
    probs = out[keep]
    lost = max(expected - math.fsum(probs.tolist()), 0.0)
    return PlayLaw(keep.astype(np.int64) * g, probs, lost)


def play_distribution(trigger: SpinLaw, chain: FreeSpinChain, *, tol: float = 1e-13,
                      max_size: int = 1 << 25) -> tuple[PlayLaw, PlayLaw]:
    """Distribution of a whole play's win (base spin + feature) and of the feature's win when triggered.

    One level, no spin limit: for each number of spins awarded ``n``, the feature's
    characteristic function is the Kemperman sum over retrigger mixes (at most
    ``tol`` of probability left out), multiplied by the base spin's win given ``n``;
    one inverse real FFT, exact to round-off (entries below the round-off are
    zeroed and their mass reported with the truncation).  Otherwise the chain's
    :meth:`~mathkit.markov.RewardChain.total_reward_distribution` (small laws only).
    """
    law = chain.laws[0]
    starts = {a: g for (a, _), g in trigger.groups.items()}
    p_trig = Fraction(sum(g[0] for a, g in starts.items() if a > 0), trigger.cycle)
    if not chain.closed_form:
        return _play_by_chain(trigger, chain, tol, p_trig)
    g = int(np.gcd.reduce(np.concatenate([trigger.wins, law.wins]))) or 1
    laws = {n: chain.length_law(n, Fraction(tol)) for n in starts if n > 0}
    xmax = {int(a): int(law.wins[law.added == a].max()) for a in np.unique(law.added)}
    top = 0
    for n, terms in laws.items():
        longest = max(sum(c * xmax[a] for a, c in mix.items()) + (t - sum(mix.values())) * xmax.get(0, 0)
                      for _, mix, t in terms)
        top = max(top, int(trigger.wins[trigger.added == n].max()) + longest)
    top = max(top, int(trigger.wins.max()))
    size = sfft.next_fast_len(top // g + 1, real=True)
    if size > max_size:
        msg = f"the play's win distribution needs {size:,} points (more than {max_size:,}): raise max_size or tol"
        raise ModelError(msg)
    chi = {a: sfft.rfft(_dense(*law.probs(a), g, size)) for a in xmax}
    p_add = {a: float(law.p_added(a)) for a in xmax}
    psi = {a: chi[a] / p_add[a] for a in xmax}  # E[e^{iωX} | A = a]
    phi_trig = np.zeros(size // 2 + 1, dtype=np.complex128)
    phi_feat = np.zeros(size // 2 + 1, dtype=np.complex128)
    kept = Fraction(0)
    # One more spin adding a > 0 turns a mix's term into term·ψ_a·ψ_0^(a-1): each term is one product.
    adds = sorted(a for a in psi if a > 0)
    step = {a: psi[a] * np.power(psi[0], a - 1) for a in adds}
    for n, terms in laws.items():
        f_n = np.zeros(size // 2 + 1, dtype=np.complex128)
        mass = Fraction(0)
        previous: dict[tuple[int, ...], npt.NDArray[np.complex128]] = {}
        level: dict[tuple[int, ...], npt.NDArray[np.complex128]] = {}
        retriggers = 0
        for prob, mix, _ in terms:  # listed by number of retriggers, fewest first
            key = tuple(mix.get(a, 0) for a in adds)
            if sum(key) != retriggers:
                previous, level, retriggers = level, {}, sum(key)
            if retriggers == 0:
                term = np.power(psi[0], n)
            else:
                i = next(i for i, c in enumerate(key) if c)
                term = previous[(*key[:i], key[i] - 1, *key[i + 1:])] * step[adds[i]]
            level[key] = term
            f_n += float(prob) * term
            mass += prob
        p_n = Fraction(starts[n][0], trigger.cycle)
        kept += p_n * mass
        phi_trig += sfft.rfft(_dense(*trigger.probs(n), g, size)) * f_n
        phi_feat += float(p_n / p_trig) * f_n
    # Plays without a trigger are added exactly in the value domain: only the triggered part (mass
    # P(trigger)) goes through the FFT, so its round-off is relative to that mass, not to 1.
    part = _clean(np.asarray(sfft.irfft(phi_trig, size), dtype=np.float64), g, float(kept))
    feat = _clean(np.asarray(sfft.irfft(phi_feat, size), dtype=np.float64), g, float(kept / p_trig))
    values, probs = trigger.probs(0) if 0 in starts else (np.zeros(0, np.int64), np.zeros(0))
    merged_v, inv = np.unique(np.concatenate([values, part.values]), return_inverse=True)
    merged_p = np.zeros(len(merged_v))
    np.add.at(merged_p, inv, np.concatenate([probs, part.probs]))
    trunc = float(p_trig - kept)
    return (PlayLaw(merged_v, merged_p, part.lost_mass + trunc),
            PlayLaw(feat.values, feat.probs, feat.lost_mass + float(1 - kept / p_trig)))


def _play_by_chain(trigger: SpinLaw, chain: FreeSpinChain, tol: float, p_trig: Fraction) -> tuple[PlayLaw, PlayLaw]:
    """Levels or a spin limit: each award's feature by the outcome-by-outcome chain, added to the base win."""
    play: dict[int, float] = {}
    feat: dict[int, float] = {}
    lost = lost_feat = 0.0
    for (n, _), (w, _, _) in trigger.groups.items():
        bv, bp = trigger.probs(n)
        if n == 0:
            for v, q in zip(bv.tolist(), bp.tolist(), strict=True):
                play[v] = play.get(v, 0.0) + q
            continue
        rd = chain.reward_chain(n).total_reward_distribution(chain.start(n), tol=tol)
        p_n = w / trigger.cycle
        lost += p_n * rd.lost_mass
        lost_feat += float(Fraction(w, trigger.cycle) / p_trig) * rd.lost_mass
        for v, q in zip(rd.values.tolist(), rd.probs.tolist(), strict=True):
            feat[v] = feat.get(v, 0.0) + q * float(Fraction(w, trigger.cycle) / p_trig)
        lo_b, lo_f = int(bv.min()), int(rd.values.min())
        a = np.zeros(int(bv.max()) - lo_b + 1)
        np.add.at(a, bv - lo_b, bp)
        b = np.zeros(int(rd.values.max()) - lo_f + 1)
        np.add.at(b, rd.values - lo_f, rd.probs)
        conv = np.convolve(a, b)
        for k in np.flatnonzero(conv > 0).tolist():
            play[k + lo_b + lo_f] = play.get(k + lo_b + lo_f, 0.0) + float(conv[k])

    def law_of(d: Mapping[int, float], lost_mass: float) -> PlayLaw:
        keys = sorted(d)
        return PlayLaw(np.array(keys, dtype=np.int64), np.array([d[k] for k in keys]), lost_mass)

    return law_of(play, lost), law_of(feat, lost_feat)
