"""Witnesses of a base spin's win: concrete stop combinations drawn from the spin's law given its win.

A Stake book (:mod:`mathkit.export.stake`) replays one concrete round with its row's payout.  For a
game whose round is its base spin, :class:`BaseWitnesses` finds them:

* **enumeration** (at most :data:`ENUMERATE_WORK` line evaluations: stop combinations × lines, or × 20
  for a ways game, whose windows are paid one by one — Sizzling Hot's 9,765,625 combinations of 5 lines
  take about 6 s of CPU): every combination is paid
  (the compiled line rule of :mod:`mathkit.spin.evaluate`, in blocks), its weight is the product of
  its stops' weights, and for each win ``k`` combinations are drawn without replacement with
  probability proportional to weight (Efraimidis–Spirakis keys ``log(u)/w``): exactly the
  conditional law of the spin given the win.  The histogram of the wins over the cycle must equal
  the exact law's counts, or the draw is refused as a bug;
* **rejection sampling** otherwise: spins drawn from the strips' weights (seeded), each kept for its
  win until every win has its ``k`` distinct witnesses or ``draws`` spins are spent; a kept spin is a
  draw from the conditional law given its win.  Wins no draw reached have no witness.

Every witness is paid again by :func:`mathkit.spin.evaluate.evaluate`, which lists its wins with
their cells; a witness whose total differs from its win is refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..laws.law import WinLaw
from ..model.game import Game
from ..spin.evaluate import WindowResult, evaluate, line_wins, ways_win
from ..spin.tables import PayTables, pay_tables

__all__ = ["ENUMERATE_WORK", "BaseWitnesses", "Witness", "unwitnessed_events"]

#: the most line evaluations (stop combinations × lines) enumerated for exact witnesses; more are sampled
ENUMERATE_WORK = 100_000_000
_BLOCK = 65_536

IntArray = npt.NDArray[np.int64]


def unwitnessed_events(payout: int, game: Game) -> list[dict[str, Any]]:
    """The events of a book that holds no concrete round (a feature round's payout, not drawn yet)."""
    why = ("no concrete round drawn for this payout: feature rounds are not drawn yet"
           if game.features else "no spin with this win was reached by the draws")
    return [{"index": 0, "type": "finalWin", "amount": payout, "witnessed": False, "reason": why}]


@dataclass(frozen=True)
class Witness:
    """One spin: the reel set, the stop of every reel (0-based), the board shown and its wins."""

    reels: str
    stops: tuple[int, ...]
    board: tuple[tuple[str, ...], ...]
    result: WindowResult
    unit: int
    cells: tuple[tuple[tuple[int, int], ...], ...]
    """Per win of ``result.lines``, the cells (reel, row) of its combination."""

    @property
    def win(self) -> int:
        """The spin's win in credits."""
        return self.result.total

    def _x100(self, credits: int) -> int | str:
        q, r = divmod(100 * credits, self.unit)
        return q if r == 0 else f"{100 * credits}/{self.unit}"

    def events(self, payout: int) -> list[dict[str, Any]]:
        """The book's events for a row paying ``payout`` (× 100): reveal, wins with cells, totals."""
        board = [[{"name": s} for s in col] for col in self.board]
        wins: list[dict[str, Any]] = []
        for w, at in zip(self.result.lines, self.cells, strict=True):
            cells = [{"reel": r, "row": k} for r, k in at]
            meta: dict[str, Any] = {"lineIndex": w.line} if w.line >= 0 else {"ways": w.ways}
            wins.append({"symbol": w.entry, "kind": w.count, "win": self._x100(w.win), "credits": w.win,
                         "positions": cells, "meta": meta})
        for s in self.result.scatters:
            cells = [{"reel": r, "row": k} for r, col in enumerate(self.board) for k, name in enumerate(col)
                     if name == s.symbol]
            wins.append({"symbol": s.symbol, "kind": s.count, "win": self._x100(s.win), "credits": s.win,
                         "positions": cells, "meta": {"scatter": True}})
        events: list[dict[str, Any]] = [
            {"index": 0, "type": "reveal", "reels": self.reels, "stops": list(self.stops), "board": board,
             "gameType": "basegame"}]
        if wins:
            events.append({"index": 1, "type": "winInfo", "totalWin": self._x100(self.win),
                           "totalCredits": self.win, "wins": wins})
        total: dict[str, Any] = {"index": len(events), "type": "setTotalWin", "amount": payout}
        if self._x100(self.win) != payout:
            total["roundedFrom"] = self._x100(self.win)
        events.append(total)
        events.append({"index": len(events), "type": "finalWin", "amount": payout})
        return events


class BaseWitnesses:
    """Witnesses of a base spin's wins (see the module); :meth:`for_game` builds it."""

    def __init__(self, game: Game, reels: str | None, tables: PayTables, law: WinLaw, want: int, seed: int,
                 draws: int, cost: int | Fraction) -> None:
        self.game = game
        self.rs = game.reel_set(reels)
        self.t = tables
        self.want = want
        self.unit = law.unit  # payouts are × 100 in base bets, whatever the mode costs
        sid = {n: i for i, n in enumerate(tables.names)}
        self.cols = [np.array([[sid[strip[(s + k) % len(strip)]] for k in range(self.rs.rows[r])]
                               for s in range(len(strip))], dtype=np.int64) for r, strip in enumerate(self.rs.strips)]
        self.wts = [np.asarray(self.rs.stop_weights(r), dtype=np.float64) for r in range(self.rs.n_reels)]
        self.found: dict[int, list[tuple[int, ...]]] = {}
        combos = math.prod(len(s) for s in self.rs.strips)
        per = 20 if tables.ways else max(1, int(tables.lines.shape[0]))
        if combos * per <= ENUMERATE_WORK:
            self._enumerate(law, seed)
            self.method = (f"exact: all {combos:,} stop combinations paid, {want} drawn per win without replacement "
                           f"in proportion to weight (seed {seed})")
        else:
            n = self._sample(law, seed, draws)
            self.method = f"rejection sampling: {n:,} spins drawn from the strips (seed {seed})"

    @classmethod
    def for_game(cls, game: Game, *, reels: str | None, lines: int | None, coins: int | None, law: WinLaw,
                 seed: int, draws: int, want: int, cost: int | Fraction = 1) -> BaseWitnesses:
        """The witnesses of ``game``'s base spin, whose exact law is ``law`` (a game without features)."""
        if game.features:
            msg = f"{game.name} has features: its rounds are more than a base spin"
            raise ModelError(msg, field="features", fix="witnesses of feature rounds are not drawn yet")
        return cls(game, reels, pay_tables(game, lines=lines, coins=coins), law, want, seed, draws, cost)

    # ------------------------------------------------------------------ paying many spins at once
    def _wins(self, stops: IntArray) -> IntArray:
        """The win (credits) of every row of ``stops`` (n × reels)."""
        t = self.t
        windows = [self.cols[r][stops[:, r]] for r in range(self.rs.n_reels)]  # each n × rows_r
        n = stops.shape[0]
        total = np.zeros(n, dtype=np.int64)
        if t.ways:
            height = max(self.rs.rows)
            rows = np.asarray(self.rs.rows, dtype=np.int64)
            pad = np.zeros((self.rs.n_reels, height), dtype=np.int64)
            for i in range(n):
                for r in range(self.rs.n_reels):
                    pad[r, : rows[r]] = windows[r][i]
                total[i] = ways_win(pad, rows, t.match, t.pay, t.mult, t.wild, t.ways_rule)
        else:
            n_lines = t.lines.shape[0]
            seqs = np.empty((n, n_lines, self.rs.n_reels), dtype=np.int64)
            for r in range(self.rs.n_reels):
                seqs[:, :, r] = t.read_on(r, windows[r][:, t.lines[:, r]])
            paid = line_wins(seqs.reshape(-1, self.rs.n_reels), t.match, t.pay, t.own, t.mult)[:, 0]
            total += paid.reshape(n, n_lines).sum(axis=1)
        for k, s in enumerate(t.scatter_ids):
            # the scatter and the wilds that count as it (Symbol.counts_as_scatter), as the evaluator counts them
            counted = [t.names.index(n) for n in self.game.scatter_counted(t.names[s]) if n in t.names]
            count = sum(np.isin(windows[r], counted).sum(axis=1) for r in range(self.rs.n_reels))
            total += t.scatter_pay[k, count] * t.scatter_credits
        return total

    def _enumerate(self, law: WinLaw, seed: int) -> None:
        rng = np.random.default_rng(seed)
        shape = tuple(len(s) for s in self.rs.strips)
        combos = math.prod(shape)
        best: dict[int, list[tuple[float, tuple[int, ...]]]] = {}
        hist: dict[int, int] = {}
        iw = [np.asarray(self.rs.stop_weights(r), dtype=np.int64) for r in range(self.rs.n_reels)]
        for start in range(0, combos, _BLOCK):
            idx = np.arange(start, min(combos, start + _BLOCK), dtype=np.int64)
            stops = np.stack(np.unravel_index(idx, shape), axis=1).astype(np.int64)
            weight = np.ones(len(idx), dtype=np.int64)
            for r in range(self.rs.n_reels):
                weight *= iw[r][stops[:, r]]
            wins = self._wins(stops)
            values, inverse = np.unique(wins, return_inverse=True)
            sums = np.zeros(len(values), dtype=np.int64)
            np.add.at(sums, inverse, weight)
            keys = np.log(rng.random(len(idx))) / weight.astype(np.float64)
            order = np.lexsort((-keys, inverse))
            firsts = np.searchsorted(inverse[order], np.arange(len(values)))
            for j, v in enumerate(values.tolist()):
                hist[v] = hist.get(v, 0) + int(sums[j])
                take = order[firsts[j]: firsts[j] + self.want]
                take = take[inverse[take] == j]
                cur = best.setdefault(v, [])
                cur += [(float(keys[i]), tuple(int(x) for x in stops[i])) for i in take]
                cur.sort(key=lambda e: -e[0])
                del cur[self.want:]
        exact = {int(v): int(c) for v, c in zip(law.values, law.counts, strict=True)} if law.counts is not None else {}
        if law.counts is not None and {v: c for v, c in hist.items() if c} != exact:
            msg = f"the paid stop combinations of {self.game.name} disagree with its exact law"
            raise RuntimeError(msg)
        self.found = {v: [s for _, s in e] for v, e in best.items()}

    def _sample(self, law: WinLaw, seed: int, draws: int) -> int:
        rng = np.random.default_rng(seed)
        needed = {int(v) for v in law.values}
        seen: dict[int, list[tuple[int, ...]]] = {}
        drawn = 0
        probs = [w / w.sum() for w in self.wts]
        while drawn < draws and any(len(seen.get(v, ())) < self.want for v in needed):
            n = min(_BLOCK, draws - drawn)
            stops = np.stack([rng.choice(len(p), size=n, p=p) for p in probs], axis=1).astype(np.int64)
            wins = self._wins(stops)
            drawn += n
            for i, v in enumerate(wins.tolist()):
                cur = seen.setdefault(v, [])
                if len(cur) < self.want:
                    s = tuple(int(x) for x in stops[i])
                    if s not in cur:
                        cur.append(s)
        self.found = seen
        return drawn

    # ------------------------------------------------------------------ the witnesses of one row
    def witness(self, stops: Sequence[int]) -> Witness:
        """The spin at ``stops``, its board and wins."""
        board = tuple(tuple(strip[(s + k) % len(strip)] for k in range(self.rs.rows[r]))
                      for r, (strip, s) in enumerate(zip(self.rs.strips, stops, strict=True)))
        t = self.t
        res = evaluate(self.game, board, tables=t)
        sid = {n: i for i, n in enumerate(t.names)}
        cells = []
        for w in res.lines:
            if w.line >= 0:  # the line's cells on the reels of the paid combination
                cells.append(tuple((r, int(t.lines[w.line, r])) for r in range(w.count)))
            else:  # ways: every cell of those reels that counts towards the entry
                e = t.entries.index(w.entry)
                cells.append(tuple((r, k) for r in range(w.count) for k, name in enumerate(board[r])
                                   if t.match[e, int(t.read_on(r, np.array([sid[name]]))[0])]))
        return Witness(self.rs.name, tuple(int(s) for s in stops), board, res, self.unit, tuple(cells))

    def witnesses(self, payout: int, sources: Sequence[int]) -> list[Witness]:
        """Up to ``want`` distinct witnesses of a row paying ``payout``, whose probability comes from the wins ``sources``."""
        out: list[Witness] = []
        for v in sources:
            for stops in self.found.get(v, ()):
                if len(out) >= self.want:
                    return out
                w = self.witness(stops)
                if w.win != v:
                    msg = f"the spin at stops {stops} of {self.game.name} pays {w.win}, not {v}"
                    raise RuntimeError(msg)
                out.append(w)
        return out
