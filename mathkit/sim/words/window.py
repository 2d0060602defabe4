"""The words of :mod:`mathkit.play.window`: what the current window shows.

A count is a digit of the spin's observation code (``c``), so it costs no look at the window; the
others read the window ``W`` (filled from the stops, forced cells applied, when first read in a spin).

Examples
--------
>>> [op.name for op in OPS]
['V_DIGIT', 'V_CELLS', 'V_ROWS', 'V_CELLSUM', 'V_STACKS']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...play.values import Value
from ...play.window import Cells, CellSum, Count, Rows, Stacks
from .base import WINDOW, IntArray, Op, StaticCounts, ValueWord, snippet

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..program import Builder

__all__ = ["OPS", "WORDS"]

DIGIT = Op("V_DIGIT", "vals[a] = (code // b) % c: a count, a digit of the observation code",
           "vals[a] = (c // ib) % ic", digit=True)
CELLS = Op("V_CELLS", "vals[a] = the mask of the cells showing symbol set b", snippet(WINDOW, """
    x = 0
    for r in range(n_reels):
        for q in range(rows[k, r]):
            if symset[ib, W[r, q]] != 0:
                x |= np.int64(1) << (r * height + q)
    vals[a] = x
"""))
ROWS = Op("V_ROWS", "vals[a] = the current window's rows (first reel)", "vals[a] = rows[k, 0]")
CELLSUM = Op("V_CELLSUM", "vals[a] = Σ over the window's cells of tab[b + symbol]", snippet(WINDOW, """
    x = 0
    for r in range(n_reels):
        for q in range(rows[k, r]):
            x += tab[ib + W[r, q]]
    vals[a] = x
"""))
STACKS = Op("V_STACKS", "vals[a] = Σ of the chain values of the stacks of symbol set b (set c skipped, d: restart), "
            "step vals[e]", snippet(WINDOW, """
    step = vals[ie]  # each stack from its bottom: step more than the cell below
    x = 0
    for r in range(n_reels):
        y = 0
        for q in range(rows[k, r] - 1, -1, -1):
            s = W[r, q]
            if symset[ib, s] == 0:
                y = 0
            elif symset[ic, s] != 0:
                if idd != 0:
                    y = 0
            else:
                y += step
                x += y
    vals[a] = x
"""))

OPS = (DIGIT, CELLS, ROWS, CELLSUM, STACKS)
"""The family's instructions."""


def _count(b: Builder, v: Count, scope: str, where: str) -> int:
    return b.op(DIGIT, b.digit(b.symbols(v.symbols, where)))  # completed by finish()


def _observe_count(b: Builder, v: Count, where: str) -> None:
    b.digit(b.symbols(v.symbols, where))


def _static_count(v: Count, value_of: Callable[[Value], IntArray], s: StaticCounts) -> IntArray:
    return s.counts[tuple(sorted({s.sid[x] for x in v.symbols}))]


def _cells(b: Builder, v: Cells, scope: str, where: str) -> int:
    b.cells = True
    return b.op(CELLS, b.symset(b.symbols(v.symbols, where)))


def _rows(b: Builder, v: Rows, scope: str, where: str) -> int:
    return b.op(ROWS)  # the model's, not the window's


def _cellsum(b: Builder, v: CellSum, scope: str, where: str) -> int:
    b.window = True
    table = [0] * len(b.names)
    for name, x in v.values:
        table[b.symbols((name,), where)[0]] += x
    return b.op(CELLSUM, b.table(table))


def _stacks(b: Builder, v: Stacks, scope: str, where: str) -> int:
    b.window = True
    step = b.value(v.step, scope, where)
    shown = b.symset(b.symbols(v.symbols, where))
    skipped = b.symset(b.symbols(v.skipped, where) if v.skipped else ())
    return b.op(STACKS, shown, skipped, int(v.restart), step)


WORDS = (
    ValueWord(Count, (DIGIT,), _count, _static_count, _observe_count),
    ValueWord(Cells, (CELLS,), _cells),
    ValueWord(Rows, (ROWS,), _rows),
    ValueWord(CellSum, (CELLSUM,), _cellsum),
    ValueWord(Stacks, (STACKS,), _stacks),
)
"""The family's words."""
