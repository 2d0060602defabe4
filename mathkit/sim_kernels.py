"""Compiled kernels of the simulator: the random stream, one spin, one block of plays.

Nothing here knows the exact engine.  The line pays the kernels read are a
*memo* of the shared :func:`mathkit.evaluate.line_win` (see
:mod:`mathkit.simulate`), so windows are still valued by the one statement of
the pay rules; ways windows go to :func:`mathkit.evaluate.ways_win` itself.

Random stream
-------------
A block of plays owns one ``numpy.random.PCG64`` (or ``SFC64``) bit generator.
The kernels continue that generator's exact state in compiled code and draw
every stop with Lemire's unbiased method on 32-bit words, exactly as
``Generator.integers(0, m, dtype=numpy.uint32)`` does.  So the stop of reel
``r`` in the ``j``-th spin of a block is the ``(j·R + r)``-th such call on the
block's ``Generator`` (``m`` = strip length, or the reel's total weight for
virtual stops, mapped to a stop through the cumulative weights); the tests
check this against numpy.

Line pays
---------
A line is read left to right through two tries: one over the lines' row
prefixes (lines sharing their first rows share the work) and one over symbol
prefixes (``-1 - credits`` once the line's pay is decided).  The walk over the
first ``k`` reels is tabulated per combination of their stops (the *prefix
table*: decided credits, and the trie states still open), so most spins cost
one table look-up plus a few steps on the remaining reels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from .errors import ModelError
from .evaluate import line_win, scatter_code, ways_win
from .game import Game
from .tables import PayTables, ReelArrays, pay_tables, reel_arrays

__all__ = ["SimSpec", "compile_game", "draw_stops", "generator_state", "play_block", "prefix_table"]

IntArray = npt.NDArray[np.int64]
UIntArray = npt.NDArray[np.uint64]
FloatArray = npt.NDArray[np.float64]

KIND_PCG64 = 0
KIND_SFC64 = 1

# integer accumulator slots (one row per block)
A_PLAYS = 0
A_LINE = 1
A_SCATTER = 2
A_FREE = 3
A_CUT = 4
A_TOTAL = 5
A_HITS = 6
A_HITS_BET = 7
A_HITS_10 = 8
A_HITS_100 = 9
A_HITS_1000 = 10
A_TRIGGERS = 11
A_FREE_SPINS = 12
A_RETRIGGERS = 13
A_CAP_HITS = 14
A_MAX = 15
A_OVERFLOW = 16
A_SQUARES = 17
"""Sums of squares of line, scatter, free, cut, total wins: ``(hi, lo)`` pairs worth ``hi·2^40 + lo``."""
SQUARED = ("line", "scatter", "free", "cut", "total")
N_ACC = A_SQUARES + 2 * len(SQUARED)
SQ_SHIFT = 40
# float accumulator slots: third and fourth power sums of the paid win, in credits
F_X3 = 0
F_X4 = 1
N_FACC = 2

# scalar parameters of a block (the ``par`` array)
P_WAYS = 0
P_FS_MULT = 1
P_FS_MULT_SCATTER = 2
P_MAX_SPINS = 3
P_TOTAL_BET = 4
P_CAP = 5
N_PAR = 6

PREFIX_BUDGET = 1 << 17
"""Most stop combinations the prefix table of a reel set may tabulate."""
LUT_MAX = 1 << 16
"""Weighted reels up to this total weight map virtual stops through a table, not a search."""

_M32 = np.uint64(0xFFFFFFFF)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_PCG_ML = np.uint64(0x4385DF649FCCF645)
_PCG_MH = np.uint64(0x2360ED051FC65DA4)
_BIG_WIN = 1 << 31
_SQ_FLUSH = 1 << 62
_SQ_MASK = (1 << SQ_SHIFT) - 1


def generator_state(bit_generator: np.random.BitGenerator) -> tuple[int, UIntArray]:
    """``(kind, state)`` of a PCG64 or SFC64 bit generator, in the form the kernels continue.

    The state holds four 64-bit words and numpy's buffered half word (``has_uint32``, ``uinteger``).
    """
    s = bit_generator.state
    half = np.array([s["has_uint32"], s["uinteger"]], dtype=np.uint64)
    if s["bit_generator"] == "PCG64":
        mask = (1 << 64) - 1
        st, inc = int(s["state"]["state"]), int(s["state"]["inc"])
        words = np.array([st & mask, st >> 64, inc & mask, inc >> 64], dtype=np.uint64)
        return KIND_PCG64, np.concatenate([words, half])
    if s["bit_generator"] == "SFC64":
        return KIND_SFC64, np.concatenate([np.asarray(s["state"]["state"], dtype=np.uint64), half])
    msg = f"the simulator continues PCG64 or SFC64 streams, not {s['bit_generator']}"
    raise TypeError(msg)


@intrinsic
def _umulhi(typingctx: object, a: object, b: object) -> object:  # pragma: no cover - compiled
    """High 64 bits of the 128-bit product of two uint64 (one machine instruction)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context: object, builder: ir.IRBuilder, signature: object, args: list[ir.Value]) -> ir.Value:
        wide = ir.IntType(128)
        prod = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
        return builder.trunc(builder.lshr(prod, ir.Constant(wide, 64)), ir.IntType(64))

    return sig, codegen


@nb.njit(inline="always")
def _next64(g: tuple, kind: int) -> tuple:  # pragma: no cover - compiled
    """One 64-bit output of numpy's PCG64 (XSL-RR) or SFC64; returns ``(word, state)``."""
    s0, s1, s2, s3, has, half = g
    if kind == KIND_PCG64:
        lo = s0 * _PCG_ML + s2
        hi = _umulhi(s0, _PCG_ML) + s1 * _PCG_ML + s0 * _PCG_MH + s3 + (_ONE if lo < s2 else _ZERO)
        x = hi ^ lo
        rot = hi >> np.uint64(58)
        return (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63))), (lo, hi, s2, s3, has, half)
    tmp = s0 + s1 + s3
    c = ((s2 << np.uint64(24)) | (s2 >> np.uint64(40))) + tmp
    return tmp, (s1 ^ (s1 >> np.uint64(11)), s2 + (s2 << np.uint64(3)), c, s3 + _ONE, has, half)


@nb.njit(inline="always")
def _next32(g: tuple, kind: int) -> tuple:  # pragma: no cover - compiled
    """numpy's ``next_uint32``: the low half of a fresh word, then its high half."""
    if g[4] != _ZERO:
        return g[5], (g[0], g[1], g[2], g[3], _ZERO, g[5])
    w, g = _next64(g, kind)
    return w & _M32, (g[0], g[1], g[2], g[3], _ONE, w >> np.uint64(32))


@nb.njit(inline="always")
def _bounded(m: np.uint64, g: tuple, kind: int) -> tuple:  # pragma: no cover - compiled
    """Uniform on ``[0, m)``, ``m < 2**32``: numpy's buffered Lemire draw for ``uint32``."""
    if m == _ONE:
        return np.int64(0), g
    x, g = _next32(g, kind)
    prod = x * m
    low = prod & _M32
    if low < m:
        threshold = (_M32 - (m - _ONE)) % m
        while low < threshold:
            x, g = _next32(g, kind)
            prod = x * m
            low = prod & _M32
    return np.int64(prod >> np.uint64(32)), g


@nb.njit(inline="always")
def _draw(mod: UIntArray, lut: IntArray, cum: IntArray, code: IntArray, stops: IntArray, g: tuple,
          kind: int) -> tuple:  # pragma: no cover - compiled
    """Draw the stops of one spin; return ``(scatter code of the window, state)``.

    ``lut[r]`` maps a virtual stop to its stop (``lut[r, 0] < 0``: the reel is unweighted;
    ``lut.shape[1] == 0``: search the cumulative weights ``cum[r]`` instead).
    """
    code_sum = 0
    for r in range(mod.shape[0]):
        u, g = _bounded(mod[r], g, kind)
        if lut.shape[1] > 0:
            if lut[r, 0] >= 0:
                u = lut[r, u]
        elif cum[r, 0] >= 0:  # the first stop whose cumulative weight exceeds u
            lo = np.int64(0)
            hi = np.int64(cum.shape[1] - 1)
            while lo < hi:
                mid = (lo + hi) >> 1
                if cum[r, mid] > u:
                    hi = mid
                else:
                    lo = mid + 1
            u = lo
        stops[r] = u
        code_sum += code[r, u]
    return code_sum, g


@nb.njit(cache=True, nogil=True)
def _walk(total: int, sp: int, stops: IntArray, cols: IntArray, first: IntArray, nchild: IntArray,
          row: IntArray, cnt: IntArray, depth: IntArray, sym: IntArray, stack_r: IntArray,
          stack_s: IntArray, stop_depth: int) -> tuple:  # pragma: no cover - compiled
    """Walk the row and symbol tries from the open states on the stack.

    Returns ``(credits, open states left)``: states reaching ``stop_depth`` are kept,
    compacted at the bottom of the stack (for the prefix table), not walked further.
    """
    kept = 0
    while sp > kept:
        sp -= 1
        rn = stack_r[sp]
        sn = stack_s[sp]
        d = depth[rn]
        if d == stop_depth:
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
    out_r = np.empty(size, dtype=np.int64)
    out_s = np.empty(size, dtype=np.int64)
    m = 0
    stops = np.zeros(max(k, 1), dtype=np.int64)
    stack_r = np.empty(first.shape[0] + 1, dtype=np.int64)
    stack_s = np.empty(first.shape[0] + 1, dtype=np.int64)
    for i in range(n):
        rest = i
        for r in range(k):
            stops[r] = rest // radix[r]
            rest -= stops[r] * radix[r]
        stack_r[0] = 0
        stack_s[0] = 0
        total, kept = _walk(0, 1, stops, cols, first, nchild, row, cnt, depth, sym, stack_r, stack_s, k)
        if m + kept > size:
            size = 2 * (m + kept)
            grown_r = np.empty(size, dtype=np.int64)
            grown_s = np.empty(size, dtype=np.int64)
            grown_r[:m] = out_r[:m]
            grown_s[:m] = out_s[:m]
            out_r = grown_r
            out_s = grown_s
        out_r[m : m + kept] = stack_r[:kept]
        out_s[m : m + kept] = stack_s[:kept]
        m += kept
        table[i, 0] = total
        table[i + 1, 1] = m
    opened = np.empty((m, 2), dtype=np.int64)
    opened[:, 0] = out_r[:m]
    opened[:, 1] = out_s[:m]
    width = 1
    for r in range(k):
        width = max(width, n_stops[r])
    offsets = np.zeros((k, width), dtype=np.int64)
    for r in range(k):
        for j in range(n_stops[r]):
            offsets[r, j] = j * radix[r]
    return table, opened, offsets


@nb.njit(inline="always")
def _spin_wins(rs: tuple, lines: tuple, ways: tuple, is_ways: bool, stops: IntArray, window: IntArray,
               stack_r: IntArray, stack_s: IntArray) -> int:  # pragma: no cover - compiled
    """Line (or ways) credits of the window the stops show, before any feature multiplier.

    The walk is written out here rather than calling :func:`_walk`: nested inlined
    helpers returning tuples compile to code several times slower.
    """
    cols = rs[3]
    total = 0
    if True:
        table, opened, offsets = rs[6], rs[7], rs[8]
        first, nchild, row, cnt, depth, sym = lines
        idx = 0
        for r in range(offsets.shape[0]):
            idx += offsets[r, stops[r]]
        total = table[idx, 0]
        sp = 0
        for j in range(table[idx, 1], table[idx + 1, 1]):
            stack_r[sp] = opened[j, 0]
            stack_s[sp] = opened[j, 1]
            sp += 1
        while sp > 0:
            sp -= 1
            rn = stack_r[sp]
            sn = stack_s[sp]
            d = depth[rn]
            s = stops[d]
            for c in range(first[rn], first[rn] + nchild[rn]):
                x = sym[sn, cols[d, s, row[c]]]
                if x < 0:
                    total += (-1 - x) * cnt[c]
                else:
                    stack_r[sp] = c
                    stack_s[sp] = x
                    sp += 1
    return total


@nb.njit(cache=True, nogil=True)
def draw_stops(n_spins: int, st: UIntArray, kind: int, rs: tuple) -> IntArray:  # pragma: no cover - compiled
    """Stops of ``n_spins`` spins on reel set ``rs``, drawn as :func:`play_block` draws them."""
    out = np.empty((n_spins, rs[0].shape[0]), dtype=np.int64)
    g = (st[0], st[1], st[2], st[3], st[4], st[5])
    for i in range(n_spins):
        _, g = _draw(rs[0], rs[1], rs[2], rs[4], out[i], g, kind)
    for j in range(6):
        st[j] = g[j]
    return out


@nb.njit(inline="always")
def _square(acc: IntArray, slot: int, x: int) -> None:  # pragma: no cover - compiled
    lo = acc[slot + 1] + x * x
    if lo >= _SQ_FLUSH:
        acc[slot] += lo >> SQ_SHIFT
        lo &= _SQ_MASK
    acc[slot + 1] = lo


@nb.njit(inline="always")
def _play(n_plays: int, st: UIntArray, kind: int, base: tuple, free: tuple, lines: tuple, ways: tuple,
          tabs: tuple, par: IntArray, acc: IntArray, facc: FloatArray, wins: IntArray,
          is_ways: bool) -> None:  # pragma: no cover - compiled
    """Play ``n_plays`` whole plays (a base spin and the feature it triggers) into ``acc``/``facc``.

    ``base``/``free`` are reel sets ``(modulus, stop table, cumulative weights, columns, scatter
    code, rows, *prefix table)``, ``lines`` the row and symbol tries, ``ways`` the tables of
    :func:`~mathkit.evaluate.ways_win`, ``tabs = (scatter credits, trigger count)`` by scatter
    code and ``(award, retrigger)`` by trigger count.  The generator state ``st`` is advanced.
    When ``wins`` is not empty it receives each play's paid (capped) win.
    """
    spay, trig, award, retrig = tabs
    b_mod, b_lut, b_cum, b_code = base[0], base[1], base[2], base[4]
    f_mod, f_lut, f_cum, f_code = free[0], free[1], free[2], free[4]
    fs_mult = par[P_FS_MULT]
    sc_mult = fs_mult if par[P_FS_MULT_SCATTER] != 0 else 1
    max_spins = par[P_MAX_SPINS]
    bet = par[P_TOTAL_BET]
    cap = par[P_CAP]
    stops = np.empty(b_mod.shape[0], dtype=np.int64)
    window = np.zeros((b_mod.shape[0], max(base[3].shape[2], free[3].shape[2])), dtype=np.int64)
    stack_r = np.empty(lines[0].shape[0] + 1, dtype=np.int64)
    stack_s = np.empty(lines[0].shape[0] + 1, dtype=np.int64)
    record = wins.shape[0] > 0
    g = (st[0], st[1], st[2], st[3], st[4], st[5])
    s_line = s_scat = s_total = hits = hits_bet = 0
    for i in range(n_plays):
        code, g = _draw(b_mod, b_lut, b_cum, b_code, stops, g, kind)
        line = _spin_wins(base, lines, ways, is_ways, stops, window, stack_r, stack_s)
        scat = spay[code]
        feature = 0
        left = award[trig[code]]
        if left > 0:
            left = min(left, max_spins)
            awarded = left
            acc[A_TRIGGERS] += 1
            while left > 0:
                code, g = _draw(f_mod, f_lut, f_cum, f_code, stops, g, kind)
                w = _spin_wins(free, lines, ways, is_ways, stops, window, stack_r, stack_s)
                feature += w * fs_mult + spay[code] * sc_mult
                left -= 1
                acc[A_FREE_SPINS] += 1
                more = min(retrig[trig[code]], max_spins - awarded)
                if more > 0:
                    acc[A_RETRIGGERS] += 1
                    left += more
                    awarded += more
                if line + scat + feature >= cap:  # the play is over once the cap is reached
                    break
        if record:
            wins[i] = min(line + scat + feature, cap)
        if line + scat + feature == 0:
            continue
        total = line + scat + feature
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
    for j in range(6):
        st[j] = g[j]


# --- a game compiled for the kernels ---------------------------------------------------

@dataclass(frozen=True, eq=False)
class SimSpec:
    """A game compiled to the arrays :func:`play_block` reads (built by :func:`compile_game`).

    Attributes
    ----------
    name, total_bet, ways
        The game's name, credits staked per play, whether it pays ways.
    components
        RTP components the simulator reports, in order (``lines``/``ways``, ``scatter``,
        and ``free_spins`` / ``cap`` when the game has them).
    base, free
        Reel sets as ``(modulus, stop table, cumulative weights, columns, scatter code, rows,
        *prefix table)`` (see :func:`play_block` and :func:`prefix_table`).
    lines
        Row trie ``(first child, children, row, lines below, reel, symbol trie)``.
    ways_tables
        ``(match, pay, mult)`` for :func:`~mathkit.evaluate.ways_win`.
    tabs
        ``(scatter pay by code, trigger count by code, award by count, retrigger by count)``.
    par
        Scalar parameters (``P_*`` slots).
    """

    name: str
    total_bet: int
    ways: bool
    components: tuple[str, ...]
    base: tuple[npt.NDArray[Any], ...]
    free: tuple[npt.NDArray[Any], ...]
    lines: tuple[IntArray, ...]
    ways_tables: tuple[npt.NDArray[Any], ...]
    tabs: tuple[IntArray, ...]
    par: IntArray


def _reel_set(ra: ReelArrays, scatter_of: IntArray, radix: IntArray,
              lines: tuple[IntArray, ...]) -> tuple[npt.NDArray[Any], ...]:
    n_reels = ra.n_reels
    width = max(len(s) for s in ra.strips)
    height = int(ra.rows.max())
    mod = np.zeros(n_reels, dtype=np.uint64)
    totals = [int(ra.weights[r].sum()) if ra.weighted else len(ra.strips[r]) for r in range(n_reels)]
    small = ra.weighted and max(totals) <= LUT_MAX
    lut = np.full((n_reels, max(totals) if small else int(not ra.weighted)), -1, dtype=np.int64)
    cum = np.full((n_reels, width), np.iinfo(np.int64).max, dtype=np.int64)
    cum[:, 0] = -1
    cols = np.zeros((n_reels, width, height), dtype=np.int64)
    code = np.zeros((n_reels, width), dtype=np.int64)
    for r in range(n_reels):
        n = len(ra.strips[r])
        if totals[r] >= 1 << 32:
            msg = f"reel set {ra.name!r}: reel {r + 1} has total weight {totals[r]}; the simulator draws below 2**32"
            raise ModelError(msg)
        mod[r] = totals[r]
        if ra.weighted:
            cum[r, :n] = np.cumsum(ra.weights[r])
            if small:
                lut[r, : totals[r]] = np.repeat(np.arange(n), ra.weights[r])
        col = ra.columns(r)
        cols[r, :n, : col.shape[1]] = col
        one = np.array([int(ra.rows[r])], dtype=np.int64)
        for i in range(n):
            code[r, i] = scatter_code(col[i : i + 1], one, scatter_of, radix)
    n_stops = np.array([len(s) for s in ra.strips], dtype=np.int64)
    k = 0
    while lines[0].shape[0] > 1 and k < n_reels and int(np.prod(n_stops[: k + 1])) <= PREFIX_BUDGET:
        k += 1
    pre = prefix_table(k, n_stops, cols, *lines)
    return (mod, lut, cum, cols, code, ra.rows.astype(np.int64), *pre)


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
    table.append([-1] * t.n_symbols)
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
                table.append([-1] * t.n_symbols)
                stack.append((len(table) - 1, q))
    return np.array(table, dtype=np.int64)


def compile_game(game: Game, *, reels: str | None = None, lines: int | None = None,
                 coins: int | None = None) -> SimSpec:
    """Compile ``game`` (base reel set ``reels``, ``lines`` lines at ``coins`` coins) for the kernels."""
    t = pay_tables(game, lines=lines, coins=coins)
    fs = game.free_spins
    base_ra = reel_arrays(game, reels)
    free_ra = reel_arrays(game, fs.reels) if fs is not None else base_ra
    scat = [int(s) for s in t.scatter_ids]
    trigger = -1
    if fs is not None:
        tid = t.names.index(fs.trigger)
        if tid not in scat:
            scat.append(tid)
        trigger = scat.index(tid)
    scatter_of = np.full(t.n_symbols, -1, dtype=np.int64)
    for k, s in enumerate(scat):
        scatter_of[s] = k
    top = max(int(base_ra.rows.sum()), int(free_ra.rows.sum()))
    radix = np.array([(top + 1) ** k for k in range(len(scat))], dtype=np.int64)
    n_codes = (top + 1) ** len(scat)
    if n_codes > 1 << 22:
        msg = f"{len(scat)} scatter symbols on {top} positions: too many scatter combinations to tabulate"
        raise ModelError(msg)
    spay = np.zeros(n_codes, dtype=np.int64)
    trig = np.zeros(n_codes, dtype=np.int64)
    for code in range(n_codes):
        counts = [code // (top + 1) ** k % (top + 1) for k in range(len(scat))]
        spay[code] = sum(int(t.scatter_pay[k, counts[k]]) for k in range(len(t.scatter_ids))) * t.total_bet
        trig[code] = counts[trigger] if trigger >= 0 else 0
    award = np.array([fs.award(c) if fs else 0 for c in range(top + 1)], dtype=np.int64)
    retrig = np.array([fs.retrigger(c) if fs else 0 for c in range(top + 1)], dtype=np.int64)
    alphabets = [sorted({int(s) for ra in (base_ra, free_ra) for s in ra.strips[r]}) for r in range(t.n_reels)]
    if t.ways:  # no lines: an empty walk
        line_arrays = (*_row_trie(np.zeros((0, t.n_reels), dtype=np.int64)), np.full((1, t.n_symbols), -1))
    else:
        line_arrays = (*_row_trie(t.lines), _symbol_trie(t, alphabets))
    walk = tuple(np.ascontiguousarray(a, dtype=np.int64) for a in line_arrays)
    par = np.zeros(N_PAR, dtype=np.int64)
    par[P_WAYS] = int(t.ways)
    par[P_FS_MULT] = fs.multiplier if fs else 1
    par[P_FS_MULT_SCATTER] = int(fs.multiply_scatter) if fs else 0
    par[P_MAX_SPINS] = fs.max_spins if fs and fs.max_spins is not None else 1 << 62
    par[P_TOTAL_BET] = t.total_bet
    par[P_CAP] = game.cap * t.total_bet if game.cap is not None else 1 << 62
    components = ("ways" if t.ways else "lines", "scatter")
    components += ("free_spins",) if fs is not None else ()
    components += ("cap",) if game.cap is not None else ()
    return SimSpec(
        name=game.name, total_bet=t.total_bet, ways=t.ways, components=components,
        base=_reel_set(base_ra, scatter_of, radix, walk), free=_reel_set(free_ra, scatter_of, radix, walk),
        lines=walk,
        ways_tables=(t.match, t.pay, t.mult), tabs=(spay, trig, award, retrig), par=par,
    )



@nb.njit(cache=True, nogil=True)
def _play_lines(n_plays: int, st: UIntArray, kind: int, base: tuple, free: tuple, lines: tuple, ways: tuple,
                tabs: tuple, par: IntArray, acc: IntArray, facc: FloatArray,
                wins: IntArray) -> None:  # pragma: no cover - compiled
    _play(n_plays, st, kind, base, free, lines, ways, tabs, par, acc, facc, wins, False)


@nb.njit(cache=True, nogil=True)
def _play_ways(n_plays: int, st: UIntArray, kind: int, base: tuple, free: tuple, lines: tuple, ways: tuple,
               tabs: tuple, par: IntArray, acc: IntArray, facc: FloatArray,
               wins: IntArray) -> None:  # pragma: no cover - compiled
    _play(n_plays, st, kind, base, free, lines, ways, tabs, par, acc, facc, wins, True)


def play_block(n_plays: int, st: UIntArray, kind: int, spec: SimSpec, acc: IntArray, facc: FloatArray,
               wins: IntArray) -> None:
    """Play ``n_plays`` whole plays of ``spec`` from generator state ``st`` into ``acc``/``facc``.

    A lines game and a ways game run different compiled functions: one holding both
    branches runs several times slower.
    """
    kernel = _play_ways if spec.ways else _play_lines
    kernel(n_plays, st, kind, spec.base, spec.free, spec.lines, spec.ways_tables, spec.tabs, spec.par,
           acc, facc, wins)
