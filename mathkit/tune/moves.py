"""Making a kind of move concrete on a game: the stop, the weight unit or the pay, and its description.

A *kind* names a move without its position (``("replace", reel, s, t, 0)``);
:meth:`_Mover.realise` picks a feasible position under the :class:`_Rules`
(fewest neighbours of the same symbol, ties broken by the run's seeded
generator) and returns the changed game with a :class:`Move` in words.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import ModelError
from ..game import Game, ReelSet
from ..sensitivity import PayCell, bump_pay, pay_values, with_reel_set
from .constraints import _neighbours, _Rules, _runs_at

__all__ = ["Kind", "Move"]


@dataclass(frozen=True)
class Move:
    """One accepted change, in words (``reel 3 stop 17: L5 → H1``)."""

    kind: str
    text: str


def _set_strip(game: Game, rs: ReelSet, r: int, strip: tuple[str, ...], weights: tuple[int, ...] | None) -> Game:
    strips = list(rs.strips)
    strips[r] = strip
    ws = None
    if rs.weights is not None:
        wl = list(rs.weights)
        assert weights is not None
        wl[r] = weights
        ws = tuple(wl)
    return with_reel_set(game, dataclasses.replace(rs, strips=tuple(strips), weights=ws))


# A candidate kind of move: ("replace", r, s, t) · ("insert", r, "", t) · ("delete", r, s, "") ·
# ("pay", cell index, "", "") with a signed credit step in the last slot · ("scale", 0, "", "")
Kind = tuple[str, int, str, str, int]


@dataclass(eq=False)
class _Mover:
    """Realises kinds of moves on games of one tuning run (see :class:`mathkit.tune.search._Search`)."""

    reels: str
    rules: _Rules
    cells: tuple[PayCell, ...]
    rng: np.random.Generator
    target: Fraction
    exact: Callable[[Game], Fraction]

    def realise(self, game: Game, kind: Kind) -> tuple[Game, Move] | None:
        """The game after one move of ``kind`` at a feasible position (``None`` if there is none)."""
        name, r, s, t, d = kind
        if name == "pay":
            return self._pay(game, r, d)
        if name == "scale":
            return self._scale(game)
        rs = game.reel_set(self.reels)
        if rs.weights is not None:
            return self._weight(game, rs, kind)
        strip = rs.strips[r]
        rules = self.rules
        if s and s in rules.needed and strip.count(s) < 2:
            return None  # keep every paying symbol on the reels it was on
        if name == "replace":
            stops = [i for i, x in enumerate(strip) if x == s]
            best: tuple[tuple[int, int, float], int] | None = None
            for i in stops:
                new = (*strip[:i], t, *strip[i + 1:])
                if not rules.strip_ok(strip, new, r):
                    continue
                score = (_runs_at(strip, i), _neighbours(new, i, t), float(self.rng.random()))
                if best is None or score < best[0]:
                    best = (score, i)
            if best is None:
                return None
            i = best[1]
            new = (*strip[:i], t, *strip[i + 1:])
            return _set_strip(game, rs, r, new, None), Move("strip", f"reel {r + 1} stop {i}: {s} → {t}")
        if name == "insert":
            if len(strip) + 1 > 10_000:
                return None
            best_p: tuple[tuple[int, float], int] | None = None
            for p in range(len(strip)):
                new = (*strip[:p], t, *strip[p:])
                if rules.strip_ok(strip, new, r):
                    score_p = (_neighbours(new, p, t), float(self.rng.random()))
                    if best_p is None or score_p < best_p[0]:
                        best_p = (score_p, p)
            if best_p is None:
                return None
            p = best_p[1]
            new = (*strip[:p], t, *strip[p:])
            return _set_strip(game, rs, r, new, None), Move("strip", f"reel {r + 1}: insert {t} before stop {p}")
        # delete
        if len(strip) - 1 < rs.rows[r]:
            return None
        cands = [i for i, x in enumerate(strip) if x == s]
        self.rng.shuffle(cands)
        for i in sorted(cands, key=lambda i: -_runs_at(strip, i)):
            new = (*strip[:i], *strip[i + 1:])
            if rules.strip_ok(strip, new, r):
                return _set_strip(game, rs, r, new, None), Move("strip", f"reel {r + 1}: delete stop {i} ({s})")
        return None

    def _weight(self, game: Game, rs: ReelSet, kind: Kind) -> tuple[Game, Move] | None:
        name, r, s, t, _ = kind
        strip = rs.strips[r]
        w = list(rs.stop_weights(r))
        if s:  # take one unit from the heaviest stop of s that keeps a weight >= 1
            from_stops = [i for i, x in enumerate(strip) if x == s and w[i] > 1]
            if not from_stops:
                return None
            j = max(from_stops, key=lambda i: w[i])
            w[j] -= 1
        if t:  # give it to the lightest stop of t
            i = min((i for i, x in enumerate(strip) if x == t), key=lambda i: w[i])
            w[i] += 1
        text = {"replace": f"reel {r + 1}: one weight unit {s} → {t}", "insert": f"reel {r + 1}: {t} weight +1",
                "delete": f"reel {r + 1}: {s} weight −1"}[name]
        return _set_strip(game, rs, r, strip, tuple(w)), Move("weight", text)

    def _pay(self, game: Game, i: int, d: int) -> tuple[Game, Move] | None:
        cell = self.cells[i]
        try:
            new = bump_pay(game, cell, d)
        except ModelError:
            return None
        if not self.rules.pays_ok(new):
            return None
        return new, Move("pay", f"pay {cell.label()}: {_show(pay_values(game, cell))} → {_show(pay_values(new, cell))}")

    def _scale(self, game: Game) -> tuple[Game, Move] | None:
        rtp = self.exact(game)
        if rtp == 0:
            return None
        lam = self.target / rtp
        new = game
        for cell in self.cells:
            old = pay_values(new, cell)
            want = tuple(max(self.rules.pay_floor[cell], round(v * lam)) if v else 0 for v in old)
            delta = want[0] - old[0] if len(old) == 1 else None
            if delta is not None and delta:
                new = bump_pay(new, cell, delta)
            elif delta is None and want != old:
                new = _set_values(new, cell, want)
        if not self.rules.pays_ok(new):
            return None
        return new, Move("pay", f"all pays × {float(lam):.4f}, rounded")


def _show(values: tuple[int, ...]) -> str:
    return str(values[0]) if len(values) == 1 else str(list(values))


def _set_values(game: Game, cell: PayCell, values: tuple[int, ...]) -> Game:
    lps = tuple(
        dataclasses.replace(e, pays=tuple((k, values if k == cell.count else v) for k, v in e.pays))
        if e.name == cell.entry else e
        for e in game.line_pays
    )
    return dataclasses.replace(game, line_pays=lps)
