"""The line-game driver: exact joint counts of (line win, observation code) over the cycle.

The plan (see :mod:`mathkit.exact.cycle`): line classes after the prefix
(:mod:`.classes`), the prefix pass over head classes and the grouping by alive
state (:mod:`.prefix`), the finishing tables of the suffix (:mod:`.finish`)
and the combine (:mod:`.combine`).  This module only prepares arrays and calls
the compiled kernels through :data:`~mathkit.exact.cycle.kernels.K`; what does not depend on
the enumeration itself is prepared once per input (:mod:`.plan`).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ...laws.law import merge
from ...model.bounds import check_cost, enumeration_cost
from ...spin.stops import StopTables
from ...spin.tables import PayTables
from .counts import DENSE_LIMIT, I64_SAFE, JointCounts, check_cycle
from .inputs import split_point
from .kernels import K
from .plan import LinePlan, line_plan
from .ways import joint_counts_ways

__all__ = ["DENSE_LIMIT", "I64_SAFE", "PARALLEL_MIN", "JointCounts", "check_cycle", "enumeration_memory", "joint_counts"]

IntArray = npt.NDArray[np.int64]

#: cycles from this size use threads when ``parallel=True`` (below it, starting them costs more than they save)
PARALLEL_MIN = 10**9


ENUMERATION_FIX = "estimate the figures by simulation (mathkit simulate), or shorten the strips (weights, not repeats)"


def check_enumeration(t: PayTables, st: StopTables) -> None:
    """Refuse, before it starts, an enumeration whose estimated memory or work passes the limits.

    A ways game is estimated from its reels' sizes (:func:`~mathkit.model.bounds.enumeration_cost`); a lines
    game's memory from what its kernels allocate, stage by stage (:func:`plan_memory` before the plan,
    :func:`pass_memory` before the prefix pass, :func:`combine_memory` before the combine), each checked
    before its stage starts.
    """
    lens = [len(w) for w in st.weights]
    width = len(t.entries) if t.ways else int(t.lines.shape[0])
    memory, work = enumeration_cost(lens, split_point(st.n_reels), width, int(st.rows.max()))
    if not t.ways:
        memory = plan_memory(lens, split_point(st.n_reels), width)
    _check(st, memory, work)


def _check(st: StopTables, memory: int, work: int = 0) -> None:
    check_cost(f"the full-cycle enumeration of reel set {st.name!r}", memory=memory, work=work, field=f"reels.{st.name}",
               fix=ENUMERATION_FIX)


def plan_memory(lens: list[int], split: int, width: int) -> int:
    """Bytes the lines plan takes to build (:mod:`.plan`): a line code per head combination (reels before the
    last prefix reel) and per suffix combination, with a few fields each."""
    head = math.prod(lens[: max(split - 1, 0)])
    suffix = math.prod(lens[split:])
    return int(8 * (head * max(width, 1) + suffix * (max(width, 1) + 4)))


def pass_memory(plan: LinePlan) -> int:
    """Bytes of the prefix pass (:func:`~mathkit.exact.cycle.prefix.prefix_groups`): the plan, the items (head
    class × last-reel stop: its alive pairs, four fields) and the member histograms of the grouping (the threaded
    pass measures no more: ``tests/test_par_fit.py``)."""
    head, last = plan.head, plan.last
    n_cls, n_last = int(head[0].shape[0]) - 1, int(last[0].shape[0])
    items = n_cls * n_last
    pairs = n_last * int(head[1].shape[0])
    triples = n_last * int(head[3][-1]) if head[3].shape[0] else 0
    per = 2 * pairs + 6 * items + 2 * triples
    return plan.nbytes + 8 * per


def combine_memory(plan: LinePlan, groups: tuple[IntArray, ...], size: int) -> int:
    """Bytes of the dense combine: the plan, the groups, the (win, code) table of ``size`` cells and its
    compacted cells (measured at a few percent of the table on the shipped games: a quarter allowed)."""
    return plan.nbytes + sum(int(a.nbytes) for a in groups) + 10 * size


def enumeration_memory(t: PayTables, st: StopTables) -> int:
    """The estimated peak bytes of :func:`joint_counts` of a lines game: the largest of its stages' estimates.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.laws.stage import SpinModel
    >>> from mathkit.spin.stops import stop_tables
    >>> from mathkit.spin.tables import pay_tables
    >>> g = load_game("data/games/benchmark_5x3.toml")
    >>> 1 << 20 < enumeration_memory(pay_tables(g), stop_tables(g, SpinModel("base"))) < 64 << 20
    True
    """
    lens = [len(w) for w in st.weights]
    peak = plan_memory(lens, split_point(st.n_reels), int(t.lines.shape[0]))
    if st.n_reels == 1:
        return peak
    plan = line_plan(t, st)
    peak = max(peak, pass_memory(plan))
    groups = K.prefix_groups(plan.head, plan.last, plan.pclass, plan.pdead, plan.n_codes)
    size = K.visit_plan(groups, plan.ft, plan.finmax, plan.n_codes, plan.sx_max, 1)[0]
    return max(peak, combine_memory(plan, groups, min(size, DENSE_LIMIT)))


def joint_counts(t: PayTables, st: StopTables, *, parallel: bool = False) -> JointCounts:
    """Exact joint counts of (line win, observation code) over the whole cycle of ``st``.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.laws.stage import SpinModel
    >>> from mathkit.spin.stops import stop_tables
    >>> from mathkit.spin.tables import pay_tables
    >>> g = load_game("data/games/classic_3reel.toml")
    >>> jc = joint_counts(pay_tables(g), stop_tables(g, SpinModel("base")))
    >>> int(jc.counts.sum()) == g.reel_set().cycle
    True
    """
    check_enumeration(t, st)
    if t.ways:
        return joint_counts_ways(t, st)
    cycle = st.cycle
    check_cycle(cycle, st.name)
    if st.n_reels == 1:
        return _one_reel(t, st)
    plan = line_plan(t, st)
    n_codes, ft = plan.n_codes, plan.ft
    threads = K.num_threads() if parallel and cycle >= PARALLEL_MIN else 1
    _check(st, pass_memory(plan))
    if threads > 1:
        groups = K.prefix_groups_parallel(plan.head, plan.last, plan.pclass, plan.pdead, n_codes, 4 * threads, threads)
    else:
        groups = K.prefix_groups(plan.head, plan.last, plan.pclass, plan.pdead, n_codes)
    # chunks of about equal work, a few per thread: the threads claim them as they go (mathkit.exact.cycle.claim)
    n_chunks = max(1, min(8 * threads, len(groups[0]) - 1)) if threads > 1 else 1
    size, visit, bounds = K.visit_plan(groups, ft, plan.finmax, n_codes, plan.sx_max, n_chunks)
    if size > DENSE_LIMIT:  # the (win, code) table is too large to hold densely: accumulate only the cells reached
        wins, codes, counts = K.combine_sparse(groups, ft, n_codes)
        return JointCounts(wins, codes, counts, st.digits, st.radix, st.sizes, cycle, threads)
    _check(st, combine_memory(plan, groups, size))
    args = (groups, visit, ft, n_codes, size)
    if threads > 1:
        wins, codes, counts, done = K.combine_all_parallel(*args, bounds, threads)
        threads = int((done > 0).sum())
    else:
        wins, codes, counts = K.compact(K.combine_all(*args), n_codes)
    return JointCounts(wins, codes, counts, st.digits, st.radix, st.sizes, cycle, threads)


def _one_reel(t: PayTables, st: StopTables) -> JointCounts:
    """A one-reel game: every stop evaluated on its own."""
    cols = st.cols[0]
    n_codes = st.n_codes
    keys = np.array([K.window_line_total(col[None, :], t.lines, t.match, t.pay, t.own, t.mult) for col in cols],
                    dtype=np.int64).reshape(-1) + st.extra[0]
    keys = keys * n_codes + st.codes(0)
    uniq, counts, _ = merge(keys, st.weights[0].astype(np.int64))
    return JointCounts(uniq // n_codes, uniq % n_codes, counts, st.digits, st.radix, st.sizes, st.cycle, 1)
