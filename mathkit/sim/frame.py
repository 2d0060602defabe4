"""The frame of the generated driver: the round loop of :func:`play_rounds`, whose instruction dispatch
:mod:`mathkit.sim.driver` writes from the words' snippets (:mod:`mathkit.sim.words`), the base loop
:func:`_drive` and its four compiled builds.

This module is read, not imported for its functions: :mod:`mathkit.sim.driver` replaces the line
``# @dispatch`` with one branch per instruction, writes the result to a file named by its content's hash
(numba caches the compiled code by that file, so a changed word or frame compiles again) and imports it.
The snippets see the names of the frame's loop (their fields ``a ib ic idd ie``; the round's named state:
``vals``, ``R``, ``tab``, ``c`` the observation code, ``k`` the spin model, ``W`` the window …).

Per base spin: the variant (when a modifier gives several), the stops, the
observation code and the line pay — the prefix table and its open states, or a
ways window for :func:`mathkit.spin.evaluate.ways_win`.  One look-up of the code gives
the scatter credits and which sequence features may start.  When one may (or the
variant is played the slow way), the same loop interprets the round's program
(:mod:`mathkit.sim.program`): the features' entry actions in the base window,
then the queued features stage by stage.  A stage's spin draws its stops from
the feature stream and hands them back to the line pay above (every spin is
valued by the same code), then the program goes on.  The semantics of every
instruction are written here once; nothing here knows the exact engine or a
feature's name.

Speed notes (measured, see ``benchmarks/bench_simulate.py``): base spins are
drawn a batch ahead with their prefix-table entries, then the lines their
prefix leaves open are paid from the remainder table (by open state and stops of
the remaining reels) in a pass of their own, so those cache misses overlap
(played one spin at a time, the same table made spins slower than walking the
tries); the walk itself goes through the row and symbol tries, which stay in the
core's cache, not through a transition table by state and stop (one per spin
model: Prince of Riches' five heights made 9.8 MB of them, and its base spins
walked at half the speed); a stop's prefix offset, remainder offset and observation digits
share one word, so a reel costs one load; the prefix entry packs the open-state
count, so the two thirds of spins that open none stop there; everything is written out in one function,
with no call on the way, because a helper taking arrays costs reference
counting on every spin (an inlined one too: it made spins four times slower);
lines and ways games, and games with one base variant or several, run
different compiled functions for the same reason.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..spin.evaluate import ways_win
from . import layout as K
from .layout import (
    _BATCH,
    _BIG_WIN,
    _BUF,
    _LOW16,
    _LOW20,
    _LOW24,
    _SLACK,
    _SQ_FLUSH,
    _SQ_MASK,
    _ZERO,
    SQ_SHIFT,
    FloatArray,
    IntArray,
    UIntArray,
)
from .lines import _walk
from .rng import _draw, _lemire, _refill


@nb.njit(inline="always")
def square(acc: IntArray, slot: int, x: int) -> None:  # pragma: no cover - compiled
    """Add ``x²`` to the ``(hi, lo)`` pair at ``acc[slot]`` (worth ``hi·2^40 + lo``)."""
    lo = acc[slot + 1] + x * x
    if lo >= _SQ_FLUSH:
        acc[slot] += lo >> SQ_SHIFT
        lo &= _SQ_MASK
    acc[slot + 1] = lo


@nb.njit(inline="always")
def carry(acc: IntArray, slot: int, q: int) -> None:  # pragma: no cover - compiled
    """Add a partial sum of squares ``0 ≤ q < 2**63`` to the ``(hi, lo)`` pair at ``acc[slot]``."""
    acc[slot] += q >> SQ_SHIFT
    lo = acc[slot + 1] + (q & _SQ_MASK)
    acc[slot] += lo >> SQ_SHIFT
    acc[slot + 1] = lo & _SQ_MASK


@nb.njit(cache=True, nogil=True)
def play_rounds(n: int, pend: IntArray, res: IntArray, M: tuple, P: tuple, L: tuple, S: tuple, F: tuple, kind: int,
                par: IntArray, acc: IntArray, is_ways: bool) -> None:  # pragma: no cover - compiled
    """Play the rest of ``n`` deferred rounds, in order, after their base spins.

    ``pend[i] = (variant, code, line win, scatter win, stops ...)`` of round ``i``'s base spin;
    ``res[i]`` receives ``(line win, scatter win, other, features entered)``: a slow variant may change the base
    spin's wins (its forced cells) or move them to its own components; ``other`` is what the
    round paid besides them, each part already summed into its component's slots.  ``S`` is
    scratch; ``F = (buffer, (head, end), generator)`` the feature stream, continued from call to call.
    """
    mod, mode, lut, cum, word, ocols, lcols, rows = M[0], M[1], M[2], M[3], M[4], M[5], M[6], M[7]
    first, nchild, row, cnt, depth, entry_t, opened = M[8], M[9], M[10], M[11], M[12], M[13], M[14]
    read = M[16]
    code, tab, symset, symcode, feat, var, _, ptab, sym, comp, cmap = P
    match, pay, mult, wildm, wrule = L
    R, vals, queue, cw, W, LW, LW3, zst, stack_r, stack_s, stack, fm, fs, window = S[:14]
    free_buf, fpos, free_gen = F
    free_h = fpos[0]
    free_n = fpos[1]
    cap = par[K.P_CAP]
    height = par[K.P_HEIGHT]
    n_feat = par[K.P_FEATURES]
    spins = S[14]  # row 0: the base spin's stops, row 1: the feature spin's
    n_reels = spins.shape[1]
    need = 2 * n_reels + 2 + _SLACK
    for i_round in range(n):
        v = pend[i_round, 0]
        c = pend[i_round, 1]
        line_b = pend[i_round, 2]
        scat_b = pend[i_round, 3]
        for r in range(n_reels):
            spins[0, r] = pend[i_round, 4 + r]
        at = 0
        k = var[v, 0]
        e = 0
        line = other = spin_w = 0
        want = 0  # whose lines are valued next: 0 the base spin (done), 1 a feature spin, 2 the base spin again
        in_window = False  # value the window W (forced cells), not the stops
        w_ready = False  # W holds the current window
        pc = -1
        phase = cur = jj = -1
        qn = qi = steps = nf = opt = flags = 0
        nest_ret = nj = -1  # inside an as_base spin: where its program goes on, the feature whose entry runs
        nctx = nflags = 0  # the context of pay parts (0: the top of the round, 1 + j: in feature j's spin)
        entered = 0  # the features this round entered, bit j for feature j (the route labels, mathkit.sim.routes)
        fcur = -1  # the feature whose stages are playing, and the spins they played so far
        fspins = 0
        while True:
            # --- the lines of the current spin (the base spin's are valued by the caller)
            if want == 0:
                pass
            elif in_window:
                for r in range(n_reels):
                    for q in range(rows[k, r]):
                        LW[r, q] = read[k, r, W[r, q]]
                        LW3[r, 0, q] = LW[r, q]
                if is_ways:
                    line = ways_win(LW, rows[k], match, pay, mult, wildm, wrule)
                else:
                    line, _ = _walk(zst, LW3, first[k], nchild[k], row[k], cnt[k], depth[k], sym, stack_r,
                                    stack_s, 0, 0, n_reels)
                in_window = False
            elif is_ways:
                for r in range(n_reels):
                    for q in range(rows[k, r]):
                        window[r, q] = lcols[k, r, spins[at, r], q]
                line = ways_win(window, rows[k], match, pay, mult, wildm, wrule)
            else:  # the prefix table's credits, then the open states over the remaining reels
                # The walk is written once, here, and pasted by mathkit.sim.driver where _drive values a batch's
                # spins (its names for the win and the spin's row in the parentheses).  Not a helper: made one
                # @nb.njit(inline="always") function, the benchmark driver fell from 14.9M to 4.7M spins/s (3.8M
                # passing the spins and the index instead of a row view) — the arrays it takes cost reference
                # counting on every spin (benchmarks/bench_simulate.py --spins 8e6 --repeat 3; issue 15's notes).
                # @walk(line, at) {
                line = e >> 32
                n_open = (e >> 24) & 255
                if n_open != 0:
                    sp = 0
                    f0 = e & _LOW24
                    for j in range(f0, f0 + n_open):
                        stack[sp] = opened[k, j]
                        sp += 1
                    while sp > 0:
                        sp -= 1
                        o = stack[sp]  # an open state: reel << 32 | row node << 16 | symbol node
                        d = o >> 32
                        rn = (o >> 16) & _LOW16
                        sn = o & _LOW16
                        s = spins[at, d]
                        for q in range(first[k, rn], first[k, rn] + nchild[k, rn]):
                            x = sym[sn, lcols[k, d, s, row[k, q]]]
                            if x < 0:  # the pay is decided on this reel
                                line += (-1 - x) * cnt[k, q]
                            else:
                                stack[sp] = ((d + 1) << 32) | (q << 16) | x
                                sp += 1
                # @walk }
            if want == 0:  # the base spin, valued by the caller: the round's program starts
                pt = ptab[c]
                R[:] = 0
                cw[:] = 0
                w_ready = False  # the window W is filled when an instruction first reads it
                pc = var[v, 1]  # a slow variant's program first, else the features' entries
                phase = 0 if pc >= 0 else 1
                flags = pt & 0xFFFF
            elif want == 1:
                spin_w = line
            else:
                line_b = line
                scat_b = ptab[c] >> 16
            # --- the round's program, up to the next spin to value or the end of the round
            done = False
            while True:
                if pc < 0 and nest_ret >= 0:  # inside an as_base spin: the next feature it starts, then back
                    nj += 1
                    while nj < n_feat and (nflags >> nj) & 1 == 0:
                        nj += 1
                    if nj < n_feat:
                        pc = feat[nj, 0]
                    else:
                        pc = nest_ret
                        nest_ret = -1
                        nctx = 0
                    continue
                if pc < 0:  # a program is over: the next one
                    if phase == 0:  # the slow variant's: its window may start other features
                        phase = 1
                        flags = ptab[c] & 0xFFFF
                    if phase == 1:
                        if jj >= 0 and feat[jj, 5] == 0:  # the entry of feature jj ran: queue it
                            if qn < K.QUEUE:
                                queue[qn] = jj
                                qn += 1
                            else:
                                acc[K.A_OVERFLOW] = 3
                        jj += 1
                        while jj < n_feat and (flags >> jj) & 1 == 0:
                            jj += 1
                        if jj < n_feat:
                            cur = jj
                            if feat[jj, 5] == 0:
                                acc[feat[jj, 3]] += 1
                                entered |= 1 << jj
                            pc = feat[jj, 0]
                            continue
                        phase = 2
                        if qn > 0:
                            acc[K.A_TRIGGERS] += 1
                    if fcur >= 0:  # the stages of feature fcur are over: the square of its length
                        square(acc, feat[fcur, 4] + 1, fspins)
                        fcur = -1
                    if qi < qn and line_b + scat_b + other < cap:
                        cur = queue[qi]
                        qi += 1
                        pc = feat[cur, 1]
                        fcur = cur
                        fspins = 0
                        continue
                    done = True
                    break
                op = code[pc, 0]
                a = code[pc, 1]
                ib = code[pc, 2]
                ic = code[pc, 3]
                idd = code[pc, 4]
                ie = code[pc, 5]
                pc += 1
                # @dispatch
            if done:
                break
        if fcur >= 0:  # (the round stopped inside a feature: at the cap)
            square(acc, feat[fcur, 4] + 1, fspins)
        ftot = 0  # the features' sums
        for j in range(comp.shape[0]):
            y = cw[j]
            if y != 0:
                acc[comp[j]] += y
                square(acc, comp[j] + 1, y)
                ftot += y
        if ftot != 0:
            acc[K.A_FREE] += ftot
            square(acc, K.A_SQUARES + 4, ftot)
        res[i_round, 0] = line_b
        res[i_round, 1] = scat_b
        res[i_round, 2] = other
        res[i_round, 3] = entered
    fpos[0] = free_h
    fpos[1] = free_n


@nb.njit(inline="always")
def _drive(n_plays: int, st: UIntArray, kind: int, M: tuple, P: tuple, L: tuple, par: IntArray, acc: IntArray,
           facc: FloatArray, wins: IntArray, is_ways: bool, single: bool) -> None:  # pragma: no cover - compiled
    """Play ``n_plays`` whole rounds into ``acc``/``facc``; ``wins`` (when not empty) gets each round's paid win.

    With ``par[P_ROUTES]`` set, ``wins`` also holds the features the round entered (bit ``j`` for feature
    ``j``) from bit :data:`~mathkit.sim.layout.ROUTE_SHIFT` up: the route labels of :mod:`mathkit.sim.routes`.

    ``M`` holds the spin models' arrays (:data:`mathkit.sim.models.FIELDS`), ``P`` the program
    (:data:`mathkit.sim.program.PROGRAM`), ``L`` the ways tables.  ``st[0]`` and ``st[1]`` are the
    states of the base-spin and feature generators (:func:`~mathkit.sim.rng.generator_state`),
    read, not advanced.  ``single``: the base spin has one variant (model 0), a constant the
    compiler folds into every index (worth a fifth of the time of a spin).
    """
    mod, mode, lut, cum, word, lcols, rows = M[0], M[1], M[2], M[3], M[4], M[6], M[7]
    first, nchild, row, cnt, entry_t, opened = M[8], M[9], M[10], M[11], M[13], M[14]
    info, ropen, rem = M[15], M[17], M[18]
    var, vcum, ptab, sym = P[5], P[6], P[7], P[8]
    match, pay, mult, wildm, wrule = L
    bet = par[K.P_TOTAL_BET]
    cap = par[K.P_CAP]
    slow0 = var[0, 1] >= 0
    routes = par[K.P_ROUTES] != 0
    vtotal = np.uint64(par[K.P_VTOTAL])
    height = par[K.P_HEIGHT]
    n_reels = mod.shape[1]
    spins = np.empty((_BATCH, n_reels), dtype=np.int64)
    entry = np.empty(_BATCH, dtype=np.int64)
    scode = np.empty(_BATCH, dtype=np.int64)
    roff = np.zeros(_BATCH, dtype=np.int64)
    kv = np.zeros(_BATCH, dtype=np.int64)
    window = np.zeros((n_reels, height), dtype=np.int64)
    stack = np.empty(first.shape[1] + 1, dtype=np.int64)
    record = wins.shape[0] > 0
    # the round program's registers, value slots, queue, feature wins, window, forced cells (rounds.py)
    S = (np.zeros(max(par[K.P_REGS], 1), dtype=np.int64), np.zeros(max(par[K.P_VALS], 1), dtype=np.int64),
         np.zeros(K.QUEUE, dtype=np.int64), np.zeros(P[9].shape[0], dtype=np.int64),
         np.zeros((n_reels, height), dtype=np.int64), np.zeros((n_reels, height), dtype=np.int64),
         np.zeros((n_reels, 1, height), dtype=np.int64), np.zeros(n_reels, dtype=np.int64),
         np.empty(first.shape[1] + 1, dtype=np.int64), np.empty(first.shape[1] + 1, dtype=np.int64),
         np.empty(first.shape[1] + 1, dtype=np.int64), np.zeros(K.MAX_FORCES, dtype=np.int64),
         np.zeros(K.MAX_FORCES, dtype=np.int64), np.zeros((n_reels, height), dtype=np.int64),
         np.zeros((2, n_reels), dtype=np.int64))
    # the two streams of 32-bit halves (numpy's next_uint32 order), generated ahead
    base_gen = st[0, :4].copy()
    base_buf = np.empty(_BUF, dtype=np.uint64)
    base_n = base_h = 0
    if st[0, 4] != _ZERO:
        base_buf[0] = st[0, 5]
        base_n = 1
    F = (np.empty(_BUF, dtype=np.uint64), np.zeros(2, dtype=np.int64), st[1, :4].copy())
    if st[1, 4] != _ZERO:
        F[0][0] = st[1, 5]
        F[1][1] = 1
    need = 2 * n_reels + 2 + _SLACK
    pend = np.zeros((K.PENDING, 4 + n_reels), dtype=np.int64)  # variant, code, line, scatter, stops
    pidx = np.zeros(K.PENDING, dtype=np.int64)
    n_pend = 0
    res = np.zeros((_BATCH + K.PENDING, 4), dtype=np.int64)  # line, scatter, other, features entered, by round
    ridx = np.zeros(_BATCH + K.PENDING, dtype=np.int64)
    s_line = s_scat = s_total = hits = hits_bet = top = 0
    q_line = q_scat = q_paid = 0  # sums of squares, flushed to acc[A_SQUARES ...] before they could overflow
    x3 = x4 = 0.0
    for start in range(0, n_plays, _BATCH):
        n_batch = min(_BATCH, n_plays - start)
        for b in range(n_batch):  # draw the base spins of the batch, with their prefix-table entries
            if base_n - base_h < need:
                base_h, base_n = _refill(base_buf, base_h, base_n, base_gen, kind)
            v = 0
            if not single:
                base_h, u = _lemire(base_buf, base_h, vtotal)
                while vcum[v] <= u:
                    v += 1
            k = 0 if single else var[v, 0]
            base_h, ws = _draw(base_buf, base_h, k, mod, mode, lut, cum, word, spins, b)
            kv[b] = v
            scode[b] = ws & _LOW24
            if not is_ways:
                entry[b] = entry_t[k, (ws >> 24) & _LOW20]
                roff[b] = ws >> 44
        if base_h > base_n:  # more than _SLACK rejections in a spin: never seen, never silent
            acc[K.A_OVERFLOW] = 2
        if not is_ways:  # the open states' pay from the remainder tables, folded into the entries
            for b in range(n_batch):
                e = entry[b]
                n_open = (e >> 24) & 255
                k = 0 if single else var[kv[b], 0]
                if n_open != 0 and info[k, 2] != 0:
                    x = 0
                    f0 = e & _LOW24
                    for j in range(f0, f0 + n_open):
                        x += rem[ropen[k, j] + roff[b]]
                    entry[b] = ((e >> 32) + x) << 32
        n_res = 0
        for b in range(n_batch):  # value them; a round that may go on is deferred
            v = kv[b]
            k = 0 if single else var[v, 0]
            c = scode[b]
            e = entry[b]
            if is_ways:
                for r in range(n_reels):
                    for q in range(rows[k, r]):
                        window[r, q] = lcols[k, r, spins[b, r], q]
                line_b = ways_win(window, rows[k], match, pay, mult, wildm, wrule)
            else:  # the prefix table's credits, then the open states over the remaining reels
                pass  # @walk(line_b, b): the walk of play_rounds, pasted by mathkit.sim.driver
            pt = ptab[c]
            scat_b = pt >> 16
            if pt & 0xFFFF or (slow0 if single else var[v, 1] >= 0):  # it may start a feature: played later
                pend[n_pend, 0] = v
                pend[n_pend, 1] = c
                pend[n_pend, 2] = line_b
                pend[n_pend, 3] = scat_b
                for r in range(n_reels):
                    pend[n_pend, 4 + r] = spins[b, r]
                pidx[n_pend] = start + b
                n_pend += 1
                continue
            res[n_res, 0] = line_b
            res[n_res, 1] = scat_b
            res[n_res, 2] = 0
            res[n_res, 3] = 0
            ridx[n_res] = start + b
            n_res += 1
        if n_pend > 0 and (n_pend > K.PENDING - _BATCH or start + _BATCH >= n_plays):
            # the deferred rounds, in play order, in one call (a call costs a microsecond of set-up)
            play_rounds(n_pend, pend, res[n_res:], M, P, L, S, F, kind, par, acc, is_ways)
            ridx[n_res : n_res + n_pend] = pidx[:n_pend]
            n_res += n_pend
            n_pend = 0
        for i in range(n_res):  # the rounds' sums
            line_b = res[i, 0]
            scat_b = res[i, 1]
            total = line_b + scat_b + res[i, 2]
            if record:  # with P_ROUTES, the features the round entered above bit ROUTE_SHIFT (mathkit.sim.routes)
                wins[ridx[i]] = min(total, cap) | (res[i, 3] << K.ROUTE_SHIFT if routes else 0)
            if total == 0:
                continue
            paid = min(total, cap)
            s_line += line_b
            s_scat += scat_b
            s_total += paid
            hits += 1
            hits_bet += paid >= bet
            if total >= _BIG_WIN:
                acc[K.A_OVERFLOW] = 1
            q_line += line_b * line_b
            q_scat += scat_b * scat_b
            q_paid += paid * paid
            if q_line | q_scat | q_paid >= _SQ_FLUSH:  # one of them reached 2**62 (each term is below it)
                carry(acc, K.A_SQUARES, q_line)
                carry(acc, K.A_SQUARES + 2, q_scat)
                carry(acc, K.A_SQUARES + 8, q_paid)
                q_line = q_scat = q_paid = 0
            if paid >= 10 * bet:
                acc[K.A_HITS_10] += 1
                acc[K.A_HITS_100] += paid >= 100 * bet
                acc[K.A_HITS_1000] += paid >= 1000 * bet
            if total >= cap:
                acc[K.A_CAP_HITS] += 1
                acc[K.A_CUT] += total - paid
                square(acc, K.A_SQUARES + 6, total - paid)
            top = max(top, paid)
            xf = float(paid)
            x2 = xf * xf
            x3 += x2 * xf
            x4 += x2 * x2
    if F[1][0] > F[1][1]:
        acc[K.A_OVERFLOW] = 2
    carry(acc, K.A_SQUARES, q_line)
    carry(acc, K.A_SQUARES + 2, q_scat)
    carry(acc, K.A_SQUARES + 8, q_paid)
    acc[K.A_MAX] = max(acc[K.A_MAX], top)
    facc[K.F_X3] += x3
    facc[K.F_X4] += x4
    acc[K.A_PLAYS] += n_plays
    acc[K.A_LINE] += s_line
    acc[K.A_SCATTER] += s_scat
    acc[K.A_TOTAL] += s_total
    acc[K.A_HITS] += hits
    acc[K.A_HITS_BET] += hits_bet


@nb.njit(cache=True, nogil=True)
def _play_lines(n_plays: int, st: UIntArray, kind: int, M: tuple, P: tuple, L: tuple, par: IntArray, acc: IntArray,
                facc: FloatArray, wins: IntArray) -> None:  # pragma: no cover - compiled
    _drive(n_plays, st, kind, M, P, L, par, acc, facc, wins, False, True)


@nb.njit(cache=True, nogil=True)
def _play_lines_variants(n_plays: int, st: UIntArray, kind: int, M: tuple, P: tuple, L: tuple, par: IntArray,
                         acc: IntArray, facc: FloatArray, wins: IntArray) -> None:  # pragma: no cover - compiled
    _drive(n_plays, st, kind, M, P, L, par, acc, facc, wins, False, False)


@nb.njit(cache=True, nogil=True)
def _play_ways(n_plays: int, st: UIntArray, kind: int, M: tuple, P: tuple, L: tuple, par: IntArray, acc: IntArray,
               facc: FloatArray, wins: IntArray) -> None:  # pragma: no cover - compiled
    _drive(n_plays, st, kind, M, P, L, par, acc, facc, wins, True, True)


@nb.njit(cache=True, nogil=True)
def _play_ways_variants(n_plays: int, st: UIntArray, kind: int, M: tuple, P: tuple, L: tuple, par: IntArray,
                        acc: IntArray, facc: FloatArray, wins: IntArray) -> None:  # pragma: no cover - compiled
    _drive(n_plays, st, kind, M, P, L, par, acc, facc, wins, True, False)



KERNELS = {(False, True): _play_lines, (False, False): _play_lines_variants, (True, True): _play_ways,
           (True, False): _play_ways_variants}
"""The driver's builds by (ways, one base variant)."""
