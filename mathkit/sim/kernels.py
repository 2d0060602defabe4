"""The compiled kernels: play blocks of whole plays (a base spin and its feature) of a compiled game.

Nothing here knows the exact engine: ways windows go to the shared
:func:`mathkit.evaluate.ways_win`, line pays come from the tables of :mod:`mathkit.sim.lines`,
stops from the streams of :mod:`mathkit.sim.rng`.

Speed notes (measured, see ``benchmarks/bench_simulate.py``): base spins are
drawn a batch ahead so their table loads overlap; the per-spin code is written
out in one function, because passing arrays to a helper on every spin costs
reference counting that made it several times slower; lines and ways games
run different compiled functions for the same reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numba as nb
import numpy as np

from ..evaluate import ways_win
from .layout import (
    _BATCH,
    _BIG_WIN,
    _BUF,
    _LOW16,
    _LOW24,
    _LOW32,
    _SLACK,
    _SQ_FLUSH,
    _SQ_MASK,
    _ZERO,
    A_CAP_HITS,
    A_CUT,
    A_FREE,
    A_FREE_SPINS,
    A_HITS,
    A_HITS_10,
    A_HITS_100,
    A_HITS_1000,
    A_HITS_BET,
    A_LINE,
    A_MAX,
    A_OVERFLOW,
    A_PLAYS,
    A_RETRIGGERS,
    A_SCATTER,
    A_SQUARES,
    A_TOTAL,
    A_TRIGGERS,
    F_X3,
    F_X4,
    P_CAP,
    P_FS_MULT,
    P_FS_MULT_SCATTER,
    P_MAX_SPINS,
    P_TOTAL_BET,
    SQ_SHIFT,
    FloatArray,
    IntArray,
    UIntArray,
)
from .rng import _draw, _refill

if TYPE_CHECKING:
    from .spec import SimSpec

__all__ = ["play_block"]


@nb.njit(inline="always")
def _square(acc: IntArray, slot: int, x: int) -> None:  # pragma: no cover - compiled
    lo = acc[slot + 1] + x * x
    if lo >= _SQ_FLUSH:
        acc[slot] += lo >> SQ_SHIFT
        lo &= _SQ_MASK
    acc[slot + 1] = lo


@nb.njit(inline="always")
def _play(n_plays: int, st: UIntArray, kind: int, sets: tuple, lines: tuple, ways: tuple, tabs: tuple,
          par: IntArray, acc: IntArray, facc: FloatArray, wins: IntArray,
          is_ways: bool) -> None:  # pragma: no cover - compiled
    """Play ``n_plays`` whole plays (a base spin and the feature it triggers) into ``acc``/``facc``.

    ``sets`` stacks the base (0) and free-spin (1) reel sets (see :func:`_reel_set`);
    ``lines`` holds the row and symbol tries, ``ways`` the tables of
    :func:`~mathkit.evaluate.ways_win`, ``tabs = (scatter credits, trigger count)`` by
    scatter code and ``(award, retrigger)`` by trigger count.  ``st[0]`` and ``st[1]`` are
    the states of the base-game and free-spin generators (:func:`generator_state`), read,
    not advanced.  When ``wins`` is not empty it receives each play's paid (capped) win.

    Base spins are drawn a batch ahead, with their prefix-table entries: those loads are
    independent, so the processor overlaps their cache misses.
    The spin is written out in this one function on purpose: passing arrays to a
    non-inlined helper on every spin costs reference counting that is several times slower.
    """
    mod, mode, lut, cum, cols, code, rows, table, opened, offsets, info, trans, nxt = sets
    first, nchild, row, cnt, _, sym = lines
    match, pay, mult = ways
    spay, trig, award, retrig = tabs
    fs_mult = par[P_FS_MULT]
    sc_mult = fs_mult if par[P_FS_MULT_SCATTER] != 0 else 1
    max_spins = par[P_MAX_SPINS]
    bet = par[P_TOTAL_BET]
    cap = par[P_CAP]
    n_reels = mod.shape[1]
    spins = np.empty((_BATCH + 1, n_reels), dtype=np.int64)  # row _BATCH: the current free spin
    entry = np.empty(_BATCH + 1, dtype=np.int64)
    where = np.empty(_BATCH + 1, dtype=np.int64)
    scode = np.empty(_BATCH + 1, dtype=np.int64)
    window = np.zeros((n_reels, cols.shape[3]), dtype=np.int64)
    stack = np.empty(first.shape[0] + 1, dtype=np.int64)
    last = n_reels - 1
    record = wins.shape[0] > 0
    # the two streams of 32-bit halves (numpy's next_uint32 order), generated ahead
    base_gen = st[0, :4].copy()
    free_gen = st[1, :4].copy()
    base_buf = np.empty(_BUF, dtype=np.uint64)
    free_buf = np.empty(_BUF, dtype=np.uint64)
    base_n = free_n = base_h = free_h = 0
    if st[0, 4] != _ZERO:
        base_buf[0] = st[0, 5]
        base_n = 1
    if st[1, 4] != _ZERO:
        free_buf[0] = st[1, 5]
        free_n = 1
    need = 2 * n_reels + _SLACK
    s_line = s_scat = s_total = hits = hits_bet = 0
    for start in range(0, n_plays, _BATCH):
        n_batch = min(_BATCH, n_plays - start)
        for b in range(n_batch):  # draw and value the base spins of the batch
            if base_n - base_h < need:
                base_h, base_n = _refill(base_buf, base_h, base_n, base_gen, kind)
            base_h, scode[b] = _draw(base_buf, base_h, 0, mod, mode, lut, cum, code, spins, b)
            if not is_ways:
                idx = 0
                for r in range(info[0, 0]):
                    idx += offsets[0, r, spins[b, r]]
                where[b] = idx
                entry[b] = table[0, idx]
        if base_h > base_n:  # more than _SLACK rejections in a spin: never seen, never silent
            acc[A_OVERFLOW] = 2
        for b in range(n_batch):  # play them in order, with their features
            line = scat = feature = awarded = 0
            left = 1
            k = 0  # the reel set: 0 for the base spin, 1 for free spins
            at = b  # the spin's row in ``spins``
            e = entry[b]
            idx = where[b]
            c = scode[b]
            while left > 0:
                left -= 1
                if is_ways:
                    for r in range(n_reels):
                        for q in range(rows[k, r]):
                            window[r, q] = cols[k, r, spins[at, r], q]
                    w = ways_win(window, rows[k], match, pay, mult)
                else:  # the prefix table's credits, then the open states over the remaining reels
                    w = e >> 32
                    sp = 0
                    for j in range(e & _LOW32, table[k, idx + 1] & _LOW32):
                        stack[sp] = opened[k, j]
                        sp += 1
                    while sp > 0:
                        sp -= 1
                        o = stack[sp]  # a packed state: reel, row node, symbol node, transitions
                        d = o >> 56
                        s = spins[at, d]
                        if d == last:  # every line below is decided on the last reel
                            rn = (o >> 40) & _LOW16
                            sn = (o >> 24) & _LOW16
                            for q in range(first[rn], first[rn] + nchild[rn]):
                                w += (-1 - sym[sn, cols[k, d, s, row[q]]]) * cnt[q]
                        else:
                            t = trans[k, (o & _LOW24) + s]
                            w += t >> 32
                            lo = (t >> 8) & _LOW24
                            for j in range(lo, lo + (t & 255)):
                                stack[sp] = nxt[k, j]
                                sp += 1
                if k == 0:
                    line = w
                    scat = spay[c]
                    n_free = award[trig[c]]
                    if n_free > 0:
                        acc[A_TRIGGERS] += 1
                        if line + scat < cap:
                            left = min(n_free, max_spins)
                            awarded = left
                else:
                    feature += w * fs_mult + spay[c] * sc_mult
                    acc[A_FREE_SPINS] += 1
                    more = min(retrig[trig[c]], max_spins - awarded)
                    if more > 0:
                        acc[A_RETRIGGERS] += 1
                        left += more
                        awarded += more
                    if line + scat + feature >= cap:  # the play is over once the cap is reached
                        left = 0
                if left > 0:  # draw and value the next free spin
                    if free_n - free_h < need:
                        free_h, free_n = _refill(free_buf, free_h, free_n, free_gen, kind)
                    k = 1
                    at = _BATCH
                    free_h, c = _draw(free_buf, free_h, 1, mod, mode, lut, cum, code, spins, at)
                    if free_h > free_n:
                        acc[A_OVERFLOW] = 2
                    if not is_ways:
                        idx = 0
                        for r in range(info[1, 0]):
                            idx += offsets[1, r, spins[at, r]]
                        e = table[1, idx]
            total = line + scat + feature
            if record:
                wins[start + b] = min(total, cap)
            if total == 0:
                continue
            paid = min(total, cap)
            s_line += line
            s_scat += scat
            s_total += paid
            hits += 1
            hits_bet += paid >= bet
            if total >= _BIG_WIN:
                acc[A_OVERFLOW] = 1
            _square(acc, A_SQUARES, line)
            _square(acc, A_SQUARES + 2, scat)
            _square(acc, A_SQUARES + 8, paid)
            if paid >= 10 * bet:
                acc[A_HITS_10] += 1
                acc[A_HITS_100] += paid >= 100 * bet
                acc[A_HITS_1000] += paid >= 1000 * bet
            if feature > 0:
                acc[A_FREE] += feature
                _square(acc, A_SQUARES + 4, feature)
            if total >= cap:
                acc[A_CAP_HITS] += 1
                acc[A_CUT] += total - paid
                _square(acc, A_SQUARES + 6, total - paid)
            acc[A_MAX] = max(acc[A_MAX], paid)
            xf = float(paid)
            x2 = xf * xf
            facc[F_X3] += x2 * xf
            facc[F_X4] += x2 * x2
    acc[A_PLAYS] += n_plays
    acc[A_LINE] += s_line
    acc[A_SCATTER] += s_scat
    acc[A_TOTAL] += s_total
    acc[A_HITS] += hits
    acc[A_HITS_BET] += hits_bet


@nb.njit(cache=True, nogil=True)
def _play_lines(n_plays: int, st: UIntArray, kind: int, sets: tuple, lines: tuple, ways: tuple, tabs: tuple,
                par: IntArray, acc: IntArray, facc: FloatArray, wins: IntArray) -> None:  # pragma: no cover
    _play(n_plays, st, kind, sets, lines, ways, tabs, par, acc, facc, wins, False)


@nb.njit(cache=True, nogil=True)
def _play_ways(n_plays: int, st: UIntArray, kind: int, sets: tuple, lines: tuple, ways: tuple, tabs: tuple,
               par: IntArray, acc: IntArray, facc: FloatArray, wins: IntArray) -> None:  # pragma: no cover
    _play(n_plays, st, kind, sets, lines, ways, tabs, par, acc, facc, wins, True)


def play_block(n_plays: int, st: UIntArray, kind: int, spec: SimSpec, acc: IntArray, facc: FloatArray,
               wins: IntArray) -> None:
    """Play ``n_plays`` whole plays of ``spec`` into ``acc``/``facc`` (and ``wins``, when not empty).

    ``st`` stacks the states (:func:`generator_state`) of the generators the base spins
    and the free spins draw from; ``kind`` says which bit generator they are.

    Lines and ways games run different compiled functions: one holding both
    evaluations runs several times slower.
    """
    kernel = _play_ways if spec.ways else _play_lines
    kernel(n_plays, st, kind, spec.sets, spec.lines, spec.ways_tables, spec.tabs, spec.par, acc, facc, wins)
