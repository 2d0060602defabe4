"""The design space of a tuning: integer variables and the games they make.

A design is an integer vector ``x``, one entry per :class:`Var`, measured from
the original game:

* ``count`` — how many more stops of one symbol a reel of an unweighted set
  has (in whole stacks for a stacked symbol); the strips are then laid out by
  :func:`~mathkit.tuner.place.place` with the fewest edits from the start strips;
* ``weight`` — how much more weight one stop of a weighted (virtual-stop) reel has;
* ``pay`` — how many more credits per coin one pay gets (a per-coin list moves
  by ``coins[i]`` at option ``i``, as :func:`mathkit.model.edits.bump_pay`).

:mod:`mathkit.tuner.differences` measures how the exact figures move per unit of
each variable.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..model.edits import PayCell, allowed_on, bump_pay, pay_cells, pay_values, play_reels, with_reel_set
from ..model.game import Game
from .constraints import Constraints, SetRules, count_bounds, set_rules
from .place import PlacementError, place

__all__ = ["FEATURES", "FloatArray", "IntArray", "Kind", "ReelLayoutError", "Space", "Var"]

Kind = Literal["count", "weight", "pay"]
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
#: per-line statistics of a reel set: line RTP, diagonal second moment (per bet²), P(a line pays), P(a scatter pays)
FEATURES = ("C", "Q", "H", "S")


@dataclass(frozen=True)
class Var:
    """One integer design variable (see the module notes); ``lo``/``hi`` bound it, ``n0`` is the original value."""

    kind: Kind
    reels: str
    reel: int
    symbol: str
    stop: int = -1
    count: int = 0
    scatter_pay: bool = False
    unit: int = 1
    n0: int = 0
    lo: int = 0
    hi: int = 0

    @property
    def cell(self) -> PayCell:
        return PayCell("scatter" if self.scatter_pay else "lines", self.symbol, self.count)

    @property
    def label(self) -> str:
        if self.kind == "pay":
            return self.cell.label()
        where = f"{self.reels} reel {self.reel + 1}"
        return f"{where} {self.symbol}" + (f" (stop {self.stop})" if self.kind == "weight" else "")


class ReelLayoutError(PlacementError):
    """The counts of one reel (``reels``, ``reel``) of a design cannot be laid out."""

    def __init__(self, msg: str, reels: str, reel: int) -> None:
        super().__init__(f"{reels} reel {reel + 1}: {msg}")
        self.reels = reels
        self.reel = reel


class Space:
    """The variables of one tuning of ``original``, starting from ``start`` (the original or an RTP variant of it).

    Parameters
    ----------
    original
        The game whose counts, weights and pays the bounds refer to.
    start
        The game edits are counted from (and strips laid out from).
    reels
        The reel sets whose strips (or weights) may change.
    vary
        ``"strips"``, ``"pays"`` or ``"both"``.
    constraints
        What must be kept.
    """

    def __init__(self, original: Game, start: Game, reels: Sequence[str], vary: str, constraints: Constraints) -> None:
        self.original = original
        self.start = start
        self.cons = constraints
        self.reels = tuple(reels)
        self.play = play_reels(original, self.reels[0] if self.reels else None)
        self.rules: dict[str, SetRules] = {}
        out: list[Var] = []
        if vary in ("strips", "both"):
            for name in self.reels:
                rs = original.reel_set(name)
                rules = set_rules(original, name, constraints)
                self.rules[name] = rules
                out += self._weight_vars(name, rules) if rs.weights is not None else self._count_vars(name, rules)
        if vary in ("pays", "both"):
            out += self._pay_vars()
        if not out:
            msg = "nothing may change: every symbol is fixed and no pay may move"
            raise ModelError(msg)
        self.vars: tuple[Var, ...] = tuple(out)
        sets = [self.play, *self.reels]
        for f in original.features:
            sets += list(f.reel_sets())
        self.tracked: tuple[str, ...] = tuple(dict.fromkeys(sets))
        self.phi_names = tuple((s, f) for s in self.tracked for f in FEATURES)
        self._placed: dict[tuple[str, int, tuple[tuple[str, int], ...]], tuple[str, ...]] = {}
        self.x_start = self.design(start)
        self.evaluations = 0

    # ------------------------------------------------------------------ variables
    def _count_vars(self, name: str, rules: SetRules) -> list[Var]:
        out = []
        for rr in rules.reels:
            for s, (lo, hi) in rr.bounds.items():
                n0 = rr.counts.get(s, 0)
                if (n0 == 0 and hi == 0) or not allowed_on(self.original, s, rr.reel):
                    continue
                k = rr.stack.get(s, 1)
                out.append(Var("count", name, rr.reel, s, unit=k, n0=n0, lo=-((n0 - lo) // k), hi=(hi - n0) // k))
        return out

    def _weight_vars(self, name: str, rules: SetRules) -> list[Var]:
        rs = self.original.reel_set(name)
        assert rs.weights is not None
        out = []
        for r, (strip, ws) in enumerate(zip(rs.strips, rs.weights, strict=True)):
            for i, (s, w) in enumerate(zip(strip, ws, strict=True)):
                if s in rules.fixed:
                    continue
                lo, hi = count_bounds(w, self.cons.count_tolerance)
                out.append(Var("weight", name, r, s, stop=i, n0=w, lo=lo - w, hi=hi - w))
        return out

    def _pay_vars(self) -> list[Var]:
        out = []
        for cell in pay_cells(self.original):
            v0 = pay_values(self.original, cell)[0]
            if v0 <= 0:
                continue
            lo, hi = count_bounds(v0, self.cons.count_tolerance)
            out.append(Var("pay", "", -1, cell.entry, count=cell.count, scatter_pay=cell.kind == "scatter", n0=v0,
                           lo=lo - v0, hi=hi - v0))
        return out

    def lower(self) -> IntArray:
        return np.array([v.lo for v in self.vars], dtype=np.int64)

    def upper(self) -> IntArray:
        return np.array([v.hi for v in self.vars], dtype=np.int64)

    # ------------------------------------------------------------------ designs and games
    def design(self, game: Game) -> IntArray:
        """The design ``x`` of ``game`` (a tuned version of the original)."""
        x = np.zeros(len(self.vars), dtype=np.int64)
        counts: dict[tuple[str, int], Counter[str]] = {}
        for k, v in enumerate(self.vars):
            if v.kind == "count":
                c = counts.setdefault((v.reels, v.reel), Counter(game.reel_set(v.reels).strips[v.reel]))
                x[k] = (c[v.symbol] - v.n0) // v.unit
            elif v.kind == "weight":
                ws = game.reel_set(v.reels).weights
                assert ws is not None
                x[k] = ws[v.reel][v.stop] - v.n0
            else:
                x[k] = pay_values(game, v.cell)[0] - v.n0
        return x

    def stop_counts(self, x: IntArray) -> dict[tuple[str, int], dict[str, int]]:
        """Target counts per (reel set, reel) of design ``x`` (count variables only)."""
        out: dict[tuple[str, int], dict[str, int]] = {}
        for v, xv in zip(self.vars, x.tolist(), strict=True):
            if v.kind == "count":
                key = (v.reels, v.reel)
                if key not in out:
                    out[key] = dict(Counter(self.start.reel_set(v.reels).strips[v.reel]))
                out[key][v.symbol] = v.n0 + v.unit * xv
        return out

    def realise(self, x: IntArray) -> Game:
        """The game of design ``x``: strips laid out from the start game's, weights and pays set.

        Raises
        ------
        ModelError
            When a reel's counts cannot be laid out under the stack, run and spacing rules.
        """
        game = self.start
        for (name, r), target in self.stop_counts(x).items():
            rs = game.reel_set(name)
            try:
                strip = self._place(name, r, target)
            except PlacementError as exc:
                raise ReelLayoutError(str(exc), name, r) from None
            if strip != rs.strips[r]:
                strips = list(rs.strips)
                strips[r] = strip
                game = with_reel_set(game, dataclasses.replace(rs, strips=tuple(strips)))
        weights: dict[str, list[list[int]]] = {}
        for v, xv in zip(self.vars, x.tolist(), strict=True):
            if v.kind == "weight":
                ws = weights.setdefault(v.reels, [list(w) for w in game.reel_set(v.reels).weights or ()])
                ws[v.reel][v.stop] = v.n0 + xv
        for name, ws in weights.items():
            game = with_reel_set(game, dataclasses.replace(game.reel_set(name), weights=tuple(map(tuple, ws))))
        for v, xv in zip(self.vars, x.tolist(), strict=True):
            if v.kind == "pay":
                now = pay_values(game, v.cell)[0]
                if now != v.n0 + xv:
                    game = bump_pay(game, v.cell, v.n0 + xv - now)
        return game

    def _place(self, name: str, r: int, target: dict[str, int]) -> tuple[str, ...]:
        key = (name, r, tuple(sorted(target.items())))
        if key not in self._placed:
            rules = self.rules[name]
            rr = rules.reels[r]
            start = self.start.reel_set(name).strips[r]
            want = {s: c for s, c in target.items() if c > 0}
            if Counter(start) == Counter(want):
                self._placed[key] = start
            else:
                self._placed[key] = place(start, want, fixed=rules.fixed, stack=rr.stack, max_run=rr.max_run,
                                          scatters=rules.scatters, spacing=rules.spacing)
        return self._placed[key]
