"""Rare-event sampling of an uncovered route: sticky free spins entered after held re-spins, by importance sampling.

The round's analysis leaves the law of a sticky free-spin feature out of its exact distribution
(:class:`mathkit.laws.stage.Uncovered` ``"feature:<name>"``): one enumeration per sticky mask is too many.
Its literal sample (rejection on literal rounds, :mod:`mathkit.sim.routes`) sees a round of
``P(win ≥ 1000× bet | feature) ≈ 10⁻⁶`` about never, because such wins need many sticky wilds at the start,
which the re-spins rarely leave.  This module samples the route's conditional law of the round's win
``W = A + F`` with the exact law of everything before the free spins and a tilt toward heavy starts:

1. the base spin's branch ``j`` that starts the re-spins, with its exact probability ``P_j`` and the exact law
   of its own win ``A`` (the branch's law from the analysis), and the re-spins' exit into the feature
   (a drawn entry: held cells ``s`` of the type; or the final chance's revealed scatter: a fixed entry);
2. the held cells ``M₀`` the re-spins end with: the exact law ``L_s(M₀)`` by pushing the held-cell chain
   forward from ``s`` (one tensor step per re-spin, in floats);
3. the feature's win ``F`` from ``M₀``: its spins played literally (:func:`_sticky_wins`, the pay rule's
   compiled kernel on each window).

Importance sampling: with ``π(s, M₀) = P_s·L_s(M₀) / P`` (``P`` the route's probability) the draws come
from the *defensive* mixture ``q = ½·π + ½·π·β^{|M₀|}/Z`` (``|M₀|`` the sticky cells), so heavy starts
are drawn about ``β^{|M₀|}`` times as often, and every draw carries the exact likelihood ratio
``w = π/q ≤ 2``.  ``A`` and the spins are drawn from their own laws (weight 1).  Then
``P̂(E | route) = (1/n)·Σ w_i·1_E(W_i)`` is unbiased for every event ``E``, and
:func:`mathkit.laws.mixture.mix` gives its interval from the weighted sample (normal on the weighted
mean where at least :data:`~mathkit.laws.mixture.MIN_WEIGHTED_HITS` draws hit the event, else the bound
``P(E) ≤ 2·Q(E)`` with a Wilson interval for ``Q(E)``).  ``tests/test_rare.py`` checks both on a toy
whose tail is known exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from ..chains.markov.held import HeldChain
from ..features.scatter_respins import ScatterRespins
from ..features.sticky_spins import StickyFreeSpins
from ..laws.law import WinLaw
from ..laws.mixture import RouteSample
from ..laws.stage import Drawn, cell_bits
from ..spin.evaluate import window_line_total
from ..spin.tables import pay_tables, reel_arrays

__all__ = ["TILT", "RareRoute", "rare_route", "sample_rare"]

TILT = 6.0
"""``β``: a start with one more sticky cell is drawn ``β`` times as often by the tilted half of the proposal."""
WEIGHT_BOUND = 2.0
"""The largest likelihood ratio of a draw (the defensive mixture's untilted half has weight ½)."""

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class RareRoute:
    """What the sampler needs of a route: the starts of the feature with their exact laws.

    ``starts[i]``: ``(P_s, L_s)`` — the start's probability per round and the law of the sticky mask the
    feature begins with (an array over every window mask); ``branches[i]``: the base-spin branches
    of the start, each ``(P_j, law of A)`` (``P_s = Σ P_j``).
    """

    route: str
    probability: Fraction
    starts: tuple[tuple[float, FloatArray], ...]
    branches: tuple[tuple[tuple[float, WinLaw], ...], ...]
    feature: StickyFreeSpins
    cap: int | None


def _forward(chain: HeldChain, start: int, free_at: int) -> FloatArray:
    """The law of the held cells the re-spins end with, from ``start`` (ended short of ``free_at``: left out)."""
    n = chain.n_reels
    rows = chain.rows
    shape = tuple(1 << rows[r] for r in range(n - 1, -1, -1))  # C order: reel 0 the last (lowest bits)
    probs = [m.astype(np.float64) / float(t) for m, t in zip(chain.moves, chain.totals, strict=True)]
    stay = np.ones(shape)
    for r in range(n):
        axis = n - 1 - r
        d = np.diag(probs[r]).reshape([-1 if a == axis else 1 for a in range(n)])
        stay = stay * d
    cur = np.zeros(shape)
    cur.reshape(-1)[start] = 1.0
    ended = np.zeros(shape)
    for _ in range(chain.cells + 1):
        if not cur.any():
            break
        ended += stay * cur
        nxt = cur
        for r in range(n):
            axis = n - 1 - r
            nxt = np.moveaxis(np.tensordot(nxt, probs[r], axes=([axis], [0])), -1, axis)
        cur = nxt - stay * cur
        cur[cur < 0] = 0.0
    out = ended.reshape(-1).copy()
    counts = np.array([int(m).bit_count() for m in range(len(out))])
    out[counts < free_at] = 0.0
    return out


def rare_route(analysis: Any, route: str) -> RareRoute | None:
    """The starts of ``route`` from ``analysis`` (a :class:`~mathkit.round.RoundAnalysis`), or ``None`` if this
    sampler does not apply (another kind of route: the literal sampler takes it)."""
    kind, _, name = route.partition(":")
    game = analysis.game
    if kind != "feature" or name not in {f.name for f in game.features}:
        return None
    feature = game.feature(name)
    if not isinstance(feature, StickyFreeSpins) or feature.from_feature is None:
        return None
    source = game.feature(feature.from_feature)
    if not isinstance(source, ScatterRespins):
        return None
    ctx = analysis.engine
    tables = pay_tables(game, lines=ctx.lines, coins=ctx.coins)
    if tables.ways or tables.reel_ids is not None:
        return None  # the kernel plays lines without reel-ordered entries
    rows = game.reel_set(feature.reels).rows
    if source.rows(ctx) != rows:
        return None
    bits = cell_bits(rows)
    starts: dict[tuple[Any, ...], list[Any]] = {}
    for key, br in analysis.base.branches.items():
        if not br.p or not key:
            continue
        if len(key) != 1 or key[0][0] != source.name or br.dist is None:
            if any(f == name for f, _ in key):
                return None  # a start this sampler does not model: leave the route to the literal sampler
            continue
        law = analysis.stats[source.name].laws.get(key[0][1])
        if law is None:
            return None
        for k2, b2 in law.branches.items():
            hits = [e for f, e in k2 if f == name]
            if not hits or not b2.p:
                continue
            if len(k2) != 1 or (b2.dist is not None and (b2.dist.values != 0).any()):
                return None  # other wins or features beside the free spins
            entry = hits[0]
            if isinstance(entry, Drawn):
                drawn: Any = entry.key
                t, mask = int(drawn[0]), int(drawn[1])
                if source.target(t) != name:
                    return None
                skey: tuple[Any, ...] = ("drawn", t, mask)
            else:
                skey = ("fixed", sum(1 << (bits[r] + k) for r, k in entry))
            starts.setdefault(skey, []).append((float(br.p * b2.p), br.dist))
    if not starts:
        return None
    laws: list[tuple[float, FloatArray]] = []
    branches = []
    chains: dict[int, HeldChain] = {}
    for skey, parts in starts.items():
        p = sum(q for q, _ in parts)
        if skey[0] == "drawn":
            t, mask = skey[1], skey[2]
            if t not in chains:
                chains[t] = source.chain(ctx, t)
            end = _forward(chains[t], mask, source.free_at)
            end = end / end.sum()
        else:
            end = np.zeros(1 << sum(rows))
            end[skey[1]] = 1.0
        laws.append((p, end))
        branches.append(tuple(parts))
    prob = next(u.probability for u in analysis.uncapped.uncovered if u.route == route)
    if abs(sum(p for p, _ in laws) - float(prob)) > 1e-9 * float(prob):
        return None  # the starts found are not the whole route: the literal sampler takes it
    limit = analysis.limit
    return RareRoute(route, Fraction(prob), tuple(laws), tuple(branches), feature,
                     None if limit is None else int(limit.credits))


@nb.njit(cache=True, nogil=True)
def _sticky_wins(masks: IntArray, cols: IntArray, n_stops: IntArray, cum: IntArray, rows: IntArray,
                 lines: IntArray, match: npt.NDArray[np.bool_], pay: IntArray, own: IntArray,
                 mult: IntArray, wild: int, trigger: int, spins: int, seed: int) -> IntArray:  # pragma: no cover
    """Each start mask's feature win: ``spins`` spins, the sticky cells wild, a landing trigger wild and sticky."""
    np.random.seed(seed)  # noqa: NPY002 - numba's generator (seeded per call)
    n_reels = cols.shape[0]
    top = cols.shape[2]
    bits = np.zeros(n_reels, dtype=np.int64)
    for r in range(1, n_reels):
        bits[r] = bits[r - 1] + rows[r - 1]
    window = np.zeros((n_reels, top), dtype=np.int64)
    out = np.zeros(len(masks), dtype=np.int64)
    for i in range(len(masks)):
        m = masks[i]
        total = 0
        for _ in range(spins):
            for r in range(n_reels):
                u = np.random.randint(0, cum[r, n_stops[r] - 1])  # noqa: NPY002
                lo, hi = 0, n_stops[r] - 1
                while lo < hi:  # the first stop whose cumulative weight exceeds u
                    mid = (lo + hi) // 2
                    if cum[r, mid] > u:
                        hi = mid
                    else:
                        lo = mid + 1
                for k in range(rows[r]):
                    b = bits[r] + k
                    s = cols[r, lo, k]
                    if (m >> b) & 1:
                        window[r, k] = wild
                    elif s == trigger:
                        window[r, k] = wild
                        m |= 1 << b
                    else:
                        window[r, k] = s
            total += window_line_total(window, lines, match, pay, own, mult)
        out[i] = total
    return out


def sticky_wins(game: Any, feature: StickyFreeSpins, masks: IntArray, seed: int, *, lines: int | None = None,
                coins: int | None = None) -> IntArray:
    """The feature's win (credits) from each start mask of ``masks``, its spins played literally."""
    t = pay_tables(game, lines=lines, coins=coins)
    if t.reel_ids is not None or t.ways:
        msg = "the sticky sampler plays line games without reel-ordered entries"
        raise NotImplementedError(msg)
    ra = reel_arrays(game, feature.reels)
    n = ra.n_reels
    longest = max(len(s) for s in ra.strips)
    rows = np.asarray(ra.rows, dtype=np.int64)
    cols = np.zeros((n, longest, int(rows.max())), dtype=np.int64)
    cum = np.zeros((n, longest), dtype=np.int64)
    for r in range(n):
        c = ra.columns(r)
        cols[r, : len(c), : c.shape[1]] = c
        cum[r, : len(c)] = np.cumsum(ra.weights[r])
    n_stops = np.array([len(s) for s in ra.strips], dtype=np.int64)
    sid = {s: i for i, s in enumerate(t.names)}
    return _sticky_wins(np.asarray(masks, dtype=np.int64), cols, n_stops, cum, rows, t.lines, t.match, t.pay, t.own,
                        t.mult, sid[feature.wild], sid[feature.trigger], feature.spins, seed)


def sample_rare(game: Any, rr: RareRoute, draws: int, seed: int, *, tilt: float = TILT, lines: int | None = None,
                coins: int | None = None) -> RouteSample:
    """``draws`` weighted draws of the round's win given ``rr.route`` (see the module), as a :class:`RouteSample`."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5A17]))
    n_masks = len(rr.starts[0][1])
    heavy = float(tilt) ** np.array([int(m).bit_count() for m in range(n_masks)], dtype=np.float64)
    heavy /= heavy.max()
    ps = np.array([p for p, _ in rr.starts])
    total = ps.sum()
    h = np.array([float(law @ heavy) for _, law in rr.starts])  # E[β^|M₀| | s] (scaled)
    z = float(ps @ h) / total
    qs = 0.5 * ps / total + 0.5 * ps * h / (z * total)
    which = rng.choice(len(ps), size=draws, p=qs / qs.sum())
    masks = np.zeros(draws, dtype=np.int64)
    weights = np.zeros(draws)
    a = np.zeros(draws, dtype=np.int64)
    for i in range(len(ps)):
        idx = np.flatnonzero(which == i)
        if not len(idx):
            continue
        law = rr.starts[i][1]
        q_m = 0.5 * law + 0.5 * law * heavy / h[i]  # q(M₀ | s), a law
        m0 = rng.choice(n_masks, size=len(idx), p=q_m / q_m.sum())
        masks[idx] = m0
        pi = ps[i] / total * law[m0]
        weights[idx] = pi / (qs[i] * q_m[m0])
        parts = rr.branches[i]
        pj = np.array([p for p, _ in parts])
        j = rng.choice(len(parts), size=len(idx), p=pj / pj.sum())
        for k, (_, law_a) in enumerate(parts):
            sel = idx[j == k]
            if len(sel):
                a[sel] = rng.choice(np.asarray(law_a.values, dtype=np.int64), size=len(sel),
                                    p=np.asarray(law_a.probs) / float(np.sum(law_a.probs)))
    f = sticky_wins(game, rr.feature, masks, int(rng.integers(0, 2**31 - 1)), lines=lines, coins=coins)
    wins = a + f
    if rr.cap is not None:
        wins = np.minimum(wins, rr.cap)
    values, inv = np.unique(wins, return_inverse=True)
    counts = np.bincount(inv, minlength=len(values))
    w1 = np.bincount(inv, weights=weights, minlength=len(values))
    w2 = np.bincount(inv, weights=weights * weights, minlength=len(values))
    how = (f"importance sampling: the exact law of the starts and of the base spin's win, the sticky cells at the "
           f"start tilted ×{tilt:g} per cell (defensive mixture, likelihood ratio ≤ {WEIGHT_BOUND:g}), the free spins "
           "played literally")
    return RouteSample(rr.route, tuple(int(v) for v in values), tuple(int(c) for c in counts), draws, draws, seed, how,
                       weights=tuple(float(x) for x in w1), weights2=tuple(float(x) for x in w2),
                       weight_bound=WEIGHT_BOUND)

