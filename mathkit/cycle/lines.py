"""The line-game driver: exact joint counts of (line win, scatter code) over the cycle."""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..tables import PayTables, ReelArrays
from .classes import _line_classes, _sparse_finish
from .combine import _combine_all, _combine_all_parallel
from .passes import _alphabets, _compact, _groups, _line_codes, _prefix_pass, _side_pass, _stop_codes, scatter_radix, split_point

__all__ = ["DENSE_LIMIT", "I64_SAFE", "JointCounts", "joint_counts"]

IntArray = npt.NDArray[np.int64]
DENSE_LIMIT = 1 << 25
I64_SAFE = 1 << 62


@dataclass(frozen=True, eq=False)
class JointCounts:
    """Exact counts of ``(line win in credits, scatter code)`` over the cycle.

    ``counts[w, c]`` is the total weight of outcomes whose line (or ways) wins
    add up to ``w`` credits and whose scatter counts pack to code ``c``
    (``code = sum_k count_k * radix[k]``).
    """

    wins: IntArray
    codes: IntArray
    counts: IntArray
    radix: IntArray
    cycle: int
    threads: int = 1

    def scatter_counts(self, code: IntArray | int, k: int) -> IntArray | int:
        """Count of scatter ``k`` encoded in ``code``."""
        nxt = self.radix[k + 1] if k + 1 < len(self.radix) else None
        c: IntArray = np.asarray(code, dtype=np.int64) // self.radix[k]
        return c % (nxt // self.radix[k]) if nxt is not None else c


def joint_counts(t: PayTables, ra: ReelArrays, *, parallel: bool = False) -> JointCounts:
    """Exact joint counts of (line win, scatter code) over the whole cycle of ``ra``.

    Examples
    --------
    >>> from mathkit.io import load_game
    >>> from mathkit.tables import pay_tables, reel_arrays
    >>> g = load_game("data/games/classic_3reel.toml")
    >>> jc = joint_counts(pay_tables(g), reel_arrays(g))
    >>> int(jc.counts.sum()) == g.reel_set().cycle
    True
    """
    if t.ways:
        from .ways import joint_counts_ways

        return joint_counts_ways(t, ra)
    cycle = 1
    for w in ra.weights:
        cycle *= int(w.sum())
    if cycle >= I64_SAFE:
        msg = (f"reel set {ra.name!r} has a cycle of {cycle} outcomes, beyond exact 64-bit counting; "
               "shorten the strips or lower the weights")
        raise ModelError(msg)
    if len(t.entries) > 62:
        msg = f"{len(t.entries)} pay entries; the distribution kernel handles at most 62"
        raise ModelError(msg)
    n_reels = ra.n_reels
    k = split_point(n_reels)
    alph, alen, local = _alphabets(ra)
    radix = scatter_radix(t, ra)
    n_codes = int(radix[-1] * (int(ra.rows.sum()) + 1)) if len(radix) else 1
    lens, weights, scode = _stop_codes(t, ra, radix)
    aradix = np.ones(n_reels, dtype=np.int64)
    for d in range(1, n_reels):
        aradix[d] = 1 if d == k else aradix[d - 1] * alen[d - 1]
    pclass, pdead, finc = _line_classes(t, alph, alen, k)
    finmax = finc.max(axis=1)
    n_lines = t.lines.shape[0]
    lc = _line_codes(ra, t.lines, local, aradix)
    cls, fixed, psc, pwt, hashes = _prefix_pass(lens, lc, weights, scode, k, n_lines, pclass, pdead)
    swt, ssc, sseq = _side_pass(k, n_reels, lens, lc, weights, scode, n_lines)
    order, starts = _groups(hashes, cls)
    sseq_t = np.ascontiguousarray(sseq.T)
    base, ptr, sp_j, sp_d = _sparse_finish(finc, sseq_t, swt)
    hs_sc = np.bincount(ssc, weights=None, minlength=n_codes).astype(np.int64) * 0
    np.add.at(hs_sc, ssc, swt)
    reps = order[starts[:-1]]
    # a tight bound on the largest line total: per group, its largest fixed win plus its alive lines' best
    alive_bound = finmax[cls[reps]].sum(axis=1) if cls.size else np.zeros(len(reps), dtype=np.int64)
    fixed_max = np.maximum.reduceat(fixed[order], starts[:-1]) if len(order) else np.zeros(1, dtype=np.int64)
    max_win = int((fixed_max + alive_bound).max())
    size = (max_win + 1) * n_codes
    if size > DENSE_LIMIT:
        msg = (f"the largest line total ({max_win} credits) is too large for the dense distribution kernel; "
               "lower the pays or the number of lines")
        raise ModelError(msg)
    args = (order, starts, cls, fixed, psc, pwt, finmax, base, ptr, sp_j, sp_d, ssc, swt, hs_sc, n_codes, size)
    if parallel:
        n_groups = len(starts) - 1
        n_chunks = max(1, min(nb.get_num_threads(), n_groups))
        # balance chunks by estimated work: sorting the members, plus the sparse finishing lists
        members = np.diff(starts).astype(np.float64)
        nnz = (ptr[:, 1:] - ptr[:, :-1]).astype(np.float64)
        rep_cls = cls[reps]
        sparse = np.where(rep_cls > 0, nnz[np.arange(n_lines)[None, :], rep_cls], 0.0).sum(axis=1)
        work = members * np.log2(members + 1) + 2 * sparse + n_codes
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
    return JointCounts(wins, codes, counts, radix, cycle, threads)
