"""Stop-level passes: per-reel inputs, prefix/suffix enumeration, grouping and compaction."""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from ..stops import StopTables

IntArray = npt.NDArray[np.int64]
AnyIntArray = npt.NDArray[np.integer[Any]]


@nb.njit(cache=True)
def _side_pass(first: int, last: int, lens: IntArray, lc: IntArray, weights: IntArray, scode: IntArray, xw: IntArray,
               n_lines: int) -> tuple[IntArray, IntArray, IntArray, IntArray]:  # pragma: no cover
    """For every stop combination of reels first..last-1: weight, observation code, extra win, per-line sequence code."""
    n = 1
    for d in range(first, last):
        n *= lens[d]
    wt = np.empty(n, dtype=np.int64)
    sc = np.empty(n, dtype=np.int64)
    xs = np.empty(n, dtype=np.int64)
    seqc = np.zeros((n, n_lines), dtype=np.int64)
    for idx in range(n):
        x = idx
        w = 1
        c = 0
        e = 0
        for d in range(first, last):
            i = x % lens[d]
            x //= lens[d]
            w *= weights[d, i]
            c += scode[d, i]
            e += xw[d, i]
            for li in range(n_lines):
                seqc[idx, li] += lc[d, i, li]
        wt[idx] = w
        sc[idx] = c
        xs[idx] = e
    return wt, sc, xs, seqc


@nb.njit(cache=True)
def _prefix_pass(lens: IntArray, lc: IntArray, weights: IntArray, scode: IntArray, xw: IntArray, k: int, n_lines: int,
                 pclass: IntArray, pdead: IntArray) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:  # pragma: no cover
    """Every prefix stop combination reduced to (line classes, fixed win, observation code, weight, hash).

    The fixed win holds the dead lines' wins and the stops' extra wins.  Combination
    ``idx = j + n_head * i`` pairs head combination ``j`` of reels ``0..k-2`` with stop
    ``i`` of reel ``k-1``.
    """
    hwt, hsc, hxs, hseq = _side_pass(0, k - 1, lens, lc, weights, scode, xw, n_lines)
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
            f = hxs[j] + xw[last, i]
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


def _alphabets(st: StopTables) -> tuple[IntArray, IntArray, IntArray]:
    """Per reel: its alphabet, the alphabet's size, and each stop's rows as local indices."""
    n_reels = st.n_reels
    alphs = [np.unique(c) for c in st.cols]
    amax = max(len(a) for a in alphs)
    alph = np.zeros((n_reels, amax), dtype=np.int64)
    alen = np.array([len(a) for a in alphs], dtype=np.int64)
    lmax = max(c.shape[0] for c in st.cols)
    rmax = int(st.rows.max())
    local = np.zeros((n_reels, lmax, rmax), dtype=np.int64)
    for r, a in enumerate(alphs):
        alph[r, : len(a)] = a
        cols = st.cols[r]
        local[r, : cols.shape[0], : cols.shape[1]] = np.searchsorted(a, cols)
    return alph, alen, local


def _stop_codes(st: StopTables) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Per reel, padded to the longest: stop count, weights, packed observation codes, extra wins."""
    n_reels = st.n_reels
    lens = np.array([len(w) for w in st.weights], dtype=np.int64)
    lmax = int(lens.max())
    weights = np.zeros((n_reels, lmax), dtype=np.int64)
    scode = np.zeros((n_reels, lmax), dtype=np.int64)
    xw = np.zeros((n_reels, lmax), dtype=np.int64)
    for r in range(n_reels):
        weights[r, : lens[r]] = st.weights[r]
        scode[r, : lens[r]] = st.codes(r)
        xw[r, : lens[r]] = st.extra[r]
    return lens, weights, scode, xw


def split_point(n_reels: int) -> int:
    """Number of prefix reels: the larger half."""
    return n_reels - n_reels // 2


def _line_codes(lines: IntArray, local: IntArray, aradix: IntArray) -> IntArray:
    """``lc[d, i, l]``: contribution of reel ``d`` stopped at ``i`` to line ``l``'s sequence code."""
    n_reels, lmax, _ = local.shape
    lc = np.zeros((n_reels, lmax, max(lines.shape[0], 1)), dtype=np.int64)
    for d in range(n_reels):
        if lines.shape[0]:
            lc[d, :, : lines.shape[0]] = local[d][:, lines[:, d]] * aradix[d]
    return lc
