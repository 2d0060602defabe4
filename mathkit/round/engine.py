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
from dataclasses import replace
from fractions import Fraction
from typing import TypeVar

import numpy as np

from ..bounds import spin_tops
from ..cycle import JointCounts, joint_counts
from ..errors import ModelError, located
from ..exact import SpinMaths
from ..features.base import Block
from ..game import Game
from ..rtp import spin_rtp
from ..stage import JointLaw, SpinModel
from ..stops import StopTables, stop_tables
from ..tables import PayTables, pay_tables

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
        self._digits = {d.name: d for f in game.features if isinstance(f, Block) for d in f.digits(game)}

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

    # --- stop tables and pay tables of a spin model ------------------------------------------
    def _lines_of(self, model: SpinModel) -> int:
        return self._lines if model.lines is None else model.lines

    def tables(self, model: SpinModel) -> PayTables:
        """The pay rules of ``model``'s spin: its lines, at the bet analysed (multipliers not applied)."""
        lines = self._lines_of(model)
        if self._game.pay_mode != "lines" or lines <= len(self._game.paylines):
            return pay_tables(self._game, lines=lines, coins=self._coins)
        msg = f"spin {model}: {lines} lines active, the game has {len(self._game.paylines)} paylines"
        raise ModelError(msg)

    def stops(self, model: SpinModel, digits: tuple[str, ...] = ()) -> StopTables:
        """The stop tables of ``model``'s spin observing ``digits`` (and every scatter's count)."""
        key = (model.reels, model.rows, model.forced, model.remap, model.restrict, model.extra)
        return self.once(("stops", key, digits), lambda: stop_tables(self._game, model, digits, self._digits))

    def spin_maths(self, model: SpinModel) -> SpinMaths:
        """The full-cycle maths of a plain spin of the model's reel set and lines (before its multipliers)."""
        if model.rows is not None or model.forced or model.remap or model.restrict or model.extra:
            msg = f"spin {model}: spin_maths is for plain spins; use joint() for modified ones"
            raise ModelError(msg)
        lines = self._lines_of(model)
        plain = SpinModel(model.reels, lines=lines)

        def compute() -> SpinMaths:
            t = self.tables(plain)
            st = self.stops(plain)
            jc = self._enumerate(plain, ())
            return SpinMaths(self._game, model.reels, lines, self._coins, t, spin_rtp(t, st), jc)

        return self.once(("spin", model.reels, lines), compute)

    def _enumerate(self, model: SpinModel, digits: tuple[str, ...]) -> JointCounts:
        """Exact joint counts of (line win + extra win, observation code) of ``model``.

        Line multipliers scale the pay table when the spin has extra wins (they are not multiplied);
        otherwise they are applied afterwards, so spins differing only in multipliers share one enumeration.
        """
        m = model.line_multiplier if model.extra else 1
        key = replace(model, lines=self._lines_of(model), line_multiplier=m, scatter_multiplier=1)

        def compute() -> JointCounts:
            with located(field=f"reels.{model.reels}"):
                t = self.tables(key)
                if m != 1:
                    t = replace(t, pay=t.pay * m)
                return joint_counts(t, self.stops(key, digits), parallel=self.parallel)

        return self.once(("enumerate", key, digits), compute)

    def joint(self, model: SpinModel, digits: tuple[str, ...] = ()) -> JointLaw:
        def compute() -> JointLaw:
            jc = self._enumerate(model, digits)
            t = self.tables(model)
            wins = jc.wins * (1 if model.extra else model.line_multiplier)
            if len(t.scatter_ids):
                scatter = np.zeros(len(jc.codes), dtype=np.int64)
                for k, s in enumerate(t.scatter_ids):
                    scatter += t.scatter_pay[k, np.minimum(jc.digit(t.names[s]), t.scatter_pay.shape[1] - 1)]
                wins = wins + scatter * t.total_bet * model.scatter_multiplier
            return JointLaw(wins, {d: jc.digit(d) for d in jc.digits}, jc.counts, jc.cycle, self._total_bet)

        return self.once(("joint", model, digits), compute)

    def means(self, model: SpinModel) -> Mapping[str, Fraction]:
        def compute() -> dict[str, Fraction]:
            comp = spin_rtp(self.tables(model), self.stops(model))
            extra = {c for c, _, _ in model.extra}
            out: dict[str, Fraction] = {}
            for c in comp.components:
                factor = 1 if c in extra else model.scatter_multiplier if c == "scatter" else model.line_multiplier
                out[c] = Fraction(comp.credits(c) * factor, comp.cycle)
            return out

        return self.once(("means", model), compute)

    def win_bound(self, model: SpinModel) -> int:
        """An upper bound of one spin's win in credits: every line (or way) at its best, every scatter and extra paid."""
        def compute() -> int:
            st = self.stops(model)
            line_top, scatter_top = spin_tops(self._game, model.reels, lines=self._lines_of(model),
                                              coins=self._coins, rows=tuple(int(x) for x in st.rows))
            extra_top = sum(int(x.max(initial=0)) for x in st.extra)
            return line_top * model.line_multiplier + scatter_top * model.scatter_multiplier + extra_top

        return self.once(("bound", model), compute)

    def digit_law(self, model: SpinModel, names: tuple[str, ...]) -> tuple[dict[tuple[int, ...], int], int]:
        """Exact weights of the joint values of the observation digits ``names`` (convolution over reels)."""
        def compute() -> tuple[dict[tuple[int, ...], int], int]:
            st = self.stops(model, names)
            idx = [st.index(n) for n in names]
            law: dict[tuple[int, ...], int] = {(0,) * len(idx): 1}
            for r in range(st.n_reels):
                reel: dict[tuple[int, ...], int] = {}
                for row, w in zip(st.obs[r][:, idx].tolist(), st.weights[r].tolist(), strict=True):
                    reel[tuple(row)] = reel.get(tuple(row), 0) + w
                nxt: dict[tuple[int, ...], int] = {}
                for a, wa in law.items():
                    for b, wb in reel.items():
                        k = tuple(x + y for x, y in zip(a, b, strict=True))
                        nxt[k] = nxt.get(k, 0) + wa * wb
                law = nxt
            return law, st.cycle

        return self.once(("digits", model, names), compute)
