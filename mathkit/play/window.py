"""The values of the simulator's vocabulary read on the current window: counts, cells, rows, cell values, stacks.

The window is the one the last spin showed (its forced cells applied); a cell ``(reel, row)`` of a mask is bit
``reel·H + row``, ``H`` the tallest window the game plays (:class:`mathkit.play.tables.Stake`).

Examples
--------
>>> Cells(("SCATTER",)).symbols
('SCATTER',)
"""

from __future__ import annotations

from dataclasses import dataclass

from .values import Value

__all__ = ["CellSum", "Cells", "Count", "Rows", "Stacks"]


@dataclass(frozen=True)
class Count(Value):
    """How many cells of the current window show any of ``symbols`` (forced cells included, before remaps)."""

    symbols: tuple[str, ...]


@dataclass(frozen=True)
class Cells(Value):
    """The cells of the current window showing any of ``symbols``: bit ``reel·H + row`` (at most 64 cells)."""

    symbols: tuple[str, ...]


@dataclass(frozen=True)
class Rows(Value):
    """How many rows the current window shows (on its first reel): a spin's drawn height."""


@dataclass(frozen=True)
class CellSum(Value):
    """The sum, over the current window's cells, of the value ``values`` gives the symbol each shows (0: none).

    Examples
    --------
    >>> CellSum((("ACT1", 1), ("ACT5", 5))).values[1]
    ('ACT5', 5)
    """

    values: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Stacks(Value):
    """The sum of the values a chain rule gives the current window's stacks of ``symbols``.

    A stack is a maximal run of cells showing any of ``symbols`` in one column of the window
    (cells beyond its edge are not part of it).  Read from the bottom of each stack up, each of
    its cells not in ``skipped`` gets the value of the one below it plus ``step`` (the lowest
    gets ``step``); a ``skipped`` cell gets nothing and passes the value below it on, or, with
    ``restart``, starts the chain again above it.
    """

    symbols: tuple[str, ...]
    skipped: tuple[str, ...]
    step: Value
    restart: bool = False
