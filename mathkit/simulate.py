"""The literal player: a Monte Carlo simulation of a game's rules, independent of the exact engine.

:func:`simulate` plays whole games as a player would: it draws every reel's stop
(uniform, or by weight for virtual stops) from generators seeded by the
injected ``numpy.random.Generator``, values the window with the shared pay
rules of :mod:`mathkit.evaluate`, and plays the declared features turn by
turn — free spins awarded by the trigger count, retriggers adding spins up to
``max_spins``, the free-spin multiplier on line wins (and on scatter wins when
``multiply_scatter``), the cap on the whole play (base spin plus its feature;
the play ends once the cap is reached) and, optionally, the gamble by a
strategy on each play's paid win once its feature is over, reported beside the
RTP and never in it.  It shares only the game model and the window evaluation
with the exact engine: none of its tables, algebra or Markov chains
(:mod:`mathkit.rtp`, :mod:`mathkit.exact`, :mod:`mathkit.markov` ... are not
imported; the one exception is the command line's :func:`exact_figures`, which
reads the PAR sheet lazily, after the simulation, to compare with it).

The result, :class:`SimResult`, holds exact integer sums; RTP by component
with standard errors and 95%/99% intervals, hit and feature frequencies with
Wilson intervals, σ and a convergence trace are read from them, and
:meth:`SimResult.agrees` checks exact figures supplied by the caller:
``|sim − exact| ≤ z·σ/√N``.

Reproducible: a run is a fixed list of blocks of :data:`BLOCK` plays, block
``b`` seeded by the ``b``-th child of one ``SeedSequence`` spawned from the
generator (see :mod:`mathkit.dask_runner`), so a seed gives the same result
in one process or on any number of Dask workers, whatever the chunk size.

Examples
--------
>>> from mathkit.io import load_game
>>> res = simulate(load_game("data/games/classic_3reel.toml"), 100_000, seed=1)
>>> res.spins, 0.7 < res.rtp.value < 1.0
(100000, True)
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from . import sim_kernels as K
from .dask_runner import (
    G_OFFERED,
    G_RETURNED,
    G_ROUNDS,
    G_STAKED,
    G_TOTAL,
    G_WON,
    GF_AA,
    GF_AB,
    GF_BB,
    GF_TT,
    BlockSums,
    GamblePlan,
    map_chunks,
    run_blocks,
)
from .errors import ModelError
from .game import Game
from .io import load_game

__all__ = [
    "BLOCK",
    "Z95",
    "Z99",
    "Estimate",
    "GambleResult",
    "GambleStrategy",
    "Proportion",
    "SimResult",
    "cli",
    "run",
    "simulate",
    "simulate_cli",
]

BLOCK = 1 << 16
"""Plays per block, the unit of randomness (part of what a seed reproduces)."""
CHUNK = 1 << 22
"""Default plays per task (a whole number of blocks); any chunk gives the same result."""
Z95 = 1.959963984540054
Z99 = 2.5758293035489004
TAILS = (10, 100, 1000)
_TRACE_POINTS = 200


def _z(level: float) -> float:
    from scipy.stats import norm

    return float(norm.ppf(0.5 + level / 2))


@dataclass(frozen=True)
class Estimate:
    """A simulated mean with its standard error (``value ± z·se``)."""

    value: float
    se: float

    def interval(self, level: float = 0.99) -> tuple[float, float]:
        z = Z99 if level == 0.99 else Z95 if level == 0.95 else _z(level)
        return (self.value - z * self.se, self.value + z * self.se)

    @property
    def ci95(self) -> tuple[float, float]:
        return self.interval(0.95)

    @property
    def ci99(self) -> tuple[float, float]:
        return self.interval(0.99)


@dataclass(frozen=True)
class Proportion:
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
        z = Z99 if level == 0.99 else Z95 if level == 0.95 else _z(level)
        n, p = self.n, self.value
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (centre - half, centre + half)

    @property
    def ci95(self) -> tuple[float, float]:
        return self.interval(0.95)

    @property
    def ci99(self) -> tuple[float, float]:
        return self.interval(0.99)


@dataclass(frozen=True)
class GambleStrategy:
    """Gamble every offered win on ``option``; with a ``target``, only while the amount is below it.

    ``limit_on`` reads the game's gamble limit on the amount staked (``"stake"``) or
    on what the gamble would pay (``"win"``).  Objects with ``option`` (and
    ``target``) attributes, such as :mod:`mathkit.gamble`'s strategies, work too.
    """

    option: str
    target: int | None = None
    limit_on: Literal["stake", "win"] = "stake"


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
    ``free``, ``cut`` (what the cap took), ``paid`` and their sums of squares
    (``*_sq``), and counts (``hits``, ``hits_bet``, ``hits_10x`` ..., ``triggers``,
    ``free_spins``, ``retriggers``, ``cap_hits``, ``max``); ``moments`` the float sums of
    the paid win's third and fourth powers (for the standard error of σ only).
    ``trace`` is the convergence trace: ``(plays, RTP so far)`` at block ends, every block
    up to 200 of them, else 200 spaced geometrically — so it too does not depend on how
    the run was split.  Two runs with the same seed compare equal, however they were
    split (``seconds`` is not compared).
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
        """RTP of one component: ``lines``/``ways``, ``scatter``, ``free spins``, ``cap`` (≤ 0)."""
        key = {"lines": "line", "ways": "line", "scatter": "scatter", "free spins": "free", "cap": "cut"}.get(name)
        if key is None or name not in self.components:
            msg = f"no component {name!r}: {', '.join(self.components)}"
            raise KeyError(msg)
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
        """Base spins that trigger the free spins."""
        return Proportion(self.sums["triggers"], self.spins)

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
        """Free spins played per trigger."""
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
        if "free spins" in self.components:
            out["trigger_probability"] = self.trigger_frequency.value
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
        σ of ``sd``, or ``√(p(1−p))`` with the exact ``p`` for a frequency."""
        z = Z99 if level == 0.99 else Z95 if level == 0.95 else _z(level)
        n = self.spins
        if sd is not None:
            return z * sd / math.sqrt(n)
        if name == "rtp":
            return z * self.rtp.se
        if name in self.components:  # a component never seen in the sample gets the whole play's σ
            return z * (self.component(name).se or self.rtp.se)
        if name == "sd":
            return z * self._sd_se()
        if name in self.figures():
            p = min(max(exact, 0.0), 1.0)
            return z * math.sqrt(p * (1 - p) / n)
        msg = f"no simulated figure {name!r}: {', '.join(self.figures())}"
        raise KeyError(msg)

    def checks(self, exact: Mapping[str, float], sd: float | Mapping[str, float] | None = None,
               level: float = 0.99) -> dict[str, dict[str, float | bool]]:
        """Per exact figure: simulated value, exact value, tolerance and agreement.

        ``sd`` is σ per total bet (exact, from the caller) for ``"rtp"``, or σ by figure name.
        """
        sim = self.figures()
        out: dict[str, dict[str, float | bool]] = {}
        for name, x in exact.items():
            if name not in sim:
                msg = f"no simulated figure {name!r}: {', '.join(sim)}"
                raise KeyError(msg)
            s = sd.get(name) if isinstance(sd, Mapping) else sd if name == "rtp" else None
            tol = self.tolerance(name, float(x), s, level)
            out[name] = {"sim": sim[name], "exact": float(x), "tolerance": tol,
                         "agrees": bool(abs(sim[name] - float(x)) <= tol)}
        return out

    def agrees(self, exact: Mapping[str, float], sd: float | Mapping[str, float] | None = None,
               level: float = 0.99) -> dict[str, bool]:
        """Whether each exact figure lies within ``z·σ/√N`` of the simulation (z for ``level``)."""
        return {k: bool(v["agrees"]) for k, v in self.checks(exact, sd, level).items()}

    # --- export ------------------------------------------------------------------------
    def to_dict(self, exact: Mapping[str, float] | None = None,
                sd: float | Mapping[str, float] | None = None) -> dict[str, Any]:
        """The figures as plain JSON-ready data; with ``exact`` figures, their checks too."""

        def est(e: Estimate) -> dict[str, Any]:
            return {"rtp": e.value, "se": e.se, "ci95": list(e.ci95), "ci99": list(e.ci99)}

        def prop(p: Proportion) -> dict[str, Any]:
            return {"value": p.value, "one_in": p.one_in, "ci95": list(p.ci95), "ci99": list(p.ci99)}

        out: dict[str, Any] = {
            "game": self.game, "spins": self.spins, "total_bet": self.total_bet,
            "rtp": self.rtp.value, "se": self.rtp.se, "ci95": list(self.rtp.ci95), "ci99": list(self.rtp.ci99),
            "sd": self.sd, "seconds": self.seconds, "spins_per_second": self.spins_per_second,
            "breakdown": {c: est(e) for c, e in self.breakdown.items()},
            "hit_frequency": prop(self.hit_frequency), "hit_frequency_bet": prop(self.hit_frequency_bet),
            "tails": {f"{m}x": prop(p) for m, p in self.tails.items()},
            "max_win": self.max_win,
            "seed": {"entropy": self.seed[0], "spawn_key": list(self.seed[1]), "block": self.block,
                     "bit_generator": self.bit_generator},
            "trace": [list(t) for t in self.trace],
        }
        if "free spins" in self.components:
            out["free_spins"] = {"trigger": prop(self.trigger_frequency), "mean_spins": self.mean_free_spins,
                                 "retriggers": self.sums["retriggers"]}
        if "cap" in self.components:
            out["cap"] = prop(self.cap_frequency)
        if self.gamble is not None:
            g = self.gamble
            out["gamble"] = {"strategy": g.strategy, "offered": g.offered, "rounds": g.rounds, "won": g.won,
                             "return_ratio": est(g.return_ratio), "rtp_with_gamble": est(g.rtp)}
        if exact is not None:
            checks = self.checks(exact, sd)
            out["checks"] = checks
            out["agrees_with_exact"] = all(bool(c["agrees"]) for c in checks.values())
        else:
            out["agrees_with_exact"] = None
        return out

    def to_json(self, exact: Mapping[str, float] | None = None, sd: float | Mapping[str, float] | None = None,
                indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(exact, sd), indent=indent, default=float)


# --- running -----------------------------------------------------------------------------

_ACC_NAMES = {
    "plays": K.A_PLAYS, "line": K.A_LINE, "scatter": K.A_SCATTER, "free": K.A_FREE, "cut": K.A_CUT,
    "paid": K.A_TOTAL, "hits": K.A_HITS, "hits_bet": K.A_HITS_BET, "hits_10x": K.A_HITS_10,
    "hits_100x": K.A_HITS_100, "hits_1000x": K.A_HITS_1000, "triggers": K.A_TRIGGERS,
    "free_spins": K.A_FREE_SPINS, "retriggers": K.A_RETRIGGERS, "cap_hits": K.A_CAP_HITS,
}
_SQUARED = {"line": 0, "scatter": 1, "free": 2, "cut": 3, "paid": 4}


_compiled = functools.lru_cache(maxsize=16)(K.compile_game)
"""Games compiled for the kernels, kept: a game is frozen, its compiled arrays are only read."""


def _root(rng: np.random.Generator) -> np.random.SeedSequence:
    """A child of the generator's seed sequence (advancing it), else entropy drawn from it."""
    seq = rng.bit_generator.seed_seq
    if isinstance(seq, np.random.SeedSequence):
        return seq.spawn(1)[0]
    return np.random.SeedSequence([int(x) for x in rng.integers(0, 2**63, size=4)])


def _gamble_plan(game: Game, strategy: Any) -> GamblePlan | None:
    if getattr(strategy, "option", None) is None:  # a strategy that never gambles
        return None
    if game.gamble is None:
        msg = f"{game.name} declares no gamble"
        raise ModelError(msg)
    names = [o.name for o in game.gamble.options]
    if getattr(strategy, "option", None) not in names:
        msg = f"no gamble option {getattr(strategy, 'option', None)!r}: choose one of {', '.join(names)}"
        raise ModelError(msg)
    opt = game.gamble.options[names.index(strategy.option)]
    return GamblePlan(opt.p.numerator, opt.p.denominator, opt.multiplier, game.gamble.max_gambles,
                      game.gamble.limit, getattr(strategy, "limit_on", "stake") == "win",
                      int(getattr(strategy, "target", None) or 0))


def _sum(rows: np.ndarray, col: int) -> int:
    return sum(int(x) for x in rows[:, col])


def _trace(acc: np.ndarray, bet: int) -> tuple[tuple[int, float], ...]:
    n = acc.shape[0]
    points = np.unique(np.round(np.geomspace(1, n, num=min(n, _TRACE_POINTS))).astype(np.int64))
    plays = np.cumsum(acc[:, K.A_PLAYS])
    paid = np.cumsum(acc[:, K.A_TOTAL])
    return tuple((int(plays[k - 1]), float(paid[k - 1] / (plays[k - 1] * bet))) for k in points)


def _reduce(spec: K.SimSpec, parts: list[BlockSums], spins: int, root: np.random.SeedSequence, block: int,
            bit_generator: str, gamble: Any, seconds: float) -> SimResult:
    acc = np.vstack([p.acc for p in parts])
    facc = np.vstack([p.facc for p in parts])
    sums = {name: _sum(acc, col) for name, col in _ACC_NAMES.items()}
    sums["max"] = int(acc[:, K.A_MAX].max())
    for name, k in _SQUARED.items():
        hi, lo = K.A_SQUARES + 2 * k, K.A_SQUARES + 2 * k + 1
        sums[f"{name}_sq"] = (_sum(acc, hi) << K.SQ_SHIFT) + _sum(acc, lo)
    moments = (math.fsum(facc[:, K.F_X3]), math.fsum(facc[:, K.F_X4]))
    g = None
    if gamble is not None:
        gacc = np.vstack([p.gacc for p in parts])
        gf = np.vstack([p.gfacc for p in parts]).sum(axis=0)
        staked, returned, total = _sum(gacc, G_STAKED), _sum(gacc, G_RETURNED), _sum(gacc, G_TOTAL)
        ratio = returned / staked if staked else math.nan
        spread = gf[GF_AA] - 2 * ratio * gf[GF_AB] + ratio * ratio * gf[GF_BB] if staked else 0.0
        ratio_se = math.sqrt(max(spread, 0.0)) / staked if staked else math.nan
        mean = total / spins
        var = max(gf[GF_TT] / spins - mean * mean, 0.0)
        name = getattr(gamble, "name", None) or f"{gamble.option}" + (f" until {gamble.target}" if getattr(
            gamble, "target", None) else "")
        g = GambleResult(str(name), _sum(gacc, G_OFFERED), _sum(gacc, G_ROUNDS), _sum(gacc, G_WON), staked,
                         returned, Estimate(ratio, ratio_se),
                         Estimate(mean / spec.total_bet, math.sqrt(var / spins) / spec.total_bet))
    seed = (root.entropy, tuple(int(k) for k in root.spawn_key))
    return SimResult(spec.name, spins, spec.total_bet, spec.components, sums, moments, _trace(acc, spec.total_bet),
                     block, seed, bit_generator, g, seconds)


def simulate(game: Game, spins: int, *, seed: int | np.random.SeedSequence | None = None,
             rng: np.random.Generator | None = None, reels: str | None = None, lines: int | None = None,
             coins: int | None = None, chunk: int = CHUNK, workers: int | None = None,
             scheduler: str | None = None, client: Any = None, gamble: Any = None,
             progress: bool | None = None) -> SimResult:
    """Play ``spins`` whole plays of ``game`` and sum what they pay.

    Parameters
    ----------
    seed, rng
        Randomness: a seed, or a ``numpy.random.Generator`` (``seed=s`` is
        ``rng=numpy.random.default_rng(s)``).  The run draws from children of one
        ``SeedSequence`` spawned from the generator; blocks use its bit generator when it
        is a PCG64 or SFC64, else PCG64.
    reels, lines, coins
        Base reel set (RTP variant), lines played and coins per line (defaults: the game's).
    chunk
        Plays per task, rounded up to whole blocks; it changes nothing in the result.
    workers, scheduler, client
        Run on Dask: a new ``LocalCluster`` of ``workers`` processes on 127.0.0.1, an
        existing scheduler's address, or an existing ``distributed.Client``.
    gamble
        A :class:`GambleStrategy`: gamble every play's paid win, reported in
        :attr:`SimResult.gamble` (never in the RTP).
    progress
        Show a progress bar (default: on a terminal, for long runs).
    """
    if spins < 1:
        msg = f"spins must be at least 1, not {spins}"
        raise ValueError(msg)
    if rng is not None and seed is not None:
        msg = "give a seed or a generator, not both"
        raise ValueError(msg)
    if rng is None:
        rng = np.random.default_rng(seed)
    root = _root(rng)
    bit_generator = type(rng.bit_generator).__name__
    if bit_generator not in ("PCG64", "SFC64"):
        bit_generator = "PCG64"
    spec = _compiled(game, reels=reels, lines=lines, coins=coins)
    plan = _gamble_plan(game, gamble) if gamble is not None else None
    gamble = gamble if plan is not None else None
    n_blocks = -(-spins // BLOCK)
    per = max(1, -(-chunk // BLOCK))
    chunks = [(a, min(a + per, n_blocks)) for a in range(0, n_blocks, per)]
    sizes = [min(b * BLOCK, spins) - a * BLOCK for a, b in chunks]
    task = functools.partial(run_blocks, spec, root, spins=spins, block=BLOCK, bit_generator=bit_generator,
                             gamble=plan)
    start = time.perf_counter()
    parts = map_chunks(task, chunks, sizes, workers=workers, scheduler=scheduler, client=client, progress=progress)
    seconds = time.perf_counter() - start
    return _reduce(spec, parts, spins, root, BLOCK, bit_generator, gamble, seconds)


def run(game_path: str | Path, spins: int, seed: int | None, workers: int | None = None,
        scheduler: str | None = None, reels: str | None = None, **options: Any) -> SimResult:
    """:func:`simulate` the game in the file ``game_path``."""
    return simulate(load_game(game_path), spins, seed=seed, workers=workers, scheduler=scheduler, reels=reels,
                    **options)


# --- command line ------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mathkit simulate", description="Monte Carlo simulation of a game's rules.")
    p.add_argument("game", type=Path, help="game file (TOML)")
    p.add_argument("--spins", type=lambda s: int(float(s)), default=10**6, help="plays (default 1e6)")
    p.add_argument("--seed", type=int, default=None, help="seed (default: fresh entropy, reported)")
    p.add_argument("--workers", type=int, help="run on a LocalCluster of K worker processes on 127.0.0.1")
    p.add_argument("--scheduler", help="run on an existing Dask cluster (tcp://HOST:PORT)")
    p.add_argument("--reels", help="base reel set (RTP variant)")
    p.add_argument("--lines", type=int, help="lines played")
    p.add_argument("--coins", type=int, help="coins per line")
    p.add_argument("--gamble", metavar="OPTION", help="gamble every win on OPTION (reported apart)")
    p.add_argument("--no-exact", action="store_true", help="do not compare with the exact figures")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print JSON")
    return p


def exact_figures(game: Game, reels: str | None = None, lines: int | None = None,
                  coins: int | None = None) -> tuple[dict[str, float], float]:
    """The exact figures to check a simulation against, and the exact σ per bet.

    The command line's glue, and the one place this module reads the exact engine:
    imported here, after the simulation has run, never by it.
    """
    from .par import build_par

    par = build_par(game, reels, lines=lines, coins=coins)
    figures = {"rtp": par.rtp.value, "hit_frequency": par.hit_frequency.value,
               "hit_frequency_bet": par.hit_frequency_bet.value}
    figures |= {name: f.value for name, f in par.components.items()}
    for section in par.features:
        for name, f in section.figures:
            if name == "trigger probability":
                figures["trigger_probability"] = f.value
    return figures, par.sd.value


ExactFigures = Callable[[Game, str | None, int | None, int | None], tuple[dict[str, float], float]]


def simulate_cli(args: argparse.Namespace, exact: ExactFigures | None = None) -> dict[str, Any]:
    """Run the simulation ``args`` describe (see :func:`cli`) and return its JSON-ready report.

    ``exact(game, reels, lines, coins)`` gives the exact figures and σ to check against
    (default :func:`exact_figures`); ``args.no_exact`` skips the check.
    """
    game = load_game(args.game)
    strategy = GambleStrategy(args.gamble) if getattr(args, "gamble", None) else None
    res = simulate(game, args.spins, seed=args.seed, workers=args.workers, scheduler=args.scheduler,
                   reels=args.reels, lines=args.lines, coins=args.coins, gamble=strategy,
                   progress=False if args.no_progress else None)
    if args.no_exact:
        return res.to_dict()
    figures, sd = (exact or exact_figures)(game, args.reels, args.lines, args.coins)
    return res.to_dict(figures, sd)


def cli(argv: list[str], exact: ExactFigures | None = None) -> int:
    """``mathkit simulate GAME --spins N --seed S [--workers K] [--scheduler ADDR] [--json]``.

    Exit status 0, or 1 when an exact figure lies outside the simulated 99% interval.
    """
    args = _parser().parse_args(argv)
    out = simulate_cli(args, exact)
    if args.json:
        print(json.dumps(out, indent=2, default=float))
    else:
        lo, hi = out["ci99"]
        print(f"{out['game']}: {out['spins']:,} plays, {out['spins_per_second']:,.0f} plays/s")
        print(f"RTP {out['rtp']:.6f}  99% [{lo:.6f}, {hi:.6f}]  sd {out['sd']:.4f}")
        for name, e in out["breakdown"].items():
            print(f"  {name:<12} {e['rtp']:.6f} ± {e['se']:.6f}")
        print(f"hit frequency {out['hit_frequency']['value']:.6f}")
        for name, c in out.get("checks", {}).items():
            mark = "ok " if c["agrees"] else "OUT"
            print(f"  {mark} {name:<20} sim {c['sim']:.6f}  exact {c['exact']:.6f}  ± {c['tolerance']:.6f}")
        if out["agrees_with_exact"] is not None:
            print("agrees with exact:", "yes" if out["agrees_with_exact"] else "NO")
    return 1 if out["agrees_with_exact"] is False else 0
