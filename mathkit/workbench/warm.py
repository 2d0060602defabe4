"""Imported once by the workbench's forkserver: mathkit loaded and its compiled kernels warmed on a tiny game.

Every worker process is forked from that server (:class:`~mathkit.workbench.worker.ProcessRunner`),
so none pays for the imports or for loading the compiled kernels from the cache.
Importing this module computes the slow figures of :data:`TINY` (a 3-reel game
with a scatter, free spins and the gamble: every kernel the workbench uses).
"""

from __future__ import annotations

from ..gamefile.io import loads_game
from .worker import compute

__all__ = ["TINY", "warm"]

TINY = """
name = "warm-up"
paylines = [[1, 1, 1], [0, 0, 0]]
[bet]
lines = 2
[symbols.W]
kind = "wild"
[symbols.S]
kind = "scatter"
[symbols.A]
[symbols.B]
[reels.base]
rows = 3
strips = ["A B S A B", "W A B A S", "B A S B A"]
[reels.free]
rows = 3
strips = ["A B S A B B", "W A B A S A", "B A S B A B"]
[paytable]
A = { 3 = 10 }
B = { 3 = 5 }
[scatter_pays]
S = { 2 = 1, 3 = 5 }
[free_spins]
trigger = "S"
awards = { 3 = 5 }
retriggers = { 3 = 5 }
reels = "free"
multiplier = 2
[gamble]
max_gambles = 2
limit = 100
options = [{ name = "colour", multiplier = 2, p = "1/2" }]
"""


def warm() -> list[str]:
    """Compute the slow figures of :data:`TINY`; returns the steps done (``["sd", "par", "sensitivity"]``).

    Examples
    --------
    >>> warm()
    ['sd', 'par', 'sensitivity']
    """
    done: list[str] = []
    compute(loads_game(TINY), "base", lambda step, value, seconds: done.append(step))
    return done


warm()
