"""The simulator's compiled side: a game compiled to arrays, and the kernel that plays blocks of it.

Nothing here knows the exact engine.  Line pays are a *memo* of the shared
:func:`mathkit.evaluate.line_win`, built once per game by :func:`compile_game`;
ways windows go to :func:`mathkit.evaluate.ways_win` itself; scatter counts to
:func:`mathkit.evaluate.scatter_code`.

Random streams
--------------
A block of plays owns two ``numpy.random.PCG64`` (or ``SFC64``) bit generators,
one for base spins and one for free spins (see :mod:`mathkit.dask_runner`).
The kernel continues each generator's exact state in compiled code and draws
every stop with numpy's unbiased Lemire draw on 32-bit words, exactly as
``Generator.integers(0, m, dtype=numpy.uint32)`` does: the stops of base spin
``j`` are calls ``5j .. 5j + 4`` (on 5 reels) of that method on the base
generator, free spins take theirs in play order from the other (``m`` = strip
length, or the reel's total weight for virtual stops, mapped to a stop through
the cumulative weights).  The tests replay both streams with numpy and
:func:`~mathkit.evaluate.evaluate` and get the same win for every play.

Line pays
---------
A line is read left to right through two tries: one over the lines' row
prefixes (lines sharing their first rows share the work) and one over symbol
prefixes, cut as soon as no pay entry still matches the whole prefix (the
line's pay can then no longer depend on what follows: the trie holds
``line_win`` of it).  The walk over the first ``k`` reels is tabulated per
combination of their stops (the *prefix table*: the credits of the lines
decided, and the states still open); open states move on reel by reel through
a transition table.  Most spins cost one table look-up.

Speed notes (measured, see ``benchmarks/bench_simulate.py``): base spins are
drawn a batch ahead so their table loads overlap; the per-spin code is written
out in one function, because passing arrays to a helper on every spin costs
reference counting that made it several times slower; lines and ways games
run different compiled functions for the same reason.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt
from llvmlite import ir  # type: ignore[import-untyped]
from numba.core import types
from numba.extending import intrinsic

from .errors import ModelError
from .evaluate import line_win, scatter_code, ways_win
from .game import Game
from .tables import PayTables, ReelArrays, pay_tables, reel_arrays

__all__ = ["SimSpec", "compile_game", "generator_state", "play_block", "prefix_table"]

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
STOP_DIRECT = 0
STOP_TABLE = 1
STOP_SEARCH = 2

_M32 = np.uint64(0xFFFFFFFF)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_PCG_ML = np.uint64(0x4385DF649FCCF645)
_PCG_MH = np.uint64(0x2360ED051FC65DA4)
_BIG_WIN = 1 << 31
_BUF = 1 << 12
_SLACK = 256
_BATCH = 64
_LOW32 = (1 << 32) - 1
_LOW24 = (1 << 24) - 1
_LOW16 = (1 << 16) - 1
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
        hi = _umulhi(s0, _PCG_ML) + s1 * _PCG_ML + s0 * _PCG_MH + s3 + (_ONE if lo < s2 else _ZERO)  # type: ignore[call-arg]
        x = hi ^ lo
        rot = hi >> np.uint64(58)
        return (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63))), (lo, hi, s2, s3, has, half)
    tmp = s0 + s1 + s3
    c = ((s2 << np.uint64(24)) | (s2 >> np.uint64(40))) + tmp
    return tmp, (s1 ^ (s1 >> np.uint64(11)), s2 + (s2 << np.uint64(3)), c, s3 + _ONE, has, half)


@nb.njit(cache=True, nogil=True)
def _fill(buf: UIntArray, n: int, gen: UIntArray, kind: int) -> int:  # pragma: no cover - compiled
    """Fill ``buf[n:]`` with 32-bit halves of the generator ``gen`` (advanced), low half first.

    A function of its own, called once per buffer: the loop keeps the state in registers.
    """
    g = (gen[0], gen[1], gen[2], gen[3], _ZERO, _ZERO)
    while n + 2 <= buf.shape[0]:
        word, g = _next64(g, kind)
        buf[n] = word & _M32
        buf[n + 1] = word >> np.uint64(32)
        n += 2
    for j in range(4):
        gen[j] = g[j]
    return n


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


@nb.njit(inline="always")
def _square(acc: IntArray, slot: int, x: int) -> None:  # pragma: no cover - compiled
    lo = acc[slot + 1] + x * x
    if lo >= _SQ_FLUSH:
        acc[slot] += lo >> SQ_SHIFT
        lo &= _SQ_MASK
    acc[slot + 1] = lo


@nb.njit(inline="always")
def _draw(buf: UIntArray, h: int, k: int, mod: UIntArray, mode: IntArray, lut: IntArray, cum: IntArray,
          code: IntArray, stops: IntArray, dst: int) -> tuple:  # pragma: no cover - compiled
    """Draw one spin's stops on reel set ``k`` from the halves ``buf[h:]`` into ``stops[dst]``.

    numpy's Lemire draw for ``uint32``; returns ``(next h, scatter code of the window)``.
    """
    c = 0
    for r in range(mod.shape[1]):
        m = mod[k, r]
        u = np.int64(0)
        if m != _ONE:  # numpy draws nothing for a single value
            prod = buf[h] * m
            h += 1
            if prod & _M32 < m:
                threshold = (_M32 - (m - _ONE)) % m
                while prod & _M32 < threshold:
                    prod = buf[h] * m
                    h += 1
            u = np.int64(prod >> np.uint64(32))
        how = mode[k, r]
        if how != STOP_DIRECT:
            if how == STOP_TABLE:
                u = lut[k, r, u]
            else:  # the first stop whose cumulative weight exceeds u
                lo = np.int64(0)
                hi = np.int64(cum.shape[2] - 1)
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if cum[k, r, mid] > u:
                        hi = mid
                    else:
                        lo = mid + 1
                u = lo
        stops[dst, r] = u
        c += code[k, r, u]
    return h, c


@nb.njit(inline="always")
def _refill(buf: UIntArray, h: int, n: int, gen: UIntArray, kind: int) -> tuple:  # pragma: no cover - compiled
    """Move the unread halves ``buf[h:n]`` to the front and fill up; returns ``(0, new n)``."""
    buf[: n - h] = buf[h:n]
    return 0, _fill(buf, n - h, gen, kind)


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


# --- a game compiled for the kernels ---------------------------------------------------

@dataclass(frozen=True, eq=False)
class SimSpec:
    """A game compiled to the arrays the kernels read (built by :func:`compile_game`).

    Attributes
    ----------
    name, total_bet, ways
        The game's name, credits staked per play, whether it pays ways.
    components
        RTP components the simulator reports, in order (``lines``/``ways``, ``scatter``,
        and ``free spins`` / ``cap`` when the game has them).
    sets
        The base and free-spin reel sets stacked (see :func:`_play`).
    lines
        Row trie ``(first child, children, row, lines below, depth)`` and symbol trie.
    ways_tables
        ``(match, pay, mult)`` for :func:`~mathkit.evaluate.ways_win`.
    tabs
        ``(scatter credits by code, trigger count by code, award by count, retrigger by count)``.
    par
        Scalar parameters (``P_*`` slots).
    """

    name: str
    total_bet: int
    ways: bool
    components: tuple[str, ...]
    sets: tuple[npt.NDArray[Any], ...]
    lines: tuple[IntArray, ...]
    ways_tables: tuple[npt.NDArray[Any], ...]
    tabs: tuple[IntArray, ...]
    par: IntArray


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


def _reel_set(ra: ReelArrays, scatter_of: IntArray, radix: IntArray,
              lines: tuple[IntArray, ...]) -> list[npt.NDArray[Any]]:
    """One reel set's arrays, in the order of ``SimSpec.sets``.

    ``(modulus, stop mode, stop table, cumulative weights, columns, scatter code, rows,
    prefix table, open states, prefix offsets, (prefix reels,), *states)``: a spin draws
    ``u < modulus[r]`` on each reel, maps it to a stop (directly, through the stop table,
    or by searching the cumulative weights), reads ``columns[r, stop]`` and adds
    ``scatter code[r, stop]``; its line credits come from the prefix table (packed
    ``credits << 32 | first open state``) and the open states' transitions reel by reel
    (see :class:`_States`).

    (A table of the whole remainder, by open state and stops of the remaining reels, was
    tried: on the benchmark game it is 5.5 MB and its cache misses made spins slower.)
    """
    n_reels = ra.n_reels
    n_stops = np.array([len(s) for s in ra.strips], dtype=np.int64)
    width = int(n_stops.max())
    totals = [int(ra.weights[r].sum()) if ra.weighted else int(n_stops[r]) for r in range(n_reels)]
    small = max(totals) <= LUT_MAX
    mod = np.array(totals, dtype=np.uint64)
    mode = np.full(n_reels, (STOP_TABLE if small else STOP_SEARCH) if ra.weighted else STOP_DIRECT, dtype=np.int64)
    lut = np.zeros((n_reels, max(totals) if ra.weighted and small else 1), dtype=np.int64)
    cum = np.full((n_reels, width), np.iinfo(np.int64).max, dtype=np.int64)
    cols = np.zeros((n_reels, width, int(ra.rows.max())), dtype=np.int64)
    code = np.zeros((n_reels, width), dtype=np.int64)
    for r in range(n_reels):
        n = int(n_stops[r])
        if totals[r] >= 1 << 32:
            msg = f"reel set {ra.name!r}: reel {r + 1} has total weight {totals[r]}; the simulator draws below 2**32"
            raise ModelError(msg)
        if ra.weighted:
            cum[r, :n] = np.cumsum(ra.weights[r])
            if small:
                lut[r, : totals[r]] = np.repeat(np.arange(n), ra.weights[r])
        col = ra.columns(r)
        cols[r, :n, : col.shape[1]] = col
        one = np.array([int(ra.rows[r])], dtype=np.int64)
        for i in range(n):
            code[r, i] = scatter_code(col[i : i + 1], one, scatter_of, radix)
    k = 0
    while lines[0].shape[0] > 1 and k < n_reels and int(np.prod(n_stops[: k + 1])) <= PREFIX_BUDGET:
        k += 1
    table, opened, offsets = prefix_table(k, n_stops, cols, *lines)
    states = _States(n_stops, cols, lines)
    open_ids = [states.id(int(rn), int(sn)) for rn, sn in opened[: table[-1, 1]]]
    states.close()
    packed_states = states.packed()
    open_states = packed_states[open_ids] if open_ids else np.zeros(1, dtype=np.int64)
    if table[:, 0].max() >= 1 << 31 or table[-1, 1] >= 1 << 32:
        msg = f"reel set {ra.name!r}: the line prefix table outgrows its 32-bit fields"
        raise ModelError(msg)
    packed = (table[:, 0] << 32) | table[:, 1]  # credits, first open state
    trans, nxt = states.tables()
    return [mod, mode, lut, cum, cols, code, ra.rows.astype(np.int64), packed, open_states, offsets,
            np.array([k], dtype=np.int64), trans, nxt]


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


def _stack(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``a`` and ``b`` stacked on a new first axis, zero-padded to a common shape."""
    shape = tuple(max(x, y) for x, y in zip(a.shape, b.shape, strict=True))
    out = np.zeros((2, *shape), dtype=a.dtype)
    out[0][tuple(slice(0, x) for x in a.shape)] = a
    out[1][tuple(slice(0, x) for x in b.shape)] = b
    return out


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


_PLAYED = frozenset({
    "name", "symbols", "reel_sets", "line_pays", "bet", "pay_mode", "paylines", "scatter_pays", "default_reels",
    "declared_rtp", "free_spins", "gamble", "cap", "readings", "description",
})
"""The ``Game`` fields the simulator knows how to play; a game using any other one is refused."""


def compile_game(game: Game, *, reels: str | None = None, lines: int | None = None,
                 coins: int | None = None) -> SimSpec:
    """Compile ``game`` (base reel set ``reels``, ``lines`` lines at ``coins`` coins) for the kernels.

    Examples
    --------
    >>> from mathkit.io import load_game
    >>> spec = compile_game(load_game("data/games/classic_3reel.toml"))
    >>> spec.components, spec.total_bet
    (('lines',), 1)
    """
    unknown = [f.name for f in dataclasses.fields(game) if f.name not in _PLAYED and getattr(game, f.name)]
    if unknown:
        msg = f"{game.name}: the simulator does not play {', '.join(unknown)} yet"
        raise ModelError(msg)
    t = pay_tables(game, lines=lines, coins=coins)
    fs = game.free_spins
    base_ra = reel_arrays(game, reels)
    free_ra = reel_arrays(game, fs.reels) if fs is not None else base_ra
    if free_ra.n_reels != base_ra.n_reels:
        msg = f"free-spin reel set {free_ra.name!r} has {free_ra.n_reels} reels, the base game {base_ra.n_reels}"
        raise ModelError(msg)
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
    base = _reel_set(base_ra, scatter_of, radix, walk)
    free = _reel_set(free_ra, scatter_of, radix, walk) if fs is not None else base
    par = np.zeros(N_PAR, dtype=np.int64)
    par[P_WAYS] = int(t.ways)
    par[P_FS_MULT] = fs.multiplier if fs else 1
    par[P_FS_MULT_SCATTER] = int(fs.multiply_scatter) if fs else 0
    par[P_MAX_SPINS] = fs.max_spins if fs and fs.max_spins is not None else 1 << 62
    par[P_TOTAL_BET] = t.total_bet
    par[P_CAP] = game.cap * t.total_bet if game.cap is not None else 1 << 62
    components = ("ways" if t.ways else "lines",) + (("scatter",) if len(t.scatter_ids) else ())
    components += ("free spins",) if fs is not None else ()
    components += ("cap",) if game.cap is not None else ()
    return SimSpec(
        name=game.name, total_bet=t.total_bet, ways=t.ways, components=components,
        sets=tuple(_stack(a, b) for a, b in zip(base, free, strict=True)), lines=walk,
        ways_tables=(t.match, t.pay, t.mult), tabs=(spay, trig, award, retrig), par=par,
    )
