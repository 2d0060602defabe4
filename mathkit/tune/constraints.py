"""What a tuning move must respect: :class:`Constraints` from the user, :class:`_Rules` fixed from the original game.

A strip move never touches a ``fixed`` symbol, never puts a symbol on a reel
where it was not, never removes the last stop of a paying symbol from a reel,
never brings two scatters closer than ``min_scatter_spacing`` stops, never makes
a run longer than ``max_stack``; pays stay positive, zero or ordered as they
were (see :mod:`mathkit.tune` for the defaults).  The strip helpers measure
runs and scatter gaps on circular strips.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import ModelError
from ..game import Game
from ..sensitivity import PayCell, pay_cells, pay_values

__all__ = ["Constraints"]


@dataclass(frozen=True)
class Constraints:
    """What a strip move must respect (see the module notes for the defaults)."""

    keep_length: bool = True
    min_scatter_spacing: int | None = None
    max_stack: int | None = None
    fixed: frozenset[str] = frozenset()


# --------------------------------------------------------------------------- strip helpers
def _runs(strip: Sequence[str]) -> dict[str, int]:
    """Longest circular run of each symbol."""
    n = len(strip)
    out: dict[str, int] = {}
    if len(set(strip)) == 1:
        return {strip[0]: n}
    start = next(i for i in range(n) if strip[i] != strip[i - 1])
    i = 0
    while i < n:
        s = strip[(start + i) % n]
        j = i
        while j < n and strip[(start + j) % n] == s:
            j += 1
        out[s] = max(out.get(s, 0), j - i)
        i = j
    return out


def _min_gap(strip: Sequence[str], scatters: frozenset[str]) -> int:
    """Smallest circular distance between two scatter stops (``len(strip)`` when fewer than two)."""
    marks = [i for i, s in enumerate(strip) if s in scatters]
    n = len(strip)
    if len(marks) < 2:
        return n
    return min(min((b - a) % n, (a - b) % n) for k, a in enumerate(marks) for b in marks[k + 1:])


def _award_symbols(game: Game) -> frozenset[str]:
    """Symbols an award needs: those in a pay entry, paying scatters, every symbol a feature reads, paying wilds."""
    out = {s for e in game.line_pays for s in e.symbols}
    out |= {sp.symbol for sp in game.scatter_pays}
    for f in game.features:
        out |= set(f.symbols())
    return frozenset(out)


@dataclass(frozen=True)
class _Rules:
    """Feasibility of strip and pay moves, fixed from the original game."""

    reels: str
    rows: tuple[int, ...]
    weighted: bool
    present: tuple[frozenset[str], ...]
    needed: frozenset[str]
    fixed: frozenset[str]
    scatters: frozenset[str]
    spacing: tuple[int, ...]
    stack: dict[str, int]
    keep_length: bool
    pay_floor: dict[PayCell, int]
    pay_order: tuple[tuple[PayCell, PayCell], ...]

    @classmethod
    def of(cls, game: Game, reels: str, c: Constraints) -> _Rules:
        rs = game.reel_set(reels)
        scatters = frozenset(s.name for s in game.scatters)
        unknown = sorted(c.fixed - set(game.symbol_names))
        if unknown:
            msg = f"--fixed names unknown symbols {', '.join(unknown)}; the symbols are {', '.join(game.symbol_names)}"
            raise ModelError(msg)
        stack: dict[str, int] = {}
        for strip in rs.strips:
            for s, k in _runs(strip).items():
                stack[s] = max(stack.get(s, 1), k)
        stack = {s: max(stack.get(s, 1), 2) for s in game.symbol_names}
        if c.max_stack is not None:
            stack = {s: c.max_stack for s in game.symbol_names}
        spacing = []
        for r, strip in enumerate(rs.strips):
            default = min(rs.rows[r], _min_gap(strip, scatters))
            spacing.append(default if c.min_scatter_spacing is None else c.min_scatter_spacing)
        cells = pay_cells(game)
        floor = {cell: (1 if pay_values(game, cell)[0] > 0 else 0) for cell in cells}
        order = []
        for a in cells:
            for b in cells:
                if a == b or a.kind != b.kind or floor[a] == 0:
                    continue
                same_entry = a.entry == b.entry and a.count > b.count
                same_count = a.entry != b.entry and a.count == b.count and pay_values(game, a)[0] > pay_values(game, b)[0]
                if same_entry or same_count:
                    order.append((a, b))  # a must stay >= b
        return cls(
            reels=rs.name, rows=rs.rows, weighted=rs.weights is not None,
            present=tuple(frozenset(strip) for strip in rs.strips), needed=_award_symbols(game), fixed=c.fixed, scatters=scatters,
            spacing=tuple(spacing), stack=stack, keep_length=c.keep_length, pay_floor=floor, pay_order=tuple(order),
        )

    def strip_ok(self, old: Sequence[str], new: Sequence[str], r: int) -> bool:
        """Scatter spacing and stack heights of a changed strip (existing violations may stay, not grow)."""
        if self.scatters & (set(old) | set(new)):
            gap_new = _min_gap(new, self.scatters)
            if gap_new < self.spacing[r] and gap_new < _min_gap(old, self.scatters):
                return False
        runs_old, runs_new = _runs(old), _runs(new)
        return all(k <= max(self.stack.get(s, 1), runs_old.get(s, 0)) for s, k in runs_new.items())

    def pays_ok(self, game: Game) -> bool:
        for cell, lo in self.pay_floor.items():
            v = pay_values(game, cell)
            if (lo and min(v) < lo) or (not lo and max(v) != 0):
                return False
        return all(pay_values(game, a)[0] >= pay_values(game, b)[0] for a, b in self.pay_order)


def _runs_at(strip: Sequence[str], i: int) -> int:
    """Length of the run of identical symbols through stop ``i`` (circular)."""
    n, s = len(strip), strip[i]
    k = 1
    while k < n and strip[(i - k) % n] == s:
        k += 1
    left = k - 1
    k = 1
    while k < n and strip[(i + k) % n] == s:
        k += 1
    return min(n, left + k)


def _neighbours(strip: Sequence[str], i: int, s: str) -> int:
    n = len(strip)
    return int(strip[(i - 1) % n] == s) + int(strip[(i + 1) % n] == s)
