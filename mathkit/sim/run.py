"""The literal player: a Monte Carlo simulation of a game's rules, independent of the exact engine.

:func:`simulate` plays whole rounds as a player would: it draws every reel's stop
(uniform, or by weight for virtual stops) from generators seeded by the
injected ``numpy.random.Generator``, values the window with the shared pay
rules of :mod:`mathkit.spin.evaluate`, and plays each feature as its block's table
says (:mod:`mathkit.play.vocabulary`) — free spins awarded by the trigger count, retriggers
adding spins up to ``max_spins``, multipliers, held and re-spun cells, window
heights drawn per spin — the cap on the whole round (base spin and every
feature; the round ends once the cap is reached) and, optionally, the gamble by
a strategy on each round's paid win, reported beside the RTP and never in it.
It shares only the game model, the blocks' tables and the window evaluation
with the exact engine: none of its tables, algebra or Markov chains
(:mod:`mathkit.exact.components`, :mod:`mathkit.exact`, :mod:`mathkit.chains.markov` ... are not
imported; the one exception is the command line's :func:`exact_figures`, which
reads the PAR sheet lazily, after the simulation, to compare with it).

The result is a :class:`~mathkit.sim.results.SimResult`.

Reproducible: a run is a fixed list of blocks of :data:`BLOCK` plays, block
``b`` seeded by the ``b``-th child of one ``SeedSequence`` spawned from the
generator (see :mod:`mathkit.sim.cluster`), so a seed gives the same result
in one process or on any number of Dask workers, whatever the chunk size.

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> res = simulate(load_game("data/games/classic_3reel.toml"), 100_000, seed=1)
>>> res.spins, 0.7 < res.rtp.value < 1.0
(100000, True)
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..errors import ModelError, UsageError, located
from ..gamefile.io import load_game
from ..model.bounds import check_cost
from ..model.game import Game
from . import layout as K
from .cluster import (
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
from .results import Estimate, GambleResult, SimResult
from .spec import SimSpec, compile_game

__all__ = ["BLOCK", "CHUNK", "GambleStrategy", "gamble_plan", "run", "simulate"]

BLOCK = 1 << 16
"""Plays per block, the unit of randomness (part of what a seed reproduces)."""
CHUNK = 1 << 22
"""Default plays per task (a whole number of blocks); any chunk gives the same result."""
_TRACE_POINTS = 200


@dataclass(frozen=True)
class GambleStrategy:
    """Gamble every offered win on ``option``; with a ``target``, only while the amount is below it.

    ``limit_on`` reads the game's gamble limit on the amount staked (``"stake"``) or
    on what the gamble would pay (``"win"``).  Objects with ``option`` (and
    ``target``) attributes, such as :mod:`mathkit.chains.ladder`'s strategies, work too.
    """

    option: str
    target: int | None = None
    limit_on: Literal["stake", "win"] = "stake"


_ACC_NAMES = {
    "plays": K.A_PLAYS, "line": K.A_LINE, "scatter": K.A_SCATTER, "free": K.A_FREE, "cut": K.A_CUT,
    "paid": K.A_TOTAL, "hits": K.A_HITS, "hits_bet": K.A_HITS_BET, "hits_10x": K.A_HITS_10,
    "hits_100x": K.A_HITS_100, "hits_1000x": K.A_HITS_1000, "triggers": K.A_TRIGGERS,
    "cap_hits": K.A_CAP_HITS,
}
_SQUARED = {"line": 0, "scatter": 1, "free": 2, "cut": 3, "paid": 4}


_compiled = functools.lru_cache(maxsize=16)(compile_game)
"""Games compiled for the kernels, kept: a game is frozen, its compiled arrays are only read."""


def _root(rng: np.random.Generator) -> np.random.SeedSequence:
    """A child of the generator's seed sequence (advancing it), else entropy drawn from it."""
    seq = rng.bit_generator.seed_seq
    if isinstance(seq, np.random.SeedSequence):
        return seq.spawn(1)[0]
    return np.random.SeedSequence([int(x) for x in rng.integers(0, 2**63, size=4)])


def gamble_plan(spec: SimSpec, strategy: Any) -> GamblePlan | None:
    """``strategy`` (a :class:`GambleStrategy`, or an object with ``option``/``target``) as the game's plan in numbers."""
    if getattr(strategy, "option", None) is None:  # a strategy that never gambles
        return None
    ladder = spec.ladder
    if ladder is None:
        msg = f"{spec.name} declares no gamble"
        raise ModelError(msg)
    names = [name for name, _, _ in ladder.options]
    if getattr(strategy, "option", None) not in names:
        msg = f"no gamble option {getattr(strategy, 'option', None)!r}: choose one of {', '.join(names)}"
        raise ModelError(msg)
    _, p, multiplier = ladder.options[names.index(strategy.option)]
    return GamblePlan(p.numerator, p.denominator, multiplier, ladder.max_gambles, ladder.limit,
                      getattr(strategy, "limit_on", "stake") == "win", int(getattr(strategy, "target", None) or 0))


def _sum(rows: np.ndarray, col: int) -> int:
    return sum(int(x) for x in rows[:, col])


def _trace(acc: np.ndarray, bet: int) -> tuple[tuple[int, float], ...]:
    n = acc.shape[0]
    points = np.unique(np.round(np.geomspace(1, n, num=min(n, _TRACE_POINTS))).astype(np.int64))
    plays = np.cumsum(acc[:, K.A_PLAYS])
    paid = np.cumsum(acc[:, K.A_TOTAL])
    return tuple((int(plays[k - 1]), float(paid[k - 1] / (plays[k - 1] * bet))) for k in points)


def _reduce(spec: SimSpec, parts: list[BlockSums], spins: int, root: np.random.SeedSequence, block: int,
            bit_generator: str, gamble: Any, seconds: float, ready: float = math.nan, ran: str = "") -> SimResult:
    acc = np.vstack([p.acc for p in parts])
    facc = np.vstack([p.facc for p in parts])
    sums = {name: _sum(acc, col) for name, col in _ACC_NAMES.items()}
    sums["max"] = int(acc[:, K.A_MAX].max())
    for name, k in _SQUARED.items():
        hi, lo = K.A_SQUARES + 2 * k, K.A_SQUARES + 2 * k + 1
        sums[f"{name}_sq"] = (_sum(acc, hi) << K.SQ_SHIFT) + _sum(acc, lo)
    for name, slot in spec.slots.items():
        sums[name] = _sum(acc, slot)
        if name.startswith("component:") or name.endswith(":spins"):  # (with the squares of each entry's spins)
            sums[f"{name}_sq"] = (_sum(acc, slot + 1) << K.SQ_SHIFT) + _sum(acc, slot + 2)
    sums["free_spins"] = sum(sums[f"{f}:spins"] for f in spec.features)
    sums["retriggers"] = sum(sums.get(f"{f}:retriggers", 0) for f in spec.features)
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
                     block, seed, bit_generator, g, seconds, spec.features, ready, ran)


def simulate(game: Game, spins: int, *, seed: int | np.random.SeedSequence | None = None,
             rng: np.random.Generator | None = None, reels: str | None = None, lines: int | None = None,
             coins: int | None = None, chunk: int = CHUNK, workers: int | None = None,
             scheduler: str | None = None, client: Any = None, gamble: Any = None,
             progress: bool | None = None, place: Literal["auto", "cluster"] = "auto") -> SimResult:
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
    workers, scheduler, client, place
        Run on Dask: a new ``LocalCluster`` of ``workers`` processes on 127.0.0.1 (with
        ``place="auto"`` only when it would beat this process: see
        :mod:`mathkit.sim.cluster`; ``"cluster"``: always), an existing scheduler's address,
        or an existing ``distributed.Client``.  :attr:`SimResult.ran` says where it ran and
        why.  The result is the same wherever it ran.
    gamble
        A :class:`GambleStrategy`: gamble every play's paid win, reported in
        :attr:`SimResult.gamble` (never in the RTP).
    progress
        Show a progress bar (default: on a terminal, for long runs).
    """
    if spins < 1:
        msg = f"spins must be at least 1, not {spins}"
        raise UsageError(msg)
    check_cost(f"a simulation of {spins:,} plays", spins=spins, field="spins",
               fix="run several seeds and pool them (each run's per-block sums grow with its plays)")
    if rng is not None and seed is not None:
        msg = "give a seed or a generator, not both"
        raise UsageError(msg)
    if rng is None:
        rng = np.random.default_rng(seed)
    root = _root(rng)
    bit_generator = type(rng.bit_generator).__name__
    if bit_generator not in ("PCG64", "SFC64"):
        bit_generator = "PCG64"
    with located(path=game.source):
        spec = _compiled(game, reels=reels, lines=lines, coins=coins)
        plan = gamble_plan(spec, gamble) if gamble is not None else None
    gamble = gamble if plan is not None else None
    n_blocks = -(-spins // BLOCK)
    per = max(1, -(-chunk // BLOCK))
    chunks = [(a, min(a + per, n_blocks)) for a in range(0, n_blocks, per)]
    sizes = [min(b * BLOCK, spins) - a * BLOCK for a, b in chunks]
    task = functools.partial(run_blocks, spec, root, spins=spins, block=BLOCK, bit_generator=bit_generator,
                             gamble=plan)
    ready = math.nan
    if (workers is None or place == "auto") and scheduler is None and client is None:
        # the kernels loaded (or compiled) before the clock starts, so that seconds time the plays only:
        # a few plays of block 0, thrown away (a block's draws depend on its index alone)
        start = time.perf_counter()
        run_blocks(spec, root, 0, 1, spins=min(spins, 64), block=BLOCK, bit_generator=bit_generator, gamble=plan)
        ready = time.perf_counter() - start
    start = time.perf_counter()
    ran: list[str] = []
    parts = map_chunks(task, chunks, sizes, workers=workers, scheduler=scheduler, client=client, progress=progress,
                       place=place, decided=ran.append)
    seconds = time.perf_counter() - start
    return _reduce(spec, parts, spins, root, BLOCK, bit_generator, gamble, seconds, ready, " ".join(ran))


def run(game_path: str | Path, spins: int, seed: int | None, workers: int | None = None,
        scheduler: str | None = None, reels: str | None = None, **options: Any) -> SimResult:
    """:func:`simulate` the game in the file ``game_path``."""
    return simulate(load_game(game_path), spins, seed=seed, workers=workers, scheduler=scheduler, reels=reels,
                    **options)
