"""Meeting in the middle: each prefix group combined with every suffix combination."""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from .claim import claim
from .inputs import FinishTables
from .passes import _reduce

IntArray = npt.NDArray[np.int64]
AnyIntArray = npt.NDArray[np.integer[Any]]


@nb.njit(cache=True)
def _member_hist(members: IntArray, fixed: IntArray, psc: IntArray, pwt: IntArray,
                 n_codes: int) -> tuple[IntArray, IntArray]:  # pragma: no cover
    """A group's prefix histogram: keys ``fixed win · n_codes + code`` and their summed weights."""
    m = members.shape[0]
    pk = np.empty(m, dtype=np.int64)
    pv = np.empty(m, dtype=np.int64)
    for t in range(m):
        i = members[t]
        pk[t] = fixed[i] * n_codes + psc[i]
        pv[t] = pwt[i]
    if m > 1:
        pk, pv = _reduce(pk, pv)
    return pk, pv


@nb.njit(cache=True)
def _meet(pk: IntArray, pv: IntArray, tk: IntArray, nk: int, buf: IntArray, out: IntArray) -> None:  # pragma: no cover
    """Combine a group's prefix histogram ``(pk, pv)`` with its suffix histogram ``buf`` at the ``nk`` keys ``tk``.

    Keys add: ``(fa + fb) · n_codes + (ca + cb)`` is the cell of prefix key ``fa · n_codes + ca`` and suffix key
    ``fb · n_codes + cb``.
    """
    for a in range(pk.shape[0]):
        ka = pk[a]
        va = pv[a]
        for b in range(nk):
            vb = buf[tk[b]]
            if vb != 0:
                out[ka + tk[b]] += va * vb


@nb.njit(cache=True, inline="always")
def _hadd(hk: IntArray, hv: IntArray, used: IntArray, nu: int, key: int, val: int) -> int:  # pragma: no cover
    """Add ``val`` at ``key`` in the open-addressing table ``hk``/``hv`` (-1: a free slot); returns the keys used."""
    mask = hk.shape[0] - 1
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    i = int(h >> np.uint64(33)) & mask
    while True:
        kk = hk[i]
        if kk == key:
            hv[i] += val
            return nu
        if kk == -1:
            hk[i] = key
            hv[i] = val
            used[nu] = i
            return nu + 1
        i = (i + 1) & mask


@nb.njit(cache=True, inline="always")
def _put(out: IntArray, ka: int, va: int, hk: IntArray, hv: IntArray, used: IntArray, nu: int, key: int,
         val: int) -> int:  # pragma: no cover
    """Add suffix weight ``val`` at suffix key ``key``: met at once with the group's only prefix cell ``(ka, va)``
    into the dense table ``out`` when ``va`` is not 0 (nothing to merge first), else into the hash table."""
    if va != 0:
        out[ka + key] += va * val
        return nu
    return _hadd(hk, hv, used, nu, key, val)


Scratch = tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray, IntArray,
                IntArray, IntArray, IntArray, IntArray]


@nb.njit(cache=True)
def _scratch(ft: FinishTables, max_pairs: int) -> Scratch:  # pragma: no cover
    """Work arrays of :func:`_group_hist`, allocated once per thread."""
    n_mid = ft.wm.shape[0]
    n_mk = ft.mk.shape[0]
    n_rest = ft.rkey.shape[0]
    n_hist = ft.d0.shape[0]
    m = max(max_pairs, 1)
    z = np.zeros
    return (np.full(n_mid, -1, dtype=np.int64), z(m * n_mid, dtype=np.int64), z(m * n_mid, dtype=np.int64),
            z(n_mid, dtype=np.int64), z(n_mk, dtype=np.int64), z(max(n_hist * n_mk, 1), dtype=np.int64),
            z(n_mid, dtype=np.int64), z(n_rest, dtype=np.int64), z(n_rest, dtype=np.int64), z(n_rest, dtype=np.int64),
            z(ft.rk.shape[0], dtype=np.int64), np.full(1 << 12, -1, dtype=np.int64), z(1 << 12, dtype=np.int64),
            z(1 << 12, dtype=np.int64))


@nb.njit(cache=True, inline="always")
def _group_hist(pl: IntArray, pc: IntArray, b_key: int, ft: FinishTables, n_codes: int, sc: Scratch, tk: IntArray,
                tv: IntArray, out: IntArray, ka: int, va: int) -> tuple[int, Scratch]:  # pragma: no cover
    """One group's suffix histogram: its ``n`` distinct keys and weights in ``tk[:n]``/``tv[:n]``.

    A group whose members have one prefix cell ``(ka, va)`` (``va`` not 0; most groups) meets it at once: each
    suffix weight is added into the dense table ``out`` as it is found, and ``n`` is 0.  Otherwise ``va`` is 0,
    the histogram is merged in a hash table first and ``out`` is not touched.

    ``(pl[p], pc[p])``: the group's alive (line, class) pairs; ``b_key``: the sum of the alive
    lines' bases times ``n_codes``.  Only the middle-reel stops where an alive line goes on do work
    (see :mod:`mathkit.exact.cycle.finish`): a stop where exactly one goes on adds that line's tabulated
    histogram (stops with the same histogram and key summed first); a stop where several go on
    adds each line's commonest finish and visits only the rest combinations where one pays
    otherwise; every other stop adds the rest's key histogram.
    """
    head, enext, eh, touched, rem, aggw, agglist, seen, acc, tj, rrem, hk, hv, used = sc
    n_mk = ft.mk.shape[0]
    n_rk = ft.rk.shape[0]
    # each touched middle-reel stop gets the list of its going-on lines' histograms
    nt = 0
    ne = 0
    for p in range(pl.shape[0]):
        li = pl[p]
        c = pc[p]
        for t in range(ft.tptr[li, c], ft.tptr[li, c + 1]):
            i = ft.tidx[t]
            if head[i] == -1:
                touched[nt] = i
                nt += 1
            enext[ne] = head[i]
            eh[ne] = ft.thist[t]
            head[i] = ne
            ne += 1
    bound = nt * (ft.rkey.shape[0] + n_rk) + n_mk * n_rk
    if va == 0 and 2 * bound > hk.shape[0]:
        size = hk.shape[0]
        while size < 2 * bound:
            size *= 2
        hk = np.full(size, -1, dtype=np.int64)
        hv = np.zeros(size, dtype=np.int64)
        used = np.zeros(size, dtype=np.int64)
        sc = (head, enext, eh, touched, rem, aggw, agglist, seen, acc, tj, rrem, hk, hv, used)
    for a in range(n_mk):
        rem[a] = ft.hm[a]
    nu = 0
    na = 0
    for t in range(nt):
        i = touched[t]
        e = head[i]
        head[i] = -1
        rem[ft.kmidx[i]] -= ft.wm[i]
        if enext[e] == -1:  # one line goes on: its histogram, summed over stops first
            slot = eh[e] * n_mk + ft.kmidx[i]
            if aggw[slot] == 0:
                agglist[na] = slot
                na += 1
            aggw[slot] += ft.wm[i]
            continue
        # several lines go on at this stop: each adds its commonest finish, then the exceptions
        d_sum = 0
        ntj = 0
        while e != -1:
            h = eh[e]
            d_sum += ft.d0[h]
            for x in range(ft.eptr[h], ft.eptr[h + 1]):
                j = ft.ej[x]
                if seen[j] == 0:
                    seen[j] = 1
                    tj[ntj] = j
                    ntj += 1
                acc[j] += ft.ed[x]
            e = enext[e]
        key0 = b_key + ft.keym[i] + d_sum * n_codes
        w0 = ft.wm[i]
        for b in range(n_rk):
            rrem[b] = ft.rw[b]
        for u in range(ntj):
            j = tj[u]
            rrem[ft.rkidx[j]] -= ft.rwt[j]
            nu = _put(out, ka, va, hk, hv, used, nu, key0 + acc[j] * n_codes + ft.rkey[j], w0 * ft.rwt[j])
            acc[j] = 0
            seen[j] = 0
        for b in range(n_rk):
            if rrem[b] != 0:
                nu = _put(out, ka, va, hk, hv, used, nu, key0 + ft.rk[b], w0 * rrem[b])
    for u in range(na):
        slot = agglist[u]
        w = aggw[slot]
        aggw[slot] = 0
        h = slot // n_mk
        key0 = b_key + ft.mk[slot - h * n_mk]
        for x in range(ft.pptr[h], ft.pptr[h + 1]):
            nu = _put(out, ka, va, hk, hv, used, nu, key0 + ft.pkey[x], w * ft.pw[x])
    for a in range(n_mk):
        if rem[a] != 0:
            key0 = b_key + ft.mk[a]
            for b in range(n_rk):
                nu = _put(out, ka, va, hk, hv, used, nu, key0 + ft.rk[b], rem[a] * ft.rw[b])
    n = 0
    for u in range(nu):
        s = used[u]
        if hv[s] != 0:
            tk[n] = hk[s]
            tv[n] = hv[s]
            n += 1
        hk[s] = -1
        hv[s] = 0
    return n, sc


Groups = tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]


@nb.njit(cache=True)
def _combine_range(g0: int, g1: int, groups: Groups, visit: IntArray, ft: FinishTables, n_codes: int,
                   out: IntArray) -> None:  # pragma: no cover
    """Groups ``visit[g0..g1-1]`` met with every suffix combination, added into the dense table ``out``.

    ``groups``: each group's alive (line, class) pairs and its members' histogram of
    ``fixed win · n_codes + code`` (:func:`~mathkit.exact.cycle.prefix.group_tables`).
    """
    sc = _scratch(ft, _max_pairs(groups[0]))
    size = _hist_size(ft)
    _combine_into(g0, g1, groups, visit, ft, n_codes, out, sc, np.empty(size, dtype=np.int64),
                  np.empty(size, dtype=np.int64))


@nb.njit(cache=True)
def _combine_into(g0: int, g1: int, groups: Groups, visit: IntArray, ft: FinishTables, n_codes: int, out: IntArray,
                  sc: Scratch, tk: IntArray, tv: IntArray) -> Scratch:  # pragma: no cover
    """:func:`_combine_range` with its work arrays given (``tk``/``tv``: :func:`_hist_size` long); returns the
    scratch (its hash table may have grown)."""
    gptr, gl, gc, mptr, mkey, mw = groups
    for q in range(g0, g1):
        g = visit[q]
        pl = gl[gptr[g]: gptr[g + 1]]
        pc = gc[gptr[g]: gptr[g + 1]]
        b_sum = 0
        for p in range(pc.shape[0]):
            b_sum += ft.base[pc[p]]
        one = mptr[g + 1] - mptr[g] == 1 and mw[mptr[g]] != 0
        n, sc = _group_hist(pl, pc, b_sum * n_codes, ft, n_codes, sc, tk, tv, out, mkey[mptr[g]] if one else 0,
                            mw[mptr[g]] if one else 0)
        for a in range(mptr[g], mptr[g + 1]):  # the meet (keys add, see _meet); met already if one
            ka = mkey[a]
            va = mw[a]
            for b in range(n):
                out[ka + tk[b]] += va * tv[b]
    return sc


@nb.njit(cache=True)
def _combine_claimed(counter: IntArray, bounds: IntArray, groups: Groups, visit: IntArray, ft: FinishTables,
                     n_codes: int, out: IntArray) -> int:  # pragma: no cover
    """One thread's share of the threaded combine: the chunks ``visit[bounds[c]:bounds[c + 1]]`` it claims from
    ``counter`` (:mod:`.claim`), added into its own table ``out``; returns how many it did."""
    sc = _scratch(ft, _max_pairs(groups[0]))
    size = _hist_size(ft)
    tk = np.empty(size, dtype=np.int64)
    tv = np.empty(size, dtype=np.int64)
    n_chunks = bounds.shape[0] - 1
    done = 0
    c = claim(counter)
    while c < n_chunks:
        sc = _combine_into(bounds[c], bounds[c + 1], groups, visit, ft, n_codes, out, sc, tk, tv)
        done += 1
        c = claim(counter)
    return done


@nb.njit(cache=True)
def _max_pairs(gptr: IntArray) -> int:  # pragma: no cover
    m = 1
    for g in range(gptr.shape[0] - 1):
        m = max(m, int(gptr[g + 1] - gptr[g]))
    return m


@nb.njit(cache=True)
def _hist_size(ft: FinishTables) -> int:  # pragma: no cover
    """At most how many distinct keys one group's suffix histogram has."""
    return int(ft.wm.shape[0] * (ft.rkey.shape[0] + ft.rk.shape[0]) + ft.mk.shape[0] * ft.rk.shape[0])


@nb.njit(cache=True)
def _visit_plan(groups: Groups, ft: FinishTables, finmax: IntArray, n_codes: int, sx_max: int,
                n_chunks: int) -> tuple[int, IntArray, IntArray]:  # pragma: no cover
    """The dense table's size, the order to visit the groups in and the chunks of that order to share out.

    The size bounds the largest total tightly: per group, its largest fixed win plus its alive lines' best
    finishes (``finmax``), plus the suffix's largest extra win ``sx_max``.  The groups are visited by the
    first cell they reach, so that consecutive groups write near each other.  The ``n_chunks`` chunks
    (``visit[bounds[c]:bounds[c + 1]]``) are of about equal estimated work: the middle-reel stops where an
    alive line goes on, and the meet.
    """
    gptr, gl, gc, mptr, mkey, _mw = groups
    n_groups = gptr.shape[0] - 1
    first = np.empty(n_groups, dtype=np.int64)
    work = np.empty(n_groups, dtype=np.float64)
    max_win = 0
    for g in range(n_groups):
        alive = 0
        b_key = 0
        w_t = 0.0
        for p in range(gptr[g], gptr[g + 1]):
            alive += finmax[gc[p]]
            b_key += ft.base[gc[p]]
            w_t += ft.tptr[gl[p], gc[p] + 1] - ft.tptr[gl[p], gc[p]]
        fixed = mkey[mptr[g]] // n_codes if mptr[g + 1] > mptr[g] else 0
        low = mkey[mptr[g]] if mptr[g + 1] > mptr[g] else 0
        for a in range(mptr[g] + 1, mptr[g + 1]):
            fixed = max(fixed, mkey[a] // n_codes)
            low = min(low, mkey[a])
        max_win = max(max_win, fixed + alive)
        first[g] = b_key * n_codes + low
        work[g] = 8 * w_t + (mptr[g + 1] - mptr[g]) * (1 + w_t) + ft.rk.shape[0]
    visit = np.argsort(first).astype(np.int64)
    total = 0.0
    for q in range(n_groups):
        total += work[visit[q]]
    bounds = np.empty(n_chunks + 1, dtype=np.int64)
    bounds[0] = 0
    c = 1
    cum = 0.0
    for q in range(n_groups):
        while c < n_chunks and cum >= total * c / n_chunks:
            bounds[c] = q
            c += 1
        cum += work[visit[q]]
    while c <= n_chunks:
        bounds[c] = n_groups
        c += 1
    return (max_win + sx_max + 1) * n_codes, visit, bounds


@nb.njit(cache=True)
def _combine_all(groups: Groups, visit: IntArray, ft: FinishTables, n_codes: int, size: int) -> IntArray:  # pragma: no cover
    out = np.zeros(size, dtype=np.int64)
    _combine_range(0, visit.shape[0], groups, visit, ft, n_codes, out)
    return out


@nb.njit(cache=True, parallel=True)
def _combine_all_parallel(groups: Groups, visit: IntArray, ft: FinishTables, n_codes: int, size: int,
                          bounds: IntArray, n_threads: int) -> tuple[IntArray, IntArray, IntArray, IntArray]:  # pragma: no cover
    """:func:`_combine_all` on threads, compacted: each thread claims chunks of ``visit`` (cut at ``bounds``)
    until none is left, into a table of its own; the tables are summed and their non-zero cells listed by
    column blocks, on the threads too.  Returns ``(wins, codes, counts)`` as :func:`~.passes._compact` does,
    and the chunks each thread did."""
    n_chunks = bounds.shape[0] - 1
    n_threads = max(1, min(n_threads, n_chunks))
    outs = np.empty((n_threads, size), dtype=np.int64)
    done = np.zeros(n_threads, dtype=np.int64)
    counter = np.zeros(1, dtype=np.int64)
    for w in nb.prange(n_threads):
        outs[w, :] = 0  # each thread zeroes its own table (on its own core, at the same time)
        done[w] = _combine_claimed(counter, bounds, groups, visit, ft, n_codes, outs[w])
    out = outs[0]
    n_cols = max(1, min(64, size // 4096))
    nz = np.zeros(n_cols + 1, dtype=np.int64)
    for j in nb.prange(n_cols):
        m = 0
        for x in range(j * size // n_cols, (j + 1) * size // n_cols):
            v = out[x]
            for t in range(1, n_threads):
                v += outs[t, x]
            out[x] = v
            m += v != 0
        nz[j + 1] = m
    for j in range(n_cols):
        nz[j + 1] += nz[j]
    wins = np.empty(nz[n_cols], dtype=np.int64)
    codes = np.empty(nz[n_cols], dtype=np.int64)
    counts = np.empty(nz[n_cols], dtype=np.int64)
    for j in nb.prange(n_cols):
        k = nz[j]
        for x in range(j * size // n_cols, (j + 1) * size // n_cols):
            if out[x] != 0:
                wins[k] = x // n_codes
                codes[k] = x - wins[k] * n_codes
                counts[k] = out[x]
                k += 1
    return wins, codes, counts, done


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
def _meet_sparse(pk: IntArray, pv: IntArray, tk: IntArray, tv: IntArray, keys: IntArray, vals: IntArray,
                 count: int) -> tuple[IntArray, IntArray, int]:  # pragma: no cover
    """:func:`_meet` into an open-addressing table (suffix histogram ``(tk, tv)``); returns the table and its count."""
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
def _combine_sparse(groups: Groups, ft: FinishTables,
                    n_codes: int) -> tuple[IntArray, IntArray, IntArray]:  # pragma: no cover
    """:func:`_combine_all` with every histogram sparse: memory grows with the cells reached, not their span."""
    gptr, gl, gc, mptr, mkey, mw = groups
    sc = _scratch(ft, _max_pairs(gptr))
    size = _hist_size(ft)
    tk = np.empty(size, dtype=np.int64)
    tv = np.empty(size, dtype=np.int64)
    keys = np.full(1 << 16, -1, dtype=np.int64)
    vals = np.zeros(1 << 16, dtype=np.int64)
    count = 0
    for g in range(gptr.shape[0] - 1):
        pl = gl[gptr[g]: gptr[g + 1]]
        pc = gc[gptr[g]: gptr[g + 1]]
        b_sum = 0
        for p in range(pc.shape[0]):
            b_sum += ft.base[pc[p]]
        n, sc = _group_hist(pl, pc, b_sum * n_codes, ft, n_codes, sc, tk, tv, tk, 0, 0)
        keys, vals, count = _meet_sparse(mkey[mptr[g]: mptr[g + 1]], mw[mptr[g]: mptr[g + 1]], tk[:n], tv[:n], keys,
                                         vals, count)
    return _sparse_cells(keys, vals, n_codes)
