"""Compiled passes of the ways kernel: prefix ways products, suffix finishing table, and the combine."""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from .combine import _meet, _meet_sparse, _member_hist, _sparse_cells
from .passes import _reduce

IntArray = npt.NDArray[np.int64]


@nb.njit(cache=True)
def _ways_prefix(k: int, lens: IntArray, cnt: IntArray, weights: IntArray, scode: IntArray, xw: IntArray,
                 pay: IntArray) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:  # pragma: no cover
    n_entries = cnt.shape[0]
    n = 1
    for d in range(k):
        n *= lens[d]
    ways = np.zeros((n, n_entries), dtype=np.int64)
    fixed = np.zeros(n, dtype=np.int64)
    sc = np.zeros(n, dtype=np.int64)
    wt = np.empty(n, dtype=np.int64)
    hashes = np.zeros(n, dtype=np.int64)
    stops = np.empty(k, dtype=np.int64)
    for idx in range(n):
        x = idx
        w = 1
        c = 0
        f = 0
        for d in range(k):
            stops[d] = x % lens[d]
            x //= lens[d]
            w *= weights[d, stops[d]]
            c += scode[d, stops[d]]
            f += xw[d, stops[d]]
        wt[idx] = w
        sc[idx] = c
        h = np.uint64(1469598103934665603)
        any_alive = False
        for e in range(n_entries):
            prod = 1
            run = 0
            for d in range(k):
                cc = cnt[e, d, stops[d]]
                if cc == 0:
                    break
                prod *= cc
                run += 1
            if run == k:
                ways[idx, e] = prod
                any_alive = True
                h = (h ^ np.uint64(e * 1000003 + prod)) * np.uint64(1099511628211)
                h ^= h >> np.uint64(29)
            else:
                f += pay[e, run] * prod
        fixed[idx] = f
        hashes[idx] = np.int64(h >> np.uint64(1)) if any_alive else 0
    return ways, fixed, sc, wt, hashes


@nb.njit(cache=True)
def _ways_suffix(k: int, lens: IntArray, cnt: IntArray, weights: IntArray, scode: IntArray, xw: IntArray,
                 pay: IntArray) -> tuple[IntArray, IntArray, IntArray, IntArray]:  # pragma: no cover
    n_entries = cnt.shape[0]
    n_reels = lens.shape[0]
    n = 1
    for d in range(k, n_reels):
        n *= lens[d]
    fin = np.zeros((n_entries, n), dtype=np.int64)
    sc = np.zeros(n, dtype=np.int64)
    xs = np.zeros(n, dtype=np.int64)
    wt = np.empty(n, dtype=np.int64)
    stops = np.empty(n_reels, dtype=np.int64)
    for idx in range(n):
        x = idx
        w = 1
        c = 0
        e = 0
        for d in range(k, n_reels):
            stops[d] = x % lens[d]
            x //= lens[d]
            w *= weights[d, stops[d]]
            c += scode[d, stops[d]]
            e += xw[d, stops[d]]
        wt[idx] = w
        sc[idx] = c
        xs[idx] = e
        for e in range(n_entries):
            prod = 1
            run = k
            for d in range(k, n_reels):
                cc = cnt[e, d, stops[d]]
                if cc == 0:
                    break
                prod *= cc
                run += 1
            fin[e, idx] = pay[e, run] * prod
    return fin, sc, xs, wt


@nb.njit(cache=True)
def _ways_combine(order: IntArray, starts: IntArray, ways: IntArray, fixed: IntArray, psc: IntArray, pwt: IntArray,
                  fin: IntArray, finmax: IntArray, ssc: IntArray, sxs: IntArray, swt: IntArray, n_codes: int,
                  size: int) -> IntArray:  # pragma: no cover
    out = np.zeros(size, dtype=np.int64)
    n_entries = ways.shape[1]
    n_s = ssc.shape[0]
    cap = 1024
    buf = np.zeros(cap * n_codes, dtype=np.int64)
    tk = np.empty(n_s, dtype=np.int64)
    wv = np.empty(n_s, dtype=np.int64)
    for g in range(starts.shape[0] - 1):
        members = order[starts[g]: starts[g + 1]]
        rep = members[0]
        w_max = 0
        for j in range(n_s):
            wv[j] = sxs[j]
            w_max = max(w_max, sxs[j])
        for e in range(n_entries):
            we = ways[rep, e]
            if we > 0:
                w_max += we * finmax[e]
                row = fin[e]
                for j in range(n_s):
                    wv[j] += we * row[j]
        if w_max + 1 > cap:
            cap = w_max + 1
            buf = np.zeros(cap * n_codes, dtype=np.int64)
        nk = 0
        for j in range(n_s):
            key = wv[j] * n_codes + ssc[j]
            if buf[key] == 0:
                tk[nk] = key
                nk += 1
            buf[key] += swt[j]
        pk, pv = _member_hist(members, fixed, psc, pwt, n_codes)
        _meet(pk, pv, tk, nk, buf, out)
        for b in range(nk):
            buf[tk[b]] = 0
    return out


@nb.njit(cache=True)
def _ways_combine_sparse(order: IntArray, starts: IntArray, ways: IntArray, fixed: IntArray, psc: IntArray,
                         pwt: IntArray, fin: IntArray, ssc: IntArray, sxs: IntArray, swt: IntArray,
                         n_codes: int) -> tuple[IntArray, IntArray, IntArray]:  # pragma: no cover
    """:func:`_ways_combine` with sparse histograms (see :func:`~mathkit.exact.cycle.combine._combine_sparse`)."""
    n_entries = ways.shape[1]
    n_s = ssc.shape[0]
    lk = np.empty(n_s, dtype=np.int64)
    keys = np.full(1 << 16, -1, dtype=np.int64)
    vals = np.zeros(1 << 16, dtype=np.int64)
    count = 0
    for g in range(starts.shape[0] - 1):
        members = order[starts[g]: starts[g + 1]]
        rep = members[0]
        for j in range(n_s):
            lk[j] = sxs[j]
        for e in range(n_entries):
            we = ways[rep, e]
            if we > 0:
                row = fin[e]
                for j in range(n_s):
                    lk[j] += we * row[j]
        for j in range(n_s):
            lk[j] = lk[j] * n_codes + ssc[j]
        tk, tv = _reduce(lk.copy(), swt)
        pk, pv = _member_hist(members, fixed, psc, pwt, n_codes)
        keys, vals, count = _meet_sparse(pk, pv, tk, tv, keys, vals, count)
    return _sparse_cells(keys, vals, n_codes)
