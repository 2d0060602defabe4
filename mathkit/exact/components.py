"""Exact RTP by component, from per-reel symbol counts: no enumeration of the cycle.

Reels stop independently, so the symbols one line shows are independent
across reels, each distributed as the symbol counts at that line's row.  A
depth-first walk over the reels that stops as soon as no pay entry can still
grow gives every line's exact hits and credits per (entry, count).  Lines
whose cells show the same symbol counts on every reel share one walk: on
unweighted circular strips every row has the same counts, so one walk serves
every line; a forced (overlay, held) cell or a restriction splits them.  Ways,
scatters and extra wins factor over reels the same way.  The reels come as stop
tables (:mod:`mathkit.spin.stops`), so heights, overlays, remaps and restrictions
need nothing here.  All sums are Python integers over the whole cycle.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..laws.stage import SpinModel
from ..model.game import Game
from ..spin.stops import StopTables, stop_tables
from ..spin.tables import PayTables, pay_tables
from .cycle.kernels import K

__all__ = ["ComponentRTP", "EntryHits", "component_rtp", "digit_weights", "forced_line_credits", "line_outcomes", "row_counts",
           "spin_rtp"]


@dataclass(frozen=True)
class EntryHits:
    """Hits of one pay combination over the cycle.

    ``hits`` counts (outcome, line) pairs — for ways games, outcomes — in
    which the combination is paid; ``credits`` is what they pay in total.
    """

    component: str
    entry: str
    count: int
    hits: int
    credits: int


@dataclass(frozen=True)
class ComponentRTP:
    """Exact RTP of one reel set, split by pay combination.

    Attributes
    ----------
    cycle
        Number of equally likely outcomes (product of reel weights).
    total_bet
        Credits staked per spin.
    entries
        Per (component, entry, count): hits and credits over the cycle.
    """

    cycle: int
    total_bet: int
    entries: tuple[EntryHits, ...]

    def credits(self, component: str | None = None) -> int:
        return sum(e.credits for e in self.entries if component is None or e.component == component)

    def rtp(self, component: str | None = None) -> Fraction:
        """Exact RTP, of one component (``"lines"``, ``"ways"``, ``"scatter"``) or in total."""
        return Fraction(self.credits(component), self.cycle * self.total_bet)

    @property
    def components(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(e.component for e in self.entries))

    def breakdown(self) -> dict[str, Fraction]:
        """RTP per component."""
        return {c: self.rtp(c) for c in self.components}


def row_counts(st: StopTables, n_symbols: int, reel: int, row: int) -> list[int]:
    """Weight of each symbol id showing at ``row`` of ``reel``'s window (as the line rule reads it)."""
    if st.rotations:
        return [int(x) for x in np.bincount(st.cols[reel][:, row], minlength=n_symbols).tolist()]
    out = np.zeros(n_symbols, dtype=np.int64)
    np.add.at(out, st.cols[reel][:, row], st.weights[reel])
    return [int(x) for x in out.tolist()]


def line_outcomes(t: PayTables, counts: list[list[int]]) -> dict[tuple[int, int, int], int]:
    """Exact outcome counts of one line: ``(credits, entry, run) -> weight``.

    ``counts[r][s]`` is the weight of symbol ``s`` on the line's position of reel
    ``r``.  Entry -1 is "no win".  A depth-first walk over the reels groups the
    symbols that behave alike for the pay entries still running (the same entries
    continue, the same multiplier) and stops as soon as none runs; each leaf is
    paid by the one line rule, :func:`mathkit.spin.evaluate.line_win`, on a
    representative sequence (any sequence of the leaf pays the same).  Weights of
    the unvisited reels are multiplied in.
    """
    n_reels = len(counts)
    n_entries = len(t.entries)
    totals = [sum(c) for c in counts]
    tail = [1] * (n_reels + 1)
    for r in range(n_reels - 1, -1, -1):
        tail[r] = tail[r + 1] * totals[r]
    masks = [sum(1 << e for e, m in enumerate(col) if m) for col in t.match.T.tolist()]
    mult = t.mult.tolist()
    present = [[(masks[s], mult[s], s, w) for s, w in enumerate(c) if w] for c in counts]
    leaves: list[tuple[int, ...]] = []
    weights: list[int] = []
    path = [0] * n_reels

    def walk(depth: int, alive: int, weight: int) -> None:
        if depth == n_reels or alive == 0:
            # the runs have all ended (or reached the last reel): what follows pays nothing more
            leaves.append((*path[:depth], *([0] * (n_reels - depth))))
            weights.append(weight * tail[depth])
            return
        groups: dict[tuple[int, int], list[int]] = {}
        for mask, ms, s, w in present[depth]:
            cell = groups.setdefault((alive & mask, ms), [0, s])
            cell[0] += w
        last = depth + 1 == n_reels
        for (new_alive, _), (w, s) in groups.items():
            path[depth] = s
            if last or new_alive == 0:  # a leaf: appended here (half the calls were leaves)
                leaves.append((*path[: depth + 1], *([0] * (n_reels - depth - 1))))
                weights.append(weight * w * tail[depth + 1])
            else:
                walk(depth + 1, new_alive, weight * w)

    walk(0, (1 << n_entries) - 1, 1)
    paid = K.line_wins(np.array(leaves, dtype=np.int64).reshape(len(leaves), n_reels), t.match, t.pay, t.own, t.mult)
    out: dict[tuple[int, int, int], int] = defaultdict(int)
    for (v, e, n), w in zip(paid.tolist(), weights, strict=True):
        out[(v, e, n)] += w
    return dict(out)


def _lines(t: PayTables, st: StopTables) -> list[EntryHits]:
    n_reels = st.n_reels
    # the symbol counts each (reel, row) shows; lines that see the same counts on every reel share one
    # walk (all lines of unweighted circular strips with no forced cell)
    counts: list[list[list[int]]] = []
    klass: list[list[int]] = []
    if st.rotations:  # every row of a reel shows its strip's counts: one walk serves every line
        counts = [[row_counts(st, t.n_ids, r, 0)] for r in range(n_reels)]
        klass = [[0] * int(st.cols[r].shape[1]) for r in range(n_reels)]
    for r in range(n_reels if not st.rotations else 0):
        seen: dict[tuple[int, ...], int] = {}
        rows: list[list[int]] = []
        per_row = []
        for row in range(int(st.cols[r].shape[1])):
            c = row_counts(st, t.n_ids, r, row)
            per_row.append(seen.setdefault(tuple(c), len(seen)))
            if per_row[-1] == len(rows):
                rows.append(c)
        counts.append(rows)
        klass.append(per_row)
    multiplicity: dict[tuple[int, ...], int] = defaultdict(int)
    if st.rotations:  # one class
        multiplicity[(0,) * n_reels] = int(t.lines.shape[0])
    else:
        for line in t.lines.tolist():
            multiplicity[tuple(klass[r][line[r]] for r in range(n_reels))] += 1
    key = t.key.tolist()
    acc: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    for cls, n_lines in multiplicity.items():
        for (v, e, n), w in line_outcomes(t, [counts[r][cls[r]] for r in range(n_reels)]).items():
            if e >= 0 and v > 0:
                cell = acc[(e, key[e][n])]
                cell[0] += w * n_lines
                cell[1] += v * w * n_lines
    return [EntryHits("lines", t.entries[e], k, h, c) for (e, k), (h, c) in sorted(acc.items())]


def forced_line_credits(t: PayTables, st: StopTables, symbol: int) -> tuple[tuple[int, ...], ...]:
    """Per line, per set of reels ``F`` (a bitmask): the line's credits over the cycle with its cells on ``F`` showing ``symbol``.

    A reel's cell in one row shows what the stop puts there whatever is forced in its other rows,
    so the line's symbols stay independent across reels: the walk of :func:`line_outcomes` with
    the forced reels' counts replaced by all of their weight on ``symbol`` (as the line rule reads
    it).  Lines whose cells see the same counts share each walk (on unweighted circular strips
    with nothing forced, all of them: ``2ⁿ`` walks for ``n`` reels).
    """
    n_reels = st.n_reels
    totals = [int(w.sum()) for w in st.weights]
    at = [int(t.read_on(r, np.array(symbol))) for r in range(n_reels)]  # the line id the symbol reads as on each reel
    point = [[totals[r] if s == at[r] else 0 for s in range(t.n_ids)] for r in range(n_reels)]
    rows: dict[tuple[int, int], tuple[int, ...]] = {}

    def counts_at(r: int, row: int) -> tuple[int, ...]:
        key = (r, 0 if st.rotations else row)
        if key not in rows:
            rows[key] = tuple(row_counts(st, t.n_ids, r, key[1]))
        return rows[key]

    walks: dict[tuple[tuple[int, ...], ...], int] = {}
    out = []
    for li in range(t.lines.shape[0]):
        per_f = []
        for f in range(1 << n_reels):
            counts = tuple(tuple(point[r]) if f >> r & 1 else counts_at(r, int(t.lines[li, r])) for r in range(n_reels))
            if counts not in walks:
                paid = line_outcomes(t, [list(c) for c in counts])
                walks[counts] = sum(v * w for (v, _, _), w in paid.items() if v > 0)
            per_f.append(walks[counts])
        out.append(tuple(per_f))
    return tuple(out)


def _ways_ruled(t: PayTables, st: StopTables) -> list[EntryHits]:
    """Ways hits and credits under the ways rules (``t.ways_rule``), from per-reel sums over the wild cells shown.

    For an entry and a run of ``n`` reels the spin pays ``pay × (Π c_r − [void] Π w_r)`` (``c_r`` the matching
    positions of reel ``r``, ``w_r`` the wild ones), unless ``at`` or more wild cells show.  The reels are
    taken one by one with the wild cells seen so far as the state (from ``at`` on, dropped): the weight,
    ``Σ Π c``, ``Σ Π w`` and the weight of the runs made only of wilds (``c_r = w_r`` on every reel: they pay
    nothing when void).
    """
    out = []
    n_reels = st.n_reels
    void, at = bool(t.ways_rule[0]), int(t.ways_rule[1])
    states = at if at > 0 else 1
    cells = [np.asarray(t.wild[c].sum(axis=1), dtype=np.int64) if at > 0 else np.zeros(len(c), dtype=np.int64)
             for c in st.cols]

    def step(acc: list[list[int]], rows: dict[int, list[int]]) -> list[list[int]]:
        """``acc[s]`` (sums by wild cells seen) through one reel whose stops add ``rows[d]`` sums with ``d`` cells."""
        new = [[0, 0, 0, 0] for _ in range(states)]
        for s0, a in enumerate(acc):
            for d, v in rows.items():
                s1 = s0 + d
                if s1 >= states:
                    continue
                for q in range(4):
                    new[s1][q] += a[q] * v[q]
        return new

    for e in range(len(t.entries)):
        contrib = np.where(t.match[e], t.mult, 0)
        wild = np.where(t.wild, contrib, 0)
        on, off, anyr = [], [], []  # per reel: {cells: [weight, Σ w·c, Σ w·wild, weight of only-wild]} by kind of stop
        for r in range(n_reels):
            c = contrib[st.cols[r]].sum(axis=1).tolist()
            w = wild[st.cols[r]].sum(axis=1).tolist()
            a: dict[int, list[int]] = {}
            z: dict[int, list[int]] = {}
            x: dict[int, list[int]] = {}
            for ci, wi, d, wt in zip(c, w, cells[r].tolist(), st.weights[r].tolist(), strict=True):
                row = a.setdefault(d, [0, 0, 0, 0]) if ci > 0 else z.setdefault(d, [0, 0, 0, 0])
                row[0] += wt
                row[1] += wt * ci
                row[2] += wt * wi
                row[3] += wt * (ci == wi)
                cell = x.setdefault(d, [0, 0, 0, 0])
                for q in range(4):
                    cell[q] += wt
            on.append(a)
            off.append({d: [v[0]] * 4 for d, v in z.items()})
            anyr.append(x)
        for n in range(1, n_reels + 1):
            pay = int(t.pay[e, n])
            if pay == 0:
                continue
            acc = [[1, 1, 1, 1]] + [[0, 0, 0, 0] for _ in range(states - 1)]
            for r in range(n):
                acc = step(acc, on[r])
            rest = ([off[n]] if n < n_reels else []) + anyr[n + 1:]
            for rows in rest:
                acc = step(acc, rows)
            hits = sum(a[0] - (a[3] if void else 0) for a in acc)
            credits = pay * sum(a[1] - (a[2] if void else 0) for a in acc)
            if hits:
                out.append(EntryHits("ways", t.entries[e], int(t.key[e, n]), hits, credits))
    return _merge_rows(out)


def _ways(t: PayTables, st: StopTables) -> list[EntryHits]:
    if t.ways_rule.any():
        return _ways_ruled(t, st)
    out = []
    n_reels = st.n_reels
    totals = [int(w.sum()) for w in st.weights]
    for e in range(len(t.entries)):
        contrib = np.where(t.match[e], t.mult, 0)
        s_r, nz_r, z_r = [], [], []
        for r in range(n_reels):
            c = contrib[st.cols[r]].sum(axis=1)
            w = st.weights[r]
            s_r.append(int((c * w).sum()))
            nz_r.append(int(w[c > 0].sum()))
            z_r.append(int(w[c == 0].sum()))
        for n in range(1, n_reels + 1):
            pay = int(t.pay[e, n])
            if pay == 0:
                continue
            ways_sum = 1
            hits = 1
            for r in range(n):
                ways_sum *= s_r[r]
                hits *= nz_r[r]
            rest = 1
            if n < n_reels:
                rest = z_r[n]
                for r in range(n + 1, n_reels):
                    rest *= totals[r]
            if hits * rest:
                out.append(EntryHits("ways", t.entries[e], int(t.key[e, n]), hits * rest, pay * ways_sum * rest))
    return _merge_rows(out)


def _merge_rows(rows: list[EntryHits]) -> list[EntryHits]:
    """One row per (component, entry, paytable count): runs paid as the same count add up."""
    acc: dict[tuple[str, str, int], list[int]] = {}
    for r in rows:
        cell = acc.setdefault((r.component, r.entry, r.count), [0, 0])
        cell[0] += r.hits
        cell[1] += r.credits
    return [EntryHits(c, e, k, h, cr) for (c, e, k), (h, cr) in acc.items()]


def digit_weights(st: StopTables, digit: str) -> list[int]:
    """Weight of each total of observation ``digit`` over the window (convolution over reels)."""
    d = st.index(digit)
    dist = [1]
    for r in range(st.n_reels):
        values = st.obs[r][:, d]
        reel = [0] * (int(values.max(initial=0)) + 1)
        for v, w in zip(values.tolist(), st.weights[r].tolist(), strict=True):
            reel[v] += w
        out = [0] * (len(dist) + len(reel) - 1)
        for i, a in enumerate(dist):
            if a:
                for j, b in enumerate(reel):
                    out[i + j] += a * b
        dist = out
    return dist


def _scatters(t: PayTables, st: StopTables) -> list[EntryHits]:
    out = []
    for k, s in enumerate(t.scatter_ids):
        for cnt, w in enumerate(digit_weights(st, t.names[s])):
            pay = int(t.scatter_pay[k, min(cnt, t.scatter_pay.shape[1] - 1)])
            if pay and w:
                key = int(t.scatter_key[k, min(cnt, t.scatter_key.shape[1] - 1)])
                out.append(EntryHits("scatter", t.names[s], key, w, pay * t.scatter_credits * w))
    return _merge_rows(out)


def _extras(st: StopTables) -> list[EntryHits]:
    """Per extra-win part: the outcomes where it pays and its credits, from per-reel sums."""
    out = []
    totals = [int(w.sum()) for w in st.weights]
    cycle = st.cycle
    for component, digit, unit in st.extra_parts:
        d = st.index(digit)
        credits = 0
        none = 1
        for r in range(st.n_reels):
            v = st.obs[r][:, d]
            w = st.weights[r]
            rest = cycle // totals[r]
            credits += sum(int(a) * int(b) for a, b in zip(v.tolist(), w.tolist(), strict=True)) * unit * rest
            none *= int(w[v == 0].sum())
        if credits:
            out.append(EntryHits(component, digit, 0, cycle - none, credits))
    return out


def _products(st: StopTables) -> list[EntryHits]:
    """Per product part ``credits × A × B``: the outcomes where it pays and its credits, from per-reel sums.

    ``E[A·B] = Σ_r E[a_r b_r] + Σ_{r≠s} E[a_r] E[b_s]`` (reels stop independently); it pays where
    both totals are positive: ``cycle − #(A = 0) − #(B = 0) + #(A = 0, B = 0)``.
    """
    out = []
    totals = [int(w.sum()) for w in st.weights]
    cycle = st.cycle
    for component, da, db, unit in st.product_parts:
        ia, ib = st.index(da), st.index(db)
        sa, sb, sab = [], [], []
        za = zb = zab = 1
        for r in range(st.n_reels):
            a, b, w = (x.tolist() for x in (st.obs[r][:, ia], st.obs[r][:, ib], st.weights[r]))
            sa.append(sum(x * y for x, y in zip(a, w, strict=True)))
            sb.append(sum(x * y for x, y in zip(b, w, strict=True)))
            sab.append(sum(x * y * z for x, y, z in zip(a, b, w, strict=True)))
            za *= sum(y for x, y in zip(a, w, strict=True) if x == 0)
            zb *= sum(y for x, y in zip(b, w, strict=True) if x == 0)
            zab *= sum(z for x, y, z in zip(a, b, w, strict=True) if x == 0 and y == 0)
        credits = 0
        for r in range(st.n_reels):
            credits += sab[r] * (cycle // totals[r])
            for s in range(st.n_reels):
                if s != r:
                    credits += sa[r] * sb[s] * (cycle // (totals[r] * totals[s]))
        if credits:
            out.append(EntryHits(component, f"{da} × {db}", 0, cycle - za - zb + zab, credits * unit))
    return out


def spin_rtp(t: PayTables, st: StopTables) -> ComponentRTP:
    """Exact RTP of one spin's stop tables by component and pay combination (no enumeration)."""
    entries = _ways(t, st) if t.ways else _lines(t, st)
    entries += _scatters(t, st)
    entries += _extras(st)
    entries += _products(st)
    return ComponentRTP(st.cycle, t.total_bet, tuple(entries))


def component_rtp(game: Game, reels: str | None = None, *, lines: int | None = None,
                  coins: int | None = None) -> ComponentRTP:
    """Exact RTP of one reel set by component and pay combination.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> res = component_rtp(load_game("data/games/classic_3reel.toml"))
    >>> res.rtp() == sum(res.breakdown().values())
    True
    """
    t = pay_tables(game, lines=lines, coins=coins)
    return spin_rtp(t, stop_tables(game, SpinModel(game.reel_set(reels).name)))
