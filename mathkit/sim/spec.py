"""A game compiled to the arrays the kernels read: :class:`SimSpec`, built by :func:`compile_game`.

Nothing here knows the exact engine.  Line pays are a *memo* of the shared
:func:`mathkit.evaluate.line_win`, built once per game by :func:`compile_game`;
ways windows go to :func:`mathkit.evaluate.ways_win` itself; scatter counts to
:func:`mathkit.evaluate.scatter_code`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..evaluate import scatter_code
from ..features.cap import Cap
from ..features.free_spins import FreeSpins
from ..game import Game
from ..tables import ReelArrays, pay_tables, reel_arrays
from .layout import (
    LUT_MAX,
    N_PAR,
    P_CAP,
    P_FS_MULT,
    P_FS_MULT_SCATTER,
    P_MAX_SPINS,
    P_TOTAL_BET,
    P_WAYS,
    PREFIX_BUDGET,
    STOP_DIRECT,
    STOP_SEARCH,
    STOP_TABLE,
    IntArray,
)
from .lines import _row_trie, _States, _symbol_trie, prefix_table

__all__ = ["SimSpec", "compile_game"]


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


def _stack(a: npt.NDArray[Any], b: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``a`` and ``b`` stacked on a new first axis, zero-padded to a common shape."""
    shape = tuple(max(x, y) for x, y in zip(a.shape, b.shape, strict=True))
    out = np.zeros((2, *shape), dtype=a.dtype)
    out[0][tuple(slice(0, x) for x in a.shape)] = a
    out[1][tuple(slice(0, x) for x in b.shape)] = b
    return out


_PLAYED = frozenset({"free_spins", "gamble", "cap"})
"""The feature kinds the simulator knows how to play; a game using any other one is refused."""


def _played(game: Game) -> tuple[FreeSpins | None, Cap | None]:
    """The free-spin and cap blocks the kernels play (at most one free-spin feature)."""
    unknown = sorted({f.kind for f in game.features if f.kind not in _PLAYED})
    if unknown:
        msg = f"{game.name}: the simulator does not play {', '.join(unknown)} yet"
        raise ModelError(msg)
    fss = [f for f in game.features if isinstance(f, FreeSpins)]
    if len(fss) > 1:
        msg = f"{game.name}: the simulator plays one free-spin feature, the game has {len(fss)}"
        raise ModelError(msg)
    caps = [f for f in game.features if isinstance(f, Cap)]
    return (fss[0] if fss else None), (caps[-1] if caps else None)


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
    fs, cap = _played(game)
    t = pay_tables(game, lines=lines, coins=coins)
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
    cap_credits = cap.credits(t.total_bet, coins if coins is not None else game.bet.coins[0]) if cap else None
    if cap_credits is not None and cap_credits.denominator != 1:
        msg = f"{game.name}: the cap is {cap_credits} credits at this bet, not a whole number"
        raise ModelError(msg)
    par[P_CAP] = int(cap_credits) if cap_credits is not None else 1 << 62
    components = ("ways" if t.ways else "lines",) + (("scatter",) if len(t.scatter_ids) else ())
    components += ("free spins",) if fs is not None else ()
    components += ("cap",) if cap is not None else ()
    return SimSpec(
        name=game.name, total_bet=t.total_bet, ways=t.ways, components=components,
        sets=tuple(_stack(a, b) for a, b in zip(base, free, strict=True)), lines=walk,
        ways_tables=(t.match, t.pay, t.mult), tabs=(spay, trig, award, retrig), par=par,
    )
