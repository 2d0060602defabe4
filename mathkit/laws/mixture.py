"""The whole round's win law as an exact part mixed with sampled parts, and every figure read from it.

At level ``"distribution"`` the round's analysis may leave some disjoint events out of its exact
distribution (:class:`mathkit.laws.stage.Uncovered`: an overlay type, a free-spin game too costly to
enumerate).  Their conditional laws are sampled by the simulator
(:func:`mathkit.sim.routes.sample_routes`), and the round's law is

    P(W = w) = dist(w) + Σ_u P(u) · P̂(W = w | u),

with ``dist`` the exact sub-distribution of the covered rounds.  :func:`mix` builds it and reads
every figure of the PAR sheet's distribution block from it — the hit frequency, P(win ≥ bet),
P(win ≥ 10×, 100×, 1000×, the cap), the win bands, max win and its odds, P(cap) and the RTP lost to
the cap — each with its provenance: ``"exact"`` when nothing is sampled, ``"exact+sampled"`` when
an exact part is mixed with sampled ones, ``"sampled"`` when the whole round is sampled.

Intervals (99%): the exact part adds no width (its truncated mass, if any, widens the upper end).
Each sampled route's conditional probability gets a Wilson score interval at confidence
``1 − 0.01/K`` (``K`` routes), and the mixture's interval is ``exact + Σ P(u)·[low_u, high_u]``: by
the union bound all ``K`` hold together with probability at least 99%, whatever the dependence
between routes (the routes may share their literal rounds).  An RTP contribution (a band's) uses
the normal interval of the route's sample mean at the same confidence.  Where a proven tail bound
is tighter than the sample's upper end (P(cap)), the bound is reported instead, and says so.

Weighted routes: a route sampled by importance sampling (:mod:`mathkit.round.rare`) carries per value the sums
of its draws' likelihood ratios ``w`` and of their squares (:attr:`RouteSample.weights`, ``weights2``) and a
proven bound ``w_max`` of the ratio.  Its estimate of an event is the self-normalised ``Σ_E w / Σ w`` (so
its law sums to 1), with the delta-method variance ``Σ_i w_i²·(1_E(i) − P̂)² / (Σ w)²`` and a normal
interval at the route's confidence where at least :data:`MIN_WEIGHTED_HITS` draws hit the event; with
fewer, the interval is ``[0, w_max·U]``, ``U`` the Wilson upper end of the hits' share of the draws
(``P(E) = E_q[w·1_E] ≤ w_max·Q(E)``).  A route with a proven largest win (:attr:`RouteSample.top`)
adds exactly 0 to every event above it (no width, no sample needed).

Resolution: a probability figure with a sampled part is a point value only when its sample resolves it —
its 99% half-width at most :data:`RESOLUTION` (10%) of the value.  Otherwise (a route that never reached the
event, or too few hits) the figure *is* its interval: :attr:`Estimate.interval` is set, its ``value`` is the
interval's upper end (never a point below what the sample can resolve), and every sheet prints
``low – high`` (``≤ high`` when the low end is 0) and says why.  A tail no sampled round reached is thus
an upper bound, never the exact part alone.

The means (RTP and its breakdown) never come from here: they stay the exact (or Markov) ones.

Examples
--------
>>> from fractions import Fraction
>>> exact = RoundPart((0, 10), (0.5, 0.25))  # covered rounds: P(0) = 1/2, P(10) = 1/4
>>> s = RouteSample("variant:x", (0, 40), (60, 40), draws=100, played=100, seed=1, how="forced variant")
>>> m = mix(exact, (("variant:x", Fraction(1, 4)),), {"variant:x": s}, bet=10)
>>> m.method, m.figures["hit_frequency"].value  # 1/4 + 1/4 · 0.4
('exact+sampled', 0.35)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from statistics import NormalDist

from ..errors import ModelError, UsageError
from .volatility import BAND_EDGES

__all__ = ["CONFIDENCE", "DEFAULT_ROUNDS", "DEFAULT_SEED", "LABELS", "RESOLUTION", "Band", "Estimate", "MixedLaw", "RoundPart",
           "RouteSample", "mix", "wilson"]

CONFIDENCE = 0.99
"""The confidence of every interval of a mixed figure (jointly over the routes)."""
RESOLUTION = 0.10
"""The largest relative 99% half-width of a figure printed as a point value (see the module)."""
DEFAULT_ROUNDS = 1 << 21
"""Rounds of play per forced-variant route (2,097,152) of :func:`mathkit.sim.routes.sample_routes`; its shared
literal pass plays :data:`mathkit.sim.routes.LITERAL` times as many."""
DEFAULT_SEED = 2026
"""The seed of a PAR sheet's samples when none is given (so that ``mathkit par`` is reproducible)."""
TAILS = (10, 100, 1000)
LABELS = {
    "hit_frequency": "hit frequency per spin",
    "hit_frequency_win_ge_bet": "hit frequency (win ≥ bet)",
    **{f"p_win_ge_{m}x": f"P(win ≥ {m}× bet)" for m in TAILS},
    "p_win_ge_cap": "P(win ≥ cap) = P(cap)",
    "max_win": "max win (× bet)",
    "max_win_probability": "P(max win)",
    "largest_computed_win": "largest computed win (× bet)",
    "largest_computed_win_probability": "P(largest computed win)",
    "rtp_lost_to_cap": "RTP lost to the cap",
}
"""The figures of a :class:`MixedLaw`, in display order, with their labels."""


@dataclass(frozen=True)
class RouteSample:
    """The sampled conditional law of the round's win ``W`` given one route (credits → counts).

    ``draws`` rounds of the route were sampled (``sum(counts)``), out of ``played`` rounds of play
    (more for a route sampled by rejection); ``seed`` reproduces them; ``how`` says how they were
    drawn (``"forced variant"``, ``"rejection on literal rounds"``, ``"literal rounds"``).  A win at
    the cap means the round reached it (the simulator ends a round there).
    """

    route: str
    values: tuple[int, ...]
    counts: tuple[int, ...]
    draws: int
    played: int
    seed: int
    how: str
    weights: tuple[float, ...] | None = None
    """Importance sampling: per value, the sum of the draws' likelihood ratios (``None``: every draw weighs 1)."""
    weights2: tuple[float, ...] | None = None
    """Per value, the sum of the squared likelihood ratios (the weighted estimator's variance)."""
    weight_bound: float = 1.0
    """The largest likelihood ratio a draw can have (a proven bound of the sampler's proposal)."""
    top: int | None = None
    """A proven upper bound of the route's win (credits), ``None`` when none is known: no event above it can happen."""


@dataclass(frozen=True)
class RoundPart:
    """The exact part of the round's law: win values (credits) and their probabilities (a sub-distribution).

    ``exact`` holds the probabilities as Fractions when they are exact counts; ``lost_mass`` is what a
    truncation left out (it widens the upper end of every interval).
    """

    values: tuple[int, ...]
    probs: tuple[float, ...]
    exact: tuple[Fraction, ...] | None = None
    lost_mass: float = 0.0


@dataclass(frozen=True)
class Estimate:
    """A figure of the mixed law: its value, its 99% interval, how it was obtained.

    ``bound``: a proven upper bound only; ``interval``: the sample does not resolve a point value (see the
    module's *Resolution*): the figure is ``[low, high]`` and ``value`` is ``high``.
    """

    value: float
    low: float
    high: float
    method: str
    exact: Fraction | None = None
    bound: bool = False
    note: str = ""
    interval: bool = False

    @property
    def point(self) -> float | None:
        """The value as a sheet may print it alone: ``None`` for an interval (print ``low – high``).

        Examples
        --------
        >>> Estimate(0.5, 0.49, 0.51, "sampled").point, Estimate(1e-6, 0.0, 1e-6, "sampled", interval=True).point
        (0.5, None)
        """
        return None if self.interval else self.value


@dataclass(frozen=True)
class Band:
    """One win band ``(low, high]`` × bet of the mixed law: its probability and its part of the RTP."""

    label: str
    probability: Estimate
    rtp: Estimate


@dataclass(frozen=True)
class MixedLaw:
    """The round's win law (exact part + sampled routes) and its figures (see the module)."""

    method: str
    bet: int
    figures: dict[str, Estimate]
    bands: tuple[Band, ...]
    exceedance: tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...], tuple[float, ...]]
    """``(x × bet, P(W ≥ x), low, high)`` at every win value of the law."""
    routes: tuple[tuple[str, Fraction, RouteSample | None], ...]
    max_win_kind: str
    """``"cap"``: the cap is reachable and is the max win; ``"largest"``: the largest win of the law."""
    notes: tuple[str, ...] = ()
    seed: int | None = None
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def draws(self) -> dict[str, int]:
        return {r: s.draws for r, _, s in self.routes if s is not None}

    def rows(self) -> list[tuple[str, str, Estimate]]:
        """``(key, label, figure)`` of every figure, in :data:`LABELS` order."""
        return [(k, label, self.figures[k]) for k, label in LABELS.items() if k in self.figures]

    def describe(self, e: Estimate) -> str:
        """``e``'s tag and interval as the sheets print them: ``[exact+sampled, 99% 0.1 – 0.2]``, ``[≤ bound]``."""
        if e.interval:
            what = f"≤ {e.high:.3g}" if e.low == 0 else f"{e.low:.3g} – {e.high:.3g}"
            return f"[{e.method}: {CONFIDENCE:.0%} interval {what}, not resolved to a point value]"
        if e.bound:
            return f"[{e.method}: ≤ {e.high:.3g}, a bound]"
        if e.method == "exact" or e.low == e.high:
            return f"[{e.method}]"
        return f"[{e.method}, {CONFIDENCE:.0%} {e.low:.6g} – {e.high:.6g}]"

    def route_rows(self) -> list[dict[str, object]]:
        """Each sampled route: its exact probability, draws, rounds played, seed and how it was drawn."""
        return [{"route": r, "probability": float(p), "probability_exact": f"{p.numerator}/{p.denominator}",
                 "draws": s.draws if s else 0, "rounds_played": s.played if s else 0, "seed": s.seed if s else None,
                 "how": s.how if s else ""} for r, p, s in self.routes]


def wilson(k: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion ``k/n`` at ``confidence`` (two-sided).

    Examples
    --------
    >>> lo, hi = wilson(0, 100)
    >>> lo, round(hi, 4)
    (0.0, 0.0622)
    """
    if n <= 0:
        return 0.0, 1.0
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (0.0 if k == 0 else max(0.0, mid - half)), (1.0 if k == n else min(1.0, mid + half))


MIN_WEIGHTED_HITS = 30
"""The fewest draws of a weighted (importance-sampled) route that must hit an event for its normal interval;
with fewer, the interval is ``[0, weight_bound · Wilson upper end of the hits]`` (``P(E) = E_q[w·1_E] ≤ w_max·Q(E)``)."""


@dataclass(frozen=True)
class _Route:
    p: float
    values: list[int]
    counts: list[int]
    n: int
    weights: list[float] | None = None
    weights2: list[float] | None = None
    weight_bound: float = 1.0
    top: int | None = None
    w_total: float = 0.0
    """Σ w over the draws (weighted routes)."""
    w2_total: float = 0.0
    """Σ w² over the draws (weighted routes)."""

    def estimate(self, sel: Callable[[int], bool], conf: float) -> tuple[float, float, float, int]:
        """``(P̂, low, high, hits)`` of the event ``{W : sel(W)}`` given the route, at ``conf``."""
        idx = [i for i, (v, c) in enumerate(zip(self.values, self.counts, strict=True)) if c > 0 and sel(v)]
        return self._of(idx, conf)

    def _of(self, idx: list[int], conf: float) -> tuple[float, float, float, int]:
        k = sum(self.counts[i] for i in idx)
        if self.weights is None or self.weights2 is None:
            return self.interval(k, 0.0, 0.0, conf)
        return self.interval(k, math.fsum(self.weights[i] for i in idx), math.fsum(self.weights2[i] for i in idx), conf)

    def interval(self, k: int, w1: float, w2: float, conf: float) -> tuple[float, float, float, int]:
        """``(P̂, low, high, k)`` of an event hit by ``k`` draws, of likelihood ratios summing to ``w1`` (squares
        ``w2``; unused for an unweighted route)."""
        if self.weights is None or self.weights2 is None:
            lo, hi = wilson(k, self.n, conf)
            return k / self.n, lo, hi, k
        # self-normalised: P̂ = Σ_E w / Σ w (the route's law sums to 1), its variance by the delta method,
        # Σ_i w_i²·(1_E(i) − P̂)² / (Σ w)²
        p = w1 / self.w_total
        if k < MIN_WEIGHTED_HITS:
            return p, 0.0, min(1.0, self.weight_bound * wilson(k, self.n, conf)[1]), k
        z = NormalDist().inv_cdf(1 - (1 - conf) / 2)
        var = ((1 - p) ** 2 * w2 + p * p * (self.w2_total - w2)) / self.w_total**2
        se = math.sqrt(max(var, 0.0))
        return p, max(0.0, p - z * se), min(1.0, p + z * se), k



def _method(exact: RoundPart, routes: Sequence[tuple[str, Fraction]]) -> str:
    if not routes:
        return "exact"
    return "exact+sampled" if sum(exact.probs) > 0 else "sampled"


def mix(exact: RoundPart, uncovered: Sequence[tuple[str, Fraction]], samples: Mapping[str, RouteSample], *,
        bet: int, cap: int | None = None, cap_bound: tuple[float, float] | None = None,
        cap_reachable: bool = True, seed: int | None = None,
        tail: Callable[[float], tuple[float, float]] | None = None) -> MixedLaw:
    """The round's law ``exact + Σ P(u)·sample_u`` and its figures.

    ``uncovered`` lists ``(route, P(route))``, each sampled in ``samples``; ``cap`` (credits) the round's
    cap; ``cap_bound`` a proven ``(P(W ≥ cap) ≤ q, E[(W − cap)⁺] ≤ b)`` bound, reported where it is
    tighter than the sample; ``cap_reachable``: whether some round can reach the cap (then it is the max
    win); ``tail`` the round's proven tail bound (:data:`mathkit.laws.stage.Tail`, before the cap): an upper
    end of P(W ≥ t) tighter than the sample's replaces it.  A route without its sample is refused
    (never a figure from a part left out).
    """
    missing = [r for r, _ in uncovered if r not in samples]
    if missing:
        msg = f"no sample for the uncovered route(s) {', '.join(missing)}"
        raise UsageError(msg)
    k_routes = max(1, len(uncovered))
    conf = 1 - (1 - CONFIDENCE) / k_routes
    zr = NormalDist().inv_cdf(1 - (1 - conf) / 2)
    method = _method(exact, uncovered)
    routes = [_route(float(p), samples[r]) for r, p in uncovered]
    lost = exact.lost_mass

    quiet: dict[str, tuple[str, ...]] = {}  # by figure label: the routes whose sample never counted it

    def prob(pred: Callable[[int], bool], label: str = "", above: int | None = None) -> Estimate:
        """``P(pred(W))``; ``above``: every ``W`` it holds for is at least ``above`` (a route whose proven top is
        below it adds exactly 0)."""
        live = [(name, r) for (name, _), r in zip(uncovered, routes, strict=True)
                if r.p > 0 and not (above is not None and r.top is not None and r.top < above)]
        quiet[label] = tuple(name for name, r in live
                             if not any(c > 0 and pred(v) for v, c in zip(r.values, r.counts, strict=True)))
        e = sum(p for v, p in zip(exact.values, exact.probs, strict=True) if pred(v))
        ef = None
        if exact.exact is not None and not live:
            ef = sum((p for v, p in zip(exact.values, exact.exact, strict=True) if pred(v)), Fraction(0))
        value, low, high = e, e, e + lost
        for _, r in live:
            point, lo, hi, _k = r.estimate(pred, conf)
            value += r.p * point
            low += r.p * lo
            high += r.p * hi
        m = method if live else ("exact" if exact.exact is not None and not lost else "markov")
        return Estimate(value, low, min(high, 1.0), m, ef, note=label)

    def resolved(e: Estimate, label: str) -> Estimate:
        """``e`` as a point value if its sample resolves it (half-width ≤ RESOLUTION × value), else its interval."""
        if e.method == "exact" or e.interval or e.high <= e.low or (e.bound and e.low == 0):
            return e
        half = (e.high - e.low) / 2
        if e.value > 0 and half <= RESOLUTION * e.value:
            return e
        none = quiet.get(label, ())
        if e.method == "markov":  # no sampled part: the chains' truncated law and the proven bound
            note = (f"{e.note}; an interval, not a point value: no sampled route can reach it (each one's proven "
                    "largest win is below it), and the exact part's truncated law and the proven tail bound leave "
                    "it unresolved; more samples cannot narrow it")
            return replace(e, value=e.high, interval=True, bound=False, note=note)
        why = (f"no sampled round of {', '.join(none)} reached it" if none else
               f"its 99% half-width is {half / e.value:.0%} of the point value")
        note = (f"{e.note}; an interval, not a point value: {why} (a point is printed at half-width ≤ "
                f"{RESOLUTION:.0%}); sample more rounds (--sample-rounds) to narrow it")
        return replace(e, value=e.high, interval=True, bound=False, note=note)

    def clipped(e: Estimate, t: int) -> Estimate:
        """``e`` = P(W ≥ t) with its upper end the proven tail bound where that is tighter (a bound: markov)."""
        if tail is None or e.method == "exact":
            return e
        q = tail(t - 1)[1]  # P(W > t − 1) = P(W ≥ t): wins are whole credits
        if q >= e.high:
            return e
        if e.value > q:  # the sample contradicts a proven bound: never silent
            msg = f"P(W ≥ {t}) sampled at {e.value:.3g}, above its proven bound {q:.3g}"
            raise ModelError(msg)
        note = f"{e.note}; its upper end is the round's proven tail bound, tighter than the sample's"
        if e.value == 0:  # nothing counted it: the proven bound is the figure (P ≤ it), never 0
            return replace(e, value=q, low=0.0, high=q, note=note, bound=True)
        return replace(e, low=min(e.low, q), high=q, note=note)

    def rtp_part(pred: Callable[[int], bool], above: int | None = None) -> Estimate:
        e = sum(v * p for v, p in zip(exact.values, exact.probs, strict=True) if pred(v)) / bet
        value = low = high = e
        for r in routes:
            if above is not None and r.top is not None and r.top < above:
                continue
            if r.weights is not None and r.weights2 is not None:  # self-normalised, its variance by the delta method
                xs = [(v / bet, a, b) for v, a, b in zip(r.values, r.weights, r.weights2, strict=True) if pred(v)]
                wt = r.w_total
                m1 = math.fsum(x * a for x, a, _ in xs) / wt
                var = (math.fsum(x * x * b for x, _, b in xs) - 2 * m1 * math.fsum(x * b for x, _, b in xs)
                       + m1 * m1 * r.w2_total) / wt**2
                se = math.sqrt(max(var, 0.0))
            else:
                ys = [(v / bet, c) for v, c in zip(r.values, r.counts, strict=True) if pred(v)]
                m1 = sum(x * c for x, c in ys) / r.n
                m2 = sum(x * x * c for x, c in ys) / r.n
                se = math.sqrt(max(m2 - m1 * m1, 0.0) / r.n)
            value += r.p * m1
            low += r.p * max(m1 - zr * se, 0.0)
            high += r.p * (m1 + zr * se)
        return Estimate(value, low, high, method)

    figs: dict[str, Estimate] = {
        "hit_frequency": prob(lambda v: v > 0, "P(W > 0)"),
        "hit_frequency_win_ge_bet": prob(lambda v: v >= bet, "P(W ≥ bet)"),
    }
    for m in TAILS:
        label = f"P(W ≥ {m}× bet)"
        figs[f"p_win_ge_{m}x"] = resolved(clipped(prob(_at_least(m * bet), label, m * bet), m * bet), label)
    if method == "sampled":
        notes = [f"intervals: {CONFIDENCE:.0%} Wilson score intervals on the whole round's sampled law (no exact part)"]
    else:
        notes = [f"intervals: {CONFIDENCE:.0%} jointly — a Wilson score interval per sampled route at confidence "
                 f"1 − 0.01/{k_routes}, weighted by the route's exact probability and added to the exact part "
                 "(union bound); the exact part adds no width"]
        if any(r.weights is not None for r in routes):
            notes.append("an importance-sampled route: its estimate of an event is the self-normalised share of the "
                         "draws' likelihood ratios on it (Σ_E w / Σ w), its interval normal by the delta method where at "
                         f"least {MIN_WEIGHTED_HITS} draws hit the event, else 0 to the ratio's bound × the Wilson upper "
                         "end of the hits (P(E) = E_q[w·1_E] ≤ w_max·Q(E))")
        if any(r.top is not None for r in routes):
            notes.append("a route adds exactly 0 to an event above its proven largest win")
    kind = "largest"
    top_exact = max((v for v, p in zip(exact.values, exact.probs, strict=True) if p > 0), default=0)
    top_sampled = max((v for r in routes for v, c in zip(r.values, r.counts, strict=True) if c > 0), default=0)
    if cap is not None:
        pc = prob(lambda v: v >= cap, "P(W ≥ cap)", cap)
        if cap_bound is not None and cap_bound[0] < pc.high:
            q = cap_bound[0]
            if pc.value > q:  # the sample contradicts a proven bound: never silent
                msg = f"P(cap) sampled at {pc.value:.3g}, above its proven bound {q:.3g}"
                raise ModelError(msg)
            if pc.value == 0:  # nothing reached it: the bound is the figure (P(cap) ≤ it), as the cap's section shows
                pc = Estimate(q, 0.0, q, "markov", bound=True,
                              note="a proven tail bound, tighter than the sample: P(cap) ≤ the value shown")
            else:  # the exact part's rounds at the cap, and the bound as the interval's upper end
                pc = replace(pc, high=q, note="P(W ≥ cap): the interval's upper end is the proven tail bound")
            notes.append(f"P(cap) ≤ {q:.3g}: the round's proven tail bound (Chernoff, markov), tighter than the "
                         "sample's upper end; no sampled round reached the cap")
        figs["p_win_ge_cap"] = pc = resolved(pc, "P(W ≥ cap)")
        if cap_bound is not None:
            figs["rtp_lost_to_cap"] = Estimate(cap_bound[1] / bet, 0.0, cap_bound[1] / bet, "markov", bound=True,
                                               note="E[(W − cap)⁺] / bet ≤ the value shown, a proven bound (the "
                                                    "simulator ends a round at the cap: samples cannot measure it)")
        if cap_reachable:
            kind = "cap"
            figs["max_win"] = Estimate(cap / bet, cap / bet, cap / bet, "exact", Fraction(cap, bet),
                                       note="the cap: some round can reach it")
            figs["max_win_probability"] = pc
    top = max(top_exact, top_sampled)
    src = "exact" if top_exact >= top_sampled else method
    figs["largest_computed_win"] = Estimate(top / bet, top / bet, top / bet, src,
                                            note="the largest win of the law (exact part and samples)")
    figs["largest_computed_win_probability"] = (
        figs["p_win_ge_cap"] if cap is not None and top >= cap  # the cap is the top: P(cap), with its proven bound
        else resolved(prob(lambda v: v == top, "P(W = max win)", top), "P(W = max win)"))
    if kind == "largest":
        figs["max_win"] = figs["largest_computed_win"]
        figs["max_win_probability"] = figs["largest_computed_win_probability"]
    bands = []
    edges: list[tuple[str, Callable[[int], bool], int | None]] = [("0", lambda v: v == 0, None)]
    for i, lo in enumerate(BAND_EDGES):
        hi = BAND_EDGES[i + 1] if i + 1 < len(BAND_EDGES) else None
        label = f"({lo}, {'∞' if hi is None else hi}]".replace("∞]", "∞)")
        edges.append((label, _within(lo * bet, None if hi is None else hi * bet), math.floor(lo * bet) + 1))
    for label, pred, above in edges:
        bands.append(Band(label, prob(pred, label, above), rtp_part(pred, above)))
    xs = sorted({v for v, p in zip(exact.values, exact.probs, strict=True) if v > 0 and p > 0}
                | {v for r in routes for v, c in zip(r.values, r.counts, strict=True) if v > 0 and c > 0})
    ex = _exceedance(exact, routes, xs, conf, lost, bet)
    return MixedLaw(method, bet, figs, tuple(bands), ex,
                    tuple((r, Fraction(p), samples.get(r)) for r, p in uncovered), kind, tuple(notes), seed)


def _route(p: float, s: RouteSample) -> _Route:
    return _Route(p, list(s.values), list(s.counts), s.draws, None if s.weights is None else list(s.weights),
                  None if s.weights2 is None else list(s.weights2), s.weight_bound, s.top,
                  math.fsum(s.weights) if s.weights is not None else float(s.draws),
                  math.fsum(s.weights2) if s.weights2 is not None else float(s.draws))


def _at_least(t: int) -> Callable[[int], bool]:
    return lambda v: v >= t


def _within(low: int, high: int | None) -> Callable[[int], bool]:
    """``low < v ≤ high`` (``high`` ``None``: open)."""
    return lambda v: v > low and (high is None or v <= high)


def _exceedance(exact: RoundPart, routes: list[_Route], xs: list[int], conf: float, lost: float,
                bet: int) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
    """``P(W ≥ x)`` with its interval at every win value ``x`` (one pass over each part, high to low)."""
    import bisect

    n_x = len(xs)
    ge = [0.0] * (n_x + 1)
    for v, p in zip(exact.values, exact.probs, strict=True):
        if v > 0 and p > 0:
            ge[bisect.bisect_left(xs, v)] += p
    point = _suffix(ge)
    low, high = list(point), [p + lost for p in point]
    for r in routes:
        k = [0] * (n_x + 1)
        a1 = [0.0] * (n_x + 1)
        a2 = [0.0] * (n_x + 1)
        w1 = r.weights if r.weights is not None else [0.0] * len(r.values)
        w2 = r.weights2 if r.weights2 is not None else [0.0] * len(r.values)
        for v, c, x1, x2 in zip(r.values, r.counts, w1, w2, strict=True):
            if v > 0 and c > 0:
                i = bisect.bisect_left(xs, v)
                k[i] += c
                a1[i] += x1
                a2[i] += x2
        run, r1, r2 = 0, 0.0, 0.0
        for i in range(n_x - 1, -1, -1):
            run, r1, r2 = run + k[i], r1 + a1[i], r2 + a2[i]
            if r.top is not None and xs[i] > r.top:
                continue  # above the route's proven top: it adds exactly 0
            pt, lo, hi, _ = r.interval(run, r1, r2, conf)
            point[i] += r.p * pt
            low[i] += r.p * lo
            high[i] += r.p * hi
    return (tuple(x / bet for x in xs), tuple(point[:n_x]), tuple(low[:n_x]), tuple(min(h, 1.0) for h in high[:n_x]))


def _suffix(ge: list[float]) -> list[float]:
    out = [0.0] * len(ge)
    run = 0.0
    for i in range(len(ge) - 1, -1, -1):
        run += ge[i]
        out[i] = run
    return out
