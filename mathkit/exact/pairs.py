"""Second moments of a lines spin with forced cells, from line pairs (no enumeration of the window).

A lines spin pays ``X = Σ_l w_l``, so ``E[X²] = Σ_{l,l'} E[w_l·w_l']``.  Both lines of a pair
read the same stop of every reel, and the reels stop independently, so the pair's
joint law factorises reel by reel: on reel ``r`` the two cells show a pair of symbols
with the weights of the reel's stops.  Each line's win is read left to right by a small
automaton (:class:`LineAutomaton`: the pay entries still running and the best pay of
those that ended — the line rule of :func:`mathkit.spin.evaluate.line_win`, for wilds
without multipliers), and the pair's value is one forward pass over the reels on the
product of the two automata.

Cells forced to a symbol (overlay or sticky wilds) enter as *options*: on every reel a
pair's two cells are forced or not (``u = f₁ + 2·f₂``; one cell when both lines cross
the same row), and one pass computes the pair's value under every combination of
options at once, ``T[u₁ + 4u₂ + 16u₃ + …]``.  ``E[X² | mask]`` is then a table look-up per
pair (:meth:`PairTables.masks_m2`).

:func:`split_tables` gives what a chain of sticky cells needs besides: every line's credits
split by what each reel shows of the trigger (the cells that become sticky), so the win of a
spin and the mask it leaves can be taken together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import ModelError
from ..laws.stage import cell_bits
from ..spin.stops import StopTables
from ..spin.tables import PayTables

__all__ = ["LineAutomaton", "PairTables", "SplitTables", "automaton", "pair_tables", "split_tables"]

IntArray = npt.NDArray[np.int64]
ObjArray = npt.NDArray[np.object_]


@dataclass(frozen=True, eq=False)
class LineAutomaton:
    """A line's win read reel by reel: ``step[r][s, symbol]`` the state after reel ``r``; ``pay[s]`` at the end.

    A state is (the pay entries whose run still covers every reel so far, the best pay of
    the entries whose run has ended); states are numbered per depth (``sizes[r]`` after
    ``r`` reels; one state before the first).
    """

    step: tuple[IntArray, ...]
    pay: IntArray
    sizes: tuple[int, ...]


def automaton(t: PayTables) -> LineAutomaton:
    """The line rule of ``t`` as an automaton (wilds without multipliers).

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.spin.tables import pay_tables
    >>> a = automaton(pay_tables(load_game("data/games/warlords.toml")))
    >>> a.sizes[0], len(a.pay) == a.sizes[-1]
    (1, True)
    """
    if np.any(t.mult != 1):
        msg = "second moments with forced cells need wilds without multipliers"
        raise ModelError(msg)
    n_entries, n_reels = t.pay.shape[0], t.n_reels
    masks = [sum(1 << e for e in range(n_entries) if t.match[e, s]) for s in range(t.n_ids)]
    pay = t.pay.tolist()
    states: list[tuple[int, int]] = [((1 << n_entries) - 1, 0)]
    steps = []
    sizes = [1]
    for r in range(n_reels):
        index: dict[tuple[int, int], int] = {}
        step = np.zeros((len(states), t.n_ids), dtype=np.int64)
        for i, (alive, best) in enumerate(states):
            for s, m in enumerate(masks):
                still = alive & m
                died = alive & ~m
                b = max([best, *(pay[e][r] for e in range(n_entries) if died >> e & 1)])
                step[i, s] = index.setdefault((still, b), len(index))
        steps.append(step)
        states = list(index)
        sizes.append(len(states))
    final = np.array([max([best, *(pay[e][n_reels] for e in range(n_entries) if alive >> e & 1)])
                      for alive, best in states], dtype=np.int64)
    return LineAutomaton(tuple(steps), final, tuple(sizes))


def _pass(a: LineAutomaton, b_step: list[IntArray], b_final: IntArray | None, b_sizes: list[int],
          reels: list[list[tuple[int, IntArray, IntArray, IntArray]]]) -> ObjArray:
    """One forward pass over the reels of line automaton ``a`` beside a second automaton ``b``.

    ``reels[r]`` lists the reel's options ``(u, sym_a, sym_b, weights)``: per stop, the symbol
    ``a`` reads, the input ``b`` reads, and its weight.  The result is indexed ``[option code,
    b's final state]`` (``b_final is None``) or ``[option code]`` (``a``'s pay × ``b``'s final value),
    integer credits over the cycle.  The counts of the states before the last reel are below the
    cycle (exact in floating point below 2⁵³); the last reel is paid in integers.
    """
    n = len(reels)
    from scipy import sparse  # here, not at the top: a one-shot `mathkit par` of a game without pairs loads no scipy

    v = np.ones((1, 1), dtype=np.float64)  # [option prefix, state a × state b]
    for r, options in enumerate(reels[:-1]):
        sa, sb = a.sizes[r + 1], b_sizes[r + 1]
        out = np.zeros((v.shape[0], 4, sa * sb), dtype=np.float64)
        live: npt.NDArray[np.bool_] = np.asarray(v.any(axis=0))
        for u, sym_a, sym_b, w in options:
            ia = a.step[r][:, sym_a]  # [state a, stop]
            ib = b_step[r][:, sym_b]  # [state b, stop]
            cols = (ia[:, None, :] * sb + ib[None, :, :]).reshape(-1)
            rows = np.repeat(np.arange(ia.shape[0] * ib.shape[0]), len(w))
            ww = np.tile(w.astype(np.float64), ia.shape[0] * ib.shape[0])
            keep = live[rows]
            k = sparse.csr_matrix((ww[keep], (rows[keep], cols[keep])), shape=(v.shape[1], sa * sb))
            out[:, u, :] = (k.T @ v.T).T
        v = out.reshape(out.shape[0] * 4, sa * sb)
    counts = np.rint(v).astype(np.int64)
    r = n - 1
    sa, sb = a.sizes[r], b_sizes[r]
    n_out = 1 if b_final is not None else b_sizes[n]
    top = int(a.pay.max(initial=0)) * (1 if b_final is None else int(b_final.max(initial=0)))
    kind: type = np.int64 if int(v.sum(axis=1).max(initial=0)) * max(top, 1) * int(max(
        (int(w.sum()) for _, _, _, w in reels[-1]), default=1)) < 2**62 else object
    result = np.zeros((counts.shape[0], 4, n_out), dtype=object)
    counts_k: npt.NDArray[Any] = counts.astype(kind)
    for u, sym_a, sym_b, w in reels[r]:
        pa = a.pay[a.step[r][:, sym_a]] * w[None, :]  # [state a, stop]: the pay, weighted
        g: npt.NDArray[Any]
        if b_final is not None:
            g = (pa.astype(kind) @ b_final[b_step[r][:, sym_b]].T.astype(kind)).reshape(sa * sb, 1)
        else:
            g3 = np.zeros((sa, sb, n_out), dtype=np.int64)
            dest = b_step[r][:, sym_b]  # [state b, stop]
            for i in range(len(w)):
                g3[:, np.arange(sb), dest[:, i]] += pa[:, i][:, None]
            g = g3.reshape(sa * sb, n_out).astype(kind)
        result[:, u, :] = counts_k @ g
    # option codes: the first reel is the most significant digit so far: re-order to u₁ + 4u₂ + …
    flat: npt.NDArray[Any] = result.reshape((4,) * n + (n_out,)).transpose((*range(n - 1, -1, -1), n)).reshape(4**n, n_out)
    return flat[:, 0] if b_final is not None else flat


def _options(st: StopTables, r: int, rows: tuple[int, int], symbol: int) -> list[tuple[int, IntArray, IntArray, IntArray]]:
    """A reel's options for a pair of cells (rows ``rows``): each forced or not, the symbols each reads."""
    col = st.cols[r]
    w = st.weights[r]
    out = []
    for u in range(4):
        f1, f2 = u & 1, u >> 1
        if rows[0] == rows[1] and f1 != f2:
            continue  # one cell
        a = np.full(len(w), symbol, dtype=np.int64) if f1 else col[:, rows[0]]
        b = np.full(len(w), symbol, dtype=np.int64) if f2 else col[:, rows[1]]
        out.append((u, a, b, w))
    return out


@dataclass(frozen=True, eq=False)
class PairTables:
    """Per pair of lines ``(l, l')`` with ``l ≤ l'``: ``values[(l, l')][code]``, Σ over the cycle of ``w_l·w_l'``.

    ``code`` packs, per reel ``r``, ``u_r = f + 2f'`` (whether the cell of ``l``, and of ``l'``, on
    reel ``r`` is forced) as ``Σ u_r·4^r``.  ``lines[l][r]`` is the row of line ``l``; ``rows`` the
    window height per reel; ``cycle`` the spin's cycle.
    """

    values: dict[tuple[int, int], ObjArray]
    lines: tuple[tuple[int, ...], ...]
    rows: tuple[int, ...]
    cycle: int

    def codes(self, a: int, b: int, masks: IntArray) -> IntArray:
        """The option code of pair ``(a, b)`` under every window mask of forced cells."""
        bits = cell_bits(self.rows)
        code = np.zeros(len(masks), dtype=np.int64)
        for r in range(len(self.rows)):
            fa = (masks >> (bits[r] + self.lines[a][r])) & 1
            fb = (masks >> (bits[r] + self.lines[b][r])) & 1
            code += (fa + 2 * fb) << (2 * r)
        return code

    def masks_m2(self, masks: IntArray) -> ObjArray:
        """Σ over the cycle of ``X²`` for every window mask's forced spin (exact integers)."""
        masks = np.asarray(masks, dtype=np.int64)
        total = np.zeros(len(masks), dtype=object)
        for (a, b), table in self.values.items():
            part = table[self.codes(a, b, masks)]
            total = total + (part if a == b else 2 * part)
        return total


def pair_tables(t: PayTables, st: StopTables, symbol: int) -> PairTables:
    """The pair tables of a lines spin (stop tables ``st``) with cells forced to symbol id ``symbol``.

    Examples
    --------
    >>> from mathkit.gamefile.io import load_game
    >>> from mathkit.spin.stops import stop_tables
    >>> from mathkit.laws.stage import SpinModel
    >>> from mathkit.spin.tables import pay_tables
    >>> g = load_game("data/games/benchmark_5x3.toml")
    >>> t, st = pay_tables(g), stop_tables(g, SpinModel("base"))
    >>> pt = pair_tables(t, st, t.names.index("WILD"))
    >>> len(pt.values) == 30 * 31 // 2
    True
    """
    a = automaton(t)
    lines = tuple(tuple(int(x) for x in line) for line in t.lines.tolist())
    values: dict[tuple[int, int], ObjArray] = {}
    step = list(a.step)
    sizes = list(a.sizes)
    for i in range(len(lines)):
        for j in range(i, len(lines)):
            reels = [_options(st, r, (lines[i][r], lines[j][r]), int(t.read_on(r, np.array(symbol))))  # its id on reel r
                     for r in range(st.n_reels)]
            values[(i, j)] = _pass(a, step, a.pay, sizes, reels)
    rows = tuple(int(h) for h in st.rows.tolist())
    return PairTables(values, lines, rows, st.cycle)


@dataclass(frozen=True, eq=False)
class SplitTables:
    """Per line ``l``: ``values[l][code, x]``, the line's credits over the cycle where the reels show observation
    values ``x`` (``x = Σ_r index_r · radix[r]``, ``index_r`` the position of reel ``r``'s value in ``per_reel[r]``).

    ``code`` as in :class:`PairTables` with the line's own cell only (``u_r`` is 0 or 1).
    """

    values: tuple[ObjArray, ...]
    per_reel: tuple[tuple[int, ...], ...]
    lines: tuple[tuple[int, ...], ...]
    rows: tuple[int, ...]

    def codes(self, line: int, masks: IntArray) -> IntArray:
        """The option code of ``line`` under every window mask of forced cells."""
        bits = cell_bits(self.rows)
        code = np.zeros(len(masks), dtype=np.int64)
        for r in range(len(self.rows)):
            code += ((masks >> (bits[r] + self.lines[line][r])) & 1) << (2 * r)
        return code


def split_tables(t: PayTables, st: StopTables, symbol: int, obs: tuple[IntArray, ...]) -> SplitTables:
    """Every line's credits with cells forced to ``symbol``, split by the per-stop observation ``obs[r]`` of each reel."""
    a = automaton(t)
    n = st.n_reels
    per_reel = tuple(tuple(sorted(set(o.tolist()))) for o in obs)
    sizes = [1]
    for vals in per_reel:
        sizes.append(sizes[-1] * len(vals))
    b_step = [np.array([[s + i * sizes[r] for i in range(len(per_reel[r]))] for s in range(sizes[r])], dtype=np.int64)
              for r in range(n)]
    index = [np.searchsorted(np.array(per_reel[r]), obs[r]).astype(np.int64) for r in range(n)]
    lines = tuple(tuple(int(x) for x in line) for line in t.lines.tolist())
    out = []
    for line in lines:
        reels = []
        for r in range(n):
            col, w = st.cols[r], st.weights[r]
            forced = np.full(len(w), int(t.read_on(r, np.array(symbol))), dtype=np.int64)  # its id on reel r
            reels.append([(0, col[:, line[r]], index[r], w), (1, forced, index[r], w)])
        out.append(_pass(a, b_step, None, sizes, reels))
    return SplitTables(tuple(out), per_reel, lines, tuple(int(h) for h in st.rows.tolist()))
