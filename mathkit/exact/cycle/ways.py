"""The full-cycle win distribution of a ways game, by meeting in the middle.

Each pay entry ``e`` shows ``C[e, r, i]`` matching positions (a wild
multiplier counting that many) on reel ``r`` stopped at ``i``.  After the
prefix reels an entry is either dead — its win fixed — or alive with the
ways product ``W[e]`` so far.  Prefix combinations with equal ``W`` vectors
are grouped; each group meets every suffix combination once, where an alive
entry finishes as ``W[e] * G[e, j]`` with ``G`` tabulated once per suffix.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ...spin.stops import StopTables
from ...spin.tables import PayTables
from .counts import DENSE_LIMIT, JointCounts, check_cycle
from .inputs import split_point, stop_codes
from .kernels import K

__all__ = ["joint_counts_ways"]

IntArray = npt.NDArray[np.int64]


def joint_counts_ways(t: PayTables, st: StopTables) -> JointCounts:
    """Exact joint counts of (ways win, observation code) over the cycle of ``st``."""
    cycle = st.cycle
    check_cycle(cycle, st.name)
    n_reels = st.n_reels
    k = split_point(n_reels)
    n_codes = st.n_codes
    lens, weights, scode, xw = stop_codes(st)
    lmax = weights.shape[1]
    n_entries = len(t.entries)
    cnt = np.zeros((n_entries, n_reels, lmax), dtype=np.int64)
    for e in range(n_entries):
        contrib = np.where(t.match[e], t.mult, 0)
        for r in range(n_reels):
            cnt[e, r, : lens[r]] = contrib[st.cols[r]].sum(axis=1)
    ways, fixed, psc, pwt, hashes = K.ways_prefix(k, lens, cnt, weights, scode, xw, t.pay)
    fin, ssc, sxs, swt = K.ways_suffix(k, lens, cnt, weights, scode, xw, t.pay)
    order, starts = K.groups(hashes, ways)
    finmax = fin.max(axis=1) if fin.size else np.zeros(n_entries, dtype=np.int64)
    reps = order[starts[:-1]]
    max_win = int(fixed.max()) + int((ways[reps] * finmax[None, :]).sum(axis=1).max()) + int(sxs.max(initial=0))
    size = (max_win + 1) * n_codes
    if size > DENSE_LIMIT:  # too large to hold densely: accumulate only the cells reached
        wins, codes, counts = K.ways_combine_sparse(order, starts, ways, fixed, psc, pwt, fin, ssc, sxs, swt, n_codes)
        return JointCounts(wins, codes, counts, st.digits, st.radix, st.sizes, cycle)
    flat = K.ways_combine(order, starts, ways, fixed, psc, pwt, fin, finmax, ssc, sxs, swt, n_codes, size)
    grid = flat.reshape(max_win + 1, n_codes)
    wins, codes = np.nonzero(grid)
    return JointCounts(wins.astype(np.int64), codes.astype(np.int64), grid[wins, codes], st.digits, st.radix, st.sizes,
                       cycle)
