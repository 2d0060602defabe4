"""The exact figures a tuning aims at and reports: :class:`Figures`, from :func:`measure`.

Everything comes from the public exact entry points: the round composed at the
``"mean"`` level (:func:`mathkit.round.analyse`: RTP by component, the
probability that a base spin starts a feature) or the ``"moments"`` level (the
whole play's exact second moment, so σ; the base spin's enumerated law, so the
hit frequency), and :func:`mathkit.exact.components.component_rtp` for the top award's odds.

* ``sd`` is the σ of a **whole play** (base spin plus every feature it starts)
  per unit of total bet, the figure of the PAR sheet; ``vi`` is 1.645·σ.
* ``hit_frequency`` is P(a base spin pays), as ``mathkit check`` reports it; it
  equals the PAR sheet's whole-play hit frequency when every feature trigger
  pays in the base spin (Dynasty: 3 Emperors pay 5× the bet).
* ``feature_p`` is P(a base spin starts a feature), the "1 in N" of the PAR sheet.
* ``top_award`` is the probability of the top line award per game per line at
  one line played (the largest line pay; ``mathkit check`` counts award odds so).

Examples
--------
The same figures as Dynasty's PAR sheet (built by :func:`mathkit.report.par.build_par` from the whole round's distribution):

>>> from mathkit.gamefile.io import load_game
>>> from mathkit.report.par import build_par
>>> game = load_game("data/games/dynasty.toml")
>>> f, par = measure(game, level="moments"), build_par(game)
>>> f.rtp == par.rtp.exact, abs(f.sd - par.sd.value) < 1e-12, abs(float(f.hit_frequency) - par.hit_frequency.value) < 1e-12
(True, True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from ..errors import ModelError
from ..exact.components import ComponentRTP, component_rtp
from ..laws.provenance import Method, weakest
from ..laws.stage import Number
from ..model.game import Game
from ..round import RoundAnalysis, analyse
from .targets import VI_Z

__all__ = ["Figures", "Level", "measure", "measure_analysis", "top_award_of", "top_cell"]

Level = Literal["mean", "moments"]


@dataclass(frozen=True)
class Figures:
    """Exact figures of one game played from one reel set (see the module notes).

    ``hit_frequency`` and ``variance`` (per bet²) are ``None`` when measured at
    the ``"mean"`` level; ``feature_p`` is ``None`` for a game without features
    and ``top_award`` for one without line pays.  ``method`` is the weakest
    provenance of the figures (``"exact"`` for every game the tuner can tune exactly).
    """

    rtp: Number
    components: tuple[tuple[str, Number], ...]
    feature_p: Fraction | None
    top_award: Fraction | None
    hit_frequency: Fraction | None = None
    variance: Number | None = None
    method: Method = "exact"

    @property
    def sd(self) -> float:
        if self.variance is None:
            msg = "σ needs the moments level"
            raise ModelError(msg)
        return math.sqrt(max(float(self.variance), 0.0))

    @property
    def vi(self) -> float:
        return float(VI_Z) * self.sd

    @property
    def feature_one_in(self) -> float:
        return math.inf if not self.feature_p else 1 / float(self.feature_p)

    @property
    def top_one_in(self) -> float:
        return math.inf if not self.top_award else 1 / float(self.top_award)

    def component(self, name: str) -> Number:
        return dict(self.components).get(name, Fraction(0))

    def value(self, figure: str) -> Number | None:
        """The figure a target names, in the target's units (N for "1 in N"); ``None`` if not measured."""
        if figure == "rtp":
            return self.rtp
        if figure.startswith("component:"):
            return self.component(figure.partition(":")[2])
        if figure == "feature_frequency":
            return None if self.feature_p is None else (1 / self.feature_p if self.feature_p else math.inf)
        if figure == "top_award":
            return None if self.top_award is None else (1 / self.top_award if self.top_award else math.inf)
        if figure == "hit_frequency":
            return self.hit_frequency
        if figure in ("sd", "vi"):
            return None if self.variance is None else (self.sd if figure == "sd" else self.vi)
        msg = f"unknown figure {figure!r}"
        raise ModelError(msg)


def top_cell(game: Game) -> tuple[str, int] | None:
    """The top line award: ``(entry, count)`` of the largest line pay at the default coin (first on ties)."""
    best: tuple[int, str, int] | None = None
    for e in game.line_pays:
        for k, _ in e.pays:
            pay = e.pay(k, game.bet.coins[0], 0)
            if pay > 0 and (best is None or pay > best[0]):
                best = (pay, e.name, k)
    return None if best is None else (best[1], best[2])


def _top_award(game: Game, reels: str | None) -> Fraction | None:
    if top_cell(game) is None:
        return None
    return top_award_of(game, component_rtp(game, reels))


def top_award_of(game: Game, comp: ComponentRTP) -> Fraction:
    """The top line award's probability per game per line, from the reel set's exact component RTP."""
    cell = top_cell(game)
    per = game.bet.lines if game.pay_mode == "lines" else 1
    hits = sum(e.hits for e in comp.entries if e.component != "scatter" and (e.entry, e.count) == cell)
    return Fraction(hits, comp.cycle * per)


def measure_analysis(game: Game, reels: str | None = None, level: Level = "mean") -> tuple[Figures, RoundAnalysis]:
    """The figures of ``game`` played from reel set ``reels``, and the round analysis they come from."""
    a = analyse(game, reels, level=level)
    bet = a.total_bet
    parts = a.breakdown()
    method = weakest(a.outcome.method, *(a.outcome.method_of(k) for k in parts))
    has_feature = any(f.role == "sequence" for f in game.features)
    feature_p = sum((Fraction(br.p) for key, br in a.base.branches.items() if key), Fraction(0))
    hf: Fraction | None = None
    var: Number | None = None
    if level == "moments":
        o = a.outcome
        assert o.m2 is not None
        var = (o.m2 - o.mean * o.mean) / (bet * bet)
        if not game.features_of("modifier"):
            value = a.engine.spin_maths(a.engine.base_model()).win_distribution.hit_frequency()
            hf = value if isinstance(value, Fraction) else Fraction(value)
    return Figures(a.rtp(), tuple(parts.items()), feature_p if has_feature else None, _top_award(game, a.engine.reels),
                   hf, var, method), a


def measure(game: Game, reels: str | None = None, level: Level = "mean") -> Figures:
    """The exact figures of ``game`` played from reel set ``reels`` (default: the game's default set)."""
    return measure_analysis(game, reels, level)[0]
