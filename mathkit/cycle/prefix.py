"""The prefix pass of the lines kernel: every prefix stop combination reduced to its alive lines, then grouped.

The prefix reels ``0..k-1`` are a *head* (reels ``0..k-2``) and a *last* reel
``k-1``.  Most lines are already *settled* by the head: whatever the last
prefix reel shows, they are dead with one fixed win (``settled``).  Only the
others — the head's *open* lines, a few per head combination — are looked at
for each stop of the last reel, so the pass costs (head combinations × open
lines × last-reel stops), not (prefix combinations × lines).

A prefix combination ``idx = j + n_head · i`` (head combination ``j``, stop
``i`` of the last reel) is reduced to its weight, observation code, fixed win
(settled and dead lines plus extra wins) and the classes of its open lines.
Combinations whose alive (line, class) pairs are equal form a *group*: they are
found with a hash table keyed by a hash of the pairs, and a hash collision is
resolved by comparing the pairs themselves, so two states are never merged.
The parallel variant splits the last reel's stops over threads, and the
grouping by the hash's top bits (each part has its own table).
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
I32Array = npt.NDArray[np.int32]
BoolArray = npt.NDArray[np.bool_]

_FNV = 1469598103934665603


def settled_heads(pclass: IntArray, pdead: IntArray, n_head_codes: int) -> tuple[BoolArray, IntArray]:
    """Per head sequence code: is the line dead after the prefix whatever the last reel shows, and with which win.

    ``pclass[p]``/``pdead[p]`` for prefix sequence ``p = head code + n_head_codes · last symbol``.
    """
    cls = pclass.reshape(-1, n_head_codes)
    dead = pdead.reshape(-1, n_head_codes)
    settled = (cls == 0).all(axis=0) & (dead == dead[:1]).all(axis=0)
    return settled, np.where(settled, dead[0], 0).astype(np.int64)


@nb.njit(cache=True)
def open_lines(hseq: IntArray, hxs: IntArray, settled: BoolArray,
               sval: IntArray) -> tuple[IntArray, IntArray, IntArray, IntArray]:  # pragma: no cover
    """Per head combination: its open lines (``optr``/``olines``, their head codes ``ohs``) and its fixed win.

    The fixed win adds the head's extra wins and the settled lines' wins.
    """
    n_head, n_lines = hseq.shape
    optr = np.zeros(n_head + 1, dtype=np.int64)
    total = 0
    for j in range(n_head):
        for li in range(n_lines):
            if not settled[hseq[j, li]]:
                total += 1
        optr[j + 1] = total
    olines = np.empty(total, dtype=np.int64)
    ohs = np.empty(total, dtype=np.int64)
    fhead = np.empty(n_head, dtype=np.int64)
    t = 0
    for j in range(n_head):
        f = hxs[j]
        for li in range(n_lines):
            hc = hseq[j, li]
            if settled[hc]:
                f += sval[hc]
            else:
                olines[t] = li
                ohs[t] = hc
                t += 1
        fhead[j] = f
    return optr, olines, ohs, fhead


@nb.njit(cache=True)
def _prefix_block(i0: int, i1: int, head: tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray],
                  last: tuple[IntArray, IntArray, IntArray, IntArray], pclass: IntArray, pdead: IntArray,
                  ocls: I32Array, fixed: IntArray, sc: IntArray, wt: IntArray, hashes: IntArray) -> None:  # pragma: no cover
    """Fill the prefix combinations of last-reel stops ``i0..i1-1`` (see the module docstring).

    ``ocls[i · n_open + t]``: the class (0: dead) of open entry ``t`` after last-reel stop ``i``.
    """
    hwt, hsc, optr, olines, ohs, fhead = head
    lwt, lsc, lxw, lcode = last
    n_head = hwt.shape[0]
    n_open = olines.shape[0]
    for i in range(i0, i1):
        lci = lcode[i]
        base = i * n_open
        for j in range(n_head):
            idx = j + n_head * i
            wt[idx] = hwt[j] * lwt[i]
            sc[idx] = hsc[j] + lsc[i]
            f = fhead[j] + lxw[i]
            h = np.uint64(_FNV)
            any_alive = False
            for t in range(optr[j], optr[j + 1]):
                li = olines[t]
                p = ohs[t] + lci[li]
                cl = pclass[p]
                ocls[base + t] = cl
                if cl == 0:
                    f += pdead[p]
                else:
                    any_alive = True
                    h = (h ^ np.uint64(li * 1000003 + cl)) * np.uint64(1099511628211)
                    h ^= h >> np.uint64(29)
            fixed[idx] = f
            hashes[idx] = np.int64(h >> np.uint64(1)) if any_alive else 0


@nb.njit(cache=True)
def _prefix_serial(head: tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray],
                   last: tuple[IntArray, IntArray, IntArray, IntArray], pclass: IntArray, pdead: IntArray,
                   ocls: I32Array, fixed: IntArray, sc: IntArray, wt: IntArray, hashes: IntArray) -> None:  # pragma: no cover
    _prefix_block(0, last[0].shape[0], head, last, pclass, pdead, ocls, fixed, sc, wt, hashes)


@nb.njit(cache=True, parallel=True)
def _prefix_parallel(head: tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray],
                     last: tuple[IntArray, IntArray, IntArray, IntArray], pclass: IntArray, pdead: IntArray,
                     ocls: I32Array, fixed: IntArray, sc: IntArray, wt: IntArray, hashes: IntArray) -> None:  # pragma: no cover
    n_last = last[0].shape[0]
    for i in nb.prange(n_last):
        _prefix_block(i, i + 1, head, last, pclass, pdead, ocls, fixed, sc, wt, hashes)


@nb.njit(cache=True)
def _pairs(idx: int, n_head: int, optr: IntArray, olines: IntArray, ocls: I32Array, pl: IntArray, pc: IntArray) -> int:  # pragma: no cover
    """The alive (line, class) pairs of prefix combination ``idx``, in line order, into ``pl``/``pc``; returns how many."""
    j = idx % n_head
    base = (idx // n_head) * olines.shape[0]
    n = 0
    for t in range(optr[j], optr[j + 1]):
        c = ocls[base + t]
        if c != 0:
            pl[n] = olines[t]
            pc[n] = c
            n += 1
    return n


@nb.njit(cache=True)
def _same(a: int, b: int, n_head: int, optr: IntArray, olines: IntArray, ocls: I32Array) -> bool:  # pragma: no cover
    """Whether prefix combinations ``a`` and ``b`` have the same alive (line, class) pairs."""
    ja, jb = a % n_head, b % n_head
    ba, bb = (a // n_head) * olines.shape[0], (b // n_head) * olines.shape[0]
    ta, ea = optr[ja], optr[ja + 1]
    tb, eb = optr[jb], optr[jb + 1]
    while True:
        while ta < ea and ocls[ba + ta] == 0:
            ta += 1
        while tb < eb and ocls[bb + tb] == 0:
            tb += 1
        if ta == ea or tb == eb:
            return ta == ea and tb == eb
        if olines[ta] != olines[tb] or ocls[ba + ta] != ocls[bb + tb]:
            return False
        ta += 1
        tb += 1


@nb.njit(cache=True)
def _group_part(items: IntArray, hashes: IntArray, n_head: int, optr: IntArray, olines: IntArray,
                ocls: I32Array) -> tuple[IntArray, IntArray]:  # pragma: no cover
    """Group ``items`` (prefix combinations) by alive state: each item's group (0, 1, ... by first appearance) and the reps."""
    cap = 1 << 10
    tkey = np.full(cap, -1, dtype=np.int64)
    tgrp = np.zeros(cap, dtype=np.int64)
    reps = np.empty(max(items.shape[0], 1), dtype=np.int64)
    gid = np.empty(items.shape[0], dtype=np.int64)
    n_groups = 0
    for u in range(items.shape[0]):
        idx = items[u]
        h = hashes[idx]
        mask = cap - 1
        s = int((np.uint64(h) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask
        while True:
            if tkey[s] == -1:
                tkey[s] = h
                tgrp[s] = n_groups
                reps[n_groups] = idx
                gid[u] = n_groups
                n_groups += 1
                break
            if tkey[s] == h and _same(reps[tgrp[s]], idx, n_head, optr, olines, ocls):
                gid[u] = tgrp[s]
                break
            s = (s + 1) & mask
        if 2 * n_groups > cap:  # keep the table at most half full
            cap *= 2
            nkey = np.full(cap, -1, dtype=np.int64)
            ngrp = np.zeros(cap, dtype=np.int64)
            for q in range(tkey.shape[0]):
                if tkey[q] != -1:
                    s = int((np.uint64(tkey[q]) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & (cap - 1)
                    while nkey[s] != -1:
                        s = (s + 1) & (cap - 1)
                    nkey[s] = tkey[q]
                    ngrp[s] = tgrp[q]
            tkey, tgrp = nkey, ngrp
    return gid, reps[:n_groups]


@nb.njit(cache=True)
def _members(items: IntArray, gid: IntArray, n_groups: int) -> tuple[IntArray, IntArray]:  # pragma: no cover
    """``items`` ordered by group (a counting sort) and the groups' starts."""
    starts = np.zeros(n_groups + 1, dtype=np.int64)
    for u in range(gid.shape[0]):
        starts[gid[u] + 1] += 1
    for g in range(n_groups):
        starts[g + 1] += starts[g]
    pos = starts[:-1].copy()
    order = np.empty(items.shape[0], dtype=np.int64)
    for u in range(gid.shape[0]):
        g = gid[u]
        order[pos[g]] = items[u]
        pos[g] += 1
    return order, starts


@nb.njit(cache=True)
def _groups_serial(hashes: IntArray, n_head: int, optr: IntArray, olines: IntArray,
                   ocls: I32Array) -> tuple[IntArray, IntArray]:  # pragma: no cover
    items = np.arange(hashes.shape[0], dtype=np.int64)
    gid, reps = _group_part(items, hashes, n_head, optr, olines, ocls)
    return _members(items, gid, reps.shape[0])


@nb.njit(cache=True, parallel=True)
def _groups_parallel(hashes: IntArray, n_head: int, optr: IntArray, olines: IntArray, ocls: I32Array,
                     n_parts: int) -> tuple[IntArray, IntArray]:  # pragma: no cover
    """:func:`_groups_serial` with the combinations split by the hash's top bits, each part grouped on its own thread."""
    n = hashes.shape[0]
    part = np.empty(n, dtype=np.int64)
    pstart = np.zeros(n_parts + 1, dtype=np.int64)
    for idx in range(n):
        p = int((np.uint64(hashes[idx]) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20)) % n_parts
        part[idx] = p
        pstart[p + 1] += 1
    for p in range(n_parts):
        pstart[p + 1] += pstart[p]
    pos = pstart[:-1].copy()
    items = np.empty(n, dtype=np.int64)
    for idx in range(n):
        items[pos[part[idx]]] = idx
        pos[part[idx]] += 1
    order = np.empty(n, dtype=np.int64)
    local = np.empty(n + n_parts, dtype=np.int64)  # part p's group starts at local[pstart[p] + p:]
    n_in = np.zeros(n_parts, dtype=np.int64)
    for p in nb.prange(n_parts):
        sub = items[pstart[p]: pstart[p + 1]]
        gid, reps = _group_part(sub, hashes, n_head, optr, olines, ocls)
        o, s = _members(sub, gid, reps.shape[0])
        order[pstart[p]: pstart[p + 1]] = o
        local[pstart[p] + p: pstart[p] + p + s.shape[0]] = s + pstart[p]
        n_in[p] = reps.shape[0]
    n_groups = 0
    for p in range(n_parts):
        n_groups += n_in[p]
    starts = np.empty(n_groups + 1, dtype=np.int64)
    g = 0
    for p in range(n_parts):
        starts[g: g + n_in[p]] = local[pstart[p] + p: pstart[p] + p + n_in[p]]
        g += n_in[p]
    starts[n_groups] = n
    return order, starts


@nb.njit(cache=True)
def group_pairs(order: IntArray, starts: IntArray, n_head: int, optr: IntArray, olines: IntArray, ocls: I32Array,
                n_lines: int) -> tuple[IntArray, IntArray, IntArray]:  # pragma: no cover
    """Per group: its alive (line, class) pairs (``gptr``, ``gl``, ``gc``)."""
    n_groups = starts.shape[0] - 1
    pl = np.empty(max(n_lines, 1), dtype=np.int64)
    pc = np.empty(max(n_lines, 1), dtype=np.int64)
    gptr = np.zeros(n_groups + 1, dtype=np.int64)
    for g in range(n_groups):
        gptr[g + 1] = gptr[g] + _pairs(order[starts[g]], n_head, optr, olines, ocls, pl, pc)
    gl = np.empty(gptr[n_groups], dtype=np.int64)
    gc = np.empty(gptr[n_groups], dtype=np.int64)
    for g in range(n_groups):
        n = _pairs(order[starts[g]], n_head, optr, olines, ocls, pl, pc)
        gl[gptr[g]: gptr[g] + n] = pl[:n]
        gc[gptr[g]: gptr[g] + n] = pc[:n]
    return gptr, gl, gc
