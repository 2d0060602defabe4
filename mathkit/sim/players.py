"""The simulator's session mode: players sit down with a bankroll and play the simulated plays literally.

A session starts with ``bankroll`` credits; each spin costs the total bet and pays the
next simulated play's paid win (base spin and feature, the cap applied; gambled by a
strategy when one is given); the player stops when the bankroll is below the bet, at
the stop-win target, or after ``spins`` spins, and it is noted whether a play paid at
least ``k × bet`` along the way.  Plays come from :func:`mathkit.sim.cluster.block_wins`
— the same plays :func:`~mathkit.sim.run.simulate` sums — and sessions take them in
order, one after another: nothing here knows the exact engine.

Reproducible: sessions are dealt in chunks of :data:`SESSION_CHUNK`; chunk ``c`` draws
its plays from blocks seeded by the ``c``-th child of the run's ``SeedSequence``, so a
seed gives the same sessions here or on any number of Dask workers.

Examples
--------
>>> from mathkit.gamefile.io import load_game
>>> res = simulate_sessions(load_game("data/games/classic_3reel.toml"), 2000, bankroll=100, spins=200, seed=1)
>>> res.sessions, 0 < res.expected_spins.value <= 200
(2000, True)
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numba as nb
import numpy as np
import numpy.typing as npt

from ..errors import ModelError, UnknownNameError, UsageError
from ..model.game import Game
from .cluster import GamblePlan, block_seed, block_wins, map_chunks
from .results import Estimate, Proportion, _z_for
from .run import _compiled, _root, gamble_plan
from .spec import SimSpec

__all__ = ["SESSION_CHUNK", "SessionSample", "simulate_sessions"]

IntArray = npt.NDArray[np.int64]
SESSION_CHUNK = 4096
"""Sessions per chunk, the unit of randomness (part of what a seed reproduces)."""
PLAYS = 1 << 16
"""Plays drawn at a time for a chunk's sessions."""
MAX_BIG_WINS = 8


@nb.njit(cache=True, nogil=True)
def _consume(wins: IntArray, state: IntArray, bet: int, bankroll: int, spins: int, stop: int,
             thresholds: IntArray, played: IntArray, final: IntArray, flags: IntArray) -> None:  # pragma: no cover
    """Play ``wins`` in order into the sessions; ``state`` = (session, bankroll, spins so far, big-win flags)."""
    s, x, n, fl = state[0], state[1], state[2], state[3]
    total = played.shape[0]
    for w in wins:
        if s >= total:
            break
        x += w - bet
        n += 1
        for t in range(thresholds.shape[0]):
            if w >= thresholds[t]:
                fl |= 1 << t
        if x < bet or (stop > 0 and x >= stop) or n == spins:
            played[s] = n
            final[s] = x
            flags[s] = fl
            s += 1
            x, n, fl = bankroll, 0, 0
    state[0], state[1], state[2], state[3] = s, x, n, fl


@dataclass(frozen=True, eq=False)
class _Chunk:
    played: IntArray
    final: IntArray
    flags: IntArray
    plays: int


def _play_chunk(spec: SimSpec, root: np.random.SeedSequence, first: int, last: int, *, sessions: int,
                bankroll: int, spins: int, stop: int, thresholds: IntArray, bit_generator: str,
                gamble: GamblePlan | None) -> _Chunk:
    parts: list[_Chunk] = []
    for c in range(first, last):
        n = min(SESSION_CHUNK, sessions - c * SESSION_CHUNK)
        seed = block_seed(root, c)
        played = np.zeros(n, dtype=np.int64)
        final = np.zeros(n, dtype=np.int64)
        flags = np.zeros(n, dtype=np.int64)
        state = np.array([0, bankroll, 0, 0], dtype=np.int64)
        block = used = 0
        while state[0] < n:
            wins = block_wins(spec, seed, block, PLAYS, bit_generator=bit_generator, gamble=gamble)
            _consume(wins, state, spec.total_bet, bankroll, spins, stop, thresholds, played, final, flags)
            block += 1
            used += PLAYS
        parts.append(_Chunk(played, final, flags, used))
    return _Chunk(np.concatenate([p.played for p in parts]), np.concatenate([p.final for p in parts]),
                  np.concatenate([p.flags for p in parts]), sum(p.plays for p in parts))


@dataclass(frozen=True, eq=False)
class SessionSample:
    """Simulated sessions: spins played, final bankroll and big-win flags of each (credits).

    The figures carry the names of :meth:`mathkit.chains.markov.session.SessionLaw.figures`;
    :meth:`checks` compares exact figures with them.
    """

    game: str
    bet: int
    bankroll: int
    spins: int
    stop_win: int | None
    big_wins: tuple[int, ...]
    played: IntArray
    final: IntArray
    flags: IntArray
    plays_drawn: int
    seed: tuple[Any, tuple[int, ...]]
    seconds: float = field(default=math.nan, compare=False)

    @property
    def sessions(self) -> int:
        return len(self.played)

    def _prop(self, hits: npt.NDArray[np.bool_]) -> Proportion:
        return Proportion(int(hits.sum()), self.sessions)

    @staticmethod
    def _mean(x: npt.NDArray[np.int64]) -> Estimate:
        xf = x.astype(np.float64)
        return Estimate(float(xf.mean()), float(xf.std(ddof=1)) / math.sqrt(len(xf)) if len(xf) > 1 else math.inf)

    def survival_at(self, n: int) -> Proportion:
        """P(still playing after ``n`` spins): more than ``n`` played, or all ``spins`` with the bankroll to go on."""
        if n < self.spins:
            return self._prop(self.played > n)
        going = (self.played == self.spins) & (self.final >= self.bet)
        if self.stop_win is not None:
            going &= self.final < self.stop_win
        return self._prop(going)

    @property
    def expected_spins(self) -> Estimate:
        return self._mean(self.played)

    @property
    def expected_final(self) -> Estimate:
        return self._mean(self.final)

    @property
    def expected_loss(self) -> Estimate:
        e = self.expected_final
        return Estimate(self.bankroll - e.value, e.se)

    def figures(self, checkpoints: Sequence[int] = ()) -> dict[str, Estimate | Proportion]:
        """Every simulated session figure by name (survival at ``checkpoints``)."""
        out: dict[str, Estimate | Proportion] = {f"p_survive@{n}": self.survival_at(n) for n in checkpoints}
        out |= {"expected_spins": self.expected_spins, "p_bust": self._prop(self.final < self.bet),
                "p_ahead": self._prop(self.final > self.bankroll), "expected_final": self.expected_final,
                "expected_loss": self.expected_loss}
        if self.stop_win is not None:
            out["p_target"] = self._prop(self.final >= self.stop_win)
        out |= {f"p_big_win@{k}x": self._prop((self.flags >> i) & 1 == 1) for i, k in enumerate(self.big_wins)}
        return out

    def checks(self, exact: Mapping[str, float], level: float = 0.99, *,
               joint: bool = True) -> dict[str, dict[str, float | bool]]:
        """Per exact figure: simulated value, its interval and whether the exact value lies in it.

        ``joint``: the intervals hold together at ``level`` (Bonferroni: each at
        ``1 − (1 − level)/m`` for ``m`` figures), so a correct exact law passes every check
        with probability at least ``level``; otherwise each interval is at ``level`` alone.
        Proportions use the Wilson interval, means ``± z·s/√n`` with the sample's ``s``.
        """
        points = sorted(int(k.split("@")[1]) for k in exact if k.startswith("p_survive@"))
        sim = self.figures(points)
        each = 1 - (1 - level) / len(exact) if joint and exact else level
        out: dict[str, dict[str, float | bool]] = {}
        z = _z_for(each)
        for name, x in exact.items():
            if name not in sim:
                msg = f"no simulated session figure {name!r}: {', '.join(sim)}"
                raise UnknownNameError(msg)
            f = sim[name]
            lo, hi = f.interval(each) if isinstance(f, Proportion) else (f.value - z * f.se, f.value + z * f.se)
            out[name] = {"sim": f.value, "exact": float(x), "low": lo, "high": hi, "level": each,
                         "agrees": bool(lo <= x <= hi)}
        return out

    def to_dict(self, checkpoints: Sequence[int] = ()) -> dict[str, Any]:
        """The figures as JSON-ready data."""
        def one(f: Estimate | Proportion) -> dict[str, float]:
            lo, hi = f.ci99
            return {"value": f.value, "ci99_low": lo, "ci99_high": hi}

        return {"game": self.game, "sessions": self.sessions, "bet": self.bet, "bankroll": self.bankroll,
                "spins": self.spins, "stop_win": self.stop_win, "plays_drawn": self.plays_drawn,
                "seconds": self.seconds, "method": "sampled",
                "figures": {k: one(f) for k, f in self.figures(checkpoints).items()},
                "seed": {"entropy": self.seed[0], "spawn_key": list(self.seed[1])}}


def simulate_sessions(game: Game, sessions: int, *, bankroll: int, spins: int, stop_win: int | None = None,
                      big_wins: Sequence[int] = (100,), gamble: Any = None, reels: str | None = None,
                      lines: int | None = None, coins: int | None = None, seed: int | None = None,
                      rng: np.random.Generator | None = None, workers: int | None = None,
                      scheduler: str | None = None, client: Any = None, progress: bool | None = None,
                      place: Literal["auto", "cluster"] = "auto") -> SessionSample:
    """Play ``sessions`` sessions of up to ``spins`` spins from ``bankroll`` credits.

    ``stop_win`` (credits): stop once the bankroll reaches it; ``big_wins``: note plays paying
    at least ``k × bet``; ``gamble``: a :class:`~mathkit.sim.run.GambleStrategy` played on every
    paid win.  Randomness, reels/lines/coins and Dask (``place`` too) as in :func:`~mathkit.sim.run.simulate`.
    """
    if sessions < 1 or spins < 1:
        msg = f"sessions and spins must be at least 1, not {sessions} and {spins}"
        raise UsageError(msg)
    if rng is not None and seed is not None:
        msg = "give a seed or a generator, not both"
        raise UsageError(msg)
    if len(big_wins) > MAX_BIG_WINS:
        msg = f"at most {MAX_BIG_WINS} big-win multiples, not {len(big_wins)}"
        raise UsageError(msg)
    spec = _compiled(game, reels=reels, lines=lines, coins=coins)
    bet = spec.total_bet
    if bankroll < bet or (stop_win is not None and stop_win <= bankroll):
        msg = f"a session needs bankroll ≥ bet ({bankroll:,} < {bet:,}?) and a stop-win above the bankroll"
        raise ModelError(msg)
    rng = np.random.default_rng(seed) if rng is None else rng
    root = _root(rng)
    bit_generator = type(rng.bit_generator).__name__
    bit_generator = bit_generator if bit_generator in ("PCG64", "SFC64") else "PCG64"
    n_chunks = -(-sessions // SESSION_CHUNK)
    per = 8  # chunks of sessions per task
    chunks = [(a, min(a + per, n_chunks)) for a in range(0, n_chunks, per)]
    sizes = [min(b * SESSION_CHUNK, sessions) - a * SESSION_CHUNK for a, b in chunks]
    thresholds = np.array([k * bet for k in big_wins], dtype=np.int64)
    task = functools.partial(_play_chunk, spec, root, sessions=sessions, bankroll=bankroll, spins=spins,
                             stop=stop_win or 0, thresholds=thresholds, bit_generator=bit_generator,
                             gamble=gamble_plan(spec, gamble) if gamble is not None else None)
    start = time.perf_counter()
    parts = map_chunks(task, chunks, sizes, workers=workers, scheduler=scheduler, client=client, progress=progress,
                       place=place)
    seconds = time.perf_counter() - start
    seed_id = (root.entropy, tuple(int(k) for k in root.spawn_key))
    return SessionSample(spec.name, bet, bankroll, spins, stop_win, tuple(big_wins),
                         np.concatenate([p.played for p in parts]), np.concatenate([p.final for p in parts]),
                         np.concatenate([p.flags for p in parts]), sum(p.plays for p in parts), seed_id, seconds)
