"""Linear models of every target figure in the design, around one exact linearization.

Mean-level figures (RTP, its components, feature frequency, top award) follow
their exact finite differences (:func:`mathkit.tuner.differences.linearize`):
exact for a change on one reel of an unweighted set, a first-order model across
reels.  σ and the hit frequency need the whole play's enumeration, which a
design change cannot be differentiated through cheaply, so they follow a
**surrogate**: linear in the per-line statistics of each tracked reel set
(:data:`~mathkit.tuner.space.FEATURES`), whose coefficients start from a prior and
are refitted (ridge regression towards the prior) to every exact evaluation made
so far:

* ``E[W²]/bet²`` of a whole play moves with each set's diagonal line second
  moment ``Q`` (prior: halfway between "only the diagonal moves" and "everything
  moves in proportion", ½·(1 + E[L²]/Q) on the play set, times the set's share of
  the RTP elsewhere) and its line RTP ``C`` (prior: twice the rest of the RTP,
  the cross term of independent parts); σ² = E[W²]/bet² − RTP².
* the hit frequency moves with the per-line hit rate ``H`` of the play set
  (prior: ``n_eff`` independent lines, ``n_eff`` fitted to the hit frequency) and
  the probability that a scatter pays.

Every model is anchored at the exact figure of the design it is taken at; the
tuner verifies every design it keeps exactly.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ..round import RoundAnalysis
from .differences import Linearization
from .measure import Figures
from .space import FloatArray, IntArray, Space
from .targets import VI_Z, Target

__all__ = ["Row", "Surrogate", "rows_for"]

#: figures modelled by the surrogate: E[W²]/bet² and the hit frequency
SURROGATE = ("m2", "hf")


class Surrogate:
    """σ² and hit frequency as linear functions of the per-line statistics (see the module notes)."""

    def __init__(self, space: Space, lin: Linearization, figs: Figures, analysis: RoundAnalysis) -> None:
        self.names = space.phi_names
        self.phi0 = lin.phi.copy()
        self.y0 = self._targets(figs)
        n = len(self.names)
        prior = {k: np.zeros(n) for k in SURROGATE}
        idx = {name: i for i, name in enumerate(self.names)}
        play = space.play
        rtp = float(figs.rtp)
        sm = analysis.engine.spin_maths(analysis.engine.base_model())
        lines_only = sm.distribution(scatter_multiplier=0)
        bet = float(analysis.total_bet)
        el2 = (lines_only.sd() ** 2 + float(lines_only.mean()) ** 2) / (bet * bet)
        q_play = self.phi0[idx[(play, "Q")]]
        kappa = 0.5 * (1 + el2 / q_play) if q_play > 0 else 1.0
        c_play = self.phi0[idx[(play, "C")]]
        share = _rtp_shares(space, lin)
        for s in space.tracked:
            a = share.get(s, 0.0)
            prior["m2"][idx[(s, "Q")]] = kappa * (1.0 if s == play else a)
        prior["m2"][idx[(play, "C")]] = 2 * (rtp - c_play)
        hf = float(figs.hit_frequency or 0)
        p = self.phi0[idx[(play, "H")]]
        q = self.phi0[idx[(play, "S")]]
        lines = space.original.bet.lines if space.original.pay_mode == "lines" else 1
        if 0 < p < 1 and 0 < hf < 1 and q < 1 and (1 - hf) < (1 - q):
            n_eff = math.log((1 - hf) / (1 - q)) / math.log(1 - p)
            prior["hf"][idx[(play, "H")]] = n_eff * (1 - hf) / (1 - p)
        else:
            prior["hf"][idx[(play, "H")]] = lines * (1 - hf)
        prior["hf"][idx[(play, "S")]] = (1 - hf) / (1 - q) if q < 1 else 0.0
        self.prior = prior
        # ridge weights: a prior worth one observation of a typical few-unit step
        scale = np.sqrt((lin.dphi**2).mean(axis=1)) * 3 + 1e-12
        self.omega = scale**2
        self.points: list[tuple[FloatArray, dict[str, float]]] = []
        self.coef = {k: v.copy() for k, v in prior.items()}

    @staticmethod
    def _targets(figs: Figures) -> dict[str, float]:
        assert figs.variance is not None
        rtp = float(figs.rtp)
        return {"m2": float(figs.variance) + rtp * rtp, "hf": float(figs.hit_frequency or 0)}

    def add(self, phi: FloatArray, figs: Figures) -> None:
        """Refit the coefficients with one more exact evaluation (``phi``: its per-line statistics)."""
        y = self._targets(figs)
        self.points.append((phi - self.phi0, {k: y[k] - self.y0[k] for k in SURROGATE}))
        dphi = np.array([p for p, _ in self.points])
        for k in SURROGATE:
            dy = np.array([v[k] for _, v in self.points])
            a = dphi.T @ dphi + np.diag(self.omega)
            b = dphi.T @ dy + self.omega * self.prior[k]
            self.coef[k] = np.linalg.solve(a, b)


def _rtp_shares(space: Space, lin: Linearization) -> dict[str, float]:
    """How much the total RTP moves per unit of each tracked set's line RTP (least squares over the variables)."""
    rows = [i for i, (_, f) in enumerate(space.phi_names) if f == "C"]
    a = lin.dphi[rows].T
    if not a.any():
        return {space.play: 1.0}
    coef = np.linalg.lstsq(a, lin.grad["rtp"], rcond=None)[0]
    return {space.phi_names[i][0]: float(c) for i, c in zip(rows, coef, strict=True)}


@dataclass(frozen=True)
class Row:
    """One band of the model: ``low ≤ value + grad·(x − at) ≤ high``.

    ``weight`` is the priority of its slack; ``aim`` the value preferred inside the band (the target's value).
    """

    name: str
    value: float
    grad: FloatArray
    low: float
    high: float
    weight: float
    exact: bool
    aim: float

    def predict(self, x: IntArray, at: IntArray) -> float:
        return float(self.value + self.grad @ (x - at))


def rows_for(targets: tuple[Target, ...], lin: Linearization, sur: Surrogate | None, exact: Figures | None,
             margin: float) -> list[Row]:
    """The model rows of ``targets`` around ``lin`` (σ and hit frequency anchored at the exact ``exact``).

    Approximate figures aim ``margin`` of their half-width inside their band.
    """
    out = []
    g = lin.grad
    rtp = float(lin.figures.rtp)
    for t in targets:
        lo, hi = float(t.low), float(t.high)
        aim = float(t.value)
        if t.figure == "rtp" or t.figure.startswith("component:"):
            name = t.figure
            out.append(Row(name, float(lin.figures.value(name) or 0), g[name], lo, hi, 1000.0, True, aim))
        elif t.one_in:
            key = "feature_p" if t.figure == "feature_frequency" else "top_award"
            plo, phi = (float(b) for b in t.prob_band)
            now = float((lin.figures.feature_p if key == "feature_p" else lin.figures.top_award) or 0)
            out.append(_inside(Row(t.figure, now, g[key], plo, phi, 100.0, False, 1 / aim), margin))
        elif sur is not None and exact is not None:
            if t.figure in ("sd", "vi"):
                z = 1.0 if t.figure == "sd" else float(VI_Z)
                s2 = float(exact.variance or 0)
                grad = sur.coef["m2"] @ lin.dphi - 2 * rtp * g["rtp"]
                out.append(_inside(Row(t.figure, s2, grad, (lo / z) ** 2, (hi / z) ** 2, 1.0, False, (aim / z) ** 2),
                                   margin))
            elif t.figure == "hit_frequency":
                grad = sur.coef["hf"] @ lin.dphi
                out.append(_inside(Row(t.figure, float(exact.hit_frequency or 0), grad, lo, hi, 1.0, False, aim),
                                   margin))
    return out


def _inside(row: Row, margin: float) -> Row:
    d = (row.high - row.low) / 2 * margin
    return dataclasses.replace(row, low=row.low + d, high=row.high - d)
