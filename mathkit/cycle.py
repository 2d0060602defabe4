"""The full-cycle win distribution, exactly, by meeting in the middle.

Visiting every stop combination of a 5×3 game costs ~0.1 s per 80M stops
just to touch them.  Instead the reels are split into a prefix (reels
``0..k-1``) and a suffix (``k..R-1``):

1. For a line, the pay rules depend only on the symbol sequence.  The table
   ``fin[p, q]`` gives the line win of prefix sequence ``p`` followed by suffix
   sequence ``q`` (over each reel's own alphabet).  Prefixes whose rows are
   equal behave identically whatever follows: they form one *class*; a
   constant row means the line is already *dead* with a fixed win.
2. Every prefix stop combination reduces to ``(fixed win of dead lines,
   scatter code, the alive lines with their classes)``.  Combinations with
   the same alive lines are grouped.
3. Each group meets every suffix combination once: the alive lines finish
   through ``fin``, and the group's histogram of ``(fixed, scatter)`` is
   combined with the suffix histogram of ``(alive win, scatter)``.

The result is the exact joint count of every ``(line win, scatter code)``
over the cycle, in integers.  Ways games use the same plan with per-entry
ways products in place of lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from .errors import ModelError
from .evaluate import line_win
from .tables import PayTables, ReelArrays

__all__ = ["JointCounts", "joint_counts"]

IntArray = npt.NDArray[np.int64]
AnyIntArray = npt.NDArray[np.integer[Any]]
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


# ----------------------------------------------------------------------------- kernels
@nb.njit(cache=True)
def _prefix_states_table(alph: IntArray, alen: IntArray, k: int, match: npt.NDArray[np.bool_], pay: IntArray,
                         own: npt.NDArray[np.bool_], mult: IntArray) -> IntArray:  # pragma: no cover
    """State of a line after each prefix sequence: (alive-entries bitmask, multiplier, best dead win).

    Two prefixes with the same state pay the same whatever follows: entries
    still alive have run ``k`` and multiplier ``m`` so far, the dead ones are
    worth at most ``best``.  Needs at most 62 pay entries.
    """
    n_p = 1
    for d in range(k):
        n_p *= alen[d]
    n_entries = match.shape[0]
    out = np.empty((n_p, 3), dtype=np.int64)
    seq = np.empty(k, dtype=np.int64)
    for p in range(n_p):
        x = p
        for d in range(k):
            seq[d] = alph[d, x % alen[d]]
            x //= alen[d]
        alive = np.int64(0)
        best = 0
        m_all = 1
        for e in range(n_entries):
            n = 0
            m = 1
            for d in range(k):
                s = seq[d]
                if not match[e, s]:
                    break
                n += 1
                m *= mult[s]
            if n == k:
                alive |= np.int64(1) << np.int64(e)
                m_all = m
            else:
                v = pay[e, n]
                if v > 0 and not own[e]:
                    v *= m
                best = max(best, v)
        out[p, 0] = alive
        out[p, 1] = m_all if alive != 0 else 0
        out[p, 2] = best
    return out


@nb.njit(cache=True)
def _finish_table(reps: IntArray, alph: IntArray, alen: IntArray, k: int, match: npt.NDArray[np.bool_],
                  pay: IntArray, own: npt.NDArray[np.bool_], mult: IntArray) -> IntArray:  # pragma: no cover
    """``fin[c, q]``: line win of class representative ``reps[c]`` followed by suffix sequence ``q``."""
    n_reels = alen.shape[0]
    n_q = 1
    for d in range(k, n_reels):
        n_q *= alen[d]
    fin = np.empty((reps.shape[0], n_q), dtype=np.int64)
    seq = np.empty(n_reels, dtype=np.int64)
    for c in range(reps.shape[0]):
        x = reps[c]
        for d in range(k):
            seq[d] = alph[d, x % alen[d]]
            x //= alen[d]
        for q in range(n_q):
            y = q
            for d in range(k, n_reels):
                seq[d] = alph[d, y % alen[d]]
                y //= alen[d]
            fin[c, q] = line_win(seq, match, pay, own, mult)[0]
    return fin


@nb.njit(cache=True)
def _side_pass(first: int, last: int, lens: IntArray, lc: IntArray, weights: IntArray, scode: IntArray,
               n_lines: int) -> tuple[IntArray, IntArray, IntArray]:  # pragma: no cover
    """For every stop combination of reels first..last-1: weight, scatter code, per-line sequence code."""
    n = 1
    for d in range(first, last):
        n *= lens[d]
    wt = np.empty(n, dtype=np.int64)
    sc = np.empty(n, dtype=np.int64)
    seqc = np.zeros((n, n_lines), dtype=np.int64)
    for idx in range(n):
        x = idx
        w = 1
        c = 0
        for d in range(first, last):
            i = x % lens[d]
            x //= lens[d]
            w *= weights[d, i]
            c += scode[d, i]
            for li in range(n_lines):
                seqc[idx, li] += lc[d, i, li]
        wt[idx] = w
        sc[idx] = c
    return wt, sc, seqc


@nb.njit(cache=True)
def _prefix_pass(lens: IntArray, lc: IntArray, weights: IntArray, scode: IntArray, k: int, n_lines: int,
                 pclass: IntArray, pdead: IntArray) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:  # pragma: no cover
    """Every prefix stop combination reduced to (line classes, fixed win, scatter code, weight, hash).

    Combination ``idx = j + n_head * i`` pairs head combination ``j`` of reels
    ``0..k-2`` with stop ``i`` of reel ``k-1``.
    """
    hwt, hsc, hseq = _side_pass(0, k - 1, lens, lc, weights, scode, n_lines)
    n_head = hwt.shape[0]
    last = k - 1
    n = n_head * lens[last]
    cls = np.zeros((n, n_lines), dtype=np.int32)
    fixed = np.zeros(n, dtype=np.int64)
    sc = np.zeros(n, dtype=np.int64)
    wt = np.empty(n, dtype=np.int64)
    hashes = np.zeros(n, dtype=np.int64)
    for i in range(lens[last]):
        lci = lc[last, i]
        for j in range(n_head):
            idx = j + n_head * i
            wt[idx] = hwt[j] * weights[last, i]
            sc[idx] = hsc[j] + scode[last, i]
            hj = hseq[j]
            f = 0
            h = np.uint64(1469598103934665603)
            any_alive = False
            for li in range(n_lines):
                p = hj[li] + lci[li]
                cl = pclass[p]
                if cl == 0:
                    f += pdead[p]
                else:
                    cls[idx, li] = cl
                    any_alive = True
                    h = (h ^ np.uint64(li * 1000003 + cl)) * np.uint64(1099511628211)
                    h ^= h >> np.uint64(29)
            fixed[idx] = f
            hashes[idx] = np.int64(h >> np.uint64(1)) if any_alive else 0
    return cls, fixed, sc, wt, hashes


@nb.njit(cache=True)
def _groups(hashes: IntArray, cls: AnyIntArray) -> tuple[IntArray, IntArray]:  # pragma: no cover
    """Order prefix combinations so equal alive-states are contiguous; return order and group starts.

    Combinations with no alive line (hash 0) form the first group; the others
    are sorted by hash, and a hash collision only splits a group (never merges two).
    """
    n, m = cls.shape
    n_dead = 0
    for i in range(n):
        if hashes[i] == 0:
            n_dead += 1
    order = np.empty(n, dtype=np.int64)
    alive = np.empty(n - n_dead, dtype=np.int64)
    a = 0
    d = 0
    for i in range(n):
        if hashes[i] == 0:
            order[d] = i
            d += 1
        else:
            alive[a] = i
            a += 1
    sub = alive[np.argsort(hashes[alive])]
    order[n_dead:] = sub
    starts = np.empty(n + 2, dtype=np.int64)
    ng = 0
    if n_dead > 0:
        starts[0] = 0
        ng = 1
    rep = -1
    for t in range(n_dead, n):
        i = order[t]
        same = rep >= 0 and hashes[i] == hashes[rep]
        if same:
            for j in range(m):
                if cls[i, j] != cls[rep, j]:
                    same = False
                    break
        if not same:
            starts[ng] = t
            ng += 1
            rep = i
    starts[ng] = n
    return order, starts[: ng + 1]


@nb.njit(cache=True)
def _reduce(keys: IntArray, vals: IntArray) -> tuple[IntArray, IntArray]:  # pragma: no cover
    order = np.argsort(keys, kind="mergesort")
    uk = np.empty(keys.shape[0], dtype=np.int64)
    uv = np.empty(keys.shape[0], dtype=np.int64)
    n = 0
    for t in range(order.shape[0]):
        i = order[t]
        if n > 0 and uk[n - 1] == keys[i]:
            uv[n - 1] += vals[i]
        else:
            uk[n] = keys[i]
            uv[n] = vals[i]
            n += 1
    return uk[:n], uv[:n]


@nb.njit(cache=True)
def _sparse_finish(finc: IntArray, sseqT: IntArray, swt: IntArray) -> tuple[IntArray, IntArray, IntArray, IntArray]:  # pragma: no cover
    """Per (line, class): the commonest finishing win ``base`` and the sparse rest.

    ``finc[c, sseqT[l, j]] = base[l, c] + delta`` where the non-zero deltas of
    (l, c) are ``sp_d[ptr[l, c]:ptr[l, c + 1]]`` at suffix combinations ``sp_j``.
    Most suffixes end an alive line at once, so the lists are short.
    """
    n_lines, n_s = sseqT.shape
    n_cls = finc.shape[0]
    # the commonest value over line 0's suffixes; any base is correct, a common one keeps lists short
    base_c = np.zeros(n_cls, dtype=np.int64)
    vals = np.empty(n_s, dtype=np.int64)
    for c in range(n_cls):
        row = finc[c]
        for j in range(n_s):
            vals[j] = row[sseqT[0, j]]
        srt = np.sort(vals)
        best = srt[0]
        best_n = 0
        run = 0
        for t in range(n_s):
            run = run + 1 if t > 0 and srt[t] == srt[t - 1] else 1
            if run > best_n:
                best_n = run
                best = srt[t]
        base_c[c] = best
    base = np.zeros((n_lines, n_cls), dtype=np.int64)
    ptr = np.zeros((n_lines, n_cls + 1), dtype=np.int64)
    total = 0
    for li in range(n_lines):
        col = sseqT[li]
        ptr[li, 0] = total
        for c in range(n_cls):
            row = finc[c]
            b = base_c[c]
            base[li, c] = b
            for j in range(n_s):
                if row[col[j]] != b:
                    total += 1
            ptr[li, c + 1] = total
    sp_j = np.empty(total, dtype=np.int64)
    sp_d = np.empty(total, dtype=np.int64)
    pos = 0
    for li in range(n_lines):
        col = sseqT[li]
        for c in range(n_cls):
            row = finc[c]
            b = base[li, c]
            for j in range(n_s):
                v = row[col[j]] - b
                if v != 0:
                    sp_j[pos] = j
                    sp_d[pos] = v
                    pos += 1
    return base, ptr, sp_j, sp_d


@nb.njit(cache=True)
def _meet(members: IntArray, fixed: IntArray, psc: IntArray, pwt: IntArray, tk: IntArray, nk: int, buf: IntArray,
          n_codes: int, out: IntArray) -> None:  # pragma: no cover
    """Combine a group's prefix histogram of (fixed win, scatter code) with its suffix histogram.

    The suffix histogram is ``buf`` at the ``nk`` keys ``tk`` (``win * n_codes + code``).
    """
    m = members.shape[0]
    pk = np.empty(m, dtype=np.int64)
    pv = np.empty(m, dtype=np.int64)
    for t in range(m):
        i = members[t]
        pk[t] = fixed[i] * n_codes + psc[i]
        pv[t] = pwt[i]
    if m > 1:
        pk, pv = _reduce(pk, pv)
    for a in range(pk.shape[0]):
        fa = pk[a] // n_codes
        ca = pk[a] - fa * n_codes
        va = pv[a]
        for b in range(nk):
            kb = tk[b]
            vb = buf[kb]
            if vb != 0:
                fb = kb // n_codes
                out[(fa + fb) * n_codes + ca + kb - fb * n_codes] += va * vb


@nb.njit(cache=True)
def _combine_range(g0: int, g1: int, order: IntArray, starts: IntArray, cls: AnyIntArray,
                   fixed: IntArray, psc: IntArray, pwt: IntArray, finmax: IntArray, base: IntArray, ptr: IntArray,
                   sp_j: IntArray, sp_d: IntArray, ssc: IntArray, swt: IntArray, hs_sc: IntArray, n_codes: int,
                   out: IntArray) -> None:  # pragma: no cover
    n_lines = cls.shape[1]
    n_s = ssc.shape[0]
    wv = np.zeros(n_s, dtype=np.int64)
    seen = np.zeros(n_s, dtype=np.bool_)
    tj = np.empty(n_s, dtype=np.int64)
    cap = 1024
    buf = np.zeros(cap * n_codes, dtype=np.int64)
    mark = np.zeros(cap * n_codes, dtype=np.bool_)
    tk = np.empty(n_s + n_codes, dtype=np.int64)
    for g in range(g0, g1):
        members = order[starts[g]: starts[g + 1]]
        rep = members[0]
        b_sum = 0
        w_max = 0
        nt = 0
        for li in range(n_lines):
            c = cls[rep, li]
            if c > 0:
                b_sum += base[li, c]
                w_max += finmax[c]
                for t in range(ptr[li, c], ptr[li, c + 1]):
                    j = sp_j[t]
                    if not seen[j]:
                        seen[j] = True
                        tj[nt] = j
                        nt += 1
                    wv[j] += sp_d[t]
        if w_max + 1 > cap:
            cap = w_max + 1
            buf = np.zeros(cap * n_codes, dtype=np.int64)
            mark = np.zeros(cap * n_codes, dtype=np.bool_)
        nk = 0
        for code in range(n_codes):
            if hs_sc[code] != 0:
                key = b_sum * n_codes + code
                buf[key] += hs_sc[code]
                if not mark[key]:
                    mark[key] = True
                    tk[nk] = key
                    nk += 1
        for t in range(nt):
            j = tj[t]
            if wv[j] != 0:
                # this suffix pays base + delta, not base
                buf[b_sum * n_codes + ssc[j]] -= swt[j]
                key = (b_sum + wv[j]) * n_codes + ssc[j]
                buf[key] += swt[j]
                if not mark[key]:
                    mark[key] = True
                    tk[nk] = key
                    nk += 1
            wv[j] = 0
            seen[j] = False
        _meet(members, fixed, psc, pwt, tk, nk, buf, n_codes, out)
        for b in range(nk):
            buf[tk[b]] = 0
            mark[tk[b]] = False


@nb.njit(cache=True)
def _combine_all(order: IntArray, starts: IntArray, cls: AnyIntArray, fixed: IntArray, psc: IntArray,
                 pwt: IntArray, finmax: IntArray, base: IntArray, ptr: IntArray, sp_j: IntArray, sp_d: IntArray,
                 ssc: IntArray, swt: IntArray, hs_sc: IntArray, n_codes: int, size: int) -> IntArray:  # pragma: no cover
    out = np.zeros(size, dtype=np.int64)
    _combine_range(0, starts.shape[0] - 1, order, starts, cls, fixed, psc, pwt, finmax, base, ptr, sp_j, sp_d, ssc, swt,
                   hs_sc, n_codes, out)
    return out


@nb.njit(cache=True, parallel=True)
def _combine_all_parallel(order: IntArray, starts: IntArray, cls: AnyIntArray, fixed: IntArray,
                          psc: IntArray, pwt: IntArray, finmax: IntArray, base: IntArray, ptr: IntArray,
                          sp_j: IntArray, sp_d: IntArray, ssc: IntArray, swt: IntArray, hs_sc: IntArray, n_codes: int, size: int,
                          bounds: IntArray) -> tuple[IntArray, IntArray]:  # pragma: no cover
    n_chunks = bounds.shape[0] - 1
    outs = np.zeros((n_chunks, size), dtype=np.int64)
    tids = np.zeros(n_chunks, dtype=np.int64)
    for c in nb.prange(n_chunks):
        tids[c] = nb.get_thread_id()  # type: ignore[attr-defined]
        _combine_range(bounds[c], bounds[c + 1], order, starts, cls, fixed, psc, pwt, finmax, base, ptr, sp_j, sp_d, ssc,
                       swt, hs_sc, n_codes, outs[c])
    return outs.sum(axis=0), tids


@nb.njit(cache=True)
def _compact(flat: IntArray, n_codes: int) -> tuple[IntArray, IntArray, IntArray]:  # pragma: no cover
    """The non-zero cells of the dense (win, code) table as (wins, codes, counts)."""
    n = 0
    for i in range(flat.shape[0]):
        if flat[i] != 0:
            n += 1
    wins = np.empty(n, dtype=np.int64)
    codes = np.empty(n, dtype=np.int64)
    counts = np.empty(n, dtype=np.int64)
    k = 0
    for i in range(flat.shape[0]):
        if flat[i] != 0:
            wins[k] = i // n_codes
            codes[k] = i - wins[k] * n_codes
            counts[k] = flat[i]
            k += 1
    return wins, codes, counts


# ----------------------------------------------------------------------------- driver
def _alphabets(ra: ReelArrays) -> tuple[IntArray, IntArray, IntArray]:
    """Per reel: its alphabet, the alphabet's size, and each stop's rows as local indices."""
    n_reels = ra.n_reels
    alphs = [np.unique(s) for s in ra.strips]
    amax = max(len(a) for a in alphs)
    alph = np.zeros((n_reels, amax), dtype=np.int64)
    alen = np.array([len(a) for a in alphs], dtype=np.int64)
    lmax = max(len(s) for s in ra.strips)
    rmax = int(ra.rows.max())
    local = np.zeros((n_reels, lmax, rmax), dtype=np.int64)
    for r, a in enumerate(alphs):
        alph[r, : len(a)] = a
        cols = ra.columns(r)
        local[r, : cols.shape[0], : cols.shape[1]] = np.searchsorted(a, cols)
    return alph, alen, local


def scatter_radix(t: PayTables, ra: ReelArrays) -> IntArray:
    """Radix of each scatter's count in the packed scatter code (count ≤ window size)."""
    size = int(ra.rows.sum()) + 1
    return np.array([size**k for k in range(len(t.scatter_ids))], dtype=np.int64)


def _stop_codes(t: PayTables, ra: ReelArrays, radix: IntArray) -> tuple[IntArray, IntArray, IntArray]:
    n_reels = ra.n_reels
    lmax = max(len(s) for s in ra.strips)
    lens = np.array([len(s) for s in ra.strips], dtype=np.int64)
    weights = np.zeros((n_reels, lmax), dtype=np.int64)
    scode = np.zeros((n_reels, lmax), dtype=np.int64)
    for r in range(n_reels):
        weights[r, : lens[r]] = ra.weights[r]
        cols = ra.columns(r)
        for k, s in enumerate(t.scatter_ids):
            scode[r, : lens[r]] += (cols == s).sum(axis=1) * radix[k]
    return lens, weights, scode


def split_point(n_reels: int) -> int:
    """Number of prefix reels: the larger half."""
    return n_reels - n_reels // 2


def _line_classes(t: PayTables, alph: IntArray, alen: IntArray, k: int) -> tuple[IntArray, IntArray, IntArray]:
    """Prefix sequence -> class (0 = dead), dead win per prefix, and the finishing table per class."""
    states = _prefix_states_table(alph, alen, k, t.match, t.pay, t.own, t.mult)
    alive = states[:, 0] != 0
    pclass = np.zeros(len(states), dtype=np.int64)
    pdead = np.where(alive, 0, states[:, 2])
    if alive.any():
        _uniq, first, inverse = np.unique(states[alive], axis=0, return_index=True, return_inverse=True)
        pclass[alive] = inverse.reshape(-1) + 1
        reps = np.flatnonzero(alive)[first]
        fin = _finish_table(reps, alph, alen, k, t.match, t.pay, t.own, t.mult)
    else:
        fin = np.zeros((0, 1), dtype=np.int64)
    finc = np.vstack([np.zeros((1, fin.shape[1]), dtype=np.int64), fin])
    return pclass, pdead, finc


def _line_codes(ra: ReelArrays, lines: IntArray, local: IntArray, aradix: IntArray) -> IntArray:
    """``lc[d, i, l]``: contribution of reel ``d`` stopped at ``i`` to line ``l``'s sequence code."""
    n_reels, lmax, _ = local.shape
    lc = np.zeros((n_reels, lmax, max(lines.shape[0], 1)), dtype=np.int64)
    for d in range(n_reels):
        if lines.shape[0]:
            lc[d, :, : lines.shape[0]] = local[d][:, lines[:, d]] * aradix[d]
    return lc


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
        from .cycle_ways import joint_counts_ways

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
