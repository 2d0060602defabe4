"""Linear solves of ``(I - Q)`` for absorbing chains: reachability, exact sparse LU, the geometric check.

``I - Q`` is never inverted: :func:`exact_lu` factorises it over Fractions by
sparse Gaussian elimination in a block-triangular order (an acyclic chain is
plain back-substitution), and :meth:`ExactLU.solve` solves against any
right-hand side.  :func:`never_ending` finds the states that can never reach
:data:`ABSORB` (for which ``I - Q`` is singular); :func:`geometric_check` is the
one-state case in closed form, ``1 / (1 - m)``.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

from ...errors import ModelError

__all__ = ["ABSORB", "EXACT_MAX_STATES", "ExactLU", "Outcome", "exact_lu", "geometric_check", "never_ending"]

ABSORB: Final = -1
"""The ``next_state`` of an outcome that ends the feature."""
EXACT_MAX_STATES: Final = 300
"""``exact=None`` solves exactly up to this many states, in float64 above.

Exact solves of banded or triangular chains (remaining-spins, locked-positions)
take well under a second at this size; a chain whose elimination fills in
densely costs about n³ Fraction operations on growing numbers (1 s at 100 states).
"""

Outcome = tuple[int, int, Fraction]
"""A validated outcome: ``(reward, next_state, probability > 0)``."""


def never_ending(outcomes: Sequence[Sequence[Outcome]]) -> list[int]:
    """States from which :data:`ABSORB` cannot be reached (breadth-first search backwards)."""
    n = len(outcomes)
    src = [j if j != ABSORB else n for row in outcomes for _, j, _ in row]
    dst = [i for i, row in enumerate(outcomes) for _ in row]
    back = sparse.csr_array((np.ones(len(src)), (src, dst)), shape=(n + 1, n + 1))
    reached = csgraph.breadth_first_order(back, n, directed=True, return_predecessors=False)
    ends = np.zeros(n + 1, dtype=bool)
    ends[reached] = True
    return [i for i in range(n) if not ends[i]]


def _block_order(outcomes: Sequence[Sequence[Outcome]]) -> list[int]:
    """States with every strongly connected block before the blocks it leads to.

    In this order ``I - Q`` is block upper triangular: elimination fills in only
    inside blocks, and an acyclic chain needs back-substitution only.
    """
    n = len(outcomes)
    edges = {(i, j) for i, row in enumerate(outcomes) for _, j, _ in row if j != ABSORB}
    rows, cols = zip(*edges, strict=True) if edges else ((), ())
    graph = sparse.csr_array((np.ones(len(edges)), (rows, cols)), shape=(n, n))
    _, comp = csgraph.connected_components(graph, directed=True, connection="strong")
    succ: dict[int, set[int]] = {}
    indeg = dict.fromkeys(range(int(comp.max()) + 1 if n else 0), 0)
    for i, j in edges:
        a, b = int(comp[i]), int(comp[j])
        if a != b and b not in succ.setdefault(a, set()):
            succ[a].add(b)
            indeg[b] += 1
    first = {int(c): i for i, c in reversed(list(enumerate(comp)))}
    ready = [(first[c], c) for c, d in indeg.items() if d == 0]
    heapq.heapify(ready)
    rank: dict[int, int] = {}
    while ready:
        _, c = heapq.heappop(ready)
        rank[c] = len(rank)
        for b in succ.get(c, ()):
            indeg[b] -= 1
            if indeg[b] == 0:
                heapq.heappush(ready, (first[b], b))
    return sorted(range(n), key=lambda i: (rank[int(comp[i])], i))


@dataclass(frozen=True)
class ExactLU:
    """An exact LU factorisation of ``I - Q`` in a permuted order (see :func:`exact_lu`)."""

    order: tuple[int, ...]
    lower: tuple[tuple[tuple[int, Fraction], ...], ...]
    upper: tuple[tuple[tuple[int, Fraction], ...], ...]
    diag: tuple[Fraction, ...]

    def solve(self, b: Sequence[Fraction]) -> list[Fraction]:
        """``x`` with ``(I - Q) x = b`` (both indexed by state), exactly."""
        y = [Fraction(b[i]) for i in self.order]
        for k, col in enumerate(self.lower):
            for r, f in col:
                y[r] -= f * y[k]
        x = [Fraction(0)] * len(y)
        for k in range(len(y) - 1, -1, -1):
            x[k] = (y[k] - sum((u * x[c] for c, u in self.upper[k]), Fraction(0))) / self.diag[k]
        out = [Fraction(0)] * len(y)
        for k, i in enumerate(self.order):
            out[i] = x[k]
        return out


def exact_lu(outcomes: Sequence[Sequence[Outcome]]) -> ExactLU:
    """Factorise ``I - Q`` over Fractions by sparse Gaussian elimination.

    No pivoting is needed: when every state reaches absorption, ``I - Q`` is a
    nonsingular M-matrix, so (in any symmetric order) every pivot is positive.
    """
    order = _block_order(outcomes)
    pos = {i: k for k, i in enumerate(order)}
    rows: list[dict[int, Fraction]] = []
    below: list[set[int]] = [set() for _ in order]  # below[c]: rows r > c with an entry in column c
    for r, i in enumerate(order):
        row = {r: Fraction(1)}
        for _, j, p in outcomes[i]:
            if j != ABSORB:
                c = pos[j]
                row[c] = row.get(c, Fraction(0)) - p
                if c < r:
                    below[c].add(r)
        rows.append(row)
    lower: list[tuple[tuple[int, Fraction], ...]] = []
    for k, pivot_row in enumerate(rows):
        pivot = pivot_row[k]
        if pivot <= 0:  # impossible for a chain that passed never_ending()
            msg = "I - Q is singular: some state never reaches the end"
            raise ModelError(msg)
        tail = [(c, v) for c, v in pivot_row.items() if c > k]
        col = []
        for r in sorted(below[k]):
            a = rows[r].pop(k, Fraction(0))
            if a == 0:
                continue
            f = a / pivot
            col.append((r, f))
            for c, v in tail:
                new = rows[r].get(c, Fraction(0)) - f * v
                if new == 0:
                    rows[r].pop(c, None)
                else:
                    rows[r][c] = new
                    if c < r:
                        below[c].add(r)
        lower.append(tuple(col))
    upper = tuple(tuple((c, v) for c, v in row.items() if c > k) for k, row in enumerate(rows))
    diag = tuple(row[k] for k, row in enumerate(rows))
    return ExactLU(tuple(order), tuple(lower), upper, diag)


def geometric_check(m: Fraction | int, rule: str, *, unit: str = "spin") -> Fraction:
    """Refuse a retrigger rule that adds on average one step or more per step.

    A feature whose every step adds on average ``m`` steps has expected length
    ``n / (1 - m)`` from ``n`` steps when ``m < 1``, and never ends on average
    when ``m >= 1``.

    Parameters
    ----------
    m
        Expected steps added per step (for example P(retrigger) × spins added).
    rule
        The rule in words, with its numbers; it starts the error message.
    unit
        What a step is called (``"spin"``, ``"re-spin"``).

    Returns
    -------
    Fraction
        ``1 / (1 - m)``: the expected length per initial step.

    Raises
    ------
    ModelError
        When ``m >= 1`` (or ``m < 0``), with the message
        ``"{rule}: {m:.4g} added {unit}s per {unit} ≥ 1, the feature never ends on average"``.

    Examples
    --------
    >>> geometric_check(Fraction(1, 10) * 5, "3+ scatters add 5 spins with probability 0.1 per spin")
    Fraction(2, 1)
    >>> rule = "3+ Emperors add 10 spins with probability 0.104 per spin"
    >>> geometric_check(Fraction(104, 1000) * 10, rule)
    Traceback (most recent call last):
    ...
    mathkit.errors.ModelError: 3+ Emperors add 10 spins with probability 0.104 per spin: 1.04 added spins \
per spin ≥ 1, the feature never ends on average
    """
    m = Fraction(m)
    if m < 0:
        msg = f"{rule}: {float(m):.4g} added {unit}s per {unit} is negative"
        raise ModelError(msg)
    if m >= 1:
        msg = f"{rule}: {float(m):.4g} added {unit}s per {unit} ≥ 1, the feature never ends on average"
        raise ModelError(msg)
    return 1 / (1 - m)
