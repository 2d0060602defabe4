"""What a simulation found: exact sums, and the estimates, intervals and agreement checks read from them.

The result, :class:`SimResult`, holds exact integer sums; RTP by component
with standard errors and 95%/99% intervals, hit and feature frequencies with
Wilson intervals, σ and a convergence trace are read from them, and
:meth:`SimResult.agrees` checks exact figures supplied by the caller:
``|sim − exact| ≤ z·σ/√N``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import UnknownNameError

__all__ = ["TAILS", "Z95", "Z99", "Estimate", "GambleResult", "Proportion", "SimResult"]

Z95 = 1.959963984540054
Z99 = 2.5758293035489004
TAILS = (10, 100, 1000)


def _z(level: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(0.5 + level / 2))


def _z_for(level: float) -> float:
    """Two-sided normal quantile for ``level`` (the printed constants at 95% and 99%)."""
    return Z99 if level == 0.99 else Z95 if level == 0.95 else _z(level)


class _Intervals:
    """``ci95`` and ``ci99`` from a class's ``interval(level)``."""

    def interval(self, level: float = 0.99) -> tuple[float, float]:
        raise NotImplementedError

    @property
    def ci95(self) -> tuple[float, float]:
        return self.interval(0.95)

    @property
    def ci99(self) -> tuple[float, float]:
        return self.interval(0.99)


@dataclass(frozen=True)
class Estimate(_Intervals):
    """A simulated mean with its standard error (``value ± z·se``)."""

    value: float
    se: float

    def interval(self, level: float = 0.99) -> tuple[float, float]:
        z = _z_for(level)
        return (self.value - z * self.se, self.value + z * self.se)


@dataclass(frozen=True)
class Proportion(_Intervals):
    """``hits`` out of ``n`` trials, with Wilson score intervals.

    Examples
    --------
    >>> p = Proportion(30, 100)
    >>> p.value, [round(x, 4) for x in p.ci95]
    (0.3, [0.2189, 0.3958])
    """

    hits: int
    n: int

    @property
    def value(self) -> float:
        return self.hits / self.n if self.n else math.nan

    @property
    def one_in(self) -> float:
        return self.n / self.hits if self.hits else math.inf

    def interval(self, level: float = 0.99) -> tuple[float, float]:
        z = _z_for(level)
        n, p = self.n, self.value
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (centre - half, centre + half)


@dataclass(frozen=True)
class GambleResult:
    """What the gamble strategy did, beside the RTP (never in it).

    ``return_ratio`` is credits returned per credit staked (1 for fair options);
    ``rtp`` the return per bet of whole plays with the gamble.
    """

    strategy: str
    offered: int
    rounds: int
    won: int
    staked: int
    returned: int
    return_ratio: Estimate
    rtp: Estimate


@dataclass(frozen=True)
class SimResult:
    """A simulation's exact sums and the statistics read from them.

    ``sums`` holds integer totals in credits over all plays: ``line``, ``scatter``,
    ``free`` (every sequence feature), ``cut`` (what the cap took), ``paid`` and their sums
    of squares (``*_sq``), each further component's as ``component:NAME`` (and ``_sq``), and
    counts (``hits``, ``hits_bet``, ``hits_10x`` ..., ``triggers`` — base spins that start a
    feature —, ``free_spins`` and ``retriggers`` over every feature, ``cap_hits``, ``max``,
    and per sequence feature ``FEATURE:entered``, ``FEATURE:spins`` and its tallies such as
    ``FEATURE:retriggers``); ``moments`` the float sums of the paid win's third and fourth
    powers (for the standard error of σ only).  ``features`` names the sequence features.
    ``trace`` is the convergence trace: ``(plays, RTP so far)`` at block ends, every block
    up to 200 of them, else 200 spaced geometrically — so it too does not depend on how
    the run was split.  Two runs with the same seed compare equal, however they were
    split (``seconds`` is not compared).  ``seconds`` times the plays only: loading the
    compiled kernels (or compiling them, before the install-time warm-up) comes before
    the clock starts and is ``ready_seconds`` (one process; NaN on Dask, whose workers
    load their own), so :attr:`spins_per_second` is the playing rate.
    """

    game: str
    spins: int
    total_bet: int
    components: tuple[str, ...]
    sums: Mapping[str, int]
    moments: tuple[float, float]
    trace: tuple[tuple[int, float], ...]
    block: int
    seed: tuple[Any, tuple[int, ...]]
    bit_generator: str = "PCG64"
    gamble: GambleResult | None = None
    seconds: float = field(default=math.nan, compare=False)
    features: tuple[str, ...] = ()
    ready_seconds: float = field(default=math.nan, compare=False)
    ran: str = field(default="", compare=False)
    """Where the plays ran and why (:func:`mathkit.sim.cluster.map_chunks`)."""

    # --- RTP ---------------------------------------------------------------------------
    def _estimate(self, total: int, squares: int) -> Estimate:
        n, bet = self.spins, self.total_bet
        mean = total / n
        var = max(squares / n - mean * mean, 0.0)
        return Estimate(mean / bet, math.sqrt(var / n) / bet)

    @property
    def rtp(self) -> Estimate:
        """Return to player of whole plays (cap applied, gamble not), per total bet."""
        return self._estimate(self.sums["paid"], self.sums["paid_sq"])

    @property
    def sd(self) -> float:
        """σ of a play's win per total bet."""
        return self.rtp.se * math.sqrt(self.spins)

    def component(self, name: str) -> Estimate:
        """RTP of one component: ``lines``/``ways``, ``scatter``, a feature's (``free spins`` ...), ``cap`` (≤ 0)."""
        key = {"lines": "line", "ways": "line", "scatter": "scatter", "cap": "cut"}.get(name, f"component:{name}")
        if name not in self.components or key not in self.sums:
            msg = f"no component {name!r}: {', '.join(self.components)}"
            raise UnknownNameError(msg)
        est = self._estimate(self.sums[key], self.sums[f"{key}_sq"])
        return Estimate(-est.value, est.se) if name == "cap" else est

    @property
    def breakdown(self) -> dict[str, Estimate]:
        """RTP per component; the values add up to :attr:`rtp`."""
        return {c: self.component(c) for c in self.components}

    # --- frequencies --------------------------------------------------------------------
    @property
    def hit_frequency(self) -> Proportion:
        """Plays that win anything."""
        return Proportion(self.sums["hits"], self.spins)

    @property
    def hit_frequency_bet(self) -> Proportion:
        """Plays that win at least the total bet."""
        return Proportion(self.sums["hits_bet"], self.spins)

    @property
    def trigger_frequency(self) -> Proportion:
        """Base spins that start a feature (the free spins, in a game with one feature)."""
        return Proportion(self.sums["triggers"], self.spins)

    def entered(self, feature: str) -> Proportion:
        """Rounds that play sequence feature ``feature`` (entries per round, for a feature entered at most once)."""
        if feature not in self.features:
            msg = f"no feature {feature!r}: {', '.join(self.features) or 'the game has none'}"
            raise UnknownNameError(msg)
        return Proportion(self.sums[f"{feature}:entered"], self.spins)

    def mean_length(self, feature: str) -> Estimate:
        """Spins played per entry of sequence feature ``feature``, with its standard error (from each entry's spins)."""
        n = self.entered(feature).hits
        if n == 0:
            return Estimate(math.nan, math.nan)
        mean = self.sums[f"{feature}:spins"] / n
        var = max(self.sums[f"{feature}:spins_sq"] / n - mean * mean, 0.0)
        return Estimate(mean, math.sqrt(var / n))

    @property
    def tallies(self) -> tuple[str, ...]:
        """The counters the features' actions keep (``FEATURE:TALLY``: ``free games:retriggers``, ``cash stacks:plays``)."""
        return tuple(k for k in self.sums if ":" in k and not k.startswith("component:") and not k.endswith("_sq")
                     and k.rsplit(":", 1)[1] not in ("entered", "spins"))

    def _denominator(self, name: str) -> int:
        """The trials of a frequency figure: plays, or a sequence feature's entries (``per_entry:FEATURE:TALLY``)."""
        if name.startswith("per_entry:"):
            return self.entered(name.split(":")[1]).hits
        return self.spins

    @property
    def tails(self) -> dict[int, Proportion]:
        """Plays that win at least 10×, 100×, 1000× the total bet."""
        return {m: Proportion(self.sums[f"hits_{m}x"], self.spins) for m in TAILS}

    @property
    def cap_frequency(self) -> Proportion:
        """Plays that reach the cap."""
        return Proportion(self.sums["cap_hits"], self.spins)

    @property
    def mean_free_spins(self) -> float:
        """Feature spins played per base spin that starts a feature."""
        return self.sums["free_spins"] / self.sums["triggers"] if self.sums["triggers"] else math.nan

    @property
    def max_win(self) -> float:
        """The largest paid win seen, × total bet."""
        return self.sums["max"] / self.total_bet

    @property
    def spins_per_second(self) -> float:
        return self.spins / self.seconds if self.seconds > 0 else math.nan

    # --- agreement with exact figures -----------------------------------------------------
    def figures(self) -> dict[str, float]:
        """Every figure :meth:`agrees` can check, by name."""
        out = {"rtp": self.rtp.value, **{c: e.value for c, e in self.breakdown.items()},
               "hit_frequency": self.hit_frequency.value, "hit_frequency_bet": self.hit_frequency_bet.value,
               "sd": self.sd}
        out |= {f"p_{m}x": p.value for m, p in self.tails.items()}
        if self.features:
            out["trigger_probability"] = self.trigger_frequency.value
            out |= {f"p_enter:{f}": self.entered(f).value for f in self.features}
            out |= {f"mean_length:{f}": self.mean_length(f).value for f in self.features}
        for t in self.tallies:  # (each a frequency when the action counts at most once per play, or per entry)
            out[f"per_round:{t}"] = self.sums[t] / self.spins
            f = t.rsplit(":", 1)[0]
            if f in self.features:
                n = self.entered(f).hits
                out[f"per_entry:{t}"] = self.sums[t] / n if n else math.nan
        if "cap" in self.components:
            out["p_cap"] = self.cap_frequency.value
        return out

    def _sd_se(self) -> float:
        """Delta-method standard error of :attr:`sd` (from the third and fourth moments)."""
        n, bet = self.spins, self.total_bet
        m1 = self.sums["paid"] / n
        m2 = self.sums["paid_sq"] / n
        m3, m4 = self.moments[0] / n, self.moments[1] / n
        mu4 = m4 - 4 * m1 * m3 + 6 * m1 * m1 * m2 - 3 * m1**4
        var = max(m2 - m1 * m1, 0.0)
        if var == 0:
            return 0.0
        return math.sqrt(max(mu4 - var * var, 0.0) / n) / (2 * math.sqrt(var)) / bet

    def tolerance(self, name: str, exact: float, sd: float | None = None, level: float = 0.99) -> float:
        """``z·σ/√N`` for figure ``name``: σ is ``sd`` when given, else the simulated σ of an RTP
        figure (of the whole play for a component the sample never saw), the delta-method
        σ of ``sd``, the spread of each entry's spins for a mean length (``mean_length:FEATURE``),
        or ``√(p(1−p))`` with the exact ``p`` for a frequency (over the plays, or over a feature's
        entries for ``per_entry:FEATURE:TALLY``)."""
        z = _z_for(level)
        n = self.spins
        if sd is not None:
            return z * sd / math.sqrt(n)
        if name == "rtp":
            return z * self.rtp.se
        if name in self.components:  # a component never seen in the sample gets the whole play's σ
            return z * (self.component(name).se or self.rtp.se)
        if name == "sd":
            return z * self._sd_se()
        if name.startswith("mean_length:"):
            return z * self.mean_length(name.split(":", 1)[1]).se
        if name in self.figures():
            p = min(max(exact, 0.0), 1.0)
            n = self._denominator(name)
            return z * math.sqrt(p * (1 - p) / n) if n else math.inf
        msg = f"no simulated figure {name!r}: {', '.join(self.figures())}"
        raise UnknownNameError(msg)

    def checks(self, exact: Mapping[str, float], sd: float | Mapping[str, float] | None = None,
               level: float = 0.99) -> dict[str, dict[str, Any]]:
        """Per exact figure: simulated value, exact value, tolerance and agreement.

        ``sd`` is σ per total bet (exact, from the caller) for ``"rtp"``, or σ by figure name.
        """
        sim = self.figures()
        out: dict[str, dict[str, Any]] = {}
        for name, x in exact.items():
            if name not in sim:
                msg = f"no simulated figure {name!r}: {', '.join(sim)}"
                raise UnknownNameError(msg)
            s = sd.get(name) if isinstance(sd, Mapping) else sd if name == "rtp" else None
            tol = self.tolerance(name, float(x), s, level)
            sigma = tol / _z_for(level)  # σ/√N of the figure
            z = (sim[name] - float(x)) / sigma if sigma > 0 else (0.0 if sim[name] == float(x) else math.inf)
            out[name] = {"sim": sim[name], "exact": float(x), "tolerance": tol, "z": z,
                         "ci99": [sim[name] - Z99 * sigma, sim[name] + Z99 * sigma],
                         "agrees": bool(abs(sim[name] - float(x)) <= tol)}
        return out

    @staticmethod
    def joint_level(k: int, level: float = 0.99) -> float:
        """The level each of ``k`` figures is checked at so that all of them hold jointly at ``level`` (Bonferroni).

        Examples
        --------
        >>> SimResult.joint_level(10)
        0.999
        """
        return 1 - (1 - level) / max(k, 1)

    def agrees(self, exact: Mapping[str, float], sd: float | Mapping[str, float] | None = None,
               level: float = 0.99) -> dict[str, bool]:
        """Whether each exact figure lies within ``z·σ/√N`` of the simulation (z for ``level``)."""
        return {k: bool(v["agrees"]) for k, v in self.checks(exact, sd, level).items()}

    # --- export ------------------------------------------------------------------------
    def to_dict(self, exact: Mapping[str, float] | None = None,
                sd: float | Mapping[str, float] | None = None,
                methods: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The figures as plain JSON-ready data; with ``exact`` figures, their checks too.

        The checks hold jointly at 99%: each of the ``k`` figures at ``1 − 0.01/k`` (Bonferroni,
        ``joint_level``), its tolerance at that level; each also shows its z-score, the simulated
        99% interval and, from ``methods``, how the exact figure was obtained (exact / markov).
        """

        def est(e: Estimate) -> dict[str, Any]:
            return {"rtp": e.value, "se": e.se, "ci95": list(e.ci95), "ci99": list(e.ci99)}

        def prop(p: Proportion) -> dict[str, Any]:
            return {"value": p.value, "one_in": p.one_in, "ci95": list(p.ci95), "ci99": list(p.ci99)}

        out: dict[str, Any] = {
            "game": self.game, "spins": self.spins, "total_bet": self.total_bet,
            "rtp": self.rtp.value, "se": self.rtp.se, "ci95": list(self.rtp.ci95), "ci99": list(self.rtp.ci99),
            "sd": self.sd, "seconds": self.seconds, "spins_per_second": self.spins_per_second,
            "kernels_ready_seconds": None if math.isnan(self.ready_seconds) else self.ready_seconds,
            "ran": self.ran,
            "breakdown": {c: est(e) for c, e in self.breakdown.items()},
            "hit_frequency": prop(self.hit_frequency), "hit_frequency_bet": prop(self.hit_frequency_bet),
            "tails": {f"{m}x": prop(p) for m, p in self.tails.items()},
            "max_win": self.max_win,
            "seed": {"entropy": self.seed[0], "spawn_key": list(self.seed[1]), "block": self.block,
                     "bit_generator": self.bit_generator},
            "trace": [list(t) for t in self.trace],
        }
        if self.features:
            out["free_spins"] = {"trigger": prop(self.trigger_frequency), "mean_spins": self.mean_free_spins,
                                 "retriggers": self.sums["retriggers"]}
            out["features"] = {f: {"entered": prop(self.entered(f)), "spins": self.sums[f"{f}:spins"],
                                   **{k.split(":", 1)[1]: v for k, v in self.sums.items()
                                      if k.startswith(f"{f}:") and k not in (f"{f}:entered", f"{f}:spins")}}
                               for f in self.features}
        if "cap" in self.components:
            out["cap"] = prop(self.cap_frequency)
        if self.gamble is not None:
            g = self.gamble
            out["gamble"] = {"strategy": g.strategy, "offered": g.offered, "rounds": g.rounds, "won": g.won,
                             "return_ratio": est(g.return_ratio), "rtp_with_gamble": est(g.rtp)}
        if exact is not None:
            level = self.joint_level(len(exact))
            checks = self.checks(exact, sd, level)
            for name, c in checks.items():
                if methods and name in methods:
                    c["method"] = methods[name]
            out["checks"] = checks
            out["joint_level"] = level
            out["agrees_with_exact"] = all(bool(c["agrees"]) for c in checks.values())
        else:
            out["agrees_with_exact"] = None
        return out

    def to_json(self, exact: Mapping[str, float] | None = None, sd: float | Mapping[str, float] | None = None,
                indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(exact, sd), indent=indent, default=float)
