"""Compiled kernels of the simulator: the random stream, one spin, one block of plays.

Nothing here knows the exact engine.  A :class:`SimSpec` is a game compiled to
the arrays the kernels read; its line pays are a *memo* of the shared
:func:`mathkit.evaluate.line_win` over symbol prefixes, built once, so the
window is still evaluated by the one statement of the pay rules.

Random stream
-------------
A block of plays owns one ``numpy.random.PCG64`` (or ``SFC64``) bit generator.
The kernels continue that generator's exact state in compiled code and draw
every stop with Lemire's unbiased method on 32-bit words, exactly as
``Generator.integers(0, m, dtype=numpy.uint32)`` does.  So stop ``r`` of spin
``j`` of a block *is* the ``(j·R + r)``-th such call on the block's
``Generator`` (``m`` = strip length, or the reel's total weight for virtual
stops, mapped to a stop through the cumulative weights); the tests check this.

Line pays
---------
A line is read left to right through two small tries: one over the lines'
row prefixes (lines sharing their first rows share the work) and one over
symbol prefixes.  A symbol prefix is cut off as soon as no pay entry still
matches all of it: :func:`~mathkit.evaluate.line_win` can then no longer
depend on the symbols that follow, and the trie holds its value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from .errors import ModelError
from .evaluate import line_win, scatter_code, ways_win
from .game import Game
from .tables import PayTables, ReelArrays, pay_tables, reel_arrays

__all__ = [
    "BlockSums",
    "GamblePlan",
    "SimSpec",
    "block_seed",
    "compile_game",
    "draw_stops",
    "generator_state",
    "play_block",
    "play_gamble",
    "run_blocks",
]

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
"""Sums of squares of line, scatter, free, cut, total: ``hi, lo`` pairs, value ``hi·2^40 + lo``."""
N_ACC = A_SQUARES + 10
SQ_SHIFT = 40
# float accumulator slots: third and fourth power sums of the total win (credits)
F_X3 = 0
F_X4 = 1
N_FACC = 2

# scalar parameters of a block (``par`` array)
P_WAYS = 0
P_FS_MULT = 1
P_FS_MULT_SCATTER = 2
P_MAX_SPINS = 3
P_TOTAL_BET = 4
P_CAP = 5
N_PAR = 6

_M32 = np.uint64(0xFFFFFFFF)
_PCG_ML = np.uint64(0x4385DF649FCCF645)
_PCG_MH = np.uint64(0x2360ED051FC65DA4)
_BIG_WIN = 1 << 31


def generator_state(bit_generator: np.random.BitGenerator) -> tuple[int, UIntArray]:
    """``(kind, state)`` of a PCG64 or SFC64 bit generator, as the kernels continue it."""
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


@nb.njit(inline="always")
def _mulhi(a: np.uint64, b: np.uint64) -> np.uint64:  # pragma: no cover - compiled
    a_lo = a & _M32
    a_hi = a >> np.uint64(32)
    b_lo = b & _M32
    b_hi = b >> np.uint64(32)
    t = a_lo * b_lo
    m1 = a_hi * b_lo + (t >> np.uint64(32))
    m2 = a_lo * b_hi + (m1 & _M32)
    return a_hi * b_hi + (m1 >> np.uint64(32)) + (m2 >> np.uint64(32))


@nb.njit(inline="always")
def _next64(st: UIntArray, kind: int) -> np.uint64:  # pragma: no cover - compiled
    if kind == KIND_PCG64:  # numpy's pcg64: 128-bit LCG step, then XSL-RR output
        lo = st[0]
        hi = st[1]
        nlo = lo * _PCG_ML
        nhi = _mulhi(lo, _PCG_ML) + hi * _PCG_ML + lo * _PCG_MH
        nlo2 = nlo + st[2]
        nhi = nhi + st[3] + (np.uint64(1) if nlo2 < nlo else np.uint64(0))
        st[0] = nlo2
        st[1] = nhi
        x = nhi ^ nlo2
        rot = nhi >> np.uint64(58)
        return (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
    # numpy's sfc64
    tmp = st[0] + st[1] + st[3]
    st[3] += np.uint64(1)
    st[0] = st[1] ^ (st[1] >> np.uint64(11))
    st[1] = st[2] + (st[2] << np.uint64(3))
    st[2] = ((st[2] << np.uint64(24)) | (st[2] >> np.uint64(40))) + tmp
    return tmp


@nb.njit(inline="always")
def _next32(st: UIntArray, kind: int) -> np.uint64:  # pragma: no cover - compiled
    if st[4] != 0:
        st[4] = np.uint64(0)
        return st[5]
    w = _next64(st, kind)
    st[5] = w >> np.uint64(32)
    st[4] = np.uint64(1)
    return w & _M32


@nb.njit(inline="always")
def _bounded(st: UIntArray, kind: int, m: np.uint64) -> int:  # pragma: no cover - compiled
    """Uniform on ``[0, m)``, ``m < 2**32``: numpy's buffered Lemire draw for ``uint32``."""
    if m == np.uint64(1):
        return 0
    prod = _next32(st, kind) * m
    low = prod & _M32
    if low < m:
        threshold = (_M32 - (m - np.uint64(1))) % m
        while low < threshold:
            prod = _next32(st, kind) * m
            low = prod & _M32
    return np.int64(prod >> np.uint64(32))


@nb.njit(inline="always")
def _draw(st: UIntArray, kind: int, rs: tuple, stops: IntArray) -> int:  # pragma: no cover - compiled
    """Draw the stops of one spin on reel set ``rs``; return the window's scatter code."""
    mod, weighted, cum, _cols, code, _rows = rs
    code_sum = 0
    for r in range(mod.shape[0]):
        u = np.int64(_bounded(st, kind, mod[r]))
        if weighted[r]:  # first stop whose cumulative weight exceeds u
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
    return code_sum


@nb.njit(cache=True, nogil=True)
def draw_stops(n_spins: int, st: UIntArray, kind: int, rs: tuple) -> IntArray:  # pragma: no cover
    """Stops of ``n_spins`` spins drawn as :func:`play_block` draws them (for tests and checks)."""
    out = np.empty((n_spins, rs[0].shape[0]), dtype=np.int64)
    for i in range(n_spins):
        _draw(st, kind, rs, out[i])
    return out


@nb.njit(inline="always")
def _line_total(rs: tuple, lines: tuple, stops: IntArray, stack_r: IntArray,
                stack_s: IntArray) -> int:  # pragma: no cover - compiled
    cols = rs[3]
    first, nchild, row, cnt, depth, sym_child = lines
    total = 0
    stack_r[0] = 0
    stack_s[0] = 0
    sp = 1
    while sp > 0:
        sp -= 1
        rn = stack_r[sp]
        sn = stack_s[sp]
        d = depth[rn]
        s = stops[d]
        for c in range(first[rn], first[rn] + nchild[rn]):
            x = sym_child[sn, cols[d, s, row[c]]]
            if x < 0:
                total += (-1 - x) * cnt[c]
            else:
                stack_r[sp] = c
                stack_s[sp] = x
                sp += 1
    return total


@nb.njit(inline="always")
def _spin_wins(rs: tuple, lines: tuple, ways: tuple, is_ways: bool, stops: IntArray, window: IntArray,
               stack_r: IntArray, stack_s: IntArray) -> int:  # pragma: no cover - compiled
    if not is_ways:
        return _line_total(rs, lines, stops, stack_r, stack_s)
    cols = rs[3]
    rows = rs[5]
    for r in range(rows.shape[0]):
        for k in range(rows[r]):
            window[r, k] = cols[r, stops[r], k]
    return ways_win(window, rows, ways[0], ways[1], ways[2])


@nb.njit(inline="always")
def _square(acc: IntArray, slot: int, x: int) -> None:  # pragma: no cover - compiled
    lo = acc[slot + 1] + x * x
    acc[slot] += lo >> SQ_SHIFT
    acc[slot + 1] = lo & ((1 << SQ_SHIFT) - 1)


@nb.njit(cache=True, nogil=True)
def play_block(n_plays: int, st: UIntArray, kind: int, base: tuple, free: tuple, lines: tuple,
               ways: tuple, tabs: tuple, par: IntArray, acc: IntArray, facc: FloatArray,
               wins: IntArray) -> None:  # pragma: no cover - compiled
    """Play ``n_plays`` whole plays (base spin and its feature), adding into ``acc``/``facc``.

    ``tabs = (scatter_pay, trigger_count, award, retrigger)`` are indexed by the scatter
    code (pay in credits, count of the trigger symbol) and by the trigger count.  When
    ``wins`` is not empty it receives each play's capped win.
    """
    spay, trig, award, retrig = tabs
    is_ways = par[P_WAYS] != 0
    fs_mult = par[P_FS_MULT]
    sc_mult = fs_mult if par[P_FS_MULT_SCATTER] != 0 else 1
    max_spins = par[P_MAX_SPINS]
    bet = par[P_TOTAL_BET]
    cap = par[P_CAP]
    n_reels = base[0].shape[0]
    stops = np.empty(n_reels, dtype=np.int64)
    window = np.zeros((n_reels, max(base[3].shape[2], free[3].shape[2])), dtype=np.int64)
    n_nodes = lines[0].shape[0]
    stack_r = np.empty(n_nodes + 1, dtype=np.int64)
    stack_s = np.empty(n_nodes + 1, dtype=np.int64)
    record = wins.shape[0] > 0
    for i in range(n_plays):
        code = _draw(st, kind, base, stops)
        line = _spin_wins(base, lines, ways, is_ways, stops, window, stack_r, stack_s)
        scat = spay[code]
        feature = 0
        left = award[trig[code]]
        if left > 0:
            left = min(left, max_spins)
            awarded = left
            acc[A_TRIGGERS] += 1
            while left > 0:
                code = _draw(st, kind, free, stops)
                w = _spin_wins(free, lines, ways, is_ways, stops, window, stack_r, stack_s)
                feature += w * fs_mult + spay[code] * sc_mult
                left -= 1
                acc[A_FREE_SPINS] += 1
                more = min(retrig[trig[code]], max_spins - awarded)
                if more > 0:
                    acc[A_RETRIGGERS] += 1
                    left += more
                    awarded += more
                if line + scat + feature >= cap:
                    break
        total = line + scat + feature
        paid = min(total, cap)
        cut = total - paid
        acc[A_PLAYS] += 1
        acc[A_LINE] += line
        acc[A_SCATTER] += scat
        acc[A_FREE] += feature
        acc[A_CUT] += cut
        acc[A_TOTAL] += paid
        if record:
            wins[i] = paid
        if paid > 0:
            if total >= _BIG_WIN:
                acc[A_OVERFLOW] = 1
            acc[A_HITS] += 1
            acc[A_HITS_BET] += paid >= bet
            acc[A_HITS_10] += paid >= 10 * bet
            acc[A_HITS_100] += paid >= 100 * bet
            acc[A_HITS_1000] += paid >= 1000 * bet
            acc[A_CAP_HITS] += cut > 0 or paid == cap
            acc[A_MAX] = max(acc[A_MAX], paid)
            _square(acc, A_SQUARES, line)
            _square(acc, A_SQUARES + 2, scat)
            _square(acc, A_SQUARES + 8, paid)
            if feature > 0:
                _square(acc, A_SQUARES + 4, feature)
            if cut > 0:
                _square(acc, A_SQUARES + 6, cut)
            xf = float(paid)
            x2 = xf * xf
            facc[F_X3] += x2 * xf
            facc[F_X4] += x2 * x2


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
        Reel sets as ``(modulus, weighted, cumulative weights, columns, scatter code, rows)``.
    lines
        Row trie ``(first child, children, row, lines below, reel, symbol trie)``.
    ways
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


def _reel_set(ra: ReelArrays, scatter_of: IntArray, radix: IntArray) -> tuple[npt.NDArray[Any], ...]:
    n_reels = ra.n_reels
    width = max(len(s) for s in ra.strips)
    height = int(ra.rows.max())
    mod = np.zeros(n_reels, dtype=np.uint64)
    weighted = np.zeros(n_reels, dtype=np.int64)
    cum = np.full((n_reels, width), np.iinfo(np.int64).max, dtype=np.int64)
    cols = np.zeros((n_reels, width, height), dtype=np.int64)
    code = np.zeros((n_reels, width), dtype=np.int64)
    for r in range(n_reels):
        n = len(ra.strips[r])
        total = int(ra.weights[r].sum()) if ra.weighted else n
        if total >= 1 << 32:
            msg = f"reel set {ra.name!r}: reel {r + 1} has total weight {total}; the simulator draws below 2**32"
            raise ModelError(msg)
        mod[r] = total
        weighted[r] = int(ra.weighted)
        cum[r, :n] = np.cumsum(ra.weights[r])
        col = ra.columns(r)
        cols[r, :n, : col.shape[1]] = col
        one = np.array([int(ra.rows[r])], dtype=np.int64)
        for i in range(n):
            code[r, i] = scatter_code(col[i : i + 1], one, scatter_of, radix)
    return mod, weighted, cum, cols, code, ra.rows.astype(np.int64)


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
    if t.ways:
        line_arrays = (*_row_trie(np.zeros((1, t.n_reels), dtype=np.int64)), np.full((1, t.n_symbols), -1))
    else:
        line_arrays = (*_row_trie(t.lines), _symbol_trie(t, alphabets))
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
        base=_reel_set(base_ra, scatter_of, radix), free=_reel_set(free_ra, scatter_of, radix),
        lines=tuple(np.ascontiguousarray(a, dtype=np.int64) for a in line_arrays),
        ways_tables=(t.match, t.pay, t.mult), tabs=(spay, trig, award, retrig), par=par,
    )


# --- blocks of plays: the unit of randomness --------------------------------------------

G_OFFERED = 0
G_ROUNDS = 1
G_WON = 2
G_STAKED = 3
G_RETURNED = 4
N_GACC = 5
GF_AA = 0
GF_AB = 1
GF_BB = 2
N_GFACC = 3


@dataclass(frozen=True)
class GamblePlan:
    """A gamble strategy in numbers: win ``multiplier``× with probability ``num/den``.

    Every capped win in ``(0, limit]`` is gambled, again and again up to ``rounds``
    times, until it is lost or exceeds ``limit``.
    """

    num: int
    den: int
    multiplier: int
    rounds: int
    limit: int


@dataclass(frozen=True, eq=False)
class BlockSums:
    """Per-block sums of a run of consecutive blocks ``first, first + 1, ...``."""

    first: int
    acc: IntArray
    facc: FloatArray
    gacc: IntArray
    gfacc: FloatArray


def block_seed(root: np.random.SeedSequence, block: int) -> np.random.SeedSequence:
    """The ``block``-th child of ``root`` (what ``root.spawn`` would give a fresh ``root``)."""
    return np.random.SeedSequence(root.entropy, spawn_key=(*root.spawn_key, block), pool_size=root.pool_size)


def play_gamble(wins: IntArray, plan: GamblePlan, rng: np.random.Generator) -> tuple[IntArray, FloatArray]:
    """Gamble the winning plays of one block: integer and float sums (``G_*``, ``GF_*``)."""
    staked = wins[(wins > 0) & (wins <= plan.limit)]
    cur = staked.copy()
    active = np.ones(cur.shape[0], dtype=np.bool_)
    rounds = won_rounds = 0
    for _ in range(plan.rounds):
        idx = np.flatnonzero(active & (cur <= plan.limit))
        if idx.size == 0:
            break
        won = rng.integers(0, plan.den, size=idx.size) < plan.num
        rounds += idx.size
        won_rounds += int(won.sum())
        cur[idx[won]] *= plan.multiplier
        cur[idx[~won]] = 0
        active[idx[~won]] = False
    g = np.array([staked.size, rounds, won_rounds, int(staked.sum()), int(cur.sum())], dtype=np.int64)
    a = cur.astype(np.float64)
    b = staked.astype(np.float64)
    return g, np.array([a @ a, a @ b, b @ b], dtype=np.float64)


def run_blocks(spec: SimSpec, root: np.random.SeedSequence, first: int, last: int, *, spins: int,
               block: int, bit_generator: str = "PCG64", gamble: GamblePlan | None = None) -> BlockSums:
    """Play blocks ``first .. last - 1`` of a run of ``spins`` plays cut into blocks of ``block``.

    Block ``b`` holds plays ``b·block ..`` and draws from ``bit_generator`` seeded with
    :func:`block_seed` ``(root, b)``; its gamble draws from that seed's first child.
    """
    n = last - first
    acc = np.zeros((n, N_ACC), dtype=np.int64)
    facc = np.zeros((n, N_FACC), dtype=np.float64)
    gacc = np.zeros((n, N_GACC), dtype=np.int64)
    gfacc = np.zeros((n, N_GFACC), dtype=np.float64)
    make = np.random.SFC64 if bit_generator == "SFC64" else np.random.PCG64
    for j, b in enumerate(range(first, last)):
        n_plays = min(block, spins - b * block)
        ss = block_seed(root, b)
        kind, st = generator_state(make(ss))
        wins = np.zeros(n_plays if gamble is not None else 0, dtype=np.int64)
        play_block(n_plays, st, kind, spec.base, spec.free, spec.lines, spec.ways_tables, spec.tabs, spec.par,
                   acc[j], facc[j], wins)
        if acc[j, A_OVERFLOW]:
            msg = f"{spec.name}: a play won 2**31 credits or more; the simulator's sums could overflow"
            raise ModelError(msg)
        if gamble is not None:
            gacc[j], gfacc[j] = play_gamble(wins, gamble, np.random.Generator(make(ss.spawn(1)[0])))
    return BlockSums(first, acc, facc, gacc, gfacc)
