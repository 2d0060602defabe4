"""Placing symbol counts on a strip: the fewest stop edits that respect stacks, runs and spacing.

Given a strip and the count each symbol must have, :func:`place` returns the
strip with those counts that changes the fewest stops, solved exactly as a small
integer program (HiGHS through :func:`scipy.optimize.milp`).  Stops showing a
fixed symbol never change; a stacked symbol (shape ``k``) lies only in runs of
exactly ``k``; no other symbol makes a run longer than its ``max_run``; and no
``spacing`` consecutive stops show two scatters.  When the length changes, stops
are first inserted (in the middle of the longest scatter-free stretch) or
deleted (a stop of a symbol in surplus, in the longest scatter-free stretch),
each counted as an edit.

Examples
--------
One A must become a C; of the three, only the first can without two Cs touching:

>>> place(("A", "B", "A", "C", "A", "B"), {"A": 2, "B": 2, "C": 2}, max_run={"A": 1, "B": 1, "C": 1})
('C', 'B', 'A', 'C', 'A', 'B')
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import lil_matrix

from ..errors import ModelError
from ..model.edits import stretch_middle

__all__ = ["PlacementError", "edits_between", "place"]

GAP = "\x00"  # an inserted stop, not yet given a symbol


class PlacementError(ModelError):
    """No strip has the asked counts under the stack, run and spacing rules."""


def edits_between(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """Stop edits from strip ``a`` to strip ``b``: the stops that changed (strips of one length), else the
    fewest stops replaced, inserted or deleted (edit distance).

    Examples
    --------
    >>> edits_between(("A", "B"), ("A", "C")), edits_between(("A", "A", "B", "C"), ("A", "A", "B", "A", "C"))
    (1, 1)
    """
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True))
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def _stretch_middle(strip: list[str], marks: set[int]) -> int:
    """The middle of the longest circular stretch without a marked stop (the middle of the strip if none is)."""
    mid = stretch_middle(len(strip), sorted(marks))
    return len(strip) // 2 if mid is None else mid


def _resize(strip: list[str], target: Mapping[str, int], frozen: set[str], scatters: frozenset[str]) -> list[str]:
    out = list(strip)
    want = sum(target.values())
    while len(out) < want:
        marks = {i for i, s in enumerate(out) if s in scatters or s == GAP}
        out.insert(_stretch_middle(out, marks) + 1, GAP)
    while len(out) > want:
        have = Counter(out)
        surplus = {s for s in have if s not in frozen and have[s] > target.get(s, 0)}
        if not surplus:
            msg = "no stop can be deleted: every stop is fixed or needed"
            raise ModelError(msg)
        marks = {i for i, s in enumerate(out) if s in scatters}
        mid = _stretch_middle(out, marks)
        order = sorted(range(len(out)), key=lambda i: (min((i - mid) % len(out), (mid - i) % len(out)), i))
        del out[next(i for i in order if out[i] in surplus)]
    return out


def place(strip: tuple[str, ...], target: Mapping[str, int], *, fixed: frozenset[str] = frozenset(),
          stack: Mapping[str, int] | None = None, max_run: Mapping[str, int] | None = None,
          scatters: frozenset[str] = frozenset(), spacing: int = 1, time_limit: float = 10.0) -> tuple[str, ...]:
    """The strip with ``target`` counts closest to ``strip`` under the rules (see the module notes).

    ``max_run`` and ``stack`` give each symbol's longest run and stack shape; a
    symbol not in ``max_run`` may form runs of any length.

    Raises
    ------
    ModelError
        When no strip has those counts under the rules.
    """
    stack = dict(stack or {})
    max_run = dict(max_run or {})
    counts = Counter(strip)
    for s in fixed:
        if target.get(s, 0) != counts.get(s, 0):
            msg = f"fixed symbol {s} would change from {counts.get(s, 0)} to {target.get(s, 0)} stops"
            raise ModelError(msg)
    work = _resize(list(strip), target, set(fixed), scatters)
    out = _solve(work, target, fixed, stack, max_run, scatters, spacing, time_limit)
    if out is None:
        msg = f"no strip of {len(work)} stops has counts {dict(target)} under the stack, run and spacing rules"
        raise PlacementError(msg)
    return out


def _solve(work: list[str], target: Mapping[str, int], fixed: frozenset[str], stack: dict[str, int],
           max_run: dict[str, int], scatters: frozenset[str], spacing: int,
           time_limit: float) -> tuple[str, ...] | None:
    n = len(work)
    free = [i for i in range(n) if work[i] not in fixed]
    is_free = np.zeros(n, dtype=bool)
    is_free[free] = True
    symbols = [s for s in target if s not in fixed and target[s] > 0]
    plain = [s for s in symbols if stack.get(s, 1) == 1]
    stacked = [s for s in symbols if stack.get(s, 1) > 1]
    index: dict[tuple[str, int], int] = {}
    for s in plain:
        for i in free:
            index[(s, i)] = len(index)
    for s in stacked:
        k = stack[s]
        for j in range(n):
            if all(is_free[(j + d) % n] for d in range(k)):
                index[(s, -1 - j)] = len(index)  # a run of s starting at stop j
    nv = len(index)
    if nv == 0:
        return tuple(work) if not free else None
    rows: list[tuple[dict[int, float], float, float]] = []

    def covers(s: str, i: int) -> list[int]:
        k = stack[s]
        return [v for d in range(k) if (v := index.get((s, -1 - ((i - d) % n)), -1)) >= 0]

    for i in free:
        one = {index[(s, i)]: 1.0 for s in plain}
        for s in stacked:
            for v in covers(s, i):
                one[v] = 1.0
        rows.append((one, 1.0, 1.0))
    for s in plain:
        rows.append(({index[(s, i)]: 1.0 for i in free}, float(target[s]), float(target[s])))
        m = max_run.get(s)
        if m is not None and m < n:
            for a in range(n):
                window = [(a + d) % n for d in range(m + 1)]
                vs = {index[(s, i)]: 1.0 for i in window if is_free[i]}
                if len(vs) > m:
                    rows.append((vs, -np.inf, float(m)))
    for s in stacked:
        k = stack[s]
        if target[s] % k:
            return None
        starts = {v: 1.0 for (t, j), v in index.items() if t == s}
        rows.append((starts, float(target[s] // k), float(target[s] // k)))
        for a in range(n):  # no two runs overlap or touch: k + 1 consecutive starts hold at most one
            vs = {v: 1.0 for d in range(k + 1) if (v := index.get((s, -1 - ((a + d) % n)), -1)) >= 0}
            if len(vs) > 1:
                rows.append((vs, -np.inf, 1.0))
    movable = [s for s in symbols if s in scatters]
    if movable and spacing > 1:
        for a in range(n):
            window = [(a + d) % n for d in range(spacing)]
            fixed_here = sum(1 for i in window if work[i] in scatters and work[i] in fixed)
            row: dict[int, float] = {}
            for i in window:
                for s in movable:
                    if s in plain and is_free[i]:
                        row[index[(s, i)]] = 1.0
                    elif s in stacked:
                        for v in covers(s, i):
                            row[v] = 1.0
            if row:
                rows.append((row, -np.inf, float(1 - fixed_here)))
    cost = np.zeros(nv)
    for i in free:
        s = work[i]
        if s in plain:
            cost[index[(s, i)]] -= 1.0
        elif s in stacked:
            for v in covers(s, i):
                cost[v] -= 1.0
    a = lil_matrix((len(rows), nv))
    lo, hi = np.empty(len(rows)), np.empty(len(rows))
    for r, (row, low, high) in enumerate(rows):
        for v, c in row.items():
            a[r, v] = c
        lo[r], hi[r] = low, high
    res: Any = milp(cost, integrality=np.ones(nv), bounds=Bounds(0, 1),
                    constraints=LinearConstraint(a.tocsr(), lo, hi), options={"time_limit": time_limit})
    if res.x is None:
        return None
    x = np.round(res.x).astype(int)
    out = list(work)
    for (s, i), v in index.items():
        if x[v]:
            if i >= 0:
                out[i] = s
            else:
                for d in range(stack[s]):
                    out[(-1 - i + d) % n] = s
    return tuple(out)
