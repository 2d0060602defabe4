"""Held-cell chains: re-spins that hold the cells a symbol lands on and stop at the first re-spin that adds none.

The state is the set ``M`` of held cells, a window mask (cell ``(r, k)`` is bit
``offset[r] + k``, see :func:`mathkit.laws.stage.cell_bits`).  Reels stop independently,
so one re-spin moves every reel's held row pattern ``h_r`` to a pattern ``h'_r ⊇ h_r``
on its own: ``P(M → M') = Π_r moves[r][h_r, h'_r] / totals[r]``.  The chain stops
when no reel adds a cell (``M' = M``, probability ``s(M) = Π_r moves[r][h_r, h_r] /
totals[r]``), and the value of the ending is ``W(M)``; every re-spin may also earn a
reward ``ρ`` (1 counts the re-spins).  So

    U(M) = ρ + s(M)·W(M) + Σ_{M' ⊋ M} P(M → M')·U(M'),

a triangular system: held cells only grow, so ``U`` is exact after
``cells − |M| + 1`` sweeps of ``U ← ρ + s·W + (A − s)·U`` from 0, where ``A`` is the
tensor product of the per-reel move matrices (one matrix product per reel axis,
never a matrix over all ``2^cells`` states).  Exactly, in integers: with ``W`` and
``ρ`` over a common denominator ``Q`` and ``T = Π_r totals[r]``, ``U_k = N_k / (Q·T^k)``
and ``N_{k+1} = ρ·T^{k+1} + s·W·T^k + A·N_k − s·N_k`` (``s``, ``A`` as integer counts).

When ``W`` and ``ρ`` depend only on how many cells each reel holds and every reel's
moves are *lumpable* (the law of the number of rows a reel holds next depends only
on how many it holds now — true when a reel's window shows the symbol in each free
row alike), the same sweep runs over per-reel counts: ``Π_r (rows_r + 1)`` states
instead of ``2^cells``.  :meth:`HeldChain.solve` does so by itself when it can.

Examples
--------
One reel, one row: the symbol lands with probability 1/4 per re-spin.  From an
empty window the chain makes one re-spin, then stops or holds the cell and
stops at the next (a full window adds nothing), so E[re-spins] = 1 + 1/4.

>>> import numpy as np
>>> chain = HeldChain((np.array([[3, 1], [0, 4]]),), (1,))
>>> chain.solve([0, 0], reward=1).at(0b0), chain.solve([0, 1]).at(0b0)
(Fraction(5, 4), Fraction(1, 4))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from ...errors import ModelError
from ...laws.stage import Ratios

__all__ = ["HeldChain", "HeldSolution"]

IntArray = npt.NDArray[np.int64]
ObjArray = npt.NDArray[np.object_]
FloatArray = npt.NDArray[np.float64]
Value = Fraction | float | int


def _popcount(x: IntArray) -> IntArray:
    out = np.zeros_like(x)
    y = x.copy()
    while y.any():
        out += y & 1
        y >>= 1
    return out


@dataclass(frozen=True, eq=False)
class HeldSolution:
    """``U(M)`` for every window mask ``M``: exact (``num / den``) or in floating point (``value``).

    A lumped solve keeps one value per count class and ``index``, the class of every mask (the chain's
    own, shared by its solves), rather than a copy per mask: a re-spin feature keeps thousands of solves.
    """

    num: ObjArray | None
    den: int
    value: FloatArray | None
    index: IntArray | None = None

    def at(self, mask: int) -> Value:
        """``U`` at one window mask (a Fraction when solved exactly)."""
        i = mask if self.index is None else int(self.index[mask])
        if self.num is not None:
            return Fraction(int(self.num[i]), self.den)
        assert self.value is not None
        return float(self.value[i])

    def floats(self) -> FloatArray:
        """``U`` at every mask, in floating point."""
        if self.value is not None:
            return self.value if self.index is None else self.value[self.index]
        assert self.num is not None
        num = self.num if self.index is None else self.num[self.index]
        return np.array([int(x) / self.den for x in num.tolist()], dtype=np.float64)


@dataclass(frozen=True, eq=False)
class HeldChain:
    """A held-cell chain: per reel, the move weights of its held row pattern in one re-spin.

    ``moves[r][a, b]`` is the weight of reel ``r`` going from held rows ``a`` to ``b`` (bitmasks,
    ``b ⊇ a``); every row of ``moves[r]`` sums to the reel's total weight.  ``rows`` is the window
    height per reel.
    """

    moves: tuple[IntArray, ...]
    rows: tuple[int, ...]

    def __post_init__(self) -> None:
        for r, (m, h) in enumerate(zip(self.moves, self.rows, strict=True)):
            n = 1 << h
            if m.shape != (n, n):
                msg = f"reel {r + 1}: {m.shape} moves for {h} rows (want {n}×{n})"
                raise ModelError(msg)
            totals = m.sum(axis=1)
            if (totals != totals[0]).any() or totals[0] <= 0:
                msg = f"reel {r + 1}: the move weights of every held pattern must add up to the reel's weight"
                raise ModelError(msg)
            for a in range(n):
                for b in range(n):
                    if m[a, b] and (a & b) != a:
                        msg = f"reel {r + 1}: held cells never leave (a move from rows {a:b} to {b:b})"
                        raise ModelError(msg)

    @property
    def n_reels(self) -> int:
        return len(self.rows)

    @property
    def cells(self) -> int:
        return sum(self.rows)

    @cached_property
    def totals(self) -> tuple[int, ...]:
        return tuple(int(m[0].sum()) for m in self.moves)

    @cached_property
    def cycle(self) -> int:
        return math.prod(self.totals)

    @cached_property
    def _bits(self) -> tuple[int, ...]:
        out, at = [], 0
        for h in self.rows:
            out.append(at)
            at += h
        return tuple(out)

    @cached_property
    def masks(self) -> IntArray:
        """Every window mask, in order (index = mask)."""
        return np.arange(1 << self.cells, dtype=np.int64)

    def patterns(self, masks: IntArray) -> list[IntArray]:
        """Each reel's held row pattern in every mask."""
        return [(masks >> b) & ((1 << h) - 1) for b, h in zip(self._bits, self.rows, strict=True)]

    def stay(self, mask: int) -> Fraction:
        """``s(M)``: the probability that a re-spin from ``mask`` adds no cell."""
        out = Fraction(1)
        for m, b, h, t in zip(self.moves, self._bits, self.rows, self.totals, strict=True):
            a = (mask >> b) & ((1 << h) - 1)
            out *= Fraction(int(m[a, a]), t)
        return out

    def step(self, mask: int) -> dict[int, Fraction]:
        """The law of the held cells after one re-spin from ``mask`` (the mask itself: no cell added)."""
        law = {0: Fraction(1)}
        for m, b, h, t in zip(self.moves, self._bits, self.rows, self.totals, strict=True):
            a = (mask >> b) & ((1 << h) - 1)
            law = {x | (c << b): p * Fraction(int(m[a, c]), t) for x, p in law.items() for c in range(1 << h) if m[a, c]}
        return law

    # --- solving ----------------------------------------------------------------------------
    def _classes(self, masks: IntArray) -> IntArray:
        """The per-reel count class of every mask: ``Σ_r count_r · stride_r`` (reel 0 fastest)."""
        idx = np.zeros(len(masks), dtype=np.int64)
        stride = 1
        for pat, h in zip(self.patterns(masks), self.rows, strict=True):
            idx += _popcount(pat) * stride
            stride *= h + 1
        return idx

    @cached_property
    def _lumped_moves(self) -> tuple[IntArray, ...] | None:
        """Per reel, the moves of the count of held rows, if every reel is lumpable."""
        out = []
        for m, h in zip(self.moves, self.rows, strict=True):
            n = 1 << h
            count = [int(a).bit_count() for a in range(n)]
            lm = np.zeros((h + 1, h + 1), dtype=np.int64)
            seen = [False] * (h + 1)
            for a in range(n):
                row = np.zeros(h + 1, dtype=np.int64)
                for b in range(n):
                    row[count[b]] += m[a, b]
                if not seen[count[a]]:
                    lm[count[a]] = row
                    seen[count[a]] = True
                elif (lm[count[a]] != row).any():
                    return None
            out.append(lm)
        return tuple(out)

    def solve(self, terminal: Sequence[Value] | Ratios | FloatArray, reward: Value = 0, *, exact: bool = True,
              min_held: int = 0) -> HeldSolution:
        """``U(M)`` at every mask (exact for every mask holding at least ``min_held`` cells).

        ``terminal[M]`` is ``W(M)``, the value of ending with ``M`` held, given for every mask as
        numbers, :class:`~mathkit.laws.stage.Ratios` or a float array; ``reward`` what each re-spin earns.
        Exactly (Fractions, integers or ratios) or in floating point (``exact=False``).
        """
        if len(terminal) != 1 << self.cells:
            msg = f"a terminal value for each of the {1 << self.cells} window masks, not {len(terminal)}"
            raise ModelError(msg)
        sweeps = self.cells - min_held + 1
        if not exact:
            w = terminal.floats() if isinstance(terminal, Ratios) else np.asarray(
                [float(x) for x in terminal] if not isinstance(terminal, np.ndarray) else terminal, dtype=np.float64)
            return self._solve_floats(w, float(reward), sweeps)
        if isinstance(terminal, Ratios):
            ratios = terminal
        else:
            fr = [Fraction(x) for x in terminal]
            q = math.lcm(*(f.denominator for f in fr))
            ratios = Ratios(np.array([int(f * q) for f in fr], dtype=object), q)
        rew = Fraction(reward)
        if rew.denominator != 1:  # put the reward over the terminal's denominator too
            q = math.lcm(ratios.den, rew.denominator)
            ratios = Ratios(ratios.num * (q // ratios.den), q)
        return self._solve_ratios(ratios, rew * ratios.den, sweeps)

    def _lumped(self, values: npt.NDArray[Any]) -> tuple[IntArray, IntArray] | None:
        """``(classes, first mask of each class)`` when the chain and ``values`` lump to per-reel counts."""
        if self._lumped_moves is None:
            return None
        classes, first = self._class_index
        if not bool((values == values[first[classes]]).all()):
            return None
        return classes, first

    @cached_property
    def _class_index(self) -> tuple[IntArray, IntArray]:
        """``(classes, first mask of each class)`` of every mask (computed once: every solve reads it)."""
        classes = self._classes(self.masks)
        first = np.full(int(classes.max()) + 1, -1, dtype=np.int64)
        order = np.arange(len(classes))
        first[classes[::-1]] = order[::-1]
        return classes, first

    @cached_property
    def _float_ops(self) -> dict[bool, tuple[list[FloatArray], FloatArray]]:
        """The float sweep's operators (per-reel move probabilities, the stay probability), lumped or not, once."""
        return {}

    def _ops(self, lumped: bool) -> tuple[list[FloatArray], FloatArray]:
        ops = self._float_ops
        if lumped not in ops:
            moves = self._lumped_moves if lumped else self.moves
            assert moves is not None
            ops[lumped] = _float_operators(moves)
        return ops[lumped]

    def _solve_floats(self, w: FloatArray, reward: float, sweeps: int) -> HeldSolution:
        lump = self._lumped(w)
        if lump is not None and self._lumped_moves is not None:
            classes, first = lump
            shape = tuple(h + 1 for h in reversed(self.rows))
            sol = _sweep_floats(self._ops(True), shape, w[first], reward, sweeps)
            return _expand(sol, classes)
        shape = tuple(1 << h for h in reversed(self.rows))
        return _sweep_floats(self._ops(False), shape, w, reward, sweeps)

    def _solve_ratios(self, terminal: Ratios, reward: Fraction, sweeps: int) -> HeldSolution:
        """The exact solve of terminal values given over one denominator (``reward`` over it too)."""
        num = np.asarray(terminal.num, dtype=object)
        lump = self._lumped(num)
        if lump is not None and self._lumped_moves is not None:
            classes, first = lump
            shape = tuple(h + 1 for h in reversed(self.rows))
            sol = _sweep_int(self._lumped_moves, shape, num[first], terminal.den, int(reward), sweeps)
            return _expand(sol, classes)
        shape = tuple(1 << h for h in reversed(self.rows))
        return _sweep_int(self.moves, shape, num, terminal.den, int(reward), sweeps)


def _apply(mats: Sequence[Any], x: Any, shape: tuple[int, ...]) -> Any:
    """``(⊗_r mats[r]) · x`` over a tensor whose axis ``n − 1 − r`` is reel ``r``."""
    if x.dtype == object:
        v = x.reshape(shape)
        n = len(shape)
        for r, m in enumerate(mats):
            axis = n - 1 - r
            v = np.moveaxis(np.tensordot(m, v, axes=([1], [axis])), 0, axis)
        return v.reshape(-1)
    # floats: tensordot's own steps (the same transposed copy into the same dot, so the same floats) without
    # its argument handling, which cost more than the products on these small tensors
    v = x.reshape(shape)
    n = len(shape)
    for r, m in enumerate(mats):
        axis = n - 1 - r
        to, back = _perms(n, axis)
        res = np.dot(m, v.transpose(to).reshape(shape[axis], -1))
        v = res.reshape(tuple(shape[a] for a in to)).transpose(back)
    return v.reshape(-1)


@cache
def _perms(n: int, axis: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The axes with ``axis`` first, and the permutation putting it back."""
    to = (axis, *(a for a in range(n) if a != axis))
    return to, tuple(int(i) for i in np.argsort(to))


def _outer(vectors: Sequence[Any]) -> Any:
    """``Π_r vectors[r][h_r]`` over the tensor (axis ``n − 1 − r`` is reel ``r``), flattened."""
    out = np.ones(1, dtype=vectors[0].dtype)
    for v in reversed(vectors):  # reel n-1 first: the slowest axis
        out = np.multiply.outer(out, v).reshape(-1)
    return out


def _float_operators(moves: Sequence[IntArray]) -> tuple[list[FloatArray], FloatArray]:
    """Each reel's move probabilities and the probability of adding no cell, in floating point."""
    t = [float(m[0].sum()) for m in moves]
    mf = [m.astype(np.float64) / ti for m, ti in zip(moves, t, strict=True)]
    s = _outer([np.diag(m).astype(np.float64) / ti for m, ti in zip(moves, t, strict=True)]).astype(np.float64)
    return mf, s


def _sweep_floats(ops: tuple[list[FloatArray], FloatArray], shape: tuple[int, ...], w: FloatArray, reward: float,
                  sweeps: int) -> HeldSolution:
    mf, s = ops
    base = reward + s * w
    u = np.zeros_like(w)
    for _ in range(sweeps):
        u = base + _apply(mf, u, shape).astype(np.float64) - s * u
    return HeldSolution(None, 1, u)


def _sweep_int(moves: Sequence[IntArray], shape: tuple[int, ...], wnum: ObjArray, q: int, rnum: int,
               sweeps: int) -> HeldSolution:
    """The exact sweep in integers: ``W = wnum / q`` and the reward ``rnum / q``."""
    wnum = np.asarray(wnum, dtype=object)
    diag = [np.diag(m) for m in moves]
    big_t = math.prod(int(m[0].sum()) for m in moves)
    mo = [m.astype(object) for m in moves]
    s = _outer([d.astype(object) for d in diag])
    sw = s * wnum
    n = np.zeros(len(wnum), dtype=object)
    tk = 1  # T^k
    for _ in range(sweeps):
        n = rnum * tk * big_t + sw * tk + _apply(mo, n, shape) - s * n
        tk *= big_t
    return HeldSolution(n, q * tk, None)


def _expand(sol: HeldSolution, classes: IntArray) -> HeldSolution:
    """The class-level solution read at every mask through ``classes`` (no copy per mask)."""
    return HeldSolution(sol.num, sol.den, sol.value, classes)
