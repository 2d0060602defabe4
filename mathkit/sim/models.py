"""Spin models compiled to the arrays the driver reads: stop draws, observations, the line walk.

A *spin model* is one kind of spin — a reel set, a window height, the lines
active, a remap of the symbols the line rule reads — and every stage and base
variant of a round plays one (several share it).  For each model, reel by reel
and stop by stop:

* how a stop is drawn: ``u < modulus[r]`` mapped directly, through a table or by
  searching cumulative weights (virtual stops);
* the stop's *word*: ``prefix offset << 24 | observation code``; a spin's words
  add up to the index of its prefix-table entry and the code of its window
  (mixed-radix digits: how many cells show each counted symbol set);
* the window column as shown (observations) and as the line rule reads it (remapped);
* the line walk of :mod:`mathkit.sim.lines`: the prefix table over the first
  reels, packed ``credits << 32 | open states << 24 | first open state`` (one
  load; most spins open none), and the open states, packed
  ``reel << 32 | row node << 16 | symbol node``, which the driver walks on through
  the row and symbol tries (a few kilobytes; the transition table by state and stop
  that :mod:`mathkit.sim.lines` builds is megabytes per model, and reading it
  missed the core's cache); for the base spin's models also the *remainder table*: what the lines below each open
  state pay, by stops of the remaining reels (one load per open state: worth it only
  where the loads overlap, a batch ahead).  Its entries are packed as ``uint16``
  (2.8 MB on the benchmark game, where ``int32`` took 5.5 MB: more of it stays in
  the core's cache); a game whose remaining lines pay more than 65,535 credits
  on one spin gets no table, and the driver walks its open states instead.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..spin.tables import PayTables, ReelArrays
from .layout import (
    _LOW16,
    _LOW24,
    LUT_MAX,
    PREFIX_BUDGET,
    REMAINDER_BUDGET,
    REMAINDER_COMBOS,
    STOP_DIRECT,
    STOP_SEARCH,
    STOP_TABLE,
    IntArray,
)
from .lines import _row_trie, _States, prefix_table, remainder_table

__all__ = ["ModelKey", "Models", "stack_models"]

ModelKey = tuple[str, int | None, int | None, tuple[tuple[int, int], ...]]
"""``(reel set, rows or None, lines or None, remap as (symbol id, read as id) pairs)``."""

REM_DTYPE = np.uint16
"""The remainder table's entries (one type for every game: the driver is compiled once)."""
REM_MAX = int(np.iinfo(REM_DTYPE).max)
"""The largest pay an entry holds; a table with a larger one is not built (the walk plays those spins)."""

FIELDS = ("mod", "mode", "lut", "cum", "word", "ocols", "lcols", "rows", "first", "nchild", "row", "cnt", "depth",
          "entry", "opened", "info", "read", "ropen", "rem")
"""The arrays of one model, in the order the driver unpacks them (``info = (prefix reels, lines, remainder
table?)``, ``read[r, s]``: the id the line rule reads symbol ``s`` as on reel ``r`` (remaps, and the line ids
of reel-ordered entries, :mod:`mathkit.model.ordered`), ``ropen``/``rem``: the open states as
offsets into the remainder table, and the table)."""


@dataclass(frozen=True, eq=False)
class Models:
    """Every spin model of a round, stacked on a first axis (model ``k`` is ``arrays[i][k]``)."""

    keys: tuple[ModelKey, ...]
    arrays: tuple[npt.NDArray[Any], ...]

    def index(self, key: ModelKey) -> int:
        return self.keys.index(key)


def _draws(ra: ReelArrays, n_stops: IntArray) -> list[npt.NDArray[Any]]:
    """``(modulus, mode, table, cumulative weights)`` of each reel's stop draw."""
    n_reels = ra.n_reels
    width = int(n_stops.max())
    totals = [int(ra.weights[r].sum()) if ra.weighted else int(n_stops[r]) for r in range(n_reels)]
    small = max(totals) <= LUT_MAX
    mod = np.array(totals, dtype=np.uint64)
    mode = np.full(n_reels, (STOP_TABLE if small else STOP_SEARCH) if ra.weighted else STOP_DIRECT, dtype=np.int64)
    lut = np.zeros((n_reels, max(totals) if ra.weighted and small else 1), dtype=np.int64)
    cum = np.full((n_reels, width), np.iinfo(np.int64).max, dtype=np.int64)
    for r in range(n_reels):
        if totals[r] >= 1 << 32:
            msg = f"reel set {ra.name!r}: reel {r + 1} has total weight {totals[r]}; the simulator draws below 2**32"
            raise ModelError(msg)
        if ra.weighted:
            n = int(n_stops[r])
            cum[r, :n] = np.cumsum(ra.weights[r])
            if small:
                lut[r, : totals[r]] = np.repeat(np.arange(n), ra.weights[r])
    return [mod, mode, lut, cum]


def _walk_tables(n_stops: IntArray, lcols: IntArray, walk: tuple[IntArray, ...],
                 remainder: bool) -> tuple[int, list[Any]]:
    """The prefix table over as many reels as fit the budget (and the packed fields), and what follows it.

    Returns ``(prefix reels, [prefix offsets, entries, open states, remainder offsets,
    remainder])``.  The open states are packed ``reel << 32 | row node << 16 | symbol node``;
    with ``remainder`` (and when it fits the budget) the same open states are also offsets into
    a remainder table (state × combinations of the remaining stops), which the transitions of
    :class:`~mathkit.sim.lines._States` build.
    """
    n_reels = len(n_stops)
    k = 0
    while walk[0].shape[0] > 1 and k < n_reels and int(np.prod(n_stops[: k + 1])) <= PREFIX_BUDGET:
        k += 1
    while True:
        table, opened, offsets = prefix_table(k, n_stops, lcols, *walk)
        n_open = table[1:, 1] - table[:-1, 1]
        if k == 0 or (int(n_open.max(initial=0)) < 256 and int(table[-1, 1]) <= _LOW24):
            break
        k -= 1  # too many open states for the packed entry: tabulate fewer reels
    if table[:, 0].max() >= 1 << 31:
        msg = "the line prefix table outgrows its 32-bit credits"
        raise ModelError(msg)
    entry = (table[:-1, 0] << 32) | (n_open << 24) | table[:-1, 1]
    first, depth, sym = walk[0], walk[4], walk[5]
    if first.shape[0] > _LOW16 + 1 or sym.shape[0] > _LOW16 + 1:
        msg = (f"the line walk's tries have {first.shape[0]:,} row nodes and {sym.shape[0]:,} symbol nodes; "
               f"the simulator packs at most {_LOW16 + 1:,} of each")
        raise ModelError(msg)
    pairs = opened[: table[-1, 1]]
    open_states = ((depth[pairs[:, 0]] << 32) | (pairs[:, 0] << 16) | pairs[:, 1]) if len(pairs) else \
        np.zeros(1, dtype=np.int64)
    ropen, rem = _remainder(n_stops, lcols, walk, k, table, pairs) if remainder else _no_remainder()
    return k, [offsets, entry, open_states, ropen, rem]


def _no_remainder() -> tuple[IntArray, npt.NDArray[Any]]:
    """The empty remainder offsets and table of a model without one."""
    return np.zeros(1, dtype=np.int64), np.zeros(1, dtype=REM_DTYPE)


def _remainder(n_stops: IntArray, lcols: IntArray, walk: tuple[IntArray, ...], k: int, table: IntArray,
               pairs: IntArray) -> tuple[IntArray, npt.NDArray[Any]]:
    """``(remainder offsets, remainder table)`` of the open states ``pairs`` past ``k`` prefix reels, or empty
    ones where no state is open, the remaining reels are more than two, their combinations or the table outgrow their budgets,
    or a pay outgrows an entry (the driver then walks those open states)."""
    combos = int(np.prod(n_stops[k:]))
    if not len(pairs) or len(n_stops) - k not in (1, 2) or combos > REMAINDER_COMBOS:
        return _no_remainder()
    uniq, inverse = np.unique((pairs[:, 0] << 16) | pairs[:, 1], return_inverse=True)
    if len(uniq) * combos > REMAINDER_BUDGET:
        return _no_remainder()
    states = _States(n_stops, lcols, walk)  # the open states' transitions, which the remainder table walks
    ids = np.array([states.id(int(x) >> 16, int(x) & 0xFFFF) for x in uniq.tolist()], dtype=np.int64)
    states.close()
    trans, nxt = states.tables()
    table_rem = remainder_table(states.packed()[ids], n_stops, lcols, walk[0], walk[1], walk[2], walk[3], walk[5],
                                trans, nxt)
    top = int(table_rem.max(initial=0))
    if int(table_rem.min(initial=0)) < 0 or top > REM_MAX or int(table[:, 0].max()) + 255 * top >= 1 << 31:
        return _no_remainder()
    return inverse.reshape(-1).astype(np.int64) * combos, table_rem.reshape(-1).astype(REM_DTYPE)  # row i: ids[i]


def compile_model(ra: ReelArrays, t: PayTables, key: ModelKey, line_rows: IntArray, sym: IntArray,
                  symcode: IntArray, height: int, remainder: bool) -> list[npt.NDArray[Any]]:
    """One model's arrays, in :data:`FIELDS` order.

    ``line_rows`` are the model's lines, ``sym`` the shared symbol trie, ``symcode[s]`` what a
    cell showing ``s`` adds to the observation code, ``height`` the game's tallest window;
    ``remainder``: build the remainder table (for a base spin's model: base spins are drawn a
    batch ahead, so its cache misses overlap; a feature spin would wait for each of them).
    """
    _, rows, _, remap = key
    if rows is not None:
        ra = replace(ra, rows=np.full(ra.n_reels, rows, dtype=np.int64))
    n_reels = ra.n_reels
    n_stops = np.array([len(s) for s in ra.strips], dtype=np.int64)
    if int(ra.rows.max()) > int(n_stops.min()):
        msg = f"reel set {ra.name!r}: a window {int(ra.rows.max())} rows high needs strips of at least as many stops"
        raise ModelError(msg)
    if line_rows.size and int(line_rows.max()) >= int(ra.rows.min()):
        msg = f"reel set {ra.name!r} at {int(ra.rows.min())} rows: a line reads a row outside the window"
        raise ModelError(msg)
    width = int(n_stops.max())
    read = np.arange(t.n_symbols, dtype=np.int64)
    for s, as_ in remap:
        read[s] = as_
    ocols = np.zeros((n_reels, width, height), dtype=np.int64)
    code = np.zeros((n_reels, width), dtype=np.int64)
    for r in range(n_reels):
        col = ra.columns(r)
        ocols[r, : len(col), : col.shape[1]] = col
        code[r, : len(col)] = symcode[col].sum(axis=1)
    reads = np.stack([t.read_on(r, read) for r in range(n_reels)])  # reel-ordered entries: (reel, symbol) ids
    lcols = np.stack([reads[r][ocols[r]] for r in range(n_reels)])
    walk = (*_row_trie(line_rows), sym)
    k, (offsets, entry, opened, ropen, rem) = _walk_tables(n_stops, lcols, walk, remainder)
    word = code.copy()
    word[:k, : offsets.shape[1]] += offsets << 24
    if rem.shape[0] > 1:  # the remaining reels' offset into the remainder table
        radix = 1
        for r in range(n_reels - 1, k - 1, -1):
            word[r, : n_stops[r]] += (np.arange(n_stops[r], dtype=np.int64) * radix) << 44
            radix *= int(n_stops[r])
    first, nchild, row, cnt, depth = walk[:5]
    info = np.array([k, line_rows.shape[0], int(rem.shape[0] > 1)], dtype=np.int64)
    return [*_draws(ra, n_stops), word, ocols, lcols, ra.rows.astype(np.int64), first, nchild, row, cnt,
            depth, entry, opened, info, reads, ropen, rem]


def stack_models(keys: list[ModelKey], parts: list[list[npt.NDArray[Any]]]) -> Models:
    """Models stacked on a new first axis, each array zero-padded to the common shape.

    The remainder tables are concatenated instead (one model may have the only large one): each
    model's open-state offsets (``ropen``) point into the one flat ``rem``.
    """
    ir, io = FIELDS.index("rem"), FIELDS.index("ropen")
    at = 0
    for p in parts:
        p[io] = p[io] + at
        at += len(p[ir])
    arrays = []
    for i in range(len(FIELDS)):
        items = [p[i] for p in parts]
        if i == ir:
            arrays.append(np.ascontiguousarray(np.concatenate(items)))
            continue
        shape = tuple(max(a.shape[d] for a in items) for d in range(items[0].ndim))
        out = np.zeros((len(items), *shape), dtype=items[0].dtype)
        for j, a in enumerate(items):
            out[j][tuple(slice(0, x) for x in a.shape)] = a
        arrays.append(np.ascontiguousarray(out))
    return Models(tuple(keys), tuple(arrays))
