"""The line-game driver: exact joint counts of (line win, observation code) over the cycle."""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from ..bounds import check_cost, enumeration_cost
from ..errors import ModelError
from ..stops import StopTables
from ..tables import PayTables
from .classes import _line_classes, _sparse_finish
from .combine import _combine_all, _combine_all_parallel, _combine_sparse
from .counts import DENSE_LIMIT, I64_SAFE, JointCounts, check_cycle
from .passes import _alphabets, _compact, _groups, _line_codes, _prefix_pass, _side_pass, _stop_codes, split_point
from .ways import joint_counts_ways

__all__ = ["DENSE_LIMIT", "I64_SAFE", "JointCounts", "check_cycle", "joint_counts", "suffix_keys"]

IntArray = npt.NDArray[np.int64]


def suffix_keys(sxs: IntArray, ssc: IntArray, swt: IntArray, n_codes: int) -> tuple[IntArray, IntArray, IntArray]:
    """Suffix combinations keyed ``extra win · n_codes + code``, and the keys' histogram (keys, weights)."""
    sk = sxs * n_codes + ssc
    keys, inv = np.unique(sk, return_inverse=True)
    weights = np.zeros(len(keys), dtype=np.int64)
    np.add.at(weights, inv.reshape(-1), swt)
    return sk, keys.astype(np.int64), weights


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
    >>> from mathkit.io import load_game
    >>> from mathkit.stage import SpinModel
    >>> from mathkit.stops import stop_tables
    >>> from mathkit.tables import pay_tables
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
    if len(t.entries) > 62:
        msg = f"{len(t.entries)} pay entries; the distribution kernel handles at most 62"
        raise ModelError(msg)
    n_reels = st.n_reels
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
    cls, fixed, psc, pwt, hashes = _prefix_pass(lens, lc, weights, scode, xw, k, n_lines, pclass, pdead)
    swt, ssc, sxs, sseq = _side_pass(k, n_reels, lens, lc, weights, scode, xw, n_lines)
    order, starts = _groups(hashes, cls)
    sseq_t = np.ascontiguousarray(sseq.T)
    base, ptr, sp_j, sp_d = _sparse_finish(finc, sseq_t, swt)
    sk, hk, hv = suffix_keys(sxs, ssc, swt, n_codes)
    sx_max = int(sxs.max(initial=0))
    reps = order[starts[:-1]]
    # a tight bound on the largest total: per group, its largest fixed win plus its alive lines' best, plus the suffix extras
    alive_bound = finmax[cls[reps]].sum(axis=1) if cls.size else np.zeros(len(reps), dtype=np.int64)
    fixed_max = np.maximum.reduceat(fixed[order], starts[:-1]) if len(order) else np.zeros(1, dtype=np.int64)
    max_win = int((fixed_max + alive_bound).max()) + sx_max
    size = (max_win + 1) * n_codes
    if size > DENSE_LIMIT:  # the (win, code) table is too large to hold densely: accumulate only the cells reached
        wins, codes, counts = _combine_sparse(order, starts, cls, fixed, psc, pwt, base, ptr, sp_j, sp_d, sk, swt, hk,
                                              hv, n_codes)
        return JointCounts(wins, codes, counts, st.digits, st.radix, st.sizes, cycle, 1)
    args = (order, starts, cls, fixed, psc, pwt, finmax, base, ptr, sp_j, sp_d, sk, swt, hk, hv, sx_max, n_codes, size)
    if parallel:
        n_groups = len(starts) - 1
        n_chunks = max(1, min(nb.get_num_threads(), n_groups))
        # balance chunks by estimated work: sorting the members, plus the sparse finishing lists
        members = np.diff(starts).astype(np.float64)
        nnz = (ptr[:, 1:] - ptr[:, :-1]).astype(np.float64)
        rep_cls = cls[reps]
        sparse = np.where(rep_cls > 0, nnz[np.arange(n_lines)[None, :], rep_cls], 0.0).sum(axis=1)
        work = members * np.log2(members + 1) + 2 * sparse + len(hk)
        cum = np.concatenate([[0], np.cumsum(work)])
        bounds = np.searchsorted(cum, np.linspace(0, cum[-1], n_chunks + 1)).astype(np.int64)
        bounds[0], bounds[-1] = 0, n_groups
        bounds = np.maximum.accumulate(np.minimum(bounds, n_groups))
        flat, tids = _combine_all_parallel(*args, bounds)
        threads = len(np.unique(tids))
    else:
        flat = _combine_all(*args)
        threads = 1
    wins, codes, counts = _compact(flat, n_codes)
    return JointCounts(wins, codes, counts, st.digits, st.radix, st.sizes, cycle, threads)
