"""Running a simulation: blocks of plays, in this process or on a Dask cluster.

The unit of randomness is the *block*: ``block`` consecutive plays that draw
from generators seeded with the block's own ``SeedSequence`` (the ``b``-th
child of the run's root).  A run of ``spins`` plays is the fixed list of blocks
``0 .. ceil(spins / block) - 1``; a *chunk* (one task) is a range of
consecutive blocks.  Every block yields integer sums (and a few float sums
used only for standard errors), kept per block and added up in block order,
so the result does not depend on how blocks are grouped into chunks, nor on
how many processes or workers run them.

* ``workers=None, scheduler=None``: chunks run here, one after the other.
* ``workers=K``: a ``LocalCluster`` of ``K`` single-threaded worker processes on
  127.0.0.1 (no dashboard), closed afterwards — when it pays (``place="auto"``): the
  first chunk is played here and timed; a cluster costs :data:`CLUSTER_START` seconds to
  start (workers spawned, mathkit imported, the kernels loaded) and then plays on at most
  ``min(K, cores)`` cores, so when that would not beat this process by a quarter the run
  stays here and says why (a run of a few seconds, a machine of one core).
  ``place="cluster"`` always starts it.  Its workers are spawned: a script that asks
  for one must guard its entry point with ``if __name__ == "__main__":``.
* ``scheduler="tcp://HOST:PORT"``: an existing cluster (its workers must be able
  to import :mod:`mathkit`, the same version: ``pip install`` of this tree on each),
  always used.

On a cluster the chunks are regrouped into at most four tasks per worker thread (fewer,
larger tasks: each pays a scheduler round trip), and the task with the compiled game goes
to every worker once.  Each task returns one row of sums per block (a few hundred bytes),
so even 10⁹ plays return a few MB: reducing them on the workers would not pay.

A ``tqdm`` progress bar counts plays as chunks finish: by default only on a
terminal and for runs of at least :data:`PROGRESS_MIN` plays.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from ..errors import ModelError, UsageError
from .kernels import play_block
from .layout import A_OVERFLOW
from .rng import generator_state

if TYPE_CHECKING:
    from .spec import SimSpec

__all__ = [
    "CLUSTER_START",
    "PAYS",
    "PROGRESS_MIN",
    "BlockSums",
    "GamblePlan",
    "block_seed",
    "block_streams",
    "block_wins",
    "check_block",
    "gamble_amounts",
    "grouped",
    "local_estimate",
    "map_chunks",
    "play_gamble",
    "run_blocks",
]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
T = TypeVar("T")

PROGRESS_MIN = 10**7
"""Runs at least this long show a progress bar by default (on a terminal)."""
CLUSTER_START = 3.0
"""Seconds a ``LocalCluster`` takes before its first play: two workers spawned (1.2 s), mathkit imported and the
simulator's kernels loaded on each (1.5–1.8 s), measured on 2 cores (``benchmarks/bench_dask.py``)."""
PAYS = 0.75
"""A local cluster is started when its estimated time is below this share of this process's."""

# gamble sums per block
G_OFFERED = 0
G_ROUNDS = 1
G_WON = 2
G_STAKED = 3
G_RETURNED = 4
G_TOTAL = 5
N_GACC = 6
GF_AA = 0
GF_AB = 1
GF_BB = 2
GF_TT = 3
N_GFACC = 4


@dataclass(frozen=True)
class GamblePlan:
    """A gamble strategy in numbers: stake the whole amount on winning ``multiplier``× with
    probability ``num/den``, at most ``max_gambles`` times in a row, while the amount is
    positive, below ``target`` (0: no target) and within ``limit`` (on the amount staked,
    or on the amount the gamble would pay when ``limit_on_win``)."""

    num: int
    den: int
    multiplier: int
    max_gambles: int
    limit: int
    limit_on_win: bool = False
    target: int = 0


@dataclass(frozen=True, eq=False)
class BlockSums:
    """Sums of consecutive blocks ``first, first + 1, ...``, one row per block.

    ``acc``/``facc`` hold the kernel's slots (``A_*``/``F_*`` in :mod:`mathkit.sim.layout`),
    ``gacc``/``gfacc`` the gamble's (``G_*``/``GF_*``).
    """

    first: int
    acc: IntArray
    facc: FloatArray
    gacc: IntArray
    gfacc: FloatArray


def block_seed(root: np.random.SeedSequence, block: int) -> np.random.SeedSequence:
    """The ``block``-th child of ``root``: what ``root.spawn`` gives a fresh ``root``."""
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, block), pool_size=root.pool_size)


def block_streams(root: np.random.SeedSequence, block: int,
                  bit_generator: str = "PCG64") -> tuple[np.random.BitGenerator, ...]:
    """The bit generators of block ``block``: base spins, features, gamble.

    Base spins draw from the block's seed, the features (free spins, re-spins and every
    random value they draw) and the gamble from its first and second children, each a
    ``bit_generator`` (``"PCG64"`` or ``"SFC64"``).
    """
    make = np.random.SFC64 if bit_generator == "SFC64" else np.random.PCG64
    ss = block_seed(root, block)
    free, gamble = ss.spawn(2)
    return make(ss), make(free), make(gamble)


def gamble_amounts(wins: IntArray, plan: GamblePlan,
                   rng: np.random.Generator) -> tuple[IntArray, npt.NDArray[np.bool_], int, int]:
    """Gamble each play's paid win by ``plan``: the amounts collected, which plays gambled, rounds and rounds won.

    Round after round, every amount still offered the gamble is staked on one
    draw ``rng.integers(0, den) < num`` (plays in order); a loss ends that play's gamble.
    """
    cur = wins.copy()
    active = cur > 0
    staked = np.zeros(cur.shape[0], dtype=np.bool_)
    rounds = won_rounds = 0
    for _ in range(plan.max_gambles):
        stake = cur * plan.multiplier if plan.limit_on_win else cur
        live = active & (stake <= plan.limit)
        if plan.target:
            live &= cur < plan.target
        idx = np.flatnonzero(live)
        if idx.size == 0:
            break
        staked[idx] = True
        won = rng.integers(0, plan.den, size=idx.size) < plan.num
        rounds += idx.size
        won_rounds += int(won.sum())
        cur[idx[won]] *= plan.multiplier
        cur[idx[~won]] = 0
        active[idx[~won]] = False
    return cur, staked, rounds, won_rounds


def play_gamble(wins: IntArray, plan: GamblePlan, rng: np.random.Generator) -> tuple[IntArray, FloatArray]:
    """Gamble each play's paid win by ``plan`` (:func:`gamble_amounts`): the block's ``G_*`` and ``GF_*`` sums."""
    before = wins
    cur, staked, rounds, won_rounds = gamble_amounts(wins, plan, rng)
    a = cur[staked].astype(np.float64)
    b = before[staked].astype(np.float64)
    t = cur.astype(np.float64)
    g = np.array([int(staked.sum()), rounds, won_rounds, int(before[staked].sum()), int(cur[staked].sum()),
                  int(cur.sum())], dtype=np.int64)
    return g, np.array([a @ a, a @ b, b @ b, t @ t], dtype=np.float64)


_FLAGS = {
    1: "a play won 2**31 credits or more; the simulator's sums could overflow",
    2: "block {block}: a spin needed more random words than buffered",
    3: "block {block}: a round queued more features than the simulator holds",
    4: "block {block}: a round played more than 2**20 stages; does every feature end?",
    5: "block {block}: a feature played a spin at a window height no rule gives lines for",
}
"""What the kernel's flag in ``A_OVERFLOW`` means (0: nothing wrong)."""


def check_block(spec: SimSpec, acc: IntArray, block: int) -> None:
    """Raise if the kernel flagged block ``block`` (``acc`` its slots): a sum could overflow, a buffer ran dry ..."""
    flag = int(acc[A_OVERFLOW])
    if flag:
        what = _FLAGS.get(flag, f"block {{block}}: the kernel raised flag {flag}").format(block=block)
        msg = f"{spec.name}: {what}"
        raise ModelError(msg)


def _play(spec: SimSpec, root: np.random.SeedSequence, block: int, n_plays: int, bit_generator: str, acc: IntArray,
          facc: FloatArray, record: bool) -> tuple[IntArray, np.random.BitGenerator]:
    """Play block ``block`` into ``acc``/``facc``: each play's paid win (when ``record``), and the gamble's stream."""
    base, free, gam = block_streams(root, block, bit_generator)
    kind, st_base = generator_state(base)
    _, st_free = generator_state(free)
    wins = np.zeros(n_plays if record else 0, dtype=np.int64)
    play_block(n_plays, np.vstack([st_base, st_free]), kind, spec, acc, facc, wins)
    check_block(spec, acc, block)
    return wins, gam


def block_wins(spec: SimSpec, root: np.random.SeedSequence, block: int, n_plays: int, *,
               bit_generator: str = "PCG64", gamble: GamblePlan | None = None) -> IntArray:
    """Each play's paid win in block ``block`` (the plays :func:`run_blocks` sums), gambled by ``gamble``."""
    wins, gam = _play(spec, root, block, n_plays, bit_generator, *spec.new_sums(), True)
    return wins if gamble is None else gamble_amounts(wins, gamble, np.random.Generator(gam))[0]


def run_blocks(spec: SimSpec, root: np.random.SeedSequence, first: int, last: int, *, spins: int, block: int,
               bit_generator: str = "PCG64", gamble: GamblePlan | None = None) -> BlockSums:
    """Play blocks ``first .. last - 1`` of a run of ``spins`` plays cut into blocks of ``block``."""
    n = last - first
    acc, facc = spec.new_sums(n)
    gacc = np.zeros((n, N_GACC), dtype=np.int64)
    gfacc = np.zeros((n, N_GFACC), dtype=np.float64)
    for j, b in enumerate(range(first, last)):
        n_plays = min(block, spins - b * block)
        wins, gam = _play(spec, root, b, n_plays, bit_generator, acc[j], facc[j], gamble is not None)
        if gamble is not None:
            gacc[j], gfacc[j] = play_gamble(wins, gamble, np.random.Generator(gam))
    return BlockSums(first, acc, facc, gacc, gfacc)


@contextlib.contextmanager
def _bar(total: int, progress: bool | None) -> Iterator[Any]:
    show = total >= PROGRESS_MIN and sys.stderr.isatty() if progress is None else progress
    with tqdm(total=total, unit="spin", unit_scale=True, disable=not show, leave=False) as bar:
        yield bar


@contextlib.contextmanager
def _client(workers: int | None, scheduler: str | None) -> Iterator[Any]:
    from distributed import Client, LocalCluster

    if scheduler is not None:
        with Client(scheduler) as client:  # type: ignore[no-untyped-call]
            yield client
        return
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, host="127.0.0.1",  # type: ignore[no-untyped-call]
                           processes=True, dashboard_address=None)
    with cluster, Client(cluster) as client:  # type: ignore[no-untyped-call]
        yield client


def local_estimate(first_seconds: float, first_size: int, rest: int, workers: int,
                   cores: int | None = None) -> tuple[float, float]:
    """``(here, cluster)``: the seconds the ``rest`` plays would take in this process, at the rate of a first chunk
    of ``first_size`` plays played in ``first_seconds``, and on a new ``LocalCluster`` of ``workers`` workers
    (:data:`CLUSTER_START`, then the plays shared by ``min(workers, cores)`` cores).

    Examples
    --------
    >>> here, there = local_estimate(0.2, 4 * 2**20, 240 * 4 * 2**20, workers=2, cores=2)  # 10⁹ plays
    >>> round(here), round(there)
    (48, 27)
    >>> local_estimate(0.2, 4 * 2**20, 20 * 4 * 2**20, workers=2, cores=1)  # one core: never worth it
    (4.0, 7.0)
    """
    here = first_seconds * rest / max(first_size, 1)
    share = max(1, min(workers, cores if cores is not None else (os.cpu_count() or 1)))
    return here, CLUSTER_START + here / share


def map_chunks(task: Callable[[int, int], T], chunks: Sequence[tuple[int, int]], sizes: Sequence[int], *,
               workers: int | None = None, scheduler: str | None = None, client: Any = None,
               progress: bool | None = None, place: Literal["auto", "cluster"] = "auto",
               decided: Callable[[str], None] | None = None) -> list[T]:
    """``task(first, last)`` for every chunk, results in chunk order.

    Runs here when ``workers``, ``scheduler`` and ``client`` are all ``None``; on an
    existing cluster (``scheduler``, or ``client``: an existing ``distributed.Client``); on
    a new ``LocalCluster`` of ``workers`` when it pays (``place="auto"``, see the module
    docstring) or always (``place="cluster"``).  ``sizes`` are the chunks' plays, for the
    progress bar; ``decided`` hears where the run went and why, in a sentence.
    """
    say = decided or (lambda _text: None)
    if workers is not None and workers < 1:
        msg = f"workers must be at least 1, not {workers}"
        raise UsageError(msg)
    with _bar(sum(sizes), progress) as bar:
        if workers is None and scheduler is None and client is None:
            say("in this process")
            return _here(task, chunks, sizes, bar)
        out: list[T] = []
        if client is None and scheduler is None and place == "auto":
            assert workers is not None
            if len(chunks) < 2:
                say(f"in this process: one task, nothing to share among {workers} workers")
                return _here(task, chunks, sizes, bar)
            start = time.perf_counter()
            out = _here(task, chunks[:1], sizes[:1], bar)
            here, there = local_estimate(time.perf_counter() - start, sizes[0], sum(sizes[1:]), workers)
            cores = min(workers, os.cpu_count() or 1)
            if there >= PAYS * here:
                say(f"in this process: a new local cluster of {workers} workers would take ≈{there:.1f} s "
                    f"({CLUSTER_START:.0f} s to start, then the plays on {cores} core{'s' if cores != 1 else ''}) "
                    f"against ≈{here:.1f} s here")
                return out + _here(task, chunks[1:], sizes[1:], bar)
            say(f"on a local cluster of {workers} workers: ≈{there:.1f} s against ≈{here:.1f} s in this process "
                "(the first chunk, played here to time it, included)")
            chunks, sizes = chunks[1:], sizes[1:]
        elif client is None and scheduler is None:
            say(f"on a local cluster of {workers} workers")
        else:
            say(f"on the Dask cluster at {scheduler}" if scheduler is not None else "on the given Dask client")
        with contextlib.ExitStack() as stack:
            if client is None:
                client = stack.enter_context(_client(workers, scheduler))
            return out + _on_dask(client, task, chunks, sizes, bar)


def _here(task: Callable[[int, int], T], chunks: Sequence[tuple[int, int]], sizes: Sequence[int],
          bar: Any) -> list[T]:
    out = []
    for (a, b), size in zip(chunks, sizes, strict=True):
        out.append(task(a, b))
        bar.update(size)
    return out


def grouped(chunks: Sequence[tuple[int, int]], sizes: Sequence[int],
            tasks: int) -> tuple[list[tuple[int, int]], list[int]]:
    """Consecutive chunks joined into at most ``tasks`` ranges (each a whole number of chunks).

    Examples
    --------
    >>> grouped([(0, 2), (2, 4), (4, 6), (6, 7)], [20, 20, 20, 5], 2)
    ([(0, 4), (4, 7)], [40, 25])
    """
    per = max(1, -(-len(chunks) // max(tasks, 1)))
    out, out_sizes = [], []
    for i in range(0, len(chunks), per):
        part = chunks[i:i + per]
        out.append((part[0][0], part[-1][1]))
        out_sizes.append(sum(sizes[i:i + per]))
    return out, out_sizes


def _call(task: Callable[[int, int], T], first: int, last: int) -> T:
    """``task(first, last)`` on a worker (the task arrives scattered)."""
    return task(first, last)


def _on_dask(client: Any, task: Callable[[int, int], T], chunks: Sequence[tuple[int, int]],
             sizes: Sequence[int], bar: Any) -> list[T]:
    from distributed import as_completed

    # the task (with the compiled game: megabytes of tables) goes to every worker once, not in each chunk's task
    threads = sum(client.nthreads().values()) or 1
    chunks, sizes = grouped(chunks, sizes, 4 * threads)  # fewer, larger tasks: each costs a scheduler round trip
    shared = client.scatter(task, broadcast=True, hash=False)
    futures = client.map(_call, [shared] * len(chunks), [a for a, _ in chunks], [b for _, b in chunks], pure=False)
    where = {f.key: i for i, f in enumerate(futures)}
    out: list[T | None] = [None] * len(futures)
    for fut in as_completed(futures):  # type: ignore[no-untyped-call]
        i = where[fut.key]
        out[i] = fut.result()
        bar.update(sizes[i])
    return [r for r in out if r is not None]
