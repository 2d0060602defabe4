"""A player's session, exactly: the law of the bankroll over ``N`` spins from a play's win law.

A session starts with a bankroll of ``X₀`` credits.  Each spin costs the total bet ``B``
and pays a whole play's win ``W``, an independent draw from the game's play law; the
player stops when the bankroll is below ``B`` (bust), when it reaches a stop-win target
``T`` (if any), or after ``N`` spins.  The bankroll is a Markov chain on the lattice
``g·ℤ`` (``g`` the gcd of ``B``, ``X₀``, ``T`` and every win), pushed forward by
:mod:`mathkit.chains.markov.bankroll`; :func:`solve_session` returns its :class:`SessionLaw`:

* ``survival[n]``: P(still playing after ``n`` spins), ``n = 0 … N``, and the expected
  spins played (time on device), ``Σ_{n<N} survival[n]``;
* the distribution of the final bankroll: exact below a ceiling (default ``X₀ + N·B``;
  the stop-win target when there is one), with P(final ≥ ceiling) and its mean beyond;
* P(ahead) = P(final > X₀), P(bust), P(target), the expected final bankroll and loss;
* P(a win of at least ``k × B`` during the session), from the chain of the sessions that
  have not seen one (its law is the play law without those wins).

Where mass is cut, and rounding
-------------------------------
No probability is cut by the grid (see :mod:`mathkit.chains.markov.bankroll`).  The one
truncation is the play law's own: ``lost_mass`` per spin (a feature chain cut upstream),
reported as ``truncated_mass = lost_mass × E[spins]``, a bound on the probability of a
session with a play of unknown value.  ``error_bound`` adds up, per chain, the a priori
bounds of every convolution, sum and tail sum (:mod:`mathkit.chains.markov.lattice`; the chain
is substochastic, so an error made at one spin never grows), plus the play law's
rounding (the gap between its probabilities and ``1 − lost_mass``) at every spin, and
takes the worst chain: every probability reported is within ``error_bound +
truncated_mass`` of the true one, the expected spins within ``N`` times that.

Examples
--------
Gambler's ruin: a spin costs 1 and pays 2 or 0 with probability ½, from a bankroll of 1:
the player busts on the first spin with probability ½, else is at 2 ...

>>> law = solve_session([0, 2], [0.5, 0.5], bet=1, bankroll=1, spins=2)
>>> law.survival.tolist(), law.expected_spins, law.p_bust
([1.0, 0.5, 0.5], 1.5, 0.5)
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ...errors import ModelError
from ...laws.provenance import FeatureSection, Figure, Method, weakest
from .bankroll import ChainRun, run_blocked, run_plain
from .lattice import lattice_law

__all__ = ["MAX_GRID", "MAX_SPINS", "SessionLaw", "checkpoints", "solve_session"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Solver = Literal["auto", "blocked", "plain"]
MAX_GRID = 1 << 22
"""Most bankroll values (lattice points) a session's grid may hold."""
MAX_SPINS = 10**6
"""Most spins a session may have (its survival curve is one float per spin)."""


def checkpoints(spins: int) -> tuple[int, ...]:
    """The spin counts at which survival is reported as a figure: 1, 10, 100 … below ``spins``, its half, and ``spins``.

    Examples
    --------
    >>> checkpoints(1000)
    (1, 10, 100, 500, 1000)
    """
    points = {n for n in (1, 10, 100, 1000, 10_000, 100_000) if n < spins} | {max(1, spins // 2), spins}
    return tuple(sorted(points))


@dataclass(frozen=True, eq=False)
class SessionLaw:
    """The law of a session, in credits (see the module docstring).

    ``final_values``/``final_probs``: the final bankroll below ``ceiling`` (ascending, positive
    probabilities); ``above``, ``above_mean``: P(final ≥ ``ceiling``) and E[final | final ≥ ``ceiling``]
    (with a stop-win the ceiling is the target); ``big_wins[k]``: P(a play pays at least
    ``k × bet`` during the session); ``mean_win``: E[W] per play; ``unit``: the lattice step.
    """

    bet: int
    bankroll: int
    spins: int
    stop_win: int | None
    ceiling: int
    unit: int
    survival: FloatArray
    final_values: IntArray
    final_probs: FloatArray
    above: float
    above_mean: float
    big_wins: Mapping[int, float]
    mean_win: float
    truncated_mass: float
    error_bound: float
    defect: float
    method: Method = "markov"
    solver: str = "blocked"
    seconds: float = field(default=math.nan, compare=False)

    # ------------------------------------------------------------------ figures
    @property
    def expected_spins(self) -> float:
        """Expected spins played (time on device): ``Σ_{n<N} P(still playing after n spins)``."""
        return math.fsum(self.survival[:-1].tolist())

    @property
    def median_spins(self) -> int | None:
        """The fewest spins ``n`` with P(the session is over after ``n`` spins) ≥ ½ (``None``: beyond ``N``)."""
        over = np.flatnonzero(self.survival <= 0.5)
        return int(over[0]) if len(over) else None

    @property
    def p_playing(self) -> float:
        """P(still playing after all ``N`` spins)."""
        return float(self.survival[-1])

    @property
    def p_bust(self) -> float:
        """P(the bankroll fell below the bet)."""
        return math.fsum(self.final_probs[self.final_values < self.bet].tolist())

    @property
    def p_target(self) -> float:
        """P(the stop-win target was reached) (0 without one)."""
        return self.above if self.stop_win is not None else 0.0

    @property
    def p_ahead(self) -> float:
        """P(the session ends with more than the starting bankroll)."""
        return math.fsum(self.final_probs[self.final_values > self.bankroll].tolist()) + self.above

    @property
    def expected_final(self) -> float:
        """E[final bankroll] in credits."""
        inside = math.fsum((self.final_values * self.final_probs).tolist())
        return inside + (self.above * self.above_mean if self.above > 0 else 0.0)

    @property
    def expected_loss(self) -> float:
        """E[bankroll − final bankroll] in credits (by Wald's identity, (bet − E[W]) × expected spins)."""
        return self.bankroll - self.expected_final

    def quantile(self, q: float) -> int | None:
        """The smallest final bankroll ``y`` (credits) with P(final ≤ y) ≥ ``q`` (``None``: at or above the ceiling)."""
        cum = np.cumsum(self.final_probs)
        at = int(np.searchsorted(cum, q - 1e-15))
        return int(self.final_values[at]) if at < len(cum) else None

    def survival_at(self, n: int) -> float:
        """P(still playing after ``n`` spins)."""
        return float(self.survival[n])

    def figures(self) -> dict[str, Figure]:
        """Every session figure by name, with its provenance (the names the simulator's session mode uses)."""
        m = self.method
        out = {f"p_survive@{n}": Figure(self.survival_at(n), m) for n in checkpoints(self.spins)}
        out |= {"expected_spins": Figure(self.expected_spins, m), "p_bust": Figure(self.p_bust, m),
                "p_ahead": Figure(self.p_ahead, m), "expected_final": Figure(self.expected_final, m),
                "expected_loss": Figure(self.expected_loss, m)}
        if self.stop_win is not None:
            out["p_target"] = Figure(self.p_target, m)
        out |= {f"p_big_win@{k}x": Figure(p, m) for k, p in self.big_wins.items()}
        return out

    def labels(self) -> dict[str, str]:
        """A reader's label for each of :meth:`figures`."""
        b = self.bet
        out = {f"p_survive@{n}": f"P(still playing after {n:,} spin{'s' if n != 1 else ''})"
               for n in checkpoints(self.spins)}
        out |= {"expected_spins": "expected spins played (time on device)",
                "p_bust": "P(bust: bankroll below the bet)",
                "p_ahead": "P(ahead: final bankroll above the start)",
                "expected_final": f"expected final bankroll (credits; start {self.bankroll:,})",
                "expected_loss": f"expected loss (credits; {self.expected_loss / b:,.3f} × bet)",
                "p_target": f"P(reached the stop-win {self.stop_win or 0:,} credits)"}
        out |= {f"p_big_win@{k}x": f"P(a win ≥ {k:,}× bet during the session)" for k in self.big_wins}
        return out

    def section(self, title: str = "Sessions", note: str = "") -> FeatureSection:
        """This session as a PAR sheet section (``note``: what the play law is, e.g. its gamble strategy)."""
        labels = self.labels()
        figs = tuple((labels[k], f) for k, f in self.figures().items())
        notes = (f"bankroll {self.bankroll:,} credits = {self.bankroll / self.bet:,.6g} × bet, up to {self.spins:,} spins"
                 + (f", stop-win at {self.stop_win:,} credits" if self.stop_win is not None else "")
                 + "; the player stops when the bankroll is below the bet",
                 f"a Markov chain on the bankroll in steps of {self.unit} credit(s), solved exactly in float64: "
                 f"rounding error ≤ {self.error_bound:.1e}, truncated probability mass {self.truncated_mass:.1e}",
                 *((note,) if note else ()))
        return FeatureSection(title, figs, notes=notes)

    def to_dict(self, *, curve: bool = True) -> dict[str, Any]:
        """JSON-ready figures; ``curve``: the whole survival curve and final distribution too."""
        out: dict[str, Any] = {
            "bet": self.bet, "bankroll": self.bankroll, "bankroll_x_bet": self.bankroll / self.bet,
            "spins": self.spins, "stop_win": self.stop_win, "unit": self.unit,
            "expected_spins": self.expected_spins, "median_spins": self.median_spins,
            "p_playing_at_end": self.p_playing, "p_bust": self.p_bust, "p_ahead": self.p_ahead,
            "p_target": self.p_target, "expected_final": self.expected_final,
            "expected_loss": self.expected_loss, "expected_loss_x_bet": self.expected_loss / self.bet,
            "p_big_win": {f"{k}x": p for k, p in self.big_wins.items()},
            "truncated_mass": self.truncated_mass, "error_bound": self.error_bound,
            "method": self.method, "solver": self.solver, "seconds": self.seconds,
            "provenance": {k: f.method for k, f in self.figures().items()},
        }
        if curve:
            out["p_survive"] = self.survival.tolist()
            out["final_distribution"] = {
                "values": self.final_values.tolist(), "probs": self.final_probs.tolist(),
                "above": {"at_least": self.ceiling, "p": self.above,
                          "mean": self.above_mean if self.above > 0 else None}}
        else:
            out["p_survive"] = {str(n): self.survival_at(n) for n in checkpoints(self.spins)}
        return out


def _int(x: object, what: str, minimum: int) -> int:
    if isinstance(x, bool) or not isinstance(x, int | np.integer) or int(x) < minimum:
        msg = f"{what} must be a whole number of at least {minimum:,}, not {x!r}"
        raise ModelError(msg)
    return int(x)


def _lattice(values: IntArray, bet: int, bankroll: int, stop_win: int | None) -> int:
    g = math.gcd(bet, bankroll, stop_win or 0)
    for v in np.unique(values).tolist():
        g = math.gcd(g, int(v))
    return g


def solve_session(values: Sequence[int] | IntArray, probs: Sequence[float] | FloatArray, *, bet: int,
                  bankroll: int, spins: int, stop_win: int | None = None, big_wins: Sequence[int] = (100,),
                  ceiling: int | None = None, lost_mass: float = 0.0, method: Method = "markov",
                  solver: Solver = "auto") -> SessionLaw:
    """The law of a session of up to ``spins`` spins at ``bet`` credits from ``bankroll`` credits.

    Parameters
    ----------
    values, probs
        A play's win law: wins in credits (whole numbers ≥ 0) and their probabilities.
    stop_win
        The player stops once the bankroll reaches this many credits (above ``bankroll``).
    big_wins
        ``k`` for each P(a win ≥ ``k × bet`` during the session).
    ceiling
        The final-bankroll distribution is kept value by value below it (credits, default
        ``bankroll + spins × bet``; ignored with a stop-win, whose target is the ceiling).
    lost_mass
        The play law's truncated probability (see the module docstring).
    method
        The play law's provenance; the session's figures are at best ``"markov"``.
    solver
        ``"blocked"`` (no stop-win only), ``"plain"``, or ``"auto"`` (blocked when it can).
    """
    start = time.perf_counter()
    bet = _int(bet, "the bet", 1)
    bankroll = _int(bankroll, "the bankroll", 1)
    spins = _int(spins, "the number of spins", 1)
    if spins > MAX_SPINS:
        msg = f"{spins:,} spins: a session has at most {MAX_SPINS:,}"
        raise ModelError(msg)
    if bankroll < bet:
        msg = f"a bankroll of {bankroll:,} credits is below the bet of {bet:,}: no spin can be played"
        raise ModelError(msg)
    if stop_win is not None and _int(stop_win, "the stop-win target", 1) <= bankroll:
        msg = f"the stop-win target {stop_win:,} must be above the bankroll {bankroll:,}"
        raise ModelError(msg)
    ks = tuple(_int(k, "a big-win multiple", 1) for k in big_wins)
    v = np.asarray(values, dtype=np.int64)
    p = np.asarray(probs, dtype=np.float64)
    if v.shape != p.shape or len(v) == 0 or (v < 0).any() or (p < 0).any() or not np.isfinite(p).all():
        msg = "the win law needs as many probabilities (≥ 0) as wins (whole credits ≥ 0), at least one"
        raise ModelError(msg)
    if solver == "blocked" and stop_win is not None:
        msg = "the blocked solver has no stop-win; use solver='plain' or 'auto'"
        raise ModelError(msg)
    g = _lattice(v, bet, bankroll, stop_win)
    b, x0 = bet // g, bankroll // g
    if stop_win is not None:
        f = top = stop_win // g
    else:
        f = x0 + spins * b if ceiling is None else max(x0 + 1, -(-_int(ceiling, "the ceiling", 1) // g))
        top = f + spins * b
    if top > MAX_GRID:
        msg = (f"the session needs a bankroll grid of {top:,} points of {g} credit(s) (at most {MAX_GRID:,}): "
               "play fewer spins, give a stop-win target, or a lower final-distribution ceiling")
        raise ModelError(msg)
    units = v // g

    def run(below: int | None) -> ChainRun:
        law = lattice_law(units, p, top, below=below)
        if stop_win is not None or solver == "plain":
            return run_plain(law, b, x0, spins, top, stop=stop_win is not None)
        return run_blocked(law, b, x0, spins, f)

    main = run(None)
    error = main.error  # every probability comes from one chain: the worst chain bounds them all
    big: dict[int, float] = {}
    for k in ks:
        q = math.fsum(p[units >= k * b].tolist())
        if q == 0.0:
            big[k] = 0.0
            continue
        chain = run(k * b)  # the sessions that have not seen such a win
        big[k] = q * math.fsum(chain.alive[:-1].tolist())
        error = max(error, chain.error)
    spins_played = math.fsum(main.alive[:-1].tolist())
    defect = abs(1.0 - math.fsum(p.tolist()) - lost_mass)
    nz = np.flatnonzero(main.final > 0)
    mean_win = math.fsum((v * p).tolist()) / max(math.fsum(p.tolist()), 1e-300)
    return SessionLaw(
        bet=bet, bankroll=bankroll, spins=spins, stop_win=stop_win, ceiling=f * g, unit=g,
        survival=main.alive, final_values=nz.astype(np.int64) * g, final_probs=main.final[nz],
        above=main.above, above_mean=main.above_m1 / main.above * g if main.above > 0 else math.nan,
        big_wins=big, mean_win=mean_win, truncated_mass=lost_mass * spins_played,
        error_bound=error + defect * spins_played, defect=main.defect,
        method=weakest(method, "markov"), solver="plain" if stop_win is not None or solver == "plain" else "blocked",
        seconds=time.perf_counter() - start)
