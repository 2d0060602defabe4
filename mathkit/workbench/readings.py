"""What the workbench reads off a PAR sheet, whichever kind it is: each figure with its provenance and interval.

The worker builds the sheet as ``mathkit par`` does (:func:`sheet`): a
:class:`~mathkit.report.par.ParSheet` when the round's whole distribution is exact (or
markov), else a :class:`~mathkit.report.par.RoundSheet` whose distribution figures come
from the mixed law (:class:`~mathkit.laws.mixture.MixedLaw`: an exact part and sampled
routes, 99% intervals).  The labels, plots and tables read both through the functions
here, so none of them branches on the sheet's type, and a figure a sheet does not have
comes with the reason (:func:`missing`), in a designer's words.

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> par = sheet(load_game("data/games/classic_3reel.toml"), "base")
>>> r = hit_frequency(par)
>>> r is not None and r.method, r is not None and r.tag()
('exact', '[exact]')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..laws.mixture import CONFIDENCE, Estimate, MixedLaw
from ..laws.provenance import Figure
from ..laws.volatility import exceedance_points, win_bands
from ..model.game import Game
from ..report.par import RANGE_SPINS, ParSheet, RoundSheet, Z, build_sheet, sheet_level
from ..round.compose import as_block
from ..sim.sampling import route_sampler

__all__ = ["BandRow", "Curve", "Reading", "bands", "exceedance", "hit_frequency", "max_win", "missing",
           "route_names", "sd", "sheet", "volatility_index"]


def sheet(game: Game, reels: str) -> RoundSheet:
    """The PAR sheet of ``game`` played from ``reels``, built as ``mathkit par`` builds it.

    The same call and defaults (:func:`~mathkit.sim.sampling.route_sampler` with its default
    rounds and seed), so the workbench and ``mathkit par`` show the same figures.
    """
    return build_sheet(game, reels, sampler=route_sampler(game, None, None, reels=reels))


@dataclass(frozen=True)
class Reading:
    """One figure as the workbench shows it: its value, how it was obtained, its 99% interval when sampled.

    ``method`` is ``exact``, ``markov``, ``exact+sampled`` or ``sampled``; ``interval``: the sample does
    not resolve a point value, the figure is ``[low, high]``; ``bound``: ``high`` is a proven upper bound.

    Examples
    --------
    >>> Reading(0.25, "exact").tag(), Reading(0.325, "exact+sampled", 0.3249, 0.3252).tag()
    ('[exact]', '[exact+sampled, 99% 0.3249 – 0.3252]')
    >>> Reading(3e-7, "exact+sampled", 0.0, 3e-7, interval=True).tag("{:.2g}".format)
    '[exact+sampled: 99% interval ≤ 3e-07, not resolved]'
    """

    value: float
    method: str
    low: float | None = None
    high: float | None = None
    interval: bool = False
    bound: bool = False

    @classmethod
    def of(cls, f: Figure | Estimate) -> Reading:
        if isinstance(f, Estimate):
            sampled = f.method not in ("exact", "markov") or f.bound or f.interval
            return cls(f.value, f.method, f.low if sampled else None, f.high if sampled else None, f.interval, f.bound)
        return cls(f.value, f.method)

    @property
    def sampled(self) -> bool:
        return "sampled" in self.method

    def tag(self, fmt: Callable[[float], str] = "{:.6g}".format) -> str:
        """The provenance tag, with the interval of a sampled figure (``fmt`` formats its ends)."""
        lo, hi = self.low, self.high
        if self.interval and hi is not None:
            what = f"≤ {fmt(hi)}" if not lo else f"{fmt(lo)} – {fmt(hi)}"
            return f"[{self.method}: {CONFIDENCE:.0%} interval {what}, not resolved]"
        if self.bound and hi is not None:
            return f"[{self.method}: ≤ {fmt(hi)}, a proven bound]"
        if lo is None or hi is None or lo == hi:
            return f"[{self.method}]"
        return f"[{self.method}, {CONFIDENCE:.0%} {fmt(lo)} – {fmt(hi)}]"


def _mixed(par: RoundSheet) -> MixedLaw | None:
    return None if isinstance(par, ParSheet) else par.mixed


def sd(par: RoundSheet) -> Reading | None:
    """σ per total bet of a whole play (``None``: the sheet has none, see :func:`missing`)."""
    if isinstance(par, ParSheet):
        return Reading.of(par.sd)
    return None if par.sd_moments is None else Reading.of(par.sd_moments)


def volatility_index(par: RoundSheet) -> dict[str, Reading]:
    """The volatility index ``z·σ`` at 90/95/99% (empty without σ)."""
    if isinstance(par, ParSheet):
        return {k: Reading.of(f) for k, f in par.volatility_index.items()}
    s = sd(par)
    return {} if s is None else {k: Reading(z * s.value, s.method) for k, z in Z.items()}


def rtp_range(par: RoundSheet) -> dict[str, tuple[tuple[int, float, float], ...]]:
    """``(N, low, high)`` of the RTP after ``N`` spins per level, as the sheet states it (empty without σ)."""
    if isinstance(par, ParSheet):
        return par.rtp_range
    r = par.rtp.value
    return {k: tuple((n, r - v.value / math.sqrt(n), r + v.value / math.sqrt(n)) for n in RANGE_SPINS)
            for k, v in volatility_index(par).items()}


def hit_frequency(par: RoundSheet) -> Reading | None:
    """P(a whole play pays anything) (``None``: the sheet has no distribution, see :func:`missing`)."""
    if isinstance(par, ParSheet):
        return Reading.of(par.hit_frequency)
    m = par.mixed
    return None if m is None else Reading.of(m.figures["hit_frequency"])


def max_win(par: RoundSheet) -> Reading | None:
    """The max win × bet (``None`` without the distribution)."""
    if isinstance(par, ParSheet):
        return Reading.of(par.max_win)
    m = par.mixed
    return None if m is None else Reading.of(m.figures["max_win"])


@dataclass(frozen=True)
class Curve:
    """The exceedance curve ``P(win ≥ x × bet)`` at ascending ``x``; ``low``/``high``: its 99% band (sampled)."""

    x: list[float]
    p: list[float]
    low: list[float] | None
    high: list[float] | None
    method: str
    p_no_win: Reading


def _thin(x: Sequence[float], max_points: int | None) -> list[int]:
    """At most ``max_points`` indices of ascending ``x``, spread evenly in log x, the first and last kept
    (as :func:`mathkit.laws.volatility.exceedance_points` thins an exact law)."""
    n = len(x)
    if max_points is None or n <= max_points:
        return list(range(n))
    arr = np.asarray(x, dtype=np.float64)
    grid = np.geomspace(arr[0], arr[-1], max_points)
    idx = np.unique(np.concatenate([[0, n - 1], np.searchsorted(arr, grid).clip(0, n - 1)]))
    return [int(i) for i in idx]


def exceedance(par: RoundSheet, max_points: int | None = None) -> Curve | None:
    """The exceedance curve of the whole play, thinned to at most ``max_points`` points (``None``: no distribution).

    Every point kept is the sheet's own ``P(win ≥ x)`` (exact, or the mixed law's point and 99% band).
    """
    hit = hit_frequency(par)
    if hit is None:
        return None
    p0 = Reading(1 - hit.value, hit.method, None if hit.high is None else 1 - hit.high,
                 None if hit.low is None else 1 - hit.low, hit.interval)
    if isinstance(par, ParSheet):
        x, p = exceedance_points(par.distribution, max_points)
        return Curve(x, p, None, None, par.distribution.method, p0)
    m = par.mixed
    assert m is not None
    xs, ps, lows, highs = m.exceedance
    keep = _thin(xs, max_points)
    sampled = m.method != "exact"
    return Curve([xs[i] for i in keep], [ps[i] for i in keep], [lows[i] for i in keep] if sampled else None,
                 [highs[i] for i in keep] if sampled else None, m.method, p0)


@dataclass(frozen=True)
class BandRow:
    """One win band: its label, probability and RTP part (each a :class:`Reading`), its share of the RTP."""

    label: str
    probability: Reading
    rtp: Reading
    share: float


def bands(par: RoundSheet) -> list[BandRow]:
    """The win bands (0, (0, 1], … > 1000 × bet) of the whole play (empty without the distribution)."""
    if isinstance(par, ParSheet):
        method = par.distribution.method
        return [BandRow(b.label, Reading(float(b.probability), method), Reading(float(b.rtp), method), float(b.share))
                for b in win_bands(par.distribution)]
    m = par.mixed
    if m is None:
        return []
    total = par.rtp.value
    return [BandRow(b.label, Reading.of(b.probability), Reading.of(b.rtp), b.rtp.value / total if total else 0.0)
            for b in m.bands]


def _route_name(route: str) -> str:
    """A route as a designer reads it: ``variant:arrow`` → ``the arrow overlay``, ``feature:samurai`` → ``the samurai feature``."""
    kind, _, name = route.partition(":")
    if kind == "variant":
        return f"the {name} variant"
    if kind == "feature":
        return f"the {name.replace('_', ' ')} feature"
    return "the whole round"


def route_names(par: RoundSheet) -> list[str]:
    """The parts of the round the sheet samples, in a designer's words (empty when nothing is sampled)."""
    m = _mixed(par)
    return [] if m is None else [_route_name(r) for r, _, _ in m.routes]


def _means_only(game: Game) -> list[str]:
    """The features of ``game`` that give the round's means only (no σ, no distribution)."""
    return [f.name for f in game.features if as_block(f).supported_level(game) == "mean"]


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def missing(par: RoundSheet) -> dict[str, str]:
    """The figures the sheet leaves out (``"sd"``, ``"distribution"``), each with why, in a designer's words."""
    if isinstance(par, ParSheet) or par.mixed is not None:
        return {} if sd(par) is not None else {"sd": "σ is not available for this game"}
    game = par.game
    out: dict[str, str] = {}
    means = _means_only(game)
    whose = f"this game's {_and(means)} feature{'s give' if len(means) > 1 else ' gives'} its means only" if means \
        else "this game's features give the round's means only"
    if sd(par) is None:
        out["sd"] = f"σ needs the whole round; {whose}"
    level = sheet_level(game)
    if level == "mean":
        out["distribution"] = f"the hit frequency and the distribution need the whole round; {whose}"
    else:
        out["distribution"] = ("the hit frequency and the distribution need parts of the round sampled, "
                               "and this sheet was built without sampling")
    return out


def fraction_digits(x: Fraction) -> int:
    """Digits of ``x``'s numerator and denominator together (how long the fraction reads)."""
    return len(str(x.numerator)) + len(str(x.denominator))
