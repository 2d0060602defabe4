"""Exponential (Chernoff) bounds on the tail of a feature's total win: what a cap needs when no max win bounds it.

For a win ``W ≥ 0`` and any ``θ > 0``, ``(w − t)⁺ ≤ e^{θ(w − t)} / (eθ)`` and
``1{w > t} ≤ e^{θ(w − t)}``, so

    E[(W − t)⁺] ≤ M(θ)·e^{−θt} / (eθ),      P(W > t) ≤ M(θ)·e^{−θt},      M(θ) = E[e^{θW}],

and the best ``θ`` of a grid is taken for each ``t`` (:func:`chernoff`).  The
moment generating functions of the chains come from their one-spin laws:

* free spins with retriggers (:func:`branching_log_mgf`): every spin pays ``X`` and
  adds ``A`` spins, each the root of an independent copy of the feature, so the
  win from ``n`` spins has ``M = φⁿ`` with ``φ`` the least root of
  ``φ = E[e^{θX} φ^A]`` (a Galton–Watson total).  A ``φ̂`` with ``E[e^{θX} φ̂^A] ≤ φ̂``
  bounds ``φ`` from above (the iteration from 1 rises to the least root and never
  passes a super-solution); none exists for too large a ``θ``.
* a fixed number of spins whose multiplier grows with the triggers they show
  (:func:`multiplier_log_mgf`): ``V_t(m) = E[e^{θX(m + c)} V_{t−1}(m + c)]``, ``V_0 = 1``.
  One ``θ`` serves the small multipliers and the large ones badly, so :func:`multiplier_tail`
  splits by the final multiplier ``k``: ``W ≤ k·ΣX`` when the feature ends at ``k``, and
  ``E[(W − t)⁺] ≤ Σ_k E[(k·ΣX − t)⁺; m_end = k]``, each bounded with its own best ``θ``
  from ``E[e^{θkΣX}; m_end = k]`` (the same recursion, ending on ``k``).

Everything is computed in logarithms (the exponents are large) in floating point,
with a relative safety margin far above the rounding; the bounds are tagged
``markov`` where they enter a figure.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["FINE_THETAS", "THETAS", "branching_log_mgf", "chernoff", "multiplier_log_mgf", "multiplier_log_mgfs",
           "multiplier_tails"]

FloatArray = npt.NDArray[np.float64]
MARGIN = 1e-9
THETAS = tuple(2.0**k for k in range(-15, 2))
"""The grid of ``θ`` tried, per credit of one unit (scale it by ``1 / total bet``)."""
FINE_THETAS = tuple(2.0 ** (k / 2) for k in range(-32, 5))
"""A finer grid (ratio √2), for bounds that must be tight."""


def _logsumexp(a: FloatArray) -> float:
    top = float(np.max(a))
    if not math.isfinite(top):
        return top
    return top + math.log(float(np.exp(a - top).sum()))


def chernoff(log_mgf: Callable[[float], float], thetas: Sequence[float]) -> Callable[[float], tuple[float, float]]:
    """The tail bound ``t ↦ (E[(W − t)⁺] bound, P(W > t) bound)`` from ``log E[e^{θW}]`` on a grid of ``θ``.

    Examples
    --------
    >>> tail = chernoff(lambda th: th * 10.0, [0.5, 1.0])   # W = 10 surely: M(θ) = e^{10θ}
    >>> b, q = tail(20.0)
    >>> b < 1e-4 and q < 1e-4
    True
    """
    logs = [(th, log_mgf(th)) for th in thetas]
    finite = [(th, lm) for th, lm in logs if math.isfinite(lm)]
    seen: dict[float, tuple[float, float]] = {}

    def tail(t: float) -> tuple[float, float]:
        if not finite:
            return math.inf, 1.0
        if t not in seen:
            lb = min(lm - th * t - 1.0 - math.log(th) for th, lm in finite)
            lq = min(lm - th * t for th, lm in finite)
            seen[t] = math.exp(min(lb, 700.0)) * (1 + MARGIN), min(1.0, math.exp(min(lq, 0.0)) * (1 + MARGIN))
        return seen[t]

    return tail


def branching_log_mgf(wins: FloatArray, added: FloatArray, probs: FloatArray, theta: float, *,
                      sweeps: int = 10_000) -> float:
    """``log φ̂``: an upper bound of the least root of ``φ = E[e^{θX} φ^A]`` (``inf`` when none is found).

    ``wins``, ``added`` and ``probs`` are one spin's joint law of (win, spins added).

    Examples
    --------
    >>> import numpy as np
    >>> # no retrigger: φ = E[e^{θX}] exactly (X is 0 or 2 alike)
    >>> v = branching_log_mgf(np.array([0.0, 2.0]), np.zeros(2), np.array([0.5, 0.5]), 0.1)
    >>> bool(0 <= v - np.log(0.5 + 0.5 * np.exp(0.2)) < 1e-8)   # a bound, a hair above
    True
    """
    base = np.log(probs) + theta * wins

    def f(log_phi: float) -> float:
        return _logsumexp(base + added * log_phi)

    x = 0.0
    for _ in range(sweeps):
        nxt = f(x)
        if not math.isfinite(nxt) or nxt > 700:
            return math.inf
        if abs(nxt - x) <= 1e-14 * max(1.0, abs(nxt)):
            x = nxt
            break
        x = nxt
    else:
        return math.inf
    hat = x + MARGIN * max(1.0, abs(x))
    return hat if f(hat) <= hat else math.inf


def multiplier_log_mgf(wins: FloatArray, triggers: FloatArray, probs: FloatArray, theta: float, spins: int,
                       start: int, step: int = 1) -> float:
    """:func:`multiplier_log_mgfs` at one start."""
    return float(multiplier_log_mgfs(wins, triggers, probs, theta, spins, start, step)[start])


def multiplier_log_mgfs(wins: FloatArray, triggers: FloatArray, probs: FloatArray, theta: float, spins: int,
                        start: int, step: int = 1) -> FloatArray:
    """``log E[e^{θW}]`` of ``spins`` spins paying ``X·m``, from every starting multiplier ``m ≤ start`` (one DP).

    The multiplier starts at ``m`` and grows by ``step`` per trigger.

    The multiplier grows by the spin's own triggers before it pays (``V_t(m) = E[e^{θX(m + s·c)}
    V_{t−1}(m + s·c)]``); ``wins``, ``triggers`` and ``probs`` are one spin's joint law of (win, triggers).

    Examples
    --------
    >>> import numpy as np
    >>> # one spin, never a trigger, X = 1: W = start
    >>> round(multiplier_log_mgf(np.array([1.0]), np.zeros(1), np.ones(1), 0.5, 1, 3), 6)
    1.5
    >>> np.round(multiplier_log_mgfs(np.array([1.0]), np.zeros(1), np.ones(1), 0.5, 1, 3), 6).tolist()
    [0.0, 0.5, 1.0, 1.5]
    """
    cs = triggers.astype(np.int64)
    most = start + spins * step * int(cs.max(initial=0))
    ms = np.arange(most + 1, dtype=np.float64)
    # per trigger count c: log E[e^{θ X (m + s·c)} ; c] for every multiplier m at once
    groups = []
    for c in np.unique(cs).tolist():
        lp = np.log(probs[cs == c])[:, None]
        x = wins[cs == c][:, None]
        a = lp + theta * x * (ms[None, :] + step * c)
        top = a.max(axis=0)
        groups.append((step * int(c), top + np.log(np.exp(a - top).sum(axis=0))))
    v = np.zeros(most + 1)  # log V_0(m) = 0
    for _ in range(spins):
        parts = np.full((len(groups), most + 1), -np.inf)
        for g, (shift, lc) in enumerate(groups):
            parts[g, : most + 1 - shift] = lc[: most + 1 - shift] + v[shift:]
        top = parts.max(axis=0)
        ok = np.isfinite(top)
        nxt = np.full(most + 1, -np.inf)
        nxt[ok] = top[ok] + np.log(np.exp(parts[:, ok] - top[ok]).sum(axis=0))
        v = nxt
    out = v[: start + 1]
    return np.where(np.isfinite(out), out * (1 + MARGIN) + MARGIN, np.inf)


def multiplier_tails(wins: FloatArray, triggers: FloatArray, probs: FloatArray, spins: int, starts: Sequence[int],
                     step: int, thetas: Sequence[float]) -> dict[int, Callable[[float], tuple[float, float]]]:
    """Tail bounds of ``spins`` spins paying ``X·m`` from each multiplier of ``starts``, split by the final one.

    ``E[e^{θW}; m_end = k]`` comes from the recursion of :func:`multiplier_log_mgfs` ending on
    ``k``; each final multiplier gets its own best ``θ`` (one recursion per ``θ`` serves every
    start and every ``k``).

    Examples
    --------
    >>> import numpy as np
    >>> # one spin paying 1 or 3 alike, never a trigger: from multiplier 2, W is 2 or 6
    >>> tails = multiplier_tails(np.array([1.0, 3.0]), np.zeros(2), np.array([0.5, 0.5]), 1, [2], 1, [0.5, 1.0, 2.0])
    >>> b, q = tails[2](10.0)
    >>> b < 1e-3 and q < 1e-3, tails[2](1.0)[1] == 1.0
    (True, True)
    """
    cs = triggers.astype(np.int64)
    most = max(starts) + spins * step * int(cs.max(initial=0))
    size = most + 1
    ms = np.arange(size, dtype=np.float64)
    top = float(wins.max(initial=0))
    finals = list(range(min(starts), size))
    logs: dict[tuple[int, int], list[tuple[float, float]]] = {(s, k): [] for s in starts for k in finals}
    for th in thetas:
        groups = []
        for c in np.unique(cs).tolist():
            lp = np.log(probs[cs == c])[:, None]
            a = lp + th * wins[cs == c][:, None] * (ms[None, :] + step * c)
            mx = a.max(axis=0)
            groups.append((step * int(c), mx + np.log(np.exp(a - mx).sum(axis=0))))
        v = np.full((size, size), -np.inf)  # v[m, k]: log E[e^{θ·(what is left)}; ending on k] from multiplier m
        v[np.arange(size), np.arange(size)] = 0.0
        for _ in range(spins):
            nxt = np.full((size, size), -np.inf)
            for shift, lg in groups:
                cand = np.full((size, size), -np.inf)
                cand[: size - shift] = lg[: size - shift, None] + v[shift:]
                nxt = np.logaddexp(nxt, cand)
            v = nxt
        for s in starts:
            for k in finals:
                if math.isfinite(v[s, k]):
                    logs[(s, k)].append((th, float(v[s, k]) * (1 + MARGIN) + MARGIN))

    def make(s: int) -> Callable[[float], tuple[float, float]]:
        rows = [(k, np.array([th for th, _ in logs[(s, k)]]), np.array([lm for _, lm in logs[(s, k)]]))
                for k in finals if logs[(s, k)]]
        seen: dict[float, tuple[float, float]] = {}

        def tail(t: float) -> tuple[float, float]:
            if t in seen:
                return seen[t]
            b = q = 0.0
            for k, th, lm in rows:
                if k * top * spins <= t:
                    continue  # ending on k, the feature pays at most k · spins · max X
                b += math.exp(min(float((lm - th * t - 1.0 - np.log(th)).min()), 700.0))
                q += math.exp(min(float((lm - th * t).min()), 0.0))
            seen[t] = b * (1 + MARGIN), min(1.0, q * (1 + MARGIN))
            return seen[t]

        return tail

    return {s: make(s) for s in starts}
