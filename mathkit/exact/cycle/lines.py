"""The line-game driver: exact joint counts of (line win, observation code) over the cycle.

The plan (see :mod:`mathkit.exact.cycle`): line classes after the prefix
(:mod:`.classes`), the prefix pass over head classes and the grouping by alive
state (:mod:`.prefix`), the finishing tables of the suffix (:mod:`.finish`)
and the combine (:mod:`.combine`).  This module only prepares arrays and calls
the compiled kernels through :data:`~mathkit.exact.cycle.kernels.K`; what does not depend on
the enumeration itself is prepared once per input (:mod:`.plan`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ...laws.law import merge
from ...model.bounds import check_cost, enumeration_cost
from ...spin.stops import StopTables
from ...spin.tables import PayTables
from .counts import DENSE_LIMIT, I64_SAFE, JointCounts, check_cycle
from .inputs import split_point
from .kernels import K
from .plan import line_plan
from .ways import joint_counts_ways

__all__ = ["DENSE_LIMIT", "I64_SAFE", "PARALLEL_MIN", "JointCounts", "check_cycle", "joint_counts"]

IntArray = npt.NDArray[np.int64]

#: cycles from this size use threads when ``parallel=True`` (below it, starting them costs more than they save)
PARALLEL_MIN = 10**9
PARALLEL_MIN = 10**9


def check_enumeration(t: PayTables, st: StopTables) -> None:
    """Refuse, before it starts, an enumeration whose estimated memory or work passes the limits."""
    memory, work = enumeration_cost([len(w) for w in st.weights], split_point(st.n_reels),
                                    len(t.entries) if t.ways else int(t.lines.shape[0]), int(st.rows.max()))
    check_cost(f"the full-cycle enumeration of reel set {st.name!r}", memory=memory, work=work, field=f"reels.{st.name}",
               fix="estimate the figures by simulation (mathkit simulate), or shorten the strips (weights, not repeats)")


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
