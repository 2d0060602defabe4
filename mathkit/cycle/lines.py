"""The line-game driver: exact joint counts of (line win, observation code) over the cycle."""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..evaluate import window_line_total
from ..stops import StopTables
from ..tables import PayTables
from .classes import _line_classes
from .combine import _combine_all, _combine_all_parallel, _combine_sparse
from .counts import DENSE_LIMIT, I64_SAFE, JointCounts, check_cycle
from .finish import finish_tables
from .passes import _alphabets, _compact, _line_codes, _side_pass, _stop_codes, split_point
from .prefix import head_classes, prefix_groups, prefix_groups_parallel, settled_heads
from .ways import joint_counts_ways

__all__ = ["DENSE_LIMIT", "I64_SAFE", "JointCounts", "check_cycle", "joint_counts"]

IntArray = npt.NDArray[np.int64]


def joint_counts(t: PayTables, st: StopTables, *, parallel: bool = False) -> JointCounts:
    """Exact joint counts of (line win, observation code) over the whole cycle of ``st``.

    Examples
    --------
    >>> from mathkit.io import load_game
    >>> from mathkit.stage import SpinModel
    >>> from mathkit.stops import stop_tables
    >>> from mathkit.tables import pay_tables
    >>> g = load_game("data/games/classic_3reel.toml")
    >>> jc = joint_counts(pay_tables(g), stop_tables(g, SpinModel("base")))
    >>> int(jc.counts.sum()) == g.reel_set().cycle
    True
    """
    if t.ways:
        return joint_counts_ways(t, st)
    cycle = st.cycle
    check_cycle(cycle, st.name)
    if len(t.entries) > 62:
        msg = f"{len(t.entries)} pay entries; the distribution kernel handles at most 62"
        raise ModelError(msg)
    n_reels = st.n_reels
    if n_reels == 1:
        return _one_reel(t, st)
    k = split_point(n_reels)
    alph, alen, local = _alphabets(st)
    n_codes = st.n_codes
    lens, weights, scode, xw = _stop_codes(st)
    aradix = np.ones(n_reels, dtype=np.int64)
    for d in range(1, n_reels):
        aradix[d] = 1 if d == k else aradix[d - 1] * alen[d - 1]
    pclass, pdead, finc = _line_classes(t, alph, alen, k)
    finmax = finc.max(axis=1)
    n_lines = t.lines.shape[0]
    lc = _line_codes(t.lines, local, aradix)
    # the prefix: head reels 0..k-2 (grouped into head classes), then the last prefix reel
    hwt, hsc, hxs, hseq = _side_pass(0, k - 1, lens, lc, weights, scode, xw, n_lines)
    settled, sval = settled_heads(pclass, pdead, int(aradix[k - 1]))
    head = head_classes(hseq, hxs, hsc, hwt, settled, sval, n_codes)
    n_last = int(lens[k - 1])
    last = (weights[k - 1, :n_last].copy(), scode[k - 1, :n_last].copy(), xw[k - 1, :n_last].copy(),
            np.ascontiguousarray(lc[k - 1, :n_last]))
    threads = nb.get_num_threads() if parallel else 1
    if threads > 1:
        groups = prefix_groups_parallel(head, last, pclass, pdead, n_codes, 4 * threads)
    else:
        groups = prefix_groups(head, last, pclass, pdead, n_codes)
    # the suffix: the middle reel k, then the rest
    n_mid = int(lens[k])
    sym = np.ascontiguousarray(lc[k, :n_mid, :n_lines].T)
    mid = (weights[k, :n_mid].copy(), xw[k, :n_mid] * n_codes + scode[k, :n_mid])
    ft = finish_tables(finc, int(alen[k]), t.lines, k, sym, mid,
                       _side_pass(k + 1, n_reels, lens, lc, weights, scode, xw, n_lines), n_codes)
    sx_max = int(xw[k, :n_mid].max(initial=0)) + int(ft.rkey.max(initial=0)) // n_codes
    # a tight bound on the largest total: per group, its largest fixed win plus its alive lines' best, plus the suffix extras
    gptr, gl, gc, mptr, mkey, _mw = groups
    n_groups = len(gptr) - 1
    alive_bound = np.add.reduceat(np.append(finmax[gc], 0), gptr[:-1]) * (np.diff(gptr) > 0)
    fixed_max = np.maximum.reduceat(mkey // n_codes, mptr[:-1])
    max_win = int((fixed_max + alive_bound).max()) + sx_max
    size = (max_win + 1) * n_codes
    if size > DENSE_LIMIT:  # the (win, code) table is too large to hold densely: accumulate only the cells reached
        wins, codes, counts = _combine_sparse(groups, ft, n_codes)
        return JointCounts(wins, codes, counts, st.digits, st.radix, st.sizes, cycle, threads)
    # visit the groups by the cells they reach first, so that consecutive groups write near each other
    b_key = np.add.reduceat(np.append(ft.base[gc], 0), gptr[:-1]) * (np.diff(gptr) > 0) * n_codes
    visit = np.argsort(b_key + np.minimum.reduceat(mkey, mptr[:-1]), kind="stable").astype(np.int64)
    args = (groups, visit, ft, n_codes, size)
    if threads > 1:
        n_chunks = max(1, min(threads, n_groups))
        # balance chunks by estimated work: the middle-reel stops where an alive line goes on, and the meet
        touched = (ft.tptr[:, 1:] - ft.tptr[:, :-1]).astype(np.float64)[gl, gc]
        work_t = np.add.reduceat(np.append(touched, 0.0), gptr[:-1]) * (np.diff(gptr) > 0)
        work = 8 * work_t + np.diff(mptr) * (1 + work_t) + len(ft.rk)
        cum = np.concatenate([[0], np.cumsum(work[visit])])
        bounds = np.searchsorted(cum, np.linspace(0, cum[-1], n_chunks + 1)).astype(np.int64)
        bounds[0], bounds[-1] = 0, n_groups
        bounds = np.maximum.accumulate(np.minimum(bounds, n_groups))
        flat, tids = _combine_all_parallel(*args, bounds)
        threads = len(np.unique(tids))
    else:
        flat = _combine_all(*args)
    wins, codes, counts = _compact(flat, n_codes)
    return JointCounts(wins, codes, counts, st.digits, st.radix, st.sizes, cycle, threads)


def _one_reel(t: PayTables, st: StopTables) -> JointCounts:
    """A one-reel game: every stop evaluated on its own."""
    cols = st.cols[0]
    n_codes = st.n_codes
    keys = np.array([window_line_total(col[None, :], t.lines, t.match, t.pay, t.own, t.mult) for col in cols],
                    dtype=np.int64).reshape(-1) + st.extra[0]
    keys = keys * n_codes + st.codes(0)
    uniq, inv = np.unique(keys, return_inverse=True)
    counts = np.zeros(len(uniq), dtype=np.int64)
    np.add.at(counts, inv.reshape(-1), st.weights[0])
    return JointCounts(uniq // n_codes, uniq % n_codes, counts, st.digits, st.radix, st.sizes, st.cycle, 1)
