"""The exact engine as feature blocks see it: :class:`Engine`, the :class:`~mathkit.features.Context` of one analysis.

One engine serves one analysis of one game at one bet (reel set, lines, coins).
It answers the blocks' questions about spins — the exact joint law of a spin's
win and observations (full-cycle enumeration, :mod:`mathkit.exact`), exact mean
wins by component and exact laws of observation digits (per-reel algebra,
:mod:`mathkit.rtp`, no enumeration) — and caches every answer, so a spin model
asked for by several blocks is computed once.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import replace
from fractions import Fraction
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from ..bounds import spin_tops
from ..cycle import JointCounts, joint_counts
from ..errors import ModelError, located
from ..exact import SpinMaths
from ..features.base import Block
from ..game import Game
from ..rtp import spin_rtp
from ..stage import JointLaw, SpinModel
from ..stops import StopTables, observed, stop_tables
from ..tables import PayTables, pay_tables

__all__ = ["Engine"]

T = TypeVar("T")
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
CLASS_LIMIT = 4096
"""The most classes a spin with products is enumerated in (one enumeration each)."""


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
        """The stop tables of ``model``'s spin observing ``digits`` (and every scatter's count).

        The tables of a spin are built once with every digit the game's blocks declare; a request
        for some of them takes their columns (a block's digits are Python per stop: built once).
        """
        key = (model.reels, model.rows, model.forced, model.remap, model.restrict, model.extra, model.products)

        def compute() -> StopTables:
            wanted = observed(self._game, model, digits)
            full = self.once(("stops", key, None),
                             lambda: stop_tables(self._game, model, tuple(self._digits), self._digits))
            if all(d in full.digits for d in wanted):
                return full.only(wanted)
            return stop_tables(self._game, model, digits, self._digits)

        return self.once(("stops", key, digits), compute)

    def spin_maths(self, model: SpinModel) -> SpinMaths:
        """The full-cycle maths of a plain spin of the model's reel set and lines (before its multipliers)."""
        if model.rows is not None or model.forced or model.remap or model.restrict or model.extra or model.products:
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
        A spin with products is enumerated class by class (:meth:`_classes`).
        """
        m = model.line_multiplier if model.extra or model.products else 1
        key = replace(model, lines=self._lines_of(model), line_multiplier=m, scatter_multiplier=1)

        def compute() -> JointCounts:
            with located(field=f"reels.{model.reels}"):
                t = self.tables(key)
                if m != 1:
                    t = replace(t, pay=t.pay * m)
                st = self.stops(key, digits)
                if not key.products:
                    return joint_counts(t, st, parallel=self.parallel)
                return self._by_classes(t, st, digits)

        return self.once(("enumerate", key, digits), compute)

    def _classes(self, st: StopTables) -> list[tuple[list[BoolArray], list[IntArray]]]:
        """The classes inside which every product of ``st`` is an extra win: per class, the stops kept and the extra.

        For each product ``credits × A × B`` the factor taking fewer joint per-reel values is
        conditioned on: a class fixes its value on every reel, so the product pays
        ``credits × (its total) × b_r`` at each stop of reel ``r`` (the other factor's value there).
        The classes partition every reel's stops, so their cycles add up to the spin's.
        """
        def n_values(name: str) -> int:
            out = 1
            for o in st.obs:
                out *= len(np.unique(o[:, st.index(name)]))
            return out

        fixed: list[int] = []
        other: list[tuple[int, int, int]] = []  # (the other factor, credits, which conditioned digit)
        for _, da, db, unit in st.product_parts:
            a, b = (da, db) if n_values(da) <= n_values(db) else (db, da)
            fixed.append(st.index(a))
            other.append((st.index(b), unit, len(fixed) - 1))
        per_reel = [np.unique(o[:, fixed], axis=0) for o in st.obs]
        n = math.prod(len(v) for v in per_reel)
        if n > CLASS_LIMIT:
            names = ", ".join(dict.fromkeys(st.digits[i] for i in fixed))
            msg = (f"a spin with products of observations needs {n:,} classes of {names} (more than {CLASS_LIMIT:,}); "
                   "a product's factor should vary on few reels")
            raise ModelError(msg)
        out = []
        for values in itertools.product(*per_reel):
            totals = np.sum(values, axis=0)
            keep = [np.all(o[:, fixed] == v, axis=1) for o, v in zip(st.obs, values, strict=True)]
            extra = []
            for o, k in zip(st.obs, keep, strict=True):
                x = np.zeros(int(k.sum()), dtype=np.int64)
                for i, unit, j in other:
                    x += int(totals[j]) * unit * o[k][:, i]
                extra.append(x)
            out.append((keep, extra))
        return out

    def _by_classes(self, t: PayTables, st: StopTables, digits: tuple[str, ...]) -> JointCounts:
        """Joint counts of a spin with products: every class enumerated, the cells merged (one packing)."""
        factors = {n for p in st.product_parts for n in p[1:3]}
        scatters = [s.name for s in self._game.scatters]
        kept = tuple(d for d in st.digits if d in scatters or d in digits or d not in factors)
        idx = [st.index(d) for d in kept]
        sizes = st.sizes[idx] if kept else np.ones(0, dtype=np.int64)
        radix = np.cumprod(np.concatenate([[1], sizes[:-1]])).astype(np.int64) if kept else sizes
        wins, codes, counts = [], [], []
        threads = 1
        for keep, extra in self._classes(st):
            if not all(k.any() for k in keep):
                continue
            jc = joint_counts(t, st.select(keep, extra, kept), parallel=self.parallel)
            threads = max(threads, jc.threads)
            code = np.zeros(len(jc.codes), dtype=np.int64)
            for d, r in zip(kept, radix.tolist(), strict=True):
                code += jc.digit(d) * r
            wins.append(jc.wins)
            codes.append(code)
            counts.append(jc.counts)
        n_codes = int(np.prod(sizes)) if kept else 1
        keys, inv = np.unique(np.concatenate(wins) * n_codes + np.concatenate(codes), return_inverse=True)
        total = np.zeros(len(keys), dtype=np.int64)
        np.add.at(total, inv.reshape(-1), np.concatenate(counts))
        return JointCounts(keys // n_codes, keys % n_codes, total, kept, radix, sizes, st.cycle, threads)

    def constant(self, model: SpinModel, digit: str) -> int | None:
        """The total of observation ``digit`` when it is the same at every stop of every reel (the window height ...), else ``None``."""
        st = self.stops(model, (digit,))
        d = st.index(digit)
        total = 0
        for o in st.obs:
            column = o[:, d]
            if column.size and int(column.min()) != int(column.max()):
                return None
            total += int(column[0]) if column.size else 0
        return total

    def joint(self, model: SpinModel, digits: tuple[str, ...] = ()) -> JointLaw:
        """Observation digits that are constant over the cycle are not enumerated (they would only widen the codes)."""
        def compute() -> JointLaw:
            scatters = {s.name for s in self._game.scatters}
            fixed = {d: c for d in digits if d not in scatters and (c := self.constant(model, d)) is not None}
            jc = self._enumerate(model, tuple(d for d in digits if d not in fixed))
            t = self.tables(model)
            wins = jc.wins * (1 if model.extra or model.products else model.line_multiplier)
            if len(t.scatter_ids):
                scatter = np.zeros(len(jc.codes), dtype=np.int64)
                for k, s in enumerate(t.scatter_ids):
                    scatter += t.scatter_pay[k, np.minimum(jc.digit(t.names[s]), t.scatter_pay.shape[1] - 1)]
                wins = wins + scatter * t.total_bet * model.scatter_multiplier
            values = {d: jc.digit(d) for d in jc.digits}
            values.update({d: np.full(len(jc.counts), c, dtype=np.int64) for d, c in fixed.items()})
            return JointLaw(wins, values, jc.counts, jc.cycle, self._total_bet)

        return self.once(("joint", model, digits), compute)

    def means(self, model: SpinModel) -> Mapping[str, Fraction]:
        def compute() -> dict[str, Fraction]:
            comp = spin_rtp(self.tables(model), self.stops(model))
            extra = {c for c, _, _ in model.extra} | {p[0] for p in model.products}
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
            for _, da, db, unit in model.products:
                tops = [sum(int(o[:, st.index(d)].max(initial=0)) for o in st.obs) for d in (da, db)]
                extra_top += unit * tops[0] * tops[1]
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
