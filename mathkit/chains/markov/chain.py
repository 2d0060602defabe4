"""The absorbing Markov reward chain: validated outcomes per state, expected reward, steps, variance.

:class:`RewardChain` holds the chain (read-only once built) and calls the
solvers: :mod:`mathkit.chains.markov.solve` (exact, over Fractions) or a sparse float64
solve for means and second moments, :mod:`mathkit.chains.markov.distribution` for the
whole distribution of the total reward.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Literal, overload

import numpy as np
import numpy.typing as npt
from scipy import sparse
from scipy.sparse.linalg import spsolve

from ...errors import ModelError
from ...laws.law import WinLaw
from .distribution import Kernels, propagate_rewards, reward_kernels
from .solve import ABSORB, EXACT_MAX_STATES, ExactLU, Outcome, exact_lu, never_ending

__all__ = ["RewardChain"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


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
    def _kernels(self) -> Kernels:
        """Per state, per next state: ``(next, min reward, dense reward probabilities)``."""
        return reward_kernels(self.outcomes)

    def total_reward_distribution(
        self, start: Hashable, *, tol: float = 1e-12, max_steps: int = 100_000
    ) -> WinLaw:
        """The distribution of the total reward from ``start``, in float64 (``lost_mass``: the mass still inside).

        The joint mass of (state, reward so far) is pushed forward one step at a
        time (per state a dense array over rewards, convolved with that state's
        reward distribution towards each next state); mass reaching the end is
        collected.  It stops once the mass still inside is at most ``tol``.
        Convolutions of two supports of :data:`~mathkit.chains.markov.FFT_MIN_SUPPORT` or more points use
        an FFT, whose round-off (about 1e-16 of the mass involved) is set to 0.

        Raises
        ------
        ModelError
            If more than ``tol`` of the mass is still inside after ``max_steps`` steps.

        Examples
        --------
        >>> chain = RewardChain.from_outcomes(["spin"], [[(2, ABSORB, 3), (0, 0, 1)]])
        >>> d = chain.total_reward_distribution("spin", tol=1e-9)
        >>> d.values.tolist(), d.lost_mass < 1e-9
        ([2], True)
        """
        return self.propagate(start, tol=tol, max_steps=max_steps)[0]

    def propagate(self, start: Hashable, *, tol: float = 1e-12, max_steps: int = 100_000) -> tuple[WinLaw, int]:
        """:meth:`total_reward_distribution` and the steps it propagated.

        Examples
        --------
        >>> chain = RewardChain.from_outcomes(["spin"], [[(2, ABSORB, 3), (0, 0, 1)]])
        >>> chain.propagate("spin", tol=1e-9)[1]
        15
        """
        if not 0 <= tol < 1:
            msg = f"tol must be in [0, 1), got {tol}"
            raise ModelError(msg)
        return propagate_rewards(self._kernels, self.index(start), start, tol=tol, max_steps=max_steps)
