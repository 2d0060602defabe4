"""A literal player of Warlords – Crystals of Power in plain Python, used by the tests and the benchmark.

It reads the game's data (strips, paylines, pays, the blocks' fields) and plays each
round the long way, as the seed's rules read (the readings in the game file), drawing
from the two streams the simulator documents (``docs/simulator.md``) in the same play
order, so its rounds can be compared with the compiled driver's one by one:

* **base stream**: the variant — ``u < 45·100`` by weight: a plain spin (44/45) or an
  overlay spin of a type (``probability`` × type weight) — then each reel's stop of the
  variant's reel set (``integers(0, stops, uint32)``);
* **feature stream**, in play order: an overlay's cells (a square's position ``u < 6``, in
  the order reel pair then top row; or the count by its weights, then each cell the
  ``u``-th free cell, cells in order reel·3 + row); the battle (``u`` below the odds'
  common denominator, types in index order; no draw without a battle); every re-spin's
  and free spin's stops; the final chance (``u < total weight``: the scatter first, then
  the coins in order) and its cell (the ``u``-th of the free cells of its reels).

Line wins come from :func:`mathkit.spin.evaluate.evaluate` (the one line rule); everything
else — overlays, battle, held cells, the final chance, the three free-spin games, the
cap — is written out here from the rules.  This is a test oracle, not the simulator.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from math import lcm

import numpy as np

from mathkit.model.game import Game
from mathkit.spin.evaluate import evaluate
from mathkit.spin.tables import pay_tables

__all__ = ["LiteralWarlords"]

Window = list[list[str]]


def _u(gen: np.random.Generator, m: int) -> int:
    return int(gen.integers(0, m, dtype=np.uint32))


def _pick(cells: list[tuple[int, int]], u: int) -> tuple[int, int]:
    return sorted(cells, key=lambda c: c[0] * 3 + c[1])[u]


def _largest(table: dict[int, int], n: int) -> int:
    keys = [k for k in table if k <= n]
    return table[max(keys)] if keys else 0


class LiteralWarlords:
    """Plays rounds of Warlords from a base and a feature generator; :meth:`round` returns the paid win (credits)
    and adds each part to :attr:`parts` by component."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.tables = pay_tables(game)
        self.bet = self.tables.total_bet
        self.ow = game.feature("overlay_wilds")
        self.sr = game.feature("scatter_respins")
        self.cap = int(game.feature("cap").coins) * game.bet.coins[0]  # type: ignore[attr-defined]
        self.parts: Counter[str] = Counter()

    # --- spins --------------------------------------------------------------------------
    def window(self, reels: str, gen: np.random.Generator) -> Window:
        rs = self.game.reel_set(reels)
        stops = [_u(gen, len(s)) for s in rs.strips]
        return [[s[(i + k) % len(s)] for k in range(rs.rows[r])] for r, (s, i) in enumerate(zip(rs.strips, stops,
                                                                                                 strict=True))]

    def lines(self, window: Window) -> int:
        return int(evaluate(self.game, window, tables=self.tables).line_total)

    # --- the base spin --------------------------------------------------------------------
    def overlay_cells(self, t: object, free: np.random.Generator) -> list[tuple[int, int]]:
        reels = sorted(r - 1 for r in t.reels)  # type: ignore[attr-defined]
        if t.shape == "square":  # type: ignore[attr-defined]
            squares = [[(a + i, top + j) for i in range(2) for j in range(2)]
                       for a in reels[:-1] if a + 1 in reels for top in range(2)]
            return squares[_u(free, len(squares))]
        counts = dict(t.counts)  # type: ignore[attr-defined]
        keys = sorted(counts)
        u = _u(free, sum(counts.values()))
        k = next(k for i, k in enumerate(keys) if sum(counts[x] for x in keys[: i + 1]) > u)
        left = [(r, row) for r in reels for row in range(3)]
        out = []
        for _ in range(k):
            c = _pick(left, _u(free, len(left)))
            left.remove(c)
            out.append(c)
        return out

    def round(self, base: np.random.Generator, free: np.random.Generator) -> int:
        ow = self.ow
        p: Fraction = ow.probability
        total_w = sum(t.weight for t in ow.types)
        u = _u(base, p.denominator * total_w)
        plain = (p.denominator - p.numerator) * total_w
        if u >= plain:  # an overlay spin: its type by weight, its reel set, then its wilds
            u -= plain
            i = 0
            while u >= p.numerator * ow.types[i].weight:
                u -= p.numerator * ow.types[i].weight
                i += 1
            t = ow.types[i]
            window = self.window(ow.reels, base)
            for r, row in self.overlay_cells(t, free):
                window[r][row] = ow.symbol
            win = self.lines(window)
            self.parts[f"overlay wilds: {t.name}: lines"] += win
            return min(win, self.cap)
        window = self.window(self.game.default_reels or "base", base)
        win = self.lines(window)
        self.parts["lines"] += win
        scat = self.sr.scatters
        cells = [(r, row, scat.index(s)) for r, col in enumerate(window) for row, s in enumerate(col) if s in scat]
        if len(cells) >= self.sr.count and win < self.cap:
            win += self.respins(cells, free, win)
        return min(win, self.cap)

    # --- battle, re-spins, final chance ---------------------------------------------------
    def battle(self, types: list[int], free: np.random.Generator) -> int:
        n = Counter(types)
        if len(n) == 1:
            return types[0]
        if sorted(n.values()) == [1, 2]:
            pair = next(t for t, c in n.items() if c == 2)
            q = self.sr.pair_wins
            odds = {pair: q, next(t for t, c in n.items() if c == 1): 1 - q}
        else:
            odds = {t: Fraction(1, len(n)) for t in n}
        den = lcm(*(x.denominator for x in odds.values()))
        u = _u(free, den)
        for t in sorted(odds):
            if u < odds[t] * den:
                return t
            u -= int(odds[t] * den)
        raise AssertionError

    def respins(self, cells: list[tuple[int, int, int]], free: np.random.Generator, won: int) -> int:
        sr = self.sr
        t = self.battle([c[2] for c in cells], free)
        sym = sr.scatters[t]
        held = {(r, row) for r, row, _ in cells}
        while True:
            window = self.window(sr.reels, free)
            for r, row in held:
                window[r][row] = sym
            new = {(r, row) for r, col in enumerate(window) for row, s in enumerate(col) if s == sym} - held
            held |= new
            if not new:
                break
        if len(held) < sr.free_at:
            fc = sr.final_chance
            u = _u(free, fc.total)
            if u >= fc.scatter:  # a coin win × the total bet
                u -= fc.scatter
                for k, w in fc.coins:
                    if u < w:
                        self.parts["final chance coins"] += k * self.bet
                        return k * self.bet
                    u -= w
            eligible = [(r - 1, row) for r in fc.reels for row in range(3) if (r - 1, row) not in held]
            held.add(_pick(eligible, _u(free, len(eligible))))
        name = dict(sr.free_spins)[sym]
        win = getattr(self, f"play_{self.game.feature(name).kind}")(self.game.feature(name), held, free, won)
        self.parts[f"free spins: {name}"] += win
        return int(win)

    # --- the free-spin games --------------------------------------------------------------
    def play_free_spins(self, f: object, held: set[tuple[int, int]], free: np.random.Generator, won: int) -> int:
        """Barbarian: 3 spins per scatter (at least 9); each new scatter adds 3."""
        left = _largest(dict(f.awards), len(held))  # type: ignore[attr-defined]
        win = 0
        while left > 0 and won + win < self.cap:
            window = self.window(f.reels, free)  # type: ignore[attr-defined]
            win += self.lines(window)
            left += _largest(dict(f.retriggers), sum(col.count(f.trigger) for col in window)) - 1  # type: ignore[attr-defined]
        return win

    def play_multiplier_free_spins(self, f: object, held: set[tuple[int, int]], free: np.random.Generator,
                                   won: int) -> int:
        """Priestess: the multiplier starts at the scatters; each new one adds ``step`` before the spin pays."""
        mult = f.step * len(held)  # type: ignore[attr-defined]
        win = 0
        for _ in range(f.spins):  # type: ignore[attr-defined]
            if won + win >= self.cap:
                break
            window = self.window(f.reels, free)  # type: ignore[attr-defined]
            mult += f.step * sum(col.count(f.trigger) for col in window)  # type: ignore[attr-defined]
            win += self.lines(window) * mult
        return win

    def play_sticky_free_spins(self, f: object, held: set[tuple[int, int]], free: np.random.Generator,
                               won: int) -> int:
        """Samurai: the scatters' cells are sticky wilds; a landing scatter is a wild now and sticky after."""
        sticky = set(held)
        win = 0
        for _ in range(f.spins):  # type: ignore[attr-defined]
            if won + win >= self.cap:
                break
            window = self.window(f.reels, free)  # type: ignore[attr-defined]
            for r, row in sticky:
                window[r][row] = f.wild  # type: ignore[attr-defined]
            sticky |= {(r, row) for r, col in enumerate(window) for row, s in enumerate(col) if s == f.trigger}  # type: ignore[attr-defined]
            win += self.lines([[f.wild if s == f.trigger else s for s in col] for col in window])  # type: ignore[attr-defined]
        return win
