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
