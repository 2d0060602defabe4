"""The exact joint law of one spin's (win, spins added, next level), from the game data.

:class:`SpinLaw` holds integer weights over the full cycle; :func:`trigger_law`
(the base spin: win and spins awarded) and :func:`free_spin_law` (a free spin:
win with the feature multiplier and spins added) build it from the exact maths
of one spin (:func:`mathkit.exact.spin`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..exact import SpinMaths
from ..game import FreeSpins, Game

__all__ = ["Key", "SpinLaw", "free_spin_law", "retrigger_rule", "trigger_law"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
Key = tuple[int, int]
"""``(spins added, next level)``: what a spin does to the state."""


@dataclass(frozen=True, eq=False)
class SpinLaw:
    """Exact joint law of one spin's ``(win, spins added, next level)`` as integer weights.

    ``weights`` sum to ``cycle``.  For the base game ``added`` holds the spins
    awarded; ``level`` is ``None`` for a one-level feature.

    Examples
    --------
    >>> law = SpinLaw.of([0, 4, 4, 10], [0, 0, 0, 5], [6, 1, 1, 2])
    >>> law.p_added(5), law.m, law.mean_win
    (Fraction(1, 5), Fraction(1, 1), Fraction(14, 5))
    """

    wins: IntArray
    added: IntArray
    weights: IntArray
    cycle: int
    level: IntArray | None = None

    @classmethod
    def of(cls, wins: npt.ArrayLike, added: npt.ArrayLike, weights: npt.ArrayLike,
           level: npt.ArrayLike | None = None) -> SpinLaw:
        """Merge equal outcomes and drop zero weights."""
        w = np.asarray(wins, dtype=np.int64).reshape(-1)
        a = np.asarray(added, dtype=np.int64).reshape(-1)
        c = np.asarray(weights, dtype=np.int64).reshape(-1)
        lv = np.zeros_like(w) if level is None else np.asarray(level, dtype=np.int64).reshape(-1)
        if not (len(w) == len(a) == len(c) == len(lv)) or (c < 0).any() or (w < 0).any() or (a < 0).any():
            msg = "a spin law needs equally many non-negative wins, added spins and weights"
            raise ModelError(msg)
        keys, inv = np.unique(np.stack([a, lv, w]), axis=1, return_inverse=True)
        merged = np.zeros(keys.shape[1], dtype=np.int64)
        np.add.at(merged, inv.reshape(-1), c)
        keep = merged > 0
        cycle = sum(merged.tolist())
        if cycle == 0:
            msg = "a spin law needs a positive total weight"
            raise ModelError(msg)
        return cls(keys[2, keep], keys[0, keep], merged[keep], cycle, None if level is None else keys[1, keep])

    @cached_property
    def groups(self) -> dict[Key, tuple[int, int, int]]:
        """Per ``(added, next level)``: total weight, Σ weight·win, Σ weight·win² (Python ints)."""
        lv = np.zeros_like(self.added) if self.level is None else self.level
        out: dict[Key, tuple[int, int, int]] = {}
        for a, ell in sorted(set(zip(self.added.tolist(), lv.tolist(), strict=True))):
            sel = (self.added == a) & (lv == ell)
            w, c = self.wins[sel].tolist(), self.weights[sel].tolist()
            out[a, ell] = (sum(c), sum(x * y for x, y in zip(w, c, strict=True)),
                           sum(x * x * y for x, y in zip(w, c, strict=True)))
        return out

    def p_added(self, a: int) -> Fraction:
        """P(the spin adds exactly ``a`` spins)."""
        return Fraction(sum(g[0] for (k, _), g in self.groups.items() if k == a), self.cycle)

    @property
    def m(self) -> Fraction:
        """Expected spins added per spin."""
        return Fraction(sum(a * g[0] for (a, _), g in self.groups.items()), self.cycle)

    @property
    def mean_win(self) -> Fraction:
        return Fraction(sum(g[1] for g in self.groups.values()), self.cycle)

    def probs(self, a: int | None = None) -> tuple[IntArray, FloatArray]:
        """Wins and float probabilities, of all outcomes or of those adding ``a`` (not normalised)."""
        sel = np.ones(len(self.wins), dtype=bool) if a is None else self.added == a
        return self.wins[sel], self.weights[sel].astype(np.float64) / float(self.cycle)


def _trigger_counts(sm: SpinMaths, fs: FreeSpins) -> IntArray:
    return np.asarray(sm.scatter_count(fs.trigger), dtype=np.int64)


def _fs(game: Game) -> FreeSpins:
    if game.free_spins is None:
        msg = f"{game.name!r} declares no free spins"
        raise ModelError(msg)
    return game.free_spins


def trigger_law(game: Game, base: SpinMaths) -> SpinLaw:
    """The base spin's law of ``(total win, spins awarded)`` (awards limited by ``max_spins``)."""
    fs = _fs(game)
    counts = _trigger_counts(base, fs)
    table = np.array([fs.award(c) for c in range(int(counts.max(initial=0)) + 1)], dtype=np.int64)
    award = table[counts]
    if fs.max_spins is not None:
        award = np.minimum(award, fs.max_spins)
    return SpinLaw.of(base.joint.wins + base.scatter_win, award, base.joint.counts)


def free_spin_law(game: Game, free: SpinMaths) -> SpinLaw:
    """One free spin's law of ``(win with the feature multiplier, spins added)``."""
    fs = _fs(game)
    counts = _trigger_counts(free, fs)
    table = np.array([fs.retrigger(c) for c in range(int(counts.max(initial=0)) + 1)], dtype=np.int64)
    scatter_mult = fs.multiplier if fs.multiply_scatter else 1
    wins = free.joint.wins * fs.multiplier + free.scatter_win * scatter_mult
    return SpinLaw.of(wins, table[counts], free.joint.counts)


def retrigger_rule(fs: FreeSpins, q: Fraction) -> str:
    """The retrigger rule in words, with ``q`` = P(a spin adds spins) (for messages).

    Examples
    --------
    >>> from mathkit.game import FreeSpins
    >>> retrigger_rule(FreeSpins("EMPEROR", ((3, 10),), "free", ((3, 10),)), Fraction(13, 125))
    '3+ EMPEROR add 10 spins with probability 0.104 per spin'
    """
    adds = ", ".join(f"{k}+ {fs.trigger} add {v}" for k, v in fs.retriggers if v) or "nothing"
    return f"{adds} spins with probability {float(q):.4g} per spin"
