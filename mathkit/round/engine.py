"""The exact engine as feature blocks see it: :class:`Engine`, the :class:`~mathkit.features.Context` of one analysis.

One engine serves one analysis of one game at one bet (reel set, lines, coins).
It answers the blocks' questions about spins — the exact joint law of a spin's
win and observations (full-cycle enumeration, :mod:`mathkit.exact`), exact mean
wins by component and exact laws of observation digits (per-reel algebra,
:mod:`mathkit.rtp`, no enumeration) — and caches every answer, so a spin model
asked for by several blocks is computed once.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from fractions import Fraction
from typing import TypeVar

import numpy as np

from ..bounds import spin_tops
from ..errors import ModelError, located
from ..exact import SpinMaths, spin
from ..game import Game
from ..rtp import component_rtp
from ..stage import JointLaw, SpinModel
from ..tables import pay_tables, reel_arrays

__all__ = ["Engine"]

T = TypeVar("T")


class Engine:
    """The exact engine for one game at one bet; implements :class:`mathkit.features.Context`.

    Parameters
    ----------
    game
        The game.
    reels
        The base reel set (default: the game's).
    lines, coins
        The bet analysed (default: the game's default bet).
    parallel
        Use the parallel enumeration kernel.

    Examples
    --------
    >>> from mathkit.io import load_game
    >>> eng = Engine(load_game("data/games/dynasty.toml"))
    >>> weights, cycle = eng.digit_law(eng.base_model(), ("EMPEROR",))
    >>> sum(weights.values()) == cycle == eng.game.reel_set().cycle
    True
    """

    def __init__(self, game: Game, reels: str | None = None, *, lines: int | None = None, coins: int | None = None,
                 parallel: bool = False) -> None:
        self._game = game
        self.reels = game.reel_set(reels).name
        self._lines = game.bet.lines if lines is None else lines
        self._coins = game.bet.coins[0] if coins is None else coins
        self.parallel = parallel
        self._total_bet = pay_tables(game, lines=self._lines, coins=self._coins).total_bet
        self._memo: dict[Hashable, object] = {}

    @property
    def game(self) -> Game:
        return self._game

    @property
    def total_bet(self) -> int:
        return self._total_bet

    @property
    def lines(self) -> int:
        return self._lines

    @property
    def coins(self) -> int:
        return self._coins

    def once(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()`` the first time ``key`` is asked for, the cached value after."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]  # type: ignore[return-value]

    def base_model(self) -> SpinModel:
        return SpinModel(self.reels)

    def _check(self, model: SpinModel) -> None:
        if model.rows is not None or model.forced or model.remap:
            msg = f"spin model {model}: rows, forced cells and remaps are not supported by this engine"
            raise ModelError(msg)

    def spin_maths(self, model: SpinModel) -> SpinMaths:
        """The full-cycle maths of the model's spin (before its multipliers)."""
        self._check(model)
        lines = self._lines if model.lines is None else model.lines
        def compute() -> SpinMaths:
            with located(field=f"reels.{model.reels}"):
                return spin(self._game, model.reels, lines=lines, coins=self._coins, parallel=self.parallel)

        return self.once(("spin", model.reels, lines), compute)

    def joint(self, model: SpinModel, digits: tuple[str, ...] = ()) -> JointLaw:
        def compute() -> JointLaw:
            sm = self.spin_maths(model)
            wins = sm.joint.wins * model.line_multiplier + sm.scatter_win * model.scatter_multiplier
            digits = {s.name: sm.scatter_count(s.name) for s in self._game.scatters}
            return JointLaw(wins, digits, sm.joint.counts, sm.cycle, self._total_bet)

        if any(d not in self._game.symbol_names for d in digits):
            msg = f"observation digits {digits} are not supported by this engine yet (counts of scatters only)"
            raise ModelError(msg)
        return self.once(("joint", model), compute)

    def means(self, model: SpinModel) -> Mapping[str, Fraction]:
        def compute() -> dict[str, Fraction]:
            self._check(model)
            lines = self._lines if model.lines is None else model.lines
            comp = component_rtp(self._game, model.reels, lines=lines, coins=self._coins)
            out: dict[str, Fraction] = {}
            for c in comp.components:
                factor = model.scatter_multiplier if c == "scatter" else model.line_multiplier
                out[c] = Fraction(comp.credits(c) * factor, comp.cycle)
            return out

        return self.once(("means", model), compute)

    def win_bound(self, model: SpinModel) -> int:
        """An upper bound of one spin's win in credits: every line (or way) at its best, every scatter paid."""
        def compute() -> int:
            lines = self._lines if model.lines is None else model.lines
            line_top, scatter_top = spin_tops(self._game, model.reels, lines=lines, coins=self._coins, rows=model.rows)
            return line_top * model.line_multiplier + scatter_top * model.scatter_multiplier

        return self.once(("bound", model), compute)

    def digit_law(self, model: SpinModel, names: tuple[str, ...]) -> tuple[dict[tuple[int, ...], int], int]:
        """Exact weights of the joint counts of the symbols ``names`` in the window (convolution over reels)."""
        def compute() -> tuple[dict[tuple[int, ...], int], int]:
            self._check(model)
            ra = reel_arrays(self._game, model.reels)
            ids = [self._game.symbol_names.index(n) for n in names]
            law: dict[tuple[int, ...], int] = {(0,) * len(ids): 1}
            cycle = 1
            for r in range(ra.n_reels):
                cols = ra.columns(r)
                per = np.stack([(cols == s).sum(axis=1) for s in ids], axis=1) if ids else np.zeros((len(cols), 0), int)
                reel: dict[tuple[int, ...], int] = {}
                for row, w in zip(per.tolist(), ra.weights[r].tolist(), strict=True):
                    reel[tuple(row)] = reel.get(tuple(row), 0) + w
                cycle *= int(ra.weights[r].sum())
                nxt: dict[tuple[int, ...], int] = {}
                for a, wa in law.items():
                    for b, wb in reel.items():
                        key = tuple(x + y for x, y in zip(a, b, strict=True))
                        nxt[key] = nxt.get(key, 0) + wa * wb
                law = nxt
            return law, cycle

        return self.once(("digits", model, names), compute)
