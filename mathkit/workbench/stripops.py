"""Strip edits as pure functions on (symbols, weights) lists: set, insert, delete and move stops, paste columns.

A strip is a list of ``(symbol, weight)`` stops (weight 1 on unweighted reels).
Each function returns a new list; the workbench turns it into a game with
:func:`~mathkit.workbench.model.with_stops`, which validates it.

Examples
--------
>>> s = [("A", 1), ("B", 1), ("C", 1), ("D", 1)]
>>> set_stops(s, [1, 2], "X")
[('A', 1), ('X', 1), ('X', 1), ('D', 1)]
>>> insert_stop(s, 1, "W")
[('A', 1), ('W', 1), ('B', 1), ('C', 1), ('D', 1)]
>>> delete_stops(s, [0, 3])
[('B', 1), ('C', 1)]
>>> move_stops(s, [1, 2], -1)
[('B', 1), ('C', 1), ('A', 1), ('D', 1)]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..errors import GameError

__all__ = ["Stop", "delete_stops", "insert_stop", "move_stops", "paste_columns", "runs", "set_stops"]

Stop = tuple[str, int]
_SPLIT = re.compile(r"\t|;|,")


def set_stops(strip: Sequence[Stop], stops: Sequence[int], symbol: str) -> list[Stop]:
    """Stops ``stops`` show ``symbol`` (their weights kept)."""
    chosen = set(stops)
    return [(symbol if i in chosen else s, w) for i, (s, w) in enumerate(strip)]


def insert_stop(strip: Sequence[Stop], at: int, symbol: str, weight: int = 1) -> list[Stop]:
    """A new stop showing ``symbol`` before stop ``at`` (``at = len``: at the end)."""
    out = list(strip)
    out.insert(max(0, min(at, len(out))), (symbol, weight))
    return out


def delete_stops(strip: Sequence[Stop], stops: Sequence[int]) -> list[Stop]:
    """The strip without stops ``stops`` (an empty strip is refused by the game's validation)."""
    gone = set(stops)
    return [stop for i, stop in enumerate(strip) if i not in gone]


def move_stops(strip: Sequence[Stop], stops: Sequence[int], by: int) -> list[Stop]:
    """The block of stops ``stops`` (contiguous: first to last) moved ``by`` places, round the circular strip."""
    if not stops:
        return list(strip)
    lo, hi = min(stops), max(stops)
    block = list(strip[lo:hi + 1])
    rest = list(strip[:lo]) + list(strip[hi + 1:])
    at = (lo + by) % (len(rest) + 1)
    return rest[:at] + block + rest[at:]


def runs(symbols: Sequence[str]) -> list[tuple[int, int]]:
    """``(start, length)`` of every run of two or more equal symbols (a stack), round the circular strip.

    Examples
    --------
    >>> runs(["S", "A", "W", "W", "W", "B", "S"])
    [(2, 3), (6, 2)]
    """
    n = len(symbols)
    if n == 0 or all(s == symbols[0] for s in symbols):
        return [(0, n)] if n > 1 else []
    start = next(i for i in range(n) if symbols[i] != symbols[i - 1])
    out = []
    i = 0
    while i < n:
        j = i
        while j + 1 < n and symbols[(start + j + 1) % n] == symbols[(start + i) % n]:
            j += 1
        if j > i:
            out.append(((start + i) % n, j - i + 1))
        i = j + 1
    return sorted(out)


def paste_columns(text: str, field: str = "paste") -> list[list[Stop]]:
    """Columns pasted from a spreadsheet: one stop per row, columns split by tabs (or ``;`` or ``,``).

    A cell is a symbol name or ``NAME*weight``; empty cells (a shorter column) are
    skipped, and so is a first row of headers such as ``reel 1``.

    Examples
    --------
    >>> paste_columns("reel 1\\treel 2\\nA\\tB\\nC\\t\\nD*3\\tE\\n")
    [[('A', 1), ('C', 1), ('D', 3)], [('B', 1), ('E', 1)]]
    """
    rows = [_SPLIT.split(line.rstrip("\r")) for line in text.splitlines() if line.strip()]
    if rows and all(re.fullmatch(r"\s*(reel\s*)?\d*\s*", c, re.IGNORECASE) and c.strip() for c in rows[0]):
        rows = rows[1:]
    width = max((len(r) for r in rows), default=0)
    cols: list[list[Stop]] = [[] for _ in range(width)]
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            tok = cell.strip()
            if not tok:
                continue
            m = re.fullmatch(r"([^\s*]+)(?:\*(\d+))?", tok)
            if m is None or (m.group(2) is not None and int(m.group(2)) < 1):
                msg = f"cannot read {tok!r}"
                raise GameError(msg, field=f"{field} row {i + 1}, column {j + 1}",
                                fix="one symbol name (or NAME*weight) per cell")
            cols[j].append((m.group(1), 1 if m.group(2) is None else int(m.group(2))))
    cols = [c for c in cols if c]
    if not cols:
        msg = "nothing to paste"
        raise GameError(msg, field=field, fix="copy one column per reel from the spreadsheet")
    return cols
