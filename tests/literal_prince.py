"""A literal Monte Carlo player of Prince of Riches, used only by the tests (an independent oracle).

It shares nothing with mathkit's engine, blocks, chain or simulator: it reads the
frozen game data (strips, weights, paylines, pays, the blocks' tables) and plays
every round the long way, as the seed's rules read (the readings in the game
file), vectorised over many rounds with numpy:

* a base spin draws its height from ``[variable_heights]``; the window shows rows
  ``0 … h − 1`` of each reel from a weighted stop; the first ``lines_per_row · h``
  lines are played; a line pays its best entry, left to right, WILD standing in
  for the symbols it substitutes (its own line pays the best entry it completes);
* cash: ``A`` is the sum of the activators showing; when ``A > 0`` and a PRIZE
  (of any kind) shows, each column is read bottom up: an eligible PRIZE is one more
  than the eligible PRIZE below it in its run of PRIZE cells, a jackpot PRIZE is
  worth nothing and keeps the count (``pass``) or resets it (``restart``), any other
  cell (or a row below the window) ends the run; the cash is ``A`` times the sum of
  the counts, times the total bet; every jackpot PRIZE then reveals one jackpot,
  drawn by its weight;
* 3+ SCATTER award free games at the spin's height; each free game is a spin
  at the current height, its SCATTERs may add games, and after it the window grows
  one row with the probability of its height.

This is a test oracle, not the product's simulator (:mod:`mathkit.sim` is).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from mathkit.model.game import Game

__all__ = ["LiteralPrince", "Tally"]


def _largest(table: dict[int, int], count: np.ndarray) -> np.ndarray:
    """``table[k]`` for the largest declared ``k`` not above ``count`` (0 when there is none)."""
    out = np.zeros(count.shape, dtype=np.int64)
    for k in sorted(table):
        out = np.where(count >= k, table[k], out)
    return out


@dataclass
class Tally:
    """Per-round sums and sums of squares by component (credits), and the features' own counts."""

    rounds: int = 0
    sums: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    squares: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    counts: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, name: str, per_round: np.ndarray) -> None:
        x = per_round.astype(np.float64)
        self.sums[name] += float(x.sum())
        self.squares[name] += float((x * x).sum())

    def mean_ci(self, name: str, n: int | None = None, z: float = 2.5758293035489) -> tuple[float, float, float]:
        """Mean of ``name`` over ``n`` samples (default: the rounds) and its 99% normal interval."""
        n = self.rounds if n is None else n
        mean = self.sums[name] / n
        var = max(self.squares[name] / n - mean * mean, 0.0)
        half = z * (var / n) ** 0.5
        return mean, mean - half, mean + half


class LiteralPrince:
    """Plays the rounds of a Prince-of-Riches-like game literally (see the module's rules)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        names = [s.name for s in game.symbols]
        self.index = {n: i for i, n in enumerate(names)}
        sym = {s.name: s for s in game.symbols}
        heights: Any = game.feature("variable_heights")
        cash: Any = game.feature("cash_stacks")
        jack: Any = game.feature("jackpots")
        free: Any = game.feature("free_games")
        rs = game.reel_set(free.reels)
        self.height_values = np.array([h for h, _ in heights.heights])
        w = np.array([w for _, w in heights.heights], dtype=np.float64)
        self.height_p = w / w.sum()
        self.per_row = heights.lines_per_row
        self.tall = max(rs.rows)
        self.strips = [np.array([self.index[s] for s in strip]) for strip in rs.strips]
        weights = rs.weights or tuple((1,) * len(s) for s in rs.strips)
        self.stop_p = [np.array(x, dtype=np.float64) / sum(x) for x in weights]
        self.paylines = np.array(game.paylines)
        for h in self.height_values:  # the lines a height plays stay inside its window
            assert int(self.paylines[: self.per_row * h].max()) < h
        self.bet = game.bet.total
        assert self.bet is not None
        # line pays over every 5-symbol code (code = Σ symbol_r · S^r)
        n = len(names)
        codes = np.indices((n,) * 5).reshape(5, -1).T[:, ::-1]  # column r: the symbol on reel r
        self.radix = n ** np.arange(5)
        best = np.zeros(len(codes), dtype=np.int64)
        for entry in game.line_pays:
            own = len(entry.symbols) == 1 and sym[entry.symbols[0]].kind == "wild"
            towards = np.array([x in entry.symbols or (sym[x].kind == "wild" and not own
                                                       and any(m in sym[x].substitutes for m in entry.symbols))
                                for x in names])
            assert all(sym[x].multiplier == 1 for x in names if sym[x].kind == "wild"), "no wild multipliers here"
            run = np.cumprod(towards[codes], axis=1).sum(axis=1)
            best = np.maximum(best, _largest({k: p[0] for k, p in entry.pays}, run))
        self.line_pay = best
        # cash stacks and jackpots
        self.value = np.zeros(n, dtype=np.int64)
        for a, v in cash.activators:
            assert Fraction(v).denominator == 1, "whole multiples of the bet here"
            self.value[self.index[a]] = int(v)
        self.jackpot_cell = np.array([x in cash.prizes and sym[x].mark == jack.mark for x in names])
        self.prize = np.array([x in cash.prizes for x in names])
        self.eligible = self.prize & ~self.jackpot_cell
        self.restart = cash.chain == "restart"
        self.requires = np.array([x in jack.requires for x in names])
        self.jackpot_names = [j for j, _ in jack.prizes]
        self.jackpot_pay = np.array([v for _, v in jack.prizes]) * self.bet
        rw = dict(jack.reveal)
        r = np.array([rw.get(j, 0) for j in self.jackpot_names], dtype=np.float64)
        self.reveal_p = r / r.sum()
        # free games
        self.scatter = self.index[free.trigger]
        self.awards = dict(free.awards)
        self.retriggers = dict(free.retriggers)
        grow = np.zeros(self.tall + 2)
        for h, p in free.grow:
            grow[h] = float(p)
        self.grow = grow

    def spin(self, rng: np.random.Generator, h: np.ndarray) -> dict[str, np.ndarray]:
        """Play one spin at each height of ``h``: each spin's line win, cash, jackpots and scatter count."""
        n = len(h)
        window = np.full((n, 5, self.tall), -1, dtype=np.int64)
        for r, strip in enumerate(self.strips):
            stop = rng.choice(len(strip), size=n, p=self.stop_p[r])
            for k in range(self.tall):
                window[:, r, k] = np.where(k < h, strip[(stop + k) % len(strip)], -1)
        shown = window >= 0
        cells = np.where(shown, window, 0)
        lines = np.zeros(n, dtype=np.int64)
        for j, rows in enumerate(self.paylines):
            active = j < self.per_row * h
            code = (cells[:, np.arange(5), rows] * self.radix).sum(axis=1)
            lines += np.where(active, self.line_pay[code], 0)
        a = np.where(shown, self.value[cells], 0).sum(axis=(1, 2))
        any_prize = (shown & self.prize[cells]).any(axis=(1, 2))
        s = np.zeros(n, dtype=np.int64)
        for r in range(5):
            k = np.zeros(n, dtype=np.int64)
            for row in range(self.tall - 1, -1, -1):
                seen = shown[:, r, row]
                e = seen & self.eligible[cells[:, r, row]]
                skip = seen & self.jackpot_cell[cells[:, r, row]]
                k = np.where(e, k + 1, np.where(skip & ~np.bool_(self.restart), k, 0))
                s += np.where(e, k, 0)
        plays = (a > 0) & any_prize
        cash = np.where(plays, a * s * self.bet, 0)
        marks = np.where(plays & (shown & self.requires[cells]).any(axis=(1, 2)),
                         (shown & self.jackpot_cell[cells]).sum(axis=(1, 2)), 0)
        jackpots = np.zeros((n, len(self.jackpot_names)), dtype=np.int64)
        who = np.repeat(np.arange(n), marks)
        drawn = rng.choice(len(self.jackpot_names), size=len(who), p=self.reveal_p)
        np.add.at(jackpots, (who, drawn), self.jackpot_pay[drawn])
        scatters = (shown & (cells == self.scatter)).sum(axis=(1, 2))
        return {"lines": lines, "cash": cash, "plays": plays, "jackpots": jackpots, "scatters": scatters}

    def play(self, rounds: int, rng: np.random.Generator, tally: Tally | None = None) -> Tally:
        """Play ``rounds`` whole rounds (a base spin and the free games it starts) into ``tally``."""
        t = tally or Tally()
        h = rng.choice(self.height_values, size=rounds, p=self.height_p)
        base = self.spin(rng, h)
        total = base["lines"] + base["cash"] + base["jackpots"].sum(axis=1)
        t.add("lines", base["lines"])
        t.add("cash stacks", base["cash"])
        t.add("cash stacks play", base["plays"])
        for i, name in enumerate(self.jackpot_names):
            t.add(f"jackpots: {name}", base["jackpots"][:, i])
            t.add(f"{name} won", base["jackpots"][:, i] > 0)
        for height in self.height_values:
            t.counts[f"height {height}"] += int((h == height).sum())
        award = _largest(self.awards, base["scatters"])
        t.add("trigger", award > 0)
        # the free games: every running feature plays its next game at once
        owner = np.flatnonzero(award > 0)
        left = award[owner]
        height = h[owner]
        played = np.zeros(len(owner), dtype=np.int64)
        free = {k: np.zeros(rounds, dtype=np.int64) for k in ("lines", "cash", *self.jackpot_names)}
        last = np.zeros(len(owner), dtype=np.int64)
        alive = np.arange(len(owner))
        while len(alive):
            got = self.spin(rng, height[alive])
            who = owner[alive]
            np.add.at(free["lines"], who, got["lines"])
            np.add.at(free["cash"], who, got["cash"])
            for i, name in enumerate(self.jackpot_names):
                np.add.at(free[name], who, got["jackpots"][:, i])
            played[alive] += 1
            last[alive] = height[alive]
            left[alive] += _largest(self.retriggers, got["scatters"]) - 1
            grows = rng.random(len(alive)) < self.grow[height[alive]]
            height[alive] += grows
            alive = alive[left[alive] > 0]
        t.add("free games: lines", free["lines"])
        t.add("free games: cash stacks", free["cash"])
        for name in self.jackpot_names:
            t.add(f"free games: jackpots: {name}", free[name])
        total = total + sum(free.values())
        t.add("round", total)
        t.add("round²", total.astype(np.float64) ** 2)
        t.add("hit", total > 0)
        t.counts["features"] += len(owner)
        t.add("length", played)
        for height_value in self.height_values:
            t.add(f"last at {height_value}", last == height_value)
        t.rounds += rounds
        return t
