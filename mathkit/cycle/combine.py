"""Meeting in the middle: each prefix group combined with every suffix combination."""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from .passes import _reduce

IntArray = npt.NDArray[np.int64]
AnyIntArray = npt.NDArray[np.integer[Any]]


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
                   sp_j: IntArray, sp_d: IntArray, sk: IntArray, swt: IntArray, hk: IntArray, hv: IntArray, sx_max: int,
                   n_codes: int, out: IntArray) -> None:  # pragma: no cover
    """Groups ``g0..g1-1`` met with every suffix combination, added into ``out``.

    A suffix combination ``j`` is keyed ``sk[j] = extra win * n_codes + code``; ``(hk, hv)`` is
    the histogram of those keys over every suffix combination (weights summed).
    """
    n_lines = cls.shape[1]
    n_s = sk.shape[0]
    wv = np.zeros(n_s, dtype=np.int64)
    seen = np.zeros(n_s, dtype=np.bool_)
    tj = np.empty(n_s, dtype=np.int64)
    cap = 1024
    buf = np.zeros(cap * n_codes, dtype=np.int64)
    mark = np.zeros(cap * n_codes, dtype=np.bool_)
    tk = np.empty(n_s + hk.shape[0], dtype=np.int64)
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
        if w_max + sx_max + 1 > cap:
            cap = w_max + sx_max + 1
            buf = np.zeros(cap * n_codes, dtype=np.int64)
            mark = np.zeros(cap * n_codes, dtype=np.bool_)
        nk = 0
        for t in range(hk.shape[0]):
            key = b_sum * n_codes + hk[t]
            buf[key] += hv[t]
            if not mark[key]:
                mark[key] = True
                tk[nk] = key
                nk += 1
        for t in range(nt):
            j = tj[t]
            if wv[j] != 0:
                # this suffix pays base + delta, not base
                buf[b_sum * n_codes + sk[j]] -= swt[j]
                key = (b_sum + wv[j]) * n_codes + sk[j]
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
                 sk: IntArray, swt: IntArray, hk: IntArray, hv: IntArray, sx_max: int, n_codes: int,
                 size: int) -> IntArray:  # pragma: no cover
    out = np.zeros(size, dtype=np.int64)
    _combine_range(0, starts.shape[0] - 1, order, starts, cls, fixed, psc, pwt, finmax, base, ptr, sp_j, sp_d, sk, swt,
                   hk, hv, sx_max, n_codes, out)
    return out


@nb.njit(cache=True, parallel=True)
def _combine_all_parallel(order: IntArray, starts: IntArray, cls: AnyIntArray, fixed: IntArray,
                          psc: IntArray, pwt: IntArray, finmax: IntArray, base: IntArray, ptr: IntArray,
                          sp_j: IntArray, sp_d: IntArray, sk: IntArray, swt: IntArray, hk: IntArray, hv: IntArray,
                          sx_max: int, n_codes: int, size: int, bounds: IntArray) -> tuple[IntArray, IntArray]:  # pragma: no cover
    n_chunks = bounds.shape[0] - 1
    outs = np.zeros((n_chunks, size), dtype=np.int64)
    tids = np.zeros(n_chunks, dtype=np.int64)
    for c in nb.prange(n_chunks):
        tids[c] = nb.get_thread_id()  # type: ignore[attr-defined]
        _combine_range(bounds[c], bounds[c + 1], order, starts, cls, fixed, psc, pwt, finmax, base, ptr, sp_j, sp_d, sk,
                       swt, hk, hv, sx_max, n_codes, outs[c])
    return outs.sum(axis=0), tids


# --- the sparse meet: when the dense (win, code) table would be too large -------------------------------
@nb.njit(cache=True)
def _slot(keys: IntArray, key: int, mask: int) -> int:  # pragma: no cover
    """The slot of ``key`` in the open-addressing table ``keys`` (-1 marks a free slot)."""
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    i = int(h ^ (h >> np.uint64(32))) & mask
    while keys[i] != -1 and keys[i] != key:
        i = (i + 1) & mask
    return i


@nb.njit(cache=True)
def _grow(keys: IntArray, vals: IntArray) -> tuple[IntArray, IntArray]:  # pragma: no cover
    cap = keys.shape[0] * 2
    nk = np.full(cap, -1, dtype=np.int64)
    nv = np.zeros(cap, dtype=np.int64)
    for i in range(keys.shape[0]):
        if keys[i] != -1:
            s = _slot(nk, keys[i], cap - 1)
            nk[s] = keys[i]
            nv[s] = vals[i]
    return nk, nv


@nb.njit(cache=True)
def _meet_sparse(members: IntArray, fixed: IntArray, psc: IntArray, pwt: IntArray, tk: IntArray, tv: IntArray,
                 n_codes: int, keys: IntArray, vals: IntArray, count: int) -> tuple[IntArray, IntArray, int]:  # pragma: no cover
    """:func:`_meet` into an open-addressing table: a prefix key plus a suffix key is the cell's key."""
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
        for b in range(tk.shape[0]):
            if tv[b] != 0:
                if 2 * (count + 1) > keys.shape[0]:
                    keys, vals = _grow(keys, vals)
                s = _slot(keys, pk[a] + tk[b], keys.shape[0] - 1)
                if keys[s] == -1:
                    keys[s] = pk[a] + tk[b]
                    count += 1
                vals[s] += pv[a] * tv[b]
    return keys, vals, count


@nb.njit(cache=True)
def _sparse_cells(keys: IntArray, vals: IntArray, n_codes: int) -> tuple[IntArray, IntArray, IntArray]:  # pragma: no cover
    """The non-zero cells of an open-addressing table as (wins, codes, counts), by key."""
    n = 0
    for i in range(keys.shape[0]):
        if keys[i] != -1 and vals[i] != 0:
            n += 1
    ks = np.empty(n, dtype=np.int64)
    vs = np.empty(n, dtype=np.int64)
    n = 0
    for i in range(keys.shape[0]):
        if keys[i] != -1 and vals[i] != 0:
            ks[n] = keys[i]
            vs[n] = vals[i]
            n += 1
    order = np.argsort(ks)
    ks = ks[order]
    return ks // n_codes, ks % n_codes, vs[order]


@nb.njit(cache=True)
def _combine_sparse(order: IntArray, starts: IntArray, cls: AnyIntArray, fixed: IntArray, psc: IntArray,
                    pwt: IntArray, base: IntArray, ptr: IntArray, sp_j: IntArray, sp_d: IntArray, sk: IntArray,
                    swt: IntArray, hk: IntArray, hv: IntArray,
                    n_codes: int) -> tuple[IntArray, IntArray, IntArray]:  # pragma: no cover
    """:func:`_combine_all` with every histogram sparse: memory grows with the cells reached, not their span."""
    n_lines = cls.shape[1]
    n_s = sk.shape[0]
    wv = np.zeros(n_s, dtype=np.int64)
    seen = np.zeros(n_s, dtype=np.bool_)
    tj = np.empty(n_s, dtype=np.int64)
    lk = np.empty(hk.shape[0] + 2 * n_s, dtype=np.int64)
    lv = np.empty(hk.shape[0] + 2 * n_s, dtype=np.int64)
    keys = np.full(1 << 16, -1, dtype=np.int64)
    vals = np.zeros(1 << 16, dtype=np.int64)
    count = 0
    for g in range(starts.shape[0] - 1):
        members = order[starts[g]: starts[g + 1]]
        rep = members[0]
        b_sum = 0
        nt = 0
        for li in range(n_lines):
            c = cls[rep, li]
            if c > 0:
                b_sum += base[li, c]
                for t in range(ptr[li, c], ptr[li, c + 1]):
                    j = sp_j[t]
                    if not seen[j]:
                        seen[j] = True
                        tj[nt] = j
                        nt += 1
                    wv[j] += sp_d[t]
        n = 0
        for t in range(hk.shape[0]):
            lk[n] = b_sum * n_codes + hk[t]
            lv[n] = hv[t]
            n += 1
        for t in range(nt):
            j = tj[t]
            if wv[j] != 0:  # this suffix pays base + delta, not base
                lk[n] = b_sum * n_codes + sk[j]
                lv[n] = -swt[j]
                lk[n + 1] = (b_sum + wv[j]) * n_codes + sk[j]
                lv[n + 1] = swt[j]
                n += 2
            wv[j] = 0
            seen[j] = False
        tk, tv = _reduce(lk[:n], lv[:n])
        keys, vals, count = _meet_sparse(members, fixed, psc, pwt, tk, tv, n_codes, keys, vals, count)
    return _sparse_cells(keys, vals, n_codes)
