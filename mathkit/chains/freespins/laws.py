"""The exact joint law of one spin's (win, spins added, next level).

:class:`SpinLaw` holds integer weights over the full cycle; a feature block
(:mod:`mathkit.features.free_spins`) builds it from the exact joint law of a
spin's win and its observations.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np
import numpy.typing as npt

from ...errors import ModelError
from ...laws.law import merge

__all__ = ["Key", "SpinLaw", "retrigger_rule"]

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
        keys, merged, _ = merge(np.stack([a, lv, w]), c, axis=1)
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


def retrigger_rule(trigger: str, retriggers: tuple[tuple[int, int], ...], q: Fraction) -> str:
    """The retrigger rule in words, with ``q`` = P(a spin adds spins) (for messages).

    Examples
    --------
    >>> retrigger_rule("EMPEROR", ((3, 10),), Fraction(13, 125))
    '3+ EMPEROR add 10 spins with probability 0.104 per spin'
    """
    adds = ", ".join(f"{k}+ {trigger} add {v}" for k, v in retriggers if v) or "nothing"
    return f"{adds} spins with probability {float(q):.4g} per spin"
