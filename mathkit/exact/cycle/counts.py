"""Exact joint counts of (win, observation code) over a cycle: the result every enumeration driver returns."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ...errors import ModelError
from ...model.bounds import MAX_CYCLE

__all__ = ["DENSE_LIMIT", "I64_SAFE", "JointCounts", "check_cycle"]

IntArray = npt.NDArray[np.int64]
DENSE_LIMIT = 1 << 25
I64_SAFE = MAX_CYCLE  # the bounds contract states the range once


@dataclass(frozen=True, eq=False)
class JointCounts:
    """Exact counts of ``(line win in credits, observation code)`` over the cycle.

    Cell ``i`` holds the total weight ``counts[i]`` of the outcomes whose line (or ways)
    wins and extra wins add up to ``wins[i]`` credits and whose observation digits pack to
    ``codes[i]`` (``code = Σ_d value_d · radix[d]``, each digit below ``sizes[d]``).
    """

    wins: IntArray
    codes: IntArray
    counts: IntArray
    digits: tuple[str, ...]
    radix: IntArray
    sizes: IntArray
    cycle: int
    threads: int = 1

    def digit(self, name: str) -> IntArray:
        """The value of observation digit ``name`` in every cell."""
        d = self.digits.index(name)
        return np.asarray((self.codes // self.radix[d]) % self.sizes[d], dtype=np.int64)


def check_cycle(cycle: int, name: str) -> None:
    """Refuse a cycle that exact 64-bit counting cannot hold."""
    if cycle >= I64_SAFE:
        msg = (f"reel set {name!r} has a cycle of {cycle} outcomes, beyond exact 64-bit counting; "
               "shorten the strips or lower the weights")
        raise ModelError(msg)
