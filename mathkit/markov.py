"""Absorbing Markov reward chains: the model behind free spins, re-spins and gambles.

A feature is a walk on finitely many *transient* states ``0 .. n-1`` (each with a
hashable label such as ``"spins=3"``).  From state ``i`` one step draws an
*outcome* ``(reward, next_state, probability)``: the step pays ``reward`` credits
and moves to ``next_state``, a transient state or :data:`ABSORB` (the feature is
over).  The reward is drawn jointly with the move, so a free spin's win can
depend on whether it retriggers.

With ``Q`` the transient-to-transient probabilities and ``r̄_i`` the expected
reward of one step from ``i``, the expected total reward ``v`` solves
``(I - Q) v = r̄`` and the second moment ``s`` solves
``(I - Q) s = Σ_o p_o (r_o² + 2 r_o v_next(o))``.  These are linear solves, never
an inverse: exact over Fractions (sparse Gaussian elimination in a
block-triangular order, so an acyclic chain is plain back-substitution) for
small chains, ``scipy.sparse.linalg.spsolve`` in float64 for large ones.

Examples
--------
A spin that pays 0 or 10 credits with probability 1/2 each, then ends:

>>> one = RewardChain.from_outcomes(["spin"], [[(0, ABSORB, 1), (10, ABSORB, 1)]])
>>> one.expected_reward("spin"), one.reward_variance("spin")
(Fraction(5, 1), Fraction(25, 1))
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Final, Literal, overload

import numpy as np
import numpy.typing as npt
from scipy import sparse
from scipy.signal import fftconvolve
from scipy.sparse import csgraph
from scipy.sparse.linalg import spsolve

from .errors import ModelError

__all__ = [
    "ABSORB",
    "EXACT_MAX_STATES",
    "FFT_MIN_SUPPORT",
    "ExactLU",
    "RewardChain",
    "RewardDistribution",
    "exact_lu",
    "geometric_check",
    "never_ending",
]

ABSORB: Final = -1
"""The ``next_state`` of an outcome that ends the feature."""
EXACT_MAX_STATES: Final = 300
"""``exact=None`` solves exactly up to this many states, in float64 above.

Exact solves of banded or triangular chains (remaining-spins, locked-positions)
take well under a second at this size; a chain whose elimination fills in
densely costs about n³ Fraction operations on growing numbers (1 s at 100 states).
"""
FFT_MIN_SUPPORT: Final = 512
"""Convolutions use an FFT only when both supports are at least this long."""

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Outcome = tuple[int, int, Fraction]
"""A validated outcome: ``(reward, next_state, probability > 0)``."""


def _as_int(x: object) -> int | None:
    """``x`` as a Python int when it is an integer (bool excluded), else ``None``."""
    if isinstance(x, int | np.integer) and not isinstance(x, bool):
        return int(x)
    return None


def _normalise(
    label: Hashable, raw: Iterable[tuple[object, object, object]]
) -> tuple[Outcome, ...]:
    """Outcomes of one state with exact probabilities, merged and sorted (zero ones dropped)."""
    items = list(raw)
    probs: list[Fraction] = []
    weights: list[int] = []
    for _, _, p in items:
        w = _as_int(p)
        if w is not None:
            weights.append(w)
            probs.append(Fraction(w))
        elif isinstance(p, Fraction):
            probs.append(p)
        else:
            msg = f"state {label!r}: probability {p!r} is not a Fraction or an integer weight"
            raise ModelError(msg)
    if any(p < 0 for p in probs):
        msg = f"state {label!r}: negative probability in {[str(p) for p in probs]}"
        raise ModelError(msg)
    if len(weights) == len(probs):  # all integer weights: normalise
        total = sum(weights)
        if total == 0:
            msg = f"state {label!r}: no outcome has positive weight"
            raise ModelError(msg)
        probs = [Fraction(w, total) for w in weights]
    merged: dict[tuple[int, int], Fraction] = {}
    for (reward, nxt, _), p in zip(items, probs, strict=True):
        r, j = _as_int(reward), _as_int(nxt)
        if r is None or j is None:
            msg = f"state {label!r}: reward and next state must be integers, got {(reward, nxt)!r}"
            raise ModelError(msg)
        merged[r, j] = merged.get((r, j), Fraction(0)) + p
    return tuple(sorted((r, j, p) for (r, j), p in merged.items() if p != 0))


def never_ending(outcomes: Sequence[Sequence[Outcome]]) -> list[int]:
    """States from which :data:`ABSORB` cannot be reached (breadth-first search backwards)."""
    n = len(outcomes)
    src = [j if j != ABSORB else n for row in outcomes for _, j, _ in row]
    dst = [i for i, row in enumerate(outcomes) for _ in row]
    back = sparse.csr_array((np.ones(len(src)), (src, dst)), shape=(n + 1, n + 1))
    reached = csgraph.breadth_first_order(back, n, directed=True, return_predecessors=False)
    ends = np.zeros(n + 1, dtype=bool)
    ends[reached] = True
    return [i for i in range(n) if not ends[i]]


def _block_order(outcomes: Sequence[Sequence[Outcome]]) -> list[int]:
    """States with every strongly connected block before the blocks it leads to.

    In this order ``I - Q`` is block upper triangular: elimination fills in only
    inside blocks, and an acyclic chain needs back-substitution only.
    """
    n = len(outcomes)
    edges = {(i, j) for i, row in enumerate(outcomes) for _, j, _ in row if j != ABSORB}
    rows, cols = zip(*edges, strict=True) if edges else ((), ())
    graph = sparse.csr_array((np.ones(len(edges)), (rows, cols)), shape=(n, n))
    _, comp = csgraph.connected_components(graph, directed=True, connection="strong")
    succ: dict[int, set[int]] = {}
    indeg = dict.fromkeys(range(int(comp.max()) + 1 if n else 0), 0)
    for i, j in edges:
        a, b = int(comp[i]), int(comp[j])
        if a != b and b not in succ.setdefault(a, set()):
            succ[a].add(b)
            indeg[b] += 1
    first = {int(c): i for i, c in reversed(list(enumerate(comp)))}
    ready = [(first[c], c) for c, d in indeg.items() if d == 0]
    heapq.heapify(ready)
    rank: dict[int, int] = {}
    while ready:
        _, c = heapq.heappop(ready)
        rank[c] = len(rank)
        for b in succ.get(c, ()):
            indeg[b] -= 1
            if indeg[b] == 0:
                heapq.heappush(ready, (first[b], b))
    return sorted(range(n), key=lambda i: (rank[int(comp[i])], i))


@dataclass(frozen=True)
class ExactLU:
    """An exact LU factorisation of ``I - Q`` in a permuted order (see :func:`exact_lu`)."""

    order: tuple[int, ...]
    lower: tuple[tuple[tuple[int, Fraction], ...], ...]
    upper: tuple[tuple[tuple[int, Fraction], ...], ...]
    diag: tuple[Fraction, ...]

    def solve(self, b: Sequence[Fraction]) -> list[Fraction]:
        """``x`` with ``(I - Q) x = b`` (both indexed by state), exactly."""
        y = [Fraction(b[i]) for i in self.order]
        for k, col in enumerate(self.lower):
            for r, f in col:
                y[r] -= f * y[k]
        x = [Fraction(0)] * len(y)
        for k in range(len(y) - 1, -1, -1):
            x[k] = (y[k] - sum((u * x[c] for c, u in self.upper[k]), Fraction(0))) / self.diag[k]
        out = [Fraction(0)] * len(y)
        for k, i in enumerate(self.order):
            out[i] = x[k]
        return out


def exact_lu(outcomes: Sequence[Sequence[Outcome]]) -> ExactLU:
    """Factorise ``I - Q`` over Fractions by sparse Gaussian elimination.

    No pivoting is needed: when every state reaches absorption, ``I - Q`` is a
    nonsingular M-matrix, so (in any symmetric order) every pivot is positive.
    """
    order = _block_order(outcomes)
    pos = {i: k for k, i in enumerate(order)}
    rows: list[dict[int, Fraction]] = []
    below: list[set[int]] = [set() for _ in order]  # below[c]: rows r > c with an entry in column c
    for r, i in enumerate(order):
        row = {r: Fraction(1)}
        for _, j, p in outcomes[i]:
            if j != ABSORB:
                c = pos[j]
                row[c] = row.get(c, Fraction(0)) - p
                if c < r:
                    below[c].add(r)
        rows.append(row)
    lower: list[tuple[tuple[int, Fraction], ...]] = []
    for k, pivot_row in enumerate(rows):
        pivot = pivot_row[k]
        if pivot <= 0:  # impossible for a chain that passed never_ending()
            msg = "I - Q is singular: some state never reaches the end"
            raise ModelError(msg)
        tail = [(c, v) for c, v in pivot_row.items() if c > k]
        col = []
        for r in sorted(below[k]):
            a = rows[r].pop(k, Fraction(0))
            if a == 0:
                continue
            f = a / pivot
            col.append((r, f))
            for c, v in tail:
                new = rows[r].get(c, Fraction(0)) - f * v
                if new == 0:
                    rows[r].pop(c, None)
                else:
                    rows[r][c] = new
                    if c < r:
                        below[c].add(r)
        lower.append(tuple(col))
    upper = tuple(tuple((c, v) for c, v in row.items() if c > k) for k, row in enumerate(rows))
    diag = tuple(row[k] for k, row in enumerate(rows))
    return ExactLU(tuple(order), tuple(lower), upper, diag)


def _convolve(a: FloatArray, b: FloatArray) -> FloatArray:
    """``a * b``; by FFT when both are long, with its round-off below the noise floor set to 0."""
    if min(len(a), len(b)) < FFT_MIN_SUPPORT:
        return np.convolve(a, b)
    out = np.asarray(fftconvolve(a, b), dtype=np.float64)
    floor = 8 * np.finfo(np.float64).eps * math.sqrt(len(out)) * np.linalg.norm(a) * np.linalg.norm(b)
    out[out <= floor] = 0.0
    return out


def _add(acc: tuple[int, FloatArray] | None, off: int, arr: FloatArray) -> tuple[int, FloatArray]:
    """Sum of two masses indexed by reward from an offset: ``(offset, dense array)``."""
    if acc is None:
        return off, arr.copy()
    a_off, a = acc
    lo, hi = min(a_off, off), max(a_off + len(a), off + len(arr))
    if lo == a_off and hi == a_off + len(a):
        a[off - lo : off - lo + len(arr)] += arr
        return acc
    out = np.zeros(hi - lo)
    out[a_off - lo : a_off - lo + len(a)] += a
    out[off - lo : off - lo + len(arr)] += arr
    return lo, out


@dataclass(frozen=True, eq=False)
class RewardDistribution:
    """The distribution of a chain's total reward (see :meth:`RewardChain.total_reward_distribution`).

    Attributes
    ----------
    values
        Total rewards with positive probability, increasing.
    probs
        Their probabilities.
    lost_mass
        Probability still inside the chain when the propagation stopped (at most ``tol``).
    steps
        Steps propagated.
    """

    values: IntArray
    probs: FloatArray
    lost_mass: float
    steps: int

    @property
    def mean(self) -> float:
        """Mean of the computed part (``lost_mass`` left out)."""
        return float(np.dot(self.values.astype(np.float64), self.probs))


@dataclass(frozen=True, eq=False)
class RewardChain:
    """An absorbing Markov chain whose steps pay rewards.

    Build one with :meth:`from_outcomes`; construction checks that the
    probabilities of every state sum to exactly 1 and that every state can reach
    the end (:class:`~mathkit.errors.ModelError` otherwise).

    Attributes
    ----------
    labels
        One hashable label per transient state; methods take labels as ``start``.
    outcomes
        Per state, ``(reward, next_state, probability)`` with probability > 0.

    Examples
    --------
    A free spin wins 2 credits and ends with probability 3/4, or wins 0 and plays again:

    >>> chain = RewardChain.from_outcomes(["spin"], [[(2, ABSORB, 3), (0, 0, 1)]])
    >>> chain.expected_steps("spin"), chain.expected_reward("spin")
    (Fraction(4, 3), Fraction(2, 1))
    >>> round(chain.survival(2, "spin"), 6)
    0.0625
    """

    labels: tuple[Hashable, ...]
    outcomes: tuple[tuple[Outcome, ...], ...]

    def __post_init__(self) -> None:
        n = len(self.labels)
        if n == 0 or len(self.outcomes) != n:
            msg = f"{n} state labels and outcomes for {len(self.outcomes)} states: need as many, at least 1"
            raise ModelError(msg)
        if len(set(self.labels)) != n:
            dup = sorted({repr(x) for x in self.labels if self.labels.count(x) > 1})
            msg = f"duplicate state labels: {', '.join(dup)}"
            raise ModelError(msg)
        for label, row in zip(self.labels, self.outcomes, strict=True):
            for reward, nxt, p in row:
                if not (_as_int(reward) is not None and reward >= 0):
                    msg = f"state {label!r}: reward {reward!r} is not a non-negative integer"
                    raise ModelError(msg)
                if not (_as_int(nxt) is not None and (nxt == ABSORB or 0 <= nxt < n)):
                    msg = f"state {label!r}: next state {nxt!r} is not ABSORB (-1) or in 0..{n - 1}"
                    raise ModelError(msg)
                if not (isinstance(p, Fraction) and p > 0):
                    msg = f"state {label!r}: probability {p!r} is not a positive Fraction"
                    raise ModelError(msg)
            total = sum((p for _, _, p in row), Fraction(0))
            if total != 1:
                msg = f"state {label!r}: probabilities sum to {total}, not 1"
                raise ModelError(msg)
        stuck = never_ending(self.outcomes)
        if stuck:
            names = tuple(self.labels[i] for i in stuck)
            msg = f"states {names!r} never reach the end: the feature would never finish"
            raise ModelError(msg)

    @classmethod
    def from_outcomes(
        cls,
        labels: Iterable[Hashable],
        outcomes_per_state: Iterable[Iterable[tuple[int, int, Fraction | int]]],
    ) -> RewardChain:
        """Build a chain from per-state outcome lists.

        Parameters
        ----------
        labels
            One hashable label per transient state.
        outcomes_per_state
            Per state, ``(reward, next_state, probability)`` triples: ``reward`` a
            non-negative integer, ``next_state`` a state index or :data:`ABSORB`.
            Probabilities are Fractions summing to exactly 1, or, when all of a
            state's are integers, weights normalised by their sum.  Outcomes with
            equal ``(reward, next_state)`` are merged; zero ones dropped.

        Raises
        ------
        ModelError
            On a negative or non-exact probability, a sum other than 1, a next
            state out of range, or a state that can never reach the end.
        """
        labs, raws = tuple(labels), list(outcomes_per_state)
        if len(raws) != len(labs):
            msg = f"{len(labs)} state labels but outcomes for {len(raws)} states"
            raise ModelError(msg)
        return cls(labs, tuple(_normalise(lab, raw) for lab, raw in zip(labs, raws, strict=True)))

    # --- structure -------------------------------------------------------------------
    @property
    def n_states(self) -> int:
        return len(self.labels)

    def index(self, label: Hashable) -> int:
        """The state index of ``label``."""
        try:
            return self._index[label]
        except KeyError:
            msg = f"no state labelled {label!r}"
            raise ModelError(msg) from None

    @cached_property
    def _index(self) -> dict[Hashable, int]:
        return {lab: i for i, lab in enumerate(self.labels)}

    @cached_property
    def _flat(self) -> tuple[IntArray, IntArray, IntArray, FloatArray]:
        """All outcomes as arrays: source state, reward, next state, probability."""
        ints = np.array([(i, r, j) for i, row in enumerate(self.outcomes) for r, j, _ in row], dtype=np.int64)
        prob = np.array([float(p) for row in self.outcomes for _, _, p in row], dtype=np.float64)
        return ints[:, 0], ints[:, 1], ints[:, 2], prob

    @cached_property
    def _lu(self) -> ExactLU:
        return exact_lu(self.outcomes)

    @cached_property
    def _q(self) -> sparse.csr_array:
        src, _, nxt, prob = self._flat
        keep = nxt != ABSORB
        n = self.n_states
        return sparse.csr_array((prob[keep], (src[keep], nxt[keep])), shape=(n, n))

    @cached_property
    def _i_minus_q(self) -> sparse.csr_array:
        return sparse.csr_array(sparse.eye_array(self.n_states, format="csr") - self._q)

    def _exact(self, exact: bool | None) -> bool:
        return self.n_states <= EXACT_MAX_STATES if exact is None else exact

    # --- solves ----------------------------------------------------------------------
    @cached_property
    def _exact_memo(self) -> dict[bool, list[Fraction]]:
        return {}

    def _exact_means(self, unit: bool) -> list[Fraction]:
        """Exact expected total reward (``unit``: number of steps) from every state (kept)."""
        if unit not in self._exact_memo:
            rhs = [Fraction(1) if unit else sum((r * p for r, _, p in row), Fraction(0)) for row in self.outcomes]
            self._exact_memo[unit] = self._lu.solve(rhs)
        return self._exact_memo[unit]

    def _float_means(self, unit: bool) -> FloatArray:
        """Float64 expected total reward (``unit``: number of steps) from every state."""
        src, rew, _, prob = self._flat
        weights = prob if unit else prob * rew
        b = np.bincount(src, weights=weights, minlength=self.n_states)
        return np.asarray(spsolve(self._i_minus_q, b), dtype=np.float64).reshape(-1)

    def _means(self, unit: bool, exact: bool | None) -> list[Fraction] | FloatArray:
        return self._exact_means(unit) if self._exact(exact) else self._float_means(unit)

    def _pick(
        self, values: list[Fraction] | FloatArray, start: Hashable | None
    ) -> Fraction | float | tuple[Fraction, ...] | FloatArray:
        if start is None:
            return tuple(values) if isinstance(values, list) else values
        i = self.index(start)
        return values[i] if isinstance(values, list) else float(values[i])

    # A label is Hashable and so is None: the start=None overloads come first (hence the ignores).
    @overload
    def expected_reward(self, start: None = None, *, exact: Literal[True]) -> tuple[Fraction, ...]: ...  # type: ignore[overload-overlap]
    @overload
    def expected_reward(self, start: None = None, *, exact: Literal[False]) -> FloatArray: ...  # type: ignore[overload-overlap]
    @overload
    def expected_reward(  # type: ignore[overload-overlap]
        self, start: None = None, *, exact: bool | None = None
    ) -> tuple[Fraction, ...] | FloatArray: ...
    @overload
    def expected_reward(self, start: Hashable, *, exact: Literal[True]) -> Fraction: ...
    @overload
    def expected_reward(self, start: Hashable, *, exact: Literal[False]) -> float: ...
    @overload
    def expected_reward(self, start: Hashable, *, exact: bool | None = None) -> Fraction | float: ...
    def expected_reward(
        self, start: Hashable | None = None, *, exact: bool | None = None
    ) -> Fraction | float | tuple[Fraction, ...] | FloatArray:
        """Expected total reward until the end, from ``start`` or (``None``) from every state.

        Exact (a Fraction, or a tuple of them) when ``exact`` is true, float64
        (a float, or an array) when false; ``None`` picks exact up to
        :data:`EXACT_MAX_STATES` states.
        """
        return self._pick(self._means(False, exact), start)

    @overload
    def expected_steps(self, start: None = None, *, exact: Literal[True]) -> tuple[Fraction, ...]: ...  # type: ignore[overload-overlap]
    @overload
    def expected_steps(self, start: None = None, *, exact: Literal[False]) -> FloatArray: ...  # type: ignore[overload-overlap]
    @overload
    def expected_steps(  # type: ignore[overload-overlap]
        self, start: None = None, *, exact: bool | None = None
    ) -> tuple[Fraction, ...] | FloatArray: ...
    @overload
    def expected_steps(self, start: Hashable, *, exact: Literal[True]) -> Fraction: ...
    @overload
    def expected_steps(self, start: Hashable, *, exact: Literal[False]) -> float: ...
    @overload
    def expected_steps(self, start: Hashable, *, exact: bool | None = None) -> Fraction | float: ...
    def expected_steps(
        self, start: Hashable | None = None, *, exact: bool | None = None
    ) -> Fraction | float | tuple[Fraction, ...] | FloatArray:
        """Expected number of steps until the end (as :meth:`expected_reward` with reward 1)."""
        return self._pick(self._means(True, exact), start)

    @overload
    def reward_variance(self, start: Hashable, *, exact: Literal[True]) -> Fraction: ...
    @overload
    def reward_variance(self, start: Hashable, *, exact: Literal[False]) -> float: ...
    @overload
    def reward_variance(self, start: Hashable, *, exact: bool | None = None) -> Fraction | float: ...
    def reward_variance(self, start: Hashable, *, exact: bool | None = None) -> Fraction | float:
        """Variance of the total reward from ``start``.

        The second moment solves ``(I - Q) s = Σ_o p_o (r_o² + 2 r_o v_next(o))``
        (``v`` the expected reward, 0 at the end); the variance is ``s - v²``.
        """
        i = self.index(start)
        if self._exact(exact):
            v = self._exact_means(False)
            rhs = [
                sum((p * (r * r + 2 * r * (v[j] if j != ABSORB else 0)) for r, j, p in row), Fraction(0))
                for row in self.outcomes
            ]
            s = self._lu.solve(rhs)
            return s[i] - v[i] ** 2
        vf = self._float_means(False)
        src, rew, nxt, prob = self._flat
        v_next = np.where(nxt == ABSORB, 0.0, vf[np.maximum(nxt, 0)])
        rf = rew.astype(np.float64)
        b = np.bincount(src, weights=prob * (rf * rf + 2 * rf * v_next), minlength=self.n_states)
        s_f = np.asarray(spsolve(self._i_minus_q, b), dtype=np.float64).reshape(-1)
        return float(s_f[i] - vf[i] ** 2)

    # --- distributions ---------------------------------------------------------------
    def survival(self, n: int, start: Hashable) -> float:
        """``P(number of steps > n)`` from ``start``, by propagating the transient mass."""
        if n < 0:
            msg = f"survival needs n >= 0, got {n}"
            raise ModelError(msg)
        x = np.zeros(self.n_states)
        x[self.index(start)] = 1.0
        qt = sparse.csr_array(self._q.T)
        for _ in range(n):
            x = qt @ x
        return float(x.sum())

    @cached_property
    def _kernels(self) -> tuple[tuple[tuple[int, int, FloatArray], ...], ...]:
        """Per state, per next state: ``(next, min reward, dense reward probabilities)``."""
        out = []
        for row in self.outcomes:
            by_next: dict[int, list[tuple[int, float]]] = {}
            for r, j, prob in row:
                by_next.setdefault(j, []).append((r, float(prob)))
            ks = []
            for j, pairs in sorted(by_next.items()):
                lo = min(r for r, _ in pairs)
                arr = np.zeros(max(r for r, _ in pairs) - lo + 1)
                for r, q in pairs:
                    arr[r - lo] += q
                ks.append((j, lo, arr))
            out.append(tuple(ks))
        return tuple(out)

    def total_reward_distribution(
        self, start: Hashable, *, tol: float = 1e-12, max_steps: int = 100_000
    ) -> RewardDistribution:
        """The distribution of the total reward from ``start``, in float64.

        The joint mass of (state, reward so far) is pushed forward one step at a
        time (per state a dense array over rewards, convolved with that state's
        reward distribution towards each next state); mass reaching the end is
        collected.  It stops once the mass still inside is at most ``tol``.
        Convolutions of two supports of :data:`FFT_MIN_SUPPORT` or more points use
        an FFT, whose round-off (about 1e-16 of the mass involved) is set to 0.

        Raises
        ------
        ModelError
            If more than ``tol`` of the mass is still inside after ``max_steps`` steps.

        Examples
        --------
        >>> chain = RewardChain.from_outcomes(["spin"], [[(2, ABSORB, 3), (0, 0, 1)]])
        >>> d = chain.total_reward_distribution("spin", tol=1e-9)
        >>> d.values.tolist(), d.lost_mass < 1e-9, d.steps
        ([2], True, 15)
        """
        if not 0 <= tol < 1:
            msg = f"tol must be in [0, 1), got {tol}"
            raise ModelError(msg)
        mass: dict[int, tuple[int, FloatArray]] = {self.index(start): (0, np.ones(1))}
        done: tuple[int, FloatArray] | None = None
        remaining = 1.0
        for step in range(1, max_steps + 1):  # noqa: B007 (step is reported)
            new: dict[int, tuple[int, FloatArray]] = {}
            for i, (off, arr) in mass.items():
                for j, k_off, kernel in self._kernels[i]:
                    conv = _convolve(arr, kernel)
                    if j == ABSORB:
                        done = _add(done, off + k_off, conv)
                    else:
                        new[j] = _add(new.get(j), off + k_off, conv)
            mass = {}
            for j, (off, arr) in new.items():
                nz = np.flatnonzero(arr)
                if len(nz):
                    mass[j] = (off + int(nz[0]), arr[nz[0] : nz[-1] + 1])
            remaining = float(sum(arr.sum() for _, arr in mass.values()))
            if remaining <= tol:
                break
        else:
            msg = (
                f"after {max_steps} steps from {start!r}, {remaining:.3g} of the probability is "
                f"still inside the chain (tol {tol:g}): raise max_steps or tol"
            )
            raise ModelError(msg)
        off, arr = done if done is not None else (0, np.zeros(0))
        nz = np.flatnonzero(arr > 0)
        return RewardDistribution((off + nz).astype(np.int64), arr[nz], remaining, step)


def geometric_check(m: Fraction | int, rule: str, *, unit: str = "spin") -> Fraction:
    """Refuse a retrigger rule that adds on average one step or more per step.

    A feature whose every step adds on average ``m`` steps has expected length
    ``n / (1 - m)`` from ``n`` steps when ``m < 1``, and never ends on average
    when ``m >= 1``.

    Parameters
    ----------
    m
        Expected steps added per step (for example P(retrigger) × spins added).
    rule
        The rule in words, with its numbers; it starts the error message.
    unit
        What a step is called (``"spin"``, ``"re-spin"``).

    Returns
    -------
    Fraction
        ``1 / (1 - m)``: the expected length per initial step.

    Raises
    ------
    ModelError
        When ``m >= 1`` (or ``m < 0``), with the message
        ``"{rule}: {m:.4g} added {unit}s per {unit} ≥ 1, the feature never ends on average"``.

    Examples
    --------
    >>> geometric_check(Fraction(1, 10) * 5, "3+ scatters add 5 spins with probability 0.1 per spin")
    Fraction(2, 1)
    >>> rule = "3+ Emperors add 10 spins with probability 0.104 per spin"
    >>> geometric_check(Fraction(104, 1000) * 10, rule)
    Traceback (most recent call last):
    ...
    mathkit.errors.ModelError: 3+ Emperors add 10 spins with probability 0.104 per spin: 1.04 added spins \
per spin ≥ 1, the feature never ends on average
    """
    m = Fraction(m)
    if m < 0:
        msg = f"{rule}: {float(m):.4g} added {unit}s per {unit} is negative"
        raise ModelError(msg)
    if m >= 1:
        msg = f"{rule}: {float(m):.4g} added {unit}s per {unit} ≥ 1, the feature never ends on average"
        raise ModelError(msg)
    return 1 / (1 - m)
