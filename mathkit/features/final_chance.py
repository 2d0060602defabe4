"""Final chance: re-spins that started with the fewest scatters and added none end with a random feature.

TOML (a sub-table of the re-spin feature)::

    [scatter_respins.final_chance]
    coins = { 3 = 30, 5 = 25, 10 = 20 }   # a coin win of that many × the total bet = its weight
    scatter = 40                          # weight of revealing one more scatter instead
    reels = [1, 2, 3, 4, 5]               # where the revealed scatter may land

Reading: the coin win is a multiple of the *total* bet (the bet of the round:
"3 to 100 times the bet"), added to the round's line wins; the revealed scatter
lands on one of the cells of ``reels`` that holds no scatter, each alike, and
starts the free spins at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Self

import numpy as np

from ..errors import GameError
from ..laws.law import WinLaw
from ..laws.stage import Number
from ..model.fields import array, check_keys, count_key, integer
from ..model.game import Game
from .base import check_reels

__all__ = ["FinalChance"]


@dataclass(frozen=True)
class FinalChance:
    """The final-chance law: coin wins (multiple of the total bet, weight) or, with ``scatter`` weight, one more scatter.

    Examples
    --------
    >>> fc = FinalChance(((3, 1), (100, 1)), 2, (1, 2))
    >>> fc.p_coins, fc.mean_coins(30), fc.cells({(0, 0)}, (3, 3, 3))
    (Fraction(1, 2), Fraction(1545, 1), ((0, 1), (0, 2), (1, 0), (1, 1), (1, 2)))
    """

    coins: tuple[tuple[int, int], ...]
    scatter: int
    reels: tuple[int, ...]

    @classmethod
    def from_table(cls, data: Any, where: str) -> Self:
        if not isinstance(data, Mapping):
            msg = "expected a table with coins, scatter and reels"
            raise GameError(msg, field=where, fix="write [..final_chance] with coins = { 3 = 1, ... }, scatter = 1")
        check_keys(data, ("coins", "scatter", "reels"), where)
        raw = data.get("coins", {})
        if not isinstance(raw, Mapping):
            msg = "expected a table of multiple of the total bet = weight"
            raise GameError(msg, field=f"{where}.coins", fix="write e.g. { 3 = 30, 100 = 1 }")
        coins = tuple(sorted((count_key(k, f"{where}.coins.{k}"), integer(v, f"{where}.coins.{k}", minimum=0))
                             for k, v in raw.items()))
        reels = tuple(integer(x, f"{where}.reels[{i}]", minimum=1) for i, x in enumerate(array(data.get("reels", []),
                                                                                             f"{where}.reels")))
        return cls(coins, integer(data.get("scatter", 0), f"{where}.scatter", minimum=0), reels)

    def table(self) -> dict[str, Any]:
        return {"coins": {str(k): w for k, w in self.coins}, "scatter": self.scatter, "reels": list(self.reels)}

    def validate(self, game: Game, where: str) -> None:
        if self.total <= 0:
            msg = "every outcome has weight 0"
            raise GameError(msg, field=where, fix="give the coins or the scatter a positive weight")
        if self.scatter and not self.reels:
            msg = "a revealed scatter needs reels to land on"
            raise GameError(msg, field=f"{where}.reels", fix=f"list reels from 1 to {game.n_reels}")
        check_reels(self.reels, game, where)

    @property
    def total(self) -> int:
        return sum(w for _, w in self.coins) + self.scatter

    @property
    def p_coins(self) -> Fraction:
        """P(the final chance is a coin win)."""
        return Fraction(self.total - self.scatter, self.total)

    @property
    def p_scatter(self) -> Fraction:
        """P(the final chance reveals a scatter)."""
        return Fraction(self.scatter, self.total)

    def mean_coins(self, bet: int) -> Fraction:
        """E[coin win | a coin win], in credits at a total bet of ``bet``."""
        w = self.total - self.scatter
        return Fraction(sum(k * v for k, v in self.coins) * bet, w) if w else Fraction(0)

    def m2_coins(self, bet: int) -> Fraction:
        """E[coin win² | a coin win], credits²."""
        w = self.total - self.scatter
        return Fraction(sum((k * bet) ** 2 * v for k, v in self.coins), w) if w else Fraction(0)

    def coins_law(self, bet: int) -> WinLaw:
        """The law of the coin win given a coin win (exact counts)."""
        kept = [(k * bet, v) for k, v in self.coins if v]
        values = np.array([k for k, _ in kept], dtype=np.int64)
        counts = np.array([v for _, v in kept], dtype=np.int64)
        total = int(counts.sum())
        return WinLaw(values, counts / total, 0.0, counts, total)

    def top(self, bet: int) -> int:
        """The largest coin win, credits."""
        return max((k * bet for k, v in self.coins if v), default=0)

    def cells(self, held: set[tuple[int, int]], rows: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
        """Where a revealed scatter may land: the cells of the eligible reels that hold none (reels from 0)."""
        return tuple((r - 1, k) for r in sorted(self.reels) for k in range(rows[r - 1]) if (r - 1, k) not in held)

    def describe(self, bet: int) -> str:
        coins: Number = self.mean_coins(bet)
        return (f"final chance: a coin win of {', '.join(f'{k}' for k, v in self.coins if v)} × bet "
                f"(weights {', '.join(str(v) for _, v in self.coins if v)}; average {float(coins) / bet:.4g} × bet) "
                f"with probability {self.p_coins}, else one more scatter on a free cell of reels "
                f"{', '.join(str(r) for r in self.reels)}, each alike")
