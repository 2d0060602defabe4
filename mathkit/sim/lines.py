"""The line walk compiled for the kernels: row and symbol tries, the prefix table, the open states.

A line is read left to right through two tries: one over the lines' row
prefixes (lines sharing their first rows share the work) and one over symbol
prefixes, cut as soon as no pay entry still matches the whole prefix (the
line's pay can then no longer depend on what follows: the trie holds
``line_win`` of it).  The walk over the first ``k`` reels is tabulated per
combination of their stops (the *prefix table*: the credits of the lines
decided, and the states still open); the driver walks open states on through
the two tries (:mod:`mathkit.sim.kernels`).  Most spins cost one table look-up.
The transitions of :class:`_States` (by state and stop) build the remainder
table of :mod:`mathkit.sim.models`; the driver does not read them: megabytes per
spin model, they missed the core's cache where the tries fit in it.
"""

from __future__ import annotations

import numba as nb
import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..spin.evaluate import line_win
from ..spin.tables import PayTables
from .layout import _LOW16, _LOW24, IntArray

__all__ = ["prefix_table", "remainder_table"]


@nb.njit(cache=True, nogil=True)
def _walk(stops: IntArray, cols: IntArray, first: IntArray, nchild: IntArray, row: IntArray, cnt: IntArray,
          depth: IntArray, sym: IntArray, stack_r: IntArray, stack_s: IntArray, rn0: int, sn0: int,
          k: int) -> tuple:  # pragma: no cover - compiled
    """Walk the tries from state ``(rn0, sn0)`` over ``stops``, up to reel ``k`` (-1: to the end).

    Returns ``(credits of the lines decided, number of open states)``; the open states
    (row node, symbol node) reaching reel ``k`` are left at the bottom of the stacks.
    """
    total = 0
    stack_r[0] = rn0
    stack_s[0] = sn0
    sp = 1
    kept = 0
    while sp > kept:
        sp -= 1
        rn = stack_r[sp]
        sn = stack_s[sp]
        d = depth[rn]
        if d == k:  # swap it down into the kept part
            stack_r[sp] = stack_r[kept]
            stack_s[sp] = stack_s[kept]
            stack_r[kept] = rn
            stack_s[kept] = sn
            kept += 1
            sp += 1
            continue
        s = stops[d]
        for c in range(first[rn], first[rn] + nchild[rn]):
            x = sym[sn, cols[d, s, row[c]]]
            if x < 0:
                total += (-1 - x) * cnt[c]
            else:
                stack_r[sp] = c
                stack_s[sp] = x
                sp += 1
    return total, kept


@nb.njit(cache=True, nogil=True)
def prefix_table(k: int, n_stops: IntArray, cols: IntArray, first: IntArray, nchild: IntArray, row: IntArray,
                 cnt: IntArray, depth: IntArray, sym: IntArray) -> tuple:  # pragma: no cover - compiled
    """Tabulate the walk over the first ``k`` reels for every combination of their stops.

    Returns ``(table, open, offsets)``: combination ``i = Σ_r offsets[r, stop_r]`` pays
    ``table[i, 0]`` credits on the lines already decided and leaves the open trie states
    ``open[table[i, 1] : table[i + 1, 1]]`` (pairs of row node, symbol node) for the
    remaining reels.
    """
    radix = np.ones(k, dtype=np.int64)
    for r in range(k - 2, -1, -1):
        radix[r] = radix[r + 1] * n_stops[r + 1]
    n = radix[0] * n_stops[0] if k > 0 else 1
    table = np.zeros((n + 1, 2), dtype=np.int64)
    size = max(1024, n)
    out = np.empty((size, 2), dtype=np.int64)
    m = 0
    stops = np.zeros(max(k, 1), dtype=np.int64)
    stack_r = np.empty(first.shape[0] + 1, dtype=np.int64)
    stack_s = np.empty(first.shape[0] + 1, dtype=np.int64)
    for i in range(n):
        rest = i
        for r in range(k):
            stops[r] = rest // radix[r]
            rest -= stops[r] * radix[r]
        total, kept = _walk(stops, cols, first, nchild, row, cnt, depth, sym, stack_r, stack_s, 0, 0, k)
        if m + kept > size:
            size = 2 * (m + kept)
            grown = np.empty((size, 2), dtype=np.int64)
            grown[:m] = out[:m]
            out = grown
        out[m : m + kept, 0] = stack_r[:kept]
        out[m : m + kept, 1] = stack_s[:kept]
        m += kept
        table[i, 0] = total
        table[i + 1, 1] = m
    width = 1
    for r in range(k):
        width = max(width, n_stops[r])
    offsets = np.zeros((k, width), dtype=np.int64)
    for r in range(k):
        for j in range(n_stops[r]):
            offsets[r, j] = j * radix[r]
    opened = np.zeros((max(m, 1), 2), dtype=np.int64)
    opened[:m] = out[:m]
    return table, opened, offsets


@nb.njit(cache=True, nogil=True)
def remainder_table(states: IntArray, n_stops: IntArray, cols: IntArray, first: IntArray, nchild: IntArray,
                    row: IntArray, cnt: IntArray, sym: IntArray, trans: IntArray,
                    nxt: IntArray) -> npt.NDArray[np.int64]:  # pragma: no cover - compiled
    """What the lines below each open state pay, by stops of the last one or two reels.

    ``states`` are packed open states (:meth:`_States.packed`) all at reel ``n − 1`` or all at
    reel ``n − 2``; row ``i`` of the result lists state ``i``'s pay for every combination of
    the remaining stops, the first remaining reel most significant (``s_{n−2} · n_{n−1} + s_{n−1}``).
    """
    n_reels = n_stops.shape[0]
    last = n_reels - 1
    n_last = n_stops[last]
    d0 = states[0] >> 56
    n_first = n_stops[d0] if d0 < last else 1
    out = np.zeros((states.shape[0], n_first * n_last), dtype=np.int64)
    for i in range(states.shape[0]):
        o = states[i]
        for a in range(n_first):
            base = 0
            lo = 0
            n_kids = 1
            if d0 < last:  # through reel n − 2's transition: credits, and the states left for the last reel
                t = trans[(o & _LOW24) + a]
                base = t >> 32
                lo = (t >> 8) & _LOW24
                n_kids = t & 255
            for b in range(n_last):
                w = base
                for j in range(lo, lo + n_kids):
                    x = nxt[j] if d0 < last else o
                    rn = (x >> 40) & _LOW16
                    sn = (x >> 24) & _LOW16
                    for q in range(first[rn], first[rn] + nchild[rn]):
                        w += (-1 - sym[sn, cols[last, b, row[q]]]) * cnt[q]
                out[i, a * n_last + b] = w
    return out


class _States:
    """The open states of the line walk past the prefix table, and their transitions.

    A state ``(row node, symbol node)`` at reel ``d`` (``d = depth[row node]``) stands for
    the lines below its row node, whose pay is still open after reel ``d - 1``.  Before the
    last reel, ``trans[base + stop]`` packs ``credits << 32 | first << 8 | count``: what the
    lines decided on reel ``d`` pay at that stop, and the states ``nxt[first : first + count]``
    left open for reel ``d + 1``.  On the last reel the kernel values the state directly.
    The kernel reads states packed in one integer (:meth:`packed`), saving a look-up.
    """

    def __init__(self, n_stops: IntArray, cols: IntArray, lines: tuple[IntArray, ...]) -> None:
        self.n_stops, self.cols, self.lines = n_stops, cols, lines
        self.ids: dict[tuple[int, int], int] = {}
        self.rn: list[int] = []
        self.sn: list[int] = []
        self.base: list[int] = []
        self.trans: list[IntArray] = []
        self.nxt: list[int] = []
        self.size = 0

    def id(self, rn: int, sn: int) -> int:
        key = (rn, sn)
        if key not in self.ids:
            self.ids[key] = len(self.rn)
            self.rn.append(rn)
            self.sn.append(sn)
        return self.ids[key]

    def close(self) -> None:
        """Tabulate the transitions of every state reachable from those already named."""
        first, nchild, row, cnt, depth, sym = self.lines
        last = len(self.n_stops) - 1
        i = 0
        while i < len(self.rn):
            rn, sn = self.rn[i], self.sn[i]
            d = int(depth[rn])
            i += 1
            if d == last:
                self.base.append(0)
                continue
            qs = np.arange(first[rn], first[rn] + nchild[rn])
            x = sym[sn][self.cols[d, : self.n_stops[d]][:, row[qs]]]  # (stops, children)
            credits = np.where(x < 0, (-1 - x) * cnt[qs], 0).sum(axis=1)
            alive = x >= 0
            count = alive.sum(axis=1)
            start = len(self.nxt) + np.cumsum(count) - count
            for t, a in zip(*np.nonzero(alive), strict=True):
                self.nxt.append(self.id(int(qs[a]), int(x[t, a])))
            if credits.max(initial=0) >= 1 << 31 or count.max(initial=0) > 255 or len(self.nxt) >= 1 << 24:
                msg = "the line walk's transition table outgrows its packed fields"
                raise ModelError(msg)
            self.base.append(self.size)
            self.trans.append((credits << 32) | (start << 8) | count)
            self.size += len(credits)

    def packed(self) -> IntArray:
        """Each state as one integer: ``reel << 56 | row node << 40 | symbol node << 24 | base``."""
        depth = self.lines[4]
        if max(self.rn, default=0) > _LOW16 or max(self.sn, default=0) > _LOW16 or self.size > _LOW24:
            msg = "the line walk's states outgrow their packed fields"
            raise ModelError(msg)
        return np.array([(int(depth[r]) << 56) | (r << 40) | (s << 24) | b
                         for r, s, b in zip(self.rn, self.sn, self.base, strict=True)] or [0], dtype=np.int64)

    def tables(self) -> tuple[IntArray, IntArray]:
        """``(transitions, next states)``, the next states packed (see :meth:`packed`)."""
        trans = np.concatenate(self.trans).astype(np.int64) if self.trans else np.zeros(1, dtype=np.int64)
        nxt = self.packed()[self.nxt] if self.nxt else np.zeros(1, dtype=np.int64)
        return trans, nxt


def _row_trie(line_rows: IntArray) -> tuple[IntArray, ...]:
    """Lines as a trie of row prefixes: node 0 is the empty prefix, children contiguous."""
    n_reels = line_rows.shape[1]
    rows = [tuple(int(x) for x in line) for line in line_rows]
    prefixes: list[tuple[int, ...]] = [()]
    for k in range(1, n_reels + 1):
        prefixes += sorted({p[:k] for p in rows})
    index = {p: i for i, p in enumerate(prefixes)}
    n = len(prefixes)
    first = np.zeros(n, dtype=np.int64)
    nchild = np.zeros(n, dtype=np.int64)
    row = np.zeros(n, dtype=np.int64)
    cnt = np.zeros(n, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int64)
    for i, p in enumerate(prefixes):
        depth[i] = len(p)
        cnt[i] = sum(1 for line in rows if line[: len(p)] == p)
        if p:
            row[i] = p[-1]
            parent = index[p[:-1]]
            if nchild[parent] == 0:
                first[parent] = i
            nchild[parent] += 1
    return first, nchild, row, cnt, depth


def _symbol_trie(t: PayTables, alphabets: list[list[int]]) -> IntArray:
    """``trie[node, s]``: child node, or ``-1 - credits`` once the line's pay is decided."""
    n_reels = t.n_reels
    table: list[list[int]] = []
    stack: list[tuple[int, tuple[int, ...]]] = [(0, ())]
    table.append([-1] * t.n_ids)
    while stack:
        node, prefix = stack.pop()
        k = len(prefix)
        for s in alphabets[k]:
            q = (*prefix, s)
            alive = bool(t.match[:, list(q)].all(axis=1).any())
            if k + 1 == n_reels or not alive:
                seq = np.array(q + (q[0],) * (n_reels - k - 1), dtype=np.int64)
                table[node][s] = -1 - int(line_win(seq, t.match, t.pay, t.own, t.mult)[0])
            else:
                table[node][s] = len(table)
                table.append([-1] * t.n_ids)
                stack.append((len(table) - 1, q))
    return np.array(table, dtype=np.int64)
