"""The hit frequency per line, sampled: base spins played literally, every line paid by the one line rule.

Old PAR sheets print "hit frequency per line": line hits summed over every pay combination
and line played over ``cycle × lines`` — the probability that one line pays.  The round
driver (:mod:`mathkit.sim.kernels`) sums credits and never counts lines, so this module plays
base spins of its own: each reel's stop drawn by its weights, the window read from the strips,
each line read through the round player's symbol trie (:func:`mathkit.sim.lines._symbol_trie`,
a memo of :func:`mathkit.spin.evaluate.line_win`: a line is decided, with its credits, as soon as no
pay entry can still grow).  It shares only the game model and the line rule with the exact
engine (no exact figure is read here).

The lines of one spin are not independent, so the standard error comes from the spread of the
per-spin count of paid lines, not from a binomial over ``spins × lines``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt

from ..errors import UsageError
from ..model.game import Game
from ..spin.tables import pay_tables, reel_arrays
from .lines import _symbol_trie

__all__ = ["LineHits", "sample_line_hits"]

BLOCK = 1 << 16
"""Spins drawn per block (bounds the memory: a few arrays of this many stops per reel)."""


@dataclass(frozen=True)
class LineHits:
    """Paid (spin, line) pairs over ``spins`` base spins of ``lines`` lines, and the sum of squares per spin.

    Examples
    --------
    >>> h = LineHits(spins=4, lines=2, paid=2, paid_sq=2)
    >>> h.value, round(h.se, 4)
    (0.25, 0.1443)
    """

    spins: int
    lines: int
    paid: int
    paid_sq: int

    @property
    def value(self) -> float:
        """Estimated P(one line pays): paid pairs / (spins × lines)."""
        return self.paid / (self.spins * self.lines)

    @property
    def se(self) -> float:
        """Standard error of :attr:`value` from the per-spin counts of paid lines."""
        n = self.spins
        mean = self.paid / n
        var = max(self.paid_sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
        return math.sqrt(var / n) / self.lines

    def interval(self, z: float) -> tuple[float, float]:
        return (self.value - z * self.se, self.value + z * self.se)


def _draw(rng: np.random.Generator, weights: npt.NDArray[np.int64], n: int) -> npt.NDArray[np.int64]:
    """``n`` stops of one reel, each with probability weight / total (integer draws, no float rounding)."""
    cum = np.cumsum(weights)
    u = rng.integers(0, int(cum[-1]), size=n, dtype=np.int64)
    return np.searchsorted(cum, u, side="right").astype(np.int64)


@nb.njit(cache=True, nogil=True)
def _count(stops: npt.NDArray[np.int64], strips: npt.NDArray[np.int64], lens: npt.NDArray[np.int64],
           lines: npt.NDArray[np.int64], trie: npt.NDArray[np.int64]) -> tuple[int, int]:  # pragma: no cover
    """Paid lines over the spins ``stops[i, r]`` (strips padded in ``strips[r]``), and the sum of their squares.

    ``trie[node, s]``: the child node, or ``-1 - credits`` once the line's pay is decided.
    """
    n, n_reels = stops.shape
    paid = 0
    paid_sq = 0
    for i in range(n):
        k = 0
        for li in range(lines.shape[0]):
            node = 0
            for r in range(n_reels):
                x = trie[node, strips[r, (stops[i, r] + lines[li, r]) % lens[r]]]
                if x < 0:
                    if x < -1:  # decided with credits > 0
                        k += 1
                    break
                node = x
        paid += k
        paid_sq += k * k
    return paid, paid_sq


def sample_line_hits(game: Game, spins: int, *, rng: np.random.Generator, reels: str | None = None,
                     lines: int | None = None, coins: int | None = None) -> LineHits:
    """Play ``spins`` base spins of reel set ``reels`` and count the lines that pay.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> h = sample_line_hits(load_game("data/games/classic_3reel.toml"), 10_000, rng=np.random.default_rng(1))
    >>> h.spins, h.lines, 0 < h.value < 1
    (10000, 1, True)
    """
    t = pay_tables(game, lines=lines, coins=coins)
    if t.ways:
        msg = f"{game.name}: a ways game has no lines to count"
        raise UsageError(msg)
    ra = reel_arrays(game, reels)
    lens = np.array([len(s) for s in ra.strips], dtype=np.int64)
    strips = np.zeros((ra.n_reels, int(lens.max())), dtype=np.int64)
    for r, s in enumerate(ra.strips):
        strips[r, : len(s)] = t.read_on(r, s)  # the ids the line rule reads on reel r (reel-ordered entries)
    lines_ = np.ascontiguousarray(t.lines, dtype=np.int64)
    trie = _symbol_trie(t, [sorted({int(s) for s in strips[r, : lens[r]].tolist()}) for r in range(ra.n_reels)])
    paid = paid_sq = 0
    done = 0
    while done < spins:
        n = min(BLOCK, spins - done)
        stops = np.stack([_draw(rng, ra.weights[r], n) for r in range(ra.n_reels)], axis=1)
        p, q = _count(stops, strips, lens, lines_, trie)
        paid += int(p)
        paid_sq += int(q)
        done += n
    n_lines = int(t.lines.shape[0])
    return LineHits(spins, n_lines, paid, paid_sq)
