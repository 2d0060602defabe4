"""The prefix pass of the lines kernel: every prefix stop combination reduced to its alive lines, then grouped.

The prefix reels ``0..k-1`` are a *head* (reels ``0..k-2``) and a *last* reel
``k-1``.  Most lines are already *settled* by the head: whatever the last
prefix reel shows, they are dead with one fixed win.  The others are the
head's *open* lines, a few per head combination, each with its head sequence.
Head combinations with the same open lines and sequences behave alike on the
last reel: they form one *head class*, which keeps only the histogram of its
members' (fixed win, observation code) with their weights.  So the pass visits
(head classes × last-reel stops × open lines), not (prefix combinations × lines).

A prefix *item* ``(H, i)`` (head class ``H``, stop ``i`` of the last reel)
keeps its alive (line, class) pairs, the shift its dead lines and the stop add
to the head class's keys, and a hash of the pairs.  Items whose pairs are equal
form a *group*: a hash table keyed by the hash finds them, and a collision is
resolved by comparing the pairs themselves, so two states are never merged.  A
group's members are the histogram of ``fixed win · n_codes + code`` over its
items' head classes, shifted and weighted by their stops.  The parallel
variant splits the last reel's stops into small blocks for the pass, and the
items by hash into parts for the grouping (equal states have equal hashes, so
each part is grouped on its own); each thread claims the next block or part
when it is done with one (:mod:`.claim`), so a thread the machine holds back
does not hold up the others.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from .claim import claim

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Groups = tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]
Head = tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]
Last = tuple[IntArray, IntArray, IntArray, IntArray]
Items = tuple[IntArray, IntArray, IntArray, IntArray, IntArray, IntArray]

_FNV = 1469598103934665603


@nb.njit(cache=True)
def _mix(h: np.uint64, a: int, b: int) -> np.uint64:  # pragma: no cover
    h = (h ^ np.uint64(a * 1000003 + b)) * np.uint64(1099511628211)
    return h ^ (h >> np.uint64(29))


@nb.njit(cache=True)
def _slot_of(h: int, mask: int) -> int:  # pragma: no cover
    x = np.uint64(h) * np.uint64(0x9E3779B97F4A7C15)
    return int(x ^ (x >> np.uint64(31))) & mask


@nb.njit(cache=True)
def _group_lists(items: IntArray, hashes: IntArray, start: IntArray, count: IntArray, a: IntArray,
                 b: IntArray) -> tuple[IntArray, IntArray]:  # pragma: no cover
    """Group ``items`` by their pair lists ``(a, b)[start[x]:start[x] + count[x]]`` (``x = items[u]``).

    Returns each item's group (0, 1, ... by first appearance) and each group's first item.  Equal
    lists must have equal ``hashes``; equal hashes are compared list against list.
    """
    n = items.shape[0]
    cap = 1 << 10
    tkey = np.full(cap, -1, dtype=np.int64)
    tgrp = np.zeros(cap, dtype=np.int64)
    reps = np.empty(max(n, 1), dtype=np.int64)
    gid = np.empty(n, dtype=np.int64)
    n_groups = 0
    for u in range(n):
        x = items[u]
        h = hashes[x]
        s = _slot_of(h, cap - 1)
        while True:
            if tkey[s] == -1:
                tkey[s] = h
                tgrp[s] = n_groups
                reps[n_groups] = x
                gid[u] = n_groups
                n_groups += 1
                break
            if tkey[s] == h:
                r = reps[tgrp[s]]
                same = count[r] == count[x]
                if same:
                    for t in range(count[x]):
                        if a[start[r] + t] != a[start[x] + t] or b[start[r] + t] != b[start[x] + t]:
                            same = False
                            break
                if same:
                    gid[u] = tgrp[s]
                    break
            s = (s + 1) & (cap - 1)
        if 2 * n_groups > cap:  # keep the table at most half full
            cap *= 2
            nkey = np.full(cap, -1, dtype=np.int64)
            ngrp = np.zeros(cap, dtype=np.int64)
            for q in range(tkey.shape[0]):
                if tkey[q] != -1:
                    s = _slot_of(tkey[q], cap - 1)
                    while nkey[s] != -1:
                        s = (s + 1) & (cap - 1)
                    nkey[s] = tkey[q]
                    ngrp[s] = tgrp[q]
            tkey, tgrp = nkey, ngrp
    return gid, reps[:n_groups]


@nb.njit(cache=True)
def _cells(g: IntArray, key: IntArray, w: IntArray, n_groups: int) -> tuple[IntArray, IntArray, IntArray]:  # pragma: no cover
    """The histograms of ``(key, w)`` per group ``g``: distinct keys ``keys[ptr[g]:ptr[g + 1]]``, weights summed."""
    n = g.shape[0]
    cap = 1 << 10
    while cap < 2 * n:
        cap *= 2
    tg = np.full(cap, -1, dtype=np.int64)
    tk = np.zeros(cap, dtype=np.int64)
    tw = np.zeros(cap, dtype=np.int64)
    ptr = np.zeros(n_groups + 1, dtype=np.int64)
    n_cells = 0
    for u in range(n):
        s = _slot_of(key[u] * 1000003 + g[u], cap - 1)
        while tg[s] != -1 and (tg[s] != g[u] or tk[s] != key[u]):
            s = (s + 1) & (cap - 1)
        if tg[s] == -1:
            tg[s] = g[u]
            tk[s] = key[u]
            ptr[g[u] + 1] += 1
            n_cells += 1
        tw[s] += w[u]
    for q in range(n_groups):
        ptr[q + 1] += ptr[q]
    pos = ptr[:-1].copy()
    keys = np.empty(n_cells, dtype=np.int64)
    ws = np.empty(n_cells, dtype=np.int64)
    for s in range(cap):
        q = tg[s]
        if q != -1:
            keys[pos[q]] = tk[s]
            ws[pos[q]] = tw[s]
            pos[q] += 1
    return ptr, keys, ws


@nb.njit(cache=True)
def head_classes(hseq: IntArray, hxs: IntArray, hsc: IntArray, hwt: IntArray, settled: BoolArray, sval: IntArray,
                 n_codes: int) -> Head:  # pragma: no cover
    """The head combinations grouped by their open lines and head sequences (see the module docstring).

    Returns per head class its open lines and their head codes (``cptr``, ``clines``, ``ccodes``) and
    its members' histogram of ``fixed win · n_codes + code`` (``hptr``, ``hkey``, ``hw``), the fixed
    win holding the head's extra wins and the settled lines' wins.
    """
    n_head, n_lines = hseq.shape
    optr = np.zeros(n_head + 1, dtype=np.int64)
    olines = np.empty(n_head * n_lines, dtype=np.int64)
    ohs = np.empty(n_head * n_lines, dtype=np.int64)
    hashes = np.empty(n_head, dtype=np.int64)
    keys = np.empty(n_head, dtype=np.int64)
    t = 0
    for j in range(n_head):
        f = hxs[j]
        h = np.uint64(_FNV)
        for li in range(n_lines):
            hc = hseq[j, li]
            if settled[hc]:
                f += sval[hc]
            else:
                olines[t] = li
                ohs[t] = hc
                h = _mix(h, li, hc)
                t += 1
        optr[j + 1] = t
        hashes[j] = np.int64(h >> np.uint64(1))
        keys[j] = f * n_codes + hsc[j]
    gid, reps = _group_lists(np.arange(n_head, dtype=np.int64), hashes, optr[:-1], optr[1:] - optr[:-1], olines, ohs)
    n_cls = reps.shape[0]
    cptr = np.zeros(n_cls + 1, dtype=np.int64)
    for c in range(n_cls):
        cptr[c + 1] = cptr[c] + optr[reps[c] + 1] - optr[reps[c]]
    clines = np.empty(cptr[n_cls], dtype=np.int64)
    ccodes = np.empty(cptr[n_cls], dtype=np.int64)
    for c in range(n_cls):
        r = reps[c]
        clines[cptr[c]: cptr[c + 1]] = olines[optr[r]: optr[r + 1]]
        ccodes[cptr[c]: cptr[c + 1]] = ohs[optr[r]: optr[r + 1]]
    hptr, hkey, hw = _cells(gid, keys, hwt, n_cls)
    return cptr, clines, ccodes, hptr, hkey, hw


@nb.njit(cache=True)
def _prefix_block(i0: int, i1: int, head: Head, last: Last, pclass: IntArray, pdead: IntArray, n_codes: int,
                  items: Items) -> None:  # pragma: no cover
    """Fill the items of last-reel stops ``i0..i1-1``: item ``x = H + n_cls · i``.

    Its alive pairs are ``(apl, apc)[astart[x]:astart[x] + acnt[x]]``; ``shift[x]`` is added to the
    head class's keys (the dead lines' wins and the stop's extra win and code); ``hashes[x]`` is 0
    if no line is alive, else an odd hash of the pairs.
    """
    cptr, clines, ccodes, _hptr, _hkey, _hw = head
    _lwt, lsc, lxw, lcode = last
    apl, apc, astart, acnt, shift, hashes = items
    n_cls = cptr.shape[0] - 1
    n_open = clines.shape[0]
    for i in range(i0, i1):
        lci = lcode[i]
        out = i * n_open  # stop i's pairs, packed from the start of its region (fewer pages touched)
        for c in range(n_cls):
            x = c + n_cls * i
            f = lxw[i]
            h = np.uint64(_FNV)
            n = 0
            for t in range(cptr[c], cptr[c + 1]):
                li = clines[t]
                p = ccodes[t] + lci[li]
                cl = pclass[p]
                if cl == 0:
                    f += pdead[p]
                else:
                    apl[out + n] = li
                    apc[out + n] = cl
                    n += 1
                    h = _mix(h, li, cl)
            astart[x] = out
            acnt[x] = n
            out += n
            shift[x] = f * n_codes + lsc[i]
            hashes[x] = np.int64(h >> np.uint64(2)) | 1 if n else 0


@nb.njit(cache=True)
def _n_triples(sel: IntArray, hptr: IntArray, n_cls: int) -> int:  # pragma: no cover
    n_t = 0
    for u in range(sel.shape[0]):
        c = sel[u] % n_cls
        n_t += hptr[c + 1] - hptr[c]
    return n_t


@nb.njit(cache=True)
def _group_items(sel: IntArray, head: Head, last: Last, items: Items, reps_out: IntArray, mptr_out: IntArray,
                 mkey_out: IntArray, mw_out: IntArray) -> tuple[int, int]:  # pragma: no cover
    """Group the items ``sel`` by alive state into the outputs: each group's first item (``reps_out``),
    and its members' histogram (``mptr_out`` local to the outputs, ``mkey_out``, ``mw_out``).

    Returns the number of groups and of histogram cells written.
    """
    hptr, hkey, hw = head[3], head[4], head[5]
    lwt = last[0]
    apl, apc, astart, acnt, shift, hashes = items
    n_cls = head[0].shape[0] - 1
    gid, reps = _group_lists(sel, hashes, astart, acnt, apl, apc)
    n_t = _n_triples(sel, hptr, n_cls)
    g = np.empty(n_t, dtype=np.int64)
    key = np.empty(n_t, dtype=np.int64)
    w = np.empty(n_t, dtype=np.int64)
    t = 0
    for u in range(sel.shape[0]):
        x = sel[u]
        c = x % n_cls
        i = x // n_cls
        for e in range(hptr[c], hptr[c + 1]):
            g[t] = gid[u]
            key[t] = hkey[e] + shift[x]
            w[t] = hw[e] * lwt[i]
            t += 1
    mptr, mkey, mw = _cells(g, key, w, reps.shape[0])
    reps_out[: reps.shape[0]] = reps
    mptr_out[: mptr.shape[0]] = mptr
    mkey_out[: mkey.shape[0]] = mkey
    mw_out[: mkey.shape[0]] = mw
    return reps.shape[0], mkey.shape[0]


@nb.njit(cache=True)
def _with_pairs(reps: IntArray, mptr: IntArray, mkey: IntArray, mw: IntArray, items: Items) -> Groups:  # pragma: no cover
    """The groups as the combine step reads them: alive pairs ``(gptr, gl, gc)`` and member histograms."""
    apl, apc, astart, acnt = items[0], items[1], items[2], items[3]
    n_groups = reps.shape[0]
    gptr = np.zeros(n_groups + 1, dtype=np.int64)
    for q in range(n_groups):
        gptr[q + 1] = gptr[q] + acnt[reps[q]]
    gl = np.empty(gptr[n_groups], dtype=np.int64)
    gc = np.empty(gptr[n_groups], dtype=np.int64)
    for q in range(n_groups):
        x = reps[q]
        gl[gptr[q]: gptr[q + 1]] = apl[astart[x]: astart[x] + acnt[x]]
        gc[gptr[q]: gptr[q + 1]] = apc[astart[x]: astart[x] + acnt[x]]
    return gptr, gl, gc, mptr, mkey, mw


@nb.njit(cache=True)
def _items(head: Head, n_last: int) -> Items:  # pragma: no cover
    n = (head[0].shape[0] - 1) * n_last
    size = n_last * head[1].shape[0]
    return (np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64), np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64))


@nb.njit(cache=True)
def prefix_groups(head: Head, last: Last, pclass: IntArray, pdead: IntArray, n_codes: int) -> Groups:  # pragma: no cover
    """Every prefix combination reduced and grouped by alive state (see the module docstring)."""
    n_last = last[0].shape[0]
    items = _items(head, n_last)
    _prefix_block(0, n_last, head, last, pclass, pdead, n_codes, items)
    n = items[2].shape[0]
    sel = np.arange(n, dtype=np.int64)
    n_t = _n_triples(sel, head[3], head[0].shape[0] - 1)
    reps = np.empty(n, dtype=np.int64)
    mptr = np.empty(n + 1, dtype=np.int64)
    mkey = np.empty(n_t, dtype=np.int64)
    mw = np.empty(n_t, dtype=np.int64)
    n_groups, n_cells = _group_items(sel, head, last, items, reps, mptr, mkey, mw)
    return _with_pairs(reps[:n_groups], mptr[: n_groups + 1], mkey[:n_cells], mw[:n_cells], items)


@nb.njit(cache=True, parallel=True)
def prefix_groups_parallel(head: Head, last: Last, pclass: IntArray, pdead: IntArray, n_codes: int,
                           n_parts: int, n_threads: int) -> Groups:  # pragma: no cover
    """:func:`prefix_groups` on threads: the pass by blocks of last-reel stops, the grouping by hash.

    Unlike :func:`prefix_groups`, a state may head more than one group (the empty state, one per
    part); the combine step sums over groups, so the counts are the same.
    """
    n_cls = head[0].shape[0] - 1
    n_last = last[0].shape[0]
    items = _items(head, n_last)
    n_threads = max(1, min(n_threads, n_parts))
    # the pass: small blocks of last-reel stops, each thread claiming the next (mathkit.exact.cycle.claim)
    n_blocks = max(1, min(4 * n_parts, n_last))
    counter = np.zeros(1, dtype=np.int64)
    for _w in nb.prange(n_threads):
        b = claim(counter)
        while b < n_blocks:
            _prefix_block(b * n_last // n_blocks, (b + 1) * n_last // n_blocks, head, last, pclass, pdead, n_codes,
                          items)
            b = claim(counter)
    hashes = items[5]
    n = hashes.shape[0]
    part = np.empty(n, dtype=np.int64)
    hptr = head[3]
    # the items sorted by part (a counting sort, by blocks of items on the threads; within a part, in item order)
    n_sort = max(1, min(4 * n_threads, n))
    counts = np.zeros((n_sort, 2 * n_parts), dtype=np.int64)  # per block: items, then triples, per part
    for s in nb.prange(n_sort):
        here = np.zeros(2 * n_parts, dtype=np.int64)
        for x in range(s * n // n_sort, (s + 1) * n // n_sort):
            # equal states meet in one part (by hash); the items with no alive line (about half of them)
            # are dealt round so that no part does half the work: their empty state is then a group in every part
            p = x % n_parts if hashes[x] == 0 else (_slot_of(hashes[x], (1 << 30) - 1) >> 10) % n_parts
            part[x] = p
            here[p] += 1
            c = x % n_cls
            here[n_parts + p] += hptr[c + 1] - hptr[c]
        counts[s] = here
    pstart = np.zeros(n_parts + 1, dtype=np.int64)
    tstart = np.zeros(n_parts + 1, dtype=np.int64)
    pos = np.empty((n_sort, n_parts), dtype=np.int64)
    for p in range(n_parts):
        at = pstart[p]
        for s in range(n_sort):
            pos[s, p] = at
            at += counts[s, p]
            tstart[p + 1] += counts[s, n_parts + p]
        pstart[p + 1] = at
        tstart[p + 1] += tstart[p]
    sel = np.empty(n, dtype=np.int64)
    for s in nb.prange(n_sort):
        mine = pos[s].copy()
        for x in range(s * n // n_sort, (s + 1) * n // n_sort):
            sel[mine[part[x]]] = x
            mine[part[x]] += 1
    # part p writes its groups from pstart[p], its group starts from pstart[p] + p, its cells from tstart[p]
    reps = np.empty(n, dtype=np.int64)
    mptr = np.empty(n + n_parts, dtype=np.int64)
    mkey = np.empty(tstart[n_parts], dtype=np.int64)
    mw = np.empty(tstart[n_parts], dtype=np.int64)
    n_g = np.zeros(n_parts, dtype=np.int64)
    n_c = np.zeros(n_parts, dtype=np.int64)
    counter[0] = 0
    for _w in nb.prange(n_threads):  # the parts, claimed one by one: each writes only its own slices
        p = claim(counter)
        while p < n_parts:
            a, b, t = pstart[p], pstart[p + 1], tstart[p]
            n_g[p], n_c[p] = _group_items(sel[a:b], head, last, items, reps[a:b], mptr[a + p: b + p + 1], mkey[t:],
                                          mw[t:])
            p = claim(counter)
    n_groups = 0
    n_cells = 0
    for p in range(n_parts):
        n_groups += n_g[p]
        n_cells += n_c[p]
    out_reps = np.empty(n_groups, dtype=np.int64)
    out_ptr = np.zeros(n_groups + 1, dtype=np.int64)
    out_key = np.empty(n_cells, dtype=np.int64)
    out_w = np.empty(n_cells, dtype=np.int64)
    g = 0
    m = 0
    for p in range(n_parts):
        a, t = pstart[p], tstart[p]
        out_reps[g: g + n_g[p]] = reps[a: a + n_g[p]]
        out_ptr[g + 1: g + n_g[p] + 1] = mptr[a + p + 1: a + p + n_g[p] + 1] + m
        out_key[m: m + n_c[p]] = mkey[t: t + n_c[p]]
        out_w[m: m + n_c[p]] = mw[t: t + n_c[p]]
        g += n_g[p]
        m += n_c[p]
    return _with_pairs(out_reps, out_ptr, out_key, out_w, items)
