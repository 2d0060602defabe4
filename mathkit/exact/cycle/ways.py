"""The full-cycle win distribution of a ways game, by meeting in the middle.

Each pay entry ``e`` shows ``C[e, r, i]`` matching positions (a wild
multiplier counting that many) on reel ``r`` stopped at ``i``.  After the
prefix reels an entry is either dead — its win fixed — or alive with the
ways product ``W[e]`` so far.  Prefix combinations with equal ``W`` vectors
are grouped; each group meets every suffix combination once, where an alive
entry finishes as ``W[e] * G[e, j]`` with ``G`` tabulated once per suffix.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt

from ...laws.law import merge
from ...spin.stops import StopTables
from ...spin.tables import PayTables
from .counts import DENSE_LIMIT, JointCounts, check_cycle
from .inputs import split_point, stop_codes
from .kernels import K

__all__ = ["joint_counts_ways", "ways_entries"]

IntArray = npt.NDArray[np.int64]


def ways_entries(t: PayTables, st: StopTables, lmax: int) -> tuple[IntArray, IntArray]:
    """``(cnt, pay)``: per entry the matching positions ``cnt[e, r, i]`` and its pays by run length.

    With ``all_wild_ways = "void"`` (``t.ways_rule[0]``) each entry becomes one entry per reel ``j``:
    its ways whose first position that is not a wild is on reel ``j`` — the wild positions on the
    reels before ``j``, the other matching ones on ``j``, every matching one after — paying only runs
    that reach reel ``j``.  Their sum is every way but those made of wilds alone (``Π c − Π w`` over
    the run), and each is a product over the reels, as the kernels need.
    """
    n_reels = st.n_reels
    rows_c, rows_p = [], []
    void = bool(t.ways_rule[0])
    for e in range(len(t.entries)):
        contrib = np.where(t.match[e], t.mult, 0)
        wild = np.where(t.wild, contrib, 0)
        c = np.zeros((n_reels, lmax), dtype=np.int64)
        w = np.zeros((n_reels, lmax), dtype=np.int64)
        for r in range(n_reels):
            n = len(st.cols[r])
            c[r, :n] = contrib[st.cols[r]].sum(axis=1)
            w[r, :n] = wild[st.cols[r]].sum(axis=1)
        if not void:
            rows_c.append(c)
            rows_p.append(t.pay[e])
            continue
        for j in range(n_reels):
            cj = c.copy()
            cj[:j] = w[:j]
            cj[j] = c[j] - w[j]
            pj = t.pay[e].copy()
            pj[: j + 1] = 0  # a run that stops before reel j has its first non-wild position nowhere
            rows_c.append(cj)
            rows_p.append(pj)
    if not rows_c:
        return np.zeros((0, n_reels, lmax), dtype=np.int64), np.zeros((0, n_reels + 1), dtype=np.int64)
    return np.ascontiguousarray(np.stack(rows_c)), np.ascontiguousarray(np.stack(rows_p))


def joint_counts_ways(t: PayTables, st: StopTables) -> JointCounts:
    """Exact joint counts of (ways win, observation code) over the cycle of ``st``.

    With ``void_ways_at_wilds = n`` (``t.ways_rule[1]``) the count of wild cells is observed too:
    the cells showing ``n`` or more take their win from the spin with no pays (the extra wins alone),
    the others from the full one, and the count is summed out.
    """
    at = int(t.ways_rule[1])
    if at <= 0:
        return _joint_ways(t, st)
    shown = tuple(np.asarray(t.wild[c].sum(axis=1), dtype=np.int64) for c in st.cols)
    if sum(int(x.max(initial=0)) for x in shown) < at:
        return _joint_ways(t, st)
    n0 = st.n_codes
    ext = StopTables(st.name, st.cols, st.weights, (*st.digits, "#wilds"),
                     tuple(np.ascontiguousarray(np.column_stack([o, x])) for o, x in zip(st.obs, shown, strict=True)),
                     st.extra, st.extra_parts, st.stops)
    full = _joint_ways(t, ext)
    none = _joint_ways(dataclasses.replace(t, pay=np.zeros_like(t.pay)), ext)
    keep_full = full.codes // n0 < at
    keep_none = none.codes // n0 >= at
    wins = np.concatenate([full.wins[keep_full], none.wins[keep_none]])
    codes = np.concatenate([full.codes[keep_full], none.codes[keep_none]]) % n0
    counts = np.concatenate([full.counts[keep_full], none.counts[keep_none]])
    m = merge(wins * n0 + codes, counts)
    return JointCounts(m.keys // n0, m.keys % n0, np.asarray(m.weights, dtype=np.int64), st.digits, st.radix,
                       st.sizes, st.cycle, max(full.threads, none.threads))


def _joint_ways(t: PayTables, st: StopTables) -> JointCounts:
    cycle = st.cycle
    check_cycle(cycle, st.name)
    n_reels = st.n_reels
    k = split_point(n_reels)
    n_codes = st.n_codes
    lens, weights, scode, xw = stop_codes(st)
    lmax = weights.shape[1]
    cnt, pay = ways_entries(t, st, lmax)
    n_entries = cnt.shape[0]
    ways, fixed, psc, pwt, hashes = K.ways_prefix(k, lens, cnt, weights, scode, xw, pay)
    fin, ssc, sxs, swt = K.ways_suffix(k, lens, cnt, weights, scode, xw, pay)
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
