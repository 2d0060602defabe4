"""Compiled stop-level passes: enumerating reels, grouping by state, reducing and compacting histograms."""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

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
