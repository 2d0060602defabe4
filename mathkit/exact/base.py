"""Exact maths of one base spin: the entry point over :mod:`rtp` and :mod:`cycle`.

:func:`rtp` is the fast path (per-reel algebra, no enumeration) that the
workbench shows first; :func:`spin` adds the full-cycle distribution, from
which variance, hit frequencies, tails and the joint law of (win, scatters)
that feature models need all follow exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np
import numpy.typing as npt

from ..errors import LimitError
from ..laws.law import WinLaw
from ..laws.stage import SpinModel
from ..model.game import Game
from ..spin.stops import stop_tables
from ..spin.tables import PayTables, pay_tables
from .components import ComponentRTP, component_rtp, spin_rtp
from .cycle import JointCounts, joint_counts

__all__ = ["SpinMaths", "rtp", "spin"]

IntArray = npt.NDArray[np.int64]


def rtp(game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None) -> Fraction:
    """Exact base-game RTP of one reel set (lines/ways plus scatters), without enumeration.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> r = rtp(load_game("data/games/benchmark_5x3.toml"))
    >>> isinstance(r, Fraction) and 0 < r < 2
    True
    """
    return component_rtp(game, reels, lines=lines, coins=coins).rtp()


@dataclass(frozen=True, eq=False)
class SpinMaths:
    """Exact figures of one base spin on one reel set.

    Attributes
    ----------
    game, reels, lines, coins
        What was analysed.
    tables
        The compiled pay rules.
    components
        Exact RTP per pay combination (algebraic).
    joint
        Exact counts of (line win, scatter counts) over the cycle (enumerated); ``None`` when a resource
        limit refused the enumeration (:meth:`mathkit.round.Engine.spin_paytable`: the paytable and the
        RTP by combination need none), and then every figure that needs it raises the refusal's
        :class:`~mathkit.errors.LimitError`.
    """

    game: Game
    reels: str
    lines: int
    coins: int
    tables: PayTables
    components: ComponentRTP
    joint: JointCounts | None
    refused: LimitError | None = None
    """Why ``joint`` is ``None``: the enumeration's refusal."""

    @property
    def total_bet(self) -> int:
        return self.tables.total_bet

    @property
    def cycle(self) -> int:
        return self.components.cycle

    @property
    def counts(self) -> JointCounts:
        """:attr:`joint`, or the refusal that left it out."""
        if self.joint is None:
            raise self.refused or LimitError("the full-cycle enumeration was refused")
        return self.joint

    def scatter_count(self, symbol: str) -> IntArray:
        """Count of scatter ``symbol`` in each cell of the joint table."""
        return self.counts.digit(symbol)

    @cached_property
    def scatter_win(self) -> IntArray:
        """Scatter credits in each cell of the joint table."""
        out = np.zeros(len(self.counts.codes), dtype=np.int64)
        for k, s in enumerate(self.tables.scatter_ids):
            counts = self.scatter_count(self.tables.names[s])
            out += self.tables.scatter_pay[k, counts] * self.tables.scatter_credits
        return out

    def distribution(self, *, line_multiplier: int = 1, scatter_multiplier: int = 1) -> WinLaw:
        """Exact distribution of the spin's total win (line wins and scatter wins may be multiplied)."""
        values = self.counts.wins * line_multiplier + self.scatter_win * scatter_multiplier
        return WinLaw.from_counts(values, self.counts.counts, unit=self.total_bet)

    @cached_property
    def win_distribution(self) -> WinLaw:
        """Exact distribution of the base spin's total win."""
        return self.distribution()

    def rtp(self) -> Fraction:
        return self.components.rtp()


def spin(game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None,
         parallel: bool = False) -> SpinMaths:
    """Exact maths of one spin on reel set ``reels`` (default: the game's default set).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> g = load_game("data/games/classic_3reel.toml")
    >>> s = spin(g)
    >>> s.win_distribution.rtp() == s.rtp()
    True
    """
    name = game.reel_set(reels).name
    n_lines = game.bet.lines if lines is None else lines
    n_coins = game.bet.coins[0] if coins is None else coins
    t = pay_tables(game, lines=n_lines, coins=n_coins)
    st = stop_tables(game, SpinModel(name))
    return SpinMaths(game, name, n_lines, n_coins, t, spin_rtp(t, st), joint_counts(t, st, parallel=parallel))
