"""Free games whose window only grows: a chain on ``(games left, height)``, :class:`GrowingChain`.

A free game at height ``h`` pays ``X`` and adds ``a`` games, drawn jointly (its law by
``a``: :class:`HeightGame`); then the height moves to ``h' ≥ h`` with probability
``G[h][h']``, whatever the game did.  The feature from ``n`` games at ``h`` ends when
no game is left.  Every figure solves the same recursion with its own reward ``r``::

    V(n, h) = r_h(n) + Σ_a P_h(a) Σ_h' G[h][h'] V(n − 1 + a, h'),     V(0, ·) = 0

(the mean: ``r = E[X_h]``; the games played at ``g``: ``r = [h = g]``; the height of the
last game: ``r = [h = g, n = 1] P_h(0)``; the second moment: ``r = Σ_a P_h(a)(E[X² | a] +
2 E[X | a] Σ_h' G V₁(n − 1 + a, h'))``).  Heights only grow, so the heights are solved
from the top down.

Exact where it can be:

* at a height that never grows (``G[h][h] = 1``) the games left are independent trees
  (Wald): ``E[W | n] = n E[X] / (1 − m)``, ``E[W² | n] = n E[T²] + n(n − 1) E[T]²`` with
  ``(1 − m) E[T²] = E[X²] + 2 E[XA] E[T] + E[A(A − 1)] E[T]²``;
* a height that grows but never adds games only counts down: a finite recursion.

A height that both grows and adds games makes the value ``αn + β(1 − ρⁿ) + …`` with ``ρ``
a root of a polynomial (the walk's kernel): irrational in general.  It is solved in float64
by banded linear solves over ``n ≤ N`` (strictly diagonally dominant: ``G[h][h] < 1``), ``N``
doubled until the probability that the games left ever pass it is below ``1e-20``; those
figures are tagged ``markov``.  The win's distribution comes from its characteristic
function ``Φ_h(θ, n)``, the same recursion with complex weights (one banded solve per
frequency, :func:`_cf`), and one inverse real FFT on a grid that a Chernoff bound of the
tail covers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numba as nb
import numpy as np
import numpy.typing as npt
from scipy import fft as sfft
from scipy.linalg import solve_banded

from ...errors import ModelError
from ...laws.convolve import MAX_GRID, clean
from ...laws.law import WinLaw
from ...laws.provenance import Method
from ...laws.stage import Branch, Number
from ...model.bounds import check_cost
from ..markov import geometric_check

__all__ = ["ChainFigures", "GrowingChain", "HeightGame"]

FloatArray = npt.NDArray[np.float64]
ComplexArray = npt.NDArray[np.complex128]
LOST = 1e-20


@dataclass(frozen=True, eq=False)
class HeightGame:
    """One free game at one height: ``P(adds a)`` and the game's win given ``a`` (``by_added[a]``), its mean ``mean``."""

    mean: Number
    by_added: Mapping[int, Branch]

    def p(self, a: int) -> Number:
        return self.by_added[a].p if a in self.by_added else Fraction(0)

    @property
    def m(self) -> Number:
        """Expected games added per game."""
        return sum((a * b.p for a, b in self.by_added.items()), Fraction(0))

    @property
    def retriggers(self) -> bool:
        return any(a > 0 and b.p for a, b in self.by_added.items())


@dataclass(frozen=True, eq=False)
class ChainFigures:
    """Figures of the feature from one entry: ``mean`` and ``m2`` of the win (credits), the expected games
    played at each height (``visits``), the law of the height of the last game (``end``), how they
    were obtained, and the probability the float solve left out (``lost``)."""

    mean: Number
    m2: Number | None
    visits: Mapping[int, Number]
    end: Mapping[int, Number]
    method: Method
    lost: float = 0.0

    @property
    def length(self) -> Number:
        """Expected number of games."""
        return sum(self.visits.values(), Fraction(0))


@dataclass(frozen=True, eq=False)
class GrowingChain:
    """Free games on heights ``heights`` (increasing), one :class:`HeightGame` each, growth law ``grow``.

    ``grow[h][h']`` is P(the next game is played at ``h'`` | a game at ``h``); each row sums to 1
    over heights ``h' ≥ h``; a height whose row is ``{h: 1}`` never grows.

    Examples
    --------
    Two heights; a game at 1 pays 1 and grows with probability 1/2; at 2 it pays 3; no retrigger.
    From 2 games at height 1: W = 1 + 1 or 1 + 3 (1/2 each): E[W] = 3, E[W²] = (4 + 16)/2 = 10.

    >>> one = HeightGame(1, {0: Branch(Fraction(1), 1, 1)})
    >>> two = HeightGame(3, {0: Branch(Fraction(1), 3, 9)})
    >>> c = GrowingChain((1, 2), {1: one, 2: two}, {1: {1: Fraction(1, 2), 2: Fraction(1, 2)}, 2: {2: Fraction(1)}})
    >>> f = c.figures(2, 1, moments=True)
    >>> f.mean, f.m2, dict(f.end), f.method
    (Fraction(3, 1), Fraction(10, 1), {1: Fraction(1, 2), 2: Fraction(1, 2)}, 'exact')
    """

    heights: tuple[int, ...]
    games: Mapping[int, HeightGame]
    grow: Mapping[int, Mapping[int, Fraction]]
    rule: str = "the retrigger rule"

    def __post_init__(self) -> None:
        for h in self.heights:
            row = self.grow.get(h, {h: Fraction(1)})
            if sum(row.values(), Fraction(0)) != 1 or any(g < h or g not in self.heights for g in row):
                msg = f"height {h}: the growth law must give probabilities summing to 1 over heights {h} and above"
                raise ModelError(msg)
            if self.absorbing(h):
                geometric_check(Fraction(self.games[h].m), f"{self.rule} at height {h}", unit="game")

    def g(self, h: int, to: int) -> Fraction:
        return self.grow.get(h, {h: Fraction(1)}).get(to, Fraction(0))

    def absorbing(self, h: int) -> bool:
        """The height never grows."""
        return self.g(h, h) == 1

    def above(self, h: int) -> list[int]:
        return [x for x in self.heights if x > h and self.g(h, x)]

    def exact(self, h: int) -> bool:
        """Whether figures from height ``h`` are exact: no height reached both grows and adds games."""
        reach = [x for x in self.heights if x >= h]
        return not any(not self.absorbing(x) and self.games[x].retriggers for x in reach)

    @cached_property
    def adds(self) -> tuple[int, ...]:
        return tuple(sorted({a for x in self.heights for a in self.games[x].by_added}))

    # --- closed forms at a height that never grows --------------------------------------
    def _tree(self, h: int) -> tuple[Number, Number, Number]:
        """``(E[T], E[T²], E[games of T])`` of one game's tree at a height that never grows."""
        game = self.games[h]
        m = game.m
        t = game.mean / (1 - m)
        ex2 = sum((b.p * b.m2 for b in game.by_added.values() if b.m2 is not None), Fraction(0))
        exa = sum((a * b.p * b.mean for a, b in game.by_added.items() if b.mean is not None), Fraction(0))
        eaa = sum((a * (a - 1) * b.p for a, b in game.by_added.items()), Fraction(0))
        t2 = (ex2 + 2 * exa * t + eaa * t * t) / (1 - m)
        return t, t2, 1 / (1 - m)

    # --- figures ------------------------------------------------------------------------
    def figures(self, n: int, h: int, *, moments: bool = False) -> ChainFigures:
        """Figures of the feature from ``n`` games at height ``h``."""
        return self.all_figures(((n, h),), moments=moments)[(n, h)]

    def all_figures(self, entries: Sequence[tuple[int, int]], *,
                    moments: bool = False) -> dict[tuple[int, int], ChainFigures]:
        """:meth:`figures` of several entries (one solve for the exact ones, one for the others)."""
        out = {}
        exact = [e for e in entries if self.exact(e[1])]
        if exact:
            vals = self._solve(max(n for n, _ in exact), min(h for _, h in exact), moments, exact=True)
            out.update({e: self._pick(vals, *e, "exact", moments) for e in exact})
        rest = [e for e in entries if not self.exact(e[1])]
        if rest:
            vals = self._solve(self.size(rest), min(h for _, h in rest), moments, exact=False)
            out.update({e: self._pick(vals, *e, "markov", moments) for e in rest})
        return out

    def size(self, entries: Sequence[tuple[int, int]]) -> int:
        """The games left the float solves go to: doubled until passing it has probability below ``1e-20``."""
        size = max(64, 4 * max(n for n, _ in entries))
        low = min(h for _, h in entries)
        while True:
            lost = self._solve(size, low, False, exact=False, kinds=("lost",))["lost"]
            worst = max(float(lost[h][n]) for n, h in entries)
            if worst < LOST:
                return size
            if size > 1 << 16:
                msg = f"{self.rule}: the games left pass {size} with probability {worst:.3g}: the chain is too long"
                raise ModelError(msg)
            size *= 2

    def _pick(self, vals: Mapping[str, Mapping[int, Sequence[Number]]], n: int, h: int, method: Method,
              moments: bool) -> ChainFigures:
        visits = {g: vals[f"visits{g}"][h][n] for g in self.heights if g >= h}
        end = {g: vals[f"end{g}"][h][n] for g in self.heights if g >= h}
        mean = sum((visits[g] * self.games[g].mean for g in visits), Fraction(0))
        lost = float(vals["lost"][h][n]) if "lost" in vals else 0.0
        return ChainFigures(mean, vals["m2"][h][n] if moments else None, visits, end, method, lost)

    def _solve(self, size: int, low: int, moments: bool, *, exact: bool,
               kinds: Sequence[str] | None = None) -> dict[str, dict[int, Sequence[Number]]]:
        """Every figure's values ``V(n, h)``, ``n ≤ size``, on the heights from ``low`` up, from the top down."""
        if kinds is None:
            kinds = [*(f"visits{g}" for g in self.heights), *(f"end{g}" for g in self.heights), "lost"]
        vals: dict[str, dict[int, Sequence[Number]]] = {k: {} for k in kinds}
        if moments:
            vals["m2"] = {}
            vals["mean"] = {}
        for h in reversed([x for x in self.heights if x >= low]):
            names = list(kinds) + (["mean"] if moments else [])
            if self.absorbing(h):
                t, t2, games = self._tree(h)
                for k in names:
                    vals[k][h] = [self._closed(k, h, j, t, games) for j in range(size + 1)]
                if moments:
                    vals["m2"][h] = [j * t2 + j * (j - 1) * t * t for j in range(size + 1)]
                continue
            solve = self._exact_level if exact else self._float_level
            for k, v in zip(names, solve(h, size, [self._rewards(k, h, size, exact) for k in names],
                                         [vals[k] for k in names]), strict=True):
                vals[k][h] = v
            if moments:
                vals["m2"][h] = solve(h, size, [self._second(h, size, vals["mean"], exact)], [vals["m2"]])[0]
        return vals

    def _closed(self, kind: str, h: int, j: int, t: Number, games: Number) -> Number:
        """A figure at a height that never grows, from ``j`` games (Wald)."""
        if j == 0 or kind == "lost":
            return Fraction(0)
        if kind == "mean":
            return j * t
        if kind.startswith("visits"):
            return j * games if int(kind[6:]) == h else Fraction(0)
        return Fraction(int(int(kind[3:]) == h))  # end: the last game is at h

    def _rewards(self, kind: str, h: int, size: int, exact: bool) -> Sequence[Number]:
        """``r_h(j)`` of figure ``kind``, ``j = 0..size`` (Fractions on the exact path, floats otherwise)."""
        game = self.games[h]
        out: list[Number] = [Fraction(0)] * (size + 1)
        if kind == "mean":
            out[1:] = [game.mean] * size
        elif kind.startswith("visits"):
            out[1:] = [Fraction(int(int(kind[6:]) == h))] * size
        elif kind.startswith("end"):
            if int(kind[3:]) == h and size >= 1:
                out[1] = game.p(0)
        else:  # lost: the games added pass ``size``
            for a, b in game.by_added.items():
                for j in range(max(size + 2 - a, 1), size + 1):
                    out[j] = out[j] + b.p
        return out if exact else [float(x) for x in out]

    def _second(self, h: int, size: int, v1: Mapping[int, Sequence[Number]], exact: bool) -> list[Number]:
        """``r_h(j)`` of the second moment: ``Σ_a P(a) (E[X² | a] + 2 E[X | a] Σ_h' G V₁(j − 1 + a, h'))``."""
        out: list[Number] = [Fraction(0) if exact else 0.0] * (size + 1)
        for a, b in self.games[h].by_added.items():
            if b.mean is None or b.m2 is None:
                msg = "the second moment needs every game's moments"
                raise ModelError(msg)
            for j in range(1, size + 1):
                nxt = j - 1 + a
                cont = sum((self.g(h, x) * v1[x][nxt] for x in [h, *self.above(h)]), Fraction(0)) \
                    if nxt <= size else 0
                out[j] = out[j] + b.p * (b.m2 + 2 * b.mean * cont)
        return out

    def _exact_level(self, h: int, size: int, rhs: Sequence[Sequence[Number]],
                     done: list[Mapping[int, Sequence[Number]]]) -> list[list[Number]]:
        """A height that grows but adds no game: ``V(j) = r(j) + Σ_h' G[h][h'] V_h'(j − 1)``, counting down."""
        above = self.above(h)
        s = self.g(h, h)
        out = []
        for r, vals in zip(rhs, done, strict=True):
            v: list[Number] = [Fraction(0)]
            for j in range(1, size + 1):
                v.append(r[j] + s * v[j - 1] + sum((self.g(h, x) * vals[x][j - 1] for x in above), Fraction(0)))
            out.append(v)
        return out

    def _float_level(self, h: int, size: int, rhs: Sequence[Sequence[Number]],
                     done: list[Mapping[int, Sequence[Number]]]) -> list[list[Number]]:
        """``V_h = r + G[h][h] K V_h + Σ_{h' > h} G[h][h'] K V_h'`` on ``1..size``: one banded solve, every figure at once."""
        game = self.games[h]
        s = float(self.g(h, h))
        above = self.above(h)
        b = np.array([list(r[1:]) for r in rhs], dtype=np.float64).T  # (size, figures)
        up = np.zeros((size + 1, len(rhs)))  # Σ_{h' > h} G[h][h'] V_h'(n) per figure
        for x in above:
            up += float(self.g(h, x)) * np.array([list(vals[x]) for vals in done], dtype=np.float64).T
        for a, br in game.by_added.items():
            idx = np.arange(1, size + 1) - 1 + a  # V(j − 1 + a) for j = 1..size
            ok = (idx >= 1) & (idx <= size)
            b[ok] += float(br.p) * up[idx[ok]]
        u = max(max(self.adds) - 1, 0)
        ab = np.zeros((u + 2, size))
        col = np.arange(size)
        for a, br in game.by_added.items():
            off = a - 1  # V(j − 1 + a) sits a − 1 columns right of the diagonal
            ok = (col + off >= 0) & (col + off < size)
            ab[u - off, (col + off)[ok]] -= s * float(br.p)
        ab[u] += 1.0
        x = solve_banded((1, u), ab, b)
        return [[0.0, *x[:, i].tolist()] for i in range(len(rhs))]

    # --- the distribution ---------------------------------------------------------------
    def distributions(self, entries: Sequence[tuple[int, int]], *, tol: float = 1e-13,
                      max_size: int = 1 << 24) -> dict[tuple[int, int], WinLaw]:
        """The law of the feature's win (credits) from each entry ``(games, height)``: one FFT each."""
        laws = {(h, a): b.dist for h in self.heights for a, b in self.games[h].by_added.items() if b.p}
        if any(d is None for d in laws.values()):
            msg = "the distribution needs every game's law"
            raise ModelError(msg)
        values = np.concatenate([d.values for d in laws.values() if d is not None])
        g = int(np.gcd.reduce(values)) or 1
        size = self.size(entries)
        index = {h: i for i, h in enumerate(self.heights)}
        grow = np.array([[float(self.g(h, x)) for x in self.heights] for h in self.heights])
        adds = np.array(self.adds, dtype=np.int64)
        where = np.array([(n, index[h]) for n, h in entries], dtype=np.int64)
        top = max(int(v.max()) for d in laws.values() if d is not None for v in (d.values,))
        # the grid: a Chernoff bound P(W ≥ x) ≤ E[e^{tW}] e^{−tx} ≤ tol for the best t tried.  The chain's
        # E[e^{tW}] solves the same banded system with real weights; it is finite (and the solve is it) below
        # the t where the weighted chain's spectral radius reaches 1, where it grows without bound and the solve
        # turns negative: t rises in small steps (×2^⅛) while the solution stays ≥ 1 and grows.
        ts = 700.0 / max(top, 1) / 2.0 ** (np.arange(320, -1, -1) / 8)
        weights = np.zeros((len(ts), len(self.heights), len(adds)), dtype=np.complex128)
        for (h, a), d in laws.items():
            assert d is not None
            p = float(self.games[h].p(a))
            weights[:, index[h], list(adds).index(a)] = p * (np.exp(np.outer(ts, d.values.astype(np.float64))) @ d.probs)
        mgf: FloatArray = np.asarray(_cf(weights, adds, grow, size, where).real, dtype=np.float64)
        # (≥ 1 up to rounding: a win that is 0 in every game has E[e^{tW}] = 1 exactly, the solve 1 − ε)
        valid: npt.NDArray[np.bool_] = np.asarray(np.isfinite(mgf).all(axis=1) & (mgf >= 1.0 - 1e-9).all(axis=1))
        valid[1:] &= (mgf[1:] >= mgf[:-1] * (1 - 1e-12)).all(axis=1)
        ok = int(np.argmin(valid)) if not valid.all() else len(ts)  # the first t that fails, and every t above it
        with np.errstate(divide="ignore", invalid="ignore"):
            bound = (np.log(mgf[:ok]) - math.log(tol)) / ts[:ok, None]
        if ok == 0:
            msg = "the feature's win has no usable tail bound"
            raise ModelError(msg)
        reach = float(np.min(bound, axis=0).max())
        n_grid = sfft.next_fast_len(int(max(reach, top) // g) + 2, real=True)
        # The bound rests on E[e^{tW}] from a chain cut at ``size`` games, which can stay finite past the true
        # radius and so promise too short a grid; a grid too short wraps the tail onto the small wins.  So the
        # law is checked: a grid whose top quarter holds more than ``tol`` is doubled and solved again.
        while True:
            if n_grid > min(max_size, MAX_GRID):
                msg = f"the feature's win distribution needs {n_grid:,} points (more than {max_size:,})"
                raise ModelError(msg)
            # one banded solve per frequency, over every height and spin count: refused in time when too large
            check_cost("the growing free games' win distribution", work=(n_grid // 2 + 1) * size * len(self.heights),
                       fix="lower the largest pays: the distribution's grid reaches the feature's largest wins")
            out = self._on_grid(laws, entries, g, n_grid, size, where)
            near_top = (n_grid - n_grid // 4) * g
            if all(float(law.probs[law.values >= near_top].sum()) <= tol for law in out.values()):
                return out
            n_grid = sfft.next_fast_len(2 * n_grid, real=True)

    def _on_grid(self, laws: Mapping[tuple[int, int], WinLaw | None], entries: Sequence[tuple[int, int]],
                 g: int, n_grid: int, size: int, where: npt.NDArray[np.int64]) -> dict[tuple[int, int], WinLaw]:
        """The laws from each entry by one FFT on ``n_grid`` points of width ``g``."""
        index = {h: i for i, h in enumerate(self.heights)}
        grow = np.array([[float(self.g(h, x)) for x in self.heights] for h in self.heights])
        adds = np.array(self.adds, dtype=np.int64)
        freq = np.zeros((n_grid // 2 + 1, len(self.heights), len(adds)), dtype=np.complex128)
        for (h, a), d in laws.items():
            if d is None:
                continue
            grid = np.bincount(d.values // g, weights=d.probs, minlength=n_grid).astype(np.float64)
            freq[:, index[h], list(adds).index(a)] = float(self.games[h].p(a)) * sfft.rfft(grid)
        phi = _cf(freq, adds, grow, size, where)
        out = {}
        for e, entry in enumerate(entries):
            mass = float(phi[0, e].real)
            dense = np.asarray(sfft.irfft(phi[:, e], n_grid), dtype=np.float64)
            law = clean(dense, g, 0, mass)
            out[entry] = WinLaw(law.values, law.probs, law.lost_mass + max(1.0 - mass, 0.0))
        return out


@nb.njit(cache=True, parallel=True)
def _cf(w: ComplexArray, adds: npt.NDArray[np.int64], grow: FloatArray, size: int,
        entries: npt.NDArray[np.int64]) -> ComplexArray:  # pragma: no cover
    """``Φ_h(θ, n)`` at ``entries`` for every frequency row of ``w`` (``w[θ, h, k]``: ``P(a_k) E[e^{iθX} | a_k]``).

    Per frequency, heights from the top: the rows ``n = 1..size`` of
    ``Φ_h(n) − G[h][h] Σ_k w_k Φ_h(n − 1 + a_k) = Σ_k w_k Σ_{h'>h} G[h][h'] Φ_h'(n − 1 + a_k)`` (``Φ(0) = 1``, past
    ``size`` left out) are banded (one below the diagonal, ``max a − 1`` above) and diagonally
    dominant: Gaussian elimination without pivoting, then back substitution.
    """
    n_freq, n_h, n_a = w.shape
    u = max(int(adds.max()) - 1, 0)
    out = np.zeros((n_freq, entries.shape[0]), dtype=np.complex128)
    for f in nb.prange(n_freq):
        phi = np.zeros((n_h, size + 1), dtype=np.complex128)
        band = np.zeros((size + 1, u + 2), dtype=np.complex128)  # [sub, diag, super 1..u]
        rhs = np.zeros(size + 1, dtype=np.complex128)
        up = np.zeros(size + 1, dtype=np.complex128)
        for h in range(n_h - 1, -1, -1):
            s = grow[h, h]
            up[:] = 0
            for x in range(h + 1, n_h):
                if grow[h, x] != 0:
                    for j in range(size + 1):
                        up[j] += grow[h, x] * phi[x, j]
            up[0] = 1.0 - s  # Φ(0) = 1 at every height: the part that moved up
            band[:, :] = 0
            for j in range(1, size + 1):
                band[j, 1] = 1.0
                acc = 0j
                for k in range(n_a):
                    wk = w[f, h, k]
                    if wk == 0:
                        continue
                    nxt = j - 1 + adds[k]
                    if nxt > size:
                        continue
                    acc += wk * up[nxt]
                    if nxt == 0:
                        acc += wk * s
                    else:
                        off = nxt - j
                        band[j, off + 1] -= s * wk
                rhs[j] = acc
            for j in range(2, size + 1):  # eliminate the sub-diagonal
                if band[j, 0] != 0:
                    fct = band[j, 0] / band[j - 1, 1]
                    band[j, 0] = 0
                    for c in range(1, u + 1):
                        band[j, c] -= fct * band[j - 1, c + 1]
                    rhs[j] -= fct * rhs[j - 1]
            phi[h, 0] = 1.0
            for j in range(size, 0, -1):
                acc = rhs[j]
                for c in range(1, u + 1):
                    if j + c <= size:
                        acc -= band[j, c + 1] * phi[h, j + c]
                phi[h, j] = acc / band[j, 1]
        for e in range(entries.shape[0]):
            out[f, e] = phi[entries[e, 1], entries[e, 0]]
    return out
