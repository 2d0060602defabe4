"""Evaluating one window: line, ways and scatter wins.  Pure, no RNG.

The compiled functions here (``line_win``, ``ways_win``, ``window_line_total``
...) are the single statement of the pay rules in numeric form; the exact
engine and the simulator both call them.  :func:`evaluate` is the readable
entry point that lists every win of a window.

Rules
-----
* A line pays left to right from reel 1: for every pay entry the run is the
  number of leading positions whose symbol counts towards it (the symbol
  itself, a member of a mixed group, or a wild that substitutes for one).
* The run pays the entry's pay for the largest declared count not above the
  run, times the product of the multipliers of the wilds in the run (a wild's
  own combination is never multiplied, unless its entry says ``multiplied``).
  A game with ``multiplier_rule = "once"`` applies the largest factor of the run
  once instead of their product: its factors are stored negated in
  ``PayTables.mult`` (a negative factor combines by maximum, a positive one by product).
* Only the highest win per line is paid; ties go to the entry listed first.
* Ways: for each entry, the ways are the product over consecutive reels from
  the left of the number of window positions counting towards it (a wild
  multiplier counts as that many positions); every entry pays independently.
  With ``all_wild_ways = "void"`` the ways made only of wilds (the product of the
  wild positions alone) are taken out; with ``void_ways_at_wilds = n`` a window
  showing n wilds or more pays no way.
* Scatters count anywhere in the window and pay a multiple of the total bet (or of the
  line bet, the coins per line, in a game that declares ``scatter_unit = "line_bet"``).
  A wild declared to count as a scatter (``counts_as_scatter``) adds to that scatter's
  count wherever it shows, as a scatter does.
* A multiplier symbol (a regular symbol with a multiplier) counts as itself and multiplies
  the runs it is part of exactly as a wild's multiplier does; an entry declared ``flat``
  (like a wild's own combination) is never multiplied.  The highest of the multiplied
  pays is the line's.
* A reel-ordered entry (:mod:`mathkit.model.ordered`) names what counts per reel: the
  kernels read *line ids* (``PayTables.reel_ids``), one per (reel, symbol), and
  the same rules apply.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt

from ..model.game import Game
from .tables import WILD_BIT, PayTables, pay_tables

__all__ = [
    "WILD_BIT",
    "LineWin",
    "ScatterWin",
    "WindowResult",
    "evaluate",
    "line_win",
    "line_wins",
    "scatter_code",
    "ways_win",
    "window_line_total",
]

IntArray = npt.NDArray[np.int64]


@nb.njit(cache=True, nogil=True)
def line_win(seq: IntArray, match: npt.NDArray[np.bool_], pay: IntArray, own: IntArray,
             mult: IntArray) -> tuple[int, int, int]:  # pragma: no cover - compiled
    """Win of one line showing symbol ids ``seq``: ``(credits, entry, run)``; entry -1 if none.

    ``own[e]``: bit 1 — the entry is paid unmultiplied; bit 2 — it is a wild's own combination.
    """
    best = 0
    best_e = -1
    best_n = 0
    n_entries = match.shape[0]
    n_reels = seq.shape[0]
    for e in range(n_entries):
        n = 0
        m = 1
        plain = False  # the run holds a symbol that is not a marked wild (WILD_BIT)
        for p in range(n_reels):
            s = seq[p]
            if not match[e, s]:
                break
            n += 1
            f = mult[s]
            if f >= WILD_BIT:
                f -= WILD_BIT
            elif f <= -WILD_BIT:
                f += WILD_BIT
            else:
                plain = True
            if f < 0:  # a factor that does not stack (multiplier_rule = "once"): the run's largest applies once
                m = max(m, -f)
            else:
                m *= f
        v = pay[e, n]
        if not plain and (own[e] & 2) == 0:
            v = 0  # leading wilds alone stand in for no symbol (line_symbol = "first")
        if v > 0 and (own[e] & 1) == 0:
            v *= m
        if v > best:
            best = v
            best_e = e
            best_n = n
    return best, best_e, best_n


@nb.njit(cache=True, nogil=True)
def line_wins(seqs: IntArray, match: npt.NDArray[np.bool_], pay: IntArray, own: IntArray,
              mult: IntArray) -> IntArray:  # pragma: no cover - compiled
    """:func:`line_win` of every row of ``seqs``: ``out[i] = (credits, entry, run)``."""
    out = np.empty((seqs.shape[0], 3), dtype=np.int64)
    for i in range(seqs.shape[0]):
        v, e, n = line_win(seqs[i], match, pay, own, mult)
        out[i, 0] = v
        out[i, 1] = e
        out[i, 2] = n
    return out


@nb.njit(cache=True, nogil=True)
def window_line_total(window: IntArray, lines: IntArray, match: npt.NDArray[np.bool_], pay: IntArray,
                      own: IntArray, mult: IntArray) -> int:  # pragma: no cover
    """Sum of the line wins of ``window[r, row]`` over the lines ``lines[l, r]``."""
    n_lines, n_reels = lines.shape
    seq = np.empty(n_reels, dtype=np.int64)
    total = 0
    for li in range(n_lines):
        for r in range(n_reels):
            seq[r] = window[r, lines[li, r]]
        total += line_win(seq, match, pay, own, mult)[0]
    return total


@nb.njit(cache=True, nogil=True)
def ways_win(window: IntArray, rows: IntArray, match: npt.NDArray[np.bool_], pay: IntArray,
             mult: IntArray, wild: npt.NDArray[np.bool_], rule: IntArray) -> int:  # pragma: no cover - compiled
    """Total ways win of ``window[r, k]`` (``rows[r]`` rows on reel ``r``).

    ``wild[s]``: symbol ``s`` is a wild; ``rule``: ``PayTables.ways_rule`` — with ``rule[0]`` the ways made
    only of wilds are taken out of every entry's ways, and with ``rule[1] > 0`` a window showing that many
    wilds or more pays no way at all.
    """
    n_reels = rows.shape[0]
    if rule[1] > 0:
        shown = 0
        for r in range(n_reels):
            for k in range(rows[r]):
                if wild[window[r, k]]:
                    shown += 1
        if shown >= rule[1]:
            return 0
    total = 0
    n_entries = match.shape[0]
    for e in range(n_entries):
        ways = 1
        only = 1  # the ways through wilds alone
        n = 0
        for r in range(n_reels):
            c = 0
            w = 0
            for k in range(rows[r]):
                s = window[r, k]
                if match[e, s]:
                    c += mult[s]
                    if wild[s]:
                        w += mult[s]
            if c == 0:
                break
            ways *= c
            only *= w
            n += 1
        if rule[0] != 0:
            ways -= only
        total += pay[e, n] * ways
    return total


@nb.njit(cache=True, nogil=True)
def scatter_code(window: IntArray, rows: IntArray, scatter_of: IntArray, radix: IntArray) -> int:  # pragma: no cover
    """Scatter counts of a window packed into one integer: sum of ``radix[k]`` per scatter ``k`` shown."""
    code = 0
    for r in range(rows.shape[0]):
        for k in range(rows[r]):
            sk = scatter_of[window[r, k]]
            if sk >= 0:
                code += radix[sk]
    return code


@dataclass(frozen=True)
class LineWin:
    """One paid line (or, in a ways game, one paying entry with ``ways``)."""

    line: int
    entry: str
    count: int
    win: int
    ways: int = 1


@dataclass(frozen=True)
class ScatterWin:
    symbol: str
    count: int
    win: int


@dataclass(frozen=True)
class WindowResult:
    """Everything one window pays, in credits."""

    lines: tuple[LineWin, ...]
    scatters: tuple[ScatterWin, ...]

    @property
    def line_total(self) -> int:
        return sum(w.win for w in self.lines)

    @property
    def scatter_total(self) -> int:
        return sum(w.win for w in self.scatters)

    @property
    def total(self) -> int:
        return self.line_total + self.scatter_total


def _window_ids(tables: PayTables, window: tuple[tuple[str, ...], ...]) -> IntArray:
    sid = {n: i for i, n in enumerate(tables.names)}
    height = max(len(col) for col in window)
    out = np.zeros((len(window), height), dtype=np.int64)
    for r, col in enumerate(window):
        for k, name in enumerate(col):
            out[r, k] = sid[name]
    return out


def evaluate(game: Game, window: tuple[tuple[str, ...], ...], *, lines: int | None = None,
             coins: int | None = None, tables: PayTables | None = None) -> WindowResult:
    """Every win of one window (reels left to right, rows top to bottom).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> g = load_game("data/games/classic_3reel.toml")
    >>> res = evaluate(g, (("SEVEN_RED",), ("SEVEN_RED",), ("SEVEN_RED",)))
    >>> res.lines[0].entry, res.lines[0].count
    ('SEVEN_RED', 3)
    """
    t = tables if tables is not None else pay_tables(game, lines=lines, coins=coins)
    ids = _window_ids(t, window)
    rows = np.array([len(col) for col in window], dtype=np.int64)
    wins: list[LineWin] = []
    if t.ways:
        for e in range(len(t.entries)):
            sub = t.match[e : e + 1]
            ways = int(ways_win(ids, rows, sub, np.ones((1, t.n_reels + 1), dtype=np.int64), t.mult, t.wild,
                                t.ways_rule))
            n = 0
            for r in range(t.n_reels):
                if not any(t.match[e, ids[r, k]] for k in range(rows[r])):
                    break
                n += 1
            win = int(t.pay[e, n]) * ways
            if win:
                wins.append(LineWin(-1, t.entries[e], int(t.key[e, n]), win, ways))
    else:
        for li in range(t.lines.shape[0]):
            seq = np.array([t.read_on(r, ids[r, t.lines[li, r]]) for r in range(t.n_reels)], dtype=np.int64)
            win, e, n = line_win(seq, t.match, t.pay, t.own, t.mult)
            if win:
                wins.append(LineWin(li, t.entries[e], int(t.key[e, n]), int(win)))
    scat: list[ScatterWin] = []
    for k, s in enumerate(t.scatter_ids):
        counted = game.scatter_counted(t.names[s])  # the scatter and the wilds that count as it
        count = int(sum(1 for col in window for name in col if name in counted))
        pay = int(t.scatter_pay[k, count]) * t.scatter_credits
        if pay:
            scat.append(ScatterWin(t.names[s], count, pay))
    return WindowResult(tuple(wins), tuple(scat))
