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

# ``name as name``: type aliases outside __all__, still importable from mathkit.chains.markov.
from .chain import RewardChain
from .distribution import FFT_MIN_SUPPORT
from .distribution import FloatArray as FloatArray
from .distribution import IntArray as IntArray
from .solve import ABSORB, EXACT_MAX_STATES, ExactLU, exact_lu, geometric_check, never_ending
from .solve import Outcome as Outcome

__all__ = [
    "ABSORB",
    "EXACT_MAX_STATES",
    "FFT_MIN_SUPPORT",
    "ExactLU",
    "RewardChain",
    "exact_lu",
    "geometric_check",
    "never_ending",
]
