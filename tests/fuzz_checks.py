"""The invariants the fuzz suite (``tests/fuzz.py``) checks on every accepted mutant.

Each check returns the list of what it found violated (empty: all hold):

* :func:`check_sheet`: any PAR sheet — the components sum to the RTP (exactly where every one
  is exact), each is finite and ≥ 0 (the cap's ≤ 0), the RTP finite and ≥ 0, every probability
  in [0, 1] (the paytable's and the sections'), σ ≥ 0, the cycle the reel set's; and a whole sheet
  (:func:`check_par`) its distribution against its figures;
* :func:`check_brute`: the base spin of a small game equal to the brute-force evaluator;
* :func:`check_json`: the sheet's ``--json`` strict — no ``NaN`` or ``Infinity`` even before the
  safety net of :mod:`mathkit.report.strict`;
* :func:`check_monotone`: the RTP does not fall when a pay rises by one credit;
* :func:`check_simulation`: the simulator's RTP and hit frequency within a distribution-free
  interval of the exact ones (Bernstein and Hoeffding: a correct simulator fails a case with
  probability at most ``ALPHA``).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

__all__ = ["ALPHA", "BRUTE_MAX", "check_brute", "check_json", "check_monotone", "check_par", "check_sheet",
           "check_simulation", "strict_loads"]

BRUTE_MAX = 30_000
"""Outcomes × lines up to which the base spin is compared with the brute-force evaluator."""
ALPHA = 5e-7
"""The most often a correct simulator fails one check: over 10,000 cases of two checks each, at most 1% (union
bound) of runs see one fail by chance."""


def _close(a: float, b: float, tol: float = 1e-9) -> bool:
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def _refuse(word: str) -> None:
    msg = f"not JSON: {word}"
    raise ValueError(msg)


def strict_loads(text: str) -> Any:
    """``text`` parsed as strict JSON: ``NaN``, ``Infinity`` and ``-Infinity`` are refused (a ``ValueError``)."""
    return json.loads(text, parse_constant=_refuse)


def check_sheet(par: Any) -> list[str]:
    """The invariants of any PAR sheet (a whole :class:`~mathkit.report.par.ParSheet` or one of the means)."""
    from mathkit.report.par import ParSheet

    bad: list[str] = []
    comps = par.components
    if par.rtp.exact is not None and all(f.exact is not None for f in comps.values()):
        if sum(f.exact for f in comps.values()) != par.rtp.exact:
            bad.append("breakdown does not sum to the RTP exactly")
    elif not _close(math.fsum(f.value for f in comps.values()), par.rtp.value, 1e-9):
        bad.append("breakdown does not sum to the RTP")
    for name, f in comps.items():
        if not math.isfinite(f.value) or (f.value < -1e-12 if name != "cap" else f.value > 1e-12):
            bad.append(f"component {name} = {f.value}")
    if not (math.isfinite(par.rtp.value) and par.rtp.value >= 0):
        bad.append(f"RTP {par.rtp.value}")
    probs = [(f"P({e.count} × {e.entry}) per {e.per}", e.probability) for e in par.entries]
    for section in par.features:
        probs += [(f"{section.name}: {n}", f) for n, f in section.figures if n.startswith("P(") or "probability" in n]
    for name, f in probs:
        if not (0 <= f.value <= 1 + 1e-12):
            bad.append(f"{name} = {f.value} outside [0, 1]")
    if par.sd_moments is not None and not (math.isfinite(par.sd_moments.value) and par.sd_moments.value >= 0):
        bad.append(f"σ = {par.sd_moments.value}")
    if par.cycle != par.game.reel_set(par.reels).cycle:
        bad.append("cycle differs from the reel set's")
    return bad + (check_par(par) if isinstance(par, ParSheet) else [])


def check_par(par: Any) -> list[str]:
    """The invariants of a whole PAR sheet: its figures against its distribution."""
    bad: list[str] = []
    bet = par.total_bet
    probs = [("hit frequency", par.hit_frequency), ("hit frequency ≥ bet", par.hit_frequency_bet),
             ("P(max win)", par.max_win_probability), *((f"P(win ≥ {m}× bet)", f) for m, f in par.tails.items())]
    for name, f in probs:
        if not (0 <= f.value <= 1 + 1e-12):
            bad.append(f"{name} = {f.value} outside [0, 1]")
    if not (math.isfinite(par.sd.value) and par.sd.value >= 0):
        bad.append(f"σ = {par.sd.value}")
    d = par.distribution
    p = d.probs
    if (d.values < 0).any() or (p < 0).any():
        bad.append("negative win or probability in the distribution")
    if not _close(float(p.sum()) + d.lost_mass, 1.0, 1e-9):
        bad.append(f"distribution sums to {float(p.sum())} + lost {d.lost_mass}")
    if not _close(par.max_win.value, d.max_win / bet, 1e-12):
        bad.append(f"max win {par.max_win.value} is not the distribution's top {d.max_win / bet}")
    cap = par.cap.value if par.cap is not None else math.inf
    for e in par.entries:
        if e.hits and min(e.pay / bet, cap) > par.max_win.value * (1 + 1e-12):
            bad.append(f"max win {par.max_win.value} below the pay of {e.count} × {e.entry} ({e.pay / bet})")
        if e.hits and e.probability.value > par.hit_frequency.value * (1 + 1e-9):  # P(a line pays it) ≤ P(a spin pays)
            bad.append(f"hit frequency {par.hit_frequency.value} below P({e.count} × {e.entry}) per {e.per}")
    if not _close(float(d.hit_frequency()), par.hit_frequency.value, 1e-12):
        bad.append("hit frequency differs from the distribution's P(win > 0)")
    if not _close(float(d.sf(bet)), par.hit_frequency_bet.value, 1e-12):
        bad.append("hit frequency ≥ bet differs from the distribution")
    if d.exact and par.rtp.exact is not None and d.rtp() != par.rtp.exact:
        bad.append("the exact distribution's mean is not the RTP")
    elif not d.exact and d.lost_mass == 0 and not _close(float(d.rtp()), par.rtp.value, 1e-6):
        bad.append(f"the distribution's mean {float(d.rtp())} is not the RTP {par.rtp.value}")
    return bad


def check_brute(par: Any) -> list[str]:
    """The base spin of a small game against the brute-force evaluator (hits, credits, distribution)."""
    from brute import brute_force

    game, base = par.game, par.base
    if base.cycle * max(base.lines, 1) > BRUTE_MAX:
        return []
    b = brute_force(game, base.reels, lines=base.lines, coins=base.coins)
    bad = []
    if base.components.cycle != b.cycle or base.rtp() != b.rtp():
        bad.append(f"base RTP {base.rtp()} differs from brute force {b.rtp()}")
    got = {w: int(c) for w, c in zip(base.win_distribution.values.tolist(), base.win_distribution.weights.tolist(),
                                     strict=True)}
    if got != {w: c for w, c in b.distribution.items() if c}:
        bad.append("base win distribution differs from brute force")
    return bad


def check_json(par: Any) -> list[str]:
    """The sheet's JSON (:func:`~mathkit.report.text.par_to_dict`) strict as rendered, and as ``--json`` prints it."""
    from mathkit.report.strict import dumps
    from mathkit.report.text import par_to_dict

    d = par_to_dict(par)
    bad = []
    for label, text in (("as rendered", json.dumps(d)), ("as printed", dumps(d, indent=2))):
        try:
            strict_loads(text)
        except ValueError as exc:
            bad.append(f"invalid JSON {label}: {exc}")
    return bad


def check_monotone(before: Fraction | float, raised: Any, what: str, *, exact: bool = True) -> list[str]:
    """The RTP of ``raised`` (the game with a pay one credit higher, :func:`fuzz_mutate.raise_pay`) is not below
    ``before``; with ``exact`` false the raised game's RTP is the float quick view (``rel 1e-12`` of the exact)."""
    from mathkit.round import analyse

    after = analyse(raised, level="mean", precision="exact" if exact else "float", sections=False).rtp()
    both = isinstance(before, Fraction) and isinstance(after, Fraction)
    if (after < before) if both else (float(after) < float(before) * (1 - 1e-11) - 1e-15):
        return [f"RTP fell from {float(before)} to {float(after)} when {what}"]
    return []


def bernstein(n: int, variance: float, top: float, alpha: float = ALPHA) -> float:
    """Half-width ``t`` with ``P(|mean of n − μ| ≥ t) ≤ alpha`` for wins in [0, ``top``] of variance ``variance``.

    Bernstein's inequality ``P(|X̄ − μ| ≥ t) ≤ 2 exp(−n t² / (2σ² + 2 top t / 3))`` solved for ``t``: no normal
    approximation, so a rare large win cannot make a correct simulation fail more often than ``alpha``.
    """
    lg = math.log(2 / alpha)
    b = 2 * lg * top / 3
    return (b + math.sqrt(b * b + 8 * n * lg * variance)) / (2 * n)


def _truncated(par: Any, rounds: int) -> tuple[float, float, float] | None:
    """A win level ``x`` (× bet) that ``rounds`` rounds all stay at or below with probability ``≥ 1 − ALPHA/2``,
    and the mean and variance of ``min(W, x)``, from the sheet's exact distribution (``None`` without one, or with
    truncated mass: its tail is then unknown)."""
    import numpy as np

    d = getattr(par, "distribution", None)
    if d is None or d.lost_mass:
        return None
    w = d.values.astype(np.float64) / par.total_bet
    p = d.probs
    above = np.concatenate([np.cumsum(p[::-1])[::-1][1:], [0.0]])  # P(W > w_i)
    k = int(np.argmax(rounds * above <= ALPHA / 2))
    x = float(w[k])
    cut = np.minimum(w, x)
    mean = float((cut * p).sum())
    return x, mean, max(float((cut * cut * p).sum()) - mean * mean, 0.0)


def check_simulation(par: Any, rounds: int, seed: int) -> tuple[list[str], str]:
    """The simulator (:func:`mathkit.sim.run.simulate`, sharing nothing with the exact engine but the game and the
    line rule) against the sheet, each check failing a correct simulator with probability at most ``ALPHA``.

    With the round's exact distribution: a level ``x`` no round passes but with probability ``ALPHA/2``
    (:func:`_truncated`), and the simulated RTP inside Bernstein's interval (at ``ALPHA/2``) around the exact mean
    of ``min(W, x)``; the hit frequency inside Hoeffding's.  Without it (a sheet of the means or moments): the
    cap bounds the wins, σ² is the sheet's or at most ``cap × RTP``.  Returns the violations and what was checked
    (or why not).
    """
    from mathkit.errors import GameError, LimitError, ModelError
    from mathkit.sim.run import simulate

    cut = _truncated(par, rounds)
    if cut is not None:
        top, mu, var = cut
        t = bernstein(rounds, var, top, ALPHA / 2)
    else:
        cap = par.cap.value if par.cap is not None else None
        if cap is None or not math.isfinite(cap):
            return [], "sim: no distribution and no cap"
        mu = par.rtp.value
        sd = par.sd_moments.value if par.sd_moments is not None else None
        t = bernstein(rounds, sd * sd if sd is not None else cap * mu, cap)
    try:
        res = simulate(par.game, rounds, seed=seed, reels=par.reels, progress=False)
    except (GameError, ModelError, LimitError) as exc:
        return [], f"sim: refused ({type(exc).__name__})"
    bad = []
    if abs(res.rtp.value - mu) > t:
        bad.append(f"simulated RTP {res.rtp.value:.6f} outside {mu:.6f} ± {t:.6f} ({rounds:,} rounds, seed {seed})")
    if cut is not None:
        h = math.sqrt(math.log(2 / ALPHA) / (2 * rounds))
        if abs(res.hit_frequency.value - par.hit_frequency.value) > h:
            bad.append(f"simulated hit frequency {res.hit_frequency.value:.6f} outside exact "
                       f"{par.hit_frequency.value:.6f} ± {h:.6f}")
    return bad, "sim: checked" + (" (distribution)" if cut is not None else " (cap)")
