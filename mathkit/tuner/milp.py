"""The integer program of one tuning step: the fewest edits whose modelled figures fall in their bands.

Variables, for the design ``x`` (one integer per :class:`~mathkit.tuner.space.Var`):

* ``x`` within its bounds; per reel, count and weight changes sum to zero
  (lengths and total weights kept) or stay within the allowed length change;
* edits: on a strip reel, the stops added (positive parts, in stops; with
  lengths free, the larger of added and removed); on a weighted reel, the units
  of weight moved (each changes a stop); for a pay, one binary per pay that
  changed; counted from ``base`` (the design edits are counted from);
* one slack per band, in half-widths of the band (every band row is scaled so),
  weighted by its priority (the RTP first), so an unreachable band is missed by
  as little as possible;
* tie-breaks preferring small relative changes of counts, weights and pays,
  and figures close to their aimed values (together worth less than one edit),
  which keep the game's mix and the linear model's accuracy.

Structural rows keep a declared symbol hierarchy (never more stops of a symbol
than of one in the next tier down), the pay order's frequencies found on the
strips (``ReelRules.order``) and the paytable's shape (pays never fall as
the count grows; a larger pay at one count stays at least as large).  An
optional trust region bounds the total change from a centre design, and
``only`` restricts the step to some variables (one reel: the polish step, exact
on unweighted strips).  Solved by HiGHS (:func:`scipy.optimize.milp`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import lil_matrix

from ..errors import ModelError
from ..model.edits import PayCell, pay_values
from .constraints import length_change
from .model import Row
from .space import IntArray, Space

__all__ = ["Step", "solve_step"]


@dataclass(frozen=True)
class Step:
    """A solved step: the design, its modelled edits and how far each band is missed (half-widths)."""

    x: IntArray
    edits: float
    misses: dict[str, float]
    status: int

    @property
    def in_model(self) -> bool:
        return all(m <= 1e-6 for m in self.misses.values())


@contextmanager
def _quiet() -> Iterator[None]:
    """Silence the solver's own C-level prints on standard output (HiGHS may print a stray debug line)."""
    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        yield
        return
    saved = os.dup(fd)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), fd)
            try:
                yield
            finally:
                os.dup2(saved, fd)
    finally:
        os.close(saved)


class _Program:
    def __init__(self) -> None:
        self.cost: list[float] = []
        self.lo: list[float] = []
        self.hi: list[float] = []
        self.integer: list[int] = []
        self.rows: list[tuple[dict[int, float], float, float]] = []
        self.edit_vars: list[int] = []

    def var(self, cost: float, lo: float, hi: float, integer: bool) -> int:
        self.cost.append(cost)
        self.lo.append(lo)
        self.hi.append(hi)
        self.integer.append(1 if integer else 0)
        return len(self.cost) - 1

    def row(self, coefs: dict[int, float], lo: float, hi: float) -> None:
        self.rows.append((coefs, lo, hi))

    def solve(self, nodes: int, time_limit: float) -> Any:
        with _quiet():
            return self._solve(nodes, time_limit)

    def _solve(self, nodes: int, time_limit: float) -> Any:
        n = len(self.cost)
        a = lil_matrix((max(len(self.rows), 1), n))
        lo = np.full(max(len(self.rows), 1), -np.inf)
        hi = np.full(max(len(self.rows), 1), np.inf)
        for r, (coefs, low, high) in enumerate(self.rows):
            for j, c in coefs.items():
                a[r, j] = c
            lo[r], hi[r] = low, high
        return milp(np.array(self.cost), integrality=np.array(self.integer), bounds=Bounds(self.lo, self.hi),
                    constraints=LinearConstraint(a.tocsr(), lo, hi),
                    options={"node_limit": nodes, "time_limit": time_limit, "mip_rel_gap": 0.02})


def solve_step(space: Space, rows: Sequence[Row], at: IntArray, base: IntArray, *,
               centre: IntArray | None = None, radius: float | None = None, only: Sequence[int] | None = None,
               forbid: Sequence[tuple[tuple[int, ...], tuple[int, ...]]] = (), nodes: int = 1000,
               time_limit: float = 60.0) -> Step | None:
    """The fewest-edit design whose model rows (taken at ``at``) hold, or miss by the least (``None``: no design).

    ``forbid`` lists ``(variables, values)`` combinations the design must not take (a reel's counts that cannot
    be laid out).  The search stops after ``nodes`` branch-and-bound nodes (so the same problem always gives the
    same design), or ``time_limit`` seconds as a safety, with the best design found.
    """
    p = _Program()
    vs = space.vars
    n = len(vs)
    allowed = set(range(n)) if only is None else set(only)
    xs = []
    for k, v in enumerate(vs):
        lo, hi = (v.lo, v.hi) if k in allowed else (int(at[k]), int(at[k]))
        xs.append(p.var(0.0, lo, hi, True))
    _edits(p, space, xs, base)
    _structure(p, space, xs)
    for ks, values in forbid:
        _forbid(p, space, xs, ks, values)
    if centre is not None and radius is not None:
        ts = {}
        for k in allowed:
            t = p.var(0.0, 0, vs[k].hi - vs[k].lo, False)
            p.row({t: 1, xs[k]: -1}, -float(centre[k]), np.inf)
            p.row({t: 1, xs[k]: 1}, float(centre[k]), np.inf)
            ts[t] = float(vs[k].unit)
        p.row(ts, 0, radius)
    slacks = {}
    for row in rows:
        # every row in half-widths of its band (well scaled for HiGHS): low ≤ value ≤ high ⇔ −1 ≤ z ≤ 1
        half = max((row.high - row.low) / 2, 1e-12)
        mid = (row.high + row.low) / 2
        coefs = {xs[k]: float(row.grad[k]) / half for k in range(n) if row.grad[k] != 0}
        offset = (row.value - float(row.grad @ at) - mid) / half
        s = p.var(100.0 * row.weight, 0, np.inf, False)
        slacks[row.name] = s
        p.row({**coefs, s: 1.0}, -1.0 - offset, np.inf)
        p.row({**coefs, s: -1.0}, -np.inf, 1.0 - offset)
        # prefer the aimed value inside the band: worth at most 0.3 of an edit over all rows
        aim = (row.aim - mid) / half
        d = p.var(0.3 / len(rows), 0, np.inf, False)
        p.row({**coefs, d: 1.0}, aim - offset, np.inf)
        p.row({**coefs, d: -1.0}, -np.inf, aim - offset)
    res = p.solve(nodes, time_limit)
    if res.x is None:
        return None
    x = np.round(res.x[: len(xs)]).astype(np.int64)
    misses = {name: float(res.x[s]) for name, s in slacks.items()}
    edits = float(sum(res.x[j] for j in p.edit_vars))
    return Step(x, edits, misses, int(res.status))


def _edits(p: _Program, space: Space, xs: list[int], base: IntArray) -> None:
    """Edits from ``base`` over the whole design: stops added per strip reel (or the larger of added and removed);
    units of weight moved; pays changed.

    The tie-break costs each unit of change ``eps / n0`` (``n0`` the original count, weight or pay), less than one
    edit over the whole design.
    """
    edit_vars = p.edit_vars
    vs = space.vars
    eps = 0.5 / max(sum(v.unit * (v.hi - v.lo) / max(v.n0, 1) for v in vs), 1.0)
    by_reel: dict[tuple[str, int], list[int]] = {}
    for k, v in enumerate(vs):
        if v.kind == "count":
            by_reel.setdefault((v.reels, v.reel), []).append(k)
        else:
            span = float(max(v.hi, int(base[k])) - min(v.lo, int(base[k])))
            # a weight: each unit moved costs one edit (a stop changed at least once per unit), which keeps the
            # program tight; a pay: one edit per pay changed, whatever the amount
            unit_cost = 1.0 if v.kind == "weight" else 0.0
            up = p.var(unit_cost + eps / max(v.n0, 1), 0, span, False)
            dn = p.var(unit_cost + eps / max(v.n0, 1), 0, span, False)
            p.row({up: 1, dn: -1, xs[k]: -1}, -float(base[k]), -float(base[k]))
            if v.kind == "weight":
                edit_vars += [up, dn]
                continue
            z = p.var(1.0, 0, 1, True)
            p.row({up: 1, dn: 1, z: -span}, -np.inf, 0)
            edit_vars.append(z)
    for (name, r), ks in by_reel.items():
        length = len(space.original.reel_set(name).strips[r])
        e = p.var(1.0, 0, length, False)
        pos: dict[int, float] = {e: 1.0}
        neg: dict[int, float] = {e: 1.0}
        for k in ks:
            v = space.vars[k]
            up = p.var(eps / max(v.n0, 1), 0, np.inf, False)
            dn = p.var(eps / max(v.n0, 1), 0, np.inf, False)
            p.row({up: 1, dn: -1, xs[k]: -v.unit}, -float(v.unit * base[k]), -float(v.unit * base[k]))
            pos[up] = -1.0
            neg[dn] = -1.0
        p.row(pos, 0, np.inf)
        p.row(neg, 0, np.inf)
        edit_vars.append(e)


def _structure(p: _Program, space: Space, xs: list[int]) -> None:
    """Lengths, hierarchy, pay order and paytable shape."""
    cons = space.cons
    by_reel: dict[tuple[str, int], list[int]] = {}
    for k, v in enumerate(space.vars):
        if v.kind in ("count", "weight"):
            by_reel.setdefault((v.reels, v.reel), []).append(k)
    for (name, r), ks in by_reel.items():
        coefs = {xs[k]: float(space.vars[k].unit) for k in ks}
        rs = space.original.reel_set(name)
        if cons.keep_length or rs.weights is not None:
            p.row(coefs, 0, 0)
        else:
            w = length_change(len(rs.strips[r]), cons)
            p.row(coefs, -w, w)
    for name, rules in space.rules.items():
        if space.original.reel_set(name).weights is not None:
            continue
        for rr in rules.reels:
            var_of = {space.vars[k].symbol: k for k in by_reel.get((name, rr.reel), [])}
            where = f"{name} reel {rr.reel + 1}"
            for upper, lower in pairwise(rules.hierarchy):
                for a in upper:
                    for b in lower:
                        _order_row(p, xs, space, var_of, rr.counts, a, b, where)
            for a, b in rr.order:
                _order_row(p, xs, space, var_of, rr.counts, a, b, where)
    pays = {(v.symbol, v.count, v.scatter_pay): k for k, v in enumerate(space.vars) if v.kind == "pay"}
    if not pays:
        return
    game = space.original
    entries: dict[tuple[str, bool], list[tuple[int, int]]] = {}
    for e in game.line_pays:
        entries[(e.name, False)] = [(k, v[0]) for k, v in e.pays]
    for sp in game.scatter_pays:
        entries[(sp.symbol, True)] = list(sp.pays)

    def term(entry: str, count: int, scatter: bool) -> tuple[dict[int, float], float]:
        k = pays.get((entry, count, scatter))
        v0 = pay_values(game, PayCell("scatter" if scatter else "lines", entry, count))[0]
        return ({xs[k]: 1.0} if k is not None else {}), float(v0)

    for (entry, scatter), items in entries.items():
        for (k1, _), (k2, _) in pairwise(sorted(items)):
            c1, v1 = term(entry, k1, scatter)
            c2, v2 = term(entry, k2, scatter)
            coefs = {j: c for j, c in c2.items()}
            for j, c in c1.items():
                coefs[j] = coefs.get(j, 0.0) - c
            if coefs:
                p.row(coefs, v1 - v2, np.inf)  # pay(k2) ≥ pay(k1)
    if cons.keep_pay_order:
        by_count: dict[tuple[int, bool], list[tuple[int, str]]] = {}
        for (entry, scatter), items in entries.items():
            for count, v0 in items:
                if v0 > 0:
                    by_count.setdefault((count, scatter), []).append((v0, entry))
        for (count, scatter), vals in by_count.items():
            vals.sort()
            for (va, a), (vb, b) in pairwise(vals):
                if vb > va:
                    ca, pa = term(a, count, scatter)
                    cb, pb = term(b, count, scatter)
                    coefs = dict(cb)
                    for j, c in ca.items():
                        coefs[j] = coefs.get(j, 0.0) - c
                    if coefs:
                        p.row(coefs, pa - pb, np.inf)


def _order_row(p: _Program, xs: list[int], space: Space, var_of: dict[str, int], counts: dict[str, int],
               a: str, b: str, where: str) -> None:
    """count(a) ≤ count(b) on one reel."""
    coefs: dict[int, float] = {}
    const = float(counts.get(a, 0) - counts.get(b, 0))
    if a in var_of:
        coefs[xs[var_of[a]]] = float(space.vars[var_of[a]].unit)
    if b in var_of:
        coefs[xs[var_of[b]]] = coefs.get(xs[var_of[b]], 0.0) - float(space.vars[var_of[b]].unit)
    if not coefs:
        if const > 0:
            msg = f"hierarchy: {where} has more {a} ({counts.get(a, 0)}) than {b} ({counts.get(b, 0)}) and neither may change"
            raise ModelError(msg)
        return
    p.row(coefs, -np.inf, -const)


def _forbid(p: _Program, space: Space, xs: list[int], ks: Sequence[int], values: Sequence[int]) -> None:
    """At least one of the variables ``ks`` differs from ``values`` (by one or more)."""
    flags: dict[int, float] = {}
    for k, v in zip(ks, values, strict=True):
        var = space.vars[k]
        span = float(var.hi - var.lo) + 1
        up = p.var(0.0, 0, 1, True)
        dn = p.var(0.0, 0, 1, True)
        p.row({xs[k]: 1, up: -span}, v + 1 - span, np.inf)  # up = 1 → x ≥ v + 1
        p.row({xs[k]: 1, dn: span}, -np.inf, v - 1 + span)  # dn = 1 → x ≤ v − 1
        flags[up] = 1.0
        flags[dn] = 1.0
    p.row(flags, 1, np.inf)
